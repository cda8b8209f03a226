#!/bin/sh
# defaults: plan shows the defaults a config leaves out (and not the keys it gives), with what
# cache's default does: drop as root (which empties every node's whole page cache), fadvise
# otherwise, and run without root then reads with fadvise instead of refusing its own default;
# a cache: drop the config gives is still refused without root. docs/config.md's table of
# defaults names every key plan lists.
. "$(dirname "$0")/lib.sh"

cat >"$SCRATCH/bare.yaml" <<YAML
root: $SCRATCH/data
datasets:
  - {name: a, file_size: 64KiB, file_count: 4}
YAML
{ cat "$SCRATCH/bare.yaml"; printf 'cache: none\nrepetitions: 2\nsweep: {order: [random]}\n'; } >"$SCRATCH/some.yaml"
block() { printf '%s\n' "$OUT" | sed -n '/^defaults in force/,/^phase /p'; }

if [ "$(id -u)" -eq 0 ]; then
	expect_status 0 "plan of a config that leaves most keys out" "$PFSREAD" plan "$SCRATCH/bare.yaml" --ranks 2 --nodes 1
	contains "defaults in force" "plan shows the defaults in force"
	contains "  cache: drop (as root)" "cache: drop, as root"
	contains "empties each node's whole page cache, other users'" "and what it does to a shared node"
	contains "  repetitions: 1" "repetitions"
	contains "transfer_size: [4MiB]" "the transfer size"
	contains "order: [sorted]" "the order"
	contains "  phase_timeout: none" "the phase timeout"
	# the keys of the block: "  key: ..." at a line's start, "{key: " and ", key: " within one
	block | sed '1d;$d' | grep -o '\(^  \|{\|, \)[a-z_]*: ' | sed 's/[ {,:]//g' |
		grep -vx sweep | sort -u >"$SCRATCH/keys"
	missing=""
	for k in $(cat "$SCRATCH/keys"); do
		grep -q "^| \`\(sweep\.\)\?$k\`" "$TOP/docs/config.md" || missing="$missing $k"
	done
	test -s "$SCRATCH/keys" && test -z "$missing"
	ok_status $? "docs/config.md's table of defaults has every key plan lists (missing:$missing)"
	expect_status 0 "plan of a config that gives cache, repetitions, order" "$PFSREAD" plan "$SCRATCH/some.yaml" --ranks 2 --nodes 1
	case $(block) in *"cache:"*|*"repetitions:"*|*"order:"*) r=1 ;; *) r=0 ;; esac
	ok_status $r "the keys given are not listed as defaults"
else
	for i in 1 2 3 4 5 6 7 8 9 10 11; do pass "# SKIP not root"; done
fi

# without root (nobody): the default is fadvise, and run reads with it
nobody=$(id -u nobody 2>/dev/null)
if [ "$(id -u)" -eq 0 ] && [ -n "$nobody" ] && command -v setpriv >/dev/null 2>&1; then
	chmod 755 "$SCRATCH"
	mkdir -m 777 "$SCRATCH/nb"
	sed "s|$SCRATCH/data|$SCRATCH/nb/data|" "$SCRATCH/bare.yaml" >"$SCRATCH/nb/bare.yaml"
	{ cat "$SCRATCH/nb/bare.yaml"; echo "cache: drop"; } >"$SCRATCH/nb/drop.yaml"
	as_nobody() { (cd "$SCRATCH/nb" && timeout 120 setpriv --reuid "$nobody" --regid "$(id -g nobody)" --clear-groups env HOME="$SCRATCH/nb" "$@"); }
	expect_status 0 "plan, not root" as_nobody "$PFSREAD" plan bare.yaml --ranks 1 --nodes 1
	contains "  cache: fadvise (not root: drop needs root)" "plan says run will use fadvise"
	check "generate, not root" as_nobody "$PFSREAD" generate bare.yaml --progress 0
	expect_status 0 "run, not root, with cache left out: it runs" as_nobody "$PFSREAD" run bare.yaml -o r.h5 --progress 0
	contains "cache fadvise, rep 0" "with cache fadvise"
	expect_status 2 "run, not root, with cache: drop given: refused" as_nobody "$PFSREAD" run drop.yaml -o r2.h5 --progress 0
	contains "drop.yaml:4:8: key 'cache': cache: drop needs root" "at the key, naming root"
else
	for i in 1 2 3 4 5 6 7; do pass "# SKIP not root, or no nobody or setpriv"; done
fi
done_testing
