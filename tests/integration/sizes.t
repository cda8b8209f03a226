#!/bin/sh
# sizes: data sets with a size distribution (lognormal, histogram) and a one-file twin:
# plan reports exact counts and bytes before anything is written, generate makes exactly those
# sizes (whatever the number of ranks), verify passes and catches a flipped byte, run with 1 and
# 2 ranks reads every file whole (h5py against os.stat of each file), the report shows the
# small-vs-twin ratio, and a changed spec is "other parameters".
. "$(dirname "$0")/lib.sh"

root="$SCRATCH/data"
cfg="$SCRATCH/sizes.yaml"
write_config() { # SIGMA
	cat >"$cfg" <<YAML
name: sizes
root: $root
results: $SCRATCH/results/{name}-{jobid}.h5
layout: {files_per_dir: 64}
seed: 11
cache: fadvise
datasets:
  - {name: logn, sizes: {distribution: lognormal, median: 4KiB, sigma: $1, min: 7B, max: 1MiB}, file_count: 300, twin: true}
  - {name: hist, sizes: {histogram: [[4KiB, 40], [256KiB, 3], [100B, 17]]}}
sweep: {readers_per_node: [1, 2], pattern: [per-reader, shared]}
verify: true
YAML
}
write_config 1.5

# plan: the exact counts and bytes and the seed, before anything is written
expect_status 0 "plan a sized data set" "$PFSREAD" plan "$cfg" --ranks 2 --nodes 1
contains "data set logn: 300 files" "plan gives the lognormal data set's exact count"
contains "seed=11" "plan gives the seed"
contains "data set logn-onefile: 1 file," "plan lists the one-file twin"
contains "data set hist: 60 files, 952.0 KB (951972 B)" "plan gives the histogram's exact bytes"
logn_bytes=$(printf '%s\n' "$OUT" | sed -n 's/^data set logn: 300 files, .* (\([0-9]*\) B).*/\1/p')
test ! -e "$root"
ok_status $? "plan wrote nothing"

check "generate with 2 ranks" mpi 2 "$PFSREAD" generate "$cfg"
sizes_of() { # DIR: "index size" per file, sorted
	find "$1" -type f -name 'f*' -printf '%f %s\n' | sort
}
n=$(sizes_of "$root/logn" | wc -l)
disk=$(sizes_of "$root/logn" | awk '{s += $2} END {print s}')
test "$n" -eq 300 && test "$disk" = "$logn_bytes"
ok_status $? "generate made 300 files of $disk B in all, as plan said ($logn_bytes)"
distinct=$(sizes_of "$root/logn" | awk '{print $2}' | sort -u | wc -l)
test "$distinct" -gt 100
ok_status $? "lognormal sizes vary ($distinct distinct sizes)"
sizes_of "$root/logn" | awk '$2 < 7 || $2 > 1048576 {bad = 1} END {exit bad}'
ok_status $? "every size within [7 B, 1 MiB]"
twin=$(stat -c %s "$root/logn-onefile/d000000/f0000000000")
test "$twin" = "$logn_bytes"
ok_status $? "the twin is one file of the same total ($twin B)"
hist=$(sizes_of "$root/hist" | awk '{print $2}' | sort -n | uniq -c | awk '{printf "%sx%s ", $1, $2}')
test "$hist" = "17x100 40x4096 3x262144 "
ok_status $? "histogram counts exact on disk ($hist)"
grep -q "^sizes lognormal median=4096 sigma=1.5 min=7 max=1048576 seed=11 nfiles=300 total=$logn_bytes\$" \
	"$root/logn/.pfsread-manifest"
ok_status $? "the manifest records the size spec and seed"

# the same sizes whatever the number of ranks that made them
root1="$SCRATCH/data1"
# (one rank reads with one reader per node only: generate refuses more, as run does)
sed -e "s|^root: .*|root: $root1|" -e 's/readers_per_node: \[1, 2\]/readers_per_node: [1]/' \
	"$cfg" >"$SCRATCH/one.yaml"
check "generate the same config with 1 rank elsewhere" mpi 1 "$PFSREAD" generate "$SCRATCH/one.yaml"
test "$(sizes_of "$root/logn")" = "$(sizes_of "$root1/logn")" &&
	test "$(sizes_of "$root/hist")" = "$(sizes_of "$root1/hist")"
ok_status $? "1 and 2 ranks make the same sizes (reproducible from the seed)"
cmp -s "$root/logn/d000001/f0000000100" "$root1/logn/d000001/f0000000100"
ok_status $? "and the same bytes"

