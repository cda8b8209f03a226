#!/bin/sh
# idle_naps: a rank with nothing to do waits for the others napping, not spinning in MPI: on a
# node with more ranks than cores, or beside a file system client's own threads, a spinning
# rank takes their CPU. run: a rank with nothing to read in a phase waits at the closing
# barrier with naps that grow to 10 ms (its exit is not timed), not at the 0.2 ms of the
# barriers whose exit starts a timed read. One node of 4 ranks, 1 reader per node; the slow.c
# shim caps the reader at 2 MB/s so the phase lasts about 4 s on any machine; strace
# timestamps every nap of rank 3, which reads nothing: over the middle half of that time it
# must nap fewer than 200 times a second (it naps 100 times; at 0.2 ms, thousands).
# generate and verify: the same at the step's end (below).
. "$(dirname "$0")/lib.sh"

strace_require
need_openmpi
command -v cc >/dev/null 2>&1 || skip_all "no C compiler for the shim"
cc -shared -fPIC -O2 -o "$SCRATCH/slow.so" tests/integration/slow.c -ldl ||
	skip_all "cannot build the shim"
asan=$(ldd "$PFSREAD" 2>/dev/null | awk '/libasan/ { print $3 }')

mkdir -p "$SCRATCH/data"
printf '%s\n' "name: t" "root: $SCRATCH/data" "results: $SCRATCH/{name}.h5" "datasets:" \
	"  - {name: wide, file_size: 1MiB, file_count: 8}" \
	"sweep: {readers_per_node: [1], backend: [posix]}" "cache: none" >"$SCRATCH/r.yaml"
check "generate" mpi 1 "$PFSREAD" generate "$SCRATCH/r.yaml"

# shellcheck disable=SC2016
expect_status 0 "run: 1 reader of 4 ranks, capped at 2 MB/s; rank 3's naps traced" \
	mpi 4 -x LD_PRELOAD="${asan:+$asan:}$SCRATCH/slow.so" -x PFSREAD_RATE=2 sh -c \
	'[ "$OMPI_COMM_WORLD_RANK$PMI_RANK" = 3 ] && set -- strace -f -ttt -qq \
		-e trace=clock_nanosleep,nanosleep -o "$0/naps" "$@"; exec "$@"' \
	"$SCRATCH" "$PFSREAD" run "$SCRATCH/r.yaml" -o "$SCRATCH/r.h5"
check "the reader took over 3 s (the shim's cap), so the idle rank waited that long (h5py)" \
	"$PYTHON" -c '
import h5py, sys
p = h5py.File(sys.argv[1], "r")["phases/0000"].attrs
assert p["elapsed_s"] > 3 and p["readers_per_node"] == 1, (p["elapsed_s"], p["readers_per_node"])
' "$SCRATCH/r.h5"
check "rank 3 naps under 200 times a second over the middle half of its time" "$PYTHON" -c '
import sys
t = sorted(float(l.split()[1]) for l in open(sys.argv[1]) if "nanosleep(" in l)
span = t[-1] - t[0]
lo, hi = t[0] + span / 4, t[0] + 3 * span / 4
rate = sum(lo <= x < hi for x in t) / (hi - lo)
print("# rank 3: %d naps over %.2f s, the middle half at %.0f a second" % (len(t), span, rate))
assert rate < 200, rate
' "$SCRATCH/naps"
printf '%s\n' "$out" | grep '^# rank 3'


# ---- generate and verify: a rank with no file to make or check waits for the others at the
# step's end (progress_end) napping, not spinning in MPI. One file of 4 MiB for 4 ranks (ranks
# 1 to 3 have none): its writes slowed to 0.4 s each (8 of 512 KiB), then its reads capped at
# 1 MB/s, each rank's CPU counted (cpu_of.py), and the same step once unslowed: what the slowed
# step adds to rank 3's CPU must be under a tenth of what it adds to the wall (spinning on 2
# cores it took about half; napping, about 1%). The unslowed step takes away what does not
# grow with the wait (MPI's start-up, which spins while the ranks start, more on a slower or
# busier machine) ----
printf '%s\n' "name: g" "root: $SCRATCH/gdata" "results: $SCRATCH/{name}.h5" "datasets:" \
	"  - {name: one, file_size: 4MiB, file_count: 1}" >"$SCRATCH/g.yaml"
# step_cpu WHAT TAG [VAR=VALUE]: the step under the shim (slowed by VAR where given), each
# rank's CPU into cpu.TAG.RANK; prints the wall time in seconds
step_cpu() {
	t0=$(date +%s.%N)
	# shellcheck disable=SC2016
	mpi 4 -x LD_PRELOAD="${asan:+$asan:}$SCRATCH/slow.so" ${3:+-x "$3"} sh -c \
		'exec "$0" "$1" "$2/cpu.$3.$OMPI_COMM_WORLD_RANK$PMI_RANK" "$4" "$5" "$2/g.yaml"' \
		"$PYTHON" "$TOP/tests/bench/cpu_of.py" "$SCRATCH" "$2" "$PFSREAD" "$1" \
		>"$SCRATCH/step.out" 2>&1 || return 1
	awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }'
}
for what in generate verify; do
	case $what in
	generate) slow="PFSREAD_SLOW=pwrite:400" ;;
	verify) slow="PFSREAD_RATE=1" ;;
	esac
	[ "$what" = generate ] && rm -rf "$SCRATCH/gdata"
	fast_wall=$(step_cpu "$what" "$what-fast")
	ok_status $? "$what: one file for 4 ranks, not slowed"
	[ "$what" = generate ] && rm -rf "$SCRATCH/gdata"
	slow_wall=$(step_cpu "$what" "$what-slow" "$slow")
	ok_status $? "$what: one file for 4 ranks, slowed ($slow)"
	check "$what: rank 3 (nothing to do) spent under 0.1 of the added wall in added CPU" \
		"$PYTHON" "$TOP/tests/integration/added_cpu.py" "$what" "$SCRATCH/cpu.$what-fast" \
		"$SCRATCH/cpu.$what-slow" "${fast_wall:-0}" "${slow_wall:-0}" 4 2.5 3
	printf '%s\n' "$out" | grep "^# $what:"
done

done_testing
