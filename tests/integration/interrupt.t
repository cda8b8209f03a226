#!/bin/sh
# interrupt: what goes wrong in the middle of a run. A file that vanishes between phases fails
# its phases (recorded per file) while the others complete; a read that never returns (a named
# pipe) is given up at phase_timeout, naming rank, host and file; SIGTERM at random moments
# leaves a results file that h5py reads, with the finished phases intact. The run is held at
# its first read (hold.c) while the test swaps a file, so the swap lands between the checks
# and the phase that reads it on a machine of any speed.
. "$(dirname "$0")/lib.sh"

root="$SCRATCH/data"
cfg="$SCRATCH/t.yaml"
# "first" is read first; the run is held at its first open while the test acts on "small"
write_cfg() {
	{
		echo "root: $root"
		echo "layout: {files_per_dir: 8}"
		echo "datasets:"
		echo "  - {name: first, file_size: 64KiB, file_count: 4}"
		echo "  - {name: small, file_size: 64KiB, file_count: 16}"
		echo "sweep: {transfer_size: [4KiB], backend: [${BE:-posix}]}"
		echo "cache: none"
		for line in "$@"; do echo "$line"; done
	} >"$cfg"
}
write_cfg "repetitions: 2"
check "generate" mpi 2 "$PFSREAD" generate "$cfg"

check "build the hold shim" cc -shared -fPIC -O2 -o "$SCRATCH/hold.so" tests/integration/hold.c -ldl

# wait_for FILE: until it exists (60 s at most)
wait_for() {
	i=0
	while [ ! -e "$1" ] && [ "$i" -lt 6000 ]; do
		sleep 0.01
		i=$((i + 1))
	done
}

# held_run OUT: a run of $cfg to OUT in the background ($pid), held at its first read of
# "first" until the test calls let_go; returns once the run is held there.
held_run() {
	rm -f "$SCRATCH/cue" "$SCRATCH/go"
	mpi 2 -x LD_PRELOAD="$SCRATCH/hold.so" -x PFSREAD_HOLD_UNDER="$root/first/" \
		-x PFSREAD_HOLD_CUE="$SCRATCH/cue" -x PFSREAD_HOLD_GO="$SCRATCH/go" \
		"$PFSREAD" run "$cfg" -o "$1" >"$SCRATCH/held.out" 2>&1 &
	pid=$!
	wait_for "$SCRATCH/cue"
}
let_go() { touch "$SCRATCH/go"; }

# signal_ranks SIG PID: SIG to every pfsread process below PID (the ranks, as a batch system's
# time limit reaches them), none other
signal_ranks() {
	for p in $(kt_list "$2"); do
		[ "$(ps -o comm= -p "$p" 2>/dev/null)" = pfsread ] && kill "-$1" "$p" 2>/dev/null
	done
}

# 1. a file disappears after the checks: its phases fail, the others complete
gone="$root/small/d000001/f0000000009"
held_run "$SCRATCH/gone.h5"
test -e "$SCRATCH/gone.h5"
ok_status $? "the run is held in its first phase (its results file is there)"
mv "$gone" "$SCRATCH/gone.saved"
let_go
wait $pid
[ $? -eq 1 ]; ok_status $? "a file gone in the middle of a run: exit status 1"
OUT=$(cat "$SCRATCH/held.out")
contains "$gone: cannot open: No such file or directory" "the message names the file and why"
check "its phases are failed with the error on the file's row, the other phases complete" \
	"$PYTHON" -c '
import h5py, sys, errno
f = h5py.File(sys.argv[1], "r")
assert f.attrs["status"] == "failed", f.attrs["status"]
st = {n: (p.attrs["dataset"], p.attrs["status"]) for n, p in f["phases"].items()}
assert len(st) == 4, st
for n, (ds, status) in st.items():
    assert status == ("failed" if ds == "small" else "complete"), st
    if ds == "small":
        rows = f["phases"][n]["files"][:]
        bad = rows[rows["file"] == 9]
        assert len(bad) == 1 and bad["error"][0] == errno.ENOENT, bad
        assert (rows[rows["file"] != 9]["error"] == 0).all()
' "$SCRATCH/gone.h5"
mv "$SCRATCH/gone.saved" "$gone"

