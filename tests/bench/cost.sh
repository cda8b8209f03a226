#!/bin/bash
# cost.sh [ROUNDS]: what pfsread's read loop costs in CPU per byte against fio's psync loop, on
# the same files, warm, 4 MiB transfers (a 2 MiB file: one 2 MiB read each), 1 and 2 readers:
# 2 x 1 GiB and 512 x 2 MiB on a tmpfs this script mounts (size and inode caps, unmounted on
# exit). Rounds of A B B A (ROUNDS, default 6; who goes first alternates). Root only (the mount).
# Printed per set and reader count, medians over the runs:
#   CPU s/GB  user + system seconds per 10^9 bytes of the timed reads: pfsread's ranks'
#             cpu_user_s + cpu_sys_s (getrusage over the reads), fio's usr_cpu + sys_cpu of
#             its jobs (getrusage over each job)
#   whole s   CPU seconds of the whole command (cpu_of.py: mpirun and the ranks for pfsread,
#             fio's process and its job threads), start-up and exit included
# The table is also written as a markdown block to COST_MD (default
# /var/tmp/pfsread-bench/cost.md), which `make bench-doc` puts into docs/performance.md.
# A benchmark, not a test: it passes or fails nothing.
set -Eeu -o pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
PFSREAD=${PFSREAD:-$TOP/build/pfsread}
PYTHON=${PYTHON:-/usr/bin/python3}
MPIRUN=${MPIRUN:-mpirun}
ROUNDS=${1:-6}
COST_MD=${COST_MD:-/var/tmp/pfsread-bench/cost.md}
[ "$(id -u)" -eq 0 ] || { echo "cost.sh: needs root (it mounts a capped tmpfs)" >&2; exit 2; }
command -v fio >/dev/null || { echo "cost.sh: fio not found (Debian: fio)" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pfsread-cost.XXXXXX")
MNT=$WORK/mnt
cleanup() { umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$MNT" "$WORK/res"
mount -t tmpfs -o size=3500m,nr_inodes=2000 tmpfs "$MNT"
MPI=("$MPIRUN" --oversubscribe)
[ "$(id -u)" -eq 0 ] && MPI+=(--allow-run-as-root)

# config SET READERS: the one phase's config.
config() {
	local line
	case "$1" in
	1GiB) line="{name: 1GiB, file_size: 1GiB, file_count: 2}" ;;
	2MiB) line="{name: 2MiB, file_size: 2MiB, file_count: 512}" ;;
	esac
	printf 'name: cost\nroot: %s\ndatasets: [%s]\nsweep: {readers_per_node: [%s]}\ncache: none\n' \
		"$MNT/data" "$line" "$2" >"$WORK/$1-$2.yaml"
	echo "$WORK/$1-$2.yaml"
}

# names SET: the set's files under short names (hard links, pfsread's order) for fio's
# --filename, which takes 4096 characters at most.
names() {
	local n=0 f
	mkdir -p "$MNT/n/$1"
	for f in $(find "$MNT/data/$1" -name 'f*' -type f | sort); do
		ln "$f" "$MNT/n/$1/$n"
		n=$((n + 1))
	done
}

# pf SET READERS: "cpu_s_per_GB whole_s" of one pfsread run of one phase.
pf() {
	local h5=$WORK/res/$1-$2.h5
	rm -f "$h5"
	"$PYTHON" "$TOP/tests/bench/cpu_of.py" "$WORK/cpu" "${MPI[@]}" -np "$2" "$PFSREAD" run \
		"$(config "$1" "$2")" -o "$h5" >/dev/null 2>&1
	"$PYTHON" - "$h5" "$WORK/cpu" <<'PY'
import sys, h5py
p = h5py.File(sys.argv[1], "r")["phases/0000"]
r = p["ranks"][()]
r = r[r["active"] == 1]
gb = int(p.attrs["bytes"]) / 1e9
print(f"{float((r['cpu_user_s'] + r['cpu_sys_s']).sum()) / gb:.4f} "
      f"{sum(float(x) for x in open(sys.argv[2]).read().split()):.3f}")
PY
}

# fo SET JOBS: "cpu_s_per_GB whole_s" of one fio run, each job reading its block of the files.
fo() {
	local files bs args=() per j list
	mapfile -t files < <(ls "$MNT/n/$1" | sort -n)
	bs=$([ "$1" = 2MiB ] && echo 2M || echo 4M)
	per=$((${#files[@]} / $2))
	for ((j = 0; j < $2; j++)); do
		list=$(printf '%s:' "${files[@]:j*per:per}")
		args+=(--name="r$j" --filename="${list%:}")
	done
	(cd "$MNT/n/$1" && "$PYTHON" "$TOP/tests/bench/cpu_of.py" "$WORK/cpu" fio --rw=read --bs="$bs" \
		--ioengine=psync --invalidate=0 --iomem_align=2097152 --openfiles=1 \
		--file_service_type=sequential --output-format=json "${args[@]}" >"$WORK/fio.json")
	"$PYTHON" - "$WORK/fio.json" "$WORK/cpu" <<'PY'
import json, sys
js = json.load(open(sys.argv[1]))["jobs"]
gb = sum(j["read"]["io_bytes"] for j in js) / 1e9
cpu = sum((j["usr_cpu"] + j["sys_cpu"]) / 100 * j["job_runtime"] / 1000 for j in js)
print(f"{cpu / gb:.4f} {sum(float(x) for x in open(sys.argv[2]).read().split()):.3f}")
PY
}

for set in 1GiB 2MiB; do
	"${MPI[@]}" -np 2 "$PFSREAD" generate "$(config "$set" 1)" >/dev/null
	names "$set"
done
for r in $(seq 1 "$ROUNDS"); do
	for set in 1GiB 2MiB; do
		for n in 1 2; do
			order=(pf fo fo pf)
			[ $((r % 2)) -eq 0 ] && order=(fo pf pf fo)
			for t in "${order[@]}"; do
				echo "$t $set $n $("$t" "$set" "$n")" >>"$WORK/cost.tsv"
			done
		done
	done
done
"$PYTHON" - "$WORK/cost.tsv" <<'PY' | tee "$WORK/cost.txt"
import collections, statistics as st, sys
v = collections.defaultdict(list)
for line in open(sys.argv[1]):
    t, s, n, cpu, whole = line.split()
    v[(s, n, t)].append((float(cpu), float(whole)))
print(f"{'set':<5} {'readers':>7} {'pfsread CPU s/GB':>17} {'fio CPU s/GB':>13} {'ratio':>6} "
      f"{'pfsread whole s':>15} {'fio whole s':>11}")
for s in ("1GiB", "2MiB"):
    for n in ("1", "2"):
        p, f = v[(s, n, "pf")], v[(s, n, "fo")]
        pc, fc = st.median(x[0] for x in p), st.median(x[0] for x in f)
        print(f"{s:<5} {n:>7} {pc:17.4f} {fc:13.4f} {pc / fc:6.3f} "
              f"{st.median(x[1] for x in p):15.3f} {st.median(x[1] for x in f):11.3f}")
print(f"medians of {len(v[('1GiB', '1', 'pf')])} runs each; ratio = pfsread / fio")
PY
mkdir -p "$(dirname "$COST_MD")"
"$TOP/tests/bench/md_block.sh" "tests/bench/cost.sh $ROUNDS" <"$WORK/cost.txt" >"$COST_MD"
echo "The table as markdown: $COST_MD (make bench-doc puts it into docs/performance.md)"
