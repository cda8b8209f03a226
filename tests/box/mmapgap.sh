#!/bin/sh
# mmapgap: an experiment, not a test (no suite runs it; run it by hand under the box lock:
# `flock /work/wt/box.lock tests/box/mmapgap.sh [MMCOPY]`): why pfsread's mmap path stays below
# the links on GlusterFS (docs/box.md, "Read paths against the link"), and how much collective
# MPI-IO exchanges between the nodes. MMCOPY (tests/box/mmcopy.c, built here unless given)
# copies files cold by mmap (4 MiB chunks or the whole file), MAP_POPULATE, or a pread
# loop, timing map, copy, unmap and close. 2 nodes, 1 reader each, 12 x 16 MiB, every run cold.
. "$(dirname "$0")/boxlib.sh"

box_require
# the copier: tests/box/mmcopy.c, built here unless given
MM=${1:-$SCRATCH/mmcopy}
[ -n "${1:-}" ] || ${CC:-cc} -O2 -o "$MM" "$TOP/tests/box/mmcopy.c" || { fail "build mmcopy"; done_testing; }
box_up --nodes 2 --link-mbit "$BOX_LINK" --fs glusterfs || { fail "box up"; done_testing; }
G=$("$BOX" iperf n1 5)
figure "link goodput" "$G Mbit/s = $(awk -v g="$G" 'BEGIN { printf "%.1f", g / 8 }') MB/s per node"
DS="{name: p, file_size: 16MiB, file_count: 12}"
box_config "$SCRATCH/gen.yaml" gen /box/fs/readpaths "$DS"
bmpi n1,n2 1 "$PFSREAD" generate "$SCRATCH/gen.yaml" >/dev/null 2>&1
ok_status $? "generate"
FILES=$("$BOX" exec n1 -- find /box/fs/readpaths -type f -name '*.dat' | sort)
[ -n "$FILES" ] || FILES=$("$BOX" exec n1 -- find /box/fs/readpaths -type f -size +1M | sort)
F1=$(echo "$FILES" | head -n 6 | tr '\n' ' ')
F2=$(echo "$FILES" | tail -n 6 | tr '\n' ' ')
echo "# n1 reads: $F1"
dev=$("$BOX" exec n1 -- mountpoint -d /box/fs)
echo "# bdi $dev read_ahead_kb: $("$BOX" exec n1 -- cat /sys/class/bdi/$dev/read_ahead_kb 2>&1)"

# copy NAME MODE CHUNK NODES: cold, the copier on each node at once; MB/s per node, bytes
# received over bytes read
copy() {
	"$BOX" cold readpaths
	r1=$("$BOX" rx n1) r2=$("$BOX" rx n2)
	# shellcheck disable=SC2086
	"$BOX" exec n1 -- "$MM" "$2" "$3" $F1 >"$SCRATCH/c1" 2>&1 &
	p1=$!
	if [ "$4" = 2 ]; then
		# shellcheck disable=SC2086
		"$BOX" exec n2 -- "$MM" "$2" "$3" $F2 >"$SCRATCH/c2" 2>&1 &
		wait $!
	fi
	wait $p1
	d1=$(($("$BOX" rx n1) - r1)) d2=$(($("$BOX" rx n2) - r2))
	echo "# $1 [$4 node(s)] n1: $(cat "$SCRATCH/c1"); rx $d1 B"
	[ "$4" = 2 ] && echo "# $1 [2 nodes] n2: $(cat "$SCRATCH/c2"); rx $d2 B"
}
copy "read 4MiB (posix, no fadvise)" read 4194304 2
copy "mmap 4MiB chunks (as pfsread)" mmap 4194304 2
copy "mmap 4MiB chunks, one node" mmap 4194304 1
copy "mmap whole file per memcpy" mmap 16777216 2
copy "mmap MAP_POPULATE" populate 4194304 2
copy "mmap 4MiB chunks again" mmap 4194304 2
for ra in 1024 4096; do
	"$BOX" exec n1 -- sh -c "echo $ra >/sys/class/bdi/$dev/read_ahead_kb"
	"$BOX" exec n2 -- sh -c "echo $ra >/sys/class/bdi/$("$BOX" exec n2 -- mountpoint -d /box/fs)/read_ahead_kb"
	echo "# read_ahead_kb now $("$BOX" exec n1 -- cat /sys/class/bdi/$dev/read_ahead_kb)"
	copy "mmap 4MiB chunks, read_ahead_kb $ra" mmap 4194304 2
	copy "read 4MiB, read_ahead_kb $ra" read 4194304 2
done
"$BOX" exec n1 -- sh -c "echo 128 >/sys/class/bdi/$dev/read_ahead_kb"
"$BOX" exec n2 -- sh -c "echo 128 >/sys/class/bdi/$("$BOX" exec n2 -- mountpoint -d /box/fs)/read_ahead_kb"

# pfsread itself: mmap and posix (1 repetition each, cold), mpiio shared collective and
# independent: bytes read against the bytes the nodes received (net_rx_bytes per node)
run() {
	box_config "$SCRATCH/$1.yaml" "$1" /box/fs/readpaths "$DS" \
		"sweep: {readers_per_node: [1], $2}" "repetitions: 2" "cache: fadvise" "${3:-}"
	"$BOX" cold readpaths
	bmpi n1,n2 1 "$PFSREAD" run "$SCRATCH/$1.yaml" >"$SCRATCH/$1.out" 2>&1
	ok_status $? "run $1"
	"$PYTHON" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
for n in sorted(f["phases"]):
    g = f["phases"][n]
    a = g.attrs
    r = g["ranks"][()]
    rx = int(r["net_rx_bytes"].sum()) if "net_rx_bytes" in r.dtype.names else -1
    print("# %s %s %s %s: %.1f MB/s, read %d B, nodes received %d B (%.2f x), open %.3f read %.3f close %.3f s" % (
        sys.argv[2], a["backend"], a["pattern"], a["advice"], a["bandwidth_MBps"], a["bytes"], rx,
        rx / a["bytes"], r["open_s"].sum(), r["read_s"].sum(), r["close_s"].sum()))' "$SCRATCH/$1.h5" "$1"
}
run paths "backend: [mmap, posix], advice: [none]"
run coll "backend: [mpiio], pattern: [shared]"
run indep "backend: [mpiio], pattern: [shared]" "mpiio: {collective: false}"
box_down_clean "the box is torn down"
done_testing
