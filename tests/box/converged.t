#!/bin/sh
# converged: GlusterFS with a server on every node, the reference study's shape on the file
# system most sites can install. A box of 4 nodes in 2 racks (links at 40 Mbit/s, uplinks at 80:
# not the limit), a glusterd and a brick on every node joined into one pool, one distribute
# volume over the 4 bricks, each node mounting it from its own glusterd:
#  - a glusterd and a brick server (glusterfsd) on every node, none on the server;
#  - every file lies whole on one node's brick (trusted.glusterfs.pathinfo), every brick holds
#    some;
#  - cold, 1 reader per node: a node's files on its own brick do not cross its link, so the
#    bytes on its link are the bytes of its files on the other nodes' bricks (within 3%: the
#    file system's requests and headers). GlusterFS places whole files by a hash, not in
#    equal shares, so each node's share is taken from the files' targets, not assumed 1/S;
#  - each reader reads one file at a time, so readers meet on one brick and its node's link out
#    is full while others idle, the meeting place moving from file to file: the aggregate is
#    below the even model, but at every moment (samples of 0.5 s) some direction of some node's
#    link is full: the mean of the busiest direction is the goodput (0.90-1.05), and the
#    aggregate is at most what the most loaded direction over the whole run allows;
#  - the report's model (data_on_compute_nodes) gives the ceiling N x goodput x S/(S-1) (within
#    5%) and names the reader links as the limit;
#  - the report's answer says why from the files' targets: readers meet on few of the bricks,
#    and the brick holding most holds more than an even share of the bytes (the same share the
#    files' own targets and sizes give);
#  - down leaves nothing.
. "$(dirname "$0")/boxlib.sh"

box_require
N=4
if ! box_up --nodes $N --link-mbit 40 --fs glusterfs --converged --racks 2 --uplink-mbit 80; then
	fail "a converged GlusterFS box of $N nodes in 2 racks comes up: $BOX_WHY"
	done_testing
fi
pass "a converged GlusterFS box of $N nodes in 2 racks comes up"
box_pids up
case "$BOX_SUMMARY" in *glusterfs*"converged: one on every node"*"2 racks"*) st=0 ;; *) st=1 ;; esac
ok_status $st "the summary names the converged GlusterFS and the racks"

st=0
for k in $(seq $N); do
	[ "$(procs_in "box-n$k" glusterd)" -eq 1 ] && [ "$(procs_in "box-n$k" glusterfsd)" -eq 1 ] || st=1
done
ok_status $st "a glusterd and a brick server (glusterfsd) on every node"
[ "$(procs_in box-srv glusterd)" -eq 0 ] && [ "$(procs_in box-srv glusterfsd)" -eq 0 ]
ok_status $? "none on the server"

G=$("$BOX" iperf n1 5)
GM=$(mbps "$G" 4)
figure "link goodput (iperf3 server -> n1)" "$G Mbit/s = $GM MB/s"

DS="{name: g, file_size: 4MiB, file_count: 64}"
box_config "$SCRATCH/g.yaml" g /box/fs/g "$DS" "sweep: {readers_per_node: [1]}" "repetitions: 1" \
	"cache: fadvise" "hardware: {node_link_MBps: $GM, storage_servers: $N, data_on_compute_nodes: true, racks: 2, rack_uplink_MBps: $(awk -v g="$GM" 'BEGIN { print 2 * g }')}"
HOSTS=n1,n2,n3,n4
NODES="n1 n2 n3 n4"
check "generate 64 files of 4 MiB" bmpi $HOSTS 1 "$PFSREAD" generate "$SCRATCH/g.yaml"
"$BOX" cold g
for n in $NODES; do "$BOX" rx "$n"; done >"$SCRATCH/rx0"
# every node's bytes received and sent, every 0.5 s while the run reads (at most 200 s)
(
	for _ in $(seq 400); do
		[ -e "$SCRATCH/stop" ] && break
		l=$(date +%s.%N)
		for n in $NODES; do
			l="$l $(ip netns exec "box-$n" cat /proc/net/dev | awk '$1 == "eth0:" { print $2, $10 }')"
		done
		echo "$l"
		sleep 0.5
	done >"$SCRATCH/samples" 2>&1
) &
check "a cold run, 1 reader per node" bmpi $HOSTS 1 "$PFSREAD" run "$SCRATCH/g.yaml"
: >"$SCRATCH/stop"
wait
for n in $NODES; do "$BOX" rx "$n"; done >"$SCRATCH/rx1"

