#!/bin/sh
# buffer_offset: posix: {buffer_offset: N} moves where the posix path's reads land to N bytes
# past the buffer's 2 MiB boundary, seen in the address every pread64 of a data file gets
# (strace); without it they land on the boundary. Every block read there is still checked
# against the content pattern (verify: true), per reader and shared, the phase's hints record
# the placement, and a value outside 0..4095 is refused naming the file, line and key.
. "$(dirname "$0")/lib.sh"

strace_require
root="$SCRATCH/data"
mkdir -p "$SCRATCH/results"
small_config "$SCRATCH/gen.yaml" "$root"
check "generate" mpi 2 "$PFSREAD" generate "$SCRATCH/gen.yaml"

# run NAME [YAML...]: the posix path over both data sets, every block verified, under
# strace -f showing pread64's arguments raw (the buffer's address among them).
run() {
	name=$1
	shift
	small_config "$SCRATCH/$name.yaml" "$root" \
		"sweep: {backend: [posix], readers_per_node: [1, 2], pattern: [per-reader, shared], transfer_size: [64KiB, 1MiB]}" \
		"cache: none" "verify: true" "$@"
	strace -f -qq -e trace=pread64 -e raw=pread64 -o "$SCRATCH/$name.trace" \
		timeout 300 $MPIRUN $MPI_FLAGS -np 2 "$PFSREAD" run "$SCRATCH/$name.yaml" \
		-o "$SCRATCH/results/$name.h5" >"$SCRATCH/$name.out" 2>&1
}

# placements TRACE: each distinct buffer address of the data files' reads, modulo 2 MiB, one
# a line (the reads of a transfer of 64 KiB or 1 MiB; pfsread's own small reads are not).
placements() {
	awk '$2 ~ /^pread64\(/ && ($4 == "0x10000," || $4 == "0x100000,") {
		sub(/,$/, "", $3); print $3 }' "$1" |
		while read -r addr; do echo $((addr % 2097152)); done | sort -u
}

run at16 "posix: {buffer_offset: 16}"
ok_status $? "a run with posix: {buffer_offset: 16}, every block verified"
OUT=$(placements "$SCRATCH/at16.trace")
[ -n "$OUT" ] && [ "$OUT" = 16 ]
ok_status $? "with buffer_offset 16, every data read lands 16 B past a 2 MiB boundary (got: $(echo $OUT))"
check "with buffer_offset 16: h5py: bytes, every file covered once, times ordered" \
	"$PYTHON" "$CHECK_H5" "$SCRATCH/results/at16.h5" '{"phases": 16, "nranks": 2, "status": "complete"}'
check "the phases' hints name the placement" "$PYTHON" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
hints = [p.attrs["hints"] for p in f["phases"].values()]
hints = [h.decode() if isinstance(h, bytes) else h for h in hints]
assert hints and all("16 B past a 2 MiB boundary" in h for h in hints), hints
' "$SCRATCH/results/at16.h5"

run plain
ok_status $? "a run without the option, every block verified"
OUT=$(placements "$SCRATCH/plain.trace")
[ -n "$OUT" ] && [ "$OUT" = 0 ]
ok_status $? "without it, every data read lands on a 2 MiB boundary (got: $(echo $OUT))"

small_config "$SCRATCH/bad.yaml" "$root" "posix: {buffer_offset: 4096}"
expect_status 2 "buffer_offset 4096 is refused as a usage error" \
	"$PFSREAD" run "$SCRATCH/bad.yaml" -o "$SCRATCH/results/bad.h5"
contains "bad.yaml:8:" "the refusal names the file and line"
contains "posix.buffer_offset" "and the key"
[ ! -e "$SCRATCH/results/bad.h5" ]
ok_status $? "and leaves no results file"

done_testing
