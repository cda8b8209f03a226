# shellcheck shell=bash
# racks.sh: the box's racks, sourced by box.sh (`up --racks K --uplink-mbit U`). The nodes are
# spread evenly over K rack switches (n1.. in rack 1, the next block in rack 2, ...), each a
# bridge in a namespace of its own (box-rK); every rack switch reaches the backbone (box-sw,
# where the head and the server are) by one veth pair, its uplink, shaped to U Mbit/s each way
# (tbf on both ends: up-rK sends into the backbone, dn-rK into the rack). `box.sh rate rK U2`
# reshapes rack K's uplink.

# rack_of NODE: the rack (1..K) of node nI: the nodes in K even blocks
rack_of() {
	local i=${1#n} k n
	k=$(state racks)
	n=$(state nodes)
	echo $(((i - 1) * k / n + 1))
}

# the switch a link ends on: a node's rack switch when the box has racks, else the backbone
sw_of() {
	case "$1" in
	n[1-9]*) [ "$(state racks)" -gt 0 ] 2>/dev/null && echo "box-r$(rack_of "$1")" && return ;;
	esac
	echo box-sw
}

# shape_uplink rK RATE|off: rack K's uplink at RATE Mbit/s both ways
shape_uplink() {
	case "$2" in off) ;; '' | *[!0-9]*) die "bad rate '$2' (Mbit/s, a whole number, or off)" ;; esac
	qdisc_set "box-$1" "up-$1" "$2" && qdisc_set box-sw "dn-$1" "$2"
}

# racks_up: the rack switches and their uplinks to the backbone (box-sw, made already)
racks_up() {
	local k
	for k in $(seq "$(state racks)"); do
		t ip netns add "box-r$k" &&
			t ip -n "box-r$k" link add br0 type bridge &&
			t ip -n "box-r$k" link set br0 up && t ip -n "box-r$k" link set lo up &&
			wire "box-r$k" "up-r$k" box-sw "dn-r$k" &&
			t ip -n "box-r$k" link set "up-r$k" master br0 && t ip -n "box-r$k" link set "up-r$k" up &&
			t ip -n box-sw link set "dn-r$k" master br0 && t ip -n box-sw link set "dn-r$k" up &&
			shape_uplink "r$k" "$(state uplink_mbit)" || return 1
	done
}

# for the summary line: ", 2 racks (uplinks 40 Mbit/s)", or nothing
racks_summary() {
	local d
	[ "$(state racks)" -gt 0 ] 2>/dev/null &&
		printf ', %s racks (uplinks %s Mbit/s)' "$(state racks)" "$(state uplink_mbit)"
	[ "$(state disk_mibps)" = off ] || [ -z "$(state disk_mibps)" ] ||
		printf ', storage reads capped at %s MiB/s' "$(state disk_mibps)"
	d=$(state delay_ms)
	[ "${d:-0}" = 0 ] || printf ', links delayed %s ms each way' "$d"
}
