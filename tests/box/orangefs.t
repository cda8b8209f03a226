#!/bin/sh
# orangefs: OrangeFS and the converged shape in the box. (The first run builds OrangeFS once
# into its cache: BOX_UP_TIMEOUT covers that.)
#  0. OrangeFS neither built nor buildable: up fails saying so in one line, leaving nothing.
#  1. OrangeFS with 2 servers on the server, 2 nodes: pvfs2fuse at /box/fs on each node, a file
#     written on one read on the other; pfsread's files name both servers as their targets
#     (pvfs2-viewdist), the aggregate at the nodes' links (iperf3, within 10%); down leaves nothing.
#  2. converged OrangeFS, 4 nodes in 2 racks, links at 20 Mbit/s (uplinks at twice that, not
#     the limit): a server on every node, none on the server; every file striped over the 4
#     nodes' servers;
#     link-bound: each node reads 1/S of its data from its own server without its link, so the
#     bytes on its link are (S-1)/S of what it read (within 2%), the aggregate while every node
#     reads (stonewall) is N x goodput x S/(S-1) (within 5%), to the last node's end within 10%
#     (5% a TODO: the slowest node), the report's ceiling the same (data_on_compute_nodes) and its
#     limit "reader links", its verdict on where the bytes came from "storage" (the own
#     stripe, which crossed no link, is not cache), every server busy while the readers read
#     (the report's share of the servers they could keep busy), no server judged slow (each
#     stripe order holds them all); down; the same shape at 50 Mbit/s (uplinks
#     100): every node's storage capped at D: the
#     aggregate S x D (within 5%), limit "server disks"; both uplinks at 32 Mbit/s: they carry
#     the other rack's half of the reads (at most 3% more: the file system's own bytes), the
#     stonewall 4 x an uplink's goodput less those bytes (within 5%; to the last end within
#     10%, 5% a TODO), the report's ceiling 4 x goodput (within 5%), limit "rack uplinks"; down
#     leaves nothing.
#  3. converged, each file on one server (BOX_ORANGEFS_DFILES=1), node 3's storage alone capped:
#     the report names n3's server as the slow target, no node, and readers that meet on few
#     servers; down leaves nothing.
#  4. (first) --converged with MooseFS is a usage error (GlusterFS: converged.t).
. "$(dirname "$0")/boxlib.sh"

box_require
: "${BOX_UP_TIMEOUT:=1800}"
export BOX_UP_TIMEOUT
# targets H5: the distinct target names of the files, one a line
targets() {
	"$PYTHON" -c '
import h5py, sys
p = h5py.File(sys.argv[1], "r")["phases/0000"]
names = [t.decode() if isinstance(t, bytes) else t for t in p["targets"][:]]
for n in sorted(set(names[t] for t in p["files"]["target"])):
    print(n)' "$1"
}
# read_ds NAME HOSTS HARDWARE: generate (once per NAME) and a cold run, 1 reader per node
read_ds() {
	box_config "$SCRATCH/$1.yaml" "$1" "/box/fs/$1" "$DS" "sweep: {readers_per_node: [1]}" \
		"repetitions: 1" "cache: fadvise" "$3"
	check "$1: generate" bmpi "$2" 1 "$PFSREAD" generate "$SCRATCH/$1.yaml"
	"$BOX" cold "$1"
	for n in $(echo "$2" | tr , ' '); do "$BOX" rx "$n"; done >"$SCRATCH/$1.rx0"
	check "$1: a cold run" bmpi "$2" 1 "$PFSREAD" run "$SCRATCH/$1.yaml"
	for n in $(echo "$2" | tr , ' '); do "$BOX" rx "$n"; done >"$SCRATCH/$1.rx1"
}
# cell H5 KEY...: the figure d['cells'][0][KEY]... of the report's json
cell() {
	f=$1
	shift
	rep_json "$f" "d['cells'][0]$(printf "['%s']" "$@")"
}
# node_shares H5 MBPS: each node's bytes / its first start to last end, over MBPS, in %
node_shares() {
	"$PYTHON" -c '
import h5py, sys
p = h5py.File(sys.argv[1], "r")["phases/0000"]
per = {}
for x in p["ranks"][:]:
    if x["active"]:
        b, s, e = per.get(int(x["node"]), (0, x["start"], x["end"]))
        per[int(x["node"])] = (b + int(x["bytes"]), min(s, x["start"]), max(e, x["end"]))
print(" ".join("%.1f%%" % (100 * b / (e - s) / 1e6 / float(sys.argv[2]))
               for _, (b, s, e) in sorted(per.items())))' "$1" "$2"
}
# rx_ratios NAME BYTES: each node's bytes received during the run / BYTES (what it read)
rx_ratios() {
	paste -d ' ' "$SCRATCH/$1.rx0" "$SCRATCH/$1.rx1" |
		awk -v b="$2" '{ printf "%s%.4f", (NR > 1 ? " " : ""), ($2 - $1) / b }'
}

