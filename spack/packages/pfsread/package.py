# Spack recipe for pfsread (checked by tests/integration/spack.t, which reads it without Spack).
# Use: `spack repo add spack` from the top of this tree, then `spack install pfsread` (set
# `git` below, or pass one: `spack install pfsread@main git=URL`, to where your copy lives).
from spack.package import *


class Pfsread(MakefilePackage):
    """MPI benchmark: how fast N nodes with r readers each read whole data sets of files of
    size S from a parallel file system, and whether that figure is reasonable."""

    homepage = "https://pfsread.invalid/"  # set to your copy's home page
    git = "https://pfsread.invalid/pfsread.git"  # set to your copy's repository

    version("main", branch="main")

    variant("uring", default=True, description="the io_uring read path (liburing)")

    depends_on("mpi")
    depends_on("hdf5+mpi")
    depends_on("libyaml")
    depends_on("liburing", when="+uring")
    depends_on("xxhash")
    depends_on("openssl")
    depends_on("pkgconfig", type="build")
    depends_on("gnuplot", type="run")  # the report's charts

    @property
    def build_targets(self):
        return ["all"] + self.pfsread_make_args()

    @property
    def install_targets(self):
        return ["install", "PREFIX=" + self.prefix] + self.pfsread_make_args()

    def pfsread_make_args(self):
        """The Makefile's variables, from the spec instead of pkg-config (the Makefile's
        defaults name Debian's hdf5-openmpi)."""
        spec = self.spec
        args = [
            "MPICC=" + spec["mpi"].mpicc,
            "HDF5_CFLAGS=-I" + spec["hdf5"].prefix.include,
            "HDF5_LIBS=" + spec["hdf5"].libs.ld_flags,
            "YAML_CFLAGS=-I" + spec["libyaml"].prefix.include,
            "YAML_LIBS=" + spec["libyaml"].libs.ld_flags,
            "XXHASH_CFLAGS=-I" + spec["xxhash"].prefix.include,
            "XXHASH_LIBS=" + spec["xxhash"].libs.ld_flags,
            "CRYPTO_CFLAGS=-I" + spec["openssl"].prefix.include,
            "CRYPTO_LIBS=" + spec["openssl"].libs.ld_flags,
        ]
        if spec.satisfies("+uring"):
            args += [
                "URING_CFLAGS=-I" + spec["liburing"].prefix.include,
                "URING_LIBS=" + spec["liburing"].libs.ld_flags,
                "URING_DEFS=-DHAVE_LIBURING",
            ]
        else:
            args += ["URING_CFLAGS=", "URING_LIBS=", "URING_DEFS="]
        return args
