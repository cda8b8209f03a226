#!/usr/bin/env python3
"""hostile_h5: a results file as a stranger could send it, for inject.t. Every string the report
reads (root attributes, /environment keys and values, host names, every string attribute of
every phase) holds what would run a command if it reached gnuplot or a shell unquoted:
backquotes, $(...), system("..."), quotes that try to close a string, newlines followed by a
command (gnuplot's `!cmd` and a bare system() line), @ macros, a trailing backslash. Each
command creates a file named after the field in the current directory, so "nothing ran" is
"the directory the report ran in is still empty". Data set names also start with = + - @, a
tab and a carriage return (spreadsheet formulas) and hold | and newlines (markdown tables).

usage: hostile_h5.py FILE
Needs python3 with h5py and numpy (Debian: python3-h5py); reuses report_h5's schema writer.
"""
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_h5  # noqa: E402  (the schema, written by hand once)


def payload(tag, limit=4000, prefix=""):
    """prefix, then every way to run `touch X-TAG` that fits in limit bytes (the reader's
    limit for the field; the shortest, a backquote, comes first)."""
    ways = ["`touch b%s`" % tag, "$(touch d%s)" % tag, "'.system('touch s%s').'" % tag,
            '".system("touch q%s")."' % tag, "\n!touch n%s\nsystem('touch m%s')\n" % (tag, tag),
            "@x <script>alert(1)</script> a|b", "\\"]
    out = prefix
    for w in ways:
        if len((out + w).encode()) <= limit:
            out += w
    return out


# data set names (127 bytes at most): a formula for a spreadsheet and broken markdown, each
# also a payload
DATASETS = [payload("ds%d" % i, 127, p) for i, p in
            enumerate(["=HYPERLINK(\"x\")", "+1+2", "-2+3", "@SUM(1)", "\tx", "\rx|y\nz"])]
# the reader's sizes of the string attributes of a phase, less the NUL
PHASE_STR = {"backend": 31, "order": 15, "cache": 15, "pattern": 15, "decomposition": 15,
             "atime_mode": 15, "mpiio_hints": 511, "process": 31}

CONFIG = """name: hostile
root: /nonexistent/pfsread-hostile
datasets:
  - {name: big, file_size: 100MB, file_count: 4}
hardware: {node_link_MBps: 100}
"""


def poison_root(f):
    a = f.attrs
    for k in ("pfsread_version", "command_line", "start_time", "mpi_version", "hdf5_version",
              "job_id"):
        a[k] = payload("root-" + k)
    # the config's path names the charts (its base name): no slash in the payload's name
    a["config_path"] = "configs/study" + payload("cfgpath").replace("/", "") + ".yaml"
    a["config_yaml"] = CONFIG + "# " + payload("yaml") + "\n"
    hosts = [payload("h1", 255, "n1").encode(), payload("h2", 255, "=n2").encode()]
    del f["topology/hostname"]
    f["topology/hostname"] = np.array(hosts, dtype="S256")
    env = f.create_group("environment")
    for k in ("fs_type", "fs_mount_point", "fs_mount_options", "fs_atime_mode", "kernel"):
        env.attrs[k] = payload("env-" + k)
    env.attrs[payload("ek", 200, "k")] = payload("envval")


def poison_phase(g, i):
    for k, limit in PHASE_STR.items():
        g.attrs[k] = payload("%d%s" % (i, k[:2]), limit)


def main():
    big = 100000000
    with h5py.File(sys.argv[1], "w") as f:
        report_h5.root(f, CONFIG)
        n = 0
        for d, name in enumerate(DATASETS):
            for rpn in (1, 2):
                for rep in (0, 1):
                    files = {r: report_h5.seq(r, [(0.01, 1 + 0.1 * rep + 0.05 * d, 0.01)], big)
                             for r in range(4) if rpn == 2 or r % 2 == 0}
                    report_h5.phase(f, n, name, big, rpn, rep, "drop", files)
                    # the first data set keeps the usual keys; the others each their own
                    if d > 0:
                        poison_phase(f["phases/%04d" % n], d)
                    n += 1
        poison_root(f)


if __name__ == "__main__":
    main()
