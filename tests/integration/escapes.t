#!/bin/sh
# escapes: one rule (util/safe) for every string that reaches a terminal or a file a person
# opens. A results file whose host names, storage targets and data set names hold ESC ] 0 ;
# x BEL (window title), ESC [ 2 J (clear screen), CSI as C1 in UTF-8 (C2 9B), raw bytes
# 0x80-0x9F that are not UTF-8, DEL and a newline (escapes_h5.py), reported in every format;
# a config whose root holds the same given to plan, to generate that fails there, and as a
# regular file (a config error); a config file and a results file named so. No byte ESC, BEL
# or 0x9B (so no C2 9B) and no invalid UTF-8 reaches stdout, stderr, the HTML page or a
# chart; the strings still show (\xNN), CSV gives the bytes back (docs/report.md) and JSON
# gives the characters (C1 as \u009b, bytes not UTF-8 as U+FFFD).
. "$(dirname "$0")/lib.sh"

"$PYTHON" -c 'import h5py, numpy' 2>/dev/null ||
	skip_all "python3 with h5py and numpy is not installed"

# clean FILE...: no ESC, BEL or 0x9B byte, valid UTF-8 without a C1 character
cat >"$SCRATCH/clean.py" <<'PY'
import sys
bad = []
for path in sys.argv[1:]:
    b = open(path, "rb").read()
    for what, byte in (("ESC", b"\x1b"), ("BEL", b"\x07"), ("0x9B", b"\x9b")):
        if byte in b:
            at = b.index(byte)
            bad.append("%s: %s at %d: %r" % (path, what, at, b[max(0, at - 20):at + 20]))
    try:
        c1 = [hex(ord(c)) for c in b.decode("utf-8") if 0x80 <= ord(c) <= 0x9f]
        if c1:
            bad.append("%s: C1 characters %s" % (path, c1[:4]))
    except UnicodeDecodeError as err:
        bad.append("%s: not UTF-8: %s" % (path, err))
print("\n".join(bad[:8]))
sys.exit(1 if bad else 0)
PY
clean() {
	check "$1" "$PYTHON" "$SCRATCH/clean.py" "$2" "$3"
}

# ---- a results file of pfsread's own, made hostile ----
cat >"$SCRATCH/c.yaml" <<YAML
name: esc
root: $SCRATCH/data
cache: none
datasets:
  - {name: s, file_size: 4KiB, file_count: 4}
YAML
check "generate a small data set" mpi 1 "$PFSREAD" generate "$SCRATCH/c.yaml"
check "run it on 2 ranks" mpi 2 "$PFSREAD" run "$SCRATCH/c.yaml" -o "$SCRATCH/r.h5" --no-table
H="$SCRATCH/hostile.h5"
cp "$SCRATCH/r.h5" "$H"
HOST=$("$PYTHON" "$TOP/tests/integration/escapes_h5.py" "$H")
ok_status $? "escapes_h5.py poisons its host names, storage targets and data set names"

i=0
for f in "text" "markdown" "csv" "json" "csv --per-file" "csv --per-rank" "text --wide"; do
	i=$((i + 1))
	# shellcheck disable=SC2086
	"$PFSREAD" report "$H" --format $f >"$SCRATCH/out.$i" 2>"$SCRATCH/err.$i"
	ok_status $? "report --format $f"
	clean "  no escape reaches its stdout or stderr" "$SCRATCH/out.$i" "$SCRATCH/err.$i"
done
grep -q 'n\\x1b]0;x\\x07\\x1b\[2Jc\\xc2\\x9b2Jr\\x9b31m\\x80\\x9f\\x7f\\x0acaf' "$SCRATCH/out.1"
ok_status $? "text: the host name shows, each byte kept out as \\xNN, the e-acute whole"
grep -q '^| tn\\x1b]0;x\\x07\\x1b\[2J' "$SCRATCH/out.2"
ok_status $? "markdown: the storage target shows the same way"

"$PFSREAD" report "$H" --html "$SCRATCH/page.html" --plot "$SCRATCH/plots" \
	>"$SCRATCH/out.h" 2>"$SCRATCH/err.h"
ok_status $? "report --html --plot"
clean "  no escape reaches the HTML page" "$SCRATCH/page.html" "$SCRATCH/err.h"
for svg in "$SCRATCH"/plots/*.svg; do
	clean "  nor the chart $(basename "$svg")" "$svg" /dev/null
done

"$PFSREAD" report "$SCRATCH/r.h5" --html "$SCRATCH/plain.html" 2>/dev/null
grep -q '^root: .*/data$' "$SCRATCH/plain.html"
ok_status $? "the page's config keeps its lines (newline is not \\x0a in its <pre>)"

