#!/bin/sh
# host_reclaim: a node that hands the memory it frees back to its host (free page reporting: a
# virtio balloon that reports free pages) is recorded in the results file's /environment as
# free_page_reporting, the run warns of it before its cold phases, and the report's answer names
# the cold cells read through the page cache there. The virtio devices pfsread sees are the
# test's own (shim/virtiodir.c turns /sys/bus/virtio/devices into a directory it made): a
# balloon that reports free pages, one that does not, and no balloon.
. "$(dirname "$0")/lib.sh"

SHIM="$SCRATCH/virtiodir.so"
${CC:-cc} -shared -fPIC -O2 -Wall -Wextra -Werror -o "$SHIM" \
	"$TOP/tests/integration/shim/virtiodir.c" -ldl
ok_status $? "build the shim that gives pfsread the test's virtio devices"

# device DIR ID FEATURES: a bound virtio device under DIR
device() {
	mkdir -p "$1/driver" && echo "$2" >"$1/device" && echo "$3" >"$1/features"
}
BITS=000000000000000000000000100000000000000000000000000000000000000
device "$SCRATCH/virtio/reports/virtio0" 0x0002 "011001$BITS" # a disk: its bit 5 is not reporting
device "$SCRATCH/virtio/reports/virtio1" 0x0005 "011001$BITS"
device "$SCRATCH/virtio/keeps/virtio0" 0x0005 "011000$BITS"
mkdir -p "$SCRATCH/virtio/none"

cat >"$SCRATCH/small.yaml" <<EOF
name: small
root: $SCRATCH/data
results: $SCRATCH/{name}.h5
datasets:
  - {name: s, file_size: 1MiB, file_count: 2}
sweep: {readers_per_node: [1], transfer_size: [1MiB]}
cache: fadvise
EOF
sed 's/^cache: fadvise/cache: none/' "$SCRATCH/small.yaml" >"$SCRATCH/none.yaml"
check "generate 2 files of 1 MiB" "$PFSREAD" generate "$SCRATCH/small.yaml" --progress 0

# run_with DEVICES CONFIG TAG: pfsread run CONFIG seeing DEVICES as its virtio devices; output
# in OUT, results in TAG.h5. ASan's link-order check is off: the shim comes first.
run_with() {
	expect_status 0 "run ($3)" env VIRTIO_DEVICES="$SCRATCH/virtio/$1" LD_PRELOAD="$SHIM" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		"$PFSREAD" run "$2" -o "$SCRATCH/$3.h5" --progress 0
}
WARNING="warning: this node hands the memory it frees back to its host (free page reporting)"
FINDING="host memory: the only cell read cold through the page cache of a node that hands"

run_with reports "$SCRATCH/small.yaml" reports
contains "$WARNING" "a balloon that reports free pages: the run warns before its cold phases"
expect_status 0 "report --format json (reports)" "$PFSREAD" report "$SCRATCH/reports.h5" --format json
contains '"free_page_reporting": "on: the host takes back memory this node frees' \
	"... and /environment records free_page_reporting"
case "$OUT" in *'"cache_state": "cold"'*) cold=1 ;; *) cold=0 ;; esac
expect_status 0 "report --brief (reports)" "$PFSREAD" report "$SCRATCH/reports.h5" --brief
if [ "$cold" = 1 ]; then
	contains "$FINDING" "... and the answer names the cold cell read through the page cache"
else
	pass "# SKIP the phase was not cold here (a tmpfs keeps its pages): the finding needs a cold cell"
fi

for kind in keeps none; do
	run_with "$kind" "$SCRATCH/small.yaml" "$kind"
	case "$OUT" in
	*"free page reporting"*) fail "$kind: no warning from the run" ;;
	*) pass "$kind: no warning from the run" ;;
	esac
	expect_status 0 "report --format json ($kind)" "$PFSREAD" report "$SCRATCH/$kind.h5" --format json
	case "$OUT" in
	*free_page_reporting* | *"host memory"*) fail "$kind: neither the key nor the finding" ;;
	*) pass "$kind: neither the key nor the finding" ;;
	esac
done

run_with reports "$SCRATCH/none.yaml" cache-none
case "$OUT" in
*"free page reporting"*) fail "cache: none (warm on purpose): no warning" ;;
*) pass "cache: none (warm on purpose): no warning" ;;
esac
sed 's/^sweep: {/sweep: {backend: [direct], /' "$SCRATCH/small.yaml" >"$SCRATCH/direct.yaml"
# the banner comes before any read: its words hold whether or not this file system takes O_DIRECT
OUT=$(env VIRTIO_DEVICES="$SCRATCH/virtio/reports" LD_PRELOAD="$SHIM" \
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	"$PFSREAD" run "$SCRATCH/direct.yaml" -o "$SCRATCH/direct.h5" --progress 0 2>&1)
case "$OUT" in
*"free page reporting"*) fail "backend direct only (no page cache): no warning" ;;
*"small, 1 rank on 1 node"*) pass "backend direct only (no page cache): no warning" ;;
*) fail "backend direct only: the run printed no banner" ;;
esac

done_testing
