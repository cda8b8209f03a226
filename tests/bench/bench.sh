#!/bin/bash
# bench.sh: pfsread side by side with fio (and IOR and mdtest, where built) on the same files,
# with the same settings, in one run.
# A benchmark, not a test: it prints what it measured and never passes or fails on timing.
#
#   usage: tests/bench/bench.sh [--quick | --smoke] [--only sizes|md|progress|gen] [DIR]
#     DIR      where the files go (default /var/tmp/pfsread-bench; not /tmp, which may be tmpfs
#              and refuse O_DIRECT). Needs the data sets' total plus the largest one free.
#     --quick  smaller data sets (2 x 256 MiB, 16 x 64 MiB, 128 x 2 MiB), one repetition, 20,000
#              small files (default: 4 x 1 GiB, 64 x 64 MiB, 512 x 2 MiB, three repetitions,
#              100,000 small files)
#     --smoke  the smallest (2 x 16 MiB, 8 x 2 MiB, one repetition, 1,000 small files, one
#              progress round): that the bench runs and what it prints, no figure worth keeping
#     --only   only the size classes, or only the small-file (metadata) class, or only the
#              cost of the progress lines, or only the size classes' generation rows (gen:
#              generate against fio's write, no reads)
#   environment: PFSREAD (default build/pfsread), MPIRUN (default mpirun),
#                PYTHON (default /usr/bin/python3, which must have h5py and numpy),
#                IOR_DIR (an IOR/mdtest build from github.com/hpc/ior: its install prefix, with
#                bin/ior and bin/mdtest; docs/performance.md; unset: no IOR and mdtest rows),
#                MD_FILES (small files of the metadata class, a multiple of 1000; above 200,000
#                they go on a loop ext4 file system in a capped tmpfs the bench mounts, as root),
#                MD_BYTES (their size, default 4096; 0: empty files, open+close only),
#                PR_FILES (files of the progress row, default MD_FILES), PR_ROUNDS (its rounds,
#                default 5), PR_RANKS (its ranks, default 2), REPS (repetitions: default 3, 1
#                with --quick), BENCH_DROP=0 (as root too, never drop the page cache: a machine
#                shared with others; cold rows are skipped as when not root), PLACE_PAIRS (pairs
#                of the buffer placement probe, default 5), BENCH_PATHS (some read paths only,
#                e.g. "posix mmap"), BENCH_CLASSES (some size classes only, by name, e.g. 2MiB)
#
# fio runs on the CPUs mpirun binds pfsread's rank to (taskset; Open MPI binds a rank to a core),
# so that no tool has the machine's other cores to itself.
# In order, for each class of file size (largest first):
#   1. generation: 'pfsread generate' against a fio sequential write of the same number of files
#      of the same size, same block size, same file system, and again against fio writing new
#      content at each write (--refill_buffers), as generate does; neither side fsyncs; each
#      repetition in the order A B B A (A: pfsread or fio, alternating), so that each tool
#      writes once first and once second of a pair, and the ratio pairs like places; before
#      each writer, as root, the prime file read and the caches dropped (before_write)
#   before the first class's reads, the buffer placement probe: pfsread's warm posix reads with
#      its buffer on a 2 MiB boundary and 16 B past one, in pairs; the faster is where the posix
#      rows read, pfsread's and fio's (buffer_placement)
#   2. for each repetition:
#      a. the ceilings: memory copy (numpy copies 1 GiB through one reused 4 MiB buffer, best
#         of 5) and the device (fio, one O_DIRECT sequential read of the largest class's first
#         file, psync and io_uring at queue depth 16)
#      b. for each read path and cache state: pfsread, fio and (with IOR_DIR) IOR and mdtest
#         where they have that path, in an order that rotates over repetitions and rows, each
#         reading every file of the class once, whole, in order; cold, as root, a margin of
#         the prime file read and the caches dropped before each (cold_start)
# then the metadata class (with IOR_DIR): MD_FILES files of MD_BYTES in directories of 1,000,
#   made by 'pfsread generate' against mdtest's create phase, then mdtest's files read by both
#   (pfsread through hard links named in mdtest's order), cold and warm: pfsread's phase (open,
#   read, close) against mdtest's read phase (-E), and
#   pfsread's tree scan (plan: readdir + fstatat) against mdtest's stat phase (-T), in files/s
# then the cost of the progress lines: PR_FILES files of 1 KiB on a capped tmpfs (as root; else
#   in DIR), a phase of PR_RANKS ranks read with --progress 1 and with --progress 0, in rounds that
#   alternate which goes first, PR_ROUNDS rounds: the medians and the minima of the phase's time,
#   and their differences (the bar: under 0.5% of the phase; on a busy machine the noise
#   exceeds it, and the minima, the runs least disturbed, say more than the medians)
# then the tables: medians over repetitions, ratio pfsread/peer (the median of each
#   repetition's pair), fraction of the best ceiling,
#   CPU seconds per GB read (user + system) of pfsread (its results file's ranks table) and fio
#   (usr_cpu + sys_cpu of its job), with the machine it ran on: CPU model, cores, memory and
#   its copy bandwidth and the disk's read rate from 'pfsread calibrate' (medians of its
#   repetitions), kernel, the file system and device under DIR.
# Every measurement is also in DIR/work/raw.tsv; every command run is in DIR/work/commands.log.
# The tables, with the machine, are also in DIR/work/tables.md, a markdown block that
# `make bench-doc` puts into docs/performance.md.
# The data files are removed at the end; DIR/work (configs, results, logs) is kept.
set -Eeu -o pipefail
shopt -s inherit_errexit # a failure inside $(...) stops the script too
# report_failure LINE COMMAND: what set -e stopped on (the first line of the command).
report_failure() {
	echo "bench.sh: line $1: command failed: ${2%%$'\n'*}" >&2
}
trap 'report_failure $LINENO "$BASH_COMMAND"' ERR

TOP=$(cd "$(dirname "$0")/../.." && pwd)
PFSREAD=${PFSREAD:-$TOP/build/pfsread}
MPIRUN=${MPIRUN:-mpirun}
PYTHON=${PYTHON:-/usr/bin/python3}
# between mpirun and a tool's binary: the whole process's CPU seconds into a file (cpu_of.py)
CPU_OF=$TOP/tests/bench/cpu_of.py

# ---- settings ---------------------------------------------------------------------------------

QUICK=0
ONLY=all
DIR=/var/tmp/pfsread-bench
BENCH_CMD="tests/bench/bench.sh${*:+ $*}"
# with the settings, given by the caller, that choose what runs
for v in BENCH_CLASSES BENCH_PATHS REPS; do
	if [ -n "${!v:-}" ]; then BENCH_CMD="$v=${!v} $BENCH_CMD"; fi
done
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) QUICK=1 ;;
	--smoke) QUICK=2 ;;
	--only)
		if [ $# -lt 2 ] || { [ "$2" != sizes ] && [ "$2" != md ] && [ "$2" != progress ] &&
			[ "$2" != gen ]; }; then
			echo "bench.sh: --only takes sizes, md, progress or gen" >&2
			exit 2
		fi
		ONLY=$2
		shift
		;;
	-h | --help)
		sed -n '2,/^set -Eeu/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	-*) echo "bench.sh: unknown option $1 (usage: bench.sh [--quick | --smoke] [--only sizes|md|progress|gen] [DIR])" >&2 && exit 2 ;;
	*) DIR=$1 ;;
	esac
	shift
done

if [ "$QUICK" -eq 2 ]; then
	CLASS_NAMES=(16MiB 2MiB)
	CLASS_SIZES=(16777216 2097152)
	CLASS_COUNTS=(2 8)
	REPS=${REPS:-1}
	MD_FILES=${MD_FILES:-1000}
	PR_ROUNDS=${PR_ROUNDS:-1}
elif [ "$QUICK" -eq 1 ]; then
	CLASS_NAMES=(256MiB 64MiB 2MiB)
	CLASS_SIZES=(268435456 67108864 2097152)
	CLASS_COUNTS=(2 16 128)
	REPS=${REPS:-1}
else
	CLASS_NAMES=(1GiB 64MiB 2MiB)
	CLASS_SIZES=(1073741824 67108864 2097152)
	CLASS_COUNTS=(4 64 512)
	REPS=${REPS:-3}
fi
if ! [[ "$REPS" =~ ^[1-9][0-9]*$ ]]; then
	echo "bench.sh: REPS=$REPS: a number of repetitions, at least 1" >&2
	exit 2
fi
# BENCH_PATHS: some of the read paths only (e.g. BENCH_PATHS=mmap)
read -r -a PATHS <<<"${BENCH_PATHS:-posix direct mmap uring}"
# BENCH_CLASSES: some of the size classes only, by name (e.g. BENCH_CLASSES=2MiB): a row run
# again with more repetitions, in the same order, costs minutes instead of the whole bench
if [ -n "${BENCH_CLASSES:-}" ]; then
	read -r -a want <<<"$BENCH_CLASSES"
	kept_names=() kept_sizes=() kept_counts=()
	for w in "${want[@]}"; do
		[[ " ${CLASS_NAMES[*]} " == *" $w "* ]] && continue
		echo "bench.sh: BENCH_CLASSES: no class '$w' (the classes: ${CLASS_NAMES[*]})" >&2
		exit 2
	done
	for j in "${!CLASS_NAMES[@]}"; do
		[[ " ${want[*]} " == *" ${CLASS_NAMES[j]} "* ]] || continue
		kept_names+=("${CLASS_NAMES[j]}") kept_sizes+=("${CLASS_SIZES[j]}")
		kept_counts+=("${CLASS_COUNTS[j]}")
	done
	CLASS_NAMES=("${kept_names[@]}") CLASS_SIZES=("${kept_sizes[@]}")
	CLASS_COUNTS=("${kept_counts[@]}")
fi
CACHES=(warm cold)
MAX_BLOCK=4194304 # 4 MiB: reads use min(this, file size), both sides
GEN_WRITE=524288  # 512 KiB: generate's write size (GEN_WRITE); fio's write job uses the same
QUEUE_DEPTH=16    # pfsread uring.queue_depth = fio --iodepth
PLACE=0           # posix reads land this many bytes past a 2 MiB boundary (buffer_placement)
PLACE_FACT=""     # what the probe found, for the machine facts
PLACE_PAIRS=${PLACE_PAIRS:-5}
[ "$QUICK" -eq 2 ] && PLACE_PAIRS=1
IS_ROOT=0
CAN_DROP=0 # 1: may drop the page cache (root, and BENCH_DROP not 0)
[ "$(id -u)" -eq 0 ] && IS_ROOT=1
[ "$IS_ROOT" -eq 1 ] && [ "${BENCH_DROP:-1}" != 0 ] && CAN_DROP=1
IOR_DIR=${IOR_DIR:-}
MD_FILES=${MD_FILES:-$([ "$QUICK" -ge 1 ] && echo 20000 || echo 100000)}
MD_BYTES=${MD_BYTES:-4096}
MD_PER_DIR=1000     # files per directory of the metadata class, both sides
MD_LOOP_OVER=200000 # more small files than this go on a loop file system of their own
PR_FILES=${PR_FILES:-$MD_FILES}
PR_ROUNDS=${PR_ROUNDS:-5}
PR_RANKS=${PR_RANKS:-2}
if ! [[ "$MD_FILES" =~ ^[1-9][0-9]*000$ ]]; then
	echo "bench.sh: MD_FILES=$MD_FILES: a multiple of 1000 (files per directory), at least 1000" >&2
	exit 2
fi
if ! [[ "$MD_BYTES" =~ ^[0-9]+$ ]] || [ "$MD_BYTES" -gt "$MAX_BLOCK" ]; then
	echo "bench.sh: MD_BYTES=$MD_BYTES: a byte count up to $MAX_BLOCK" >&2
	exit 2
fi
MPI_FLAGS=(--oversubscribe --mca btl "self,vader,tcp")
[ "$IS_ROOT" -eq 1 ] && MPI_FLAGS+=(--allow-run-as-root)

mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
DATA=$DIR/data           # pfsread's root: DATA/CLASS/d000000/f0000000000 ...
NAMES=$DIR/fio-names     # NAMES/CLASS/0 ... : hard links to the same files, for fio's --filename
FIOW=$DIR/fio-write      # fio's generation files, removed after each class
PRIME=$DIR/prime         # read before each writer's cache drop (before_write)
WORK=$DIR/work           # configs, results, logs, raw.tsv
RAW=$WORK/raw.tsv
CMDLOG=$WORK/commands.log
IORN=$DIR/ior-names      # IORN/CLASS/f.00000000.N: hard links, the names IOR's -F -m reads
MDN=$DIR/md-names        # MDN/CLASS/test-dir.0-0/mdtest_tree.0/file.mdtest.0.N: mdtest's names
MDIMG=$DIR/md-tmpfs      # the capped tmpfs holding the loop file system's image (MD_LOOP_OVER)
MDFS=$DIR/md-fs          # the loop file system's mount point
MDGIMG=$DIR/md-gen-tmpfs # the same for each generation run's own file system (MD_FRESH)
MDGFS=$DIR/md-gen-fs
PRFS=$DIR/progress-fs    # the progress row's files (a capped tmpfs as root)

# ---- small helpers ------------------------------------------------------------------------

die() {
	echo "bench.sh: $*" >&2
	exit 1
}

now() { date +%s.%N; }

# block_of SIZE: the transfer size both sides use for files of SIZE bytes. fio reads nothing at
# all from a file smaller than its block size, so the block never exceeds the file.
block_of() {
	if [ "$1" -lt "$MAX_BLOCK" ]; then echo "$1"; else echo "$MAX_BLOCK"; fi
}

# run_logged LOG COMMAND...: run COMMAND with its output in LOG, the command in CMDLOG; on
# failure show the command and the end of LOG, and stop.
run_logged() {
	local log=$1
	shift
	echo "$*" >>"$CMDLOG"
	echo "+ $*" >"$log"
	if ! "$@" >>"$log" 2>&1; then
		echo "bench.sh: failed: $*" >&2
		tail -n 20 "$log" | sed 's/^/  | /' >&2
		exit 1
	fi
}

# ---- the host's reclaim of freed memory -------------------------------------------------------

# A virtual machine with free page reporting (a virtio balloon) hands the memory its guest
# frees back to the host in passes, from about two seconds after the free, 768 MiB a pass here.
# A read whose page cache lands on memory the host is taking back, or has taken, pays a fault
# on the host per page: 4 x 1 GiB cold with fio here, 3,100 MB/s (0.3 CPU s) started at once
# after the drop, 1,300-1,700 (1.4-2.1 s) one second later, 650 (5.5 s) once all was taken.
# A drop of the page cache frees gigabytes, so a tool that started a second later than
# another, or behind the passes of the drop before, read at half speed by its timing alone.
# This kernel counts what was reported (RECLAIM_KIB); where it does, every cold run and every
# writer begins once the passes have stopped, at once after the drop that frees its memory.
RECLAIM_KIB=/sys/module/page_reporting/parameters/reported_kib
RECLAIM_QUIET_S=3 # no change for this long: the passes have stopped (one every ~2 s)
RECLAIM_MAX_S=90
COLD_MARGIN=$((1 << 30)) # the most a cold read gets freed beyond the row before's cache

