#!/bin/sh
# slurm: the job scripts as a user submits them, through a real Slurm across the box's nodes.
# One GlusterFS box of 3 nodes with shaped links (BOX_SLURM_LINK Mbit/s, default 200: at 400
# the 3 FUSE clients and the bricks need much of a 2-core machine, and a busy machine's
# figure measured its CPU, not pfsread) and Slurm
# (box.sh up --slurm: slurmctld in the head, one slurmd per node in its namespaces). From the
# head, unmodified:
#  1. sbatch --nodes=3 --ntasks-per-node=2 jobscripts/slurm/pfsread.sbatch CONFIG, with
#     PFSREAD_LAUNCHER=mpirun (the job generates the data set first) and =srun (srun --mpi=pmix):
#     the results file's hosts are n1, n2, n3 and its aggregate is within 5% of the sum of the
#     three links' goodputs (iperf3 in the same box): the best of 3 cold repetitions, as the
#     machine is shared (other work on its 2 cores slows a repetition, never speeds one up);
#  2. qsub -V -l nodes=3:ppn=2 jobscripts/pbs/pfsread.pbs (slurm-wlm-torque's qsub over Slurm):
#     the same hosts;
#  3. a study that needs two jobs' time (sbatch --time=1 ... --chain 10): it completes in two
#     jobs, every phase exactly once;
#  4. jobscripts/slurm/pfsread-sweep.sh --max-nodes 3: jobs of 3, 2 and 1 nodes and the summary;
#     the aggregate grows with the nodes;
#  5. down leaves nothing: no namespace, mount, daemon or spool directory.
# On a failure the test prints what the box looked like: the queue, the finished jobs, the
# daemons' logs, the mounts and processes, the jobs' output. About 5 minutes.
. "$(dirname "$0")/boxlib.sh"

box_require
"$TOP/tests/install-deps.sh" slurm-wlm slurmctld slurmd munge slurm-client slurm-wlm-torque \
	>"$SCRATCH/apt-slurm.log" 2>&1 ||
	skip_all "cannot install the Slurm packages: $(tail -n 1 "$SCRATCH/apt-slurm.log")"
# a test run inside a batch job must not take that job's variables for its own
for v in $(env | sed -n 's/^\(SLURM_[A-Za-z0-9_]*\|PBS_[A-Za-z0-9_]*\|PFSREAD_[A-Z_]*\)=.*/\1/p'); do
	unset "$v"
done
export PFSREAD

LINK=${BOX_SLURM_LINK:-200}
if ! box_up --nodes 3 --link-mbit "$LINK" --fs glusterfs --slurm; then
	fail "a box of 3 nodes on GlusterFS with Slurm comes up: $BOX_WHY"
	done_testing
fi
pass "a box of 3 nodes on GlusterFS with Slurm comes up"

# head CMD...: CMD in the head, where a user submits (the box's SLURM_CONF and MPI settings)
head_do() { "$BOX" exec head -- "$@"; }
SUB="$SCRATCH/submit"
mkdir -p "$SUB"
cd "$SUB" || exit 1
SBATCH="$TOP/jobscripts/slurm/pfsread.sbatch"

