#!/usr/bin/env python3
"""report_robust_h5: results files that once made `pfsread report` crash, hang, eat memory or
contradict itself, written with h5py alone in pfsread's schema (report_h5's writer), for
report_robust.t.

usage: report_robust_h5.py DIR
       report_robust_h5.py --targets FILE
The second form makes a results file of tests/bench/results_gen.py (schema 3) one of schema 5:
each file row on one of two storage targets in turn (rows 0, 2, 4, ... on "srv0:/b0").
The first writes into DIR:
  bomb.h5      a phase of 40 files whose files table declares 2^27 rows and stores none
  bomb_lie.h5  the same, its nfiles attribute saying 2^27 too: the rows are still not stored
  renamed.h5   the ranks table of phase 1 with its field 'bytes' renamed 'bytez'
  nan.h5       one phase whose every time (ranks, files, elapsed_s, bandwidth) is NaN
  killed.h5    5 phases in two parts: the first wrote 2 and ended; the second was killed
               (no end_time, no phases_written) after it had written 3
  odd.h5       one phase whose status is a word pfsread never writes ("exploded")
Needs python3 with h5py and numpy (Debian: python3-h5py).
"""
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_h5  # noqa: E402  (the schema, written by hand once)

BIG = 100000000
CONFIG = """name: robust
root: /nonexistent/pfsread-robust
datasets:
  - {name: big, file_size: 100MB, file_count: 40}
"""


def forty_files(f, index):
    """A phase of 40 files, 10 per rank, read back to back in 1 s each."""
    files = {r: report_h5.seq(10 * r, [(0.01, 1.0, 0.01)] * 10, BIG) for r in range(4)}
    report_h5.phase(f, index, "big", BIG, 2, index, "drop", files)


def bomb(path, lie):
    with h5py.File(path, "w") as f:
        report_h5.root(f, CONFIG)
        forty_files(f, 0)
        g = f["phases/0000"]
        del g["files"]
        # declared, never written: HDF5 allocates nothing and reads fill values
        g.create_dataset("files", shape=(2 ** 27,), dtype=report_h5.FILE_DT)
        if lie:
            g.attrs["nfiles"] = np.uint64(2 ** 27)


def renamed(path):
    with h5py.File(path, "w") as f:
        report_h5.root(f, CONFIG)
        forty_files(f, 0)
        forty_files(f, 1)
        g = f["phases/0001"]
        ranks = g["ranks"][...]
        names = [("bytez" if n == "bytes" else n) for n in ranks.dtype.names]
        ranks.dtype.names = names
        del g["ranks"]
        g["ranks"] = ranks


def nan(path):
    with h5py.File(path, "w") as f:
        report_h5.root(f, CONFIG)
        forty_files(f, 0)
        g = f["phases/0000"]
        ranks = g["ranks"][...]
        for k in ("start", "end", "open_s", "read_s", "close_s", "io_s"):
            ranks[k] = np.nan
        del g["ranks"]
        g["ranks"] = ranks
        files = g["files"][...]
        for k in ("open_start", "open_end", "read_end", "close_end"):
            files[k] = np.nan
        del g["files"]
        g["files"] = files
        g.attrs["elapsed_s"] = np.nan
        g.attrs["bandwidth_MBps"] = np.nan


def killed(path):
    with h5py.File(path, "w") as f:
        report_h5.root(f, CONFIG)
        for i in range(5):
            forty_files(f, i)
        parts = f.create_group("parts")
        done = parts.create_group("0000")
        for k, v in (("start_time", "2024-05-01T10:00:00Z"), ("end_time", "2024-05-01T11:00:00Z"),
                     ("job_id", "101"), ("hosts", "n1,n2"), ("command_line", "pfsread run x"),
                     ("status", "partial")):
            done.attrs[k] = v
        done.attrs["phases_written"] = np.uint32(2)
        cut = parts.create_group("0001")
        for k, v in (("start_time", "2024-05-01T12:00:00Z"), ("job_id", "102"),
                     ("hosts", "n1,n2"), ("command_line", "pfsread run x --resume"),
                     ("status", "running")):
            cut.attrs[k] = v


def odd(path):
    with h5py.File(path, "w") as f:
        report_h5.root(f, CONFIG)
        forty_files(f, 0)
        f["phases/0000"].attrs["status"] = "exploded"


def targets(path):
    with h5py.File(path, "r+") as f:
        f.attrs["schema_version"] = np.int32(5)
        for g in f["phases"].values():
            g.attrs["advice"] = "none"
            g.attrs["hints"] = ""
            ranks = g["ranks"][...]
            dt = np.dtype(ranks.dtype.descr + [("overlap_s", "<f8")])
            wider = np.zeros(len(ranks), dtype=dt)
            for k in ranks.dtype.names:
                wider[k] = ranks[k]
            del g["ranks"]
            g["ranks"] = wider
            files = g["files"][...]
            dt = np.dtype(files.dtype.descr + [("target", "<u4")])
            wider = np.zeros(len(files), dtype=dt)
            for k in files.dtype.names:
                wider[k] = files[k]
            wider["target"] = 1 + np.arange(len(files)) % 2
            del g["files"]
            g["files"] = wider
            g["targets"] = np.array([b"not looked up", b"srv0:/b0", b"srv1:/b1"], dtype="S128")


def main():
    if sys.argv[1] == "--targets":
        targets(sys.argv[2])
        return
    out = sys.argv[1]
    bomb(os.path.join(out, "bomb.h5"), False)
    bomb(os.path.join(out, "bomb_lie.h5"), True)
    renamed(os.path.join(out, "renamed.h5"))
    nan(os.path.join(out, "nan.h5"))
    killed(os.path.join(out, "killed.h5"))
    odd(os.path.join(out, "odd.h5"))


if __name__ == "__main__":
    main()
