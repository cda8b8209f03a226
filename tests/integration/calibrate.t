#!/bin/sh
# calibrate: every figure measured --repetitions times, the medians with their spread stored
# (h5py) and printed, a warning when the repetitions are far apart (one repetition of the disk
# read made slow by the slow.c shim: the spread is wide on any machine), and the spread carried
# into the ceilings of a report (text, JSON); a spread over 10% flagged and a ceiling the run
# beats called contradicted in every format; each rank's CPU time in a phase in the results
# file (h5py) and per GB in the report, "-" / null for a file that predates it. The disk figure
# reads in calls of the config's largest transfer size (strace counts them).
. "$(dirname "$0")/lib.sh"

"$PYTHON" -c 'import h5py, numpy' 2>/dev/null || skip_all "python3 with h5py is not installed"
command -v cc >/dev/null 2>&1 || skip_all "no C compiler for the shim"
cc -shared -fPIC -O2 -o "$SCRATCH/slow.so" tests/integration/slow.c -ldl ||
	skip_all "cannot build the shim"
# an AddressSanitizer build wants its runtime first in the preload list
asan=$(ldd "$PFSREAD" 2>/dev/null | awk '/libasan/ { print $3 }')
PRELOAD="${asan:+$asan:}$SCRATCH/slow.so"

mkdir -p "$SCRATCH/data"
small_config "$SCRATCH/cal.yaml" "$SCRATCH/data" "cache: fadvise"
SMALL="--disk-size 8MiB --mem-size 8MiB --msg-size 1MiB"

# joined: OUT with the text's wrapped lines joined, for a phrase that may be wrapped
joined() {
	OUT=$(printf '%s\n' "$OUT" | tr '\n' ' ' | sed 's/  */ /g')
}

# ---- usage ----
# shellcheck disable=SC2086
expect_status 2 "--repetitions 2 is refused" "$PFSREAD" calibrate "$SCRATCH/cal.yaml" --repetitions 2
contains "--repetitions: bad count '2' (3 to 100" "the message gives the range"
expect_status 2 "--repetitions x is refused" "$PFSREAD" calibrate "$SCRATCH/cal.yaml" --repetitions x

# ---- repetitions: every one stored, the medians, the ranges printed ----
# shellcheck disable=SC2086
expect_status 0 "calibrate --repetitions 4" mpi 1 "$PFSREAD" calibrate "$SCRATCH/cal.yaml" \
	-o "$SCRATCH/c4.h5" --repetitions 4 $SMALL
contains "disk min-max" "the table has the range of the repetitions"
joined
contains "each 4 times per node" "and says how many"
check "calibration file: version 2, 4 repetitions of each figure, the node figure their median (h5py)" \
	"$PYTHON" -c '
import h5py, math, sys, numpy as np
f = h5py.File(sys.argv[1], "r")
assert int(f.attrs["calibration_version"]) == 2, f.attrs["calibration_version"]
g = f["calibration"]
assert int(g.attrs["repetitions"]) == 4
for k in ("disk", "memcpy"):
    reps = g[k + "_MBps_reps"][()]
    assert reps.shape == (1, 4) and np.isfinite(reps).all() and (reps > 0).all(), (k, reps)
    assert math.isclose(g[k + "_MBps"][0], np.median(reps[0]), rel_tol=1e-9), (k, reps)
assert g["link_MBps_reps"].shape == (1, 4)  # one node: no pair, NaN
' "$SCRATCH/c4.h5"

# ---- the memory-copy size rule: without --mem-size, 256 MiB or 4 x the last-level cache ----
expect_status 0 "calibrate without --mem-size" mpi 1 "$PFSREAD" calibrate "$SCRATCH/cal.yaml" \
	-o "$SCRATCH/mem.h5" --repetitions 3 --disk-size 8MiB --msg-size 1MiB
