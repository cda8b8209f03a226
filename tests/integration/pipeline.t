#!/bin/sh
# pipeline: generate, verify, run and report under mpirun with 1, 2 and 4 ranks on one node;
# the results file checked by an independent reader (h5py).
. "$(dirname "$0")/lib.sh"

for np in 1 2 4; do
	root="$SCRATCH/data-$np"
	cfg="$SCRATCH/np$np.yaml"
	small_config "$cfg" "$root" \
		"sweep: {readers_per_node: [1, 2, 4], transfer_size: [64KiB, 1MiB], order: [sorted, random]}" \
		"cache: fadvise" "repetitions: 2"
	# readers per node above the ranks a node has is a usage error, found before any read
	if [ "$np" -lt 4 ]; then
		mkdir -p "$root"
		expect_status 2 "np=$np: 4 readers per node on a node of $np ranks is refused" \
			mpi "$np" "$PFSREAD" run "$cfg"
		contains "sweep.readers_per_node[$np]" "np=$np: the message names the first entry above $np"
		contains "$cfg:" "np=$np: the message names the config file"
		want_readers=$(seq 1 "$np" | tr '\n' ',' | sed 's/,$//')
		sed -i "s/readers_per_node: \[1, 2, 4\]/readers_per_node: [$want_readers]/" "$cfg"
	fi
	check "np=$np: generate" mpi "$np" "$PFSREAD" generate "$cfg"
	n=$(find "$root/big" -type f -name 'f*' | wc -l)
	test "$n" -eq 6
	ok_status $? "np=$np: generate made 6 files for data set big ($n)"
	most=$(for d in "$root"/*/d*; do ls "$d" | wc -l; done | sort -n | tail -n 1)
	test "$most" -le 4
	ok_status $? "np=$np: no directory holds more than files_per_dir files ($most)"
	check "np=$np: verify passes on a fresh data set" mpi "$np" "$PFSREAD" verify "$cfg"
	expect_status 0 "np=$np: run" mpi "$np" "$PFSREAD" run "$cfg" -o "$SCRATCH/np$np.h5"
	contains "MB/s" "np=$np: run prints the result table"
	contains "reader" "np=$np: the table has readers-per-node columns"
	nphases=$(( 2 * 2 * $(echo "$want_readers" | tr ',' '\n' | wc -l) * 2 * 2 ))
	[ "$np" -eq 4 ] && nphases=$(( 2 * 2 * 3 * 2 * 2 ))
	check "np=$np: h5py finds every file read once, bytes and times right ($nphases phases)" \
		"$PYTHON" "$CHECK_H5" "$SCRATCH/np$np.h5" \
		"{\"phases\": $nphases, \"nranks\": $np, \"nnodes\": 1}"
	check "np=$np: h5dump reads the file" h5dump -H "$SCRATCH/np$np.h5"
done

# the report, in every format, from the file alone
h5="$SCRATCH/np4.h5"
expect_status 0 "report (text) needs no MPI" env -u OMPI_COMM_WORLD_SIZE "$PFSREAD" report "$h5"
contains "1 reader/node" "text report has the 1 reader/node column"
expect_status 0 "report --format csv" "$PFSREAD" report "$h5" --format csv
printf '%s\n' "$OUT" >"$SCRATCH/r.csv"
check "csv parses with a header row and one row per cell (2 data sets x 3 x 2 x 2)" "$PYTHON" -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 24, len(rows)
assert all(float(r["mean_MBps"]) > 0 for r in rows)
assert {r["dataset"] for r in rows} == {"big", "small"}
' "$SCRATCH/r.csv"
expect_status 0 "report --format json" "$PFSREAD" report "$h5" --format json
printf '%s\n' "$OUT" >"$SCRATCH/r.json"
check "json parses and holds the phases" "$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
run = d["runs"][0]
assert len(run["phases"]) == 48, len(run["phases"])
assert len(run["cells"]) == 24
' "$SCRATCH/r.json"
expect_status 0 "report --format markdown" "$PFSREAD" report "$h5" --format markdown
contains "|" "markdown report has pipe tables"
expect_status 2 "report with an unknown format is a usage error" "$PFSREAD" report "$h5" --format xml

# an existing results file is never overwritten without --force
cfg="$SCRATCH/np1.yaml"
before=$(cksum <"$SCRATCH/np1.h5")
expect_status 2 "run refuses to overwrite an existing results file" \
	mpi 1 "$PFSREAD" run "$cfg" -o "$SCRATCH/np1.h5"
contains "--force" "the message says how to overwrite"
after=$(cksum <"$SCRATCH/np1.h5")
test "$before" = "$after"
ok_status $? "the existing results file is untouched"
check "run --force overwrites it" mpi 1 "$PFSREAD" run "$cfg" -o "$SCRATCH/np1.h5" --force

# the results pattern expands {name} and {jobid}
export SLURM_JOB_ID=4242
check "run without -o writes under the config's results pattern" mpi 1 "$PFSREAD" run "$cfg"
unset SLURM_JOB_ID
test -f "$SCRATCH/results/t-4242.h5"
ok_status $? "results/{name}-{jobid}.h5 became results/t-4242.h5"

# clean removes what generate made, and the data set can be made again
check "clean" mpi 2 "$PFSREAD" clean "$SCRATCH/np2.yaml"
test ! -e "$SCRATCH/data-2/big" && test -d "$SCRATCH/data-2"
ok_status $? "clean removed the data sets but not the root"
done_testing
