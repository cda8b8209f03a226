#!/bin/sh
# progress: rank 0's progress lines while a phase runs (bytes and files over all ranks, the
# rate, the ETAs), also from a rank that does not read in the phase (it takes part in the
# sums from the closing barrier's wait); none with --progress 0; generate and verify show
# theirs the same way. Every read is made 10 ms slow (slow.c) so that a phase
# lasts long enough for several lines on any machine; the uring phase's file hints likewise.
. "$(dirname "$0")/lib.sh"

cfg="$SCRATCH/t.yaml"
cat >"$cfg" <<EOF2
root: $SCRATCH/data
layout: {files_per_dir: 8}
datasets:
  - {name: big, file_size: 8MiB, file_count: 8}
sweep: {transfer_size: [1MiB], readers_per_node: [1, 2]}
cache: none
EOF2
check "build the slow-call shim" cc -shared -fPIC -O2 -o "$SCRATCH/slow.so" tests/integration/slow.c -ldl
slow="env LD_PRELOAD=$SCRATCH/slow.so PFSREAD_SLOW=pread:10,pwrite:10"
gcfg="$SCRATCH/g.yaml"
printf 'root: %s\ndatasets: [{name: many, file_size: 4KiB, file_count: 96}]\n' "$SCRATCH/gdata" >"$gcfg"
expect_status 0 "generate with progress lines" mpi 2 $slow "$PFSREAD" generate "$gcfg" --progress 0.1
contains "progress: generate many:" "generate shows its progress"
check "generate the run's data set" mpi 2 "$PFSREAD" generate "$cfg" --progress 0
expect_status 0 "a run with a line every 0.1 s" mpi 2 $slow "$PFSREAD" run "$cfg" -o "$SCRATCH/p.h5" --progress 0.1
contains "progress: phase 1/2 big x 1 r/node: " "a line for the phase of 1 reader per node (rank 1 only waits)"
contains "progress: phase 2/2 big x 2 r/node: " "a line for the phase of 2 readers per node"
OUT=$(printf '%s\n' "$OUT" | grep '^progress: phase' | head -n 1)
case "$OUT" in
*" MB of 67.1 MB ("*"%), "*" of 8 files, "*" MB/s now, ETA "*", study ETA "*) pass "a line says bytes, files, rate and ETAs" ;;
*) fail "a line says bytes, files, rate and ETAs: $OUT" ;;
esac
expect_status 0 "--progress 0" mpi 2 $slow "$PFSREAD" run "$cfg" -o "$SCRATCH/q.h5" --progress 0
case "$OUT" in
*progress:*) fail "no progress line with --progress 0" ;;
*) pass "no progress line with --progress 0" ;;
esac
expect_status 0 "verify with progress lines" mpi 2 $slow "$PFSREAD" verify "$gcfg" --progress 0.1
contains "progress: verify many:" "verify shows its progress"
# the uring pipeline reads a whole share in one call: its lines come from its batches. A
# line with bytes needs the phase to outlast a tick and a test (~0.1 s), which no machine's
# speed promises: each file's hint (posix_fadvise, the pipeline's one libc call per file) is
# made 50 ms slow (slow.c), so the 16 files take at least 0.8 s, bytes arriving in between
U="$SCRATCH/u"
ucfg="$SCRATCH/u.yaml"
printf 'root: %s\ndatasets: [{name: u, file_size: 8MiB, file_count: 16}]\nsweep: {transfer_size: [4KiB], readers_per_node: [1], backend: [uring]}\nuring: {queue_depth: 1}\ncache: none\n' "$U/data" >"$ucfg"
if mpi 1 "$PFSREAD" plan "$ucfg" 2>&1 | grep -q "unknown backend 'uring'"; then
	pass "# SKIP this build has no liburing"
elif capped_mount "$U" 200m 1000; then
	check "generate the uring run's data set" mpi 2 "$PFSREAD" generate "$ucfg" --progress 0
	expect_status 0 "a uring run with a line every 0.01 s" mpi 2 env LD_PRELOAD="$SCRATCH/slow.so" \
		PFSREAD_SLOW=fadvise:50 "$PFSREAD" run "$ucfg" -o "$U/u.h5" --progress 0.01
	OUT=$(printf '%s\n' "$OUT" | grep '^progress: phase 1/1 u x 1 r/node: ' | grep -v ': 0 B of' | head -n 1)
	case "$OUT" in
	*" MB of 134.2 MB ("*) pass "the uring pipeline's phase has a line with its bytes" ;;
	*) fail "the uring pipeline's phase has a line with its bytes: none in the output" ;;
	esac
else
	pass "# SKIP cannot mount a tmpfs for the uring phase"
fi
expect_status 2 "--progress that is no duration: refused" mpi 1 "$PFSREAD" run "$cfg" --progress often
done_testing
