# lib.sh: what the integration tests share: TAP output, a scratch directory, mpirun as root
# on this machine, and several "nodes" on one machine (fake host names, a local rsh agent).
# Source it from a test; it leaves the caller in the repository's top directory.

TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
PFSREAD=${PFSREAD:-$TOP/build/pfsread}
PYTHON=${PYTHON:-/usr/bin/python3}
CHECK_H5="$TOP/tests/integration/results_h5py.py"
T_COUNT=0
T_FAILED=0
# The scratch directory: under TMPDIR where set; else /tmp, or /var/tmp where /tmp is a tmpfs
# (Debian 13 and others mount one there), whose pages neither fadvise nor drop_caches evict and
# which refuses O_DIRECT: the tests of cold reads need a file system on a disk.
lib_scratch_base() {
	if [ -n "${TMPDIR:-}" ]; then
		echo "$TMPDIR"
	elif [ "$(stat -f -c %T /tmp 2>/dev/null)" = tmpfs ] && [ -d /var/tmp ] && [ -w /var/tmp ] &&
		[ "$(stat -f -c %T /var/tmp 2>/dev/null)" != tmpfs ]; then
		echo /var/tmp
	else
		echo /tmp
	fi
}
SCRATCH=$(mktemp -d "$(lib_scratch_base)/pfsread-test.XXXXXX")
LIB_MOUNTS=""
# On exit (and on INT or TERM, which exit): the mounts capped_mount made, newest first, then
# the scratch directory.
lib_cleanup() {
	for m in $LIB_MOUNTS; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done
	rm -rf "$SCRATCH"
}
trap lib_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# capped_mount DIR [SIZE [INODES]]: a tmpfs of the test's own at DIR with a size and an inode
# cap (default 64m and 20000), unmounted when the test exits. Destructive tests (full file
# systems, truncated or swapped files) run only on such a mount. Fails when not root.
capped_mount() {
	[ "$(id -u)" -eq 0 ] || return 1
	mkdir -p "$1" && mount -t tmpfs -o "size=${2:-64m},nr_inodes=${3:-20000}" tmpfs "$1" ||
		return 1
	LIB_MOUNTS="$1 $LIB_MOUNTS"
}

# ext4_loop DIR SIZE: an ext4 image of SIZE on a capped tmpfs of the test's own (SIZE + 16m,
# 100 inodes), mounted at DIR; both unmounted when the test exits (the loop device goes with
# the image's mount: autoclear). A file system whose reads go through the block layer, where a
# tmpfs's would not. Fails when not root or without mkfs.ext4.
ext4_loop() {
	command -v mkfs.ext4 >/dev/null 2>&1 || return 1
	capped_mount "$SCRATCH/ext4_loop" "$((${2%m} + 16))m" 100 || return 1
	mkdir -p "$1" && truncate -s "$2" "$SCRATCH/ext4_loop/ext4.img" &&
		mkfs.ext4 -q -F -m 0 "$SCRATCH/ext4_loop/ext4.img" &&
		mount -o loop "$SCRATCH/ext4_loop/ext4.img" "$1" || return 1
	LIB_MOUNTS="$1 $LIB_MOUNTS"
}

# faultfs_build: faultfs (tests/integration/faultfs.c, a FUSE view of a directory that fails or
# waits on command) built into $SCRATCH/faultfs, FAULTFS set to it; where it cannot be had (no
# /dev/fuse, no libfuse3 development files, a failed build), FAULTFS empty, FAULTFS_WHY saying
# why, and status 1.
faultfs_build() {
	FAULTFS=""
	FAULTFS_WHY=""
	# shellcheck disable=SC2046 # the flags are words
	if [ ! -c /dev/fuse ]; then
		FAULTFS_WHY="no /dev/fuse"
	elif ! pkg-config --exists fuse3 2>/dev/null; then
		FAULTFS_WHY="no libfuse3 development files (make deps-test)"
	elif ! cc -O2 -o "$SCRATCH/faultfs" "$TOP/tests/integration/faultfs.c" \
		$(pkg-config --cflags --libs fuse3) 2>"$SCRATCH/faultfs.err"; then
		FAULTFS_WHY="cannot build faultfs: $(head -n 1 "$SCRATCH/faultfs.err")"
	else
		FAULTFS="$SCRATCH/faultfs"
	fi
	[ -n "$FAULTFS" ]
}

