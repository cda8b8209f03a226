#!/bin/sh
# pfsread-scaling: one report over the results of the same experiment run at several node
# counts, then how the aggregate bandwidth scales with the nodes and where it saturates.
#   usage: jobscripts/pfsread-scaling.sh RESULTS.h5...
# Any batch system: jobscripts/slurm/pfsread-sweep.sh runs it as the last job of a sweep; with
# PBS, run it on the files of the jobs (see docs/scale.md, "Sweeps over node counts").
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
	bin=$(command -v pfsread || printf '%s\n' "$(dirname "$0")/../build/pfsread")
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

# One csv row per cell, prefixed with the node count of its run (from the json meta data),
# after the csv header with "nodes" in front.
cells=$(
	printf 'nodes,'
	"$bin" report "$1" --format csv | head -n 1
	for f; do
		nodes=$("$bin" report "$f" --format json | grep -o '"nnodes": *[0-9]*' | head -n 1 |
			grep -o '[0-9]*$')
		"$bin" report "$f" --format csv | awk -v n="$nodes" 'NR > 1 { print n "," $0 }'
	done
)

# Columns are found by their names in the header; quoted fields may hold commas.
printf '%s\n' "$cells" | awk -v frac=0.9 '
function csv(line, f,    n, c, q, i, ch) {
	n = 1; f[1] = ""; q = 0
	for (i = 1; i <= length(line); i++) {
		ch = substr(line, i, 1)
		if (q && ch == "\"" && substr(line, i + 1, 1) == "\"") { f[n] = f[n] ch; i++ }
		else if (ch == "\"") q = !q
		else if (!q && ch == ",") f[++n] = ""
		else f[n] = f[n] ch
	}
	return n
}
function size(b) {
	if (b >= 1048576 && b % 1048576 == 0) return b / 1048576 " MiB"
	if (b >= 1024 && b % 1024 == 0) return b / 1024 " KiB"
	return b " B"
}
function nodes_s(n) { return n (n == 1 ? " node" : " nodes") }
function label(r, c,    line) {             # the key columns that tell rows apart
	line = ""
	for (c = 1; c <= nk; c++)
		if (c <= 2 || distinct[c] > 1) line = line sprintf("%-10s ", kv[r, c])
	return line
}
NR == 1 {
	n = csv($0, f)
	for (i = 1; i <= n; i++) col[f[i]] = i
	split("dataset readers_per_node file_size_B backend transfer_size_B order cache " \
	      "pattern decomposition queue_depth warm", want, " ")
	split("data_set r/node file_size backend transfer order cache pattern decomp. " \
	      "q_depth warm", names, " ")
	nk = 0
	for (i = 1; i in want; i++)
		if (want[i] in col) { nk++; kcol[nk] = col[want[i]]; kname[nk] = names[i] }
	if (!("mean_MBps" in col) || nk < 2) { print "scaling: unknown csv header" > "/dev/stderr"; exit 1 }
	next
}
{
	n = csv($0, f)
	if (f[col["mean_MBps"]] == "") next
	nn = f[1] + 0
	key = ""
	for (c = 1; c <= nk; c++) {
		v = f[kcol[c]]
		if (kname[c] == "file_size" || kname[c] == "transfer") v = size(v)
		if (kname[c] == "warm") v = v == "1" ? "warm" : "cold"
		key = key SUBSEP v
		val[c] = v
	}
	if (!(key in row)) {
		row[key] = ++nrows
		for (c = 1; c <= nk; c++) {
			kv[nrows, c] = val[c]
			if (!((c, val[c]) in seen)) { seen[c, val[c]] = 1; distinct[c]++ }
		}
	}
	r = row[key]
	if (!(nn in hasnode)) { hasnode[nn] = 1; nodes[++nnodes] = nn }
	sum[r, nn] += f[col["mean_MBps"]]; cnt[r, nn]++
}
END {
	if (nrows == 0) { print "\nscaling: no complete cell to summarise"; exit }
	for (i = 2; i <= nnodes; i++)          # node counts ascending
		for (j = i; j > 1 && nodes[j - 1] > nodes[j]; j--) {
			t = nodes[j]; nodes[j] = nodes[j - 1]; nodes[j - 1] = t
		}
	header = ""
	for (c = 1; c <= nk; c++)
		if (c <= 2 || distinct[c] > 1) header = header sprintf("%-10s ", kname[c])
	for (i = 1; i <= nnodes; i++) header = header sprintf("%10s ", nodes_s(nodes[i]))
	printf "\nscaling: aggregate bandwidth [MB/s] by node count (mean over repetitions)\n"
	print header "  saturation"
	for (r = 1; r <= nrows; r++) {
		line = label(r)
		peak = -1; npts = 0
		for (i = 1; i <= nnodes; i++) {
			nn = nodes[i]
			if (!((r, nn) in cnt)) { line = line sprintf("%10s ", "-"); continue }
			bw[nn] = sum[r, nn] / cnt[r, nn]
			line = line sprintf("%10.1f ", bw[nn])
			pts[++npts] = nn
			if (bw[nn] > peak) { peak = bw[nn]; at = nn }
		}
		eff[r] = ""
		for (i = 1; i <= nnodes; i++) {  # bandwidth per node against the smallest node count
			nn = nodes[i]
			if ((r, nn) in cnt && bw[pts[1]] > 0)
				eff[r] = eff[r] sprintf("%9.0f%% ", 100 * (bw[nn] / nn) / (bw[pts[1]] / pts[1]))
			else
				eff[r] = eff[r] sprintf("%10s ", "-")
		}
		if (npts < 2) { print line "  one node count only"; delete bw; delete pts; continue }
		for (i = 1; i <= npts && bw[pts[i]] < frac * peak; i++) ;
		sat = pts[i]; last = pts[npts]; prev = pts[npts - 1]
		if (sat == last)
			verdict = sprintf("still scaling at %s (%+.0f%% from %d)", nodes_s(last),
					  100 * (bw[last] / bw[prev] - 1), prev)
		else
			verdict = sprintf("saturates at %s: %.0f%% of the peak %.1f MB/s (at %s)",
					  nodes_s(sat), 100 * bw[sat] / peak, peak, nodes_s(at))
		print line "  " verdict
		delete bw; delete pts
	}
	printf "\nscaling efficiency: bandwidth per node against the smallest node count\n"
	print header
	for (r = 1; r <= nrows; r++) print label(r) eff[r]
}'