# show_box: what the box looked like (on a failure)
show_box() {
	echo "# ---- the box at the failure ----"
	{
		echo "queue:"
		head_do squeue 2>&1
		echo "finished jobs (jobcomp):"
		cut -c1-220 /box/slurm/jobcomp.txt 2>&1
		echo "nodes:"
		head_do sinfo -N -l 2>&1
		"$BOX" status 2>&1
		for f in /box/log/slurmctld.log /box/log/slurmd-n*.log; do
			echo "$f:"
			tail -n 8 "$f" 2>&1
		done
		for f in "$SUB"/*.out "$SUB"/*.o[0-9]* "$SUB"/*.e[0-9]*; do
			[ -f "$f" ] || continue
			echo "$f:"
			grep -v -e '^ *$' -e '-----' "$f" | grep -e '^pfsread' -e '^\[' -e 'error' -e 'rror:' |
				tail -n 15
		done
	} | sed 's/^/#   /'
}

# per-node goodput of the links, server -> node, the way truth.t measures it
SUM=0
for n in n1 n2 n3; do
	g=$("$BOX" iperf "$n" 3)
	figure "link goodput (iperf3 server -> $n)" "$g Mbit/s"
	SUM=$(awk -v s="$SUM" -v g="$g" 'BEGIN { print s + g / 8 }')
done
figure "the three links' goodput" "$SUM MB/s"
ge "$SUM" 1
ok_status $? "the links' goodput is measured"

cat >"$SUB/study.yaml" <<EOF
name: boxjob
root: /box/fs/slurm
datasets:
  - {name: a, file_size: 8MiB, file_count: 24}
sweep: {readers_per_node: [2]}
repetitions: 3
cache: fadvise
EOF

# json FILE EXPR: a Python expression over the report's json of FILE (d: the first run)
hosts() { rep_json "$1" "','.join(n['host'] for n in d['nodes'])"; }

# job_checks WHAT FILE: the results file of a job on 3 nodes
job_checks() {
	[ -f "$2" ]
	ok_status $? "$1: the results file ${2##*/} is there"
	h=$(hosts "$2")
	figure "$1: hosts in the results" "$h"
	[ "$h" = n1,n2,n3 ]
	ok_status $? "$1: the results file's hosts are n1, n2, n3"
}

# ---- 1. sbatch of the unmodified job script, both launchers ----
for L in mpirun srun; do
	out=$(PFSREAD_LAUNCHER=$L timeout 300 "$BOX" exec head -- sbatch --wait --parsable --nodes=3 \
		--ntasks-per-node=2 "$SBATCH" study.yaml 2>&1)
	st=$?
	id=$(printf '%s\n' "$out" | sed -n 's/^\([0-9][0-9]*\).*/\1/p' | head -n 1)
	[ $st -eq 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
	ok_status $st "sbatch --nodes=3 --ntasks-per-node=2 pfsread.sbatch ($L): job $id exits 0"
	job_checks "$L" "$SUB/boxjob-$id.h5"
	grep -q "launch: $L " "$SUB/pfsread-$id.out"
	ok_status $? "$L: the job launched its ranks with $L"
	agg=$(rep_json "$SUB/boxjob-$id.h5" "d['cells'][0]['max_MBps']")
	figure "$L: pfsread aggregate, best of 3" "$agg MB/s ($(awk -v a="$agg" -v b="$SUM" 'BEGIN { printf "%.1f", 100 * a / b }')% of the links)"
	figure "$L: mean, min of the 3" "$(rep_json "$SUB/boxjob-$id.h5" "'%.1f, %.1f MB/s' % (d['cells'][0]['mean_MBps'], d['cells'][0]['min_MBps'])")"
	within "$agg" "$SUM" 0.05
	st=$?
	ok_status $st "$L: the aggregate is within 5% of the links' goodput"
	[ $st -eq 0 ] || { box_rates "$SUB/boxjob-$id.h5"; box_load; }
done

# ---- 2. the PBS script through slurm-wlm-torque's qsub ----
out=$(timeout 30 "$BOX" exec head -- qsub -V -l nodes=3:ppn=2 -v PFSREAD_CONFIG=study.yaml \
	"$TOP/jobscripts/pbs/pfsread.pbs" 2>&1)
id=$(printf '%s\n' "$out" | tail -n 1)
case "$id" in '' | *[!0-9]*) fail "qsub -V -l nodes=3:ppn=2 pfsread.pbs: $out" ;;
*) pass "qsub -V -l nodes=3:ppn=2 pfsread.pbs: job $id" ;; esac
# until the queue is empty
wait_queue() {
	deadline=$(($(date +%s) + $1))
	while [ -n "$(head_do squeue -h -o %i 2>/dev/null)" ] && [ "$(date +%s)" -lt "$deadline" ]; do
		sleep 2
	done
	[ -z "$(head_do squeue -h -o %i 2>/dev/null)" ]
}
wait_queue 300
ok_status $? "qsub: the job ends within 5 minutes"
job_checks qsub "$SUB/boxjob-$id.h5"

