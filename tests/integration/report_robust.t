#!/bin/sh
# report_robust: results files and tools that would make a careless `pfsread report` crash, hang, eat
# memory or contradict itself (report_robust_h5.py writes the files with h5py):
#  - a phase of more than 20,000 file rows (REPORT_KEEP_ROWS, streamed when read) in the
#    per-file CSV: every row as h5py reads it, with its storage target
#  - a phase of 40 files whose files table declares 2^27 rows and stores none: refused at once
#    by the phase's attributes (nfiles), naming the file and the dataset, in bounded memory
#    (ulimit -v); with nfiles lying too, refused because the rows are not stored
#  - a ranks table whose field 'bytes' is renamed: an error naming file, dataset and field,
#    not bytes read as 0
#  - a phase whose every time is NaN: said to be INVALID, and no verdict on where the bytes
#    came from ("storage, in every cell" of none)
#  - a part of a resumed run that was killed: the phases it left, not "0 phases"
#  - a phase whose status is a word pfsread never writes: "unknown" in every format, and not
#    counted as complete
#  - a gnuplot that never returns (a stand-in on PATH that sleeps): killed after
#    PFSREAD_GNUPLOT_TIMEOUT seconds by its PID, exit 1 with a message, no chart left behind
. "$(dirname "$0")/lib.sh"

"$PYTHON" -c 'import h5py, numpy' 2>/dev/null || skip_all "python3 with h5py and numpy is not installed"
check "the files are written" "$PYTHON" "$TOP/tests/integration/report_robust_h5.py" "$SCRATCH"

# ---- the per-file CSV of phases of more rows than the report keeps ----
MANY="$SCRATCH/many.h5"
check "a results file of 2 phases x 20,001 file rows, each on a storage target" sh -c \
	'"$1" "$2/tests/bench/results_gen.py" "$3" --phases 2 --files 20001 --nodes 2 \
	--ranks-per-node 2 >/dev/null && "$1" "$2/tests/integration/report_robust_h5.py" --targets "$3"' \
	sh "$PYTHON" "$TOP" "$MANY"
"$PFSREAD" report "$MANY" --format csv --per-file >"$SCRATCH/many.csv" 2>"$SCRATCH/many.err"
ok_status $? "report --format csv --per-file of it: exit 0"
check "every row of both phases, in order, as h5py reads them, with its target" "$PYTHON" -c '
import csv, sys, h5py, numpy as np
rows = list(csv.DictReader(open(sys.argv[2])))
with h5py.File(sys.argv[1], "r") as f:
    at = 0
    for name in sorted(f["phases"]):
        g = f["phases"][name]
        files, tg = g["files"][...], [t.decode() for t in g["targets"][...]]
        mine = rows[at:at + len(files)]
        at += len(files)
        assert len(mine) == len(files), (name, len(mine), len(files))
        assert all(int(r["phase"]) == int(name) for r in mine), name
        assert [int(r["file"]) for r in mine] == [int(x) for x in files["file"]], name
        assert [int(r["rank"]) for r in mine] == [int(x) for x in files["rank"]], name
        assert [r["target"] for r in mine] == [tg[t] for t in files["target"]], name
        got = np.array([float(r["close_end_s"]) for r in mine])
        assert np.allclose(got, files["close_end"], rtol=1e-8), name
    assert at == len(rows), (at, len(rows))
' "$MANY" "$SCRATCH/many.csv"

# ---- a tiny file that declares 2^27 file rows ----
# bounded COMMAND...: the command in 512 MiB of address space (the rows the file declares would
# take 8 GiB as records, 1 GiB as times); a sanitized build reserves terabytes for its shadow
# memory, so it runs without the cap (the messages still tell the refusal from running out)
if ldd "$PFSREAD" 2>/dev/null | grep -q libasan; then
	bounded() { timeout 60 "$@"; }
else
	bounded() { sh -c 'ulimit -v 524288 && exec timeout 60 "$@"' sh "$@"; }
fi
size=$(stat -c %s "$SCRATCH/bomb.h5")
expect_status 1 "a $size-byte file declaring 2^27 rows for 40 files: refused in 512 MiB" \
	bounded "$PFSREAD" report "$SCRATCH/bomb.h5"
contains "bomb.h5: /phases/0000/files: 134217728 rows, more than the phase's attributes allow (nfiles 40" \
	"the message names the file, the dataset and the attribute"