check "csv --per-file, --per-rank: undoing each \\xNN gives the host's and target's bytes back" \
	"$PYTHON" - "$SCRATCH/out.5" "$SCRATCH/out.6" "$HOST" <<'PY'
import csv, re, sys
def undo(s):
    return re.sub(rb"\\x([0-9a-f]{2})", lambda m: bytes([int(m[1], 16)]), s.encode("utf-8"))
host = bytes.fromhex(sys.argv[3])
for path in sys.argv[1:3]:
    rows = list(csv.DictReader(open(path, newline="", encoding="utf-8")))
    assert rows, path
    for r in rows:
        assert undo(r["host"]) == host, (path, r["host"])
        assert "target" not in r or undo(r["target"]) == b"t" + host[:-1], r["target"]
        assert undo(r["dataset"]).startswith(b"s"), r["dataset"]
PY
check "json: C1 comes back as U+009B, a byte that is not UTF-8 as U+FFFD, the rest as written" \
	"$PYTHON" - "$SCRATCH/out.4" "$HOST" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
want = bytes.fromhex(sys.argv[2]).decode("utf-8", "replace")
assert "\x9b" in want and "\ufffd" in want and "\x1b" in want
assert run["nodes"][0]["host"] == want, (run["nodes"][0]["host"], want)
assert run["targets"][0]["target"] == "t" + want[:-1], run["targets"][0]
PY

# ---- a config whose root holds escapes ----
ROOT=$(printf '%s/g\033]0;x\a\033[2J\302\233q' "$SCRATCH")
SHOWN="$SCRATCH/g\\x1b]0;x\\x07\\x1b[2J\\xc2\\x9bq"
cat >"$SCRATCH/h.yaml" <<YAML
name: esc
root: "$SCRATCH/g\\e]0;x\\a\\e[2J\\x9bq"
cache: none
datasets:
  - {name: s, file_size: 4KiB, file_count: 4}
YAML
"$PFSREAD" plan "$SCRATCH/h.yaml" --ranks 1 --nodes 1 >"$SCRATCH/plan.out" 2>"$SCRATCH/plan.err"
ok_status $? "plan takes a root that holds escapes"
clean "  no escape reaches its stdout or stderr" "$SCRATCH/plan.out" "$SCRATCH/plan.err"
grep -qF "data sets under $SHOWN" "$SCRATCH/plan.out"
ok_status $? "  the root shows, as \\xNN"

mkdir -p "$ROOT" && : >"$ROOT/s"
mpi 1 "$PFSREAD" generate "$SCRATCH/h.yaml" >"$SCRATCH/gen.out" 2>"$SCRATCH/gen.err"
[ $? -ne 0 ]; ok_status $? "generate fails where the data set's directory is a file"
clean "  no escape reaches its stdout or stderr" "$SCRATCH/gen.out" "$SCRATCH/gen.err"
grep -qF "$SHOWN/s: exists and is not a directory" "$SCRATCH/gen.err"
ok_status $? "  the message names the path, as \\xNN"

rm -rf "$ROOT" && : >"$ROOT"
expect_status 2 "a root that is a regular file is a config error" \
	"$PFSREAD" plan "$SCRATCH/h.yaml" --ranks 1 --nodes 1
printf '%s\n' "$OUT" >"$SCRATCH/cfg.err"
clean "  no escape reaches the message" "$SCRATCH/cfg.err" /dev/null
contains "key 'root': '$SHOWN' exists but is not a directory" "  it names the root, as \\xNN"

CFG=$(printf '%s/c\033[2J\302\233.yaml' "$SCRATCH")
{ cat "$SCRATCH/c.yaml" && echo "bogus_key: 1"; } >"$CFG"
expect_status 2 "a config named with escapes, holding an unknown key" \
	"$PFSREAD" plan "$CFG" --ranks 1 --nodes 1
printf '%s\n' "$OUT" >"$SCRATCH/name.err"
clean "  no escape reaches the message" "$SCRATCH/name.err" /dev/null
contains "c\\x1b[2J\\xc2\\x9b.yaml:6:1: key 'bogus_key'" "  it names the file, as \\xNN"

expect_status 1 "report of a results file named with escapes that is not there" \
	"$PFSREAD" report "$(printf '%s/r\033]0;x\a\302\233.h5' "$SCRATCH")"
printf '%s\n' "$OUT" >"$SCRATCH/rep.err"
clean "  no escape reaches the message" "$SCRATCH/rep.err" /dev/null
done_testing
