#!/bin/sh
# uring_enter: how many io_uring_enter calls the uring pipeline makes when its reads wait on
# storage, counted with strace, not timed. Once a turn has seen reads left waiting, the next
# 16 turns submit and wait in one call; only a turn that looks (the first ones, and one in 17
# while reads wait) may submit without waiting and then wait in a second call with nothing to
# submit. The reads wait on storage on a machine of any speed: the files are served through
# faultfs (FUSE, tests/integration/faultfs.c), which holds every read request 2 ms (cache:
# fadvise evicts the files, and faultfs keeps no page across opens). 48 files of 1 MiB in
# transfers of 256 KiB at queue_depth 16 with 16 buffers. A turn that submits, finds nothing
# done and then waits in a second call whenever reads wait makes this test fail (every other
# call such).
. "$(dirname "$0")/lib.sh"

strace_require
faultfs_build || skip_all "$FAULTFS_WHY"
src="$SCRATCH/src"
mnt="$SCRATCH/mnt"
printf '* delay 2\n' >"$SCRATCH/rules"
mkdir -p "$SCRATCH/results" "$mnt"

# c_config ROOT: the data set under ROOT
c_config() {
	cat <<YAML
name: c
root: $1
results: $SCRATCH/results/{name}.h5
datasets: [{name: d, file_size: 1MiB, file_count: 48}]
sweep: {backend: [uring], readers_per_node: [1], transfer_size: [256KiB]}
uring: {queue_depth: 16, max_inflight: 4MiB}
cache: fadvise
YAML
}
c_config "$src" >"$SCRATCH/gen.yaml"
c_config "$mnt" >"$SCRATCH/c.yaml"
check "generate 48 files of 1 MiB" mpi 1 "$PFSREAD" generate "$SCRATCH/gen.yaml"
"$FAULTFS" "$src" "$SCRATCH/rules" "$mnt" -o ro ||
	skip_all "cannot mount faultfs (FUSE) on $mnt"
LIB_MOUNTS="$mnt $LIB_MOUNTS"
if mpi 1 "$PFSREAD" run "$SCRATCH/c.yaml" -o "$SCRATCH/probe.h5" 2>&1 |
	grep -q "unknown backend 'uring'"; then
	skip_all "this build has no liburing"
fi

mkdir -p "$SCRATCH/c.d"
strace -ff -qq -e trace=getrusage,io_uring_enter -o "$SCRATCH/c.d/t" timeout 300 \
	$MPIRUN $MPI_FLAGS -np 1 "$PFSREAD" run "$SCRATCH/c.yaml" -o "$SCRATCH/results/c.h5" \
	>"$SCRATCH/c.out" 2>&1
ok_status $? "cold uring run under strace -ff, every read held 2 ms"

# The timed reads: the stretch between a thread's two getrusage calls holding io_uring_enter.
# A look's second call is one that only waits right after a call that submitted without
# waiting; a turn that looks again only after 16 single calls makes at most one in 17 calls
# such (and a few at the start, while the first opens are all that is in flight), however
# many turns the reads take. The drain at the end, with nothing left to submit, waits in one
# call a turn: not a look's.
check "cold: at most one call in 8 (+2) is a look's second call, waiting alone" \
	env PYTHONPATH="$TOP/tests/integration" "$PYTHON" - "$SCRATCH/c.d" <<'PY'
import sys
from timed_calls import stretches
found = stretches(sys.argv[1], r"^io_uring_enter\(\d+, (\d+), (\d+), (\w+)")
if len(found) != 1:
    sys.exit(f"# {len(found)} timed stretches with io_uring_enter, want 1")
# (requests submitted, whether the call waits)
calls = [(int(m.group(1)), "GETEVENTS" in m.group(3) or m.group(3) == "1") for m in found[0]]
seconds = sum(1 for a, b in zip(calls, calls[1:]) if not a[1] and b == (0, True))
bound = len(calls) // 8 + 2
print(f"# {len(calls)} io_uring_enter calls, {sum(c[0] for c in calls)} requests; "
      f"{seconds} a look's second call (at most {bound})")
sys.exit(0 if seconds <= bound else 1)
PY
done_testing
