#!/bin/sh
# backends: every read path moves every byte of every file, checked block by block against
# the content pattern (verify: true), per reader and shared; O_DIRECT on a file whose size is
# not a multiple of the alignment; io_uring at queue depth 1 and 64; MPI-IO collective.
. "$(dirname "$0")/lib.sh"

root="$SCRATCH/data"
small_config "$SCRATCH/gen.yaml" "$root"
check "generate" mpi 2 "$PFSREAD" generate "$SCRATCH/gen.yaml"
direct_ok=1
[ "$(stat -f -c %T "$SCRATCH")" = tmpfs ] && direct_ok=0

backends="posix mmap mpiio"
[ "$direct_ok" -eq 1 ] && backends="$backends direct"
# uring is skipped only where the binary was built without liburing; any other failure of it
# shows up in the checks below
small_config "$SCRATCH/probe.yaml" "$root" "sweep: {backend: [uring], readers_per_node: [1]}" "cache: none"
if mpi 1 "$PFSREAD" run "$SCRATCH/probe.yaml" -o "$SCRATCH/probe.h5" 2>&1 | grep -q "unknown backend 'uring'"; then
	echo "# uring: this build has no liburing; skipped"
else
	backends="$backends uring"
fi

for be in $backends; do
	cfg="$SCRATCH/$be.yaml"
	cache=fadvise
	[ "$be" = direct ] && cache=direct
	small_config "$cfg" "$root" \
		"sweep: {backend: [$be], readers_per_node: [1, 2], pattern: [per-reader, shared], transfer_size: [64KiB, 1MiB], order: [sorted, random]}" \
		"cache: $cache" "verify: true" "uring: {queue_depth: 4}"
	check "$be: run with every block verified" mpi 2 "$PFSREAD" run "$cfg" -o "$SCRATCH/$be.h5"
	check "$be: h5py: bytes, every file covered once, times ordered" \
		"$PYTHON" "$CHECK_H5" "$SCRATCH/$be.h5" '{"phases": 32, "nranks": 2, "status": "complete"}'
done

if echo "$backends" | grep -q uring; then
	for qd in 1 64; do
		small_config "$SCRATCH/qd$qd.yaml" "$root" "sweep: {backend: [uring], readers_per_node: [1, 2]}" \
			"cache: none" "uring: {queue_depth: $qd, max_inflight: 256KiB}"
		check "uring queue depth $qd" mpi 2 "$PFSREAD" run "$SCRATCH/qd$qd.yaml" -o "$SCRATCH/qd$qd.h5"
		check "uring queue depth $qd: results check out, queue depth recorded" "$PYTHON" -c '
import h5py, subprocess, sys
f = h5py.File(sys.argv[1], "r")
assert all(p.attrs["queue_depth"] == int(sys.argv[2]) for p in f["phases"].values())
' "$SCRATCH/qd$qd.h5" "$qd"
	done
fi

# verify: true catches a corrupted byte inside the timed read, naming file and offset
bad="$root/big/d000001/f0000000004"
cp "$bad" "$SCRATCH/saved"
printf '\001' | dd of="$bad" bs=1 seek=777777 conv=notrunc status=none
expect_status 1 "verify during run catches a flipped byte" mpi 2 "$PFSREAD" run "$SCRATCH/posix.yaml" -o "$SCRATCH/bad.h5"
contains "$bad: offset 777777" "the message names the file and the offset"
cp "$SCRATCH/saved" "$bad"

if echo "$backends" | grep -q uring; then
	cp "$SCRATCH/saved" "$SCRATCH/saved2"
	printf '\001' | dd of="$bad" bs=1 seek=777777 conv=notrunc status=none
	expect_status 1 "uring: verify inside the pipeline catches a flipped byte" \
		mpi 2 "$PFSREAD" run "$SCRATCH/uring.yaml" -o "$SCRATCH/bad-uring.h5"
	contains "$bad: offset 777777" "uring: the message names the file and the offset"
	cp "$SCRATCH/saved" "$bad"
fi

