# shellcheck shell=bash
# shellcheck disable=SC2034 # WHY: read by box.sh's up_failed
# converged.sh: the box's converged shape for GlusterFS, sourced by box.sh (`up --converged`):
# every node runs the file system's server on its own storage image (brickK.img for node nK),
# there is no separate server, and a node's reads of its own brick do not cross its link (its
# client reaches its own server through the node's loopback). GlusterFS: a glusterd on every
# node (its own working, run and log directories), the nodes joined into one trusted pool,
# one distributed volume of a brick per node; each node mounts it from its own glusterd.
# (OrangeFS's converged servers are fs_orangefs.sh's.)

# the servers in the nodes go with their mounts too
BOX_FS_DAEMONS="$BOX_FS_DAEMONS glusterd glusterfsd"

# GN NODE ARGS...: the gluster CLI against NODE's glusterd
GN() {
	local n=$1
	shift
	ton "$n" gluster --mode=script --glusterd-sock="$B/srv/gl-$n/run/glusterd.socket" \
		--log-file="$B/log/gl-$n/cli.log" "$@"
}

# gl_node_up NODE K: NODE's brick (image brickK) and its glusterd, in NODE's network namespace
gl_node_up() {
	local n=$1 k=$2 g=$B/srv/gl-$1
	mkdir -p "$g/lib" "$g/run" "$B/log/gl-$n" || return 1
	cp -r /var/lib/glusterd/groups "$g/lib/" 2>/dev/null
	image "brick$k" xfs "$B/srv/brick$k" && mkdir -p "$B/srv/brick$k/b" || return 1
	cat >"$g/glusterd.vol" <<EOF
volume management
    type mgmt/glusterd
    option working-directory $g/lib
    option run-directory $g/run
    option logging-directory $B/log/gl-$n
    option glusterd-sockfile $g/run/glusterd.socket
    option transport-type socket
    option transport.address-family inet
    option transport.socket.bind-address $(node_ip "$n")
    option transport.socket.listen-port 24007
    option transport.socket.read-fail-log off
    option ping-timeout 0
    option event-threads 1
    option max-port 60999
end-volume
EOF
	# the node's network namespace, the machine's mount namespace (where its brick is mounted)
	nsenter --net="/run/netns/box-$n" timeout 60 glusterd -f "$g/glusterd.vol" \
		-p "$g/run/glusterd.pid" -l "$B/log/gl-$n/glusterd.log" </dev/null \
		>>"$B/log/gl-$n/glusterd.out" 2>&1 || return 1
	record_ns "box-$n"
}

# gl_pool_ready: every glusterd of the nodes in n1's pool, connected
gl_pool_ready() {
	local want=$(($(state nodes) - 1))
	[ "$(GN n1 peer status 2>/dev/null | grep -c 'Peer in Cluster (Connected)')" -eq "$want" ]
}

gluster_converged_up() {
	local n k=0 i bricks="" out
	mkdir -p "$B/img" "$B/log"
	# glusterd writes a few things outside the directories it is given: know what was there
	find /var/lib/glusterd /run/gluster /var/log/glusterfs 2>/dev/null | sort >"$RUN/gluster.before"
	for n in $(nodes); do
		k=$((k + 1))
		gl_node_up "$n" "$k" || { WHY="glusterfs: glusterd on $n did not start"; return 1; }
		bricks="$bricks $(node_ip "$n"):$B/srv/brick$k/b"
	done
	for n in $(nodes); do
		for i in $(seq 100); do GN "$n" volume list >/dev/null 2>&1 && break; sleep 0.2; done
	done
	for n in $(nodes | sed 1d); do
		out=$(T=20 GN n1 peer probe "$(node_ip "$n")" 2>&1) || {
			WHY="glusterfs: peer probe of $n failed: ${out:-no answer in 20 s} (glusterd.log: $(
				grep ' E ' "$B/log/gl-n1/glusterd.log" | grep -v ulimit | tail -n 1))"
			return 1
		}
	done
	for i in $(seq 151); do
		gl_pool_ready && break
		[ "$i" -le 150 ] || { WHY="glusterfs: the nodes' pool not connected after 30 s"; return 1; }
		sleep 0.2
	done
	# shellcheck disable=SC2086
	GN n1 volume create vol transport tcp $bricks force >/dev/null &&
		GN n1 volume set vol network.ping-timeout "$GL_PING_TIMEOUT" >/dev/null &&
		GN n1 volume start vol >/dev/null || { WHY="glusterfs: the converged volume did not start"; return 1; }
	for n in $(nodes); do record_ns "box-$n"; done
	for n in $(nodes); do
		# from the node's own glusterd: the volume's layout, then the bricks each read from
		ton "$n" mount -t glusterfs \
			-o "log-file=$B/log/client-$n.log${GL_MOUNT_OPTS:+,$GL_MOUNT_OPTS}" \
			"$(node_ip "$n"):/vol" "$B/fs" </dev/null >>"$B/log/mount.out" 2>&1 ||
			{ WHY="glusterfs: the mount on $n failed"; return 1; }
		record_ns "box-$n"
	done
}
