#!/bin/sh
# dfs: the same small study on local disk, GlusterFS (two bricks) and MooseFS, each file system
# started in a cluster in a box (tests/box/box.sh: its own namespaces, bricks on loop devices on
# a capped tmpfs, every daemon ended by its pid on exit), then one comparison report of all
# three; the file system types recorded must be right. Root only; installs the packages it needs.
. "$(dirname "$0")/../box/boxlib.sh"

box_require

# one study, three roots
study() {
	{
		echo "name: $1"
		echo "root: $2"
		echo "results: $SCRATCH/$1.h5"
		echo "layout: {files_per_dir: 16}"
		echo "datasets:"
		echo "  - {name: 4MiB, file_size: 4MiB, total_size: 64MiB}"
		echo "  - {name: 256KiB, file_size: 256KiB, total_size: 8MiB}"
		echo "sweep: {readers_per_node: [1, 2], transfer_size: [1MiB]}"
		echo "cache: drop"
	} >"$SCRATCH/$1.yaml"
}
# on_fs FS RUN...: RUN the study on FS: "local" here, else in a box of one node, 2 ranks
on_fs() {
	fs=$1
	shift
	if [ "$fs" = local ]; then mpi 2 "$@"; else bmpi n1 2 "$@"; fi
}

mkdir -p "$SCRATCH/localdisk"
study local "$SCRATCH/localdisk"
study glusterfs /box/fs/pfsread
study moosefs /box/fs/pfsread
# skip DESC...: each check that cannot run, skipped with the reason
skip() {
	why=$1
	shift
	for d in "$@"; do pass "$d # SKIP $why"; done
}
# a file system that cannot start fails once, with the cause box.sh names (BOX_WHY); the
# checks that need it are skipped for that reason, the other file systems go on
RAN=""
for fs in local glusterfs moosefs; do
	case "$fs" in
	glusterfs) box_up --nodes 1 --link-mbit 10000 --fs glusterfs --bricks 2 ;;
	moosefs) box_up --nodes 1 --link-mbit 10000 --fs moosefs ;;
	esac
	if [ $? -ne 0 ]; then
		fail "$fs: ready: $BOX_WHY"
		skip "$fs did not start" "$fs: generate" "$fs: run" "$fs: every file read once, bytes right" \
			"$fs: the box tears down to nothing"
		continue
	fi
	pass "$fs: ready"
	check "$fs: generate" on_fs "$fs" "$PFSREAD" generate "$SCRATCH/$fs.yaml"
	check "$fs: run" on_fs "$fs" "$PFSREAD" run "$SCRATCH/$fs.yaml"
	check "$fs: every file read once, bytes right" "$PYTHON" "$CHECK_H5" "$SCRATCH/$fs.h5" \
		'{"phases": 4, "status": "complete"}' && RAN="$RAN $fs"
	[ "$fs" = local ] || box_down_clean "$fs: the box tears down to nothing"
done
if [ "$RAN" != " local glusterfs moosefs" ]; then
	skip "needs all three runs, these completed:${RAN:- none}" \
		"the file system types recorded are right" "where the bytes came from" \
		"one comparison report of the three" "the report names GlusterFS" "the report names MooseFS" \
		"the comparison as csv" "csv: cells of all three runs"
	done_testing
fi
check "the file system types recorded are right" "$PYTHON" -c '
import h5py, sys
want = {"local": ("ext", "xfs", "btrfs", "tmpfs", "overlay"), "glusterfs": ("glusterfs",), "moosefs": ("mfs", "moosefs")}
for fs, names in want.items():
    env = h5py.File(sys.argv[1] + "/" + fs + ".h5", "r")["environment"].attrs
    got = env["fs_type"]
    assert any(n in got for n in names), (fs, got, env["fs_mount_type"])
' "$SCRATCH"
check "where the bytes came from: each run counts its file system's evidence, and every phase (cache: drop) read from storage" "$PYTHON" -c '
import h5py, sys
for fs, kind in (("local", "read_bytes"), ("glusterfs", "net rx of "), ("moosefs", "net rx of ")):
    f = h5py.File(sys.argv[1] + "/" + fs + ".h5", "r")
    for n in sorted(f["phases"]):
        p = f["phases"][n]
        prov = p.attrs["provenance"]
        prov = prov.decode() if isinstance(prov, bytes) else prov
        assert prov.startswith(kind), (fs, n, prov)
        r = p["ranks"][:]
        assert all(r["counted"] == 1), (fs, n, r["counted"])
        got = int((r["storage_read_bytes"] if kind == "read_bytes" else r["net_rx_bytes"]).sum())
        total = int(p.attrs["bytes"])
        assert 0.9 * total <= got, (fs, n, prov, got, total)
        print("# %s phase %s: %d of %d bytes counted by %s" % (fs, n, got, total, prov))
' "$SCRATCH"
expect_status 0 "one comparison report of the three" "$PFSREAD" report "$SCRATCH/local.h5" \
	"$SCRATCH/glusterfs.h5" "$SCRATCH/moosefs.h5"
contains "glusterfs" "the report names GlusterFS"
contains "mfs" "the report names MooseFS"
expect_status 0 "the comparison as csv" "$PFSREAD" report "$SCRATCH/local.h5" "$SCRATCH/glusterfs.h5" \
	"$SCRATCH/moosefs.h5" --format csv
printf '%s\n' "$OUT" >"$SCRATCH/cmp.csv"
check "csv: cells of all three runs" "$PYTHON" -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
files = {r["file"] for r in rows}
assert len(files) == 3, files
' "$SCRATCH/cmp.csv"
done_testing
