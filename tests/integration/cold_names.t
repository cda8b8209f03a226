#!/bin/sh
# cold_names: with cache: drop, every timed open looks its file up as on a node that never saw
# it, though the residency probe before the phase opened the files of the share (all of them,
# in a share of up to 64). The files are served through faultfs (FUSE), which holds each
# lookup of a data file's name 400 ms (a slow metadata server), mounted with the kernel told
# to keep names and attributes for 10 minutes: a file the probe looked up and nothing forgot
# would open at once. 4 files of 64 KiB, 2 ranks on one node. Each file's recorded open must
# take the 400 ms; a phase whose opens find what the probe left behind fails it.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "cache: drop needs root"
faultfs_build || skip_all "$FAULTFS_WHY"
src="$SCRATCH/src"
mnt="$SCRATCH/mnt"
: >"$SCRATCH/rules"
mkdir -p "$SCRATCH/results" "$mnt"

# c_config ROOT CACHE: the data set under ROOT
c_config() {
	cat <<YAML
name: c
root: $1
results: $SCRATCH/results/{name}.h5
datasets: [{name: d, file_size: 64KiB, file_count: 4}]
sweep: {backend: [posix], readers_per_node: [2], transfer_size: [64KiB]}
cache: $2
YAML
}
c_config "$src" none >"$SCRATCH/gen.yaml"
c_config "$mnt" drop >"$SCRATCH/c.yaml"
check "generate 4 files of 64 KiB" mpi 2 "$PFSREAD" generate "$SCRATCH/gen.yaml"
(cd "$src" && find d -type f -name 'f*') | sed 's/$/ lookup 400/' >"$SCRATCH/rules.new"
[ "$(wc -l <"$SCRATCH/rules.new")" -eq 4 ]
ok_status $? "a lookup rule for each of the 4 data files"
"$FAULTFS" "$src" "$SCRATCH/rules" "$mnt" -o ro,entry_timeout=600,attr_timeout=600 ||
	skip_all "cannot mount faultfs (FUSE) on $mnt"
LIB_MOUNTS="$mnt $LIB_MOUNTS"
mv "$SCRATCH/rules.new" "$SCRATCH/rules"

check "cold run of 2 ranks, each lookup of a data file held 400 ms" \
	mpi 2 "$PFSREAD" run "$SCRATCH/c.yaml" -o "$SCRATCH/results/c.h5"

check "every file's timed open looked its name up (at least 0.4 s each)" \
	"$PYTHON" - "$SCRATCH/results/c.h5" <<'PY'
import h5py, sys
with h5py.File(sys.argv[1], "r") as f:
    rows = f["phases/0000/files"][:]
    cold = f["phases/0000"].attrs["resident_fraction"]
opens = sorted((int(r["file"]), r["open_end"] - r["open_start"]) for r in rows)
print("# resident fraction", cold, "; opens (file, s):",
      ", ".join(f"{n} {s:.3f}" for n, s in opens))
sys.exit(0 if len(opens) == 4 and all(s >= 0.4 for _, s in opens) else 1)
PY
done_testing
