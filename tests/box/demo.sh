#!/bin/sh
# demo.sh [OUTDIR]: the seeds' comparison in miniature, in a cluster in a box (make box-demo).
# 3 nodes on 400 Mbit/s links, data sets of 64 MiB and 2 MiB files, 1, 2 and 4 readers per node,
# GlusterFS against MooseFS (and CephFS when its packages are installed), one box per file
# system; then one comparison report: markdown on stdout and in OUTDIR/box-demo.md, a page
# OUTDIR/box-demo.html, charts in OUTDIR/plots. Default OUTDIR: results/box-demo.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BOX=$TOP/tests/box/box.sh
PFSREAD=${PFSREAD:-$TOP/build/pfsread}
OUT=${1:-$TOP/results/box-demo}
LINK=${BOX_LINK:-400}
FSES=${BOX_DEMO_FS:-glusterfs moosefs}
if command -v ceph-fuse >/dev/null 2>&1 && command -v ceph-mon >/dev/null 2>&1; then
	FSES="$FSES cephfs"
else
	echo "demo: CephFS left out (apt-get install ceph-mon ceph-mgr ceph-osd ceph-mds ceph-fuse ceph-common)"
fi
# room for the 960 MiB of data on every server's image
export BOX_IMG_MB=${BOX_IMG_MB:-2048} BOX_TMPFS_MB=${BOX_TMPFS_MB:-4096}

[ "$(id -u)" -eq 0 ] || { echo "demo: needs root" >&2; exit 1; }
[ -x "$PFSREAD" ] || { echo "demo: no $PFSREAD (make first)" >&2; exit 1; }
mkdir -p "$OUT/plots" || exit 1
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pfsread-box-demo.XXXXXX") || exit 1
UP=0
cleanup() {
	[ "$UP" = 1 ] && "$BOX" down >/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }'; }

# mpirun in the box, in the background so that a signal reaches the trap at once
bmpi() {
	timeout 900 "$BOX" mpirun --map-by ppr:4:node "$@" &
	wait $!
}

config() {  # config FS LINK_MBps
	cat <<EOF
name: box-$1
root: /box/fs/demo
results: $WORK/box-$1.h5
datasets:
  - {name: 64MiB, file_size: 64MiB, file_count: 12}
  - {name: 2MiB, file_size: 2MiB, file_count: 96}
sweep:
  readers_per_node: [1, 2, 4]
repetitions: 2
cache: fadvise
hardware: {node_link_MBps: $2, storage_servers: 1}
EOF
}

start=$(now)
runs=""
for fs in $FSES; do
	s=$(now)
	echo "== $fs"
	"$BOX" up --nodes 3 --link-mbit "$LINK" --fs "$fs" || exit 1
	UP=1
	g=$("$BOX" iperf n1 3) || exit 1
	echo "link goodput $g Mbit/s"
	config "$fs" "$(awk -v g="$g" 'BEGIN { printf "%.1f", g / 8 }')" >"$WORK/$fs.yaml"
	bmpi "$PFSREAD" generate "$WORK/$fs.yaml" >"$WORK/$fs.gen" 2>&1 ||
		{ tail "$WORK/$fs.gen"; exit 1; }
	bmpi "$PFSREAD" run "$WORK/$fs.yaml" >"$WORK/$fs.run" 2>&1 ||
		{ tail -n 30 "$WORK/$fs.run"; exit 1; }
	grep '^\[' "$WORK/$fs.run"
	"$BOX" down || exit 1
	UP=0
	cp "$WORK/box-$fs.h5" "$OUT/" || exit 1
	runs="$runs $OUT/box-$fs.h5"
	echo "$fs: $(since "$s") s"
done
# shellcheck disable=SC2086
"$PFSREAD" report $runs --format markdown >"$OUT/box-demo.md" &&
	"$PFSREAD" report $runs --html "$OUT/box-demo.html" --plot "$OUT/plots" >/dev/null || exit 1
cat "$OUT/box-demo.md"
echo
echo "box demo: $(since "$start") s; report $OUT/box-demo.md, page $OUT/box-demo.html, charts $OUT/plots"
