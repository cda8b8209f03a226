# shellcheck shell=bash
# shellcheck disable=SC2034 # WHY: read by box.sh's up_failed
# fs_glusterfs.sh: GlusterFS in the box, sourced by box.sh: a distribute volume over bricks on
# loop XFS images, mounted at /box/fs on every node. Either one glusterd on the server holding
# --bricks bricks, or (converged) a glusterd and a brick on every node, the nodes joined into
# one trusted pool, each node mounting the volume from its own glusterd. Every glusterd has its
# own working, run and log directories under $B/srv/gl-NAME; glusterd still writes a few things
# outside them: down removes what did not exist before (gluster_leftovers).
BOX_FS_LIST="$BOX_FS_LIST glusterfs"
# the clients go with their mounts; converged, so do the nodes' servers
BOX_FS_DAEMONS="$BOX_FS_DAEMONS glusterfs glusterd glusterfsd"
GL_MOUNT_OPTS=${BOX_GLUSTER_MOUNT_OPTS:-}
GL_PING_TIMEOUT=${BOX_GLUSTER_PING_TIMEOUT:-10}

# G NAME ARGS...: the gluster CLI against the glusterd of namespace box-NAME
G() {
	local n=$1
	shift
	ton "$n" gluster --mode=script --glusterd-sock="$B/srv/gl-$n/run/glusterd.socket" \
		--log-file="$B/log/gl-$n-cli.log" "$@"
}

# gl_glusterd NAME ADDR: a glusterd in box-NAME's network namespace, listening on ADDR, in the
# machine's mount namespace (where the bricks are mounted); on a node, in its UTS namespace,
# so that its bricks name the node as their host (trusted.glusterfs.pathinfo: n1:/box/...)
gl_glusterd() {
	local n=$1 g=$B/srv/gl-$1 uts=""
	mkdir -p "$g/lib" "$g/run" "$B/log/gl-$n" || return 1
	cp -r /var/lib/glusterd/groups "$g/lib/" 2>/dev/null
	# The keepalive options are not optional: without them glusterd 10 builds no connection to
	# a peer (its option builder returns the ENOENT of the last option it looked for), and a
	# peer probe waits for ever.
	cat >"$g/glusterd.vol" <<EOV
volume management
    type mgmt/glusterd
    option working-directory $g/lib
    option run-directory $g/run
    option logging-directory $B/log/gl-$n
    option glusterd-sockfile $g/run/glusterd.socket
    option transport-type socket
    option transport.address-family inet
    option transport.socket.bind-address $2
    option transport.socket.listen-port 24007
    option transport.socket.keepalive-time 10
    option transport.socket.keepalive-interval 2
    option transport.socket.read-fail-log off
    option ping-timeout 0
    option event-threads 1
    option max-port 60999
end-volume
EOV
	[ "$n" = srv ] || uts=--uts=$B/ns/$n.uts
	nsenter --net="/run/netns/box-$n" ${uts:+"$uts"} timeout 60 glusterd -f "$g/glusterd.vol" \
		-p "$g/run/glusterd.pid" -l "$B/log/gl-$n/glusterd.log" </dev/null \
		>>"$B/log/gl-$n/glusterd.out" 2>&1 || return 1
	record_ns "box-$n"
}

# gl_answers NAME: wait (20 s at most) until box-NAME's glusterd answers its CLI
gl_answers() {
	local i
	for i in $(seq 100); do G "$1" volume list >/dev/null 2>&1 && return 0; sleep 0.2; done
	gl_why "glusterd on $1 did not answer in 20 s" "$1"
	return 1
}

# gl_why WHAT NAME: WHY, with the last error of NAME's glusterd
gl_why() {
	WHY="glusterfs: $1 (glusterd.log: $(grep ' E ' "$B/log/gl-$2/glusterd.log" 2>/dev/null |
		grep -v 'ulimit\|store.c\|georep' | tail -n 1))"
}

# gl_pool NAME...: the glusterds of the nodes joined to the first one's pool, every one of
# them connected to every other (a volume's start is staged on each peer, and a peer that does
# not yet see another refuses it: "Host ... not connected")
gl_pool() {
	local first=$1 n i out all="$*" want=$(($# - 1)) lagging
	shift
	for n in "$@"; do
		out=$(T=20 G "$first" peer probe "$(node_ip "$n")" 2>&1) ||
			{ gl_why "peer probe of $n failed: ${out:-no answer in 20 s}" "$first"; return 1; }
	done
	for i in $(seq 151); do
		lagging=
		for n in $all; do
			[ "$(G "$n" peer status 2>/dev/null | grep -c 'Peer in Cluster (Connected)')" -eq "$want" ] ||
				{ lagging=$n; break; }
		done
		[ -z "$lagging" ] && return 0
		sleep 0.2
	done
	gl_why "glusterd on $lagging did not see its $want peers connected after 30 s" "$lagging"
	return 1
}

fs_glusterfs_up() {
	local i n bricks="" head=srv at=$SRV_IP
	# glusterd writes a few things outside the directories it is given: know what was there
	find /var/lib/glusterd /run/gluster /var/log/glusterfs 2>/dev/null | sort >"$RUN/gluster.before"
	# brick K: on the server, or converged on node nK (up makes --bricks the node count)
	for i in $(seq "$(state bricks)"); do
		[ "$(state converged)" != 1 ] || at=$(node_ip "n$i")
		image "brick$i" xfs "$B/srv/brick$i" && mkdir -p "$B/srv/brick$i/b" ||
			{ WHY="glusterfs: no image for brick $i"; return 1; }
		bricks="$bricks $at:$B/srv/brick$i/b"
	done
	if [ "$(state converged)" = 1 ]; then
		for n in $(nodes); do
			gl_glusterd "$n" "$(node_ip "$n")" || { gl_why "glusterd on $n did not start" "$n"; return 1; }
		done
		# (started together, they take their 3-15 s to answer at once)
		for n in $(nodes); do gl_answers "$n" || return 1; done
		head=n1
		# shellcheck disable=SC2046
		gl_pool $(nodes) || return 1
	else
		gl_glusterd srv "$SRV_IP" || { gl_why "glusterd did not start" srv; return 1; }
		gl_answers srv || return 1
	fi
	# shellcheck disable=SC2086
	G "$head" volume create vol transport tcp $bricks force >/dev/null &&
		G "$head" volume set vol network.ping-timeout "$GL_PING_TIMEOUT" >/dev/null &&
		G "$head" volume start vol >/dev/null || { gl_why "the volume did not start" "$head"; return 1; }
	# the bricks' servers (glusterfsd), started by the glusterds
	for n in srv $(nodes); do record_ns "box-$n"; done
	for n in $(nodes); do
		# converged, from the node's own glusterd (the volume's layout; then every brick)
		[ "$(state converged)" != 1 ] || at=$(node_ip "$n")
		ton "$n" mount -t glusterfs \
			-o "log-file=$B/log/client-$n.log${GL_MOUNT_OPTS:+,$GL_MOUNT_OPTS}" \
			"$at:/vol" "$B/fs" </dev/null >>"$B/log/mount.out" 2>&1 ||
			{ WHY="glusterfs: the mount on $n failed ($B/log/client-$n.log)"; return 1; }
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
