#!/bin/sh
# process: read-and-process phases. generate writes a digest list (xxh64, then sha1 beside it)
# whose lines equal xxhsum's and sha1sum's; run digests every file with 1 and 2 ranks and
# records io_s and process_s; a byte changed in place (size kept) fails the phase naming the
# file and both digests; cpu_ns_per_byte makes process_s grow with the bytes; the uring
# pipeline feeds the digest in file order (xxh64 and sha1, queue depth 1 and 64, one buffer or
# a few, sizes that are not multiples of the transfer size, 1 and 2 ranks) and catches a changed
# byte too; a shared pattern with a digest is a usage error; clean removes the lists;
# configs/contention.yaml runs small with 8 ranks on one node.
. "$(dirname "$0")/lib.sh"

root="$SCRATCH/data"
cfg="$SCRATCH/process.yaml"
process_config() { # FILE PROCESS [EXTRA...]
	file=$1
	proc=$2
	shift 2
	small_config "$file" "$root" "process: $proc" "cache: none" \
		"sweep: {readers_per_node: [1], transfer_size: [64KiB, 1MiB]}" "$@"
}
process_config "$cfg" "{digest: xxh64}"

check "generate with a digest, 2 ranks" mpi 2 "$PFSREAD" generate "$cfg"
list="$root/small/.pfsread-digests-xxh64"
test "$(wc -l <"$list")" -eq 11 && test "$(wc -c <"$list")" -eq $((11 * 17))
ok_status $? "the xxh64 list has one 16-digit line per file (11)"
grep -qx "digests xxh64" "$root/small/.pfsread-manifest"
ok_status $? "the manifest names the list"
if ! command -v xxhsum >/dev/null 2>&1; then
	tests/install-deps.sh xxhash >/dev/null 2>&1 || true
fi
if command -v xxhsum >/dev/null 2>&1; then
	want=$(xxhsum -H64 "$root/small/d000001/f0000000005" 2>/dev/null | cut -d' ' -f1)
	got=$(sed -n 6p "$list")
	test "$want" = "$got"
	ok_status $? "line 5 of the list is xxhsum -H64 of file 5 ($got = $want)"
	want=$(xxhsum -H64 "$root/big/d000001/f0000000004" 2>/dev/null | cut -d' ' -f1)
	test "$want" = "$(sed -n 5p "$root/big/.pfsread-digests-xxh64")"
	ok_status $? "and for a 1 MiB file written in blocks"
else
	echo "# xxhsum (Debian package xxhash) not available: independent xxh64 check skipped"
fi

time_split='
import h5py, sys
f = h5py.File(sys.argv[1], "r")
for name, g in f["phases"].items():
    assert g.attrs["process"] == sys.argv[2], (name, g.attrs["process"])
    assert g.attrs["status"] == "complete", name
    r = g["ranks"][:]
    act = r[r["active"] == 1]
    assert (act["io_s"] > 0).all(), (name, act["io_s"])
    assert (act["process_s"] > 0).all(), (name, act["process_s"])
    for row in act:
        if len(sys.argv) > 3:  # ns per byte: the CPU paid at least half of it by the clock
            need = 0.5 * int(row["bytes"]) * int(sys.argv[3]) * 1e-9
            assert row["process_s"] >= need, (name, row["process_s"], need)
print("ok")
'
for np in 1 2; do
	expect_status 0 "run with the xxh64 digest, $np rank(s)" \
		mpi "$np" "$PFSREAD" run "$cfg" -o "$SCRATCH/x$np.h5"
	check "np=$np: h5py checker" "$PYTHON" "$CHECK_H5" "$SCRATCH/x$np.h5" \
		"{\"phases\": 4, \"nranks\": $np, \"status\": \"complete\"}"
	check "np=$np: process is xxh64, io_s and process_s > 0 for every reader" \
		"$PYTHON" -c "$time_split" "$SCRATCH/x$np.h5" xxh64
done

# sha1 beside it: the files are kept, their sha1 computed from the content function
sha="$SCRATCH/sha1.yaml"
process_config "$sha" "{digest: sha1}"
check "generate again with sha1 (files kept)" mpi 2 "$PFSREAD" generate "$sha"
grep -qx "digests xxh64 sha1" "$root/small/.pfsread-manifest"
ok_status $? "the manifest names both lists"
want=$(sha1sum "$root/small/d000002/f0000000009" | cut -d' ' -f1)
test "$want" = "$(sed -n 10p "$root/small/.pfsread-digests-sha1")" &&
	test "$(wc -c <"$root/small/.pfsread-digests-sha1")" -eq $((11 * 41))
ok_status $? "line 9 of the sha1 list is sha1sum of file 9 ($want)"
expect_status 0 "run with the sha1 digest, 2 ranks" mpi 2 "$PFSREAD" run "$sha" -o "$SCRATCH/s2.h5"
check "sha1: h5py checker" "$PYTHON" "$CHECK_H5" "$SCRATCH/s2.h5" '{"phases": 4, "status": "complete"}'
check "sha1: process is sha1, io_s and process_s > 0" "$PYTHON" -c "$time_split" "$SCRATCH/s2.h5" sha1

