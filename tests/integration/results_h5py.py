#!/usr/bin/env python3
"""results_h5py: check a pfsread results file with h5py alone, independently of pfsread's reader.

usage: results_h5py.py FILE EXPECT_JSON

EXPECT_JSON is a JSON object; every key is optional:
  {"phases": N, "nranks": R, "nnodes": M, "status": "complete",
   "datasets": {"NAME": {"nfiles": F, "bytes": B, "dir": "ROOT/NAME"}}}
"datasets" gives, per data set name, the file count and the bytes a complete phase reads, and
"dir" the data set's directory: each file's size is then taken from the file itself (os.stat of
dNNNNNN/fNNNNNNNNNN or fNNNNNNNNNN, the index from the name; for a hashed layout, the name list
gives file i's name; for a tree read in place, line i of the description .pfsread-tree names
file i inside the tree), for data sets whose files differ in size.

Checks the root attributes and topology, then every phase: its attributes are all present
and its storage targets (a targets table whose entry 0 is "not looked up", every file row's
target an index into it)
(strings read back as str); and for a complete phase: bytes == nfiles * file_size (or, with
"dir", the sum of the files' sizes on disk) == the sum of files[].bytes, and each file's bytes
== its size; every file index 0..nfiles-1 appears exactly once; per node the active ranks are
min(readers_per_node, ranks on the node) and add up to active_readers; each rank's files and
bytes match its file rows; open_start <= read_end <= close_end for every file row; start <= end
for every active rank; bandwidth_MBps == bytes / elapsed_s / 1e6; the ranks' exits from the
opening barrier start at 0 and end at start_skew_s, open_s + read_s + close_s within each
rank's span and, with overlap_s, equal to its files' summed times, cpu_user_s and cpu_sys_s
finite and not negative, flagged "clock" exactly when beyond
clock_bound_s; cache_state follows resident_fraction (cold <= 5%, warm >= 95%).

Exit status: 0 when everything holds (one summary line on stdout); 1 at the first failure, with
one line on stderr naming the file, the object and what is wrong; 2 on a usage error.
Needs python3 with h5py and numpy (Debian: python3-h5py).
"""
import json
import math
import os
import re
import sys

import h5py
import numpy as np

ROOT_ATTRS = {"pfsread_version": str, "schema_version": int, "config_yaml": str,
              "config_path": str, "command_line": str, "start_time": str, "mpi_version": str,
              "hdf5_version": str, "job_id": str, "status": str, "nranks": int, "nnodes": int}
PHASE_ATTRS = {"index": int, "dataset": str, "file_size": int, "nfiles": int,
               "readers_per_node": int, "active_readers": int, "backend": str,
               "transfer_size": int, "order": str, "cache": str, "repetition": int, "seed": int,
               "bytes": int, "elapsed_s": float, "bandwidth_MBps": float, "status": str,
               "pattern": str, "decomposition": str, "queue_depth": int, "noatime": int,
               "atime_mode": str, "mpiio_hints": str, "resident_fraction": float,
               "process": str, "cache_state": str, "cache_evict": str, "start_skew_s": float,
               "clock_bound_s": float, "flags": str, "provenance": str, "advice": str,
               "hints": str, "origin_s": float}
RANK_FIELDS = ("rank", "node", "active", "start", "end", "bytes", "files", "open_s", "read_s",
               "close_s", "resident_fraction", "verify_s", "io_s", "process_s", "barrier_s",
               "clock_offset_s", "clock_error_s", "storage_read_bytes", "rchar", "net_rx_bytes",
               "counted", "peak_rss", "overlap_s", "cpu_user_s", "cpu_sys_s")
FILE_FIELDS = ("file", "rank", "open_start", "read_end", "close_end", "bytes", "target")


class Failure(Exception):
    pass


def check(cond, where, what):
    if not cond:
        raise Failure("%s: %s" % (where, what))


def attrs_of(obj, where, spec):
    """The attributes named in spec as Python values, each of the expected kind."""
    out = {}
    for name, kind in spec.items():
        check(name in obj.attrs, where, "attribute %s missing" % name)
        value = obj.attrs[name]
        if kind is str:
            check(isinstance(value, str), where,
                  "attribute %s is %s, not str" % (name, type(value).__name__))
        elif kind is int:
            check(np.issubdtype(np.asarray(value).dtype, np.integer), where,
                  "attribute %s is not an integer" % name)
            value = int(value)
        else:
            value = float(value)
        out[name] = value
    return out


