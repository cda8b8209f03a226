#!/bin/sh
# uring_window: what the uring pipeline submits at once when the files are in the page cache,
# counted with strace, not timed. Reads the kernel serves while they are submitted gain nothing
# from other buffers in flight, and each is one more cold destination for the kernel's copy
# (16 buffers of 2 MiB cost 1.3x the CPU per byte of one, measured): the pipeline starts with
# the buffers 1 MiB holds (one, of 1 MiB) and grows only once it saw reads wait, which it does
# by waiting for them in the same call (min_complete 1). Warm, on an ext4 of the test's own (a
# loop image on a capped tmpfs; a tmpfs hands every io_uring read to a worker thread, so it
# would show nothing), 40 files of 1 MiB in transfers of 1 MiB at queue_depth 16 with a pool of
# 16 buffers: inside the timed reads a turn submits a close, a read and an open, so no call
# submits more than 4 requests before the first call that waits. Whether the kernel makes a
# warm read wait is its own affair (on most machines none does, and then no call submits more
# than 4 at all); the test holds pfsread to growing only after a wait, whatever the kernel did.
# The calls stay within one per read plus one per file, and every read, open and close goes
# through the ring. A pipeline that fills the whole pool whatever the reads cost makes this
# test fail: its first calls submit more than 4 with nothing waited for.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root to mount an ext4 image"
strace_require
disk="$SCRATCH/disk"
ext4_loop "$disk" 56m || skip_all "cannot mount an ext4 loop image (mkfs.ext4, a capped tmpfs)"
mkdir -p "$SCRATCH/results"

cat >"$SCRATCH/w.yaml" <<YAML
name: w
root: $disk/data
results: $SCRATCH/results/{name}.h5
datasets: [{name: d, file_size: 1MiB, file_count: 40}]
sweep: {backend: [uring], readers_per_node: [1], transfer_size: [1MiB]}
uring: {queue_depth: 16, max_inflight: 16MiB}
cache: none
YAML
check "generate 40 files of 1 MiB" mpi 1 "$PFSREAD" generate "$SCRATCH/w.yaml"
if mpi 1 "$PFSREAD" run "$SCRATCH/w.yaml" -o "$SCRATCH/probe.h5" 2>&1 |
	grep -q "unknown backend 'uring'"; then
	skip_all "this build has no liburing"
fi

mkdir -p "$SCRATCH/w.d"
strace -ff -qq -e trace=getrusage,io_uring_enter -o "$SCRATCH/w.d/t" timeout 300 \
	$MPIRUN $MPI_FLAGS -np 1 "$PFSREAD" run "$SCRATCH/w.yaml" -o "$SCRATCH/results/w.h5" \
	>"$SCRATCH/w.out" 2>&1
ok_status $? "warm uring run under strace -ff"

# The timed reads: the stretch between a thread's two getrusage calls holding io_uring_enter.
check "warm: no call submits more than 4 requests before one waits; 1 call per read + 1 per file" \
	env PYTHONPATH="$TOP/tests/integration" "$PYTHON" - "$SCRATCH/w.d" <<'PY'
import sys
from timed_calls import stretches
found = stretches(sys.argv[1], r"^io_uring_enter\(\d+, (\d+), (\d+), ")
if len(found) != 1:
    sys.exit(f"# {len(found)} timed stretches with io_uring_enter, want 1")
calls = [(int(m.group(1)), int(m.group(2))) for m in found[0]]
files, reads = 40, 40
subs = [n for n, _ in calls]
waits = [i for i, (_, wait) in enumerate(calls) if wait > 0]
first_wait = waits[0] if waits else len(calls)
early = [n for n in subs[:first_wait] if n > 4]
print(f"# {len(calls)} io_uring_enter calls, {sum(subs)} requests; {len(waits)} waiting "
      f"(the first: call {first_wait}); submitting more than 4 before it: {early}, "
      f"after it: {[n for n in subs[first_wait:] if n > 4]}")
good = not early and len(calls) <= reads + files and sum(subs) >= reads + 2 * files
sys.exit(0 if good else 1)
PY
done_testing
