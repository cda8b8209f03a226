#!/bin/bash
# box.sh: a cluster in a box on one Linux machine (root, no systemd): client nodes n1..nN, each
# its own network, mount and UTS namespace, joined to a storage server by shaped veth links, and
# a real distributed file system (GlusterFS, MooseFS or CephFS) mounted at /box/fs on every node.
#
#   box.sh up --nodes N --link-mbit R [--slow NODE=R2 ...] [--server-mbit S]
#             [--fs glusterfs|moosefs|cephfs|none] [--bricks B]
#   box.sh exec NODE -- CMD...      run CMD on NODE (n1..nN, head or server)
#   box.sh hostfile [--nodes K] [--slots S]   a hostfile of the first K nodes (default all, 4 slots)
#   box.sh mpirun ARGS...           mpirun across the nodes (the box's hostfile unless ARGS name hosts)
#   box.sh down                     remove everything (idempotent)
#   box.sh status                   what is up
# and, for tests:
#   box.sh rate NODE|server MBIT|off    reshape a link (both directions)
#   box.sh cut NODE | mend NODE         cut / restore the path between NODE and the server
#   box.sh rx NODE                      bytes NODE has received on its link
#   box.sh iperf NODE [SECONDS]         TCP goodput server -> NODE in Mbit/s (iperf3)
#   box.sh cold [DIR]                   evict the files under /box/fs/DIR from every cache in the box
#   box.sh diskcap MIBPS|off [K]        cap the server's reads from its brick devices (cgroup v1
#                                       blkio); with K, from brick K's device alone (1..--bricks)
#
# Layout (addresses exist only inside the box's namespaces; none has a default route):
#   box-sw    the switch: bridge br0 and one port p-NAME per link; tc tbf on p-NAME limits what NAME
#             receives (a node's reads), tc tbf on NAME's eth0 what it sends
#   box-head  10.77.0.1   where mpirun runs (unshaped)
#   box-srv   10.77.0.2   the storage server: every file system daemon
#   box-nK    10.77.0.(10+K)  client node nK
# While a box is up the root namespace carries `unreachable 10.77.0.0/24`, so a box address used
# there by mistake goes nowhere. All state, images and logs live on a tmpfs at /box capped in size
# and inodes. Every process the box starts is recorded (pid and start time) and `down` ends only
# those, plus what runs inside the box's own network namespaces.
set -u

B=/box
SUBNET=10.77.0.0/24
HEAD_IP=10.77.0.1
SRV_IP=10.77.0.2
RUN=$B/run
TMPFS_MB=${BOX_TMPFS_MB:-3072}      # the whole box: images, state, logs
IMG_MB=${BOX_IMG_MB:-1024}          # one brick / chunk store / OSD image (sparse)
GL_MOUNT_OPTS=${BOX_GLUSTER_MOUNT_OPTS:-}
GL_PING_TIMEOUT=${BOX_GLUSTER_PING_TIMEOUT:-10}
# MooseFS's default 1 MiB read-ahead pulled 91 MiB over the link for a 64 MiB file read by two
# ranks: the smallest read-ahead keeps the bytes on the wire close to the bytes read
MFS_MOUNT_OPTS=${BOX_MFS_MOUNT_OPTS:-mfsreadaheadleng=131072}
# ceph-fuse's object cache keeps "cold" re-reads in user space: off, so the page cache is the only one
CEPH_FUSE_OPTS=${BOX_CEPH_FUSE_OPTS:---client_oc=false}
CG_BLKIO=/sys/fs/cgroup/blkio/box-srv

