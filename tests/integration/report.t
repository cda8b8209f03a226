#!/bin/sh
# report: `pfsread report` on results files with known timings written by h5py
# (report_h5.py), every expected figure worked out by hand below; csv and json parsed back by
# python; two runs compared; ceilings from the config's hardware block and from a calibration
# made under mpirun on two "nodes"; charts written by gnuplot and checked as PNG and SVG; bad
# files refused with a clear message.
. "$(dirname "$0")/lib.sh"

"$PYTHON" -c 'import h5py' 2>/dev/null || skip_all "python3 with h5py is not installed"
check "report_h5.py writes the hand-made results files" \
	"$PYTHON" "$TOP/tests/integration/report_h5.py" "$SCRATCH"
A="$SCRATCH/a.h5"
B="$SCRATCH/b.h5"

# ---- text ----
expect_status 0 "report a.h5 (text)" "$PFSREAD" report "$A"
contains "statistics per cell" "text: the statistics per cell"
contains "1 MB files: 50.0% of reader time in open+close" \
	"text: small files spend 50% in open+close (10+10 ms of 40 ms per file)"
contains "server disks (the ceiling)" "text: the limiting resource is named"
contains "n2 (ranks 2-3)" "text: the slowest node by host name and ranks"
contains "WARM" "text: the warm repetition has its own table"

# ---- csv, parsed back ----
expect_status 0 "report --format csv" "$PFSREAD" report "$A" --format csv
printf '%s\n' "$OUT" >"$SCRATCH/a.csv"
check "csv: cells, statistics and ceilings as worked out by hand" "$PYTHON" -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 4, len(rows)
def cell(ds, rpn, warm):
    m = [r for r in rows if r["dataset"] == ds and r["readers_per_node"] == str(rpn)
         and r["warm"] == str(warm)]
    assert len(m) == 1, (ds, rpn, warm, m)
    return m[0]
def near(a, b, tol=2e-3):
    assert abs(float(a) - b) <= tol * max(1, abs(b)), (a, b)
c = cell("big", 1, 0)   # 4e8 B in 4 s and in 3 s: 100 and 133.333 MB/s
assert c["n"] == "2"
near(c["mean_MBps"], 116.6667); near(c["min_MBps"], 100); near(c["max_MBps"], 133.3333)
near(c["sd_MBps"], 23.5702)          # 33.333 / sqrt 2
near(c["ci95_MBps"], 211.7667)       # 12.706 x 23.5702 / sqrt 2
# stonewall: rep 0 3e8 B by 2 s = 150; rep 1 (2e8 + 1e8 + 1e8/3) by 2 s = 166.667
near(c["stonewall_MBps"], 158.3333); near(c["spread_s"], 1.5)
near(c["ceiling_MBps"], 160)         # 4 servers x 40 MB/s < 2 nodes x 100 MB/s < 4 x 1000
assert c["limit"] == "server disks", c["limit"]
near(c["efficiency"], 0.729167)      # 116.667 / 160
c = cell("big", 2, 0)   # 400 and 200 MB/s; stonewall 400 and 3.5e8 B by 1 s = 350
near(c["mean_MBps"], 300); near(c["sd_MBps"], 141.4214); near(c["stonewall_MBps"], 375)
c = cell("small", 2, 0) # 8 files of 1 MB in 0.08 s
near(c["mean_MBps"], 100); near(c["files_per_s"], 100); near(c["metadata_fraction"], 0.5)
assert c["sd_MBps"] == "" and c["ci95_MBps"] == "", "1 repetition: no sd, no interval"
c = cell("big", 2, 1)   # the warm repetition: 4e8 B in 0.25 s, 97% resident
near(c["mean_MBps"], 1600); near(c["resident_fraction"], 0.97)
assert c["ceiling_MBps"] == "" and c["limit"] == "", "warm, no memory-copy figure: no ceiling"
' "$SCRATCH/a.csv"

# ---- json, parsed back ----
expect_status 0 "report --format json" "$PFSREAD" report "$A" --format json
printf '%s\n' "$OUT" >"$SCRATCH/a.json"
check "json: ceilings, nodes, stragglers, phases as worked out by hand" "$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
run = d["runs"][0]
def near(a, b, tol=1e-6):
    assert abs(a - b) <= tol * max(1, abs(b)), (a, b)
