#!/bin/bash
# bench.sh: pfsread side by side with fio on the same files, with the same settings, in one run.
# A benchmark, not a test: it prints what it measured and never passes or fails on timing.
#
#   usage: tests/bench/bench.sh [--quick] [DIR]
#     DIR      where the files go (default /var/tmp/pfsread-bench; not /tmp, which may be tmpfs
#              and refuse O_DIRECT). Needs the data sets' total plus the largest one free.
#     --quick  smaller data sets (2 x 256 MiB, 16 x 64 MiB, 128 x 2 MiB), one repetition
#              (default: 4 x 1 GiB, 64 x 64 MiB, 512 x 2 MiB, three repetitions)
#   environment: PFSREAD (default build/pfsread), MPIRUN (default mpirun),
#                PYTHON (default /usr/bin/python3, which must have h5py and numpy)
#
# In order, for each class of file size (largest first):
#   1. generation: 'pfsread generate' against a fio sequential write of the same number of files
#      of the same size, same block size, same file system; neither side fsyncs
#   2. for each repetition:
#      a. the ceilings: memory copy (numpy copies 1 GiB through one reused 4 MiB buffer, best
#         of 5) and the device (fio, one O_DIRECT sequential read of the largest class's first
#         file, psync and io_uring at queue depth 16)
#      b. for each read path and cache state: pfsread then fio, or fio then pfsread
#         (alternating), each reading every file of the class once, whole, in order
# then the table: medians over repetitions, ratio pfsread/fio, fraction of the best ceiling.
# Every measurement is also in DIR/work/raw.tsv; every command run is in DIR/work/commands.log.
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

# ---- settings ---------------------------------------------------------------------------------

QUICK=0
DIR=/var/tmp/pfsread-bench
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) QUICK=1 ;;
	-h | --help)
		sed -n '2,/^set -Eeu/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	-*) echo "bench.sh: unknown option $1 (usage: bench.sh [--quick] [DIR])" >&2 && exit 2 ;;
	*) DIR=$1 ;;
	esac
	shift
done

if [ "$QUICK" -eq 1 ]; then
	CLASS_NAMES=(256MiB 64MiB 2MiB)
	CLASS_SIZES=(268435456 67108864 2097152)
	CLASS_COUNTS=(2 16 128)
	REPS=1
else
	CLASS_NAMES=(1GiB 64MiB 2MiB)
	CLASS_SIZES=(1073741824 67108864 2097152)
	CLASS_COUNTS=(4 64 512)
	REPS=3
fi
PATHS=(posix direct mmap uring)
CACHES=(warm cold)
MAX_BLOCK=4194304 # 4 MiB: generate's write size; reads use min(this, file size), both sides
QUEUE_DEPTH=16    # pfsread uring.queue_depth = fio --iodepth
IS_ROOT=0
[ "$(id -u)" -eq 0 ] && IS_ROOT=1
MPI_FLAGS=(--oversubscribe --mca btl "self,vader,tcp")
[ "$IS_ROOT" -eq 1 ] && MPI_FLAGS+=(--allow-run-as-root)

mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
DATA=$DIR/data           # pfsread's root: DATA/CLASS/d000000/f0000000000 ...
NAMES=$DIR/fio-names     # NAMES/CLASS/0 ... : hard links to the same files, for fio's --filename
FIOW=$DIR/fio-write      # fio's generation files, removed after each class
WORK=$DIR/work           # configs, results, logs, raw.tsv
RAW=$WORK/raw.tsv
CMDLOG=$WORK/commands.log

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

# drop_caches: write back and empty the page cache (root only).
drop_caches() {
	echo "sync; echo 3 > /proc/sys/vm/drop_caches" >>"$CMDLOG"
	sync
	echo 3 >/proc/sys/vm/drop_caches
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
	command -v fio >/dev/null || die "fio not found (Debian: fio)"
	"$PYTHON" -c 'import h5py, numpy' 2>/dev/null ||
		die "$PYTHON cannot import h5py and numpy (Debian: python3-h5py)"
}

