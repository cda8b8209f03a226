#!/bin/bash
# doc_tables.sh NAME BLOCK DOC: puts the markdown BLOCK (a benchmark's tables, md_block.sh) into
# DOC between the lines "<!-- bench NAME: begin -->" and "<!-- bench NAME: end -->", replacing
# what was there, so that the document's figures are the ones the benchmark printed. DOC is
# rewritten whole (a temporary file renamed over it) or not at all.
set -eu -o pipefail
[ $# -eq 3 ] || { echo "usage: doc_tables.sh NAME BLOCK DOC" >&2; exit 2; }
name=$1 block=$2 doc=$3
begin="<!-- bench $name: begin -->" end="<!-- bench $name: end -->"
[ -r "$block" ] || { echo "doc_tables.sh: $block: no tables to put in (run the benchmark first)" >&2; exit 2; }
[ -r "$doc" ] || { echo "doc_tables.sh: $doc: cannot read it" >&2; exit 2; }
nb=$(grep -c -x -F -e "$begin" "$doc" || true)
ne=$(grep -c -x -F -e "$end" "$doc" || true)
if [ "$nb" != 1 ] || [ "$ne" != 1 ]; then
	echo "doc_tables.sh: $doc: wants one line '$begin' and one '$end' (found $nb and $ne)" >&2
	exit 2
fi
lb=$(grep -n -x -F -e "$begin" "$doc" | cut -d: -f1)
le=$(grep -n -x -F -e "$end" "$doc" | cut -d: -f1)
[ "$lb" -lt "$le" ] || { echo "doc_tables.sh: $doc:$le: '$end' comes before '$begin'" >&2; exit 2; }
tmp=$(mktemp "$doc.XXXXXX")
trap 'rm -f "$tmp"' EXIT
{
	head -n "$lb" "$doc"
	cat "$block"
	tail -n "+$le" "$doc"
} >"$tmp"
chmod --reference="$doc" "$tmp"
mv "$tmp" "$doc"
trap - EXIT
echo "doc_tables.sh: $doc: the $name tables from $block"
