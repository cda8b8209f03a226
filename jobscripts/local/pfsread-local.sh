#!/bin/sh
# pfsread-local: generate (if needed) and run an experiment on this one machine, no batch
# system: what 'make demo' runs. Prints the result table at the end.
#   usage: jobscripts/local/pfsread-local.sh [CONFIG [RANKS]]
#   defaults: configs/local.yaml beside the job scripts, 4 ranks (more ranks than cores is
#   allowed). Works from any directory, in the source tree or installed (make install):
#   the data and results land under the current directory (the config's relative paths).
# Environment: PFSREAD (the binary; default: the tree's build/pfsread, else the installed
# PREFIX/bin/pfsread, else pfsread on PATH), MPIRUN (the launcher, one command; default
# mpirun), MPI_FLAGS (the launcher's flags; default: what Open MPI needs here, none for others).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
config=${1:-$here/../../configs/local.yaml}
ranks=${2:-4}
if [ -n "${PFSREAD:-}" ]; then
	bin=$PFSREAD
elif [ -x "$here/../../build/pfsread" ]; then
	bin=$here/../../build/pfsread # jobscripts/local in the source tree
elif [ -x "$here/../../../../bin/pfsread" ]; then
	bin=$here/../../../../bin/pfsread # PREFIX/share/pfsread/jobscripts/local
else
	bin=pfsread
fi
mpirun=${MPIRUN:-mpirun}
# Open MPI as root needs --allow-run-as-root, and more ranks than cores --oversubscribe;
# other launchers (MPICH's mpirun.mpich, mpiexec) get no extra flags. MPI_FLAGS overrides:
# its flags are split at blanks, never glob-expanded (set -f).
flags=""
case $("$mpirun" --version 2>&1) in
*"Open MPI"* | *OpenRTE*)
	flags="--oversubscribe"
	[ "$(id -u)" -eq 0 ] && flags="$flags --allow-run-as-root"
	;;
esac
flags=${MPI_FLAGS:-$flags}
set -f
# shellcheck disable=SC2086
"$mpirun" $flags -np "$ranks" "$bin" generate "$config"
# shellcheck disable=SC2086
"$mpirun" $flags -np "$ranks" "$bin" run "$config"
