#!/bin/sh
# mmapgap2: an experiment (by hand, under the box lock: `flock /work/wt/box.lock
# tests/box/mmapgap2.sh [MMCOPY]`): is pfsread's mmap gap on GlusterFS the MPI launch (ranks
# bound to cores) rather than the read path? The copier of mmapgap.sh under mpirun, bound as
# mpirun binds by default and unbound, then pfsread's mmap and posix phases both ways.
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
FILES=$("$BOX" exec n1 -- find /box/fs/readpaths -type f -size +1M | sort)
F1=$(echo "$FILES" | head -n 6 | tr '\n' ' ')
F2=$(echo "$FILES" | tail -n 6 | tr '\n' ' ')
cat >"$SCRATCH/pick.sh" <<PICK
#!/bin/sh
echo "rank \$OMPI_COMM_WORLD_RANK on \$(hostname): \$(grep Cpus_allowed_list /proc/self/status)"
if [ "\$OMPI_COMM_WORLD_RANK" = 0 ]; then exec "$MM" "\$@" $F1; else exec "$MM" "\$@" $F2; fi
PICK
chmod +x "$SCRATCH/pick.sh"

# mpicopy NAME MPIRUN-ARGS MODE: the copier as 2 ranks, 1 per node, cold
mpicopy() {
	"$BOX" cold readpaths
	# shellcheck disable=SC2086
	bmpi n1,n2 1 $2 "$SCRATCH/pick.sh" "$3" 4194304 2>&1 | sed "s/^/# $1: /"
}
# (box.sh mpirun now sets binding none: --bind-to core is what Open MPI did by default)
mpicopy "mpirun --bind-to core" "--bind-to core" mmap
mpicopy "mpirun --bind-to none" "--bind-to none" mmap
mpicopy "mpirun --bind-to core" "--bind-to core" read
mpicopy "mpirun --bind-to none" "--bind-to none" read
mpicopy "mpirun --bind-to core, again" "--bind-to core" mmap
mpicopy "mpirun --bind-to none, again" "--bind-to none" mmap

run() {
	box_config "$SCRATCH/$1.yaml" "$1" /box/fs/readpaths "$DS" \
		"sweep: {readers_per_node: [1], backend: [mmap, posix], advice: [none]}" \
		"repetitions: 2" "cache: fadvise"
	"$BOX" cold readpaths
	# shellcheck disable=SC2086
	bmpi n1,n2 1 $2 "$PFSREAD" run "$SCRATCH/$1.yaml" >"$SCRATCH/$1.out" 2>&1
	ok_status $? "run $1"
	"$PYTHON" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
for n in sorted(f["phases"]):
    a = f["phases"][n].attrs
    r = f["phases"][n]["ranks"][()]
    print("# %s %s %s: %.1f MB/s, read_s %s" % (sys.argv[2], a["backend"], a["advice"],
          a["bandwidth_MBps"], " ".join("%.2f" % x for x in r["read_s"])))' "$SCRATCH/$1.h5" "$1"
}
run bound "--bind-to core"
run unbound "--bind-to none"
run bound2 "--bind-to core"
box_down_clean "the box is torn down"
done_testing
