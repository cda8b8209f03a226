#!/bin/sh
# slurm: the job scripts under a real Slurm that this test starts and stops (munged, slurmctld
# and three slurmd on one machine, all in a scratch directory on ports of their own): sbatch
# --wait on one node (this host) and on two Slurm nodes (n1, n2) with mpirun and with srun,
# the sweep helper, and the PBS script through Slurm's qsub wrapper and run directly the way
# PBS would. Needs root; installs the Slurm packages when missing. About a minute.
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/slurm_lib.sh"
export PFSREAD
SBATCH_SCRIPT=$TOP/jobscripts/slurm/pfsread.sbatch
PBS_SCRIPT=$TOP/jobscripts/pbs/pfsread.pbs

# ---- the scripts without a batch system ----

# A script a site reads at a glance: its header, the site's settings and `pfsread job`.
for s in "$SBATCH_SCRIPT" "$PBS_SCRIPT"; do
	check "${s##*/}: under 60 lines, its last line execs pfsread job" sh -c '
		[ "$(wc -l <"$1")" -lt 60 ] && tail -n 1 "$1" | grep -q "^exec .* job "' sh "$s"
done
cfg="$SCRATCH/t.yaml"
small_config "$cfg" "$SCRATCH/data" "sweep: {readers_per_node: [1, 2]}" "cache: fadvise"
expect_status 2 "outside a job: refused" bash "$SBATCH_SCRIPT" "$cfg"
contains "not inside a Slurm or PBS job" "the message says so"
expect_status 2 "no config: refused" env PBS_JOBID=1 PBS_NODEFILE=/dev/null bash "$PBS_SCRIPT"
contains "name the config" "the message says how to name it"

# submit DIR DESCRIPTION SBATCH_ARGS...: sbatch --wait from DIR, with the variables in
# JOB_ENV (NAME=VALUE ...), which must pass. Leaves the job id in JOB, its output in LOG.
JOB_ENV=""
submit() {
	dir=$1
	desc=$2
	shift 2
	mkdir -p "$dir"
	# shellcheck disable=SC2086
	out=$(cd "$dir" && env $JOB_ENV timeout 240 sbatch --wait --parsable -o job-%j.out "$@" 2>&1)
	rc=$?
	JOB=$(printf '%s\n' "$out" | sed -n '1{s/;.*//;p;}')
	LOG=$(cat "$dir/job-$JOB.out" 2>/dev/null)
	ok_status $rc "$desc"
	if [ $rc -ne 0 ]; then
		printf '%s\n%s\n' "$out" "$LOG" | sed 's/^/#   /' | tail -n 30
	fi
}

# logged TEXT DESCRIPTION: passes when the job's output contains TEXT.
logged() {
	OUT=$LOG
	contains "$1" "$2"
}

# h5 FILE EXPECT_JSON DESCRIPTION: the independent h5py check of a results file.
h5() {
	check "$3" "$PYTHON" "$CHECK_H5" "$1" "$2"
}

# ---- Slurm: one node ----

submit "$SCRATCH/one" "sbatch --wait: one node, 2 ranks" -p one -N 1 --ntasks-per-node=2 \
	"$SBATCH_SCRIPT" "$cfg"
logged "generating the data sets" "the data sets were missing: generated"
logged "phases (times summed over ranks)" "the report is in the job's output"
logged "done, exit status 0" "the job says it succeeded"
h5 "$SCRATCH/one/t-$JOB.h5" '{"status": "complete", "nranks": 2, "nnodes": 1, "phases": 4}' \
	"results named after the job id in the submission directory: complete, 1 node, 2 ranks"
check "the results record the Slurm job id" "$PYTHON" -c '
import h5py, sys
assert h5py.File(sys.argv[1], "r").attrs["job_id"] == sys.argv[2]' "$SCRATCH/one/t-$JOB.h5" "$JOB"

JOB_ENV="PFSREAD_CONFIG=$cfg PFSREAD_RESULTS_DIR=$SCRATCH/elsewhere"
submit "$SCRATCH/one" "sbatch --wait: config from PFSREAD_CONFIG, results in PFSREAD_RESULTS_DIR" \
	-p one -N 1 --ntasks-per-node=2 "$SBATCH_SCRIPT"
JOB_ENV=""
logged "every data set is complete: no generate" "complete data sets: no generate"
h5 "$SCRATCH/elsewhere/t-$JOB.h5" '{"status": "complete", "nnodes": 1}' \
	"results in PFSREAD_RESULTS_DIR"

# ---- Slurm: two nodes on one machine ----

# The fake-node settings of ENVIRONMENT.md; sbatch and qsub -V pass them on to the jobs.
export OMPI_MCA_btl=self,tcp OMPI_MCA_rtc_hwloc_vmhole=none PMIX_MCA_gds=hash
submit "$SCRATCH/two" "sbatch --wait: 2 nodes x 2 ranks, mpirun" -p two -N 2 \
	--ntasks-per-node=2 "$SBATCH_SCRIPT" "$cfg"
logged "launch: mpirun -np 4 --map-by ppr:2:node --allow-run-as-root" "mpirun, 2 per node, as root"
h5 "$SCRATCH/two/t-$JOB.h5" '{"status": "complete", "nranks": 4, "nnodes": 2, "phases": 4}' \
	"mpirun: complete, 2 nodes, 4 ranks"
check "ranks 0-1 on one node, 2-3 on the other" "$PYTHON" -c '
import h5py, sys
assert list(h5py.File(sys.argv[1], "r")["topology/node_of_rank"][:]) == [0, 0, 1, 1]' \
	"$SCRATCH/two/t-$JOB.h5"