say() { echo "box: $*" >&2; }
step() { [ -z "${BOX_VERBOSE:-}" ] || say "$1: $(since "$2") s"; }
die() { say "$*"; exit 1; }
usage() { say "$*"; sed -n '3,20p' "$0" >&2; exit 2; }
t() { timeout "${T:-60}" "$@"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
node_ip() { echo "10.77.0.$((10 + ${1#n}))"; }
state() { sed -n "s/^$1=//p" "$RUN/state" 2>/dev/null; }
nodes() { seq 1 "$(state nodes)" | sed 's/^/n/'; }

# ---- processes: record what we start, end only that ----

# starttime of a pid (field 22 of /proc/PID/stat): with the pid it names one process for good
pid_start() { awk '{ sub(/^.*\) /, ""); print $20 }' "/proc/$1/stat" 2>/dev/null; }

# record the processes now in network namespace NS (the box's own: all of them are ours)
record_ns() {
	local p
	for p in $(ip netns pids "$1" 2>/dev/null); do record_pid "$p"; done
}
record_pid() {
	local s
	s=$(pid_start "$1") || return 0
	[ -n "$s" ] || return 0
	grep -q "^$1 $s " "$RUN/pids" 2>/dev/null || echo "$1 $s $(cat "/proc/$1/comm" 2>/dev/null)" >>"$RUN/pids"
}

# pids (one a line) that are still the processes recorded, then whatever runs in the box's
# namespaces now (started there by tests or mpirun: ours by construction)
our_pids() {
	local p s c ns
	if [ -f "$RUN/pids" ]; then
		while read -r p s c; do [ "$(pid_start "$p")" = "$s" ] && echo "$p"; done <"$RUN/pids"
	fi
	for ns in $(box_netns); do ip netns pids "$ns" 2>/dev/null; done
}

# end PIDS...: SIGTERM, up to WAIT seconds for them to go, then SIGKILL
end_pids() {
	local wait=${WAIT:-10} p i left
	[ $# -gt 0 ] || return 0
	kill -TERM "$@" 2>/dev/null
	for i in $(seq $((wait * 5))); do
		left=""
		for p in "$@"; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
		[ -z "$left" ] && return 0
		sleep 0.2
	done
	# shellcheck disable=SC2086
	kill -KILL $left 2>/dev/null
	# a process in an uninterruptible wait (a read from a FUSE client whose server vanished)
	# dies when it leaves it: wait for that too, up to KWAIT seconds
	for i in $(seq $((${KWAIT:-20} * 5))); do
		p=""
		for p in $left; do kill -0 "$p" 2>/dev/null && break; p=""; done
		[ -z "$p" ] && return 0
		sleep 0.2
	done
	say "processes still there after SIGKILL:$left"
}

box_netns() { ip netns list 2>/dev/null | awk '$1 ~ /^box-/ { print $1 }'; }

# ---- network ----

# shape NAME RATE: the link of NAME (nK or srv) at RATE Mbit/s both ways ("off": unshaped)
shape() {
	local name=$1 rate=$2
	if [ "$rate" = off ]; then
		t tc -n box-sw qdisc del dev "p-$name" root 2>/dev/null
		t tc -n "box-$name" qdisc del dev eth0 root 2>/dev/null
		return 0
	fi
	case "$rate" in '' | *[!0-9]*) die "bad rate '$rate' (Mbit/s, a whole number, or off)" ;; esac
	# the switch's port sends to NAME: that limits NAME's reads; NAME's eth0 limits its writes
	t tc -n box-sw qdisc replace dev "p-$name" root tbf rate "${rate}mbit" burst 256kb latency 50ms &&
		t tc -n "box-$name" qdisc replace dev eth0 root tbf rate "${rate}mbit" burst 256kb latency 50ms
}

# link NAME ADDRESS: namespace box-NAME with eth0 at ADDRESS on the switch, no default route
link_up() {
	t ip netns add "box-$1" &&
		t ip -n box-sw link add "p-$1" type veth peer name eth0 netns "box-$1" &&
		t ip -n box-sw link set "p-$1" master br0 &&
		t ip -n box-sw link set "p-$1" up &&
		t ip -n "box-$1" addr add "$2/24" dev eth0 &&
		t ip -n "box-$1" link set eth0 up &&
		t ip -n "box-$1" link set lo up
}

net_up() {
	local n
	# FIRST the guard: box addresses used in the root namespace by mistake must go nowhere
	t ip route add unreachable "$SUBNET" || return 1
	t ip netns add box-sw && t ip -n box-sw link add br0 type bridge &&
		t ip -n box-sw link set br0 up && t ip -n box-sw link set lo up || return 1
	link_up head "$HEAD_IP" && link_up srv "$SRV_IP" || return 1
	for n in $(nodes); do link_up "$n" "$(node_ip "$n")" || return 1; done
	for n in $(nodes); do shape "$n" "$(slow_rate "$n")" || return 1; done
	[ "$(state server_mbit)" = off ] || shape srv "$(state server_mbit)"
}

slow_rate() {
	local s r
	r=$(state link_mbit)
	for s in $(state slow); do [ "${s%%=*}" = "$1" ] && r=${s#*=}; done
	echo "$r"
}

# ---- namespaces of each node: mount (the file system at /box/fs), UTS (its host name) ----

ns_up() {
	local n p i want
	mkdir -p "$B/ns" "$B/etc" "$B/tmp" || return 1
	# nsfs bind mounts must sit on a private mount
	t mount --bind "$B/ns" "$B/ns" && t mount --make-private "$B/ns" || return 1
	{
		cat /etc/hosts
		echo "$HEAD_IP head"
		echo "$SRV_IP server"
		for n in $(nodes); do echo "$(node_ip "$n") $n"; done
	} >"$B/etc/hosts"
	: >"$B/etc/uts"
	for n in $(nodes); do
		: >"$B/ns/$n.uts"
		t unshare --uts="$B/ns/$n.uts" hostname "$n" || return 1
	done
	# mpirun's own mount namespace: names of the box in a private /etc/hosts, no lookup leaves
	: >"$B/ns/head.mnt"
	t unshare --mount="$B/ns/head.mnt" --propagation private \
		mount --bind "$B/etc/hosts" /etc/hosts || return 1
	for n in $(nodes); do
		: >"$B/ns/$n.mnt"
		mkdir -p "$B/tmp/$n"
		# /box/etc/uts inside the node is its UTS namespace: ranks enter it (see rankwrap)
		t unshare --mount="$B/ns/$n.mnt" --propagation private sh -c \
			"mount --bind $B/etc/hosts /etc/hosts && mount --bind $B/ns/$n.uts $B/etc/uts" || return 1
		# mpirun's rsh agent runs in head's mount namespace, where the node's namespace files
		# are not (nsfs mounts of mount namespaces are not copied into new ones, and binding
		# them in from /proc is refused now and then here): an anchor process holds the node's
		# namespaces, and the agent enters them through /proc/ANCHOR
		nsenter --net="/run/netns/box-$n" --mount="$B/ns/$n.mnt" --uts="$B/ns/$n.uts" \
			sleep 2147483647 </dev/null >/dev/null 2>&1 &
		p=$!
		echo "$p" >"$RUN/anchor-$n"
		record_pid "$p"
		want="mnt:[$(stat -L -c %i "$B/ns/$n.mnt")]"
		for i in $(seq 100); do
			[ "$(readlink "/proc/$p/ns/mnt" 2>/dev/null)" = "$want" ] && break
			sleep 0.05
		done
		[ "$(readlink "/proc/$p/ns/mnt" 2>/dev/null)" = "$want" ] || return 1
	done
}

# ton NODE CMD...: the same, bounded by timeout T (default 60 s)
ton() {
	local n=$1
	shift
	on "$n" timeout "${T:-60}" "$@"
}

# on NODE CMD...: CMD in NODE's network and mount namespaces (root's mount namespace for srv)
on() {
	local n=$1
	shift
	case "$n" in
	srv | server) nsenter --net=/run/netns/box-srv "$@" ;;
	*) nsenter --net="/run/netns/box-$n" --mount="$B/ns/$n.mnt" "$@" ;;
	esac
}

