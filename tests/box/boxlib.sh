# shellcheck shell=sh
# boxlib.sh: what the box tests share, on top of tests/integration/lib.sh (TAP, scratch,
# checks): the skip rules, the packages, one box per test torn down on exit, failure and signal,
# and small measurements (bytes on the nodes' links, figures from the report's json).
# Source it from a test in tests/box/.

. "$(dirname "$0")/../integration/lib.sh"

BOX="$TOP/tests/box/box.sh"
BOX_LINK=${BOX_LINK:-400}
BOX_PACKAGES="glusterfs-server glusterfs-client moosefs-master moosefs-chunkserver moosefs-client
	moosefs-cli iperf3 xfsprogs e2fsprogs python3 python3-h5py util-linux iproute2"

# box_require: skip the whole test (with the reason) where a box cannot run here
box_require() {
	[ "$(uname -s)" = Linux ] || skip_all "the box needs Linux"
	[ "$(id -u)" -eq 0 ] || skip_all "the box needs root (namespaces, mounts, daemons)"
	[ -x "$PFSREAD" ] || skip_all "no pfsread at $PFSREAD (make first)"
	[ -c /dev/fuse ] || skip_all "no /dev/fuse: FUSE file systems cannot be mounted"
	# shellcheck disable=SC2086
	"$TOP/tests/install-deps.sh" $BOX_PACKAGES >"$SCRATCH/apt.log" 2>&1 ||
		skip_all "cannot install the box's packages: $(tail -n 1 "$SCRATCH/apt.log")"
	unshare --net true 2>/dev/null || skip_all "network namespaces are not available"
	command -v tc >/dev/null 2>&1 || skip_all "no tc (iproute2): the box cannot shape its links"
	ip netns list >/dev/null 2>&1 || skip_all "ip netns does not work here (iproute2)"
	unshare --mount --uts true 2>/dev/null || skip_all "mount or UTS namespaces are not available"
	box_wait_for_other_run
	# a box left over is a failure to show, not a reason to skip
	if ! left=$("$BOX" status 2>&1) || [ "$left" != "no box" ]; then
		echo "Bail out! a box is up or left over here (tests/box/box.sh status): $left"
		exit 1
	fi
}

# box_wait_for_other_run: the box is one per machine; while one is up for a test of another
# run of the suite that is still running, wait for it to come down (BOX_WAIT seconds, 1800)
box_wait_for_other_run() {
	waited=0
	while owner=$("$BOX" owner 2>/dev/null) && [ -n "$owner" ] && kill -0 "$owner" 2>/dev/null &&
		[ "$owner" != $$ ] && [ "$waited" -lt "${BOX_WAIT:-1800}" ]; do
		[ "$waited" -gt 0 ] ||
			echo "# the box up here is another run's (its test, pid $owner, is running): waiting for it"
		sleep 5
		waited=$((waited + 5))
	done
}

# box_up ARGS...: a box for this test, torn down on exit, failure and signal (INT, TERM, HUP),
# given BOX_UP_TIMEOUT seconds (300) to come up;
# when it cannot start, BOX_WHY says why in one line
box_up() {
	BOX_OWNED=1
	trap 'box_cleanup' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP
	T0=$(date +%s.%N)
	BOX_SUMMARY=$(BOX_OWNER=$$ timeout "${BOX_UP_TIMEOUT:-300}" "$BOX" up "$@" 2>"$SCRATCH/box-up.err")
	st=$?
	echo "# $BOX_SUMMARY ($(elapsed "$T0") s wall)"
	# BOX_WHY: why the box could not start, one line (box.sh's "cannot start: ...")
	BOX_WHY=""
	if [ "$st" -ne 0 ]; then
		sed 's/^/#   /' "$SCRATCH/box-up.err"
		BOX_WHY=$(sed -n 's/^box: cannot start: //p' "$SCRATCH/box-up.err" | head -n 1)
		[ -n "$BOX_WHY" ] || BOX_WHY=$(tail -n 1 "$SCRATCH/box-up.err")
	fi
	return "$st"
}

box_cleanup() {
	if [ "${BOX_OWNED:-0}" = 1 ]; then
		"$BOX" down >"$SCRATCH/box-down.out" 2>&1 || sed 's/^/# /' "$SCRATCH/box-down.out"
	fi
	rm -rf "$SCRATCH"
}

elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# bmpi HOSTS PER_NODE ARGS...: pfsread under mpirun on the nodes HOSTS (n1,n2,...), PER_NODE
# ranks each, bounded in time
bmpi() {
	hosts=$1
	per=$2
	shift 2
	spec=$(echo "$hosts" | sed "s/\([^,]*\)/\1:$per/g")
	# in the background: a signal to the test interrupts wait at once and the trap tears the
	# box down (a foreground child would be waited for first)
	timeout "${BMPI_TIMEOUT:-300}" "$BOX" mpirun --host "$spec" --map-by "ppr:$per:node" "$@" &
	wait $!
}

# box_pids NAME: keep the list of what the box started, to check later that all of it ended
box_pids() {
	cp /box/run/pids "$SCRATCH/pids.$1"
}

