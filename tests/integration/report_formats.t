#!/bin/sh
# report_formats: what a newcomer reaches for in each format works as the docs say. --per-file
# and --per-rank write CSV by themselves; a file row names the file's path, its transfer size,
# advice and cache; a rank that read nothing has no times; the CSV of two runs carries the
# comparison the text shows. On report_h5.py's hand-made files.
. "$(dirname "$0")/lib.sh"

"$PYTHON" -c 'import h5py' 2>/dev/null || skip_all "python3 with h5py is not installed"
check "report_h5.py writes the hand-made results files" \
	"$PYTHON" "$TOP/tests/integration/report_h5.py" "$SCRATCH"
A="$SCRATCH/a.h5"
B="$SCRATCH/b.h5"

# ---- --per-file and --per-rank: CSV without asking ----
"$PFSREAD" report "$A" --per-file >"$SCRATCH/files.csv" 2>"$SCRATCH/err"
ok_status $? "report a.h5 --per-file: exit 0, no --format needed"
"$PFSREAD" report "$A" --per-rank >"$SCRATCH/ranks.csv" 2>>"$SCRATCH/err"
ok_status $? "report a.h5 --per-rank: exit 0"
expect_status 2 "--per-file with --format text is a usage error" \
	"$PFSREAD" report "$A" --per-file --format text
contains "--per-file and --per-rank write CSV" "the error says what --per-file writes"
check "per-file rows: the file's path, transfer size, advice, cache and cache state" \
	"$PYTHON" -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for k in ("path", "transfer_size_B", "advice", "cache", "cache_state"):
    assert k in rows[0], (k, list(rows[0]))
r = [r for r in rows if r["phase"] == "0" and r["file"] == "1"][0]
assert r["path"] == "/nonexistent/pfsread-report-test/big/d000000/f0000000001", r["path"]
assert r["transfer_size_B"] == "4194304" and r["cache"] == "drop", r
assert r["cache_state"] == "cold", r
warm = {r["cache_state"] for r in rows if r["phase"] == "5"}
assert warm == {"warm"}, warm
' "$SCRATCH/files.csv"
check "per-rank rows: a rank that read nothing (active 0) has no times, one that read has" \
	"$PYTHON" -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
idle = [r for r in rows if r["active"] == "0"]
busy = [r for r in rows if r["active"] == "1"]
assert idle and busy, (len(idle), len(busy))
for r in idle:
    assert r["bytes"] == "0" and r["files"] == "0", r
    for k in ("start_s", "end_s", "open_s", "read_s", "close_s", "resident_fraction"):
        assert r[k] == "", (k, r)
for r in busy:
    assert r["start_s"] != "" and r["read_s"] != "", r
' "$SCRATCH/ranks.csv"

# ---- two runs: the comparison's columns ----
"$PFSREAD" report "$A" "$B" --format csv >"$SCRATCH/ab.csv" 2>>"$SCRATCH/err"
ok_status $? "report a.h5 b.h5 --format csv: exit 0"
check "the CSV of two runs: b/a, the verdict, MDD and repetitions as the text says them" \
	"$PYTHON" -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
b = [r for r in rows if r["file"].endswith("b.h5")]
a = [r for r in rows if r["file"].endswith("a.h5")]
assert all(r["ratio"] == "" for r in a), "the first run is what the others are compared with"
big1 = [r for r in b if r["dataset"] == "big" and r["readers_per_node"] == "1"][0]
assert big1["compared_with"].endswith("a.h5"), big1
assert abs(float(big1["a_mean_MBps"]) - 116.667) < 0.01, big1
assert abs(float(big1["ratio"]) - 180 / (350 / 3)) < 1e-4, big1["ratio"]
assert big1["difference"] == "within noise", big1["difference"]
assert big1["mdd_percent"] == "399.3" and big1["reps_to_decide"] == "6", big1
big2 = [r for r in b if r["dataset"] == "big" and r["readers_per_node"] == "2"][0]
assert big2["difference"] == "1 repetition: no noise estimate", big2
huge = [r for r in b if r["dataset"] == "huge"][0]
assert huge["ratio"] == "" and huge["compared_with"] == "", "no partner: no comparison"
' "$SCRATCH/ab.csv"
"$PFSREAD" report "$A" "$B" >"$SCRATCH/ab.txt" 2>>"$SCRATCH/err"
grep -q "big, readers/node 1, cache state cold  *within noise  399%  *6" "$SCRATCH/ab.txt"
ok_status $? "the text says the same for that cell (within noise, 399%, 6)"
test ! -s "$SCRATCH/err"
ok_status $? "nothing on stderr"

