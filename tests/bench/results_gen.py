#!/usr/bin/env python3
"""results_gen: a synthetic pfsread results file (schema version 3) of any size, for timing
`pfsread report` at the seeds' scale (tests/bench/report_scale.sh, `make bench-scale`).

usage: results_gen.py OUT [--phases N] [--files F] [--datasets D] [--readers 1,2,4]
                          [--repetitions R] [--nodes M] [--ranks-per-node K] [--seed S]

The phases are D data sets x the readers list x R repetitions (or exactly N phases with
--phases, cycling through data sets and readers), each with F file rows. The data sets are the
seeds' four (1 GB, 256 MB, 64 MB, 2 MB files), the first D of them; every phase lists F files
whatever its data set (a synthetic load: the seeds' 2 MB data set has 800,000 files per phase,
the report's cost follows the rows, not the sizes). M nodes of K ranks; r readers per node are
the node's first r ranks; the files are block-decomposed over the active readers in rank
order, each reader reading its files one after the other (open, read, close) at a per-reader
rate with some noise, so every figure the report derives is plausible and consistent: bytes,
elapsed_s, bandwidth_MBps, per-rank sums, the opening barrier's skew (below its bound: no
"clock" flag), cache_state "cold" with resident_fraction 0.

The file is laid out as pfsread's own writer lays it out (src/results.c): HDF5 1.8 format or
later, variable-length UTF-8 string attributes, packed little-endian compound rows, contiguous
datasets without fill, fixed 256-byte NUL-terminated host names, /environment attributes in
creation order. tests/integration/results_h5py.py accepts what it writes. Deterministic for a
given seed. Needs python3 with h5py and numpy (Debian: python3-h5py).

Default: the seeds' study shape, 4 data sets x readers 1/2/4 x 3 repetitions = 36 phases of
10^6 file rows on 100 nodes x 4 ranks (2.0 GB on disk).
"""
import argparse
import sys

import h5py
import numpy as np

SCHEMA_VERSION = 3
HOST_MAX = 256
DATASETS = [("1GB", 1000000000), ("256MB", 256000000), ("64MB", 64000000), ("2MB", 2000000)]
RANK_DT = np.dtype([("rank", "<i4"), ("node", "<i4"), ("active", "<i4"), ("start", "<f8"),
                    ("end", "<f8"), ("bytes", "<u8"), ("files", "<u8"), ("open_s", "<f8"),
                    ("read_s", "<f8"), ("close_s", "<f8"), ("resident_fraction", "<f8"),
                    ("verify_s", "<f8"), ("io_s", "<f8"), ("process_s", "<f8"),
                    ("barrier_s", "<f8"), ("clock_offset_s", "<f8"), ("clock_error_s", "<f8"),
                    ("storage_read_bytes", "<u8"), ("rchar", "<u8"), ("net_rx_bytes", "<u8"),
                    ("counted", "<i4"), ("peak_rss", "<u8")])
FILE_DT = np.dtype([("file", "<u8"), ("rank", "<i4"), ("open_start", "<f8"),
                    ("open_end", "<f8"), ("read_end", "<f8"), ("close_end", "<f8"),
                    ("bytes", "<u8"), ("error", "<i4")])
READER_MBPS = 200.0   # per reader, before noise
OPEN_S, CLOSE_S = 300e-6, 30e-6  # per file, before noise
CLOCK_BOUND_S = 0.1


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out")
    p.add_argument("--phases", type=int, default=0,
                   help="exactly N phases (default: datasets x readers x repetitions)")
    p.add_argument("--files", type=int, default=1000000, help="file rows per phase")
    p.add_argument("--datasets", type=int, default=4, choices=range(1, len(DATASETS) + 1))
    p.add_argument("--readers", default="1,2,4", help="readers per node, comma-separated")
    p.add_argument("--repetitions", type=int, default=3)
    p.add_argument("--nodes", type=int, default=100)
    p.add_argument("--ranks-per-node", type=int, default=4)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv)
    a.readers = [int(x) for x in a.readers.split(",")]
    if (a.files < 1 or a.nodes < 1 or a.ranks_per_node < 1 or a.repetitions < 1 or
            a.phases < 0 or not a.readers or min(a.readers) < 1):
        p.error("files, nodes, ranks-per-node, repetitions and readers must be >= 1")
    if a.files < a.nodes * min(max(a.readers), a.ranks_per_node):
        p.error("fewer files than readers: every active reader must read at least one")
    return a