# CPU per byte: process_s grows with the bytes
cpu="$SCRATCH/cpu.yaml"
process_config "$cpu" "{digest: xxh64, cpu_ns_per_byte: 50}"
expect_status 0 "run with xxh64 + 50 ns/B" mpi 1 "$PFSREAD" run "$cpu" -o "$SCRATCH/cpu.h5"
check "process_s >= 0.5 x bytes x 50 ns for the reader" \
	"$PYTHON" -c "$time_split" "$SCRATCH/cpu.h5" "xxh64+50ns/B" 50
check "cpu: h5py checker" "$PYTHON" "$CHECK_H5" "$SCRATCH/cpu.h5" '{"phases": 4, "status": "complete"}'

# uring: the read-ahead pipeline hands each file's blocks to the digest in offset order.
# A third data set of 200001-byte files (no multiple of either transfer size, a tail block of
# 3393 bytes at 64 KiB); max_inflight 128 KiB is 2 buffers of 64 KiB, 1 of 1 MiB.
uring_config() { # FILE PROCESS DEPTH READERS
	small_config "$1" "$root" "  - {name: odd, file_size: 200001, file_count: 7}" \
		"process: $2" "cache: none" "uring: {queue_depth: $3, max_inflight: 128KiB}" \
		"sweep: {backend: [uring], readers_per_node: [$4], transfer_size: [64KiB, 1MiB]}"
}
uring_config "$SCRATCH/uring.yaml" "{digest: xxh64}" 4 1
have_uring=1
if mpi 1 "$PFSREAD" run "$SCRATCH/uring.yaml" -o "$SCRATCH/probe.h5" 2>&1 |
	grep -q "unknown backend 'uring'"; then
	have_uring=0
	echo "# uring: this build has no liburing; its read-and-process runs skipped"
fi
if [ "$have_uring" -eq 1 ]; then
	check "uring: generate the odd data set's xxh64 list" mpi 2 "$PFSREAD" generate "$SCRATCH/uring.yaml"
	uring_config "$SCRATCH/uring-sha1.yaml" "{digest: sha1}" 4 1
	check "uring: and its sha1 list" mpi 2 "$PFSREAD" generate "$SCRATCH/uring-sha1.yaml"
	for dg in xxh64 sha1; do
		for qd in 1 64; do
			for np in 1 2; do
				readers=1
				[ "$np" -eq 2 ] && readers="1, 2"
				phases=$((np * 6))
				u="$SCRATCH/u-$dg-$qd-$np"
				uring_config "$u.yaml" "{digest: $dg}" "$qd" "$readers"
				expect_status 0 "uring, $dg, queue depth $qd, $np rank(s): every file's digest checks out" \
					mpi "$np" "$PFSREAD" run "$u.yaml" -o "$u.h5"
				check "uring, $dg, depth $qd, np=$np: h5py checker ($phases phases)" \
					"$PYTHON" "$CHECK_H5" "$u.h5" \
					"{\"phases\": $phases, \"nranks\": $np, \"status\": \"complete\"}"
				check "uring, $dg, depth $qd, np=$np: io_s and process_s > 0 for every reader" \
					"$PYTHON" -c "$time_split" "$u.h5" "$dg"
			done
		done
	done
	uring_config "$SCRATCH/ucpu.yaml" "{digest: xxh64, cpu_ns_per_byte: 50}" 16 1
	expect_status 0 "uring with xxh64 + 50 ns/B" mpi 1 "$PFSREAD" run "$SCRATCH/ucpu.yaml" \
		-o "$SCRATCH/ucpu.h5"
	check "uring: process_s >= 0.5 x bytes x 50 ns for the reader" \
		"$PYTHON" -c "$time_split" "$SCRATCH/ucpu.h5" "xxh64+50ns/B" 50
	check "uring: process_s grew over the run without CPU per byte" "$PYTHON" -c '
import h5py, sys
def per_byte(name):
    f = h5py.File(name, "r")
    p = b = 0
    for g in f["phases"].values():
        r = g["ranks"][:]
        p += r["process_s"].sum(); b += r["bytes"].sum()
    return p / b
without, with_cpu = per_byte(sys.argv[1]), per_byte(sys.argv[2])
assert with_cpu > without + 25e-9, (without, with_cpu)
' "$SCRATCH/u-xxh64-64-1.h5" "$SCRATCH/ucpu.h5"
fi

# usage errors at run start
process_config "$SCRATCH/shared.yaml" "{digest: xxh64}" "sweep: {pattern: [shared]}"
sed -i '/sweep: {readers_per_node/d' "$SCRATCH/shared.yaml"
expect_status 2 "a digest with pattern shared is a usage error" \
	mpi 1 "$PFSREAD" run "$SCRATCH/shared.yaml" -o "$SCRATCH/sh.h5"
contains "key 'process.digest': needs pattern per-reader" "the message says why"