# box_left [PIDS_FILE]: what is left of a box (empty: nothing): namespaces, the tmpfs, loop
# devices, the guard route, any process still seeing a mount under /box (a node's FUSE mount
# lives in a mount namespace of its own), and the processes recorded in PIDS_FILE
box_left() {
	w=""
	ip netns list | grep -q '^box-' && w="$w namespaces"
	mountpoint -q /box && w="$w /box"
	losetup -a | grep -q '(/box/' && w="$w loop-devices"
	ip route show type unreachable | grep -q '10.77.0.0/24' && w="$w guard-route"
	cat /proc/[0-9]*/mountinfo 2>/dev/null | awk '$5 ~ /^\/box(\/|$)/' | grep -q . && w="$w mounts"
	if [ -f "${1:-}" ]; then
		while read -r p s c; do
			[ "$(awk '{ sub(/^.*\) /, ""); print $20 }' "/proc/$p/stat" 2>/dev/null)" = "$s" ] &&
				w="$w $c($p)"
		done <"$1"
	fi
	echo "${w# }"
}

# box_down_clean DESC: down, then nothing may be left of the box
box_down_clean() {
	box_pids down
	T0=$(date +%s.%N)
	out=$("$BOX" down 2>&1)
	st=$?
	BOX_OWNED=0
	echo "# $out ($(elapsed "$T0") s wall)"
	left=$(box_left "$SCRATCH/pids.down")
	[ $st -eq 0 ] && [ -z "$left" ]
	ok_status $? "$1${left:+ (left: $left)}"
}

# procs_in NS NAME: how many processes named NAME run in network namespace NS
procs_in() { for p in $(ip netns pids "$1"); do cat "/proc/$p/comm"; done | grep -cx "$2"; }

# rx_total NODES...: bytes the nodes have received on their links, summed
rx_total() {
	sum=0
	for n in "$@"; do sum=$((sum + $("$BOX" rx "$n"))); done
	echo "$sum"
}

# jq_py FILE EXPR: a Python expression over the report's json of FILE (d: the first run)
rep_json() {
	"$PFSREAD" report "$1" --format json >"$1.json" || return 1
	"$PYTHON" -c "import json, sys
d = json.load(open(sys.argv[1]))['runs'][0]
print($2)" "$1.json"
}

# box_rates H5: every phase (repetition) of the results file H5, one line each: its aggregate
# (bytes over first start to last end) and each node's (its bytes over its own first start to
# last end), in MB/s, to show on a failure how the repetitions and the nodes went
box_rates() {
	"$PYTHON" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
for k in sorted(f["phases"]):
    p = f["phases"][k]
    r = [x for x in p["ranks"][:] if x["active"]]
    if not r:
        continue
    t0, t1 = min(x["start"] for x in r), max(x["end"] for x in r)
    per = {}
    for x in r:
        b, s, e = per.get(int(x["node"]), (0, x["start"], x["end"]))
        per[int(x["node"])] = (b + int(x["bytes"]), min(s, x["start"]), max(e, x["end"]))
    print("phase %s (repetition %s): %.1f MB/s in %.2f s; node by node: %s" % (k,
          p.attrs.get("repetition", "?"), sum(v[0] for v in per.values()) / (t1 - t0) / 1e6,
          t1 - t0, " ".join("%.1f" % (b / (e - s) / 1e6) for _, (b, s, e) in sorted(per.items()))))
' "$1" 2>&1 | sed 's/^/#   /'
}

# box_load: the machine's load and its busiest processes, to show with a failed figure (the
# box shares the machine's cores with whatever else runs)
box_load() {
	echo "#   load average: $(cut -d' ' -f1-3 /proc/loadavg)"
	ps -eo pid,pcpu,etimes,comm --sort=-pcpu | head -n 9 | sed 's/^/#   /'
}

# within A B FRACTION: |A - B| <= FRACTION x B
within() {
	awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= f * b) }'
}

# ge A B: A >= B (numbers)
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }

# mbps MBIT [DECIMALS]: a rate in Mbit/s as MB/s (2 decimals unless told)
mbps() { awk -v m="$1" -v d="${2:-2}" 'BEGIN { printf "%." d "f", m / 8 }'; }

# orangefs_missing: true (and OFS_WHY says why) where the box cannot have OrangeFS: neither
# built in its cache nor its source at hand (the box's defaults, or BOX_ORANGEFS and
# BOX_ORANGEFS_SRC), as OrangeFS is not a package
orangefs_missing() {
	built=${BOX_ORANGEFS:-/var/cache/pfsread-box/orangefs-2.10.0}
	src=${BOX_ORANGEFS_SRC:-$TOP/../shared/vendor/orangefs}
	OFS_WHY="OrangeFS neither built in $built nor its source at $src (set BOX_ORANGEFS_SRC)"
	[ ! -x "$built/bin/pvfs2fuse" ] && [ ! -x "$src/build.sh" ]
}

# figure NAME VALUE: a measured figure, printed as a TAP comment and kept for the summary
figure() {
	printf '# %-44s %s\n' "$1" "$2"
}

# config FILE NAME ROOT DATASET_LINE [YAML LINES...]: an experiment on the box
box_config() {
	file=$1
	name=$2
	root=$3
	ds=$4
	shift 4
	{
		echo "name: $name"
		echo "root: $root"
		echo "results: $SCRATCH/{name}.h5"
		echo "datasets:"
		echo "  - $ds"
		for line in "$@"; do echo "$line"; done
	} >"$file"
}

# todo STATUS DESCRIPTION REASON: a TAP line for a known gap in pfsread (reported, not hidden):
# shown as "not ok ... # TODO REASON" while it fails, without failing the test
todo() {
	T_COUNT=$((T_COUNT + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $T_COUNT - $2 # TODO $3"
	else
		echo "not ok $T_COUNT - $2 # TODO $3"
	fi
}
