#!/bin/sh
# lost_rank: a rank that stops for good in the middle of a run (kill -STOP, a frozen node)
# does not hang the others. With phase_timeout: 10s, every collective step of a phase waits
# for it at most the limit and a grace: the run then ends within phase_timeout + 30 s, with
# exit status 1 and one line naming the rank, its host and the step; the results file is
# closed (h5py reads it), status timeout, the phase marked timeout with the flag "lost", and
# no process of the run is left. The rank is stopped at a chosen point, the same every time,
# by the slow-call shim (slow.c: SIGSTOP at its Nth pread of a data file, or just before its
# Nth MPI_Ibarrier: the run's guarded steps are the node's barrier, the opening barrier, the
# closing barrier, the step before the results write and the step before the close, in that
# order). Everything is written on a capped tmpfs this test mounts.
. "$(dirname "$0")/lib.sh"

need_openmpi # the shim finds the rank by OMPI_COMM_WORLD_RANK and wraps Open MPI's ABI
[ "$(id -u)" -eq 0 ] || skip_all "needs root to mount a capped tmpfs"
command -v cc >/dev/null 2>&1 || skip_all "needs cc for the slow-call shim"
mnt="$SCRATCH/mnt"
capped_mount "$mnt" 64m 20000 || skip_all "cannot mount a tmpfs"
cc -shared -fPIC -O2 -o "$SCRATCH/slow.so" tests/integration/slow.c -ldl ||
	skip_all "cannot build the slow-call shim"
bg=""
procs=""
# the run's own processes only, by PID: the stopped one is woken and killed
finish() {
	for p in $procs $bg; do kill -CONT "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done
	wait 2>/dev/null
	lib_cleanup
}
trap finish EXIT
host=$(hostname)
limit=10
bound=$((limit + 30))
now() { date +%s.%N; }

cat >"$SCRATCH/lost.yaml" <<EOF
root: $mnt/r
datasets: [{name: s, file_size: 4MiB, file_count: 4}]
sweep: {readers_per_node: [2], transfer_size: [64KiB]}
cache: none
phase_timeout: ${limit}s
EOF
check "generate 4 files of 4 MiB" mpi 4 "$PFSREAD" generate "$SCRATCH/lost.yaml"

# alive PID...: the PIDs that still run (a zombie waiting for its parent does not count)
alive() {
	for p in "$@"; do
		s=$(ps -o stat= -p "$p" 2>/dev/null)
		case "$s" in "" | Z*) ;; *) echo "$p" ;; esac
	done
}