# a byte changed in place, the size kept: the phase fails naming the file and both digests
bad="$root/small/d000001/f0000000006"
listed=$(sed -n 7p "$list")
"$PYTHON" -c '
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(1000); b = f.read(1); f.seek(1000); f.write(bytes([b[0] ^ 0x01]))
' "$bad"
expect_status 1 "a changed byte fails the run" mpi 2 "$PFSREAD" run "$cfg" -o "$SCRATCH/bad.h5"
contains "data set small: $bad: xxh64 digest" "the message names the data set and the file"
contains "the digest list says $listed" "and the listed digest"
if command -v xxhsum >/dev/null 2>&1; then
	found=$(xxhsum -H64 "$bad" 2>/dev/null | cut -d' ' -f1)
	contains "xxh64 digest $found," "and the digest of what was read ($found)"
fi
check "the phases of the other data set still complete" "$PYTHON" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
st = {(g.attrs["dataset"], g.attrs["status"]) for g in f["phases"].values()}
assert st == {("big", "complete"), ("small", "failed")}, st
' "$SCRATCH/bad.h5"
# the same with uring, at both depths; and a changed last byte of an odd-sized file (its tail
# block) with sha1
failed_rows='
import errno, h5py, sys
f = h5py.File(sys.argv[1], "r")
st = {(g.attrs["dataset"], g.attrs["status"]) for g in f["phases"].values()}
want = {(d, "failed" if d == sys.argv[2] else "complete") for d in ("big", "small", "odd")}
assert st == want, st
for g in f["phases"].values():
    if g.attrs["dataset"] == sys.argv[2]:
        rows = g["files"][:]
        hit = rows[rows["file"] == int(sys.argv[3])]
        assert len(hit) == 1 and hit["error"][0] == errno.EILSEQ, (g.name, hit)
'
if [ "$have_uring" -eq 1 ]; then
	for qd in 1 64; do
		u="$SCRATCH/u-xxh64-$qd-2"
		expect_status 1 "uring, queue depth $qd: a changed byte fails the run" \
			mpi 2 "$PFSREAD" run "$u.yaml" -o "$u-bad.h5"
		contains "data set small: $bad: xxh64 digest" "uring, depth $qd: the message names the file"
		contains "the digest list says $listed" "uring, depth $qd: and the listed digest"
		check "uring, depth $qd: small's phases failed (file 6's row EILSEQ), the others complete" \
			"$PYTHON" -c "$failed_rows" "$u-bad.h5" small 6
	done
	tail="$root/odd/d000000/f0000000002"
	tail_listed=$(sed -n 3p "$root/odd/.pfsread-digests-sha1")
	# small's byte flipped back (the run names only its first failure), odd's last one changed
	"$PYTHON" -c '
import sys
for path, at, bit in ((sys.argv[1], 1000, 0x01), (sys.argv[2], 200000, 0x80)):
    with open(path, "r+b") as f:
        f.seek(at); b = f.read(1); f.seek(at); f.write(bytes([b[0] ^ bit]))
' "$bad" "$tail"
	u="$SCRATCH/u-sha1-64-2"
	expect_status 1 "uring, sha1: a changed last byte of a 200001-byte file fails the run" \
		mpi 2 "$PFSREAD" run "$u.yaml" -o "$u-tail.h5"
	contains "data set odd: $tail: sha1 digest" "uring, sha1: the message names the odd file"
	contains "the digest list says $tail_listed" "uring, sha1: and its listed digest"
	check "uring, sha1: odd's phases failed (file 2's row EILSEQ), the others complete" \
		"$PYTHON" -c "$failed_rows" "$u-tail.h5" odd 2
fi

clean_cfg=$cfg
[ "$have_uring" -eq 1 ] && clean_cfg="$SCRATCH/uring.yaml" # big, small and odd
check "clean" mpi 2 "$PFSREAD" clean "$clean_cfg"
left=$(find "$root" | wc -l)
test ! -e "$root/small" && test ! -e "$root/big" && test ! -e "$root/odd"
ok_status $? "clean removed the digest lists with the rest ($left entries left under root)"

# configs/contention.yaml at a small scale: 8 ranks on one node, 1, 4 and 8 readers
con="$SCRATCH/contention.yaml"
sed -e "s|^root: .*|root: $SCRATCH/contention|" -e "s|^results: .*|results: $SCRATCH/con-{jobid}.h5|" \
	-e 's/file_size: 64MiB, file_count: 64/file_size: 1MiB, file_count: 16/' \
	-e 's/^repetitions: 2/repetitions: 1/' configs/contention.yaml >"$con"
check "contention: plan the shipped config for 8 ranks" \
	"$PFSREAD" plan configs/contention.yaml --ranks 8 --nodes 1
check "contention: generate (16 x 1 MiB)" mpi 8 "$PFSREAD" generate "$con"
expect_status 0 "contention: run with 8 ranks on one node" mpi 8 "$PFSREAD" run "$con" -o "$SCRATCH/con.h5"
check "contention: h5py (1, 4 and 8 readers)" "$PYTHON" "$CHECK_H5" "$SCRATCH/con.h5" \
	"{\"phases\": 3, \"nranks\": 8, \"datasets\": {\"disk\": {\"nfiles\": 16, \"dir\": \"$SCRATCH/contention/disk\"}}}"

done_testing
