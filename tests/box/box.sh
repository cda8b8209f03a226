#!/bin/bash
# box.sh: a cluster in a box on one Linux machine (root, no systemd): client nodes n1..nN, each
# its own network, mount and UTS namespace, joined to a storage server by shaped veth links, and
# a real distributed file system (GlusterFS, MooseFS, CephFS or OrangeFS) mounted at /box/fs on
# every node. With --converged the file system's servers run on every node instead (OrangeFS:
# a server per node on that node's own storage image, no separate server).
#
#   box.sh up --nodes N --link-mbit R [--slow NODE=R2 ...] [--server-mbit S]
#             [--fs glusterfs|moosefs|cephfs|orangefs|none] [--bricks B] [--converged]
#             [--racks K --uplink-mbit U] [--disk-mibps D] [--delay-ms L]
#   box.sh exec NODE -- CMD...      run CMD on NODE (n1..nN, head or server)
#   box.sh hostfile [--nodes K] [--slots S]   a hostfile of the first K nodes (default all, 4 slots)
#   box.sh mpirun ARGS...           mpirun across the nodes (the box's hostfile unless ARGS name hosts)
#   box.sh down                     remove everything (idempotent)
#   box.sh status                   what is up
# and, for tests:
#   box.sh rate NODE|server|rK MBIT|off reshape a link, or rack K's uplink (both directions)
#   box.sh cut NODE | mend NODE         cut / restore the path between NODE and the server
#   box.sh rx NODE                      bytes NODE has received on its link
#   box.sh iperf NODE [SECONDS]         TCP goodput server -> NODE in Mbit/s (iperf3)
#   box.sh cold [DIR]                   evict the files under /box/fs/DIR from every cache in the box
#   box.sh diskcap MIBPS|off [K]        cap the server's reads from its brick devices (cgroup v1
#                                       blkio); with K, from brick K's device alone (1..--bricks;
#                                       converged: node K's)
#
# Layout (addresses exist only inside the box's namespaces; none has a default route):
#   box-sw    the switch: bridge br0 and one port p-NAME per link; tc tbf on p-NAME limits what NAME
#             receives (a node's reads), tc tbf on NAME's eth0 what it sends (racks.sh: the
#             backbone, the nodes' ports on rack switches box-rK); --delay-ms: netem on each
#             of them too, L ms each way per link
#   box-head  10.77.0.1   where mpirun runs (unshaped)
#   box-srv   10.77.0.2   the storage server: every file system daemon (none when converged)
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
CG_BLKIO=/sys/fs/cgroup/blkio/box-srv
BOX_HERE=$(cd "$(dirname "$0")" && pwd)
# file systems added by a file of their own (fs_NAME.sh: fs_NAME_up and its other hooks)
BOX_FS_LIST=""  # (their knobs, BOX_GLUSTER_*, BOX_MFS_*, ..., are theirs too)
# the file system's processes in the nodes, which go with their mounts (down spares them first)
BOX_FS_DAEMONS=""

say() { echo "box: $*" >&2; }
step() { [ -z "${BOX_VERBOSE:-}" ] || say "$1: $(since "$2") s"; }
die() { say "$*"; exit 1; }
usage() { say "$*"; sed -n '3,25p' "$0" >&2; exit 2; }
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
	case "$rate" in off) ;; '' | *[!0-9]*) die "bad rate '$rate' (Mbit/s, a whole number, or off)" ;; esac
	# the switch's port sends to NAME: that limits NAME's reads; NAME's eth0 limits its writes
	qdisc_set "$(sw_of "$name")" "p-$name" "$rate" && qdisc_set "box-$name" eth0 "$rate"
}

# qdisc_set NS DEV RATE|off: DEV sends at most RATE Mbit/s, each packet held --delay-ms first
qdisc_set() {
	local d
	d=$(state delay_ms)
	if [ "$3" = off ]; then
		t tc -n "$1" qdisc del dev "$2" root 2>/dev/null
		[ "${d:-0}" = 0 ] || t tc -n "$1" qdisc add dev "$2" root netem delay "${d}ms" limit 100000 ||
			no_netem
		return
	fi
	t tc -n "$1" qdisc replace dev "$2" root handle 1: tbf rate "${3}mbit" burst 256kb latency 50ms &&
		{ [ "${d:-0}" = 0 ] || t tc -n "$1" qdisc replace dev "$2" parent 1:1 handle 10: \
			netem delay "${d}ms" limit 100000 || no_netem; }
}

no_netem() {
	WHY="--delay-ms needs tc's netem, which this kernel lacks (CONFIG_NET_SCH_NETEM)"
	return 1
}

# the switch NAME's link ends on (racks.sh: a node's rack switch)
sw_of() { echo box-sw; }

