#!/bin/sh
# run: fuzz one target for a bounded time, then triage what it found.
#   tests/fuzz/run.sh BIN_DIR TARGET SECONDS WORK_DIR
# BIN_DIR holds fuzz_TARGET (make fuzz-build). The corpus is WORK_DIR/corpus/TARGET, seeded from
# tests/fuzz/corpus/TARGET and tests/fuzz/regress/TARGET (nothing is written under tests/);
# findings land in WORK_DIR/crashes/TARGET/. libFuzzer runs in fork mode and goes on past a
# failure, since HDF5 itself fails on some damaged files (tests/fuzz/README). Each finding is
# replayed by triage.sh; prints one line per finding and exits 1 when any is a defect of ours.
set -u
bin=$1
target=$2
seconds=$3
work=$4
top=$(cd "$(dirname "$0")/../.." && pwd)
corpus="$work/corpus/$target"
crashes="$work/crashes/$target"
max_triage=${FUZZ_MAX_TRIAGE:-12}
case "$target" in
config) opts="-max_len=8192" ;;
results) opts="-max_len=65536" ;;
*) echo "run.sh: unknown target '$target' (config, results)" >&2; exit 2 ;;
esac
mkdir -p "$corpus" "$crashes" || exit 2
# The targets' scratch files (a crashed input skips their own cleanup).
TMPDIR=$(mktemp -d /dev/shm/pfsread-fuzz.XXXXXX 2>/dev/null || mktemp -d) || exit 2
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT
for d in "$top/tests/fuzz/corpus/$target" "$top/tests/fuzz/regress/$target"; do
	[ -d "$d" ] && find "$d" -maxdepth 1 -type f -exec cp {} "$corpus/" \;
done
before=$(find "$crashes" -type f | sort)
log="$work/fuzz_$target.log"
# shellcheck disable=SC2086
"$bin/fuzz_$target" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -timeout=3 \
	-rss_limit_mb=2048 -max_total_time="$seconds" -dict="$top/tests/fuzz/$target.dict" $opts \
	-artifact_prefix="$crashes/" "$corpus" >"$log" 2>&1
rc=$?
stats=$(grep -a "^#[0-9]" "$log" | tail -n 1)
echo "fuzz_$target: ${seconds}s, ${stats:-no progress line}"
# In fork mode libFuzzer exits 1 after ignored failures too: only a run that never got going
# is an error here; the findings are judged below.
if [ -z "$stats" ]; then
	echo "fuzz_$target: libFuzzer did not run (exit $rc); see $log"
	tail -n 20 "$log"
	exit 1
fi
ours=0
n=0
for f in $(find "$crashes" -type f | sort); do
	case "$before" in *"$f"*) continue ;; esac
	n=$((n + 1))
	if [ "$n" -gt "$max_triage" ]; then
		echo "fuzz_$target: more findings than $max_triage, the rest not replayed (see $crashes)"
		break
	fi
	verdict=$("$top/tests/fuzz/triage.sh" "$bin/fuzz_$target" "$f")
	[ $? -eq 1 ] && ours=$((ours + 1))
	echo "fuzz_$target: $(basename "$f"): $verdict"
done
[ "$ours" -eq 0 ]