# reclaim_kib: KiB the host has taken back since boot, or nothing where the kernel does not say.
reclaim_kib() {
	[ -r "$RECLAIM_KIB" ] && cat "$RECLAIM_KIB" 2>/dev/null
	return 0
}

# reclaim_settle: wait until the host has stopped taking back freed memory (RECLAIM_QUIET_S
# without a change in its count, at most RECLAIM_MAX_S), where the kernel counts it; nothing
# where the caller has just waited (RECLAIM_SETTLED=1: a read row counts the host's taking
# from there on, the tool's own drop included).
reclaim_settle() {
	local a b waited=0
	[ "${RECLAIM_SETTLED:-0}" -eq 1 ] && return 0
	a=$(reclaim_kib)
	[ -n "$a" ] || return 0
	while [ "$waited" -lt "$RECLAIM_MAX_S" ]; do
		sleep "$RECLAIM_QUIET_S"
		waited=$((waited + RECLAIM_QUIET_S))
		b=$(reclaim_kib)
		[ "$a" = "$b" ] && break
		a=$b
	done
	echo "# the host's reclaim of freed memory: quiet after ${waited} s" >>"$CMDLOG"
}

# reclaim_fact: the machine's free page reporting, for the machine facts.
reclaim_fact() {
	local d f on=0
	for d in /sys/bus/virtio/devices/*; do
		[ "$(cat "$d/device" 2>/dev/null)" = 0x0005 ] && [ -e "$d/driver" ] || continue
		f=$(cat "$d/features" 2>/dev/null)
		[ "${f:5:1}" = 1 ] && on=1 # VIRTIO_BALLOON_F_REPORTING
	done
	if [ -n "$(reclaim_kib)" ]; then
		echo "free page reporting on: the host takes back memory the guest frees" \
			"($(($(reclaim_kib) / 1048576)) GiB since boot); each cold run and writer starts once it has stopped," \
			"at once after a drop that frees more than it fills"
	elif [ "$on" -eq 1 ]; then
		echo "free page reporting on (virtio balloon): the host takes back memory the guest" \
			"frees; this kernel does not count it, so the bench cannot wait for it"
	else
		echo "no free page reporting"
	fi
}

# drop_caches: write back and empty the page cache (root only), then read the tools' programs
# and libraries back (PROGRAMS): a cold row is about the data's files, and a program whose own
# code came off the disk inside its timed region (a major fault per page first run) would pay
# what the others need not, by how much of its code its timing covers. First the host's reclaim
# of earlier frees is let finish (reclaim_settle), so that the run after the drop starts alike.
drop_caches() {
	reclaim_settle
	echo "sync; echo 3 > /proc/sys/vm/drop_caches; cat PROGRAMS > /dev/null" >>"$CMDLOG"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	cat "${PROGRAMS[@]}" >/dev/null
}

# before_write BYTES: what every writer (generate, fio, mdtest) gets right before it starts, as
# root: BYTES of the prime file read into the page cache, then the caches dropped. Why: on a
# virtual machine that hands freed memory back to its host (free page reporting), page-cache
# writes run at ~6 GB/s into memory freed a moment ago and ~1.5 GB/s into memory freed a
# second earlier (a fault on the host per page). In the rounds before this, a writer that had
# just removed its own cached files (then a sync, then the drop) always landed on the slow
# side, one whose drop freed the previous writer's files on the fast one. Now every writer's
# drop frees the same amount, just before it starts.
before_write() {
	[ "$CAN_DROP" -eq 1 ] || return 0
	echo "head -c $1 $PRIME > /dev/null; sync; echo 3 > /proc/sys/vm/drop_caches" >>"$CMDLOG"
	head -c "$1" "$PRIME" >/dev/null
	drop_caches
}

# cold_margin CLASS_INDEX PATH: bytes of the prime file a cold read of the row gets read before
# its drop (cold_start): COLD_MARGIN or the row's bytes, the smaller; none for O_DIRECT, which
# fills no page cache, or where the kernel does not count the host's taking.
cold_margin() {
	local bytes=$((CLASS_SIZES[$1] * CLASS_COUNTS[$1]))
	if [ "$2" = direct ] || [ -z "$(reclaim_kib)" ]; then
		echo 0
	else
		echo $((bytes < COLD_MARGIN ? bytes : COLD_MARGIN))
	fi
}

# cold_start BYTES: what every cold read gets right before it starts, as root: what a writer
# gets (before_write) with BYTES, or a plain drop when BYTES is 0. Why: the drop frees the row
# before's cache, about as much as the read will fill, and two seconds on the host starts taking
# freed memory back, a pass at a time (768 MiB here); the kernel hands out memory the host has
# not taken first, so the read's last pages landed on taken memory only when there was none
# left. 4 x 1 GiB read by dd: 1,250-1,690 MB/s after a plain drop, 1,700-1,810 with 1 GiB of the
# prime file read first (4 pairs); the pass then takes memory the read does not reach.
cold_start() {
	if [ "$1" -gt 0 ]; then before_write "$1"; else drop_caches; fi
}

# make_prime: the prime file (before_write, cold_start), as large as the most any writer writes.
make_prime() {
	local i t most=$((MD_FILES * MD_BYTES))
	[ "$CAN_DROP" -eq 1 ] || return 0
	for i in "${!CLASS_NAMES[@]}"; do
		t=$((CLASS_SIZES[i] * CLASS_COUNTS[i]))
		[ "$t" -gt "$most" ] && most=$t
	done
	echo "head -c $most /dev/zero > $PRIME" >>"$CMDLOG"
	head -c "$most" /dev/zero >"$PRIME"
	sync
}

# programs_of FILE...: each program and the shared libraries it loads, one a line.
programs_of() {
	local f
	for f in "$@"; do
		echo "$f"
		ldd "$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'
	done
}

# record KIND CLASS PATH CACHE REP FIRST TOOL MBPS WALL_MBPS NOTE: one measurement into RAW.
record() {
	local IFS=$'\t'
	echo "$*" >>"$RAW"
}

# ---- checks before anything is written ------------------------------------------------------

check_tools() {
	[ -x "$PFSREAD" ] || die "$PFSREAD not found: run 'make' first"
	command -v "$MPIRUN" >/dev/null || die "$MPIRUN not found (Debian: openmpi-bin)"
	[ "$ONLY" = progress ] || command -v fio >/dev/null || die "fio not found (Debian: fio)"
	"$PYTHON" -c 'import h5py, numpy' 2>/dev/null ||
		die "$PYTHON cannot import h5py and numpy (Debian: python3-h5py)"
	PEERS=0
	PEERS_WHY="IOR_DIR unset: no IOR and no mdtest rows (build them from github.com/hpc/ior outside this tree and set IOR_DIR to the install prefix; docs/performance.md)"
	if [ -n "$IOR_DIR" ]; then
		IOR=$(find_peer ior) || die "IOR_DIR=$IOR_DIR: no ior in bin/, ./ or src/"
		MDTEST=$(find_peer mdtest) || die "IOR_DIR=$IOR_DIR: no mdtest in bin/, ./ or src/"
		PEERS=1
		PEERS_WHY=""
	fi
	fio_pin
	# shellcheck disable=SC2207
	PROGRAMS=($(programs_of "$PFSREAD" "$(command -v fio)" ${IOR:+"$IOR"} ${MDTEST:+"$MDTEST"} \
		"$(readlink -f "$PYTHON")" | sort -u) "$CPU_OF")
}

# fio_pin: into FIO_PIN, what runs fio on the CPUs mpirun gives a one-rank job. Open MPI binds a
# rank to one core by default, pfsread's as IOR's and mdtest's: fio must not have the other
# cores to itself, which on a busy machine (or with the kernel's own work on them) is a lead
# of its own. Nothing when mpirun binds nothing (MPICH's default) or taskset is missing.
fio_pin() {
	local mine all
	FIO_PIN=()
	FIO_CPUS=all
	mine=$("$MPIRUN" "${MPI_FLAGS[@]}" -np 1 grep Cpus_allowed_list /proc/self/status | awk '{ print $2 }')
	all=$(awk '/Cpus_allowed_list/ { print $2 }' /proc/self/status)
	if [ -n "$mine" ] && [ "$mine" != "$all" ] && command -v taskset >/dev/null; then
		FIO_PIN=(taskset -c "$mine")
		FIO_CPUS=$mine
	fi
}

# check_space: the data sets, plus fio's copy of the largest during generation and the prime
# file (before_write), plus 5%.
check_space() {
	local need=0 biggest=0 i t avail
	[ "$ONLY" = md ] || [ "$ONLY" = progress ] && return 0
	for i in "${!CLASS_NAMES[@]}"; do
		t=$((CLASS_SIZES[i] * CLASS_COUNTS[i]))
		need=$((need + t))
		[ "$t" -gt "$biggest" ] && biggest=$t
	done
	need=$(((need + 2 * biggest) * 105 / 100)) # fio's copy and the prime file (before_write)
	avail=$(df -P -B1 "$DIR" | awk 'NR == 2 { print $4 }')
	[ "$avail" -ge "$need" ] ||
		die "$DIR has $((avail >> 20)) MiB free, the benchmark needs $((need >> 20)) MiB"
}

# direct_supported: whether the file system under DIR takes O_DIRECT (tmpfs may not).
direct_supported() {
	local probe=$WORK/direct-probe
	head -c 1048576 /dev/zero >"$probe"
	if dd if="$probe" of=/dev/null bs=1M iflag=direct status=none 2>/dev/null; then
		rm -f "$probe"
		return 0
	fi
	rm -f "$probe"
	return 1
}

# backend_available NAME: whether this build of pfsread has the read path NAME. Asks pfsread
# itself: an unknown backend is refused before any file is touched, with that message.
backend_available() {
	local cfg=$WORK/probe-$1.yaml out
	printf 'root: %s/no-such-root\ndatasets: [{name: p, file_size: 1MiB, file_count: 1}]\nsweep: {backend: [%s]}\ncache: none\n' \
		"$WORK" "$1" >"$cfg"
	out=$("$PFSREAD" run "$cfg" -o "$WORK/probe.h5" 2>&1 || true)
	case "$out" in
	*"unknown backend"*) return 1 ;;
	*) return 0 ;;
	esac
}

# ---- pfsread: configs, generation, reads ------------------------------------------------------

config_path() { echo "$WORK/config-$1-$2-$3.yaml"; }

# write_config CLASS_INDEX PATH CACHE: one data set, one rank, one phase; posix reads land
# where PLACE says (buffer_placement), PATH place0 and place16 are posix with its reads on a
# 2 MiB boundary and 16 B past one (the probe's). PATH mmap keeps each
# file's mapping to the phase's end, as fio's mmap engine (it unmaps at its exit); PATH
# mmap-each reads through mmap too, unmapping each file at its close, as IOR's MMAP back-end.
write_config() {
	local i=$1 path=$2 cache=$3 name=${CLASS_NAMES[$1]} pcache block backend=$2 keep=false
	local place=$PLACE
	pcache=none
	[ "$cache" = cold ] && pcache=drop
	block=$(block_of "${CLASS_SIZES[i]}")
	[ "$path" = mmap ] && keep=true
	[ "$path" = mmap-each ] && backend=mmap
	case "$path" in place*) backend=posix place=${path#place} ;; esac
	cat >"$(config_path "$name" "$path" "$cache")" <<YAML
name: bench-$name-$path-$cache
root: $DATA
results: $WORK/results/{name}.h5
layout: {files_per_dir: 1000}
datasets:
  - {name: $name, file_size: ${CLASS_SIZES[i]}, file_count: ${CLASS_COUNTS[i]}}
sweep:
  readers_per_node: [1]
  backend: [$backend]
  transfer_size: [$block]
  order: [sorted]
repetitions: 1
cache: $pcache
uring: {queue_depth: $QUEUE_DEPTH, max_inflight: $((QUEUE_DEPTH * block))}
mmap: {advice: sequential, keep_mapped: $keep}
posix: {buffer_offset: $place}
YAML
}

pfsread_mpi() { "$MPIRUN" "${MPI_FLAGS[@]}" -np 1 "$PFSREAD" "$@"; }

# pfsread_generate CLASS_INDEX: remove what a previous generate made, make it again; prints the
# rate generate reports itself (bytes / time from its first file to its last, MB/s), which
# leaves out MPI's start-up.
pfsread_generate() {
	local name=${CLASS_NAMES[$1]} cfg log rate
	cfg=$(config_path "$name" "${PATHS[0]}" warm)
	log=$WORK/logs/generate-$name.log
	if [ -e "$DATA/$name/.pfsread-manifest" ]; then
		run_logged "$WORK/logs/clean-$name.log" pfsread_mpi clean "$cfg"
	fi
	sync
	before_write $((CLASS_SIZES[$1] * CLASS_COUNTS[$1]))
	run_logged "$log" pfsread_mpi generate "$cfg"
	sync # the written-back data must not land in the next measurement
	rate=$(generate_figures "$log" "$name" | awk '{ printf "%.1f\n", $4 / 1e6 }')
	[ -n "$rate" ] || die "no rate in $log"
	echo "$rate"
}

# generate_figures LOG NAME: from generate's last line for data set NAME ("generate NAME: N
# files made, ...; wrote X MB at Y MB/s"), prints "files bytes seconds bytes/s" (the bytes
# over its own time, from its first file to its last).
generate_figures() {
	sed -n "s/^generate $2: \([0-9]*\) files made, .* wrote \([0-9.]*\) \([kMGT]*\)B at \([0-9.]*\) \([kMGT]*\)B\/s.*/\1 \2 \3 \4 \5/p" "$1" |
		tail -n 1 | awk '
		function scale(u) { return u == "k" ? 1e3 : u == "M" ? 1e6 : u == "G" ? 1e9 : u == "T" ? 1e12 : 1 }
		{ b = $2 * scale($3); r = $4 * scale($5); if (r > 0) printf "%d %.0f %.6f %.0f\n", $1, b, b / r, r }'
}

