#!/bin/sh
# faults: a node's path to the server is cut in the middle of a phase (a black hole both ways,
# as a pulled cable: no error, no reset; MPI between the nodes still flows).
#  A. GlusterFS, whose client gives up on a silent server within 2 x the box's ping-timeout (10
#     s: it ended the phase 16-20 s after its start in three runs), phase_timeout 30 s:
#     the run ends within its phase_timeout, the results file is readable with the phase marked
#     failed and the failure on the cut node's ranks.
#  B. MooseFS, whose client retries for minutes, phase_timeout 5 s: pfsread's own limit must end
#     the run (a read stuck in FUSE is not woken by a signal: the documented bound is the closing
#     barrier's wait, 2 x the limit + 5 s), and the results file stays readable.
# Each time the box must still tear down to nothing.
. "$(dirname "$0")/boxlib.sh"

# cut_run NAME LIMIT: generate, then run with phase_timeout LIMIT and cut n2's path once it has
# read 8 MB of its share; TOOK gets the seconds from the cut to the run's end, ST its status
cut_run() {
	box_config "$SCRATCH/$1.yaml" "$1" "/box/fs/$1" "{name: f, file_size: 16MiB, file_count: 16}" \
		"sweep: {readers_per_node: [1]}" "repetitions: 1" "cache: fadvise" "phase_timeout: ${2}s"
	check "$1: generate on 2 nodes" bmpi n1,n2 1 "$PFSREAD" generate "$SCRATCH/$1.yaml"
	"$BOX" cold "$1"
	before=$("$BOX" rx n2)
	bmpi n1,n2 1 "$PFSREAD" run "$SCRATCH/$1.yaml" >"$SCRATCH/$1.out" 2>&1 &
	job=$!
	i=0
	while [ $i -lt 150 ] && [ $(($("$BOX" rx n2) - before)) -lt 8000000 ]; do
		i=$((i + 1))
		sleep 0.2
	done
	"$BOX" cut n2
	ok_status $? "$1: n2's path to the server is cut mid-phase ($(($("$BOX" rx n2) - before)) bytes into it)"
	T0=$(date +%s.%N)
	wait $job
	ST=$?
	TOOK=$(elapsed "$T0")
	figure "$1: run ended after the cut" "$TOOK s (phase_timeout $2 s), exit $ST"
	grep -v -e '^ *$' -e '-----' "$SCRATCH/$1.out" | grep -e '^pfsread' -e '^\[' | sed 's/^/#   /'
	[ $ST -ne 0 ] && [ $ST -lt 124 ]
	ok_status $? "$1: the run fails (exit $ST), it is not killed by the test's time limit"
}

box_require

# ---- A. GlusterFS: the client gives up before the limit ----
if ! box_up --nodes 2 --link-mbit "$BOX_LINK" --fs glusterfs; then
	fail "a box of 2 nodes on GlusterFS comes up: $BOX_WHY"
	done_testing
fi
pass "a box of 2 nodes on GlusterFS comes up"
LIMIT=30
cut_run gl "$LIMIT"
[ $ST -eq 1 ]
ok_status $? "gl: the run exits with status 1 (a run-time failure)"
ge "$LIMIT" "$TOOK"
ok_status $? "gl: the run ends within its phase_timeout of the cut"
check "gl: the results file is readable, its phase failed, the failure on n2's ranks only" \
	"$PYTHON" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
p = f["phases/0000"]
status = p.attrs["status"]
status = status.decode() if isinstance(status, bytes) else status
assert status in ("failed", "timeout"), status
assert p.attrs["elapsed_s"] <= float(sys.argv[2]), p.attrs["elapsed_s"]
hosts = [h.decode() if isinstance(h, bytes) else h for h in f["topology/hostname"][:]]
node = f["topology/node_of_rank"][:]
bad = {hosts[node[r]] for r, e in zip(p["files"]["rank"], p["files"]["error"]) if e != 0}
assert bad == {"n2"}, bad
print("phase", status, "after", p.attrs["elapsed_s"], "s; files in error on", sorted(bad))
' "$SCRATCH/gl.h5" "$LIMIT"
OUT=$("$PFSREAD" report "$SCRATCH/gl.h5" 2>&1)
case "$OUT" in *timeout* | *failed*) pass "gl: the report shows the phase's status" ;;
*) fail "gl: the report shows the phase's status" ;;
esac
grep '^pfsread: ' "$SCRATCH/gl.out" | grep -qw n2
ok_status $? "gl: the run's error message names the node (n2), not only the rank"
box_down_clean "gl: the box tears down to nothing after the fault"

# ---- B. MooseFS: the client hangs on, pfsread's limit must end the run ----
if ! box_up --nodes 2 --link-mbit "$BOX_LINK" --fs moosefs; then
	fail "a box of 2 nodes on MooseFS comes up: $BOX_WHY"
	done_testing
fi
pass "a box of 2 nodes on MooseFS comes up"
LIMIT=5
cut_run mfs "$LIMIT"
# from the phase's start: the limit and 5 s at the closing barrier (guard.h), well inside
# this bound; the cut came after the start, and the abort takes a moment
ge "$((3 * LIMIT + 5 + 5))" "$TOOK"
ok_status $? "mfs: the run ends within 3 x phase_timeout + 10 s of the cut (pfsread's bound)"
check "mfs: the results file is still readable" "$PYTHON" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
print("status", f.attrs["status"], "phases", len(f["phases"]))
' "$SCRATCH/mfs.h5"
grep '^pfsread: ' "$SCRATCH/mfs.out" | grep 'did not arrive' | grep -qw n2
ok_status $? "mfs: rank 0 names the stuck ranks and their node (n2): they never reached the closing barrier"
box_down_clean "mfs: the box tears down to nothing after the fault"
done_testing
