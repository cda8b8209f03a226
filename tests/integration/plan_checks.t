#!/bin/sh
# plan_checks: pfsread plan makes, at submission, every check run and generate would make
# before touching a file: an unknown backend, a data set not generated (a note: the job
# script generates it), a directory generate would refuse, too little room to generate.
. "$(dirname "$0")/lib.sh"

base() {
	printf 'root: %s\nlayout: {files_per_dir: 8}\ndatasets:\n  - {name: a, file_size: %s, file_count: 8}\ncache: none\n' "$1" "$2"
}
base "$SCRATCH/data" 64KiB >"$SCRATCH/ok.yaml"
{ base "$SCRATCH/data" 64KiB; echo "sweep: {backend: [nope]}"; } >"$SCRATCH/be.yaml"
expect_status 2 "an unknown backend: plan refuses (exit 2)" "$PFSREAD" plan "$SCRATCH/be.yaml" --ranks 2 --nodes 1
contains "unknown backend 'nope'" "naming the backend and the key"
# a typo in the sweep: plan, generate and run refuse it at load, with file:line:col and the
# key, before a line of the phase table or a byte of data
{ base "$SCRATCH/typo" 64KiB; echo "sweep: {backend: [posix, mmapp], transfer_size: [4KiB, 1MiB]}"; } >"$SCRATCH/typo.yaml"
expect_status 2 "a backend typo: plan refuses (exit 2)" "$PFSREAD" plan "$SCRATCH/typo.yaml" --ranks 2 --nodes 1
contains "typo.yaml:6:26: key 'sweep.backend[1]': unknown backend 'mmapp': did you mean 'mmap'?" "at the key's file:line:col, with a suggestion"
case "$OUT" in *phase*|*mmapp\ *) fail "and before the phase table";; *) pass "and before the phase table";; esac
for cmd in generate run; do
	out=; [ "$cmd" = run ] && out="-o $SCRATCH/typo.h5"
	# shellcheck disable=SC2086
	expect_status 2 "a backend typo: $cmd refuses (exit 2)" mpi 2 "$PFSREAD" $cmd "$SCRATCH/typo.yaml" $out --progress 0
	contains "typo.yaml:6:26: key 'sweep.backend[1]': unknown backend 'mmapp'" "$cmd names the file:line:col and the key"
	[ ! -e "$SCRATCH/typo" ] && [ ! -e "$SCRATCH/typo.h5" ]
	ok_status $? "$cmd wrote nothing"
done
expect_status 0 "data sets not generated: plan goes on" "$PFSREAD" plan "$SCRATCH/ok.yaml" --ranks 2 --nodes 1
contains "check: data set a is not generated: generate makes it" "and says generate makes them"
# --print KEY: the same checks, quiet, and one value alone (the sweep takes it whole)
{ base "$SCRATCH/data" 64KiB; echo "name: printed"; echo "sweep: {readers_per_node: [1, 4, 2]}"; } >"$SCRATCH/pr.yaml"
check "plan --print name: the name alone" test "$("$PFSREAD" plan "$SCRATCH/pr.yaml" --ranks 8 --nodes 2 --print name)" = printed
check "plan --print readers-per-node-max: the largest" \
	test "$("$PFSREAD" plan "$SCRATCH/pr.yaml" --ranks 8 --nodes 2 --print readers-per-node-max)" = 4
expect_status 2 "plan --print still checks: 4 readers per node on 2 ranks a node refused" \
	"$PFSREAD" plan "$SCRATCH/pr.yaml" --ranks 4 --nodes 2 --print name
contains "sweep.readers_per_node[1]" "with plan's message"
mkdir -p "$SCRATCH/data/a" && echo x >"$SCRATCH/data/a/stray"
expect_status 2 "a directory that is not ours: plan refuses as generate would" "$PFSREAD" plan "$SCRATCH/ok.yaml" --ranks 2 --nodes 1
contains "directory is not empty and holds no pfsread manifest" "with generate's message"
if capped_mount "$SCRATCH/small" 16m 2000; then
	base "$SCRATCH/small/data" 8MiB >"$SCRATCH/big.yaml"
	expect_status 2 "too little room to generate: plan refuses" "$PFSREAD" plan "$SCRATCH/big.yaml" --ranks 2 --nodes 1
	contains "generate needs" "with the room needed and free"
else
	pass "# SKIP not root: no capped mount"
	pass "# SKIP not root: no capped mount"
fi
# the estimate from a results file (a pilot's, or a study's first parts) and the job's limit
rm -rf "$SCRATCH/data"
check "generate" mpi 2 "$PFSREAD" generate "$SCRATCH/ok.yaml"
check "a pilot run" mpi 2 "$PFSREAD" run "$SCRATCH/ok.yaml" -o "$SCRATCH/pilot.h5" --progress 0
expect_status 0 "plan --from the pilot" "$PFSREAD" plan "$SCRATCH/ok.yaml" --ranks 2 --nodes 1 --from "$SCRATCH/pilot.h5" --walltime 1us
contains "estimate: " "plan prints the estimate"
contains "from 1 complete phase of $SCRATCH/pilot.h5" "and what it rests on"
contains "warning: the study needs about" "and warns when it exceeds the job's limit"
contains "one job needs --time=0:01:00 (-l walltime=0:01:00" "with the limit one job needs"
done_testing
