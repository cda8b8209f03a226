#!/bin/sh
# pfsread-sweep: the same experiment at several node counts (1, 2, 4, ... N) as one Slurm job
# each, then one report over all of them with how the aggregate bandwidth scales with the
# nodes and where it saturates.
#   usage: jobscripts/slurm/pfsread-sweep.sh [OPTIONS] CONFIG [-- SBATCH_OPTIONS...]
#     --max-nodes N        node counts 1, 2, 4, ... up to N, and N itself (default 4)
#     --nodes "1 2 4 8"    these node counts instead
#     --ranks-per-node R   default: the largest readers_per_node of the config
#     --results-dir DIR    default: PFSREAD_RESULTS_DIR, else ./sweep-NAME-TIME
#     --no-wait            return once submitted; the last job still writes the summary
#   SBATCH_OPTIONS go to every job: --partition, --account, --time, --constraint, ...
#   e.g. jobscripts/slurm/pfsread-sweep.sh --max-nodes 100 configs/pvfs2-study.yaml -- -p batch
# Run it where sbatch works (a login node), from the directory relative paths of the config
# are relative to. The jobs run one after another (each depends on the one before, so they
# never share the file system), the largest first, so that a missing data set is generated
# with every node; then a small job runs jobscripts/pfsread-scaling.sh on their results.
# In DIR: NAME-JOBID.h5 and NAME-JOBID.out per job, scaling.txt (the report and the summary).
# Environment: PFSREAD (the binary; default pfsread on PATH, else build/pfsread of this
# repository), and what jobscripts/slurm/pfsread.sbatch reads (PFSREAD_LAUNCHER, ...), passed on.
# Exit status: 0 when every job completed its study and the summary succeeded (with
# --no-wait: when all were submitted), 1 otherwise, 2 on a usage or configuration error.
set -eu

die() {
	echo "pfsread-sweep: $*" >&2
	exit 2
}
# printf, not echo: sh's echo may take a backslash in a path for an escape.
abspath() {
	case "$1" in
	/*) printf '%s\n' "$1" ;;
	*) printf '%s\n' "$PWD/$1" ;;
	esac
}

here=$(cd "$(dirname "$0")" && pwd)
max_nodes=4
node_list=""
per_node=""
dir=${PFSREAD_RESULTS_DIR:-}
wait=1
config=""
while [ $# -gt 0 ]; do
	case "$1" in
	--max-nodes) max_nodes=${2:?--max-nodes needs a number}; shift 2 ;;
	--nodes) node_list=${2:?--nodes needs a list}; shift 2 ;;
	--ranks-per-node) per_node=${2:?--ranks-per-node needs a number}; shift 2 ;;
	--results-dir) dir=${2:?--results-dir needs a directory}; shift 2 ;;
	--no-wait) wait=0; shift ;;
	--) shift; break ;;
	-h | --help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) [ -z "$config" ] || die "one config only"; config=$1; shift ;;
	esac
done
[ -n "$config" ] || die "usage: pfsread-sweep.sh [OPTIONS] CONFIG [-- SBATCH_OPTIONS...]"
[ -r "$config" ] || die "$config: no such file"
config=$(abspath "$config")

bin=${PFSREAD:-$(command -v pfsread || printf '%s\n' "$here/../../build/pfsread")}
[ -x "$bin" ] || die "$bin is not an executable pfsread: set PFSREAD"
bin=$(abspath "$bin")

# The experiment's name and its largest readers_per_node, each a value of its own from plan
# (which checks the config first).
name=$("$bin" plan "$config" --ranks 4096 --nodes 1 --print name) || exit $?
if [ -z "$per_node" ]; then
	per_node=$("$bin" plan "$config" --ranks 4096 --nodes 1 --print readers-per-node-max) ||
		exit $?
fi
if [ -z "$node_list" ]; then
	n=1
	while [ "$n" -lt "$max_nodes" ]; do
		node_list="$node_list $n"
		n=$((n * 2))
	done
	node_list="$node_list $max_nodes"
fi
for n in $node_list; do
	case "$n" in *[!0-9]* | 0*) die "node counts are positive numbers, not '$n'" ;; esac
	"$bin" plan "$config" --ranks $((n * per_node)) --nodes "$n" >/dev/null || exit $?
done
[ -n "$dir" ] || dir="sweep-$name-$(date -u +%Y%m%dT%H%M%SZ)"
dir=$(abspath "$dir")
# sbatch --output takes a pattern: % (as in %j) is doubled to stay itself; a backslash would
# turn every pattern off, and the script finds each job's log by its id.
case "$dir" in
*\\*) die "the results directory has a backslash, which sbatch --output cannot take: $dir" ;;
esac
out_dir=$(printf '%s\n' "$dir" | sed 's/%/%%/g')
mkdir -p "$dir"

# Largest node count first, each job after the one before.
# shellcheck disable=SC2086
order=$(printf '%s\n' $node_list | sort -rn -u)
export PFSREAD="$bin" PFSREAD_RESULTS_DIR="$dir"
prev=""
ids=""
for n in $order; do
	id=$(sbatch --parsable ${prev:+--dependency=afterany:$prev} --nodes="$n" \
		--ntasks-per-node="$per_node" --job-name="pfsread-$name-${n}n" \
		--output="$out_dir/$name-%j.out" "$@" "$here/pfsread.sbatch" "$config") ||
		die "sbatch failed for $n nodes"
	id=${id%%;*}
	case "$id" in '' | *[!0-9_]*) die "sbatch gave '$id' for $n nodes, not a job id" ;; esac
	echo "pfsread-sweep: $n node(s) x $per_node ranks: job $id"
	ids="$ids:$id"
	prev=$id
done

# The summary: a one-task job after all of them, whatever became of them, on their results
# files, one argument each (the directory may hold spaces or glob characters).
set -- --dependency="afterany$ids" --nodes=1 --ntasks=1 --job-name="pfsread-$name-scaling" \
	--output="$out_dir/scaling.txt" "$@" "$here/../pfsread-scaling.sh"
for id in $(echo "$ids" | tr ':' ' '); do
	set -- "$@" "$dir/$name-$id.h5"
done
if [ "$wait" -eq 0 ]; then
	id=$(sbatch --parsable "$@") || die "sbatch failed for the summary job"
	echo "pfsread-sweep: summary: job ${id%%;*}, writes $dir/scaling.txt"
	exit 0
fi
echo "pfsread-sweep: waiting for the jobs and the summary ($dir/scaling.txt)"
status=0
sbatch --wait "$@" >/dev/null || status=1
cat "$dir/scaling.txt" 2>/dev/null || status=1
for id in $(echo "$ids" | tr ':' ' '); do
	if ! "$bin" job --complete "$dir/$name-$id.h5" 2>/dev/null; then
		echo "pfsread-sweep: job $id did not complete its study: see $dir/$name-$id.out" >&2
		status=1
	fi
done
exit "$status"
