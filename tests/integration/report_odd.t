#!/bin/sh
# report_odd: figures that cannot be true in a results file (damaged, or made by hand): a
# phase with a negative elapsed time and bandwidth, one whose bandwidth is NaN, a cell made
# only of such phases. The report flags each phase INVALID with the reason, leaves it out of
# every statistic, and prints "-" where a figure does not exist (never "nan").
. "$(dirname "$0")/lib.sh"

"$PYTHON" -c 'import h5py' 2>/dev/null || skip_all "python3 with h5py is not installed"
H="$SCRATCH/odd.h5"
check "a results file with impossible figures" "$PYTHON" -c '
import sys
sys.path.insert(0, sys.argv[2])
import h5py, report_h5
report_h5.run_a(sys.argv[1])
with h5py.File(sys.argv[1], "r+") as f:
    p = f["phases"]
    p["0001"].attrs["elapsed_s"] = -3.0           # big x 1 reader/node, repetition 1
    p["0001"].attrs["bandwidth_MBps"] = -133.3
    p["0004"].attrs["bandwidth_MBps"] = float("nan")  # small x 2: the cell has only this one
' "$H" "$TOP/tests/integration"

expect_status 0 "report of the file (text)" "$PFSREAD" report "$H"
printf '%s\n' "$OUT" >"$SCRATCH/odd.txt"
if grep -qiw 'nan\|-nan\|inf' "$SCRATCH/odd.txt"; then
	fail "no nan or inf printed"
	grep -inw 'nan\|-nan\|inf' "$SCRATCH/odd.txt" | sed 's/^/#   /' | head
else
	pass "no nan or inf printed"
fi
contains "complete, INVALID: negative elapsed time" "the phase with a negative time is flagged in the phases table"
contains "phase 0001 is INVALID (negative elapsed time" "and said so below it"
contains "complete, INVALID: bandwidth not a number" "the NaN bandwidth is flagged"
grep -q '^big (100 MB files) *100.0  ' "$SCRATCH/odd.txt" && ! grep -q '^small (1 MB files)  ' "$SCRATCH/odd.txt"
ok_status $? "the study table averages only valid phases, and has no row for a cell without one"

expect_status 0 "report --format json" "$PFSREAD" report "$H" --format json
printf '%s\n' "$OUT" >"$SCRATCH/odd.json"
check "json: invalid phases carry the reason and are left out of the cells" "$PYTHON" -c '
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
inv = {p["index"]: p["invalid"] for p in run["phases"]}
assert inv[1] == "negative elapsed time" and inv[4] == "bandwidth not a number", inv
assert all(v is None for k, v in inv.items() if k not in (1, 4)), inv
cells = {(c["dataset"], c["readers_per_node"], c["warm"]): c for c in run["cells"]}
assert ("small", 2, False) not in cells, "a cell of invalid phases only"
c = cells[("big", 1, False)]
assert c["n"] == 1 and abs(c["mean_MBps"] - 100) < 1e-6, c   # repetition 0 alone
' "$SCRATCH/odd.json"

expect_status 0 "report --format csv" "$PFSREAD" report "$H" --format csv
printf '%s\n' "$OUT" >"$SCRATCH/odd.csv"
check "csv: no negative or missing bandwidth" "$PYTHON" -c '
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    assert float(r["mean_MBps"]) > 0 and float(r["min_MBps"]) > 0, r
' "$SCRATCH/odd.csv"
done_testing
