#!/bin/sh
# calibrate --through-fs: the read through the file system without a network. The slow.c shim
# caps pread at 30 MB/s per process and 42 MB/s per node (PFSREAD_RATE; each fake node its own
# pipe), so on any machine 1 reader/node reads at most 30, 2 and 4 at most 42: the figure must
# come out as the node's cap, found when the rate stops rising (4 readers no faster than 2).
# Two readers ask for 60 of the node's 42 and each reads 12 MiB, so that a reader woken late
# on a busy machine (8 ranks on 2 cores) still leaves the node's pipe full;
# with a node cap of 100 and 2 ranks per node the rate still rises at the last step, and
# calibrate says the figure is a floor. The report takes the figure as the per-node read
# ceiling, labelled so (text, JSON), and plan --calibration estimates from it. Usage errors: an
# unknown or ungenerated data set.
. "$(dirname "$0")/lib.sh"

"$PYTHON" -c 'import h5py, numpy' 2>/dev/null || skip_all "python3 with h5py is not installed"
command -v cc >/dev/null 2>&1 || skip_all "no C compiler for the shim"
cc -shared -fPIC -O2 -o "$SCRATCH/slow.so" tests/integration/slow.c -ldl ||
	skip_all "cannot build the shim"
asan=$(ldd "$PFSREAD" 2>/dev/null | awk '/libasan/ { print $3 }')
PRELOAD="${asan:+$asan:}$SCRATCH/slow.so"

# The data on a loop ext4 in memory where the test can mount one: its reads run far above the
# shim's caps on any machine, where a disk's may not reach the 84 MB/s the two nodes' caps add to
DATA="$SCRATCH/data"
if ext4_loop "$SCRATCH/disk" 128m; then
	DATA="$SCRATCH/disk/data"
else
	echo "# no loop ext4 (root, mkfs.ext4, loop devices): the data on the scratch directory's disk"
fi
mkdir -p "$DATA"
small_config "$SCRATCH/fs.yaml" "$DATA" "  - {name: wide, file_size: 1MiB, file_count: 48}" \
	"cache: fadvise"
SMALL="--disk-size 8MiB --mem-size 8MiB --msg-size 1MiB --repetitions 3 --fs-size 12MiB"

# ---- usage: the data set must exist and be generated ----
# shellcheck disable=SC2086
expect_status 2 "--through-fs of a data set the config lacks" \
	"$PFSREAD" calibrate "$SCRATCH/fs.yaml" -o "$SCRATCH/x.h5" $SMALL --through-fs nosuch
contains "--through-fs: $SCRATCH/fs.yaml has no data set 'nosuch'" "the message names it and the config"
# shellcheck disable=SC2086
expect_status 2 "--through-fs of a data set not generated" \
	"$PFSREAD" calibrate "$SCRATCH/fs.yaml" -o "$SCRATCH/x.h5" $SMALL --through-fs big
contains "data set 'big' of $SCRATCH/fs.yaml is not generated (run pfsread generate first)" \
	"the message says what to do"
[ ! -e "$SCRATCH/x.h5" ]
ok_status $? "no calibration file"

# ---- two nodes of four ranks: 30 MB/s a reader, 42 MB/s a node ----
fake_nodes 2 4
check "generate" mpi_nodes 1 "$PFSREAD" generate "$SCRATCH/fs.yaml"
# shellcheck disable=SC2086
expect_status 0 "calibrate --through-fs wide on 2 nodes x 4 ranks, capped 30/42 MB/s" \
	mpi_nodes 4 -x LD_PRELOAD="$PRELOAD" -x PFSREAD_RATE=30:42 \
	"$PFSREAD" calibrate "$SCRATCH/fs.yaml" -o "$SCRATCH/fs.h5" $SMALL --through-fs wide
OUT=$(printf '%s\n' "$OUT" | tr '\n' ' ' | sed 's/  */ /g')
printf '%s\n' "$OUT" | grep -o '\[MB/s\]: 1 reader/node [^:]*' | sed 's/^/# steps /'
contains "the rate stopped rising (a rise under 10% is none) at 4 readers/node" \
	"it says where the rate stopped rising"
contains "the per-node read ceiling: " "and names the figure"
check "file: steps 1, 2, 4 readers/node; 1 is capped per reader, 2 and 4 per node; the figure is the node's cap on each node (h5py)" \
	"$PYTHON" -c '