# ---- GlusterFS ----

G() { ton srv gluster --mode=script --glusterd-sock="$B/srv/gl/run/glusterd.socket" \
	--log-file="$B/log/gluster-cli.log" "$@"; }

# image NAME FSTYPE DIR: a loop device on a sparse image in the tmpfs, formatted, mounted at DIR
image() {
	local dev
	t truncate -s "${IMG_MB}M" "$B/img/$1.img" || return 1
	dev=$(t losetup -f --show "$B/img/$1.img") || return 1
	echo "$dev" >>"$RUN/loops"
	case "$2" in
	xfs) T=120 t mkfs.xfs -q -f "$dev" ;;
	ext4) T=120 t mkfs.ext4 -q -F -m 0 "$dev" ;;
	esac || return 1
	mkdir -p "$3" && t mount "$dev" "$3"
}

gluster_up() {
	local i bricks="" n
	mkdir -p "$B/srv/gl/lib" "$B/srv/gl/run" "$B/log" "$B/img"
	# glusterd writes a few things outside the directories it is given: know what was there
	find /var/lib/glusterd /run/gluster /var/log/glusterfs 2>/dev/null | sort >"$RUN/gluster.before"
	cp -r /var/lib/glusterd/groups "$B/srv/gl/lib/" 2>/dev/null
	for i in $(seq "$(state bricks)"); do
		image "brick$i" xfs "$B/srv/brick$i" && mkdir -p "$B/srv/brick$i/b" || return 1
		bricks="$bricks $SRV_IP:$B/srv/brick$i/b"
	done
	cat >"$B/srv/gl/glusterd.vol" <<EOF
volume management
    type mgmt/glusterd
    option working-directory $B/srv/gl/lib
    option run-directory $B/srv/gl/run
    option logging-directory $B/log
    option glusterd-sockfile $B/srv/gl/run/glusterd.socket
    option transport-type socket
    option transport.address-family inet
    option transport.socket.bind-address $SRV_IP
    option transport.socket.listen-port 24007
    option transport.socket.read-fail-log off
    option ping-timeout 0
    option event-threads 1
    option max-port 60999
end-volume
EOF
	ton srv glusterd -f "$B/srv/gl/glusterd.vol" -p "$B/srv/gl/run/glusterd.pid" \
		-l "$B/log/glusterd.log" </dev/null >>"$B/log/glusterd.out" 2>&1 || return 1
	record_ns box-srv
	for i in $(seq 100); do G volume list >/dev/null 2>&1 && break; sleep 0.2; done
	# shellcheck disable=SC2086
	G volume create vol transport tcp $bricks force >/dev/null || return 1
	# a client cut off from the server gives up after 10 s (GlusterFS's default: 42 s)
	G volume set vol network.ping-timeout "$GL_PING_TIMEOUT" >/dev/null || return 1
	G volume start vol >/dev/null || return 1
	record_ns box-srv
	for n in $(nodes); do
		ton "$n" mount -t glusterfs \
			-o "log-file=$B/log/client-$n.log${GL_MOUNT_OPTS:+,$GL_MOUNT_OPTS}" \
			"$SRV_IP:/vol" "$B/fs" </dev/null >>"$B/log/mount.out" 2>&1 || return 1
		record_ns "box-$n"
	done
}

gluster_leftovers() {
	local p
	[ -f "$RUN/gluster.before" ] || return 0
	# only what did not exist before the box started, deepest first
	find /var/lib/glusterd /run/gluster /var/log/glusterfs 2>/dev/null | sort |
		comm -13 "$RUN/gluster.before" - | sort -r | while read -r p; do
		rm -f "$p" 2>/dev/null || rmdir "$p" 2>/dev/null
	done
}

