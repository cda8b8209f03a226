#!/bin/sh
# tap: the shell tests' checks read the right way round: ok_status passes on exit status 0 only,
# pass and fail say so, a failed check makes the test exit non-zero, and a call of the bare `ok`
# (which passes on 1 in C) stops the test with a Bail out! instead of counting either way; and
# no shell test, the box's and Slurm's included (not run here), calls it.
. "$(dirname "$0")/lib.sh"

# child BODY: a test of its own that sources lib.sh and runs BODY; prints its TAP, exits as it
child() {
	mkdir -p "$SCRATCH/t/tests/integration"
	ln -sf "$TOP/tests/integration/lib.sh" "$SCRATCH/t/tests/integration/lib.sh"
	{
		echo '. "$(dirname "$0")/lib.sh"'
		echo "$1"
		echo 'done_testing'
	} >"$SCRATCH/t/tests/integration/child.t"
	OUT=$(sh "$SCRATCH/t/tests/integration/child.t" 2>&1)
}

child 'true; ok_status $? "a"; pass "b"'
ok_status $? "ok_status 0 and pass: the test exits 0"
contains "ok 1 - a" "ok_status 0 passes"
contains "ok 2 - b" "pass passes"
contains "1..2" "the plan counts both"

child 'false; ok_status $? "a"; pass "b"'
[ $? -ne 0 ]
ok_status $? "ok_status 1: the test exits non-zero"
contains "not ok 1 - a" "ok_status 1 fails"

child 'ok_status 2 "a"'
[ $? -ne 0 ]
ok_status $? "ok_status 2: the test exits non-zero"
contains "not ok 1 - a" "any status but 0 fails"

child 'fail "a"; pass "b"'
[ $? -ne 0 ]
ok_status $? "fail: the test exits non-zero"
contains "not ok 1 - a" "fail fails"

child 'ok 1 "a"; pass "b"'
[ $? -ne 0 ]
ok_status $? "the bare ok: the test exits non-zero"
contains "Bail out!" "the bare ok stops the test with a Bail out!"
case "$OUT" in
*"ok 1 - a"* | *"- b"*) fail "the bare ok counts nothing" ;;
*) pass "the bare ok counts nothing" ;;
esac

# `ok` as a command: at a line's start or after ; { && || then else do or a case pattern's ),
# and not `ok =` or `ok:` (awk and Python)
bare=$(find tests -name '*.t' -o -name '*.sh' | sort | xargs grep -nE \
	'(^|[;{]|&&|\|\||\bthen|\belse|\bdo|\))[[:space:]]*ok[[:space:]]+[^=:[:space:]]')
[ -z "$bare" ]
ok_status $? "no shell test calls the bare ok"
[ -z "$bare" ] || printf '%s\n' "$bare" | sed 's/^/#   /' | head -n 20

# prove runs each test file itself (make check: --exec ''): one without its execute bit stops
# the whole run with "Could not execute"
noexec=$(find tests -name '*.t' ! -perm -u+x | sort)
[ -z "$noexec" ]
ok_status $? "every test file is executable${noexec:+: not }$(echo $noexec)"

done_testing
