#!/bin/sh
# gen_syscalls: what generate costs per file in system calls, counted with strace, not timed.
# Per file the design allows one openat of its name that creates it (its directory is made
# before any file, by one mkdir in one rank of all), then on that descriptor only
# pwrite64s of at most 512 KiB each (GEN_WRITE: a filled piece that stays in a core's cache),
# ceil(size / 512 KiB) of them covering the file in order, and one close: no fallocate,
# ftruncate, fsync, fstat or lseek. Writes of 4 MiB, or any call added per file, fail this test.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root for its capped tmpfs"
strace_require
capped_mount "$SCRATCH/fs" 48m 2000 || skip_all "cannot mount a capped tmpfs"
root="$SCRATCH/fs/data"

# 2 MiB (4 writes), 1 MiB + 5 B (3, the last 5 bytes), 4 KiB (1), 3 MiB - 1 B (6); split: 3
# directories of 2 files on 2 ranks of 3 and 2 files (the middle one holds files of both);
# hash: 24 files named by their digests in 16 x 16 directories, which both ranks' files share
cat >"$SCRATCH/g.yaml" <<YAML
name: g
root: $root
datasets:
  - {name: two, file_size: 2MiB, file_count: 5}
  - {name: odd, file_size: 1048581, file_count: 5}
  - {name: tiny, file_size: 4KiB, file_count: 5}
  - {name: big, file_size: 3145727, file_count: 3}
  - {name: split, file_size: 4KiB, file_count: 5, layout: {files_per_dir: 2}}
  - {name: hash, file_size: 4KiB, file_count: 24, layout: {kind: hashed, depth: 2, width: 1}}
YAML
mkdir -p "$SCRATCH/g.d"
strace -ff -qq -o "$SCRATCH/g.d/t" timeout 300 $MPIRUN $MPI_FLAGS -np 2 \
	"$PFSREAD" generate "$SCRATCH/g.yaml" >"$SCRATCH/g.out" 2>&1
ok_status $? "generate of 47 files under strace -ff"

check "per file: one creating openat, pwrite64s of at most 512 KiB in order, one close, nothing else; per directory one mkdir in one rank" \
	"$PYTHON" - "$SCRATCH/g.d" "$root/" <<'PY'
import glob, re, sys
traces, root = sys.argv[1], sys.argv[2]
sizes = {"two": 2 << 20, "odd": 1048581, "tiny": 4096, "big": 3145727, "split": 4096}
piece = 512 << 10
opened = re.compile(r'^openat\(AT_FDCWD, "([^"]+)", ([^,]+).* = (-?\d+)')
call = re.compile(r"^([a-z0-9_]+)\((\d+)?")
data = re.compile(re.escape(root) + r"(two|odd|tiny|big|split)/d\d+/f\d+$")
write = re.compile(r"^pwrite64\((\d+), .*, (\d+), (\d+)\)\s+= (\d+)$")
made = re.compile(r'^mkdir\("([^"]+)"')
dirs = re.compile(re.escape(root) + r"(two|odd|tiny|big|split)/d\d+$")
files, bad, mkdirs = {}, [], {}
for trace in glob.glob(traces + "/t.*"):
    fds = {}
    for line in open(trace, errors="replace"):
        o = opened.match(line)
        if o and data.match(o.group(1)) and "O_WRONLY" in o.group(2):
            path, fd = o.group(1), int(o.group(3))
            f = files.setdefault(path, {"opens": 0, "writes": [], "other": [], "closes": 0})
            if fd >= 0:
                f["opens"] += 1
                fds[str(fd)] = f
            else:
                bad.append(line.strip())
            continue
        d = made.match(line)
        if d and dirs.match(d.group(1)):
            mkdirs[d.group(1)] = mkdirs.get(d.group(1), 0) + 1
        m = call.match(line)
        if m is None or m.group(2) not in fds:
            continue
        f = fds[m.group(2)]
        w = write.match(line)
        if w:
            f["writes"].append((int(w.group(3)), int(w.group(2)), int(w.group(4))))
        elif m.group(1) == "close":
            f["closes"] += 1
            del fds[m.group(2)]
        else:
            f["other"].append(m.group(1))
if len(files) != 23:
    bad.append(f"{len(files)} files opened for writing under the root, want 23")
for path, f in sorted(files.items()):
    size = sizes[data.match(path).group(1)]
    want = [(off, min(piece, size - off), min(piece, size - off)) for off in range(0, size, piece)]
    if f["opens"] != 1 or f["closes"] != 1 or f["other"] or f["writes"] != want:
        bad.append(f"{path}: {f['opens']} opens, {f['closes']} closes, other {f['other']}, "
                   f"writes (offset, asked, written) {f['writes']} want {want}")
if len(mkdirs) != 7 or any(n != 1 for n in mkdirs.values()):
    bad.append(f"mkdir calls of the data sets' directories in all ranks: {mkdirs}, want 7, one each")
print(f"# {len(files)} files; per file: openat, pwrite64 of at most {piece} B in order, close")
for b in bad[:8]:
    print("# " + b)
sys.exit(1 if bad else 0)
PY
check "hashed: every directory of the names made by one mkdir in one rank, no .part file left" \
	"$PYTHON" - "$SCRATCH/g.d" "$root/hash" <<'PY'
import glob, os, re, sys
traces, top = sys.argv[1], sys.argv[2]
made = re.compile(r'^mkdir\("(' + re.escape(top) + r'/[^"]+)"')
counts, have, parts = {}, set(), glob.glob(top + "/*.part")
for trace in glob.glob(traces + "/t.*"):
    for line in open(trace, errors="replace"):
        m = made.match(line)
        if m:
            counts[m.group(1)] = counts.get(m.group(1), 0) + 1
for d, subdirs, _ in os.walk(top):
    have.update(os.path.join(d, s) for s in subdirs)
bad = [f"{p}: {n} mkdir calls" for p, n in sorted(counts.items()) if n != 1]
if set(counts) != have or not have:
    bad.append(f"{len(counts)} directories made, {len(have)} there")
if parts:
    bad.append(f"left: {parts}")
print(f"# {len(have)} directories of hashed names, {len(counts)} made")
for b in bad[:8]:
    print("# " + b)
sys.exit(1 if bad else 0)
PY
check "verify reads back every block" mpi 2 "$PFSREAD" verify "$SCRATCH/g.yaml"
done_testing
