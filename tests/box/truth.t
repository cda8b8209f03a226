#!/bin/sh
# truth: pfsread's multi-node numbers against the physics a box sets. One GlusterFS box of 3
# nodes with shaped links (BOX_LINK Mbit/s, default 400), 1 reader per node unless said:
#  1. one node reads at its link's TCP goodput (within 10%), the report names the link the limit;
#  2. the aggregate grows with nodes (>= 0.85 x N x one node) while the server is not the limit,
#     and stays at the server's goodput (within 10%) when its link is capped: the report names it;
#  3. 1, 2 and 4 readers per node on 2 nodes: flat at the nodes' links, each the report's limit;
#  4. one node at a quarter of the others' rate: the report names it the straggler, times slower
#     within 20% of the true ratio; aggregate and stonewall where the rates put them;
#  5. cache shift, none (two repetitions) and drop against the bytes counted on the nodes' links.
# Figures are compared with goodputs measured in the same box (iperf3), never with fixed times.
. "$(dirname "$0")/boxlib.sh"

box_require
R=$BOX_LINK
if ! box_up --nodes 3 --link-mbit "$R" --fs glusterfs; then
	fail "a box of 3 nodes on GlusterFS comes up"
	done_testing
fi
pass "a box of 3 nodes on GlusterFS comes up"

pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f%%", 100 * a / b }'; }
hw() { echo "hardware: {node_link_MBps: $1, storage_servers: 1, server_link_MBps: $2}"; }

G=$("$BOX" iperf n1 5)
GM=$(mbps "$G")
figure "link goodput (iperf3 server -> n1)" "$G Mbit/s = $GM MB/s"
ge "$G" 1
ok_status $? "the link's goodput is measured"

# data set a: 24 files of 16 MiB (24 splits evenly over 1, 2, 3, 4 and 8 readers)
DSA="{name: a, file_size: 16MiB, file_count: 24}"
box_config "$SCRATCH/gen-a.yaml" gena /box/fs/truth "$DSA"
check "generate data set a on 3 nodes" bmpi n1,n2,n3 1 "$PFSREAD" generate "$SCRATCH/gen-a.yaml"

# study NAME HOSTS RANKS_PER_NODE READERS_PER_NODE HARDWARE: one cold run of data set a
study() {
	box_config "$SCRATCH/$1.yaml" "$1" /box/fs/truth "$DSA" \
		"sweep: {readers_per_node: [$4]}" "repetitions: 1" "cache: fadvise" "$5"
	"$BOX" cold truth &&
		bmpi "$2" "$3" "$PFSREAD" run "$SCRATCH/$1.yaml" >"$SCRATCH/$1.out" 2>&1
	st=$?
	ok_status $st "run $1 ($2, $4 reader(s)/node)"
	[ $st -eq 0 ] || sed 's/^/#   /' "$SCRATCH/$1.out" | tail -n 20
}
cell() { rep_json "$SCRATCH/$1.h5" "d['cells'][$2]['$3']"; }
limit() { rep_json "$SCRATCH/$1.h5" "d['cells'][$2]['ceiling']['limit']"; }

# ---- 1. raw ceiling ----
study one n1 1 1 "$(hw "$GM" 100000)"
B1=$(cell one 0 mean_MBps)
figure "1 node: pfsread aggregate" "$B1 MB/s ($(pct "$B1" "$GM") of the goodput)"
within "$B1" "$GM" 0.10
ok_status $? "1 node: pfsread's cold aggregate is within 10% of the link's goodput"
OUT=$("$PFSREAD" report "$SCRATCH/one.h5")
contains "reader links (the ceiling)" "1 node: the report's ceilings name the node's link as the limit"

