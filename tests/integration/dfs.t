#!/bin/sh
# dfs: the same small study on local disk, GlusterFS (two bricks) and MooseFS, each started
# here on loopback, then one comparison report of all three; the file system types recorded
# must be right. Root only (daemons, mounts); installs the packages it needs.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root to start GlusterFS and MooseFS"
"$TOP/tests/install-deps.sh" glusterfs-server moosefs-master moosefs-chunkserver \
	moosefs-client moosefs-cli >"$SCRATCH/apt.log" 2>&1 ||
	skip_all "cannot install GlusterFS and MooseFS: $(tail -n 1 "$SCRATCH/apt.log")"
[ -e /dev/fuse ] || skip_all "no /dev/fuse"

chmod 755 "$SCRATCH" # the mfs user runs the MooseFS daemons and must reach their files
H=$(hostname)
IP=$(hostname -I | awk '{print $1}')
GV=pfsread$$
GMNT="$SCRATCH/gv"
MMNT="$SCRATCH/mfs"
MFSDIR="$SCRATCH/mfsdata"

stop_all() {
	umount -l "$GMNT" 2>/dev/null
	umount -l "$MMNT" 2>/dev/null
	gluster --mode=script volume stop "$GV" force >/dev/null 2>&1
	gluster --mode=script volume delete "$GV" >/dev/null 2>&1
	[ -n "${GPID:-}" ] && kill "$GPID" 2>/dev/null
	pkill -f "glusterfsd.*$GV" 2>/dev/null
	mfschunkserver -c "$MFSDIR/chunkserver.cfg" stop >/dev/null 2>&1
	mfsmaster -c "$MFSDIR/master.cfg" stop >/dev/null 2>&1
	rm -rf "$SCRATCH"
}
trap stop_all EXIT

start_gluster() {
	if ! pgrep -x glusterd >/dev/null; then
		/usr/sbin/glusterd -p "$SCRATCH/glusterd.pid" || return 1
		GPID=$(cat "$SCRATCH/glusterd.pid")
	fi
	mkdir -p "$SCRATCH/b1" "$SCRATCH/b2" "$GMNT"
	i=0
	until gluster --mode=script volume create "$GV" transport tcp "$H:$SCRATCH/b1" \
		"$H:$SCRATCH/b2" force >/dev/null 2>&1; do
		i=$((i + 1))
		[ "$i" -gt 20 ] && return 1
		sleep 0.5
	done
	gluster --mode=script volume start "$GV" >/dev/null &&
		mount -t glusterfs "$H:/$GV" "$GMNT" && mountpoint -q "$GMNT"
}

start_moosefs() {
	mkdir -p "$MFSDIR/meta" "$MFSDIR/chunks" "$MMNT"
	cp /var/lib/mfs/metadata.mfs.empty "$MFSDIR/meta/metadata.mfs" 2>/dev/null ||
		cp /usr/share/mfs/metadata.mfs.empty "$MFSDIR/meta/metadata.mfs" || return 1
	chown -R mfs: "$MFSDIR" 2>/dev/null
	printf "DATA_PATH = %s/meta\nEXPORTS_FILENAME = %s/exports.cfg\n" "$MFSDIR" "$MFSDIR" >"$MFSDIR/master.cfg"
	printf "*\t/\trw,alldirs,admin,maproot=0:0\n" >"$MFSDIR/exports.cfg"
	echo "$MFSDIR/chunks" >"$MFSDIR/hdd.cfg"
	printf "DATA_PATH = %s/meta\nMASTER_HOST = %s\nHDD_CONF_FILENAME = %s/hdd.cfg\n" \
		"$MFSDIR" "$IP" "$MFSDIR" >"$MFSDIR/chunkserver.cfg"
	mfsmaster -c "$MFSDIR/master.cfg" start >/dev/null 2>&1 &&
		mfschunkserver -c "$MFSDIR/chunkserver.cfg" start >/dev/null 2>&1 &&
		mfsmount "$MMNT" -H 127.0.0.1 >/dev/null 2>&1 && mountpoint -q "$MMNT" || return 1
	i=0 # the chunkserver registers within a few seconds; until then writes fail
	until [ "$(df -P "$MMNT" | awk 'NR==2 {print $2}')" -gt 0 ]; do
		i=$((i + 1))
		[ "$i" -gt 60 ] && return 1
		sleep 0.5
	done
	mfssetgoal -r 1 "$MMNT" >/dev/null 2>&1
	return 0
}

check "GlusterFS: two bricks on loopback, mounted" start_gluster
check "MooseFS: master and chunkserver on loopback, mounted" start_moosefs

# one study, three roots
study() {
	{
		echo "name: $1"
		echo "root: $2"
		echo "layout: {files_per_dir: 16}"
		echo "datasets:"
		echo "  - {name: 4MiB, file_size: 4MiB, total_size: 64MiB}"
		echo "  - {name: 256KiB, file_size: 256KiB, total_size: 8MiB}"
		echo "sweep: {readers_per_node: [1, 2], transfer_size: [1MiB]}"
		echo "cache: drop"
	} >"$SCRATCH/$1.yaml"
}
mkdir -p "$SCRATCH/localdisk"
study local "$SCRATCH/localdisk"
study glusterfs "$GMNT/pfsread"
study moosefs "$MMNT/pfsread"
for fs in local glusterfs moosefs; do
	check "$fs: generate" mpi 2 "$PFSREAD" generate "$SCRATCH/$fs.yaml"
	check "$fs: run" mpi 2 "$PFSREAD" run "$SCRATCH/$fs.yaml" -o "$SCRATCH/$fs.h5"
	check "$fs: every file read once, bytes right" "$PYTHON" "$CHECK_H5" "$SCRATCH/$fs.h5" \
		'{"phases": 4, "status": "complete"}'
done
check "the file system types recorded are right" "$PYTHON" -c '
import h5py, sys
want = {"local": ("ext", "xfs", "btrfs", "tmpfs", "overlay"), "glusterfs": ("glusterfs",), "moosefs": ("mfs", "moosefs")}
for fs, names in want.items():
    env = h5py.File(sys.argv[1] + "/" + fs + ".h5", "r")["environment"].attrs
    got = env["fs_type"]
    assert any(n in got for n in names), (fs, got, env["fs_mount_type"])
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
