/*
 * test_gomp.c - the libgomp-compatible layer, from the outside: OpenMP
 * programs built by gcc -fopenmp against libgomp (the programs in tests/gomp/) run
 * unchanged on Locus (LD_PRELOAD=liblocus-gomp.so, or Locus's libgomp.so.1
 * first on LD_LIBRARY_PATH) in every regime and give libgomp's output;
 * liblocus-gomp exports exactly libgomp's symbols and versions (and ALPI's,
 * under LOCUS_ALPI_1); an entry
 * point it lacks stops the program with its name; bad OMP_ and LOCUS_
 * settings are reported and lose nothing; a program ended by exit() or
 * SIGTERM inside a region still gets its LOCUS_REPORT.
 *
 * Under a sanitizer the programs are instrumented too, and the sanitizer's
 * runtime is preloaded ahead of the layer; under TSan the libgomp runs are
 * left out (libgomp is not instrumented, so TSan cannot see its
 * synchronisation) and the Locus runs are compared with each other.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "child.h"

static char build_dir[PATH_MAX];       /* the BUILD directory of this binary */
static char layer[PATH_MAX + 32];      /* liblocus-gomp.so */
static char alias_dir[PATH_MAX + 32];  /* holds Locus's libgomp.so.1 */
static int tsan;                       /* this test runs under TSan */

/* Runs build/tests/gomp/PROG (tests/support/child.c) with the
 * NULL-terminated "NAME=VALUE" list set (a value "" unsets).  on_locus:
 * with the layer preloaded. */
static void run(struct child_result *r, const char *prog, int on_locus, const char *const *env)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/tests/gomp/%s", build_dir, prog);
    child_run(r, path, on_locus ? layer : NULL, env, 300);
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
    snprintf(p, sizeof p, "%s/tests/gomp/omp_tasks", build_dir);
    if (access(p, X_OK) != 0 || access(layer, R_OK) != 0) {
        print_message("skipping: %s or %s not built (no OpenMP compiler?)\n", p, layer);
        return 0;
    }
    return 1;
}

/* Every configuration a program must give libgomp's answer in. */
static const char *const configs[][5] = {
    { "LOCUS_REGIME=dft", NULL },
    { "LOCUS_REGIME=di", NULL },
    { "LOCUS_REGIME=naft", NULL },
    { "LOCUS_REGIME=naft", "LOCUS_TOPOLOGY=bullion-s16", "OMP_NUM_THREADS=8", NULL },
    { "LOCUS_REGIME=dft", "LOCUS_TOPOLOGY=4s", "LOCUS_STEAL=all", NULL },
    { "OMP_NUM_THREADS=1", NULL },
    { "OMP_NUM_THREADS=2", NULL },
};

/* skip_one: leave out the configuration of a team of one thread */
static void same_as_libgomp_but(const char *prog, int skip_one)
{
    struct child_result ref, r;
    char what[256];
    for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++) {
        /* the reference: libgomp with the same thread count */
        const char *const *env = configs[c];
        if (skip_one && !strcmp(env[0], "OMP_NUM_THREADS=1"))
            continue;
        const char *threads = "OMP_NUM_THREADS=4";
        for (int i = 0; env[i]; i++)
            if (!strncmp(env[i], "OMP_NUM_THREADS=", 16))
                threads = env[i];
        const char *ref_env[] = { threads, NULL };
        if (!tsan) {
            run(&ref, prog, 0, ref_env);
            snprintf(what, sizeof what, "%s on libgomp (%s)", prog, threads);
            expect_ok(&ref, what);
        }
        run(&r, prog, 1, env);
        snprintf(what, sizeof what, "%s on Locus (%s %s %s)", prog, env[0],
                 env[1] ? env[1] : "", env[1] && env[2] ? env[2] : "");
        expect_ok(&r, what);
        if (tsan) {
            /* no libgomp run: compare with Locus's first run at that count */
            if (c == 0 || !strcmp(threads, "OMP_NUM_THREADS=4"))
                ref = r;
            else
                continue;
        }
        if (strcmp(ref.out, r.out))
            fail_msg("%s: output differs from libgomp's\nlibgomp:\n%s\nLocus:\n%s", what,
                     ref.out, r.out);
    }
}

