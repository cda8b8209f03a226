# pfsread: build, test and install.
#   make                      build build/pfsread
#   make demo                 install what is missing, build, generate and run configs/local.yaml
#   make check                install what is missing, build, run the whole suite (prove);
#                             with the box tests (root; CHECK_BOX=0 leaves them out)
#   make check-mpich          build with MPICH into build-mpich, run a subset with mpirun.mpich
#   make install PREFIX=...   install the binary, man page, docs, configs and job scripts
#   make fuzz                 fuzz the config loader and the report's reader (clang, libFuzzer)
#   make box-check            the truth tests in a cluster in a box (root; see README)
#   make box-demo             GlusterFS against MooseFS in a cluster in a box, one HTML report
#   make box-shell            a 3-node box with Slurm to submit the job scripts to (make box-down)
#   make box-reference        the reference study's shape, scaled, on converged OrangeFS in a box
# On a cluster, build against the loaded modules:
#   make MPICC=cc HDF5_CFLAGS=-I$$HDF5_DIR/include HDF5_LIBS="-L$$HDF5_DIR/lib -lhdf5"

MPICC       ?= mpicc
PKG_CONFIG  ?= pkg-config
HDF5_CFLAGS ?= $(shell $(PKG_CONFIG) --cflags hdf5-openmpi 2>/dev/null)
HDF5_LIBS   ?= $(shell $(PKG_CONFIG) --libs hdf5-openmpi 2>/dev/null)
YAML_CFLAGS ?= $(shell $(PKG_CONFIG) --cflags yaml-0.1 2>/dev/null)
YAML_LIBS   ?= $(shell $(PKG_CONFIG) --libs yaml-0.1 2>/dev/null)
# liburing is optional: without it the uring backend is left out and the rest still builds.
URING_CFLAGS ?= $(shell $(PKG_CONFIG) --cflags liburing 2>/dev/null)
URING_LIBS   ?= $(shell $(PKG_CONFIG) --libs liburing 2>/dev/null)
URING_DEFS   ?= $(shell $(PKG_CONFIG) --exists liburing 2>/dev/null && echo -DHAVE_LIBURING)
# Digests of read-and-process phases: xxh64 from libxxhash, sha1 from OpenSSL's libcrypto.
XXHASH_CFLAGS ?= $(shell $(PKG_CONFIG) --cflags libxxhash 2>/dev/null)
XXHASH_LIBS   ?= $(shell $(PKG_CONFIG) --libs libxxhash 2>/dev/null || echo -lxxhash)
CRYPTO_CFLAGS ?= $(shell $(PKG_CONFIG) --cflags libcrypto 2>/dev/null)
CRYPTO_LIBS   ?= $(shell $(PKG_CONFIG) --libs libcrypto 2>/dev/null || echo -lcrypto)
PREFIX      ?= /usr/local
MPIRUN      ?= mpirun

CFLAGS  ?= -O2 -g
WARN     = -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
DEFS     = -D_GNU_SOURCE -DPFSREAD_WITH_MPI -DPFSREAD_VERSION=\"$(VERSION)\" \
           -DPFSREAD_GIT=\"$(GIT_COMMIT)\" '-DPFSREAD_BUILD="$(BUILD_INFO)"'
VERSION    := 0.1.0
GIT_COMMIT := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
# what pfsread --version says it was built with (no single quotes: it sits in a shell quote)
BUILD_INFO  = $(subst ',,MPICC=$(MPICC) CFLAGS=$(CFLAGS)$(if $(SANITIZE), SANITIZE=$(SANITIZE)) HDF5_LIBS=$(HDF5_LIBS))

# SANITIZE=1 builds into build-san with AddressSanitizer and UndefinedBehaviorSanitizer.
ifeq ($(SANITIZE),1)
BUILD   ?= build-san
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
BUILD   ?= build
SANFLAGS =
endif

# Modules include each other's headers by folder ("util/units.h"); include/ holds only what an
# outside program uses (the record layout, pfsread/record.h).
INCLUDES    = -Isrc -Iinclude
ALL_CFLAGS  = $(WARN) $(DEFS) $(URING_DEFS) $(INCLUDES) $(HDF5_CFLAGS) $(YAML_CFLAGS) $(URING_CFLAGS) \
              $(XXHASH_CFLAGS) $(CRYPTO_CFLAGS) $(CFLAGS) $(SANFLAGS) -MMD -MP
ALL_LDFLAGS = $(LDFLAGS) $(SANFLAGS)
LIBS        = $(HDF5_LIBS) $(YAML_LIBS) $(URING_LIBS) $(XXHASH_LIBS) $(CRYPTO_LIBS) -lm

# Sources by stage (README "Design"): src/util, config, dataset, run (and run/backends),
# results, report, cmd, and src/main.c on top.
SRCS      := $(wildcard src/*.c src/*/*.c src/*/*/*.c)
LIB_SRCS  := $(filter-out src/main.c,$(SRCS))
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/%.o)
MAIN_OBJ  := $(BUILD)/src/main.o
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all deps demo check check-build install clean fuzz fuzz-build
all: $(BUILD)/pfsread

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(MPICC) $(ALL_CFLAGS) -c $< -o $@

