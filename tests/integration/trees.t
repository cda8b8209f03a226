#!/bin/sh
# trees: from_tree data sets. A small tree (files of varied sizes, empty ones, 3 levels deep,
# empty directories, a symbolic link, a fifo) is planned exactly; its twin generated with 2
# ranks has the tree's size multiset, directories per level, files per directory and depth,
# verifies and runs; the tree read in place with 1 and 2 ranks reads exactly its bytes (h5py,
# sizes from os.stat of the tree's own files); a listing of the tree with mtimes and ctimes is
# the same before and after generate, run and clean (atimes too with noatime: true); the tree
# bind-mounted read-only runs in place; clean removes only pfsread's own files; bad from_tree
# input exits 2 with file:line:col and the key; configs/tree.yaml plans.
. "$(dirname "$0")/lib.sh"

tree="$SCRATCH/tree"
root="$SCRATCH/data"
ro="$SCRATCH/ro"
cfg="$SCRATCH/trees.yaml"
trap 'umount "$ro" 2>/dev/null; rm -rf "$SCRATCH"' EXIT

# 40 files of sizes from 0 to ~300 KB over 3 levels, 2 empty directories, a link, a fifo
mkdir -p "$tree/src/lib/deep" "$tree/src/app" "$tree/docs/empty" "$tree/none"
i=0
for dir in "" src src/lib src/lib/deep src/app docs; do
	for k in 1 2 3 4 5 6 7; do
		i=$((i + 1))
		[ "$i" -gt 40 ] && break
		size=$(( (i * i * i * 37) % 300001 ))
		[ $((i % 9)) -eq 0 ] && size=0
		head -c "$size" /dev/urandom >"$tree/${dir:+$dir/}file $i.c"
	done
done
ln -s "src/lib" "$tree/link-to-lib"
mkfifo "$tree/src/fifo"
nfiles=$(find "$tree" -type f | wc -l)
bytes=$(find "$tree" -type f -printf '%s\n' | awk '{s += $1} END {print s}')
test "$nfiles" -eq 40
ok_status $? "the tree: $nfiles files, $bytes B"

listing() { # the tree as find sees it, times included (atimes with "atime")
	find "$tree" -printf "%p %y %s %m %T@ %C@${1:+ %A@}\n" | sort
}
listing >"$SCRATCH/before"
write_config() { # NOATIME [TREE]
	cat >"$cfg" <<YAML
name: trees
root: $root
results: $SCRATCH/results/{name}-{jobid}.h5
cache: none
noatime: $1
datasets:
  - {name: twin, from_tree: ${2:-$tree}}
  - {name: src, from_tree: ${2:-$tree}, in_place: true}
sweep: {readers_per_node: [1, 2], order: [sorted, random], transfer_size: [64KiB]}
YAML
}
write_config false

expect_status 0 "plan scans the tree" "$PFSREAD" plan "$cfg" --ranks 2 --nodes 1
contains "data set twin: $nfiles files" "plan gives the twin's exact count"
contains "($bytes B)" "plan gives the exact bytes ($bytes)"
contains "data set src: $nfiles files" "plan gives the in-place data set's exact count"
contains "skipped 1 symbolic links (not followed) and 1 special files" "plan says what was skipped"
contains "read in place (nothing written in the tree)" "plan says the tree is read in place"
test ! -e "$root"
ok_status $? "plan wrote nothing"

check "generate with 2 ranks" mpi 2 "$PFSREAD" generate "$cfg"
sizes() { find "$1" -type f -name "$2" -printf '%s\n' | sort -n; }
test "$(sizes "$tree" '*')" = "$(sizes "$root/twin" 'f*')"
ok_status $? "the twin's sizes are the tree's (exact multiset)"
levels() { find "$1" -mindepth 1 -type d -printf '%d\n' | sort -n | uniq -c; }
test "$(levels "$tree")" = "$(levels "$root/twin")" && test -n "$(levels "$tree")"
ok_status $? "the same directories per level: $(levels "$tree" | tr -s ' \n' ' ')"
maxdepth() { find "$1" -type d -printf '%d\n' | sort -n | tail -n 1; }
test "$(maxdepth "$tree")" -eq 3 && test "$(maxdepth "$root/twin")" -eq 3
ok_status $? "the same depth (3)"
per_dir() { find "$1" -type f -name "$2" -printf '%h\n' | sort | uniq -c | awk '{print $1}' | sort -n; }
test "$(per_dir "$tree" '*')" = "$(per_dir "$root/twin" 'f*')"
ok_status $? "the same files per directory"
file_levels() { find "$1" -type f -name "$2" -printf '%d\n' | sort -n | uniq -c; }
test "$(file_levels "$tree" '*')" = "$(file_levels "$root/twin" 'f*')"
ok_status $? "every level holds as many files as in the tree"
test -d "$root/twin/d000000/d000001" && test -z "$(ls -A "$root/twin/d000000/d000001")"
ok_status $? "an empty directory of the tree is an empty directory of the twin"
test "$(find "$root/src" -mindepth 1 | sort | tr '\n' ' ')" = \
	"$root/src/.pfsread-manifest $root/src/.pfsread-tree "