JOB_ENV="PFSREAD_LAUNCHER=srun"
submit "$SCRATCH/two" "sbatch --wait: 2 nodes x 2 ranks, srun" \
	-p two -N 2 --ntasks-per-node=2 "$SBATCH_SCRIPT" "$cfg"
JOB_ENV=""
logged "launch: srun --mpi=pmix --nodes=2 --ntasks=4 --ntasks-per-node=2" "srun --mpi=pmix"
h5 "$SCRATCH/two/t-$JOB.h5" '{"status": "complete", "nranks": 4, "nnodes": 2}' \
	"srun: complete, 2 nodes, 4 ranks"

# ---- the sweep: one job per node count, then one report ----

expect_status 0 "sweep over 1 and 2 nodes: jobs, then the summary" \
	timeout 300 "$TOP/jobscripts/slurm/pfsread-sweep.sh" --nodes "1 2" \
	--results-dir "$SCRATCH/sweep" "$cfg" -- -p two
contains "2 node(s) x 2 ranks: job" "ranks per node from the config's largest readers_per_node"
contains "phases (times summed over ranks)" "one report over all runs"
contains "scaling: aggregate bandwidth [MB/s] by node count" "the scaling summary"
printf '%s\n' "$OUT" | sed -n '/^scaling: aggregate/,/^$/p' >"$SCRATCH/summary"
OUT=$(cat "$SCRATCH/summary")
contains "1 node    2 nodes" "a column per node count"
check "a row per data set and readers per node, each with its saturation" test \
	"$(grep -c '^\(big\|small\) .*\(saturates at\|still scaling at\)' "$SCRATCH/summary")" -eq 4
check "two results files, of 1 and of 2 nodes" "$PYTHON" -c '
import glob, h5py, sys
n = sorted(int(h5py.File(f, "r").attrs["nnodes"]) for f in glob.glob(sys.argv[1] + "/t-*.h5"))
assert n == [1, 2], n' "$SCRATCH/sweep"

# ---- PBS: through Slurm's qsub wrapper, and run as PBS would ----

mkdir -p "$SCRATCH/qsub"
OUT=$(cd "$SCRATCH/qsub" && timeout 240 qsub -V -v "PFSREAD_CONFIG=$cfg" -q two \
	-l nodes=2:ppn=2 -N pfsread -j oe -o "$SCRATCH/qsub/qsub.out" -W block=true "$PBS_SCRIPT" 2>&1)
ok_status $? "qsub (the wrapper) -l nodes=2:ppn=2 -W block=true"
JOB=$(printf '%s\n' "$OUT" | tail -n 1)
LOG=$(cat "$SCRATCH/qsub/qsub.out" 2>/dev/null)
logged "done, exit status 0" "the PBS script succeeded under the wrapper"
h5 "$SCRATCH/qsub/t-$JOB.h5" '{"status": "complete", "nranks": 4, "nnodes": 2}' \
	"qsub: results named after the job id: complete, 2 nodes, 4 ranks"

# Direct: PBS's variables, two made-up hosts with 2 slots each (an rsh agent that runs the
# command here, with a /tmp of its own per host, as in the Slurm jobs), a relative config
# path, and a data set left incomplete, which the script must generate again.
cat >"$SCRATCH/node-rsh" <<EOF
#!/bin/sh
while [ \$# -gt 0 ]; do case "\$1" in -*) shift ;; *) break ;; esac; done
mkdir -p "$SCRATCH/pbs/tmp-\$1"
TMPDIR="$SCRATCH/pbs/tmp-\$1"
export TMPDIR
shift
exec /bin/sh -c "\$*"
EOF
chmod +x "$SCRATCH/node-rsh"
mkdir -p "$SCRATCH/pbs"
cp "$cfg" "$SCRATCH/pbs/t.yaml"
printf 'n1\nn1\nn2\nn2\n' >"$SCRATCH/pbs/nodefile"
sed -i 's/^complete 1$/complete 0/' "$SCRATCH/data/small/.pfsread-manifest"
pbs_direct() {
	(cd / && env PBS_JOBID=4242.pbsserver PBS_NODEFILE="$SCRATCH/pbs/nodefile" \
		PBS_O_WORKDIR="$SCRATCH/pbs" PFSREAD_CONFIG=t.yaml \
		OMPI_MCA_plm_rsh_agent="$SCRATCH/node-rsh" timeout 240 bash "$PBS_SCRIPT")
}
expect_status 0 "the PBS script run directly with PBS_JOBID, PBS_NODEFILE, PBS_O_WORKDIR" pbs_direct
contains "data set small is missing or incomplete" "an incomplete data set is noticed"
contains "generating the data sets" "and generated again"
contains "2 node(s) x 2 ranks" "2 nodes x 2 ranks from PBS_NODEFILE"
contains "--hostfile $SCRATCH/pbs/nodefile" "mpirun gets the node file"
h5 "$SCRATCH/pbs/t-4242.pbsserver.h5" '{"status": "complete", "nranks": 4, "nnodes": 2}' \
	"results in PBS_O_WORKDIR named after PBS_JOBID: complete, 2 nodes, 4 ranks"
check "the manifest says complete again" grep -qx "complete 1" "$SCRATCH/data/small/.pfsread-manifest"
expect_status 2 "the same job id again (a requeued job): refused" pbs_direct
contains "t-4242.pbsserver.h5 exists" "the message names the results file"

done_testing