# strace_require: skip the whole test where strace is missing or may not trace (ptrace refused)
strace_require() {
	command -v strace >/dev/null 2>&1 || skip_all "strace is not installed"
	strace -f -qq -o /dev/null true 2>/dev/null || skip_all "strace cannot trace here (ptrace refused)"
}

# Checks pass when what they name holds: ok_status STATUS NAME on exit status 0, pass, fail.
# (The convention of every test, C and Python too: tests/README.md.) tap_line pass|fail NAME:
# one TAP line.
tap_line() {
	T_COUNT=$((T_COUNT + 1))
	if [ "$1" = pass ]; then
		echo "ok $T_COUNT - $2"
	else
		T_FAILED=$((T_FAILED + 1))
		echo "not ok $T_COUNT - $2"
	fi
}

# ok_status STATUS NAME: passes when STATUS, an exit status, is 0: `cmd; ok_status $? NAME`.
ok_status() {
	if [ "$1" -eq 0 ]; then tap_line pass "$2"; else tap_line fail "$2"; fi
}

# pass NAME, fail NAME: a check the test has decided itself.
pass() { tap_line pass "$1"; }
fail() { tap_line fail "$1"; }

# ok: not a helper in the shell tests (`ok 1` passes in C and would fail here); a call stops
# the test, so a test written the other way cannot pass by miscounting.
ok() {
	echo "Bail out! $0 calls ok $*: use ok_status STATUS NAME, pass NAME or fail NAME" \
		"(tests/README.md)"
	exit 1
}

# check DESCRIPTION COMMAND...: passes when the command exits 0; shows its output otherwise.
check() {
	desc=$1
	shift
	if out=$("$@" 2>&1); then
		pass "$desc"
	else
		fail "$desc"
		printf '%s\n' "$out" | sed 's/^/#   /' | tail -n 30
	fi
}

# expect_status N DESCRIPTION COMMAND...: passes when the command exits with N; its output
# (stdout and stderr) is left in $OUT for further checks.
expect_status() {
	want=$1
	desc=$2
	shift 2
	OUT=$("$@" 2>&1)
	got=$?
	if [ "$got" -eq "$want" ]; then
		pass "$desc"
	else
		fail "$desc (exit $got, wanted $want)"
		printf '%s\n' "$OUT" | sed 's/^/#   /' | tail -n 30
	fi
}

# contains TEXT DESCRIPTION: passes when $OUT contains TEXT.
contains() {
	case "$OUT" in
	*"$1"*) pass "$2" ;;
	*)
		fail "$2"
		printf '#   wanted "%s" in:\n' "$1"
		printf '%s\n' "$OUT" | sed 's/^/#   /' | tail -n 20
		;;
	esac
}

done_testing() {
	echo "1..$T_COUNT"
	[ "$T_FAILED" -eq 0 ]
	exit $?
}

skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}

# mpi NP ARGS...: the MPI launcher on this machine, as root and with more ranks than cores if
# need be. MPIRUN names the launcher (default mpirun; `make check-mpich` sets mpirun.mpich);
# MPI_FLAGS, when unset, are those its kind needs (Open MPI: oversubscribe, root; MPICH's
# Hydra needs none). MPI_KIND says which: openmpi, mpich or other.
MPIRUN=${MPIRUN:-mpirun}
case $($MPIRUN --version 2>&1) in
*"Open MPI"* | *OpenRTE*) MPI_KIND=openmpi ;;
*HYDRA* | *MPICH*) MPI_KIND=mpich ;;
*) MPI_KIND=other ;;
esac
if [ -z "${MPI_FLAGS+set}" ]; then
	MPI_FLAGS=""
	if [ "$MPI_KIND" = openmpi ]; then
		MPI_FLAGS="--oversubscribe --mca btl self,vader,tcp"
		[ "$(id -u)" -eq 0 ] && MPI_FLAGS="$MPI_FLAGS --allow-run-as-root"
	fi
fi
mpi() {
	np=$1
	shift
	# shellcheck disable=SC2086
	timeout 300 $MPIRUN $MPI_FLAGS -np "$np" "$@"
}

# kill_tree PID: SIGKILL to PID and every process below it, all listed before any is killed
# (a rank whose mpirun died first would go on, orphaned, writing beside what the test runs
# next, as a batch system's kill never leaves it), then waited for until gone (5 s at most).
kill_tree() {
	kt_procs=$(kt_list "$1")
	# shellcheck disable=SC2086
	kill -9 $kt_procs 2>/dev/null
	wait "$1" 2>/dev/null
	for kt_p in $kt_procs; do
		kt_i=0
		while kill -0 "$kt_p" 2>/dev/null && [ "$kt_i" -lt 100 ]; do
			sleep 0.05
			kt_i=$((kt_i + 1))
		done
	done
}
kt_list() {
	echo "$1"
	for kt_c in $(ps -o pid= --ppid "$1" 2>/dev/null); do kt_list "$kt_c"; done
}

