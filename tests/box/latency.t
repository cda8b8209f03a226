#!/bin/sh
# latency: readers that wait on round trips, the reference study's 1 -> 2 readers signature. A
# GlusterFS box of 2 nodes whose links (BOX_LATENCY_LINK Mbit/s, default 400: fast enough not
# to bind) each hold every frame BOX_DELAY_MS ms each way (default 10; the delay line,
# tests/box/tapdelay.c), so a round trip node -> server crosses 4 x BOX_DELAY_MS. One cold run
# at 1, 2 and 4 readers per node:
#  a. the per-reader rate at 1 reader/node, in its reads (bytes / time in read calls: the files'
#     opens, a few round trips each, are shown apart), is 0.80-1.15 x bytes in flight / round
#     trip (wider below: the 2 cores that carry the delay lines, the client and the reader can
#     only add to a round trip);
#  b. the aggregate at 2 readers/node is >= 1.7 x that at 1;
#  c. the report's answer names readers waiting on round trips;
# and that the delay lines dropped no frame.
# The bytes a reader keeps in flight are the client's, measured here: GlusterFS's FUSE client
# forwards every request the kernel makes at once, and the kernel's read-ahead keeps two
# windows of the mount's read_ahead_kb in flight for a sequential reader, each window doubled
# by POSIX_FADV_SEQUENTIAL (pfsread's posix default): W = 4 x read_ahead_kb. A request's
# time is the round trip (ping's mean) plus W at the link's goodput (iperf3): rate = W / (RTT + W / G).
# With BOX_DELAY_MS=0 the links bind at every readers-per-node and a, b, c fail.
. "$(dirname "$0")/boxlib.sh"

box_require
"$TOP/tests/install-deps.sh" iputils-ping >"$SCRATCH/apt-ping.log" 2>&1 ||
	skip_all "cannot install ping: $(tail -n 1 "$SCRATCH/apt-ping.log")"
R=${BOX_LATENCY_LINK:-400}
L=${BOX_DELAY_MS:-10}
if ! box_up --nodes 2 --link-mbit "$R" --fs glusterfs --delay-ms "$L"; then
	fail "a box of 2 nodes on GlusterFS with links delayed $L ms comes up"
	done_testing
fi
pass "a box of 2 nodes on GlusterFS with links delayed $L ms comes up"

# rtt FROM TO: the round trips of 10 pings, "min mean" in ms
rtt() {
	"$BOX" exec "$1" -- ping -n -q -c 10 -i 0.2 "$2" 2>&1 | tee "$SCRATCH/ping.out" |
		awk -F'[/ ]' '/^rtt|^round-trip/ { print $7, $8 }'
}
read -r RTT_MIN RTT <<EOF
$(rtt n1 server)
EOF
read -r _ RTT_NN <<EOF
$(rtt n1 n2)
EOF
figure "round trip n1 -> server (ping: min, mean)" "$RTT_MIN, $RTT ms (4 x $L ms added)"
figure "round trip n1 -> n2 (ping: mean)" "$RTT_NN ms"
# the least of them: the delay lines' holds, one per crossing. The upper bound is one hold
# more (a crossing held twice, or a delay in the wrong unit, adds at least that), never a
# figure of this machine's speed: the wait for a core on a loaded machine only adds to it.
[ -n "$RTT_MIN" ] && ge "$RTT_MIN" "$((4 * L))" && ! ge "$RTT_MIN" "$((5 * L))"
ok_status $? "the shortest round trip n1 -> server is 4 x $L ms, less than a fifth hold"
[ -n "$RTT_MIN" ] || sed 's/^/#   /' "$SCRATCH/ping.out"

G=$("$BOX" iperf n1 5)
GM=$(mbps "$G")
figure "link goodput (iperf3 server -> n1)" "$G Mbit/s = $GM MB/s"
dev=$("$BOX" exec n1 -- mountpoint -d /box/fs)
RA=$("$BOX" exec n1 -- cat "/sys/class/bdi/$dev/read_ahead_kb")
figure "n1's FUSE mount read_ahead_kb" "$RA"
ge "${RA:-0}" 1
ok_status $? "the client's read-ahead window is known"
# the prediction, in MB/s: W = 4 x read_ahead_kb (see the top of this file)
W=$(awk -v r="$RA" 'BEGIN { print 4 * r * 1024 }')
P=$(awk -v w="$W" -v t="$RTT" -v g="$GM" 'BEGIN { printf "%.2f", w / (t / 1000 + w / (g * 1e6)) / 1e6 }')
figure "predicted per-reader rate" "$P MB/s ($W bytes in flight / ($RTT ms + W / goodput))"

