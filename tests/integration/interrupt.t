#!/bin/sh
# interrupt: what goes wrong in the middle of a run. A file that vanishes between phases fails
# its phases (recorded per file) while the others complete; a read that never returns (a named
# pipe) is given up at phase_timeout, naming rank, host and file; SIGTERM at random moments
# leaves a results file that h5py reads, with the finished phases intact.
. "$(dirname "$0")/lib.sh"

root="$SCRATCH/data"
cfg="$SCRATCH/t.yaml"
# "slow" is read first and takes long enough for the test to act before "small" is read
write_cfg() {
	{
		echo "root: $root"
		echo "layout: {files_per_dir: 8}"
		echo "datasets:"
		echo "  - {name: slow, file_size: 64MiB, file_count: 4}"
		echo "  - {name: small, file_size: 64KiB, file_count: 16}"
		echo "sweep: {transfer_size: [4KiB], backend: [${BE:-posix}]}"
		echo "cache: none"
		for line in "$@"; do echo "$line"; done
	} >"$cfg"
}
write_cfg "repetitions: 2"
check "generate" mpi 2 "$PFSREAD" generate "$cfg"

# wait_for FILE: until it exists (the run has passed its checks and started phase 0)
wait_for() {
	i=0
	while [ ! -e "$1" ] && [ "$i" -lt 600 ]; do
		sleep 0.01
		i=$((i + 1))
	done
}

# 1. a file disappears after the checks: its phases fail, the others complete
gone="$root/small/d000001/f0000000009"
mpi 2 "$PFSREAD" run "$cfg" -o "$SCRATCH/gone.h5" >"$SCRATCH/gone.out" 2>&1 &
pid=$!
wait_for "$SCRATCH/gone.h5"
mv "$gone" "$SCRATCH/gone.saved"
wait $pid
ok $(($? == 1 ? 0 : 1)) "a file gone in the middle of a run: exit status 1"
OUT=$(cat "$SCRATCH/gone.out")
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
	mpi 2 "$PFSREAD" run "$cfg" -o "$SCRATCH/hang-$variant.h5" >"$SCRATCH/hang.out" 2>&1 &
	pid=$!
	wait_for "$SCRATCH/hang-$variant.h5"
	mv "$pipe" "$SCRATCH/pipe.saved" && mkfifo "$pipe"
	wait $pid
	ok $(($? == 1 ? 0 : 1)) "$variant: a read that hangs: exit status 1 after the time limit"
	OUT=$(cat "$SCRATCH/hang.out")
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

# 3. SIGTERM (a batch system's time limit) at random moments, to every rank
write_cfg "repetitions: 50"
good=0
for k in 1 2 3 4 5 6; do
	out="$SCRATCH/term$k.h5"
	mpi 2 "$PFSREAD" run "$cfg" -o "$out" >"$SCRATCH/term.out" 2>&1 &
	pid=$!
	wait_for "$out"
	sleep "0.$(od -An -N1 -tu1 /dev/urandom | tr -d ' ')"
	pkill -TERM -f "^$PFSREAD run $cfg -o $out"
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
ok $? "SIGTERM at 6 random moments: every results file closed, status interrupted, finished phases intact ($good/6)"
OUT=$(cat "$SCRATCH/term.out")
contains "interrupted by signal 15" "the message says which signal"

# 4. generate interrupted by SIGTERM leaves no partial file and resumes
cfg2="$SCRATCH/g.yaml"
printf 'root: %s\ndatasets: [{name: many, file_size: 8MiB, file_count: 64}]\n' "$SCRATCH/gen" >"$cfg2"
mpi 2 "$PFSREAD" generate "$cfg2" >/dev/null 2>&1 &
pid=$!
wait_for "$SCRATCH/gen/many/d000000"
sleep 0.2
pkill -TERM -f "^$PFSREAD generate $cfg2"
wait $pid
ok $(($? != 0 ? 0 : 1)) "generate stops on SIGTERM with a non-zero status"
test "$(partial_files "$SCRATCH/gen" 8388608)" -eq 0
ok $? "no partial file is left behind"
check "generate again" mpi 2 "$PFSREAD" generate "$cfg2"
check "verify" mpi 2 "$PFSREAD" verify "$cfg2"
done_testing