ok_status $? "in place: generate wrote only the manifest and the file list, outside the tree"
grep -q "^layout in-place$" "$root/src/.pfsread-manifest" &&
	grep -q "^sizes tree nfiles=40 total=$bytes dirs=7 depth=3 list=" "$root/src/.pfsread-manifest"
ok_status $? "the manifest says in-place and the tree's counts"

expect_status 0 "verify with 2 ranks" mpi 2 "$PFSREAD" verify "$cfg"
contains "verify twin: 40 files, $bytes B: all bytes as generated" "the twin verifies byte by byte"
contains "verify src: in place: 40 files" "in place: sizes only"

# run with 1 and 2 ranks: every byte of both, file by file against the sizes on disk
sed 's/readers_per_node: \[1, 2\]/readers_per_node: [1]/' "$cfg" >"$SCRATCH/np1.yaml"
cp "$cfg" "$SCRATCH/np2.yaml"
for np in 1 2; do
	expect_status 0 "run with $np rank(s)" mpi "$np" "$PFSREAD" run "$SCRATCH/np$np.yaml" \
		-o "$SCRATCH/np$np.h5"
	check "np=$np: h5py: every file of the twin and of the tree read whole, $bytes B each" \
		"$PYTHON" "$CHECK_H5" "$SCRATCH/np$np.h5" \
		"{\"phases\": $((np * 4)), \"nranks\": $np, \"datasets\": {
		  \"twin\": {\"nfiles\": 40, \"bytes\": $bytes, \"dir\": \"$root/twin\"},
		  \"src\": {\"nfiles\": 40, \"bytes\": $bytes, \"dir\": \"$root/src\"}}}"
done
check "the per-file records name the tree's file indices with their bytes" "$PYTHON" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
src = [p for p in f["phases"].values() if p.attrs["dataset"] == "src"]
rows = src[0]["files"][()]
assert sorted(rows["file"]) == list(range(40)), rows["file"]
assert int(rows["bytes"].sum()) == int(sys.argv[2])
' "$SCRATCH/np2.h5" "$bytes"

# atimes: two copies of the tree with atimes in 2000 (before their mtimes, so that even
# relatime updates them on a read); read in place without and with noatime
atime_run() { # NOATIME COPY: 0 when the copy's atimes are unchanged by a run in place
	cp -a "$tree" "$SCRATCH/$2"
	find "$SCRATCH/$2" -type f -exec touch -a -d 2000-01-01 {} +
	find "$SCRATCH/$2" -type f -printf '%p %A@\n' | sort >"$SCRATCH/$2.before"
	printf 'root: %s\nresults: %s\ncache: none\nnoatime: %s\ndatasets:\n  - {name: c, from_tree: %s, in_place: true}\n' \
		"$SCRATCH/data-$2" "$SCRATCH/results/$2.h5" "$1" "$SCRATCH/$2" >"$SCRATCH/$2.yaml"
	mpi 2 "$PFSREAD" generate "$SCRATCH/$2.yaml" >/dev/null 2>&1 &&
		mpi 2 "$PFSREAD" run "$SCRATCH/$2.yaml" -o "$SCRATCH/$2.h5" >/dev/null 2>&1
	ok_status $? "run in place with noatime: $1"
	find "$SCRATCH/$2" -type f -printf '%p %A@\n' | sort >"$SCRATCH/$2.after"
	cmp -s "$SCRATCH/$2.before" "$SCRATCH/$2.after"
}
atime_run false copy-atime
changed=$?
if [ "$changed" -ne 0 ]; then
	pass "without noatime, reading updates the atimes (the check below can fail)"
	atime_run true copy-noatime
	ok_status $? "with noatime: true the tree's atimes did not change"
