# Makefile - builds, tests and installs Locus (GNU make, hand-written).
#
# Why config.mak.autogen: as in git, this Makefile is not generated.
# ./configure (made from configure.ac by autoconf; not checked in, shipped in
# the `make dist` tarball) only finds the compiler, flags, libraries and
# install paths and writes them as make variables to config.mak.autogen, plus
# build/config.h, the .pc files and build/LocusConfig*.cmake.  The version is
# the file VERSION, read by configure.ac (config.mak.autogen's VERSION).  Every
# build rule stays here, readable, and dependency detection stays in autoconf.
# An optional config.mak (never checked in) is read after it for local
# overrides; variables given on the make command line override both.
#
# Nothing needs doing before the first `make`: config.mak.autogen has a rule
# (tools/install-deps build, autoconf, autoheader, ./configure
# $(CONFIGURE_FLAGS)); install-deps needs root only to install a missing
# build dependency, so a user who has them builds and installs without root,
# and GNU make remakes an included makefile and restarts.  Editing
# configure.ac re-runs configure with the arguments it was last given.
#
# Sources are found by wildcard; adding a file never needs an edit here:
#   runtime/*.c runtime/*/*.c sched/*.c alloc/*.c alpi/*.c trace/*.c
#                             -> $(BUILD)/liblocus.a, $(BUILD)/liblocus.so.$(VERSION)
#                                (soname liblocus.so.0; liblocus.so.0 and
#                                liblocus.so link to it)
#   gomp/*.c + the above      -> $(BUILD)/liblocus-gomp.so (soname libgomp.so.1,
#                                libgomp's symbol versions; $(BUILD)/gomp/
#                                libgomp.so.1 links to it)
#   kmp/*.c + gomp/*.c (less  -> $(BUILD)/liblocus-omp.so (soname libomp.so.5,
#     lock.c) + the above        libomp's symbol version; $(BUILD)/kmp/libomp.so.5
#                                and libiomp5.so link to it)
#   tests/kmp/*.c             -> $(BUILD)/tests/kmp/*  (clang -fopenmp programs
#                                linked against libomp, run by test_kmp)
#   tests/gomp/*.c            -> $(BUILD)/tests/gomp/*  (gcc -fopenmp programs
#                                linked against libgomp, run by test_gomp)
#   tests/test_*.c            -> $(BUILD)/tests/test_*  (cmocka, static lib; only
#                                when configure found cmocka: HAVE_CMOCKA);
#                                with tests/mpi/run, tests/man/run,
#                                tests/tools/run, tests/figures/run and
#                                tests/node-check/run (scripts), the entries
#                                of _run-tests
#   examples/*.c              -> $(BUILD)/examples/*
#   tools/*.c                 -> $(BUILD)/tools/*       (installed in bindir)
#   benchmarks/*/NAME.c       -> $(BUILD)/bench/NAME
#   benchmarks/*/NAME_omp.c   -> $(BUILD)/bench/NAME-omp (OpenMP, no liblocus), and
#                                NAME-clang (the same by clang-14, against libomp)
# With MPI (configure's --with-mpi, HAVE_MPI = 1; nothing of these without):
#   mpi/*.c                   -> $(BUILD)/liblocus-mpi.a, $(BUILD)/liblocus-mpi.so.$(VERSION)
#                                (soname and link liblocus-mpi.so.0)
#                                (task-aware MPI on liblocus, include/locus_mpi.h)
#   tests/mpi/*.c             -> $(BUILD)/tests/mpi/*   (run by tests/mpi/run under
#                                mpirun, as one entry of the test suite)
#   benchmarks/*-mpi/NAME.c   -> $(BUILD)/bench/NAME    (distributed benchmarks)
#   man/*.1 man/*.3 man/*.7   -> installed in man1/ man3/ man7/
#   tools/locus-trace         -> $(BUILD)/tools/locus-trace (@VERSION@ replaced
#                                by configure's VERSION), installed in bindir
#
# One set of rules, parametrised by BUILD (output directory) and SAN
# (none|asan|tsan, which picks SANFLAGS and the sanitizer options):
# check-asan and check-tsan re-run make with BUILD=build-asan SAN=asan and
# BUILD=build-tsan SAN=tsan.  Tests get LOCUS_TEST_SANITIZER=$(SAN) in their
# environment so that they can shrink their sizes under a sanitizer.
#
# Targets:
#   all (default)  library, tests (with cmocka), examples, tools, benchmarks in
#                  $(BUILD)/; needs only tools/deps.txt's [build] packages
#   lib            only build/liblocus.a, build/liblocus.so{.$(VERSION),.0,}
#   gomp           only build/liblocus-gomp.so and build/gomp/libgomp.so.1
#   omp            only build/liblocus-omp.so and build/kmp/libomp.so.5, libiomp5.so
#   check          deps (build and test packages), all, then check-plain,
#                  check-numa-vm, check-asan, check-tsan (all run; fails if
#                  any failed); ends with a total line
#   check-plain    tests (tools/run-tests) + every example once, in build/,
#                  then check-gomp-conformance, check-omp-conformance,
#                  check-peer-suites, check-tampi and check-install
#   check-install  tests/install/run: install to a temporary prefix; programs
#                  built with pkg-config (locus, locus-static, locus-gomp,
#                  locus-mpi), with CMake's find_package(Locus), run without
#                  LD_LIBRARY_PATH; versions agree; make distcheck
#                  DISTCHECK_QUICK=1 (about 3 minutes)
#   check-gomp-conformance  gcc's libgomp testsuite on liblocus-gomp
#                  (tests/libgomp-conformance/run; needs gcc-12-source)
#   check-peer-suites  BOTS and KASTORS built by clang and gcc on both layers
#                  (tests/peer-suites/run; part of check-plain)
#   check-omp-conformance   LLVM's libomp testsuite (openmp/runtime/test of
#                  clang 14) on liblocus-omp (tests/llvm-conformance/run;
#                  needs clang-14 and libomp-14-dev, and the network once:
#                  it fetches Debian's llvm-toolchain-14 source tarball)
#   check-numa-vm  tests/numa-vm/run: page placement checked in QEMU guests
#                  with 2 and 4 emulated NUMA nodes
#   check-asan     everything rebuilt in build-asan/ with ASan+UBSan, tests run,
#                  then both conformance stages' task-related tests on that
#                  build's liblocus-gomp and liblocus-omp
#                  (_check-gomp-conformance-san, _check-omp-conformance-san)
#   check-tsan     the same in build-tsan/ with TSan
#   check-tampi    tests/tampi/run: TAMPI 4.1 built from third_party/ and its
#                  tests ported to Locus under mpirun (part of check-plain)
#   check-mpi      only tests/mpi/run (locus-mpi and the distributed benchmarks
#                  under mpirun -np 2 and 4), in build/; part of every suite
#   demo           deps, all, every example, then benchmarks/demo.sh (a small
#                  sweep of the five benchmarks x three regimes, here and on
#                  bullion-s16, plots, Table 3, and overhead/compare.sh --quick)
#   install        lib, header, man pages (.TH given "Locus $(VERSION)"), tools
#                  (and locus-trace), locus.pc, locus-static.pc, locus-gomp.pc,
#                  locus-omp.pc, lib/cmake/Locus/ (find_package(Locus)); with MPI
#                  also liblocus-mpi, locus_mpi.h and locus-mpi.pc; and lib/locus/
#                  with liblocus-gomp.so and its libgomp.so.1 link, liblocus-omp.so
#                  and its libomp.so.5 and libiomp5.so links (DESTDIR, prefix):
#                  a directory of its own, which ldconfig does not scan, so that
#                  those sonames never shadow the system's libgomp and libomp
#   uninstall      removes what install installed
#   deps           tools/install-deps all (Debian packages of tools/deps.txt,
#                  [build] and [test]; `make` itself checks only [build])
#   dist           locus-$(VERSION).tar.gz: the files git knows + configure
#   distcheck      dist, then in a temporary directory: configure (autoconf
#                  made to fail), all, the plain unit tests, check-install's
#                  script; DISTCHECK_QUICK=1: no MPI, install stage's quick part
#   clean          removes build*/ (config.h is remade from config.status)
#   distclean      clean + everything configure and autoconf generated
#
# Variables: BUILD, SAN, V=1 (show commands), CONFIGURE_FLAGS (e.g.
# --with-papi=no), RUN_TESTS_TIMEOUT (seconds per test binary, default 300,
# 900 under a sanitizer; every limit of the test stages is on the test's own
# clock, which stops while its threads wait for a CPU behind other work, and
# a test past it is shown with its threads' backtraces: tools/scaled-timeout),
# DESTDIR, prefix, bindir, libdir, includedir, mandir, CC, CFLAGS, CPPFLAGS,
# LDFLAGS.

