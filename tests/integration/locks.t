#!/bin/sh
# locks: two pfsread processes at once on the same data sets or results file. generate and
# clean hold their data sets alone, runs share them, a results file has one writer; the second
# process is refused with exit status 75, naming the holder's host and pid, and nothing of the
# first is lost. A holder killed with SIGKILL, or another host's holder whose heartbeat is old,
# is taken over with one line. The first process is held mid-way by the slow-call shim (its
# reads, writes or unlinks wait until the test lets them go), never by a sleep. Everything is
# written on a capped tmpfs this test mounts.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root to mount a capped tmpfs"
command -v cc >/dev/null 2>&1 || skip_all "needs cc for the slow-call shim"
mnt="$SCRATCH/mnt"
capped_mount "$mnt" 64m 20000 || skip_all "cannot mount a tmpfs"
cc -shared -fPIC -O2 -o "$SCRATCH/slow.so" tests/integration/slow.c -ldl ||
	skip_all "cannot build the slow-call shim"
bg=""
trap '[ -n "$bg" ] && kill_tree "$bg"; lib_cleanup' EXIT

root="$mnt/r"
cfg="$SCRATCH/t.yaml"
small_config "$cfg" "$root" "repetitions: 1"
host=$(hostname)
res="$mnt/res"
mkdir -p "$res"

