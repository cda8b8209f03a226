#!/bin/sh
# sanitize: the whole chain again with the AddressSanitizer + UndefinedBehaviorSanitizer
# build (build-san/pfsread): generate, verify, run, report, plan, and a bad config.
. "$(dirname "$0")/lib.sh"

SAN=${PFSREAD_SAN:-$TOP/build-san/pfsread}
[ -x "$SAN" ] || skip_all "no sanitizer build at $SAN (make SANITIZE=1)"
# Open MPI keeps memory until exit on purpose; leaks are checked where MPI is not started.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
mpi_asan="detect_leaks=0:abort_on_error=0:exitcode=99"

root="$SCRATCH/data"
cfg="$SCRATCH/t.yaml"
small_config "$cfg" "$root" "sweep: {readers_per_node: [1, 2], order: [sorted, random]}" \
	"cache: fadvise"
export ASAN_OPTIONS=$mpi_asan
check "asan: generate" mpi 2 "$SAN" generate "$cfg"
check "asan: verify" mpi 2 "$SAN" verify "$cfg"
check "asan: run" mpi 2 "$SAN" run "$cfg" -o "$SCRATCH/s.h5"
small_config "$SCRATCH/m.yaml" "$root" "sweep: {backend: [mmap], readers_per_node: [1, 2]}" \
	"cache: none" "mmap: {keep_mapped: true}"
check "asan: run through mmap, the mappings kept to each phase's end" mpi 2 "$SAN" run "$SCRATCH/m.yaml" -o "$SCRATCH/m.h5"
# a study over several runs: a budget that stops it, resumed to the end, with progress lines
expect_status 75 "asan: run --time-budget within the margin starts no phase (exit 75)" mpi 2 "$SAN" run "$cfg" -o "$SCRATCH/b.h5" --time-budget 2 --progress 0.01
check "asan: run --resume continues it to the end" mpi 2 "$SAN" run "$cfg" --resume "$SCRATCH/b.h5" --progress 0.01
truncate -s 10 "$root/big/d000000/f0000000001"
expect_status 1 "asan: run on a short file fails cleanly" mpi 2 "$SAN" run "$cfg" -o "$SCRATCH/f.h5"
check "asan: clean" mpi 2 "$SAN" clean "$cfg"
export ASAN_OPTIONS=detect_leaks=1:exitcode=99
for f in text csv json markdown; do
	check "asan+lsan: report --format $f" "$SAN" report "$SCRATCH/s.h5" --format "$f"
done
expect_status 1 "asan+lsan: report on a file that is not results" "$SAN" report "$cfg"
check "asan+lsan: plan" "$SAN" plan configs/pvfs2-study.yaml --ranks 400 --nodes 100
check "asan+lsan: report of a resumed file (its parts)" "$SAN" report "$SCRATCH/b.h5"
check "asan+lsan: plan --from a results file" "$SAN" plan "$cfg" --ranks 2 --nodes 1 --from "$SCRATCH/b.h5" --walltime 1us
printf 'root: [unclosed\n' >"$SCRATCH/bad.yaml"
expect_status 2 "asan+lsan: a YAML syntax error" "$SAN" plan "$SCRATCH/bad.yaml" --ranks 1 --nodes 1
# not root (nobody): the cache's default (fadvise there) and the room check's quota query
export ASAN_OPTIONS=$mpi_asan
if [ "$(id -u)" -eq 0 ] && id -u nobody >/dev/null 2>&1 && command -v setpriv >/dev/null 2>&1; then
	chmod 755 "$SCRATCH"
	mkdir -m 777 "$SCRATCH/nb"
	printf 'root: %s\ndatasets:\n  - {name: a, file_size: 64KiB, file_count: 4}\n' \
		"$SCRATCH/nb/data" >"$SCRATCH/nb/c.yaml"
	as_nobody() { (cd "$SCRATCH/nb" && setpriv --reuid "$(id -u nobody)" --regid "$(id -g nobody)" --clear-groups env HOME="$SCRATCH/nb" "$@"); }
	# shellcheck disable=SC2086
	check "asan, not root: generate" as_nobody timeout 300 $MPIRUN --oversubscribe -x ASAN_OPTIONS -x UBSAN_OPTIONS -np 2 "$SAN" generate c.yaml --progress 0
	# shellcheck disable=SC2086
	check "asan, not root: run with the cache left out" as_nobody timeout 300 $MPIRUN --oversubscribe -x ASAN_OPTIONS -x UBSAN_OPTIONS -np 2 "$SAN" run c.yaml -o r.h5 --progress 0
else
	pass "# SKIP not root, or no nobody or setpriv"
	pass "# SKIP not root, or no nobody or setpriv"
fi
done_testing
