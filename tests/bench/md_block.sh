#!/bin/bash
# md_block.sh COMMAND <TEXT >MARKDOWN: a benchmark's printed tables as one markdown block for
# docs/performance.md (doc_tables.sh puts it there): a line that says what ran, when, where and
# on which build, then the text as printed, unchanged, in a fence.
set -eu -o pipefail
[ $# -eq 1 ] || { echo "usage: md_block.sh COMMAND <TEXT >MARKDOWN" >&2; exit 2; }
PFSREAD=${PFSREAD:-$(cd "$(dirname "$0")/../.." && pwd)/build/pfsread}
version=$("$PFSREAD" --version 2>/dev/null | head -n 1) || version="pfsread (version unknown)"
printf 'Printed by `%s` on %s, %s (%s, %s cores), load %s, %s:\n\n```text\n' \
	"$1" "$(date -u +%Y-%m-%dT%H:%MZ)" "$(uname -n)" "$(uname -r)" "$(nproc --all)" \
	"$(cut -d' ' -f1-3 /proc/loadavg)" "$version"
cat
printf '```\n'
