#!/bin/sh
# scale: 64 ranks (more than the cores) over 16 simulated nodes read a data set of 100,000
# tiny files: the run completes, every file is read exactly once, the results are right.
. "$(dirname "$0")/lib.sh"

fake_nodes 16 4
root="$SCRATCH/data"
cfg="$SCRATCH/scale.yaml"
{
	echo "root: $root"
	echo "layout: {files_per_dir: 1000}"
	echo "datasets: [{name: tiny, file_size: 512, file_count: 100000}]"
	echo "sweep: {readers_per_node: [1, 4]}"
	echo "cache: none"
} >"$cfg"
start=$(date +%s)
check "generate 100,000 files with 64 ranks on 16 nodes" mpi_nodes 4 "$PFSREAD" generate "$cfg"
check "run: 64 ranks on 16 nodes, 1 and 4 readers per node" \
	mpi_nodes 4 "$PFSREAD" run "$cfg" -o "$SCRATCH/scale.h5"
check "every file read once by the right readers, bytes and times right" \
	"$PYTHON" "$CHECK_H5" "$SCRATCH/scale.h5" \
	'{"phases": 2, "nranks": 64, "nnodes": 16, "status": "complete", "datasets": {"tiny": {"nfiles": 100000, "bytes": 51200000}}}'
check "16 readers then 64 readers" "$PYTHON" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
assert [f["phases"][n].attrs["active_readers"] for n in sorted(f["phases"])] == [16, 64]
' "$SCRATCH/scale.h5"
echo "# scale test took $(($(date +%s) - start)) s"
done_testing
