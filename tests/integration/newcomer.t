#!/bin/sh
# newcomer: a new user's first hour, as the README tells it. A fresh clone of this repository
# (on a capped tmpfs of the test's own), the README's quick start run verbatim (its block is
# read from the README, not copied here), --help of every command, a typo in a command and in
# a config key, and the report of the two runs the quick start made. `make check` inside the
# quick start stands for its build (make check-build): the suite does not run itself.
# The clone gets this build's objects (newer than its sources): it builds nothing again.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "the quick start is written for root (README)"
git rev-parse --git-dir >/dev/null 2>&1 || skip_all "not a git repository"
[ -x "$TOP/build/pfsread" ] || skip_all "no build/pfsread to lend the clone"
clone="$SCRATCH/clone"
capped_mount "$clone" 1600m 20000 || skip_all "cannot mount a capped tmpfs"
check "a fresh clone" git clone -q "$TOP" "$clone/pfsread"
cd "$clone/pfsread" || exit 1
cp -R "$TOP/build" . && find build -type f -exec touch {} +
ok_status $? "the clone borrows this build's objects"

# make check in the quick start: its build only (see the top)
mkdir -p "$SCRATCH/bin"
cat >"$SCRATCH/bin/make" <<'MAKE'
#!/bin/sh
for a in "$@"; do [ "$a" = check ] && exec /usr/bin/make check-build; done
exec /usr/bin/make "$@"
MAKE
chmod +x "$SCRATCH/bin/make"

# the quick start: the README's first sh block, as written
awk '/^```sh/ { n++; if (n == 1) { p = 1; next } } /^```/ { p = 0 } p' README.md \
	>"$SCRATCH/quickstart.sh"
n=$(grep -c . "$SCRATCH/quickstart.sh")
test "$n" -ge 4 && test "$n" -le 10
ok_status $? "the quick start is 4 to 10 lines ($n)"
grep -q "^make demo" "$SCRATCH/quickstart.sh" && grep -q "^make check" "$SCRATCH/quickstart.sh"
ok_status $? "it begins with the two set-up commands"
expect_status 0 "the quick start runs as written" \
	env PATH="$SCRATCH/bin:$PATH" timeout 600 sh -e "$SCRATCH/quickstart.sh"
contains "usage: pfsread COMMAND" "its help lists the commands"
contains "comparison: b against a" "its report compares the two runs"
first=$(printf "%s\n" "$OUT" | grep -n "^comparison: b against a" | cut -d: -f1)
table=$(printf "%s\n" "$OUT" | grep -n "^results  " | tail -1 | cut -d: -f1)
test -n "$first" && test -n "$table" && test "$first" -lt "$table"
ok_status $? "the comparison comes before the runs' tables"
ls results/local-*.h5 >"$SCRATCH/runs" 2>/dev/null
test "$(wc -l <"$SCRATCH/runs")" -eq 2
ok_status $? "the quick start made two results files"

# --help of every command that help lists
for c in $(build/pfsread help | awk '/^commands:/ { p = 1; next } /^$/ { p = 0 } p { print $1 }'); do
	expect_status 0 "pfsread $c --help" build/pfsread "$c" --help
	contains "example" "pfsread $c --help shows an example"
done

# typos
expect_status 2 "a typo in a command" build/pfsread reprot results/local-*.h5
contains "did you mean 'report'?" "the command's typo gets the right name"
sed 's/readers_per_node:/readers_per_nod:/' configs/local.yaml >"$SCRATCH/typo.yaml"
expect_status 2 "a typo in a config key" build/pfsread plan "$SCRATCH/typo.yaml" --ranks 4 --nodes 1
contains "did you mean 'readers_per_node'?" "the key's typo gets the right name"
contains "$SCRATCH/typo.yaml:" "the key's typo: file and line"

# the report of the two runs, in every format
for f in text markdown csv json; do
	expect_status 0 "report of two runs --format $f" build/pfsread report $(cat "$SCRATCH/runs") \
		--format "$f"
done
cd "$TOP" || exit 1
done_testing
