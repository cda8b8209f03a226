#!/bin/sh
# grammar: a count of one takes the singular noun wherever a count precedes one ("1 reader/node",
# "1 rank", "1 node", "1 file", "1 phase"): in plan, run, report (text and markdown, with the
# ceiling lines a hardware block brings) and clean, on a study of one rank, one node, one file.
. "$(dirname "$0")/lib.sh"

cat >"$SCRATCH/one.yaml" <<YAML
root: $SCRATCH/data
datasets:
  - {name: one, file_size: 64KiB, file_count: 1}
sweep: {readers_per_node: [1]}
cache: fadvise
hardware: {reader_MBps: 0.001}
YAML
# a count of one, then a plural noun (not "1 MiB", "1.5 files", "21 files")
plural_after_one() {
	grep -E '(^|[^0-9.])1 (readers/node|readers|ranks|nodes|files|phases|runs|repetitions|uses|cells)\b' "$1"
}
say() { # say DESCRIPTION FILE: passes when FILE has no "1 <plural>"
	hits=$(plural_after_one "$2")
	[ -z "$hits" ]
	ok_status $? "$1"
	[ -z "$hits" ] || printf '%s\n' "$hits" | sed 's/^/#   /'
}
"$PFSREAD" plan "$SCRATCH/one.yaml" --ranks 1 --nodes 1 >"$SCRATCH/plan.out" 2>&1
ok_status $? "plan of one rank on one node"
say "plan: singular after 1" "$SCRATCH/plan.out"
check "generate" mpi 1 "$PFSREAD" generate "$SCRATCH/one.yaml"
mpi 1 "$PFSREAD" run "$SCRATCH/one.yaml" -o "$SCRATCH/one.h5" --progress 0 >"$SCRATCH/run.out" 2>&1
ok_status $? "run of one rank on one node"
say "run: singular after 1" "$SCRATCH/run.out"
grep -q "x 1 reader/node, .*(1 file)" "$SCRATCH/run.out"
ok_status $? "run's phase line: 1 reader/node, 1 file"
for f in text markdown; do
	"$PFSREAD" report "$SCRATCH/one.h5" --format $f >"$SCRATCH/report.$f" 2>&1
	ok_status $? "report --format $f"
	say "report --format $f: singular after 1" "$SCRATCH/report.$f"
done
grep -q "1 reader/node: measured" "$SCRATCH/report.text"
ok_status $? "the ceiling line: 1 reader/node"
grep -q "(1 rank)" "$SCRATCH/report.text"
ok_status $? "the memory line: 1 rank"
mpi 1 "$PFSREAD" clean "$SCRATCH/one.yaml" >"$SCRATCH/clean.out" 2>&1
ok_status $? "clean"
say "clean: singular after 1" "$SCRATCH/clean.out"
grep -q "removed 1 file " "$SCRATCH/clean.out"
ok_status $? "clean: removed 1 file"
done_testing