else
	pass "# SKIP this mount does not update atimes on read (noatime): nothing to check"
fi

# read-only: the tree bind-mounted read-only reads in place as well
mkdir -p "$ro"
if mount --bind "$tree" "$ro" 2>/dev/null && mount -o remount,bind,ro,noatime "$ro" 2>/dev/null; then
	touch "$ro/x" 2>/dev/null
	test $? -ne 0
	ok_status $? "the bind mount is read-only"
	rocfg="$SCRATCH/ro.yaml"
	sed -e "s|root: .*|root: $SCRATCH/rodata|" -e "s|from_tree: $tree|from_tree: $ro|" \
		-e 's/cache: none/cache: fadvise/' "$cfg" >"$rocfg"
	check "read-only mount: generate (describes only)" mpi 2 "$PFSREAD" generate "$rocfg"
	expect_status 0 "read-only mount: run in place with 2 ranks (cache: fadvise)" \
		mpi 2 "$PFSREAD" run "$rocfg" -o "$SCRATCH/ro.h5"
	check "read-only mount: h5py: $bytes B read" "$PYTHON" "$CHECK_H5" "$SCRATCH/ro.h5" \
		"{\"datasets\": {\"src\": {\"nfiles\": 40, \"bytes\": $bytes, \"dir\": \"$SCRATCH/rodata/src\"},
		  \"twin\": {\"nfiles\": 40, \"bytes\": $bytes, \"dir\": \"$SCRATCH/rodata/twin\"}}}"
	# the in-place phases record the tree's mount (noatime here), the twin's the root's
	rootmode=$(findmnt -n -o OPTIONS -T "$SCRATCH" | tr , '\n' | grep -m1 -xE 'noatime|relatime' || echo strictatime)
	"$PYTHON" - "$SCRATCH/ro.h5" "$rootmode" <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
modes = {}
for p in f["phases"].values():
    a = p.attrs
    ds = a["dataset"].decode() if isinstance(a["dataset"], bytes) else str(a["dataset"])
    m = a["atime_mode"].decode() if isinstance(a["atime_mode"], bytes) else str(a["atime_mode"])
    modes.setdefault(ds, set()).add(m)
print(f"# atime modes per data set: {modes}")
sys.exit(0 if modes == {"src": {"noatime"}, "twin": {sys.argv[2]}} else 1)
PY
	ok_status $? "atime_mode: the tree's own mount (noatime) for in place, the root's ($rootmode) for the twin"
	check "read-only mount: clean" mpi 2 "$PFSREAD" clean "$rocfg"
	umount "$ro"
	ok_status $? "unmount"
else
	umount "$ro" 2>/dev/null
	pass "# SKIP read-only bind mount: mount failed (not root, or no mount namespace)"
fi

expect_status 0 "clean with 2 ranks" mpi 2 "$PFSREAD" clean "$cfg"
contains "clean src: in place: removed pfsread's description and manifest" "clean says what it removed"
test ! -e "$root/twin" && test ! -e "$root/src"
ok_status $? "clean removed the twin and the in-place data set's own files"
listing >"$SCRATCH/after"
if cmp -s "$SCRATCH/before" "$SCRATCH/after"; then
	pass "the tree (paths, types, sizes, modes, mtimes, ctimes) is as before generate, run, clean"
else
	fail "the tree is as before generate, run, clean"
	diff "$SCRATCH/before" "$SCRATCH/after" | sed 's/^/#   /' | head -n 20
fi

# the twin is an ordinary generated data set: a changed tree is other parameters
check "generate again" mpi 2 "$PFSREAD" generate "$cfg"
head -c 5 /dev/urandom >"$tree/new.c"
expect_status 2 "a changed tree: generate refuses the old twin" mpi 2 "$PFSREAD" generate "$cfg"
contains "other parameters" "the message says other parameters"
rm "$tree/new.c"
check "clean" mpi 1 "$PFSREAD" clean "$cfg"

# in place, nothing of the data is pfsread's: a changed tree is described again
sed '/name: twin/d' "$cfg" >"$SCRATCH/inplace.yaml"
check "in place alone: generate" mpi 2 "$PFSREAD" generate "$SCRATCH/inplace.yaml"
head -c 4097 /dev/urandom >"$tree/new.c"
expect_status 0 "a changed tree: generate describes it again" \
	mpi 2 "$PFSREAD" generate "$SCRATCH/inplace.yaml"
