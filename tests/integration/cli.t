#!/bin/sh
# cli: the command line contract: help, version, exit statuses, bad configs refused before any
# file is touched, and plan's dry run of the reference study.
. "$(dirname "$0")/lib.sh"

expect_status 0 "--help" "$PFSREAD" --help
contains "generate CONFIG" "help lists the commands"
expect_status 0 "--version" "$PFSREAD" --version
contains "pfsread" "version names the program"
expect_status 2 "no arguments is a usage error" "$PFSREAD"
expect_status 2 "an unknown command is a usage error" "$PFSREAD" frobnicate
contains "frobnicate" "the message names it"

# bad configs: exit 2, message with file:line:col and key, nothing created
root="$SCRATCH/never"
bad="$SCRATCH/bad.yaml"
cat >"$bad" <<YAML
root: $root
datasets:
  - {name: a, file_size: 4MX, file_count: 2}
YAML
for cmd in generate run verify clean; do
	expect_status 2 "$cmd: a bad unit is a usage error" mpi 1 "$PFSREAD" "$cmd" "$bad"
	contains "$bad:3:" "$cmd: the message names the file and line 3"
	contains "datasets[0].file_size" "$cmd: the message names the key"
done
test ! -e "$root"
ok $? "no command created the root of a bad config"
expect_status 2 "generate with 2 ranks: the same usage error" mpi 2 "$PFSREAD" generate "$bad"
count=$(printf '%s\n' "$OUT" | grep -c "4MX")
test "$count" -eq 1
ok $? "the message is printed once, not once per rank ($count)"

cat >"$bad" <<YAML
root: $root
datasets:
  - {name: a, file_size: 4MiB, file_count: 2}
sweep:
  readers_per_nod: [1]
YAML
expect_status 2 "an unknown key is a usage error" mpi 1 "$PFSREAD" generate "$bad"
contains "$bad:5:" "unknown key: line 5"
contains "readers_per_nod" "unknown key: named"

touch "$SCRATCH/file"
cat >"$bad" <<YAML
datasets:
  - {name: a, file_size: 4MiB, file_count: 2}
root: $SCRATCH/file
YAML
expect_status 2 "a root that is not a directory is a usage error" mpi 1 "$PFSREAD" generate "$bad"
contains "$bad:3:" "root: line 3"

# plan: the reference study on 100 nodes x 4 ranks, no MPI
expect_status 0 "plan the reference study on 400 ranks over 100 nodes" \
	"$PFSREAD" plan configs/pvfs2-study.yaml --ranks 400 --nodes 100
contains "36 phases" "3 repetitions x 4 data sets x 3 readers per node = 36 phases"
contains "57.6 TB" "total volume read: 36 x 1.6 TB = 57.6 TB"
contains "  1600 " "1600 files of 1 GB"
contains "800000" "800,000 files of 2 MB"
contains "4-4 " "1600 files over 400 readers: 4 each"
expect_status 2 "plan: 4 readers per node on 100 ranks over 100 nodes is refused" \
	"$PFSREAD" plan configs/pvfs2-study.yaml --ranks 100 --nodes 100
contains "readers_per_node[1]" "plan names the first readers_per_node entry that cannot be met"
expect_status 2 "plan without --nodes is a usage error" "$PFSREAD" plan configs/local.yaml --ranks 4
expect_status 0 "plan the local config" "$PFSREAD" plan configs/local.yaml --ranks 4 --nodes 1
# every shipped config loads and plans (tree.yaml scans /usr/include: skipped without it)
for c in configs/*.yaml; do
	if [ "$c" = configs/tree.yaml ] && [ ! -d /usr/include ]; then
		ok 0 "# SKIP $c: no /usr/include"
		continue
	fi
	check "$c plans" "$PFSREAD" plan "$c" --ranks 8 --nodes 1
done
done_testing
