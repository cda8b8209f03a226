#!/bin/sh
# valgrind: a small run of the normal build under valgrind's memcheck: no invalid access, no
# use of uninitialised memory, no memory of ours definitely lost. plan and report do not start
# MPI and run under valgrind alone. generate, verify, run and clean run under mpirun with
# valgrind on the one rank; tests/valgrind.supp hides what Open MPI (with PMIx, hwloc and its
# components) loses in MPI_Init and MPI_Finalize, by third-party function names only. With
# it the MPI part is held to the same rule as the rest: any error or definite leak fails.
. "$(dirname "$0")/lib.sh"

command -v valgrind >/dev/null 2>&1 || skip_all "no valgrind (make deps-test installs it)"
[ -x "$PFSREAD" ] || skip_all "no build at $PFSREAD"
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
	--num-callers=30 --suppressions=$TOP/tests/valgrind.supp"

cat >"$SCRATCH/t.yaml" <<YAML
name: vg
root: $SCRATCH/data
results: $SCRATCH/{name}-{jobid}.h5
layout: {files_per_dir: 2}
datasets:
  - {name: a, file_size: 64KiB, file_count: 3}
  - {name: b, file_size: 4097, file_count: 2}
sweep: {readers_per_node: [1], order: [sorted, random], backend: [posix, mmap]}
verify: true
cache: fadvise
YAML

# Without MPI.
# shellcheck disable=SC2086
expect_status 0 "valgrind: plan configs/pvfs2-study.yaml" \
	$VG "$PFSREAD" plan configs/pvfs2-study.yaml --ranks 400 --nodes 100
printf 'root: [unclosed\n' >"$SCRATCH/bad.yaml"
# shellcheck disable=SC2086
expect_status 2 "valgrind: plan of a config with a syntax error exits 2" \
	$VG "$PFSREAD" plan "$SCRATCH/bad.yaml" --ranks 1 --nodes 1
printf 'root: r\ndatasets:\n  - {name: a, file_size: 1MiB, file_count: 1}\nsweep: {order: [up]}\n' \
	>"$SCRATCH/bad2.yaml"
# shellcheck disable=SC2086
expect_status 2 "valgrind: plan of a config with a bad value exits 2" \
	$VG "$PFSREAD" plan "$SCRATCH/bad2.yaml" --ranks 1 --nodes 1

# With MPI: valgrind on the rank.
# shellcheck disable=SC2086
expect_status 0 "valgrind: generate (mpirun -np 1)" mpi 1 $VG "$PFSREAD" generate "$SCRATCH/t.yaml"
# shellcheck disable=SC2086
expect_status 0 "valgrind: verify (mpirun -np 1)" mpi 1 $VG "$PFSREAD" verify "$SCRATCH/t.yaml"
# shellcheck disable=SC2086
expect_status 0 "valgrind: run (mpirun -np 1)" \
	mpi 1 $VG "$PFSREAD" run "$SCRATCH/t.yaml" -o "$SCRATCH/r.h5"

# The report of that file, in every format, and of a file that is not results.
if [ -f "$SCRATCH/r.h5" ]; then
	for f in text markdown csv json; do
		# shellcheck disable=SC2086
		expect_status 0 "valgrind: report --format $f" \
			$VG "$PFSREAD" report "$SCRATCH/r.h5" --format "$f"
	done
	# shellcheck disable=SC2086
	expect_status 0 "valgrind: report --html" \
		$VG "$PFSREAD" report "$SCRATCH/r.h5" --html "$SCRATCH/r.html"
fi
# shellcheck disable=SC2086
expect_status 1 "valgrind: report of a file that is not results exits 1" \
	$VG "$PFSREAD" report "$SCRATCH/t.yaml"
head -c 6000 "$SCRATCH/r.h5" >"$SCRATCH/short.h5" 2>/dev/null
# shellcheck disable=SC2086
expect_status 1 "valgrind: report of a truncated results file exits 1" \
	$VG "$PFSREAD" report "$SCRATCH/short.h5"

# shellcheck disable=SC2086
expect_status 0 "valgrind: clean (mpirun -np 1)" mpi 1 $VG "$PFSREAD" clean "$SCRATCH/t.yaml"
done_testing