.DEFAULT_GOAL := all
MAKEFLAGS += --no-builtin-rules
.SUFFIXES:
.DELETE_ON_ERROR:

# Goals that must work without (and must not trigger) configure.
NO_CONFIG_GOALS := clean distclean deps
ifneq ($(filter-out $(NO_CONFIG_GOALS),$(or $(MAKECMDGOALS),all)),)
include config.mak.autogen
-include config.mak
endif

BUILD = build
SAN = none

SANFLAGS_none =
SANFLAGS_asan = -fsanitize=address,undefined -fno-omit-frame-pointer -O1
SANFLAGS_tsan = -fsanitize=thread -O1
SANFLAGS = $(SANFLAGS_$(SAN))

SANENV_none =
SANENV_asan = ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
SANENV_tsan = TSAN_OPTIONS='halt_on_error=1 second_deadlock_stack=1'
TEST_ENV = LOCUS_TEST_SANITIZER=$(SAN) $(SANENV_$(SAN))
SUITE = $(if $(filter none,$(SAN)),plain,$(SAN))

AR ?= ar
INSTALL = install
INSTALL_DATA = $(INSTALL) -m 644
INSTALL_PROGRAM = $(INSTALL) -m 755

ifneq ($(V),1)
QUIET = @
QUIET_CC = @echo '   ' CC $@;
QUIET_LINK = @echo '   ' LINK $@;
QUIET_AR = @echo '   ' AR $@;
endif

# ---------------------------------------------------------------- flags
BASE_CFLAGS = -std=gnu11 -Wall -Wextra -fvisibility=hidden $(PTHREAD_CFLAGS)
# The internal directories are searched for "..." includes only (-iquote
# where the conventions say -I): with -Isched, a sched/sched.h would hide the
# system <sched.h> that pthread.h and hwloc.h include.  The core's rooms
# (runtime/, sched/, alloc/, alpi/) see only each other: tracing is reached
# through runtime/instrument.h, and nothing of the OpenMP layer is theirs
# (`private`: the narrower search does not pass on to prerequisites).
CORE_INCLUDES = -Iinclude -iquote runtime -iquote sched -iquote alloc -Ibuild
LAYER_INCLUDES = -iquote gomp -iquote trace
INCLUDES = $(CORE_INCLUDES) $(LAYER_INCLUDES)
$(foreach room,runtime sched alloc alpi,$(eval \
  $$(BUILD)/obj/$(room)/%.o: private LAYER_INCLUDES :=))
