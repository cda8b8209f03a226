#!/bin/sh
# spack: the Spack recipe (spack/packages/pfsread/package.py) loads against a stand-in for
# spack.package and sets only variables the Makefile reads, for +uring and ~uring
# (spack_check.py). Spack itself is not needed.
. "$(dirname "$0")/lib.sh"

check "package.py is a MakefilePackage with the dependencies and make arguments the build needs" \
	"$PYTHON" tests/integration/spack_check.py spack/packages/pfsread/package.py Makefile
check "spack/repo.yaml names the repository" grep -q "namespace: pfsread" spack/repo.yaml
done_testing
