#!/bin/sh
# answer: every report opens with "is this figure reasonable, and why" (report/answer.c): within
# its first 12 lines, in text and markdown, the best cell with its share of the ceiling and the
# limit, and a finding with its recommendation; `report --brief` prints that alone; JSON has
# "answer" first; a cell above 105% of its ceiling is said to contradict the ceiling. On the
# reference study's file (docs/report.md "Worked example": 100 nodes, 1 GbE, ceiling 11,818 MB/s;
# made here with the study's rates and 50 ms open + 45 ms close per 2 MB file), on report_h5.py's
# a.h5 (one cell at 188% of its ceiling) and b.h5 (no hardware), and on a real run's file whose
# declared figures are far too low to hold.
. "$(dirname "$0")/lib.sh"

"$PYTHON" -c 'import h5py' 2>/dev/null || skip_all "python3 with h5py is not installed"
check "report_h5.py writes the hand-made results files" \
	"$PYTHON" "$TOP/tests/integration/report_h5.py" "$SCRATCH"
check "the reference study's results file" "$PYTHON" - "$TOP/tests/integration" \
	"$SCRATCH/study.h5" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import h5py
import numpy as np
import report_h5 as r

NODES, RPN = 100, 4
CONFIG = """name: pvfs2-study
root: /nonexistent/pfsread-answer-test
datasets:
  - {name: 1GB, file_size: 1GB, file_count: 1600}
  - {name: 2MB, file_size: 2MB, file_count: 800000}
sweep: {readers_per_node: [1, 2, 4]}
hardware: {node_disk_MBps: 200, node_link_MBps: 117, storage_servers: 100,
           data_on_compute_nodes: true, racks: 3, rack_uplink_MBps: 5000}
"""
# (data set, file size, readers per node, MB/s measured, files per reader, open s, close s)
PHASES = [("1GB", 10**9, 1, 660, 1, 0, 0), ("1GB", 10**9, 2, 1218, 1, 0, 0),
          ("1GB", 10**9, 4, 1106, 1, 0, 0), ("2MB", 2 * 10**6, 1, 502, 2, 0.05, 0.045),
          ("2MB", 2 * 10**6, 2, 549, 2, 0.05, 0.045), ("2MB", 2 * 10**6, 4, 587, 2, 0.05, 0.045)]

def phase(f, index, ds, size, rpn, rate, per, o, c):
    readers = NODES * rpn
    each = readers * size / (rate * 1e6)  # one file's open to close at that aggregate rate
    ranks = np.zeros(NODES * RPN, dtype=r.RANK_DT)
    rows = []
    for k in range(NODES * RPN):
        ranks[k]["rank"], ranks[k]["node"] = k, k // RPN
        if k % RPN >= rpn:
            continue
        t = 0.0
        for i in range(per):
            rows.append((len(rows), k, t, t + o, t + each - c, t + each, size, 0))
            t += each
        ranks[k]["active"], ranks[k]["start"], ranks[k]["end"] = 1, 0.0, t
        ranks[k]["bytes"], ranks[k]["files"] = per * size, per
        ranks[k]["open_s"], ranks[k]["close_s"] = per * o, per * c
        ranks[k]["read_s"] = per * (each - o - c)
        ranks[k]["io_s"] = t
    g = f.require_group("phases").create_group("%04d" % index)
    nbytes, elapsed = readers * per * size, per * each
    for key, v in (("index", np.uint32(index)), ("dataset", ds), ("file_size", np.uint64(size)),
                   ("nfiles", np.uint64(len(rows))), ("readers_per_node", np.int32(rpn)),
                   ("active_readers", np.int32(readers)), ("backend", "posix"),
                   ("transfer_size", np.uint64(4 << 20)), ("order", "sorted"),
                   ("cache", "drop"), ("repetition", np.int32(0)), ("seed", np.uint64(1)),
                   ("pattern", "per-reader"), ("decomposition", "block"),
                   ("queue_depth", np.int32(1)), ("noatime", np.int32(0)),
                   ("atime_mode", "relatime"), ("mpiio_hints", ""), ("process", "none"),
                   ("resident_fraction", 0.0), ("bytes", np.uint64(nbytes)),
                   ("elapsed_s", elapsed), ("bandwidth_MBps", nbytes / elapsed / 1e6),
                   ("status", "complete")):
        g.attrs[key] = v
    g["ranks"] = ranks
    g["files"] = np.array(rows, dtype=r.FILE_DT)