# ---- 0. no build and nothing to build it from: said in one line, nothing left ----
if BOX_ORANGEFS="$SCRATCH/none" BOX_ORANGEFS_SRC="$SCRATCH/nosrc" box_up --nodes 1 --link-mbit 100 \
	--fs orangefs; then
	fail "up fails when OrangeFS is neither built nor buildable"
	"$BOX" down >/dev/null 2>&1
else
	pass "up fails when OrangeFS is neither built nor buildable"
fi
case "$BOX_WHY" in "orangefs: not built in $SCRATCH/none and no build.sh in $SCRATCH/nosrc"*) st=0 ;; *) st=1 ;; esac
ok_status $st "... saying why in one line: $BOX_WHY"
[ -z "$(box_left)" ]
ok_status $? "... leaving nothing"

expect_status 2 "--converged with MooseFS is a usage error" \
	"$BOX" up --nodes 2 --link-mbit 100 --fs moosefs --converged

# without OrangeFS the rest cannot run here, which is said once, as a skip
if orangefs_missing; then
	pass "# SKIP $OFS_WHY"
	done_testing
fi

# ---- 1. OrangeFS, 2 servers on the server node ----
DS="{name: o, file_size: 8MiB, file_count: 16}"
if ! box_up --nodes 2 --link-mbit 100 --fs orangefs --bricks 2; then
	fail "an OrangeFS box of 2 nodes and 2 servers comes up: $BOX_WHY"
	done_testing
fi
pass "an OrangeFS box of 2 nodes and 2 servers comes up"
box_pids up
case "$BOX_SUMMARY" in *"2 nodes"*orangefs*"2 bricks"*) st=0 ;; *) st=1 ;; esac
ok_status $st "the summary names OrangeFS and its 2 servers"
[ "$(procs_in box-srv pvfs2-server)" -eq 2 ]
ok_status $? "2 pvfs2-server run on the server"
for n in n1 n2; do
	expect_status 0 "$n: /box/fs is mounted" "$BOX" exec $n -- findmnt -n -o SOURCE /box/fs
	case "$OUT" in pvfs2fuse#tcp://10.77.0.2:333[45]/orangefs) st=0 ;; *) st=1 ;; esac
	ok_status $st "$n: ... by pvfs2fuse ($OUT)"
done
mountpoint -q /box/fs
[ $? -ne 0 ]
ok_status $? "the root namespace does not see the nodes' mounts"
"$BOX" exec n1 -- sh -c 'echo hello >/box/fs/hello'
expect_status 0 "a file written on n1 is read on n2" "$BOX" exec n2 -- cat /box/fs/hello
contains hello "... with its content"

G=$("$BOX" iperf n1 5)
GM=$(mbps "$G")
figure "link goodput (iperf3 server -> n1)" "$G Mbit/s = $GM MB/s"
read_ds o n1,n2 "hardware: {node_link_MBps: $GM}"
b=$(rep_json "$SCRATCH/o.h5" "d['cells'][0]['mean_MBps']")
figure "OrangeFS, 2 nodes: aggregate" "$b MB/s (2 x goodput: $(awk -v g="$GM" 'BEGIN { print 2 * g }') MB/s)"
within "$b" "$(awk -v g="$GM" 'BEGIN { print 2 * g }')" 0.10
ok_status $? "OrangeFS, 2 nodes: the aggregate is the nodes' links (within 10%)"
T=$(targets "$SCRATCH/o.h5")
echo "$T" | sed 's/^/# target: /'
echo "$T" | grep -Eqx '10\.77\.0\.2:333[45],10\.77\.0\.2:333[45]' &&
	! echo "$T" | grep -Evqx '10\.77\.0\.2:3334,10\.77\.0\.2:3335|10\.77\.0\.2:3335,10\.77\.0\.2:3334'
