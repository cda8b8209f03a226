#!/bin/sh
# mmap_calls: what the mmap read path costs per file in system calls, counted with strace, not
# timed. Inside a rank's timed reads (between the getrusage calls that bracket them) the design
# allows per file exactly one openat, one fstat, one mmap, one madvise (advice sequential or
# willneed; none without advice; a second with huge_pages: true), one munmap and one close, and
# nothing else: the copy out of the mapping makes no call. In particular no fadvise64:
# POSIX_FADV_SEQUENTIAL on the descriptor doubles the read-ahead window of the mapping's faults,
# which on a loop ext4 made a cold read of 8 files of 64 MiB take nearly twice the mapping's
# faults and some 30% more CPU per byte (docs/performance.md, What the figures include).
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root for its capped tmpfs"
strace_require
capped_mount "$SCRATCH/fs" 32m 2000 || skip_all "cannot mount a capped tmpfs"
mkdir -p "$SCRATCH/results"
root="$SCRATCH/fs/data"

# config FILE NAME ADVICE [HUGE]: 1 MiB files read in 4 transfers of 256 KiB and 65537 B in 2 of
# 64 KiB (a partial last page), 6 of each, 1 and 2 readers, warm, the mmap path with ADVICE.
config() {
	{
		echo "name: $2"
		echo "root: $root"
		echo "results: $SCRATCH/results/{name}.h5"
		echo "datasets:"
		echo "  - {name: mid, file_size: 1MiB, file_count: 6}"
		echo "  - {name: odd, file_size: 65537, file_count: 6}"
		echo "sweep: {readers_per_node: [1, 2], transfer_size: [256KiB, 64KiB], backend: [mmap]}"
		echo "mmap: {advice: $3, huge_pages: ${4:-false}}"
		echo "cache: none"
	} >"$1"
}
config "$SCRATCH/seq.yaml" seq sequential
config "$SCRATCH/none.yaml" none none
config "$SCRATCH/huge.yaml" huge sequential true
check "generate 6 files of each size" mpi 2 "$PFSREAD" generate "$SCRATCH/seq.yaml"

# run NAME: the run under strace -ff (every rank, thread and helper, a trace file each, so
# that no call is split across lines), its traces in NAME.d/t.TID.
run() {
	mkdir -p "$SCRATCH/$1.d"
	strace -ff -qq -o "$SCRATCH/$1.d/t" timeout 300 $MPIRUN $MPI_FLAGS -np 2 \
		"$PFSREAD" run "$SCRATCH/$1.yaml" -o "$SCRATCH/results/$1.h5" >"$SCRATCH/$1.out" 2>&1
}

# timed NAME MADVISE: the calls in the timed stretches that open a data set file against the
# design's, MADVISE madvise calls per file (0, 1 or 2). 4 phases a data set (2 reader counts x 2
# transfer sizes), each reading all 6 files once: 48 file reads.
timed() {
	"$PYTHON" - "$SCRATCH/$1.d" "$root/" "$2" <<'PY'
import collections, glob, re, sys
traces, root, madv = sys.argv[1], sys.argv[2], int(sys.argv[3])
call = re.compile(r"^([a-z0-9_]+)\(")
seen, stretches = collections.Counter(), 0
for trace in glob.glob(traces + "/t.*"):
    region, reads, begun = collections.Counter(), False, False
    for line in open(trace, errors="replace"):
        m = call.match(line)
        if m is None:
            continue
        name = m.group(1)
        if name == "getrusage":  # a stretch runs from one to the next, never from the start
            if reads and begun:
                seen.update(region)
                stretches += 1
            region, reads, begun = collections.Counter(), False, True
            continue
        # fstat by descriptor is newfstatat(fd, "", ..., AT_EMPTY_PATH) or fstat by libc
        region["fstat" if name in ("fstat", "newfstatat") else name] += 1
        # the timed open; the residency probe's (O_NONBLOCK) maps, never reads
        if name == "openat" and f'"{root}' in line and "O_NONBLOCK" not in line:
            reads = True
reads = 2 * 4 * 6
want = collections.Counter({k: reads for k in ("openat", "fstat", "mmap", "munmap", "close")})
if madv:
    want["madvise"] = madv * reads
print(f"# {stretches} timed stretches; calls in them: {dict(seen)}")
print(f"# the design's: {dict(want)}")
sys.exit(0 if seen == want else 1)
PY
}

run seq
ok_status $? "advice sequential: run under strace -ff"
check "advice sequential, timed reads: per file openat, fstat, mmap, madvise, munmap, close; no fadvise64" \
	timed seq 1
run none
ok_status $? "advice none: run under strace -ff"
check "advice none, timed reads: per file openat, fstat, mmap, munmap, close; no madvise" \
	timed none 0
run huge
ok_status $? "huge_pages: true: run under strace -ff"
check "huge_pages: true, timed reads: per file openat, fstat, mmap, 2 madvise, munmap, close" \
	timed huge 2
check "huge_pages: true: every phase's hints name MADV_HUGEPAGE, after the advice" \
	"$PYTHON" - "$SCRATCH/results/huge.h5" <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
want = "mmap(MAP_SHARED), madvise(MADV_SEQUENTIAL), madvise(MADV_HUGEPAGE) on every file"
got = [f["phases"][p].attrs["hints"] for p in f["phases"]]
got = [h.decode() if isinstance(h, bytes) else str(h) for h in got]
print(f"# hints: {sorted(set(got))}")
sys.exit(0 if len(got) == 8 and set(got) == {want} else 1)
PY
done_testing