# pfsread_read CLASS_INDEX PATH CACHE TAG: prints "MB/s resident_fraction cpu_s_per_GB
# whole_cpu_s_per_GB" of the one phase (CPU: the ranks' cpu_user_s + cpu_sys_s per 10^9 bytes,
# nan without them; whole: the rank's whole process, as cpu_of.py counts IOR's and mdtest's).
# Cold, the script drops the page cache first, as before every peer, and pfsread's own drop
# (cache: drop, right before its phase) then finds it empty: the whole process's CPU counts
# pfsread's reads, not the freeing of the row before's cache (0.13 s a GiB here), which no
# peer's count holds.
pfsread_read() {
	local name=${CLASS_NAMES[$1]} h5 cpu
	h5=$WORK/results/$name-$2-$3-$4.h5
	cpu=$WORK/logs/pfsread-$name-$2-$3-$4.cpu
	[ "$3" = cold ] && cold_start "$(cold_margin "$1" "$2")"
	run_logged "$WORK/logs/pfsread-$name-$2-$3-$4.log" \
		"$MPIRUN" "${MPI_FLAGS[@]}" -np 1 "$PYTHON" "$CPU_OF" "$cpu" \
		"$PFSREAD" run "$(config_path "$name" "$2" "$3")" -o "$h5" --force
	"$PYTHON" - "$h5" "$((CLASS_SIZES[$1] * CLASS_COUNTS[$1]))" "$cpu" <<'PY'
import sys, h5py
whole = sum(float(x) for x in open(sys.argv[3]).read().split()) / (int(sys.argv[2]) / 1e9)
f = h5py.File(sys.argv[1], "r")
p = f["phases/0000"].attrs
if p["status"] != "complete" or int(p["bytes"]) != int(sys.argv[2]):
    sys.exit(f"{sys.argv[1]}: phase {p['status']}, {p['bytes']} bytes of {sys.argv[2]}")
r = f["phases/0000/ranks"][()]
cpu = float("nan")
if "cpu_user_s" in r.dtype.names and int(p["bytes"]) > 0:
    cpu = float((r["cpu_user_s"] + r["cpu_sys_s"]).sum()) / (int(p["bytes"]) / 1e9)
print(f"{p['bandwidth_MBps']:.1f} {p.get('resident_fraction', float('nan')):.3f} {cpu:.4f} "
      f"{whole:.4f}")
PY
}

# ---- fio: the same files, the same settings ------------------------------------------------------

# make_fio_names CLASS_INDEX: NAMES/CLASS/0 .. N-1, hard links to pfsread's files in pfsread's
# order (the same inodes; fio refuses a --filename longer than 4096 characters, which the full
# paths of 512 files exceed). Made after the last generation: a new generate makes new inodes.
make_fio_names() {
	local i=$1 name=${CLASS_NAMES[$1]} n=0 links
	links=$NAMES/$name
	rm -rf "$links"
	mkdir -p "$links"
	while [ "$n" -lt "${CLASS_COUNTS[i]}" ]; do
		ln "$(printf '%s/%s/d%06d/f%010d' "$DATA" "$name" $((n / 1000)) "$n")" "$links/$n"
		n=$((n + 1))
	done
}

# fio_file_list CLASS_INDEX [N]: 0:1:...:N-1, the class's first N files (default all of them)
fio_file_list() {
	local list n=${2:-${CLASS_COUNTS[$1]}}
	list=$(seq -s: 0 $((n - 1)))
	[ "${#list}" -le 4096 ] || die "$n files: too many for fio's --filename"
	echo "$list"
}

# fixedbufs_allowed BLOCK: whether QUEUE_DEPTH buffers of BLOCK bytes can be registered with
# io_uring: root, or a locked-memory limit that holds them. pfsread's uring path registers its
# buffers when it can and reads without them when it cannot; fio fails instead, so it is
# given --fixedbufs=1 only where pfsread gets them too.
fixedbufs_allowed() {
	local limit
	[ "$IS_ROOT" -eq 1 ] && return 0
	limit=$(ulimit -l)
	[ "$limit" = unlimited ] || [ "$limit" -ge $((QUEUE_DEPTH * $1 / 1024 + 64)) ]
}

# fio_engine PATH BLOCK: fio's counterpart of a pfsread read path.
fio_engine() {
	case "$1" in
	posix) echo "--ioengine=psync" ;;
	direct) echo "--ioengine=psync --direct=1" ;;
	mmap) echo "--ioengine=mmap" ;;
	uring)
		echo "--ioengine=io_uring --iodepth=$QUEUE_DEPTH"
		if fixedbufs_allowed "$2"; then echo "--fixedbufs=1"; fi
		;;
	esac
}

# fio_read_args CLASS_INDEX PATH: into FIO_ARGS. One job reads each file once, whole, in
# pfsread's order, one file open at a time (as pfsread's posix path), without fio's default
# invalidation of the page cache (warm must stay warm; cold rows drop the cache themselves),
# into a buffer placed as pfsread's: aligned (BACKEND_BUF_ALIGN, 2 MiB; iomem_align), or on
# posix where the probe placed pfsread's reads 16 B past it (PLACE), fio's default buffer,
# 16 B past a page (malloc's). Which copies faster depends on the CPU (buffer_placement).
fio_read_args() {
	local i=$1 block align=(--iomem_align=2097152)
	block=$(block_of "${CLASS_SIZES[i]}")
	[ "$2" = posix ] && [ "$PLACE" -eq 16 ] && align=()
	# shellcheck disable=SC2207
	FIO_ARGS=(--name=read --directory="$NAMES/${CLASS_NAMES[i]}" --filename="$(fio_file_list "$i")"
		--rw=read --bs="$block" $(fio_engine "$2" "$block") --invalidate=0
		"${align[@]}"
		--openfiles=1 --file_service_type=sequential --output-format=json)
}

# fio_write_args CLASS_INDEX [refill]: into FIO_ARGS. As generate: N files of SIZE made one
# after the other with writes of min(512 KiB, SIZE) from a 4 KiB-aligned buffer, created on open,
# no preallocation, no fsync at the end. fio fills its buffer once and changes a few bytes of
# each 512 a write; with refill, the whole buffer anew at each write (--refill_buffers): content
# that never repeats, as generate's, which a compressing or deduplicating file system cannot
# shrink.
fio_write_args() {
	local i=$1 bs=$GEN_WRITE
	[ "${CLASS_SIZES[i]}" -lt "$bs" ] && bs=${CLASS_SIZES[i]}
	FIO_ARGS=(--name=gen --directory="$FIOW" --rw=write --bs="$bs"
		--nrfiles="${CLASS_COUNTS[i]}" --filesize="${CLASS_SIZES[i]}"
		--size=$((CLASS_SIZES[i] * CLASS_COUNTS[i])) --openfiles=1 --file_service_type=sequential
		--iomem_align=4096 --create_on_open=1 --fallocate=none --end_fsync=0 --output-format=json)
	[ "${2:-}" = refill ] && FIO_ARGS+=(--refill_buffers)
	return 0
}

# fio_figures JSON read|write BYTES WALL_S [cpu]: prints "MB/s wall_MB/s" and, with cpu, the
# job's CPU seconds per 10^9 bytes (fio's usr_cpu + sys_cpu, percentages of its job_runtime).
# MB/s is fio's own bw_bytes (bytes over its I/O time, whole milliseconds); wall_MB/s is bytes
# over the fio process's wall time (start-up, file set-up and exit included). Stops if fio
# moved other than BYTES bytes.
fio_figures() {
	"$PYTHON" - "$@" <<'PY'
import json, sys
path, rw, want, wall = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
j = json.load(open(path))["jobs"][0]
if j["error"] or j[rw]["io_bytes"] != want:
    sys.exit(f"{path}: fio error {j['error']}, {j[rw]['io_bytes']} bytes of {want}")
cpu = ""
if len(sys.argv) > 5 and sys.argv[5] == "cpu":
    s = (j["usr_cpu"] + j["sys_cpu"]) / 100 * j["job_runtime"] / 1000
    cpu = f" {s / (want / 1e9):.4f}"
print(f"{j[rw]['bw_bytes'] / 1e6:.1f} {want / wall / 1e6:.1f}{cpu}")
PY
}

# fio_job_errors JSON: each job's error number and what it means.
fio_job_errors() {
	"$PYTHON" - "$1" <<'PY'
import json, os, sys
for j in json.load(open(sys.argv[1]))["jobs"]:
    print(f"  | fio job {j['jobname']}: error {j['error']} ({os.strerror(j['error'])})")
PY
}

# fio_run JSON_TAG BYTES read|write ARGS...: prints fio_figures. fio puts its job errors in
# the JSON output only: on failure, say what they were.
fio_run() {
	local tag=$1 bytes=$2 rw=$3 json log t0 t1
	shift 3
	json=$WORK/logs/fio-$tag.json
	log=$WORK/logs/fio-$tag.log
	echo "${FIO_PIN[*]} fio $* --output=$json" >>"$CMDLOG"
	t0=$(now)
	if ! "${FIO_PIN[@]}" fio "$@" --output="$json" >"$log" 2>&1; then
		echo "bench.sh: failed: fio $* --output=$json" >&2
		sed 's/^/  | /' "$log" >&2
		fio_job_errors "$json" >&2 || true
		exit 1
	fi
	t1=$(now)
	fio_figures "$json" "$rw" "$bytes" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
		${FIO_CPU:+cpu}
}

fio_generate() {
	local i=$1 name=${CLASS_NAMES[$1]} out
	rm -rf "$FIOW"
	mkdir -p "$FIOW"
	sync
	before_write $((CLASS_SIZES[i] * CLASS_COUNTS[i]))
	fio_write_args "$i" "${3:-}"
	out=$(fio_run "write-$name-$2" $((CLASS_SIZES[i] * CLASS_COUNTS[i])) write "${FIO_ARGS[@]}")
	sync
	echo "$out"
}

# fio_read CLASS_INDEX PATH CACHE TAG: prints fio_figures with the CPU per GB.
fio_read() {
	local i=$1 FIO_CPU=1
	[ "$3" = cold ] && cold_start "$(cold_margin "$1" "$2")"
	fio_read_args "$i" "$2"
	fio_run "read-${CLASS_NAMES[i]}-$2-$3-$4" $((CLASS_SIZES[i] * CLASS_COUNTS[i])) read \
		"${FIO_ARGS[@]}"
}

# ---- IOR and mdtest: the same files, the same settings -------------------------------------------

# find_peer NAME: IOR_DIR/bin/NAME (an install prefix), IOR_DIR/NAME or IOR_DIR/src/NAME (a
# build tree).
find_peer() {
	local d
	for d in "$IOR_DIR/bin" "$IOR_DIR" "$IOR_DIR/src"; do
		if [ -f "$d/$1" ] && [ -x "$d/$1" ]; then
			echo "$d/$1"
			return 0
		fi
	done
	return 1
}

peer_mpi() { "$MPIRUN" "${MPI_FLAGS[@]}" -np 1 "$@"; }

# peer_run LOG COMMAND...: run COMMAND as run_logged does; prints its wall time in seconds.
peer_run() {
	local log=$1 t0 t1
	shift
	t0=$(now)
	run_logged "$log" "$@"
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'
}

# make_peer_names CLASS_INDEX: the class's files under the names IOR and mdtest read, hard
# links in pfsread's order (the same inodes, as for fio): IORN/CLASS/f.00000000.N (IOR's file
# per process, rank 0, with -m: one file per repetition N) and, where a file fits one transfer
# (mdtest reads a file with one read of -e bytes), MDN/CLASS/test-dir.0-0/mdtest_tree.0/
# file.mdtest.0.N (mdtest's tree of depth 0 for one task).
make_peer_names() {
	local i=$1 name=${CLASS_NAMES[$1]} n=0 src md=""
	rm -rf "${IORN:?}/$name" "${MDN:?}/$name"
	mkdir -p "$IORN/$name"
	if [ "${CLASS_SIZES[i]}" -le "$MAX_BLOCK" ]; then
		md=$MDN/$name/test-dir.0-0/mdtest_tree.0
		mkdir -p "$md"
	fi
	while [ "$n" -lt "${CLASS_COUNTS[i]}" ]; do
		src=$(printf '%s/%s/d%06d/f%010d' "$DATA" "$name" $((n / 1000)) "$n")
		ln "$src" "$IORN/$name/f.00000000.$n"
		[ -z "$md" ] || ln "$src" "$md/file.mdtest.0.$n"
		n=$((n + 1))
	done
}

# ior_args CLASS_INDEX PATH: into IOR_ARGS. One task, file per process (-F), one file per
# repetition (-m -i N: f.00000000.0 .. N-1), read only (-r), the files kept (-k: IOR removes
# its test files otherwise), block = the file (-b, one segment), the class's transfer size
# (-t); POSIX read() (posix), with O_DIRECT (direct), or the MMAP back-end (mmap) with its
# MADV_SEQUENTIAL over each mapping (--mmap.madv_pattern; off by default), as pfsread's mmap
# rows give (advice: sequential). IOR does nothing to the page cache: cold rows drop it before
# IOR, warm rows read the files first.
ior_args() {
	local i=$1 api
	case "$2" in
	posix) api=(-a POSIX) ;;
	direct) api=(-a POSIX --posix.odirect) ;;
	mmap) api=(-a MMAP --mmap.madv_pattern) ;;
	esac
	IOR_ARGS=("${api[@]}" -F -m -i "${CLASS_COUNTS[i]}" -r -k -b "${CLASS_SIZES[i]}"
		-t "$(block_of "${CLASS_SIZES[i]}")" -s 1 -o "$IORN/${CLASS_NAMES[i]}/f")
}

# ior_figures JSON REPS BYTES_EACH WALL_S: prints "MB/s wall_MB/s". IOR times each repetition
# (one file here) from its open to its close; its JSON rounds those times to 0.1 ms but not
# bwMiB, so each repetition's time is its bytes / bwMiB; MB/s is all bytes over the sum of
# those times (the files read one after the other, as pfsread's phase does).
ior_figures() {
	"$PYTHON" - "$@" <<'PY'
import json, sys
path, reps, each, wall = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
res = json.load(open(path))["tests"][0]["Results"]
res = [r for x in res for r in (x if isinstance(x, list) else [x]) if r["access"] == "read"]
got = {int(r["blockKiB"] * 1024) for r in res}
if len(res) != reps or got != {each}:
    sys.exit(f"{path}: {len(res)} reads of {got} bytes, expected {reps} of {each}")
t = sum(each / (r["bwMiB"] * 2**20) for r in res)
print(f"{reps * each / t / 1e6:.1f} {reps * each / wall / 1e6:.1f}")
PY
}

# cpu_per_gb CPU_FILE BYTES: the user + system seconds cpu_of.py wrote, per 10^9 bytes.
cpu_per_gb() {
	awk -v b="$2" '{ printf "%.4f\n", ($1 + $2) / (b / 1e9) }' "$1"
}

# ior_read CLASS_INDEX PATH CACHE TAG: prints ior_figures and IOR's whole process's CPU
# seconds per 10^9 bytes (cpu_of.py).
ior_read() {
	local i=$1 name=${CLASS_NAMES[$1]} json wall cpu
	json=$WORK/logs/ior-$name-$2-$3-$4.json
	cpu=$WORK/logs/ior-$name-$2-$3-$4.cpu
	[ "$3" = cold ] && cold_start "$(cold_margin "$1" "$2")"
	ior_args "$i" "$2"
	wall=$(peer_run "$WORK/logs/ior-$name-$2-$3-$4.log" peer_mpi "$PYTHON" "$CPU_OF" "$cpu" \
		"$IOR" "${IOR_ARGS[@]}" -O summaryFormat=JSON -O "summaryFile=$json")
	echo "$(ior_figures "$json" "${CLASS_COUNTS[i]}" "${CLASS_SIZES[i]}" "$wall")" \
		"$(cpu_per_gb "$cpu" $((CLASS_SIZES[i] * CLASS_COUNTS[i])))"
}

