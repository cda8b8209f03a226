#!/bin/sh
# target: each file row names the storage target that holds the file (schema 5: the
# /phases/NNNN/targets table and the rows' target index), against what is true. On an ext4 of
# the test's own (a loop image on a capped tmpfs) every row names this host's loop device. Through
# a FUSE view of the same files (faultfs) that answers trusted.glusterfs.pathinfo as a GlusterFS
# client does, half the files on one brick and half on another, each row names its brick. When
# every getxattr hangs (a server that does not answer), the run still ends, bounded, and the rows
# say "unknown: timeout".
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root to mount an ext4 image"
command -v mkfs.ext4 >/dev/null 2>&1 || skip_all "no mkfs.ext4 (e2fsprogs)"
command -v findmnt >/dev/null 2>&1 || skip_all "no findmnt"
"$PYTHON" -c 'import h5py' 2>/dev/null || skip_all "python3 with h5py is not installed"
M="$SCRATCH/m"
capped_mount "$M" 64m 100 || skip_all "cannot mount a tmpfs"
disk="$SCRATCH/disk"
mkdir -p "$disk"
truncate -s 32m "$M/ext4.img" && mkfs.ext4 -q -F -m 0 "$M/ext4.img" &&
	mount -o loop "$M/ext4.img" "$disk" || skip_all "cannot mount an ext4 loop image"
LIB_MOUNTS="$disk $LIB_MOUNTS" # unmounted first; the loop device goes with it (autoclear)
loopdev=$(findmnt -no SOURCE "$disk")
host=$(hostname)

cat >"$SCRATCH/p.yaml" <<YAML
root: $disk/data
datasets: [{name: d, file_size: 64KiB, file_count: 8}]
sweep: {backend: [posix], transfer_size: [64KiB]}
repetitions: 2
YAML
check "generate 8 files on the ext4" mpi 2 "$PFSREAD" generate "$SCRATCH/p.yaml"
check "run them with 2 ranks" mpi 2 "$PFSREAD" run "$SCRATCH/p.yaml" -o "$SCRATCH/local.h5"

# targets.py FILE WANT: every row of every phase names a target; WANT is the one target
# ("=NAME"), or "bricks" (the FUSE view: the brick pathinfo says for that file, by its index)
targets='
import h5py, sys
f = h5py.File(sys.argv[1], "r")
want = sys.argv[2]
assert int(f.attrs["schema_version"]) >= 5, f.attrs["schema_version"]
for n in sorted(f["phases"]):
    p = f["phases"][n]
    names = [t.decode() for t in p["targets"][:]]
    assert names[0] == "not looked up", names
    rows = p["files"][:]
    assert len(rows) == 8, len(rows)
    got = [names[t] for t in rows["target"]]
    if want.startswith("="):
        assert set(got) == {want[1:]}, (got, want)
    else:
        for r, g in zip(rows, got):
            b = "srv%d:/bricks/b%d" % (r["file"] % 2, r["file"] % 2)
            assert g == b + ",mirror:/bricks/m", (r["file"], g, b)
    print("# phase %s: %s" % (n, sorted(set(got))))
'
check "each row names this host's loop device ($host:$loopdev)" "$PYTHON" -c "$targets" \
	"$SCRATCH/local.h5" "=$host:$loopdev"
check "the h5py checker takes the new column and table" "$PYTHON" "$CHECK_H5" "$SCRATCH/local.h5" \
	'{"phases": 2, "nranks": 2, "status": "complete"}'

faultfs_build || true
if [ -z "$FAULTFS" ]; then
	for i in 1 2 3 4 5; do pass "# SKIP $FAULTFS_WHY"; done
	done_testing
fi
# pathinfo as a GlusterFS client gives it: file k on brick k % 2, replicated on a mirror
(cd "$disk/data" && find . -type f -name '*[0-9]') | sed 's|^\./||' | while read -r rel; do
	k=$(echo "$rel" | sed -e 's/.*[^0-9]\([0-9][0-9]*\)$/\1/' -e 's/^0*//')
	k=$((${k:-0} % 2))
	echo "$rel pathinfo (<REPLICATE:v-replicate-0> <POSIX(/bricks/b$k):srv$k:/bricks/b$k/$rel> <POSIX(/bricks/m):mirror:/bricks/m/$rel>)"
