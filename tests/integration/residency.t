#!/bin/sh
# residency: the probe before each phase counts exactly what of each file is in the page cache
# where the kernel tells it: cachestat for the file's owner or root, without a mapping, else
# mincore over a mapping; where the kernel tells nothing true (a user who neither owns the
# files nor may write them: cachestat refuses, mincore calls every page resident) the phase's
# cache state is unknown, never warm. On a loop ext4 of the test's own, 2 files of 4 MiB are
# read whole, then the second half of each is evicted (fdatasync, DONTNEED): run by root with
# cache: none, the phase must record 0.5 resident, counted by cachestat without mapping a data
# file; run by nobody, it must record unknown and say so, and so must the report. Both again
# with cachestat taken away (shim/nocachestat.c), as on a kernel before Linux 6.5.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root for its loop ext4"
strace_require
ext4_loop "$SCRATCH/fs" 64m || skip_all "cannot mount a loop ext4 (root, mkfs.ext4, loop devices)"
chmod 755 "$SCRATCH"
mkdir -m 777 "$SCRATCH/results"
root="$SCRATCH/fs/data"

cat >"$SCRATCH/half.yaml" <<EOF
name: half
root: $root
results: $SCRATCH/results/{name}.h5
datasets:
  - {name: h, file_size: 4MiB, file_count: 2}
sweep: {readers_per_node: [1], transfer_size: [1MiB]}
cache: none
EOF
check "generate 2 files of 4 MiB" "$PFSREAD" generate "$SCRATCH/half.yaml" --progress 0

