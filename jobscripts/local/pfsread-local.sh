#!/bin/sh
# pfsread-local: generate (if needed) and run an experiment on this one machine, no batch
# system: what 'make demo' runs. Prints the result table at the end.
#   usage: jobscripts/local/pfsread-local.sh [CONFIG [RANKS]]
#   defaults: configs/local.yaml, 4 ranks (more ranks than cores is allowed).
# Environment: PFSREAD (the binary, default build/pfsread), MPIRUN (default mpirun).
set -eu
config=${1:-configs/local.yaml}
ranks=${2:-4}
bin=${PFSREAD:-build/pfsread}
mpirun=${MPIRUN:-mpirun}
# Root needs --allow-run-as-root; more ranks than cores needs --oversubscribe.
flags="--oversubscribe"
[ "$(id -u)" -eq 0 ] && flags="$flags --allow-run-as-root"
# shellcheck disable=SC2086
$mpirun $flags -np "$ranks" "$bin" generate "$config"
# shellcheck disable=SC2086
$mpirun $flags -np "$ranks" "$bin" run "$config"