check "verify passes" mpi 2 "$PFSREAD" verify "$cfg"

# one rank: one reader per node only (6 phases); two ranks: 1 and 2 (12 phases)
sed 's/readers_per_node: \[1, 2\]/readers_per_node: [1]/' "$cfg" >"$SCRATCH/np1.yaml"
cp "$cfg" "$SCRATCH/np2.yaml"
for np in 1 2; do
	nphases=$((np * 6))
	expect_status 0 "run with $np rank(s), every block verified" \
		mpi "$np" "$PFSREAD" run "$SCRATCH/np$np.yaml" -o "$SCRATCH/np$np.h5"
	check "np=$np: h5py: every file read whole, bytes == its size on disk" \
		"$PYTHON" "$CHECK_H5" "$SCRATCH/np$np.h5" \
		"{\"phases\": $nphases, \"nranks\": $np, \"datasets\": {
		  \"logn\": {\"nfiles\": 300, \"bytes\": $logn_bytes, \"dir\": \"$root/logn\"},
		  \"logn-onefile\": {\"nfiles\": 1, \"bytes\": $logn_bytes, \"dir\": \"$root/logn-onefile\"},
		  \"hist\": {\"nfiles\": 60, \"bytes\": 951972, \"dir\": \"$root/hist\"}}}"
done
check "phase_info.file_size of a lognormal data set is the median" "$PYTHON" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
sizes = {p.attrs["dataset"]: int(p.attrs["file_size"]) for p in f["phases"].values()}
assert sizes["logn"] == 4096 and sizes["hist"] == 4096, sizes
assert sizes["logn-onefile"] == int(sys.argv[2]), sizes
' "$SCRATCH/np2.h5" "$logn_bytes"

expect_status 0 "report" "$PFSREAD" report "$SCRATCH/np2.h5"
contains "logn: 300 files of mean" "the report gives the small-vs-twin line"
contains "its one-file twin" "with the twin's time"
contains "ratio" "and the ratio"

# a flipped byte in the largest file: verify names the file and the offset
big=$(find "$root/logn" -type f -name 'f*' -printf '%s %p\n' | sort -n | tail -n 1)
size=${big%% *}
path=${big#* }
off=$((size / 2))
"$PYTHON" -c '
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2])); b = f.read(1); f.seek(int(sys.argv[2])); f.write(bytes([b[0] ^ 0x5a]))
' "$path" "$off"
expect_status 1 "verify fails on a flipped byte" mpi 2 "$PFSREAD" verify "$cfg"
contains "$path" "the message names the file"
contains "offset $off" "the message names the offset ($off)"

# a changed spec is other parameters: generate refuses until clean
write_config 1.25
expect_status 2 "generate refuses a data set made with another sigma" mpi 2 "$PFSREAD" generate "$cfg"
contains "other parameters" "the message says other parameters"
write_config 1.5
check "clean removes what generate made" mpi 2 "$PFSREAD" clean "$cfg"
left=$(find "$root" -type f | wc -l)
test "$left" -eq 0
ok_status $? "nothing left after clean ($left files)"

# configs/small-vs-large.yaml at a small scale (470 files), under the scratch directory
svl="$SCRATCH/svl.yaml"
sed -e "s|^root: .*|root: $SCRATCH/svl|" -e "s|^results: .*|results: $SCRATCH/svl-{jobid}.h5|" \
	-e 's/file_count: 4700/file_count: 470/' configs/small-vs-large.yaml >"$svl"
check "small-vs-large: plan the shipped config" "$PFSREAD" plan configs/small-vs-large.yaml --ranks 2 --nodes 1
check "small-vs-large: generate (470 files)" mpi 2 "$PFSREAD" generate "$svl"
expect_status 0 "small-vs-large: run" mpi 2 "$PFSREAD" run "$svl" -o "$SCRATCH/svl.h5"
expect_status 0 "small-vs-large: report" "$PFSREAD" report "$SCRATCH/svl.h5"
contains "srctree: 470 files of mean" "small-vs-large: the report gives the small/large ratio"
check "small-vs-large: h5py" "$PYTHON" "$CHECK_H5" "$SCRATCH/svl.h5" \
	"{\"phases\": 8, \"datasets\": {\"srctree\": {\"nfiles\": 470, \"dir\": \"$SCRATCH/svl/srctree\"},
	  \"srctree-onefile\": {\"nfiles\": 1, \"dir\": \"$SCRATCH/svl/srctree-onefile\"}}}"

done_testing
