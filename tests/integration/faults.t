#!/bin/sh
# faults: a short file makes run fail naming it; corruption makes verify fail naming the file
# and offset; an interrupted generate resumes to a data set that verifies.
. "$(dirname "$0")/lib.sh"

root="$SCRATCH/data"
cfg="$SCRATCH/t.yaml"
small_config "$cfg" "$root" "sweep: {readers_per_node: [1, 2]}" "cache: none"
check "generate" mpi 2 "$PFSREAD" generate "$cfg"

victim="$root/small/d000001/f0000000005"
truncate -s 1000 "$victim"
expect_status 1 "run refuses a truncated file before any timing" \
	mpi 2 "$PFSREAD" run "$cfg" -o "$SCRATCH/short.h5"
contains "$victim: 1000 bytes, the manifest says 65537" "the message names the file and both sizes"
test ! -e "$SCRATCH/short.h5"
ok_status $? "no results file is started for a data set that is not whole"
expect_status 1 "verify fails on the truncated file" mpi 2 "$PFSREAD" verify "$cfg"
contains "$victim" "verify names the truncated file"

# a flipped byte in the middle of a file: verify names file and offset
rm -f "$victim"
check "generate again redoes the removed file" mpi 2 "$PFSREAD" generate "$cfg"
bad="$root/big/d000000/f0000000002"
printf '\377' | dd of="$bad" bs=1 seek=300000 conv=notrunc status=none
byte=$(od -An -tx1 -j300000 -N1 "$bad" | tr -d ' ')
expect_status 1 "verify fails on a corrupted byte" mpi 2 "$PFSREAD" verify "$cfg"
contains "$bad: offset 300000" "verify names the file and the offset"
contains "found 0x$byte" "verify shows the byte it found"

# interrupted generate: a rank killed while it writes (the slow-call shim's SIGKILL at its 20th
# pwrite, the same point on a machine of any speed), then resume
check "build the slow-call shim" cc -shared -fPIC -O2 -o "$SCRATCH/slow.so" \
	"$TOP/tests/integration/slow.c" -ldl
root2="$SCRATCH/data2"
cfg2="$SCRATCH/t2.yaml"
{
	echo "root: $root2"
	echo "datasets: [{name: many, file_size: 2MiB, file_count: 400}]"
} >"$cfg2"
mpi 2 env LD_PRELOAD="$SCRATCH/slow.so" PFSREAD_KILL_AT=pwrite:20 "$PFSREAD" generate "$cfg2" \
	>"$SCRATCH/killed.out" 2>&1
rc=$?
[ "$rc" -ne 0 ]
ok_status $? "the killed generate fails (exit $rc)"
made=$(find "$root2" -name 'f*' ! -name '*.part' | wc -l)
grep -q "complete 0" "$root2/many/.pfsread-manifest"
ok_status $? "the interrupted data set's manifest does not claim it complete ($made of 400 files made)"
expect_status 1 "run refuses an incomplete data set" mpi 1 "$PFSREAD" run "$cfg2" -o "$SCRATCH/x.h5"
contains "not generated completely" "the message says why"
check "generate resumes" mpi 2 "$PFSREAD" generate "$cfg2"
grep -q "complete 1" "$root2/many/.pfsread-manifest"
ok_status $? "the manifest now says complete"
test "$(partial_files "$root2" 2097152)" -eq 0
ok_status $? "no partial file is left"
check "the resumed data set verifies" mpi 2 "$PFSREAD" verify "$cfg2"
expect_status 0 "generate on a complete data set keeps it" mpi 2 "$PFSREAD" generate "$cfg2"
contains "0 files made, 400 kept" "and says so"

# generate refuses a non-empty directory that holds no manifest
root3="$SCRATCH/data3"
mkdir -p "$root3/many"
echo precious >"$root3/many/keep.txt"
sed "s|$root2|$root3|" "$cfg2" >"$SCRATCH/t3.yaml"
expect_status 2 "generate refuses a non-empty directory without a manifest" \
	mpi 1 "$PFSREAD" generate "$SCRATCH/t3.yaml"
test "$(cat "$root3/many/keep.txt")" = precious
ok_status $? "the foreign file is untouched"
done_testing
