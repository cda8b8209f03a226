#!/bin/sh
# triage: replay one input through a fuzz target and say whose defect it shows.
#   tests/fuzz/triage.sh TARGET INPUT
# Prints one line and exits: 0 "pass" (no failure), 3 "hdf5 SIGNATURE" (the failure is inside
# the HDF5 library: the first frame past the sanitizer, libFuzzer and libc is in libhdf5; our
# code only called it), 1 "ours ..." (anything else: a failure in our code, a broken promise of
# the target, a UBSan report, a leak LeakSanitizer did not suppress). SIGNATURE names the
# three innermost named HDF5 functions, to tell one HDF5 defect from another.
set -u
target=$1
input=$2
scratch=$(mktemp -d "${TMPDIR:-/tmp}/pfsread-triage.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT
log="$scratch/log"
TMPDIR="$scratch" timeout 120 "$target" -timeout=5 -rss_limit_mb=2048 "$input" >"$log" 2>&1
rc=$?
if [ "$rc" -eq 0 ]; then
	echo pass
	exit 0
fi
if grep -q "broken promise\|runtime error:\|LeakSanitizer: detected" "$log"; then
	echo "ours: $(grep -m1 "broken promise\|runtime error:\|LeakSanitizer" "$log")"
	exit 1
fi
# Memory of ours that HDF5 read or wrote past is our defect (a buffer smaller than what we
# asked HDF5 to fill or take): the owner of the memory decides, not the function that touched
# it. The owner is the frame the address lies in, or the first frame that allocated it.
owner=$(awk '
	/ is located in stack of thread |allocated by thread / { look = 1; next }
	!look || !/^ *#[0-9]+ 0x/ { next }
	/__interceptor_|___interceptor_|__asan|fuzzer::|libc\.so|libstdc\+\+/ { next }
	/ in (malloc|calloc|realloc|posix_memalign|aligned_alloc|strdup|strndup) / { next }
	{ if (!/libhdf5/) print; exit }' "$log")
if [ -n "$owner" ]; then
	echo "ours: memory of ours overrun:$owner"
	exit 1
fi
# The first stack after the first sanitizer or libFuzzer ERROR line that names more than the
# runtimes: an out-of-memory report lists the heap's largest holders at the moment it looked,
# and the first may be libFuzzer's own buffers.
verdict=$(awk '
	/ERROR: / { inerr = 1; next }
	!inerr { next }
	/^[ \t]*$/ { if (first != "") exit; next }
	!/^ *#[0-9]+ 0x/ { next }
	/__sanitizer_|__sanitizer::|__interceptor_|___interceptor_|__asan|__lsan|__ubsan/ { next }
	/fuzzer::|libc\.so|libpthread|ld-linux|libstdc\+\+/ { next }
	# the main of libFuzzer; the C library by its source path (where its symbols are)
	/ in main \(| (csu|sysdeps)\// { next }
	# the C library functions the sanitizer links into the target (the malloc family, the
	# string and memory functions it checks): their caller decides
	/ in (malloc|calloc|realloc|free|posix_memalign|aligned_alloc) / { next }
	/ in _*(str|mem)[a-z0-9_]* / { next }
	/libhdf5/ {
		if (first == "") first = "hdf5"
		if (nsig < 3 && match($0, / in H5[A-Za-z0-9_]+/)) {
			sig = sig (nsig ? "<" : "") substr($0, RSTART + 4, RLENGTH - 4)
			nsig++
		}
		next
	}
	{ if (first == "") { first = "ours"; frame = $0 } }
	END {
		if (first == "hdf5") print "hdf5 " (sig == "" ? "unnamed" : sig)
		else if (first == "ours") print "ours: " frame
		else print "ours: no stack (exit status)"
	}' "$log")
echo "$verdict"
case "$verdict" in
hdf5*) exit 3 ;;
*) exit 1 ;;
esac
