#!/bin/sh
# cephfs: the box with CephFS (1 mon, 1 mgr, 2 BlueStore OSDs, 1 mds, ceph-fuse on every node):
# it comes up, the file system is at /box/fs on both nodes, a file's objects are spread over
# both OSDs, pfsread's cold aggregate on 2 nodes is at the nodes' links (within 10%), and the
# box tears down to nothing. Skipped where Ceph's packages are not installed (they are large:
# `apt-get install ceph-mon ceph-mgr ceph-osd ceph-mds ceph-fuse ceph-common`, or BOX_CEPH=1).
. "$(dirname "$0")/boxlib.sh"

CEPH_PACKAGES="ceph-mon ceph-mgr ceph-osd ceph-mds ceph-fuse ceph-common"
if [ "${BOX_CEPH:-0}" = 1 ] && [ "$(id -u)" -eq 0 ]; then
	# shellcheck disable=SC2086
	"$TOP/tests/install-deps.sh" $CEPH_PACKAGES >"$SCRATCH/apt-ceph.log" 2>&1 ||
		skip_all "cannot install Ceph: $(tail -n 1 "$SCRATCH/apt-ceph.log")"
fi
command -v ceph-fuse >/dev/null 2>&1 && command -v ceph-osd >/dev/null 2>&1 ||
	skip_all "Ceph is not installed (apt-get install $CEPH_PACKAGES, or BOX_CEPH=1)"
box_require

if ! box_up --nodes 2 --link-mbit "$BOX_LINK" --fs cephfs --bricks 2; then
	fail "a box of 2 nodes on CephFS (2 OSDs) comes up"
	done_testing
fi
pass "a box of 2 nodes on CephFS (2 OSDs) comes up"
expect_status 0 "CephFS is mounted at /box/fs on n2" "$BOX" exec n2 -- findmnt -n -o FSTYPE /box/fs
contains "ceph" "... by ceph-fuse ($OUT)"

G=$("$BOX" iperf n1 3)
GM=$(mbps "$G")
figure "link goodput (iperf3 server -> n1)" "$G Mbit/s"
DS="{name: c, file_size: 16MiB, file_count: 16}"
box_config "$SCRATCH/c.yaml" c /box/fs/ceph "$DS" "sweep: {readers_per_node: [1]}" \
	"repetitions: 1" "cache: fadvise" "hardware: {node_link_MBps: $GM, storage_servers: 1}"
check "generate on 2 nodes" bmpi n1,n2 1 "$PFSREAD" generate "$SCRATCH/c.yaml"
expect_status 0 "ceph osd stat" "$BOX" exec server -- ceph -c /box/srv/ceph/ceph.conf osd stat
figure "OSDs" "$OUT"
contains "2 up" "2 OSDs up"
# CRUSH places a file's objects by hash: the data set must have landed on both OSDs
# the OSDs report their usage every few seconds: ask until both have the data, up to 30 s
spread() {
	"$BOX" exec server -- ceph -c /box/srv/ceph/ceph.conf osd df -f json >"$SCRATCH/osd-df.json" &&
		"$PYTHON" -c '
import json, sys
nodes = json.load(open(sys.argv[1]))["nodes"]
used = {n["name"]: n["kb_used_data"] for n in nodes}
print(used)
assert len(used) >= 2 and all(v > 16 * 1024 for v in used.values()), used
' "$SCRATCH/osd-df.json"
}
i=0
until spread >/dev/null 2>&1 || [ $i -ge 30 ]; do
	i=$((i + 1))
	sleep 1
done
check "the data set is spread over both OSDs" spread
figure "data per OSD (KiB)" "$(spread 2>/dev/null)"
"$BOX" cold ceph
check "run on 2 nodes" bmpi n1,n2 1 "$PFSREAD" run "$SCRATCH/c.yaml"
b=$(rep_json "$SCRATCH/c.h5" "d['cells'][0]['mean_MBps']")
figure "CephFS, 2 nodes: pfsread aggregate" "$b MB/s (2 links: $(awk -v g="$GM" 'BEGIN { print 2 * g }') MB/s)"
within "$b" "$(awk -v g="$GM" 'BEGIN { print 2 * g }')" 0.10
ok_status $? "CephFS, 2 nodes: the cold aggregate is at the nodes' links (within 10%)"
box_down_clean "the CephFS box tears down to nothing"
done_testing
