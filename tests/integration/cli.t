#!/bin/sh
# cli: the command line contract: help, version, exit statuses, bad configs refused before any
# file is touched, and plan's dry run of the reference study.
. "$(dirname "$0")/lib.sh"

expect_status 0 "--help" "$PFSREAD" --help
contains "generate   CONFIG" "help lists the commands"
expect_status 0 "--version" "$PFSREAD" --version
contains "pfsread" "version names the program"
expect_status 2 "no arguments is a usage error" "$PFSREAD"
expect_status 2 "an unknown command is a usage error" "$PFSREAD" frobnicate
contains "frobnicate" "the message names it"
# a typo of a global option gets a suggestion, as a command's typo does
expect_status 2 "a typo of --version is a usage error" "$PFSREAD" --verison
contains "unknown option '--verison': did you mean '--version'?" "--verison: did you mean --version"
expect_status 2 "a typo of --help" "$PFSREAD" --hlep
contains "did you mean '--help'?" "--hlep: did you mean --help"
expect_status 2 "-v, not an option of pfsread" "$PFSREAD" -v
contains "did you mean '-V'?" "-v: did you mean -V"

# help for every command, three ways, without MPI; an example in each
for c in generate run report calibrate verify clean plan help; do
	expect_status 0 "$c --help" "$PFSREAD" "$c" --help
	contains "usage: pfsread $c" "$c --help: the synopsis"
	contains "example" "$c --help: an example"
	contains "--help, -h" "$c --help: the options"
	expect_status 0 "$c -h" "$PFSREAD" "$c" -h
	contains "usage: pfsread $c" "$c -h: the synopsis"
	expect_status 0 "help $c" "$PFSREAD" help "$c"
	contains "usage: pfsread $c" "help $c: the synopsis"
done
expect_status 0 "run CONFIG -o FILE --help: help, even after other arguments" \
	"$PFSREAD" run configs/local.yaml -o x.h5 --help
contains "usage: pfsread run" "the help of run"
expect_status 0 "help alone lists the commands" "$PFSREAD" help
contains "calibrate" "help lists calibrate"
OUT=$("$PFSREAD" --version)
contains "git " "--version: the git commit"
contains "HDF5: " "--version: the HDF5 version"
contains "MPI: " "--version: the MPI library"
contains "build: MPICC=" "--version: the build options"
contains "io_uring backend: " "--version: whether the uring backend is built in"

# did you mean: commands, options, option values, config keys and values, backends
expect_status 2 "a mistyped command" "$PFSREAD" rnu configs/local.yaml
contains "did you mean 'run'?" "rnu: did you mean run"
expect_status 2 "help of a mistyped command" "$PFSREAD" help reprot
contains "did you mean 'report'?" "help reprot: did you mean report"
expect_status 2 "a mistyped option" "$PFSREAD" plan configs/local.yaml --rank 4 --nodes 1
contains "unknown option '--rank': did you mean '--ranks'?" "--rank: did you mean --ranks"
expect_status 2 "a mistyped option value" "$PFSREAD" report x.h5 --format=jsn
contains "unknown value 'jsn': did you mean 'json'?" "--format=jsn: did you mean json"
expect_status 2 "a mistyped option in --key=value" "$PFSREAD" report x.h5 --fromat=json
contains "did you mean '--format'?" "--fromat=json: did you mean --format"
expect_status 2 "a flag given a value" mpi 1 "$PFSREAD" run configs/local.yaml --force=yes
contains "--force takes no value" "--force=yes: takes no value"
expect_status 2 "an option without its value" "$PFSREAD" plan configs/local.yaml --ranks
contains "--ranks needs a value" "--ranks: needs a value"
expect_status 2 "a mistyped option under mpirun" mpi 2 "$PFSREAD" run configs/local.yaml --forse
count=$(printf '%s\n' "$OUT" | grep -c "did you mean '--force'")
test "$count" -eq 1
ok_status $? "under mpirun the usage error is printed once, not once per rank ($count)"

# --key=value and --key value alike
expect_status 0 "plan --ranks=4 --nodes=1" "$PFSREAD" plan configs/local.yaml --ranks=4 --nodes=1
contains "on 4 ranks over 1 node," "--key=value read as --key value; 1 node, not 1 nodes"

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
ok_status $? "no command created the root of a bad config"
expect_status 2 "generate with 2 ranks: the same usage error" mpi 2 "$PFSREAD" generate "$bad"
count=$(printf '%s\n' "$OUT" | grep -c "4MX")
test "$count" -eq 1
ok_status $? "the message is printed once, not once per rank ($count)"

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
contains "did you mean 'readers_per_node'?" "unknown key: did you mean"
cat >"$bad" <<YAML
root: $root
datasets:
  - {name: a, file_size: 4MiB, file_count: 2}
cache: dorp
YAML
expect_status 2 "an unknown cache is a usage error" "$PFSREAD" plan "$bad" --ranks 1 --nodes 1
contains "$bad:4:" "unknown value: line 4"
contains "unknown value 'dorp': did you mean 'drop'?" "unknown value: did you mean"
cat >"$bad" <<YAML
root: $root
datasets:
  - {name: a, file_size: 4MiB, file_count: 2}
sweep: {backend: [posx]}
YAML
expect_status 2 "an unknown backend is a usage error" mpi 1 "$PFSREAD" run "$bad"
contains "did you mean 'posix'?" "unknown backend: did you mean"

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
		pass "# SKIP $c: no /usr/include"
		continue
	fi
	check "$c plans" "$PFSREAD" plan "$c" --ranks 8 --nodes 1
done
done_testing