# half_resident: every file of the data set read whole, then its second half evicted
half_resident() {
	"$PYTHON" - "$root/h" <<'PY'
import os, sys
for d, _, names in os.walk(sys.argv[1]):
    for n in names:
        if not n.startswith("f"):
            continue
        fd = os.open(os.path.join(d, n), os.O_RDONLY)
        size = os.fstat(fd).st_size
        while os.read(fd, 1 << 20):
            pass
        os.fdatasync(fd)
        os.posix_fadvise(fd, size // 2, size - size // 2, os.POSIX_FADV_DONTNEED)
        os.close(fd)
PY
}

# resident H5: the phase's resident_fraction
resident() {
	"$PYTHON" -c '
import h5py, sys
print(repr(float(h5py.File(sys.argv[1], "r")["phases/0000"].attrs["resident_fraction"])))
' "$1"
}

# probe_calls TRACE: how the run's probe counted, as "cachestat=OK/FAILED mincore=N mapped=N"
# (mapped: mmap calls on a file of the data set's, by the descriptor its openat returned)
probe_calls() {
	"$PYTHON" - "$1" "$root/h/" <<'PY'
import re, sys
trace, data = sys.argv[1], sys.argv[2]
fds, ok, failed, mincore, mapped = set(), 0, 0, 0, 0
for line in open(trace, errors="replace"):
    line = re.sub(r"^\d+ +", "", line)
    o = re.match(r'^openat\(AT_FDCWD, "([^"]+)".* = (\d+)$', line)
    if o and o.group(1).startswith(data):
        fds.add(o.group(2))
    c = re.match(r"^close\((\d+)\)", line)
    if c:
        fds.discard(c.group(1))
    if re.match(r"^(cachestat|syscall_0x1c3)\(", line):
        ok, failed = (ok + 1, failed) if line.rstrip().endswith("= 0") else (ok, failed + 1)
    mincore += line.startswith("mincore(")
    m = re.match(r"^mmap\(NULL, \d+, PROT_READ, MAP_SHARED, (\d+),", line)
    mapped += bool(m and m.group(1) in fds)
print(f"cachestat={ok}/{failed} mincore={mincore} mapped={mapped}")
PY
}

# CACHESTAT_PY, run with FILE: 1 where the kernel answers cachestat on FILE, opened to read, for
# whoever runs it (Linux 6.5 on; 451 where pfsread knows the number), else 0
CACHESTAT_PY='
import ctypes, os, platform, sys
if platform.machine() not in ("x86_64", "aarch64", "riscv64", "ppc64le", "ppc64", "s390x",
                              "loongarch64"):
    sys.exit(print(0))
fd = os.open(sys.argv[1], os.O_RDONLY)
libc = ctypes.CDLL(None, use_errno=True)
rng, out = (ctypes.c_uint64 * 2)(0, 0), (ctypes.c_uint64 * 5)()
print(1 if libc.syscall(451, fd, rng, out, 0) == 0 else 0)
'
# whether this kernel gives cachestat to the owner of a file
: >"$SCRATCH/results/probe"
has_cachestat=$("$PYTHON" -c "$CACHESTAT_PY" "$SCRATCH/results/probe")
rm -f "$SCRATCH/results/probe"

# the kernel without cachestat (before Linux 6.5): the shim answers ENOSYS for it
SHIM="$SCRATCH/nocachestat.so"
${CC:-cc} -shared -fPIC -O2 -Wall -Wextra -Werror -o "$SHIM" \
	"$TOP/tests/integration/shim/nocachestat.c" -ldl
ok_status $? "build the shim that takes cachestat away"

# as_user USER TAG CONFIG [PRELOAD]: pfsread run CONFIG as USER (root or nobody) under strace,
# with PRELOAD (the shim) or without; results in results/TAG.h5, output in TAG.out, calls in
# TAG.trace. ASan's link-order check is off: the shim comes first under a sanitizer build.
as_user() {
	if [ "$1" = root ]; then
		set -- "" "$2" "$3" "${4:-}"
	else
		set -- "setpriv --reuid $1 --regid $(id -g nobody) --clear-groups" "$2" "$3" "${4:-}"
	fi
	# shellcheck disable=SC2086
	(cd "$SCRATCH/results" && strace -f -qq -o "$SCRATCH/$2.trace" $1 \
		env HOME="$SCRATCH/results" LD_PRELOAD="$4" ASAN_OPTIONS=verify_asan_link_order=0 \
		"$PFSREAD" run "$3" -o "$SCRATCH/results/$2.h5" --progress 0 >"$SCRATCH/$2.out" 2>&1)
}

# root: 0.5 counted, with cachestat and no mapping where the kernel has it, with mincore where not
half_resident
as_user root root "$SCRATCH/half.yaml"
ok_status $? "run as root, half of each file in the page cache"
got=$(resident "$SCRATCH/results/root.h5")
test "$got" = 0.5
ok_status $? "run as root: the phase records 0.5 resident (got $got)"
calls=$(probe_calls "$SCRATCH/root.trace")
if [ "$has_cachestat" = 1 ]; then
	case $calls in
	cachestat=[1-9]*/0\ mincore=0\ mapped=0) pass "run as root: counted with cachestat, no file mapped ($calls)" ;;
	*) fail "run as root: counted with cachestat, no file mapped ($calls)" ;;
	esac
else
	pass "# SKIP this kernel or architecture has no cachestat (the probe maps: $calls)"
fi
half_resident
as_user root root-old "$SCRATCH/half.yaml" "$SHIM"
ok_status $? "run as root, no cachestat"
got=$(resident "$SCRATCH/results/root-old.h5")
test "$got" = 0.5
ok_status $? "run as root, no cachestat: the phase records 0.5 resident (got $got)"
calls=$(probe_calls "$SCRATCH/root-old.trace")
case $calls in
cachestat=0/0\ mincore=2\ mapped=2) pass "run as root, no cachestat: counted with mincore ($calls)" ;;
*) fail "run as root, no cachestat: counted with mincore ($calls)" ;;
esac

