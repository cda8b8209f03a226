#!/bin/sh
# slurm/chain: the job scripts' --chain on a real Slurm (tests/integration/slurm_lib.sh): a
# study of about 3 minutes of phases (every read made 15 ms slow by slow.c), submitted with a
# 1-minute time limit (sbatch --time=1 ... pfsread.sbatch CONFIG --chain 10), completes through
# chained jobs, each stopped by its budget (or killed at its limit) and continued by its
# follow-on; the final results file holds every phase exactly once, identical in phase set and
# attributes to an uninterrupted run's, with a part per job that ran phases; the script, the
# config and the results sit at paths with a space, a comma and an '='. Leaves no job
# and no daemon behind. About 6 minutes: `make slurm-check`, not `make check`.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/../integration/slurm_lib.sh"
export PFSREAD
# The script, the config and the results at paths with a space, a comma and an '=' (what a
# list split at commas would take for another variable): the chain carries them whole.
SBATCH_SCRIPT="$SCRATCH/job scripts,x/pfsread.sbatch"
mkdir -p "$SCRATCH/job scripts,x" "$SCRATCH/cfg dir,PFSREAD_CHAIN=1"
cp "$TOP/jobscripts/slurm/pfsread.sbatch" "$SBATCH_SCRIPT"

cfg="$SCRATCH/cfg dir,PFSREAD_CHAIN=1/t.yaml"
cat >"$cfg" <<EOF2
name: chained
root: $SCRATCH/data
layout: {files_per_dir: 16}
datasets:
  - {name: a, file_size: 4MiB, file_count: 16}
sweep: {transfer_size: [64KiB], readers_per_node: [1, 2]}
cache: none
repetitions: 8
EOF2
check "generate" mpi 2 "$PFSREAD" generate "$cfg" --progress 0
check "an uninterrupted run (not slowed: the phases' set and attributes do not hang on time)" \
	mpi 2 "$PFSREAD" run "$cfg" -o "$SCRATCH/full.h5" --progress 0
check "build the slow-call shim" cc -shared -fPIC -O2 -o "$SCRATCH/slow.so" tests/integration/slow.c -ldl

R="$SCRATCH/res dir,PFSREAD_CHAIN=1"
mkdir -p "$R"
flags="--oversubscribe -x LD_PRELOAD=$SCRATCH/slow.so -x PFSREAD_SLOW=pread:15"
FIRST=$(cd "$R" && env PFSREAD_LAUNCH_FLAGS="$flags" PFSREAD_GENERATE=never timeout 30 \
	sbatch --parsable -p one -N 1 --ntasks-per-node=2 --time=1 -o job-%j.out \
	"$SBATCH_SCRIPT" "$cfg" --chain 10 2>&1)
case "$FIRST" in
*[!0-9]* | "") fail "sbatch --time=1 ... --chain 10: $FIRST" && done_testing ;;
*) pass "sbatch --time=1 ... --chain 10: job $FIRST" ;;
esac
# until no job is left (the last follow-on finds the file complete, or the cap is reached)
deadline=$(($(date +%s) + 900))
while [ -n "$(timeout 10 squeue -h -o %i 2>/dev/null)" ] && [ "$(date +%s)" -lt "$deadline" ]; do
	sleep 2
done
[ -z "$(timeout 10 squeue -h -o %i 2>/dev/null)" ]; ok_status $? \
	"the chain ends within 15 minutes"
jobs=$(ls "$R"/job-*.out "$R"/pfsread-*.out 2>/dev/null | wc -l)
echo "# $jobs jobs ran"
for f in "$R"/job-*.out "$R"/pfsread-*.out; do
	[ -f "$f" ] && sed -n 's/^\(.*chain: .*\|.*the study is not complete.*\|.*is complete: nothing left.*\|.*done, exit status.*\|.*time budget: .*\)$/#   '"${f##*/}"': \1/p' "$f"
done
[ "$jobs" -ge 3 ]; ok_status $? "the study took several jobs ($jobs)"
check "the final file: complete, every phase once, as in the uninterrupted run" \
	"$PYTHON" - "$SCRATCH/full.h5" "$R/chained-$FIRST.h5" <<'PY'
import h5py, sys
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
assert b.attrs["status"] == "complete", b.attrs["status"]
assert sorted(a["phases"]) == sorted(b["phases"]), (sorted(a["phases"]), sorted(b["phases"]))
for n in a["phases"]:
    for k in a["phases"][n].attrs:
        if k in ("dataset", "readers_per_node", "repetition", "bytes", "nfiles", "status",
                 "backend", "transfer_size", "order", "cache"):
            assert a["phases"][n].attrs[k] == b["phases"][n].attrs[k], (n, k)
parts = [p for p in b["parts"] if int(b["parts"][p].attrs["phases_written"]) > 0]
assert len(parts) >= 3, ("parts that wrote phases", len(parts))
PY
OUT=$("$PFSREAD" report "$R/chained-$FIRST.h5" 2>&1)
contains "runs (resumed):" "report on the final file shows one study over several jobs"
done_testing