# page-cache residency is measured before each phase and proven
small_config "$SCRATCH/warm.yaml" "$root" "sweep: {readers_per_node: [1]}" "cache: none" "repetitions: 2"
check "cache none, twice" mpi 1 "$PFSREAD" run "$SCRATCH/warm.yaml" -o "$SCRATCH/warm.h5"
small_config "$SCRATCH/fadv.yaml" "$root" "sweep: {readers_per_node: [1]}" "cache: fadvise" "repetitions: 2"
check "cache fadvise, twice" mpi 1 "$PFSREAD" run "$SCRATCH/fadv.yaml" -o "$SCRATCH/fadv.h5"
check "residency: near 1 after a warm read with cache none, near 0 after fadvise" "$PYTHON" -c '
import h5py, sys
warm = h5py.File(sys.argv[1], "r")["phases"]
cold = h5py.File(sys.argv[2], "r")["phases"]
second = [p for p in warm.values() if p.attrs["repetition"] == 1]
assert all(p.attrs["resident_fraction"] > 0.9 for p in second), [p.attrs["resident_fraction"] for p in second]
assert all(p.attrs["resident_fraction"] < 0.05 for p in cold.values()), [p.attrs["resident_fraction"] for p in cold.values()]
' "$SCRATCH/warm.h5" "$SCRATCH/fadv.h5"
if [ "$(id -u)" -eq 0 ]; then
	small_config "$SCRATCH/drop.yaml" "$root" "sweep: {readers_per_node: [1]}" "cache: drop"
	check "cache drop (root)" mpi 1 "$PFSREAD" run "$SCRATCH/drop.yaml" -o "$SCRATCH/drop.h5"
	check "residency near 0 after drop" "$PYTHON" -c '
import h5py, sys
ph = h5py.File(sys.argv[1], "r")["phases"]
assert all(p.attrs["resident_fraction"] < 0.05 for p in ph.values())
' "$SCRATCH/drop.h5"
fi

# noatime and the mount's atime mode are recorded
small_config "$SCRATCH/na.yaml" "$root" "sweep: {readers_per_node: [1]}" "cache: none" "noatime: true"
check "noatime: true" mpi 1 "$PFSREAD" run "$SCRATCH/na.yaml" -o "$SCRATCH/na.h5"
check "noatime recorded (root may always use O_NOATIME) with the mount's atime mode" "$PYTHON" -c '
import h5py, sys
for p in h5py.File(sys.argv[1], "r")["phases"].values():
    assert p.attrs["noatime"] == 1, p.attrs["noatime"]
    assert p.attrs["atime_mode"] in ("noatime", "relatime", "strictatime"), p.attrs["atime_mode"]
' "$SCRATCH/na.h5"

# cache: shift on two nodes: no file is read on the node that wrote it or read it last
fake_nodes 2 2
small_config "$SCRATCH/shift.yaml" "$root" "sweep: {readers_per_node: [1, 2]}" "cache: shift" "repetitions: 2"
rm -rf "$root"
check "generate on 2 nodes x 2 ranks" mpi_nodes 2 "$PFSREAD" generate "$SCRATCH/shift.yaml"
check "run with cache shift" mpi_nodes 2 "$PFSREAD" run "$SCRATCH/shift.yaml" -o "$SCRATCH/shift.h5"
check "shift: every file read on another node than the one that generated or last read it" "$PYTHON" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
node = list(f["topology/node_of_rank"][:])
nranks = len(node)
def generator(nfiles, i):
    base, extra = divmod(nfiles, nranks)
    return i // (base + 1) if i < extra * (base + 1) else extra + (i - extra * (base + 1)) // base
last = {}
for name in sorted(f["phases"]):
    p = f["phases"][name]
    ds, n = p.attrs["dataset"], int(p.attrs["nfiles"])
    if ds not in last:
        last[ds] = {i: node[generator(n, i)] for i in range(n)}
    now = {int(r["file"]): node[int(r["rank"])] for r in p["files"][:]}
    assert sorted(now) == list(range(n))
    assert all(now[i] != last[ds][i] for i in range(n)), (name, ds)
    last[ds] = now
' "$SCRATCH/shift.h5"
# 2 nodes give each data set one cold use; the other three evict first (shift_fallback)
expect_status 0 "plan says how many cold uses shift gives on 2 nodes" \
	"$PFSREAD" plan "$SCRATCH/shift.yaml" --ranks 4 --nodes 2
contains "2 nodes give each data set 1 cold use" "plan: 1 cold use per data set on 2 nodes"
contains "uses 2-4 evict the files on the reading node first (shift_fallback: fadvise)" \
	"plan: uses 2-4 fall back to fadvise"
check "shift: use 1 shifts only, uses 2-4 evicted with fadvise (recorded) and read cold" "$PYTHON" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
seen = {}
for name in sorted(f["phases"]):
    a = f["phases"][name].attrs
    use = seen[a["dataset"]] = seen.get(a["dataset"], 0) + 1
    assert a["cache_evict"] == ("" if use == 1 else "fadvise"), (name, use, a["cache_evict"])
    if use > 1:
        assert a["cache_state"] == "cold" and a["resident_fraction"] <= 0.05, (name, dict(a))