# 2. a read that never returns: a named pipe with no writer, given up at phase_timeout, with
#    the synchronous read loop and with the io_uring pipeline (its requests are cancelled),
#    also when it runs ahead of a process step (uring+process: blocks handed over in order)
for variant in posix uring uring+process; do
	BE=${variant%+process}
	proc="process: {cpu_ns_per_byte: 0}"
	[ "$variant" = uring+process ] && proc="process: {cpu_ns_per_byte: 1}"
	write_cfg "phase_timeout: 2s" "$proc"
	pipe="$root/small/d000000/f0000000003"
	held_run "$SCRATCH/hang-$variant.h5"
	mv "$pipe" "$SCRATCH/pipe.saved" && mkfifo "$pipe"
	let_go
	wait $pid
	[ $? -eq 1 ]; ok_status $? "$variant: a read that hangs: exit status 1 after the time limit"
	OUT=$(cat "$SCRATCH/held.out")
	contains "time limit of 2 s reached; rank 0 on" "$variant: the message names the limit, the rank and the host"
	contains "had not finished file $pipe after 0 bytes" "$variant: and the file, with the bytes read so far"
	check "$variant: the results file holds the finished phase and the timed-out one" "$PYTHON" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
assert f.attrs["status"] == "timeout", f.attrs["status"]
st = [f["phases"][n].attrs["status"] for n in sorted(f["phases"])]
assert st == ["complete", "timeout"], st
' "$SCRATCH/hang-$variant.h5"
	rm -f "$pipe"
	mv "$SCRATCH/pipe.saved" "$pipe"
done
BE=posix

# 3. SIGTERM (a batch system's time limit) at random moments, to every rank. Every read is
#    made 1 ms slow (slow.c), so the 100 phases last over 8 s on any machine and the signal,
#    0-2.5 s after the run's first read, lands in one of the first phases.
check "build the slow-call shim" cc -shared -fPIC -O2 -o "$SCRATCH/slow.so" tests/integration/slow.c -ldl
write_cfg "repetitions: 50"
good=0
for k in 1 2 3 4 5 6; do
	out="$SCRATCH/term$k.h5"
	rm -f "$SCRATCH/cue"
	mpi 2 -x LD_PRELOAD="$SCRATCH/slow.so" -x PFSREAD_SLOW=pread:1 \
		-x PFSREAD_SLOW_LOG="$SCRATCH/cue" "$PFSREAD" run "$cfg" -o "$out" >"$SCRATCH/term.out" 2>&1 &
	pid=$!
	wait_for "$SCRATCH/cue"
	sleep "$(od -An -N1 -tu1 /dev/urandom | awk '{ print $1 / 100 }')"
	signal_ranks TERM "$pid"
	wait $pid
	status=$?
	if "$PYTHON" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
assert f.attrs["status"] == "interrupted", f.attrs["status"]
names = sorted(f["phases"])
st = [f["phases"][n].attrs["status"] for n in names]
assert all(s == "complete" for s in st[:-1]) and st[-1] in ("complete", "interrupted"), st
for n in names[:-1]:
    assert f["phases"][n].attrs["bytes"] > 0
' "$out" 2>"$SCRATCH/term.err" && [ "$status" -ne 0 ]; then
		good=$((good + 1))
	else
		sed 's/^/#   /' "$SCRATCH/term.err" "$SCRATCH/term.out" | tail -n 8
		echo "#   exit status $status"
	fi
done
test "$good" -eq 6
ok_status $? "SIGTERM at 6 random moments: every results file closed, status interrupted, finished phases intact ($good/6)"
OUT=$(cat "$SCRATCH/term.out")
contains "interrupted by signal 15" "the message says which signal"

# 4. generate interrupted by SIGTERM leaves no partial file and resumes
cfg2="$SCRATCH/g.yaml"
printf 'root: %s\ndatasets: [{name: many, file_size: 8MiB, file_count: 64}]\n' "$SCRATCH/gen" >"$cfg2"
# every write 50 ms slow: the signal comes right after the first one, long before the last
rm -f "$SCRATCH/cue"
mpi 2 -x LD_PRELOAD="$SCRATCH/slow.so" -x PFSREAD_SLOW=pwrite:50 -x PFSREAD_SLOW_LOG="$SCRATCH/cue" \
	"$PFSREAD" generate "$cfg2" >/dev/null 2>&1 &
pid=$!
wait_for "$SCRATCH/cue"
signal_ranks TERM "$pid"
wait $pid
[ $? -ne 0 ]; ok_status $? "generate stops on SIGTERM with a non-zero status"
test "$(partial_files "$SCRATCH/gen" 8388608)" -eq 0
ok_status $? "no partial file is left behind"
check "generate again" mpi 2 "$PFSREAD" generate "$cfg2"
check "verify" mpi 2 "$PFSREAD" verify "$cfg2"
done_testing
