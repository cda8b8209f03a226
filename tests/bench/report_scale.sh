#!/bin/bash
# report_scale.sh: what 'pfsread report' costs as a results file grows, in phases and in file
# rows per phase, up to the seeds' study (4 data sets x readers 1/2/4 x 3 repetitions = 36
# phases of 10^6 file rows). A benchmark, not a test: it prints what it measured and never
# passes or fails on timing.
#
#   usage: tests/bench/report_scale.sh [--quick] [DIR]
#     DIR      where the synthetic results files go (default /var/tmp/pfsread-report-scale;
#              not /tmp). The largest is 2.0 GB; all of them 2.3 GB. Removed at the end
#              unless KEEP=1 (then the next run reuses them).
#     --quick  leaves out the two largest (10,000 phases; 36 phases x 10^6 rows), one round
#   environment: PFSREAD (default build/pfsread), PYTHON (default /usr/bin/python3, with h5py
#                and numpy), REPS (rounds, default 3), REPORT_TIMEOUT (seconds one report may
#                take before it is stopped, default 300), REPORT_MEM_CAP (its address space
#                limit in MiB, default 8192: a report that needs more fails with ENOMEM
#                instead of crowding the machine), KEEP (1: keep the files)
#
# Each file is made once by tests/bench/results_gen.py (schema version 3, laid out as pfsread
# writes it; the sizes below). Then REPS rounds, each timing 'pfsread report FILE' (the text
# report, as 'run' prints it, to /dev/null) on every file in turn, under /usr/bin/time -v:
# wall time and peak RSS. A report still running after REPORT_TIMEOUT is stopped (SIGTERM),
# and how far it got is read from /proc/PID/io (bytes it had read of the file) sampled every
# second; a file that timed out or failed is not timed again in later rounds.
# The table: medians over rounds; ms per phase; us per file row; peak RSS.
# Every measurement is also in DIR/raw.tsv; every command run is in DIR/commands.log.
set -Eeu -o pipefail
shopt -s inherit_errexit
report_failure() {
	echo "report_scale.sh: line $1: command failed: ${2%%$'\n'*}" >&2
}
trap 'report_failure $LINENO "$BASH_COMMAND"' ERR

TOP=$(cd "$(dirname "$0")/../.." && pwd)
PFSREAD=${PFSREAD:-$TOP/build/pfsread}
PYTHON=${PYTHON:-/usr/bin/python3}
GEN=$TOP/tests/bench/results_gen.py
REPS=${REPS:-3}
REPORT_TIMEOUT=${REPORT_TIMEOUT:-300}
REPORT_MEM_CAP=${REPORT_MEM_CAP:-8192}
KEEP=${KEEP:-0}

QUICK=0
DIR=/var/tmp/pfsread-report-scale
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) QUICK=1 ;;
	-h | --help)
		sed -n '2,/^set -Eeu/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	-*) echo "report_scale.sh: unknown option $1 (usage: report_scale.sh [--quick] [DIR])" >&2 && exit 2 ;;
	*) DIR=$1 ;;
	esac
	shift
done

# The files: name, then results_gen.py's arguments. "phases-N": N small phases (100 file rows
# on 2 nodes x 2 ranks) for the cost per phase; "rows-N": the seeds' 36 phases on 100 nodes x
# 4 ranks with N file rows each, for the cost per row.
SIZES=(phases-100 phases-1000 phases-10000 rows-1e4 rows-1e5 rows-1e6)
declare -A GEN_ARGS=(
	[phases-100]="--phases 100 --files 100 --nodes 2 --ranks-per-node 2 --readers 1,2"
	[phases-1000]="--phases 1000 --files 100 --nodes 2 --ranks-per-node 2 --readers 1,2"
	[phases-10000]="--phases 10000 --files 100 --nodes 2 --ranks-per-node 2 --readers 1,2"
	[rows-1e4]="--files 10000"
	[rows-1e5]="--files 100000"
	[rows-1e6]="--files 1000000"
)
# phases and rows of each, for the table and the space check
declare -A NPHASES=([phases-100]=100 [phases-1000]=1000 [phases-10000]=10000
	[rows-1e4]=36 [rows-1e5]=36 [rows-1e6]=36)
declare -A NROWS=([phases-100]=100 [phases-1000]=100 [phases-10000]=100
	[rows-1e4]=10000 [rows-1e5]=100000 [rows-1e6]=1000000)
if [ "$QUICK" -eq 1 ]; then
	SIZES=(phases-100 phases-1000 rows-1e4 rows-1e5)
	REPS=1
fi

mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
RAW=$DIR/raw.tsv
CMDLOG=$DIR/commands.log

die() {
	echo "report_scale.sh: $*" >&2
	exit 1
}

now() { date +%s.%N; }