DS="{name: lat, file_size: 16MiB, file_count: 16}"
box_config "$SCRATCH/gen.yaml" gen /box/fs/lat "$DS"
check "generate the data set on 2 nodes" bmpi n1,n2 1 "$PFSREAD" generate "$SCRATCH/gen.yaml"
box_config "$SCRATCH/rpn.yaml" rpn /box/fs/lat "$DS" "sweep: {readers_per_node: [1, 2, 4]}" \
	"repetitions: 1" "cache: fadvise" \
	"hardware: {node_link_MBps: $GM, storage_servers: 1, server_link_MBps: 100000}"
"$BOX" cold lat && bmpi n1,n2 4 "$PFSREAD" run "$SCRATCH/rpn.yaml" >"$SCRATCH/rpn.out" 2>&1
st=$?
ok_status $st "run 1, 2, 4 readers/node on 2 nodes, cold"
[ $st -eq 0 ] || sed 's/^/#   /' "$SCRATCH/rpn.out" | tail -n 20
cell() { rep_json "$SCRATCH/rpn.h5" "d['cells'][$1]['$2']"; }

# diagnose: every figure a failure needs, once
diagnose() {
	box_rates "$SCRATCH/rpn.h5"
	echo "#   round trips: n1 -> server $RTT ms, n1 -> n2 $RTT_NN ms; goodput $GM MB/s"
	for f in /box/log/delay-*.log; do [ -s "$f" ] && sed 's/^/#   /' "$f"; done
	ps -eo pid,pcpu,comm | awk '$3 == "tapdelay" || $3 ~ /^gluster/' | sed 's/^/#   /'
	box_load
}

A1=$(cell 0 mean_MBps)
A2=$(cell 1 mean_MBps)
ph() { rep_json "$SCRATCH/rpn.h5" "d['phases'][0]['$1']"; }
PR=$(awk -v b="$(ph bytes)" -v s="$(ph read_s)" 'BEGIN { printf "%.2f", b / s / 1e6 }')
for i in 0 1 2; do
	figure "$(cell $i readers_per_node) readers/node: aggregate, share of the links" \
		"$(awk -v a="$(cell $i mean_MBps)" 'BEGIN { printf "%.2f", a }') MB/s, $(awk -v a="$(cell $i mean_MBps)" -v g="$GM" 'BEGIN { printf "%.1f%%", 50 * a / g }')"
done
figure "1 reader/node: per-reader rate in its reads" "$PR MB/s ($(awk -v a="$PR" -v p="$P" 'BEGIN { printf "%.2f", a / p }') x the prediction)"
figure "1 reader/node: per-reader rate, opens too" "$(awk -v a="$A1" 'BEGIN { printf "%.2f", a / 2 }') MB/s"
figure "1 reader/node: an open" "$(awk -v o="$(ph open_s)" -v n="$(ph files_read)" -v t="$RTT" \
	'BEGIN { printf "%.1f ms = %.1f round trips", 1000 * o / n, 1000 * o / n / t }')"
figure "aggregate 2 / 1 readers per node" "$(awk -v a="$A2" -v b="$A1" 'BEGIN { printf "%.2f", a / b }') x"
# the delay lines' counts as of now (frames passed, dropped for a full ring) in their logs
delay_counts() {
	for p in $(awk '$3 == "tapdelay" { print $1 }' /box/run/pids); do kill -USR1 "$p"; done
	sleep 0.5
}
f0=$T_FAILED
delay_counts
drops=$(cat /box/log/delay-*.log 2>/dev/null | awk '/ passed, / { sub(/.* passed, /, ""); d += $1 } END { print d + 0 }')
told=$(cat /box/log/delay-*.log 2>/dev/null | grep -c ' passed, ')
figure "frames the delay lines dropped (ring full)" "$drops (counts from $told directions)"
[ "$drops" = 0 ] && { [ "$L" = 0 ] || [ "$told" -ge 2 ]; }
ok_status $? "the delay lines dropped no frame"
ge "$PR" "$(awk -v p="$P" 'BEGIN { print 0.80 * p }')" && ge "$(awk -v p="$P" 'BEGIN { print 1.15 * p }')" "$PR"
ok_status $? "a. 1 reader/node: per-reader rate in its reads 0.80-1.15 x bytes in flight / round trip"
ge "$A2" "$(awk -v a="$A1" 'BEGIN { print 1.7 * a }')"
ok_status $? "b. 2 readers/node: aggregate >= 1.7 x that at 1 reader/node"
OUT=$("$PFSREAD" report "$SCRATCH/rpn.h5")
echo "$OUT" | sed -n '/^answer for/,/^$/p' | sed 's/^/# /'
contains "readers wait on round trips" "c. the report's answer names readers waiting on round trips"
[ "$T_FAILED" = "$f0" ] || diagnose

done_testing
