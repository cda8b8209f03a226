#!/bin/sh
# examples: every example in the README and docs/ is run, so none rots. Shell blocks run in a
# scratch copy of the repository with build/ on PATH; Python blocks run there after a small
# run has written results/local-*.h5; YAML blocks that hold data sets are planned (a fragment
# without root: gets one). A block that cannot run here (a cluster, the network, a scheduler)
# says why on the line before its fence: <!-- example: skip REASON -->; one without a reason
# fails. The quick start is newcomer.t's.
. "$(dirname "$0")/lib.sh"

work="$SCRATCH/work"
mkdir -p "$work/results" "$work/data"
cp -R configs jobscripts "$work/"
"$PYTHON" tests/integration/examples.py "$SCRATCH/ex" README.md docs/*.md >"$SCRATCH/list" ||
	{ fail "the examples are extracted"; done_testing; }
test -s "$SCRATCH/list"
ok_status $? "the README and docs/ hold examples ($(wc -l <"$SCRATCH/list"))"

# a results file for the Python examples: a small study of one rank
small_config "$work/small.yaml" "$work/data/small"
(cd "$work" && mpi 1 "$PFSREAD" generate small.yaml >/dev/null 2>&1 &&
	mpi 1 "$PFSREAD" run small.yaml -o results/local-example.h5 >/dev/null 2>&1)
ok_status $? "a results file for the examples to read"

bindir=$(dirname "$PFSREAD")
tab=$(printf '\t')
while IFS="$tab" read -r n lang where reason; do
	block="$SCRATCH/ex/$n.$lang"
	if [ -n "$reason" ]; then
		case $reason in
		"(no reason given)") fail "$where: a skipped $lang example says why" ;;
		*) pass "# SKIP $where ($lang): $reason" ;;
		esac
		continue
	fi
	case $lang in
	sh)
		expect_status 0 "$where: the shell example runs" \
			env PATH="$bindir:$PATH" sh -ec "cd '$work' && . '$block'"
		;;
	python)
		expect_status 0 "$where: the Python example runs" \
			env PATH="$bindir:$PATH" sh -c "cd '$work' && '$PYTHON' '$block'"
		;;
	yaml)
		if ! grep -q "^datasets:" "$block"; then
			pass "# SKIP $where: a YAML fragment, not a config"
			continue
		fi
		cfg="$SCRATCH/ex/$n.config.yaml"
		{ grep -q "^root:" "$block" || echo "root: $work/data/ex$n"; cat "$block"; } >"$cfg"
		expect_status 0 "$where: the config plans" \
			sh -c "cd '$work' && '$PFSREAD' plan '$cfg' --ranks 8 --nodes 2"
		;;
	esac
done <"$SCRATCH/list"
done_testing
