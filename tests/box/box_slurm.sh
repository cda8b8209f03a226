#!/bin/bash
# box_slurm.sh: a real Slurm across the box's nodes (box.sh up --slurm): munged and slurmctld in the head, one slurmd per node in that node's namespaces
# Sourced by box.sh (its variables and helpers in scope); functions only.
#
# Every node's slurmd runs in the node's network, mount and UTS namespaces: its host name is nK,
# its address 10.77.0.(10+K), /box/fs is the node's own mount; what it starts (the batch script,
# srun's tasks, Open MPI's daemons) inherits all three, as on a cluster. One munged serves all:
# its socket is a path on the box's tmpfs, which every namespace sees. Everything Slurm writes
# (state, spools, pid files, logs) lives under /box, so down leaves nothing; the daemons run in
# the box's network namespaces, so down ends them with everything else there.
SL=$B/slurm

# slurm_up: munged, slurmctld, one slurmd per node; returns when every node is idle
slurm_up() {
	local n p hw i
	for p in munged slurmctld slurmd sbatch srun squeue; do
		command -v "$p" >/dev/null || { WHY="--slurm: no $p (apt-get install slurm-wlm munge)"; return 1; }
	done
	mkdir -p "$SL/munge" "$SL/state" && chmod 755 "$SL/munge" || return 1
	t dd if=/dev/urandom of="$SL/munge/munge.key" bs=1024 count=1 2>/dev/null &&
		chmod 400 "$SL/munge/munge.key" || return 1
	# the node's CPUs as slurmd sees them (every node is this machine)
	hw=$(slurmd -C | sed -n '1s/^NodeName=[^ ]* \(CPUs=.*\) RealMemory=.*/\1/p')
	[ -n "$hw" ] || hw="CPUs=$(nproc)"
	slurm_conf "$hw" >"$SL/slurm.conf" || return 1
	# each node its own TmpFS (PMIx's and the jobs' files of one job id must not meet)
	for n in $(nodes); do
		mkdir -p "$B/tmp/$n" &&
			sed "s|^TmpFS=.*|TmpFS=$B/tmp/$n|" "$SL/slurm.conf" >"$SL/slurm-$n.conf" || return 1
	done
	cat >"$SL/task-prolog" <<EOF
#!/bin/sh
# a task's TMPDIR on its node's own directory (Open MPI's session directories)
echo "export TMPDIR=$B/tmp/\$SLURMD_NODENAME"
EOF
	chmod 755 "$SL/task-prolog"
	on head munged -F --socket="$SL/munge/socket" --key-file="$SL/munge/munge.key" \
		--pid-file="$SL/munge/pid" --log-file="$B/log/munged.log" --seed-file="$SL/munge/seed" \
		</dev/null >>"$B/log/munged.out" 2>&1 &
	record_pid $!
	for i in $(seq 40); do [ -S "$SL/munge/socket" ] && break; sleep 0.25; done
	[ -S "$SL/munge/socket" ] || { WHY="--slurm: munged did not start (log/munged.log)"; return 1; }
	# slurmctld runs only on a host named as SlurmctldHost: the head's name in a UTS of its own
	on head unshare --uts sh -c "hostname head && exec slurmctld -D -f $SL/slurm.conf" \
		</dev/null >>"$B/log/slurmctld.out" 2>&1 &
	record_pid $!
	for n in $(nodes); do
		nsenter --net="/run/netns/box-$n" --mount="$B/ns/$n.mnt" --uts="$B/ns/$n.uts" \
			slurmd -D -f "$SL/slurm-$n.conf" -N "$n" </dev/null >>"$B/log/slurmd-$n.out" 2>&1 &
		record_pid $!
	done
	slurm_env
	i=$(($(date +%s) + 60))
	while [ "$(date +%s)" -lt "$i" ]; do
		[ "$(slurm_idle)" = "$(state nodes)" ] && return 0
		sleep 0.5
	done
	WHY="--slurm: $(slurm_idle) of $(state nodes) nodes idle after 60 s (log/slurm*.log)"
	return 1
}

slurm_idle() { SLURM_CONF=$SL/slurm.conf on head timeout 5 sinfo -h -N -o '%N %t' 2>/dev/null | grep -c ' idle$'; }