# held SPEC CMD...: CMD in the background, its calls of SPEC ("pread:1") under the mount held
# until let_go; returns once the first one is held. $bg is its pid, its output $SCRATCH/bg.out.
held() {
	spec=$1
	shift
	rm -f "$SCRATCH/held" "$SCRATCH/go"
	LD_PRELOAD="$SCRATCH/slow.so" PFSREAD_SLOW="$spec" PFSREAD_SLOW_UNDER="$mnt" \
		PFSREAD_SLOW_LOG="$SCRATCH/held" PFSREAD_HOLD_UNTIL="$SCRATCH/go" \
		"$@" >"$SCRATCH/bg.out" 2>&1 &
	bg=$!
	i=0
	while [ ! -e "$SCRATCH/held" ] && kill -0 "$bg" 2>/dev/null && [ "$i" -lt 2400 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}

# let_go: the held command goes on; $status is its exit status, $OUT its output.
let_go() {
	touch "$SCRATCH/go"
	watchdog 240 "$bg"
	wait "$bg"
	status=$?
	watchdog_end
	bg=""
	OUT=$(cat "$SCRATCH/bg.out")
}

check "generate the data sets" "$PFSREAD" generate "$cfg"

# ---- a run writing its results file ------------------------------------------------------
held pread:1 "$PFSREAD" run "$cfg" -o "$res/a.h5" --no-table
[ -e "$SCRATCH/held" ]; ok_status $? "the run is held in its phases"
pid=$bg
expect_status 75 "run --resume of the results file a live run writes is refused (75)" \
	"$PFSREAD" run "$cfg" --resume "$res/a.h5"
contains "is being written by run (pid $pid on host $host" "... naming the writer's pid and host"
expect_status 75 "a second run --force to the same results path is refused (75)" \
	"$PFSREAD" run "$cfg" -o "$res/a.h5" --force --no-table
contains "pid $pid on host $host" "... naming the writer"
expect_status 75 "generate while a run reads the data sets is refused (75)" \
	"$PFSREAD" generate "$cfg"
contains "is in use by run (pid $pid on host $host" "... naming the run"
expect_status 75 "clean while a run reads the data sets is refused (75)" "$PFSREAD" clean "$cfg"
[ -e "$root/big/.pfsread-manifest" ]; ok_status $? "... and removed nothing"
expect_status 75 "under mpirun, both ranks agree on the refusal" \
	mpi 2 "$PFSREAD" clean "$cfg"
check "another run, to another results file, shares the data sets" \
	"$PFSREAD" run "$cfg" -o "$res/b.h5" --no-table
let_go
ok_status "$status" "the held run finishes once let go"
check "its results file is whole (report reads it)" "$PFSREAD" report "$res/a.h5"
[ ! -e "$res/a.h5.lock" ] && [ ! -e "$root/.pfsread-locks" ]; ok_status $? \
	"no lock is left behind"

# ---- clean, then generate, each held ------------------------------------------------------
held unlinkat:1 "$PFSREAD" clean "$cfg"
pid=$bg
expect_status 75 "generate while clean runs is refused (75)" "$PFSREAD" generate "$cfg"
contains "is in use by clean (pid $pid on host $host" "... naming clean"
expect_status 75 "run while clean runs is refused (75)" \
	"$PFSREAD" run "$cfg" -o "$res/c.h5" --no-table
contains "in use by clean" "... naming clean"
[ ! -e "$res/c.h5" ]; ok_status $? "... and wrote no results file"
let_go
ok_status "$status" "the held clean finishes once let go"
[ ! -e "$root/big" ]; ok_status $? "... and removed the data sets"
held pwrite:1 "$PFSREAD" generate "$cfg"
pid=$bg
expect_status 75 "a second generate is refused (75)" "$PFSREAD" generate "$cfg"
contains "is in use by generate (pid $pid on host $host" "... naming the first"
expect_status 75 "clean while generate runs is refused (75)" "$PFSREAD" clean "$cfg"
let_go
ok_status "$status" "the held generate finishes once let go"
check "verify: the data sets are whole" "$PFSREAD" verify "$cfg"

# ---- a holder killed with SIGKILL -----------------------------------------------------------
held pread:1 "$PFSREAD" run "$cfg" -o "$res/d.h5" --no-table
pid=$bg
kill_tree "$pid"
bg=""
expect_status 0 "a killed run's data set lock is taken over: generate goes on" \
	"$PFSREAD" generate "$cfg"
contains "is stale (that process is gone): taken over" "... with one line saying so"
contains "pid $pid on host $host" "... naming the dead holder"
expect_status 0 "a killed run's results file lock is taken over by run --resume" \
	"$PFSREAD" run "$cfg" --resume "$res/d.h5" --no-table
contains "lock $res/d.h5.lock of run (pid $pid on host $host" "... with one line saying so"

# ---- a holder on another host: its heartbeat decides ---------------------------------------
lockfile() { # lockfile PATH COMMAND MODE [NAMES...]
	p=$1
	c=$2
	m=$3
	shift 3
	{
		printf 'pfsread-lock 1\ncommand %s\nmode %s\nhost elsewhere\npid 4242\n' "$c" "$m"
		printf 'start %s\nnames %s\n' "$(date +%s)" "$#"
		for n in "$@"; do echo "$n"; done
	} >"$p"
}
mkdir -p "$root/.pfsread-locks"
lockfile "$root/.pfsread-locks/generate.elsewhere.4242" generate exclusive small
expect_status 75 "another host's generate with a fresh heartbeat refuses a run (75)" \
	"$PFSREAD" run "$cfg" -o "$res/e.h5" --no-table
contains "data set 'small' in $root is in use by generate (pid 4242 on host elsewhere" \
	"... naming that host and pid"
touch -d '1 hour ago' "$root/.pfsread-locks/generate.elsewhere.4242"
expect_status 0 "its heartbeat an hour old: the lock is taken over, the run goes on" \
	"$PFSREAD" run "$cfg" -o "$res/e.h5" --no-table
contains "s old, stale after 600 s): taken over" "... with one line saying so"
lockfile "$res/e.h5.lock" run exclusive
expect_status 75 "another host's live writer of a results file refuses run --resume (75)" \
	"$PFSREAD" run "$cfg" --resume "$res/e.h5" --no-table
contains "e.h5 is being written by run (pid 4242 on host elsewhere" "... naming it"
touch -d '1 hour ago' "$res/e.h5.lock"
expect_status 0 "its heartbeat an hour old: run --resume takes the file over" \
	"$PFSREAD" run "$cfg" --resume "$res/e.h5" --no-table
contains "is stale (its heartbeat is" "... with one line saying so"
mkdir -p "$root/.pfsread-locks"
lockfile "$root/.pfsread-locks/run.elsewhere.4242" run shared big small
check "another host's run shares the data sets with this one" \
	"$PFSREAD" run "$cfg" -o "$res/f.h5" --no-table
expect_status 75 "... but refuses clean (75)" "$PFSREAD" clean "$cfg"
contains "in use by run (pid 4242 on host elsewhere" "... naming it"
rm -f "$root/.pfsread-locks/run.elsewhere.4242"

# ---- the start-up watchdog ends a held run: its locks go with it ----------------------------
small_config "$SCRATCH/w.yaml" "$root" "repetitions: 1" "startup_timeout: 2s"
held pwrite:1 "$PFSREAD" run "$SCRATCH/w.yaml" -o "$res/w.h5" --no-table
pid=$bg
[ -e "$root/.pfsread-locks/run.$host.$pid" ] && [ -e "$res/w.h5.lock" ]; ok_status $? \
	"a run held as it creates its results file holds the data sets and the file"
watchdog 240 "$bg"
wait "$bg"
status=$?
watchdog_end
bg=""
OUT=$(cat "$SCRATCH/bg.out")
contains "start-up did not finish within 2 s" "the start-up watchdog ends it"
[ ! -e "$root/.pfsread-locks" ]; ok_status $? "... and its lock is gone with it"
rm -f "$SCRATCH/go"

# ---- files that vanish under a run for other reasons: one line per phase -------------------
held pread:1 "$PFSREAD" run "$cfg" -o "$res/g.h5" --no-table
rm -f "$root"/small/d*/f*
let_go
[ "$status" -eq 1 ]; ok_status $? "a run whose files vanish mid-way fails (exit 1)"
n=$(printf '%s\n' "$OUT" | grep -c "No such file")
[ "$n" -le 2 ]; ok_status $? \
	"... with one line for the phase's 11 vanished files, and the run's one message ($n lines)"
contains "phase 1: 11 files: No such file or directory (the first: $root/small/d000000/f0000000000" \
	"... which counts them and names the first"

done_testing
