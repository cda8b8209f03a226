#!/bin/bash
# box_nodes.sh: the box's nodes: shaped links and switches, each node's namespaces, storage images, MPI into the nodes
# Sourced by box.sh (its variables and helpers in scope); functions only.
# ---- network ----

# shape NAME RATE: the link of NAME (nK or srv) at RATE Mbit/s both ways ("off": unshaped)
shape() {
	local name=$1 rate=$2
	case "$rate" in off) ;; '' | *[!0-9]*) die "bad rate '$rate' (Mbit/s, a whole number, or off)" ;; esac
	# the switch's port sends to NAME: that limits NAME's reads; NAME's eth0 limits its writes
	qdisc_set "$(sw_of "$name")" "p-$name" "$rate" && qdisc_set "box-$name" eth0 "$rate"
}

# qdisc_set NS DEV RATE|off: DEV sends at most RATE Mbit/s (--delay-ms is the links' own: wire)
qdisc_set() {
	if [ "$3" = off ]; then
		t tc -n "$1" qdisc del dev "$2" root 2>/dev/null
		return 0
	fi
	t tc -n "$1" qdisc replace dev "$2" root handle 1: tbf rate "${3}mbit" burst 256kb latency 50ms
}

# wire NS_A DEV_A NS_B DEV_B: a link between DEV_A in namespace NS_A and DEV_B in NS_B. A veth
# pair; with --delay-ms L two TAP devices joined by a delay line (tapdelay.c, one process per
# link, recorded) that holds every frame L ms each way, so any qdisc on either end (the tbf
# of shape) works as on a veth: what leaves DEV_A arrives on DEV_B L ms later.
wire() {
	local d i
	d=$(state delay_ms)
	if [ "${d:-0}" = 0 ]; then
		t ip -n "$1" link add "$2" type veth peer name "$4" netns "$3"
		return
	fi
	# a TAP's own queue (tx_queue_len frames, 500 by default) drops what the delay line has not
	# read yet: 4096 lets it lag 100 ms at 400 Mbit/s while the machine's cores are busy
	t ip -n "$1" tuntap add dev "$2" mode tap && t ip -n "$3" tuntap add dev "$4" mode tap &&
		t ip -n "$1" link set "$2" txqueuelen 4096 && t ip -n "$3" link set "$4" txqueuelen 4096 ||
		return 1
	"$B/bin/tapdelay" "$((d * 1000))" "/run/netns/$1" "$2" "/run/netns/$3" "$4" \
		</dev/null >>"$B/log/delay-$2.log" 2>&1 &
	record_pid $!
	# attached once the device has a carrier (checked up: a TAP that is down shows none)
	t ip -n "$1" link set "$2" up || return 1
	for i in $(seq 100); do
		ip -n "$1" link show dev "$2" 2>/dev/null | grep -q NO-CARRIER || return 0
		sleep 0.05
	done
	WHY="the delay line of $2 did not attach ($(tail -n 1 "$B/log/delay-$2.log" 2>/dev/null))"
	return 1
}

# delay_build: the delay line's program, built into the box's tmpfs when --delay-ms asks for it
delay_build() {
	[ "$(state delay_ms)" != 0 ] || return 0
	mkdir -p "$B/bin" &&
		T=120 t "${CC:-cc}" -std=c11 -O2 -Wall -Wextra -Werror -o "$B/bin/tapdelay" "$BOX_HERE/tapdelay.c" \
			>"$B/log/tapdelay-build.log" 2>&1 && return 0
	WHY="--delay-ms: cannot build the delay line ($(tail -n 1 "$B/log/tapdelay-build.log"))"
	return 1
}

# the switch NAME's link ends on (racks.sh: a node's rack switch)
sw_of() { echo box-sw; }

# link NAME ADDRESS: namespace box-NAME with eth0 at ADDRESS on its switch, no default route
link_up() {
	local sw
	sw=$(sw_of "$1")
	t ip netns add "box-$1" &&
		wire "$sw" "p-$1" "box-$1" eth0 &&
		t ip -n "$sw" link set "p-$1" master br0 &&
		t ip -n "$sw" link set "p-$1" up &&
		t ip -n "box-$1" addr add "$2/24" dev eth0 &&
		t ip -n "box-$1" link set eth0 up &&
		t ip -n "box-$1" link set lo up
}

net_up() {
	local n
	# FIRST the guard: box addresses used in the root namespace by mistake must go nowhere
	t ip route add unreachable "$SUBNET" || return 1
	delay_build || return 1
	t ip netns add box-sw && t ip -n box-sw link add br0 type bridge &&
		t ip -n box-sw link set br0 up && t ip -n box-sw link set lo up || return 1
	[ "$(state racks)" = 0 ] || racks_up || return 1
	link_up head "$HEAD_IP" && link_up srv "$SRV_IP" || return 1
	for n in $(nodes); do link_up "$n" "$(node_ip "$n")" || return 1; done
	for n in $(nodes); do shape "$n" "$(slow_rate "$n")" || return 1; done
	shape srv "$(state server_mbit)"
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

# ---- storage images (the file systems' bricks; each file system is a file: fs_NAME.sh) ----

# image NAME FSTYPE DIR: a loop device on a sparse image in the tmpfs, formatted, mounted at DIR
image() {
	local dev
	t truncate -s "${IMG_MB}M" "$B/img/$1.img" || return 1
	dev=$(t losetup -f --show "$B/img/$1.img") || return 1
	echo "$dev" >>"$RUN/loops"
	# the kernel's default read-ahead: a loop device keeps what an earlier user set (it
	# survives losetup -d), and a server's read-ahead beyond what it is asked for spends a
	# capped disk's budget (8 MiB on two bricks took a converged box to 92% of S x D)
	echo 128 >"/sys/block/${dev#/dev/}/queue/read_ahead_kb" || return 1
	case "$2" in
	xfs) T=120 t mkfs.xfs -q -f "$dev" ;;
	ext4) T=120 t mkfs.ext4 -q -F -m 0 "$dev" ;;
	esac || return 1
	mkdir -p "$3" && t mount "$dev" "$3"
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
	fs_hook env
}
