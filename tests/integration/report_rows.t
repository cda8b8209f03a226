#!/bin/sh
# report_rows: the report streams a phase's file rows in chunks instead of holding every
# phase's rows at once. A results file of 8 phases x 150,001 file rows (1.2 million
# rows, 77 MB as records in memory), a few of them made slow, one with no close time and one
# closed before it opened: the report's peak memory stays far below what the rows would take
# held whole, and what it derives from the rows (each phase's stonewall bytes, the slowest files
# against their phase's median) is what an independent reader (h5py) computes from them. The
# per-file CSV of it (every row) stays as far below.
. "$(dirname "$0")/lib.sh"

"$PYTHON" -c 'import h5py, numpy' 2>/dev/null || skip_all "python3 with h5py and numpy is not installed"
[ -x /usr/bin/time ] || skip_all "/usr/bin/time is not installed (Debian: time)"
H="$SCRATCH/rows.h5"
SMALL="$SCRATCH/small.h5"
ROWS=150001
check "a results file of 8 phases x $ROWS file rows" "$PYTHON" "$TOP/tests/bench/results_gen.py" \
	"$H" --datasets 2 --readers 1,2 --repetitions 2 --nodes 2 --ranks-per-node 2 --files $ROWS
check "and one of 8 phases x 100 rows" "$PYTHON" "$TOP/tests/bench/results_gen.py" \
	"$SMALL" --datasets 2 --readers 1,2 --repetitions 2 --nodes 2 --ranks-per-node 2 --files 100
check "some rows made slow (one at the first and one at the last chunk's end), one never closed, one closed before it opened" \
	"$PYTHON" -c '
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r+") as f:
    for name, rows in (("0000", {7: 40.0, 150000: 25.0, 32768: 30.0}), ("0003", {99999: 12.0}),
                       ("0005", {0: 6.0, 1: 6.0, 2: 6.0, 3: 6.0, 4: 6.0, 5: 6.0, 6: 6.0})):
        d = f["phases"][name]["files"]
        a = d[...]
        secs = a["close_end"] - a["open_start"]
        med = float(np.median(secs))
        for i, x in rows.items():
            a["close_end"][i] = a["open_start"][i] + x * med
        d[...] = a
    d = f["phases"]["0006"]["files"]
    a = d[...]
    a["close_end"][10] = float("nan")
    a["close_end"][11] = a["open_start"][11] - 1.0
    d[...] = a
' "$H"

# peak_kb FILE: the peak RSS of 'pfsread report --format json FILE' in KiB; the output in $SCRATCH/out.json
peak_kb() {
	/usr/bin/time -f %M -o "$SCRATCH/time.txt" "$PFSREAD" report --format json "$1" \
		>"$SCRATCH/out.json" 2>"$SCRATCH/err.txt" || return 1
	tail -n 1 "$SCRATCH/time.txt"
}
base=$(peak_kb "$SMALL")
ok_status $? "report of the small file (peak RSS ${base:-?} KiB)"
big=$(peak_kb "$H")
ok_status $? "report of the large file (peak RSS ${big:-?} KiB)"
rows_kb=$((8 * ROWS * 64 / 1024))
# held whole, the rows alone would add $rows_kb KiB; streamed they add 8 bytes a row (each
# file's time, for the medians and the latency chart) and one 2 MiB chunk
# (a sanitized build's allocator keeps freed memory in quarantine: its RSS says nothing here)
if ldd "$PFSREAD" 2>/dev/null | grep -q libasan; then
	pass "# skip: $PFSREAD is built with AddressSanitizer"
else
	[ -n "$base" ] && [ -n "$big" ] && [ "$big" -lt $((base + rows_kb / 2)) ]
	ok_status $? "its peak RSS ($big KiB) is below the small file's ($base KiB) plus half the rows' $rows_kb KiB"
fi

check "stonewall bytes and the slowest files are those h5py computes from the rows" "$PYTHON" -c '
import json, sys, h5py, numpy as np
run = json.load(open(sys.argv[2]))["runs"][0]
expect_slow = []
with h5py.File(sys.argv[1], "r") as f:
    for p in run["phases"]:
        g = f["phases"]["%04d" % p["index"]]
        ranks, files = g["ranks"][...], g["files"][...]
        ok = (ranks["active"] != 0) & (ranks["files"] > 0) & np.isfinite(ranks["start"]) & \
             np.isfinite(ranks["end"]) & (ranks["end"] >= ranks["start"])
        t = ranks["end"][ok].min()
        oe, re = files["open_end"], files["read_end"]
        with np.errstate(all="ignore"):
            x = np.where(re > oe, (t - oe) / (re - oe), np.where(t >= re, 1.0, 0.0))
        done = np.clip(x, 0, 1) * (np.isfinite(oe) & np.isfinite(re))
        sw = float((done * files["bytes"]).sum())
        assert abs(p["stonewall_bytes"] - sw) <= 1e-9 * sw, (p["index"], p["stonewall_bytes"], sw)
        secs = files["close_end"] - files["open_start"]
        fin = np.isfinite(secs)
        med = float(np.median(secs[fin & (secs >= 0)]))
        for i in np.flatnonzero(fin & (secs / med >= 2.0)):
            expect_slow.append((p["index"], int(files["file"][i]), float(secs[i]), med))
expect_slow.sort(key=lambda s: -s[2] / s[3])  # stable: the earlier phase and row first on a tie
got = [(s["phase"], s["file"], s["seconds"], s["median_seconds"]) for s in run["stragglers"]["files"]]
assert len(got) == 5, got
for g, e in zip(got, expect_slow[:5]):
    assert g[0] == e[0] and g[1] == e[1], (got, expect_slow[:6])
    assert abs(g[2] - e[2]) <= 1e-9 * e[2] and abs(g[3] - e[3]) <= 1e-9 * e[3], (g, e)
' "$H" "$SCRATCH/out.json"

# the per-file CSV writes every row, and holds no more of them than the report does: the rows
# of a phase it did not keep are read again and written chunk by chunk
/usr/bin/time -f %M -o "$SCRATCH/time.txt" "$PFSREAD" report --format csv --per-file "$H" \
	2>"$SCRATCH/err.txt" | wc -l >"$SCRATCH/lines.txt"
csv_kb=$(tail -n 1 "$SCRATCH/time.txt")
lines=$(cat "$SCRATCH/lines.txt")
[ "$lines" -eq $((8 * ROWS + 1)) ]
ok_status $? "report --format csv --per-file of the large file: a header and $((8 * ROWS)) rows ($lines lines)"
if ldd "$PFSREAD" 2>/dev/null | grep -q libasan; then
	pass "# skip: $PFSREAD is built with AddressSanitizer"
else
	[ -n "$base" ] && [ -n "$csv_kb" ] && [ "$csv_kb" -lt $((base + rows_kb / 2)) ] 2>/dev/null
	ok_status $? "its peak RSS (${csv_kb:-?} KiB) is below the small file's ($base KiB) plus half the rows' $rows_kb KiB"
fi

expect_status 0 "the text report of the large file" "$PFSREAD" report "$H"
contains "slowest files (2x slower" "names the slowest files"
contains "phases (times summed over ranks)" "and lists the phases"
done_testing
