#!/bin/sh
# mmapgap3: an experiment (by hand, under the box lock: `flock /work/wt/box.lock
# tests/box/mmapgap3.sh`): pfsread's mmap phase against the plain copier (mmcopy.c) under the
# same mpirun, alternated three times so that both see the same load, then mmap after posix
# and uring phases in one run (does an earlier phase leave something behind?). Binding none
# (box.sh's default now). 2 nodes, 1 reader each, 12 x 16 MiB, cold.
. "$(dirname "$0")/boxlib.sh"

box_require
MM=$SCRATCH/mmcopy
${CC:-cc} -O2 -o "$MM" "$TOP/tests/box/mmcopy.c" || { fail "build mmcopy"; done_testing; }
box_up --nodes 2 --link-mbit "$BOX_LINK" --fs glusterfs || { fail "box up"; done_testing; }
G=$("$BOX" iperf n1 5)
figure "link goodput" "$G Mbit/s = $(awk -v g="$G" 'BEGIN { printf "%.1f", 2 * g / 8 }') MB/s for 2 nodes"
DS="{name: p, file_size: 16MiB, file_count: 12}"
box_config "$SCRATCH/gen.yaml" gen /box/fs/readpaths "$DS"
bmpi n1,n2 1 "$PFSREAD" generate "$SCRATCH/gen.yaml" >/dev/null 2>&1
ok_status $? "generate"
FILES=$("$BOX" exec n1 -- find /box/fs/readpaths -type f -size +1M | sort)
F1=$(echo "$FILES" | head -n 6 | tr '\n' ' ')
F2=$(echo "$FILES" | tail -n 6 | tr '\n' ' ')
cat >"$SCRATCH/pick.sh" <<PICK
#!/bin/sh
if [ "\$OMPI_COMM_WORLD_RANK" = 0 ]; then exec "$MM" "\$@" $F1; else exec "$MM" "\$@" $F2; fi
PICK
chmod +x "$SCRATCH/pick.sh"

run() {
	box_config "$SCRATCH/$1.yaml" "$1" /box/fs/readpaths "$DS" \
		"sweep: {readers_per_node: [1], $2}" "repetitions: 1" "cache: fadvise"
	"$BOX" cold readpaths
	bmpi n1,n2 1 "$PFSREAD" run "$SCRATCH/$1.yaml" >"$SCRATCH/$1.out" 2>&1 || echo "# run $1 failed"
	"$PYTHON" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
for n in sorted(f["phases"]):
    a = f["phases"][n].attrs
    print("# pfsread %s %s %s: %.1f MB/s" % (sys.argv[2], a["backend"], a["advice"], a["bandwidth_MBps"]))' "$SCRATCH/$1.h5" "$1"
}
for i in 1 2 3; do
	echo "# round $i, load $(cut -d' ' -f1-3 /proc/loadavg)"
	"$BOX" cold readpaths
	bmpi n1,n2 1 "$SCRATCH/pick.sh" mmap 4194304 2>&1 | sed 's/^/# copier: /'
	run "mmap$i" "backend: [mmap], advice: [none]"
	"$BOX" cold readpaths
	bmpi n1,n2 1 "$SCRATCH/pick.sh" read 4194304 2>&1 | sed 's/^/# copier: /'
done
run after "backend: [posix, uring, mmap], advice: [none]"
run first "backend: [mmap, posix, uring], advice: [none]"
box_down_clean "the box is torn down"
done_testing
