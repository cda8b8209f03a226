#!/bin/sh
# chain: the job scripts' --chain N, without a batch system: the Slurm script runs directly
# with a job's variables, and stand-ins for sbatch and scontrol record the follow-on each job
# submits (afterany on itself, the same results file); the test then runs that follow-on as
# the next job, until the study is complete. The final file holds every phase once, as an
# uninterrupted run's; a follow-on that finds it complete exits at once. (Under a real Slurm
# it is the same script; tests/integration/slurm.t shows the script's other paths there.)
. "$(dirname "$0")/lib.sh"

cfg="$SCRATCH/t.yaml"
cat >"$cfg" <<EOF2
name: chained
root: $SCRATCH/data
layout: {files_per_dir: 8}
datasets:
  - {name: big, file_size: 8MiB, file_count: 8}
  - {name: small, file_size: 64KiB, file_count: 64}
sweep: {transfer_size: [1MiB], readers_per_node: [1, 2]}
cache: none
repetitions: 3
EOF2
check "build the slow-call shim" cc -shared -fPIC -O2 -o "$SCRATCH/slow.so" tests/integration/slow.c -ldl
check "generate" mpi 2 "$PFSREAD" generate "$cfg"
check "an uninterrupted run" mpi 2 env LD_PRELOAD="$SCRATCH/slow.so" PFSREAD_SLOW=pread:10 \
	"$PFSREAD" run "$cfg" -o "$SCRATCH/full.h5" --progress 0

mkdir -p "$SCRATCH/bin" "$SCRATCH/res"
cat >"$SCRATCH/bin/sbatch" <<EOF2
#!/bin/sh
# the follow-on: its options, one per line, and the chain's variables in sbatch's environment
# (--export=ALL passes them on), then a new job id
n=\$(cat "$SCRATCH/next" 2>/dev/null || echo 200); n=\$((n + 1)); echo \$n >"$SCRATCH/next"
printf '%s\n' "\$@" >"$SCRATCH/sbatch.\$n"
printf 'env: %s\n' "PFSREAD_CONFIG=\$PFSREAD_CONFIG" "PFSREAD_CHAIN=\$PFSREAD_CHAIN" \
	"PFSREAD_CHAIN_RESULTS=\$PFSREAD_CHAIN_RESULTS" >>"$SCRATCH/sbatch.\$n"
echo \$n
EOF2
cat >"$SCRATCH/bin/scontrol" <<EOF2
#!/bin/sh
echo "   Command=$TOP/jobscripts/slurm/pfsread.sbatch"
EOF2
chmod +x "$SCRATCH/bin/sbatch" "$SCRATCH/bin/scontrol"
flags="--oversubscribe -x LD_PRELOAD=$SCRATCH/slow.so -x PFSREAD_SLOW=pread:10"
# job ID [VARS...]: the script as Slurm would start it, with a 6 s budget
job() {
	id=$1
	shift
	env PATH="$SCRATCH/bin:$PATH" SLURM_JOB_ID="$id" SLURM_JOB_NUM_NODES=1 SLURM_NTASKS_PER_NODE=2 \
		SLURM_SUBMIT_DIR="$SCRATCH/res" PFSREAD="$PFSREAD" PFSREAD_GENERATE=never \
		PFSREAD_TIME_BUDGET=6 PFSREAD_LAUNCH_FLAGS="$flags" "$@" \
		bash "$TOP/jobscripts/slurm/pfsread.sbatch" >"$SCRATCH/job.$id.out" 2>&1
}
job 100 PFSREAD_CONFIG="$cfg" PFSREAD_CHAIN=10
st=$?
[ "$st" -eq 75 ]; ok_status $? "the first job stops at its budget with exit status 75 (got $st)"
OUT=$(cat "$SCRATCH/job.100.out")
contains "chain: follow-on job 201 submitted (9 more at most)" "it submitted its follow-on"
expect_status 1 "job --complete: a file stopped at its budget is not complete" \
	"$PFSREAD" job --complete "$SCRATCH/res/chained-100.h5"
OUT=$(cat "$SCRATCH/sbatch.201")
contains "--dependency=afterany:100" "after it, however it ends"
contains "--ntasks-per-node=2" "with the job's shape (not the script's #SBATCH lines), which --resume needs"
contains "env: PFSREAD_CHAIN_RESULTS=$SCRATCH/res/chained-100.h5" "continuing the same file"
contains "--export=ALL" "its variables passed on in sbatch's environment"
jobs=1
id=201
while [ -f "$SCRATCH/sbatch.$id" ] && [ "$jobs" -lt 10 ]; do
	vars=$(sed -n 's/^env: //p' "$SCRATCH/sbatch.$id")
	# shellcheck disable=SC2086
	job "$id" $vars
	st=$?
	jobs=$((jobs + 1))
	[ "$st" -eq 0 ] && break
	id=$((id + 1))
