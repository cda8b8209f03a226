#!/bin/sh
# ofsgap: an experiment (by hand, under the box lock: `flock /tmp/pfsread-box.lock
# tests/box/ofsgap.sh`): why converged OrangeFS reads fall short of the links' model. 4 nodes
# on 50 Mbit/s links in 2 racks, 32 x 16 MiB, 1 reader per node, cold; beside the run, every
# 0.5 s: each node's bytes received and sent, the CPU time of every pvfs2fuse and pvfs2-server,
# and the backlog of the tbf queues. Then the
# same with both uplinks at 16 Mbit/s. Also iperf3 on the 4 links at once, and one node reading
# alone. Prints the figures docs/box.md quotes.
. "$(dirname "$0")/boxlib.sh"

box_require
N=4
box_up --nodes $N --link-mbit 50 --fs orangefs --converged --racks 2 --uplink-mbit 100 ||
	{ fail "box up: $BOX_WHY"; done_testing; }
echo "# load $(cut -d' ' -f1-3 /proc/loadavg)"
G=$("$BOX" iperf n1 3)
figure "goodput, n1 alone" "$G Mbit/s"
# the 4 links at once: an iperf3 server per node on the server, 4 clients together
for k in 1 2 3 4; do
	nsenter --net=/run/netns/box-srv timeout 30 iperf3 -s -1 -B 10.77.0.2 -p $((5300 + k)) \
		>/dev/null 2>&1 &
done
sleep 0.5
for k in 1 2 3 4; do
	nsenter --net=/run/netns/box-n$k timeout 30 iperf3 -c 10.77.0.2 -p $((5300 + k)) -t 5 -R -f m \
		>"$SCRATCH/ip$k" 2>&1 &
done
wait
figure "goodput, the 4 links at once" "$(for k in 1 2 3 4; do awk '/receiver/ { print $(NF - 2) }' "$SCRATCH/ip$k"; done | tr '\n' ' ')Mbit/s"

DS="{name: c, file_size: 16MiB, file_count: 32}"
box_config "$SCRATCH/c.yaml" c /box/fs/c "$DS" "sweep: {readers_per_node: [1]}" "repetitions: 1" \
	"cache: fadvise"
check "generate" bmpi n1,n2,n3,n4 1 "$PFSREAD" generate "$SCRATCH/c.yaml"

# sampler OUT: a line every 0.5 s: time, then per node rx tx, then per node fuse-cpu server-cpu
# (clock ticks), then the tbf backlogs (bytes) of n1's egress, its switch port, up-r1, dn-r1
sampler() {
	while :; do
		l="$(date +%s.%N)"
		for k in 1 2 3 4; do
			l="$l $(ip netns exec box-n$k cat /proc/net/dev | awk '$1 == "eth0:" { print $2, $10 }')"
		done
		for k in 1 2 3 4; do
			for c in pvfs2fuse pvfs2-server; do
				v=0
				for p in $(ip netns pids box-n$k); do
					[ "$(cat /proc/$p/comm 2>/dev/null)" = "$c" ] &&
						v=$((v + $(awk '{ print $14 + $15 }' /proc/$p/stat)))
				done
				l="$l $v"
			done
		done
		for q in "box-n1 eth0" "box-r1 p-n1" "box-r1 up-r1" "box-sw dn-r1"; do
			set -- $q
			l="$l $(tc -n "$1" -s qdisc show dev "$2" | awk '/backlog/ { print $2; exit }' | tr -d b)"
		done
		echo "$l"
		sleep 0.5
	done
}