check_tools() {
	[ -x "$PFSREAD" ] || die "$PFSREAD not found: run 'make' first"
	[ -x /usr/bin/time ] || die "/usr/bin/time not found (Debian: time)"
	"$PYTHON" -c 'import h5py, numpy' 2>/dev/null ||
		die "$PYTHON cannot import h5py and numpy (Debian: python3-h5py)"
}

# check_space: each file's rows (56 bytes each on disk) and ranks (128 bytes), plus 10%, for
# the files not made yet.
check_space() {
	local need=0 s avail ranks
	for s in "${SIZES[@]}"; do
		[ -e "$DIR/$s.h5" ] && continue
		ranks=400
		case "$s" in phases-*) ranks=4 ;; esac
		need=$((need + NPHASES[$s] * (NROWS[$s] * 56 + ranks * 128 + 8192)))
	done
	need=$((need * 110 / 100))
	avail=$(df -P -B1 "$DIR" | awk 'NR == 2 { print $4 }')
	[ "$avail" -ge "$need" ] ||
		die "$DIR has $((avail >> 20)) MiB free, the files need $((need >> 20)) MiB"
}

# make_file SIZE: the synthetic results file, unless a previous run with KEEP=1 left it.
make_file() {
	local s=$1 h5=$DIR/$1.h5 t0 t1
	if [ -e "$h5" ] && [ -e "$h5.args" ] && [ "$(cat "$h5.args")" = "${GEN_ARGS[$s]}" ]; then
		printf "  %-13s %6d MB, kept from an earlier run\n" "$s" "$(du -m "$h5" | cut -f1)"
		return
	fi
	rm -f "$h5" "$h5.args"
	# shellcheck disable=SC2086
	echo "$PYTHON $GEN $h5 ${GEN_ARGS[$s]}" >>"$CMDLOG"
	t0=$(now)
	# shellcheck disable=SC2086
	"$PYTHON" "$GEN" "$h5" ${GEN_ARGS[$s]} >/dev/null
	t1=$(now)
	echo "${GEN_ARGS[$s]}" >"$h5.args"
	printf '  %-13s %6d MB, made in %.1f s\n' "$s" "$(du -m "$h5" | cut -f1)" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
}

# child_of PID: the one child process of PID (what /usr/bin/time runs), or nothing yet.
child_of() {
	awk "{ print \$1 }" "/proc/$1/task/$1/children" 2>/dev/null || true
}

# rchar_of PID: bytes PID has read through read calls so far (HDF5 reads with pread).
rchar_of() {
	awk '$1 == "rchar:" { print $2 }' "/proc/$1/io" 2>/dev/null || true
}

# time_report SIZE REP: prints "wall_s maxrss_kB status read_bytes". The report runs under
# /usr/bin/time -v with REPORT_MEM_CAP as its address space limit; every second its read
# bytes are sampled; past REPORT_TIMEOUT it is sent SIGTERM (by its pid).
time_report() {
	local s=$1 rep=$2 h5=$DIR/$1.h5 tf=$DIR/logs/time-$1-$2.txt out=$DIR/logs/report-$1-$2.txt
	local tpid pid="" rchar=0 r t0 killed=0 rc=0 i=0 wall rss status
	echo "(ulimit -v $((REPORT_MEM_CAP * 1024)); /usr/bin/time -v -o $tf $PFSREAD report $h5 > /dev/null)" >>"$CMDLOG"
	t0=$(date +%s)
	(
		ulimit -v $((REPORT_MEM_CAP * 1024))
		exec /usr/bin/time -v -o "$tf" "$PFSREAD" report "$h5" >/dev/null 2>"$out"
	) &
	tpid=$!
	while kill -0 "$tpid" 2>/dev/null; do
		if [ $((i % 10)) -eq 0 ]; then # every second: how far it is, whether it is too late
			[ -z "$pid" ] && pid=$(child_of "$tpid")
			if [ -n "$pid" ]; then
				r=$(rchar_of "$pid")
				[ -n "$r" ] && rchar=$r
			fi
			if [ "$killed" -eq 0 ] && [ -n "$pid" ] &&
				[ $(($(date +%s) - t0)) -ge "$REPORT_TIMEOUT" ]; then
				kill -TERM "$pid" 2>/dev/null || true
				killed=1
			fi
		fi
		i=$((i + 1))
		sleep 0.1
	done
	wait "$tpid" || rc=$?
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0;
		for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$tf")
	rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tf")
	status=ok
	if [ "$killed" -eq 1 ]; then
		status=timeout
	elif [ "$rc" -ne 0 ]; then
		status="failed:$(grep -m1 -v '^$' "$out" | tr '\t ' '__' | cut -c1-60)"
	fi
	[ "$status" = ok ] && rchar=$(stat -c %s "$h5")
	echo "$wall $rss $status $rchar"
}