check "mem_bytes: the larger of 256 MiB and 4 x llc_bytes in whole MiB (h5py)" "$PYTHON" -c '
import h5py, sys
g = h5py.File(sys.argv[1], "r")["calibration"]
llc, mem = int(g.attrs["llc_bytes"]), int(g.attrs["mem_bytes"])
mib = 1 << 20
assert mem == max(256 * mib, (4 * llc + mib - 1) // mib * mib), (mem, llc)
' "$SCRATCH/mem.h5"

# ---- a wide spread: the first two disk reads (one repetition of 8 MiB) take a second more ----
# shellcheck disable=SC2086
expect_status 0 "calibrate with one slow repetition of the disk read" \
	mpi 1 -x LD_PRELOAD="$PRELOAD" -x PFSREAD_SLOW=pread:1000 -x PFSREAD_SLOW_CALLS=2 \
	"$PFSREAD" calibrate "$SCRATCH/cal.yaml" -o "$SCRATCH/wide.h5" --repetitions 3 $SMALL
printf '%s\n' "$OUT" | grep -q "^warning: the disk figure is not stable: .* over 3 repetitions (max/min [0-9.]*, above 1.10): a read of 8 MiB .*busy\$"
ok_status $? "a warning, in one line"
contains "over 3 repetitions (max/min " "with how many and max/min"
contains "a read of 8 MiB may be served by a drive's or controller's cache" \
	"and why it may be: the read is below 256 MiB"
check "the file holds the slow repetition: max/min above 1.10 (h5py)" "$PYTHON" -c '
import h5py, sys
r = h5py.File(sys.argv[1], "r")["calibration/disk_MBps_reps"][0]
assert r.max() / r.min() > 1.1 and r.argmin() == 0, r
' "$SCRATCH/wide.h5"
expect_status 0 "report wide.h5 alone" "$PFSREAD" report "$SCRATCH/wide.h5"
contains "warning: the disk figure is not stable" "report repeats the warning"

# ---- the spread in a report's ceilings; CPU per GB ----
expect_status 0 "generate" mpi 1 "$PFSREAD" generate "$SCRATCH/cal.yaml"
expect_status 0 "run" mpi 1 "$PFSREAD" run "$SCRATCH/cal.yaml" -o "$SCRATCH/r.h5"
check "ranks table: cpu_user_s and cpu_sys_s, finite, read by h5py as it is" "$PYTHON" -c '
import h5py, sys, numpy as np
f = h5py.File(sys.argv[1], "r")
assert int(f.attrs["schema_version"]) >= 6
for name, g in f["phases"].items():
    r = g["ranks"][()]
    for k in ("cpu_user_s", "cpu_sys_s"):
        assert k in r.dtype.names and r.dtype[k] == np.float64, (name, r.dtype)
        assert np.isfinite(r[k]).all() and (r[k] >= 0).all(), (name, k, r[k])
    assert (r["cpu_user_s"] + r["cpu_sys_s"]).sum() < 3600, r
' "$SCRATCH/r.h5"
check "the h5py checker takes the file" "$PYTHON" "$CHECK_H5" "$SCRATCH/r.h5" '{"nranks": 1}'
expect_status 0 "report r.h5 wide.h5 --format json" "$PFSREAD" report "$SCRATCH/r.h5" \
	"$SCRATCH/wide.h5" --format json
printf '%s\n' "$OUT" >"$SCRATCH/r.json"
check "json: the calibrated disk figure's spread in the hardware and in each cold cell's ceiling; CPU s/GB per cell and phase" \
	"$PYTHON" -c '
import h5py, json, math, sys
d = json.load(open(sys.argv[1]))
r = h5py.File(sys.argv[2], "r")["calibration/disk_MBps_reps"][0]
run = d["runs"][0]
hw = run["hardware"]
assert math.isclose(hw["node_disk_max_over_min"], r.max() / r.min(), rel_tol=1e-9), hw
assert "NOT STABLE" in hw["source"] and "3 repetitions" in hw["source"], hw["source"]
cold = [c for c in run["cells"] if c["cache_state"] == "cold"]
assert cold, run["cells"]
for c in cold:
    assert c["ceiling"]["limit"] == "node disks", c["ceiling"]
    assert math.isclose(c["ceiling"]["limit_max_over_min"], r.max() / r.min(), rel_tol=1e-9)
for c in run["cells"]:
    assert c["cpu_s_per_GB"] is not None and c["cpu_s_per_GB"] >= 0, c
for p in run["phases"]:
    assert p["cpu_user_s"] >= 0 and p["cpu_sys_s"] >= 0 and p["cpu_s_per_GB"] >= 0, p
s = d["calibration"]["disk_spread"]
assert s["n"] == 3 and s["stable"] is False and s["max_over_min"] > 1.1, s
assert any("repetitions max/min" in a["text"] for a in d["answer"]), d["answer"]
' "$SCRATCH/r.json" "$SCRATCH/wide.h5"
expect_status 0 "report r.h5 wide.h5 (text)" "$PFSREAD" report "$SCRATCH/r.h5" "$SCRATCH/wide.h5"
joined
contains "NOT STABLE: a ceiling from it is uncertain" "text: the hardware line says the ceiling is uncertain"
contains "repetitions max/min" "text: the answer block gives the spread beside the limit"
contains "CPU [s/GB]" "text: the cells table has CPU seconds per GB"

# ---- a spread of 20% (over 10%, under 30%) is flagged; a ceiling the run beats is contradicted
# in every format. The figures are 1.0-1.2 MB/s, so that any read of the run is above them.
check "mid.h5: c4.h5 with disk and memory copy repetitions 1.0-1.2 MB/s (h5py)" "$PYTHON" -c '
import h5py, shutil, sys, numpy as np
shutil.copy(sys.argv[1], sys.argv[2])
g = h5py.File(sys.argv[2], "r+")["calibration"]
for k in ("disk", "memcpy"):
    g[k + "_MBps_reps"][0] = np.array([1.0, 1.1, 1.2, 1.15])
    g[k + "_MBps"][0] = 1.125
' "$SCRATCH/c4.h5" "$SCRATCH/mid.h5"
expect_status 0 "report mid.h5 alone" "$PFSREAD" report "$SCRATCH/mid.h5"
joined
contains "max/min 1.20, above 1.10" "a calibration 20% apart is called not stable"
expect_status 0 "report r.h5 mid.h5 (text)" "$PFSREAD" report "$SCRATCH/r.h5" "$SCRATCH/mid.h5"
joined
contains "calibration not stable: the " "text: the answer block has the finding"
contains "(max/min 1.20, above 1.10)" "with the spread and the threshold"
contains "NOT STABLE: a ceiling from it is uncertain" "text: the hardware line says so"
contains "(ceiling contradicted)" "text: the cells table marks a share above 105%"
contains "of its ceiling, above it: the ceiling is contradicted" "text: the ceilings section says so"
expect_status 0 "report r.h5 mid.h5 --format markdown" "$PFSREAD" report "$SCRATCH/r.h5" \
	"$SCRATCH/mid.h5" --format markdown
joined
contains "(ceiling contradicted)" "markdown: the cells table marks it"
contains "calibration not stable" "markdown: the finding"
expect_status 0 "report r.h5 mid.h5 --format json" "$PFSREAD" report "$SCRATCH/r.h5" \
	"$SCRATCH/mid.h5" --format json
printf '%s\n' "$OUT" >"$SCRATCH/mid.json"
check "json: every cell above 105% is contradicted, the answer flags the calibration" "$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
cells = d["runs"][0]["cells"]
assert cells and all(c["ceiling"]["efficiency"] > 1.05 for c in cells), cells
assert all(c["ceiling"]["contradicted"] is True for c in cells), cells
assert any(a["text"].startswith("calibration not stable") for a in d["answer"]), d["answer"]
assert d["calibration"]["disk_spread"]["stable"] is False
' "$SCRATCH/mid.json"
expect_status 0 "report r.h5 mid.h5 --format csv" "$PFSREAD" report "$SCRATCH/r.h5" \
	"$SCRATCH/mid.h5" --format csv
check "csv: ceiling_contradicted 1 on every cell above 105%" "$PYTHON" -c '
import csv, io, sys
rows = list(csv.DictReader(io.StringIO(sys.argv[1])))
assert rows and all(float(r["efficiency"]) > 1.05 for r in rows), rows
assert all(r["ceiling_contradicted"] == "1" for r in rows), rows
' "$OUT"
if command -v gnuplot >/dev/null 2>&1; then
	expect_status 0 "report r.h5 mid.h5 --html" "$PFSREAD" report "$SCRATCH/r.h5" \
		"$SCRATCH/mid.h5" --html "$SCRATCH/mid.html"
	check "html: the cells table marks the share above 105%" grep -q "(ceiling contradicted)" \
		"$SCRATCH/mid.html"
	check "html: the answer flags the calibration" grep -q "calibration not stable: the " \
		"$SCRATCH/mid.html"
else
	pass "# SKIP html: gnuplot is not installed"
fi
expect_status 0 "report r.h5 wide.h5 --format csv" "$PFSREAD" report "$SCRATCH/r.h5" \
	"$SCRATCH/wide.h5" --format csv
check "csv: ceiling_contradicted 0 or 1 as the share is above 105% or not" "$PYTHON" -c '
import csv, io, sys
rows = list(csv.DictReader(io.StringIO(sys.argv[1])))
assert rows and all(r["ceiling_contradicted"] == str(int(float(r["efficiency"]) > 1.05)) for r in rows), rows
' "$OUT"

# ---- older files: a calibration of version 1, results without CPU times ----
expect_status 0 "a calibration file of version 1 (one measurement) is read" \
	"$PFSREAD" report "$TOP/tests/fuzz/corpus/results/calibration-np2.h5"
joined
contains "version 1: no spread" "and says it has no spread"
check "report_h5.py writes results files of schema 1" \
	"$PYTHON" "$TOP/tests/integration/report_h5.py" "$SCRATCH"
expect_status 0 "report of a schema 1 file --format json" "$PFSREAD" report "$SCRATCH/a.h5" --format json
printf '%s\n' "$OUT" >"$SCRATCH/a.json"
check "json: CPU per GB null, not 0, where the file has no CPU times" "$PYTHON" -c '
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
assert all(c["cpu_s_per_GB"] is None for c in run["cells"]), run["cells"]
assert all(p["cpu_s_per_GB"] is None for p in run["phases"])
' "$SCRATCH/a.json"
expect_status 0 "report of a schema 1 file --format csv" "$PFSREAD" report "$SCRATCH/a.h5" --format csv
check "csv: cpu_s_per_GB empty" "$PYTHON" -c '
import csv, io, sys
rows = list(csv.DictReader(io.StringIO(sys.argv[1])))
assert rows and all(r["cpu_s_per_GB"] == "" for r in rows), rows
' "$OUT"

# ---- the disk figure reads in calls of the study's largest transfer size ----
if command -v strace >/dev/null 2>&1 && strace -f -qq -o /dev/null true 2>/dev/null; then
	small_config "$SCRATCH/xfer.yaml" "$SCRATCH/data" "cache: fadvise" \
		"sweep: {transfer_size: [16KiB, 64KiB]}"
	# shellcheck disable=SC2086
	expect_status 0 "calibrate a config of 16 and 64 KiB transfers, under strace" \
		strace -f -qq -e trace=pread64 -o "$SCRATCH/xfer.trace" "$PFSREAD" calibrate \
		"$SCRATCH/xfer.yaml" -o "$SCRATCH/xfer.h5" --repetitions 3 $SMALL
	n=$(grep -c 'pread64(.*, 65536, [0-9]*) = 65536' "$SCRATCH/xfer.trace")
	[ "$n" -eq $((3 * 8 * 16)) ]
	ok_status $? "the disk's 3 x 8 MiB are read in calls of 64 KiB ($n of $((3 * 8 * 16)))"
	check "the calibration file names the reads' size (h5py)" "$PYTHON" -c '
import h5py, sys
m = h5py.File(sys.argv[1], "r")["calibration"].attrs["disk_method"]
m = m.decode() if isinstance(m, bytes) else m
assert m.endswith(", 64 KiB reads") and m.split(",")[0] in ("O_DIRECT", "buffered after POSIX_FADV_DONTNEED"), m
' "$SCRATCH/xfer.h5"
else
	echo "# strace cannot trace here: the disk figure's read size is not checked"
fi

done_testing