static void same_as_libgomp(const char *prog)
{
    same_as_libgomp_but(prog, 0);
}

static void test_tasks(void **state)
{
    if (!have_programs(state))
        skip();
    same_as_libgomp("omp_tasks");
}

/* Programs Locus once failed where libgomp did not (tests/gomp/omp_robust.c):
 * a detached task whose 20000 dependents its creator spawns before it
 * fulfils the event, and a chain of 10^6 tasks each creating the next.
 * Not on a team of one thread: liblocus-gomp runs such a team's tasks at
 * once, without the runtime (gomp/task.c), and a task that depends on an
 * unfulfilled detached one then waits for ever, as a one-thread team's
 * detached tasks do in issue 29's list. */
static void test_robust(void **state)
{
    if (!have_programs(state))
        skip();
    same_as_libgomp_but("omp_robust", 1);
}

/* A detached task whose creator fulfils its event only after a nested
 * parallel region (tests/gomp/omp_detach_nested.c): the nested region's
 * end waits only for its own tasks' events (issue 29: it waited for the
 * enclosing task's too, and hung). */
static void test_detach_nested(void **state)
{
    if (!have_programs(state))
        skip();
    same_as_libgomp("omp_detach_nested");
}

/* Included tasks nest on the creating thread's stack: 9,000 levels fit in
 * 4 MiB, as under libgomp (tests/gomp/omp_included_deep.c; Locus's frames
 * were three times libgomp's, and BOTS's concom overflowed). */
static void test_included_deep(void **state)
{
    if (!have_programs(state))
        skip();
    same_as_libgomp("omp_included_deep");
}

/* A program's start does not load the counter backends' libraries
 * (libpapi with libpfm, liblikwid: milliseconds of relocations) unless a
 * backend is tried (tests/gomp/omp_lazy_libs.c). */
static void test_lazy_libs(void **state)
{
    if (!have_programs(state))
        skip();
    struct child_result r;
    const char *const env[] = { "LOCUS_COUNTERS=none", "OMP_NUM_THREADS=2", NULL };
    run(&r, "omp_lazy_libs", 1, env);
    expect_ok(&r, "omp_lazy_libs on Locus with LOCUS_COUNTERS=none");
}

/* Undeferred tasks (if(0)) run on the encountering thread, after their
 * dependences, with children of their own (tests/gomp/omp_undeferred.c;
 * issue 29: they were queued, and some ran on other workers). */
static void test_undeferred(void **state)
{
    if (!have_programs(state))
        skip();
    same_as_libgomp("omp_undeferred");
}

/* A deferred task that waits for a flag its creator sets after creating
 * it (tests/gomp/omp_spawn_wait.c): queued for the idle teammates, not
 * run at its creation by the short-task rule (issue 29: it was, and its
 * creator waited for itself).  Not on a team of one thread, where libgomp
 * too runs the task at once and waits for ever. */
static void test_spawn_wait(void **state)
{
    if (!have_programs(state))
        skip();
    same_as_libgomp_but("omp_spawn_wait", 1);
}

/* ALPI in an OpenMP program (tests/gomp/omp_alpi.c), found with dlsym as
 * TAMPI finds it: libgomp has none, Locus's layer binds it to its tasks.
 * Not on a team of one thread, whose tasks liblocus-gomp runs at once
 * (gomp/task.c): a task that blocks there blocks its region. */
static void test_alpi(void **state)
{
    if (!have_programs(state))
        skip();
    static const char expect[] =
        "main is a task; the polling task ran while main slept\n"
        "16 tasks blocked and resumed; every task saw its team\n"
        "an event held the dependent task until fulfilled\n"
        "the polling task ran through the region and stopped\n";
    struct child_result r;
    char what[256];
    if (!tsan) {
        const char *ref_env[] = { "OMP_NUM_THREADS=4", NULL };
        run(&r, "omp_alpi", 0, ref_env);
        expect_ok(&r, "omp_alpi on libgomp");
        assert_string_equal(r.out, "no ALPI\n");
    }
    for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++) {
        const char *const *env = configs[c];
        if (!strcmp(env[0], "OMP_NUM_THREADS=1"))
            continue;
        run(&r, "omp_alpi", 1, env);
        snprintf(what, sizeof what, "omp_alpi on Locus (%s %s %s)", env[0],
                 env[1] ? env[1] : "", env[1] && env[2] ? env[2] : "");
        expect_ok(&r, what);
        if (strcmp(r.out, expect))
            fail_msg("%s: output\n%s\nexpected\n%s", what, r.out, expect);
    }
}

