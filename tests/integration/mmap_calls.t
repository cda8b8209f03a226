#!/bin/sh
# mmap_calls: what the mmap read path costs per file in system calls, counted with strace, not
# timed. Inside a rank's timed reads (between the getrusage calls that bracket them) the design
# allows per file exactly one openat, one fstat, one mmap, one madvise (advice sequential or
# willneed; none without advice; a second with huge_pages: true), one munmap and one close, and
# nothing else: the copy out of the mapping makes no call. In particular no fadvise64:
# POSIX_FADV_SEQUENTIAL on the descriptor doubles the read-ahead window of the mapping's faults,
# which on a loop ext4 made a cold read of 8 files of 64 MiB take nearly twice the mapping's
# faults and some 30% more CPU per byte (docs/performance.md, What the figures include).
# With keep_mapped: true the munmap leaves the timed reads: every mapping of the phase is undone
# after them, before the next phase's.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root for its capped tmpfs"
strace_require
capped_mount "$SCRATCH/fs" 32m 2000 || skip_all "cannot mount a capped tmpfs"
mkdir -p "$SCRATCH/results"
root="$SCRATCH/fs/data"

# config FILE NAME ADVICE [HUGE [KEEP]]: 1 MiB files read in 4 transfers of 256 KiB and 65537 B in 2 of
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
		echo "mmap: {advice: $3, huge_pages: ${4:-false}, keep_mapped: ${5:-false}}"
		echo "cache: none"
	} >"$1"
}
config "$SCRATCH/seq.yaml" seq sequential
config "$SCRATCH/none.yaml" none none
config "$SCRATCH/huge.yaml" huge sequential true
config "$SCRATCH/keep.yaml" keep sequential false true
check "generate 6 files of each size" mpi 2 "$PFSREAD" generate "$SCRATCH/seq.yaml"

# run NAME: the run under strace -ff (every rank, thread and helper, a trace file each, so
# that no call is split across lines), its traces in NAME.d/t.TID.
run() {
	mkdir -p "$SCRATCH/$1.d"
	strace -ff -qq -o "$SCRATCH/$1.d/t" timeout 300 $MPIRUN $MPI_FLAGS -np 2 \
		"$PFSREAD" run "$SCRATCH/$1.yaml" -o "$SCRATCH/results/$1.h5" >"$SCRATCH/$1.out" 2>&1
}

# timed NAME MADVISE [KEPT]: the calls in the timed stretches that open a data set file against
# the design's, MADVISE madvise calls per file (0, 1 or 2). 4 phases a data set (2 reader counts
# x 2 transfer sizes), each reading all 6 files once: 48 file reads. KEPT 1: no munmap in them,
# and the data set files' mappings (by their sizes) undone in the stretch after each, as many
# as it mapped.
timed() {
	"$PYTHON" - "$SCRATCH/$1.d" "$root/" "$2" "${3:-0}" <<'PY'
import collections, glob, re, sys
traces, root, madv, kept = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
call = re.compile(r"^([a-z0-9_]+)\(")
sizes = re.compile(r"^munmap\(0x[0-9a-f]+, (1048576|65537)\)")
seen, stretches, after, owed = collections.Counter(), 0, 0, 0
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
                owed += region["mmap"]
            elif begun:
                after += region["kept munmap"]
            region, reads, begun = collections.Counter(), False, True
            continue
        if sizes.match(line):  # a data set file's mapping: 1 MiB or 65537 B, no other is
            region["kept munmap"] += 1
        # fstat by descriptor is newfstatat(fd, "", ..., AT_EMPTY_PATH) or fstat by libc
        region["fstat" if name in ("fstat", "newfstatat") else name] += 1
        # the timed open of a data set's file; the residency probe's (O_NONBLOCK) maps, never
        # reads, and the run's lock files lie under the root too
        if name == "openat" and any(f'"{root}{d}/' in line for d in ("mid", "odd")) and \
                "O_NONBLOCK" not in line:
            reads = True
    if begun and not reads:  # the last phase's, after its stretch
        after += region["kept munmap"]
reads = 2 * 4 * 6
want = collections.Counter({k: reads for k in ("openat", "fstat", "mmap", "munmap", "close")})
want["kept munmap"] = reads
if madv:
    want["madvise"] = madv * reads
if kept:
    del want["munmap"], want["kept munmap"]
print(f"# {stretches} timed stretches; calls in them: {dict(seen)}")
print(f"# the design's: {dict(want)}")
print(f"# data set mappings undone after the timed stretches: {after} of {owed if kept else 0}")
sys.exit(0 if seen == want and after == (owed if kept else 0) else 1)
PY
}

