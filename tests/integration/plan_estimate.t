#!/bin/sh
# plan_estimate: plan estimates every phase and the study before it runs, from a calibration
# file or the config's hardware: section (a results file: plan_checks.t), and warns when the
# study outlasts the job, whose limit it reads from --walltime or, inside a job, from Slurm
# (squeue) or PBS (qstat -f): stand-ins here, printing what the real ones print.
. "$(dirname "$0")/lib.sh"

# 10 files of 10^8 B per phase, two phases: 10 s each at 100 MB/s
base() {
	printf 'root: %s\ndatasets:\n  - {name: a, file_size: 100000000, file_count: 10}\nsweep: {readers_per_node: [1, 2]}\ncache: none\nspace_check: false\n' "$SCRATCH/data"
}
base >"$SCRATCH/none.yaml"
{ base; echo "hardware: {node_disk_MBps: 100}"; } >"$SCRATCH/hw.yaml"
expect_status 0 "no source: plan says how to get an estimate" "$PFSREAD" plan "$SCRATCH/none.yaml" --ranks 2 --nodes 1
contains "estimate: none (give --from RESULTS" "naming the sources"
expect_status 0 "hardware: plan estimates" "$PFSREAD" plan "$SCRATCH/hw.yaml" --ranks 2 --nodes 1
contains "estimate: from the config's hardware: section (node disk 100 MB/s)" "saying what it assumed"
contains "estimate phase 0: 10.0 s" "phase 0: 10^9 B at 100 MB/s"
contains "estimate phase 1: 10.0 s" "phase 1 the same (one node's disk)"
contains "estimate: 20.0 s in all for 2 phases" "and the total"
case "$OUT" in
*warning:*) fail "no limit known: no warning" ;;
*) pass "no limit known: no warning" ;;
esac
expect_status 0 "a limit of 2 minutes" "$PFSREAD" plan "$SCRATCH/hw.yaml" --ranks 2 --nodes 1 --walltime 2min
contains "estimate: fits the job's 2 min" "the study fits"
{ base; echo "hardware: {node_disk_MBps: 1}"; } >"$SCRATCH/slow.yaml"
# 2000 s; a 10 min job keeps 30 s of margin and a minute of start-up: 510 s, 4 jobs
expect_status 0 "a study of 33 min in a job of 10 min" "$PFSREAD" plan "$SCRATCH/slow.yaml" --ranks 2 --nodes 1 --walltime 10min
contains "warning: the study needs about 33 min 20 s, more than the job's 10 min 00 s (--walltime)" "warns"
contains "one job needs --time=0:42:00 (-l walltime=0:42:00, with 25% to spare)" "with the one job's limit"
contains "the job scripts' --chain 4: 4 chained jobs" "and the chained jobs"

# inside a job: the stand-ins answer for job 77 only
mkdir -p "$SCRATCH/bin"
cat >"$SCRATCH/bin/squeue" <<'EOS'
#!/bin/sh
[ "$*" = "-h -j 77 -o %L" ] && echo "     15:00" && exit 0
exit 1
EOS
cat >"$SCRATCH/bin/qstat" <<'EOS'
#!/bin/sh
[ "$*" = "-f 4242.pbs01" ] || exit 1
printf 'Job Id: 4242.pbs01\n    Job_Name = pfsread\n    resources_used.walltime = 00:50:00\n    job_state = R\n    Resource_List.walltime = 01:00:00\n    Resource_List.walltime_min = 00:30:00\n'
EOS
chmod +x "$SCRATCH/bin/squeue" "$SCRATCH/bin/qstat"
expect_status 0 "inside a Slurm job" env PATH="$SCRATCH/bin:$PATH" SLURM_JOB_ID=77 PBS_JOBID= "$PFSREAD" plan "$SCRATCH/slow.yaml" --ranks 2 --nodes 1
contains "more than the job's 15 min 00 s (the time left of Slurm job 77)" "the limit is the time the Slurm job has left (squeue %L)"
expect_status 0 "inside a PBS job" env PATH="$SCRATCH/bin:$PATH" SLURM_JOB_ID= PBS_JOBID=4242.pbs01 "$PFSREAD" plan "$SCRATCH/slow.yaml" --ranks 2 --nodes 1
contains "more than the job's 10 min 00 s (the time left of PBS job 4242.pbs01)" "the limit is the PBS job's walltime less what it used"
expect_status 0 "--walltime wins over the job's" env PATH="$SCRATCH/bin:$PATH" SLURM_JOB_ID=77 "$PFSREAD" plan "$SCRATCH/slow.yaml" --ranks 2 --nodes 1 --walltime 20min
contains "more than the job's 20 min 00 s (--walltime)" "as given"
expect_status 0 "a job id that is no id is not run through a shell" env PATH="$SCRATCH/bin:$PATH" 'SLURM_JOB_ID=77;touch x' "$PFSREAD" plan "$SCRATCH/slow.yaml" --ranks 2 --nodes 1
case "$OUT" in
*warning:*) fail "and gives no limit" ;;
*) pass "and gives no limit" ;;
esac

# a calibration file's measured figures come first
if mpi 1 "$PFSREAD" calibrate "$SCRATCH/none.yaml" -o "$SCRATCH/cal.h5" --disk-size 4MiB --mem-size 4MiB >"$SCRATCH/cal.log" 2>&1; then
	expect_status 0 "--calibration" "$PFSREAD" plan "$SCRATCH/hw.yaml" --ranks 2 --nodes 1 --calibration "$SCRATCH/cal.h5"
	contains "estimate: from calibration $SCRATCH/cal.h5 (mean of 1 node) and the config's hardware: section (node disk " "calibration first, then the hardware: section"
	case "$OUT" in
	*"node disk 100 MB/s"*) fail "the measured disk replaces the declared one" ;;
	*) pass "the measured disk replaces the declared one" ;;
	esac
else
	fail "calibrate for the estimate: $(tail -n 3 "$SCRATCH/cal.log")"
fi
expect_status 1 "a calibration file that is not one" "$PFSREAD" plan "$SCRATCH/hw.yaml" --ranks 2 --nodes 1 --calibration "$SCRATCH/hw.yaml"
done_testing
