#!/bin/sh
# stop: SIGTERM (and a phase's time limit) are honoured promptly in every stage, and what is
# left behind is consistent: config load, planning (generate's count of a resumed data set,
# run's check of every file), directory creation and generation, verify, a timed phase, clean,
# report and calibrate. Each stage is made to last tens of seconds: a shim (slow.c, through
# LD_PRELOAD) makes the calls it is made of slow (a few ms per stat, mkdir, unlink or read,
# nothing else), the signal comes about a second into it, and the time to the exit is held
# against a generous bound measured here (3 s + twice a whole small command), never a tight
# absolute figure. Everything is written on a tmpfs this test mounts with a size and an inode
# cap, and unmounts on exit.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root to mount a capped tmpfs"
command -v cc >/dev/null 2>&1 || skip_all "needs cc for the slow-call shim"
mnt="$SCRATCH/mnt"
mkdir -p "$mnt"
mount -t tmpfs -o size=256m,nr_inodes=40000 tmpfs "$mnt" 2>/dev/null || skip_all "cannot mount a tmpfs"
bg=""
writer=""
cleanup() {
	for p in $bg $writer; do kill -KILL "$p" 2>/dev/null; done
	wait 2>/dev/null
	umount "$mnt" 2>/dev/null
	rm -rf "$SCRATCH"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
cc -shared -fPIC -O2 -o "$SCRATCH/slow.so" tests/integration/slow.c -ldl ||
	skip_all "cannot build the slow-call shim"

root="$mnt/r"
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# slowly SPEC CMD...: CMD in the background with the calls of SPEC ("stat:2") slow under the
# mount; $bg is its pid, its output goes to $SCRATCH/bg.out.
slowly() {
	spec=$1
	shift
	rm -f "$SCRATCH/slow.log"
	LD_PRELOAD="$SCRATCH/slow.so" PFSREAD_SLOW="$spec" PFSREAD_SLOW_UNDER="$mnt" \
		PFSREAD_SLOW_LOG="$SCRATCH/slow.log" "$@" >"$SCRATCH/bg.out" 2>&1 &
	bg=$!
}

# cue: until the first slowed call (the stage has begun), then a second into it.
cue() {
	i=0
	while [ ! -e "$SCRATCH/slow.log" ] && [ "$i" -lt 1200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	sleep 1
}

# wait_bg: wait for $bg (killed after 120 s: a stage that ignores the signal fails the bound,
# it does not hang the suite); $took (since $t0), $status, $OUT.
wait_bg() {
	watchdog 120 "$bg"
	wait "$bg"
	status=$?
	t1=$(now)
	watchdog_end
	bg=""
	took=$(elapsed "$t0" "$t1")
	OUT=$(cat "$SCRATCH/bg.out")
}

# stop_bg: SIGTERM to $bg, then wait_bg.
stop_bg() {
	t0=$(now)
	kill -TERM "$bg"
	wait_bg
}

# prompt STAGE [STATUS [OR]]: the exit status (143: 128 + SIGTERM; or OR) and the time against
# the bound.
prompt() {
	want=${2:-143}
	or=${3:-$want}
	ok_status $((status == want || status == or ? 0 : 1)) "$1: exit status $want (got $status)"
	awk -v t="$took" -v b="$bound" 'BEGIN { exit !(t < b) }'
	ok_status $? "$1: ended $took s after the signal (bound $bound s; tens of seconds of the stage were left)"
}

count() { find "$@" 2>/dev/null | wc -l; }

cat >"$SCRATCH/many.yaml" <<EOF
root: $root
layout: {files_per_dir: 1}
datasets: [{name: many, file_size: 512B, file_count: 10000}]
cache: none
EOF
cat >"$SCRATCH/tiny.yaml" <<EOF
root: $root
datasets: [{name: tiny, file_size: 4KiB, file_count: 2}]
cache: none
EOF

# the bound: a whole small command, start to end, twice, and 3 s
check "generate a tiny data set" "$PFSREAD" generate "$SCRATCH/tiny.yaml"
t0=$(now)
"$PFSREAD" verify "$SCRATCH/tiny.yaml" >/dev/null 2>&1
base=$(elapsed "$t0" "$(now)")
bound=$(awk -v b="$base" 'BEGIN { printf "%.1f", 3 + 2 * b }')
echo "# a whole verify of 2 files took $base s: the bound is $bound s"

# 1. config load: a config that arrives through a pipe and stalls (a slow network file system,
#    a generator), so that the load blocks in read
#    (the writer's open of the FIFO returns once pfsread opened it to read, which it does
#    after its signal handlers are in place: the cue, whatever MPI's start-up takes)
mkfifo "$SCRATCH/pipe.yaml"
(touch "$SCRATCH/pipe.opened" && printf 'root: %s\n' "$root" && exec sleep 60) \
	>"$SCRATCH/pipe.yaml" &
writer=$!
"$PFSREAD" generate "$SCRATCH/pipe.yaml" >"$SCRATCH/bg.out" 2>&1 &
bg=$!
i=0
while [ ! -e "$SCRATCH/pipe.opened" ] && [ "$i" -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
sleep 0.5
stop_bg
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null
writer=""
prompt "config load"
contains "pipe.yaml: interrupted by signal 15" "config load: the message says so"

# 2. directory creation and generation: 10,000 files of one per directory, every mkdir 2 ms
slowly mkdir:2 "$PFSREAD" generate "$SCRATCH/many.yaml"
cue
stop_bg
prompt "directory creation and generation"
contains "generate: interrupted by signal 15; run generate again to finish" \
	"generation: the message says so"
dirs=$(count "$root/many" -mindepth 1 -type d)
files=$(count "$root/many" -type f -name 'f*')
test "$dirs" -le $((files + 1)) && test "$files" -lt 5000
ok_status $? "directories are made with their first file, not up front ($dirs directories, $files files of 10000)"
test "$(partial_files "$root/many" 512)" -eq 0 && grep -q "complete 0" "$root/many/.pfsread-manifest"
ok_status $? "no partial file, and the manifest does not claim the data set whole"

# 3. planning: generate resumes a data set whose files are all there but whose manifest says
#    incomplete (stopped just before the end): the resume's count of what is whole stats every
#    file, 2 ms each
check "generate the rest" "$PFSREAD" generate "$SCRATCH/many.yaml"
sed -i 's/^complete 1/complete 0/' "$root/many/.pfsread-manifest"
slowly stat:2 "$PFSREAD" generate "$SCRATCH/many.yaml"
cue
stop_bg
prompt "planning (a resume's count of the files made)"
contains "generate: interrupted by signal 15" "planning: the message says so"
check "generate again completes the data set" "$PFSREAD" generate "$SCRATCH/many.yaml"

# 4. generation proper: 60 files of 1 MiB, every write of a block 300 ms
cat >"$SCRATCH/big.yaml" <<EOF
root: $root
datasets: [{name: big, file_size: 1MiB, file_count: 60}]
EOF
slowly pwrite:300 "$PFSREAD" generate "$SCRATCH/big.yaml"
cue
stop_bg
prompt "generation"
test "$(partial_files "$root/big" 1048576)" -eq 0
ok_status $? "generation: no partial file left"

# 5. verify: every read 2 ms (10,000 files)
slowly pread:2 "$PFSREAD" verify "$SCRATCH/many.yaml"
cue
stop_bg
prompt "verify"
contains "verify: interrupted by signal 15" "verify: the message says so"

# 6. run, before its first phase: the check of every file, one stat each (2 ms)
slowly stat:2 "$PFSREAD" run "$SCRATCH/many.yaml" -o "$SCRATCH/checks.h5"
cue
stop_bg
prompt "run: the check of every file"
contains "run: checking the files: interrupted by signal 15" "run: the message says which stage"
test ! -e "$SCRATCH/checks.h5"
ok_status $? "run: no results file was started"

# 7. report: every read of the results file 300 ms (a file on a slow file system)
check "run (for a results file to report)" "$PFSREAD" run "$SCRATCH/many.yaml" -o "$mnt/many.h5"
slowly pread:300 "$PFSREAD" report "$mnt/many.h5"
cue
stop_bg
prompt "report"

# 8. calibrate: its temporary file (no data set file is large enough), every write of a
#    4 MiB block 1 s
slowly pwrite:1000 "$PFSREAD" calibrate "$SCRATCH/many.yaml" --disk-size 64MiB --mem-size 16MiB \
	--msg-size 1MiB -o "$SCRATCH/calib.h5"
cue
stop_bg
prompt "calibrate"
contains "calibrate: interrupted by signal 15" "calibrate: the message says so"
test "$(count "$root" -maxdepth 1 -name '.pfsread-calibrate-*')" -eq 0 && test ! -e "$SCRATCH/calib.h5"
ok_status $? "calibrate: its temporary file is removed, no calibration file is written"

# 9. clean: every unlink 2 ms (10,000 files and their directories); the manifest stays until
#    the end, so clean run again finishes the job
slowly unlinkat:2 "$PFSREAD" clean "$SCRATCH/many.yaml"
cue
stop_bg
prompt "clean"
contains "clean: interrupted by signal 15; the manifest is kept" "clean: the message says so"
test -e "$root/many/.pfsread-manifest"
ok_status $? "clean: the manifest is still there"
check "clean again finishes" "$PFSREAD" clean "$SCRATCH/many.yaml"
test ! -e "$root/many"
ok_status $? "clean: nothing of the data set is left"

# 10. clean trusts no count beyond what generate can make (12.8): a forged manifest's 10^11
#     files are refused at once, nothing removed
check "generate a tiny data set again" "$PFSREAD" generate "$SCRATCH/tiny.yaml"
sed -i 's/^nfiles .*/nfiles 100000000000/' "$root/tiny/.pfsread-manifest"
t0=$(now)
"$PFSREAD" clean "$SCRATCH/tiny.yaml" >"$SCRATCH/bg.out" 2>&1 &
bg=$!
wait_bg
prompt "clean of a forged manifest" 1
contains "damaged manifest: nfiles is more than pfsread ever makes" "the message says why"
test "$(count "$root/tiny" -type f -name 'f*')" -eq 2
ok_status $? "nothing was removed"

# 11. a timed phase, 2 ranks (12.6): a 12 MiB file per reader at 64 KiB transfers and 1 us of
#     CPU per byte (12 s per file): the stop flag is looked at after every transfer, so the
#     time limit and SIGTERM end the phase within a transfer, the phase record is written
#     (not lost to an abort), and each reader's file keeps the bytes read so far
cat >"$SCRATCH/phase.yaml" <<EOF
root: $root
datasets: [{name: slow, file_size: 12MiB, file_count: 2}]
sweep: {readers_per_node: [2], transfer_size: [64KiB]}
cache: none
process: {cpu_ns_per_byte: 1000}
EOF
check "generate 2 files of 12 MiB" mpi 2 "$PFSREAD" generate "$SCRATCH/phase.yaml"
phase_check='
import errno, h5py, sys
f = h5py.File(sys.argv[1], "r")
assert f.attrs["status"] == sys.argv[2], f.attrs["status"]
p = f["phases"]["0000"]
assert p.attrs["status"] == sys.argv[2], p.attrs["status"]
rows = p["files"][:]
assert len(rows) == 2, rows
for r in rows:
    assert 0 < r["bytes"] < 12 << 20 and r["error"] == errno.EINTR, rows
assert p.attrs["bytes"] == rows["bytes"].sum()
'
# mpirun itself in the background (not through a shell function): the signal goes to it, and
# it passes it on to the ranks, as a batch system's does
# shellcheck disable=SC2086
mpirun $MPI_FLAGS -np 2 "$PFSREAD" run "$SCRATCH/phase.yaml" -o "$SCRATCH/term.h5" \
	>"$SCRATCH/bg.out" 2>&1 &
bg=$!
# the cue: both readers inside the phase, each with its file open (a probe's open lasts
# microseconds; these stay open for the 12 s of the file) on three looks in a row, then half a
# second (some transfers of 65 ms each) for bytes on both rows, whatever the start-up took
readers_in() {
	find /proc/[0-9]*/fd -maxdepth 1 -lname "$root/slow/*" 2>/dev/null | cut -d/ -f3 |
		sort -u | wc -l
}
i=0
seen=0
while [ "$seen" -lt 3 ] && [ "$i" -lt 1200 ]; do
	sleep 0.05
	i=$((i + 1))
	if [ "$(readers_in)" -ge 2 ]; then seen=$((seen + 1)); else seen=0; fi
done
sleep 0.5
stop_bg
# (mpirun's own status after a SIGTERM is its business: 1 with Open MPI 4.1; the ranks exit 143)
prompt "a timed phase (SIGTERM through mpirun, 2 ranks)" 143 1
contains "interrupted by signal 15; rank " "the message names the rank"
contains "had not finished file $root/slow/d000000/f000000000" "and the file it was reading"
check "the phase is recorded, interrupted, with each file's bytes so far" \
	"$PYTHON" -c "$phase_check" "$SCRATCH/term.h5" interrupted

echo "phase_timeout: 2s" >>"$SCRATCH/phase.yaml"
t0=$(now)
expect_status 1 "phase_timeout 2 s, 2 ranks: exit status 1" \
	mpi 2 "$PFSREAD" run "$SCRATCH/phase.yaml" -o "$SCRATCH/limit.h5"
took=$(elapsed "$t0" "$(now)")
awk -v t="$took" -v b="$bound" 'BEGIN { exit !(t < 2 + 2 * b) }'
ok_status $? "the whole run took $took s: the limit (2 s) and a bound for start and end, not the 12 s of the files"
contains "time limit of 2 s reached; rank " "the message names the limit and the rank"
contains "after " "and the bytes read"
check "the phase is recorded as timeout with each file's bytes so far" \
	"$PYTHON" -c "$phase_check" "$SCRATCH/limit.h5" timeout

done_testing
