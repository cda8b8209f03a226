#!/bin/bash
# jobquote: the job scripts with paths that hold commas, spaces, '=', glob characters and a PBS
# array id's [1], without a batch system. Stand-ins for sbatch, qsub, scontrol, squeue, qstat
# and mpirun record what they are given (arguments NUL-separated); the sbatch and qsub
# stand-ins split --export= and -v lists at commas as Slurm and PBS do, and hand on the
# variables the follow-on job would get, with which the test then runs that follow-on. Checked:
# the follow-on of a chain gets the config, the results file, the binary and the job script
# intact; the node file reaches mpirun as one argument; the sweep's summary gets each results
# file as one argument; pfsread-local.sh runs a launcher whose path holds a space.
. "$(dirname "$0")/lib.sh"

SD="$SCRATCH/standin"
mkdir -p "$SD/bin"
export STANDIN_DIR="$SD"

# mpirun: Open MPI's --version (STANDIN_MPI overrides it), else the arguments recorded.
cat >"$SD/bin/mpirun" <<'EOF'
#!/bin/bash
if [ "$1" = --version ]; then
	echo "${STANDIN_MPI:-mpirun (Open MPI) 4.1.6}"
	exit 0
fi
n=$(($(cat "$STANDIN_DIR/mpirun.n" 2>/dev/null || echo 0) + 1))
echo "$n" >"$STANDIN_DIR/mpirun.n"
printf '%s\0' "$@" >"$STANDIN_DIR/mpirun.$n"
EOF
# sbatch: arguments, then the PFSREAD_* variables the job would get: this environment (Slurm's
# default, and ALL) with --export's NAME=VALUE items applied, the list split at every comma.
cat >"$SD/bin/sbatch" <<'EOF'
#!/bin/bash
n=$(($(cat "$STANDIN_DIR/sbatch.n" 2>/dev/null || echo 200) + 1))
echo "$n" >"$STANDIN_DIR/sbatch.n"
printf '%s\0' "$@" >"$STANDIN_DIR/sbatch.$n"
for a; do
	case "$a" in
	--export=*)
		IFS=, read -r -a items <<<"${a#--export=}"
		for x in "${items[@]}"; do
			case "$x" in *=*) export "${x?}" ;; esac
		done
		;;
	esac
done
for v in "${!PFSREAD@}"; do
	printf '%s=%s\0' "$v" "${!v}"
done >"$STANDIN_DIR/sbatch.$n.env"
echo "$n"
EOF
# qsub: arguments, then the variables -v gives the job (no -V here): the list split at every
# comma, NAME=VALUE as given, a NAME alone with its value in qsub's environment (refused, as
# OpenPBS's qsub does, when it is not there).
cat >"$SD/bin/qsub" <<'EOF'
#!/bin/bash
n=$(($(cat "$STANDIN_DIR/qsub.n" 2>/dev/null || echo 300) + 1))
echo "$n" >"$STANDIN_DIR/qsub.n"
printf '%s\0' "$@" >"$STANDIN_DIR/qsub.$n"
: >"$STANDIN_DIR/qsub.$n.env"
while [ $# -gt 0 ]; do
	if [ "$1" = -v ]; then
		IFS=, read -r -a items <<<"$2"
		for x in "${items[@]}"; do
			case "$x" in
			*=*) printf '%s\0' "$x" ;;
			*)
				if [ -z "${!x+set}" ]; then
					echo "qsub: cannot send environment with the job" >&2
					exit 1
				fi
				printf '%s=%s\0' "$x" "${!x}"
				;;
			esac
		done >>"$STANDIN_DIR/qsub.$n.env"
		shift
	fi
	shift
done
echo "$n[1].pbs"
EOF
cat >"$SD/bin/scontrol" <<'EOF'
#!/bin/bash
printf 'JobId=%s JobName=pfsread\n   Command=%s\n   WorkDir=%s\n' "$SLURM_JOB_ID" \
	"$STANDIN_COMMAND" "$PWD"
