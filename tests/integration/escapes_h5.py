#!/usr/bin/env python3
"""escapes_h5: a results file of pfsread's own, made hostile to a terminal, for escapes.t.
Every host name (/topology/hostname), every storage target of every phase (targets, the
first real one on every file row) and every phase's data set name hold terminal escapes:
ESC ] 0 ; x BEL (sets the window title), ESC [ 2 J (clears the screen), CSI as a C1
character in UTF-8 (C2 9B), a raw 0x9B and other bytes 0x80-0x9F that are not UTF-8, DEL,
a newline and valid UTF-8 (e-acute) that must come out whole.

usage: escapes_h5.py FILE   (FILE: a results file of schema 5, rewritten in place)
Prints the hostile host name as hex, for the test to compare what a CSV reader gets back.
Needs python3 with h5py and numpy (Debian: python3-h5py).
"""
import sys

import h5py
import numpy as np

HOSTILE = (b"n\x1b]0;x\x07\x1b[2Jc\xc2\x9b" b"2Jr\x9b" b"31m\x80\x9f\x7f\n"
           b"caf\xc3\xa9")


def main():
    with h5py.File(sys.argv[1], "r+") as f:
        n = len(f["topology/hostname"])
        del f["topology/hostname"]
        f["topology/hostname"] = np.array([HOSTILE + b"%d" % i for i in range(n)],
                                          dtype="S256")
        for name in f["phases"]:
            p = f["phases"][name]
            names = [b"not looked up", b"t" + HOSTILE]
            dt = p["targets"].dtype
            del p["targets"]
            p["targets"] = np.array(names, dtype=dt)
            rows = p["files"][:]
            rows["target"] = 1
            p["files"][...] = rows
            p.attrs["dataset"] = np.bytes_(b"s" + HOSTILE)
    print((HOSTILE + b"0").hex())


if __name__ == "__main__":
    main()