def check_root(f, expect):
    root = attrs_of(f, "/", ROOT_ATTRS)
    check(root["schema_version"] == 7, "/", "schema_version %d" % root["schema_version"])
    for key in ("nranks", "nnodes", "status"):
        if key in expect:
            check(root[key] == expect[key], "/", "%s is %r, expected %r" % (key, root[key], expect[key]))
    node_of_rank = f["topology/node_of_rank"][()]
    hostnames = f["topology/hostname"][()]
    offsets = f["topology/clock_offset_s"][()]
    check(node_of_rank.shape == (root["nranks"],), "/topology/node_of_rank", "wrong length")
    check(hostnames.shape == (root["nnodes"],) and offsets.shape == (root["nnodes"],),
          "/topology", "hostname or clock_offset_s has the wrong length")
    check(((node_of_rank >= 0) & (node_of_rank < root["nnodes"])).all(),
          "/topology/node_of_rank", "a node out of range")
    check(all(len(h) > 0 for h in hostnames), "/topology/hostname", "an empty hostname")
    return root, node_of_rank


def check_rows(g, where, name, fields, nrows=None):
    check(name in g, where, "dataset %s missing" % name)
    rows = g[name][()]
    check(rows.dtype.names is not None and set(fields) <= set(rows.dtype.names),
          "%s/%s" % (where, name), "fields %s, expected %s" % (rows.dtype.names, fields))
    if nrows is not None:
        check(rows.shape == (nrows,), "%s/%s" % (where, name),
              "%d rows, expected %d" % (rows.shape[0], nrows))
    return rows


def hashed_layout(directory):
    """(depth, width, kind) when the manifest in directory says the layout is hashed."""
    try:
        with open(os.path.join(directory, ".pfsread-manifest")) as f:
            for line in f:
                w = line.split()
                if len(w) == 5 and w[0] == "layout" and w[1] == "hashed":
                    return int(w[2]), int(w[3]), w[4]
    except OSError:
        pass
    return None


def in_place_files(directory):
    """The tree's files by index (source + relative path) when the manifest in directory says
    the data set is read in place, else None."""
    try:
        with open(os.path.join(directory, ".pfsread-manifest")) as f:
            if "layout in-place\n" not in f.read():
                return None
        with open(os.path.join(directory, ".pfsread-tree"), "rb") as f:
            lines = f.read().split(b"\n")
    except OSError:
        return None
    unescape = lambda b: re.sub(rb"%([0-9A-F]{2})", lambda m: bytes([int(m.group(1), 16)]), b)
    source = [unescape(l[7:]) for l in lines if l.startswith(b"source ")][0]
    return [os.path.join(source, unescape(l.split(b" ", 2)[2]))
            for l in lines if l.startswith(b"f ")]


def sizes_on_disk(where, directory, n):
    """Each file's size, by index, from the data set's directory (os.stat of every file).
    A hashed data set's files are found through its name list (line i: file i's name)."""
    sizes = np.full(n, -1, dtype=np.int64)
    tree = in_place_files(directory)
    if tree is not None:
        check(len(tree) == n, where, "%s lists %d files, not %d" % (directory, len(tree), n))
        for i, path in enumerate(tree):
            sizes[i] = os.stat(path).st_size
        return sizes
    hashed = hashed_layout(directory)
    if hashed is not None:
        depth, width, kind = hashed
        with open(os.path.join(directory, ".pfsread-digests-" + kind)) as f:
            names = f.read().split("\n")
        for i in range(n):
            name = names[i]
            parts = [name[k * width:(k + 1) * width] for k in range(depth)]
            sizes[i] = os.stat(os.path.join(directory, *parts, name)).st_size
        return sizes
    for sub, _, names in os.walk(directory):
        for name in names:
            m = re.fullmatch(r"f(\d{10})", name)
            if m is not None and int(m.group(1)) < n:
                sizes[int(m.group(1))] = os.stat(os.path.join(sub, name)).st_size
    check((sizes >= 0).all(), where, "%s lacks some of its %d files" % (directory, n))
    return sizes


