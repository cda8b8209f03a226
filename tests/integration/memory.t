#!/bin/sh
# memory: what a run costs in memory per rank. A 1 GiB transfer over 4 KiB files
# needs a 4 KiB read, not a 1 GiB buffer: the read buffer (and io_uring's pool) is sized by
# min(transfer size, largest file of the data set). Each rank's peak resident memory
# (getrusage, after the phase) is recorded in the results file (ranks.peak_rss, schema 3) and
# the report shows its max and median. Before the change every rank held (and touched) 1 GiB.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root for its capped tmpfs"
"$PYTHON" -c 'import h5py' 2>/dev/null || skip_all "python3 with h5py is not installed"
capped_mount "$SCRATCH/fs" 16m 1000 || skip_all "cannot mount a capped tmpfs"
root="$SCRATCH/fs/data"
mkdir -p "$SCRATCH/results"
cfg="$SCRATCH/mem.yaml"
backends=posix
probe="$SCRATCH/probe.yaml"
{
	echo "name: probe"
	echo "root: $root"
	echo "datasets: [{name: tiny, file_size: 4KiB, file_count: 1}]"
	echo "sweep: {backend: [uring]}"
	echo "cache: none"
} >"$probe"
if mpi 1 "$PFSREAD" plan "$probe" --ranks 1 --nodes 1 2>&1 | grep -q "unknown backend 'uring'"; then
	echo "# uring: this build has no liburing; only posix"
else
	backends="posix, uring"
fi
{
	echo "name: mem"
	echo "root: $root"
	echo "results: $SCRATCH/results/{name}.h5"
	echo "datasets: [{name: tiny, file_size: 4KiB, file_count: 40}]"
	echo "sweep: {transfer_size: [1GiB], backend: [$backends]}"
	echo "cache: none"
} >"$cfg"
check "generate 40 files of 4 KiB" mpi 2 "$PFSREAD" generate "$cfg"
expect_status 0 "run with a 1 GiB transfer size ($backends), 2 ranks" \
	mpi 2 "$PFSREAD" run "$cfg" -o "$SCRATCH/mem.h5"
check "every rank's peak RSS is recorded and far below 1 GiB (under 256 MiB)" "$PYTHON" -c '
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    assert f.attrs["schema_version"] >= 3, f.attrs["schema_version"]
    for name, g in f["phases"].items():
        rss = g["ranks"]["peak_rss"]
        assert len(rss) == 2 and (rss > 1 << 20).all() and (rss < 256 << 20).all(), (name, rss)
        print("# phase %s (%s): peak RSS %s MiB" % (name, g.attrs["backend"],
              [round(x / 2**20, 1) for x in rss]))
' "$SCRATCH/mem.h5"
expect_status 0 "report of the run" "$PFSREAD" report "$SCRATCH/mem.h5"
contains "memory: peak RSS per rank: max " "the report has one line on memory per rank"
contains "(2 ranks)" "over both ranks"
expect_status 0 "report --format json" "$PFSREAD" report "$SCRATCH/mem.h5" --format json
printf '%s\n' "$OUT" >"$SCRATCH/mem.json"
check "json: the run's memory object is the ranks' peak RSS (max, its rank, median)" "$PYTHON" -c '
import json, sys, h5py, numpy as np
m = json.load(open(sys.argv[1]))["runs"][0]["memory"]
with h5py.File(sys.argv[2], "r") as f:
    peak = {}
    for g in f["phases"].values():
        for rank, rss in zip(g["ranks"]["rank"], g["ranks"]["peak_rss"]):
            peak[int(rank)] = max(peak.get(int(rank), 0), int(rss))
top = max(peak, key=peak.get)
assert m["ranks"] == 2 and m["peak_rss_max_B"] == peak[top], (m, peak)
assert m["peak_rss_max_rank"] == top, (m, peak)
assert abs(m["peak_rss_median_B"] - np.median(list(peak.values()))) < 1, (m, peak)
' "$SCRATCH/mem.json" "$SCRATCH/mem.h5"
done_testing
