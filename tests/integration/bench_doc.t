#!/bin/sh
# bench_doc: the figures in docs/performance.md are the tables the benchmarks print. md_block.sh
# wraps printed tables in a markdown block that says what ran, when, where and on which build;
# doc_tables.sh puts a block between a document's markers, leaving the rest of it byte for byte
# and the document untouched when a marker is missing, doubled or out of order (exit 2, the
# file named). docs/performance.md carries one pair of markers for each benchmark, each with
# a block the benchmark printed. bench.sh refuses a size class it lacks (BENCH_CLASSES).
. "$(dirname "$0")/lib.sh"

MD="$TOP/tests/bench/md_block.sh"
DT="$TOP/tests/bench/doc_tables.sh"
printf 'class path  ratio\n1GiB  posix 1.03\n' >"$SCRATCH/tables.txt"

check "md_block.sh wraps printed tables" sh -c "\"$MD\" 'make bench' <\"$SCRATCH/tables.txt\" >\"$SCRATCH/block.md\""
# shellcheck disable=SC2016 # WHY: the backquotes are markdown, matched as they are
head -n 1 "$SCRATCH/block.md" | grep -q '^Printed by `make bench` on 20[0-9-]*T[0-9:]*Z, .*pfsread .*:$'
ok_status $? "its first line names the command, the date, the host and pfsread's version"
# shellcheck disable=SC2016 # WHY: the fence's backquotes, as they are
[ "$(sed -n '3p;$p' "$SCRATCH/block.md" | tr '\n' ' ')" = '```text ``` ' ]
ok_status $? "the tables sit in one text fence"
sed -n '4,5p' "$SCRATCH/block.md" | cmp -s - "$SCRATCH/tables.txt"
ok_status $? "the tables are as printed"

doc() {
	printf '# Doc\n\nbefore\n<!-- bench bench: begin -->\nold figures\n<!-- bench bench: end -->\nafter\n<!-- bench cost: begin -->\nold cost\n<!-- bench cost: end -->\n' >"$1"
}
doc "$SCRATCH/doc.md"
check "doc_tables.sh bench BLOCK DOC" "$DT" bench "$SCRATCH/block.md" "$SCRATCH/doc.md"
{
	printf '# Doc\n\nbefore\n<!-- bench bench: begin -->\n'
	cat "$SCRATCH/block.md"
	printf '<!-- bench bench: end -->\nafter\n<!-- bench cost: begin -->\nold cost\n<!-- bench cost: end -->\n'
} >"$SCRATCH/want.md"
cmp -s "$SCRATCH/doc.md" "$SCRATCH/want.md"
ok_status $? "the block replaces what was between its markers; the rest is unchanged"
check "again: the same document (the old block replaced, not added to)" \
	"$DT" bench "$SCRATCH/block.md" "$SCRATCH/doc.md"
cmp -s "$SCRATCH/doc.md" "$SCRATCH/want.md"
ok_status $? "the second splice leaves what the first made"

# ---- bad input: nothing written ----
cp "$SCRATCH/want.md" "$SCRATCH/before.md"
expect_status 2 "a name without markers" "$DT" scale "$SCRATCH/block.md" "$SCRATCH/doc.md"
contains "$SCRATCH/doc.md: wants one line '<!-- bench scale: begin -->' and one '<!-- bench scale: end -->' (found 0 and 0)" \
	"the message names the document and the markers it wants"
printf '<!-- bench cost: begin -->\n' >>"$SCRATCH/doc.md"
cp "$SCRATCH/doc.md" "$SCRATCH/before.md"
expect_status 2 "a doubled marker" "$DT" cost "$SCRATCH/block.md" "$SCRATCH/doc.md"
contains "(found 2 and 1)" "the message counts them"
printf 'x\n<!-- bench z: end -->\n<!-- bench z: begin -->\n' >"$SCRATCH/rev.md"
expect_status 2 "markers out of order" "$DT" z "$SCRATCH/block.md" "$SCRATCH/rev.md"
contains "$SCRATCH/rev.md:2: '<!-- bench z: end -->' comes before" "the message names the line"
expect_status 2 "no block" "$DT" bench "$SCRATCH/nosuch.md" "$SCRATCH/doc.md"
contains "$SCRATCH/nosuch.md: no tables to put in (run the benchmark first)" "the message says what to do"
cmp -s "$SCRATCH/doc.md" "$SCRATCH/before.md"
ok_status $? "the document is untouched by the failures"
[ -z "$(find "$SCRATCH" -name 'doc.md.*')" ]
ok_status $? "no temporary file is left beside it"

# ---- the project's document ----
P="$TOP/docs/performance.md"
for n in bench cost scale; do
	[ "$(grep -c -x -e "<!-- bench $n: begin -->" -e "<!-- bench $n: end -->" "$P")" -eq 2 ]
	ok_status $? "docs/performance.md has the markers of the $n tables"
	sed -n "/^<!-- bench $n: begin -->\$/{n;p;}" "$P" | grep -q '^Printed by `'
	ok_status $? "docs/performance.md: the $n tables are a block the benchmark printed"
done
# the method and what is open in about 100 lines, the rest the benchmarks' tables as printed
[ "$(grep -c -v -e '^$' "$P")" -le 250 ]
ok_status $? "docs/performance.md: at most 250 lines that are not blank ($(grep -c -v -e '^$' "$P"))"

# ---- bench.sh: some size classes only, by name; a name it lacks is a usage error that
# names the classes, before anything is made (a bench that went ahead would find a small
# capped tmpfs where root can mount one, and a time limit) ----
B="$SCRATCH/bench"
capped_mount "$SCRATCH/benchfs" 16m 1000 && B="$SCRATCH/benchfs/bench"
expect_status 2 "bench.sh with BENCH_CLASSES naming a class it lacks" \
	env BENCH_CLASSES="2MiB 3MiB" timeout 60 bash "$TOP/tests/bench/bench.sh" "$B"
contains "bench.sh: BENCH_CLASSES: no class '3MiB' (the classes: 1GiB 64MiB 2MiB)" \
	"the message names the class and the classes"
[ ! -e "$B" ]
ok_status $? "nothing made under the bench's directory"

done_testing