expect_status 1 "the same with its nfiles saying 2^27 too: refused in 512 MiB" \
	bounded "$PFSREAD" report "$SCRATCH/bomb_lie.h5"
contains "bomb_lie.h5: /phases/0000/files: declares 134217728 rows but the file stores 0 of them" \
	"the message says the rows are not stored"
expect_status 1 "and with --format csv --per-file" \
	bounded "$PFSREAD" report "$SCRATCH/bomb.h5" --format csv --per-file
contains "bomb.h5: /phases/0000/files: 134217728 rows" "naming the dataset"

# ---- a renamed field ----
expect_status 1 "a ranks table with 'bytes' renamed is an error" "$PFSREAD" report "$SCRATCH/renamed.h5"
contains "renamed.h5: /phases/0001/ranks: its records have no field 'bytes'" \
	"naming the file, the dataset and the field"

# ---- only NaN times ----
expect_status 0 "a phase whose every time is NaN: reported" "$PFSREAD" report "$SCRATCH/nan.h5"
contains "1 phase is INVALID (phase 0000 first: elapsed time not a number)" "it says the phase is INVALID and why"
case "$OUT" in
*"every cell"* | *"where the bytes came from ("*) fail "no verdict on where the bytes came from" ;;
*) pass "no verdict on where the bytes came from" ;;
esac

# ---- a killed part ----
expect_status 0 "a file with a killed part" "$PFSREAD" report "$SCRATCH/killed.h5"
contains "job 101 on n1,n2, 2 phases, partial" "the part that ended: its own count"
contains "to (killed), job 102 on n1,n2, 3 phases kept, running" "the killed part: the 3 phases it left"

# ---- a status word pfsread never writes ----
expect_status 0 "a phase whose status is 'exploded': reported" "$PFSREAD" report "$SCRATCH/odd.h5" \
	--format json
contains '"status": "unknown"' "json: its status is unknown"
expect_status 0 "... and as text" "$PFSREAD" report "$SCRATCH/odd.h5"
contains "no completed phases: 1 phase, none complete" "text: it does not count as complete"

# ---- a gnuplot that never returns ----
mkdir -p "$SCRATCH/bin"
cat >"$SCRATCH/bin/gnuplot" <<'SH'
#!/bin/sh
# a stand-in: begins every chart the script names, then waits for ever
echo $$ >"$GP_PIDFILE"
grep -o "set output '[^']*'" "$1" | sed "s/^set output '//; s/'\$//" | while read -r f; do
	printf 'partial' >"$f"
done
exec sleep 120
SH
chmod +x "$SCRATCH/bin/gnuplot"
PLOTS="$SCRATCH/plots"
export GP_PIDFILE="$SCRATCH/gnuplot.pid"
check "a results file to chart" "$PYTHON" "$TOP/tests/integration/report_h5.py" "$SCRATCH"
expect_status 1 "report --plot with a gnuplot that never returns: exit 1 after the timeout" \
	env PATH="$SCRATCH/bin:$PATH" PFSREAD_GNUPLOT_TIMEOUT=1 timeout 60 "$PFSREAD" report \
	"$SCRATCH/a.h5" --plot "$PLOTS"
contains "gnuplot did not finish" "the message says gnuplot did not finish"
contains "within 1 s (PFSREAD_GNUPLOT_TIMEOUT): killed it (pid" "and that it was killed, by PID"
pid=$(cat "$GP_PIDFILE" 2>/dev/null)
[ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null
ok_status $? "the stand-in gnuplot (pid ${pid:-?}) is gone"
[ -n "$pid" ] && kill "$pid" 2>/dev/null # never left running, whatever the outcome
left=$(find "$PLOTS" \( -name '*.png' -o -name '*.svg' -o -name '*.pdf' \) 2>/dev/null)
[ -z "$left" ]
ok_status $? "no chart is left behind${left:+: $left}"
expect_status 2 "a PFSREAD_GNUPLOT_TIMEOUT that is no number is a usage error" \
	env PATH="$SCRATCH/bin:$PATH" PFSREAD_GNUPLOT_TIMEOUT=soon timeout 60 "$PFSREAD" report \
	"$SCRATCH/a.h5" --plot "$PLOTS"
contains "PFSREAD_GNUPLOT_TIMEOUT must be a whole number" "and says so"
pid=$(cat "$GP_PIDFILE" 2>/dev/null)
[ -n "$pid" ] && kill "$pid" 2>/dev/null # the stand-in, had it been started again
done_testing