ALL_CFLAGS = $(BASE_CFLAGS) $(INCLUDES) $(HWLOC_CFLAGS) $(OTF2_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(SANFLAGS)
DEPFLAGS = -MMD -MP
ALL_LDFLAGS = $(LDFLAGS) $(SANFLAGS) $(PTHREAD_CFLAGS)
MPI_ALL_CFLAGS = $(ALL_CFLAGS) -iquote mpi $(MPI_CFLAGS)
# libjemalloc.so exports C++'s operator new and delete: whichever of it and
# libstdc++ comes first in the process's lookup order gets every C++
# library's, and libstdc++'s inlined deletes call glibc's free.  So
# libstdc++ comes first (it is in every process that loads hwloc's XML
# support anyway): a C program of ours that loads a C++ library later (the
# simulator's SimGrid: sim/) keeps new and delete together.
STDCXX_FIRST = -Wl,--push-state,--no-as-needed -l:libstdc++.so.6 -Wl,--pop-state
LIB_LIBS = $(HWLOC_LIBS) $(NUMA_LIBS) $(STDCXX_FIRST) $(JEMALLOC_LIBS) $(LIKWID_LIBS) $(OTF2_LIBS) \
	$(PTHREAD_LIBS) -lm $(LIBS)
TEST_LIBS = $(LIB_LIBS) $(PAPI_LIBS) $(CMOCKA_LIBS)
BENCH_LIBS = $(LIB_LIBS) $(BLAS_LIBS)
SONAME = liblocus.so.0
# The shared objects' real files carry the whole version (VERSION, through
# configure), as libtool names them: liblocus.so.0.6.0, with liblocus.so.0
# (the soname) and liblocus.so linking to it.
SOREAL = liblocus.so.$(VERSION)

# ---------------------------------------------------------------- sources
LIB_SRCS := $(wildcard runtime/*.c runtime/*/*.c sched/*.c alloc/*.c alpi/*.c trace/*.c)
TEST_SRCS := $(wildcard tests/test_*.c)
# linked into every test binary, never into the library (tests/support/support.h)
TEST_SUPPORT_SRCS := $(wildcard tests/support/*.c)
EXAMPLE_SRCS := $(wildcard examples/*.c)
TOOL_SRCS := $(wildcard tools/*.c)
# installed scripts (tools/locus-trace: Python, reads LOCUS_TRACE's OTF2)
TOOL_SCRIPTS := tools/locus-trace
BENCH_MPI_SRCS := $(wildcard benchmarks/*-mpi/*.c)
BENCH_SRCS := $(filter-out $(BENCH_MPI_SRCS),$(wildcard benchmarks/*/*.c))
MPI_SRCS := $(wildcard mpi/*.c)
SIM_SRCS := $(wildcard sim/*.c sim/*.cpp)
MPI_TEST_SRCS := $(wildcard tests/mpi/*.c)
BENCH_OMP_SRCS := $(filter %_omp.c,$(BENCH_SRCS))
BENCH_LOCUS_SRCS := $(filter-out %_omp.c,$(BENCH_SRCS))
GOMP_SRCS := $(wildcard gomp/*.c)
GOMP_TEST_SRCS := $(wildcard tests/gomp/*.c)
KMP_SRCS := $(wildcard kmp/*.c)
KMP_TEST_SRCS := $(wildcard tests/kmp/*.c)
MAN1 := $(wildcard man/*.1)
MAN3 := $(wildcard man/*.3)
MAN7 := $(wildcard man/*.7)

LIB_OBJS = $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRCS))
LIB_A = $(BUILD)/liblocus.a
LIB_SO_REAL = $(BUILD)/$(SOREAL)
LIB_SO = $(BUILD)/$(SONAME)
LIB_SO_LINK = $(BUILD)/liblocus.so
# the test programs need cmocka, which configure only looks for (HAVE_CMOCKA):
# without it `make` builds everything else and `make check` says what is missing
ifeq ($(HAVE_CMOCKA),1)
TESTS = $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRCS))
endif
TEST_SUPPORT_OBJS = $(patsubst %.c,$(BUILD)/obj/%.o,$(TEST_SUPPORT_SRCS))
# only prerequisites of the test programs' pattern rule, which would make them
# intermediate: make deleted them after each build and relinked every test on
# the next `make`
.SECONDARY: $(TEST_SUPPORT_OBJS)
# the allocator entry points alloc/mem.c calls, so that tests can make them
# fail (tests/support/memfault.c)
TEST_WRAP = -Wl,--wrap=mallocx,--wrap=rallocx,--wrap=posix_memalign,--wrap=mallctl
EXAMPLES = $(patsubst examples/%.c,$(BUILD)/examples/%,$(EXAMPLE_SRCS))
TOOLS = $(patsubst tools/%.c,$(BUILD)/tools/%,$(TOOL_SRCS))
TOOL_SCRIPTS_BUILT = $(patsubst tools/%,$(BUILD)/tools/%,$(TOOL_SCRIPTS))
BENCH_LOCUS = $(addprefix $(BUILD)/bench/,$(basename $(notdir $(BENCH_LOCUS_SRCS))))
ifeq ($(HAVE_OPENMP),1)
BENCH_OMP = $(addprefix $(BUILD)/bench/,$(patsubst %_omp,%-omp,$(basename $(notdir $(BENCH_OMP_SRCS)))))
endif
GOMP_OBJS = $(patsubst %.c,$(BUILD)/obj/%.o,$(GOMP_SRCS)) $(BUILD)/gomp/stubs.o
GOMP_SO = $(BUILD)/liblocus-gomp.so
GOMP_ALIAS = $(BUILD)/gomp/libgomp.so.1
ifeq ($(HAVE_OPENMP),1)
GOMP_TESTS = $(patsubst tests/gomp/%.c,$(BUILD)/tests/gomp/%,$(GOMP_TEST_SRCS))
endif
# liblocus-omp: the shared OpenMP layer (gomp/ less its libgomp-layout
# locks and stubs) under the LLVM runtime's ABI (kmp/)
KMP_OBJS = $(patsubst %.c,$(BUILD)/obj/%.o,$(KMP_SRCS)) $(BUILD)/kmp/stubs.o
KMP_SHARED_OBJS = $(filter-out $(BUILD)/obj/gomp/lock.o $(BUILD)/gomp/stubs.o,$(GOMP_OBJS))
KMP_SO = $(BUILD)/liblocus-omp.so
KMP_ALIASES = $(BUILD)/kmp/libomp.so.5 $(BUILD)/kmp/libiomp5.so
# the clang programs of tests/kmp, built against LLVM's libomp like users'
# programs (clang-14 and libomp-14-dev are [test] dependencies; without
# them tests/test_kmp skips and says why)
CLANG_OPENMP ?= $(shell command -v clang-14 2>/dev/null)
ifneq ($(CLANG_OPENMP),)
KMP_TESTS = $(patsubst tests/kmp/%.c,$(BUILD)/tests/kmp/%,$(KMP_TEST_SRCS))
# the OpenMP peers built by clang against libomp (NAME-clang), to run on
# libomp and on liblocus-omp (benchmarks/peers.sh)
BENCH_CLANG = $(addprefix $(BUILD)/bench/,$(patsubst %_omp,%-clang,$(basename $(notdir $(BENCH_OMP_SRCS)))))
endif
ifeq ($(HAVE_MPI),1)
MPI_OBJS = $(patsubst %.c,$(BUILD)/obj/%.o,$(MPI_SRCS))
MPI_LIB_A = $(BUILD)/liblocus-mpi.a
MPI_SONAME = liblocus-mpi.so.0
MPI_SOREAL = liblocus-mpi.so.$(VERSION)
MPI_LIB_SO_REAL = $(BUILD)/$(MPI_SOREAL)
MPI_LIB_SO = $(BUILD)/$(MPI_SONAME)
MPI_TESTS = $(patsubst tests/mpi/%.c,$(BUILD)/tests/mpi/%,$(MPI_TEST_SRCS))
BENCH_MPI = $(addprefix $(BUILD)/bench/,$(basename $(notdir $(BENCH_MPI_SRCS))))
endif
ifeq ($(HAVE_SIMGRID),1)
SIM_OBJS = $(patsubst %.cpp,$(BUILD)/obj/%.o,$(patsubst %.c,$(BUILD)/obj/%.o,$(SIM_SRCS)))
SIM_SO = $(BUILD)/liblocus-sim.so
endif
PROGRAMS = $(TESTS) $(EXAMPLES) $(TOOLS) $(TOOL_SCRIPTS_BUILT) $(BENCH_LOCUS) $(BENCH_OMP) $(BENCH_CLANG) \
	$(GOMP_TESTS) $(KMP_TESTS) $(MPI_TESTS) $(BENCH_MPI)

# Rebuild everything when the compiler, flags or libraries change.
FLAGS_TRACK = $(BUILD)/FLAGS.track

.PHONY: all lib gomp omp mpilib check check-plain check-gomp-conformance _check-gomp-conformance \
	check-omp-conformance _check-omp-conformance check-peer-suites _check-peer-suites \
	check-tampi _check-tampi \
	_check-gomp-conformance-san _check-omp-conformance-san \
	check-numa-vm check-asan check-tsan check-mpi demo sim-paper install uninstall \
	deps clean distclean FORCE _run-tests _run-examples check-install _check-install \
	dist distcheck

all: lib gomp omp mpilib $(PROGRAMS)

lib: $(LIB_A) $(LIB_SO_REAL) $(LIB_SO) $(LIB_SO_LINK) $(SIM_SO)

mpilib: $(MPI_LIB_A) $(MPI_LIB_SO_REAL) $(MPI_LIB_SO)

gomp: $(GOMP_SO) $(GOMP_ALIAS)

omp: $(KMP_SO) $(KMP_ALIASES)

# ---------------------------------------------------------------- configure
# configure.ac (+ VERSION) -> configure (+ config.h.in); configure ->
# config.mak.autogen, build/config.h, the .pc files and build/LocusConfig*.cmake.
# install-deps runs first so that autoconf, pkg-config and the libraries are
# there on a fresh machine: only the build dependencies (tools/deps.txt's
# [build] section; `make check` and `make demo` add the [test] ones), and it
# needs root only when one of them is missing.  A release tarball (make dist)
# ships configure, so neither rule runs there.
CONFIGURE_OUTPUTS_IN = config.mak.in locus.pc.in locus-static.pc.in locus-gomp.pc.in locus-omp.pc.in locus-mpi.pc.in \
	cmake/LocusConfig.cmake.in cmake/LocusConfigVersion.cmake.in
# --force: autom4te's cache is keyed on configure.ac, not on the VERSION it
# reads, so a new VERSION alone would get the old configure back.
configure: configure.ac VERSION
	tools/install-deps build
	autoconf --force
	autoheader --force
	@touch $@

config.mak.autogen: configure $(CONFIGURE_OUTPUTS_IN)
	tools/install-deps build
	@if test -f config.status; then \
		echo './config.status --recheck && ./config.status'; \
		./config.status --recheck && ./config.status; \
	else \
		echo './configure $(CONFIGURE_FLAGS)'; \
		./configure $(CONFIGURE_FLAGS); \
	fi
	@touch $@

# configure (and config.status, when config.mak.autogen is remade) writes
# these; this rule only brings one back when it is missing, e.g. after
# `make clean` removed build/.  config.status keeps config.h's timestamp when
# its contents are unchanged, so nothing is rebuilt needlessly.
build/config.h locus.pc locus-static.pc locus-gomp.pc locus-omp.pc locus-mpi.pc build/LocusConfig.cmake build/LocusConfigVersion.cmake:
	$(QUIET)./config.status $@ >/dev/null

config.mak: ;

# ---------------------------------------------------------------- build
$(FLAGS_TRACK): FORCE
	@mkdir -p $(@D)
	@flags='$(subst ','\'',$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $(TEST_LIBS) $(BLAS_LIBS) $(OPENMP_CFLAGS) $(MPI_CFLAGS) $(MPI_LIBS))'; \
	if test x"$$flags" != x"`cat $@ 2>/dev/null`"; then \
		echo "$$flags" >$@; \
	fi

$(BUILD)/obj/%.o: %.c $(FLAGS_TRACK) | build/config.h
	@mkdir -p $(@D)
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -fPIC $(DEPFLAGS) -c -o $@ $<

$(LIB_A): $(LIB_OBJS)
	@mkdir -p $(@D)
	@rm -f $@
	$(QUIET_AR)$(AR) rcs $@ $(LIB_OBJS)

$(LIB_SO_REAL): $(LIB_OBJS) liblocus.map
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) -shared -Wl,-soname,$(SONAME) \
		-Wl,--version-script=liblocus.map -Wl,--no-undefined \
		-o $@ $(LIB_OBJS) $(ALL_LDFLAGS) $(LIB_LIBS)

$(LIB_SO): $(LIB_SO_REAL)
	$(QUIET)ln -sf $(SOREAL) $@

$(LIB_SO_LINK): $(LIB_SO)
	$(QUIET)ln -sf $(SONAME) $@

# liblocus-sim: the simulator plug-in (sim/), which liblocus loads with
# LOCUS_SIM set; it sees the runtime only through runtime/sim.h.
$(BUILD)/obj/sim/%.o: sim/%.cpp $(FLAGS_TRACK) | build/config.h
	@mkdir -p $(@D)
	$(QUIET_CC)$(SIM_CXX) -std=c++17 -Wall -Wextra -fvisibility=hidden -Iinclude $(CPPFLAGS) $(CXXFLAGS) \
		$(SANFLAGS) -fPIC $(DEPFLAGS) -c -o $@ $<

$(SIM_SO): $(SIM_OBJS)
	$(QUIET_LINK)$(SIM_CXX) -shared -Wl,--no-undefined -o $@ $(SIM_OBJS) $(ALL_LDFLAGS) \
		$(SIMGRID_LIBS) $(PTHREAD_LIBS) -lm

# liblocus-mpi: mpi/ compiled with the MPI wrapper's flags (the more
# specific pattern wins over the generic object rule), its own archive and
# a shared library that needs liblocus.so.0 and libmpi.
$(BUILD)/obj/mpi/%.o: mpi/%.c $(FLAGS_TRACK) | build/config.h
	@mkdir -p $(@D)
	$(QUIET_CC)$(CC) $(MPI_ALL_CFLAGS) -fPIC $(DEPFLAGS) -c -o $@ $<

$(MPI_LIB_A): $(MPI_OBJS)
	@rm -f $@
	$(QUIET_AR)$(AR) rcs $@ $(MPI_OBJS)

$(MPI_LIB_SO_REAL): $(MPI_OBJS) $(LIB_SO)
	$(QUIET_LINK)$(CC) -shared -Wl,-soname,$(MPI_SONAME) -Wl,--no-undefined \
		-o $@ $(MPI_OBJS) $(ALL_LDFLAGS) -L$(BUILD) -l:$(SONAME) $(MPI_LIBS)

$(MPI_LIB_SO): $(MPI_LIB_SO_REAL)
	$(QUIET)ln -sf $(MPI_SOREAL) $@

# liblocus-gomp: the runtime plus gomp/, exporting only libgomp's entry
# points under libgomp's version nodes.  tools/gen-gomp-stubs writes the
# version script and a loud stub for each entry point gomp/ lacks.
$(BUILD)/gomp/defined.txt: $(filter-out $(BUILD)/gomp/stubs.o,$(GOMP_OBJS))
	@mkdir -p $(@D)
	$(QUIET)nm --defined-only -g $^ | awk 'NF == 3 { print $$3 }' | sort -u >$@

$(BUILD)/gomp/stubs.c $(BUILD)/gomp/libgomp.map: tools/gen-gomp-stubs gomp/libgomp-abi.txt \
		$(BUILD)/gomp/defined.txt
	$(QUIET)tools/gen-gomp-stubs gomp/libgomp-abi.txt $(BUILD)/gomp/defined.txt \
		$(BUILD)/gomp/stubs.c $(BUILD)/gomp/libgomp.map

$(BUILD)/gomp/stubs.o: $(BUILD)/gomp/stubs.c $(FLAGS_TRACK) | build/config.h
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -fPIC $(DEPFLAGS) -c -o $@ $<

$(GOMP_SO): $(GOMP_OBJS) $(LIB_OBJS) $(BUILD)/gomp/libgomp.map
	$(QUIET_LINK)$(CC) -shared -Wl,-soname,libgomp.so.1 \
		-Wl,--version-script=$(BUILD)/gomp/libgomp.map -Wl,--no-undefined \
		-o $@ $(GOMP_OBJS) $(LIB_OBJS) $(ALL_LDFLAGS) $(LIB_LIBS)

$(GOMP_ALIAS): $(GOMP_SO)
	@mkdir -p $(@D)
	$(QUIET)ln -sf ../liblocus-gomp.so $@

# liblocus-omp: the runtime plus gomp/ (less lock.c) plus kmp/, exporting
# libomp's entry points under its version node VERSION, with soname
# libomp.so.5.  tools/gen-kmp-stubs writes the version script and a loud
# stub for each entry point neither layer has.
$(BUILD)/kmp/gomp-defined.txt: $(KMP_SHARED_OBJS)
	@mkdir -p $(@D)
	$(QUIET)nm --defined-only -g $^ | awk 'NF == 3 { print $$3 }' | sort -u >$@

$(BUILD)/kmp/kmp-defined.txt: $(filter-out $(BUILD)/kmp/stubs.o,$(KMP_OBJS))
	@mkdir -p $(@D)
	$(QUIET)nm --defined-only -g $^ | awk 'NF == 3 { print $$3 }' | sort -u >$@

$(BUILD)/kmp/stubs.c $(BUILD)/kmp/libomp.map: tools/gen-kmp-stubs kmp/libomp-abi.txt \
		$(BUILD)/kmp/gomp-defined.txt $(BUILD)/kmp/kmp-defined.txt
	$(QUIET)tools/gen-kmp-stubs kmp/libomp-abi.txt $(BUILD)/kmp/gomp-defined.txt \
		$(BUILD)/kmp/kmp-defined.txt $(BUILD)/kmp/stubs.c $(BUILD)/kmp/libomp.map

$(BUILD)/kmp/stubs.o: $(BUILD)/kmp/stubs.c $(FLAGS_TRACK) | build/config.h
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -fPIC $(DEPFLAGS) -c -o $@ $<

$(KMP_SO): $(KMP_SHARED_OBJS) $(KMP_OBJS) $(LIB_OBJS) $(BUILD)/kmp/libomp.map
	$(QUIET_LINK)$(CC) -shared -Wl,-soname,libomp.so.5 \
		-Wl,--version-script=$(BUILD)/kmp/libomp.map -Wl,--no-undefined \
		-o $@ $(KMP_SHARED_OBJS) $(KMP_OBJS) $(LIB_OBJS) $(ALL_LDFLAGS) $(LIB_LIBS) -latomic

$(KMP_ALIASES): $(KMP_SO)
	@mkdir -p $(@D)
	$(QUIET)ln -sf ../liblocus-omp.so $@

# clang -fopenmp test programs: built against LLVM's libomp
$(BUILD)/tests/kmp/%: tests/kmp/%.c $(FLAGS_TRACK) | build/config.h
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CLANG_OPENMP) -O2 -g -Wall -fopenmp -MMD -MP -MF $@.d -MT $@ -o $@ $< -lm

# OpenMP test programs: built against the real libgomp, like users' programs
$(BUILD)/tests/gomp/%: tests/gomp/%.c $(FLAGS_TRACK) | build/config.h
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(OPENMP_CFLAGS) $(DEPFLAGS) -MF $@.d -MT $@ \
		-o $@ $< $(ALL_LDFLAGS) $(OPENMP_CFLAGS) -lm

$(BUILD)/tests/%: tests/%.c $(TEST_SUPPORT_OBJS) $(LIB_A) $(FLAGS_TRACK) | build/config.h
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) -iquote tests/support $(DEPFLAGS) -MF $@.d -MT $@ -o $@ $< \
		$(TEST_SUPPORT_OBJS) $(LIB_A) $(ALL_LDFLAGS) $(TEST_WRAP) $(TEST_LIBS)

$(BUILD)/examples/%: examples/%.c $(LIB_A) $(FLAGS_TRACK) | build/config.h
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -MF $@.d -MT $@ -o $@ $< \
		$(LIB_A) $(ALL_LDFLAGS) $(LIB_LIBS)

$(BUILD)/tools/%: tools/%.c $(LIB_A) $(FLAGS_TRACK) | build/config.h
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -MF $@.d -MT $@ -o $@ $< \
		$(LIB_A) $(ALL_LDFLAGS) $(LIB_LIBS)

# The scripts among the tools get the version (their --version) here.
$(TOOL_SCRIPTS_BUILT): $(BUILD)/tools/%: tools/% config.mak.autogen
	@mkdir -p $(@D)
	$(QUIET)sed -e 's|@VERSION@|$(VERSION)|g' $< >$@.tmp && chmod 755 $@.tmp && mv $@.tmp $@

# MPI programs: liblocus-mpi, liblocus and libmpi; run with mpirun.
$(BUILD)/tests/mpi/%: tests/mpi/%.c $(MPI_LIB_A) $(LIB_A) $(FLAGS_TRACK) | build/config.h
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(MPI_ALL_CFLAGS) $(DEPFLAGS) -MF $@.d -MT $@ -o $@ $< \
		$(MPI_LIB_A) $(LIB_A) $(ALL_LDFLAGS) $(LIB_LIBS) $(MPI_LIBS)

# A benchmark's source may be in any benchmarks/*/ directory: find it by
# name.  (The % is kept out of the rule text, where make would put the stem.)
bench_src = $(firstword $(filter %/$(1).c,$(BENCH_SRCS)))
.SECONDEXPANSION:
$(BENCH_LOCUS): $(BUILD)/bench/%: $$(call bench_src,$$*) \
		$(LIB_A) $(FLAGS_TRACK) | build/config.h
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -MF $@.d -MT $@ -o $@ $< \
		$(LIB_A) $(ALL_LDFLAGS) $(BENCH_LIBS)

# OpenMP baselines: the same kernels without Locus, for comparison.
$(BENCH_OMP): $(BUILD)/bench/%-omp: $$(call bench_src,$$*_omp) \
		$(FLAGS_TRACK) | build/config.h
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(OPENMP_CFLAGS) $(DEPFLAGS) -MF $@.d -MT $@ \
		-o $@ $< $(ALL_LDFLAGS) $(OPENMP_CFLAGS) $(BLAS_LIBS) -lm

# The same baselines built by clang against LLVM's libomp.  --as-needed: a
# benchmark that calls no BLAS must not load OpenBLAS, whose thread pool
# starts at load time and takes CPU time from the runtime measured (the gcc
# builds above already come out without it).
$(BENCH_CLANG): $(BUILD)/bench/%-clang: $$(call bench_src,$$*_omp) \
		$(FLAGS_TRACK) | build/config.h
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CLANG_OPENMP) -g -O2 -std=gnu11 $(CORE_INCLUDES) -fopenmp -MMD -MP \
		-MF $@.d -MT $@ -o $@ $< -Wl,--as-needed $(BLAS_LIBS) -lm