ok_status $? "every file's target names the 2 servers it is striped over"
box_down_clean "OrangeFS: down leaves nothing (namespaces, mounts, loop devices, daemons, guard route)"

# ---- 2. converged OrangeFS, 4 nodes ----
# Link-bound at 20 Mbit/s a link: at 50 the nodes fell to 91-94% of their links all through a
# run on a busy machine (their queues empty: each request's turn through pvfs2fuse and the
# servers, not the links, set the pace), at 25 to 93-97%; at 20 a request's bytes take 2.5
# times as long as at 50 against the same turn. 4 files of 16 MiB a node (with 8 MiB files
# the requests and headers are a larger share of the bytes on a link)
N=4
DS="{name: c, file_size: 16MiB, file_count: 16}"
if ! box_up --nodes $N --link-mbit 20 --fs orangefs --converged --racks 2 --uplink-mbit 40; then
	fail "a converged OrangeFS box of $N nodes comes up: $BOX_WHY"
	done_testing
fi
pass "a converged OrangeFS box of $N nodes comes up"
box_pids up
case "$BOX_SUMMARY" in *"converged"*"2 racks (uplinks 40 Mbit/s)"*) st=0 ;; *) st=1 ;; esac
ok_status $st "the summary says converged, 2 racks"
ip -n box-r1 link show p-n2 >/dev/null 2>&1 && ip -n box-r2 link show p-n3 >/dev/null 2>&1 &&
	ip -n box-sw link show dn-r2 >/dev/null 2>&1
ok_status $? "n1-n2 on rack switch 1, n3-n4 on rack switch 2, both uplinked to the backbone"
st=0
for k in $(seq $N); do [ "$(procs_in "box-n$k" pvfs2-server)" -eq 1 ] || st=1; done
ok_status $st "one pvfs2-server on every node"
[ "$(procs_in box-srv pvfs2-server)" -eq 0 ]
ok_status $? "none on the server"
G=$("$BOX" iperf n1 5)
GM=$(mbps "$G")
WANT=$(awk -v g="$GM" -v n=$N 'BEGIN { printf "%.2f", n * g * n / (n - 1) }')
figure "link goodput (iperf3 -> n1)" "$G Mbit/s = $GM MB/s"
# the uplinks (2 x a link) carry a quarter of the reads: not the limit
read_ds c n1,n2,n3,n4 "hardware: {node_link_MBps: $GM, storage_servers: $N, data_on_compute_nodes: true, racks: 2, rack_uplink_MBps: $(awk -v g="$GM" 'BEGIN { print 2 * g }')}"
b=$(cell "$SCRATCH/c.h5" mean_MBps)
sw=$(cell "$SCRATCH/c.h5" stonewall_MBps)
c=$(cell "$SCRATCH/c.h5" ceiling MBps)
figure "converged OrangeFS, $N nodes: aggregate" "$b MB/s, stonewall $sw (N x goodput x S/(S-1): $WANT MB/s)"
figure "... the report's ceiling" "$c MB/s"
figure "... each node's rate / goodput x S/(S-1)" "$(node_shares "$SCRATCH/c.h5" "$(awk -v w="$WANT" -v n=$N 'BEGIN { print w / n }')")"
R=$(rx_ratios c $((16 * 16 * 1048576 / N)))
figure "bytes on each node's link / bytes it read" "$R (S-1)/S = $(awk -v n=$N 'BEGIN { print (n - 1) / n }')"
st=0
[ "$(echo "$R" | wc -w)" -eq $N ] || st=1
for r in $R; do within "$r" "$(awk -v n=$N 'BEGIN { print (n - 1) / n }')" 0.02 || st=1; done
ok_status $st "converged: a node's own stripe does not cross its link: (S-1)/S of its reads do (within 2%)"
F="$(cell "$SCRATCH/c.h5" bytes_from) $(cell "$SCRATCH/c.h5" from_storage_fraction)"
figure "converged: where the report says the bytes came from" "$F"
case "$F" in "storage "*) st=0 ;; *) st=1 ;; esac
ok_status $st "converged: the report's verdict is storage (a node's own stripe is local storage, not cache)"
within "$sw" "$WANT" 0.05
st=$?
ok_status $st "converged, link-bound: while every node reads, the aggregate (stonewall) is N x goodput x S/(S-1) (within 5%)"
[ $st -eq 0 ] || { box_rates "$SCRATCH/c.h5"; box_load; }
within "$b" "$WANT" 0.10
ok_status $? "converged, link-bound: the aggregate to the last node's end, within 10%"
within "$b" "$WANT" 0.05
todo $? "converged, link-bound: ... within 5%" \
	"it waits for the slowest node: the nodes' own rates spread over 91-99% of their links (docs/box.md)"