hw = run["hardware"]
assert hw["node_link_MBps"] == 100 and hw["storage_servers"] == 4 and "declared" in hw["source"]
big1 = [c for c in run["cells"] if c["dataset"] == "big" and c["readers_per_node"] == 1][0]
terms = {t["resource"]: t["MBps"] for t in big1["ceiling"]["terms"]}
assert terms == {"reader links": 200, "server links": 4000, "server disks": 160}, terms
assert big1["ceiling"]["limit"] == "server disks"
near(big1["ceiling"]["efficiency"], 116.66666666 / 160, 1e-6)
p1 = run["phases"][1]                 # rank 0 done at 2 s; f3 1/3 read
near(p1["stonewall_MBps"], 166.6666667); near(p1["first_finish_s"], 2); near(p1["spread_s"], 1)
near(run["phases"][4]["metadata_fraction"], 0.5)
sn = run["stragglers"]["nodes"][0]    # phase 0: n1 2e8 B / 2 s = 100, n2 2e8 B / 4 s = 50
assert sn["phase"] == 0 and sn["host"] == "n2", sn
near(sn["MBps"], 50); near(sn["median_MBps"], 75); near(sn["times_slower"], 1.5)
sf = run["stragglers"]["files"][0]    # phase 3: rank 3 took 2 s, the median file 1 s
assert sf["phase"] == 3 and sf["file"] == 3 and sf["rank"] == 3 and sf["host"] == "n2", sf
near(sf["seconds"], 2); near(sf["median_seconds"], 1); near(sf["times_slower"], 2)
small = [k for k in run["size_classes"] if k["file_size_B"] == 1000000][0]
near(small["open_s_per_file"], 0.01); near(small["read_s_per_file"], 0.02)
near(small["metadata_fraction"], 0.5)
assert [n["host"] for n in run["nodes"]] == ["n1", "n2"]
assert d["comparisons"] == [] and d["calibration"] is None
' "$SCRATCH/a.json"

# ---- per-file and per-rank records as CSV ----
expect_status 0 "report --format csv --per-file" "$PFSREAD" report "$A" --format csv --per-file
printf '%s\n' "$OUT" >"$SCRATCH/files.csv"
expect_status 0 "report --format=csv --per-rank" "$PFSREAD" report "$A" --format=csv --per-rank
printf '%s\n' "$OUT" >"$SCRATCH/ranks.csv"
check "the CSV records match the results file's (h5py): one row per file and per rank record" \
	"$PYTHON" -c '
import csv, h5py, sys
f = h5py.File(sys.argv[1], "r")
files = list(csv.DictReader(open(sys.argv[2])))
ranks = list(csv.DictReader(open(sys.argv[3])))
nf = sum(len(p["files"]) for p in f["phases"].values())
nr = sum(len(p["ranks"]) for p in f["phases"].values())
assert len(files) == nf and len(ranks) == nr, (len(files), nf, len(ranks), nr)
p0 = f["phases/0000"]
r0 = [r for r in files if r["phase"] == "0"]
assert [int(r["file"]) for r in r0] == list(p0["files"]["file"]), "phase 0 files in order"
assert abs(float(r0[0]["close_end_s"]) - p0["files"]["close_end"][0]) < 1e-6
assert sum(int(r["bytes"]) for r in r0) == sum(int(b) for b in p0["files"]["bytes"])
hosts = {r["host"] for r in ranks}
assert hosts == {"n1", "n2"}, hosts
' "$A" "$SCRATCH/files.csv" "$SCRATCH/ranks.csv"
expect_status 2 "--per-file with --format json is a usage error (it writes CSV)" \
	"$PFSREAD" report "$A" --per-file --format json
# /topology/hostname written by another tool as variable-length strings (h5py's default)
cp "$A" "$SCRATCH/vlen.h5"
check "h5py rewrites /topology/hostname as variable-length UTF-8 strings" "$PYTHON" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r+")
assert f["topology/hostname"].dtype.kind == "S", f["topology/hostname"].dtype  # pfsread: fixed
del f["topology/hostname"]
f.create_dataset("topology/hostname", data=["höst-1", "host-2"], dtype=h5py.string_dtype())
' "$SCRATCH/vlen.h5"
expect_status 0 "the reader takes variable-length host names too" \
	"$PFSREAD" report "$SCRATCH/vlen.h5" --format csv --per-rank
contains ",höst-1," "variable-length: the first host name read"
contains ",host-2," "variable-length: the second host name read"

