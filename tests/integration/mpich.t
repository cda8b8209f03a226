#!/bin/sh
# mpich: the MPICH leg of the suite, inside its one prove run: the whole chain of pipeline.t
# (generate, verify, run and report at 1, 2 and 4 ranks, the results file checked by h5py)
# again with pfsread built against Debian's MPICH and its parallel HDF5 (build-mpich, made by
# `make check` before the tests) and launched by mpirun.mpich. Skips where MPICH or that
# build is missing.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
MPICH_PFSREAD=${MPICH_PFSREAD:-$TOP/build-mpich/pfsread}
if ! command -v mpirun.mpich >/dev/null 2>&1 || [ ! -x "$MPICH_PFSREAD" ]; then
	echo "1..0 # SKIP no MPICH build (make check-mpich-build needs mpich and libhdf5-mpich-dev)"
	exit 0
fi
PFSREAD=$MPICH_PFSREAD MPIRUN=mpirun.mpich exec sh "$TOP/tests/integration/pipeline.t"
