#!/bin/sh
# lifecycle: box.sh's interface and its promises. Usage errors; a MooseFS box with a slow node
# and a capped server link: host names, no route out, names resolving inside only, the file
# system at the same path on every node and nowhere else, ranks in their node's namespaces,
# pfsread on one node at the server's cap; a file system that cannot start named in one line
# (its daemon's log); `up` refuses while a box is up; `down` leaves nothing and is idempotent;
# a box test waits while another run's test holds the box, and stops at once on one left over;
# a test killed mid-run (SIGTERM, and SIGKILL followed by `down`) leaves nothing either.
. "$(dirname "$0")/boxlib.sh"

box_require

expect_status 2 "up without --nodes is a usage error" "$BOX" up --link-mbit 100
expect_status 2 "up with an unknown file system is a usage error" \
	"$BOX" up --nodes 2 --link-mbit 100 --fs nfs
expect_status 2 "--slow naming a node the box does not have is a usage error" \
	"$BOX" up --nodes 2 --link-mbit 100 --slow n3=10
expect_status 2 "an unknown command is a usage error" "$BOX" frobnicate
expect_status 1 "exec without a box says there is none" "$BOX" exec n1 -- true
contains "no box is up" "... in those words"
expect_status 0 "down without a box is fine" "$BOX" down
[ -z "$(box_left)" ]
ok_status $? "the usage errors left nothing behind"

# ---- a file system that cannot start: the box says why in one line, and leaves nothing ----
# (nodevnull.c refuses /dev/null to every process but root's, so mfsmaster's saver asserts)
check "build the /dev/null-refusing shim" cc -shared -fPIC -O2 -o "$SCRATCH/nodevnull.so" \
	tests/box/nodevnull.c -ldl
export BOX_MFS_PRELOAD="$SCRATCH/nodevnull.so"
if box_up --nodes 1 --link-mbit "$BOX_LINK" --fs moosefs; then
	fail "up fails when mfsmaster cannot start"
	"$BOX" down >/dev/null 2>&1
else
	pass "up fails when mfsmaster cannot start"
fi
unset BOX_MFS_PRELOAD
case "$BOX_WHY" in
*"mfs.log: bgsaver.c:"*"failed assertion 'dup(f)==STDIN_FILENO'"*) pass "the cause in one line: $BOX_WHY" ;;
*) fail "the cause in one line, from the daemon's log: got '$BOX_WHY'" ;;
esac
[ "$(grep -c '^box: cannot start: ' "$SCRATCH/box-up.err")" -eq 1 ]
ok_status $? "... said once"
[ -z "$(box_left)" ]
ok_status $? "the failed up left nothing behind"

# ---- a MooseFS box: n2 slow, the server's link capped ----
if ! box_up --nodes 2 --link-mbit "$BOX_LINK" --slow n2=100 --server-mbit 300 --fs moosefs; then
	fail "a MooseFS box of 2 nodes comes up: $BOX_WHY"
	done_testing
fi
pass "a MooseFS box of 2 nodes comes up"
box_pids up
case "$BOX_SUMMARY" in *"2 nodes"*"slow: n2=100"*"300 Mbit/s"*moosefs*) st=0 ;; *) st=1 ;; esac
ok_status $st "up prints a one-line summary (nodes, rates, file system)"
expect_status 1 "up refuses while a box is up" "$BOX" up --nodes 1 --link-mbit 100
contains "left over" "... saying a box is left over"
ip route show type unreachable | grep -q '^unreachable 10.77.0.0/24'
ok_status $? "the root namespace has the guard route while the box is up"

expect_status 0 "exec n2 -- hostname" "$BOX" exec n2 -- hostname
[ "$OUT" = n2 ]
ok_status $? "each node has its own host name (n2: '$OUT')"
expect_status 0 "exec n1 -- ip route" "$BOX" exec n1 -- ip route
case "$OUT" in *default*) st=1 ;; *) st=0 ;; esac
ok_status $st "no default route in a node"
expect_status 0 "a node resolves the others' names" "$BOX" exec n1 -- getent hosts n2
contains "10.77.0.12" "... from the box's own hosts file (n2 is 10.77.0.12)"
expect_status 0 "mpirun's namespace resolves them too" "$BOX" exec head -- getent hosts n1
contains "10.77.0.11" "... (n1 is 10.77.0.11)"
grep -qw n1 /etc/hosts
[ $? -ne 0 ]
ok_status $? "the machine's /etc/hosts does not know the nodes"

