#!/bin/sh
# inject: a results file from a stranger must never run code nor smuggle formulas. Every string
# of the file hostile_h5.py writes carries backquotes, $(...), system("..."), quotes that try to
# close a string, newlines followed by commands and @ macros, each a `touch` of a file named
# after the field. `report --plot` and `--html` (gnuplot) and every format run in an empty
# directory that must stay empty; csv cells that start with = + - @ come out as text (a tab or
# CR is \x09, \x0d there) and figures as numbers; markdown tables keep their columns; the
# HTML page holds no script of the file's; json gives every string back as read.
. "$(dirname "$0")/lib.sh"

"$PYTHON" -c 'import h5py' 2>/dev/null || skip_all "python3 with h5py is not installed"
command -v gnuplot >/dev/null 2>&1 || skip_all "gnuplot is not installed (make deps-test)"
H="$SCRATCH/hostile.h5"
check "hostile_h5.py writes a results file whose every string is hostile" \
	"$PYTHON" "$TOP/tests/integration/hostile_h5.py" "$H"
# the results file's own name is hostile too (the charts' names come from it)
NAMED="$SCRATCH/r\`touch bfname\`\$(touch dfname)'.system('touch sfname').'
!touch nfname
.h5"
cp "$H" "$NAMED"
mkdir "$SCRATCH/cwd"
cd "$SCRATCH/cwd" || exit 1

expect_status 0 "report --plot on the hostile files" \
	"$PFSREAD" report "$H" "$NAMED" --plot "$SCRATCH/plots"
expect_status 0 "report --html" "$PFSREAD" report "$H" "$NAMED" --html "$SCRATCH/page.html"
for f in text markdown csv json; do
	expect_status 0 "report --format $f" "$PFSREAD" report "$H" --format "$f"
	printf '%s\n' "$OUT" >"$SCRATCH/out.$f"
done
left=$(ls -A)
test -z "$left"
ok_status $? "nothing ran: the directory the report ran in is still empty"
[ -n "$left" ] && printf '#   made: %s\n' $left
cd "$TOP" || exit 1

# the strings did reach gnuplot, as text
grep -q 'touch bcfgpath' "$SCRATCH/plots/hostile-bandwidth.svg"
ok_status $? "the config's hostile name is in the chart's title, as text"
ls "$SCRATCH/plots" | grep -q '^r_touch_bfname_'
ok_status $? "the hostile results file name is made safe in the charts' names"
expect_status 2 "a plot directory whose name holds a newline is refused" \
	"$PFSREAD" report "$H" --plot "$SCRATCH/a
b"

check "csv: formulas come out as text, figures as numbers, every row whole" "$PYTHON" -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head, body = rows[0], rows[1:]
assert len(body) == 12, len(body)
strings = {"file", "dataset", "backend", "order", "cache", "pattern", "decomposition", "limit",
           "cache_state", "repetitions", "bytes_from"}
for r in body:
    assert len(r) == len(head), (len(r), r)
    for k, v in zip(head, r):
        if k in strings:
            assert v == "" or v[0] not in "=+-@\t\r", (k, v)
        elif v != "":
            float(v)
seen = sorted(r[1][:4] for r in body)
# a leading tab is written \x09 (util/safe): the cell does not start with it
assert "\\x09" in seen and "\x27=HY" in seen and "\x27@SU" in seen, seen
' "$SCRATCH/out.csv"

check "markdown: every table row keeps its columns, no line starts a command" "$PYTHON" -c '
import sys
def pipes(line):
    n, i = 0, 0
    while i < len(line):
        if line[i] == "\\":
            i += 2
            continue
        n += line[i] == "|"
        i += 1
    return n
want = None
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    assert not line.startswith(("!touch", "system(")), line
    if not line.startswith("|"):
        want = None
        continue
    want = want or pipes(line)
    assert pipes(line) == want, (want, line)
' "$SCRATCH/out.markdown"

check "html: the only script is the page's own" "$PYTHON" -c '
import sys
page = open(sys.argv[1]).read()
assert page.count("<script") == 1, page.count("<script")
assert "alert(1)" in page  # the text is there, escaped
' "$SCRATCH/page.html"

check "json: every string comes back as the reader gives it" "$PYTHON" -c '
import json, re, sys
sys.path.insert(0, sys.argv[2])
import hostile_h5
run = json.load(open(sys.argv[1]))["runs"][0]
got = {c["dataset"] for c in run["cells"]}
# the reader turns control characters but newline and tab into ?
want = {re.sub("[\x00-\x08\x0b-\x1f\x7f]", "?", d) for d in hostile_h5.DATASETS}
assert got == want, got ^ want
assert "touch bcfgpath" in run["meta"]["config_path"]
' "$SCRATCH/out.json" "$TOP/tests/integration"
done_testing
