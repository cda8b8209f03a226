#!/bin/bash
# cold_loop.sh [ROUNDS]: cold reads pfsread and fio can repeat without touching the machine's
# page cache for anyone else: an ext4 image on a tmpfs this script mounts (1200 MiB, 20,000
# inodes), mounted through a loop device whose read-ahead is set to COLD_RA_KB (default 8192,
# the development VM's virtual disk's); 128 x 2 MiB and 8 x 64 MiB made by pfsread generate.
# Before every run only these files leave the page cache (fdatasync + POSIX_FADV_DONTNEED).
# One reader, the transfer 2 MiB (2 MiB files) or 4 MiB; each round reads every set with every
# path in turn: pfsread mmap (advice sequential, as bench.sh), the same with huge_pages: true,
# fio's mmap engine without and with --thp=1, pfsread posix and fio psync (fio as bench.sh:
# one file open at a time, in pfsread's order). Printed per set and path, medians of ROUNDS
# (default 5): CPU s/GB (pfsread: its rank's cpu_user_s + cpu_sys_s over the timed reads; fio:
# usr_cpu + sys_cpu of its job), MB/s, the loop device's read requests and their mean size, and
# (with perf) the reading process's minor and major faults, start-up included.
# Root only (the mounts). A benchmark, not a test: it passes or fails nothing.
set -Eeu -o pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
PFSREAD=${PFSREAD:-$TOP/build/pfsread}
PYTHON=${PYTHON:-/usr/bin/python3}
MPIRUN=${MPIRUN:-mpirun}
ROUNDS=${1:-5}
RA_KB=${COLD_RA_KB:-8192}
[ "$(id -u)" -eq 0 ] || { echo "cold_loop.sh: needs root (it mounts a tmpfs and a loop device)" >&2; exit 2; }
command -v fio >/dev/null || { echo "cold_loop.sh: fio not found (Debian: fio)" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pfsread-cold.XXXXXX")
RA0=
T=$WORK/t M=$WORK/m
# the ext4 mount, the loop device on the image (found by its backing file), the tmpfs
cleanup() {
	local d
	mountpoint -q "$M" && { timeout 60 umount "$M" || umount -l "$M"; }
	# a loop device keeps its read-ahead after losetup -d: give back what it had
	for d in $(losetup -j "$T/img" 2>/dev/null | cut -d: -f1); do
		[ -z "$RA0" ] || echo "$RA0" >"/sys/block/$(basename "$d")/queue/read_ahead_kb"
		losetup -d "$d"
	done
	mountpoint -q "$T" && { timeout 60 umount "$T" || umount -l "$T"; }
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$T" "$M" "$WORK/res"
timeout 30 mount -t tmpfs -o size=1200m,nr_inodes=20000 tmpfs "$T"
truncate -s 1000m "$T/img"
timeout 120 mkfs.ext4 -q "$T/img"
timeout 30 mount -o loop "$T/img" "$M"
DEV=$(basename "$(losetup -j "$T/img" | cut -d: -f1)")
RA0=$(cat "/sys/block/$DEV/queue/read_ahead_kb")
echo "$RA_KB" >"/sys/block/$DEV/queue/read_ahead_kb"
MPI=("$MPIRUN" --oversubscribe --bind-to core)
[ "$(id -u)" -eq 0 ] && MPI+=(--allow-run-as-root)
PERF=()
perf stat -e minor-faults true >/dev/null 2>&1 &&
	PERF=(perf stat -x ';' -o "$WORK/res/perf" -e minor-faults -e major-faults)

# config SET PATH: the one phase's config (PATH: posix, mmap or mmaphuge).
config() {
	local n=128 t=2MiB mm="{advice: sequential}" be=$2
	[ "$1" = 64 ] && n=8 t=4MiB
	[ "$2" = mmaphuge ] && mm="{advice: sequential, huge_pages: true}" be=mmap
	printf 'name: cold-%s-%s\nroot: %s\nlayout: {files_per_dir: 1000}\ndatasets: [{name: s%s, file_size: %sMiB, file_count: %d}]\nsweep: {readers_per_node: [1], backend: [%s], transfer_size: [%s], order: [sorted]}\ncache: fadvise\nmmap: %s\n' \
		"$1" "$2" "$M/data" "$1" "$1" "$n" "$be" "$t" "$mm" >"$WORK/$1-$2.yaml"
	echo "$WORK/$1-$2.yaml"
}

# evict SET: the set's files out of the page cache, nothing else.
evict() {
	"$PYTHON" - "$M/data/s$1" <<'PY'
import os, sys
for d, _, files in os.walk(sys.argv[1]):
    for f in files:
        fd = os.open(os.path.join(d, f), os.O_RDONLY)
        os.fdatasync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
PY
}

# faults: "minor major" of the last run under perf, or "- -".
faults() {
	[ ${#PERF[@]} -gt 0 ] || { echo "- -"; return; }
	awk -F';' '/minor-faults/ { m = $1 } /major-faults/ { M = $1 } END { print m, M }' "$WORK/res/perf"
}

# one TOOL SET PATH: one cold read; prints "tool set path cpu_s_per_GB MBps ios avg_KiB minflt majflt".
one() {
	local tool=$1 s=$2 p=$3 r0 s0 r1 s1 fig n eng
	n=$([ "$s" = 2 ] && echo 128 || echo 8)
	evict "$s"
	read -r r0 _ s0 _ <"/sys/block/$DEV/stat"
	if [ "$tool" = pfsread ]; then
		timeout 300 "${MPI[@]}" -np 1 "${PERF[@]}" "$PFSREAD" run "$(config "$s" "$p")" \
			-o "$WORK/res/x.h5" --force >"$WORK/res/log" 2>&1
		fig=$("$PYTHON" - "$WORK/res/x.h5" <<'PY'
import sys, h5py
p = h5py.File(sys.argv[1], "r")["phases/0000"]
r = p["ranks"][()]
print(f"{float((r['cpu_user_s'] + r['cpu_sys_s']).sum()) / (int(p.attrs['bytes']) / 1e9):.4f} "
      f"{p.attrs['bandwidth_MBps']:.1f}")
PY
)
	else
		eng=(--ioengine=psync)
		[ "$p" = mmap ] && eng=(--ioengine=mmap)
		[ "$p" = mmaphuge ] && eng=(--ioengine=mmap --thp=1)
		timeout 300 taskset -c 0 "${PERF[@]}" fio --name=read --directory="$M/n/s$s" \
			--filename="$(seq -s: 0 $((n - 1)))" --rw=read --bs="$([ "$s" = 2 ] && echo 2M || echo 4M)" \
			"${eng[@]}" --invalidate=0 --iomem_align=2097152 --openfiles=1 \
			--file_service_type=sequential --output-format=json --output="$WORK/res/fio.json" \
			>"$WORK/res/log" 2>&1
		fig=$("$PYTHON" - "$WORK/res/fio.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
gb = j["read"]["io_bytes"] / 1e9
print(f"{(j['usr_cpu'] + j['sys_cpu']) / 100 * j['job_runtime'] / 1000 / gb:.4f} "
      f"{j['read']['bw_bytes'] / 1e6:.1f}")
PY
)
	fi
	read -r r1 _ s1 _ <"/sys/block/$DEV/stat"
	echo "$tool $s $p $fig $((r1 - r0)) $(((s1 - s0) / 2 / (r1 - r0 > 0 ? r1 - r0 : 1))) $(faults)"
}

for s in 2 64; do
	timeout 300 "${MPI[@]}" -np 1 "$PFSREAD" generate "$(config "$s" posix)" >"$WORK/res/log" 2>&1
	mkdir -p "$M/n/s$s"
	i=0
	for f in $(find "$M/data/s$s" -name 'f*' -type f | sort); do
		ln "$f" "$M/n/s$s/$i"
		i=$((i + 1))
	done
done
sync
for r in $(seq 1 "$ROUNDS"); do
	for s in 2 64; do
		for p in mmap mmaphuge posix; do
			# who goes first alternates by round
			if [ $((r % 2)) -eq 1 ]; then one pfsread "$s" "$p"; one fio "$s" "$p"; else one fio "$s" "$p"; one pfsread "$s" "$p"; fi
		done
	done
done >"$WORK/res/raw"
"$PYTHON" - "$WORK/res/raw" "$ROUNDS" "$RA_KB" <<'PY'
import collections, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    rows[(int(f[1]), f[2], f[0])].append(f[3:])
def med(v, i, fmt):
    x = [float(r[i]) for r in v if r[i] != "-"]
    return fmt % statistics.median(x) if x else "-"
print(f"cold, loop ext4 on tmpfs (read_ahead_kb {sys.argv[3]}), 1 reader, medians of {sys.argv[2]} rounds")
print(f"{'set':>6} {'path':9} {'tool':8} {'CPU s/GB':>9} {'MB/s':>7} {'dev reads':>9} {'KiB/read':>8} {'minflt':>7} {'majflt':>6}")
for k in sorted(rows, key=lambda k: (k[0], k[1], k[2] != "pfsread")):
    v = rows[k]
    print(f"{str(k[0]) + 'MiB':>6} {k[1]:9} {k[2]:8} {med(v, 0, '%.3f'):>9} {med(v, 1, '%.0f'):>7} "
          f"{med(v, 2, '%.0f'):>9} {med(v, 3, '%.0f'):>8} {med(v, 4, '%.0f'):>7} {med(v, 5, '%.0f'):>6}")
print("mmap: pfsread {advice: sequential} / fio --ioengine=mmap; mmaphuge: pfsread huge_pages: true / "
      "fio --thp=1; posix: pfsread posix / fio psync; minflt, majflt: the reading process's, start-up included")
PY