def check_files(where, a, files, directory=None):
    """Per reader: each file once, whole. Shared: each file once per active reader, slices
    adding up to the whole file. Sizes are file_size each, or those on disk in directory."""
    n = a["nfiles"]
    per_file = a["active_readers"] if a.get("pattern", "per-reader") == "shared" else 1
    if directory is None:
        sizes = np.full(n, a["file_size"], dtype=np.int64)
        check(a["bytes"] == n * a["file_size"], where,
              "bytes %d != nfiles %d x file_size %d" % (a["bytes"], n, a["file_size"]))
    else:
        sizes = sizes_on_disk(where, directory, n)
        check(a["bytes"] == int(sizes.sum()), where,
              "bytes %d != %d, the sum of the sizes on disk" % (a["bytes"], int(sizes.sum())))
    check(int(files["bytes"].sum()) == a["bytes"], where,
          "files[].bytes add up to %d, not bytes %d" % (int(files["bytes"].sum()), a["bytes"]))
    idx = files["file"]
    check(len(idx) == n * per_file and (idx < n).all(), where + "/files",
          "%d rows for %d files x %d readers each, or an index out of range"
          % (len(idx), n, per_file))
    check(n == 0 or (np.bincount(idx.astype(np.int64), minlength=n) == per_file).all(),
          where + "/files", "a file read too often or never")
    per_file_bytes = np.bincount(idx.astype(np.int64), weights=files["bytes"], minlength=n)
    bad = np.nonzero(per_file_bytes != sizes)[0]
    check(n == 0 or len(bad) == 0, where + "/files",
          "file %s: bytes read %s, its size is %s" % (bad[0], per_file_bytes[bad[0]], sizes[bad[0]])
          if len(bad) else "")
    check(("open_end" not in files.dtype.names or
           ((files["open_start"] <= files["open_end"]).all() and
            (files["open_end"] <= files["read_end"]).all())) and
          (files["read_end"] <= files["close_end"]).all(), where + "/files",
          "a row breaks open_start <= read_end <= close_end")


def check_ranks(where, a, ranks, files, node_of_rank):
    nranks = len(node_of_rank)
    check((ranks["rank"] == np.arange(nranks)).all(), where + "/ranks", "rank column is not 0..n-1")
    check((ranks["node"] == node_of_rank).all(), where + "/ranks", "node differs from topology")
    active = ranks["active"] != 0
    check(int(active.sum()) == a["active_readers"], where,
          "%d active ranks, active_readers %d" % (int(active.sum()), a["active_readers"]))
    for node in np.unique(node_of_rank):
        on_node = node_of_rank == node
        want = min(a["readers_per_node"], int(on_node.sum()))
        got = int((active & on_node).sum())
        check(got == want, where, "node %d has %d active ranks, expected %d" % (node, got, want))
    check((ranks["start"][active] <= ranks["end"][active]).all(), where + "/ranks",
          "an active rank with start > end")
    per_rank_files = np.bincount(files["rank"], minlength=nranks)[:nranks]
    per_rank_bytes = np.bincount(files["rank"], weights=files["bytes"], minlength=nranks)[:nranks]
    check(len(files) == 0 or (files["rank"] < nranks).all(), where + "/files", "a rank out of range")
    check((ranks["files"] == per_rank_files).all(), where + "/ranks",
          "files per rank differ from the file rows")
    check((ranks["bytes"] == per_rank_bytes).all(), where + "/ranks",
          "bytes per rank differ from the file rows")
    check(not (per_rank_files[~active] > 0).any(), where, "an inactive rank read files")
    # the time split: I/O calls and processing, each inside the rank's own span of the phase
    span = np.where(active, ranks["end"] - ranks["start"], 0) + 1e-6
    check((ranks["io_s"] >= 0).all() and (ranks["process_s"] >= 0).all(), where,
          "negative io_s or process_s")
    check((ranks["io_s"] + ranks["process_s"] <= span * 1.001 + 1e-4).all(), where,
          "io_s + process_s longer than the rank's span")
    check(not (ranks["process_s"][~active] > 0).any(), where, "an inactive rank processed")
    # open_s, read_s and close_s are wall time, each instant counted once, whatever the read
    # path (a pipeline's overlapping requests apart, in overlap_s): together inside the span,
    # and with overlap_s they give back the per-file sums
    steps = ranks["open_s"] + ranks["read_s"] + ranks["close_s"]
    check((steps <= span * 1.001 + 1e-4).all(), where,
          "open_s + read_s + close_s %s longer than the ranks' spans %s" % (steps, span))
    check((ranks["overlap_s"] >= -1e-6).all(), where, "negative overlap_s")
    sums = np.bincount(files["rank"], weights=files["close_end"] - files["open_start"],
                       minlength=nranks)[:nranks] if len(files) else np.zeros(nranks)
    check(np.allclose(steps + ranks["overlap_s"], sums, rtol=1e-6, atol=1e-6), where,
          "open_s + read_s + close_s + overlap_s %s differ from the files' summed times %s"
          % (steps + ranks["overlap_s"], sums))
    # the CPU time of each rank's process in the timed part: known, and not negative
    cpu = ranks["cpu_user_s"] + ranks["cpu_sys_s"]
    check(np.isfinite(cpu).all() and (ranks["cpu_user_s"] >= 0).all() and
          (ranks["cpu_sys_s"] >= 0).all(), where, "cpu_user_s or cpu_sys_s unknown or negative")


