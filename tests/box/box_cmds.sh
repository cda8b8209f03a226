#!/bin/bash
# box_cmds.sh: box.sh's commands on a box that is up: exec, hostfile, mpirun, status, and the tests' rate, cut, mend, rx, iperf, cold, diskcap
# Sourced by box.sh (its variables and helpers in scope); functions only.

# ---- commands on a box that is up ----

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
	slurm_env
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
	case "${1:-}" in
	r[1-9]*)
		[ "${1#r}" -le "$(state racks)" ] 2>/dev/null || die "no rack '$1' in the box"
		# what rack K receives over its uplink: the backbone's end sends it
		nsenter --net=/run/netns/box-sw cat /proc/net/dev | awk -v i="dn-$1:" '$1 == i { print $10 }'
		return
		;;
	esac
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
	nsenter --net=/run/netns/box-srv timeout $((secs + 21)) iperf3 -s -1 -B "$SRV_IP" -p "$port" \
		</dev/null >/dev/null 2>&1 &
	record_pid $!
	sleep 0.3
	# -R: the server sends, as a read does. -O 1: the first second is not counted, since a
	# shaped link lets its bucket (tbf's burst, 256 KB) through at once: in 3 s at 32 Mbit/s
	# that alone adds 1.6% to the figure, and nothing sustained runs at it
	out=$(T=$((secs + 16)) t nsenter --net="/run/netns/box-$n" iperf3 -c "$SRV_IP" -p "$port" \
		-t "$secs" -O 1 -R -f m 2>&1) || die "iperf3: $out"
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
