#!/bin/sh
# resume_kill: run --resume after a SIGKILL at chosen points of writing the results file
# (slow.c's PFSREAD_KILL_AT=pwrite:N, the same point every time). Killed in the middle of a
# flush, any subset of its writes is on disk, and the superblock's end of allocation maybe not:
# a group whose header grew pointed at a continuation beyond it ("addr overflow") and /phases,
# with every phase in it, could not be opened (these points failed so before the fix: resume
# aborted with exit 1). Now /phases is made big enough for every phase at creation, each such
# point resumes to the end with every phase once. A file killed before it held anything
# (no superblock yet, no /phases, no topology) is refused: exit 2, what to do, file untouched.
. "$(dirname "$0")/lib.sh"

root="$SCRATCH/data"
cfg="$SCRATCH/t.yaml"
cat >"$cfg" <<EOF2
root: $root
layout: {files_per_dir: 8}
datasets:
  - {name: big, file_size: 8MiB, file_count: 8}
  - {name: small, file_size: 64KiB, file_count: 64}
sweep: {transfer_size: [1MiB], readers_per_node: [1, 2]}
cache: none
repetitions: 2
EOF2
check "generate" mpi 2 "$PFSREAD" generate "$cfg"
check "build the kill shim" cc -shared -fPIC -O2 -o "$SCRATCH/slow.so" tests/integration/slow.c -ldl
check "an uninterrupted run" mpi 2 "$PFSREAD" run "$cfg" -o "$SCRATCH/full.h5" --progress 0

# same FILE: every phase of the uninterrupted run exactly once, with the same attributes and
# whole rows (as resume.t's)
same() {
	"$PYTHON" - "$SCRATCH/full.h5" "$1" <<'PY'
import h5py, sys
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
assert b.attrs["status"] == "complete", b.attrs["status"]
assert sorted(a["phases"]) == sorted(b["phases"]), (sorted(a["phases"]), sorted(b["phases"]))
for n in a["phases"]:
    pa, pb = a["phases"][n], b["phases"][n]
    assert sorted(pa.attrs) == sorted(pb.attrs), n
    for k in ("dataset", "readers_per_node", "repetition", "bytes", "status"):
        assert pa.attrs[k] == pb.attrs[k], (n, k, pa.attrs[k], pb.attrs[k])
    assert len(pb["ranks"][...]) == 2 and len(pb["files"][...]) == len(pa["files"]), n
PY
}
# killed FILE N: a run into FILE, killed at its Nth pwrite
killed() {
	rm -f "$1"
	mpi 2 env LD_PRELOAD="$SCRATCH/slow.so" PFSREAD_KILL_AT=pwrite:$2 "$PFSREAD" run "$cfg" \
		-o "$1" --progress 0 >/dev/null 2>&1
}

# 1. kills in the middle of a phase's flush: points of a sweep over every pwrite of this run
# (127 on rank 0) where resume failed before (80-81, 86-94, 99: /phases "addr overflow"; the
# points shift a little with path and host name lengths)
for n in 80 86 90 94; do
	killed "$SCRATCH/k$n.h5" "$n"
	expect_status 0 "killed at pwrite $n: resumed to the end" \
		mpi 2 "$PFSREAD" run "$cfg" --resume "$SCRATCH/k$n.h5" --progress 0
	out=$(same "$SCRATCH/k$n.h5" 2>&1)
	ok_status $? "killed at pwrite $n: every phase once, as in the uninterrupted run"
	[ -n "$out" ] && printf '%s\n' "$out" | tail -n 3 | sed 's/^/#   /'
done

# 1b. a resumed run killed at its 2nd and 3rd pwrite: the root's status, rewritten "running",
# can point at a heap collection never written (the 3 phases kept were refused with it, "not a
# pfsread results file"): taken as running, set aside as status-lost, the phases kept. At its
# 65th (of 67) its /parts entry can be a link without a group: the study was whole, but the
# report (and so the run) failed on it ("/parts/0001: cannot open"); now shown as unreadable
killed "$SCRATCH/base.h5" 60
for n in 2 3 65; do
	cp "$SCRATCH/base.h5" "$SCRATCH/r$n.h5"
	mpi 2 env LD_PRELOAD="$SCRATCH/slow.so" PFSREAD_KILL_AT=pwrite:$n "$PFSREAD" run "$cfg" \
		--resume "$SCRATCH/r$n.h5" --progress 0 >/dev/null 2>&1
	expect_status 0 "a resume killed at its pwrite $n: resumed to the end" \
		mpi 2 "$PFSREAD" run "$cfg" --resume "$SCRATCH/r$n.h5" --progress 0
	out=$(same "$SCRATCH/r$n.h5" 2>&1)
	ok_status $? "a resume killed at its pwrite $n: every phase once"
	[ -n "$out" ] && printf '%s\n' "$out" | tail -n 3 | sed 's/^/#   /'
done

# 2. killed before the file holds a phase: nothing to keep, refused, the file left as it was
for n in 3 16; do
	killed "$SCRATCH/e$n.h5" "$n"
	cp "$SCRATCH/e$n.h5" "$SCRATCH/e$n.copy" 2>/dev/null
	expect_status 2 "killed at pwrite $n (before the first phase): refused" \
		mpi 2 "$PFSREAD" run "$cfg" --resume "$SCRATCH/e$n.h5" --progress 0
	contains "rerun without --resume" "it says what to do"
	cmp -s "$SCRATCH/e$n.h5" "$SCRATCH/e$n.copy"
	ok_status $? "the refused file is left as it was"
done
# 3. a file whose /phases cannot be read (as a kill left files of an earlier pfsread): one byte
# of its header changed by hand (its checksum then fails); refused, nothing kept, file left
cp "$SCRATCH/full.h5" "$SCRATCH/bad.h5"
check "break /phases's header" "$PYTHON" - "$SCRATCH/bad.h5" <<'PY'
import h5py, sys
with h5py.File(sys.argv[1], "r+") as f:
    f.attrs["status"] = "running"
    addr = h5py.h5o.get_info(f["phases"].id).addr
with open(sys.argv[1], "r+b") as fd:
    fd.seek(addr + 8)
    b = fd.read(1)
    fd.seek(addr + 8)
    fd.write(bytes([b[0] ^ 0xff]))
PY
cp "$SCRATCH/bad.h5" "$SCRATCH/bad.copy"
expect_status 2 "/phases unreadable: refused" \
	mpi 2 "$PFSREAD" run "$cfg" --resume "$SCRATCH/bad.h5" --progress 0
contains "its /phases group cannot be read" "it says what cannot be read"
contains "rerun without --resume" "and what to do"
cmp -s "$SCRATCH/bad.h5" "$SCRATCH/bad.copy"
ok_status $? "the refused file is left as it was"
done_testing
