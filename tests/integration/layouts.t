#!/bin/sh
# layouts: per data set layouts. A hashed data set (lognormal small sizes, 3 levels of 2 hex
# digits, sha1) made by 2 ranks: every file is named by the sha1 of its content (sha1sum from
# coreutils), directories are 3 deep and 2 wide, the name list holds every name; verify passes;
# run in sorted and random order with 1 and 2 ranks passes the h5py checker and sorted reads
# go by name; a generate killed with -9 resumes to a data set that verifies; clean with a planted
# symbolic link leaves its target untouched. A flat data set likewise (smaller). A changed
# layout is "other parameters". configs/corpus.yaml planned and run at a small scale.
. "$(dirname "$0")/lib.sh"

root="$SCRATCH/data"
cfg="$SCRATCH/layouts.yaml"
write_config() { # FILES WIDTH
	cat >"$cfg" <<YAML
name: layouts
root: $root
results: $SCRATCH/results/{name}-{jobid}.h5
seed: 5
cache: none
verify: true
datasets:
  - name: hashed
    sizes: {distribution: lognormal, median: 2KiB, sigma: 1.5, min: 7B, max: 256KiB}
    file_count: $1
    layout: {kind: hashed, depth: 3, width: $2, digest: sha1}
  - {name: flat, file_size: 3000, file_count: 30, layout: {kind: flat}}
sweep: {readers_per_node: [1], order: [sorted, random], transfer_size: [64KiB]}
YAML
}
write_config 200 2

expect_status 0 "plan a hashed data set" "$PFSREAD" plan "$cfg" --ranks 2 --nodes 1
contains "layout hashed: named by the sha1 of their content, 3 levels of 2 hex digits" \
	"plan describes the hashed layout"
hashed_bytes=$(printf '%s\n' "$OUT" | sed -n 's/^data set hashed: 200 files, .* (\([0-9]*\) B).*/\1/p')

check "generate with 2 ranks" mpi 2 "$PFSREAD" generate "$cfg"
files=$(cd "$root/hashed" && find . -type f ! -name '.pfsread-*' | sort)
test "$(printf '%s\n' "$files" | wc -l)" -eq 200
ok_status $? "200 files under the hashed data set"
(cd "$root/hashed" && find . -type f ! -name '.pfsread-*' -exec sha1sum {} +) |
	awk '{n = split($2, p, "/"); if (p[n] != $1) bad = 1} END {exit bad}'
ok_status $? "every file's name is the sha1 of its content (sha1sum)"
printf '%s\n' "$files" | awk -F/ '{
	if (NF != 5 || length($2) != 2 || length($3) != 2 || length($4) != 2) bad = 1
	if (substr($5, 1, 6) != $2 $3 $4) bad = 1
} END {exit bad}'
ok_status $? "every file is at ./xx/xx/xx/NAME, the levels its name's first 2-digit groups"
list="$root/hashed/.pfsread-digests-sha1"
test "$(wc -l <"$list")" -eq 200 && test "$(wc -c <"$list")" -eq $((200 * 41))
ok_status $? "the name list (the sha1 list) has one 40-digit line per file"
test "$(sort "$list")" = "$(printf '%s\n' "$files" | awk -F/ '{print $5}' | sort)"
ok_status $? "the name list holds exactly the names on disk"
grep -qx "layout hashed 3 2 sha1" "$root/hashed/.pfsread-manifest"
ok_status $? "the manifest records the layout"
disk=$(printf '%s\n' "$files" | (cd "$root/hashed" && xargs stat -c %s) | awk '{s += $1} END {print s}')
test "$disk" = "$hashed_bytes"
ok_status $? "the bytes on disk are what plan said ($disk)"
test "$(find "$root/flat" -maxdepth 1 -type f -name 'f*' | wc -l)" -eq 30 &&
	test "$(find "$root/flat" -mindepth 1 -type d | wc -l)" -eq 0 && test -f "$root/flat/f0000000029"
