#!/bin/sh
# syscalls: what the posix read path costs per file in system calls, counted with strace, not
# timed. Inside a rank's timed reads (between the getrusage calls that bracket them) the design
# allows per file exactly one openat, one fadvise64 (files over 4 KiB: the sequential hint), one
# pread64 per transfer and one close, and nothing else; over a whole run, the calls that grow
# with the files (N files against 2N) stay within the design's list: the pre-run check's stat,
# the residency probe (openat, fstat, cachestat, close; mmap, mincore and munmap on a kernel
# without cachestat), the timed reads and the storage-target helper's stat. A call added per
# file anywhere makes this test fail.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root for its capped tmpfs"
strace_require
capped_mount "$SCRATCH/fs" 32m 2000 || skip_all "cannot mount a capped tmpfs"
mkdir -p "$SCRATCH/results"
root="$SCRATCH/fs/data"

# config FILE NAME FILES: three data sets (1 MiB files read in 4 transfers of 256 KiB, 65537 B
# in 2 transfers of 64 KiB, 4 KiB in 1 without the hint), 1 and 2 readers, warm.
config() {
	{
		echo "name: $2"
		echo "root: $root/$2"
		echo "results: $SCRATCH/results/{name}.h5"
		echo "datasets:"
		echo "  - {name: mid, file_size: 1MiB, file_count: $3}"
		echo "  - {name: odd, file_size: 65537, file_count: $3}"
		echo "  - {name: tiny, file_size: 4KiB, file_count: $3}"
		echo "sweep: {readers_per_node: [1, 2], transfer_size: [256KiB, 64KiB]}"
		echo "cache: none"
	} >"$1"
}
config "$SCRATCH/a.yaml" a 6
config "$SCRATCH/b.yaml" b 12
check "generate 6 files of each size" mpi 2 "$PFSREAD" generate "$SCRATCH/a.yaml"
check "generate 12 files of each size" mpi 2 "$PFSREAD" generate "$SCRATCH/b.yaml"

# run NAME: the run under strace -ff (every rank, thread and helper, a trace file each, so
# that no call is split across lines), its traces in NAME.d/t.TID.
run() {
	mkdir -p "$SCRATCH/$1.d"
	strace -ff -qq -o "$SCRATCH/$1.d/t" timeout 300 $MPIRUN $MPI_FLAGS -np 2 \
		"$PFSREAD" run "$SCRATCH/$1.yaml" -o "$SCRATCH/results/$1.h5" >"$SCRATCH/$1.out" 2>&1
}
run a
ok_status $? "run of 6 files a data set under strace -ff"
run b
ok_status $? "run of 12 files a data set under strace -ff"

# Inside the timed reads: a thread's stretch from one getrusage to the next that reads a data
# set file is one rank's timed reads of one phase (the residency probe maps, never reads).
check "timed reads: per file one openat, one fadvise64 (over 4 KiB), a pread64 per transfer, one close, nothing else" \
	"$PYTHON" - "$SCRATCH/b.d" "$root/b/" <<'PY'
import collections, glob, re, sys
traces, root = sys.argv[1], sys.argv[2]
call = re.compile(r"^([a-z0-9_]+)\(")
opened = re.compile(r'^openat\(AT_FDCWD, "([^"]+)".* = (\d+)$')
seen, timed = collections.Counter(), 0
for trace in glob.glob(traces + "/t.*"):
    region, reads, fds = collections.Counter(), False, set()
    for line in open(trace, errors="replace"):
        m = call.match(line)
        if m is None:
            continue
        name = m.group(1)
        if name == "getrusage":
            if reads:
                seen.update(region)
                timed += 1
            region, reads = collections.Counter(), False
            continue
        region[name] += 1
        o = opened.match(line)
        if o and o.group(1).startswith(root):
            fds.add(o.group(2))
        r = re.match(r"^(pread64|close)\((\d+)[,)]", line)
        if r and r.group(1) == "close":
            fds.discard(r.group(2))
        elif r and r.group(2) in fds:
            reads = True
# per phase the active ranks read every file of its data set once: 12 files of each size,
# 2 reader counts x 2 transfer sizes
n, want = 12, collections.Counter()
for size in (1 << 20, 65537, 4096):
    for transfer in (256 << 10, 64 << 10):
        phases = 2  # 1 and 2 readers
        want["openat"] += phases * n
        want["close"] += phases * n
        want["pread64"] += phases * n * -(-size // transfer)
        if size > 4096:
            want["fadvise64"] += phases * n
print(f"# {timed} timed stretches; calls in them: {dict(seen)}")
print(f"# the design's: {dict(want)}")
sys.exit(0 if seen == want else 1)
PY

# Over the whole run: what 6 more files a data set add (18 more files, each read in 4 phases:
# 72 more file reads). The design's list, per file read: the timed openat, fadvise64 (4 of 6
# reads), pread64s (4, 1 and 1 of 256 KiB, 16, 2 and 1 of 64 KiB: 25 in 6 reads) and close;
# the residency probe's openat, fstat, cachestat (or mmap, mincore, munmap) and close (64 files
# a rank and phase at most, above these counts). Per file and run: the run's check that the data
# set is whole and the storage-target helper's stat (3 stats at most).
check "whole run: the calls per file stay within the design's list" \
	"$PYTHON" - "$SCRATCH/a.d" "$SCRATCH/b.d" <<'PY'
import collections, glob, re, sys
def counts(traces):
    c = collections.Counter()
    for path in glob.glob(traces + "/t.*"):
        for line in open(path, errors="replace"):
            m = re.match(r"^([a-z0-9_]+)\(", line)
            if m:
                c[m.group(1)] += 1
    return c
a, b = counts(sys.argv[1]), counts(sys.argv[2])
reads, files_more = 72, 18
per_read = {"openat": 2, "close": 2, "newfstatat": 1, "mmap": 1, "munmap": 1, "mincore": 1,
            "fadvise64": 4 / 6, "pread64": 25 / 6}
per_file = {"newfstatat": 3}
bound = {k: v * reads + per_file.get(k, 0) * files_more for k, v in per_read.items()}
grew = {k: b[k] - a[k] for k in bound}
over = {k: (grew[k], round(bound[k])) for k in bound if grew[k] > bound[k] + 4}
print("# more calls for 72 more file reads: " +
      ", ".join(f"{k} {grew[k]} (design {bound[k]:.0f})" for k in bound))
# calls on files that grow with the files but are on no list: a new kind of per-file
# bookkeeping (read and lseek are left out: MPI, the helper's socket and HDF5 make them too)
files = ("open", "openat", "openat2", "stat", "lstat", "fstat", "statx", "access", "faccessat",
         "faccessat2", "readlink", "readlinkat", "getxattr", "lgetxattr", "fgetxattr",
         "listxattr", "statfs", "fstatfs", "preadv", "preadv2",
         "fadvise64", "readahead", "madvise", "mincore", "mmap", "munmap", "getdents64")
new = {k: b[k] - a[k] for k in files if k not in bound and b[k] - a[k] > reads / 4}
if over or new:
    print(f"# above the design: {over}; new per-file calls: {new}")
sys.exit(1 if over or new else 0)
PY
done_testing