# ---- --units binary: MiB/s wherever a rate is printed; MB/s stays the default ----
"$PFSREAD" report "$A" "$B" >"$SCRATCH/dec.txt" 2>>"$SCRATCH/err"
grep -q '1 reader/node \[MB/s\]' "$SCRATCH/dec.txt" && ! grep -q 'MiB/s' "$SCRATCH/dec.txt"
ok_status $? "by default rates are MB/s, and no MiB/s anywhere"
for f in text markdown; do
	"$PFSREAD" report "$A" "$B" --units binary --format $f >"$SCRATCH/bin.$f" 2>>"$SCRATCH/err"
	ok_status $? "report --units binary --format $f: exit 0"
	# MB/s only inside the config keys the no-ceiling finding names (node_link_MBps: ...)
	n=$(grep -o 'MB/s' "$SCRATCH/bin.$f" | wc -l)
	test "$n" -eq 0 && grep -q '1 reader/node \[MiB/s\]' "$SCRATCH/bin.$f" &&
		grep -q 'mean \[MiB/s\]' "$SCRATCH/bin.$f" && grep -q 'a \[MiB/s\]' "$SCRATCH/bin.$f"
	ok_status $? "$f: every heading says MiB/s, no MB/s is left ($n)"
done
# big x 1 reader/node: 116.667 MB/s = 111.26 MiB/s; the ceiling 160 MB/s = 152.6 MiB/s
grep -q '^big (100 MB files)  *111.3 (95.4-127.2)' "$SCRATCH/bin.text" &&
	grep -q 'worst: small x 2 readers/node: 95 MiB/s = 62.5% of 153 (server disks' "$SCRATCH/bin.text" &&
	grep -q '4 servers x 38.147 MiB/s' "$SCRATCH/bin.text"
ok_status $? "text: the figures are MiB/s (116.7 MB/s as 111.3, a ceiling of 160 as 153, 40 MB/s per disk as 38.147), shares unchanged"
"$PFSREAD" report "$A" "$B" --units binary --format json >"$SCRATCH/bin.json" 2>>"$SCRATCH/err"
ok_status $? "report --units binary --format json: exit 0"
check "json: rate_unit MiB/s, every rate key _MiBps with MiB/s figures, none _MBps" "$PYTHON" -c '
import json, sys
text = open(sys.argv[1]).read()
d = json.loads(text)
assert list(d)[:2] == ["answer", "rate_unit"] and d["rate_unit"] == "MiB/s", list(d)[:3]
assert "MBps\"" not in text and "_MBps\":" not in text, "a key still says MBps"
c = [c for c in d["runs"][0]["cells"] if c["dataset"] == "big" and c["readers_per_node"] == 1][0]
assert abs(c["mean_MiBps"] - 116.6666667e6 / 2**20) < 1e-3, c["mean_MiBps"]
assert abs(c["ceiling"]["MiBps"] - 160e6 / 2**20) < 1e-3, c["ceiling"]
assert abs(d["runs"][0]["hardware"]["node_link_MiBps"] - 100e6 / 2**20) < 1e-6
p = d["comparisons"][0]["pairs"][0]
assert abs(p["ratio"] - 180 / (350 / 3)) < 1e-6 and "mdd_MiBps" in p, p
' "$SCRATCH/bin.json"
"$PFSREAD" report "$A" --format json >"$SCRATCH/dec.json" 2>>"$SCRATCH/err"
check "json by default: rate_unit MB/s, _MBps keys" "$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["rate_unit"] == "MB/s" and "mean_MBps" in d["runs"][0]["cells"][0], d["rate_unit"]
' "$SCRATCH/dec.json"
"$PFSREAD" report "$A" "$B" --units binary --format csv >"$SCRATCH/bin.csv" 2>>"$SCRATCH/err"
check "csv: headings _MiBps with MiB/s figures, the comparison's too" "$PYTHON" -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert not [k for k in rows[0] if "MBps" in k], list(rows[0])
r = [r for r in rows if r["dataset"] == "big" and r["readers_per_node"] == "1"]
assert abs(float(r[0]["mean_MiBps"]) - 111.262) < 0.001, r[0]["mean_MiBps"]
assert abs(float(r[1]["a_mean_MiBps"]) - 111.262) < 0.001, r[1]["a_mean_MiBps"]
' "$SCRATCH/bin.csv"
expect_status 2 "--units with another word is a usage error" "$PFSREAD" report "$A" --units iec
contains "use decimal, binary" "the error names both units"
# a calibration's figures, spreads and warnings, and the ceilings it sets
mkdir -p "$SCRATCH/data"
small_config "$SCRATCH/cal.yaml" "$SCRATCH/data"
if mpi 1 "$PFSREAD" calibrate "$SCRATCH/cal.yaml" -o "$SCRATCH/calib.h5" --disk-size 4MiB \
	--mem-size 4MiB --msg-size 64KiB >/dev/null 2>&1; then
	"$PFSREAD" report "$SCRATCH/b.h5" "$SCRATCH/calib.h5" --units binary >"$SCRATCH/cal.txt" 2>&1
	ok_status $? "report b.h5 calib.h5 --units binary: exit 0"
	! grep -q "MB/s" "$SCRATCH/cal.txt" && grep -q "disk \[MiB/s\]" "$SCRATCH/cal.txt" &&
		grep -q "node disk [0-9.]* MiB/s (5 repetitions: [0-9.]*-[0-9.]*, max/min" "$SCRATCH/cal.txt"
	ok_status $? "the calibration's table, its hardware note and warnings in MiB/s, no MB/s"
