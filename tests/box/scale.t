#!/bin/sh
# scale: a larger box, where the costs that grow with nodes (clock offsets, collectives, the
# results write) are measured where they grow. 8 nodes on GlusterFS, links at 40 Mbit/s (a rate
# 2 cores carry with 32 ranks):
#  1. 1, 2 and 4 readers per node on 8 nodes: each cell's aggregate within 5% of 8 x the links'
#     goodput (iperf3), the report's limit the reader links;
#  2. the same data read by 2, 4 and 8 nodes (1 reader each, 3 repetitions): the time outside
#     each phase's reads (the report's outside_s) is recorded for every node count and printed,
#     with the phases' reads beside it.
. "$(dirname "$0")/boxlib.sh"

box_require
N=8
L=${BOX_SCALE_LINK:-40}
if ! box_up --nodes $N --link-mbit "$L" --fs glusterfs; then
	fail "a box of $N nodes on GlusterFS comes up: $BOX_WHY"
	done_testing
fi
pass "a box of $N nodes on GlusterFS comes up"
G=$("$BOX" iperf n1 5)
GM=$(mbps "$G" 3)
figure "link goodput (iperf3 server -> n1)" "$G Mbit/s = $GM MB/s"
HOSTS=$(seq -s, -f 'n%g' 1 $N)
WANT=$(awk -v g="$GM" -v n=$N 'BEGIN { printf "%.2f", n * g }')

# ---- 1. 1, 2, 4 readers per node on 8 nodes: 64 files of 8 MiB (8 a reader at 1 per node) ----
DS="{name: s, file_size: 8MiB, file_count: 64}"
box_config "$SCRATCH/s.yaml" s /box/fs/scale "$DS" "sweep: {readers_per_node: [1, 2, 4]}" \
	"repetitions: 1" "cache: fadvise" "hardware: {node_link_MBps: $GM}"
check "generate on $N nodes" bmpi "$HOSTS" 4 "$PFSREAD" generate "$SCRATCH/s.yaml"
"$BOX" cold scale
check "a cold run on $N nodes, 4 ranks each" bmpi "$HOSTS" 4 "$PFSREAD" run "$SCRATCH/s.yaml"
CELLS=$(rep_json "$SCRATCH/s.h5" '"\n".join("%d %.3f %.3f %s %s" % (c["readers_per_node"], c["mean_MBps"], c["stonewall_MBps"], c["ceiling"]["MBps"], c["ceiling"]["limit"].replace(" ", "_")) for c in d["cells"])')
echo "$CELLS" | while read -r rpn m s c lim; do
	figure "$N nodes x $rpn readers: aggregate" "$m MB/s, stonewall $s ($(awk -v a="$m" -v b="$WANT" 'BEGIN { printf "%.1f%%", 100 * a / b }') of $N x goodput $WANT; ceiling $c, $lim)"
done
st=0
[ "$(echo "$CELLS" | wc -l)" -eq 3 ] || st=1
for rpn in 1 2 4; do
	m=$(echo "$CELLS" | awk -v r=$rpn '$1 == r { print $2 }')
	within "${m:-0}" "$WANT" 0.05 || st=1
done
ok_status $st "$N nodes at 1, 2 and 4 readers per node: each aggregate within 5% of $N x the links' goodput"
[ $st -eq 0 ] || { box_rates "$SCRATCH/s.h5"; box_load; }
[ "$(echo "$CELLS" | awk '$5 != "reader_links" { bad = 1 } END { print bad + 0 }')" = 0 ]
ok_status $? "... the report's limit the reader links in every cell"

# ---- 2. the time outside the reads, per node count ----
DT="{name: t, file_size: 8MiB, file_count: 16}"
for n in 2 4 8; do
	box_config "$SCRATCH/t$n.yaml" "t$n" /box/fs/scale "$DT" "sweep: {readers_per_node: [1]}" \
		"repetitions: 3" "cache: fadvise"
	[ $n -ne 2 ] || check "generate the node sweep's data set" bmpi n1,n2 1 "$PFSREAD" generate "$SCRATCH/t2.yaml"
	check "$n nodes: 3 repetitions" bmpi "$(seq -s, -f 'n%g' 1 $n)" 1 "$PFSREAD" run "$SCRATCH/t$n.yaml"
	O=$(rep_json "$SCRATCH/t$n.h5" '" ".join("-" if p["outside_s"] is None else "%.3f" % p["outside_s"] for p in d["phases"]) + " / " + " ".join("%.2f" % p["elapsed_s"] for p in d["phases"])')
	figure "$n nodes: outside reads / reads, s a phase" "$O"
	echo "$O" | awk '{ exit !($1 >= 0 && $2 >= 0 && $3 == "-") }'
	ok_status $? "$n nodes: the time outside each phase's reads is recorded (the last phase's: none)"
done
box_down_clean "down leaves nothing"
done_testing