' "$SCRATCH/shift.h5"
{ cat "$SCRATCH/shift.yaml"; echo "shift_fallback: none"; } >"$SCRATCH/shift-none.yaml"
check "run with cache shift and shift_fallback: none" \
	mpi_nodes 2 "$PFSREAD" run "$SCRATCH/shift-none.yaml" -o "$SCRATCH/shift-none.h5"
check "shift_fallback none: nothing evicted" "$PYTHON" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
assert all(f["phases"][n].attrs["cache_evict"] == "" for n in f["phases"])
' "$SCRATCH/shift-none.h5"

# sequential_hint: posix and uring tell the kernel each file is read from start to end
# (POSIX_FADV_SEQUENTIAL, once per file opened); sequential_hint: false says nothing.
if command -v strace >/dev/null 2>&1; then
	for be in posix $(echo "$backends" | grep -o uring); do
		for hint in true false; do
			small_config "$SCRATCH/hint.yaml" "$root" "sweep: {backend: [$be], readers_per_node: [1]}" \
				"cache: none" "sequential_hint: $hint"
			strace -f -qq -e trace=fadvise64 -o "$SCRATCH/hint-$be-$hint.trace" \
				"$PFSREAD" run "$SCRATCH/hint.yaml" -o "$SCRATCH/hint.h5" --force >/dev/null 2>&1
			n=$(grep -c "POSIX_FADV_SEQUENTIAL) = 0" "$SCRATCH/hint-$be-$hint.trace")
			want=17
			[ "$hint" = false ] && want=0
			test "$n" -eq "$want"
			ok_status $? "$be, sequential_hint: $hint: $n files advised sequential (want $want, one per file)"
		done
	done
	# uring says it with WILLNEED to a file longer than its buffer pool (whose reads trail one
	# another down the file), with SEQUENTIAL to one the pool holds whole: here a pool of
	# 4 x 64 KiB, 6 files of 1 MiB and 11 of 65537 B
	if echo "$backends" | grep -qw uring; then
		small_config "$SCRATCH/pool.yaml" "$root" \
			"sweep: {backend: [uring], readers_per_node: [1], transfer_size: [64KiB]}" \
			"cache: none" "uring: {queue_depth: 4, max_inflight: 256KiB}"
		strace -f -qq -e trace=fadvise64 -o "$SCRATCH/pool.trace" \
			"$PFSREAD" run "$SCRATCH/pool.yaml" -o "$SCRATCH/pool.h5" --force >/dev/null 2>&1
		s=$(grep -c "POSIX_FADV_SEQUENTIAL) = 0" "$SCRATCH/pool.trace")
		w=$(grep -c "POSIX_FADV_WILLNEED) = 0" "$SCRATCH/pool.trace")
		test "$s" -eq 11 && test "$w" -eq 6
		ok_status $? "uring: WILLNEED to the 6 files longer than its pool ($w), SEQUENTIAL to the 11 it holds whole ($s)"
		got=$("$PYTHON" -c 'import h5py, sys; a = h5py.File(sys.argv[1], "r")["phases/0000"].attrs; print(a["advice"], "|", a["hints"])' "$SCRATCH/pool.h5")
		case "$got" in "sequential |"*"WILLNEED if longer than the pool; io_uring: queue_depth 4,"*) true ;; *) false ;; esac
		ok_status $? "uring: the phase records advice sequential, and WILLNEED for the longer files in its hints ($got)"
	fi
	# a file of one page or less is read whole by its first read whatever the read-ahead
	# window: no hint for it (the call would be its only effect), one for a page and a byte
	printf 'root: %s\ncache: none\ndatasets: [%s, %s]\n' "$SCRATCH/pages" \
		"{name: page, file_size: 4KiB, file_count: 5}" "{name: more, file_size: 4097, file_count: 3}" \
		>"$SCRATCH/pages.yaml"
	check "generate 5 files of 4 KiB and 3 of 4097 B" mpi 1 "$PFSREAD" generate "$SCRATCH/pages.yaml"
	for be in posix $(echo "$backends" | grep -o uring); do
		sed -i "/^sweep:/d" "$SCRATCH/pages.yaml" && echo "sweep: {backend: [$be]}" >>"$SCRATCH/pages.yaml"
		strace -f -qq -e trace=fadvise64 -o "$SCRATCH/pages-$be.trace" \
			"$PFSREAD" run "$SCRATCH/pages.yaml" -o "$SCRATCH/pages.h5" --force >/dev/null 2>&1
		n=$(grep -c "POSIX_FADV_SEQUENTIAL) = 0" "$SCRATCH/pages-$be.trace")
		test "$n" -eq 3
		ok_status $? "$be: files of one page are not advised, the 3 of 4097 B are ($n advised)"
	done
