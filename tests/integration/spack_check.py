#!/usr/bin/env python3
"""spack_check.py PACKAGE.py MAKEFILE: load the Spack recipe against a stand-in for
spack.package (Spack is not needed) and check it: a MakefilePackage with a version, the
dependencies the build needs, and make arguments (for +uring and ~uring) that set only
variables the Makefile reads, including every library it links. Exits 0 or fails an assert."""
import re
import sys
import types

calls = {"version": [], "variant": [], "depends_on": []}


def record(kind):
    def f(*args, **kw):
        calls[kind].append((args, kw))
    return f


class MakefilePackage:
    pass


class Lib:
    def __init__(self, name):
        self.ld_flags = "-L/sp/%s/lib -l%s" % (name, name)


class Prefix(str):
    @property
    def include(self):
        return self + "/include"


class Dep:
    def __init__(self, name):
        self.prefix = Prefix("/sp/" + name)
        self.libs = Lib(name)
        self.mpicc = "/sp/mpi/bin/mpicc"


class Spec:
    def __init__(self, variants):
        self.variants = variants

    def __getitem__(self, name):
        return Dep(name)

    def satisfies(self, s):
        return s in self.variants


stub = types.ModuleType("spack.package")
stub.MakefilePackage = MakefilePackage
for kind in calls:
    setattr(stub, kind, record(kind))
sys.modules["spack"] = types.ModuleType("spack")
sys.modules["spack.package"] = stub

ns = {}
exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), ns)
cls = ns["Pfsread"]
assert issubclass(cls, MakefilePackage), "a MakefilePackage"
assert cls.__doc__ and cls.homepage and cls.git, "doc, homepage, git"
assert calls["version"], "at least one version"
deps = {a[0] for a, _ in calls["depends_on"]}
for need in ("mpi", "hdf5+mpi", "libyaml", "xxhash", "openssl", "liburing"):
    assert need in deps, "depends_on(%r)" % need

makefile = open(sys.argv[2]).read()
known = set(re.findall(r"^([A-Z0-9_]+)\s*\??=", makefile, re.M))
for variants in ("+uring", "~uring"):
    pkg = cls()
    pkg.spec = Spec(variants)
    pkg.prefix = "/opt/pfsread"
    for targets, first in ((pkg.build_targets, "all"), (pkg.install_targets, "install")):
        assert targets[0] == first, targets
        for a in targets[1:]:
            var = a.split("=", 1)[0]
            assert "=" in a and var in known, "%s: %s is no Makefile variable" % (variants, a)
    args = dict(a.split("=", 1) for a in pkg.install_targets[1:])
    assert args["PREFIX"] == "/opt/pfsread"
    for var in ("MPICC", "HDF5_LIBS", "YAML_LIBS", "XXHASH_LIBS", "CRYPTO_LIBS"):
        assert args.get(var), "%s: %s set" % (variants, var)
    assert (args["URING_DEFS"] == "-DHAVE_LIBURING") == (variants == "+uring"), args
print("ok")