static void test_worksharing(void **state)
{
    if (!have_programs(state))
        skip();
    same_as_libgomp("omp_worksharing");
}

/* Task reductions (taskgroup, in_reduction, taskloop, parallel with the
 * task modifier): libgomp's sums in every configuration. */
static void test_reductions(void **state)
{
    if (!have_programs(state))
        skip();
    same_as_libgomp("omp_reductions");
}

/* Tasks run at their spawn that return while their in_reduction children,
 * on other threads, look up through them (tests/gomp/omp_spawn_parents.c:
 * under TSan, the race on their flags once reported there). */
static void test_spawn_parents(void **state)
{
    if (!have_programs(state))
        skip();
    same_as_libgomp("omp_spawn_parents");
}

/* Nested parallel regions with teams of their own (levels, sizes,
 * ancestors, max-active-levels, worksharing and tasks inside): libgomp's
 * answers in every configuration. */
static void test_nested(void **state)
{
    if (!have_programs(state))
        skip();
    same_as_libgomp("omp_nested");
}

/* ordered, doacross, conditional lastprivate, scan (tests/gomp/omp_ordered.c) */
static void test_ordered_and_doacross(void **state)
{
    if (!have_programs(state))
        skip();
    same_as_libgomp("omp_ordered");
}

/* cancellation with OMP_CANCELLATION=true (tests/gomp/omp_cancel.c);
 * unset, the program is told it is off, as on libgomp */
static void test_cancellation(void **state)
{
    if (!have_programs(state))
        skip();
    static const char *const cases[][5] = {
        { "OMP_CANCELLATION=true", "LOCUS_REGIME=dft", NULL },
        { "OMP_CANCELLATION=true", "LOCUS_REGIME=naft", NULL },
        { "OMP_CANCELLATION=true", "OMP_NUM_THREADS=1", NULL },
        { "OMP_CANCELLATION=true", "LOCUS_REGIME=naft", "LOCUS_TOPOLOGY=bullion-s16",
          "OMP_NUM_THREADS=16", NULL },
    };
    const char *want = "taskgroup: 0 of 100 waiting tasks ran, later task created: no, "
                       "successor ran: yes\n"
                       "parallel: 0 members went past the cancelled barrier\n";
    struct child_result r;
    if (!tsan) {
        run(&r, "omp_cancel", 0, cases[0]);
        expect_ok(&r, "omp_cancel on libgomp");
        assert_string_equal(r.out, want);
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run(&r, "omp_cancel", 1, cases[i]);
        expect_ok(&r, cases[i][1]);
        if (strcmp(r.out, want))
            fail_msg("omp_cancel (%s %s): got\n%s", cases[i][1], cases[i][2] ? cases[i][2] : "",
                     r.out);
    }
    run(&r, "omp_cancel", 1, NULL);
    expect_ok(&r, "omp_cancel without OMP_CANCELLATION");
    assert_string_equal(r.out, "cancellation off\n");
}

/* target, teams and allocators on the host (tests/gomp/omp_target.c says
 * what each line shows): as libgomp in every configuration. */
static void test_target_teams_allocators(void **state)
{
    if (!have_programs(state))
        skip();
    same_as_libgomp("omp_target");
}

/* Semantics once silently wrong (tests/gomp/omp_icv.c says which): as
 * libgomp in every configuration, and LOCUS_THREADS does not override the
 * num_threads clause or omp_set_num_threads(). */
static void test_icv_and_friends(void **state)
{
    if (!have_programs(state))
        skip();
    same_as_libgomp("omp_icv");
    struct child_result ref, r;
    const char *ref_env[] = { "OMP_NUM_THREADS=4", NULL };
    const char *env[] = { "OMP_NUM_THREADS=4", "LOCUS_THREADS=4", NULL };
    if (tsan)
        return;
    run(&ref, "omp_icv", 0, ref_env);
    expect_ok(&ref, "omp_icv on libgomp");
    run(&r, "omp_icv", 1, env);
    expect_ok(&r, "omp_icv on Locus with LOCUS_THREADS=4");
    if (strcmp(ref.out, r.out))
        fail_msg("omp_icv with LOCUS_THREADS=4 differs from libgomp's\nlibgomp:\n%s\nLocus:\n%s",
                 ref.out, r.out);
}