# ---- MooseFS ----

# mfs_daemon PROG ARGS...: a MooseFS daemon started in box-srv, with the box's own /dev/null.
# The daemons drop to WORKING_USER, and mfsmaster's background saver (a child forked after
# that) puts /dev/null on its fds 0-2 by open("/dev/null", O_RDWR) as that user, asserting
# on the result: where the machine's /dev/null is not the 0666 character device 1:3 (a
# regular file left where a tool had removed it, a nodev mount), the saver dies on
# "bgsaver.c:1095 - failed assertion 'dup(f)==STDIN_FILENO'" and the master with it. Each
# daemon runs in a private mount namespace of its own whose /dev/null is the device node the
# box made on its tmpfs, whatever the machine's is. BOX_MFS_PRELOAD (tests only) is put in
# the daemon's LD_PRELOAD, to make it fail on purpose.
mfs_daemon() {
	on srv unshare --mount --propagation private sh -c 'mount --bind "$0" /dev/null && exec "$@"' \
		"$B/srv/mfs/null" env ${BOX_MFS_PRELOAD:+LD_PRELOAD="$BOX_MFS_PRELOAD"} \
		timeout "${T:-60}" "$@" </dev/null >>"$B/log/mfs.log" 2>&1
}

# mfs_why WHAT: WHY, one line: WHAT failed, and the first failed assertion of a MooseFS
# daemon in its log (a master that has asserted leaves only "can't connect" to its
# clients), else the log's last line
mfs_why() {
	local line
	line=$(grep -m 1 'failed assertion' "$B/log/mfs.log" 2>/dev/null)
	[ -n "$line" ] || line=$(tail -n 1 "$B/log/mfs.log" 2>/dev/null)
	WHY="moosefs: $1 failed (mfs.log: ${line:-empty})"
}

mfs_up() {
	local i n e="$B/srv/mfs/etc"
	mkdir -p "$e" "$B/srv/mfs/master" "$B/img" "$B/log"
	cat >"$e/mfsmaster.cfg" <<EOF
WORKING_USER = mfs
WORKING_GROUP = mfs
DATA_PATH = $B/srv/mfs/master
EXPORTS_FILENAME = $e/mfsexports.cfg
TOPOLOGY_FILENAME = $e/mfstopology.cfg
MATOML_LISTEN_HOST = $SRV_IP
MATOCS_LISTEN_HOST = $SRV_IP
MATOCL_LISTEN_HOST = $SRV_IP
EOF
	echo "$SUBNET / rw,alldirs,admin,maproot=0:0" >"$e/mfsexports.cfg"
	: >"$e/mfstopology.cfg"
	cp /var/lib/mfs/metadata.mfs.empty "$B/srv/mfs/master/metadata.mfs" || return 1
	for i in $(seq "$(state bricks)"); do
		image "chunks$i" ext4 "$B/srv/chunks$i" || return 1
		mkdir -p "$B/srv/mfs/cs$i"
		echo "$B/srv/chunks$i" >"$e/mfshdd$i.cfg"
		cat >"$e/mfschunkserver$i.cfg" <<EOF
WORKING_USER = mfs
WORKING_GROUP = mfs
DATA_PATH = $B/srv/mfs/cs$i
HDD_CONF_FILENAME = $e/mfshdd$i.cfg
HDD_LEAVE_SPACE_DEFAULT = 16MiB
BIND_HOST = $SRV_IP
MASTER_HOST = $SRV_IP
CSSERV_LISTEN_HOST = $SRV_IP
CSSERV_LISTEN_PORT = $((9421 + i))
EOF
		chown -R mfs:mfs "$B/srv/chunks$i" "$B/srv/mfs/cs$i"
	done
	chown -R mfs:mfs "$B/srv/mfs/master"
	t mknod -m 0666 "$B/srv/mfs/null" c 1 3 || { WHY="cannot make $B/srv/mfs/null"; return 1; }
	mfs_daemon mfsmaster -c "$e/mfsmaster.cfg" start || { mfs_why mfsmaster; return 1; }
	for i in $(seq "$(state bricks)"); do
		mfs_daemon mfschunkserver -c "$e/mfschunkserver$i.cfg" start || {
			mfs_why mfschunkserver
			return 1
		}
	done
	record_ns box-srv
	for n in $(nodes); do
		ton "$n" mfsmount "$B/fs" -H "$SRV_IP" ${MFS_MOUNT_OPTS:+-o "$MFS_MOUNT_OPTS"} \
			</dev/null >>"$B/log/mfs.log" 2>&1 || { mfs_why "mfsmount on $n"; return 1; }
		record_ns "box-$n"
	done
	# until the chunk servers have registered the file system has no space and writes fail
	for i in $(seq 101); do
		[ "$(on n1 df -P "$B/fs" | awk 'NR == 2 { print $4 }')" -gt 0 ] 2>/dev/null && break
		[ "$i" -le 100 ] || { mfs_why "the chunk servers (no space after 20 s)"; return 1; }
		sleep 0.2
	done
	# one copy of each chunk (one server), no trash: the tools talk to the master through a mount
	ton n1 mfssetgoal -r 1 "$B/fs" >/dev/null && ton n1 mfssettrashtime -r 0 "$B/fs" >/dev/null
}

