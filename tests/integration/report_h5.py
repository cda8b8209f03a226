#!/usr/bin/env python3
"""report_h5: results files with known timings for the report test, written with h5py alone
in pfsread's schema (README "Results file"), so that the expected figures can be worked out by
hand in report.t instead of by the code under test.

usage: report_h5.py DIR
writes DIR/a.h5, DIR/b.h5 (two runs to compare), DIR/empty.h5 (HDF5 but not pfsread),
DIR/future.h5 (schema version 99).
Needs python3 with h5py and numpy (Debian: python3-h5py).
"""
import os
import sys

import h5py
import numpy as np

RANK_DT = np.dtype([("rank", "<i4"), ("node", "<i4"), ("active", "<i4"), ("start", "<f8"),
                    ("end", "<f8"), ("bytes", "<u8"), ("files", "<u8"), ("open_s", "<f8"),
                    ("read_s", "<f8"), ("close_s", "<f8"), ("resident_fraction", "<f8"),
                    ("verify_s", "<f8"), ("io_s", "<f8"), ("process_s", "<f8")])
FILE_DT = np.dtype([("file", "<u8"), ("rank", "<i4"), ("open_start", "<f8"),
                    ("open_end", "<f8"), ("read_end", "<f8"), ("close_end", "<f8"),
                    ("bytes", "<u8"), ("error", "<i4")])
NODE_OF_RANK = [0, 0, 1, 1]  # 4 ranks, 2 nodes
HOSTS = [b"n1", b"n2"]

CONFIG_A = """name: a
root: /nonexistent/pfsread-report-test
datasets:
  - {name: big, file_size: 100MB, file_count: 4}
  - {name: small, file_size: 1MB, file_count: 8}
sweep: {readers_per_node: [1, 2]}
repetitions: 2
cache: drop
hardware: {node_link_MBps: 100, node_disk_MBps: 300, storage_servers: 4,
           server_disk_MBps: 40, server_link_MBps: 1000}
"""
CONFIG_B = """name: b
root: /nonexistent/pfsread-report-test
datasets:
  - {name: big, file_size: 100MB, file_count: 4}
  - {name: huge, file_size: 1GB, file_count: 2}
sweep: {readers_per_node: [1, 2]}
repetitions: 2
cache: fadvise
"""


def root(f, config, schema=1):
    a = f.attrs
    a["pfsread_version"] = "0.1.0"
    a["schema_version"] = np.int32(schema)
    a["config_yaml"] = config
    a["config_path"] = "configs/test.yaml"
    a["command_line"] = "pfsread run configs/test.yaml"
    a["start_time"] = "2024-05-01T10:00:00Z"
    a["mpi_version"] = "test"
    a["hdf5_version"] = "test"
    a["job_id"] = ""
    a["status"] = "complete"
    a["nranks"] = np.int32(4)
    a["nnodes"] = np.int32(2)
    t = f.create_group("topology")
    t["node_of_rank"] = np.array(NODE_OF_RANK, dtype="<i4")
    t["hostname"] = np.array(HOSTS, dtype="S256")
    t["clock_offset_s"] = np.zeros(2)


def phase(f, index, ds, fsize, rpn, rep, cache, files, resident=0.0, extra=None):
    """files: {rank: [(file, open_start, open_end, read_end, close_end, bytes), ...]};
    extra: attributes that replace the defaults ({"backend": "mmap"})."""
    g = f.require_group("phases").create_group("%04d" % index)
    ranks = np.zeros(4, dtype=RANK_DT)
    rows = []
    for r in range(4):
        ranks[r]["rank"], ranks[r]["node"] = r, NODE_OF_RANK[r]
        mine = files.get(r, [])
        if not mine:
            continue
        ranks[r]["active"] = 1
        ranks[r]["start"] = min(x[1] for x in mine)
        ranks[r]["end"] = max(x[4] for x in mine)
        ranks[r]["bytes"] = sum(x[5] for x in mine)
        ranks[r]["files"] = len(mine)
        ranks[r]["open_s"] = sum(x[2] - x[1] for x in mine)
        ranks[r]["read_s"] = sum(x[3] - x[2] for x in mine)
        ranks[r]["close_s"] = sum(x[4] - x[3] for x in mine)
        ranks[r]["io_s"] = sum(x[4] - x[1] for x in mine)
        ranks[r]["resident_fraction"] = resident
        rows += [(x[0], r, x[1], x[2], x[3], x[4], x[5], 0) for x in mine]
    active = ranks[ranks["active"] == 1]
    nbytes = int(active["bytes"].sum())
    elapsed = float(active["end"].max() - active["start"].min())
    a = g.attrs
    for k, v in (("index", np.uint32(index)), ("dataset", ds), ("file_size", np.uint64(fsize)),
                 ("nfiles", np.uint64(len(rows))), ("readers_per_node", np.int32(rpn)),
                 ("active_readers", np.int32(len(active))), ("backend", "posix"),
                 ("transfer_size", np.uint64(4 << 20)), ("order", "sorted"), ("cache", cache),
                 ("repetition", np.int32(rep)), ("seed", np.uint64(1)),
                 ("pattern", "per-reader"), ("decomposition", "block"),
                 ("queue_depth", np.int32(1)), ("noatime", np.int32(0)),
                 ("atime_mode", "relatime"), ("mpiio_hints", ""), ("process", "none"),
                 ("resident_fraction", float(resident)), ("bytes", np.uint64(nbytes)),
                 ("elapsed_s", elapsed), ("bandwidth_MBps", nbytes / elapsed / 1e6),
                 ("status", "complete")):
        a[k] = v
    for k, v in (extra or {}).items():
        a[k] = v
    g["ranks"] = ranks
    g["files"] = np.array(rows, dtype=FILE_DT)