done >"$SCRATCH/rules"
mkdir -p "$SCRATCH/fuse"
# in the foreground of a background job, so that the test can end it by its pid
"$FAULTFS" "$disk/data" "$SCRATCH/rules" "$SCRATCH/fuse" -f -o ro >/dev/null 2>&1 &
fs=$!
trap 'kill $fs 2>/dev/null; lib_cleanup' EXIT
i=0
until mountpoint -q "$SCRATCH/fuse" || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
mountpoint -q "$SCRATCH/fuse" || skip_all "cannot mount faultfs"
LIB_MOUNTS="$SCRATCH/fuse $LIB_MOUNTS"
sed "s|root: $disk/data|root: $SCRATCH/fuse|" "$SCRATCH/p.yaml" >"$SCRATCH/fuse.yaml"
check "run through a FUSE view that answers pathinfo" mpi 2 "$PFSREAD" run "$SCRATCH/fuse.yaml" \
	-o "$SCRATCH/fuse.h5"
check "each row names its brick (and the replica beside it)" "$PYTHON" -c "$targets" \
	"$SCRATCH/fuse.h5" bricks
expect_status 0 "report of it" "$PFSREAD" report --wide "$SCRATCH/fuse.h5"
contains "srv1:/bricks/b1,mirror:/bricks/m" "the targets table names each brick set"
contains "who is slow (a node: beyond 1.2x" "the verdict on who is slow"
expect_status 0 "report --format json" "$PFSREAD" report "$SCRATCH/fuse.h5" --format json
check "json: both brick sets with 8 files each, and a verdict" "$PYTHON" -c '
import json, sys
run = json.loads(sys.argv[1])["runs"][0]
got = {t["target"]: t["files"] for t in run["targets"]}
assert got == {"srv0:/bricks/b0,mirror:/bricks/m": 8, "srv1:/bricks/b1,mirror:/bricks/m": 8}, got
assert run["attribution"]["verdict"], run["attribution"]
' "$OUT"
expect_status 0 "report --format markdown" "$PFSREAD" report "$SCRATCH/fuse.h5" --format markdown
contains "| srv0:/bricks/b0,mirror:/bricks/m |" "markdown: a row per target"
expect_status 0 "report --format csv --per-file" "$PFSREAD" report "$SCRATCH/fuse.h5" --format csv \
	--per-file
contains ",\"srv0:/bricks/b0,mirror:/bricks/m\"" "per-file csv: each row's target (quoted: it holds a comma)"
if command -v gnuplot >/dev/null 2>&1; then
	check "report --html" "$PFSREAD" report "$SCRATCH/fuse.h5" --html "$SCRATCH/page.html"
	OUT=$(cat "$SCRATCH/page.html" 2>/dev/null)
	contains "who is slow (a node: beyond 1.2x" "html: the verdict"
else
	pass "# SKIP no gnuplot for --html"
	pass "# SKIP no gnuplot for --html"
fi

# every getxattr hangs for 60 s: one lookup per rank waits TARGET_LOOKUP_S, the others are
# not asked; the run ends long before the hung getxattr would
echo "* getxattr 60" >"$SCRATCH/rules"
start=$(date +%s)
check "run through a FUSE view whose getxattr hangs" mpi 2 "$PFSREAD" run "$SCRATCH/fuse.yaml" \
	-o "$SCRATCH/hung.h5"
took=$(($(date +%s) - start))
[ "$took" -lt 50 ]
ok_status $? "it ended in $took s, before the hung getxattr (60 s) would have"
check "each row says unknown: timeout" "$PYTHON" -c "$targets" "$SCRATCH/hung.h5" \
	"=unknown: timeout"
: >"$SCRATCH/rules"
# the lookup processes given up still wait in the hung getxattr: killing the daemon ends its
# connection, and them with it, now rather than when the hang would
kill -KILL $fs 2>/dev/null
wait $fs 2>/dev/null
umount "$SCRATCH/fuse" 2>/dev/null || umount -l "$SCRATCH/fuse"
done_testing