import h5py, sys, numpy as np
g = h5py.File(sys.argv[1], "r")["calibration"]
steps = g["fs_read_steps"][()]
assert list(steps["readers"]) == [1, 2, 4], steps
r = steps["MBps"]
# the shim only ever slows: each rate is at most its cap; a busy machine may slow it more
assert 24 <= r[0] <= 30 * 1.02, r
assert 0.8 * 42 <= r[1] <= 42 * 1.02 and 0.8 * 42 <= r[2] <= 42 * 1.02, r
assert r[1] > 1.1 * r[0] and r[2] <= 1.1 * max(r[0], r[1]), r
assert g.attrs["fs_dataset"] in ("wide", b"wide") and int(g.attrs["fs_flat"]) == 1
assert int(g.attrs["fs_readers"]) in (2, 4), g.attrs["fs_readers"]
reps = g["fs_read_MBps_reps"][()]
assert reps.shape == (2, 3) and (reps >= 0.8 * 42).all() and (reps <= 42 * 1.02).all(), reps
' "$SCRATCH/fs.h5"

# ---- plan's estimate takes the figure too. The shim caps the disk figure's reads as well
# (one reader, 30 MB/s), so a copy of the calibration whose disks read 100 times faster leaves
# the read through the file system as the first limit: 48 MiB over 2 nodes x the figure ----
check "a copy of fs.h5 with fast disks (h5py)" "$PYTHON" -c '
import h5py, shutil, sys
shutil.copy(sys.argv[1], sys.argv[2])
g = h5py.File(sys.argv[2], "r+")["calibration"]
for k in ("disk_MBps", "disk_MBps_reps"):
    g[k][...] = g[k][()] * 100
' "$SCRATCH/fs.h5" "$SCRATCH/fastdisk.h5"
expect_status 0 "plan --calibration (fast disks)" "$PFSREAD" plan "$SCRATCH/fs.yaml" --ranks 8 \
	--nodes 2 --calibration "$SCRATCH/fastdisk.h5"
printf '%s\n' "$OUT" >"$SCRATCH/plan.txt"
OUT=$(printf '%s\n' "$OUT" | tr '\n' ' ' | sed 's/  */ /g')
contains "node read through the file system 4" "the estimate names the per-node read ceiling"
contains "(first limit: node reads via the file system)" "and takes it as the first limit"
check "the wide phase's estimate is its 48 MiB over the 2 nodes' figure (within 2%)" "$PYTHON" -c '
import h5py, re, sys, numpy as np
g = h5py.File(sys.argv[1], "r")["calibration"]
fig = float(np.mean(np.median(g["fs_read_MBps_reps"][()], axis=1)))
out = open(sys.argv[2]).read()
m = re.search(r"node read through the file system ([0-9.]+) MB/s", out)
assert m and abs(float(m.group(1)) - fig) <= 1e-3 * fig, (m and m.group(1), fig)
ph = re.search(r"^ *([0-9]+) +wide ", out, re.M).group(1)
v, u = re.search(r"^estimate phase " + ph + r": ([0-9.]+) (ms|s)$", out, re.M).groups()
t = float(v) / (1000 if u == "ms" else 1)
want = 48 * 2**20 / (2 * fig * 1e6)
assert abs(t - want) <= 0.02 * want, (t, want)
' "$SCRATCH/fs.h5" "$SCRATCH/plan.txt"

# ---- the report: the per-node read ceiling ----
check "report_h5.py writes results files (cold cells, 2 nodes)" \
	"$PYTHON" "$TOP/tests/integration/report_h5.py" "$SCRATCH"
expect_status 0 "report a.h5 fs.h5 --format json" "$PFSREAD" report "$SCRATCH/a.h5" \
	"$SCRATCH/fs.h5" --format json
printf '%s\n' "$OUT" >"$SCRATCH/a.json"
check "json: the hardware has the figure; a cold cell's ceiling is the nodes' reads via the file system" \
	"$PYTHON" -c '