figure "converged: the readers' share of the servers they could keep busy (report)" "$(cell "$SCRATCH/c.h5" targets_used_share)"
ge "$(cell "$SCRATCH/c.h5" targets_used_share)" 0.95
ok_status $? "converged: every file striped over every server keeps them all busy (the report sees no readers meeting)"
V=$(rep_json "$SCRATCH/c.h5" "d['attribution']['verdict']")
case "$V" in *"striped over the same servers"*) st=0 ;; *) st=1 ;; esac
[ "$(rep_json "$SCRATCH/c.h5" "d['attribution']['slow_targets']")" = "[]" ] || st=1
ok_status $st "converged: every file striped over the same servers in another order, so no server is judged slow from its files ($V)"
within "$c" "$WANT" 0.05
ok_status $? "converged: the report's ceiling is the same (within 5%)"
[ "$(cell "$SCRATCH/c.h5" ceiling limit)" = "reader links" ]
ok_status $? "converged: the report names the reader links as the limit"
T=$(targets "$SCRATCH/c.h5")
echo "$T" | sed 's/^/# target: /'
echo "$T" | awk -F, -v n=$N '{ for (i = 1; i <= NF; i++) if ($i !~ /^10\.77\.0\.1[1-9]:3334$/) bad = 1; if (NF != n) bad = 1 }
	END { exit bad || NR == 0 }'
ok_status $? "every file is striped over the $N nodes' servers"
[ -z "${BOX_KEEP:-}" ] || cp "$SCRATCH/c.h5" "$BOX_KEEP"/
box_down_clean "converged OrangeFS, link-bound: down leaves nothing"

# ---- 2b. the same shape at 50 Mbit/s a link: storage, then the uplinks, the limit ----
if ! box_up --nodes $N --link-mbit 50 --fs orangefs --converged --racks 2 --uplink-mbit 100; then
	fail "a converged OrangeFS box of $N nodes at 50 Mbit/s comes up: $BOX_WHY"
	done_testing
fi
pass "a converged OrangeFS box of $N nodes at 50 Mbit/s comes up"
G=$("$BOX" iperf n1 5)
GM=$(mbps "$G")
figure "link goodput (iperf3 -> n1)" "$G Mbit/s = $GM MB/s"
# every node's storage capped at 4 MiB/s (diskcap: cgroup v1 blkio on the images): S x D
if [ -d /sys/fs/cgroup/blkio ]; then
	DS="{name: d, file_size: 8MiB, file_count: 16}"
	WANT=$(awk -v n=$N 'BEGIN { printf "%.2f", n * 4 * 1.048576 }')
	check "every node's storage capped at 4 MiB/s" "$BOX" diskcap 4
	read_ds d n1,n2,n3,n4 "hardware: {node_link_MBps: $GM, storage_servers: $N, data_on_compute_nodes: true, server_disk_MBps: 4.194304}"
	"$BOX" diskcap off
	b=$(rep_json "$SCRATCH/d.h5" "d['cells'][0]['mean_MBps']")
	figure "converged, disks at 4 MiB/s: aggregate" "$b MB/s (S x D: $WANT MB/s)"
	within "$b" "$WANT" 0.05
	st=$?
	ok_status $st "converged, disk-capped: the aggregate is S x D (within 5%)"
	[ $st -eq 0 ] || { box_rates "$SCRATCH/d.h5"; box_load; }
	[ "$(rep_json "$SCRATCH/d.h5" "d['cells'][0]['ceiling']['limit']")" = "server disks" ]
	ok_status $? "converged, disk-capped: the report names the server disks as the limit"
