#!/bin/sh
# fuzz_regress: the fuzz targets (tests/fuzz) in the suite. Builds them with clang + libFuzzer,
# replays every seed and every input a fuzzer ever failed on (tests/fuzz/regress), then fuzzes
# each target for a bounded time (FUZZ_CHECK_SECONDS, default 30) and fails on any finding in
# our code. Inputs on which HDF5 itself fails (regress/results-hdf5) are TODO tests: they stay
# known defects of the library until a newer HDF5 passes them.
. "$(dirname "$0")/lib.sh"

# make check sets detect_leaks=0 for the MPI runs; the targets check leaks, with their own
# suppressions built in.
unset ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS
mkdir -p "$SCRATCH/tmp" && export TMPDIR="$SCRATCH/tmp" # the targets' scratch files
CLANG=${CLANG:-clang}
SECONDS_EACH=${FUZZ_CHECK_SECONDS:-30}
command -v "$CLANG" >/dev/null 2>&1 || skip_all "no $CLANG (make deps-test installs it)"
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return d && n; }\n' \
	>"$SCRATCH/probe.c"
"$CLANG" -fsanitize=fuzzer,address,undefined -o "$SCRATCH/probe" "$SCRATCH/probe.c" \
	>/dev/null 2>&1 || skip_all "$CLANG cannot link libFuzzer (libclang-rt-14-dev)"

BIN=${FUZZ_BUILD:-$TOP/build-fuzz}
check "make fuzz-build" make -s -C "$TOP" fuzz-build FUZZ_BUILD="$BIN"
[ -x "$BIN/fuzz_config" ] && [ -x "$BIN/fuzz_results" ] || done_testing

# replay TARGET DIR: every file of DIR through fuzz_TARGET in one process.
replay() {
	files=$(find "$TOP/tests/fuzz/$2" -maxdepth 1 -type f | sort)
	[ -n "$files" ] || return 0
	# shellcheck disable=SC2086
	expect_status 0 "fuzz_$1 replays tests/fuzz/$2 ($(echo "$files" | wc -l) inputs)" \
		"$BIN/fuzz_$1" -timeout=5 -rss_limit_mb=2048 $files
	[ "$got" -eq 0 ] && return 0
	for f in $files; do # name the input that fails
		v=$("$TOP/tests/fuzz/triage.sh" "$BIN/fuzz_$1" "$f") || echo "#   $(basename "$f"): $v"
	done
}
for t in config results; do
	replay "$t" "corpus/$t"
	replay "$t" "regress/$t"
done

# Known HDF5 defects: a TODO while the library still fails inside itself, a failure when our
# code is where it goes wrong.
for f in "$TOP"/tests/fuzz/regress/results-hdf5/*; do
	[ -f "$f" ] || continue
	v=$("$TOP/tests/fuzz/triage.sh" "$BIN/fuzz_results" "$f")
	case $? in
	0) pass "HDF5 no longer fails on $(basename "$f")" ;;
	3) T_COUNT=$((T_COUNT + 1))
	   echo "not ok $T_COUNT - $(basename "$f"): fails inside HDF5 ($v) # TODO HDF5 defect" ;;
	*) fail "$(basename "$f"): $v" ;;
	esac
done

# The bounded run: findings go to build-fuzz/crashes (see tests/fuzz/README to keep them).
for t in config results; do
	out=$("$TOP/tests/fuzz/run.sh" "$BIN" "$t" "$SECONDS_EACH" "$SCRATCH/fuzz")
	rc=$?
	ok_status "$rc" "fuzz_$t for ${SECONDS_EACH}s: nothing found in our code"
	printf '%s\n' "$out" | sed 's/^/#   /'
	if [ "$rc" -ne 0 ]; then
		mkdir -p "$BIN/crashes/$t" && cp "$SCRATCH/fuzz/crashes/$t"/* "$BIN/crashes/$t/"
		echo "#   inputs copied to $BIN/crashes/$t; keep the ones of ours in tests/fuzz/regress/$t"
	fi
done
done_testing