# lost NP RANK AT FILE [ARGS...]: a run of NP ranks whose rank RANK stops at AT (slow.c's
# PFSREAD_STOP_AT), bounded by timeout; $status, $took, $OUT; $stopped is the stopped rank's
# PID, $procs every process of the run seen while it ran.
lost() {
	np=$1 who=$2 at=$3 file=$4
	shift 4
	rm -f "$SCRATCH/stop.log"
	t0=$(now)
	# shellcheck disable=SC2086
	timeout $((bound + 20)) $MPIRUN $MPI_FLAGS -np "$np" -x LD_PRELOAD="$SCRATCH/slow.so" \
		-x PFSREAD_STOP_AT="$at" -x PFSREAD_STOP_RANK="$who" -x PFSREAD_STOP_UNDER="$mnt/r" \
		-x PFSREAD_STOP_LOG="$SCRATCH/stop.log" \
		"$PFSREAD" run "$SCRATCH/lost.yaml" -o "$file" "$@" >"$SCRATCH/out" 2>&1 &
	bg=$!
	i=0
	while [ ! -s "$SCRATCH/stop.log" ] && kill -0 "$bg" 2>/dev/null && [ "$i" -lt 1200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	procs=$(kt_list "$bg")
	wait "$bg"
	status=$?
	took=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
	bg=""
	stopped=$(head -n 1 "$SCRATCH/stop.log" 2>/dev/null)
	OUT=$(grep '^pfsread' "$SCRATCH/out")
	sleep 1 # mpirun's last kills reach the ranks
}

# verdict WHAT RANK STEP FILE FLAGGED: the checks after lost (FLAGGED 1: the phase is in the
# file, marked)
verdict() {
	test -n "$stopped"
	ok_status $? "$1: rank $2 was stopped (pid ${stopped:-none})"
	[ "$status" -eq 1 ]; ok_status $? "$1: exit status 1 (got $status)"
	awk -v t="$took" -v b="$bound" 'BEGIN { exit !(t < b) }'
	ok_status $? "$1: the run ended $took s after it started (bound: phase_timeout + 30 = $bound s)"
	contains "$3: rank $2 ($host) did not arrive within" "$1: the message names the rank, the host and the step"
	n=$(printf '%s\n' "$OUT" | grep -c "did not arrive")
	[ "$n" -eq 1 ]; ok_status $? "$1: one line says it ($n)"
	check "$1: the results file is closed and whole (h5py)" "$PYTHON" "$CHECK_H5" "$4" \
		"{\"status\": \"timeout\", \"phases\": 1}"
	check "$1: the file says why, and the phase is marked" "$PYTHON" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
assert f.attrs["status"] == "timeout", f.attrs["status"]
assert "rank %s (" % sys.argv[2] in f.attrs["error"], f.attrs["error"]
part = f["parts"][sorted(f["parts"])[-1]]
assert part.attrs["status"] == "timeout", part.attrs["status"]
p = f["phases"]["0000"]
if sys.argv[3] == "1":
    assert p.attrs["status"] == "timeout" and p.attrs["flags"] == "lost", dict(p.attrs)
' "$4" "$2" "$5"
	# shellcheck disable=SC2086
	left=$(alive $procs $stopped)
	test -z "$left"
	ok_status $? "$1: no process of the run is left (${left:-none})"
	# shellcheck disable=SC2086
	for p in $left; do kill -CONT "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done
	procs=""
}

# 1. in the middle of the reads: rank 1 stops at its 10th read (of 64); rank 0 waits for it at
#    the closing barrier
lost 2 1 pread:10 "$SCRATCH/reads.h5"
verdict "stopped while reading" 1 "phase 0: the closing barrier" "$SCRATCH/reads.h5" 1

# 2. past the closing barrier, at the agreement on the phase's outcome: rank 1 stops before
#    its 2nd MPI_Iallreduce (the 1st agrees to start the phase; no progress lines, whose sums
#    are such calls too)
lost 2 1 MPI_Iallreduce:2 "$SCRATCH/agree.h5" --progress 0
verdict "stopped at the agreement on the outcome" 1 \
	"phase 0: agreeing on the phase's outcome" "$SCRATCH/agree.h5" 1

# 3. between the reads and the results write: rank 1 stops before the 4th guarded step
lost 2 1 MPI_Ibarrier:4 "$SCRATCH/write.h5"
verdict "stopped before the results write" 1 \
	"phase 0: before writing the phase to the results file" "$SCRATCH/write.h5" 1

# 4. rank 0 itself, 4 ranks: rank 1 names it and records the phase
lost 4 0 pread:5 "$SCRATCH/zero.h5"
verdict "rank 0 stopped while reading (4 ranks)" 0 "phase 0: the closing barrier" \
	"$SCRATCH/zero.h5" 1

# 5. after the phase is written, before the file is closed, 4 ranks: the phase stays as it
#    was measured, the file is closed timeout
lost 4 2 MPI_Ibarrier:5 "$SCRATCH/close.h5"
verdict "stopped before the close (4 ranks)" 2 "before closing the results file" \
	"$SCRATCH/close.h5" 0

# 6. inside the results write, where no deadline reaches (a parallel HDF5 call): rank 1 stops
#    at the writer's first collective call of the phase; rank 0's watchdog (twice the limit)
#    names the ranks of its node that are stopped, closes the file through a helper of its
#    own, status timeout, and ends the run
lost 2 1 MPI_Exscan:1 "$SCRATCH/inside.h5"
test -n "$stopped"
ok_status $? "stopped inside the results write: rank 1 was stopped (pid ${stopped:-none})"
[ "$status" -eq 1 ]; ok_status $? "stopped inside the results write: exit status 1 (got $status)"
awk -v t="$took" -v b="$bound" 'BEGIN { exit !(t < b) }'
ok_status $? "stopped inside the results write: the run ended $took s after it started (bound $bound s)"
contains "rank 0 ($host): phase 0: writing a phase to the results file: stuck for 20 s; rank 1 ($host) is stopped; giving up; the results file is closed, status timeout" \
	"stopped inside the results write: the message names the stopped rank, its host, the step and the file's state"
check "stopped inside the results write: the file is closed, status timeout, without the phase (h5py)" \
	"$PYTHON" "$CHECK_H5" "$SCRATCH/inside.h5" '{"status": "timeout", "phases": 0}'
# shellcheck disable=SC2086
left=$(alive $procs $stopped)
test -z "$left"
ok_status $? "stopped inside the results write: no process of the run is left (${left:-none})"

done_testing
