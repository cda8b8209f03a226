# slurm_lib.sh: a real Slurm of the test's own, for slurm.t and slurm_chain.t (sourced after
# lib.sh): munged, slurmctld and three slurmd on one machine, all in the scratch directory on
# ports of their own; partition "one" (this host under its own name) and "two" (n1, n2). On
# exit: the jobs cancelled, then the daemons it started ended by their PIDs. Needs root;
# installs the Slurm packages when missing; skips the test otherwise.

[ "$(id -u)" -eq 0 ] || skip_all "needs root to start munged, slurmctld and slurmd"
PATH=$PATH:/usr/sbin:/sbin
if ! timeout 900 tests/install-deps.sh slurm-wlm slurmctld slurmd munge slurm-client \
	slurm-wlm-torque >"$SCRATCH/install.log" 2>&1; then
	skip_all "the Slurm packages are missing and cannot be installed"
fi
for c in munged slurmctld slurmd sbatch squeue scancel sinfo qsub; do
	command -v "$c" >/dev/null 2>&1 || skip_all "no $c after installing the Slurm packages"
done
# A test run inside a batch job must not take that job's variables for its own.
for v in $(env | sed -n 's/^\(SLURM_[A-Za-z0-9_]*\|PBS_[A-Za-z0-9_]*\|PFSREAD_[A-Z_]*\)=.*/\1/p'); do
	unset "$v"
done

# ---- a Slurm of our own ----

S="$SCRATCH/slurm"
DAEMONS=""
any_alive() {
	for pid in $DAEMONS; do
		kill -0 "$pid" 2>/dev/null && return 0
	done
	return 1
}
cleanup() {
	if [ -n "$DAEMONS" ]; then
		# Jobs first: their slurmstepd would outlive slurmd.
		timeout 10 squeue -h -o %i 2>/dev/null | xargs -r timeout 10 scancel 2>/dev/null
		deadline=$(($(date +%s) + 20))
		while [ -n "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && [ "$(date +%s)" -lt "$deadline" ]; do
			sleep 0.5
		done
		# shellcheck disable=SC2086
		kill $DAEMONS 2>/dev/null
		deadline=$(($(date +%s) + 10))
		while any_alive && [ "$(date +%s)" -lt "$deadline" ]; do
			sleep 0.25
		done
		# shellcheck disable=SC2086
		kill -9 $DAEMONS 2>/dev/null
	fi
	rm -rf "$SCRATCH"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# bail DESCRIPTION: Slurm did not come up; show its logs and stop here.
bail() {
	fail "$1"
	tail -n 15 "$S"/*.log 2>/dev/null | sed 's/^/#   /'
	done_testing
}

# Four free ports in a row outside the ephemeral range: slurmctld, then one per slurmd.
PORT=$("$PYTHON" -c '
import random, socket
for _ in range(500):
    base = random.randrange(20000, 30000, 4)
    try:
        for p in range(base, base + 4):
            s = socket.socket()
            s.bind(("", p))
            s.close()
    except OSError:
        continue
    print(base)
    break
')
[ -n "$PORT" ] || bail "four free ports for Slurm"

# The recipe of ENVIRONMENT.md, in the scratch directory: munged on its own socket, root as
# SlurmUser (no ownership to arrange), each node with its own spool and TmpFS.
# The one-node partition is this host under its own name, as on a cluster (a node named
# localhost clashes with the NodeHostname of n1 and n2).
ONE=$(hostname -s)
case "$ONE" in localhost | n1 | n2 | "" | *[!A-Za-z0-9-]*) ONE=single ;; esac
chmod 755 "$SCRATCH"
mkdir -p "$S/munge" "$S/state" "$S/tmp-$ONE" "$S/tmp-n1" "$S/tmp-n2"
chmod 755 "$S" "$S/munge"
dd if=/dev/urandom of="$S/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$S/munge/munge.key"
HW=$(slurmd -C | sed -n '1s/^NodeName=[^ ]* \(CPUs=.*\) RealMemory=.*/\1/p')
[ -n "$HW" ] || HW="CPUs=$(nproc)"
cat >"$S/slurm.conf" <<EOF
ClusterName=pfsreadtest
SlurmctldHost=localhost
SlurmctldPort=$PORT
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$S/munge/socket
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool-%n
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd-%n.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=pmix
MailProg=/bin/true
ReturnToService=2
DebugFlags=NO_CONF_HASH
TmpFS=$S/tmp-$ONE
TaskProlog=$S/task-prolog
NodeName=n[1-2] NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((PORT + 2))-$((PORT + 3)) $HW RealMemory=1000 State=UNKNOWN
NodeName=$ONE NodeAddr=127.0.0.1 Port=$((PORT + 1)) $HW RealMemory=1000 State=UNKNOWN
PartitionName=one Nodes=$ONE Default=YES MaxTime=INFINITE State=UP
PartitionName=two Nodes=n[1-2] MaxTime=INFINITE State=UP
EOF
for n in n1 n2; do
	sed "s|^TmpFS=.*|TmpFS=$S/tmp-$n|" "$S/slurm.conf" >"$S/slurm-$n.conf"
done
# One /tmp per node, as on a cluster: the Open MPI daemons of n1 and n2 (same host name, same
# uid) would otherwise make their session directories in one tree, and now and then collide.
cat >"$S/task-prolog" <<EOF
#!/bin/sh
echo "export TMPDIR=$S/tmp-\$SLURMD_NODENAME"
EOF
chmod 755 "$S/task-prolog"
export SLURM_CONF="$S/slurm.conf"

munged -F --socket="$S/munge/socket" --key-file="$S/munge/munge.key" \
	--pid-file="$S/munge/pid" --log-file="$S/munge.log" --seed-file="$S/munge/seed" \
	>/dev/null 2>&1 &
DAEMONS=$!
i=0
while [ $i -lt 40 ] && [ ! -S "$S/munge/socket" ]; do
	sleep 0.25
	i=$((i + 1))
done
[ -S "$S/munge/socket" ] || bail "munged started"
slurmctld -D -f "$S/slurm.conf" >/dev/null 2>&1 &
DAEMONS="$DAEMONS $!"
slurmd -D -f "$S/slurm.conf" -N "$ONE" >/dev/null 2>&1 &
DAEMONS="$DAEMONS $!"
for n in n1 n2; do
	slurmd -D -f "$S/slurm-$n.conf" -N "$n" >/dev/null 2>&1 &
	DAEMONS="$DAEMONS $!"
done
# Up when three nodes are idle; down when a daemon died (its log says why).
idle() {
	[ "$(timeout 5 sinfo -h -N -o '%N %t' 2>/dev/null | grep -c ' idle$')" -eq 3 ]
}
deadline=$(($(date +%s) + 60))
until idle; do
	for pid in $DAEMONS; do
		kill -0 "$pid" 2>/dev/null || bail "munged, slurmctld and three slurmd up (one died)"
	done
	[ "$(date +%s)" -lt "$deadline" ] || bail "three idle Slurm nodes within 60 s"
	sleep 0.5
done
pass "munged, slurmctld and three slurmd up, three idle nodes"