# mdtest_rate LOG OPERATION: files/s of mdtest's OPERATION ("File read", "File stat", "File
# creation") in its summary (one iteration of one task: max = min = mean). Stops when mdtest
# warned of a file it could not open, read or stat.
mdtest_rate() {
	if grep -q -i "unable to\|verification error" "$1"; then
		echo "bench.sh: mdtest warned, see $1:" >&2
		grep -i -m 3 "unable to\|verification error" "$1" | sed 's/^/  | /' >&2
		exit 1
	fi
	awk -v op="$2" '$0 ~ "SUMMARY rate" { s = 1 } s && index($0, op) == 4 { printf "%.0f\n", $(NF - 3); exit }' "$1"
}

# mdtest_args CLASS_INDEX PATH: into MDTEST_ARGS: files only, the class's N files in one
# directory, each opened, read whole with one read of its size, closed; O_DIRECT for direct.
mdtest_args() {
	local i=$1
	MDTEST_ARGS=(-E -F -n "${CLASS_COUNTS[i]}" -e "${CLASS_SIZES[i]}" -d "$MDN/${CLASS_NAMES[i]}" -P)
	[ "$2" = direct ] && MDTEST_ARGS+=(--posix.odirect)
	return 0
}

# mdtest_read CLASS_INDEX PATH CACHE TAG: prints "MB/s wall_MB/s cpu_s_per_GB": mdtest's read
# rate in files/s times the file size, and its whole process's CPU per 10^9 bytes (cpu_of.py).
mdtest_read() {
	local i=$1 name=${CLASS_NAMES[$1]} log wall rate bytes cpu
	log=$WORK/logs/mdtest-$name-$2-$3-$4.log
	cpu=$WORK/logs/mdtest-$name-$2-$3-$4.cpu
	bytes=$((CLASS_SIZES[i] * CLASS_COUNTS[i]))
	[ "$3" = cold ] && cold_start "$(cold_margin "$1" "$2")"
	mdtest_args "$i" "$2"
	wall=$(peer_run "$log" peer_mpi "$PYTHON" "$CPU_OF" "$cpu" "$MDTEST" "${MDTEST_ARGS[@]}")
	rate=$(mdtest_rate "$log" "File read")
	[ -n "$rate" ] || die "no read rate in $log"
	awk -v r="$rate" -v s="${CLASS_SIZES[i]}" -v b="$bytes" -v w="$wall" -v c="$(cpu_per_gb "$cpu" "$bytes")" \
		'BEGIN { printf "%.1f %.1f %s\n", r * s / 1e6, b / w / 1e6, c }'
}

# ---- the metadata class: many small files, pfsread against mdtest ----------------------------

MD_LOOP=0 # 1 when the small files are on the bench's own loop file system
# 1 when each generation run makes its files on an ext4 made for it (root): ext4 passes over
# the inodes freed in the last minutes while it allocates new ones (recently_deleted), so a
# tree made where another was just removed ran at a third of the rate, by where the files
# landed rather than by who made them (100,000 files here: 16,500 files/s against 40,500)
MD_FRESH=0
MDTREE=$DIR/md-tree # mdtest's tree (MDFS/md-tree on the loop file system)
MDLINKS=$DIR/md-links # its files again, hard links named in mdtest's order, which pfsread reads
MDGEN=$DIR/md-gen   # pfsread's generated small files

# md_block_bytes: the file system blocks a small file takes (4 KiB blocks; 0 for empty files).
md_block_bytes() { echo $(((MD_BYTES + 4095) / 4096 * 4096)); }

# md_check_room: on DIR, room for the small files twice (pfsread's and mdtest's may coexist)
# and at most a tenth of the free inodes; on the loop file system, its tmpfs at most a quarter
# of the memory available.
md_check_room() {
	local need free mem fits=0
	need=$((MD_FILES * ($(md_block_bytes) + 512) * 2 + (64 << 20)))
	mem=$(awk '$1 == "MemAvailable:" { print int($2 / 1024) }' /proc/meminfo) # MiB
	[ $(($(md_image_mb) * 4)) -le "$mem" ] && fits=1
	if [ "$IS_ROOT" -eq 1 ] && [ "$MD_BYTES" -gt 0 ] && [ "$fits" -eq 1 ] &&
		command -v mkfs.ext4 >/dev/null; then
		MD_FRESH=1
		MDGEN=$MDGFS/md-gen
	fi
	if [ "$MD_FILES" -gt "$MD_LOOP_OVER" ]; then
		[ "$IS_ROOT" -eq 1 ] || die "MD_FILES=$MD_FILES: more than $MD_LOOP_OVER small files go on a loop file system the bench mounts, which needs root"
		command -v mkfs.ext4 >/dev/null || die "mkfs.ext4 not found (Debian: e2fsprogs)"
		[ "$fits" -eq 1 ] ||
			die "MD_FILES=$MD_FILES of MD_BYTES=$MD_BYTES: the loop file system needs $(md_image_mb) MiB of memory (tmpfs), more than a quarter of the $mem MiB available; fewer or smaller files (MD_BYTES=0)"
		MD_LOOP=1
		MDTREE=$MDFS/md-tree
		MDLINKS=$MDFS/md-links
		return
	fi
	free=$(df -P -i "$DIR" | awk 'NR == 2 { print $4 }')
	[ $((MD_FILES * 2 * 10)) -le "$free" ] ||
		die "MD_FILES=$MD_FILES: twice that many inodes is more than a tenth of the $free free on $DIR"
	free=$(df -P -B1 "$DIR" | awk 'NR == 2 { print $4 }')
	[ "$need" -le "$free" ] || die "$DIR has $((free >> 20)) MiB free, the small files need $((need >> 20)) MiB"
}

# md_image_mb: the loop file system's size in MiB: one set of the small files (pfsread's are
# removed before mdtest makes its own there), their inodes, directories and the journal, 20%
# more.
md_image_mb() {
	echo $(((MD_FILES * ($(md_block_bytes) + 256 + 64) * 12 / 10 >> 20) + 256))
}

# md_mount [IMGDIR FS]: a tmpfs capped in size and inodes at IMGDIR (MDIMG), an ext4 image in
# it filling it, mounted on FS (MDFS) with discard (removed files give their memory back),
# inode tables written now (no lazy init working in the background during the measurements).
md_mount() {
	local mb img imgdir=${1:-$MDIMG} fs=${2:-$MDFS}
	mb=$(md_image_mb)
	img=$imgdir/ext4.img
	mkdir -p "$imgdir" "$fs"
	echo "mount -t tmpfs -o size=${mb}m,nr_inodes=16 tmpfs $imgdir" >>"$CMDLOG"
	mount -t tmpfs -o "size=${mb}m,nr_inodes=16" tmpfs "$imgdir"
	truncate -s "${mb}M" "$img"
	echo "mkfs.ext4 -q -F -b 4096 -I 256 -N $((MD_FILES + MD_FILES / 100 + 4096)) -E lazy_itable_init=0,lazy_journal_init=0,nodiscard $img" >>"$CMDLOG"
	mkfs.ext4 -q -F -b 4096 -I 256 -N $((MD_FILES + MD_FILES / 100 + 4096)) \
		-E lazy_itable_init=0,lazy_journal_init=0,nodiscard "$img"
	echo "mount -o loop,discard $img $fs" >>"$CMDLOG"
	mount -o loop,discard "$img" "$fs"
}

# md_unmount [IMGDIR FS]: what md_mount mounted there, gone.
md_unmount() {
	local imgdir=${1:-$MDIMG} fs=${2:-$MDFS}
	if mountpoint -q "$fs" 2>/dev/null; then
		umount "$fs" || echo "bench.sh: could not unmount $fs; unmount it by hand" >&2
	fi
	if mountpoint -q "$imgdir" 2>/dev/null; then
		umount "$imgdir" || echo "bench.sh: could not unmount $imgdir; unmount it by hand" >&2
	fi
	rmdir "$fs" "$imgdir" 2>/dev/null || true
}

# mdtest_tree_args [TREE]: into MDT_ARGS: files only, MD_FILES / 1000 leaf directories of 1000
# files under one top directory (depth 1) in TREE (MDTREE), one task.
mdtest_tree_args() {
	MDT_ARGS=(-F -z 1 -b $((MD_FILES / MD_PER_DIR)) -I "$MD_PER_DIR" -L -d "${1:-$MDTREE}" -P)
}

# md_transfer: pfsread's transfer size for the small files: the file, at least 4 KiB.
md_transfer() {
	if [ "$MD_BYTES" -gt 4096 ]; then echo "$MD_BYTES"; else echo 4096; fi
}

# md_configs: generation (pfsread's own files, in directories of 1000 as mdtest's), the reads
# of mdtest's tree in place (warm: cache none; cold: cache drop) and a one-file tree, whose
# plan is the start-up that the scan's time leaves out.
md_configs() {
	local cache pcache
	mkdir -p "$WORK/md-one"
	head -c "$MD_BYTES" /dev/zero >"$WORK/md-one/f"
	cat >"$WORK/config-md-gen.yaml" <<YAML
name: bench-md-gen
root: $MDGEN
results: $WORK/results/{name}.h5
layout: {files_per_dir: $MD_PER_DIR}
datasets:
  - {name: md, file_size: $((MD_BYTES > 0 ? MD_BYTES : 1)), file_count: $MD_FILES}
cache: none
YAML
	for cache in warm cold one; do
		pcache=none
		[ "$cache" = cold ] && pcache=drop
		cat >"$WORK/config-md-$cache.yaml" <<YAML
name: bench-md-$cache
root: $WORK/md-pf-$([ "$cache" = one ] && echo one || echo tree)
results: $WORK/results/{name}.h5
datasets:
  - {name: md, from_tree: $([ "$cache" = one ] && echo "$WORK/md-one" || echo "$MDLINKS"), in_place: true}
sweep:
  readers_per_node: [1]
  backend: [posix]
  transfer_size: [$(md_transfer)]
  order: [sorted]
repetitions: 1
cache: $pcache
YAML
	done
}

# md_pfsread_generate: prints generate's files/s (files / its own time from its first file to
# its last: 'wrote X MB at Y MB/s'), then removes what it made (not timed; with MD_FRESH its
# file system goes whole).
md_pfsread_generate() {
	local cfg=$WORK/config-md-gen.yaml log=$WORK/logs/generate-md-$1.log
	if [ -e "$MDGEN/md/.pfsread-manifest" ]; then
		run_logged "$WORK/logs/clean-md.log" pfsread_mpi clean "$cfg"
	fi
	sync
	before_write $((MD_FILES * MD_BYTES))
	run_logged "$log" pfsread_mpi generate "$cfg"
	sync
	[ "$MD_FRESH" -eq 1 ] || run_logged "$WORK/logs/clean-md.log" pfsread_mpi clean "$cfg"
	generate_figures "$log" md | awk '$3 > 0 { printf "%.0f\n", $1 / $3 }' | grep . ||
		die "no rate in $log"
}

# md_mdtest_create REP [TREE]: prints mdtest's create rate (files/s; -w MD_BYTES: each file
# written as it is made) of a new tree at TREE (MDTREE), which the reads read afterwards.
md_mdtest_create() {
	local log=$WORK/logs/mdtest-create-$1.log tree=${2:-$MDTREE}
	rm -rf "$tree"
	sync
	before_write $((MD_FILES * MD_BYTES))
	mdtest_tree_args "$tree"
	peer_run "$log" peer_mpi "$MDTEST" -C "${MDT_ARGS[@]}" -w "$MD_BYTES" >/dev/null
	sync
	mdtest_rate "$log" "File creation" | grep . || die "no create rate in $log"
}

# md_generation: REPS rounds of pfsread generate against mdtest's create phase, each round in
# the order A B B A as the size classes' generation (see generation); with MD_FRESH each run on
# an ext4 made for it. On the loop file system without MD_FRESH, or with empty files (which
# generate does not make), one pair, pfsread first: the loop file system holds one set, so
# pfsread's files are gone before mdtest makes its own.
md_generation() {
	local rep first second pos tool v order tree=$MDTREE
	[ "$MD_FRESH" -eq 1 ] && tree=$MDGFS/md-tree
	for rep in $(seq 1 "$REPS"); do
		first=pfsread second=mdtest order="1 2"
		if { [ "$MD_LOOP" -eq 0 ] || [ "$MD_FRESH" -eq 1 ]; } && [ "$MD_BYTES" -gt 0 ]; then
			order="1 2 3 4"
			[ $((rep % 2)) -eq 0 ] && first=mdtest second=pfsread
		fi
		rm -rf "$MDTREE" "$MDLINKS"
		for pos in $order; do
			tool=$first
			[ "$pos" -eq 2 ] || [ "$pos" -eq 3 ] && tool=$second
			[ "$MD_FRESH" -eq 1 ] && md_mount "$MDGIMG" "$MDGFS"
			if [ "$tool" = mdtest ]; then
				v=$(md_mdtest_create "$rep-$pos" "$tree")
			elif [ "$MD_BYTES" -gt 0 ]; then
				v=$(md_pfsread_generate "$rep-$pos")
			else
				[ "$rep" -eq 1 ] && record meta md generate - - - na - - "generate makes no empty files"
				continue
			fi
			[ "$MD_FRESH" -eq 1 ] && md_unmount "$MDGIMG" "$MDGFS"
			record meta md generate - "$rep" "$first" "$tool" "$v" - "pos=$pos"
			printf '  %-7s generate  rep %d.%d: %-7s %9s files/s\n' md "$rep" "$pos" "$tool" "$v"
		done
	done
}

# md_link_tree: MDLINKS/dNNNNNN/fNNNNNNNNNN, hard links to mdtest's files in the order mdtest
# makes and reads them (directory k: files 1000k..1000k+999 of leaf directory k+1). pfsread
# reads a tree in sorted path order, and mdtest's names are not zero-padded: sorted, its
# directories come as 1, 10, 100, 11, ... where mdtest goes 1, 2, 3, ...; read cold, files
# in that order ran at 0.84x the rate of creation order (a plain Python loop, the median of
# five alternations on 100,000 files here, 0.66-1.02), a difference of order, not of reader.
# The links give both sides the same files (the same inodes and data) in the same order.
md_link_tree() {
	rm -rf "$MDLINKS"
	echo "$PYTHON (hard links $MDLINKS/dNNNNNN/fNNNNNNNNNN -> $MDTREE/test-dir.0-0/mdtest_tree.0/mdtest_tree.K/file.mdtest.0.N)" >>"$CMDLOG"
	"$PYTHON" - "$MDTREE/test-dir.0-0/mdtest_tree.0" "$MDLINKS" "$((MD_FILES / MD_PER_DIR))" \
		"$MD_PER_DIR" <<'PY'
import os, sys
src, dst, ndirs, per = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
n = 0
for k in range(1, ndirs + 1):
    d = os.path.join(dst, "d%06d" % (k - 1))
    os.makedirs(d)
    for i in range(k * per, (k + 1) * per):
        os.link(os.path.join(src, "mdtest_tree.%d" % k, "file.mdtest.0.%d" % i),
                os.path.join(d, "f%010d" % n))
        n += 1
PY
}