else
	fail "calibrate (mpirun, 1 rank) for the units check"
fi
if command -v gnuplot >/dev/null 2>&1; then
	"$PFSREAD" report "$A" "$B" --units binary --plot "$SCRATCH/binplots" \
		--html "$SCRATCH/bin.html" >/dev/null 2>>"$SCRATCH/err"
	grep -q "bandwidth \[MiB/s\]" "$SCRATCH/binplots/a.gp" &&
		grep -q "bandwidth \[MiB/s\]" "$SCRATCH/binplots/overlay.gp" &&
		! grep -q "MB/s" "$SCRATCH/binplots/a.gp" "$SCRATCH/binplots/overlay.gp" &&
		grep -q '^1 111.262' "$SCRATCH/binplots/a-bandwidth.dat"
	ok_status $? "charts: axes in MiB/s and their data too"
	! sed 's/[a-z_]*_MBps//g' "$SCRATCH/bin.html" | grep -q "MB/s" &&
		grep -q "\[MiB/s\]" "$SCRATCH/bin.html"
	ok_status $? "the page: MiB/s everywhere"
fi

# ---- the HTML page: each fact once, every table within a 1280 px window ----
cp "$A" "$SCRATCH/env.h5"
check "h5py gives a copy of a.h5 the environment a run records, and a job id" "$PYTHON" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r+")
f.attrs["job_id"] = "4711"
e = f.require_group("environment")
for k, v in {"pfsread_version": "0.1.0", "fs_type": "glusterfs (fuse)",
             "fs_mount_type": "fuse.glusterfs", "fs_mount_source": "10.77.0.10:/vol",
             "fs_mount_point": "/mnt/gv0", "fs_mount_options": "rw,relatime",
             "fs_atime_mode": "relatime", "kernel": "Linux 6.1 x86_64"}.items():
    e.attrs[k] = v
' "$SCRATCH/env.h5"
"$PFSREAD" report "$SCRATCH/env.h5" --html "$SCRATCH/env.html" 2>>"$SCRATCH/err"
ok_status $? "report env.h5 --html: exit 0"
n=$(grep -c 'job id' "$SCRATCH/env.html")
test "$n" -eq 1
ok_status $? "the job id is shown once ($n)"
n=$(grep -Ec '<th class="l">(fs_type|fs_mount_point|fs_mount_options|fs_atime_mode|pfsread_version)</th>|atime mode of the data' "$SCRATCH/env.html")
test "$n" -eq 0 && grep -q '<li>fs: glusterfs (fuse) (atime: relatime)</li>' "$SCRATCH/env.html" &&
	grep -q '<li>mount: /mnt/gv0 rw,relatime</li>' "$SCRATCH/env.html"
