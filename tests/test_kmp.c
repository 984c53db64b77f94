/*
 * test_kmp.c - the LLVM OpenMP ABI layer (liblocus-omp), from the outside:
 * OpenMP programs built by clang -fopenmp against LLVM's libomp (the
 * programs in tests/kmp/) run unchanged on Locus (LD_PRELOAD=
 * liblocus-omp.so, or Locus's libomp.so.5 first on LD_LIBRARY_PATH) in
 * every regime and give libomp's output; liblocus-omp exports libomp's
 * entry points under libomp's version nodes, the secondary GOMP_x/OMP_x
 * ones included, on which a gcc program given it as its libgomp.so.1 runs
 * (and ALPI's, under LOCUS_ALPI_1); proxy tasks complete when told, from
 * any thread; an entry point it lacks stops the program with its name;
 * bad OMP_ settings are reported by liblocus-omp and lose nothing; a
 * program built for one ABI and given the other ABI's layer says so.
 *
 * Under a sanitizer the Locus layer is the sanitizer build's and the
 * sanitizer's runtime is preloaded ahead of it (the clang programs stay
 * unsanitized); under TSan the libomp runs are left out (libomp is not
 * instrumented) and the Locus runs are compared with each other.
 */
#define _GNU_SOURCE
#include <libgen.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "child.h"

static char build_dir[PATH_MAX];       /* the BUILD directory of this binary */
static char layer[PATH_MAX + 32];      /* liblocus-omp.so */
static char gomp_layer[PATH_MAX + 32]; /* liblocus-gomp.so */
static char alias_dir[PATH_MAX + 32];  /* holds Locus's libomp.so.5 */
static int tsan;

#define LIMIT_S 300

static void run(struct child_result *r, const char *prog, int on_locus, const char *const *env)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/tests/kmp/%s", build_dir, prog);
    child_run(r, path, on_locus ? layer : NULL, env, LIMIT_S);
}

static void expect_ok(const struct child_result *r, const char *what)
{
    if (!child_ok(r))
        fail_msg("%s: status 0x%x\nstdout:\n%s\nstderr:\n%s", what, r->status, r->out, r->err);
}

static int have_programs(void **state)
{
    (void)state;
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/tests/kmp/kmp_worksharing", build_dir);
    if (access(p, X_OK) != 0 || access(layer, R_OK) != 0) {
        print_message("skipping: %s or %s not built (no clang-14 with libomp: "
                      "tools/install-deps test)\n", p, layer);
        return 0;
    }
    return 1;
}

/* Every configuration a program must give libomp's answer in. */
static const char *const configs[][5] = {
    { "LOCUS_REGIME=dft", NULL },
    { "LOCUS_REGIME=di", NULL },
    { "LOCUS_REGIME=naft", NULL },
    { "LOCUS_REGIME=naft", "LOCUS_TOPOLOGY=bullion-s16", "OMP_NUM_THREADS=8", NULL },
    { "LOCUS_REGIME=dft", "LOCUS_TOPOLOGY=4s", "LOCUS_STEAL=all", NULL },
    { "OMP_NUM_THREADS=1", NULL },
    { "OMP_NUM_THREADS=2", NULL },
};

static void same_as_libomp(const char *prog)
{
    struct child_result ref, r;
    char what[256];
    for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++) {
        const char *const *env = configs[c];
        const char *threads = "OMP_NUM_THREADS=4";
        for (int i = 0; env[i]; i++)
            if (!strncmp(env[i], "OMP_NUM_THREADS=", 16))
                threads = env[i];
        const char *ref_env[] = { threads, NULL };
        if (!tsan) {
            run(&ref, prog, 0, ref_env);
            snprintf(what, sizeof what, "%s on libomp (%s)", prog, threads);
            expect_ok(&ref, what);
        }
        run(&r, prog, 1, env);
        snprintf(what, sizeof what, "%s on Locus (%s %s %s)", prog, env[0],
                 env[1] ? env[1] : "", env[1] && env[2] ? env[2] : "");
        expect_ok(&r, what);
        if (tsan) {
            if (c == 0 || !strcmp(threads, "OMP_NUM_THREADS=4"))
                ref = r;
            else
                continue;
        }
        if (strcmp(ref.out, r.out))
            fail_msg("%s: output differs from libomp's\nlibomp:\n%s\nLocus:\n%s", what, ref.out,
                     r.out);
    }
}

static void test_worksharing(void **state)
{
    if (!have_programs(state))
        skip();
    same_as_libomp("kmp_worksharing");
}