# slurm_conf HW: the cluster's slurm.conf; root runs everything, no accounting database (the
# finished jobs are in jobcomp.txt)
slurm_conf() {
	local n
	cat <<EOF
# slurm.conf of the box (box.sh up --slurm)
ClusterName=box
SlurmctldHost=head($HEAD_IP)
SlurmctldPort=6817
SlurmdPort=6818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$SL/munge/socket
StateSaveLocation=$SL/state
SlurmdSpoolDir=$SL/spool-%n
SlurmctldPidFile=$SL/slurmctld.pid
SlurmdPidFile=$SL/slurmd-%n.pid
SlurmctldLogFile=$B/log/slurmctld.log
SlurmdLogFile=$B/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
TaskProlog=$SL/task-prolog
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$SL/jobcomp.txt
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=pmix
MailProg=/bin/true
ReturnToService=2
DebugFlags=NO_CONF_HASH
TmpFS=$B/tmp
EOF
	for n in $(nodes); do
		echo "NodeName=$n NodeHostname=$n NodeAddr=$(node_ip "$n") $1 RealMemory=1000 State=UNKNOWN"
	done
	echo "PartitionName=box Nodes=n[1-$(state nodes)] Default=YES MaxTime=INFINITE State=UP"
}

# slurm_env: what a job submitted in the box needs: the box's slurm.conf, and Open MPI over the
# box's links (mpirun inside a job starts its daemons with srun; no rsh agent)
slurm_env() {
	[ "$(state slurm)" = 1 ] || return 0
	export SLURM_CONF=$SL/slurm.conf
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export OMPI_MCA_btl=self,tcp OMPI_MCA_pml=ob1
	export OMPI_MCA_btl_tcp_if_include=$SUBNET OMPI_MCA_oob_tcp_if_include=$SUBNET
	export OMPI_MCA_rtc_hwloc_vmhole=none PMIX_MCA_gds=hash
	export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_hwloc_base_binding_policy=none
}

# slurm_down: the jobs cancelled while slurmctld is there to do it (the daemons go with the
# box's namespaces afterwards)
slurm_down() {
	[ "$(state slurm)" = 1 ] && [ -e "$B/ns/head.mnt" ] || return 0
	SLURM_CONF=$SL/slurm.conf T=10 ton head scancel --quiet --partition=box 2>/dev/null
	return 0
}

# slurm_howto: how to submit the job scripts to the box (make box-shell prints it)
slurm_howto() {
	local top
	top=$(cd "$BOX_HERE/../.." && pwd)
	[ "$(state slurm)" = 1 ] || die "howto: this box has no Slurm (box.sh up ... --slurm)"
	cat <<EOF
$(cmd_summary)
Submit as from a cluster's login node, in $top (the job writes NAME-JOBID.h5 and
pfsread-JOBID.out there and finds build/pfsread there): 'tests/box/box.sh exec head --' runs
a command in the head with the box's SLURM_CONF and Open MPI settings.
  tests/box/box.sh exec head -- sbatch --nodes=3 --ntasks-per-node=2 jobscripts/slurm/pfsread.sbatch configs/box.yaml
  tests/box/box.sh exec head -- squeue
  PFSREAD_LAUNCHER=srun tests/box/box.sh exec head -- sbatch --nodes=3 --ntasks-per-node=2 jobscripts/slurm/pfsread.sbatch configs/box.yaml
  tests/box/box.sh exec head -- jobscripts/slurm/pfsread-sweep.sh --max-nodes 3 configs/box.yaml
  tests/box/box.sh exec head -- qsub -V -l nodes=3:ppn=2 -v PFSREAD_CONFIG=configs/box.yaml jobscripts/pbs/pfsread.pbs
  tests/box/box.sh exec head -- bash     (a shell in the head: sbatch, squeue, sinfo, scancel)
Each node's file system is at /box/fs (tests/box/box.sh exec n1 -- ls /box/fs), the daemons'
logs are in /box/log. Bring the box down (every job and daemon ended, nothing left):
  make box-down     (or: tests/box/box.sh down)
EOF
}
