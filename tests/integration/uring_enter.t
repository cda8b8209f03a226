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
command -v mkfs.ext4 >/dev/null 2>&1 || skip_all "no mkfs.ext4 (e2fsprogs)"
command -v strace >/dev/null 2>&1 || skip_all "strace is not installed"
strace -f -qq -o /dev/null true 2>/dev/null || skip_all "strace cannot trace here (ptrace refused)"
M="$SCRATCH/m"
capped_mount "$M" 96m 100 || skip_all "cannot mount a tmpfs"
disk="$SCRATCH/disk"
mkdir -p "$disk" "$SCRATCH/results"
truncate -s 80m "$M/ext4.img" && mkfs.ext4 -q -F -m 0 "$M/ext4.img" &&
	mount -o loop "$M/ext4.img" "$disk" || skip_all "cannot mount an ext4 loop image"
LIB_MOUNTS="$disk $LIB_MOUNTS" # unmounted first; the loop device goes with it (autoclear)

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
	"$PYTHON" - "$SCRATCH/c.d" <<'PY'
import glob, re, sys
enter = re.compile(r"^io_uring_enter\(\d+, (\d+), (\d+), (\w+)")
stretches = []
for trace in glob.glob(sys.argv[1] + "/t.*"):
    cur = None
    for line in open(trace, errors="replace"):
        if line.startswith("getrusage("):
            if cur:
                stretches.append(cur)
            cur = []
            continue
        m = enter.match(line)
        if m and cur is not None:
            cur.append((int(m.group(1)), "GETEVENTS" in m.group(3) or m.group(3) == "1"))
if len(stretches) != 1:
    sys.exit(f"# {len(stretches)} timed stretches with io_uring_enter, want 1")
calls = stretches[0]
only_wait = [c for c in calls if c[0] == 0 and c[1]]
print(f"# {len(calls)} io_uring_enter calls, {sum(c[0] for c in calls)} requests; "
      f"{len(only_wait)} only wait")
sys.exit(0 if len(only_wait) <= 6 else 1)
PY
done_testing