/* tasks with every depend kind, taskwait, taskgroup, if(0), final,
 * priority, untied, detach, taskloop, task reductions, doacross
 * (tests/kmp/kmp_tasks.c) */
static void test_tasks(void **state)
{
    if (!have_programs(state))
        skip();
    same_as_libomp("kmp_tasks");
}

/* the data-environment ICVs each task's own (tests/gomp/icv_per_task.h) */
static void test_icv_per_task(void **state)
{
    if (!have_programs(state))
        skip();
    same_as_libomp("kmp_icv");
}

/* the tasking entry points clang 14 does not emit, called by hand
 * (tests/kmp/kmp_task_abi.c) */
static void test_task_abi(void **state)
{
    if (!have_programs(state))
        skip();
    same_as_libomp("kmp_task_abi");
}

/* proxy tasks completed from a thread outside the team and from one of
 * the team, after a delay: the taskwait and the dependent task wait for
 * it (tests/kmp/kmp_proxy.c); and in a serialized region, which libomp 14
 * fails an assertion at the end of, on Locus only */
static void test_proxy(void **state)
{
    if (!have_programs(state))
        skip();
    same_as_libomp("kmp_proxy");
    struct child_result r;
    const char *serial[] = { "PROXY_TEAM=1", NULL };
    run(&r, "kmp_proxy", 1, serial);
    expect_ok(&r, "kmp_proxy on Locus in a serialized region");
    assert_non_null(strstr(r.out, "all passed"));
}

/* libomp's __kmpc_atomic_* entry points (tests/kmp/kmp_atomic.c) */
static void test_atomic(void **state)
{
    if (!have_programs(state))
        skip();
    same_as_libomp("kmp_atomic");
}

/* libomp's Fortran bindings called as a Fortran compiler calls them, the
 * kmp affinity-mask API, the host's interop queries, ompt_start_tool
 * (tests/kmp/kmp_fortran_ext.c: its own checks fail it; bad input and the
 * interop answers libomp does not give are checked on Locus only) */
static void test_fortran_ext(void **state)
{
    if (!have_programs(state))
        skip();
    same_as_libomp("kmp_fortran_ext");
}

/* fork() after a region: the child starts a runtime of its own
 * (tests/kmp/kmp_fork.c) */
static void test_fork(void **state)
{
    if (!have_programs(state))
        skip();
    /* the child keeps the parent's runtime memory unreachable on purpose
     * (gomp/parallel.c: its threads are gone); LeakSanitizer would report
     * it at the child's exit, and fail it */
    const char *why = child_fork_sanitizer_options(1);
    if (why) {
        print_message("skipping: %s\n", why);
        skip();
    }
    same_as_libomp("kmp_fork");
    child_fork_sanitizer_options(0);
}

/* The layer really runs the program: LOCUS_VERBOSE's line, both ways of
 * putting it in, and LOCUS_REPORT's report at exit. */
static void test_really_on_locus(void **state)
{
    if (!have_programs(state))
        skip();
    struct child_result r;
    const char *verbose[] = { "LOCUS_VERBOSE=1", "LOCUS_REGIME=dft", "LOCUS_REPORT=stderr", NULL };
    run(&r, "kmp_worksharing", 1, verbose);
    expect_ok(&r, "kmp_worksharing with LOCUS_VERBOSE=1");
    assert_non_null(strstr(r.err, "locus: regime dft"));
    assert_non_null(strstr(r.err, "locus report"));
    if (child_san_runtime(NULL)[0])
        return;   /* the sanitizer runtime must come first: preloading is the way */
    char ldpath[PATH_MAX + 64];
    snprintf(ldpath, sizeof ldpath, "LD_LIBRARY_PATH=%s", alias_dir);
    const char *via_path[] = { ldpath, "LOCUS_VERBOSE=1", "LOCUS_REGIME=naft", NULL };
    run(&r, "kmp_worksharing", 0, via_path);
    expect_ok(&r, "kmp_worksharing with Locus's libomp.so.5 on LD_LIBRARY_PATH");
    assert_non_null(strstr(r.err, "locus: regime naft"));
}

/* What a command prints (a malloc'd string). */
static char *output_of(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 17, n = 0, got;
    char *buf = malloc(cap);
    assert_non_null(buf);
    while ((got = fread(buf + n, 1, cap - 1 - n, p)) > 0)
        n += got;
    buf[n] = 0;
    pclose(p);
    return buf;
}

