#!/bin/sh
# outside: what a run spends outside its reads, per phase. Every phase records its time zero on
# the run's clock (origin_s, schema 7); the report gives each phase the gap to the next one's,
# less its elapsed time (outside_s: its results write, the next one's eviction, clock sync and
# barriers; null for the last phase), in JSON and as a column and a median in the text. The
# results write made slow on purpose (the slow.c shim: every pwrite 100 ms later) shows in
# every phase's figure and not in its reads.
. "$(dirname "$0")/lib.sh"

"$PYTHON" -c 'import h5py' 2>/dev/null || skip_all "python3 with h5py is not installed"
command -v cc >/dev/null 2>&1 || skip_all "no C compiler for the shim"
need_openmpi
cc -shared -fPIC -O2 -o "$SCRATCH/slow.so" tests/integration/slow.c -ldl ||
	skip_all "cannot build the shim"
asan=$(ldd "$PFSREAD" 2>/dev/null | awk '/libasan/ { print $3 }')
PRELOAD="${asan:+$asan:}$SCRATCH/slow.so"

mkdir -p "$SCRATCH/data" "$SCRATCH/results"
small_config "$SCRATCH/o.yaml" "$SCRATCH/data" "cache: none" "repetitions: 2"
check "generate" mpi 2 "$PFSREAD" generate "$SCRATCH/o.yaml"
check "a run" mpi 2 "$PFSREAD" run "$SCRATCH/o.yaml" -o "$SCRATCH/a.h5"
check "a run whose every pwrite (the results file's) waits 100 ms" \
	mpi 2 -x LD_PRELOAD="$PRELOAD" -x PFSREAD_SLOW=pwrite:100 "$PFSREAD" run "$SCRATCH/o.yaml" \
	-o "$SCRATCH/b.h5"

check "every phase's time zero is in the file, each the previous one's and its reads later" \
	"$PYTHON" -c '
import h5py, sys
p = h5py.File(sys.argv[1], "r")["phases"]
a = [(p[k].attrs["origin_s"], p[k].attrs["elapsed_s"]) for k in sorted(p)]
assert len(a) == 4, a
for (o, e), (n, _) in zip(a, a[1:]):
    assert o > 0 and n - o >= e, (o, e, n)' "$SCRATCH/a.h5"

# outside H5: each phase's outside_s and elapsed_s, "-" for null, one phase a line
outside() {
	"$PFSREAD" report "$1" --format json | "$PYTHON" -c '
import json, sys
for p in json.load(sys.stdin)["runs"][0]["phases"]:
    print("-" if p["outside_s"] is None else p["outside_s"], p["elapsed_s"])'
}
A=$(outside "$SCRATCH/a.h5")
B=$(outside "$SCRATCH/b.h5")
echo "$A" | sed 's/^/# a: outside, elapsed: /'
echo "$B" | sed 's/^/# b: outside, elapsed: /'
echo "$A" | awk 'NR < 4 && !($1 >= 0) { bad = 1 } NR == 4 && $1 != "-" { bad = 1 }
	END { exit bad || NR != 4 }'
ok_status $? "every phase but the last has a figure outside its reads, the last none (json null)"
echo "$B" | awk 'NR < 4 && !($1 >= 0.1) { bad = 1 } END { exit bad || NR != 4 }'
ok_status $? "with the results write slowed, every phase but the last spends >= 0.1 s outside its reads"
echo "$B" | awk 'NR < 4 && 4 * $2 >= $1 { bad = 1 } END { exit bad }'
ok_status $? "... and not in its reads (each phase's elapsed time under a quarter of that)"

expect_status 0 "the text report" "$PFSREAD" report "$SCRATCH/b.h5"
contains "outside reads [s]" "the phases table has the column"
OUT=$(printf '%s\n' "$OUT" | tr '\n' ' ' | sed 's/  */ /g')
case "$OUT" in *"outside reads: "[0-9]*" s a phase at the median"*) st=0 ;; *) st=1 ;; esac
ok_status $st "and the median of the phases' figures"
done_testing