with h5py.File(sys.argv[2], "w") as f:
    r.root(f, CONFIG)
    f.attrs["nranks"], f.attrs["nnodes"] = np.int32(NODES * RPN), np.int32(NODES)
    del f["topology"]
    t = f.create_group("topology")
    t["node_of_rank"] = np.array([k // RPN for k in range(NODES * RPN)], dtype="<i4")
    t["hostname"] = np.array([b"n%d" % (k + 1) for k in range(NODES)], dtype="S256")
    t["clock_offset_s"] = np.zeros(NODES)
    for i, p in enumerate(PHASES):
        phase(f, i, *p)
PY
S="$SCRATCH/study.h5"
# head12: the first 12 lines of $OUT as one line (text paragraphs wrap at 100 columns)
head12() { printf '%s\n' "$OUT" | head -n 12 | tr '\n' ' ' | sed 's/  */ /g'; }
has() { # has TEXT WHAT: TEXT within the first 12 lines
	case $(head12) in *"$1"*) pass "$2" ;; *) fail "$2"; printf '%s\n' "$OUT" | head -n 12 | sed 's/^/#   /' ;; esac
}

expect_status 0 "report study.h5 (text)" "$PFSREAD" report "$S"
has "best: 1GB x 2 readers/node: 1218 MB/s = 10.3% of 11,818 (reader links, declared)" \
	"text: the best cell, its share of the ceiling and the limit in the first 12 lines"
has "worst: 2MB x 1 reader/node: 502 MB/s = 4.2% of 11,818" "text: and the worst"
has "- readers wait on round trips: 1GB aggregate 1.85x from 1 to 2 readers/node, per reader flat (6.60 -> 6.09 MB/s) -> more requests in flight: larger transfers, uring, more readers" \
	"text: the heaviest finding, its evidence and its recommendation"
has "- metadata-bound: 2MB x 1 reader/node spends 23.8% of reader time in open+close" \
	"text: small files' open+close named too"
first=$(printf '%s\n' "$OUT" | head -n 1)
test "$first" = "answer for $S: is this figure reasonable, and why"
ok_status $? "text: the answer is the first line ($first)"
n=$(printf '%s\n' "$OUT" | sed -n '/^$/q;p' | wc -l)
test "$n" -ge 3 && test "$n" -le 12
ok_status $? "text: the answer block is at most 12 lines ($n)"
ans_at=$(printf '%s\n' "$OUT" | grep -n '^answer for ' | head -1 | cut -d: -f1)
ceil_at=$(printf '%s\n' "$OUT" | grep -n '^ceilings: the least of the limits' | head -1 | cut -d: -f1)
test -n "$ans_at" && test -n "$ceil_at" && test "$ans_at" -lt "$ceil_at"
ok_status $? "the details stay below it (${ans_at:-?} < ${ceil_at:-?})"

expect_status 0 "report study.h5 --format markdown" "$PFSREAD" report "$S" --format markdown
has "- **best: 1GB x 2 readers/node: 1218 MB/s = 10.3% of 11,818 (reader links, declared)**" \
	"markdown: the best cell and its share in the first 12 lines"
has "-\\> more requests in flight" "markdown: a finding with its recommendation"

expect_status 0 "report study.h5 --brief" "$PFSREAD" report "$S" --brief
n=$(printf '%s\n' "$OUT" | wc -l)
test "$n" -ge 3 && test "$n" -le 12 && ! printf '%s\n' "$OUT" | grep -q -e '^results  ' -e '^ceilings:' -e 'statistics per cell'
ok_status $? "--brief: the answer block alone ($n lines, no header, no tables)"
has "best: 1GB x 2 readers/node: 1218 MB/s = 10.3% of 11,818" "--brief: the best cell"
expect_status 0 "report study.h5 --brief --format markdown" "$PFSREAD" report "$S" --brief \
	--format markdown