/* OMP_SCHEDULE's monotonic: and nonmonotonic: modifiers and
 * omp_set_schedule's monotonic bit reach omp_get_schedule as in libgomp
 * (tests/gomp/omp_schedule.c; issue 29: the modifier was dropped), and a
 * malformed value is named and ignored. */
static void test_schedule_modifiers(void **state)
{
    if (!have_programs(state))
        skip();
    static const char *const values[] = {
        "OMP_SCHEDULE=monotonic:dynamic", "OMP_SCHEDULE=monotonic:dynamic,4",
        "OMP_SCHEDULE=monotonic:static", "OMP_SCHEDULE=monotonic:guided,2",
        "OMP_SCHEDULE=nonmonotonic:dynamic,3", "OMP_SCHEDULE=nonmonotonic:static",
        "OMP_SCHEDULE=static", "OMP_SCHEDULE=guided", "OMP_SCHEDULE= Monotonic : auto ",
    };
    struct child_result ref, r;
    char what[256];
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        const char *env[] = { values[i], "OMP_NUM_THREADS=4", NULL };
        snprintf(what, sizeof what, "omp_schedule with %s", values[i]);
        run(&r, "omp_schedule", 1, env);
        expect_ok(&r, what);
        if (tsan)
            continue;
        run(&ref, "omp_schedule", 0, env);
        expect_ok(&ref, what);
        if (strcmp(ref.out, r.out))
            fail_msg("%s: output differs from libgomp's\nlibgomp:\n%s\nLocus:\n%s", what,
                     ref.out, r.out);
    }
    const char *display[] = { "OMP_SCHEDULE=monotonic:dynamic,4", "OMP_DISPLAY_ENV=true", NULL };
    run(&r, "omp_schedule", 1, display);
    expect_ok(&r, "omp_schedule with OMP_DISPLAY_ENV=true");
    assert_non_null(strstr(r.err, "OMP_SCHEDULE = 'MONOTONIC:DYNAMIC,4'"));
    static const char *const bad[] = {
        "OMP_SCHEDULE=monotonic:", "OMP_SCHEDULE=monotonic:dyn",
        "OMP_SCHEDULE=nonmonotonic;static", "OMP_SCHEDULE=monotonic:dynamic,4,5",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *env[] = { bad[i], NULL };
        char want[128];
        run(&r, "omp_schedule", 1, env);
        expect_ok(&r, bad[i]);
        snprintf(want, sizeof want, "ignoring OMP_SCHEDULE='%s'", bad[i] + strlen("OMP_SCHEDULE="));
        if (!strstr(r.err, want))
            fail_msg("%s: no warning \"%s\" in\n%s", bad[i], want, r.err);
        /* the default stays */
        assert_non_null(strstr(r.out, "OMP_SCHEDULE: kind 2, chunk 1\n"));
    }
}

/* The runs above could pass on libgomp alone if the preload failed: this
 * one proves Locus ran them, both ways of putting it in. */
static void test_really_on_locus(void **state)
{
    if (!have_programs(state))
        skip();
    struct child_result r;
    const char *verbose[] = { "LOCUS_VERBOSE=1", "LOCUS_REGIME=dft", NULL };
    run(&r, "omp_tasks", 1, verbose);
    expect_ok(&r, "omp_tasks with LOCUS_VERBOSE=1");
    assert_non_null(strstr(r.err, "locus: regime dft"));

    if (child_san_runtime(NULL)[0])
        return;   /* the sanitizer runtime must come first: preloading is the way */
    char ldpath[PATH_MAX + 64];
    snprintf(ldpath, sizeof ldpath, "LD_LIBRARY_PATH=%s", alias_dir);
    const char *via_path[] = { ldpath, "LOCUS_VERBOSE=1", "LOCUS_REGIME=naft", NULL };
    run(&r, "omp_tasks", 0, via_path);
    expect_ok(&r, "omp_tasks with Locus's libgomp.so.1 on LD_LIBRARY_PATH");
    assert_non_null(strstr(r.err, "locus: regime naft"));
}