/* A gcc -fopenmp program (tests/gomp/omp_tasks: tasks, taskloop,
 * taskgroup, barriers) references libgomp's versions (GOMP_barrier@GOMP_1.0,
 * omp_in_final@OMP_3.1).  Given liblocus-omp as its libgomp.so.1, as LLVM's
 * libomp is given to such programs (which is what libomp's secondary
 * versions are for), it loads, runs on Locus and gives libgomp's output. */
static void test_gcc_program_on_layer(void **state)
{
    if (!have_programs(state))
        skip();
    char prog[PATH_MAX + 64], cmd[PATH_MAX + 128];
    snprintf(prog, sizeof prog, "%s/tests/gomp/omp_tasks", build_dir);
    if (access(prog, X_OK) != 0) {
        print_message("skipping: %s not built (no gcc -fopenmp)\n", prog);
        skip();
    }
    if (child_san_runtime(NULL)[0]) {
        print_message("skipping: under a sanitizer the layer is preloaded, not found as "
                      "libgomp.so.1 (test_really_on_locus)\n");
        skip();
    }
    /* the program binds to the secondary versions */
    snprintf(cmd, sizeof cmd, "objdump -T '%s' | grep -c '(GOMP_1.0) *GOMP_barrier$'", prog);
    char *n = output_of(cmd);
    assert_int_equal(atoi(n), 1);
    free(n);
    char dir[] = "/tmp/locus-test-kmp-XXXXXX", link_path[sizeof dir + 16];
    assert_non_null(mkdtemp(dir));
    snprintf(link_path, sizeof link_path, "%s/libgomp.so.1", dir);
    assert_int_equal(symlink(layer, link_path), 0);
    char ldpath[sizeof dir + 32];
    snprintf(ldpath, sizeof ldpath, "LD_LIBRARY_PATH=%s", dir);
    const char *env[] = { ldpath, "LOCUS_VERBOSE=1", "LOCUS_REPORT=stderr", NULL };
    struct child_result r, ref;
    child_run(&r, prog, NULL, env, LIMIT_S);
    unlink(link_path);
    rmdir(dir);
    expect_ok(&r, "omp_tasks with liblocus-omp as its libgomp.so.1");
    assert_non_null(strstr(r.err, "locus: regime"));
    assert_non_null(strstr(r.err, "locus report"));
    if (!tsan) {
        child_run(&ref, prog, NULL, NULL, LIMIT_S);
        expect_ok(&ref, "omp_tasks on libgomp");
        assert_string_equal(ref.out, r.out);
    }
}

/* "VERSION SYMBOL" of each function and data object lib defines, under
 * each version it has: the default (sym@@VERSION) and libomp's secondary
 * ones (sym@OMP_1.0, sym@GOMP_1.0, ...: what gcc programs bind to). */
static char *exports(const char *lib)
{
    char cmd[PATH_MAX + 256];
    snprintf(cmd, sizeof cmd,
             "readelf -W --dyn-syms '%s' | awk '$7 != \"UND\" && $8 ~ /@/ && "
             "($4 == \"FUNC\" || $4 == \"OBJECT\") { i = index($8, \"@\"); "
             "v = substr($8, i + 1); sub(/^@/, \"\", v); print v, substr($8, 1, i - 1) }' "
             "| LC_ALL=C sort",
             lib);
    return output_of(cmd);
}

/* lib's version nodes in order, each with the node it inherits from
 * ("OMP_2.0 < OMP_1.0"), less the first (the soname's) */
static char *version_nodes(const char *lib)
{
    char cmd[PATH_MAX + 256];
    snprintf(cmd, sizeof cmd,
             "readelf -V '%s' | awk '/^Version definition/ { d = 1 } /^Version needs/ { d = 0 } "
             "d && / Name: / && !/BASE/ { printf \"\\n%%s\", $NF } "
             "d && /Parent 1:/ { printf \" < %%s\", $NF } END { print \"\" }'",
             lib);
    return output_of(cmd);
}