# per node (a line each, n1 first): name, bytes read, bytes of those files on another node's
# brick (in over its link), bytes of the files on its brick that other nodes read (out over
# its link), seconds from its first start to its last end; then the bricks that hold files.
# A target names its brick's node (n1:/box/srv/brick1/b: its glusterd runs in the node's UTS
# namespace).
"$PYTHON" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
p = f["phases/0000"]
hosts = [h.decode().rstrip("\0") if isinstance(h, bytes) else h for h in f["topology/hostname"][:]]
names = [t.decode() if isinstance(t, bytes) else t for t in p["targets"][:]]
node = {int(r["rank"]): hosts[int(r["node"])] for r in p["ranks"][:]}
span = {}
for r in p["ranks"][:]:
    if r["active"]:
        h = hosts[int(r["node"])]
        s, e = span.get(h, (r["start"], r["end"]))
        span[h] = (min(s, r["start"]), max(e, r["end"]))
read, fin, fout, bricks, held = {}, {}, {}, set(), {}
for x in p["files"][:]:
    h, t, b = node[int(x["rank"])], names[x["target"]], int(x["bytes"])
    bricks.add(t)
    held[t] = held.get(t, 0) + b
    read[h] = read.get(h, 0) + b
    owner = t.split(":")[0]
    if owner != h:
        fin[h] = fin.get(h, 0) + b
        fout[owner] = fout.get(owner, 0) + b
for h in sorted(span):
    print(h, read[h], fin.get(h, 0), fout.get(h, 0), "%.4f" % (span[h][1] - span[h][0]))
print("bricks", " ".join(sorted(bricks)))
print("heaviest %.4f" % (max(held.values()) / sum(held.values())))
' "$SCRATCH/g.h5" >"$SCRATCH/shares" 2>"$SCRATCH/shares.err"
ok_status $? "the results file gives each node's reads and where its files lie"
sed 's/^/# /' "$SCRATCH/shares" "$SCRATCH/shares.err"

B=$(sed -n 's/^bricks //p' "$SCRATCH/shares")
[ "$(echo "$B" | tr ' ' '\n' | grep -Ec '^n[1-4]:/box/srv/brick[1-4]/b$')" -eq $N ] &&
	[ "$(echo "$B" | wc -w)" -eq $N ] && echo "$B" | tr ' ' '\n' | awk -F: '{ sub(/^n/, "", $1); if ($2 != "/box/srv/brick" $1 "/b") exit 1 }'
ok_status $? "every file lies on one node's own brick (the target names the node), and every brick holds files"

# the link: bytes received / bytes of the node's files on the other bricks
R=$(grep '^n' "$SCRATCH/shares" | paste -d ' ' - "$SCRATCH/rx0" "$SCRATCH/rx1" |
	awk '{ printf "%s%.4f", (NR > 1 ? " " : ""), ($3 > 0 ? ($7 - $6) / $3 : 0) }')
figure "bytes on each node's link / bytes of its files on other nodes' bricks" "$R"
st=0
[ "$(echo "$R" | wc -w)" -eq $N ] || st=1
for r in $R; do ge "$r" 0.995 && ge 1.03 "$r" || st=1; done
ok_status $st "a node's files on its own brick do not cross its link: its link carries the rest (within 3%)"

