#!/bin/bash
# job: pfsread job's process handling, with a stand-in mpirun and a job's variables (no batch
# system): the launcher's exit status is the job's (generate's failure stops the job with it;
# run's 75 and 128 + a signal pass through, with the message that the study is not complete),
# and SIGUSR1 sent to the job (what --signal=B:USR1 does: the batch shell alone) reaches the
# launcher, which ends its run early.
. "$(dirname "$0")/lib.sh"

SD="$SCRATCH/standin"
mkdir -p "$SD/bin" "$SCRATCH/res"
# mpirun: Open MPI's --version; for generate, exit STANDIN_GEN (default 0); for run, the
# status STANDIN_RUN, or with STANDIN_RUN=usr1: wait for SIGUSR1, note it, exit 75.
cat >"$SD/bin/mpirun" <<'EOF'
#!/bin/bash
[ "$1" = --version ] && echo "mpirun (Open MPI) 4.1.4" && exit 0
for a; do
	case "$a" in
	generate) exit "${STANDIN_GEN:-0}" ;;
	run) break ;;
	esac
done
case "${STANDIN_RUN:-0}" in
usr1)
	trap 'echo got >"$STANDIN_DIR/usr1"; exit 75' USR1
	echo waiting >"$STANDIN_DIR/ready"
	for _ in $(seq 1 300); do sleep 0.1; done
	exit 1
	;;
kill) kill -9 $$ ;;
*) exit "$STANDIN_RUN" ;;
esac
EOF
chmod +x "$SD/bin/mpirun"
cfg="$SCRATCH/t.yaml"
small_config "$cfg" "$SCRATCH/data"

# sjob ID VAR=VALUE...: the Slurm script as a job would run it, its output in $SCRATCH/ID.out
sjob() {
	id=$1
	shift
	(cd "$SCRATCH/res" && env PATH="$SD/bin:$PATH" STANDIN_DIR="$SD" SLURM_JOB_ID="$id" \
		SLURM_JOB_NUM_NODES=1 SLURM_NTASKS_PER_NODE=2 SLURM_SUBMIT_DIR="$SCRATCH/res" \
		PFSREAD="$PFSREAD" PFSREAD_TIME_BUDGET=600 "$@" \
		bash "$TOP/jobscripts/slurm/pfsread.sbatch" "$cfg") >"$SCRATCH/$id.out" 2>&1
}

sjob 1 PFSREAD_GENERATE=always STANDIN_GEN=3
ok_st=$?
ok_status $((ok_st == 3 ? 0 : 1)) "generate fails with 3: the job stops with 3 (got $ok_st)"
OUT=$(cat "$SCRATCH/1.out")
case "$OUT" in *"done, exit status"*) fail "and runs nothing after it" ;; *) pass "and runs nothing after it" ;; esac

sjob 2 PFSREAD_GENERATE=never STANDIN_RUN=75
st=$?
ok_status $((st == 75 ? 0 : 1)) "run stops with 75: the job exits 75 (got $st)"
OUT=$(cat "$SCRATCH/2.out")
contains "the study is not complete (exit status 75)" "and says the study is not complete"
contains "done, exit status 75" "its last line gives the status"

sjob 3 PFSREAD_GENERATE=never STANDIN_RUN=kill
st=$?
ok_status $((st == 137 ? 0 : 1)) "the launcher killed by SIGKILL: the job exits 128 + 9 (got $st)"

# SIGUSR1 to the job's process alone, as Slurm's --signal=B:USR1 sends it
rm -f "$SD/ready" "$SD/usr1"
sjob 4 PFSREAD_GENERATE=never STANDIN_RUN=usr1 &
bg=$!
for _ in $(seq 1 100); do
	[ -f "$SD/ready" ] && break
	sleep 0.1
done
# the job's process: the one running "pfsread job" on this test's own config
jobpid=$(pgrep -f "pfsread job $cfg" | head -n 1)
if [ -n "$jobpid" ] && [ -f "$SD/ready" ]; then
	kill -USR1 "$jobpid"
	pass "SIGUSR1 sent to pfsread job (pid $jobpid) while its run waits"
else
	fail "pfsread job running its launcher (ready: $(ls "$SD"))"
fi
wait "$bg"
st=$?
check "the launcher got it" test -f "$SD/usr1"
ok_status $((st == 75 ? 0 : 1)) "and the job exits with the launcher's 75 (got $st)"
done_testing