# ---- 2. aggregation ----
study two n1,n2 1 1 "$(hw "$GM" 100000)"
study three n1,n2,n3 1 1 "$(hw "$GM" 100000)"
B2=$(cell two 0 mean_MBps)
B3=$(cell three 0 mean_MBps)
figure "2 nodes: pfsread aggregate" "$B2 MB/s ($(awk -v a="$B2" -v b="$B1" 'BEGIN { printf "%.2f", a / b }') x one node)"
figure "3 nodes: pfsread aggregate" "$B3 MB/s ($(awk -v a="$B3" -v b="$B1" 'BEGIN { printf "%.2f", a / b }') x one node)"
ge "$B2" "$(awk -v b="$B1" 'BEGIN { print 0.85 * 2 * b }')"
ok_status $? "2 nodes: aggregate >= 0.85 x 2 x one node"
ge "$B3" "$(awk -v b="$B1" 'BEGIN { print 0.85 * 3 * b }')"
ok_status $? "3 nodes: aggregate >= 0.85 x 3 x one node"
[ "$(limit three 0)" = "reader links" ]
ok_status $? "3 nodes: the report names the nodes' links as the limit"

"$BOX" rate server "$R"
S=$("$BOX" iperf n1 5)
SM=$(mbps "$S")
figure "server link capped at $R Mbit/s: goodput" "$S Mbit/s = $SM MB/s"
study two-cap n1,n2 1 1 "$(hw "$GM" "$SM")"
study three-cap n1,n2,n3 1 1 "$(hw "$GM" "$SM")"
"$BOX" rate server off
for run in two-cap three-cap; do
	b=$(cell $run 0 mean_MBps)
	figure "$run: pfsread aggregate" "$b MB/s ($(pct "$b" "$SM") of the server's goodput)"
	within "$b" "$SM" 0.10
	ok_status $? "$run: the aggregate stays at the server's cap (within 10%)"
	[ "$(limit $run 0)" = "server links" ]
	ok_status $? "$run: the report names the server's link as the limit"
done

# ---- 3. readers per node 1, 2, 4 on 2 nodes ----
study rpn n1,n2 4 "1, 2, 4" "$(hw "$GM" 100000)"
lo=""
hi=""
for i in 0 1 2; do
	r=$(cell rpn $i readers_per_node)
	b=$(cell rpn $i mean_MBps)
	figure "2 nodes, $r readers/node: aggregate" "$b MB/s ($(pct "$b" "$(awk -v g="$GM" 'BEGIN { print 2 * g }')") of 2 links)"
	within "$b" "$(awk -v g="$GM" 'BEGIN { print 2 * g }')" 0.10
	ok_status $? "2 nodes, $r readers/node: at the rate of the nodes' links (within 10%)"
	[ "$(limit rpn $i)" = "reader links" ]
	ok_status $? "2 nodes, $r readers/node: the report names the nodes' links as the limit"
	lo=$(awk -v a="${lo:-$b}" -v b="$b" 'BEGIN { print (b < a) ? b : a }')
	hi=$(awk -v a="${hi:-$b}" -v b="$b" 'BEGIN { print (b > a) ? b : a }')
done
ge "$(awk -v l="$lo" 'BEGIN { print 1.10 * l }')" "$hi"
ok_status $? "readers per node 1, 2, 4: flat (largest <= 1.10 x smallest: $lo .. $hi MB/s)"

# ---- 4. a straggler ----
Q=$((R / 4))
"$BOX" rate n3 "$Q"
GS=$("$BOX" iperf n3 5)
GSM=$(mbps "$GS")
figure "n3 at $Q Mbit/s: goodput" "$GS Mbit/s = $GSM MB/s (true ratio $(awk -v a="$G" -v b="$GS" 'BEGIN { printf "%.2f", a / b }'))"
study slow n1,n2,n3 1 1 "$(hw "$GM" 100000)"
"$BOX" rate n3 "$R"
host=$(rep_json "$SCRATCH/slow.h5" "d['stragglers']['nodes'][0]['host']")
ts=$(rep_json "$SCRATCH/slow.h5" "d['stragglers']['nodes'][0]['times_slower']")
figure "straggler named, times slower" "$host, $ts"
[ "$host" = n3 ]
ok_status $? "straggler: the report names n3 (its box host name) as the slowest node"
within "$ts" "$(awk -v a="$G" -v b="$GS" 'BEGIN { print a / b }')" 0.20
ok_status $? "straggler: times slower within 20% of the true ratio of the links"
# each node reads a third: the slow node's time sets the aggregate (3 x its rate); when the
# fast ones finish, the slow one has read its rate's share of their time (2 fast + 1 slow)
agg=$(cell slow 0 mean_MBps)
sw=$(cell slow 0 stonewall_MBps)
want_agg=$(awk -v s="$GSM" 'BEGIN { print 3 * s }')
want_sw=$(awk -v f="$GM" -v s="$GSM" 'BEGIN { print 2 * f + s }')
figure "straggler: aggregate (physics)" "$agg MB/s ($want_agg)"
figure "straggler: stonewall (physics)" "$sw MB/s ($want_sw)"
within "$agg" "$want_agg" 0.10
ok_status $? "straggler: aggregate = 3 x the slow link (within 10%)"
within "$sw" "$want_sw" 0.15
ok_status $? "straggler: stonewall = 2 x the fast link + the slow one (within 15%)"

