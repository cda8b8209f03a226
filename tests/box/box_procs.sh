#!/bin/bash
# box_procs.sh: the box's processes: each one it starts recorded (pid and start time), and only those ended
# Sourced by box.sh (its variables and helpers in scope); functions only.
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