# ---- markdown ----
expect_status 0 "report --format markdown" "$PFSREAD" report "$A" --format markdown
contains "| --- |" "markdown: pipe tables"
# GitHub-flavoured markdown reads a line right after a table as one more row: a blank line
# ends every table (one run, and two compared)
md_table_ends() {
	printf '%s\n' "$OUT" | awk '/^\|/ { t = 1; next } t && $0 != "" { bad++; print "#   " $0 } { t = 0 }
		END { exit bad > 0 }'
}
md_table_ends
ok_status $? "markdown: a blank line after every table"
expect_status 0 "report a.h5 b.h5 --format markdown" "$PFSREAD" report "$A" "$B" --format markdown
md_table_ends
ok_status $? "markdown, two runs: a blank line after every table"

# ---- comparison of two runs ----
expect_status 0 "report a.h5 b.h5 (text)" "$PFSREAD" report "$A" "$B"
long=$(printf '%s\n' "$OUT" | awk 'length($0) > 100' | wc -l)
test "$long" -eq 0
ok_status $? "text: every line fits 100 columns ($long do not)"
first=$(printf '%s\n' "$OUT" | grep -v '^$' | head -1)
test "$first" = "answer for $A: is this figure reasonable, and why"
ok_status $? "the answer block opens the report (first line: $first)"
cmp_at=$(printf '%s\n' "$OUT" | grep -n '^comparison: b against a (ratio b/a)$' | head -1 | cut -d: -f1)
run_at=$(printf '%s\n' "$OUT" | grep -n '^results  ' | head -1 | cut -d: -f1)
test -n "$cmp_at" && test -n "$run_at" && test "$cmp_at" -lt "$run_at"
ok_status $? "the comparison follows it, before the first run's table (${cmp_at:-?} < ${run_at:-?})"
before=$(printf '%s\n' "$OUT" | sed -n '/^results  /q;p' | tr '\n' ' ' | tr -s ' ')
case $before in *"answer: b/a "*"beyond noise"*) r=0 ;; *) r=1 ;; esac
ok_status $r "the answer (median ratio, beyond noise or not) comes before the first run's table"
case $before in *"minimum detectable difference"*) r=0 ;; *) r=1 ;; esac
ok_status $r "the answer says the minimum detectable difference"
contains "  MDD  reps" "comparison: the MDD and repetitions columns"
expect_status 0 "report a.h5 b.h5 --wide" "$PFSREAD" report "$A" "$B" --wide
long=$(printf '%s\n' "$OUT" | awk 'length($0) > 100' | wc -l)
test "$long" -gt 0
ok_status $? "--wide keeps the wide tables whole ($long lines over 100 columns)"
contains "cache differs: drop in $A, fadvise in $B (compared anyway)" \
	"comparison: the differing cache strategy said plainly"
contains "only in $B: data set huge" "comparison: a data set only in b named"
contains "only in $A: data set small" "comparison: a data set only in a named"
contains "1 repetition: no noise estimate" "comparison: one repetition has no noise estimate"
contains "within noise" "comparison: overlapping intervals are noise"
expect_status 0 "report a.h5 b.h5 --format json" "$PFSREAD" report "$A" "$B" --format json
printf '%s\n' "$OUT" >"$SCRATCH/ab.json"
check "comparison json: ratios and noise as worked out by hand" "$PYTHON" -c '
import json, sys
cmp = json.load(open(sys.argv[1]))["comparisons"][0]
assert cmp["differing_keys"] == ["cache"], cmp["differing_keys"]
pairs = {(p["a"]["dataset"], p["a"]["readers_per_node"]): p for p in cmp["pairs"]}
assert set(pairs) == {("big", 1), ("big", 2)}, pairs.keys()
p = pairs[("big", 1)]                 # b: 160 and 200 MB/s, a: 100 and 133.333
assert abs(p["ratio"] - 180 / 116.6666667) < 1e-6 and p["beyond_noise"] is False, p
p = pairs[("big", 2)]                 # b: 800 once, a: 400 and 200
assert abs(p["ratio"] - 800 / 300) < 1e-6 and p["beyond_noise"] is None, p
assert sorted((c["dataset"], c["warm"]) for c in cmp["only_in_a"]) == [("big", True), ("small", False)]
assert [c["dataset"] for c in cmp["only_in_b"]] == ["huge"]
' "$SCRATCH/ab.json"

# ---- bad files: clear message, non-zero exit ----
expect_status 1 "an HDF5 file that is not a pfsread results file is refused" \
	"$PFSREAD" report "$SCRATCH/empty.h5"