def check_clock(where, a, ranks):
    """The opening barrier's exits: one of them is the phase's time 0, the latest is the skew;
    the flag says whether the skew is beyond the bound; the cache state follows the residency."""
    exits = ranks["barrier_s"]
    check(exits.min() == 0 and exits.max() == a["start_skew_s"], where,
          "barrier_s %s against start_skew_s %g" % (exits, a["start_skew_s"]))
    check(a["clock_bound_s"] > 0 and (ranks["clock_error_s"] >= 0).all(), where,
          "clock_bound_s %g, clock_error_s %s" % (a["clock_bound_s"], ranks["clock_error_s"]))
    flagged = "clock" in a["flags"].split(",")
    check(flagged == (a["start_skew_s"] > a["clock_bound_s"]), where,
          "flags %r with skew %g and bound %g" % (a["flags"], a["start_skew_s"], a["clock_bound_s"]))
    r = a["resident_fraction"]
    state = ("unknown" if math.isnan(r) else "cold" if r <= 0.05 else "warm" if r >= 0.95
             else "mixed")
    check(a["cache_state"] == state, where,
          "cache_state %r with resident_fraction %g" % (a["cache_state"], r))


def check_targets(g, where, files):
    """/phases/NNNN/targets: strings, entry 0 "not looked up", every row's target an index."""
    check("targets" in g, where, "dataset targets missing")
    names = [t.decode() if isinstance(t, bytes) else str(t) for t in g["targets"][()]]
    check(len(names) >= 1 and names[0] == "not looked up", where + "/targets",
          "entry 0 is %r" % (names[:1],))
    check(len(set(names)) == len(names), where + "/targets", "a name twice: %r" % names)
    check(len(files) == 0 or int(files["target"].max()) < len(names), where + "/files",
          "a target index beyond the %d names of targets" % len(names))


def check_phase(g, where, node_of_rank, expect):
    a = attrs_of(g, where, PHASE_ATTRS)
    check("%04d" % a["index"] == where.rsplit("/", 1)[1], where, "index %d" % a["index"])
    ranks = check_rows(g, where, "ranks", RANK_FIELDS, len(node_of_rank))
    files = check_rows(g, where, "files", FILE_FIELDS)
    check_targets(g, where, files)
    check_clock(where, a, ranks)
    if a["status"] != "complete":
        return a
    want = expect.get("datasets", {}).get(a["dataset"])
    if want is not None:
        for key in ("nfiles", "bytes"):
            if key in want:
                check(a[key] == want[key], where, "%s %d, expected %d" % (key, a[key], want[key]))
    check_files(where, a, files, (want or {}).get("dir"))
    check_ranks(where, a, ranks, files, node_of_rank)
    check(a["elapsed_s"] > 0, where, "elapsed_s %g" % a["elapsed_s"])
    bw = a["bytes"] / a["elapsed_s"] / 1e6
    check(abs(a["bandwidth_MBps"] - bw) <= 1e-6 * max(bw, 1.0), where,
          "bandwidth_MBps %g, bytes / elapsed_s gives %g" % (a["bandwidth_MBps"], bw))
    return a


def check_file(path, expect):
    with h5py.File(path, "r") as f:
        root, node_of_rank = check_root(f, expect)
        check("phases" in f, "/", "group phases missing")
        names = sorted(f["phases"], key=int)
        if "phases" in expect:
            check(len(names) == expect["phases"], "/phases",
                  "%d phases, expected %d" % (len(names), expect["phases"]))
        for name in names:
            check_phase(f["phases"][name], "/phases/" + name, node_of_rank, expect)
    return len(names)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: results_h5py.py FILE EXPECT_JSON\n")
        return 2
    try:
        expect = json.loads(argv[2])
    except ValueError as err:
        sys.stderr.write("results_h5py: EXPECT_JSON: %s\n" % err)
        return 2
    try:
        n = check_file(argv[1], expect)
    except (Failure, OSError, KeyError, ValueError) as err:
        sys.stderr.write("results_h5py: %s: %s\n" % (argv[1], err))
        return 1
    print("results_h5py: %s: %d phases checked" % (argv[1], n))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
