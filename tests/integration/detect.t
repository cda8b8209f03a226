#!/bin/sh
# detect: ceilings without a hardware: section, from what the machine states. A GlusterFS-like
# FUSE mount (faultfs with fsname=10.254.77.1:/vol, subtype glusterfs) inside a network
# namespace of the test's own whose only route to 10.254.77.0/24 is a veth pair (10000 Mb/s by
# its driver): run finds the interface of the route to the mount's host and records its speed
# with the place it read it (and takes nothing from a /sys that shows another namespace's
# interfaces); report bounds the remote data by that link, marked "detected";
# a declared node link wins, and the report shows both when they differ by more than 20%. No
# packet is sent: the namespace has no other interface, and 10.254.77.0/24 is unreachable from
# the root namespace while the test runs.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root for a network namespace and a FUSE mount"
unshare --net --mount true 2>/dev/null || skip_all "cannot make network and mount namespaces"
command -v ip >/dev/null 2>&1 || skip_all "no ip (iproute2)"
"$PYTHON" -c 'import h5py' 2>/dev/null || skip_all "python3 with h5py is not installed"
faultfs_build || skip_all "$FAULTFS_WHY"

SUB=10.254.77
if ip route add unreachable "$SUB.0/24" 2>/dev/null; then
	trap 'ip route del unreachable "$SUB.0/24" 2>/dev/null; lib_cleanup' EXIT
fi
M="$SCRATCH/m"
capped_mount "$M" 64m 20000 || skip_all "cannot mount a tmpfs"
mkdir -p "$M/src" "$M/fs"
: >"$M/rules"
for name in plain declared; do
	printf 'root: %s\ndatasets: [{name: d, file_size: 256KiB, file_count: 4}]\ncache: none\n' \
		"$M/fs" >"$SCRATCH/$name.yaml"
done
printf 'hardware: {node_link_MBps: 117}\n' >>"$SCRATCH/declared.yaml"
sed "s|root: $M/fs|root: $M/src|" "$SCRATCH/plain.yaml" >"$SCRATCH/gen.yaml"
check "generate under the source" mpi 1 "$PFSREAD" generate "$SCRATCH/gen.yaml"

# Inside the namespaces: a veth pair (both ends ours), the FUSE view, one run per config.
cat >"$SCRATCH/inner.sh" <<INNER
set -e
ip link set lo up
ip link add pv0 type veth peer name pv1
ip addr add $SUB.2/24 dev pv0
ip link set pv0 up
ip link set pv1 up
"$FAULTFS" "$M/src" "$M/rules" "$M/fs" -f -o ro,fsname=$SUB.1:/vol,subtype=glusterfs &
fs=\$!
trap 'st=\$?; set +e; umount "$M/fs" 2>/dev/null; kill \$fs 2>/dev/null; wait \$fs 2>/dev/null; exit \$st' EXIT
i=0
until mountpoint -q "$M/fs" || [ \$i -ge 100 ]; do sleep 0.1; i=\$((i + 1)); done
grep " $M/fs " /proc/self/mountinfo >"$SCRATCH/mountinfo"
# first with the root namespace's /sys, as a mount namespace made without a sysfs of its own
# has: whatever it shows under the same name is not this namespace's interface
timeout 120 mpirun $MPI_FLAGS -np 1 "$PFSREAD" run "$SCRATCH/plain.yaml" \
	-o "$SCRATCH/nosys.h5" >"$SCRATCH/nosys.out" 2>&1
mount -t sysfs sysfs /sys # this namespace's interfaces under /sys/class/net
for name in plain declared; do
	timeout 120 mpirun $MPI_FLAGS -np 1 "$PFSREAD" run "$SCRATCH/\$name.yaml" \
		-o "$SCRATCH/\$name.h5" >"$SCRATCH/\$name.out" 2>&1
done
INNER
timeout 300 unshare --net --mount --propagation private sh "$SCRATCH/inner.sh" \
	>"$SCRATCH/inner.out" 2>&1
ok_status $? "three runs on the FUSE mount inside the namespaces"
cat "$SCRATCH/inner.out" "$SCRATCH/plain.out" 2>/dev/null | tail -20 | sed 's/^/# /'
grep -q "fuse.glusterfs $SUB.1:/vol" "$SCRATCH/mountinfo"
ok_status $? "the mount is a remote one as pfsread sees it (fuse.glusterfs from $SUB.1:/vol)"

check "the run records the link it found and where" "$PYTHON" -c '
import h5py, sys
env = h5py.File(sys.argv[1], "r")["environment"]
get = lambda k: env.attrs[k].decode() if isinstance(env.attrs[k], bytes) else str(env.attrs[k])
assert float(get("detected_link_MBps")) == 1250, get("detected_link_MBps")
src = get("detected_link_source")
assert src.startswith("/sys/class/net/pv0/speed: 10000 Mb/s"), src
assert "route to 10.254.77.1" in src, src
' "$SCRATCH/plain.h5"

check "with another namespace's /sys, no speed is taken from it, and the run says why" \
	"$PYTHON" -c '
import h5py, sys
env = h5py.File(sys.argv[1], "r")["environment"]
get = lambda k: env.attrs[k].decode() if isinstance(env.attrs[k], bytes) else str(env.attrs[k])
assert float(get("detected_link_MBps")) == 0, get("detected_link_MBps")
assert "/sys/class/net/pv0 is not this network namespace" in get("detected_link_source"), \
    get("detected_link_source")
' "$SCRATCH/nosys.h5"

expect_status 0 "report of the run without hardware:" "$PFSREAD" report --wide "$SCRATCH/plain.h5"
contains "detected: node link 1250 MB/s (/sys/class/net/pv0/speed: 10000 Mb/s, the interface of the route to $SUB.1)" \
	"the ceiling's figure is marked detected, with its source"
contains "reader links" "the remote data is bounded by the reader links"
expect_status 0 "report of the run that declares a node link" "$PFSREAD" report --wide "$SCRATCH/declared.h5"
contains "node link 117 MB/s" "the declared figure is used"
contains "the machine says node link 1250 MB/s (/sys/class/net/pv0/speed" "and the detected one shown beside it"
contains "968% from the declared 117" "with how far apart they are"
expect_status 0 "report --format json" "$PFSREAD" report "$SCRATCH/plain.h5" --format json
contains '"node_link_MBps": 1250' "json carries the detected figure"
done_testing