ok_status $? "the flat data set's 30 files lie directly in its directory"
check "verify" mpi 2 "$PFSREAD" verify "$cfg"

order_check='
import h5py, sys
f = h5py.File(sys.argv[1], "r")
names = open(sys.argv[2]).read().split()
for _, g in f["phases"].items():
    if g.attrs["dataset"] != "hashed" or g.attrs["order"] != "sorted":
        continue
    rows = g["files"][:]
    for r in set(rows["rank"]):
        mine = sorted(rows[rows["rank"] == r], key=lambda x: x["open_start"])
        got = [names[int(x["file"])] for x in mine]
        assert got == sorted(got), "rank %d did not read in name order" % r
print("ok")
'
for np in 1 2; do
	expect_status 0 "run sorted and random, $np rank(s)" mpi "$np" "$PFSREAD" run "$cfg" -o "$SCRATCH/r$np.h5"
	check "np=$np: h5py checker (sizes through the name list)" "$PYTHON" "$CHECK_H5" "$SCRATCH/r$np.h5" \
		"{\"phases\": 4, \"nranks\": $np, \"status\": \"complete\", \"datasets\": {
		  \"hashed\": {\"nfiles\": 200, \"bytes\": $hashed_bytes, \"dir\": \"$root/hashed\"},
		  \"flat\": {\"nfiles\": 30, \"bytes\": 90000, \"dir\": \"$root/flat\"}}}"
	check "np=$np: sorted reads of the hashed data set go by file name" \
		"$PYTHON" -c "$order_check" "$SCRATCH/r$np.h5" "$list"
done

write_config 200 1
expect_status 2 "a changed width is another data set" mpi 1 "$PFSREAD" generate "$cfg"
contains "made with other parameters" "and generate says so"
write_config 200 2

# a planted symbolic link: a level directory replaced by a link to files that must survive
precious="$SCRATCH/precious"
mkdir -p "$precious"
victim=$(printf '%s\n' "$files" | head -n 1)
lvl1=$(printf '%s\n' "$victim" | cut -d/ -f2)
cp -r "$root/hashed/$lvl1/." "$precious/"
rm -rf "$root/hashed/$lvl1" && ln -s "$precious" "$root/hashed/$lvl1"
before=$(cd "$precious" && find . -type f | sort | xargs sha1sum)
echo mine >"$SCRATCH/notes.txt"
mkdir -p "$root/hashed/ff/ff" && cp "$SCRATCH/notes.txt" "$root/hashed/ff/ff/notes.txt"
expect_status 0 "clean with a planted symbolic link" mpi 2 "$PFSREAD" clean "$cfg"
contains "not followed" "clean says it did not follow the link"
after=$(cd "$precious" && find . -type f | sort | xargs sha1sum)
test -n "$before" && test "$before" = "$after"
ok_status $? "no file behind the link was touched"
test -f "$root/hashed/ff/ff/notes.txt" && test -L "$root/hashed/$lvl1" &&
	test "$(find "$root/hashed" -type f | wc -l)" -eq 1
ok_status $? "a file clean did not make is kept with its directories, the link stays, the rest is gone"
test ! -e "$list" && test ! -e "$root/hashed/.pfsread-manifest" && test ! -e "$root/flat"
ok_status $? "the name list and the manifest are gone; the flat data set is gone entirely"
rm -rf "${root:?}/hashed"

# interrupted generate: kill -9 while it writes, then resume
write_config 400 2
sed -i 's/max: 256KiB/max: 4MiB/; s/median: 2KiB/median: 256KiB/' "$cfg"
# Every write is made 10 ms slow (slow.c through LD_PRELOAD), so that the 400 files take
# seconds and the kill lands among them on a fast machine as on a loaded one.
check "build the slow-call shim" cc -shared -fPIC -O2 -o "$SCRATCH/slow.so" tests/integration/slow.c -ldl
LD_PRELOAD="$SCRATCH/slow.so" PFSREAD_SLOW="pwrite:10" mpi 2 "$PFSREAD" generate "$cfg" >/dev/null 2>&1 &
pid=$!
i=0
while [ "$i" -lt 1200 ] && [ "$(find "$root/hashed" -type f ! -name '.*' 2>/dev/null | wc -l)" -lt 40 ]; do
	sleep 0.05
	i=$((i + 1))