bench_mpi_src = $(firstword $(filter %/$(1).c,$(BENCH_MPI_SRCS)))
$(BENCH_MPI): $(BUILD)/bench/%: $$(call bench_mpi_src,$$*) \
		$(MPI_LIB_A) $(LIB_A) $(FLAGS_TRACK) | build/config.h
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(MPI_ALL_CFLAGS) $(DEPFLAGS) -MF $@.d -MT $@ -o $@ $< \
		$(MPI_LIB_A) $(LIB_A) $(ALL_LDFLAGS) $(BENCH_LIBS) $(MPI_LIBS)

-include $(wildcard $(MPI_OBJS:.o=.d) $(SIM_OBJS:.o=.d) $(LIB_OBJS:.o=.d) $(GOMP_OBJS:.o=.d) $(KMP_OBJS:.o=.d) \
	$(TEST_SUPPORT_OBJS:.o=.d) $(addsuffix .d,$(PROGRAMS)))

# ---------------------------------------------------------------- tests
# Each suite appends "NAME passed failed skipped" to $(TALLY) (via
# tools/run-tests) so that `check` can print one total line at the end.
TALLY = build/check.tally

# Sanitizer builds run 2-10x slower, and some tests' own watchdogs allow
# them 600 s: the runner's limit per binary stays above that.
RUN_TESTS_TIMEOUT_none = 300
RUN_TESTS_TIMEOUT_asan = 900
RUN_TESTS_TIMEOUT_tsan = 900

