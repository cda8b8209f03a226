#!/bin/sh
# pfsread-local: generate (if needed) and run an experiment on this one machine, no batch
# system: what 'make demo' runs. Prints the result table at the end.
#   usage: jobscripts/local/pfsread-local.sh [CONFIG [RANKS]]
#   defaults: configs/local.yaml, 4 ranks (more ranks than cores is allowed).
# Environment: PFSREAD (the binary, default build/pfsread), MPIRUN (default mpirun),
# MPI_FLAGS (the launcher's flags; default: what Open MPI needs here, none for others).
set -eu
config=${1:-configs/local.yaml}
ranks=${2:-4}
bin=${PFSREAD:-build/pfsread}
mpirun=${MPIRUN:-mpirun}
# Open MPI as root needs --allow-run-as-root, and more ranks than cores --oversubscribe;
# other launchers (MPICH's mpirun.mpich, mpiexec) get no extra flags. MPI_FLAGS overrides.
flags=""
case $($mpirun --version 2>&1) in
*"Open MPI"* | *OpenRTE*)
	flags="--oversubscribe"
	[ "$(id -u)" -eq 0 ] && flags="$flags --allow-run-as-root"
	;;
esac
flags=${MPI_FLAGS:-$flags}
# shellcheck disable=SC2086
$mpirun $flags -np "$ranks" "$bin" generate "$config"
# shellcheck disable=SC2086
$mpirun $flags -np "$ranks" "$bin" run "$config"