# link NAME ADDRESS: namespace box-NAME with eth0 at ADDRESS on its switch, no default route
link_up() {
	local sw
	sw=$(sw_of "$1")
	t ip netns add "box-$1" &&
		t ip -n "$sw" link add "p-$1" type veth peer name eth0 netns "box-$1" &&
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
	local nodes="" link="" slow="" server=off fs=glusterfs bricks="" conv=0 n s start left
	local racks=0 uplink="" disk=off delay=0
	while [ $# -gt 0 ]; do
		case "$1" in
		--nodes) nodes=${2:-} && shift 2 ;;
		--link-mbit) link=${2:-} && shift 2 ;;
		--slow) slow="$slow ${2:-}" && shift 2 ;;
		--server-mbit) server=${2:-} && shift 2 ;;
		--fs) fs=${2:-} && shift 2 ;;
		--bricks) bricks=${2:-} && shift 2 ;;
		--converged) conv=1 && shift ;;
		--racks) racks=${2:-} && shift 2 ;;
		--uplink-mbit) uplink=${2:-} && shift 2 ;;
		--disk-mibps) disk=${2:-} && shift 2 ;;
		--delay-ms) delay=${2:-} && shift 2 ;;
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
	case " $BOX_FS_LIST none " in *" $fs "*) ;;
	*) usage "up: --fs $(echo $BOX_FS_LIST none | tr ' ' '|'), not '$fs'" ;; esac
	case "$fs" in cephfs) : "${bricks:=2}" ;; *) : "${bricks:=1}" ;; esac
	case "$bricks" in '' | *[!0-9]* | 0) usage "up: bad --bricks '$bricks'" ;; esac
	case "$racks" in *[!0-9]*) usage "up: bad --racks '$racks'" ;; esac
	[ "$racks" -le "$nodes" ] || usage "up: --racks $racks, more than the $nodes nodes"
	case "$racks:$uplink" in 0:) ;; 0:*) usage "up: --uplink-mbit needs --racks" ;;
	*:0 | *:*[!0-9]* | *:) usage "up: --racks K needs --uplink-mbit U (Mbit/s)" ;; esac
	case "$disk" in off) ;; '' | *[!0-9]* | 0) usage "up: bad --disk-mibps '$disk'" ;; esac
	case "$delay" in '' | *[!0-9]*) usage "up: bad --delay-ms '$delay' (whole ms)" ;; esac
	if [ "$conv" = 1 ]; then
		case "$fs" in orangefs) bricks=$nodes ;;
		*) usage "up: --converged needs --fs orangefs" ;; esac
	fi
	[ "$(id -u)" -eq 0 ] || die "up needs root"
	left=$(leftovers)
	[ -z "$left" ] || die "a box is left over ($left): run '$0 down' first"
	# what a file system needs once (a build), before anything of the box exists
	FS=$fs fs_hook prepare || die "cannot start: $WHY"

	start=$(now)
	trap 'say "up interrupted: tearing down"; cmd_down >/dev/null 2>&1; exit 130' INT TERM
	mkdir -p "$B" && t mount -t tmpfs -o "size=${TMPFS_MB}m,nr_inodes=20000,mode=0755" boxfs "$B" &&
		t mount --make-private "$B" || up_failed
	mkdir -p "$RUN" "$B/fs" "$B/log" "$B/img" && : >"$RUN/pids" && : >"$RUN/loops"
	printf 'nodes=%s\nlink_mbit=%s\nslow=%s\nserver_mbit=%s\nfs=%s\nbricks=%s\nconverged=%s\n' \
		"$nodes" "$link" "${slow# }" "$server" "$fs" "$bricks" "$conv" >"$RUN/state"
	printf 'racks=%s\nuplink_mbit=%s\ndisk_mibps=%s\ndelay_ms=%s\n' "$racks" "${uplink:-off}" \
		"$disk" "$delay" >>"$RUN/state"
	net_up || up_failed
	ns_up || up_failed
	fs_hook up || up_failed
	[ "$disk" = off ] || cmd_diskcap "$disk" || { WHY="cannot cap the storage's reads (diskcap)"; up_failed; }
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
		"$([ "$(state fs)" = none ] || echo "($(state bricks) bricks$([ "$(state converged)" != 1 ] ||
			echo ", converged: one on every node")) at $B/fs")$(racks_summary)"
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
			case " $BOX_FS_DAEMONS " in *" $(cat "/proc/$p/comm" 2>/dev/null) "*) ;; *) pids="$pids $p" ;; esac
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
	fs_hook env
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
	[ -n "$r" ] || usage "rate NODE|server|rK MBIT|off"
	case "$n" in
	r[1-9]*) [ "${n#r}" -le "$(state racks)" ] 2>/dev/null || die "no rack '$n' in the box"
		shape_uplink "$n" "$r"
		return ;;
	esac
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
                # DONTNEED skips dirty pages: a file just written is written back first
                try:
                    os.fdatasync(fd)
                except OSError:
                    pass
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)'
	for n in $(nodes); do T=120 ton "$n" python3 -c "$p" "$B/fs/$d" || return 1; done
	# shellcheck disable=SC2046
	T=120 t python3 -c "$p" $(ls -d "$B"/srv/brick*/b "$B"/srv/chunks* 2>/dev/null) $(fs_hook cold_dirs)
}

cmd_diskcap() {
	local r=${1:-} k=${2:-} p d mm
	need_up
	case "$r" in off) r=0 ;; '' | *[!0-9]*) usage "diskcap MIBPS|off [K]" ;; *) r=$((r * 1048576)) ;; esac
	case "$k" in '' | [1-9] | [1-9][0-9]) ;; *) usage "diskcap: bad brick number '$k'" ;; esac
	[ -d /sys/fs/cgroup/blkio ] || die "diskcap needs cgroup v1 blkio"
	mkdir -p "$CG_BLKIO" || return 1
	# the processes that read the storage: the server's, or converged every node's
	for p in $(ip netns pids box-srv; [ "$(state converged)" != 1 ] ||
		for d in $(nodes); do ip netns pids "box-$d"; done); do
		echo "$p" >"$CG_BLKIO/cgroup.procs" 2>/dev/null
	done
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

# fs_hook NAME ARGS...: the file system's hook fs_FS_NAME (FS: the box's, or $FS), if it has one
fs_hook() {
	local f="fs_${FS:-$(state fs)}_$1"
	shift
	[ "$(type -t "$f")" = function ] || return 0
	"$f" "$@"
}

# what adding a file system or a shape of the box adds: a file of its own
for f in "$BOX_HERE"/fs_*.sh "$BOX_HERE"/racks.sh; do
	# shellcheck disable=SC1090
	[ -f "$f" ] && . "$f"
done

main "$@"
