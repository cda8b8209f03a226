#!/bin/sh
# space: pfsread never fills a file system. generate compares what it will write (bytes in
# whole blocks, files and directories, with a margin) with what the file system has free and
# refuses before creating anything; a resumed data set counts only what is missing; while it
# writes, a guard stops it before the margin is used up by someone else; run checks room for
# its results file, calibrate for its temporary file; space_check: false turns it all off.
# Every write goes to a tmpfs this test mounts with a size and an inode cap (unmounted on exit).
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root to mount a capped tmpfs"
command -v cc >/dev/null 2>&1 || skip_all "needs cc for the slow-call shim"
mnt="$SCRATCH/mnt"
small="$SCRATCH/small"
mkdir -p "$mnt" "$small"
mount -t tmpfs -o size=64m,nr_inodes=5000 tmpfs "$mnt" 2>/dev/null || skip_all "cannot mount a tmpfs"
mount -t tmpfs -o size=1m,nr_inodes=64 tmpfs "$small" 2>/dev/null || {
	umount "$mnt"
	skip_all "cannot mount a tmpfs"
}
bg=""
cleanup() {
	[ -n "$bg" ] && kill -KILL "$bg" 2>/dev/null
	wait 2>/dev/null
	umount "$mnt" "$small" 2>/dev/null
	rm -rf "$SCRATCH"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
cc -shared -fPIC -O2 -o "$SCRATCH/slow.so" tests/integration/slow.c -ldl ||
	skip_all "cannot build the slow-call shim"

root="$mnt/r"
cfg="$SCRATCH/t.yaml"
write_cfg() { # DATASET-LINES...
	{
		echo "root: $root"
		echo "cache: none"
		echo "datasets:"
		for line in "$@"; do echo "  - $line"; done
	} >"$cfg"
}
empty() { test -z "$(ls -A "$mnt")"; }
free_kib() { df -k --output=avail "$mnt" | tail -n 1 | tr -d ' '; }

# 1. 10^12 files. Refused at load, nothing is created (it once made 16
#    million directories up front and filled a 252 GB disk).
write_cfg "{name: huge, file_size: 1B, file_count: 1000000000000}"
expect_status 2 "10^12 files: refused at load" mpi 2 "$PFSREAD" generate "$cfg"
contains "$cfg:4:45: key 'datasets[0].file_count': expected an integer from 1 to 1000000000" \
	"naming file:line:col and the key"
empty
ok_status $? "nothing was created"

# 2. 10^7 files of a byte: a count pfsread accepts, but not inodes this file system has
write_cfg "{name: many, file_size: 1B, file_count: 10000000}"
expect_status 2 "10^7 files on 5000 inodes: refused before anything is written" \
	mpi 2 "$PFSREAD" generate "$cfg"
contains "generate needs 41.0 GB and 1.0e7 inodes" "with what it needs (a block per file)"
contains "$mnt has " "and what the file system has"
contains "space_check: false" "and the way around for a file system that misreports"
empty
ok_status $? "nothing was created"

# 3. bytes: two data sets that fit one by one but not together
write_cfg "{name: a, file_size: 1MiB, file_count: 40}" "{name: b, file_size: 1MiB, file_count: 40}"
expect_status 2 "two data sets of 40 MiB on 64 MiB: refused" mpi 2 "$PFSREAD" generate "$cfg"
contains "generate needs 83.9 MB" "counting both"
empty
ok_status $? "nothing was created, not even the first data set"

# 4. the guard: a data set that fits when generate starts; something else then takes the room
#    while it writes (every write made 100 ms slow so that it is still writing), leaving less
#    than half the margin (1 MiB here: the guard stops at 512 KiB free) but more than a file:
#    generate stops before the next file, instead of writing on until the disk is full. The
#    room left, 480 KiB, holds what can still land before the guard's next look: the 2 files
#    of its interval (a quarter of the margin) and a file that lands between the look at the
#    free space and the filler taking it.
write_cfg "{name: a, file_size: 128KiB, file_count: 300}"
rm -f "$SCRATCH/slow.log"
LD_PRELOAD="$SCRATCH/slow.so" PFSREAD_SLOW=pwrite:100 PFSREAD_SLOW_LOG="$SCRATCH/slow.log" \
	"$PFSREAD" generate "$cfg" >"$SCRATCH/bg.out" 2>&1 &
bg=$!
i=0
while [ ! -e "$SCRATCH/slow.log" ] && [ "$i" -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
sleep 1
left=$(($(free_kib) - 480))
fallocate -l "${left}K" "$mnt/filler"
watchdog 120 "$bg"
wait "$bg"
status=$?
watchdog_end
bg=""
OUT=$(cat "$SCRATCH/bg.out")
[ "$status" -eq 1 ]; ok_status $? "someone else fills the file system: generate stops (exit $status)"
contains "stopped before the file system fills: $root/a has " "and says why"
test "$(partial_files "$mnt/r" 131072)" -eq 0 && grep -q "complete 0" "$root/a/.pfsread-manifest"
ok_status $? "no partial file, the manifest does not claim the data set whole"
test "$(free_kib)" -gt 0
ok_status $? "the file system did not fill ($(free_kib) KiB free)"
made=$(find "$root/a" -type f -name 'f*' | wc -l)

# 5. a resumed data set needs room for what is missing only: leave room for the rest, not for
#    all of it
rm "$mnt/filler"
need=$(((300 - made) * 128 + 1024 + 128))
fallocate -l "$(($(free_kib) - need - 512))K" "$mnt/filler"
test "$(free_kib)" -lt $((300 * 128 + 1024))
ok_status $? "there is less room than the whole data set needs ($(free_kib) KiB free, $made files made)"
expect_status 0 "resume with room for the $((300 - made)) missing files (not for all 300)" \
	mpi 2 "$PFSREAD" generate "$cfg"
contains "files made, $made kept" "the files made before are kept"
rm "$mnt/filler"
check "clean" mpi 2 "$PFSREAD" clean "$cfg"

# 6. space_check: false: no check, no guard (a file system whose statfs lies)
write_cfg "{name: c, file_size: 1MiB, file_count: 40}" "{name: d, file_size: 1MiB, file_count: 40}"
echo "space_check: false" >>"$cfg"
expect_status 1 "space_check: false: generate goes ahead, and meets the full disk" \
	mpi 2 "$PFSREAD" generate "$cfg"
contains "space_check: false: free space is neither checked nor watched" "and says so"
contains "No space left on device" "the writes fail as they would without pfsread's check"
test "$(partial_files "$mnt/r" 1048576)" -eq 0
ok_status $? "no partial file is left"
sed -i '/space_check/d' "$cfg"
check "clean" mpi 2 "$PFSREAD" clean "$cfg"

# 7. run: its results file must fit (a 1 MiB file system here)
write_cfg "{name: a, file_size: 4KiB, file_count: 2000}"
echo "repetitions: 10" >>"$cfg"
check "generate 2000 small files" mpi 2 "$PFSREAD" generate "$cfg"
expect_status 2 "run refuses a results file that does not fit" \
	mpi 2 "$PFSREAD" run "$cfg" -o "$small/r.h5"
contains "run (its results file) needs " "naming what needs the room"
test ! -e "$small/r.h5"
ok_status $? "no results file is started"

# 8. calibrate: a temporary file of --disk-size per node
expect_status 2 "calibrate refuses a temporary file that does not fit" \
	mpi 1 "$PFSREAD" calibrate "$cfg" --disk-size 1GiB -o "$SCRATCH/c.h5"
contains "calibrate (a temporary file of --disk-size per node) needs 1.1 GB" "with the figures"
test "$(find "$root" -maxdepth 1 -name '.pfsread-calibrate-*' | wc -l)" -eq 0
ok_status $? "no temporary file was made"

# 9. readers_per_node above the ranks of a node: generate refuses it too, as run does
echo "sweep: {readers_per_node: [1, 4]}" >>"$cfg"
expect_status 2 "generate refuses 4 readers per node with 2 ranks" mpi 2 "$PFSREAD" generate "$cfg"
contains "$cfg:6:31: key 'sweep.readers_per_node[1]': 4 readers per node, but a node has only 2 ranks" \
	"naming the entry"
done_testing