# nobody: the kernel tells neither cachestat (EPERM) nor mincore (every page "resident") the
# truth about root's files; the phase must say its cache state is unknown, never warm, and
# the report must keep the phase apart and say why; the same without cachestat
nobody=$(id -u nobody 2>/dev/null)
sed 's/^cache: none/cache: fadvise/' "$SCRATCH/half.yaml" >"$SCRATCH/fadvise.yaml"
# Kernels 6.5 to 6.13 before their fix gave cachestat to anyone who may open the file: there
# it tells nobody the truth, and the phase's state is known (cold). The first pass's checks
# hold where the kernel refuses it, as it now does.
nobody_cachestat=0
if [ -n "$nobody" ] && command -v setpriv >/dev/null 2>&1 && [ "$has_cachestat" = 1 ]; then
	nobody_cachestat=$(setpriv --reuid "$nobody" --regid "$(id -g nobody)" --clear-groups \
		"$PYTHON" -c "$CACHESTAT_PY" "$(find "$root/h" -type f -name 'f*' | head -1)")
fi
for shim in "" "$SHIM"; do
	tag=nobody${shim:+-old}
	what="run as nobody${shim:+, no cachestat}"
	if [ -z "$nobody" ] || ! command -v setpriv >/dev/null 2>&1; then
		for _ in 1 2 3 4 5 6 7; do pass "# SKIP no user nobody, or no setpriv"; done
		continue
	fi
	if [ -z "$shim" ] && [ "$nobody_cachestat" = 1 ]; then
		for _ in 1 2 3 4 5 6 7; do
			pass "# SKIP this kernel gives cachestat to nobody on root's files (before its fix)"
		done
		continue
	fi
	half_resident
	as_user "$nobody" "$tag" "$SCRATCH/fadvise.yaml" "$shim"
	ok_status $? "$what (not the files' owner), cache: fadvise"
	check "$what: resident_fraction NaN, cache_state unknown (not warm)" "$PYTHON" -c '
import h5py, math, sys
a = h5py.File(sys.argv[1], "r")["phases/0000"].attrs
state = a["cache_state"]
state = state.decode() if isinstance(state, bytes) else str(state)
print("#", a["resident_fraction"], state)
sys.exit(0 if math.isnan(a["resident_fraction"]) and state == "unknown" else 1)
' "$SCRATCH/results/$tag.h5"
	check "$what: the results file passes the h5py checker" "$PYTHON" "$CHECK_H5" \
		"$SCRATCH/results/$tag.h5" '{"nranks": 1, "status": "complete"}'
	calls=$(probe_calls "$SCRATCH/$tag.trace")
	case $calls in
	*mapped=0) pass "$what: no file mapped for a mincore that would lie ($calls)" ;;
	*) fail "$what: no file mapped for a mincore that would lie ($calls)" ;;
	esac
	grep -q "warning: cache state unknown" "$SCRATCH/$tag.out" &&
		! grep -q "were in the page cache before it" "$SCRATCH/$tag.out"
	ok_status $? "$what: says the cache state is unknown, not that the cache served it"
	# the report's lines joined: a sentence may be folded anywhere
	"$PFSREAD" report "$SCRATCH/results/$tag.h5" >"$SCRATCH/$tag.report" 2>&1 &&
		tr '\n' ' ' <"$SCRATCH/$tag.report" | tr -s ' ' |
		grep -q "would not say how much of the data was in the page cache" &&
		! grep -qi "warm" "$SCRATCH/$tag.report"
	ok_status $? "$what, report: the repetition's cache state is unknown, kept apart, never called warm"
	"$PFSREAD" report "$SCRATCH/results/$tag.h5" --format json >"$SCRATCH/$tag.json" 2>&1 &&
		"$PYTHON" -c '
import json, sys
cells = json.load(open(sys.argv[1]))["runs"][0]["cells"]
sys.exit(0 if cells and all(c["cache_state"] == "unknown" and c["resident_fraction"] is None
                            for c in cells) else 1)
' "$SCRATCH/$tag.json"
	ok_status $? "$what, report --format json: cache_state unknown, resident_fraction null"
done
done_testing