# md_warm_up: every small file opened and read once, by its mdtest name and by its link's
# name: each tool looks its files up by its own names, and a warm row must find both sets of
# names in the dentry cache (with mdtest's names alone, a drop in the cold row before left
# pfsread's warm scan to look up every name on disk: 0.63-0.68 of mdtest's stat rate when
# mdtest went first, 1.02 when pfsread did, in the same run).
md_warm_up() {
	find "$MDTREE" "$MDLINKS" -type f -print0 | xargs -0 cat >/dev/null
}

# md_pfsread_read CACHE REP [RUN OPTION...]: files/s of pfsread's phase over mdtest's tree,
# read in place.
md_pfsread_read() {
	local h5=$WORK/results/md-read-$1-$2.h5 cache=$1 tag=$2
	shift 2
	[ "$cache" = cold ] && drop_caches # as before mdtest (pfsread_read)
	run_logged "$WORK/logs/pfsread-md-read-$cache-$tag.log" \
		pfsread_mpi run "$WORK/config-md-$cache.yaml" -o "$h5" --force "$@"
	"$PYTHON" - "$h5" "$MD_FILES" <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
p = f["phases/0000"].attrs
if p["status"] != "complete" or int(p["nfiles"]) != int(sys.argv[2]):
    sys.exit(f"{sys.argv[1]}: phase {p['status']}, {p['nfiles']} files of {sys.argv[2]}")
print(f"{int(p['nfiles']) / p['elapsed_s']:.0f}")
PY
}

# md_pfsread_scan CACHE REP: files/s of pfsread's walk of the tree ('pfsread plan' of the
# in-place data set: readdir and fstatat of every entry, one process), its time less that of
# the same plan of a one-file tree just before (start-up, config, printing). Cold: the caches
# dropped, then 'pfsread --version' loads the program and its libraries again, so that the
# time is the tree's.
md_pfsread_scan() {
	local log=$WORK/logs/pfsread-md-scan-$1-$2.log one tree
	[ "$1" = cold ] && drop_caches
	"$PFSREAD" --version >/dev/null
	one=$(peer_run "$WORK/logs/pfsread-md-scan-one-$1-$2.log" "$PFSREAD" plan \
		"$WORK/config-md-one.yaml" --ranks 1 --nodes 1)
	tree=$(peer_run "$log" "$PFSREAD" plan "$WORK/config-md-$1.yaml" --ranks 1 --nodes 1)
	grep -q "from_tree $MDLINKS: $MD_FILES files" "$log" || die "$log: not $MD_FILES files in the scan"
	awk -v n="$MD_FILES" -v a="$one" -v b="$tree" 'BEGIN { printf "%.0f\n", n / (b - a) }'
}

# md_mdtest OP CACHE REP: files/s of mdtest's read (-E, each file opened, read with one read of
# MD_BYTES, closed) or stat (-T) phase over its tree.
md_mdtest() {
	local log=$WORK/logs/mdtest-md-$1-$2-$3.log
	[ "$2" = cold ] && drop_caches
	mdtest_tree_args
	if [ "$1" = read ]; then
		peer_run "$log" peer_mpi "$MDTEST" -E "${MDT_ARGS[@]}" -e "$MD_BYTES" >/dev/null
		mdtest_rate "$log" "File read" | grep . || die "no read rate in $log"
	else
		peer_run "$log" peer_mpi "$MDTEST" -T "${MDT_ARGS[@]}" >/dev/null
		mdtest_rate "$log" "File stat" | grep . || die "no stat rate in $log"
	fi
}

# md_reads: REPS rounds of read and scan, warm and cold, pfsread and mdtest alternating.
md_reads() {
	local rep what cache k=0 first p m
	md_link_tree
	run_logged "$WORK/logs/generate-md-in-place.log" pfsread_mpi generate "$WORK/config-md-cold.yaml"
	for rep in $(seq 1 "$REPS"); do
		for what in read scan; do
			for cache in warm cold; do
				k=$((k + 1))
				[ "$cache" = cold ] && [ "$CAN_DROP" -eq 0 ] && continue
				[ "$cache" = warm ] && md_warm_up
				first=pfsread
				[ $(((rep + k) % 2)) -eq 0 ] && first=mdtest
				if [ "$first" = mdtest ]; then
					m=$(md_mdtest "$what" "$cache" "$rep")
					p=$(md_pfsread_"$what" "$cache" "$rep")
				else
					p=$(md_pfsread_"$what" "$cache" "$rep")
					m=$(md_mdtest "$what" "$cache" "$rep")
				fi
				record meta md "$what" "$cache" "$rep" "$first" pfsread "$p" - -
				record meta md "$what" "$cache" "$rep" "$first" mdtest "$m" - -
				printf '  %-7s %-6s %-4s rep %d (%-7s first): pfsread %9s files/s  mdtest %9s files/s\n' \
					md "$what" "$cache" "$rep" "$first" "$p" "$m"
			done
		done
	done
}

# metadata: the small-file class from start to end; its files are removed by remove_data. With
# MD_FRESH the generation's trees went with their file systems: mdtest makes the one the reads
# read (untimed).
metadata() {
	md_configs
	echo "Class md ($MD_FILES files of $MD_BYTES B$([ "$MD_FRESH" -eq 1 ] && echo ", each run on an ext4 made for it")): generation"
	md_generation
	[ "$MD_LOOP" -eq 1 ] && md_mount
	if [ "$MD_FRESH" -eq 1 ]; then
		md_mdtest_create read >/dev/null
	fi
	echo "Class md ($([ "$MD_LOOP" -eq 1 ] && echo "on a loop ext4 in a tmpfs" || echo "on DIR")): reads and scans"
	md_reads
}

# ---- ceilings ---------------------------------------------------------------------------------

# memory_copy_ceiling: MB/s of one thread copying 1 GiB (touched beforehand) through one reused
# 4 MiB buffer with memcpy (numpy.copyto), best of 5: what a read from the page cache does
# (copy_to_user from cached pages into the reader's buffer), without the kernel around it.
memory_copy_ceiling() {
	"$PYTHON" - <<'PY'
import time, numpy as np
chunk, total = 4 << 20, 1 << 30
src = np.ones(total, dtype=np.uint8)
dst = np.ones(chunk, dtype=np.uint8)
best = 0.0
for _ in range(5):
    t = time.perf_counter()
    for o in range(0, total, chunk):
        np.copyto(dst, src[o:o + chunk])
    best = max(best, total / (time.perf_counter() - t) / 1e6)
print(f"{best:.1f}")
PY
}

# device_ceiling_args ENGINE: into FIO_ARGS (and its bytes into DEVICE_BYTES): one large
# sequential O_DIRECT read of the first files of the first (largest) class, 1 GiB of them (at
# least one file), in the class's blocks (4 MiB, or the file where smaller), synchronous
# (psync) or at queue depth 16 (io_uring): the device's figure is the best of both, over every
# time it is measured.
device_ceiling_args() {
	local engine="--ioengine=psync" n=$(((1073741824 + CLASS_SIZES[0] - 1) / CLASS_SIZES[0]))
	[ "$1" = io_uring ] && engine="--ioengine=io_uring --iodepth=$QUEUE_DEPTH"
	[ "$n" -le "${CLASS_COUNTS[0]}" ] || n=${CLASS_COUNTS[0]}
	DEVICE_BYTES=$((n * CLASS_SIZES[0]))
	# shellcheck disable=SC2206
	FIO_ARGS=(--name=device --directory="$NAMES/${CLASS_NAMES[0]}"
		--filename="$(fio_file_list 0 "$n")" --rw=read --bs="$(block_of "${CLASS_SIZES[0]}")"
		--direct=1 $engine --output-format=json)
}

# ---- the cost of the progress lines ----------------------------------------------------------------
# Many small files make the most ticks per second (one per file), so they show the cost best.

pr_mount() {
	mkdir -p "$PRFS"
	[ "$IS_ROOT" -eq 1 ] || return 0
	local mb=$((PR_FILES * 5 / 1024 + 64)) inodes=$((PR_FILES + PR_FILES / 50 + 2000))
	echo "mount -t tmpfs -o size=${mb}m,nr_inodes=$inodes tmpfs $PRFS" >>"$CMDLOG"
	mount -t tmpfs -o "size=${mb}m,nr_inodes=$inodes" tmpfs "$PRFS"
}

pr_unmount() {
	if mountpoint -q "$PRFS" 2>/dev/null; then
		umount "$PRFS" || echo "bench.sh: could not unmount $PRFS; unmount it by hand" >&2
	else
		rm -rf "$PRFS/data"
	fi
	rmdir "$PRFS" 2>/dev/null || true
}

# pr_phase_s SECONDS ROUND: the phase's time (s) of a run of PR_RANKS ranks with --progress SECONDS.
pr_phase_s() {
	local h5=$WORK/results/progress-$1-$2.h5
	run_logged "$WORK/logs/progress-$1-$2.log" "$MPIRUN" "${MPI_FLAGS[@]}" -np "$PR_RANKS" "$PFSREAD" run \
		"$WORK/config-progress.yaml" -o "$h5" --force --progress "$1"
	"$PYTHON" - "$h5" "$PR_FILES" <<'PY'
import sys, h5py
p = h5py.File(sys.argv[1], "r")["phases/0000"].attrs
if p["status"] != "complete" or int(p["nfiles"]) != int(sys.argv[2]):
    sys.exit(f"{sys.argv[1]}: phase {p['status']}, {p['nfiles']} files of {sys.argv[2]}")
print(f"{p['elapsed_s']:.6f}")
PY
}

# progress_row: PR_ROUNDS rounds of --progress 1 and 0 (alternating first), then the row.
progress_row() {
	local r on off a b
	pr_mount
	cat >"$WORK/config-progress.yaml" <<YAML
name: bench-progress
root: $PRFS/data
results: $WORK/results/{name}.h5
layout: {files_per_dir: 1000}
datasets:
  - {name: small, file_size: 1024, file_count: $PR_FILES}
sweep:
  readers_per_node: [$PR_RANKS]
  backend: [posix]
  transfer_size: [4096]
  order: [sorted]
repetitions: 1
cache: none
YAML
	run_logged "$WORK/logs/progress-generate.log" "$MPIRUN" "${MPI_FLAGS[@]}" -np 2 "$PFSREAD" \
		generate "$WORK/config-progress.yaml" --progress 0
	pr_phase_s 0 warm >/dev/null # the first read of the tree's inodes is not measured
	on=() off=()
	for r in $(seq 1 "$PR_ROUNDS"); do
		if [ $((r % 2)) -eq 1 ]; then
			a=$(pr_phase_s 1 "$r") b=$(pr_phase_s 0 "$r")
		else
			b=$(pr_phase_s 0 "$r") a=$(pr_phase_s 1 "$r")
		fi
		on+=("$a") off+=("$b")
		record progress small posix warm "$r" - pfsread "$a" "$b" "phase s with --progress 1, 0"
	done
	printf '%s\n' "${on[@]}" | sort -g >"$WORK/pr-on"
	printf '%s\n' "${off[@]}" | sort -g >"$WORK/pr-off"
	awk -v n="$PR_FILES" -v r="$PR_RANKS" -v all_on="${on[*]}" -v all_off="${off[*]}" '
		FNR == 1 { k++ }
		{ v[k, FNR] = $1; c[k] = FNR }
		END {
		med_on = v[1, int((c[1] + 1) / 2)]; med_off = v[2, int((c[2] + 1) / 2)]
		printf "%-38s %12s %12s %10s\n", "phase of " n " files of 1 KiB, " r " rank(s)", "progress 1 s", "progress 0", "overhead"
		printf "%-38s %10.3f s %10.3f s %+9.2f%%\n", "median of the rounds", med_on, med_off, 100 * (med_on - med_off) / med_off
		printf "%-38s %10.3f s %10.3f s %+9.2f%%\n", "least of the rounds", v[1, 1], v[2, 1], 100 * (v[1, 1] - v[2, 1]) / v[2, 1]
		printf "  rounds (s): progress 1: %s; progress 0: %s\n", all_on, all_off
		printf "  (%.1f us per file per rank; a busy machine: differences of a few %% are noise)\n", 1e6 * v[2, 1] / n * r
	}' "$WORK/pr-on" "$WORK/pr-off"
	pr_unmount
}

# ---- where it ran -------------------------------------------------------------------------------

# calibrate_machine: pfsread calibrate on one rank with DIR/data as its root, into
# WORK/calibration.h5; MACHINE_CAL gets its memory-copy and disk figures (the medians of its
# repetitions, with their range), or why there are none.
calibrate_machine() {
	local cfg=$WORK/config-calibrate.yaml size=1GiB
	[ "$QUICK" -eq 1 ] && size=256MiB
	[ "$QUICK" -eq 2 ] && size=16MiB
	printf 'name: bench-calibrate\nroot: %s\ndatasets: [{name: c, file_size: 1MiB, file_count: 1}]\n' \
		"$DATA" >"$cfg"
	echo "${MPIRUN} ${MPI_FLAGS[*]} -np 1 $PFSREAD calibrate $cfg -o $WORK/calibration.h5 --force --disk-size $size" >>"$CMDLOG"
	if ! pfsread_mpi calibrate "$cfg" -o "$WORK/calibration.h5" --force --disk-size "$size" \
		>"$WORK/logs/calibrate.log" 2>&1; then
		MACHINE_CAL="pfsread calibrate failed (see $WORK/logs/calibrate.log)"
		return 0
	fi
	MACHINE_CAL=$("$PYTHON" - "$WORK/calibration.h5" "$size" <<'PY'
import sys, h5py, numpy as np
g = h5py.File(sys.argv[1], "r")["calibration"]
def fig(k):
    r = g[k + "_MBps_reps"][0]
    return f"{np.median(r):.0f} MB/s ({r.min():.0f}-{r.max():.0f} over {len(r)})"
print(f"memory copy {fig('memcpy')}, disk {fig('disk')} ({sys.argv[2]}, {g.attrs['disk_method']}); "
      "pfsread calibrate, medians of its repetitions")
PY
)
}

