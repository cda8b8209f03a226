#!/bin/sh
# targets: the report blames a slow storage target, not a node. One GlusterFS box of 2 nodes
# (BOX_LINK Mbit/s links) on a volume of 2 bricks (distribute), brick 2's disk capped at 25 MiB/s
# (cgroup v1 blkio on the server), bricks cold: every file row names the brick GlusterFS says
# holds it (trusted.glusterfs.pathinfo), both bricks hold files, and the report's verdict is
# "brick 2 is slow from every node" with no node slow on every target. Then the same without
# the cap: neither a node nor a target is blamed.
. "$(dirname "$0")/boxlib.sh"

box_require
[ -d /sys/fs/cgroup/blkio ] || skip_all "no cgroup v1 blkio to cap a brick's disk"
if ! box_up --nodes 2 --link-mbit "$BOX_LINK" --fs glusterfs --bricks 2; then
	fail "a box of 2 nodes on GlusterFS with 2 bricks comes up"
	done_testing
fi
pass "a box of 2 nodes on GlusterFS with 2 bricks comes up"

DS="{name: t, file_size: 2MiB, file_count: 32}"
box_config "$SCRATCH/t.yaml" t /box/fs/targets "$DS" "sweep: {readers_per_node: [1]}" \
	"repetitions: 1" "cache: fadvise"
check "generate 32 files of 2 MiB on 2 nodes" bmpi n1,n2 1 "$PFSREAD" generate "$SCRATCH/t.yaml"

# run NAME: a cold run of the data set (bricks out of every cache in the box)
run() {
	"$BOX" cold targets
	check "$1: run on 2 nodes" bmpi n1,n2 1 "$PFSREAD" run "$SCRATCH/t.yaml" -o "$SCRATCH/$1.h5"
}

check "brick 2's disk capped at 25 MiB/s" "$BOX" diskcap 25 2
run capped
"$BOX" diskcap off
run even

check "every row names one of the two bricks, and both hold files" "$PYTHON" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
p = f["phases/0000"]
names = [t.decode() for t in p["targets"][:]]
got = [names[t] for t in p["files"]["target"]]
bricks = sorted(set(got))
print("# targets: %s" % ", ".join("%s (%d files)" % (b, got.count(b)) for b in bricks))
assert len(bricks) == 2, bricks
assert any("/srv/brick1/" in b for b in bricks) and any("/srv/brick2/" in b for b in bricks), bricks
' "$SCRATCH/capped.h5"

verdict() { rep_json "$SCRATCH/$1.h5" "d['attribution']['$2']"; }
v=$(verdict capped verdict)
echo "# capped: $v"
st=$(verdict capped slow_targets)
sn=$(verdict capped slow_nodes)
case "$st" in "['"*"/srv/brick2/"*"']") pass "capped: brick 2 is slow from every node" ;;
*) fail "capped: brick 2 is slow from every node (slow targets: $st)" ;; esac
[ "$sn" = "[]" ]
ok_status $? "capped: no node is blamed (slow nodes: $sn)"
"$PFSREAD" report "$SCRATCH/capped.h5" >"$SCRATCH/capped.txt" 2>&1
grep -q "brick2/b (.*x the other targets) is slow from every node" "$SCRATCH/capped.txt"
ok_status $? "capped: the text report says so"

v=$(verdict even verdict)
echo "# not capped: $v"
[ "$(verdict even slow_targets)" = "[]" ] && [ "$(verdict even slow_nodes)" = "[]" ]
ok_status $? "not capped: neither a node nor a target is blamed"

box_down_clean "the box tears down to nothing"
done_testing