# ---- 5. cache truth, from the bytes on the nodes' links ----
DSC="{name: c, file_size: 8MiB, file_count: 16}"
box_config "$SCRATCH/gen-c.yaml" genc /box/fs/cache "$DSC"
check "generate data set c on 2 nodes" bmpi n1,n2 1 "$PFSREAD" generate "$SCRATCH/gen-c.yaml"
# cachestudy NAME CACHE REPETITIONS: a run on n1, n2; WIRE gets the bytes the two received
cachestudy() {
	box_config "$SCRATCH/$1.yaml" "$1" /box/fs/cache "$DSC" \
		"sweep: {readers_per_node: [1]}" "repetitions: $3" "cache: $2"
	before=$(rx_total n1 n2)
	bmpi n1,n2 1 "$PFSREAD" run "$SCRATCH/$1.yaml" >"$SCRATCH/$1.out" 2>&1
	st=$?
	WIRE=$(($(rx_total n1 n2) - before))
	ok_status $st "run $1 (cache: $2, $3 repetition(s))"
	[ $st -eq 0 ] || sed 's/^/#   /' "$SCRATCH/$1.out" | tail -n 20
}
phase() { rep_json "$SCRATCH/$1.h5" "d['phases'][$2]['$3']"; }

cachestudy shift shift 1
read0=$(phase shift 0 bytes)
figure "shift: bytes on the links / bytes read" "$WIRE / $read0 ($(pct "$WIRE" "$read0"))"
ge "$WIRE" "$(awk -v b="$read0" 'BEGIN { print 0.95 * b }')"
ok_status $? "cache shift on 2 nodes reads cold: the links carried >= 95% of the bytes read"

"$BOX" cold cache
cachestudy none none 2
read0=$(phase none 0 bytes)
second=$((WIRE - read0))
[ $second -lt 0 ] && second=0
figure "none: bytes on the links, both repetitions" "$WIRE for 2 x $read0 read (the second: <= $second)"
ge "$WIRE" "$(awk -v b="$read0" 'BEGIN { print 0.95 * b }')"
ok_status $? "cache none, repetition 1 of 2 (after a cold start) crossed the links"
ge "$(awk -v b="$read0" 'BEGIN { print 0.10 * b }')" "$second"
ok_status $? "cache none, repetition 2 of 2 is warm: the links carried < 10% of its bytes"
res=$(phase none 1 resident_fraction)
figure "none: repetition 2 resident fraction" "$res"
ge "$res" 0.95
ok_status $? "cache none, repetition 2: its resident fraction says warm (>= 95%)"
OUT=$(phase none 1 warm)
[ "$OUT" = True ]
ok_status $? "cache none, repetition 2: the report flags it warm"
OUT=$("$PFSREAD" report "$SCRATCH/none.h5")
contains "WARM" "cache none: the report's cells keep the warm repetition apart (WARM)"

cachestudy drop drop 1
read0=$(phase drop 0 bytes)
figure "drop: bytes on the links / bytes read" "$WIRE / $read0 ($(pct "$WIRE" "$read0"))"
ge "$WIRE" "$(awk -v b="$read0" 'BEGIN { print 0.95 * b }')"
ok_status $? "cache drop after the warm repetition reads cold again: >= 95% on the links"
[ "$(phase drop 0 warm)" = False ]
ok_status $? "cache drop: the report does not flag it warm"

done_testing