# measure NAME: a cold run of the data set with the sampler beside it
measure() {
	"$BOX" cold c
	sampler >"$SCRATCH/$1.samples" &
	sp=$!
	sleep 2
	sed -e "s/^name: c/name: $1/" "$SCRATCH/c.yaml" >"$SCRATCH/$1.yaml"
	check "$1: a cold run" bmpi n1,n2,n3,n4 1 "$PFSREAD" run "$SCRATCH/$1.yaml"
	sleep 1
	kill $sp 2>/dev/null
	wait $sp 2>/dev/null
	cp "$SCRATCH/$1.samples" "${OFSGAP_KEEP:-/tmp}/" 2>/dev/null
	"$PYTHON" - "$SCRATCH/$1" "$1" "$G" <<'PY'
import json, statistics, subprocess, sys
base, name, g = sys.argv[1], sys.argv[2], float(sys.argv[3])
def num(x):  # tc's backlog: 0, 1234, 67K, 1M
    m = {"K": 1e3, "M": 1e6}.get(x[-1:], 1)
    return float(x[:-1] if m != 1 else x) * m
rows = [list(map(num, l.split())) for l in open(base + ".samples") if len(l.split()) == 1 + 8 + 8 + 4]
# the run's interval: the samples where the nodes received at least a tenth of a link
busy = [i for i in range(1, len(rows)) if sum(rows[i][1 + 2 * k] - rows[i - 1][1 + 2 * k] for k in range(4)) /
        (rows[i][0] - rows[i - 1][0]) > 0.1 * g * 1e6 / 8]
a, b = rows[busy[0] - 1], rows[busy[-1]]
dt = b[0] - a[0]
rx = [(b[1 + 2 * k] - a[1 + 2 * k]) / dt * 8 / 1e6 for k in range(4)]
tx = [(b[2 + 2 * k] - a[2 + 2 * k]) / dt * 8 / 1e6 for k in range(4)]
cpu = [(b[9 + j] - a[9 + j]) / dt for j in range(8)]  # ticks/s = % of a core when 100 Hz
print("# %s: busy %.1f s; per node rx %s Mbit/s, tx %s (link goodput %.1f)" % (
    name, dt, " ".join("%.1f" % x for x in rx), " ".join("%.1f" % x for x in tx), g))
print("# %s: CPU %% of a core: pvfs2fuse %s, pvfs2-server %s" % (
    name, " ".join("%.0f" % cpu[2 * k] for k in range(4)), " ".join("%.0f" % cpu[2 * k + 1] for k in range(4))))
bl = [[r[17 + j] for r in rows[busy[0]:busy[-1] + 1]] for j in range(4)]
print("# %s: tbf backlog median/max [KB]: n1 egress %s, n1's port %s, up-r1 %s, dn-r1 %s" % (
    name, *["%.0f/%.0f" % (statistics.median(x) / 1e3, max(x) / 1e3) for x in bl]))
PY
	b=$(rep_json "$SCRATCH/$1.h5" "d['cells'][0]['mean_MBps']")
	sw=$(rep_json "$SCRATCH/$1.h5" "d['cells'][0]['stonewall_MBps']")
	figure "$1: aggregate" "$b MB/s, stonewall $sw (the links' model N x goodput x S/(S-1): $(awk -v g="$G" 'BEGIN { printf "%.2f", 4 * g / 8 * 4 / 3 }'))"
}
measure links
# one node alone: n1 reads 4 files with dd (a reader at 4 MiB), cold
"$BOX" cold c
F=$("$BOX" exec n1 -- find /box/fs/c -type f -size +1M | sort | head -n 4)
s=$(date +%s.%N)
# shellcheck disable=SC2086
"$BOX" exec n1 -- sh -c "for f in $(echo $F); do dd if=\$f of=/dev/null bs=4M 2>/dev/null; done"
figure "n1 alone, 4 x 16 MiB with dd" "$(awk -v a="$s" -v b="$(date +%s.%N)" -v g="$G" 'BEGIN { r = 64 * 1.048576 / (b - a); printf "%.2f MB/s = %.1f%% of goodput x 4/3 (%.2f)", r, 100 * r / (g / 8 * 4 / 3), g / 8 * 4 / 3 }')"
"$BOX" rate r1 16 && "$BOX" rate r2 16
figure "goodput through an uplink at 16 Mbit/s (its model: 4 x this)" "$("$BOX" iperf n1 3) Mbit/s"
measure uplinks
box_down_clean "down"
done_testing