# ---- CephFS ----

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

ceph_up() {
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

# ---- MPI: an rsh agent into the nodes, a wrapper giving each rank its node's host name ----

mpi_up() {
	mkdir -p "$B/bin"
	cat >"$B/bin/agent" <<EOF
#!/bin/sh
# mpirun's rsh agent in the box: agent [options] NODE CMD... runs CMD (Open MPI's daemon) in
# NODE's network and mount namespaces. The daemon keeps the machine's host name: in a UTS
# namespace of the node's name, MPI_Comm_split_type(SHARED) hangs with >= 2 ranks per node on
# >= 2 nodes (Open MPI 4.1); each rank enters the node's UTS namespace instead (rankwrap).
while [ \$# -gt 0 ]; do case "\$1" in -*) shift ;; *) break ;; esac; done
node=\$1
shift
anchor=\$(cat $RUN/anchor-\$node 2>/dev/null) || { echo "box agent: no node \$node" >&2; exit 1; }
# one session directory per node: daemons of one host name must not share it
export TMPDIR=$B/tmp/\$node
# the node's network and mount namespaces, held by its anchor process
exec nsenter --target="\$anchor" --net --mount /bin/sh -c "\$*"
EOF
	cat >"$B/bin/rankwrap" <<EOF
#!/bin/sh
# Open MPI's fork agent in the box: a rank runs in its node's UTS namespace (its host name)
exec nsenter --uts=$B/etc/uts -- "\$@"
EOF
	chmod 755 "$B/bin/agent" "$B/bin/rankwrap"
	cmd_hostfile >"$B/etc/hostfile"
}

mpi_env() {
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export OMPI_MCA_plm_rsh_agent=$B/bin/agent OMPI_MCA_orte_fork_agent=$B/bin/rankwrap
	export OMPI_MCA_btl=self,tcp OMPI_MCA_pml=ob1
	export OMPI_MCA_btl_tcp_if_include=$SUBNET OMPI_MCA_oob_tcp_if_include=$SUBNET
	export OMPI_MCA_rtc_hwloc_vmhole=none PMIX_MCA_gds=hash
	export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
	# the nodes share this machine's cores: bound, every node's first rank sits on core 0,
	# all of them on the same one, which no cluster does (mmap's page-fault reads lost 15% of
	# the link to it in the box, read() nothing: docs/box.md)
	export OMPI_MCA_hwloc_base_binding_policy=none
	export TMPDIR=$B/tmp/head
	mkdir -p "$TMPDIR"
}

# ---- commands ----

# what is left of a box, one word per kind (empty: nothing)
leftovers() {
	local w=""
	[ -n "$(box_netns)" ] && w="$w namespaces($(box_netns | tr '\n' ' ' | sed 's/ $//'))"
	ip route show type unreachable 2>/dev/null | grep -q "^unreachable $SUBNET" && w="$w guard-route"
	mountpoint -q "$B" 2>/dev/null && w="$w $B-mounted"
	losetup -a 2>/dev/null | grep -q "($B/" && w="$w loop-devices"
	[ -d "$CG_BLKIO" ] && w="$w cgroup"
	echo "${w# }"
}

cmd_up() {
	local nodes="" link="" slow="" server=off fs=glusterfs bricks="" n s start left
	while [ $# -gt 0 ]; do
		case "$1" in
		--nodes) nodes=${2:-} && shift 2 ;;
		--link-mbit) link=${2:-} && shift 2 ;;
		--slow) slow="$slow ${2:-}" && shift 2 ;;
		--server-mbit) server=${2:-} && shift 2 ;;
		--fs) fs=${2:-} && shift 2 ;;
		--bricks) bricks=${2:-} && shift 2 ;;
		*) usage "up: unknown argument '$1'" ;;
		esac || usage "up: $1 needs a value"
	done
	case "$nodes" in '' | *[!0-9]* | 0) usage "up: --nodes N (1..200) is required" ;; esac
	[ "$nodes" -le 200 ] || usage "up: at most 200 nodes"
	case "$link" in '' | *[!0-9]* | 0) usage "up: --link-mbit R (Mbit/s) is required" ;; esac
	case "$server" in off) ;; '' | *[!0-9]* | 0) usage "up: bad --server-mbit '$server'" ;; esac
	for s in $slow; do
		n=${s%%=*}
		case "$n" in n[1-9]*) ;; *) usage "up: --slow NODE=MBIT, not '$s'" ;; esac
		[ "${n#n}" -le "$nodes" ] 2>/dev/null || usage "up: --slow names $n, the box has $nodes nodes"
		case "${s#*=}" in '' | *[!0-9]* | 0) usage "up: bad rate in --slow '$s'" ;; esac
	done
	case "$fs" in glusterfs | moosefs | none) : "${bricks:=1}" ;; cephfs) : "${bricks:=2}" ;;
	*) usage "up: --fs glusterfs|moosefs|cephfs|none, not '$fs'" ;; esac
	case "$bricks" in '' | *[!0-9]* | 0) usage "up: bad --bricks '$bricks'" ;; esac
	[ "$(id -u)" -eq 0 ] || die "up needs root"
	left=$(leftovers)
	[ -z "$left" ] || die "a box is left over ($left): run '$0 down' first"

	start=$(now)
	trap 'say "up interrupted: tearing down"; cmd_down >/dev/null 2>&1; exit 130' INT TERM
	mkdir -p "$B" && t mount -t tmpfs -o "size=${TMPFS_MB}m,nr_inodes=20000,mode=0755" boxfs "$B" &&
		t mount --make-private "$B" || up_failed
	mkdir -p "$RUN" "$B/fs" "$B/log" "$B/img" && : >"$RUN/pids" && : >"$RUN/loops"
	printf 'nodes=%s\nlink_mbit=%s\nslow=%s\nserver_mbit=%s\nfs=%s\nbricks=%s\n' \
		"$nodes" "$link" "${slow# }" "$server" "$fs" "$bricks" >"$RUN/state"
	net_up || up_failed
	ns_up || up_failed
	case "$fs" in
	glusterfs) gluster_up ;;
	moosefs) mfs_up ;;
	cephfs) ceph_up ;;
	none) true ;;
	esac || up_failed
	mpi_up || up_failed
	trap - INT TERM
	echo "up=$(since "$start")" >>"$RUN/state"
	cmd_summary
}