# hints NAME WANT: every one of the run's 8 phases records WANT as its hints.
hints() {
	"$PYTHON" - "$SCRATCH/results/$1.h5" "$2" <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
got = [f["phases"][p].attrs["hints"] for p in f["phases"]]
got = [h.decode() if isinstance(h, bytes) else str(h) for h in got]
print(f"# hints: {sorted(set(got))}")
sys.exit(0 if len(got) == 8 and set(got) == {sys.argv[2]} else 1)
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
	hints huge "mmap(MAP_SHARED), madvise(MADV_SEQUENTIAL), madvise(MADV_HUGEPAGE) on every file"
run keep
ok_status $? "keep_mapped: true: run under strace -ff"
check "keep_mapped: true, timed reads: per file openat, fstat, mmap, madvise, close; every munmap after the phase" \
	timed keep 1 1
check "keep_mapped: true: every phase's hints say the mappings are kept to the phase's end" \
	hints keep "mmap(MAP_SHARED), madvise(MADV_SEQUENTIAL) on every file, kept mapped to the phase's end"
# A reader keeps at most a quarter of the node's memory mapped: on a node of 9 MiB (the shim
# answers sysconf(_SC_PHYS_PAGES)), 2.25 MiB. Reading the six 1 MiB files, the third mapping
# would go over it: those kept so far are unmapped first, in the timed reads.
SHIM="$SCRATCH/physpages.so"
${CC:-cc} -shared -fPIC -O2 -Wall -Wextra -Werror -o "$SHIM" \
	"$TOP/tests/integration/shim/physpages.c" -ldl
ok_status $? "build the shim that gives pfsread a node of a few MiB"
{
	sed -e '/^sweep:/d' -e '/name: odd/d' "$SCRATCH/keep.yaml"
	echo "sweep: {readers_per_node: [1], transfer_size: [256KiB], backend: [mmap]}"
} >"$SCRATCH/cap.yaml"
mkdir -p "$SCRATCH/cap.d"
strace -ff -qq -o "$SCRATCH/cap.d/t" env LD_PRELOAD="$SHIM" PHYS_PAGES=$((9 * 1048576 / $(getconf PAGESIZE))) \
	timeout 300 "$PFSREAD" run "$SCRATCH/cap.yaml" -o "$SCRATCH/results/cap.h5" --progress 0 \
	>"$SCRATCH/cap.out" 2>&1
ok_status $? "keep_mapped: true on a node of 9 MiB: run under strace -ff"
check "keep_mapped: true on a node of 9 MiB: never more than 2.25 MiB mapped; the kept ones unmapped in the timed reads when the next would go over, the rest after" \
	"$PYTHON" - "$SCRATCH/cap.d" "$root/mid/" <<'PY'
import glob, re, sys
traces, files = sys.argv[1], sys.argv[2]
mmap = re.compile(r"^mmap\(NULL, (\d+), PROT_READ, MAP_SHARED, (\d+), 0\) = (0x[0-9a-f]+)")
munmap = re.compile(r"^munmap\((0x[0-9a-f]+), (\d+)\)")
opened = re.compile(r'^openat\(AT_FDCWD, "([^"]+)", ([A-Z_|]+)\) = (\d+)')
fds, maps, most, timed_unmaps, after, stretch = {}, {}, 0, 0, 0, None
for trace in glob.glob(traces + "/t.*"):
    for line in open(trace, errors="replace"):
        if line.startswith("getrusage("):  # the timed reads lie between the phase's two
            stretch = "in" if stretch is None else "after"
        m = opened.match(line)
        if m and m.group(1).startswith(files) and "O_NONBLOCK" not in m.group(2):
            fds[m.group(3)] = True
        m = mmap.match(line)
        if m and fds.pop(m.group(2), False):
            maps[m.group(3)] = int(m.group(1))
            most = max(most, sum(maps.values()))
        m = munmap.match(line)
        if m and m.group(1) in maps:
            del maps[m.group(1)]
            if stretch == "in":
                timed_unmaps += 1
            else:
                after += 1
print(f"# most mapped at once: {most} B; unmapped in the timed reads {timed_unmaps}, after {after}; "
      f"still mapped {len(maps)}")
sys.exit(0 if most == 2 * 1048576 and timed_unmaps == 4 and after == 2 and not maps else 1)
PY
done_testing
