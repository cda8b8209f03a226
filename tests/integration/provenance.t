#!/bin/sh
# provenance: where the bytes came from, by the kernel's counters, against what is true. On an
# ext4 of the test's own (a loop image on a capped tmpfs): read cold (cache: fadvise), every
# read path's phase says "storage" (read_bytes = the bytes read); read again with cache: none
# (the data in the page cache), posix, mmap, uring and mpiio say "cache" and the report says the
# phase measured memory, while direct still says "storage" (O_DIRECT goes past the cache); a
# comparison of the two runs says it compares the cache with storage. Through a FUSE view of the
# same files (faultfs), whose daemon reads for us, the verdict is "unknown" with the reason.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root to mount an ext4 image"
[ -r /proc/self/io ] || skip_all "no /proc/self/io here"
command -v mkfs.ext4 >/dev/null 2>&1 || skip_all "no mkfs.ext4 (e2fsprogs)"
"$PYTHON" -c 'import h5py' 2>/dev/null || skip_all "python3 with h5py is not installed"
M="$SCRATCH/m"
capped_mount "$M" 64m 100 || skip_all "cannot mount a tmpfs"
disk="$SCRATCH/disk"
mkdir -p "$disk"
truncate -s 48m "$M/ext4.img" && mkfs.ext4 -q -F -m 0 "$M/ext4.img" &&
	mount -o loop "$M/ext4.img" "$disk" || skip_all "cannot mount an ext4 loop image"
LIB_MOUNTS="$disk $LIB_MOUNTS" # unmounted first; the loop device goes with it (autoclear)

cat >"$SCRATCH/cold.yaml" <<YAML
root: $disk/data
datasets: [{name: d, file_size: 2MiB, file_count: 8}]
sweep: {backend: [posix, direct, mmap, uring, mpiio], transfer_size: [1MiB]}
cache: fadvise
YAML
sed 's/^cache: fadvise/cache: none/' "$SCRATCH/cold.yaml" >"$SCRATCH/warm.yaml"
check "generate 8 files of 2 MiB on the ext4" mpi 2 "$PFSREAD" generate "$SCRATCH/cold.yaml"
check "run cold (cache: fadvise), every read path" mpi 2 "$PFSREAD" run "$SCRATCH/cold.yaml" \
	-o "$SCRATCH/cold.h5"
check "run again with cache: none" mpi 2 "$PFSREAD" run "$SCRATCH/warm.yaml" -o "$SCRATCH/warm.h5"

verdicts='
import h5py, sys
f = h5py.File(sys.argv[1], "r")
want = dict(a.split("=") for a in sys.argv[2:])
for n in sorted(f["phases"]):
    p = f["phases"][n]
    b = p.attrs["backend"].decode() if isinstance(p.attrs["backend"], bytes) else p.attrs["backend"]
    prov = p.attrs["provenance"]
    prov = prov.decode() if isinstance(prov, bytes) else prov
    assert prov == "read_bytes", prov
    r = p["ranks"][:]
    assert all(r["counted"] == 1), r["counted"]
    got = int(r["storage_read_bytes"].sum())
    total = int(p.attrs["bytes"])
    if want[b] == "storage":
        assert got >= 0.9 * total, (b, got, total)
    else:
        assert got <= 0.1 * total, (b, got, total)
    print("# %s: %d of %d bytes from storage" % (b, got, total))
'
check "cold: read_bytes holds every byte read, on every read path" "$PYTHON" -c "$verdicts" \
	"$SCRATCH/cold.h5" posix=storage direct=storage mmap=storage uring=storage mpiio=storage
check "warm: none from storage, but direct's" "$PYTHON" -c "$verdicts" "$SCRATCH/warm.h5" \
	posix=cache direct=storage mmap=cache uring=cache mpiio=cache

expect_status 0 "report of the cold run" "$PFSREAD" report --wide "$SCRATCH/cold.h5"
contains "where the bytes came from (the kernel's counters: read_bytes): storage, in every cell" \
	"the report says so in one line"
expect_status 0 "report of the warm run" "$PFSREAD" report --wide "$SCRATCH/warm.h5"
contains "d x 1 reader/node, posix, cache none: the bytes came from the cache (" \
	"a cached cell is named"
contains "% from storage by the kernel's counters: read_bytes): this measures memory, not storage" \
	"with the counter and what it measured"
case "$OUT" in *"direct, cache none: the bytes came from"*) fail "direct is not named" ;; *) pass "direct is not named" ;; esac
expect_status 0 "report --format json" "$PFSREAD" report "$SCRATCH/warm.h5" --format json
check "json: a verdict per phase and per cell" "$PYTHON" -c '
import json, sys
run = json.loads(sys.argv[1])["runs"][0]
by = {p["backend"]: p["bytes_from"] for p in run["phases"]}
assert by == {"posix": "cache", "direct": "storage", "mmap": "cache", "uring": "cache",
              "mpiio": "cache"}, by
assert {c["backend"]: c["bytes_from"] for c in run["cells"]} == by
' "$OUT"
expect_status 0 "report --format csv" "$PFSREAD" report "$SCRATCH/warm.h5" --format csv
contains ",bytes_from,from_storage_fraction" "csv has the columns"
expect_status 0 "compare the cold run with the warm one" "$PFSREAD" report --wide "$SCRATCH/cold.h5" "$SCRATCH/warm.h5"
contains "backend posix, " "the comparison names the cell"
contains "a's bytes came from storage, b's from the page cache: the ratio compares storage with the page cache, not two file systems" \
	"and says what it compares"

# The same files through a FUSE daemon: our read_bytes say nothing of its reads
faultfs_build || true
if [ -n "$FAULTFS" ] && mkdir -p "$SCRATCH/fuse" && : >"$SCRATCH/rules" &&
	"$FAULTFS" "$disk/data" "$SCRATCH/rules" "$SCRATCH/fuse" -o ro; then
	LIB_MOUNTS="$SCRATCH/fuse $LIB_MOUNTS"
	sed -e "s|root: $disk/data|root: $SCRATCH/fuse|" -e 's/backend: \[.*\]/backend: [posix]/' \
		"$SCRATCH/cold.yaml" >"$SCRATCH/fuse.yaml"
	check "run through the FUSE view" mpi 2 "$PFSREAD" run "$SCRATCH/fuse.yaml" -o "$SCRATCH/fuse.h5"
	expect_status 0 "report of it" "$PFSREAD" report --wide "$SCRATCH/fuse.h5"
	contains "where the bytes came from is unknown (unknown: fuse" "unknown, with the reason"
	umount "$SCRATCH/fuse"
else
	fail "# SKIP no FUSE here"
	fail "# SKIP no FUSE here"
	fail "# SKIP no FUSE here"
fi
done_testing