n=$(printf '%s\n' "$OUT" | wc -l)
test "$n" -ge 3 && test "$n" -le 12 && ! printf '%s\n' "$OUT" | grep -q -e '|'
ok_status $? "--brief markdown: the answer alone, no table ($n lines)"

expect_status 0 "report study.h5 --format json" "$PFSREAD" report "$S" --format json
printf '%s\n' "$OUT" >"$SCRATCH/study.json"
check "json: \"answer\" first, a list of cells and findings" "$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d)[0] == "answer", list(d)
a = d["answer"]
assert a[0]["kind"] == "cell" and "1218 MB/s = 10.3% of 11,818 (reader links" in a[0]["text"], a[0]
f = [x for x in a if x["kind"] == "finding"]
assert f and f[0]["tag"] == "round trips" and "->" in f[0]["text"], f
assert all(f[i]["weight"] >= f[i + 1]["weight"] for i in range(len(f) - 1)), f
assert d["runs"] and d["runs"][0]["cells"], "the rest follows"
' "$SCRATCH/study.json"
expect_status 0 "report study.h5 --brief --format json" "$PFSREAD" report "$S" --brief --format json
printf '%s\n' "$OUT" >"$SCRATCH/brief.json"
check "--brief json: the answer alone" "$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d) == ["answer"] and d["answer"], d
' "$SCRATCH/brief.json"
expect_status 2 "--brief with --format csv is refused" "$PFSREAD" report "$S" --brief --format csv
contains "--brief goes with --format text, markdown or json" "saying what it goes with"

# a cell above its ceiling: said to contradict it, never a bare "188% of its ceiling"
expect_status 0 "report a.h5 (text)" "$PFSREAD" report "$SCRATCH/a.h5"
has "best: big x 2 readers/node: 300 MB/s = 188% of 160 (server disks, declared): ABOVE it, the ceiling is contradicted" \
	"a cell at 188% of its ceiling: the ceiling is said to be contradicted"
has "- ceiling contradicted: the declared figure 160 MB/s (server disks) is contradicted: big x 2 readers/node measured 300 MB/s above it (188%) -> correct hardware: or run pfsread calibrate" \
	"and the first finding says so, with what to do"
# no hardware: exactly what to give
expect_status 0 "report b.h5 (no hardware)" "$PFSREAD" report "$SCRATCH/b.h5"
has "(no ceiling known)" "no hardware: the cells without a share"
has "-> declare hardware: {node_link_MBps: N, storage_servers: S, server_disk_MBps: D} in the config, or give a pfsread calibrate file alongside" \
	"no hardware: exactly what to give"

# a real run whose declared figures cannot hold (a node's disk and memory copy at 1 kB/s)
small_config "$SCRATCH/run.yaml" "$SCRATCH/data" \
	"hardware: {node_disk_MBps: 0.001, node_memcpy_MBps: 0.001}"
mpi 1 "$PFSREAD" generate "$SCRATCH/run.yaml" >/dev/null 2>&1 &&
	mpi 1 "$PFSREAD" run "$SCRATCH/run.yaml" -o "$SCRATCH/run.h5" --no-table >/dev/null 2>&1
ok_status $? "a real run writes its results file"
expect_status 0 "report run.h5 --brief" "$PFSREAD" report "$SCRATCH/run.h5" --brief
has "ABOVE it, the ceiling is contradicted" "a real run: its best cell contradicts the declared ceiling"
has "- ceiling contradicted: the declared figure" "and the finding says so first"
case $(head12) in *"best: "*" MB/s = "*"% of "*"(node disks, declared)"*) r=0 ;; *) r=1 ;; esac
ok_status $r "a real run: the best cell with its share of the ceiling and the limit"

expect_status 0 "report --help" "$PFSREAD" report --help
contains "--brief" "--help lists --brief"
expect_status 0 "help --completion" "$PFSREAD" help --completion
contains "--brief" "the bash completion offers --brief"
done_testing