# tests/man/run: the man pages against the headers, the exports and an
# install (make install prefix=TMP); tests/tools/run: the tools' and the
# benchmark scripts' --help, --version and usage errors.
_run-tests: $(TESTS) $(LIB_SO) $(TOOLS) $(TOOL_SCRIPTS_BUILT)
	$(if $(filter 1,$(HAVE_CMOCKA)),,$(error the tests need cmocka, which configure did not find: \
		install libcmocka-dev (tools/install-deps test), then ./config.status --recheck))
	@echo '=== tests in $(BUILD)/ (LOCUS_TEST_SANITIZER=$(SAN))'
	@$(TEST_ENV) RUN_TESTS_TIMEOUT=$(or $(RUN_TESTS_TIMEOUT),$(RUN_TESTS_TIMEOUT_$(SAN))) \
		RUN_TESTS_LABEL='$(SUITE)' MPI_TEST_BUILD=$(BUILD) MPI_TEST_HAVE_MPI=$(HAVE_MPI) \
		MPIRUN='$(MPIRUN)' TEST_BUILD=$(BUILD) FIGURES_TEST_BUILD=$(BUILD) \
		tools/run-tests $(TESTS) tests/mpi/run tests/man/run tests/tools/run tests/figures/run \
		tests/node-check/run

_run-examples: $(EXAMPLES)
	@echo '=== examples in $(BUILD)/ (smoke run)'
	@$(TEST_ENV) RUN_TESTS_LABEL='examples' tools/run-tests $(EXAMPLES)

check-plain:
	@$(MAKE) --no-print-directory BUILD=build SAN=none all
	@rc=0; \
	$(MAKE) --no-print-directory BUILD=build SAN=none _run-tests || rc=1; \
	$(MAKE) --no-print-directory BUILD=build SAN=none _run-examples || rc=1; \
	$(MAKE) --no-print-directory _check-gomp-conformance || rc=1; \
	$(MAKE) --no-print-directory _check-omp-conformance || rc=1; \
	$(MAKE) --no-print-directory _check-peer-suites || rc=1; \
	$(MAKE) --no-print-directory _check-tampi || rc=1; \
	$(MAKE) --no-print-directory _check-install INSTALL_TEST_DISTCHECK=1 || rc=1; \
	exit $$rc