# check_space: the data sets, plus fio's copy of the largest during generation, plus 5%.
check_space() {
	local need=0 biggest=0 i t avail
	for i in "${!CLASS_NAMES[@]}"; do
		t=$((CLASS_SIZES[i] * CLASS_COUNTS[i]))
		need=$((need + t))
		[ "$t" -gt "$biggest" ] && biggest=$t
	done
	need=$(((need + biggest) * 105 / 100))
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

# write_config CLASS_INDEX PATH CACHE: one data set, one rank, one phase.
write_config() {
	local i=$1 path=$2 cache=$3 name=${CLASS_NAMES[$1]} pcache block
	pcache=none
	[ "$cache" = cold ] && pcache=drop
	block=$(block_of "${CLASS_SIZES[i]}")
	cat >"$(config_path "$name" "$path" "$cache")" <<YAML
name: bench-$name-$path-$cache
root: $DATA
results: $WORK/results/{name}.h5
layout: {files_per_dir: 1000}
datasets:
  - {name: $name, file_size: ${CLASS_SIZES[i]}, file_count: ${CLASS_COUNTS[i]}}
sweep:
  readers_per_node: [1]
  backend: [$path]
  transfer_size: [$block]
  order: [sorted]
repetitions: 1
cache: $pcache
uring: {queue_depth: $QUEUE_DEPTH, max_inflight: $((QUEUE_DEPTH * block))}
YAML
}

pfsread_mpi() { "$MPIRUN" "${MPI_FLAGS[@]}" -np 1 "$PFSREAD" "$@"; }

# pfsread_generate CLASS_INDEX: remove what a previous generate made, make it again; prints the
# rate generate reports itself (bytes / time from its first file to its last, MB/s), which
# leaves out MPI's start-up.
pfsread_generate() {
	local name=${CLASS_NAMES[$1]} cfg log rate
	cfg=$(config_path "$name" posix warm)
	log=$WORK/logs/generate-$name.log
	if [ -e "$DATA/$name/.pfsread-manifest" ]; then
		run_logged "$WORK/logs/clean-$name.log" pfsread_mpi clean "$cfg"
	fi
	sync
	[ "$IS_ROOT" -eq 1 ] && drop_caches
	run_logged "$log" pfsread_mpi generate "$cfg"
	sync # the written-back data must not land in the next measurement
	rate=$(sed -n "s/^generate $name: .* of .*, \([0-9.]*\) MB\/s, .*/\1/p" "$log" | tail -n 1)
	[ -n "$rate" ] || die "no rate in $log"
	echo "$rate"
}

# pfsread_read CLASS_INDEX PATH CACHE TAG: prints "MB/s resident_fraction" of the one phase.
pfsread_read() {
	local name=${CLASS_NAMES[$1]} h5
	h5=$WORK/results/$name-$2-$3-$4.h5
	run_logged "$WORK/logs/pfsread-$name-$2-$3-$4.log" \
		pfsread_mpi run "$(config_path "$name" "$2" "$3")" -o "$h5" --force
	"$PYTHON" - "$h5" "$((CLASS_SIZES[$1] * CLASS_COUNTS[$1]))" <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
p = f["phases/0000"].attrs
if p["status"] != "complete" or int(p["bytes"]) != int(sys.argv[2]):
    sys.exit(f"{sys.argv[1]}: phase {p['status']}, {p['bytes']} bytes of {sys.argv[2]}")
print(f"{p['bandwidth_MBps']:.1f} {p.get('resident_fraction', float('nan')):.3f}")
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

# fio_file_list CLASS_INDEX: 0:1:...:N-1
fio_file_list() {
	local list
	list=$(seq -s: 0 $((CLASS_COUNTS[$1] - 1)))
	[ "${#list}" -le 4096 ] || die "${CLASS_COUNTS[$1]} files: too many for fio's --filename"
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
# into a buffer aligned as pfsread's (BACKEND_BUF_ALIGN, 2 MiB): fio's default buffer is not
# page-aligned, and copies from the page cache into it ran at half speed here.
fio_read_args() {
	local i=$1 block
	block=$(block_of "${CLASS_SIZES[i]}")
	# shellcheck disable=SC2207
	FIO_ARGS=(--name=read --directory="$NAMES/${CLASS_NAMES[i]}" --filename="$(fio_file_list "$i")"
		--rw=read --bs="$block" $(fio_engine "$2" "$block") --invalidate=0
		--iomem_align=2097152
		--openfiles=1 --file_service_type=sequential --output-format=json)
}

# fio_write_args CLASS_INDEX: into FIO_ARGS. As generate: N files of SIZE made one after the
# other with writes of min(4 MiB, SIZE) from a 4 KiB-aligned buffer, created on open, no
# preallocation, no fsync at the end.
fio_write_args() {
	local i=$1
	FIO_ARGS=(--name=gen --directory="$FIOW" --rw=write --bs="$(block_of "${CLASS_SIZES[i]}")"
		--nrfiles="${CLASS_COUNTS[i]}" --filesize="${CLASS_SIZES[i]}"
		--size=$((CLASS_SIZES[i] * CLASS_COUNTS[i])) --openfiles=1 --file_service_type=sequential
		--iomem_align=4096 --create_on_open=1 --fallocate=none --end_fsync=0 --output-format=json)
}

# fio_figures JSON read|write BYTES WALL_S: prints "MB/s wall_MB/s". MB/s is fio's own
# bw_bytes (bytes over its I/O time, whole milliseconds); wall_MB/s is bytes over the fio
# process's wall time (start-up, file set-up and exit included). Stops if fio moved other
# than BYTES bytes.
fio_figures() {
	"$PYTHON" - "$@" <<'PY'
import json, sys
path, rw, want, wall = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
j = json.load(open(path))["jobs"][0]
if j["error"] or j[rw]["io_bytes"] != want:
    sys.exit(f"{path}: fio error {j['error']}, {j[rw]['io_bytes']} bytes of {want}")
print(f"{j[rw]['bw_bytes'] / 1e6:.1f} {want / wall / 1e6:.1f}")
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
	echo "fio $* --output=$json" >>"$CMDLOG"
	t0=$(now)
	if ! fio "$@" --output="$json" >"$log" 2>&1; then
		echo "bench.sh: failed: fio $* --output=$json" >&2
		sed 's/^/  | /' "$log" >&2
		fio_job_errors "$json" >&2 || true
		exit 1
	fi
	t1=$(now)
	fio_figures "$json" "$rw" "$bytes" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
}

fio_generate() {
	local i=$1 name=${CLASS_NAMES[$1]} out
	rm -rf "$FIOW"
	mkdir -p "$FIOW"
	sync
	[ "$IS_ROOT" -eq 1 ] && drop_caches
	fio_write_args "$i"
	out=$(fio_run "write-$name-$2" $((CLASS_SIZES[i] * CLASS_COUNTS[i])) write "${FIO_ARGS[@]}")
	sync
	echo "$out"
}

# fio_read CLASS_INDEX PATH CACHE TAG: prints fio_figures.
fio_read() {
	local i=$1
	[ "$3" = cold ] && drop_caches
	fio_read_args "$i" "$2"
	fio_run "read-${CLASS_NAMES[i]}-$2-$3-$4" $((CLASS_SIZES[i] * CLASS_COUNTS[i])) read \
		"${FIO_ARGS[@]}"
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

# device_ceiling_args ENGINE: into FIO_ARGS: one large sequential O_DIRECT read of the first
# file of the first (largest) class, 4 MiB blocks, synchronous (psync) or at queue depth 16
# (io_uring): the device's figure is the best of both, over every time it is measured.
device_ceiling_args() {
	local engine="--ioengine=psync"
	[ "$1" = io_uring ] && engine="--ioengine=io_uring --iodepth=$QUEUE_DEPTH"
	# shellcheck disable=SC2206
	FIO_ARGS=(--name=device --filename="$NAMES/${CLASS_NAMES[0]}/0" --rw=read --bs="$MAX_BLOCK"
		--direct=1 $engine --output-format=json)
}

# ---- the steps ----------------------------------------------------------------------------------

print_commands() {
	local i=0 name=${CLASS_NAMES[0]} path
	echo "pfsread benchmark against fio: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -nr)"
	echo "  pfsread $("$PFSREAD" --version 2>&1 | head -n 1), $(fio --version), $(nproc) cores"
	echo "  DIR $DIR ($(stat -f -c %T "$DIR"), $(df -P "$DIR" | awk 'NR == 2 { print $1 }'))"
	echo "  classes:$(for j in "${!CLASS_NAMES[@]}"; do printf ' %s x %s' "${CLASS_COUNTS[j]}" "${CLASS_NAMES[j]}"; done);" \
		"repetitions $REPS; one reader; block min(4 MiB, file size); io_uring queue depth $QUEUE_DEPTH"
	echo
	echo "Commands, shown for class $name (the others differ only in names and sizes):"
	echo "  pfsread config ($(config_path "$name" PATH CACHE)):"
	sed 's/^/    | /' "$(config_path "$name" posix warm)"
	echo "    (backend: PATH; cache: none for warm, drop for cold: pfsread itself syncs and drops"
	echo "     the page cache before its timed phase)"
	echo "  generate: ${MPIRUN} ${MPI_FLAGS[*]} -np 1 $PFSREAD generate CONFIG"
	echo "    (after 'pfsread clean CONFIG'; MB/s as generate reports it: bytes / its own time)"
	fio_write_args 0
	echo "  fio write: fio ${FIO_ARGS[*]} --output=JSON"
	echo "    (--end_fsync=0: generate does not fsync either; both sides: sync; drop before, sync after)"
	echo "  pfsread read: ${MPIRUN} ${MPI_FLAGS[*]} -np 1 $PFSREAD run CONFIG -o H5 --force"
	echo "    (MB/s: /phases/0000 bandwidth_MBps = bytes / (last reader's end - first's start))"
	for path in "${PATHS[@]}"; do
		fio_read_args 0 "$path"
		echo "  fio read, $path: fio ${FIO_ARGS[*]} --output=JSON"
	done
	echo "    (--filename lists $NAMES/$name/0..N-1, hard links to pfsread's files in its order;"
	echo "     MB/s: jobs[0].read.bw_bytes = bytes / fio's read time in whole ms, which leaves out"
	echo "     fio's start-up and file set-up; 'fio wall' is bytes / the fio process's wall time)"
	echo "  cold: sync; echo 3 > /proc/sys/vm/drop_caches before fio;" \
		"warm: cat every file > /dev/null first"
	device_ceiling_args psync
	echo "  device ceiling: fio ${FIO_ARGS[*]} --output=JSON"
	device_ceiling_args io_uring
	echo "              and fio ${FIO_ARGS[*]} --output=JSON"
	echo "  memory-copy ceiling: numpy.copyto of 1 GiB through one 4 MiB buffer, one thread, best of 5"
	echo "    (both ceilings measured at the start of every repetition of every class; the table"
	echo "     uses the highest figure seen, and shows the range: the machine is noisy)"
	echo "  order: pfsread first and fio first alternate over repetitions and rows"
	echo
}

# generation CLASS_INDEX: REPS rounds of generate and fio write, alternating which goes first.
generation() {
	local i=$1 name=${CLASS_NAMES[$1]} rep first p f
	for rep in $(seq 1 "$REPS"); do
		first=pfsread
		[ $(((rep + i) % 2)) -eq 0 ] && first=fio
		if [ "$first" = pfsread ]; then
			p=$(pfsread_generate "$i")
			f=$(fio_generate "$i" "$rep")
		else
			f=$(fio_generate "$i" "$rep")
			p=$(pfsread_generate "$i")
		fi
		record gen "$name" generate - "$rep" "$first" pfsread "$p" - -
		record gen "$name" generate - "$rep" "$first" fio "${f% *}" "${f#* }" -
		printf '  %-7s generate  rep %d: pfsread %9s MB/s  fio %9s MB/s\n' "$name" "$rep" "$p" "${f% *}"
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
			f=$(fio_run "device-$engine-$1" "${CLASS_SIZES[0]}" read "${FIO_ARGS[@]}")
			record ceiling - dev - "$1" - "$engine" "${f% *}" "${f#* }" -
			line="$line, device $engine ${f% *} MB/s"
		done
	fi
	echo "  ceilings: $line"
}

warm_up() {
	cat "$NAMES/${CLASS_NAMES[$1]}"/* >/dev/null
}

# reads CLASS_INDEX: every repetition x path x cache state, pfsread and fio side by side.
reads() {
	local i=$1 name=${CLASS_NAMES[$1]} rep path cache k=0 first p f
	for rep in $(seq 1 "$REPS"); do
		ceilings "$name-$rep"
		for path in "${PATHS[@]}"; do
			for cache in "${CACHES[@]}"; do
				k=$((k + 1))
				if [ "${AVAILABLE[$path]}" != yes ]; then
					[ "$rep" -eq 1 ] && record read "$name" "$path" "$cache" - - na - - "${AVAILABLE[$path]}"
					continue
				fi
				[ "$cache" = cold ] && [ "$IS_ROOT" -eq 0 ] && continue
				[ "$cache" = warm ] && warm_up "$i"
				first=pfsread
				[ $(((rep + k) % 2)) -eq 0 ] && first=fio
				if [ "$first" = pfsread ]; then
					p=$(pfsread_read "$i" "$path" "$cache" "$rep")
					f=$(fio_read "$i" "$path" "$cache" "$rep")
				else
					f=$(fio_read "$i" "$path" "$cache" "$rep")
					p=$(pfsread_read "$i" "$path" "$cache" "$rep")
				fi
				record read "$name" "$path" "$cache" "$rep" "$first" pfsread "${p% *}" - "resident=${p#* }"
				record read "$name" "$path" "$cache" "$rep" "$first" fio "${f% *}" "${f#* }" -
				printf '  %-7s %-6s %-4s rep %d (%-7s first): pfsread %9s MB/s  fio %9s MB/s\n' \
					"$name" "$path" "$cache" "$rep" "$first" "${p% *}" "${f% *}"
			done
		done
	done
}

# table: medians per row, ratio of the medians, fraction of the row's ceiling.
table() {
	"$PYTHON" - "$RAW" "$IS_ROOT" <<'PY'
import statistics as st, sys
raw, is_root = sys.argv[1], sys.argv[2] == "1"
rows, vals, notes, ceil = [], {}, {}, {"mem": [], "dev": []}
for line in open(raw):
    kind, cls, path, cache, rep, first, tool, mbps, wall, note = line.rstrip("\n").split("\t")
    if kind == "ceiling":
        ceil[path].append(float(mbps))
        continue
    key = (cls, path, cache)
    if key not in rows:
        rows.append(key)
    if tool == "na":
        notes[key] = note
        continue
    vals.setdefault(key, {}).setdefault(tool, []).append(float(mbps))
    if tool == "fio" and wall != "-":
        vals[key].setdefault("wall", []).append(float(wall))
    if note.startswith("resident="):
        vals[key].setdefault("resident", []).append(float(note[9:]))
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
      f"{'best ratio':>10} {'of ceiling':>10}  {'fio wall MB/s':>13}"
print(hdr)
print("-" * len(hdr))
odd, above = [], False
gens = [r for r in rows if r[1] == "generate"]
for key in [r for r in rows if r[1] != "generate"] + [None] + gens:
    if key is None:
        print("-" * len(hdr))
        continue
    cls, path, cache = key
    if key in notes:
        print(f"{cls:<7} {path:<8} {cache:<5} {'n/a':>12} {'n/a':>10} {'n/a':>6} {'n/a':>10}"
              f" {'n/a':>10}  {'n/a':>13}  ({notes[key]})")
        continue
    v = vals[key]
    p, f = st.median(v["pfsread"]), st.median(v["fio"])
    best = max(v["pfsread"]) / max(v["fio"])
    wall = f"{st.median(v['wall']):13.1f}" if "wall" in v else f"{'-':>13}"
    if path == "generate":
        frac = "-"
    else:
        top, tag = (dev, "dev") if (cache == "cold" or path == "direct") else (memcpy, "mem")
        frac = f"{p / top:.2f} {tag}" if top else "n/a"
        above = above or bool(top and p > top)
    print(f"{cls:<7} {path:<8} {cache:<5} {p:12.1f} {f:10.1f} {p / f:6.3f} {best:10.3f} {frac:>10}"
          f"  {wall}")
    res = v.get("resident")
    if res and ((cache == "cold" and max(res) > 0.05) or
                (cache == "warm" and path != "direct" and min(res) < 0.95)):
        odd.append(f"{cls} {path} {cache}: {max(res) if cache == 'cold' else min(res):.0%} of "
                   "pfsread's bytes were in the page cache when its phase began")
print()
print("MB/s = 10^6 B/s. pfsread: bytes / (last reader's end - first reader's start), from the "
      "results file;\nfio: jobs[0].<rw>.bw_bytes (bytes / fio's I/O time, whole milliseconds); "
      "fio wall: bytes / the\nwhole fio process (start-up, file set-up, exit). generate: the rate "
      "generate prints (bytes / its own\ntime, no MPI start-up) against fio --rw=write; neither "
      "fsyncs. ratio = pfsread / fio (medians); best ratio = pfsread's best / fio's best\n(the "
      "virtual disk's host caches it: a cold read runs at about 1 or about 2 GB/s by the host's "
      "luck,\nso medians of a few repetitions can land on either side; the bests are what each "
      "side can do).\nof ceiling = pfsread / mem (warm) or dev "
      "(cold, and O_DIRECT warm or cold).")
if above:
    print("A fraction above 1: pfsread beat the best ceiling measured; the ceiling figures are "
          "noisy\nhere (the virtual disk is cached by its host), so read those fractions as rough.")
if not is_root:
    print("Not root: cold rows (drop_caches) skipped.")
for o in odd:
    print("warning: " + o)
PY
}

# remove_data: what generate and the fio side made; DIR/work stays.
remove_data() {
	local i name
	rm -rf "$NAMES" "$FIOW"
	for i in "${!CLASS_NAMES[@]}"; do
		name=${CLASS_NAMES[i]}
		if [ -e "$DATA/$name/.pfsread-manifest" ]; then
			pfsread_mpi clean "$(config_path "$name" posix warm)" >/dev/null 2>&1 ||
				echo "bench.sh: could not remove $DATA/$name; remove it by hand" >&2
		fi
	done
	rmdir "$DATA" 2>/dev/null || true
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
			for cache in "${CACHES[@]}"; do write_config "$i" "$path" "$cache"; done
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
	print_commands
	if [ "$IS_ROOT" -eq 0 ]; then echo "Not root: no drop_caches, so cold rows are skipped."; fi
	trap remove_data EXIT

	for i in "${!CLASS_NAMES[@]}"; do
		echo "Class ${CLASS_NAMES[i]}: generation"
		generation "$i"
		make_fio_names "$i"
		echo "Class ${CLASS_NAMES[i]}: reads"
		reads "$i"
	done
	echo
	table
	echo
	echo "Raw measurements: $RAW; commands: $CMDLOG; logs, configs and results: $WORK"
}

main
