# shellcheck shell=bash
# fs_glusterfs.sh: GlusterFS in the box, sourced by box.sh: glusterd with its own working
# directory on the server, a distribute volume over --bricks bricks on loop XFS images, mounted
# at /box/fs on every node. glusterd writes a few things outside the
# directories it is given: down removes what did not exist before (gluster_leftovers).
BOX_FS_LIST="$BOX_FS_LIST glusterfs"
BOX_FS_DAEMONS="$BOX_FS_DAEMONS glusterfs"
GL_MOUNT_OPTS=${BOX_GLUSTER_MOUNT_OPTS:-}
GL_PING_TIMEOUT=${BOX_GLUSTER_PING_TIMEOUT:-10}

G() { ton srv gluster --mode=script --glusterd-sock="$B/srv/gl/run/glusterd.socket" \
	--log-file="$B/log/gluster-cli.log" "$@"; }

fs_glusterfs_up() {
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