done
[ "$st" -eq 0 ]; ok_status $? "the chain completes the study ($jobs jobs, last exit $st)"
check "every phase once, as in the uninterrupted run" "$PYTHON" - "$SCRATCH/full.h5" "$SCRATCH/res/chained-100.h5" <<'PY'
import h5py, sys
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
assert b.attrs["status"] == "complete", b.attrs["status"]
assert sorted(a["phases"]) == sorted(b["phases"]), (sorted(a["phases"]), sorted(b["phases"]))
for n in a["phases"]:
    for k in ("dataset", "readers_per_node", "repetition", "bytes", "status"):
        assert a["phases"][n].attrs[k] == b["phases"][n].attrs[k], (n, k)
assert len(b["parts"]) >= 2, len(b["parts"])
PY
expect_status 0 "job --complete: the chain's final file is" "$PFSREAD" job --complete "$SCRATCH/res/chained-100.h5"
OUT=$(cat "$SCRATCH/job.$id.out")
contains "runs (resumed):" "the last job's report shows one study over several jobs"
n=$(grep -c '^status ' "$SCRATCH/job.$id.out")
[ "$n" -eq 1 ]; ok_status $? "its log holds the report once, not run's table and then the report (got $n)"
next=$((id + 1))
if [ -f "$SCRATCH/sbatch.$next" ]; then
	vars=$(sed -n 's/^env: //p' "$SCRATCH/sbatch.$next")
	# shellcheck disable=SC2086
	job "$next" $vars
	st=$?
	OUT=$(cat "$SCRATCH/job.$next.out")
	[ "$st" -eq 0 ]; ok_status $? "a follow-on after completion exits 0"
	contains "is complete: nothing left for this follow-on job" "and says why"
else
	pass "the chain's cap left no follow-on"
	pass "the chain's cap left no follow-on"
fi

# PBS: the follow-on gets this job's resources as qstat -f lists them (select or nodes,
# walltime, place, queue), not the script's #PBS lines, which --resume would refuse
cat >"$SCRATCH/bin/qsub" <<EOF2
#!/bin/sh
printf '%s\n' "\$@" "env: PFSREAD_CHAIN_RESULTS=\$PFSREAD_CHAIN_RESULTS" >"$SCRATCH/qsub.args"
echo 301.pbs
EOF2
cat >"$SCRATCH/bin/qstat" <<'EOF2'
#!/bin/sh
cat <<'EOR'
Job Id: 300.pbs
    Job_Name = pfsread
    queue = workq
    Resource_List.ncpus = 2
    Resource_List.nodect = 1
    Resource_List.place = scatter
    Resource_List.select = 1:ncpus=2:mpiprocs=2
    Resource_List.walltime = 00:10:00
    resources_used.walltime = 00:00:05
EOR
EOF2
chmod +x "$SCRATCH/bin/qsub" "$SCRATCH/bin/qstat"
printf 'localhost\nlocalhost\n' >"$SCRATCH/nodefile"
mkdir -p "$SCRATCH/res-pbs"
env PATH="$SCRATCH/bin:$PATH" SLURM_JOB_ID= PBS_JOBID=300.pbs PBS_NODEFILE="$SCRATCH/nodefile" \
	PBS_O_WORKDIR="$SCRATCH/res-pbs" PFSREAD="$PFSREAD" PFSREAD_GENERATE=never \
	PFSREAD_TIME_BUDGET=6 PFSREAD_LAUNCH_FLAGS="$flags" PFSREAD_CONFIG="$cfg" PFSREAD_CHAIN=2 \
	bash "$TOP/jobscripts/pbs/pfsread.pbs" >"$SCRATCH/job.300.out" 2>&1
OUT=$(cat "$SCRATCH/job.300.out")
contains "chain: follow-on job 301.pbs submitted (1 more at most)" "the PBS job submitted its follow-on"
OUT=$(tr '\n' ' ' <"$SCRATCH/qsub.args" 2>/dev/null)
contains "-W depend=afterany:300.pbs" "PBS: after it, however it ends"
contains "-l select=1:ncpus=2:mpiprocs=2" "PBS: with the job's select, not the script's #PBS -l nodes"
contains "-l walltime=00:10:00" "PBS: and its walltime"
contains "-l place=scatter" "PBS: its placement"
contains "-q workq" "PBS: its queue"
contains "env: PFSREAD_CHAIN_RESULTS=$SCRATCH/res-pbs/chained-300.pbs.h5" "PBS: continuing the same file"
contains "-v PFSREAD,PFSREAD_CHAIN,PFSREAD_CHAIN_RESULTS,PFSREAD_CONFIG," \
	"PBS: qsub -v names the job's PFSREAD_* variables (values from qsub's environment)"
done_testing