# Locus as a user gets it (tests/install/run says what it checks): installed
# to a temporary prefix, programs built with the README's pkg-config
# commands, statically, with CMake's find_package(Locus) and locus-mpi.pc,
# run without LD_LIBRARY_PATH; every version the same; and, from check-plain,
# `make distcheck DISTCHECK_QUICK=1` (about 3 minutes in all on 2 cores).
check-install:
	@$(MAKE) --no-print-directory BUILD=build SAN=none lib gomp omp mpilib $(TOOLS)
	@$(MAKE) --no-print-directory _check-install INSTALL_TEST_DISTCHECK=1

_check-install:
	@echo '=== install, pkg-config, CMake, static link, versions (tests/install/run)'
	@INSTALL_TEST_MAKE='$(MAKE)' HAVE_MPI=$(HAVE_MPI) MPIRUN='$(MPIRUN)' CC='$(CC)' \
		INSTALL_TEST_DISTCHECK=$(or $(INSTALL_TEST_DISTCHECK),0) \
		INSTALL_TEST_QUICK=$(or $(INSTALL_TEST_QUICK),0) \
		RUN_TESTS_TIMEOUT=900 RUN_TESTS_LABEL=install tools/run-tests tests/install/run

# ---------------------------------------------------------------- dist
# make dist: locus-$(VERSION).tar.gz, the files git knows (third_party/ and
# tests/ included) plus the generated configure and config.h.in, so that
# `./configure && make && make check` needs no autoconf.  Made from the work
# tree as it is (uncommitted edits included), so it needs a git checkout.
# make distcheck: unpacks it in a temporary directory, configures it with
# autoconf and autoheader made to fail (PATH), builds everything, runs the
# plain unit tests (_run-tests) and the install stage (tests/install/run)
# there, then removes it.  DISTCHECK_QUICK=1 (what check-install runs):
# configures without MPI, builds only what `make install` needs and runs the
# install stage's quick part (install, pkg-config, versions).
DIST = locus-$(VERSION)
DISTCHECK_TMP = $(CURDIR)/build/distcheck

dist: configure
	@git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { \
		echo 'make dist: needs a git checkout (it packs the files git knows)' >&2; exit 1; }
	$(QUIET)rm -rf build/dist && mkdir -p build/dist/$(DIST)
	@# tracked and new files, less those deleted in the work tree
	$(QUIET){ git ls-files --cached --others --exclude-standard; git ls-files --deleted; } | \
		sort | uniq -u | tr '\n' '\0' | xargs -0 cp -P --parents -t build/dist/$(DIST)
	$(QUIET)cp configure config.h.in build/dist/$(DIST)/
	@# newer than configure.ac and VERSION: the Makefile does not run autoconf
	$(QUIET)touch build/dist/$(DIST)/configure build/dist/$(DIST)/config.h.in
	$(QUIET)tar -C build/dist -czf $(DIST).tar.gz --owner=0 --group=0 $(DIST)
	$(QUIET)rm -rf build/dist
	@echo "make dist: $(DIST).tar.gz ($$(tar -tzf $(DIST).tar.gz | wc -l) files)"

ifdef DISTCHECK_QUICK
DISTCHECK_CONFIGURE = --with-mpi=no
DISTCHECK_STEPS = $(MAKE) --no-print-directory _check-install INSTALL_TEST_QUICK=1 INSTALL_TEST_DISTCHECK=0
DISTCHECK_DID = the quick part of the install stage
else
DISTCHECK_STEPS = $(MAKE) --no-print-directory all && $(MAKE) --no-print-directory _run-tests && \
	$(MAKE) --no-print-directory _check-install INSTALL_TEST_DISTCHECK=0
DISTCHECK_DID = the unit tests and the install stage
endif

distcheck: dist
	$(QUIET)rm -rf $(DISTCHECK_TMP) && mkdir -p $(DISTCHECK_TMP)/noauto
	$(QUIET)for t in autoconf autoheader autoreconf; do \
		printf '#!/bin/sh\necho "distcheck: the tarball ran %s" >&2\nexit 1\n' $$t \
			>$(DISTCHECK_TMP)/noauto/$$t; chmod +x $(DISTCHECK_TMP)/noauto/$$t; done
	$(QUIET)tar -C $(DISTCHECK_TMP) -xzf $(DIST).tar.gz
	@echo '=== distcheck: $(DIST).tar.gz in $(DISTCHECK_TMP)/$(DIST)'
	+$(QUIET)cd $(DISTCHECK_TMP)/$(DIST) && export PATH=$(DISTCHECK_TMP)/noauto:$$PATH && unset RUN_TESTS_TALLY && \
	{ ./configure --prefix=$(DISTCHECK_TMP)/inst $(DISTCHECK_CONFIGURE) >$(DISTCHECK_TMP)/configure.log 2>&1 || \
		{ tail -n 20 $(DISTCHECK_TMP)/configure.log; exit 1; }; } && \
	$(DISTCHECK_STEPS)
	$(QUIET)rm -rf $(DISTCHECK_TMP)
	@echo 'distcheck: $(DIST).tar.gz configured without autoconf, built, and passed $(DISTCHECK_DID)'

# BSC's TAMPI 4.1, built unchanged from third_party/tampi-4.1, under its own
# tests ported to Locus: np 2 and 4 x LOCUS_THREADS 1 and 2 x naft and dft,
# TAMPI's defaults, 10 repetitions (tests/tampi/run says how; it skips, with
# its reason, where MPI or a tool TAMPI's build needs is missing).  Part of
# check-plain (about 20 minutes on 2 cores); the target alone rebuilds
# first.  TAMPI_TEST_REPS=N for fewer repetitions by hand.
check-tampi:
	@$(MAKE) --no-print-directory BUILD=build SAN=none all
	@$(MAKE) --no-print-directory _check-tampi

_check-tampi:
	@echo '=== TAMPI 4.1 on Locus (tests/tampi/run)'
	@BUILD=build MPI_TEST_HAVE_MPI=$(HAVE_MPI) MPIRUN='$(MPIRUN)' RUN_TESTS_TIMEOUT=3600 \
		RUN_TESTS_LABEL=tampi tools/run-tests tests/tampi/run

# gcc's own libgomp testsuite on liblocus-gomp (tests/libgomp-conformance/run
# says how; it skips, with its reason, where gcc-N-source is not installed).
# Part of check-plain; the target alone rebuilds first.
check-gomp-conformance:
	@$(MAKE) --no-print-directory BUILD=build SAN=none all
	@$(MAKE) --no-print-directory _check-gomp-conformance

_check-gomp-conformance:
	@echo '=== gcc libgomp testsuite on liblocus-gomp (tests/libgomp-conformance/run)'
	@CONFORMANCE_BUILD=build RUN_TESTS_TIMEOUT=1200 RUN_TESTS_LABEL=gomp-conformance \
		tools/run-tests tests/libgomp-conformance/run

# LLVM's own libomp testsuite (clang 14's openmp/runtime/test) on
# liblocus-omp (tests/llvm-conformance/run says how: the tests are fetched
# from Debian's source package on the first run and kept in
# build/llvm-conformance/; it skips, with its reason, without them and
# without the network).  Part of check-plain (about 8 minutes on 2 busy
# cores, a few more on the first run, which fetches and compiles the tests);
# the target alone rebuilds first.
check-omp-conformance:
	@$(MAKE) --no-print-directory BUILD=build SAN=none all
	@$(MAKE) --no-print-directory _check-omp-conformance

