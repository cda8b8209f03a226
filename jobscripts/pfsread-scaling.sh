#!/bin/sh
# pfsread-scaling: one report over the results of the same experiment run at several node
# counts, then how the aggregate bandwidth scales with the nodes and where it saturates.
#   usage: jobscripts/pfsread-scaling.sh RESULTS.h5...
# Any batch system: jobscripts/slurm/pfsread-sweep.sh runs it as the last job of a sweep; with
# PBS, run it on the files of the jobs (see jobscripts/pbs/pfsread.pbs).
# Files that do not exist (a job that failed before writing) are named and left out.
# Each cell of the summary is the mean aggregate bandwidth over repetitions (and over runs with
# the same node count); a row saturates at the smallest node count that reaches 90% of its peak.
# Environment: PFSREAD, the binary (default: pfsread on PATH, else build/pfsread next to this
# script's jobscripts/ directory).
# Exit status: 0, 1 when no file is left or the report fails, 2 on a usage error.
set -eu

if [ $# -eq 0 ]; then
	echo "usage: pfsread-scaling.sh RESULTS.h5..." >&2
	exit 2
fi
bin=${PFSREAD:-}
if [ -z "$bin" ]; then
	bin=$(command -v pfsread || echo "$(dirname "$0")/../build/pfsread")
fi

# Keep the files that exist, in the order given.
for f; do
	shift
	if [ -f "$f" ]; then
		set -- "$@" "$f"
	else
		echo "pfsread-scaling: $f: no such file (its job failed?), left out" >&2
	fi
done
if [ $# -eq 0 ]; then
	echo "pfsread-scaling: no results file to report on" >&2
	exit 1
fi

"$bin" report "$@"

# One csv row per cell, prefixed with the node count of its run (from the json meta data).
cells=$(for f; do
	nodes=$("$bin" report "$f" --format json | grep -o '"nnodes": *[0-9]*' | head -n 1 |
		grep -o '[0-9]*$')
	"$bin" report "$f" --format csv | awk -v n="$nodes" 'NR > 1 { print n "," $0 }'
done)

# The csv file column may hold commas (quoted), so the fields are counted from the right.
printf '%s\n' "$cells" | awk -F, -v frac=0.9 '
function size(b) {
	if (b >= 1048576 && b % 1048576 == 0) return b / 1048576 " MiB"
	if (b >= 1024 && b % 1024 == 0) return b / 1024 " KiB"
	return b " B"
}
function nodes_s(n) { return n (n == 1 ? " node" : " nodes") }
function note(col, v) {
	if (!((col, v) in seen)) { seen[col, v] = 1; distinct[col]++ }
}
NF >= 12 && $(NF - 2) != "" {
	nn = $1 + 0
	key = $(NF - 10) FS size($(NF - 9)) FS $(NF - 8) FS $(NF - 7) FS size($(NF - 6)) FS \
	      $(NF - 5) FS $(NF - 4)
	if (!(key in known)) { known[key] = 1; keys[++nkeys] = key }
	if (!(nn in hasnode)) { hasnode[nn] = 1; nodes[++nnodes] = nn }
	sum[key, nn] += $(NF - 2); cnt[key, nn]++
	split(key, k, FS)
	for (c = 1; c <= 7; c++) note(c, k[c])
}
END {
	if (nkeys == 0) { print "\nscaling: no complete cell to summarise"; exit }
	for (i = 2; i <= nnodes; i++)          # node counts ascending
		for (j = i; j > 1 && nodes[j - 1] > nodes[j]; j--) {
			t = nodes[j]; nodes[j] = nodes[j - 1]; nodes[j - 1] = t
		}
	split("data set,file size,r/node,backend,transfer,order,cache", head, ",")
	printf "\nscaling: aggregate bandwidth [MB/s] by node count (mean over repetitions)\n"
	line = ""
	for (c = 1; c <= 7; c++)               # columns that never change are left out
		if (c == 1 || c == 3 || distinct[c] > 1) line = line sprintf("%-10s ", head[c])
	for (i = 1; i <= nnodes; i++) line = line sprintf("%10s ", nodes_s(nodes[i]))
	header = line
	print line "  saturation"
	for (r = 1; r <= nkeys; r++) {
		split(keys[r], k, FS)
		line = ""
		for (c = 1; c <= 7; c++)
			if (c == 1 || c == 3 || distinct[c] > 1) line = line sprintf("%-10s ", k[c])
		peak = -1; npts = 0
		for (i = 1; i <= nnodes; i++) {
			nn = nodes[i]
			if (!((keys[r], nn) in cnt)) { line = line sprintf("%10s ", "-"); continue }
			bw[nn] = sum[keys[r], nn] / cnt[keys[r], nn]
			line = line sprintf("%10.1f ", bw[nn])
			pts[++npts] = nn
			if (bw[nn] > peak) { peak = bw[nn]; at = nn }
		}
		if (npts < 2) { print line "  one node count only"; continue }
		for (i = 1; i <= npts && bw[pts[i]] < frac * peak; i++) ;
		sat = pts[i]; last = pts[npts]; prev = pts[npts - 1]
		if (sat == last)
			verdict = sprintf("still scaling at %s (%+.0f%% from %d)", nodes_s(last),
					  100 * (bw[last] / bw[prev] - 1), prev)
		else
			verdict = sprintf("saturates at %s: %.0f%% of the peak %.1f MB/s (at %s)",
					  nodes_s(sat), 100 * bw[sat] / peak, peak, nodes_s(at))
		print line "  " verdict
		# Efficiency: bandwidth per node against that of the smallest node count.
		eff[r] = ""
		for (i = 1; i <= nnodes; i++) {
			nn = nodes[i]
			if ((keys[r], nn) in cnt && bw[pts[1]] > 0)
				eff[r] = eff[r] sprintf("%9.0f%% ", 100 * (bw[nn] / nn) / (bw[pts[1]] / pts[1]))
			else
				eff[r] = eff[r] sprintf("%10s ", "-")
		}
		delete bw; delete pts
	}
	printf "\nscaling efficiency: bandwidth per node against the smallest node count\n"
	print header
	for (r = 1; r <= nkeys; r++) {
		if (eff[r] == "") continue
		split(keys[r], k, FS)
		line = ""
		for (c = 1; c <= 7; c++)
			if (c == 1 || c == 3 || distinct[c] > 1) line = line sprintf("%-10s ", k[c])
		print line eff[r]
	}
}'
