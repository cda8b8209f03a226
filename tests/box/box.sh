#!/bin/bash
# box.sh: a cluster in a box on one Linux machine (root, no systemd): client nodes n1..nN, each
# its own network, mount and UTS namespace, joined to a storage server by shaped veth links, and
# a real distributed file system (GlusterFS, MooseFS, CephFS or OrangeFS) mounted at /box/fs on
# every node. With --converged the file system's servers run on every node instead (GlusterFS or
# OrangeFS: a server per node on that node's own storage image, no separate server).
#
#   box.sh up --nodes N --link-mbit R [--slow NODE=R2 ...] [--server-mbit S]
#             [--fs glusterfs|moosefs|cephfs|orangefs|none] [--bricks B] [--converged]
#             [--racks K --uplink-mbit U] [--disk-mibps D] [--delay-ms L] [--slurm]
#   box.sh exec NODE -- CMD...      run CMD on NODE (n1..nN, head or server; --slurm: sbatch in head)
#   box.sh hostfile [--nodes K] [--slots S]   a hostfile of the first K nodes (default all, 4 slots)
#   box.sh mpirun ARGS...           mpirun across the nodes (the box's hostfile unless ARGS name hosts)
#   box.sh down                     remove everything (idempotent)
#   box.sh status                   what is up
#   box.sh owner                    the pid of the test that brought the box up (none: empty)
#   box.sh howto                    how to submit the job scripts to a box up with --slurm
# and, for tests:
#   box.sh rate NODE|server|rK MBIT|off reshape a link, or rack K's uplink (both directions)
#   box.sh cut NODE | mend NODE         cut / restore the path between NODE and the server
#   box.sh rx NODE|rK                   bytes NODE has received on its link (rack K: on its uplink)
#   box.sh iperf NODE [SECONDS]         TCP goodput server -> NODE in Mbit/s (iperf3)
#   box.sh cold [DIR]                   evict the files under /box/fs/DIR from every cache in the box
#   box.sh diskcap MIBPS|off [K]        cap the server's reads from its brick devices (cgroup v1
#                                       blkio); with K, from brick K's device alone (1..--bricks;
#                                       converged: node K's)
#
# Layout (addresses exist only inside the box's namespaces; none has a default route):
#   box-sw    the switch: bridge br0 and one port p-NAME per link; tc tbf on p-NAME limits what NAME
#             receives (a node's reads), tc tbf on NAME's eth0 what it sends (racks.sh: the
#             backbone, the nodes' ports on rack switches box-rK); --delay-ms: each link is
#             two TAP devices joined by a delay line (tapdelay.c), L ms each way
#   box-head  10.77.0.1   where mpirun runs (unshaped); --slurm: munged and slurmctld (box_slurm.sh)
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
usage() { say "$*"; sed -n '3,26p' "$0" >&2; exit 2; }
t() { timeout "${T:-60}" "$@"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
node_ip() { echo "10.77.0.$((10 + ${1#n}))"; }
state() { sed -n "s/^$1=//p" "$RUN/state" 2>/dev/null; }
nodes() { seq 1 "$(state nodes)" | sed 's/^/n/'; }

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
	local racks=0 uplink="" disk=off delay=0 slurm=0
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
		--slurm) slurm=1 && shift ;;
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
		case "$fs" in glusterfs | orangefs) bricks=$nodes ;;
		*) usage "up: --converged needs --fs glusterfs or orangefs" ;; esac
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
	printf 'racks=%s\nuplink_mbit=%s\ndisk_mibps=%s\ndelay_ms=%s\nslurm=%s\n' "$racks" \
		"${uplink:-off}" "$disk" "$delay" "$slurm" >>"$RUN/state"
	# the test that brought the box up (boxlib.sh sets BOX_OWNER), for another run to wait on
	echo "owner=${BOX_OWNER:-}" >>"$RUN/state"
	net_up || up_failed
	ns_up || up_failed
	fs_hook up || up_failed
	[ "$disk" = off ] || cmd_diskcap "$disk" || { WHY="cannot cap the storage's reads (diskcap)"; up_failed; }
	mpi_up || up_failed
	[ "$slurm" = 0 ] || slurm_up || up_failed
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
			echo ", converged: one on every node")) at $B/fs")$(racks_summary)$(
		[ "$(state slurm)" != 1 ] || echo ", Slurm (slurmctld in head, slurmd on n1-n$(state nodes))")"
}

cmd_down() {
	local start n p pids left
	start=$(now)
	[ "$(id -u)" -eq 0 ] || die "down needs root"
	slurm_down
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
	owner) state owner ;;
	howto) need_up && slurm_howto ;;
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
for f in "$BOX_HERE"/box_*.sh "$BOX_HERE"/fs_*.sh "$BOX_HERE"/racks.sh; do
	# shellcheck disable=SC1090
	[ -f "$f" ] && . "$f"
done

main "$@"