_check-omp-conformance:
	@echo '=== LLVM libomp testsuite on liblocus-omp (tests/llvm-conformance/run)'
	@CONFORMANCE_BUILD=build RUN_TESTS_TIMEOUT=1500 RUN_TESTS_LABEL=omp-conformance \
		tools/run-tests tests/llvm-conformance/run

# BOTS and KASTORS, built by clang-14 and gcc, on liblocus-omp and
# liblocus-gomp against libomp and libgomp (tests/peer-suites/run says how:
# the suites are copied from local mirrors or fetched; without either the
# stage is skipped, with the reason).  Part of check-plain (under 2 minutes).
check-peer-suites:
	@$(MAKE) --no-print-directory BUILD=build SAN=none gomp omp
	@$(MAKE) --no-print-directory _check-peer-suites

_check-peer-suites:
	@echo '=== BOTS and KASTORS on liblocus-omp and liblocus-gomp (tests/peer-suites/run)'
	@PEER_BUILD=build RUN_TESTS_TIMEOUT=1200 RUN_TESTS_LABEL=peer-suites \
		tools/run-tests tests/peer-suites/run

# Real page placement on emulated NUMA nodes: QEMU guests with 2 and 4 nodes
# (tests/numa-vm/run says how; it skips, with its reason, only where QEMU
# cannot run at all).
check-numa-vm:
	@$(MAKE) --no-print-directory BUILD=build SAN=none all
	@echo '=== NUMA placement in QEMU guests (tests/numa-vm/run)'
	@RUN_TESTS_TIMEOUT=900 RUN_TESTS_LABEL=numa-vm tools/run-tests tests/numa-vm/run

# Only the MPI stage (it is also part of check-plain, -asan and -tsan).
check-mpi:
	@$(MAKE) --no-print-directory BUILD=build SAN=none all
	@echo '=== MPI tests in build/ (tests/mpi/run)'
	@MPI_TEST_BUILD=build MPI_TEST_HAVE_MPI=$(HAVE_MPI) MPIRUN='$(MPIRUN)' \
		RUN_TESTS_TIMEOUT=900 RUN_TESTS_LABEL=mpi tools/run-tests tests/mpi/run

check-asan:
	@$(MAKE) --no-print-directory BUILD=build-asan SAN=asan all
	@rc=0; \
	$(MAKE) --no-print-directory BUILD=build-asan SAN=asan _run-tests || rc=1; \
	$(MAKE) --no-print-directory BUILD=build-asan SAN=asan _check-gomp-conformance-san || rc=1; \
	$(MAKE) --no-print-directory BUILD=build-asan SAN=asan _check-omp-conformance-san || rc=1; \
	exit $$rc

check-tsan:
	@$(MAKE) --no-print-directory BUILD=build-tsan SAN=tsan all
	@rc=0; \
	$(MAKE) --no-print-directory BUILD=build-tsan SAN=tsan _run-tests || rc=1; \
	$(MAKE) --no-print-directory BUILD=build-tsan SAN=tsan _check-gomp-conformance-san || rc=1; \
	$(MAKE) --no-print-directory BUILD=build-tsan SAN=tsan _check-omp-conformance-san || rc=1; \
	exit $$rc

# The task-related tests of the conformance stage on the sanitized
# liblocus-gomp of $(BUILD), the sanitizer's runtime preloaded ahead of the
# gcc-compiled test programs (tests/libgomp-conformance/run says which).
_check-omp-conformance-san:
	@echo '=== LLVM libomp testsuite, tasking tests, on $(BUILD)/liblocus-omp ($(SAN))'
	@$(TEST_ENV) CONFORMANCE_BUILD=$(BUILD) CONFORMANCE_SANITIZER=$(SAN) \
		RUN_TESTS_TIMEOUT=1500 RUN_TESTS_LABEL=omp-conformance-$(SAN) \
		tools/run-tests tests/llvm-conformance/run

_check-gomp-conformance-san:
	@echo '=== gcc libgomp testsuite, task-related tests, on $(BUILD)/liblocus-gomp ($(SAN))'
	@$(TEST_ENV) CONFORMANCE_BUILD=$(BUILD) CONFORMANCE_SANITIZER=$(SAN) \
		RUN_TESTS_TIMEOUT=1200 RUN_TESTS_LABEL=gomp-conformance-$(SAN) \
		tools/run-tests tests/libgomp-conformance/run

check: deps
	@test '$(HAVE_CMOCKA)' = 1 || { echo './config.status --recheck (cmocka for the tests)'; \
		./config.status --recheck && ./config.status >/dev/null; }
	@$(MAKE) --no-print-directory all
	@mkdir -p build; rm -f $(TALLY); rc=0; \
	for suite in check-plain check-numa-vm check-asan check-tsan; do \
		RUN_TESTS_TALLY=$(CURDIR)/$(TALLY) $(MAKE) --no-print-directory $$suite || { \
			rc=1; echo "$$suite: FAILED"; }; \
	done; \
	echo '=== check summary'; \
	test -f $(TALLY) && sed 's/^\([^ ]*\) \([0-9]*\) \([0-9]*\) \([0-9]*\)$$/  \1: \2 passed, \3 failed, \4 skipped/' $(TALLY); \
	test -f $(TALLY) && awk '{ p += $$2; f += $$3; s += $$4 } \
		END { printf "total: %d passed, %d failed, %d skipped\n", p, f, s }' $(TALLY); \
	exit $$rc

# The paper's experiment in simulated time (locus-sim(7), benchmarks/README.md)
sim-paper: deps
	@$(MAKE) --no-print-directory all
	@python3 benchmarks/sim/sim-paper --out $(BUILD)/sim-paper

demo: deps
	@$(MAKE) --no-print-directory all
	@set -e; for e in $(EXAMPLES); do echo "=== $$e"; $$e; done
	@bash benchmarks/demo.sh

# every section of tools/deps.txt: what the build, the tests and the demo need
deps:
	@tools/install-deps all

# ---------------------------------------------------------------- install
# The .pc files and the CMake package get the make-time paths, so `make
# install prefix=...` is right even when configure was given another prefix.
# Their rpath (-Wl,-rpath,${libdir}) lets a program built by the README's
# command run from any prefix without LD_LIBRARY_PATH or ldconfig; it is left
# out when libdir is one of the loader's default directories.
MULTIARCH = $(shell $(CC) -print-multiarch 2>/dev/null)
SYSTEM_LIBDIRS = /lib /usr/lib /lib64 /usr/lib64 $(addprefix /lib/,$(MULTIARCH)) \
	$(addprefix /usr/lib/,$(MULTIARCH))
PC_RPATH = $(if $(filter $(SYSTEM_LIBDIRS),$(patsubst %/,%,$(libdir))),,-Wl,-rpath,$${libdir})
PC_SED = sed -e 's|^prefix=.*|prefix=$(prefix)|' \
	     -e 's|^exec_prefix=.*|exec_prefix=$(exec_prefix)|' \
	     -e 's|^libdir=.*|libdir=$(libdir)|' \
	     -e 's|^includedir=.*|includedir=$(includedir)|' \
	     -e 's|^rpath=.*|rpath=$(PC_RPATH)|'
CMAKE_SED = sed -e 's|^set(_Locus_libdir .*|set(_Locus_libdir "$(libdir)")|' \
		-e 's|^set(_Locus_includedir .*|set(_Locus_includedir "$(includedir)")|'