# ---- 3. a chained study: two jobs' time ----
# 20 cold repetitions of ~3 s at the links' rate; a job of a 1-minute limit has a budget of 45 s
sed 's/^name: .*/name: chained/; s/^repetitions: .*/repetitions: 20/' study.yaml >chain.yaml
sed 's/^repetitions: .*/repetitions: 1/' study.yaml >sweep.yaml
FIRST=$(head_do sbatch --parsable --time=1 --nodes=3 --ntasks-per-node=2 "$SBATCH" chain.yaml \
	--chain 10 2>&1)
case "$FIRST" in '' | *[!0-9]*) fail "sbatch --time=1 ... --chain 10: $FIRST" ;;
*) pass "sbatch --time=1 ... pfsread.sbatch chain.yaml --chain 10: job $FIRST" ;; esac
wait_queue 480
ok_status $? "the chain ends within 8 minutes"
for f in "$SUB"/pfsread-*.out; do
	sed -n 's/^\(.*chain: .*\|.*time budget: .*\|.*is complete: nothing left.*\)$/#   '"${f##*/}"': \1/p' "$f"
done
check "the chained study: complete in two jobs, every phase exactly once" \
	"$PYTHON" - "$SUB/chained-$FIRST.h5" <<'PY'
import h5py, sys
f = h5py.File(sys.argv[1], "r")
assert f.attrs["status"] == "complete", f.attrs["status"]
reps = sorted(int(p.attrs["repetition"]) for p in f["phases"].values())
assert reps == list(range(20)), ("the phases' repetitions", reps)
parts = [p for p in f["parts"] if int(f["parts"][p].attrs["phases_written"]) > 0]
print("# parts that wrote phases:", [(p, int(f["parts"][p].attrs["phases_written"])) for p in parts])
assert len(parts) == 2, ("parts that wrote phases", len(parts))
PY

# ---- 4. the node-count sweep through the batch system ----
T0=$(date +%s.%N)
timeout 600 "$BOX" exec head -- "$TOP/jobscripts/slurm/pfsread-sweep.sh" --max-nodes 3 \
	--results-dir "$SUB/sweep" sweep.yaml >"$SCRATCH/sweep.out" 2>&1
ok_status $? "pfsread-sweep.sh --max-nodes 3 through Slurm exits 0 ($(elapsed "$T0") s)"
grep -e '^pfsread-sweep' "$SCRATCH/sweep.out" | sed 's/^/#   /'
for f in "$SUB"/sweep/*.h5; do
	[ -f "$f" ] && printf '%s %s\n' "$(rep_json "$f" "len(d['nodes'])")" \
		"$(rep_json "$f" "d['cells'][0]['mean_MBps']")"
done | sort -n >"$SCRATCH/sweep.txt"
while read -r n b; do figure "sweep: $n node(s)" "$b MB/s"; done <"$SCRATCH/sweep.txt"
# as truth.t: N nodes read at least 0.85 x N x one node
awk 'NR == 1 { one = $2 } { if ($1 != NR || $2 < 0.85 * $1 * one) bad = 1 } END { exit bad || NR != 3 }' \
	"$SCRATCH/sweep.txt" && [ -s "$SUB/sweep/scaling.txt" ]
ok_status $? "sweep: 1, 2 and 3 nodes, the aggregate >= 0.85 x N x one node, the summary written"

[ "$T_FAILED" -eq 0 ] || { show_box; box_load; }
cd "$TOP" || exit 1
box_down_clean "down leaves nothing: no namespace, mount, daemon or spool directory"
done_testing