expect_status 0 "the file system is mounted at /box/fs on n1" "$BOX" exec n1 -- findmnt -n -o FSTYPE /box/fs
contains "fuse" "... a FUSE mount ($OUT)"
expect_status 0 "... and on n2" "$BOX" exec n2 -- findmnt -n -o FSTYPE /box/fs
mountpoint -q /box/fs
[ $? -ne 0 ]
ok_status $? "the root namespace does not see the nodes' mounts"
"$BOX" exec n1 -- sh -c 'echo hello >/box/fs/hello'
expect_status 0 "a file written on n1 is read on n2 at the same path" "$BOX" exec n2 -- cat /box/fs/hello
contains "hello" "... with its content"

expect_status 0 "the hostfile" "$BOX" hostfile
[ "$OUT" = "$(printf 'n1 slots=4\nn2 slots=4')" ]
ok_status $? "... names every node with 4 slots"
expect_status 0 "mpirun runs 2 ranks a node" "$BOX" mpirun --map-by ppr:2:node sh -c \
	'echo "$(hostname) $(ip -4 -o addr show dev eth0 | awk "{ print \$4 }") $(mountpoint -q /box/fs && echo mounted)"'
want=$(printf 'n1 10.77.0.11/24 mounted\nn1 10.77.0.11/24 mounted\nn2 10.77.0.12/24 mounted\nn2 10.77.0.12/24 mounted')
[ "$(printf '%s\n' "$OUT" | sort)" = "$want" ]
st=$?
ok_status $st "each rank has its node's host name, address and mount"
[ $st -eq 0 ] || printf '%s\n' "$OUT" | sed 's/^/#   /'

# the goodputs the box set: n2 at 100 Mbit/s, n1 at the server's 300
G1=$("$BOX" iperf n1 3)
G2=$("$BOX" iperf n2 3)
figure "goodput n1 (server capped at 300) / n2 (100)" "$G1 / $G2 Mbit/s"
within "$G1" 287 0.05
ok_status $? "n1's goodput is the server's cap (~287 Mbit/s)"
within "$G2" 96 0.05
ok_status $? "n2's goodput is its own link's (~96 Mbit/s)"
DS="{name: m, file_size: 16MiB, file_count: 8}"
box_config "$SCRATCH/m.yaml" m /box/fs/life "$DS" "sweep: {readers_per_node: [1]}" "cache: fadvise" \
	"repetitions: 1" "hardware: {node_link_MBps: 50, storage_servers: 1, server_link_MBps: $(mbps "$G1")}"
check "generate on MooseFS" bmpi n1 1 "$PFSREAD" generate "$SCRATCH/m.yaml"
"$BOX" cold life
check "run on MooseFS, one node" bmpi n1 1 "$PFSREAD" run "$SCRATCH/m.yaml"
b=$(rep_json "$SCRATCH/m.h5" "d['cells'][0]['mean_MBps']")
figure "MooseFS, n1: pfsread aggregate" "$b MB/s (server goodput $(mbps "$G1") MB/s)"
within "$b" "$(mbps "$G1")" 0.10
ok_status $? "MooseFS, 1 node: pfsread at the server's cap (within 10%)"
[ "$(rep_json "$SCRATCH/m.h5" "d['cells'][0]['ceiling']['limit']")" = "server links" ]
ok_status $? "MooseFS, 1 node: the report names the server's link as the limit"
[ "$(rep_json "$SCRATCH/m.h5" "d['meta']['hostnames']")" = "['n1']" ]
ok_status $? "the results name the node by its box host name"

# the server's disk capped at 20 MiB/s (cgroup v1 blkio on its chunk device; cold bricks)
if "$BOX" diskcap 20; then
	sed -i 's/^hardware: .*/hardware: {node_link_MBps: 50, storage_servers: 1, server_link_MBps: 36, server_disk_MBps: 20.97}/' "$SCRATCH/m.yaml"
	"$BOX" cold life
	check "run on MooseFS, the server's disk capped" bmpi n1 1 "$PFSREAD" run "$SCRATCH/m.yaml" -o "$SCRATCH/m-disk.h5"
	"$BOX" diskcap off
	b=$(rep_json "$SCRATCH/m-disk.h5" "d['cells'][0]['mean_MBps']")
	figure "MooseFS, n1, server disk at 20 MiB/s: aggregate" "$b MB/s (cap 20.97 MB/s)"
	within "$b" 20.97 0.10
	ok_status $? "server disk capped: pfsread at the disk's cap (within 10%)"
	[ "$(rep_json "$SCRATCH/m-disk.h5" "d['cells'][0]['ceiling']['limit']")" = "server disks" ]
	ok_status $? "server disk capped: the report names the server's disks as the limit"
else
	fail "the server's disk can be capped (cgroup v1 blkio)"
fi

