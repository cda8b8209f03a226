#!/bin/sh
# uring_enter: how many io_uring_enter calls the uring pipeline makes when its reads wait on
# storage, counted with strace, not timed. Once a turn has seen reads left waiting, the next
# 16 turns submit and wait in one call; only a turn that looks (the first ones, and one in 17
# while reads wait) may submit without waiting and then wait in a second call with nothing to
# submit. Cold, on an ext4 of the test's own (a loop image on a capped tmpfs; cache: fadvise
# evicts the files, so every read goes to the loop device), 48 files of 1 MiB in transfers of
# 256 KiB at queue_depth 16 with 16 buffers: inside the timed reads at most 6 calls (one in 8
# files) only wait. A turn that submits, finds nothing done and then waits in a second call
# whenever reads wait makes this test fail (20 to 108 such calls here).
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root to mount an ext4 image"
strace_require
disk="$SCRATCH/disk"
ext4_loop "$disk" 80m || skip_all "cannot mount an ext4 loop image (mkfs.ext4, a capped tmpfs)"
mkdir -p "$SCRATCH/results"

cat >"$SCRATCH/c.yaml" <<YAML
name: c
root: $disk/data
results: $SCRATCH/results/{name}.h5
datasets: [{name: d, file_size: 1MiB, file_count: 48}]
sweep: {backend: [uring], readers_per_node: [1], transfer_size: [256KiB]}
uring: {queue_depth: 16, max_inflight: 4MiB}
cache: fadvise
YAML
check "generate 48 files of 1 MiB" mpi 1 "$PFSREAD" generate "$SCRATCH/c.yaml"
if mpi 1 "$PFSREAD" run "$SCRATCH/c.yaml" -o "$SCRATCH/probe.h5" 2>&1 |
	grep -q "unknown backend 'uring'"; then
	skip_all "this build has no liburing"
fi

mkdir -p "$SCRATCH/c.d"
strace -ff -qq -e trace=getrusage,io_uring_enter -o "$SCRATCH/c.d/t" timeout 300 \
	$MPIRUN $MPI_FLAGS -np 1 "$PFSREAD" run "$SCRATCH/c.yaml" -o "$SCRATCH/results/c.h5" \
	>"$SCRATCH/c.out" 2>&1
ok_status $? "cold uring run under strace -ff"

# The timed reads: the stretch between a thread's two getrusage calls holding io_uring_enter.
check "cold: at most 6 io_uring_enter calls only wait (nothing to submit)" \
	env PYTHONPATH="$TOP/tests/integration" "$PYTHON" - "$SCRATCH/c.d" <<'PY'
import sys
from timed_calls import stretches
found = stretches(sys.argv[1], r"^io_uring_enter\(\d+, (\d+), (\d+), (\w+)")
if len(found) != 1:
    sys.exit(f"# {len(found)} timed stretches with io_uring_enter, want 1")
# (requests submitted, whether the call waits)
calls = [(int(m.group(1)), "GETEVENTS" in m.group(3) or m.group(3) == "1") for m in found[0]]
only_wait = [c for c in calls if c[0] == 0 and c[1]]
print(f"# {len(calls)} io_uring_enter calls, {sum(c[0] for c in calls)} requests; "
      f"{len(only_wait)} only wait")
sys.exit(0 if len(only_wait) <= 6 else 1)
PY
done_testing