PC_FILES = locus.pc locus-static.pc locus-gomp.pc locus-omp.pc $(if $(filter 1,$(HAVE_MPI)),locus-mpi.pc)
CMAKE_FILES = build/LocusConfig.cmake build/LocusConfigVersion.cmake
# The man pages' .TH lines get this version as their fourth field ("Locus
# 0.6.0"), whatever the source says, so that every page in man/ shows the
# version installed.
MAN_TH_SED = s/^(\.TH[[:space:]]+("[^"]*"|[^[:space:]"]+)[[:space:]]+("[^"]*"|[^[:space:]"]+)[[:space:]]+("[^"]*"|[^[:space:]"]+))([[:space:]]+("[^"]*"|[^[:space:]"]+))?/\1 "Locus $(VERSION)"/

install: lib gomp omp mpilib $(TOOLS) $(TOOL_SCRIPTS_BUILT) $(PC_FILES) $(CMAKE_FILES)
	$(INSTALL) -d '$(DESTDIR)$(libdir)/pkgconfig' '$(DESTDIR)$(includedir)' '$(DESTDIR)$(libdir)/locus' \
		'$(DESTDIR)$(libdir)/cmake/Locus'
	$(INSTALL_DATA) $(LIB_A) '$(DESTDIR)$(libdir)/'
	$(INSTALL_PROGRAM) $(LIB_SO_REAL) '$(DESTDIR)$(libdir)/'
	ln -sf $(SOREAL) '$(DESTDIR)$(libdir)/$(SONAME)'
	ln -sf $(SONAME) '$(DESTDIR)$(libdir)/liblocus.so'
ifneq ($(SIM_SO),)
	$(INSTALL_PROGRAM) $(SIM_SO) '$(DESTDIR)$(libdir)/'
endif
	$(INSTALL_PROGRAM) $(GOMP_SO) '$(DESTDIR)$(libdir)/locus/'
	ln -sf liblocus-gomp.so '$(DESTDIR)$(libdir)/locus/libgomp.so.1'
	$(INSTALL_PROGRAM) $(KMP_SO) '$(DESTDIR)$(libdir)/locus/'
	ln -sf liblocus-omp.so '$(DESTDIR)$(libdir)/locus/libomp.so.5'
	ln -sf liblocus-omp.so '$(DESTDIR)$(libdir)/locus/libiomp5.so'
	$(INSTALL_DATA) include/locus.h include/alpi.h '$(DESTDIR)$(includedir)/'
ifeq ($(HAVE_MPI),1)
	$(INSTALL_DATA) include/locus_mpi.h '$(DESTDIR)$(includedir)/'
	$(INSTALL_DATA) $(MPI_LIB_A) '$(DESTDIR)$(libdir)/'
	$(INSTALL_PROGRAM) $(MPI_LIB_SO_REAL) '$(DESTDIR)$(libdir)/'
	ln -sf $(MPI_SOREAL) '$(DESTDIR)$(libdir)/$(MPI_SONAME)'
	ln -sf $(MPI_SONAME) '$(DESTDIR)$(libdir)/liblocus-mpi.so'
endif
	@for pc in $(PC_FILES); do \
		echo "$$pc -> $(DESTDIR)$(libdir)/pkgconfig/$$pc (paths, rpath: $(subst $$,\$$,$(PC_RPATH)))"; \
		$(PC_SED) $$pc >'$(DESTDIR)$(libdir)/pkgconfig/'$$pc && \
		chmod 644 '$(DESTDIR)$(libdir)/pkgconfig/'$$pc || exit 1; \
	done
	@for f in $(CMAKE_FILES); do \
		n=$${f##*/}; echo "$$f -> $(DESTDIR)$(libdir)/cmake/Locus/$$n (paths)"; \
		$(CMAKE_SED) $$f >'$(DESTDIR)$(libdir)/cmake/Locus/'$$n && \
		chmod 644 '$(DESTDIR)$(libdir)/cmake/Locus/'$$n || exit 1; \
	done
	@for f in $(MAN1) $(MAN3) $(MAN7); do \
		d='$(DESTDIR)$(mandir)'/man$${f##*.}; n=$${f##*/}; \
		$(INSTALL) -d "$$d" && \
		sed -E '$(MAN_TH_SED)' "$$f" >"$$d/$$n" && chmod 644 "$$d/$$n" || exit 1; \
	done; echo "installed man pages (.TH: Locus $(VERSION)) in $(DESTDIR)$(mandir)"
	$(INSTALL) -d '$(DESTDIR)$(bindir)'
	$(INSTALL_PROGRAM) $(TOOLS) $(TOOL_SCRIPTS_BUILT) '$(DESTDIR)$(bindir)/'

uninstall:
	rm -f '$(DESTDIR)$(libdir)/liblocus.a' '$(DESTDIR)$(libdir)/$(SOREAL)' \
	      '$(DESTDIR)$(libdir)/$(SONAME)' '$(DESTDIR)$(libdir)/liblocus.so' \
	      '$(DESTDIR)$(libdir)/pkgconfig/locus.pc' '$(DESTDIR)$(libdir)/pkgconfig/locus-static.pc' \
	      '$(DESTDIR)$(libdir)/pkgconfig/locus-gomp.pc' \
	      '$(DESTDIR)$(libdir)/pkgconfig/locus-omp.pc' \
	      '$(DESTDIR)$(libdir)/pkgconfig/locus-mpi.pc' \
	      '$(DESTDIR)$(libdir)/cmake/Locus/LocusConfig.cmake' \
	      '$(DESTDIR)$(libdir)/cmake/Locus/LocusConfigVersion.cmake' \
	      '$(DESTDIR)$(includedir)/locus.h' '$(DESTDIR)$(includedir)/alpi.h' \
	      '$(DESTDIR)$(libdir)/locus/liblocus-gomp.so' \
	      '$(DESTDIR)$(libdir)/locus/libgomp.so.1' '$(DESTDIR)$(includedir)/locus_mpi.h' \
	      '$(DESTDIR)$(libdir)/locus/liblocus-omp.so' '$(DESTDIR)$(libdir)/locus/libomp.so.5' \
	      '$(DESTDIR)$(libdir)/locus/libiomp5.so' \
	      '$(DESTDIR)$(libdir)/liblocus-mpi.a' '$(DESTDIR)$(libdir)/liblocus-mpi.so.$(VERSION)' \
	      '$(DESTDIR)$(libdir)/liblocus-mpi.so.0' \
	      '$(DESTDIR)$(libdir)/liblocus-mpi.so' '$(DESTDIR)$(libdir)/liblocus-sim.so'
	-rmdir '$(DESTDIR)$(libdir)/locus' '$(DESTDIR)$(libdir)/cmake/Locus' 2>/dev/null
	@for f in $(notdir $(MAN3)); do rm -f "$(DESTDIR)$(mandir)/man3/$$f"; done
	@for f in $(notdir $(MAN7)); do rm -f "$(DESTDIR)$(mandir)/man7/$$f"; done
	@for f in $(notdir $(MAN1)); do rm -f "$(DESTDIR)$(mandir)/man1/$$f"; done
	@for f in $(notdir $(TOOLS) $(TOOL_SCRIPTS)); do rm -f "$(DESTDIR)$(bindir)/$$f"; done

# ---------------------------------------------------------------- clean
clean:
	rm -rf build build-asan build-tsan

distclean: clean
	rm -rf config.mak.autogen config.status config.log configure config.h.in \
	       config.h.in~ configure~ locus.pc locus-static.pc locus-gomp.pc locus-omp.pc locus-mpi.pc autom4te.cache \
	       locus-*.tar.gz

FORCE:
