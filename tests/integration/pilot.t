#!/bin/sh
# pilot: `mpirun pfsread plan CONFIG --pilot [N]` runs every phase once on the first files of
# each reader's share, into a results file next to the config's results, prints plan's
# estimate from it and removes it. Every read is 5 ms slower (slow.c), so that the times are
# the known cost per read: the pilot's total must be within a factor of 3 of a whole run's
# summed phase times (a ratio side by side, no fixed threshold in seconds).
. "$(dirname "$0")/lib.sh"

if capped_mount "$SCRATCH/fs" 64m 5000; then
	top="$SCRATCH/fs"
else
	top="$SCRATCH" # not root: the scratch directory (a few MB)
fi
cfg="$SCRATCH/t.yaml"
cat >"$cfg" <<EOF2
name: pilot
root: $top/data
results: $top/res/{name}-{time}.h5
layout: {files_per_dir: 64}
datasets:
  - {name: small, file_size: 4KiB, file_count: 200}
  - {name: mid, file_size: 64KiB, file_count: 40}
sweep: {transfer_size: [16KiB], readers_per_node: [1, 2]}
cache: none
EOF2
check "build the slow-call shim" cc -shared -fPIC -O2 -o "$SCRATCH/slow.so" tests/integration/slow.c -ldl
check "generate" mpi 2 "$PFSREAD" generate "$cfg" --progress 0
# slow ARGS...: 2 ranks whose reads take 5 ms more (Open MPI passes the shim with -x, Hydra
# passes its own environment on)
slow() {
	if [ "$MPI_KIND" = openmpi ]; then
		# shellcheck disable=SC2086
		timeout 300 $MPIRUN $MPI_FLAGS -x LD_PRELOAD="$SCRATCH/slow.so" -x PFSREAD_SLOW=pread:5 -np 2 "$@"
	else
		# shellcheck disable=SC2086
		env LD_PRELOAD="$SCRATCH/slow.so" PFSREAD_SLOW=pread:5 timeout 300 $MPIRUN $MPI_FLAGS -np 2 "$@"
	fi
}
expect_status 0 "plan --pilot under MPI" slow "$PFSREAD" plan "$cfg" --pilot
PILOT_OUT=$OUT
contains "estimate: from a pilot of 2 files per reader, at least 8 per phase" "saying what the estimate assumes"
for i in 0 1 2 3; do
	contains "estimate phase $i: " "an estimate of phase $i"
done
contains " in all for 4 phases" "and of the study"
total=$(printf '%s\n' "$OUT" | sed -n 's/^estimate: \(.*\) in all for 4 phases.*/\1/p')
[ -n "$total" ]; ok_status $? "the total for the 4 phases: '$total'"
left=$(find "$top/res" -name '*.pilot*' 2>/dev/null | wc -l)
[ "$left" -eq 0 ]; ok_status $? "the pilot's results file is gone afterwards ($left left)"

# a whole run, the same slow reads: its phases' elapsed_s summed
expect_status 0 "a whole run" slow "$PFSREAD" run "$cfg" -o "$SCRATCH/full.h5" --progress 0 --no-table
actual=$("$PYTHON" - "$SCRATCH/full.h5" <<'PY'
import h5py, sys
f = h5py.File(sys.argv[1], "r")
print(sum(float(f["phases"][n].attrs["elapsed_s"]) for n in f["phases"]))
PY
)
# the total as plan prints it: "1.66 s", "881 ms", "1 min 02 s"
est=$(printf '%s\n' "$total" | awk '{ s = 0; for (i = 1; i < NF; i += 2) { v = $i; u = $(i + 1);
	s += u == "ms" ? v / 1000 : u == "us" ? v / 1e6 : u == "min" ? v * 60 : u == "h" ? v * 3600 : v }
	print s }')
echo "# pilot estimate $est s, whole run's phases $actual s"
ok_status $(awk -v a="$actual" -v b="$est" 'BEGIN { exit !(a > 0 && b > 0 && b / a < 3 && a / b < 3) }'; echo $?) \
	"the estimate ($est s) is within a factor of 3 of the run's summed phase times ($actual s)"
[ "$T_FAILED" -eq 0 ] || printf '%s\n' "$PILOT_OUT" | sed 's/^/#   /'

# --pilot N and --pilot-output: the file kept, its phases marked and holding the sample
expect_status 0 "--pilot 4 --pilot-output" mpi 2 "$PFSREAD" plan "$cfg" --pilot 4 --pilot-output "$SCRATCH/p.h5"
contains "estimate: from a pilot of 4 files per phase" "N files per phase"
contains "pilot results kept: $SCRATCH/p.h5" "and the file kept"
check "its phases say they were a pilot's sample, of 4 files each" "$PYTHON" - "$SCRATCH/p.h5" <<'PY'
import h5py, sys
f = h5py.File(sys.argv[1], "r")
assert len(f["phases"]) == 4, len(f["phases"])
for n in f["phases"]:
    a = f["phases"][n].attrs
    flags = a["flags"].decode() if isinstance(a["flags"], bytes) else str(a["flags"])
    assert "pilot" in flags.split(","), (n, flags)
    assert int(a["nfiles"]) == 4, (n, int(a["nfiles"]))
    assert int(a["bytes"]) == 4 * int(a["file_size"]), (n, int(a["bytes"]))
PY
expect_status 2 "an existing --pilot-output is refused" mpi 2 "$PFSREAD" plan "$cfg" --pilot --pilot-output "$SCRATCH/p.h5"
contains "exists" "saying so"
expect_status 2 "--pilot with --from is refused" mpi 2 "$PFSREAD" plan "$cfg" --pilot --from "$SCRATCH/p.h5"
contains "not with --from" "naming --from"
expect_status 2 "--pilot-output without --pilot is refused" "$PFSREAD" plan "$cfg" --ranks 2 --nodes 1 --pilot-output "$SCRATCH/q.h5"
done_testing
