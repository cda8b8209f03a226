#!/bin/sh
# targets_overhead: what the storage target lookups add to the wall time of a whole
# run of 10^4 small files, against a pfsread built without them (BASE), interleaved rounds,
# median of ROUNDS. On an ext4 of its own (a loop image on a capped tmpfs: the lookups take
# the block-device path), 2 ranks, one phase (every file looked up once: the worst case; later
# phases on the same data set reuse the answers).
#   tests/bench/targets_overhead.sh NEW_PFSREAD BASE_PFSREAD [ROUNDS]
# Root (mounts). Prints each round and the medians. The machine is shared: say so with the figure.
set -eu
NEW=$1
BASE=$2
ROUNDS=${3:-3}
D=$(mktemp -d /tmp/pfsread-targets-bench.XXXXXX)
cleanup() {
	umount "$D/disk" 2>/dev/null || true
	umount "$D/m" 2>/dev/null || true
	rm -rf "$D"
}
trap cleanup EXIT INT TERM
mkdir -p "$D/m" "$D/disk"
mount -t tmpfs -o size=200m,nr_inodes=100 tmpfs "$D/m"
truncate -s 160m "$D/m/ext4.img"
mkfs.ext4 -q -F -m 0 -N 20000 "$D/m/ext4.img"
mount -o loop "$D/m/ext4.img" "$D/disk"
cat >"$D/p.yaml" <<YAML
root: $D/disk/data
datasets: [{name: s, file_size: 4KiB, file_count: 10000}]
sweep: {backend: [posix], transfer_size: [4KiB]}
repetitions: 1
cache: none
YAML
MPI="timeout 600 mpirun --oversubscribe --allow-run-as-root --mca btl self,vader,tcp -np 2"
$MPI "$NEW" generate "$D/p.yaml" >/dev/null
one() { # BINARY -> "WALL CPU": seconds of wall time and of CPU time (user + system, every
	# process of the run: mpirun, ranks, lookup helpers) of the whole run
	/usr/bin/python3 - "$@" <<'PY'
import resource, subprocess, sys, time, os
cmd = os.environ["MPI"].split() + [sys.argv[1], "run", os.environ["CFG"], "-o", os.environ["OUT"], "--force"]
t = time.monotonic()
subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.3f %.3f" % (time.monotonic() - t, r.ru_utime + r.ru_stime))
PY
}
export MPI CFG="$D/p.yaml" OUT="$D/r.h5"
one "$NEW" >/dev/null # warm the page cache and the binaries
: >"$D/new"
: >"$D/base"
i=1
while [ "$i" -le "$ROUNDS" ]; do
	b=$(one "$BASE")
	n=$(one "$NEW")
	echo "round $i: without: wall $(echo "$b" | cut -d' ' -f1) s, cpu $(echo "$b" | cut -d' ' -f2) s;" \
		"with: wall $(echo "$n" | cut -d' ' -f1) s, cpu $(echo "$n" | cut -d' ' -f2) s"
	echo "$b" >>"$D/base"
	echo "$n" >>"$D/new"
	i=$((i + 1))
done
med() { cut -d' ' -f"$2" "$1" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for k in 1 2; do
	mb=$(med "$D/base" $k)
	mn=$(med "$D/new" $k)
	awk -v b="$mb" -v n="$mn" -v w="$([ $k = 1 ] && echo wall || echo cpu)" 'BEGIN {
		printf "median %s time: without %.3f s, with %.3f s: %+.3f s (%+.1f%%)\n", w, b, n, n - b, 100 * (n - b) / b }'
done