fi
# both racks' uplinks tight (32 Mbit/s, half the 4 links' need): a rack's readers take half of
# all reads, half of which (the other rack's servers) come in over its uplink: the aggregate is
# 4 x the uplink's goodput. 8 files of 16 MiB a node
DS="{name: c, file_size: 16MiB, file_count: 32}"
box_config "$SCRATCH/c.yaml" c /box/fs/c "$DS" "sweep: {readers_per_node: [1]}" "repetitions: 1" \
	"cache: fadvise" "hardware: {node_link_MBps: $GM}"
check "c: generate at 50 Mbit/s" bmpi n1,n2,n3,n4 1 "$PFSREAD" generate "$SCRATCH/c.yaml"
"$BOX" rate r1 32 && "$BOX" rate r2 32
U=$(mbps "$("$BOX" iperf n1 5)")
WANT=$(awk -v u="$U" 'BEGIN { printf "%.2f", 4 * u }')
sed -e 's/^name: c/name: u/' -e "s/^hardware: .*/hardware: {node_link_MBps: $GM, storage_servers: $N, data_on_compute_nodes: true, racks: 2, rack_uplink_MBps: $U}/" \
	"$SCRATCH/c.yaml" >"$SCRATCH/u.yaml"
# uplink_run WHAT: a cold run into u.h5; b, sw (its aggregate and stonewall), W and WANTW
uplink_run() {
	"$BOX" cold c
	u0=$(rx_total r1 r2)
	check "u: $1, uplinks at 32 Mbit/s" bmpi n1,n2,n3,n4 1 "$PFSREAD" run "$SCRATCH/u.yaml" --force
	u1=$(rx_total r1 r2)
	b=$(cell "$SCRATCH/u.h5" mean_MBps)
	sw=$(cell "$SCRATCH/u.h5" stonewall_MBps)
	# the uplinks carry the other rack's half of the reads and the file system's own bytes
	# with them (requests, headers), which iperf3's goodput does not count: W, measured, is
	# their ratio
	W=$(awk -v a="$u0" -v b="$u1" 'BEGIN { printf "%.4f", (b - a) / (32 * 16 * 1048576 / 2) }')
	WANTW=$(awk -v w="$WANT" -v r="$W" 'BEGIN { printf "%.2f", w / r }')
	figure "converged, 2 racks, uplinks at 32 Mbit/s: aggregate" "$b MB/s, stonewall $sw (4 x uplink goodput $U: $WANT MB/s)"
	figure "... bytes on the uplinks / half the reads" "$W (so the reads' share of 4 x goodput: $WANTW MB/s)"
	figure "... each node's rate / a quarter of that" "$(node_shares "$SCRATCH/u.h5" "$(awk -v w="$WANTW" 'BEGIN { print w / 4 }')")"
}
uplink_run "a cold run"
# TCP's four flows through one shaped uplink on 2 cores: runs kept 0.941-0.993 of the share
# (docs/box.md). A run outside 5% is shown and run once more; a stonewall that misses the
# physics misses twice
if ! within "$sw" "$WANTW" 0.05; then
	box_rates "$SCRATCH/u.h5"
	box_load
	uplink_run "a cold run once more, the first outside 5%"