/* inoutset (kind 5 depend objects), which gcc 12's libgomp refuses */
static void test_inoutset(void **state)
{
    if (!have_programs(state))
        skip();
    static const char *const regimes[][2] = {
        { "LOCUS_REGIME=dft", NULL }, { "LOCUS_REGIME=naft", NULL },
    };
    struct child_result r;
    for (size_t i = 0; i < 2; i++) {
        run(&r, "omp_inoutset", 1, regimes[i]);
        expect_ok(&r, regimes[i][0]);
        assert_string_equal(r.out, "inoutset: reader saw 11, members ran together: yes\n");
    }
}

/* the priority clause, with OMP_MAX_TASK_PRIORITY set (honoured) and
 * unset (0: ignored, as libgomp does) */
static void test_priority(void **state)
{
    if (!have_programs(state))
        skip();
    static const char *const cases[][4] = {
        { "LOCUS_REGIME=dft", "LOCUS_GRAIN_NS=0", "OMP_MAX_TASK_PRIORITY=10", NULL },
        { "LOCUS_REGIME=naft", "LOCUS_GRAIN_NS=0", "OMP_MAX_TASK_PRIORITY=10", NULL },
        { "LOCUS_REGIME=dft", "LOCUS_GRAIN_NS=0", NULL },
    };
    static const char *const want[] = {
        "max priority 10, highest first: yes\n",
        "max priority 10, highest first: yes\n",
        "max priority 0, highest first: no\n",
    };
    struct child_result r;
    for (size_t i = 0; i < 3; i++) {
        run(&r, "omp_priority", 1, cases[i]);
        expect_ok(&r, cases[i][0]);
        assert_string_equal(r.out, want[i]);
    }
    /* a bad value: named, ignored (0) */
    const char *const bad[] = { "LOCUS_GRAIN_NS=0", "OMP_MAX_TASK_PRIORITY=-1", NULL };
    run(&r, "omp_priority", 1, bad);
    expect_ok(&r, "OMP_MAX_TASK_PRIORITY=-1");
    assert_non_null(strstr(r.err, "ignoring OMP_MAX_TASK_PRIORITY='-1'"));
    assert_non_null(strstr(r.out, "max priority 0,"));
}

static void test_unimplemented_is_loud(void **state)
{
    if (!have_programs(state))
        skip();
    struct child_result r;
    run(&r, "omp_unsupported", 1, NULL);
    if (!WIFSIGNALED(r.status) || WTERMSIG(r.status) != SIGABRT)
        fail_msg("OpenACC on Locus: expected SIGABRT, status 0x%x\n%s%s", r.status, r.out, r.err);
    assert_non_null(strstr(r.err, "acc_get_num_devices"));
    assert_non_null(strstr(r.err, "not implemented"));
    assert_null(strstr(r.out, "host devices"));   /* it stopped before printing */
    if (!tsan) {
        run(&r, "omp_unsupported", 0, NULL);
        expect_ok(&r, "OpenACC on libgomp");
        assert_string_equal(r.out, "host devices 1\n");
    }
}