else
	echo "# strace not installed: the sequential_hint check is skipped"
fi

# advice: the hint is part of the experiment. Each backend gives what sweep.advice asks
# (default: posix and uring sequential, mmap none), each phase records what was given (the
# sweep key advice and the hints attribute), and a backend that cannot give a hint refuses it.
if command -v strace >/dev/null 2>&1; then
	for be in posix mmap $(echo "$backends" | grep -o uring); do
		for adv in default none sequential willneed; do
			small_config "$SCRATCH/adv.yaml" "$root" \
				"sweep: {backend: [$be], readers_per_node: [1], advice: [$adv]}" "cache: none"
			strace -f -qq -e trace=fadvise64,madvise -o "$SCRATCH/adv-$be-$adv.trace" \
				"$PFSREAD" run "$SCRATCH/adv.yaml" -o "$SCRATCH/adv-$be-$adv.h5" --force >/dev/null 2>&1
			n=$(grep -c "_SEQUENTIAL) = 0" "$SCRATCH/adv-$be-$adv.trace")
			w=$(grep -c "_WILLNEED) = 0" "$SCRATCH/adv-$be-$adv.trace")
			want=17 wantw=0 rec=sequential
			{ [ "$adv" = none ] || { [ "$adv" = default ] && [ "$be" = mmap ]; }; } && want=0 rec=none
			[ "$adv" = willneed ] && want=0 wantw=17 rec=willneed
			test "$n" -eq "$want" && test "$w" -eq "$wantw"
			ok_status $? "$be, advice $adv: $n files advised sequential, $w willneed (want $want, $wantw)"
			got=$("$PYTHON" -c 'import h5py, sys; a = h5py.File(sys.argv[1], "r")["phases/0000"].attrs; print(a["advice"], "|", a["hints"])' "$SCRATCH/adv-$be-$adv.h5")
			echo "# recorded: $got"
			case "$got" in "$rec |"*) true ;; *) false ;; esac
			ok_status $? "$be, advice $adv: the phase records advice $rec and its hints"
		done
	done
fi
# a backend's own advice (mmap: {advice: A}, posix: ...): its default when the sweep says
# default, recorded in every phase as what was given
small_config "$SCRATCH/adv-block.yaml" "$root" "sweep: {backend: [mmap, posix], readers_per_node: [1]}" \
	"cache: none" "mmap: {advice: sequential}" "posix: {advice: none}"
"$PFSREAD" run "$SCRATCH/adv-block.yaml" -o "$SCRATCH/adv-block.h5" --force >/dev/null 2>&1
got=$("$PYTHON" -c '
import h5py, sys
for g in h5py.File(sys.argv[1], "r")["phases"].values():
    a = g.attrs
    print("%s:%s:%s" % (a["backend"], a["advice"], "MADV_SEQUENTIAL" in a["hints"]))
' "$SCRATCH/adv-block.h5" | sort -u | tr '\n' ' ')
echo "# recorded: $got"
[ "$got" = "mmap:sequential:True posix:none:False " ]
ok_status $? "mmap: {advice: sequential} and posix: {advice: none}: every phase records the block's advice"
small_config "$SCRATCH/adv-bad.yaml" "$root" "sweep: {backend: [posix, mpiio], advice: [none, sequential]}"
OUT=$(mpi 1 "$PFSREAD" run "$SCRATCH/adv-bad.yaml" -o "$SCRATCH/adv-bad.h5" 2>&1)
st=$?
echo "$OUT" | sed 's/^/# /'
[ $st -eq 2 ] && echo "$OUT" | grep -q "sweep.advice\[1\].*mpiio.*cannot give 'sequential'" && [ ! -e "$SCRATCH/adv-bad.h5" ]
ok_status $? "advice sequential with mpiio (which gives none): usage error naming the key, no results file"
OUT=$("$PFSREAD" report "$SCRATCH/adv-mmap-none.h5" 2>&1)
echo "$OUT" | grep -q "none advice"
ok_status $? "the report's headings name the advice"
done_testing