contains "not a pfsread results file" "the message says so"
expect_status 1 "a file from a future schema is refused" "$PFSREAD" report "$SCRATCH/future.h5"
contains "schema version 99 not supported" "the message names the version"
head -c 3000 "$A" >"$SCRATCH/cut.h5"
expect_status 1 "a truncated file is refused" "$PFSREAD" report "$SCRATCH/cut.h5"
contains "$SCRATCH/cut.h5" "the message names the file"
echo "not hdf5" >"$SCRATCH/text.h5"
expect_status 1 "a text file is refused" "$PFSREAD" report "$SCRATCH/text.h5"
contains "not an HDF5 file" "the message says it is not HDF5"
expect_status 2 "an unknown option is a usage error" "$PFSREAD" report "$A" --plots x

# ---- charts ----
expect_status 0 "report --plot DIR" "$PFSREAD" report "$A" "$B" --plot "$SCRATCH/plots"
contains "charts written to $SCRATCH/plots/" "--plot says where it wrote"
check "8 charts (4 per run) are PNG with more than a few colours and SVG with drawn paths" \
	"$PYTHON" -c '
import os, struct, sys, zlib
import xml.etree.ElementTree as ET
def png_colours(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path + ": no PNG signature"
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR": ihdr = struct.unpack(">IIBBBBB", body)
        if kind == b"IDAT": idat += body
        pos += 12 + n
    w, h, depth, ctype = ihdr[:4]
    assert depth == 8 and ctype in (2, 6), (path, depth, ctype)
    bpp = 3 if ctype == 2 else 4
    raw, stride, prev, seen, at = zlib.decompress(idat), w * bpp, bytearray(w * bpp), set(), 0
    for y in range(h):
        f, line = raw[at], bytearray(raw[at + 1:at + 1 + stride]); at += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0; b = prev[i]; c = prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        if y % 4 == 0:
            seen.update(bytes(line[i:i + bpp]) for i in range(0, stride, bpp * 2))
        prev = line
    return len(seen)
d = sys.argv[1]
for run in ("a", "b"):
    for chart in ("bandwidth", "timeline", "latency", "nodes"):
        base = os.path.join(d, run + "-" + chart)
        n = png_colours(base + ".png")
        assert n > 3, "%s.png: only %d colours: blank" % (base, n)
        root = ET.parse(base + ".svg").getroot()
        assert root.tag.endswith("svg"), base
        drawn = [e for e in root.iter() if e.tag.split("}")[-1] in ("path", "polyline", "polygon", "rect")]
        assert len(drawn) > 5, "%s.svg: %d drawing elements" % (base, len(drawn))
        assert "[MB/s]" in open(base + ".svg").read() or chart in ("timeline", "latency"), base
        assert os.path.exists(base + ".dat")
' "$SCRATCH/plots"
grep -q "readers per node" "$SCRATCH/plots/a-bandwidth.svg" && grep -q "test.yaml" "$SCRATCH/plots/a-bandwidth.svg"
ok_status $? "the bandwidth chart has its axis label and a title saying what was run"
check "the overlay of the two runs: PNG, SVG and PDF per backend, a line per run and data set told apart by colour and dash, ticks at the readers measured, units on the axis" \
	"$PYTHON" -c '
import glob, os, re, sys
d = sys.argv[1]
pngs = sorted(glob.glob(os.path.join(d, "overlay-*.png")))
assert pngs, "no overlay chart"
for png in pngs:
    base = png[:-4]
    assert open(base + ".pdf", "rb").read(5) == b"%PDF-", base + ".pdf"
    assert os.path.getsize(png) > 1000
    svg = open(base + ".svg").read()
    assert "aggregate read bandwidth [MB/s]" in svg and "readers per node" in svg, base
    gp = open(os.path.join(d, "overlay.gp")).read()
    colours = set(re.findall(r"lc rgb .(#[0-9A-Fa-f]{6})", gp))
    dashes = set(re.findall(r" dt (\d+)", gp))
    assert len(colours) >= 2 and len(dashes) >= 2, (colours, dashes)
    assert "#F0E442" not in colours and "yellow" not in gp, "no yellow on white"
    assert "yerrorlines" in gp and "set key below" in gp
    tics = re.findall(r"set xtics \((.*)\)", gp)[0]
    measured = sorted({int(l.split()[4]) for l in open(base + ".dat") if l[:1].isdigit()})
    assert [int(t) for t in re.findall(r" (\d+)(?:,|$)", tics)] == measured, (tics, measured)
' "$SCRATCH/plots"
expect_status 1 "no gnuplot on PATH: a clear error" env PATH=/nonexistent "$PFSREAD" report "$A" --plot "$SCRATCH/plots2"
contains "gnuplot not found" "the message names gnuplot"

# ---- calibration on two "nodes", then ceilings from it ----
fake_nodes 2 2
mkdir -p "$SCRATCH/data"
small_config "$SCRATCH/cal.yaml" "$SCRATCH/data"
expect_status 0 "calibrate on 2 nodes (small sizes)" mpi_nodes 1 -np 2 "$PFSREAD" calibrate \
	"$SCRATCH/cal.yaml" -o "$SCRATCH/calib.h5" --disk-size 8MiB --mem-size 8MiB --msg-size 1MiB
contains "memory copy [MB/s]" "calibrate prints what it measured"
expect_status 2 "calibrate refuses to overwrite its file without --force" mpi_nodes 1 -np 2 \
	"$PFSREAD" calibrate "$SCRATCH/cal.yaml" -o "$SCRATCH/calib.h5"
contains "--force" "the message says how to overwrite"
test -z "$(find "$SCRATCH/data" -name '.pfsread-calibrate*')"
ok_status $? "the temporary disk file was removed"
check "calibration file: disk, memory copy and link figures for both nodes (h5py)" "$PYTHON" -c '
import h5py, math, sys
g = h5py.File(sys.argv[1], "r")["calibration"]
for k in ("disk_MBps", "memcpy_MBps", "link_MBps"):
    v = g[k][:]
    assert len(v) == 2 and all(math.isfinite(x) and x > 0 for x in v), (k, v)
assert len(g["pairs"]) == 2 and sorted((p["from"], p["to"]) for p in g["pairs"]) == [(0, 1), (1, 0)]
' "$SCRATCH/calib.h5"
expect_status 0 "report calib.h5 alone shows the calibration" "$PFSREAD" report "$SCRATCH/calib.h5"
contains "calibration: $SCRATCH/calib.h5" "report calib.h5: the calibration's heading"
contains "memory copy [MB/s]" "report calib.h5: its figures"
expect_status 0 "paths are printed normalized" "$PFSREAD" report "$SCRATCH/./calib.h5"
contains "calibration: $SCRATCH/calib.h5" "report DIR/./calib.h5 prints DIR/calib.h5"
expect_status 0 "report b.h5 calib.h5 --format json" "$PFSREAD" report "$B" "$SCRATCH/calib.h5" --format json
printf '%s\n' "$OUT" >"$SCRATCH/bc.json"
check "measured figures become b's ceilings: 2 nodes x the mean disk figure" "$PYTHON" -c '
import h5py, json, sys
disk = h5py.File(sys.argv[2], "r")["calibration/disk_MBps"][:].mean()
d = json.load(open(sys.argv[1]))
run = d["runs"][0]
assert "measured" in run["hardware"]["source"], run["hardware"]
huge = [c for c in run["cells"] if c["dataset"] == "huge"][0]
assert huge["ceiling"]["limit"] == "node disks", huge["ceiling"]
assert abs(huge["ceiling"]["MBps"] - 2 * disk) < 1e-6 * disk, (huge["ceiling"]["MBps"], disk)
assert len(d["calibration"]["nodes"]) == 2 and d["calibration"]["link_MBps"] > 0
' "$SCRATCH/bc.json" "$SCRATCH/calib.h5"
expect_status 0 "report remote.h5 calib.h5 --format json (data root on GlusterFS)" \
	"$PFSREAD" report "$SCRATCH/remote.h5" "$SCRATCH/calib.h5" --format json
printf '%s\n' "$OUT" >"$SCRATCH/rc.json"
check "a network file system: the links bound it, the calibration's disk figure is one reader through the file system, no node disks" "$PYTHON" -c '
import h5py, json, sys
g = h5py.File(sys.argv[2], "r")["calibration"]
disk, link = g["disk_MBps"][:].mean(), g["link_MBps"][:].mean()
run = json.load(open(sys.argv[1]))["runs"][0]
hw = run["hardware"]
assert hw["data_remote"] is True and "crosses the reading node" in hw["source"], hw
assert hw["node_disk_MBps"] is None and abs(hw["reader_MBps"] - disk) < 1e-6 * disk, hw
huge = [c for c in run["cells"] if c["dataset"] == "huge"][0]
terms = {t["resource"]: t["MBps"] for t in huge["ceiling"]["terms"]}
assert "node disks" not in terms, terms
assert abs(terms["reader links"] - 2 * link) < 1e-6 * link, (terms, link)
assert abs(terms["per-reader rate"] - 2 * disk) < 1e-6 * disk, (terms, disk)
' "$SCRATCH/rc.json" "$SCRATCH/calib.h5"
expect_status 2 "two calibration files are refused" \
	"$PFSREAD" report "$B" "$SCRATCH/calib.h5" "$SCRATCH/calib.h5"
done_testing