EOF
cat >"$SD/bin/squeue" <<'EOF'
#!/bin/bash
echo "10:00"
EOF
cat >"$SD/bin/qstat" <<'EOF'
#!/bin/bash
printf '    queue = workq\n    Resource_List.select = 1:ncpus=2:mpiprocs=2\n'
printf '    Resource_List.walltime = 00:10:00\n'
EOF
chmod +x "$SD/bin/"*

# in_row FILE ARG...: the NUL-separated list in FILE holds ARG... one after another; shows
# the list otherwise.
in_row() {
	f=$1
	shift
	got=()
	[ -f "$f" ] && mapfile -d '' -t got <"$f"
	for ((i = 0; i + $# <= ${#got[@]}; i++)); do
		k=0
		for want; do
			[ "${got[i + k]}" = "$want" ] || continue 2
			k=$((k + 1))
		done
		return 0
	done
	echo "# wanted in a row:$(printf ' [%s]' "$@")"
	echo "# got:$(printf ' [%s]' "${got[@]}")"
	return 1
}
# row DESCRIPTION FILE ARG...: a test of in_row.
row() {
	desc=$1
	shift
	if out=$(in_row "$@"); then
		pass "$desc"
	else
		fail "$desc"
		printf '%s\n' "$out"
	fi
}
# the last mpirun of the last job (sjob and pjob start with none)
last_mpirun() { echo "$SD/mpirun.$(cat "$SD/mpirun.n" 2>/dev/null)"; }

# A config, a results directory and the job scripts at paths that would break a list split at
# commas (and set other variables), a command line split at blanks, or a glob.
cfgdir="$SCRATCH/cfg dir,PFSREAD=$SCRATCH/evil"
mkdir -p "$cfgdir" "$SCRATCH/evil"
cfg="$cfgdir/t*[1].yaml"
cat >"$cfg" <<EOF
name: q
root: $SCRATCH/data
datasets:
  - {name: small, file_size: 64KiB, file_count: 8}
sweep: {readers_per_node: [1, 2]}
EOF
# What a split would make of the config's path: the file a glob [1] would pick instead.
: >"$cfgdir/t*1.yaml"
jobdir="$SCRATCH/job scripts,PFSREAD_CHAIN=9"
mkdir -p "$jobdir"
cp jobscripts/slurm/pfsread.sbatch "$jobdir/"
# the PBS script with a site setting that qsub -v must pass on
sed 's/^# module load openmpi hdf5$/export PFSREAD_SRUN_MPI=pmix/' jobscripts/pbs/pfsread.pbs >"$jobdir/pfsread.pbs"
res="$SCRATCH/res dir,PFSREAD_CHAIN=99"
mkdir -p "$res"
# the real launcher for lib.sh's mpi, before the stand-ins come first on PATH
MPIRUN=$(command -v "$MPIRUN")
export PATH="$SD/bin:$PATH" PFSREAD STANDIN_COMMAND="$jobdir/pfsread.sbatch"

# ---- Slurm: --chain ----

# sjob ID ENVFILE SCRIPT ARGS...: a Slurm job as sbatch's follow-on would start it, with the
# variables in ENVFILE (NUL-separated NAME=VALUE; none: /dev/null), from the results directory.
sjob() {
	id=$1
	envfile=$2
	shift 2
	vars=()
	mapfile -d '' -t vars <"$envfile"
	rm -f "$SD"/mpirun.*
	(cd "$res" && env -u PFSREAD_CONFIG -u PFSREAD_CHAIN -u PFSREAD_CHAIN_RESULTS \
		-u PBS_JOBID -u PBS_NODEFILE -u PBS_O_WORKDIR "${vars[@]}" \
		SLURM_JOB_ID="$id" SLURM_JOB_NUM_NODES=1 SLURM_NTASKS_PER_NODE=2 \
		SLURM_SUBMIT_DIR="$res" PFSREAD_GENERATE=never PFSREAD_TIME_BUDGET=600 \
		bash "$@") >"$SCRATCH/job.$id.out" 2>&1
}
# the script and its arguments of sbatch call N: what follows the last option
sbatch_cmd() {
	mapfile -d '' -t a <"$SD/sbatch.$1"
	for ((i = 0; i < ${#a[@]}; i++)); do
		case "${a[i]}" in --*) ;; *) printf '%s\0' "${a[@]:i}" && return ;; esac
	done
}

check "job 100 with --chain 3: config and script paths with ',', '=', ' ', '*', '[1]'" \
	sjob 100 /dev/null "$jobdir/pfsread.sbatch" "$cfg" --chain 3
row "its run gets the config as one argument" "$(last_mpirun)" run "$cfg"
row "and the results file in the odd directory" "$(last_mpirun)" -o "$res/q-100.h5"
row "the follow-on is submitted from the script's whole path" "$SD/sbatch.201" \
	"$jobdir/pfsread.sbatch" "$cfg"
row "with --export=ALL: its variables in sbatch's environment, not in a list split at commas" \
	"$SD/sbatch.201" "--export=ALL"
row "its PFSREAD_CONFIG intact" "$SD/sbatch.201.env" "PFSREAD_CONFIG=$cfg"
row "its PFSREAD_CHAIN_RESULTS intact" "$SD/sbatch.201.env" "PFSREAD_CHAIN_RESULTS=$res/q-100.h5"
row "its PFSREAD_CHAIN one less" "$SD/sbatch.201.env" "PFSREAD_CHAIN=2"
row "its PFSREAD the job's binary, not a piece of the config's path" "$SD/sbatch.201.env" \
	"PFSREAD=$PFSREAD"
sbatch_cmd 201 >"$SCRATCH/cmd.201"
mapfile -d '' -t cmd <"$SCRATCH/cmd.201"
check "the follow-on, started as submitted, runs" sjob 201 "$SD/sbatch.201.env" "${cmd[@]}"
OUT=$(cat "$SCRATCH/job.201.out")
contains "config $cfg, results $res/q-100.h5" "it continues the same config and results file"
row "its run gets them as one argument each" "$(last_mpirun)" run "$cfg" --no-table -o "$res/q-100.h5"
row "its own follow-on: the whole script path again" "$SD/sbatch.202" "$jobdir/pfsread.sbatch" "$cfg"
row "and the chain counts down" "$SD/sbatch.202.env" "PFSREAD_CHAIN=1"

# Slurm may list the script's arguments after its path: cut until a file is left.
rm -f "$SD/sbatch.n"
STANDIN_COMMAND="$jobdir/pfsread.sbatch $cfg --chain 3" \
	sjob 110 /dev/null "$jobdir/pfsread.sbatch" "$cfg" --chain 3
row "a Command with the arguments after the path: the path alone" "$SD/sbatch.201" \
	"$jobdir/pfsread.sbatch" "$cfg"

nlcfg="$SCRATCH/new
line.yaml"
cp "$cfg" "$nlcfg"
rm -f "$SD/sbatch.n" "$SD/sbatch.201"
expect_status 2 "a chain with a config path holding a newline: refused" \
	sjob 120 /dev/null "$jobdir/pfsread.sbatch" "$nlcfg" --chain 3
OUT=$(cat "$SCRATCH/job.120.out")
contains "a chain cannot pass a path with a newline" "the message says why"
[ ! -e "$SD/sbatch.201" ]; ok_status $? "and nothing was submitted"

# ---- PBS: --chain, the node file, an array job's id ----

pbsdir="$SCRATCH/pbs work,PFSREAD_CHAIN=9"
mkdir -p "$pbsdir" "$SCRATCH/aux"
nodefile="$SCRATCH/aux/300[1].pbs"
printf 'localhost\nlocalhost\n' >"$nodefile"
# the file an unquoted glob would pick instead
printf 'decoy\n' >"$SCRATCH/aux/3001.pbs"
# pjob ID ENVFILE SCRIPT: a PBS job started with only the variables in ENVFILE and PBS's own.
pjob() {
	id=$1
	vars=()
	mapfile -d '' -t vars <"$2"
	rm -f "$SD"/mpirun.*
	env -i PATH="$PATH" HOME="${HOME:-/root}" STANDIN_DIR="$SD" STANDIN_MPI="${STANDIN_MPI:-}" \
		PBS_JOBID="$id" PBS_NODEFILE="$nodefile" PBS_O_WORKDIR="$pbsdir" \
		PFSREAD_GENERATE=never PFSREAD_TIME_BUDGET=600 "${vars[@]}" \
		bash "$3" >"$SCRATCH/job.$id.out" 2>&1
}
printf '%s\0' "PFSREAD=$PFSREAD" "PFSREAD_CONFIG=$cfg" "PFSREAD_CHAIN=2" \
	"PFSREAD_JOB_SCRIPT=$jobdir/pfsread.pbs" "PFSREAD_LAUNCH_FLAGS=-x A=* --mca btl ^openib" \
	>"$SCRATCH/pbs.env"
# what an unquoted A=* would expand to in the working directory
: >"$pbsdir/A=x"
check "PBS job 300[1].pbs with PFSREAD_CHAIN=2" pjob "300[1].pbs" "$SCRATCH/pbs.env" "$jobdir/pfsread.pbs"
row "mpirun gets the node file with its [1] as one argument" "$(last_mpirun)" --hostfile "$nodefile"
row "and PFSREAD_LAUNCH_FLAGS split at blanks, not glob-expanded" "$(last_mpirun)" \
	-x 'A=*' --mca btl '^openib'
row "the run gets the results file named after the array job's id" "$(last_mpirun)" \
	-o "$pbsdir/q-300[1].pbs.h5"
row "the follow-on: after this job" "$SD/qsub.301" -W "depend=afterany:300[1].pbs"
row "with its resources" "$SD/qsub.301" -l select=1:ncpus=2:mpiprocs=2 -l walltime=00:10:00
row "qsub -v names the variables (their values in qsub's environment); PFSREAD_JOB_SCRIPT" \
	"$SD/qsub.301" \
	-v "PFSREAD,PFSREAD_CHAIN,PFSREAD_CHAIN_RESULTS,PFSREAD_CONFIG,PFSREAD_GENERATE,PFSREAD_JOB_SCRIPT,PFSREAD_LAUNCH_FLAGS,PFSREAD_SRUN_MPI,PFSREAD_TIME_BUDGET" \
	"$jobdir/pfsread.pbs"
row "its PFSREAD_CONFIG intact" "$SD/qsub.301.env" "PFSREAD_CONFIG=$cfg"
row "its PFSREAD_CHAIN_RESULTS intact" "$SD/qsub.301.env" "PFSREAD_CHAIN_RESULTS=$pbsdir/q-300[1].pbs.h5"
row "its PFSREAD: the job's binary" "$SD/qsub.301.env" "PFSREAD=$PFSREAD"
row "its PFSREAD_CHAIN one less" "$SD/qsub.301.env" "PFSREAD_CHAIN=1"
row "and the site setting" "$SD/qsub.301.env" "PFSREAD_SRUN_MPI=pmix"
check "the PBS follow-on, started with what qsub was given, runs" \
	pjob "301[1].pbs" "$SD/qsub.301.env" "$jobdir/pfsread.pbs"
OUT=$(cat "$SCRATCH/job.301[1].pbs.out")
contains "config $cfg, results $pbsdir/q-300[1].pbs.h5" "it continues the same config and results file"
row "its run gets them as one argument each" "$(last_mpirun)" run "$cfg" --no-table -o "$pbsdir/q-300[1].pbs.h5"

# MPICH's mpirun: -f NODEFILE; a node file's path with a space and a comma.
nodefile="$SCRATCH/aux dir,x/nodes"
mkdir -p "${nodefile%/*}"
printf 'localhost\nlocalhost\n' >"$nodefile"
printf '%s\0' "PFSREAD=$PFSREAD" "PFSREAD_CONFIG=$cfg" >"$SCRATCH/pbs1.env"
STANDIN_MPI="HYDRA build details:" check "a PBS job with MPICH and a node file path with a space" \
	pjob 310.pbs "$SCRATCH/pbs1.env" "$jobdir/pfsread.pbs"
row "mpirun.mpich gets -f and the node file as one argument" "$(last_mpirun)" -f "$nodefile"
# shellcheck disable=SC2034 # contains reads OUT
OUT=$(cat "$SCRATCH/job.310.pbs.out")
contains "-ppn 2 -f '$nodefile'" "the launch line shows it quoted"

# ---- the sweep: the summary job's results files ----

rm -f "$SD/sbatch.n"
sweep="$SCRATCH/sweep dir,x*[1]%j"
expect_status 0 "the sweep into a directory with ' ', ',', '*', '[1]' and '%j' (--no-wait)" \
	jobscripts/slurm/pfsread-sweep.sh --nodes "1 2" --results-dir "$sweep" --no-wait "$cfg"
row "job 201 (2 nodes) logs to the directory, its % doubled for sbatch's pattern" "$SD/sbatch.201" \
	"--output=$SCRATCH/sweep dir,x*[1]%%j/q-%j.out"
row "the summary runs pfsread-scaling.sh on each results file, one argument each" "$SD/sbatch.203" \
	"$TOP/jobscripts/slurm/../pfsread-scaling.sh" "$sweep/q-201.h5" "$sweep/q-202.h5"
row "and writes scaling.txt into the directory" "$SD/sbatch.203" "--output=$SCRATCH/sweep dir,x*[1]%%j/scaling.txt"
expect_status 2 "a results directory with a backslash: refused (sbatch --output would take no pattern)" \
	jobscripts/slurm/pfsread-sweep.sh --nodes 1 --results-dir "$SCRATCH/a\\b" --no-wait "$cfg"
contains "backslash" "the message says why"

# The scripts of a tree whose path holds a backslash, its build/pfsread found without PFSREAD
# (sh's echo would take "\t" in the path for a tab).
tree="$SCRATCH/tree\tx"
mkdir -p "$tree/build"
cp -r jobscripts "$tree/"
ln -s "$PFSREAD" "$tree/build/pfsread"
rm -f "$SD/sbatch.n"
expect_status 0 "the sweep of a tree at a path with a backslash, without PFSREAD" \
	env -u PFSREAD "$tree/jobscripts/slurm/pfsread-sweep.sh" --nodes 1 \
	--results-dir "$SCRATCH/sweep2" --no-wait "$cfg"
row "its jobs get that tree's build/pfsread" "$SD/sbatch.201.env" \
	"PFSREAD=$tree/jobscripts/slurm/../../build/pfsread"
check "generate the config's data set" mpi 2 "$PFSREAD" generate "$cfg"
check "a run of it" mpi 2 "$PFSREAD" run "$cfg" -o "$res/r.h5"
expect_status 0 "pfsread-scaling.sh of that tree, without PFSREAD, on a file in the odd directory" \
	env -u PFSREAD "$tree/jobscripts/pfsread-scaling.sh" "$res/r.h5"
contains "scaling: aggregate bandwidth" "it reports"

# ---- pfsread-local.sh: a launcher whose path holds a space ----

mkdir -p "$SCRATCH/mpi dir" "$SCRATCH/local"
cp "$SD/bin/mpirun" "$SCRATCH/mpi dir/mpirun"
: >"$SCRATCH/local/A=x"
# shellcheck disable=SC2016 # the inner shell expands them
expect_status 0 "pfsread-local.sh with MPIRUN in a directory with a space" \
	sh -c 'cd "$1/local" && MPIRUN="$1/mpi dir/mpirun" MPI_FLAGS="-x A=*" "$2" "$3" 2' sh \
	"$SCRATCH" "$TOP/jobscripts/local/pfsread-local.sh" "$cfg"
row "the launcher runs with the config as one argument and MPI_FLAGS not glob-expanded" \
	"$(last_mpirun)" -x 'A=*' -np 2 "$PFSREAD" run "$cfg"

done_testing
