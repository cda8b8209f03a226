#!/bin/sh
# faults: a node's path to the server is cut in the middle of a phase (a black hole both ways,
# as a pulled cable: no error, no reset; MPI between the nodes still flows). The run must end
# within its phase_timeout, the results file must be readable with the phase marked failed and
# the failure on the cut node's ranks, and the box must still tear down to nothing.
# GlusterFS gives a client up after the box's ping-timeout (10 s); phase_timeout is 20 s.
. "$(dirname "$0")/boxlib.sh"

box_require
if ! box_up --nodes 2 --link-mbit "$BOX_LINK" --fs glusterfs; then
	ok 1 "a box of 2 nodes on GlusterFS comes up"
	done_testing
fi
ok 0 "a box of 2 nodes on GlusterFS comes up"

LIMIT=20
DS="{name: f, file_size: 16MiB, file_count: 16}"
box_config "$SCRATCH/f.yaml" f /box/fs/faults "$DS" "sweep: {readers_per_node: [1]}" \
	"repetitions: 1" "cache: fadvise" "phase_timeout: ${LIMIT}s"
check "generate on 2 nodes" bmpi n1,n2 1 "$PFSREAD" generate "$SCRATCH/f.yaml"
"$BOX" cold faults

before=$("$BOX" rx n2)
bmpi n1,n2 1 "$PFSREAD" run "$SCRATCH/f.yaml" >"$SCRATCH/run.out" 2>&1 &
job=$!
# cut once n2 has read 8 MB of its share (the phase is under way)
i=0
while [ $i -lt 150 ] && [ $(($("$BOX" rx n2) - before)) -lt 8000000 ]; do
	i=$((i + 1))
	sleep 0.2
done
"$BOX" cut n2
ok $? "n2's path to the server is cut mid-phase ($(($("$BOX" rx n2) - before)) bytes into the phase)"
T0=$(date +%s.%N)
wait $job
st=$?
took=$(elapsed "$T0")
figure "run ended after the cut" "$took s (phase_timeout ${LIMIT} s), exit $st"
[ $st -eq 1 ]
ok $? "the run exits with status 1 (a run-time failure)"
ge "$LIMIT" "$took"
ok $? "the run ends within its phase_timeout of the cut"
sed 's/^/#   /' "$SCRATCH/run.out" | grep -v '^#   *$' | grep -v -- '-----' | head -n 12

check "the results file is readable, its phase failed, the failure on n2's ranks only" \
	"$PYTHON" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
p = f["phases/0000"]
status = p.attrs["status"]
status = status.decode() if isinstance(status, bytes) else status
assert status in ("failed", "timeout"), status
assert p.attrs["elapsed_s"] <= float(sys.argv[2]), p.attrs["elapsed_s"]
hosts = [h.decode() if isinstance(h, bytes) else h for h in f["topology/hostname"][:]]
node = f["topology/node_of_rank"][:]
bad = {hosts[node[r]] for r, e in zip(p["files"]["rank"], p["files"]["error"]) if e != 0}
assert bad == {"n2"}, bad
print("phase", status, "after", p.attrs["elapsed_s"], "s; files in error on", sorted(bad))
' "$SCRATCH/f.h5" "$LIMIT"
OUT=$("$PFSREAD" report "$SCRATCH/f.h5" 2>&1)
case "$OUT" in *timeout* | *failed*) ok 0 "the report shows the phase's status" ;;
*) ok 1 "the report shows the phase's status" ;;
esac
grep '^pfsread: ' "$SCRATCH/run.out" | grep -qw n2
todo $? "the run's error message names the node (n2), not only the rank" \
	"pfsread names the rank and the file of a failed read, not its host"

"$BOX" mend n2
box_down_clean "the box tears down to nothing after the fault"
done_testing