import h5py, json, math, sys, numpy as np
d = json.load(open(sys.argv[1]))
g = h5py.File(sys.argv[2], "r")["calibration"]
fig = float(np.mean(np.median(g["fs_read_MBps_reps"][()], axis=1)))
hw = d["runs"][0]["hardware"]
assert math.isclose(hw["node_fsread_MBps"], fig, rel_tol=1e-9), (hw, fig)
assert hw["node_fsread_readers"] == int(g.attrs["fs_readers"]), hw
assert "node read through the file system" in hw["source"], hw["source"]
terms = [t for c in d["runs"][0]["cells"] if c["cache_state"] == "cold" for t in c["ceiling"]["terms"]]
assert any(t["resource"] == "node reads via the file system" for t in terms), terms
fs = d["calibration"]["fs_read"]
assert fs["dataset"] == "wide" and fs["stopped_rising"] is True, fs
assert [s["readers_per_node"] for s in fs["steps"]] == [1, 2, 4], fs
' "$SCRATCH/a.json" "$SCRATCH/fs.h5"
expect_status 0 "report a.h5 fs.h5 (text)" "$PFSREAD" report "$SCRATCH/a.h5" "$SCRATCH/fs.h5"
OUT=$(printf '%s\n' "$OUT" | tr '\n' ' ' | sed 's/  */ /g')
contains "node reads via the file system" "text: the limit is labelled as the read through the file system"
contains "node read through the file system " "text: the hardware line names the calibrated figure"

# ---- one node of two ranks, 100 MB/s a node: still rising when the ranks run out ----
rm -f "$SCRATCH/pfsread-rate"
# shellcheck disable=SC2086
expect_status 0 "calibrate --through-fs wide on 1 node x 2 ranks, capped 30/100 MB/s" \
	mpi 2 -x LD_PRELOAD="$PRELOAD" -x PFSREAD_RATE=30:100 -x TMPDIR="$SCRATCH" \
	"$PFSREAD" calibrate "$SCRATCH/fs.yaml" -o "$SCRATCH/rising.h5" $SMALL --through-fs wide
OUT=$(printf '%s\n' "$OUT" | tr '\n' ' ' | sed 's/  */ /g')
contains "warning: the read through the file system still rose at 2 readers/node: the figure is a floor" \
	"the figure is a floor, said so"
check "file: steps 1 and 2, not flat, 2 readers the figure (h5py)" "$PYTHON" -c '
import h5py, sys
g = h5py.File(sys.argv[1], "r")["calibration"]
s = g["fs_read_steps"][()]
assert list(s["readers"]) == [1, 2] and s["MBps"][1] > 1.1 * s["MBps"][0], s
assert int(g.attrs["fs_flat"]) == 0 and int(g.attrs["fs_readers"]) == 2
' "$SCRATCH/rising.h5"


# ---- the ranks that do not read leave the cores to those that do: a rank spinning in MPI
# while its node's readers read would take its share of a node with fewer cores than ranks
# (on two cores, a third of the time). At 2 MB/s a reader and a node, the disk figure (node
# leaders), then 1 and 2 readers per node take about 6 s; local ranks 2 and 3 read in none
# of it. The same calibrate once at the disk's own speed takes away what does not grow with
# the reads (MPI's start-up, which spins while 8 ranks start on 2 cores; the memory and
# message figures): what the capped run adds to each such rank's CPU must be under a tenth
# of what it adds to the wall (napping: about 1%) ----
# idle_run TAG [VAR=VALUE]: the calibrate, each rank's CPU into cpu.TAG.RANK; prints the wall
idle_run() {
	rm -f "$SCRATCH"/tmp-*/pfsread-rate
	t0=$(date +%s.%N)
	# shellcheck disable=SC2016
	mpi_nodes 4 -x LD_PRELOAD="$PRELOAD" ${2:+-x "$2"} sh -c \
		'exec "$0" "$1/tests/bench/cpu_of.py" "$2/cpu.$4.$OMPI_COMM_WORLD_RANK" "$3" calibrate \
		"$2/fs.yaml" -o "$2/idle-$4.h5" --disk-size 1MiB --mem-size 8MiB --msg-size 1MiB \
		--repetitions 3 --fs-size 1MiB --through-fs wide' "$PYTHON" "$TOP" "$SCRATCH" \
		"$PFSREAD" "$1" >"$SCRATCH/idle.out" 2>&1 || return 1
	awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }'
}
fast=$(idle_run fast)
ok_status $? "calibrate --through-fs on 2 nodes x 4 ranks, not capped, each rank's CPU counted"
slow=$(idle_run slow PFSREAD_RATE=2:2)
ok_status $? "calibrate --through-fs on 2 nodes x 4 ranks at 2 MB/s, each rank's CPU counted"
check "ranks 2, 3, 6 and 7 (no reads) each spent under 0.1 of the added wall in added CPU" \
	"$PYTHON" "$TOP/tests/integration/added_cpu.py" calibrate "$SCRATCH/cpu.fast" \
	"$SCRATCH/cpu.slow" "${fast:-0}" "${slow:-0}" 8 3 2 3 6 7
printf '%s\n' "$out" | grep '^# calibrate:'

done_testing