# machine_facts: where the bench ran, a fact a line: the CPU (model, cores), memory and its
# copy rate, kernel, the file system and device under DIR and the disk's rate.
machine_facts() {
	local model cores online mem src fs mp dev base rot size dmodel kind
	model=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
	[ -n "$model" ] || model=$(lscpu 2>/dev/null | awk -F': *' '/^Model name/ { print $2; exit }')
	cores=$(nproc --all)
	online=$(nproc)
	mem=$(awk '$1 == "MemTotal:" { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
	read -r src fs mp <<<"$(findmnt -n -o SOURCE,FSTYPE,TARGET -T "$DIR" 2>/dev/null ||
		df -P "$DIR" | awk 'NR == 2 { print $1, "?", $6 }')"
	dev=""
	case "$src" in
	/dev/*)
		base=$(basename "$(readlink -f "$src")")
		dev=$(lsblk -n -o PKNAME "/dev/$base" 2>/dev/null | head -n 1)
		[ -n "$dev" ] || dev=$base
		;;
	esac
	echo "Machine (where this ran):"
	echo "  CPU: ${model:-unknown}, $cores cores ($online available to this process)"
	echo "  memory: $mem; ${MACHINE_CAL:-memory copy and disk rate not measured}"
	echo "  kernel: $(uname -r) ($(uname -m)); $(reclaim_fact)"
	[ -z "$PLACE_FACT" ] || echo "  buffer: $PLACE_FACT"
	if [ -n "$dev" ] && [ -e "/sys/block/$dev" ]; then
		rot=$(cat "/sys/block/$dev/queue/rotational" 2>/dev/null || echo "?")
		kind=$([ "$rot" = 1 ] && echo rotational || echo "not rotational")
		size=$(awk '{ printf "%.0f GB", $1 * 512 / 1e9 }' "/sys/block/$dev/size" 2>/dev/null)
		dmodel=""
		[ -r "/sys/block/$dev/device/model" ] &&
			dmodel=$(tr -s ' ' <"/sys/block/$dev/device/model" | sed 's/ *$//')
		[ -n "$dmodel" ] || [ ! -e "/sys/block/$dev/device/driver" ] ||
			dmodel="model not stated, driver $(basename "$(readlink -f "/sys/block/$dev/device/driver")")"
		echo "  DIR $DIR: $fs on $src (mounted on $mp), device $dev: ${dmodel:-model not stated}, $size, $kind (the kernel's flag)"
	else
		echo "  DIR $DIR: $fs on $src (mounted on $mp), no block device under it"
	fi
}

# ---- the steps ----------------------------------------------------------------------------------

print_commands() {
	local i=0 name=${CLASS_NAMES[0]} path
	echo "pfsread benchmark against fio$([ "$PEERS" -eq 1 ] && echo ", IOR and mdtest"): $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -nr), load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "  pfsread $("$PFSREAD" --version 2>&1 | head -n 1), $(fio --version), $(nproc) cores"
	echo "  CPUs: mpirun binds pfsread's rank (and IOR's, mdtest's) to CPUs $FIO_CPUS; fio runs on" \
		"the same$([ ${#FIO_PIN[@]} -gt 0 ] && echo " (${FIO_PIN[*]})")"
	echo "  DIR $DIR ($(stat -f -c %T "$DIR"), $(df -P "$DIR" | awk 'NR == 2 { print $1 }'))"
	echo "  classes:$(for j in "${!CLASS_NAMES[@]}"; do printf ' %s x %s' "${CLASS_COUNTS[j]}" "${CLASS_NAMES[j]}"; done);" \
		"repetitions $REPS; one reader; block min(4 MiB, file size); io_uring queue depth $QUEUE_DEPTH"
	echo
	echo "Commands, shown for class $name (the others differ only in names and sizes):"
	echo "  pfsread config ($(config_path "$name" PATH CACHE)):"
	sed 's/^/    | /' "$(config_path "$name" "${PATHS[0]}" warm)"
	echo "    (backend: PATH; cache: none for warm, drop for cold: the script drops the page"
	echo "     cache as before fio, then pfsread syncs and drops it again before its timed phase)"
	echo "  generate: ${MPIRUN} ${MPI_FLAGS[*]} -np 1 $PFSREAD generate CONFIG"
	echo "    (after 'pfsread clean CONFIG'; MB/s as generate reports it: bytes / its own time)"
	fio_write_args 0
	echo "  fio write: fio ${FIO_ARGS[*]} --output=JSON"
	echo "    (--end_fsync=0: generate does not fsync either; both sides: sync; drop before, sync after)"
	echo "    (row refill: the same with --refill_buffers, new content at each write as generate's)"
	echo "  pfsread read: ${MPIRUN} ${MPI_FLAGS[*]} -np 1 $PFSREAD run CONFIG -o H5 --force"
	echo "    (mmap: {advice: sequential}: MADV_SEQUENTIAL over each mapping, as fio's mmap engine"
	echo "     (fadvise_hint, on by default) and IOR's MMAP back-end with --mmap.madv_pattern give;"
	echo "     pfsread's own default is none, for FUSE's sake)"
	echo "    (uring: pfsread's advice sequential is POSIX_FADV_WILLNEED on a file longer than its"
	echo "     pool (QUEUE_DEPTH x block), POSIX_FADV_SEQUENTIAL on the others; fio's io_uring engine"
	echo "     gives POSIX_FADV_SEQUENTIAL to every file (fadvise_hint): docs/config.md, Hints)"
	echo "    (mmap rows: against fio, keep_mapped: true, each mapping undone after the phase, as"
	echo "     fio's mmap engine leaves them to its exit; against IOR, keep_mapped: false (pfsread's"
	echo "     default), each file unmapped at its close, as IOR's MMAP back-end: two pfsread runs)"
	echo "    (MB/s: /phases/0000 bandwidth_MBps = bytes / (last reader's end - first's start))"
	for path in "${PATHS[@]}"; do
		fio_read_args 0 "$path"
		echo "  fio read, $path: fio ${FIO_ARGS[*]} --output=JSON"
	done
	echo "    (--filename lists $NAMES/$name/0..N-1, hard links to pfsread's files in its order;"
	echo "     MB/s: jobs[0].read.bw_bytes = bytes / fio's read time in whole ms, which leaves out"
	echo "     fio's start-up and file set-up; 'fio wall' is bytes / the fio process's wall time)"
	echo "  cold: sync; echo 3 > /proc/sys/vm/drop_caches before fio;" \
		"warm: cat every file > /dev/null twice first (every page on the active list)"
	[ -n "$(reclaim_kib)" ] &&
		echo "    (cold, before the drop: head -c MARGIN $PRIME > /dev/null, MARGIN = min(1 GiB, the" \
			"row's bytes), none for direct: cold_start)"
	echo "    (after every drop: cat PROGRAMS > /dev/null, the ${#PROGRAMS[@]} programs and libraries of the"
	echo "     tools (ldd), so that no tool reads its own code off the disk inside its timed region)"
	if [ "$PEERS" -eq 1 ]; then
		for path in posix direct mmap; do
			ior_args 0 "$path"
			echo "  IOR read, $path: ${MPIRUN} ${MPI_FLAGS[*]} -np 1 $IOR ${IOR_ARGS[*]} -O summaryFormat=JSON -O summaryFile=JSON"
		done
		echo "    (IORN/CLASS/f.00000000.N: hard links to pfsread's files in its order; -m -i N: file N"
		echo "     in repetition N; MB/s: bytes / the sum of IOR's times of the repetitions)"
		for i in "${!CLASS_NAMES[@]}"; do
			[ "${CLASS_SIZES[i]}" -le "$MAX_BLOCK" ] || continue
			for path in posix direct; do
				mdtest_args "$i" "$path"
				echo "  mdtest read, ${CLASS_NAMES[i]} $path: ${MPIRUN} ${MPI_FLAGS[*]} -np 1 $MDTEST ${MDTEST_ARGS[*]}"
			done
		done
		echo "    (mdtest reads a file with one read of -e bytes: only classes whose files fit one transfer;"
		echo "     MDN/CLASS/test-dir.0-0/mdtest_tree.0/file.mdtest.0.N: hard links, as for IOR)"
		if [ "$ONLY" = all ] || [ "$ONLY" = md ]; then
			mdtest_tree_args
			echo "  small files: $MD_FILES of $MD_BYTES B, $((MD_FILES / MD_PER_DIR)) directories of $MD_PER_DIR$([ "$MD_LOOP" -eq 1 ] && echo " on a loop ext4 ($(md_image_mb) MiB) in a capped tmpfs")"
			[ "$MD_FRESH" -eq 1 ] && echo "    generation: each run on an ext4 made for it (md_mount $MDGIMG $MDGFS), the reads' tree then made by mdtest"
			echo "    pfsread generate CONFIG (root $MDGEN, files_per_dir $MD_PER_DIR)$([ "$MD_FRESH" -eq 1 ] || echo " then clean"); against"
			echo "    mdtest create: ${MPIRUN} ${MPI_FLAGS[*]} -np 1 $MDTEST -C ${MDT_ARGS[*]} -w $MD_BYTES"
			echo "    read: pfsread run of {from_tree: $MDLINKS, in_place: true} (hard links to mdtest's files, named"
			echo "      so that pfsread's sorted order is mdtest's order), posix, $(md_transfer) B transfers, against"
			echo "      ${MPIRUN} ${MPI_FLAGS[*]} -np 1 $MDTEST -E ${MDT_ARGS[*]} -e $MD_BYTES"
			echo "    scan: $PFSREAD plan CONFIG --ranks 1 --nodes 1 (less the same for a one-file tree), against"
			echo "      ${MPIRUN} ${MPI_FLAGS[*]} -np 1 $MDTEST -T ${MDT_ARGS[*]}"
		fi
	fi
	device_ceiling_args psync
	echo "  device ceiling: fio ${FIO_ARGS[*]} --output=JSON"
	device_ceiling_args io_uring
	echo "              and fio ${FIO_ARGS[*]} --output=JSON"
	echo "  memory-copy ceiling: numpy.copyto of 1 GiB through one 4 MiB buffer, one thread, best of 5"
	echo "    (both ceilings measured at the start of every repetition of every class; the table"
	echo "     uses the highest figure seen, and shows the range: the machine is noisy)"
	if [ "$PEERS" -eq 1 ]; then
		echo "  order: who goes first rotates over pfsread, fio, IOR and mdtest, by repetition and row"
	else
		echo "  order: pfsread first and fio first alternate over repetitions and rows"
	fi
	echo "  generation: each repetition runs A B B A (pfsread and fio, or mdtest; A alternates), so"
	echo "    that each tool writes once first and once second of a pair; before each writer, as"
	echo "    root, as many bytes as it writes are read from DIR/prime and the caches dropped, so"
	echo "    that every writer starts on memory freed a moment ago (a VM's page-cache writes run"
	echo "    fast or slow by what the memory held just before: before_write)"
	echo
}

# generation CLASS_INDEX: REPS rounds of generate and fio write, each round in the order A B B A
# (which tool is A alternates by round and class), each writer after before_write. Page-cache
# writes on a virtual machine run fast or slow by what the memory held just before (the freed
# pages of a write a moment ago, or pages the guest handed back to its host): measured in
# alternating pairs, the first writer of a pair was the slow one in 7 of 9 pairs; in A B B A
# without before_write, the second B (which had just removed its own cached files) in 6 of 6.
# In A B B A each tool writes once in each place of a pair, and the table's ratio pairs like
# places (gen_ratios). Two sets of rounds: against fio's own buffer (row generate) and against
# fio --refill_buffers (row refill: content new at each write, as generate's).
generation() {
	local i=$1 name=${CLASS_NAMES[$1]} row refill rep first second pos tool v
	for row in generate refill; do
		refill=
		[ "$row" = refill ] && refill=refill
		for rep in $(seq 1 "$REPS"); do
			first=pfsread second=fio
			[ $(((rep + i) % 2)) -eq 0 ] && first=fio second=pfsread
			for pos in 1 2 3 4; do
				tool=$first
				[ "$pos" -eq 2 ] || [ "$pos" -eq 3 ] && tool=$second
				if [ "$tool" = pfsread ]; then
					v=$(pfsread_generate "$i")
					record gen "$name" "$row" - "$rep" "$first" pfsread "$v" - "pos=$pos"
				else
					v=$(fio_generate "$i" "$row-$rep-$pos" "$refill")
					record gen "$name" "$row" - "$rep" "$first" fio "${v% *}" "${v#* }" "pos=$pos"
					v=${v% *}
				fi
				printf '  %-7s %-8s  rep %d.%d: %-7s %9s MB/s\n' "$name" "$row" "$rep" "$pos" \
					"$tool" "$v"
			done
		done
	done
	rm -rf "$FIOW"
}

# ceilings TAG: memory copy, and the device (both engines) where O_DIRECT works.
ceilings() {
	local m f engine line
	m=$(memory_copy_ceiling)
	record ceiling - mem - "$1" - numpy "$m" - -
	line="memory copy $m MB/s"
	if [ "$DIRECT_OK" -eq 1 ]; then
		for engine in psync io_uring; do
			device_ceiling_args "$engine"
			f=$(fio_run "device-$engine-$1" "$DEVICE_BYTES" read "${FIO_ARGS[@]}")
			record ceiling - dev - "$1" - "$engine" "${f% *}" "${f#* }" -
			line="$line, device $engine ${f% *} MB/s"
		done
	fi
	echo "  ceilings: $line"
}

# warm_up CLASS_INDEX: every file read twice. A page's second read() moves it to the active
# list (vmstat pgactivate): after one read here (or none, behind a row of mmap, whose faults
# mark no page accessed) the first tool of the row would pay that move for every page, the
# second none (counted: 65,594 against 50 activations for 128 files of 2 MiB).
# buffer_placement CLASS_INDEX: where the posix path's reads land in the rows (PLACE, in bytes
# past a 2 MiB boundary): 16 where pfsread's warm reads of the class ran faster there than on
# the boundary, the median of PLACE_PAIRS pairs (who goes first alternating), else 0. The
# kernel's copy out of the page cache is what a warm read costs, and which placement it runs
# faster into depends on the CPU (docs/performance.md); fio's buffer follows (fio_read_args),
# IOR's and mdtest's stay where they put them (a page boundary: they have no such option).
buffer_placement() {
	local i=$1 k out r0 r16 ratios=()
	PLACE=0
	if [ "${AVAILABLE[posix]:-}" != yes ]; then
		PLACE_FACT="posix reads on a 2 MiB boundary (no posix path to probe)"
		return 0
	fi
	write_config "$i" place0 warm
	write_config "$i" place16 warm
	warm_up "$i"
	for k in $(seq 1 "$PLACE_PAIRS"); do
		if [ $((k % 2)) -eq 1 ]; then
			r0=$(pfsread_read "$i" place0 warm "probe-$k")
			r16=$(pfsread_read "$i" place16 warm "probe-$k")
		else
			r16=$(pfsread_read "$i" place16 warm "probe-$k")
			r0=$(pfsread_read "$i" place0 warm "probe-$k")
		fi
		record placement "${CLASS_NAMES[i]}" posix warm "$k" - place16 "${r16%% *}" - "on=${r0%% *}"
		ratios+=("$(awk -v a="${r16%% *}" -v b="${r0%% *}" 'BEGIN { printf "%.4f", a / b }')")
	done
	out=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	awk -v r="$out" 'BEGIN { exit !(r > 1) }' && PLACE=16
	PLACE_FACT="posix reads $([ "$PLACE" -eq 16 ] && echo "16 B past" || echo "on") a 2 MiB boundary"
	PLACE_FACT="$PLACE_FACT (warm ${CLASS_NAMES[i]}, 16 B past / on: $out, the median of $PLACE_PAIRS pairs: ${ratios[*]}); fio's buffer placed alike, IOR's and mdtest's on a page boundary"
	echo "  buffer placement: $PLACE_FACT"
	for k in "${!CLASS_NAMES[@]}"; do
		for cache in "${CACHES[@]}"; do write_config "$k" posix "$cache"; done
	done
}

warm_up() {
	cat "$NAMES/${CLASS_NAMES[$1]}"/* >/dev/null
	cat "$NAMES/${CLASS_NAMES[$1]}"/* >/dev/null
}

# reads CLASS_INDEX: every repetition x path x cache state, pfsread and fio side by side.
# row_tools CLASS_INDEX PATH: into TOOLS, who reads this row: pfsread and fio always; with
# IOR_DIR, IOR where it has the read path (POSIX back-end: posix, direct; MMAP: mmap) and
# mdtest on posix and direct where a file fits one transfer (mdtest reads a file with one
# read of its size); on mmap with IOR, pfsread-each too (write_config).
row_tools() {
	TOOLS=(pfsread fio)
	[ "$PEERS" -eq 1 ] || return 0
	case "$2" in posix | direct | mmap) TOOLS+=(ior) ;; esac
	[ "$2" = mmap ] && TOOLS+=(pfsread-each)
	case "$2" in
	posix | direct) [ "${CLASS_SIZES[$1]}" -gt "$MAX_BLOCK" ] || TOOLS+=(mdtest) ;;
	esac
	return 0
}

# read_one TOOL CLASS_INDEX PATH CACHE REP: prints the tool's "MB/s note" for the row
# (pfsread, and pfsread-each: mmap unmapping each file, IOR's counterpart) or "MB/s wall_MB/s
# cpu_s_per_GB" (the peers: fio's job's CPU, IOR's and mdtest's whole process's).
read_one() {
	local out mbps resident cpu whole
	case "$1" in
	pfsread | pfsread-each)
		[ "$1" = pfsread-each ] && set -- "$1" "$2" mmap-each "$4" "$5"
		out=$(pfsread_read "$2" "$3" "$4" "$5")
		read -r mbps resident cpu whole <<<"$out"
		echo "$mbps resident=$resident cpu=$cpu whole=$whole"
		;;
	fio) fio_read "$2" "$3" "$4" "$5" ;;
	ior) ior_read "$2" "$3" "$4" "$5" ;;
	mdtest) mdtest_read "$2" "$3" "$4" "$5" ;;
	esac
}

# reads CLASS_INDEX: every repetition x path x cache state, pfsread and its peers side by side,
# the order rotating over repetitions and rows.
reads() {
	local i=$1 name=${CLASS_NAMES[$1]} rep path cache k first n j tool out line mbps wall cpu r0 r1
	local margin
	declare -A got host
	for rep in $(seq 1 "$REPS"); do
		# k: the row within the repetition, so that each row's first tool moves on by one
		# every repetition whatever its number of tools (a count running over repetitions,
		# 8 rows a repetition, would start a row of 3 tools with the same one every time)
		k=0
		ceilings "$name-$rep"
		for path in "${PATHS[@]}"; do
			for cache in "${CACHES[@]}"; do
				k=$((k + 1))
				if [ "${AVAILABLE[$path]}" != yes ]; then
					[ "$rep" -eq 1 ] && record read "$name" "$path" "$cache" - - na - - "${AVAILABLE[$path]}"
					continue
				fi
				[ "$cache" = cold ] && [ "$CAN_DROP" -eq 0 ] && continue
				[ "$cache" = warm ] && warm_up "$i"
				row_tools "$i" "$path"
				margin=0
				[ "$cache" = cold ] && margin=$(cold_margin "$i" "$path")
				n=${#TOOLS[@]}
				first=${TOOLS[$(((rep + k) % n))]}
				for j in $(seq 0 $((n - 1))); do
					tool=${TOOLS[$(((rep + k + j) % n))]}
					[ "$cache" = cold ] && reclaim_settle
					r0=$(reclaim_kib)
					got[$tool]=$(RECLAIM_SETTLED=1 read_one "$tool" "$i" "$path" "$cache" "$rep")
					r1=$(reclaim_kib)
					host[$tool]=""
					[ -z "$r0" ] || host[$tool]=" host=$(((r1 - r0) / 1024)) margin=$((margin / 1048576))"
				done
				line=""
				for tool in "${TOOLS[@]}"; do
					out=${got[$tool]}
					if [ "$tool" = pfsread ] || [ "$tool" = pfsread-each ]; then
						record read "$name" "$path" "$cache" "$rep" "$first" "$tool" "${out%% *}" - "${out#* }${host[$tool]}"
					else
						read -r mbps wall cpu <<<"$out"
						record read "$name" "$path" "$cache" "$rep" "$first" "$tool" "$mbps" "$wall" "cpu=${cpu:--}${host[$tool]}"
					fi
					line="$line  $(printf '%s %9s MB/s' "$tool" "${out%% *}")"
				done
				printf '  %-7s %-6s %-4s rep %d (%-7s first):%s\n' "$name" "$path" "$cache" "$rep" "$first" "$line"
			done
		done
	done
}

# table: medians per row, the median of the repetitions' ratios, fraction of the row's ceiling.
table() {
	"$PYTHON" - "$RAW" "$CAN_DROP" <<'PY'
import statistics as st, sys
raw, is_root = sys.argv[1], sys.argv[2] == "1"
rows, vals, notes, places, ceil, host, reps = [], {}, {}, {}, {"mem": [], "dev": []}, {}, {}
for line in open(raw):
    kind, cls, path, cache, rep, first, tool, mbps, wall, note = line.rstrip("\n").split("\t")
    if kind == "ceiling":
        ceil[path].append(float(mbps))
        continue
    if kind in ("meta", "placement"):
        continue
    key = (cls, path, cache)
    marks = dict(w.split("=", 1) for w in note.split() if "=" in w)
    if "host" in marks:
        host.setdefault(key, []).append((tool, int(marks["host"]), int(marks.get("margin", 0))))
    if tool in ("ior", "mdtest", "pfsread-each"):
        continue  # their own tables (pfsread-each: IOR's)
    if key not in rows:
        rows.append(key)
    if tool == "na":
        notes[key] = note
        continue
    vals.setdefault(key, {}).setdefault(tool, []).append(float(mbps))
    reps.setdefault(key, {}).setdefault(rep, {})[tool] = float(mbps)
    if tool == "fio" and wall != "-":
        vals[key].setdefault("wall", []).append(float(wall))
    if "resident" in marks:
        vals[key].setdefault("resident", []).append(float(marks["resident"]))
    if marks.get("cpu", "-") not in ("-", "nan"):
        vals[key].setdefault(tool + " cpu", []).append(float(marks["cpu"]))
    if note.startswith("pos="):
        places.setdefault(key, {}).setdefault(rep, {})[(tool, int(note[4:]))] = float(mbps)
def gen_ratios(key):
    """Each round's pfsread / fio with like places paired (A B B A: each tool once first and
    once second of a pair): the geometric mean of the two places' ratios."""
    rs = []
    for r in places.get(key, {}).values():
        if len(r) != 4:
            return []
        a = "pfsread" if ("pfsread", 1) in r else "fio"  # A: places 1 and 4; B: 2 and 3
        b = "fio" if a == "pfsread" else "pfsread"
        first = {a: r[(a, 1)], b: r[(b, 3)]}
        second = {a: r[(a, 4)], b: r[(b, 2)]}
        rs.append((first["pfsread"] / first["fio"] * second["pfsread"] / second["fio"]) ** 0.5)
    return rs
def rep_ratios(key, peer):
    """Each repetition's pfsread / peer, its runs paired: they ran one after the other, so a
    host whose speed drifts between repetitions moves both alike."""
    return [r["pfsread"] / r[peer] for r in reps.get(key, {}).values()
            if "pfsread" in r and r.get(peer)]
def behind(pairs, cpu_ratio):
    """Where pfsread trails the peer, said in the row: slower (the median of the pairs' ratios
    below 1, with how many pairs pfsread won), costlier (more CPU per byte), or both; nothing
    where it does not."""
    slow = pairs and st.median(pairs) < 1
    said = ([f"slower (won {sum(1 for r in pairs if r > 1)} of {len(pairs)})"] if slow else []) + \
           (["costlier"] if cpu_ratio is not None and cpu_ratio > 1 else [])
    return ", ".join(said)
def ceiling(tag, what):
    c = ceil[tag]
    if not c:
        print(f"{what} ({tag}): n/a")
        return None
    print(f"{what} ({tag}): {max(c):.0f} MB/s, the best of {len(c)} "
          f"(range {min(c):.0f}-{max(c):.0f})")
    return max(c)
print("Ceilings")
memcpy = ceiling("mem", "  memory copy, numpy, one thread, 4 MiB buffer")
dev = ceiling("dev", "  device, fio O_DIRECT sequential read, psync and io_uring QD16")
print()
hdr = f"{'class':<7} {'path':<8} {'cache':<5} {'pfsread MB/s':>12} {'fio MB/s':>10} {'ratio':>6} " \
      f"{'best ratio':>10} {'of ceiling':>10}  {'fio wall MB/s':>13} {'pfsread CPU s/GB':>16} " \
      f"{'fio CPU s/GB':>12} {'CPU ratio':>9}  pfsread behind"
print(hdr)
print("-" * len(hdr))
odd, above = [], False
gens = [r for r in rows if r[1] in ("generate", "refill")]
for key in [r for r in rows if r not in gens] + [None] + gens:
    if key is None:
        print("-" * len(hdr))
        continue
    cls, path, cache = key
    if key in notes:
        print(f"{cls:<7} {path:<8} {cache:<5} {'n/a':>12} {'n/a':>10} {'n/a':>6} {'n/a':>10}"
              f" {'n/a':>10}  {'n/a':>13} {'n/a':>16} {'n/a':>12} {'n/a':>9}  ({notes[key]})")
        continue
    v = vals[key]
    p, f = st.median(v["pfsread"]), st.median(v["fio"])
    best = max(v["pfsread"]) / max(v["fio"])
    wall = f"{st.median(v['wall']):13.1f}" if "wall" in v else f"{'-':>13}"
    if key in gens:
        frac = "-"
        pairs = gen_ratios(key)
    else:
        pairs = rep_ratios(key, "fio")
        top, tag = (dev, "dev") if (cache == "cold" or path == "direct") else (memcpy, "mem")
        frac = f"{p / top:.2f} {tag}" if top else "n/a"
        above = above or bool(top and p > top)
    ratio = st.median(pairs) if pairs else p / f
    cpu = {t: st.median(v[t + " cpu"]) for t in ("pfsread", "fio") if t + " cpu" in v}
    cpu_ratio = cpu["pfsread"] / cpu["fio"] if len(cpu) == 2 and cpu["fio"] > 0 else None
    shown = {t: f"{cpu[t]:.3f}" if t in cpu else "-" for t in ("pfsread", "fio")}
    print(f"{cls:<7} {path:<8} {cache:<5} {p:12.1f} {f:10.1f} {ratio:6.3f} {best:10.3f} {frac:>10}"
          f"  {wall} {shown['pfsread']:>16} {shown['fio']:>12} "
          f"{f'{cpu_ratio:.3f}' if cpu_ratio else '-':>9}  {behind(pairs, cpu_ratio)}")
    # memory the host took beyond the margin freed for the run: a read into the page cache may
    # have reached it; an O_DIRECT read fills no page cache and cannot
    took = [(t, m) for t, m, margin in host.get(key, [])
            if m > margin and cache == "cold" and path != "direct"]
    if took:
        odd.append(f"{cls} {path} {cache}: the host took back memory during {len(took)} of "
                   f"{len(host[key])} runs ("
                   + ", ".join(f"{t} {sum(1 for u, _ in took if u == t)}" for t in
                               dict.fromkeys(t for t, _ in took))
                   + f"; up to {max(m for _, m in took)} MiB, more than the margin): those "
                   "reads may have run into it")
    res = v.get("resident")
    if res and ((cache == "cold" and max(res) > 0.05) or
                (cache == "warm" and path != "direct" and min(res) < 0.95)):
        odd.append(f"{cls} {path} {cache}: {max(res) if cache == 'cold' else min(res):.0%} of "
                   "pfsread's bytes were in the page cache when its phase began")
print()
print("MB/s = 10^6 B/s. pfsread: bytes / (last reader's end - first reader's start), from the "
      "results file;\nfio: jobs[0].<rw>.bw_bytes (bytes / fio's I/O time, whole milliseconds); "
      "fio wall: bytes / the\nwhole fio process (start-up, file set-up, exit). generate: the rate "
      "generate prints (bytes / its own\ntime, no MPI start-up) against fio --rw=write (its buffer "
      "filled once; refill: --refill_buffers,\nnew at each write, as generate's content never "
      "repeats); neither fsyncs.\nratio = pfsread / fio, the median over repetitions of each one's pair (they ran "
      "one after the\nother; generate: rounds of A B B A, the median of each round's like places "
      "paired);\nbest ratio = pfsread's best / fio's best (what each "
      "side can do).\nof ceiling = pfsread / mem (warm) or dev "
      "(cold, and O_DIRECT warm or cold).\nCPU s/GB: user + system CPU seconds per 10^9 bytes "
      "read (medians): pfsread's ranks' cpu_user_s + cpu_sys_s\n(getrusage of the rank's "
      "process over its timed reads), fio's usr_cpu + sys_cpu of its job (getrusage over the job);"
      "\nneither counts the kernel's work done outside the process (page-cache read-ahead, "
      "interrupts). CPU ratio = pfsread / fio.\npfsread behind: slower (ratio below 1; won: the "
      "pairs where pfsread was faster) and/or\ncostlier (CPU ratio above 1) than fio in that row.")
if host:
    print("Cold rows on a host that takes back freed memory (see the machine): each run began once "
          "the host\nhad stopped taking, at once after the drop that freed the memory it reads into, "
          "the row before's\ncache and a margin (min(1 GiB, the row's bytes) of a prime file read "
          "first): the host's passes\ntake memory the read does not reach; a row where the host "
          "took more than the margin during a run\n(its reads then may have landed on taken "
          "memory, a fault on the host per page) is named below;\nO_DIRECT rows fill no page cache "
          "and are not.")
if above:
    print("A fraction above 1: pfsread beat the best ceiling measured; the ceiling figures are "
          "noisy\nhere (the virtual disk is cached by its host), so read those fractions as rough.")
if not is_root:
    print("Not root or BENCH_DROP=0: cold rows (drop_caches) skipped.")
for o in odd:
    print("warning: " + o)
PY
}

# peer_table: pfsread against IOR and mdtest, the rows where they read (medians, ratios).
peer_table() {
	"$PYTHON" - "$RAW" <<'PY'
import statistics as st, sys
rows, vals, reps = [], {}, {}
for line in open(sys.argv[1]):
    kind, cls, path, cache, rep, first, tool, mbps, wall, note = line.rstrip("\n").split("\t")
    if kind != "read" or tool not in ("pfsread", "pfsread-each", "ior", "mdtest"):
        continue
    key = (cls, path, cache)
    if key not in rows:
        rows.append(key)
    vals.setdefault(key, {}).setdefault(tool, []).append(float(mbps))
    reps.setdefault(key, {}).setdefault(rep, {})[tool] = float(mbps)
    if wall != "-":
        vals[key].setdefault(tool + " wall", []).append(float(wall))
    # the whole process's CPU per 10^9 bytes: pfsread's "whole", the peers' "cpu" (cpu_of.py)
    marks = dict(w.split("=", 1) for w in note.split() if "=" in w)
    cpu = marks.get("whole" if tool == "pfsread" else "cpu", "-")
    if cpu not in ("-", "nan", ""):
        vals[key].setdefault(tool + " cpu", []).append(float(cpu))
# mmap: IOR unmaps each file at its close; so does pfsread-each, the pfsread it is held against
for r in (r for k in reps.values() for r in k.values()):
    if "pfsread-each" in r:
        r["pfsread"] = r.pop("pfsread-each")
for v in vals.values():
    if "pfsread-each" in v:
        v["pfsread"] = v.pop("pfsread-each")
        v.pop("pfsread cpu", None)
        if "pfsread-each cpu" in v:
            v["pfsread cpu"] = v.pop("pfsread-each cpu")
behind = {}
def cols(v, tool, p, key):
    if tool not in v:
        return f"{'-':>10} {'-':>6} {'-':>6} {'-':>10} {'-':>7}"
    t = st.median(v[tool])
    # the median over repetitions of each one's pair (the table above's rep_ratios)
    pairs = [r["pfsread"] / r[tool] for r in reps[key].values() if "pfsread" in r and r.get(tool)]
    ratio = st.median(pairs) if pairs else p / t
    cpu, mine = v.get(tool + " cpu"), v.get("pfsread cpu")
    cpu_s = f"{st.median(cpu):7.3f}" if cpu else f"{'-':>7}"
    won = f" (won {sum(1 for r in pairs if r > 1)} of {len(pairs)})" if pairs else ""
    said = ([f"slower{won}"] if ratio < 1 else []) + \
           (["costlier"] if cpu and mine and st.median(mine) > st.median(cpu) else [])
    if said:
        behind.setdefault(key, []).append(f"{tool.replace('ior', 'IOR')}: {', '.join(said)}")
    return (f"{t:10.1f} {ratio:6.3f} {max(v['pfsread']) / max(v[tool]):6.3f} "
            f"{st.median(v[tool + ' wall']):10.1f} {cpu_s}")
hdr = (f"{'class':<7} {'path':<8} {'cache':<5} {'pfsread MB/s':>12} {'CPU':>7} {'IOR MB/s':>10} "
       f"{'ratio':>6} {'best':>6} {'IOR wall':>10} {'CPU':>7} {'mdtest MB/s':>10} {'ratio':>6} "
       f"{'best':>6} {'md wall':>10} {'CPU':>7}  pfsread behind")
print(hdr)
print("-" * len(hdr))
for key in rows:
    v = vals[key]
    if "ior" not in v and "mdtest" not in v:
        continue
    p = st.median(v["pfsread"])
    mine = f"{st.median(v['pfsread cpu']):7.3f}" if "pfsread cpu" in v else f"{'-':>7}"
    row = (f"{key[0]:<7} {key[1]:<8} {key[2]:<5} {p:12.1f} {mine} {cols(v, 'ior', p, key)} "
           f"{cols(v, 'mdtest', p, key)}")
    print(f"{row}  {'; '.join(behind.get(key, []))}".rstrip())
print()
print("IOR MB/s: its files' bytes over the sum of IOR's own times of its repetitions (one file "
      "each, open to close);\nmdtest MB/s: its read phase's files/s x the file size; ratio = "
      "pfsread / peer (the median of each repetition's pair); best = pfsread's best / the "
      "peer's best;\nwall: bytes over the "
      "peer's whole mpirun (start-up included). CPU: user + system seconds per 10^9 bytes of "
      "each tool's\nwhole process (start-up, MPI_Init, reads, exit; medians), counted alike by "
      "cpu_of.py between mpirun and the tool;\npfsread behind, per peer: slower (ratio below 1; won: "
      "the pairs where pfsread was faster), "
      "costlier (more CPU per byte than the peer). IOR and mdtest do nothing to the page cache:\n"
      "cold rows drop it (sync; echo 3 > drop_caches) before them, and before pfsread,\n"
      "whose own drop (cache: drop, before its phase) then finds the cache empty: no tool's CPU "
      "counts freeing the row before's.\nmmap: pfsread-each, pfsread with keep_mapped: false, each file "
      "unmapped at its close as IOR's MMAP back-end does\n(the table above: keep_mapped: true, "
      "as fio).")
PY
}

# md_table: the small-file class in files/s: pfsread against mdtest (medians, ratios).
md_table() {
	"$PYTHON" - "$RAW" "$MD_FILES" "$MD_BYTES" "$MD_LOOP" "$MD_FRESH" <<'PY'
import statistics as st, sys
rows, vals, notes, places, reps = [], {}, {}, {}, {}
for line in open(sys.argv[1]):
    kind, cls, what, cache, rep, first, tool, rate, wall, note = line.rstrip("\n").split("\t")
    if kind != "meta":
        continue
    key = (what, cache)
    if key not in rows:
        rows.append(key)
    if tool == "na":
        notes[key] = note
        continue
    vals.setdefault(key, {}).setdefault(tool, []).append(float(rate))
    if note.startswith("pos="):
        places.setdefault(key, {}).setdefault(rep, {})[(tool, int(note[4:]))] = float(rate)
    else:
        reps.setdefault(key, {}).setdefault(rep, {})[tool] = float(rate)
def paired_ratios(key):
    """As the size classes' gen_ratios: rounds of A B B A, like places paired; reads and
    scans: each repetition's pair, as the size classes' rep_ratios."""
    if key not in places:
        return [r["pfsread"] / r["mdtest"] for r in reps.get(key, {}).values()
                if "pfsread" in r and r.get("mdtest")]
    rs = []
    for r in places.get(key, {}).values():
        if len(r) != 4:
            return []
        a = "pfsread" if ("pfsread", 1) in r else "mdtest"  # A: places 1 and 4; B: 2 and 3
        b = "mdtest" if a == "pfsread" else "pfsread"
        first, second = {a: r[(a, 1)], b: r[(b, 3)]}, {a: r[(a, 4)], b: r[(b, 2)]}
        rs.append((first["pfsread"] / first["mdtest"] * second["pfsread"] / second["mdtest"]) ** 0.5)
    return rs
hdr = (f"{'md':<9} {'cache':<5} {'pfsread files/s':>15} {'mdtest files/s':>14} {'ratio':>6} "
       f"{'best ratio':>10} {'won':>6}")
print(hdr)
print("-" * len(hdr))
for key in rows:
    v = vals.get(key, {})
    if "pfsread" not in v or "mdtest" not in v:
        m = f"{st.median(v['mdtest']):14.0f}" if "mdtest" in v else f"{'-':>14}"
        print(f"{key[0]:<9} {key[1]:<5} {'n/a':>15} {m} {'n/a':>6} {'n/a':>10} {'n/a':>6}  "
              f"({notes.get(key, '')})")
        continue
    p, m = st.median(v["pfsread"]), st.median(v["mdtest"])
    pairs = paired_ratios(key)
    ratio = st.median(pairs) if pairs else p / m
    won = f"{sum(1 for r in pairs if r > 1)}/{len(pairs)}" if pairs else "-"
    print(f"{key[0]:<9} {key[1]:<5} {p:15.0f} {m:14.0f} {ratio:6.3f} "
          f"{max(v['pfsread']) / max(v['mdtest']):10.3f} {won:>6}")
print()
print(f"{int(sys.argv[2]):,} files of {sys.argv[3]} B in directories of 1,000 "
      f"({'a loop ext4 file system in a tmpfs: cold means out of the page cache of ext4, not off a disk' if sys.argv[4] == '1' else 'on DIR'}).\n"
      "generate: pfsread generate (files / its own time) against mdtest -C -w (create, write, "
      "close); each side's\nown files"
      f"{', each run on an ext4 made for it (a loop file in a capped tmpfs)' if sys.argv[5] == '1' else ''}"
      "; rounds of A B B A,\nratio: the median of each round's like places paired (read and scan: of each repetition's pair);\nwon: the rounds or repetitions where pfsread was faster.\nread: pfsread's phase over mdtest's files (hard links "
      "named in mdtest's order, read in place:\nfrom_tree, in_place; files / elapsed_s) against "
      "mdtest -E (open, one read, close) on its tree. scan:\n'pfsread plan' of that data set "
      "(readdir + fstatat of each entry; wall time less a one-file plan's)\nagainst mdtest -T "
      "(stat by name).")
PY
}

# remove_data: what generate and the fio side made; DIR/work stays.
remove_data() {
	local i name
	rm -rf "$NAMES" "$FIOW" "$IORN" "$MDN" "$PRIME"
	if [ -e "$WORK/md-pf-tree/md/.pfsread-manifest" ]; then
		pfsread_mpi clean "$WORK/config-md-cold.yaml" >/dev/null 2>&1 ||
			echo "bench.sh: could not remove $WORK/md-pf-tree; remove it by hand" >&2
	fi
	if [ -e "$MDGEN/md/.pfsread-manifest" ]; then
		pfsread_mpi clean "$WORK/config-md-gen.yaml" >/dev/null 2>&1 ||
			echo "bench.sh: could not remove $MDGEN/md; remove it by hand" >&2
	fi
	[ "$MD_LOOP" -eq 1 ] || rm -rf "$MDTREE" "$MDLINKS" # the loop file system goes whole
	rm -rf "$WORK/md-one"
	rmdir "$MDGEN" 2>/dev/null || true
	md_unmount
	md_unmount "$MDGIMG" "$MDGFS"
	pr_unmount
	for i in "${!CLASS_NAMES[@]}"; do
		name=${CLASS_NAMES[i]}
		if [ -e "$DATA/$name/.pfsread-manifest" ]; then
			pfsread_mpi clean "$(config_path "$name" "${PATHS[0]}" warm)" >/dev/null 2>&1 ||
				echo "bench.sh: could not remove $DATA/$name; remove it by hand" >&2
		fi
	done
	rmdir "$DATA" 2>/dev/null || true
}

# tables: the machine and every table of the measurements taken.
tables() {
	machine_facts
	if [ "$ONLY" != md ]; then
		echo
		table
	fi
	if [ "$ONLY" = gen ]; then
		true # no reads: nothing for the peers' tables
	elif [ "$PEERS" -eq 1 ]; then
		if [ "$ONLY" != md ]; then
			echo
			echo "Against IOR and mdtest (the same files; $IOR, $MDTEST)"
			peer_table
		fi
		if [ "$ONLY" != sizes ]; then
			echo
			echo "Small files: pfsread against mdtest"
			md_table
		fi
	else
		echo
		echo "$PEERS_WHY."
	fi
}

main() {
	check_tools
	rm -rf "$WORK/logs" "$WORK/results"
	rm -f "$WORK"/config-*.yaml "$WORK"/probe-*.yaml "$WORK/probe.h5"
	mkdir -p "$WORK/logs" "$WORK/results"
	: >"$RAW"
	: >"$CMDLOG"
	check_space
	local i path cache
	for i in "${!CLASS_NAMES[@]}"; do
		for path in "${PATHS[@]}"; do
			for cache in "${CACHES[@]}"; do
				write_config "$i" "$path" "$cache"
				[ "$path" = mmap ] && write_config "$i" mmap-each "$cache"
			done
		done
	done
	declare -gA AVAILABLE
	for path in "${PATHS[@]}"; do
		AVAILABLE[$path]=yes
		backend_available "$path" || AVAILABLE[$path]="backend $path not in this pfsread"
	done
	DIRECT_OK=1
	direct_supported || DIRECT_OK=0
	[ "$DIRECT_OK" -eq 1 ] || AVAILABLE[direct]="no O_DIRECT on $DIR"
	[ "$PEERS" -eq 1 ] && { [ "$ONLY" = all ] || [ "$ONLY" = md ]; } && md_check_room
	[ "$ONLY" = progress ] || print_commands
	if [ "$CAN_DROP" -eq 0 ]; then echo "Not root or BENCH_DROP=0: no drop_caches, so cold rows are skipped."; fi
	[ -z "$PEERS_WHY" ] || echo "$PEERS_WHY."
	trap remove_data EXIT
	trap 'exit 130' INT TERM # through remove_data: files, names, mounts

	if [ "$ONLY" = progress ]; then
		echo "The cost of the progress lines (this machine may be busy: see the rounds)"
		progress_row
		return 0
	fi
	[ "$ONLY" = progress ] || make_prime
	calibrate_machine
	machine_facts
	echo
	if [ "$ONLY" != md ]; then
		for i in "${!CLASS_NAMES[@]}"; do
			echo "Class ${CLASS_NAMES[i]}: generation"
			generation "$i"
			[ "$ONLY" = gen ] && continue
			make_fio_names "$i"
			[ "$PEERS" -eq 1 ] && make_peer_names "$i"
			[ -n "$PLACE_FACT" ] || buffer_placement "$i"
			echo "Class ${CLASS_NAMES[i]}: reads"
			reads "$i"
		done
	fi
	[ "$PEERS" -eq 1 ] && { [ "$ONLY" = all ] || [ "$ONLY" = md ]; } && metadata
	echo
	tables | tee "$WORK/tables.txt"
	"$TOP/tests/bench/md_block.sh" "$BENCH_CMD" <"$WORK/tables.txt" >"$WORK/tables.md"
	if [ "$ONLY" != gen ]; then
		echo
		echo "The cost of the progress lines (this machine may be busy: see the rounds)"
		progress_row
	fi
	echo
	echo "Raw measurements: $RAW; commands: $CMDLOG; logs, configs and results: $WORK"
	echo "The tables as markdown: $WORK/tables.md (make bench-doc puts them into docs/performance.md)"
}

main