table() {
	"$PYTHON" - "$RAW" "$REPORT_TIMEOUT" "$REPORT_MEM_CAP" <<'PY'
import statistics as st, sys
raw, timeout, cap = sys.argv[1], sys.argv[2], sys.argv[3]
rows, order = {}, []
for line in open(raw):
    size, rep, phases, nrows, fbytes, wall, rss, status, rchar = line.rstrip("\n").split("\t")
    if size not in rows:
        order.append(size)
        rows[size] = []
    rows[size].append((int(phases), int(nrows), int(fbytes), float(wall), int(rss), status,
                       int(rchar)))
hdr = (f"{'file':<13} {'phases':>6} {'rows/phase':>10} {'file MB':>8} {'rounds':>6} "
       f"{'report s':>9} {'ms/phase':>9} {'us/row':>7} {'peak RSS MiB':>12}  outcome")
print(hdr)
print("-" * len(hdr))
for size in order:
    runs = rows[size]
    phases, nrows, fbytes = runs[0][:3]
    ok = [r for r in runs if r[5] == "ok"]
    rss = max(r[4] for r in runs) / 1024
    if ok:
        wall = st.median(r[3] for r in ok)
        print(f"{size:<13} {phases:6d} {nrows:10d} {fbytes / 1e6:8.0f} {len(ok):6d} {wall:9.2f} "
              f"{wall / phases * 1e3:9.2f} {wall / (phases * nrows) * 1e6:7.3f} {rss:12.0f}  "
              f"done (range {min(r[3] for r in ok):.2f}-{max(r[3] for r in ok):.2f} s)")
        continue
    r = runs[0]
    how = (f"stopped after {r[3]:.0f} s (timeout {timeout} s), having read {r[6] / 1e6:.0f} "
           f"of {fbytes / 1e6:.0f} MB ({100 * r[6] / fbytes:.0f}%)"
           if r[5] == "timeout" else f"{r[5]} after {r[3]:.1f} s (address space cap {cap} MiB)")
    print(f"{size:<13} {phases:6d} {nrows:10d} {fbytes / 1e6:8.0f} {0:6d} {'-':>9} {'-':>9} "
          f"{'-':>7} {rss:12.0f}  {how}")
print()
print("report s: wall time of 'pfsread report FILE > /dev/null' (/usr/bin/time -v), the median "
      "of the rounds;\nms/phase and us/row: that time over the phases and over all file rows; "
      "peak RSS: the most of any round.\nphases-N: N phases of 100 file rows, 2 nodes x 2 ranks; "
      "rows-N: 36 phases (4 data sets x readers 1/2/4\nx 3 repetitions) of N file rows, 100 "
      "nodes x 4 ranks. Targets: < 1 ms per phase, linear;\n36 x 10^6 rows in "
      "under 60 s within 4 GB.")
PY
}

remove_files() {
	local s
	[ "$KEEP" = 1 ] && return
	for s in "${SIZES[@]}"; do rm -f "$DIR/$s.h5" "$DIR/$s.h5.args"; done
}

main() {
	check_tools
	rm -rf "$DIR/logs"
	mkdir -p "$DIR/logs"
	: >"$RAW"
	: >"$CMDLOG"
	check_space
	echo "pfsread report at scale: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -nr), $(nproc) cores," \
		"load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "  pfsread $("$PFSREAD" --version 2>&1 | head -n 1); DIR $DIR; $REPS round(s);" \
		"timeout ${REPORT_TIMEOUT} s, address space cap ${REPORT_MEM_CAP} MiB per report"
	echo "  command: (ulimit -v CAP; /usr/bin/time -v $PFSREAD report FILE > /dev/null)"
	echo "Synthetic results files ($GEN):"
	trap remove_files EXIT
	local s rep res wall rss status rchar
	declare -A STOPPED
	for s in "${SIZES[@]}"; do make_file "$s"; done
	for rep in $(seq 1 "$REPS"); do
		for s in "${SIZES[@]}"; do
			[ -n "${STOPPED[$s]:-}" ] && continue
			res=$(time_report "$s" "$rep")
			read -r wall rss status rchar <<<"$res"
			printf '  round %d %-13s %9.2f s  peak RSS %6d MiB  %s\n' "$rep" "$s" "$wall" \
				$((rss / 1024)) "$status"
			printf '%s\t%d\t%d\t%d\t%d\t%s\t%d\t%s\t%d\n' "$s" "$rep" "${NPHASES[$s]}" \
				"${NROWS[$s]}" "$(stat -c %s "$DIR/$s.h5")" "$wall" "$rss" "$status" \
				"$rchar" >>"$RAW"
			[ "$status" = ok ] || STOPPED[$s]=1
		done
	done
	echo
	table
	echo
	echo "Raw measurements: $RAW; commands: $CMDLOG; the reports' error output: $DIR/logs"
}

main