fi
"$BOX" rate r1 off && "$BOX" rate r2 off
ge "$W" 1 && ge 1.03 "$W"
ok_status $? "2 racks, tight uplinks: the uplinks carry the other rack's half of the reads, and at most 3% more"
within "$sw" "$WANTW" 0.05
st=$?
ok_status $st "2 racks, tight uplinks: while every node reads, the aggregate (stonewall) is 4 x an uplink's goodput, less the file system's own bytes on it (within 5%)"
[ $st -eq 0 ] || { box_rates "$SCRATCH/u.h5"; box_load; }
within "$b" "$WANTW" 0.10
ok_status $? "2 racks, tight uplinks: the aggregate to the last node's end, within 10%"
within "$b" "$WANTW" 0.05
todo $? "2 racks, tight uplinks: ... within 5%" \
	"the two nodes of a rack share its uplink unevenly; the later one ends reading alone (docs/box.md)"
within "$(cell "$SCRATCH/u.h5" ceiling MBps)" "$WANT" 0.05 &&
	[ "$(cell "$SCRATCH/u.h5" ceiling limit)" = "rack uplinks" ]
ok_status $? "2 racks, tight uplinks: the report's ceiling is the same, limit \"rack uplinks\""
# (BOX_KEEP=DIR keeps the results files, for a look at them by hand)
[ -z "${BOX_KEEP:-}" ] || cp "$SCRATCH"/*.h5 "$BOX_KEEP"/
box_down_clean "converged OrangeFS: down leaves nothing"

# ---- 3. one server's storage capped alone ----
# A file striped over every server is as slow as the slowest of them, whatever node reads it:
# which server is slow cannot show in the files' times. So this box puts each file on one
# server (BOX_ORANGEFS_DFILES=1: the file system's DefaultNumDFiles), in turn; n3's storage
# capped: the report names n3's server as the slow target, no node
if [ -d /sys/fs/cgroup/blkio ]; then
	if ! BOX_ORANGEFS_DFILES=1 box_up --nodes $N --link-mbit 50 --fs orangefs --converged; then
		fail "a converged OrangeFS box, a file on one server: $BOX_WHY"
		done_testing
	fi
	# 4 files of each server per node, n3's 16 MiB at 2 MiB/s: 8 s against 2 for the rest
	box_config "$SCRATCH/one.yaml" one /box/fs/one "{name: s, file_size: 1MiB, file_count: 64}" \
		"sweep: {readers_per_node: [1]}" "repetitions: 1" "cache: fadvise"
	check "one: generate" bmpi n1,n2,n3,n4 1 "$PFSREAD" generate "$SCRATCH/one.yaml"
	check "n3's storage alone capped at 2 MiB/s" "$BOX" diskcap 2 3
	"$BOX" cold one
	check "one: a cold run" bmpi n1,n2,n3,n4 1 "$PFSREAD" run "$SCRATCH/one.yaml"
	"$BOX" diskcap off
	[ -z "${BOX_KEEP:-}" ] || cp "$SCRATCH/one.h5" "$BOX_KEEP"/
	T=$(targets "$SCRATCH/one.h5" | tr '\n' ' ')
	figure "a file on one server: targets" "$T"
	[ "$(echo "$T" | wc -w)" -eq $N ] && ! echo "$T" | grep -q ,
	ok_status $? "every file on one server, every server holding files"
	st=$(rep_json "$SCRATCH/one.h5" "d['attribution']['slow_targets']")
	sn=$(rep_json "$SCRATCH/one.h5" "d['attribution']['slow_nodes']")
	figure "n3's storage capped: the report's verdict" \
		"$(rep_json "$SCRATCH/one.h5" "d['attribution']['verdict']")"
	[ "$st" = "['10.77.0.13:3334']" ]
	ok_status $? "one server capped: the report names n3's server (10.77.0.13:3334) as the slow target ($st)"
	[ "$sn" = "[]" ]
	ok_status $? "... and no node (slow nodes: $sn)"
	sh=$(cell "$SCRATCH/one.h5" targets_used_share)
	figure "a file on one server: the readers' share of the servers they could keep busy" "$sh"
	case $sh in [0-9]*) ge 0.85 "$sh" ;; *) false ;; esac
	ok_status $? "... and a file on one server lets readers meet on few servers (the report's share below 0.85)"
	box_down_clean "converged OrangeFS, a file on one server: down leaves nothing"
fi

done_testing