def phase_list(a):
    """(dataset index, readers per node, repetition) of every phase, in the run's order."""
    cells = [(d, r) for d in range(a.datasets) for r in a.readers]
    n = a.phases or len(cells) * a.repetitions
    return [(cells[i % len(cells)][0], cells[i % len(cells)][1], i // len(cells))
            for i in range(n)]


def config_yaml(a, phases):
    sets = "\n".join("  - {name: %s, file_size: %d, file_count: %d}" % (DATASETS[d][0],
                                                                       DATASETS[d][1], a.files)
                     for d in range(a.datasets))
    reps = max(p[2] for p in phases) + 1
    return ("name: synthetic\nroot: /nonexistent/pfsread-synthetic\nlayout: {files_per_dir: 1000}\n"
            "datasets:\n%s\nsweep:\n  readers_per_node: [%s]\n  backend: [posix]\n"
            "  transfer_size: [4MiB]\n  order: [sorted]\nrepetitions: %d\ncache: drop\n"
            % (sets, ", ".join(str(r) for r in a.readers), reps))


def vlen_attrs(obj, attrs):
    """Attributes as pfsread writes them: str as variable-length UTF-8, numbers as given."""
    for name, value in attrs:
        obj.attrs[name] = value


def write_rows(group, name, rows):
    """A contiguous dataset of packed little-endian rows, no fill value written."""
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_fill_time(h5py.h5d.FILL_TIME_NEVER)
    space = h5py.h5s.create_simple((len(rows),))
    tid = h5py.h5t.py_create(rows.dtype)
    d = h5py.h5d.create(group.id, name.encode(), tid, space, dcpl=dcpl)
    d.write(h5py.h5s.ALL, h5py.h5s.ALL, rows)


def write_hostnames(group, hosts):
    """Fixed-length, NUL-terminated strings of HOST_MAX bytes (results_host_type)."""
    tid = h5py.h5t.C_S1.copy()
    tid.set_size(HOST_MAX)
    tid.set_strpad(h5py.h5t.STR_NULLTERM)
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_fill_time(h5py.h5d.FILL_TIME_NEVER)
    d = h5py.h5d.create(group.id, b"hostname", tid, h5py.h5s.create_simple((len(hosts),)),
                        dcpl=dcpl)
    d.write(h5py.h5s.ALL, h5py.h5s.ALL, np.array(hosts, dtype="S%d" % HOST_MAX), mtype=tid)


def write_root(f, a, phases, nranks):
    vlen_attrs(f, [
        ("pfsread_version", "0.1.0"), ("schema_version", np.int32(SCHEMA_VERSION)),
        ("config_yaml", config_yaml(a, phases)), ("config_path", "synthetic.yaml"),
        ("command_line", "results_gen.py " + " ".join(sys.argv[1:])),
        ("start_time", "2026-01-01T00:00:00Z"), ("mpi_version", "synthetic"),
        ("hdf5_version", h5py.version.hdf5_version), ("job_id", "synthetic"),
        ("status", "complete"), ("nranks", np.int32(nranks)), ("nnodes", np.int32(a.nodes))])
    env = f.create_group("environment", track_order=True)
    vlen_attrs(env, [("pfsread_version", "0.1.0"), ("kernel", "synthetic"),
                     ("fs_type", "synthetic"), ("fs_mount_point", "/nonexistent"),
                     ("fs_mount_options", "rw"), ("fs_atime_mode", "relatime")])
    topo = f.create_group("topology")
    write_rows(topo, "node_of_rank", np.arange(nranks, dtype="<i4") // a.ranks_per_node)
    write_hostnames(topo, [b"node%04d" % i for i in range(a.nodes)])
    write_rows(topo, "clock_offset_s", np.zeros(a.nodes, dtype="<f8"))
    write_rows(topo, "mem_total_bytes", np.full(a.nodes, 24 << 30, dtype="<u8"))
    f.create_group("phases")


def phase_rows(a, rng, size, rpn, nranks):
    """The ranks and files tables of one phase, and its attributes' outcome."""
    node_of_rank = np.arange(nranks) // a.ranks_per_node
    local = np.arange(nranks) % a.ranks_per_node
    active = local < rpn
    readers = np.nonzero(active)[0]
    # block decomposition: reader j (in rank order) reads files [F*j/A, F*(j+1)/A)
    edges = (np.arange(len(readers) + 1, dtype=np.int64) * a.files) // len(readers)
    counts = np.diff(edges)
    row_rank = np.repeat(readers, counts)
    barrier = rng.uniform(0, 2e-3, nranks)
    barrier[0] = 0.0
    open_d = OPEN_S * rng.uniform(0.5, 1.5, a.files)
    read_d = size / (READER_MBPS * 1e6) * rng.uniform(0.8, 1.2, a.files)
    close_d = CLOSE_S * rng.uniform(0.5, 1.5, a.files)
    total = open_d + read_d + close_d
    cs = np.cumsum(total)
    base = np.repeat(np.concatenate(([0.0], cs[edges[1:-1] - 1])), counts)
    close_end = cs - base + np.repeat(barrier[readers], counts)
    files = np.empty(a.files, dtype=FILE_DT)
    files["file"] = np.arange(a.files)
    files["rank"] = row_rank
    files["open_start"] = close_end - total
    files["open_end"] = files["open_start"] + open_d
    files["read_end"] = files["open_end"] + read_d
    files["close_end"] = close_end
    files["bytes"] = size
    files["error"] = 0
    ranks = np.zeros(nranks, dtype=RANK_DT)
    ranks["rank"] = np.arange(nranks)
    ranks["node"] = node_of_rank
    ranks["active"] = active
    lo, hi = edges[:-1], edges[1:] - 1
    ranks["start"][readers] = files["open_start"][lo]
    ranks["end"][readers] = files["close_end"][hi]
    ranks["bytes"][readers] = counts * size
    ranks["files"][readers] = counts
    for field, d in (("open_s", open_d), ("read_s", read_d), ("close_s", close_d),
                     ("io_s", total)):
        ranks[field][readers] = np.add.reduceat(d, lo)
    ranks["barrier_s"] = barrier
    ranks["clock_error_s"] = 1e-5
    ranks["peak_rss"] = (40 << 20) + (np.arange(nranks) % 7) * (1 << 20)
    ranks["storage_read_bytes"] = ranks["bytes"]  # every byte from storage: a cold phase
    ranks["rchar"] = ranks["bytes"]
    ranks["counted"] = 1
    first, last = float(files["open_start"].min()), float(files["close_end"].max())
    return ranks, files, last - first, float(barrier.max())


def write_phase(f, a, rng, index, cell, nranks):
    d, rpn, rep = cell
    name, size = DATASETS[d]
    ranks, files, elapsed, skew = phase_rows(a, rng, size, rpn, nranks)
    nbytes = a.files * size
    g = f["phases"].create_group("%04d" % index)
    vlen_attrs(g, [
        ("index", np.uint32(index)), ("dataset", name), ("file_size", np.uint64(size)),
        ("nfiles", np.uint64(a.files)), ("readers_per_node", np.int32(rpn)),
        ("active_readers", np.int32(a.nodes * min(rpn, a.ranks_per_node))),
        ("backend", "posix"), ("transfer_size", np.uint64(4 << 20)), ("order", "sorted"),
        ("cache", "drop"), ("repetition", np.int32(rep)), ("seed", np.uint64(0)),
        ("pattern", "per-reader"), ("decomposition", "block"), ("queue_depth", np.int32(1)),
        ("noatime", np.int32(0)), ("atime_mode", "relatime"), ("mpiio_hints", ""),
        ("process", "none"), ("resident_fraction", 0.0), ("bytes", np.uint64(nbytes)),
        ("elapsed_s", elapsed), ("bandwidth_MBps", nbytes / elapsed / 1e6),
        ("status", "complete"), ("cache_state", "cold"), ("cache_evict", ""),
        ("start_skew_s", skew), ("clock_bound_s", CLOCK_BOUND_S), ("flags", ""),
        ("provenance", "read_bytes")])
    write_rows(g, "ranks", ranks)
    write_rows(g, "files", files)


def main(argv):
    a = parse_args(argv)
    nranks = a.nodes * a.ranks_per_node
    phases = phase_list(a)
    rng = np.random.default_rng(a.seed)
    with h5py.File(a.out, "w", libver=("v108", "latest")) as f:
        write_root(f, a, phases, nranks)
        for i, cell in enumerate(phases):
            write_phase(f, a, rng, i, cell, nranks)
    print("results_gen: %s: %d phases x %d file rows, %d ranks on %d nodes"
          % (a.out, len(phases), a.files, nranks, a.nodes))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
