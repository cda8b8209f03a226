# shellcheck shell=bash
# fs_cephfs.sh: CephFS in the box, sourced by box.sh: a mon, a mgr, --bricks BlueStore OSDs on
# sparse files and an mds on the server, ceph-fuse at /box/fs on every node.
BOX_FS_LIST="$BOX_FS_LIST cephfs"
BOX_FS_DAEMONS="$BOX_FS_DAEMONS ceph-fuse"
# ceph-fuse's object cache keeps "cold" re-reads in user space: off, so the page cache is the only one
CEPH_FUSE_OPTS=${BOX_CEPH_FUSE_OPTS:---client_oc=false}

CEPH_CONF=$B/srv/ceph/ceph.conf
ceph_cli() { ton srv ceph -c "$CEPH_CONF" "$@"; }

# ceph_start NAME DAEMON ARGS...: a daemon in the foreground of a background process in box-srv
ceph_start() {
	local name=$1
	shift
	nsenter --net=/run/netns/box-srv "$@" -f -c "$CEPH_CONF" </dev/null >>"$B/log/$name.out" 2>&1 &
	record_pid $!
}

ceph_conf() {
	local c=$B/srv/ceph
	cat >"$CEPH_CONF" <<EOF
[global]
fsid = $1
mon initial members = a
mon host = [v2:$SRV_IP:3300,v1:$SRV_IP:6789]
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
auth allow insecure global id reclaim = false
keyring = $c/admin.keyring
run dir = $c/run
log file = $B/log/ceph-\$name.log
mon cluster log file = $B/log/ceph.log
crash dir = $c/crash
ms bind ipv4 = true
ms bind ipv6 = false
ms bind port min = 6900
ms bind port max = 7100
osd pool default size = 1
osd pool default min size = 1
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon warn on pool no redundancy = false
mgr initial modules = iostat
[client]
admin socket = $c/run/\$cluster-\$name.\$pid.asok
[mon]
public addr = $SRV_IP
mon data = $c/mon/\$cluster-\$id
[mgr]
public addr = $SRV_IP
mgr data = $c/mgr/\$cluster-\$id
keyring = $c/mgr/\$cluster-\$id/keyring
[osd]
public addr = $SRV_IP
cluster addr = $SRV_IP
osd data = $c/osd/\$cluster-\$id
keyring = $c/osd/\$cluster-\$id/keyring
osd objectstore = bluestore
bluestore block create = true
bluestore block size = $((IMG_MB * 1048576))
# 896 MiB is the floor: lower values are silently ignored and the 4 GiB default applies
osd memory target = 939524096
[mds]
public addr = $SRV_IP
mds data = $c/mds/\$cluster-\$id
keyring = $c/mds/\$cluster-\$id/keyring
mds cache memory limit = 134217728
EOF
}

fs_cephfs_up() {
	local c=$B/srv/ceph fsid i id u n pgs
	mkdir -p "$c/run" "$c/crash" "$c/mon/ceph-a" "$c/mgr/ceph-x" "$c/mds/ceph-a" "$B/log"
	fsid=$(cat /proc/sys/kernel/random/uuid)
	ceph_conf "$fsid"
	t ceph-authtool --create-keyring "$c/mon.keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null &&
		t ceph-authtool --create-keyring "$c/admin.keyring" --gen-key -n client.admin \
			--cap mon 'allow *' --cap osd 'allow *' --cap mds 'allow *' --cap mgr 'allow *' >/dev/null &&
		t ceph-authtool "$c/mon.keyring" --import-keyring "$c/admin.keyring" >/dev/null &&
		t monmaptool --create --addv a "[v2:$SRV_IP:3300,v1:$SRV_IP:6789]" --fsid "$fsid" \
			"$c/monmap" >/dev/null &&
		t ceph-mon -c "$CEPH_CONF" --mkfs -i a --monmap "$c/monmap" --keyring "$c/mon.keyring" ||
		return 1
	ceph_start mon.a ceph-mon -i a
	for i in $(seq 60); do ceph_cli --connect-timeout 5 mon stat >/dev/null 2>&1 && break; sleep 0.5; done
	ceph_cli auth get-or-create mgr.x mon 'allow profile mgr' osd 'allow *' mds 'allow *' \
		-o "$c/mgr/ceph-x/keyring" || return 1
	ceph_start mgr.x ceph-mgr -i x
	for i in $(seq "$(state bricks)"); do
		u=$(cat /proc/sys/kernel/random/uuid)
		id=$(ceph_cli osd new "$u") || return 1
		mkdir -p "$c/osd/ceph-$id"
		ceph_cli auth get-or-create "osd.$id" mon 'allow profile osd' mgr 'allow profile osd' \
			osd 'allow *' -o "$c/osd/ceph-$id/keyring" || return 1
		# BlueStore on a sparse file in the tmpfs (no LVM, no ceph-volume)
		T=120 ton srv ceph-osd -c "$CEPH_CONF" -i "$id" --mkfs --osd-uuid "$u" \
			>>"$B/log/osd.$id.mkfs" 2>&1 || return 1
		ceph_start "osd.$id" ceph-osd -i "$id"
	done
	ceph_cli osd pool create cephfs_metadata 8 >/dev/null 2>&1 &&
		ceph_cli osd pool create cephfs_data 32 >/dev/null 2>&1 &&
		ceph_cli fs new cephfs cephfs_metadata cephfs_data >/dev/null 2>&1 &&
		ceph_cli auth get-or-create mds.a mon 'allow profile mds' osd 'allow rwx' mds 'allow' \
			mgr 'allow profile mds' -o "$c/mds/ceph-a/keyring" || return 1
	ceph_start mds.a ceph-mds -i a
	pgs=0
	for i in $(seq 240); do
		# every placement group active+clean ("41 pgs: 41 active+clean; ...")
		ceph_cli mds stat 2>/dev/null | grep -q 'up:active' &&
			ceph_cli pg stat 2>/dev/null | awk '$1 == $3 && $4 ~ /^active\+clean/ { ok = 1 } END { exit !ok }' &&
			pgs=1 && break
		sleep 0.5
	done
	[ "$pgs" = 1 ] || { say "ceph: not active+clean in 120 s"; return 1; }
	for n in $(nodes); do
		# (nsenter itself in the background, not a function: $! is then the client's pid)
		nsenter --net="/run/netns/box-$n" --mount="$B/ns/$n.mnt" \
			ceph-fuse -f -c "$CEPH_CONF" -n client.admin -m "$SRV_IP:6789" \
			$CEPH_FUSE_OPTS "$B/fs" </dev/null >>"$B/log/ceph-fuse-$n.out" 2>&1 &
		record_pid $!
		for i in $(seq 100); do on "$n" mountpoint -q "$B/fs" && break; sleep 0.2; done
		on "$n" mountpoint -q "$B/fs" || return 1
		record_ns "box-$n"
	done
}