done
# the background job: a subshell, timeout, mpirun, the ranks, every one of them
kill_tree "$pid"
made=$(find "$root/hashed" -type f ! -name '.*' ! -name '*.part' | wc -l)
grep -q "complete 0" "$root/hashed/.pfsread-manifest"
ok_status $? "the killed generate left an incomplete manifest ($made of 400 files made)"
# A line is written before its file is renamed into place: no file is left that no line names
# (clean finds files by their lines), whatever instant the kill hit.
(cd "$root/hashed" && find . -type f ! -name '.*' ! -name '*.part' | sed 's,.*/,,' | sort) >"$SCRATCH/present"
tr -d '\000' <"$list" | sort >"$SCRATCH/listed" # lines not written yet are holes: NULs
comm -23 "$SCRATCH/present" "$SCRATCH/listed" >"$SCRATCH/unlisted"
sed 's/^/# unlisted: /' "$SCRATCH/unlisted" | head -3
test ! -s "$SCRATCH/unlisted"
ok_status $? "every file the killed generate renamed into place is in the name list"
check "generate resumes" mpi 2 "$PFSREAD" generate "$cfg"
grep -q "complete 1" "$root/hashed/.pfsread-manifest" && test "$(find "$root" -name '*.part' | wc -l)" -eq 0
ok_status $? "complete, no partial file left"
test "$(find "$root/hashed" -type f ! -name '.pfsread-*' | wc -l)" -eq 400
ok_status $? "400 files, none twice"
check "the resumed data set verifies" mpi 2 "$PFSREAD" verify "$cfg"
(cd "$root/hashed" && find . -type f ! -name '.pfsread-*' -exec sha1sum {} +) |
	awk '{n = split($2, p, "/"); if (p[n] != $1) bad = 1} END {exit bad}'
ok_status $? "every resumed file is named by its sha1"
check "clean" mpi 2 "$PFSREAD" clean "$cfg"
test ! -e "$root/hashed" && test ! -e "$root/flat"
ok_status $? "clean removed both data sets and their directories"

# configs/corpus.yaml at a small scale
cor="$SCRATCH/corpus.yaml"
sed -e "s|^root: .*|root: $SCRATCH/corpus|" -e "s|^results: .*|results: $SCRATCH/results/{name}-{jobid}.h5|" \
	-e 's/file_count: 2000/file_count: 150/' -e 's/max: 8MiB/max: 256KiB/' \
	-e 's/^repetitions: 2/repetitions: 1/' -e 's/^cache: fadvise/cache: none/' configs/corpus.yaml >"$cor"
expect_status 0 "plan configs/corpus.yaml" "$PFSREAD" plan configs/corpus.yaml --ranks 2 --nodes 1
contains "data set corpus: 2000 files" "the corpus as shipped: 2000 files"
contains "layout hashed: named by the sha1 of their content, 3 levels of 2 hex digits" "in the hashed layout"
check "corpus (150 files): generate" mpi 2 "$PFSREAD" generate "$cor"
expect_status 0 "corpus (150 files): run, 2 ranks" mpi 2 "$PFSREAD" run "$cor" -o "$SCRATCH/corpus.h5"
check "corpus: h5py checker" "$PYTHON" "$CHECK_H5" "$SCRATCH/corpus.h5" \
	"{\"phases\": 4, \"status\": \"complete\", \"datasets\": {\"corpus\": {\"nfiles\": 150, \"dir\": \"$SCRATCH/corpus/corpus\"}}}"
check "corpus: clean" mpi 2 "$PFSREAD" clean "$cor"

done_testing
