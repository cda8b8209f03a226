#!/bin/sh
# multinode: two "nodes" on one machine (real mpirun daemons on fake host names): the
# readers per node are the first ranks of each node, and every file is read once.
. "$(dirname "$0")/lib.sh"

fake_nodes 2 4
root="$SCRATCH/data"
cfg="$SCRATCH/t.yaml"
small_config "$cfg" "$root" "sweep: {readers_per_node: [1, 2, 3]}" "cache: fadvise"
check "generate over 2 nodes x 3 ranks" mpi_nodes 3 "$PFSREAD" generate "$cfg"
expect_status 0 "run over 2 nodes x 3 ranks" mpi_nodes 3 "$PFSREAD" run "$cfg" -o "$SCRATCH/m.h5"
contains "6 ranks on 2 nodes" "run sees 2 nodes"
check "h5py: 2 nodes, per node the first r ranks read, every file once" \
	"$PYTHON" "$CHECK_H5" "$SCRATCH/m.h5" '{"phases": 6, "nranks": 6, "nnodes": 2}'
check "node_of_rank follows the mapping (3 ranks per node)" "$PYTHON" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
assert list(f["topology/node_of_rank"][:]) == [0, 0, 0, 1, 1, 1], f["topology/node_of_rank"][:]
assert len(f["topology/clock_offset_s"]) == 2
' "$SCRATCH/m.h5"
sed 's/\[1, 2, 3\]/[4]/' "$cfg" >"$SCRATCH/t4.yaml"
expect_status 2 "4 readers per node on nodes of 3 ranks is refused" \
	mpi_nodes 3 "$PFSREAD" run "$SCRATCH/t4.yaml"
contains "only 3 ranks" "the message says how many ranks a node has"

# calibrate on 2 nodes whose root is missing: the root is made by one node alone (two nodes
# that make one directory at once can break it on a shared file system), counted with strace
if command -v strace >/dev/null 2>&1 && strace -f -qq -o /dev/null true 2>/dev/null; then
	croot="$SCRATCH/calroot/data"
	sed "s,^root: .*,root: $croot," "$cfg" >"$SCRATCH/c.yaml"
	mkdir -p "$SCRATCH/cal.d"
	mpi_nodes 1 strace -ff -qq -e trace=mkdir,mkdirat -o "$SCRATCH/cal.d/t" "$PFSREAD" \
		calibrate "$SCRATCH/c.yaml" --disk-size 64KiB --mem-size 1MiB --repetitions 3 \
		-o "$SCRATCH/cal.h5" >"$SCRATCH/cal.out" 2>&1
	st=$?
	[ $st -eq 0 ] || sed 's/^/#   /' "$SCRATCH/cal.out" | tail -5
	ok_status $st "calibrate over 2 nodes whose root is missing"
	n=$(cat "$SCRATCH/cal.d"/t.* | grep -c "^mkdir(\"$croot\"")
	test "$n" -eq 1
	ok_status $? "... the root made by one mkdir on one node ($n in all)"
else
	echo "# SKIP calibrate's root: strace cannot trace here"
fi
done_testing
