#!/bin/sh
# reference.sh [OUTDIR]: the reference study's shape, scaled, in a cluster in a box (make
# box-reference): OrangeFS converged on 8 nodes (every node a data and metadata server, files
# striped over all), the nodes in 2 racks behind shaped uplinks, configs/reference-study-box.yaml
# (4 data sets of 256 MiB, 1, 2 and 4 readers per node). Measures the links' goodput (iperf3)
# and declares it as the hardware, then prints the study's table (data set x readers per node,
# aggregate MB/s), each cell's share of the report's ceiling and its limit, and the report's
# answer (report --brief). Results in OUTDIR (default results/box-reference).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BOX=$TOP/tests/box/box.sh
PFSREAD=${PFSREAD:-$TOP/build/pfsread}
OUT=${1:-$TOP/results/box-reference}
CONF=$TOP/configs/reference-study-box.yaml
NODES=${BOX_REF_NODES:-8}
LINK=${BOX_REF_LINK:-24}
UPLINK=${BOX_REF_UPLINK:-100}
# room for 1 GiB of data striped over the nodes' images
export BOX_IMG_MB=${BOX_IMG_MB:-1024} BOX_TMPFS_MB=${BOX_TMPFS_MB:-4096}

[ "$(id -u)" -eq 0 ] || { echo "reference: needs root" >&2; exit 1; }
[ -x "$PFSREAD" ] || { echo "reference: no $PFSREAD (make first)" >&2; exit 1; }
mkdir -p "$OUT" || exit 1
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pfsread-box-ref.XXXXXX") || exit 1
UP=0
cleanup() {
	[ "$UP" = 1 ] && "$BOX" down >/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }'; }
mbps() { awk -v m="$1" 'BEGIN { printf "%.3g", m / 8 }'; }

# mpirun in the box, 4 ranks on every node, in the background so that a signal reaches the trap
bmpi() {
	timeout 1200 "$BOX" mpirun --map-by ppr:4:node "$@" &
	wait $!
}

start=$(now)
"$BOX" up --nodes "$NODES" --link-mbit "$LINK" --fs orangefs --converged --racks 2 \
	--uplink-mbit "$UPLINK" || exit 1
UP=1
# a node's link, and (n1's link opened up for the measure) rack 1's uplink
G=$("$BOX" iperf n1 3) || exit 1
"$BOX" rate n1 "$((UPLINK * 4))" || exit 1
U=$("$BOX" iperf n1 3) || exit 1
"$BOX" rate n1 "$LINK" || exit 1
echo "goodput: link $G Mbit/s ($(mbps "$G") MB/s), uplink $U Mbit/s ($(mbps "$U") MB/s)"
sed -e "s|^results: .*|results: $OUT/{name}.h5|" \
	-e "s|^hardware: .*|hardware: {node_link_MBps: $(mbps "$G"), storage_servers: $NODES, data_on_compute_nodes: true, racks: 2, rack_uplink_MBps: $(mbps "$U")}|" \
	"$CONF" >"$WORK/ref.yaml"
rm -f "$OUT/reference-study-box.h5"
s=$(now)
bmpi "$PFSREAD" generate "$WORK/ref.yaml" >"$WORK/gen.log" 2>&1 ||
	{ grep -m 5 '^pfsread' "$WORK/gen.log"; tail -n 5 "$WORK/gen.log"; exit 1; }
echo "generate: $(since "$s") s"
"$BOX" cold reference
s=$(now)
bmpi "$PFSREAD" run "$WORK/ref.yaml" >"$WORK/run.log" 2>&1 ||
	{ grep -m 5 '^pfsread' "$WORK/run.log"; tail -n 30 "$WORK/run.log"; exit 1; }
echo "run: $(since "$s") s"
"$BOX" down >/dev/null || exit 1
UP=0
H5=$OUT/reference-study-box.h5
"$PFSREAD" report "$H5" --format json >"$OUT/report.json" || exit 1
"$PFSREAD" report "$H5" >"$OUT/report.txt" || exit 1
python3 - "$OUT/report.json" <<'PY' | tee "$OUT/table.md"
import json, sys
cells = json.load(open(sys.argv[1]))["runs"][0]["cells"]
sets, readers, by = [], [], {}
for c in cells:
    d, r = c["dataset"], c["readers_per_node"]
    if d not in sets:
        sets.append(d)
    if r not in readers:
        readers.append(r)
    by[d, r] = c
readers.sort()
def cell(d, r, f):
    c = by.get((d, r))
    return "-" if c is None else f(c)
head = "| data set | " + " | ".join("%d reader%s per node" % (r, "" if r == 1 else "s") for r in readers) + " |"
line = "| --- |" + " ---: |" * len(readers)
print("aggregate read rate [MB/s], the study's shape:\n")
print(head); print(line)
for d in sets:
    print("| %s files | " % d + " | ".join(cell(d, r, lambda c: "%.1f" % c["mean_MBps"]) for r in readers) + " |")
print("\nshare of the report's ceiling, and its limit:\n")
print(head); print(line)
for d in sets:
    print("| %s files | " % d + " | ".join(cell(d, r, lambda c: "%.1f%% of %.1f (%s)" % (
        100 * c["mean_MBps"] / c["ceiling"]["MBps"], c["ceiling"]["MBps"], c["ceiling"]["limit"])
        if c.get("ceiling") and c["ceiling"].get("MBps") else "-") for r in readers) + " |")
PY
echo
"$PFSREAD" report "$H5" --brief | tee "$OUT/answer.txt"
echo
echo "box reference: $(since "$start") s; results $H5, table $OUT/table.md, report $OUT/report.txt"