# The files that print the commit and the build settings are rebuilt when either changes: the
# stamp is rewritten only when its text differs, so an unchanged tree rebuilds nothing.
VERSION_STAMP := $(BUILD)/version.stamp
$(VERSION_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(GIT_COMMIT) $(BUILD_INFO)' | cmp -s - $@ || echo '$(GIT_COMMIT) $(BUILD_INFO)' >$@
$(BUILD)/src/cmd/cli.o $(BUILD)/src/run/envinfo.o: $(VERSION_STAMP)
.PHONY: FORCE
FORCE:

$(BUILD)/libpfsread.a: $(LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/pfsread: $(MAIN_OBJ) $(BUILD)/libpfsread.a
	$(MPICC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libpfsread.a tests/unit/tap.h
	@mkdir -p $(dir $@)
	$(MPICC) $(ALL_CFLAGS) -Itests/unit $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libpfsread.a $(LIBS)

check-build: $(BUILD)/pfsread $(UNIT_BINS) $(BUILD)/scale_bench

# Debian packages the build, the demo and the suite need. deps installs the missing ones
# as root, or names them and stops when not root. Skipped where there is no dpkg.
DEB_PACKAGES = build-essential pkg-config openmpi-bin libopenmpi-dev libhdf5-openmpi-dev \
               hdf5-tools libyaml-dev liburing-dev libxxhash-dev libssl-dev
# gnuplot draws the report's charts; chromium (headless) checks its HTML page (the test skips
# without it); fuse3 and libfuse3-dev build faultfs, the FUSE view hostile.t fails reads through;
# iproute2 (detect.t's namespace) and e2fsprogs (provenance.t's ext4 image).
DEB_TEST_PACKAGES = python3 python3-h5py perl gnuplot-nox chromium xxhash strace fuse3 libfuse3-dev \
                    iproute2 e2fsprogs \
                    mpich libhdf5-mpich-dev python3-pandas
# The fuzz targets (clang + libFuzzer) and the valgrind run of the suite; the tests skip without.
DEB_FUZZ_PACKAGES = clang libclang-rt-14-dev valgrind
deps:
	@tests/install-deps.sh $(DEB_PACKAGES)

deps-test:
	@tests/install-deps.sh $(DEB_PACKAGES) $(DEB_TEST_PACKAGES) $(DEB_FUZZ_PACKAGES)

demo: deps
	$(MAKE) all
	jobscripts/local/pfsread-local.sh configs/local.yaml

# The performance benchmark (not a test: it prints what it measured, passes or fails nothing):
# pfsread beside fio on the same files, cold and warm, ratio and fraction of the ceilings.
#   make bench        4 x 1 GiB, 64 x 64 MiB, 512 x 2 MiB, three repetitions
#   make bench-quick  2 x 256 MiB, 16 x 64 MiB, 128 x 2 MiB, one repetition (~2 minutes)
#   make bench-cost   pfsread's CPU per byte against fio psync, warm, on a capped tmpfs (root)
#   make bench-doc    the tables the last two printed into docs/performance.md
# BENCH_CLASSES=2MiB BENCH_PATHS=posix REPS=15 make bench: some classes and read paths only,
# to run a row again with more repetitions (the tables name the settings).
# BENCH_DIR must be on the file system to measure (not tmpfs); cold rows need root.
# IOR_DIR=PREFIX (IOR and mdtest built from github.com/hpc/ior, docs/performance.md) adds
# IOR and mdtest rows and a small-file class measured against mdtest.
DEB_BENCH_PACKAGES = fio python3-h5py
BENCH_DIR ?= /var/tmp/pfsread-bench
.PHONY: bench bench-quick
bench:
	@tests/install-deps.sh $(DEB_PACKAGES) $(DEB_BENCH_PACKAGES)
	$(MAKE) all
	tests/bench/bench.sh $(BENCH_DIR)

bench-quick:
	@tests/install-deps.sh $(DEB_PACKAGES) $(DEB_BENCH_PACKAGES)
	$(MAKE) all
	tests/bench/bench.sh --quick $(BENCH_DIR)

# What pfsread's read loop costs in CPU per byte against fio's psync loop: the same files on a
# capped tmpfs it mounts (root), warm, 1 and 2 readers, rounds of A B B A (docs/performance.md).
.PHONY: bench-cost
bench-cost:
	@tests/install-deps.sh $(DEB_PACKAGES) $(DEB_BENCH_PACKAGES)
	$(MAKE) all
	COST_MD=$(BENCH_DIR)/cost.md tests/bench/cost.sh $(COST_ROUNDS)

# The figures in docs/performance.md are the tables the benchmarks printed last (their markdown
# blocks in BENCH_DIR), put between the document's markers: a set not measured is left as it is.
.PHONY: bench-doc
bench-doc:
	@for n in bench:work/tables.md cost:cost.md scale:scale.md; do \
	  f=$(BENCH_DIR)/$${n#*:}; \
	  if [ -r "$$f" ]; then tests/bench/doc_tables.sh $${n%%:*} "$$f" docs/performance.md || exit 2; \
	  else echo "bench-doc: no $$f: the $${n%%:*} tables stay as they are"; fi; \
	done

# How pfsread's own costs grow with the files of a data set (10^3 .. 10^6): planning time and
# memory per rank, HDF5 write time of a phase's per-file records against the phase's time;
# then 'pfsread report' on synthetic results files up to 36 phases x 10^6 file rows
# (tests/bench/report_scale.sh: time, peak RSS, ms per phase).
.PHONY: bench-scale
$(BUILD)/scale_bench: tests/bench/scale_bench.c $(BUILD)/libpfsread.a
	$(MPICC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libpfsread.a $(LIBS)

# Both tables, as printed, also go to BENCH_DIR/scale.md for make bench-doc.
bench-scale: deps
	@tests/install-deps.sh $(DEB_BENCH_PACKAGES) time
	$(MAKE) all $(BUILD)/scale_bench
	@mkdir -p $(BENCH_DIR)
	bash -o pipefail -c '{ $(MPIRUN) $$([ "$$(id -u)" -eq 0 ] && echo --allow-run-as-root) \
	  --oversubscribe -np 4 $(BUILD)/scale_bench $(BENCH_DIR) && echo && \
	  tests/bench/report_scale.sh $(BENCH_DIR)/report-scale; } | tee $(BENCH_DIR)/scale.txt'
	tests/bench/md_block.sh "make bench-scale" <$(BENCH_DIR)/scale.txt >$(BENCH_DIR)/scale.md

# The cluster in a box (tests/box/box.sh; README "Cluster in a box"): nodes in network, mount
# and UTS namespaces on shaped links, GlusterFS / MooseFS / CephFS / OrangeFS servers (OrangeFS
# built once into /var/cache/pfsread-box by its first box, ~4 minutes). Root, netns, FUSE.
#   make box-check   the truth tests (tests/box/*.t), one box at a time (~10 minutes)
#   make box-demo    GlusterFS against MooseFS (and CephFS) in miniature, one HTML report
# `make check` runs the box tests after the rest of the suite (~18 more minutes on 2 cores, ~4
# more the first time, which builds OrangeFS); where the machine cannot hold a box (not root, no
# network namespaces, no tc, no /dev/fuse) each says why once and skips. `make check
# CHECK_BOX=0` leaves them out.
# dfs.t, in the suite, starts a box of its own.
DEB_BOX_PACKAGES = glusterfs-server glusterfs-client moosefs-master moosefs-chunkserver \
                   moosefs-client moosefs-cli iperf3 xfsprogs e2fsprogs python3-h5py gnuplot-nox
CHECK_BOX ?= 1
BOX_TESTS = $(if $(filter 1,$(CHECK_BOX)),$(wildcard tests/box/*.t))
.PHONY: box-check box-demo box-shell box-down box-reference
box-check: deps
	@tests/install-deps.sh $(DEB_BOX_PACKAGES)
	$(MAKE) all
	PFSREAD=$(CURDIR)/build/pfsread prove -v --timer tests/box/*.t

box-demo: deps
	@tests/install-deps.sh $(DEB_BOX_PACKAGES)
	$(MAKE) all
	PFSREAD=$(CURDIR)/build/pfsread tests/box/demo.sh

# make box-shell: a box of 3 nodes (GlusterFS, 400 Mbit/s links) with Slurm across them, left
# up to try the job scripts on before a real cluster; it prints how to submit and how to end
# it (make box-down). docs/box.md, "Slurm in the box".
DEB_SLURM_PACKAGES = slurm-wlm slurmctld slurmd munge slurm-client slurm-wlm-torque
box-shell: deps
	@tests/install-deps.sh $(DEB_BOX_PACKAGES) $(DEB_SLURM_PACKAGES)
	$(MAKE) all
	tests/box/box.sh up --nodes 3 --link-mbit 400 --fs glusterfs --slurm >/dev/null
	@tests/box/box.sh howto

box-down:
	tests/box/box.sh down

# ~8 minutes once OrangeFS is built (the first box builds it, ~4 more): tests/box/reference.sh
box-reference: deps
	@tests/install-deps.sh $(DEB_BOX_PACKAGES)
	$(MAKE) all
	PFSREAD=$(CURDIR)/build/pfsread tests/box/reference.sh

# The job scripts' chain on a real Slurm that the test starts itself (tests/slurm/chain.t, root,
# ~6 minutes: a 3-minute study through jobs of a 1-minute limit), too slow for make check's 20
# minutes; slurm.t, in the suite, covers the scripts' other paths on the same Slurm.
.PHONY: slurm-check
slurm-check: deps-test
	$(MAKE) all
	PFSREAD=$(CURDIR)/build/pfsread prove -v --timer tests/slurm/*.t

# The whole suite: unit tests and integration tests on the normal build, then the unit
# tests and an end-to-end run again under ASan+UBSan, and the MPICH leg (mpich.t). One prove
# run, one closing line; a failing check's line and every test's comments (its diagnostics)
# are shown, so a CI log says what failed.
check: deps-test
	$(MAKE) check-build
	$(MAKE) check-build SANITIZE=1
	$(MAKE) check-mpich-build
	PFSREAD=$(CURDIR)/build/pfsread PFSREAD_SAN=$(CURDIR)/build-san/pfsread \
	  FUZZ_CHECK_SECONDS=$${FUZZ_CHECK_SECONDS:-10} \
	  ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  prove --exec '' --timer --failures --comments $(UNIT_SRCS:tests/unit/%.c=build/tests/%) \
	    $(UNIT_SRCS:tests/unit/%.c=build-san/tests/%) tests/integration/*.t $(BOX_TESTS)

# The MPICH leg: pfsread built against Debian's MPICH and its parallel HDF5 (mpich,
# libhdf5-mpich-dev) into build-mpich. make check builds it and runs tests/integration/mpich.t
# (pipeline.t's whole chain at 1 to 4 ranks with mpirun.mpich) inside its one prove run;
# make check-mpich runs a longer subset (the command line too) on its own. Both say SKIP and
# pass where MPICH is not installed (make deps-test installs it).
MPICH_MPICC  ?= mpicc.mpich
MPICH_MPIRUN ?= mpirun.mpich
MPICH_TESTS  ?= tests/integration/pipeline.t tests/integration/cli.t
.PHONY: check-mpich check-mpich-build
check-mpich-build:
	@if ! command -v $(MPICH_MPICC) >/dev/null || ! $(PKG_CONFIG) --exists hdf5-mpich; then \
	  echo "check-mpich-build: SKIP (no $(MPICH_MPICC) or pkg-config hdf5-mpich)"; exit 0; fi; \
	$(MAKE) BUILD=build-mpich MPICC=$(MPICH_MPICC) \
	  HDF5_CFLAGS="$$($(PKG_CONFIG) --cflags hdf5-mpich)" \
	  HDF5_LIBS="$$($(PKG_CONFIG) --libs hdf5-mpich)" build-mpich/pfsread

check-mpich: check-mpich-build
	@[ -x build-mpich/pfsread ] || exit 0; \
	PFSREAD=$(CURDIR)/build-mpich/pfsread MPIRUN=$(MPICH_MPIRUN) prove --timer $(MPICH_TESTS)

# The man page and the bash completion are printed by pfsread itself from the table --help
# uses (src/cmd/cli.c): one source, never out of step with the binary.
$(BUILD)/pfsread.1: $(BUILD)/pfsread
	$(BUILD)/pfsread help --man >$@.tmp && mv $@.tmp $@

$(BUILD)/pfsread.bash: $(BUILD)/pfsread
	$(BUILD)/pfsread help --completion >$@.tmp && mv $@.tmp $@

# The documents keep their layout (README.md beside docs/) so that their links between each
# other still lead somewhere; the man page names them under this PREFIX.
DOCDIR = $(PREFIX)/share/doc/pfsread
install: $(BUILD)/pfsread $(BUILD)/pfsread.1 $(BUILD)/pfsread.bash
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/pfsread/configs \
	           $(DESTDIR)$(PREFIX)/share/pfsread/jobscripts $(DESTDIR)$(PREFIX)/share/man/man1 \
	           $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(DOCDIR)/docs
	install -m 755 $(BUILD)/pfsread $(DESTDIR)$(PREFIX)/bin/pfsread
	sed 's|/usr/local/share/doc/pfsread|$(DOCDIR)|g' $(BUILD)/pfsread.1 \
	    >$(DESTDIR)$(PREFIX)/share/man/man1/pfsread.1
	chmod 644 $(DESTDIR)$(PREFIX)/share/man/man1/pfsread.1
	install -m 644 README.md $(DESTDIR)$(DOCDIR)/README.md
	install -m 644 docs/*.md docs/*.png $(DESTDIR)$(DOCDIR)/docs/
	install -m 644 $(BUILD)/pfsread.bash \
	           $(DESTDIR)$(PREFIX)/share/bash-completion/completions/pfsread
	install -m 644 configs/*.yaml $(DESTDIR)$(PREFIX)/share/pfsread/configs/
	cp -R jobscripts/. $(DESTDIR)$(PREFIX)/share/pfsread/jobscripts/

# Fuzzing: the config loader and the results reader (+ report) under libFuzzer, built with
# clang from the sources they need (not the mpicc library) into build-fuzz.
#   make fuzz-build                 build build-fuzz/fuzz_config and build-fuzz/fuzz_results
#   make fuzz [FUZZ_SECONDS=60]     fuzz each for FUZZ_SECONDS on build-fuzz/corpus (seeded from
#                                   tests/fuzz/corpus and regress), findings in build-fuzz/crashes
# Keep every crash found in tests/fuzz/regress/ (see tests/fuzz/README): make check replays them.
CLANG        ?= clang
FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_SAN      = -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
                -fno-sanitize-recover=undefined
# The library as clang sees it (its warnings are gcc's business: no -Werror), instrumented for
# coverage; the targets link from an archive, so each takes only the objects it needs.
FUZZ_CFLAGS   = $(filter-out -Werror,$(WARN)) $(DEFS) $(URING_DEFS) $(INCLUDES) $(HDF5_CFLAGS) \
                $(YAML_CFLAGS) $(URING_CFLAGS) $(XXHASH_CFLAGS) $(CRYPTO_CFLAGS) $(FUZZ_SAN) -MMD -MP
FUZZ_TARGETS  = config results
FUZZ_LIB      = $(FUZZ_BUILD)/libpfsread-fuzz.a

$(FUZZ_BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_LIB): $(LIB_SRCS:%.c=$(FUZZ_BUILD)/obj/%.o)
	rm -f $@
	ar rcs $@ $^

$(FUZZ_BUILD)/obj/tests/fuzz/%.o: tests/fuzz/%.c
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -Werror -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/obj/tests/fuzz/fuzz_%.o $(FUZZ_LIB)
	$(CLANG) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(LIBS)

fuzz-build: $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)
.SECONDARY: $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/obj/tests/fuzz/fuzz_%.o)

fuzz: fuzz-build
	@rc=0; for t in $(FUZZ_TARGETS); do \
	  tests/fuzz/run.sh $(FUZZ_BUILD) $$t $(FUZZ_SECONDS) $(FUZZ_BUILD) || rc=1; \
	done; exit $$rc

clean:
	rm -rf build build-san build-fuzz

-include $(shell find $(BUILD) $(FUZZ_BUILD) -name '*.d' 2>/dev/null)
