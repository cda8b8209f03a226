#!/bin/sh
# lagdir: generate on a shared file system whose client finds a directory that a rank on
# another node has just made a moment late (GlusterFS in the box: mkdir says EEXIST, the open
# in it ENOENT in the same instant). lagdir.c makes the first opens and renames into the data
# set fail with ENOENT in every rank; generate asks again, completes, and verify passes. Too
# many such failures (more than 2 s' worth) still fail generate, naming the file, and leave no
# hashed file under its .part name.
. "$(dirname "$0")/lib.sh"

root="$SCRATCH/data"
cfg="$SCRATCH/t.yaml"
cat >"$cfg" <<YAML
name: lag
root: $root
results: $SCRATCH/{name}.h5
datasets:
  - {name: flat, file_size: 4KiB, file_count: 12, layout: {files_per_dir: 4}}
  - name: hashed
    file_size: 3000
    file_count: 8
    layout: {kind: hashed, depth: 2, width: 2, digest: sha1}
YAML
check "build the lagdir shim" cc -shared -fPIC -O2 -o "$SCRATCH/lagdir.so" tests/integration/lagdir.c -ldl

# lag_generate COUNT UNDER [MPI_FLAGS...]: generate on 2 ranks, the first COUNT opens and
# renames of data files under UNDER failing with ENOENT in each rank
lag_generate() {
	local count=$1 under=$2
	shift 2
	mpi 2 -x LD_PRELOAD="$SCRATCH/lagdir.so" -x PFSREAD_LAG_UNDER="$under" \
		-x PFSREAD_LAG_COUNT="$count" "$@" "$PFSREAD" generate "$cfg" >"$SCRATCH/gen.out" 2>&1
}
# the flat data set's files are made at their names, the hashed one's moved there (rename)
for ds in flat hashed; do
	rm -rf "$root"
	lag_generate 6 "$root/$ds/"
	st=$?
	[ $st -eq 0 ] || sed 's/^/#   /' "$SCRATCH/gen.out"
	ok_status $st "$ds: generate completes when a directory's first 6 opens and renames say ENOENT"
	expect_status 0 "$ds: ... and every file is whole (verify)" mpi 2 "$PFSREAD" verify "$cfg"
done

rm -rf "$root"
lag_generate 1000 "$root/"
st=$?
[ $st -ne 0 ] && grep -q 'cannot write: No such file or directory' "$SCRATCH/gen.out"
ok_status $? "a directory never found: generate fails (exit $st), naming the file and ENOENT"

rm -rf "$root"
lag_generate 1000 "$root/hashed/" -x PFSREAD_LAG_RENAMES=1
st=$?
[ $st -ne 0 ] && grep -q 'cannot move to .*: No such file or directory' "$SCRATCH/gen.out"
ok_status $? "hashed, a directory never found: generate fails (exit $st), naming the move and ENOENT"
parts=$(find "$root/hashed" -name '*.part' | wc -l)
test "$parts" -eq 0
ok_status $? "... and leaves no .part file ($parts there)"
done_testing