# the time. A file lies whole on one brick, placed by a hash, and each reader reads one file at a
# time: when readers meet on one brick, its node's link out is full while other links idle, and
# the meeting place moves from file to file. So the aggregate falls below the even model, yet at
# every moment some direction of some node's link is full: the mean over the run (its first and
# last samples left out) of the busiest direction is the links' goodput.
U=$(awk -v g="$G" 'NR > 1 { dt = $1 - t; m = 0
		for (i = 2; i <= NF; i++) { u = ($i - p[i]) * 8 / dt / 1e6 / g; if (u > m) m = u }
		mx[++k] = m }
	{ t = $1; for (i = 2; i <= NF; i++) p[i] = $i }
	END { for (i = 2; i < k; i++) s += mx[i]; if (k > 3) printf "%.3f %d", s / (k - 2), k - 2 }' "$SCRATCH/samples")
figure "the busiest direction of the nodes' links, mean over the run / goodput" "${U% *} (${U#* } samples of 0.5 s)"
ge "${U% *}" 0.90 && ge 1.05 "${U% *}" && ge "${U#* }" 10
ok_status $? "at every moment some node's link is full one way: the busiest direction's mean is the goodput (0.90-1.05)"
WANT=$(grep '^n' "$SCRATCH/shares" | awk -v g="$GM" '{ t += $2; m = ($3 > m ? $3 : m); m = ($4 > m ? $4 : m) }
	END { printf "%.3f", t / (m / g) }')
b=$(rep_json "$SCRATCH/g.h5" "d['cells'][0]['mean_MBps']")
figure "converged GlusterFS: aggregate" "$b MB/s (all bytes / (the busiest link direction's bytes over the whole run / goodput): $WANT MB/s)"
ge "$WANT" "$b"
ok_status $? "the aggregate is at most what the most loaded direction of a link allows"

WANT=$(awk -v g="$GM" -v n=$N 'BEGIN { printf "%.3f", n * g * n / (n - 1) }')
c=$(rep_json "$SCRATCH/g.h5" "d['cells'][0]['ceiling']['MBps']")
figure "... the report's ceiling" "$c MB/s (N x goodput x S/(S-1), files in even shares: $WANT)"
within "$c" "$WANT" 0.05
ok_status $? "the report's ceiling is N x goodput x S/(S-1) (within 5%)"
[ "$(rep_json "$SCRATCH/g.h5" "d['cells'][0]['ceiling']['limit']")" = "reader links" ]
ok_status $? "the report names the reader links as the limit"

# the report says why: at moments over the run, the readers' files lay on fewer of the bricks
# than they could have used
SH=$(rep_json "$SCRATCH/g.h5" "d['cells'][0]['targets_used_share']")
EF=$(rep_json "$SCRATCH/g.h5" "d['cells'][0]['ceiling']['efficiency']")
figure "readers' share of the bricks they could use (report)" "$SH; aggregate / ceiling $EF"
"$PFSREAD" report --brief "$SCRATCH/g.h5" >"$SCRATCH/brief" 2>&1
sed 's/^/# /' "$SCRATCH/brief"
grep -q "readers meet on few targets: g x 1 reader/node read from [0-9.]* of its $N targets" "$SCRATCH/brief"
ok_status $? "the report's answer: readers meet on few of the bricks"
HV=$(sed -n 's/^heaviest //p' "$SCRATCH/shares")
RH=$(rep_json "$SCRATCH/g.h5" "d['cells'][0]['targets_heaviest_share']")
figure "the brick holding most: its share of the bytes (files' targets; report)" "$HV; $RH"
case $RH in [0-9]*) within "$RH" "$HV" 0.001 ;; *) false ;; esac
ok_status $? "the report's share of the bytes on the brick holding most is the files' own"
if awk -v h="$HV" -v n=$N 'BEGIN { exit !(h * n >= 1.2) }'; then
	grep -q "uneven placement: one of g's $N targets holds" "$SCRATCH/brief"
else
	! grep -q "uneven placement" "$SCRATCH/brief"
fi
ok_status $? "... and the answer says so when it is 1.2 x an even share or more (and not otherwise)"

box_down_clean "converged GlusterFS: down leaves nothing (namespaces, mounts, loop devices, daemons)"
done_testing