ok_status $? "file system, mount, atime mode and version in the header, not again in the environment ($n repeated)"
grep -q '<th class="l">kernel</th><td class="l">Linux 6.1 x86_64</td>' "$SCRATCH/env.html"
ok_status $? "what the header does not show stays in the environment (kernel)"

# ---- charts: legends below the plot, whole bars, the ranks' axis, names that say, no empty log ----
if command -v gnuplot >/dev/null 2>&1; then
	"$PFSREAD" report "$A" "$B" --plot "$SCRATCH/plots" >/dev/null 2>>"$SCRATCH/err"
	ok_status $? "report a.h5 b.h5 --plot: exit 0"
	test -z "$(find "$SCRATCH/plots" -name '*gnuplot.log')"
	ok_status $? "no empty gnuplot log is left ($(cd "$SCRATCH/plots" && ls | grep log | tr '\n' ' '))"
	n=0
	for x in png svg pdf dat; do test -s "$SCRATCH/plots/overlay-posix.$x" && n=$((n + 1)); done
	test "$n" -eq 4
	ok_status $? "the overlay's files are named by the backend they overlay (overlay-posix.*)"
	test -z "$(find "$SCRATCH/plots" -name 'overlay-[0-9]*')"
	ok_status $? "no overlay file named by a number"
	! grep -q 'set key outside' "$SCRATCH/plots/a.gp" "$SCRATCH/plots/overlay.gp" &&
		test "$(grep -c 'set key below' "$SCRATCH/plots/a.gp")" -eq 2 &&
		grep -q 'set key below' "$SCRATCH/plots/overlay.gp"
	ok_status $? "legends below the plot (bandwidth, nodes, overlay), none beside it"
	check "95% bars: none reaches below 0 (where the axis ends), room above the highest" \
		"$PYTHON" -c '
import re, sys
rows = [l.split() for l in open(sys.argv[1]) if l[:1].isdigit()]
assert rows and all(float(r[2]) >= 0 and float(r[2]) <= float(r[1]) <= float(r[3]) for r in rows), rows
assert any(float(r[1]) - float(r[2]) < float(r[3]) - float(r[1]) for r in rows), "a bar cut at 0"
for gp in sys.argv[2:]:
    offs = re.findall(r"set offsets ([^\n]*)", open(gp).read())
    assert offs and all(re.split(r"\s*,\s*", o)[2].startswith("graph 0.0") and
                        not re.split(r"\s*,\s*", o)[2].startswith("graph 0.00") for o in offs), (gp, offs)
' "$SCRATCH/plots/overlay-posix.dat" "$SCRATCH/plots/overlay.gp" "$SCRATCH/plots/a.gp"
	grep -q 'set yrange \[-0.5:3.5\]' "$SCRATCH/plots/a.gp" && grep -q 'set ytics 0, 1, 3' "$SCRATCH/plots/a.gp"
	ok_status $? "the timeline's axis spans the 4 ranks and no more"
	"$PFSREAD" report "$A" "$B" --html "$SCRATCH/ab.html" >/dev/null 2>>"$SCRATCH/err"
	grep -q '<figure class="chart" id="overlay-posix">' "$SCRATCH/ab.html"
	ok_status $? "the page holds the overlay by its name"
else
	pass "# SKIP gnuplot is not installed: no charts to check"
fi

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$CHROMIUM" ] && command -v gnuplot >/dev/null 2>&1; then
	for f in env b; do
		[ -f "$SCRATCH/$f.html" ] || "$PFSREAD" report "$SCRATCH/$f.h5" --html "$SCRATCH/$f.html" 2>>"$SCRATCH/err"
		profile=$(mktemp -d "$SCRATCH/profile.XXXXXX")
		# #check opens every folded section: the phases table is measured as drawn
		timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
			--disable-background-networking --disable-component-update --disable-sync \
			--no-first-run --user-data-dir="$profile" --virtual-time-budget=5000 \
			--window-size=1280,800 --dump-dom "file://$SCRATCH/$f.html#check" \
			>"$SCRATCH/dom" 2>/dev/null
		x=$(grep -o 'data-overflow-x="[0-9]*"' "$SCRATCH/dom" | tr -dc 0-9)
		test "$x" = 0
		ok_status $? "$f.html at 1280x800, every section open: no sideways scrolling (${x:-?} px too wide)"
	done
else
	pass "# SKIP chromium or gnuplot is not installed: the page's width is not measured"
fi
done_testing
