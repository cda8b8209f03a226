#!/bin/sh
# install: make install (PREFIX, DESTDIR) puts the binary, the man page, the bash completion,
# the configs, the job scripts and the documents in place; the man page and the completion come from the
# same table as --help and know every command; the installed local job script runs from
# another directory with the installed binary and config.
. "$(dirname "$0")/lib.sh"

dest="$SCRATCH/dest"
prefix=/opt/pfsread
check "make install PREFIX DESTDIR" make -s install PREFIX="$prefix" DESTDIR="$dest" \
	BUILD="$(dirname "$PFSREAD")"
root="$dest$prefix"
for f in bin/pfsread share/man/man1/pfsread.1 share/bash-completion/completions/pfsread \
	share/pfsread/configs/local.yaml share/pfsread/jobscripts/local/pfsread-local.sh; do
	test -f "$root/$f"
	ok_status $? "installed: $f"
done
# the documents, with README.md beside docs/ as in the source (their links hold)
for f in README.md $(cd "$TOP" && ls docs/*.md); do
	cmp -s "$TOP/$f" "$root/share/doc/pfsread/$f"
	ok_status $? "installed: share/doc/pfsread/$f"
done
grep -q "^\.I $prefix/share/doc/pfsread/docs/config\.md\$" "$root/share/man/man1/pfsread.1"
ok_status $? "the installed man page names the installed config reference"

# the man page: renders, and names every command help lists
if command -v man >/dev/null 2>&1; then
	man -l "$root/share/man/man1/pfsread.1" >"$SCRATCH/man.txt" 2>/dev/null
	ok_status $? "man -l renders pfsread.1"
else
	pass "# SKIP no man"
fi
for c in $("$PFSREAD" help | awk '/^commands:/ { p = 1; next } /^$/ { p = 0 } p { print $1 }'); do
	grep -q "^\.SS $c\$" "$root/share/man/man1/pfsread.1"
	ok_status $? "the man page has a section for $c"
done
grep -q -- '--format' "$root/share/man/man1/pfsread.1" ||
	grep -q -- '\\-\\-format' "$root/share/man/man1/pfsread.1"
ok_status $? "the man page lists report's options"
# every exit status the code gives (err.h's classes but PF_HUNG, which aborts with 1; a signal's
# 128 + N), each as a tagged paragraph of EXIT STATUS
statuses=$(sed -n 's/^[[:space:]]*PF_[A-Z]* = \([0-9]*\).*/\1/p' "$TOP/src/util/err.h" | grep -vx 3)
for s in $statuses 130 143; do
	awk '/^\.SH EXIT STATUS/ { p = 1; next } /^\.SH/ { p = 0 } p' "$root/share/man/man1/pfsread.1" |
		grep -q -e "^\.B $s\$" -e "[^0-9]$s for SIG"
	ok_status $? "the man page's EXIT STATUS gives exit status $s"
done

# the completion, in bash: commands, options, an option's values
if command -v bash >/dev/null 2>&1; then
	complete_words() {
		bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _pfsread
			printf "%s\n" "${COMPREPLY[@]}"' sh \
			"$root/share/bash-completion/completions/pfsread" "$@"
	}
	OUT=$(complete_words pfsread rep)
	contains "report" "completion: pfsread rep<TAB> -> report"
	OUT=$(complete_words pfsread report --fo)
	contains "--format" "completion: report --fo<TAB> -> --format"
	OUT=$(complete_words pfsread report --format j)
	contains "json" "completion: --format j<TAB> -> json"
	OUT=$(complete_words pfsread plan --r)
	contains "--ranks" "completion: plan --r<TAB> -> --ranks"
fi

# the installed job script from another directory: the installed binary and config
work="$SCRATCH/elsewhere"
mkdir -p "$work"
sed -e 's/file_size: 64MiB, total_size: 512MiB/file_size: 1MiB, total_size: 4MiB/' \
	-e 's/file_size: 2MiB, total_size: 256MiB/file_size: 64KiB, total_size: 1MiB/' \
	-e 's/readers_per_node: \[1, 2, 4\]/readers_per_node: [1, 2]/' -e 's/repetitions: 2/repetitions: 1/' \
	"$root/share/pfsread/configs/local.yaml" >"$root/share/pfsread/configs/local.yaml.small"
mv "$root/share/pfsread/configs/local.yaml.small" "$root/share/pfsread/configs/local.yaml"
expect_status 0 "the installed pfsread-local.sh runs from another directory" \
	sh -c "cd '$work' && env -u PFSREAD '$root/share/pfsread/jobscripts/local/pfsread-local.sh' '' 2"
ls "$work"/results/local-*.h5 >/dev/null 2>&1
ok_status $? "its results land under the directory it ran from"
done_testing