# up_failed: the cause first, on one line of its own ("box: cannot start: ..."; tests take
# it from there), then the logs' tails
up_failed() {
	say "cannot start: ${WHY:-see the logs in $B/log}"
	say "up failed: tearing down (logs were in $B/log)"
	[ -d "$B/log" ] && tail -n 5 "$B"/log/*.log 2>/dev/null | sed 's/^/box:   /' >&2
	cmd_down >/dev/null 2>&1
	exit 1
}

cmd_summary() {
	local slow server
	slow=$(state slow)
	server=$(state server_mbit)
	echo "box up in $(state up) s: $(state nodes) nodes n1-n$(state nodes)," \
		"links $(state link_mbit) Mbit/s${slow:+ (slow: $slow)}, server link" \
		"$([ "$server" = off ] && echo unshaped || echo "$server Mbit/s"), $(state fs)" \
		"$([ "$(state fs)" = none ] || echo "($(state bricks) bricks) at $B/fs")"
}

cmd_down() {
	local start n p pids left
	start=$(now)
	[ "$(id -u)" -eq 0 ] || die "down needs root"
	# 1. whatever runs in the nodes and the head (ranks, daemons of mpirun, shells of exec),
	#    but the file system clients, which go with their mounts
	pids=""
	for n in $(box_netns); do
		case "$n" in box-srv | box-sw) continue ;; esac
		for p in $(ip netns pids "$n" 2>/dev/null); do
			case "$(cat "/proc/$p/comm" 2>/dev/null)" in glusterfs | mfsmount | ceph-fuse) ;; *) pids="$pids $p" ;; esac
		done
	done
	# (a rank stuck in a read of a cut-off FUSE mount dies only once its client is gone, below)
	# shellcheck disable=SC2086
	WAIT=3 KWAIT=1 end_pids $pids 2>/dev/null
	step "processes in the nodes" "$start"
	# 2. the mounts of the nodes (a client cut from its server may hang: lazily then)
	for n in $(box_netns); do
		n=${n#box-}
		# (from mountinfo: a stat of the mount would hang on a client cut off from its server)
		[ -e "$B/ns/$n.mnt" ] && on "$n" grep -q " $B/fs " /proc/self/mountinfo 2>/dev/null || continue
		# a cut path first mended, so that the client can say goodbye to its server
		ip -n "box-$n" route del blackhole "$SRV_IP/32" 2>/dev/null
		ip -n box-srv route del blackhole "$(node_ip "$n")/32" 2>/dev/null
		T=5 ton "$n" umount --no-canonicalize "$B/fs" 2>/dev/null ||
			T=5 ton "$n" umount --no-canonicalize -l "$B/fs" 2>/dev/null
	done
	step "mounts" "$start"
	# 3. every process recorded and every one left in the box's namespaces, daemons included
	# shellcheck disable=SC2046
	WAIT=10 end_pids $(our_pids | sort -u)
	step "daemons" "$start"
	# 4. the namespaces: bind mounts of mount and UTS namespaces, then the network ones
	if [ -d "$B/ns" ]; then
		for p in "$B"/ns/*; do mountpoint -q "$p" 2>/dev/null && t umount "$p"; done
		mountpoint -q "$B/ns" && t umount "$B/ns"
	fi
	for n in $(box_netns); do t ip netns del "$n"; done
	# 5. bricks, loop devices, cgroup, glusterd's stray files
	for p in "$B"/srv/brick* "$B"/srv/chunks*; do mountpoint -q "$p" 2>/dev/null && t umount "$p"; done
	for p in $(cat "$RUN/loops" 2>/dev/null) $(losetup -a 2>/dev/null | grep "($B/" | cut -d: -f1); do
		losetup "$p" >/dev/null 2>&1 && t losetup -d "$p"
	done
	if [ -d "$CG_BLKIO" ]; then
		for p in $(cat "$CG_BLKIO/cgroup.procs" 2>/dev/null); do
			echo "$p" >/sys/fs/cgroup/blkio/cgroup.procs 2>/dev/null
		done
		rmdir "$CG_BLKIO"
	fi
	gluster_leftovers
	# 6. the tmpfs, then (last) the guard route
	if mountpoint -q "$B" 2>/dev/null; then t umount "$B" || T=10 t umount -l "$B"; fi
	rmdir "$B" 2>/dev/null
	ip route show type unreachable | grep -q "^unreachable $SUBNET" && t ip route del unreachable "$SUBNET"
	left=$(leftovers)
	[ -z "$left" ] || die "down: still left: $left"
	echo "box down in $(since "$start") s"
}

need_up() {
	[ -f "$RUN/state" ] || die "no box is up (run '$0 up ...')"
}

check_node() {
	case "$1" in
	head | server | srv) return 0 ;;
	n[1-9]*) [ "${1#n}" -le "$(state nodes)" ] 2>/dev/null && return 0 ;;
	esac
	die "no node '$1' in the box (n1..n$(state nodes), head, server)"
}

cmd_exec() {
	local n=${1:-} dir
	need_up
	[ $# -ge 3 ] && [ "$2" = -- ] || usage "exec NODE -- CMD..."
	check_node "$n"
	shift 2
	case "$n" in
	server | srv) exec nsenter --net=/run/netns/box-srv -- "$@" ;;
	head) exec nsenter --net=/run/netns/box-head --mount="$B/ns/head.mnt" --wd="$PWD" -- "$@" ;;
	esac
	# the working directory where the node has it (a mount made after up is not in the node)
	dir=$PWD
	on "$n" test -d "$dir" || dir=/
	exec nsenter --net="/run/netns/box-$n" --mount="$B/ns/$n.mnt" --uts="$B/ns/$n.uts" \
		--wd="$dir" -- "$@"
}

cmd_hostfile() {
	local k s n
	k=$(state nodes)
	s=4
	while [ $# -gt 0 ]; do
		case "$1" in
		--nodes) k=${2:-} && shift 2 ;;
		--slots) s=${2:-} && shift 2 ;;
		*) usage "hostfile [--nodes K] [--slots S]" ;;
		esac || usage "hostfile [--nodes K] [--slots S]"
	done
	case "$k$s" in '' | *[!0-9]*) usage "hostfile: --nodes and --slots take numbers" ;; esac
	[ "$k" -ge 1 ] && [ "$k" -le "$(state nodes)" ] || die "hostfile: the box has $(state nodes) nodes"
	for n in $(seq 1 "$k"); do echo "n$n slots=$s"; done
}

cmd_mpirun() {
	local a hosts=0
	need_up
	for a in "$@"; do
		case "$a" in -H | --host | -host | --hostfile | -hostfile | --machinefile | -machinefile | \
			--default-hostfile) hosts=1 ;; esac
	done
	[ "$hosts" = 1 ] || set -- --hostfile "$B/etc/hostfile" "$@"
	mpi_env
	# mpirun in the head: a namespace with no route and the box's names in its /etc/hosts
	exec nsenter --net=/run/netns/box-head --mount="$B/ns/head.mnt" --wd="$PWD" -- mpirun "$@"
}

cmd_status() {
	local n left
	if [ ! -f "$RUN/state" ]; then
		left=$(leftovers)
		[ -z "$left" ] && echo "no box" && return 0
		echo "no box, but left over: $left (run '$0 down')"
		return 1
	fi
	cmd_summary
	for n in $(nodes); do
		printf '%s %s host=%s fs=%s\n' "$n" "$(node_ip "$n")" \
			"$(nsenter --uts="$B/ns/$n.uts" hostname 2>/dev/null)" \
			"$(on "$n" findmnt -n -o FSTYPE "$B/fs" 2>/dev/null || echo -)"
	done
	echo "namespaces: $(box_netns | tr '\n' ' ')"
	echo "processes: $(our_pids | sort -u | while read -r n; do cat "/proc/$n/comm"; done | sort | uniq -c | awk '{ printf "%s%s x%s", s, $2, $1; s = ", " }')"
	echo "loop devices: $(losetup -a | grep -c "($B/")"
}

cmd_rate() {
	local n=${1:-} r=${2:-}
	need_up
	[ -n "$r" ] || usage "rate NODE|server MBIT|off"
	check_node "$n"
	case "$n" in server) n=srv ;; head) die "the head's link is not shaped" ;; esac
	shape "$n" "$r"
}

# cut NODE: the path between NODE and the server goes silent both ways (a black hole, as a cable
# pulled out: no error, no reset); MPI between the nodes and the head still flows
cmd_cut() {
	need_up
	check_node "${1:-}"
	t ip -n "box-$1" route replace blackhole "$SRV_IP/32" &&
		t ip -n box-srv route replace blackhole "$(node_ip "$1")/32"
}

cmd_mend() {
	need_up
	check_node "${1:-}"
	t ip -n "box-$1" route del blackhole "$SRV_IP/32" 2>/dev/null
	t ip -n box-srv route del blackhole "$(node_ip "$1")/32" 2>/dev/null
	return 0
}

cmd_rx() {
	need_up
	check_node "${1:-}"
	case "$1" in server) set -- srv ;; esac
	nsenter --net="/run/netns/box-$1" cat /proc/net/dev | awk '$1 == "eth0:" { print $2 }'
}

cmd_iperf() {
	local n=${1:-} secs=${2:-5} port out
	need_up
	check_node "$n"
	command -v iperf3 >/dev/null || die "iperf3 is not installed"
	port=$((5200 + ${n#n}))
	nsenter --net=/run/netns/box-srv timeout $((secs + 20)) iperf3 -s -1 -B "$SRV_IP" -p "$port" \
		</dev/null >/dev/null 2>&1 &
	record_pid $!
	sleep 0.3
	# -R: the server sends, as a read does
	out=$(T=$((secs + 15)) t nsenter --net="/run/netns/box-$n" iperf3 -c "$SRV_IP" -p "$port" \
		-t "$secs" -R -f m 2>&1) || die "iperf3: $out"
	printf '%s\n' "$out" | awk '/receiver/ { print $(NF - 2); exit }'
}

# cold [DIR]: every node drops the files under /box/fs/DIR from its page cache, the server
# drops the brick and chunk files from its own (targeted: nothing outside the box is touched)
cmd_cold() {
	local n d=${1:-} p
	need_up
	case "$d" in *..*) die "cold: no '..' in the path" ;; esac
	p='import os, sys
for top in sys.argv[1:]:
    for dp, dn, fn in os.walk(top):
        for f in fn:
            try:
                fd = os.open(os.path.join(dp, f), os.O_RDONLY)
            except OSError:
                continue
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)'
	for n in $(nodes); do T=120 ton "$n" python3 -c "$p" "$B/fs/$d" || return 1; done
	# shellcheck disable=SC2046
	T=120 t python3 -c "$p" $(ls -d "$B"/srv/brick*/b "$B"/srv/chunks* 2>/dev/null)
}

cmd_diskcap() {
	local r=${1:-} k=${2:-} p d mm
	need_up
	case "$r" in off) r=0 ;; '' | *[!0-9]*) usage "diskcap MIBPS|off [K]" ;; *) r=$((r * 1048576)) ;; esac
	case "$k" in '' | [1-9] | [1-9][0-9]) ;; *) usage "diskcap: bad brick number '$k'" ;; esac
	[ -d /sys/fs/cgroup/blkio ] || die "diskcap needs cgroup v1 blkio"
	mkdir -p "$CG_BLKIO" || return 1
	for p in $(ip netns pids box-srv); do echo "$p" >"$CG_BLKIO/cgroup.procs" 2>/dev/null; done
	for d in $(cat "$RUN/loops"); do
		# one brick: the device whose image is brickK.img (or chunksK, osdK)
		[ -z "$k" ] || losetup -nO BACK-FILE "$d" | grep -Eq "/(brick|chunks|osd)$k\.img\$" ||
			continue
		mm=$(lsblk -dno MAJ:MIN "$d" | tr -d ' ')
		echo "$mm $r" >"$CG_BLKIO/blkio.throttle.read_bps_device" || return 1
	done
}

# one box command that changes the box at a time (a test's trap and a hand may both run down)
# (a directory, not flock: the daemons started under the lock would inherit a locked fd)
LOCK=/run/pfsread-box.lock
lock() {
	local i p
	for i in $(seq 600); do
		if mkdir "$LOCK" 2>/dev/null; then
			echo $$ >"$LOCK/pid"
			trap 'rm -rf "$LOCK"' EXIT
			return 0
		fi
		# the holder died without removing it
		p=$(cat "$LOCK/pid" 2>/dev/null)
		[ -n "$p" ] && ! kill -0 "$p" 2>/dev/null && rm -rf "$LOCK"
		sleep 0.5
	done
	die "another box.sh has held $LOCK for 5 minutes (pid $(cat "$LOCK/pid" 2>/dev/null))"
}

main() {
	local cmd=${1:-}
	[ $# -gt 0 ] && shift
	case "$cmd" in up | down | rate | cut | mend | diskcap) lock ;; esac
	case "$cmd" in
	up) cmd_up "$@" ;;
	down) cmd_down ;;
	status) cmd_status ;;
	exec) cmd_exec "$@" ;;
	hostfile) need_up && cmd_hostfile "$@" ;;
	mpirun) cmd_mpirun "$@" ;;
	rate) cmd_rate "$@" ;;
	cut) cmd_cut "$@" ;;
	mend) cmd_mend "$@" ;;
	rx) cmd_rx "$@" ;;
	iperf) cmd_iperf "$@" ;;
	cold) cmd_cold "$@" ;;
	diskcap) cmd_diskcap "$@" ;;
	*) usage "unknown command '$cmd'" ;;
	esac
}

main "$@"
