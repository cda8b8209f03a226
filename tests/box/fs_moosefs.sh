# shellcheck shell=bash
# fs_moosefs.sh: MooseFS in the box, sourced by box.sh: a master and --bricks chunk servers on
# loop ext4 images on the server, goal 1, no trash, mfsmount at /box/fs on every node.
# shellcheck disable=SC2034 # WHY: read by box.sh's up_failed
BOX_FS_LIST="$BOX_FS_LIST moosefs"
BOX_FS_DAEMONS="$BOX_FS_DAEMONS mfsmount"
# MooseFS's default 1 MiB read-ahead pulled 91 MiB over the link for a 64 MiB file read by two
# ranks: the smallest read-ahead keeps the bytes on the wire close to the bytes read
MFS_MOUNT_OPTS=${BOX_MFS_MOUNT_OPTS:-mfsreadaheadleng=131072}

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

fs_moosefs_up() {
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