static void test_bad_settings(void **state)
{
    if (!have_programs(state))
        skip();
    struct child_result r;
    /* a bad OMP_ value: named, ignored */
    const char *bad_omp[] = { "OMP_NUM_THREADS=lots", "OMP_SCHEDULE=sometimes", NULL };
    run(&r, "omp_worksharing", 1, bad_omp);
    expect_ok(&r, "bad OMP_NUM_THREADS and OMP_SCHEDULE");
    assert_non_null(strstr(r.err, "ignoring OMP_NUM_THREADS='lots'"));
    assert_non_null(strstr(r.err, "ignoring OMP_SCHEDULE='sometimes'"));
    /* the same for the variables of target, teams and allocators, and the
     * program's results are unchanged */
    const char *bad_target[] = { "OMP_ALLOCATOR=omp_huge_mem_alloc", "OMP_NUM_TEAMS=-3",
                                 "OMP_TEAMS_THREAD_LIMIT=some", "OMP_DEFAULT_DEVICE=gpu",
                                 "OMP_TARGET_OFFLOAD=sometimes", "OMP_PLACES={0,nowhere}",
                                 NULL };
    run(&r, "omp_target", 1, bad_target);
    expect_ok(&r, "bad OMP_ALLOCATOR, OMP_NUM_TEAMS, ...");
    assert_non_null(strstr(r.err, "ignoring OMP_ALLOCATOR='omp_huge_mem_alloc'"));
    assert_non_null(strstr(r.err, "ignoring OMP_NUM_TEAMS='-3'"));
    assert_non_null(strstr(r.err, "ignoring OMP_TEAMS_THREAD_LIMIT='some'"));
    assert_non_null(strstr(r.err, "ignoring OMP_DEFAULT_DEVICE='gpu'"));
    assert_non_null(strstr(r.err, "ignoring OMP_TARGET_OFFLOAD='sometimes'"));
    assert_non_null(strstr(r.err, "ignoring OMP_PLACES='{0,nowhere}'"));
    assert_non_null(strstr(r.out, "teams: 4 teams, thread limit 2, shares 25 25 25 25"));
    assert_non_null(strstr(r.out, "allocate clause: misaligned copies 0"));
    /* a configuration Locus refuses: said once, and the program still
     * computes its answers (on one thread) */
    const char *refused[] = { "LOCUS_REGIME=naft", "LOCUS_PAGES=interleave", NULL };
    run(&r, "omp_tasks", 1, refused);
    expect_ok(&r, "NAFT with interleaved pages");
    assert_non_null(strstr(r.err, "parallel regions run on one thread"));
    assert_non_null(strstr(r.err, "interleave"));
    assert_non_null(strstr(r.out, "fib(22)                      17711"));
}

/* Fields 11-14 (first-touch tasks, bytes local, near, far) of the report
 * row of node (-1: the row of all nodes); 0 when found. */
static int report_row(const char *path, int node, unsigned long long v[4])
{
    FILE *f = fopen(path, "r");
    char line[4096], want[16];
    int found = -1;
    if (!f)
        return -1;
    if (node < 0)
        snprintf(want, sizeof want, "all");
    else
        snprintf(want, sizeof want, "%d", node);
    while (found < 0 && fgets(line, sizeof line, f)) {
        char *save = NULL, *tok = strtok_r(line, ",", &save);
        for (int i = 1; tok && i <= 14; i++, tok = strtok_r(NULL, ",", &save)) {
            if (i == 9 && strcmp(tok, want))
                break;
            if (i >= 11)
                v[i - 11] = strtoull(tok, NULL, 10);
            if (i == 14)
                found = 0;
        }
    }
    fclose(f);
    return found;
}

/* NAFT places OpenMP tasks by their depend addresses: with no stealing,
 * every task runs on the node that holds its data, and the tasks that
 * first write data are dealt over all 16 nodes of the virtual machine. */
static void test_naft_places_openmp_tasks(void **state)
{
    if (!have_programs(state))
        skip();
    char report[] = "/tmp/test_gomp_report.XXXXXX.csv", env_report[64];
    int fd = mkstemps(report, 4);
    assert_true(fd >= 0);
    close(fd);
    snprintf(env_report, sizeof env_report, "LOCUS_REPORT=%s", report);
    const char *env[] = { "LOCUS_REGIME=naft", "LOCUS_TOPOLOGY=bullion-s16", "LOCUS_STEAL=none",
                          "OMP_NUM_THREADS=16", env_report, NULL };
    struct child_result r;
    run(&r, "omp_tasks", 1, env);
    expect_ok(&r, "omp_tasks under NAFT on bullion-s16, no stealing");
    unsigned long long all[4] = { 0 }, node[4];
    assert_int_equal(report_row(report, -1, all), 0);
    assert_true(all[0] >= 16);          /* first-touch tasks: one per chain at least */
    assert_true(all[1] > 0);            /* local dependency bytes */
    assert_int_equal(all[2], 0);        /* nothing near */
    assert_int_equal(all[3], 0);        /* nothing far */
    for (int n = 0; n < 16; n++) {
        assert_int_equal(report_row(report, n, node), 0);
        if (node[0] == 0)
            fail_msg("node %d ran no first-touch task: dealing skipped it", n);
    }
    unlink(report);
}