static void test_abi_is_libomps(void **state)
{
    if (!have_programs(state))
        skip();
    char cmd[PATH_MAX + 128], line[PATH_MAX + 128], lib[PATH_MAX] = "";
    snprintf(cmd, sizeof cmd,
             "LD_PRELOAD= LD_TRACE_LOADED_OBJECTS=1 '%s/tests/kmp/kmp_worksharing'", build_dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    while (fgets(line, sizeof line, p))
        if (sscanf(line, " libomp.so.5 => %4095s", lib) == 1)
            break;
    pclose(p);
    if (!lib[0]) {
        print_message("skipping: the programs do not load libomp.so.5\n");
        skip();
    }
    char *theirs = exports(lib), *ours = exports(layer);
    assert_true(strlen(theirs) > 10000);   /* readelf worked */
    /* ALPI's entries, under a node of their own (TAMPI binds to them by
     * name): taken out of ours, counted */
    assert_int_equal(child_strip_alpi(ours), 18);   /* every function of include/alpi.h */
    size_t at = child_first_difference(theirs, ours);
    if (theirs[at] || ours[at])
        fail_msg("liblocus-omp's exports differ from libomp's at:\nlibomp: %.80s\nLocus: %.80s",
                 theirs + at, ours + at);
    assert_non_null(strstr(theirs, "\nGOMP_1.0 GOMP_barrier\n"));   /* secondary ones listed */
    free(theirs);
    free(ours);
    /* the same version nodes, inheriting as libomp's (and ALPI's last) */
    theirs = version_nodes(lib);
    ours = version_nodes(layer);
    assert_non_null(strstr(theirs, "\nOMP_2.0 < OMP_1.0\n"));   /* readelf worked */
    char *alpi = strstr(ours, "\nLOCUS_ALPI_1\n");
    assert_non_null(alpi);
    memmove(alpi + 1, alpi + 14, strlen(alpi + 14) + 1);
    assert_string_equal(theirs, ours);
    free(theirs);
    free(ours);
    /* and its soname is libomp's */
    snprintf(cmd, sizeof cmd, "readelf -d '%s' | grep -c 'SONAME.*\\[libomp.so.5\\]'", layer);
    p = popen(cmd, "r");
    assert_non_null(p);
    assert_non_null(fgets(line, sizeof line, p));
    pclose(p);
    assert_int_equal(atoi(line), 1);
}

/* An entry point the layer lacks stops the program, naming it. */
static void test_unimplemented_is_loud(void **state)
{
    if (!have_programs(state))
        skip();
    struct child_result r;
    run(&r, "kmp_unsupported", 1, NULL);
    if (!WIFSIGNALED(r.status) || WTERMSIG(r.status) != SIGABRT)
        fail_msg("__kmp_get_reduce_method on Locus: expected SIGABRT, status 0x%x\n%s%s",
                 r.status, r.out, r.err);
    assert_non_null(strstr(r.err, "liblocus-omp: __kmp_get_reduce_method: not implemented"));
    assert_null(strstr(r.out, "reduce method"));   /* it stopped before printing */
    if (!tsan) {
        run(&r, "kmp_unsupported", 0, NULL);
        expect_ok(&r, "__kmp_get_reduce_method on libomp");
        assert_non_null(strstr(r.out, "reduce method"));
    }
}

/* Bad OMP_ values: named by liblocus-omp, ignored, the answers unchanged. */
static void test_bad_settings(void **state)
{
    if (!have_programs(state))
        skip();
    struct child_result r, ref;
    const char *bad_omp[] = { "OMP_NUM_THREADS=lots", "OMP_SCHEDULE=sometimes", NULL };
    run(&r, "kmp_worksharing", 1, bad_omp);
    expect_ok(&r, "bad OMP_NUM_THREADS and OMP_SCHEDULE");
    assert_non_null(strstr(r.err, "liblocus-omp: ignoring OMP_NUM_THREADS='lots'"));
    assert_non_null(strstr(r.err, "liblocus-omp: ignoring OMP_SCHEDULE='sometimes'"));
    run(&ref, "kmp_worksharing", 1, NULL);
    expect_ok(&ref, "kmp_worksharing");
    assert_string_equal(r.out, ref.out);
}

/* A program compiled for one ABI given the other ABI's layer runs on its
 * own runtime, and one line says so and names the layer to use. */
static void test_wrong_layer_said(void **state)
{
    if (!have_programs(state))
        skip();
    struct child_result r;
    char path[PATH_MAX + 64];
    if (tsan)
        goto right_layer;   /* the other runtime is not instrumented: TSan misreads it */
    snprintf(path, sizeof path, "%s/tests/kmp/kmp_worksharing", build_dir);
    child_run(&r, path, gomp_layer, NULL, LIMIT_S);
    expect_ok(&r, "a clang program with liblocus-gomp preloaded");
    assert_non_null(strstr(r.err, "liblocus-gomp: this program's OpenMP code runs on "));
    assert_non_null(strstr(r.err, "libomp.so.5, not on Locus"));
    assert_non_null(strstr(r.err, "/liblocus-omp.so"));
    snprintf(path, sizeof path, "%s/tests/gomp/omp_worksharing", build_dir);
    if (access(path, X_OK) == 0) {
        /* liblocus-omp has libomp's GOMP_x.y versions: it takes the calls
         * libomp has, libgomp the others, and the line says that */
        child_run(&r, path, layer, NULL, LIMIT_S);
        expect_ok(&r, "a gcc program with liblocus-omp preloaded");
        assert_non_null(strstr(r.err, "liblocus-omp: this program was compiled for gcc's "
                                      "libgomp and runs on Locus and on "));
        assert_non_null(strstr(r.err, "libgomp.so.1: its calls that libomp also has"));
        assert_non_null(strstr(r.err, "/liblocus-gomp.so"));
    }
right_layer:
    /* and the right layer says nothing of the kind */
    run(&r, "kmp_worksharing", 1, NULL);
    expect_ok(&r, "kmp_worksharing on liblocus-omp");
    assert_null(strstr(r.err, "not on Locus"));
}

/* OMP_DISPLAY_AFFINITY=true: each thread displays its line at the start
 * of a region when it changed since its last display, the same set of
 * lines as libomp's; unset or false: none. */
static void test_display_affinity(void **state)
{
    if (!have_programs(state))
        skip();
    const char *on[] = { "OMP_DISPLAY_AFFINITY=TRUE", "OMP_AFFINITY_FORMAT=T%{thread_num}/%{num_threads}", NULL };
    const char *off[] = { "OMP_DISPLAY_AFFINITY=false", "OMP_AFFINITY_FORMAT=T%{thread_num}/%{num_threads}", NULL };
    const char *unset[] = { "OMP_DISPLAY_AFFINITY=", NULL };
    const char *bad[] = { "OMP_DISPLAY_AFFINITY=yes", NULL };
    struct child_result ref, r;
    char want[4096], got[4096];
    run(&r, "kmp_display_affinity", 1, on);
    expect_ok(&r, "kmp_display_affinity with OMP_DISPLAY_AFFINITY=TRUE");
    child_sorted_lines(r.out, "T", got, sizeof got);
    if (!tsan) {
        run(&ref, "kmp_display_affinity", 0, on);
        expect_ok(&ref, "kmp_display_affinity on " "libomp");
        child_sorted_lines(ref.out, "T", want, sizeof want);
        if (strcmp(want, got))
            fail_msg("affinity lines differ from libomp's\nlibomp:\n%s\nLocus:\n%s",
                     want, got);
    }
    assert_non_null(strstr(got, "T2/3\n"));
    run(&r, "kmp_display_affinity", 1, off);
    expect_ok(&r, "kmp_display_affinity with OMP_DISPLAY_AFFINITY=false");
    child_sorted_lines(r.out, "T", got, sizeof got);
    assert_string_equal(got, "");
    run(&r, "kmp_display_affinity", 1, unset);
    expect_ok(&r, "kmp_display_affinity without OMP_DISPLAY_AFFINITY");
    assert_null(strstr(r.out, "level "));
    assert_null(strstr(r.out, "OMP: pid"));
    run(&r, "kmp_display_affinity", 1, bad);
    expect_ok(&r, "kmp_display_affinity with OMP_DISPLAY_AFFINITY=yes");
    assert_non_null(strstr(r.err, "ignoring OMP_DISPLAY_AFFINITY='yes': expected true or false"));
    assert_null(strstr(r.out, "level "));
    assert_null(strstr(r.out, "OMP: pid"));
}

int main(void)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return 1;
    self[n] = 0;
    /* self is BUILD/tests/test_kmp */
    snprintf(build_dir, sizeof build_dir, "%s", dirname(dirname(self)));
    snprintf(layer, sizeof layer, "%s/liblocus-omp.so", build_dir);
    snprintf(gomp_layer, sizeof gomp_layer, "%s/liblocus-gomp.so", build_dir);
    snprintf(alias_dir, sizeof alias_dir, "%s/kmp", build_dir);
    child_san_runtime(&tsan);

    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_abi_is_libomps),
        cmocka_unit_test(test_worksharing),
        cmocka_unit_test(test_tasks),
        cmocka_unit_test(test_icv_per_task),
        cmocka_unit_test(test_task_abi),
        cmocka_unit_test(test_proxy),
        cmocka_unit_test(test_atomic),
        cmocka_unit_test(test_fortran_ext),
        cmocka_unit_test(test_fork),
        cmocka_unit_test(test_really_on_locus),
        cmocka_unit_test(test_gcc_program_on_layer),
        cmocka_unit_test(test_unimplemented_is_loud),
        cmocka_unit_test(test_bad_settings),
        cmocka_unit_test(test_wrong_layer_said),
        cmocka_unit_test(test_display_affinity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