contains "changed since it was described (40 files then, 41 now): described again" \
	"generate says the tree changed and how"
expect_status 0 "run in place on the changed tree" \
	mpi 2 "$PFSREAD" run "$SCRATCH/inplace.yaml" -o "$SCRATCH/inplace.h5"
check "h5py: the new file is read too" "$PYTHON" "$CHECK_H5" "$SCRATCH/inplace.h5" \
	"{\"datasets\": {\"src\": {\"nfiles\": 41, \"bytes\": $((bytes + 4097)), \"dir\": \"$root/src\"}}}"
rm "$tree/new.c"
check "clean" mpi 1 "$PFSREAD" clean "$SCRATCH/inplace.yaml"

# the small-vs-large question of a real tree: the tree in place against its one-file twin
sed -e '/name: twin/d' -e 's/in_place: true}/in_place: true, twin: true}/' "$cfg" >"$SCRATCH/onefile.yaml"
expect_status 0 "twin: true of a tree: plan" "$PFSREAD" plan "$SCRATCH/onefile.yaml" --ranks 2 --nodes 1
contains "data set src-onefile: 1 file," "plan lists src-onefile"
check "twin: true of a tree: generate" mpi 2 "$PFSREAD" generate "$SCRATCH/onefile.yaml"
test "$(stat -c %s "$root/src-onefile/d000000/f0000000000")" -eq "$bytes"
ok_status $? "the one-file twin holds the tree's $bytes B"
expect_status 0 "twin: true of a tree: run" mpi 2 "$PFSREAD" run "$SCRATCH/onefile.yaml" -o "$SCRATCH/onefile.h5"
expect_status 0 "twin: true of a tree: report" "$PFSREAD" report "$SCRATCH/onefile.h5"
contains "src: 40 files of mean" "the report gives the tree's small/large ratio"
check "twin: true of a tree: clean" mpi 2 "$PFSREAD" clean "$SCRATCH/onefile.yaml"
test ! -e "$root/src-onefile" && test ! -e "$root/src"
ok_status $? "clean removed the one-file twin and the description"

# bad input: exit 2, file:line:col and the key, nothing written
bad="$SCRATCH/bad.yaml"
bad_tree() { # WHAT WANT_TEXT YAML_DATASET_LINE
	printf 'root: %s\ndatasets:\n  - %s\n' "$SCRATCH/baddata" "$3" >"$bad"
	expect_status 2 "$1: plan exits 2" "$PFSREAD" plan "$bad" --ranks 1 --nodes 1
	contains "$bad:3:" "$1: file:line"
	contains "$2" "$1: says why"
	expect_status 2 "$1: generate exits 2" mpi 1 "$PFSREAD" generate "$bad"
	test ! -e "$SCRATCH/baddata/t"
	ok_status $? "$1: nothing written"
}
bad_tree "a missing tree" "key 'datasets[0].from_tree': '$SCRATCH/nowhere': No such file" \
	"{name: t, from_tree: $SCRATCH/nowhere}"
mkdir -p "$SCRATCH/empty/sub"
ln -s "$tree/src" "$SCRATCH/empty/link"
bad_tree "a tree without files" "holds no regular file (1 symbolic links" \
	"{name: t, from_tree: $SCRATCH/empty}"
bad_tree "a file, not a directory" "is not a directory" "{name: t, from_tree: $tree/src/app/file 29.c}"
bad_tree "in_place without from_tree" "key 'datasets[0].in_place': needs from_tree" \
	"{name: t, file_size: 1KiB, file_count: 2, in_place: true}"
bad_tree "from_tree with file_size" "key 'datasets[0].file_size': not allowed with from_tree" \
	"{name: t, from_tree: $tree, file_size: 1KiB}"
printf 'root: %s/data\ndatasets:\n  - {name: t, from_tree: %s, in_place: true}\n' "$tree" "$tree" >"$bad"
expect_status 2 "a root inside the tree is refused" "$PFSREAD" plan "$bad" --ranks 1 --nodes 1
contains "lies inside the tree" "it says the root lies inside the tree"
test ! -e "$tree/data"
ok_status $? "nothing made inside the tree"

if [ -d /usr/include ]; then
	check "configs/tree.yaml plans" "$PFSREAD" plan configs/tree.yaml --ranks 2 --nodes 1
else
	pass "# SKIP configs/tree.yaml: no /usr/include"
fi

done_testing