/* Reads "VERSION SYMBOL" of every function a library exports. */
static char *exports(const char *lib)
{
    char cmd[PATH_MAX + 128];
    snprintf(cmd, sizeof cmd,
             "objdump -T '%s' | awk '/ DF \\.text/ { print $(NF-1), $NF }' | sort", lib);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    size_t r;
    while ((r = fread(buf + n, 1, cap - 1 - n, p)) > 0) {
        n += r;
        if (n + 1 == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
    }
    buf[n] = 0;
    assert_int_equal(pclose(p), 0);
    return buf;
}

static void test_abi_is_libgomps(void **state)
{
    if (!have_programs(state))
        skip();
    /* the libgomp.so.1 the programs bind to, as the dynamic linker finds it */
    char cmd[PATH_MAX + 128], line[PATH_MAX + 128], lib[PATH_MAX] = "";
    snprintf(cmd, sizeof cmd, "LD_PRELOAD= LD_TRACE_LOADED_OBJECTS=1 '%s/tests/gomp/omp_tasks'",
             build_dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    while (fgets(line, sizeof line, p))
        if (sscanf(line, " libgomp.so.1 => %4095s", lib) == 1)
            break;
    pclose(p);
    if (!lib[0]) {
        print_message("skipping: the programs do not load libgomp.so.1\n");
        skip();
    }
    char *theirs = exports(lib), *ours = exports(layer);
    assert_true(strlen(theirs) > 1000);   /* objdump worked */
    /* ALPI's entries, under a node of their own (TAMPI binds to them by
     * name): taken out of ours, counted */
    assert_int_equal(child_strip_alpi(ours), 18);   /* every function of include/alpi.h */
    size_t at = child_first_difference(theirs, ours);
    if (theirs[at] || ours[at])
        fail_msg("liblocus-gomp's exports differ from libgomp's at:\nlibgomp: %.80s\nLocus: %.80s",
                 theirs + at, ours + at);
    free(theirs);
    free(ours);
}

/* fork() after a region (tests/gomp/omp_fork.c): the child starts a runtime
 * of its own and runs tasks; libgomp itself hangs in that child, so the
 * expected output is written here instead of taken from it. */
static void test_fork(void **state)
{
    if (!have_programs(state))
        skip();
    static const char want[] = "parent before fork: 5050\nchild: 20100\n"
                               "child: team of 2, then 1275\nparent after child: 45150\n";
    const char *why = child_fork_sanitizer_options(1);
    if (why) {
        print_message("skipping: %s\n", why);
        skip();
    }
    for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++) {
        struct child_result r;
        char what[128];
        run(&r, "omp_fork", 1, configs[c]);
        snprintf(what, sizeof what, "omp_fork on Locus (%s %s)", configs[c][0],
                 configs[c][1] ? configs[c][1] : "");
        expect_ok(&r, what);
        if (strcmp(r.out, want))
            fail_msg("%s: got\n%s\nexpected\n%s", what, r.out, want);
    }
    child_fork_sanitizer_options(0);
}

/* An OpenMP program's outputs when it ends inside a parallel region, by
 * exit() or by SIGTERM, while a task runs: the report written all the
 * same (runtime/exit.c), saying how; a program that ends normally is
 * finalized by the layer, and says so. */
static void test_exit_outputs(void **state)
{
    if (!have_programs(state))
        skip();
    char dir[] = "/tmp/test_gomp_exit.XXXXXX";
    assert_non_null(mkdtemp(dir));
    static const char *const modes[] = { "normal", "exit", "term" };
    static const char *const ended[] = { "finalize", "exit", "SIGTERM" };
    for (int i = 0; i < 3; i++) {
        char rep[sizeof dir + 32], rep_env[sizeof rep + 16], mode_env[32];
        snprintf(rep, sizeof rep, "%s/%s.json", dir, modes[i]);
        snprintf(rep_env, sizeof rep_env, "LOCUS_REPORT=%s", rep);
        snprintf(mode_env, sizeof mode_env, "EXIT_MODE=%s", modes[i]);
        /* the run ends with a task running: what it holds is no leak */
        const char *const env[] = { rep_env, mode_env, "OMP_NUM_THREADS=2",
                                    "ASAN_OPTIONS=detect_leaks=0", NULL };
        struct child_result r;
        run(&r, "omp_exit", 1, env);
        int ok = i == 0 ? child_ok(&r)
                 : i == 1 ? WIFEXITED(r.status) && WEXITSTATUS(r.status) == 3
                          : WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGTERM;
        if (!ok)
            fail_msg("omp_exit %s: status 0x%x\nstderr:\n%s", modes[i], r.status, r.err);
        FILE *f = fopen(rep, "r");
        assert_non_null(f);
        char line[8192] = "", want[64];
        assert_non_null(fgets(line, sizeof line, f));
        fclose(f);
        snprintf(want, sizeof want, "\"ended\":\"%s\"", ended[i]);
        if (!strstr(line, want))
            fail_msg("omp_exit %s: the report lacks %s:\n%s", modes[i], want, line);
        assert_int_equal(line[strlen(line) - 1], '\n');
        unlink(rep);
    }
    rmdir(dir);
}

/* OMP_DISPLAY_AFFINITY=true: each thread displays its line at the start
 * of a region when it changed since its last display, the same set of
 * lines as libgomp's; unset or false: none. */
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
    run(&r, "omp_display_affinity", 1, on);
    expect_ok(&r, "omp_display_affinity with OMP_DISPLAY_AFFINITY=TRUE");
    child_sorted_lines(r.err, "T", got, sizeof got);
    if (!tsan) {
        run(&ref, "omp_display_affinity", 0, on);
        expect_ok(&ref, "omp_display_affinity on " "libgomp");
        child_sorted_lines(ref.err, "T", want, sizeof want);
        if (strcmp(want, got))
            fail_msg("affinity lines differ from libgomp's\nlibgomp:\n%s\nLocus:\n%s",
                     want, got);
    }
    assert_non_null(strstr(got, "T2/3\n"));
    run(&r, "omp_display_affinity", 1, off);
    expect_ok(&r, "omp_display_affinity with OMP_DISPLAY_AFFINITY=false");
    child_sorted_lines(r.err, "T", got, sizeof got);
    assert_string_equal(got, "");
    run(&r, "omp_display_affinity", 1, unset);
    expect_ok(&r, "omp_display_affinity without OMP_DISPLAY_AFFINITY");
    assert_null(strstr(r.err, "level "));
    assert_null(strstr(r.err, "OMP: pid"));
    run(&r, "omp_display_affinity", 1, bad);
    expect_ok(&r, "omp_display_affinity with OMP_DISPLAY_AFFINITY=yes");
    assert_non_null(strstr(r.err, "ignoring OMP_DISPLAY_AFFINITY='yes': expected true or false"));
    assert_null(strstr(r.err, "level "));
    assert_null(strstr(r.err, "OMP: pid"));
}

