#!/bin/sh
# hostile: what a hostile user or a failing machine does to a run, each on a tmpfs of the
# test's own with a size and an inode cap (root only). Issue 12's items, one section each:
#  7  a FIFO in place of a file of an in-place tree: run and verify refuse it at once (no
#     blocking open); report refuses a FIFO, /dev/zero and a directory at once
#  10 clean counts what it removed and what it kept, and keeps a manifest that no longer
#     lists every file of pfsread's it finds (changed by hand)
#  13 a directory in place of a data file is named as such; a from_tree path that is too
#     long says so; cache: fadvise on an unreadable file records the errno on its row
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root to mount a capped tmpfs"
M="$SCRATCH/m"
capped_mount "$M" 64m 20000 || skip_all "cannot mount a tmpfs"
"$PYTHON" -c 'import h5py' 2>/dev/null || skip_all "python3 with h5py is not installed"

# ---- 7: FIFOs and devices ----
tree="$M/tree"
mkdir -p "$tree/a"
head -c 70000 /dev/urandom >"$tree/a/one"
: >"$tree/a/empty"
head -c 5000 /dev/urandom >"$tree/two"
cfg="$SCRATCH/tree.yaml"
cat >"$cfg" <<YAML
root: $M/data
cache: none
datasets:
  - {name: src, from_tree: $tree, in_place: true}
YAML
check "generate describes the in-place tree" mpi 1 "$PFSREAD" generate "$cfg"
rm "$tree/a/empty" && mkfifo "$tree/a/empty"
expect_status 1 "run: a FIFO where the tree had a 0-byte file is refused before any phase" \
	timeout 60 "$PFSREAD" run "$cfg" -o "$SCRATCH/fifo.h5"
contains "$tree/a/empty: is a named pipe (FIFO), not a regular file" "and named as a FIFO"
expect_status 1 "verify names the FIFO instead of blocking on it" \
	timeout 60 "$PFSREAD" verify "$cfg"
contains "$tree/a/empty: is a named pipe (FIFO)" "verify says what it is"
rm "$tree/a/empty" && : >"$tree/a/empty"

mkfifo "$SCRATCH/fifo.h5"
expect_status 1 "report refuses a FIFO at once" timeout 10 "$PFSREAD" report "$SCRATCH/fifo.h5"
contains "is a named pipe (FIFO), not a results file" "and says why"
expect_status 1 "report refuses /dev/zero at once" timeout 10 "$PFSREAD" report /dev/zero
contains "/dev/zero: is a character device" "and says why"
expect_status 1 "report refuses a directory" timeout 10 "$PFSREAD" report "$M"
contains "is a directory" "and says why"
# a sparse 1 TiB regular file of zeros: the signature scan is bounded (41 reads), not a spin
truncate -s 1T "$M/zeros.h5"
expect_status 1 "report on a 1 TiB file of zeros ends at once" \
	timeout 10 "$PFSREAD" report "$M/zeros.h5"
contains "not an HDF5 file" "and says it is not HDF5"
rm -f "$M/zeros.h5"

# ---- 13: messages ----
cfg13="$SCRATCH/t13.yaml"
cat >"$cfg13" <<YAML
root: $M/d13
cache: none
layout: {files_per_dir: 4}
datasets:
  - {name: small, file_size: 8KiB, file_count: 6}
YAML
check "generate a small data set" mpi 1 "$PFSREAD" generate "$cfg13"
victim="$M/d13/small/d000001/f0000000005"
rm "$victim" && mkdir "$victim"
expect_status 1 "run: a directory in place of a data file" "$PFSREAD" run "$cfg13" -o "$SCRATCH/dir.h5"
contains "$victim: is a directory, not a regular file" "is named a directory"
expect_status 1 "verify: the same" "$PFSREAD" verify "$cfg13"
contains "$victim: is a directory" "verify names it a directory"
rmdir "$victim"
check "generate remakes the file" mpi 1 "$PFSREAD" generate "$cfg13"

# ---- 10: clean counts what it removed and kept, and keeps a manifest that lies ----
echo mine >"$M/d13/small/d000000/notes.txt"
man="$M/d13/small/.pfsread-manifest"
cp "$man" "$SCRATCH/manifest.saved"
sed -i 's/^nfiles 6$/nfiles 2/' "$man"
expect_status 1 "clean with a manifest changed to list 2 of the 6 files fails" 	mpi 2 "$PFSREAD" clean "$cfg13"
contains "removed 2 files (the manifest lists 2)" "it counts the 2 it removed"
contains "still holds 4 files with the names pfsread gives" "it names the 4 it could not account for"
test -f "$man" && test -f "$M/d13/small/d000001/f0000000005"
ok $? "the manifest and the unlisted files are kept (clean can be run again)"
cp "$SCRATCH/manifest.saved" "$man"
expect_status 0 "with the manifest back, clean finishes" mpi 2 "$PFSREAD" clean "$cfg13"
contains "removed 4 files (the manifest lists 6)" "it counts what it removed this time"
contains "kept 1 files pfsread did not make" "and what it kept"
case "$OUT" in *"//"*) ok 1 "paths print normalised (no //)" ;; *) ok 0 "paths print normalised (no //)" ;; esac
test -f "$M/d13/small/d000000/notes.txt" && test ! -e "$man"
ok $? "the foreign file stays, the manifest is gone"
done_testing