# need_openmpi: skip the whole test unless the launcher is Open MPI's (fake nodes, MCA flags).
need_openmpi() {
	[ "$MPI_KIND" = openmpi ] || skip_all "needs Open MPI's mpirun ($MPIRUN is $MPI_KIND)"
}

# watchdog SECONDS PID: SIGKILL to PID after SECONDS, unless watchdog_end comes first. Its
# output goes nowhere and watchdog_end ends its sleep too: a sleep left holding the test's
# stdout would keep prove waiting for it.
watchdog() {
	(
		sleep "$1" &
		nap=$!
		trap 'kill "$nap" 2>/dev/null; exit 0' TERM
		wait "$nap" && kill -KILL "$2" 2>/dev/null
	) >/dev/null 2>&1 &
	dog=$!
}
watchdog_end() {
	kill "$dog" 2>/dev/null
	wait "$dog" 2>/dev/null
	dog=""
}

# fake_nodes NODES SLOTS: a hostfile of made-up host names and an rsh agent that runs the
# command here, so mpirun starts one daemon per "node" and split_type sees NODES nodes. Only
# Open MPI's mpirun takes such an agent: under another launcher the test skips from here on
# (all of it when nothing was checked yet).
fake_nodes() {
	if [ "$MPI_KIND" != openmpi ]; then
		[ "$T_COUNT" -eq 0 ] && skip_all "fake nodes need Open MPI's mpirun ($MPIRUN is $MPI_KIND)"
		echo "# SKIP the rest: fake nodes need Open MPI's mpirun ($MPIRUN is $MPI_KIND)"
		done_testing
	fi
	# each fake node gets its own TMPDIR: two daemons sharing Open MPI's session directory
	# on one host now and then collide ("mkdir ... File exists")
	cat >"$SCRATCH/fake-rsh" <<RSH
#!/bin/sh
while [ \$# -gt 0 ]; do case "\$1" in -*) shift ;; *) break ;; esac; done
host=\$1
shift
mkdir -p "$SCRATCH/tmp-\$host"
TMPDIR="$SCRATCH/tmp-\$host" exec /bin/sh -c "\$*"
RSH
	chmod +x "$SCRATCH/fake-rsh"
	: >"$SCRATCH/hostfile"
	i=1
	while [ "$i" -le "$1" ]; do
		echo "n$i slots=$2" >>"$SCRATCH/hostfile"
		i=$((i + 1))
	done
}

# mpi_nodes PER_NODE ARGS...: mpirun over the fake nodes, PER_NODE ranks on each.
mpi_nodes() {
	per=$1
	shift
	# shellcheck disable=SC2086
	# yield_when_idle: the fake nodes share two cores, and ranks spinning at a barrier would
	# starve the readers
	OMPI_MCA_plm_rsh_agent="$SCRATCH/fake-rsh" OMPI_MCA_btl=self,tcp \
		OMPI_MCA_rtc_hwloc_vmhole=none PMIX_MCA_gds=hash OMPI_MCA_mpi_yield_when_idle=1 \
		timeout 300 mpirun --oversubscribe $([ "$(id -u)" -eq 0 ] && echo --allow-run-as-root) \
		--hostfile "$SCRATCH/hostfile" --map-by "ppr:$per:node" "$@"
}

# partial_files DIR SIZE: how many files under DIR are partial: a .part name, or a data file
# (fNNNNNNNNNN, written at its name) of other than SIZE bytes.
partial_files() {
	find "$1" -type f \( -name '*.part' -o \( -name 'f[0-9]*' ! -size "$2"c \) \) | wc -l
}

# write_config FILE ROOT [EXTRA YAML...]: a small experiment under ROOT.
small_config() {
	file=$1
	root=$2
	shift 2
	{
		echo "name: t"
		echo "root: $root"
		echo "results: $SCRATCH/results/{name}-{jobid}.h5"
		echo "layout: {files_per_dir: 4}"
		echo "datasets:"
		echo "  - {name: big, file_size: 1MiB, file_count: 6}"
		echo "  - {name: small, file_size: 65537, file_count: 11}"
		for line in "$@"; do echo "$line"; done
	} >"$file"
}