int main(void)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return 1;
    self[n] = 0;
    /* self is BUILD/tests/test_gomp */
    snprintf(build_dir, sizeof build_dir, "%s", dirname(dirname(self)));
    snprintf(layer, sizeof layer, "%s/liblocus-gomp.so", build_dir);
    snprintf(alias_dir, sizeof alias_dir, "%s/gomp", build_dir);
    child_san_runtime(&tsan);

    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_abi_is_libgomps),
        cmocka_unit_test(test_tasks),
        cmocka_unit_test(test_robust),
        cmocka_unit_test(test_detach_nested),
        cmocka_unit_test(test_lazy_libs),
        cmocka_unit_test(test_undeferred),
        cmocka_unit_test(test_included_deep),
        cmocka_unit_test(test_spawn_wait),
        cmocka_unit_test(test_alpi),
        cmocka_unit_test(test_worksharing),
        cmocka_unit_test(test_reductions),
        cmocka_unit_test(test_spawn_parents),
        cmocka_unit_test(test_nested),
        cmocka_unit_test(test_ordered_and_doacross),
        cmocka_unit_test(test_cancellation),
        cmocka_unit_test(test_icv_and_friends),
        cmocka_unit_test(test_schedule_modifiers),
        cmocka_unit_test(test_target_teams_allocators),
        cmocka_unit_test(test_really_on_locus),
        cmocka_unit_test(test_naft_places_openmp_tasks),
        cmocka_unit_test(test_inoutset),
        cmocka_unit_test(test_priority),
        cmocka_unit_test(test_unimplemented_is_loud),
        cmocka_unit_test(test_bad_settings),
        cmocka_unit_test(test_fork),
        cmocka_unit_test(test_exit_outputs),
        cmocka_unit_test(test_display_affinity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