def seq(first, times, size):
    """Files first, first+1, ... read back to back: times are (open, read) seconds each."""
    out, t = [], 0.0
    for i, (o, r, c) in enumerate(times):
        out.append((first + i, t, t + o, t + o + r, t + o + r + c, size))
        t += o + r + c
    return out


def run_a(path):
    big, small = 100000000, 1000000
    with h5py.File(path, "w") as f:
        root(f, CONFIG_A)
        # big x 1 reader/node: ranks 0 (node n1) and 2 (node n2), two files each
        phase(f, 0, "big", big, 1, 0, "drop",
              {0: seq(0, [(0, 1, 0), (0, 1, 0)], big), 2: seq(2, [(0, 2, 0), (0, 2, 0)], big)})
        phase(f, 1, "big", big, 1, 1, "drop",
              {0: seq(0, [(0, 1, 0), (0, 1, 0)], big),
               2: seq(2, [(0, 1.5, 0), (0, 1.5, 0)], big)})
        # big x 2 readers/node: one file per rank
        phase(f, 2, "big", big, 2, 0, "drop", {r: seq(r, [(0, 1, 0)], big) for r in range(4)})
        phase(f, 3, "big", big, 2, 1, "drop",
              {0: seq(0, [(0, 1, 0)], big), 1: seq(1, [(0, 1, 0)], big),
               2: seq(2, [(0, 1, 0)], big), 3: seq(3, [(0, 2, 0)], big)})
        # small x 2 readers/node: 2 files per rank, open 10 ms, read 20 ms, close 10 ms each
        phase(f, 4, "small", small, 2, 0, "drop",
              {r: seq(2 * r, [(0.01, 0.02, 0.01)] * 2, small) for r in range(4)})
        # big x 2 again, 97% of it in the page cache although cache is drop: warm (a file of
        # schema 1 records no cache_state: the reader derives it from resident_fraction)
        phase(f, 5, "big", big, 2, 2, "drop", {r: seq(r, [(0, 0.25, 0)], big) for r in range(4)},
              resident=0.97)


def run_b(path, environment=None):
    big, huge = 100000000, 1000000000
    with h5py.File(path, "w") as f:
        root(f, CONFIG_B)
        if environment:
            env = f.create_group("environment")
            for key, value in environment.items():
                env.attrs[key] = value
        phase(f, 0, "big", big, 1, 0, "fadvise",
              {0: seq(0, [(0, 1, 0), (0, 1, 0)], big),
               2: seq(2, [(0, 1.25, 0), (0, 1.25, 0)], big)})
        phase(f, 1, "big", big, 1, 1, "fadvise",
              {0: seq(0, [(0, 1, 0), (0, 1, 0)], big), 2: seq(2, [(0, 1, 0), (0, 1, 0)], big)})
        phase(f, 2, "big", big, 2, 0, "fadvise",
              {r: seq(r, [(0, 0.5, 0)], big) for r in range(4)})
        phase(f, 3, "huge", huge, 1, 0, "fadvise",
              {0: seq(0, [(0, 2, 0)], huge), 2: seq(1, [(0, 2, 0)], huge)})


def main():
    out = sys.argv[1]
    run_a(os.path.join(out, "a.h5"))
    run_b(os.path.join(out, "b.h5"))
    # b again, its data root on GlusterFS: read over the links, not from a node's disk
    run_b(os.path.join(out, "remote.h5"), {"fs_type": "glusterfs (fuse)",
                                           "fs_mount_type": "fuse.glusterfs",
                                           "fs_mount_source": "10.77.0.10:/vol"})
    with h5py.File(os.path.join(out, "empty.h5"), "w") as f:
        f.attrs["something"] = 1
    with h5py.File(os.path.join(out, "future.h5"), "w") as f:
        root(f, CONFIG_A, schema=99)


if __name__ == "__main__":
    main()