box_down_clean "down leaves nothing: namespaces, mounts, loop devices, daemons, guard route"
T0=$(date +%s.%N)
expect_status 0 "down again is fine (idempotent)" "$BOX" down
contains "box down" "... and says so ($(elapsed "$T0") s)"

# ---- a box that another run of the suite holds is waited for; one left over is not ----
# until_flag FILE PID: wait (60 s at most) until the script PID touches FILE; false if it ended
# or the time ran out first
until_flag() {
	i=0
	while [ $i -lt 300 ] && [ ! -e "$1" ] && kill -0 "$2" 2>/dev/null; do
		i=$((i + 1))
		sleep 0.2
	done
	[ -e "$1" ]
}
# waiter: box_require as a box test begins, then what is up once it lets the test go on
waiter() {
	T0=$(date +%s.%N)
	timeout 120 sh -c '. "$(dirname "$0")/boxlib.sh"; box_require; "$BOX" status' \
		"$TOP/tests/box/waiter" >"$SCRATCH/waiter.out" 2>&1
	echo $? >"$SCRATCH/waiter.st"
}
cat >"$SCRATCH/other.sh" <<EOF
#!/bin/sh
BOX_OWNER=\$\$ "$BOX" up --nodes 1 --link-mbit 100 --fs none >/dev/null 2>&1 || exit 1
touch "$SCRATCH/other.up"
sleep 8
"$BOX" down >/dev/null 2>&1
EOF
rm -f "$SCRATCH/other.up"
sh "$SCRATCH/other.sh" &
opid=$!
if until_flag "$SCRATCH/other.up" $opid; then
	waiter
	wait $opid
	[ "$(cat "$SCRATCH/waiter.st")" = 0 ] && grep -q "another run's (its test, pid $opid" "$SCRATCH/waiter.out"
	ok_status $? "a box test waits while another run's test holds the box ($(elapsed "$T0") s)"
	[ "$(tail -n 1 "$SCRATCH/waiter.out")" = "no box" ] && ! grep -q "Bail out" "$SCRATCH/waiter.out"
	ok_status $? "... and goes on once that box is down"
else
	wait $opid
	fail "another run's box comes up"
fi

# ---- a test killed mid-run ----
# victim SIGNAL: a script that holds a GlusterFS box and is killed while pfsread reads
victim() {
	cat >"$SCRATCH/victim.sh" <<EOF
#!/bin/sh
trap '"$BOX" down >"$SCRATCH/victim.down" 2>&1' EXIT
trap 'exit 143' TERM
BOX_OWNER=\$\$ "$BOX" up --nodes 2 --link-mbit 100 --fs glusterfs >/dev/null 2>&1 || exit 1
cp /box/run/pids "$SCRATCH/pids.victim"
cat >"$SCRATCH/v.yaml" <<YAML
name: v
root: /box/fs/v
results: $SCRATCH/v.h5
datasets:
  - {name: v, file_size: 8MiB, file_count: 16}
repetitions: 5
cache: drop
YAML
"$BOX" mpirun --map-by ppr:1:node "$PFSREAD" generate "$SCRATCH/v.yaml" >/dev/null 2>&1 &
wait \$!
touch "$SCRATCH/victim.reading"
"$BOX" mpirun --map-by ppr:1:node "$PFSREAD" run "$SCRATCH/v.yaml" >/dev/null 2>&1 &
wait \$!
EOF
	rm -f "$SCRATCH/victim.reading" "$SCRATCH/pids.victim"
	sh "$SCRATCH/victim.sh" &
	vpid=$!
	until_flag "$SCRATCH/victim.reading" $vpid
	ok_status $? "a test holding a box reads through it"
	sleep 2
	T0=$(date +%s.%N)
	kill "-$1" $vpid
	wait $vpid
}

victim TERM
left=$(box_left "$SCRATCH/pids.victim")
figure "SIGTERM to the test: torn down in" "$(elapsed "$T0") s"
[ -z "$left" ]
ok_status $? "a test killed with SIGTERM mid-run tears its box down to nothing${left:+ (left: $left)}"

victim KILL
[ -n "$(box_left)" ]
ok_status $? "a test killed with SIGKILL leaves its box (no trap runs)"
waiter
[ "$(cat "$SCRATCH/waiter.st")" = 1 ] && grep -q "^Bail out! a box is up or left over" "$SCRATCH/waiter.out"
ok_status $? "a box test stops at once on a box whose test has ended ($(elapsed "$T0") s)"
expect_status 0 "down removes what it left" "$BOX" down
left=$(box_left "$SCRATCH/pids.victim")
[ -z "$left" ]
ok_status $? "after down nothing is left of it${left:+ (left: $left)}"

done_testing
