/*
 * test_api_deps.c - dependency ordering seen through the public API only
 * (include/locus.h): RAW, WAR and WAW on exact and partially overlapping byte
 * ranges, a reader covering several writers, nested ranges, CONCURRENT
 * (inoutset) groups, IN groups, OUT as a writer, and random graphs.
 *
 * Every task takes a start ticket and an end ticket from one atomic counter.
 * For tasks i < j (spawn order) whose dependencies conflict, the spec
 * requires j to start after i completed: end[i] < start[j].  No order is
 * asserted between non-conflicting tasks, except in the two tests that show
 * tasks the spec leaves unordered can run at once (one waits for a flag the
 * other sets; bounded wait, no timing asserted).  The bodies also change the
 * bytes they depend on; a sequential replay in spawn order must give the same
 * bytes and the same hashes of what each task read.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "locus.h"

#define MAX_TASKS 1024
#define MAX_DEPS 4
#define BUF_BYTES 512

struct dspec {
    size_t off, len;
    locus_access_t acc;
};

struct tdesc {
    int ndeps;
    struct dspec d[MAX_DEPS];
    int wait_flag;   /* 1: wait for g_flag before finishing; 2: set g_flag */
};

static unsigned char g_buf[BUF_BYTES];
static unsigned char g_ref[BUF_BYTES];
static struct tdesc g_task[MAX_TASKS];
static uint64_t g_hash[MAX_TASKS][MAX_DEPS];
static uint64_t g_ref_hash[MAX_TASKS][MAX_DEPS];
static _Atomic long g_start[MAX_TASKS], g_end[MAX_TASKS];
static _Atomic long g_ticket;
static _Atomic int g_twice;       /* a task body ran more than once */
static _Atomic int g_flag;        /* for the "may run at once" tests */
static _Atomic int g_flag_timeout;
static int g_ntasks;

static void reset(void)
{
    g_ntasks = 0;
    atomic_store(&g_ticket, 0);
    atomic_store(&g_twice, 0);
    atomic_store(&g_flag, 0);
    atomic_store(&g_flag_timeout, 0);
    for (int i = 0; i < MAX_TASKS; i++) {
        atomic_store(&g_start[i], -1);
        atomic_store(&g_end[i], -1);
    }
    for (int i = 0; i < BUF_BYTES; i++)
        g_buf[i] = g_ref[i] = (unsigned char)(i * 13 + 5);
    memset(g_hash, 0, sizeof g_hash);
    memset(g_ref_hash, 0, sizeof g_ref_hash);
}

/* The task's effect on buf, the same for the parallel run and the replay. */
static void apply(int id, unsigned char *buf, uint64_t *hash)
{
    const struct tdesc *t = &g_task[id];
    for (int k = 0; k < t->ndeps; k++) {
        unsigned char *p = buf + t->d[k].off;
        size_t n = t->d[k].len;
        switch (t->d[k].acc) {
        case LOCUS_ACCESS_IN: {
            uint64_t h = 1469598103934665603ull;
            for (size_t i = 0; i < n; i++)
                h = (h ^ p[i]) * 1099511628211ull;
            hash[k] = h;
            break;
        }
        case LOCUS_ACCESS_OUT:
            memset(p, (id * 7 + 1) & 0xff, n);
            break;
        case LOCUS_ACCESS_INOUT:
            for (size_t i = 0; i < n; i++)
                p[i] = (unsigned char)(p[i] * 3 + id);
            break;
        case LOCUS_ACCESS_CONCURRENT:
            /* commutative, so any order among concurrent tasks is equal */
            for (size_t i = 0; i < n; i++)
                __atomic_fetch_add(&p[i], (unsigned char)(id | 1), __ATOMIC_RELAXED);
            break;
        }
    }
}

/* Waits for g_flag, giving up after 20 s so a wrong order fails, not hangs. */
static void wait_flag(void)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (!atomic_load_explicit(&g_flag, memory_order_acquire)) {
        sched_yield();
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > 20) {
            atomic_store(&g_flag_timeout, 1);
            return;
        }
    }
}

static void body(void *arg)
{
    int id = *(const int *)arg;
    long expect = -1;
    long s = atomic_fetch_add(&g_ticket, 1);
    if (!atomic_compare_exchange_strong(&g_start[id], &expect, s))
        atomic_store(&g_twice, 1);
    apply(id, g_buf, g_hash[id]);
    if (id % 4 == 0)
        sched_yield();   /* widen the window for a wrongly early successor */
    if (g_task[id].wait_flag == 1)
        wait_flag();
    else if (g_task[id].wait_flag == 2)
        atomic_store_explicit(&g_flag, 1, memory_order_release);
    atomic_store(&g_end[id], atomic_fetch_add(&g_ticket, 1));
}

static int dep_conflict(const struct dspec *a, const struct dspec *b)
{
    if (a->off + a->len <= b->off || b->off + b->len <= a->off)
        return 0;
    if (a->acc == LOCUS_ACCESS_IN && b->acc == LOCUS_ACCESS_IN)
        return 0;
    if (a->acc == LOCUS_ACCESS_CONCURRENT && b->acc == LOCUS_ACCESS_CONCURRENT)
        return 0;
    return 1;
}

static int conflict(int i, int j)
{
    for (int a = 0; a < g_task[i].ndeps; a++)
        for (int b = 0; b < g_task[j].ndeps; b++)
            if (dep_conflict(&g_task[i].d[a], &g_task[j].d[b]))
                return 1;
    return 0;
}

/* Spawns a task over g_buf; deps given as (access, offset, length) triples. */
static int add_task_v(int wait_flag, int ndeps, const struct dspec *d)
{
    int id = g_ntasks++;
    locus_dep_t deps[MAX_DEPS];
    assert_true(id < MAX_TASKS);
    g_task[id].ndeps = ndeps;
    g_task[id].wait_flag = wait_flag;
    for (int k = 0; k < ndeps; k++) {
        g_task[id].d[k] = d[k];
        deps[k] = (locus_dep_t){ g_buf + d[k].off, d[k].len, d[k].acc };
    }
    assert_int_equal(locus_spawn(body, &id, sizeof id, deps, (size_t)ndeps), 0);
    return id;
}

#define D(acc, off, len) ((struct dspec){ (off), (len), LOCUS_ACCESS_##acc })
#define TASK(...)                                                           \
    add_task_v(0, (int)(sizeof((struct dspec[]){ __VA_ARGS__ }) / sizeof(struct dspec)), \
               (struct dspec[]){ __VA_ARGS__ })
#define TASK_FLAG(flag, ...)                                                \
    add_task_v((flag), (int)(sizeof((struct dspec[]){ __VA_ARGS__ }) / sizeof(struct dspec)), \
               (struct dspec[]){ __VA_ARGS__ })

/* Waits for the tasks, then checks: each ran once, every conflicting pair
 * in spawn order, and the replay gives the same bytes and read hashes. */
static void wait_and_check(void)
{
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(atomic_load(&g_twice), 0);
    for (int i = 0; i < g_ntasks; i++) {
        assert_true(atomic_load(&g_start[i]) >= 0);
        assert_true(atomic_load(&g_end[i]) > atomic_load(&g_start[i]));
    }
    for (int j = 0; j < g_ntasks; j++)
        for (int i = 0; i < j; i++)
            if (conflict(i, j) && !(atomic_load(&g_end[i]) < atomic_load(&g_start[j]))) {
                print_error("task %d started (ticket %ld) before conflicting earlier "
                            "task %d ended (ticket %ld)\n", j, atomic_load(&g_start[j]), i,
                            atomic_load(&g_end[i]));
                fail();
            }
    for (int i = 0; i < g_ntasks; i++)
        apply(i, g_ref, g_ref_hash[i]);
    assert_memory_equal(g_buf, g_ref, BUF_BYTES);
    assert_memory_equal(g_hash, g_ref_hash, sizeof g_hash);
}

/* Asserts that the spec orders i before j (a check of the test itself; the
 * order is checked by wait_and_check() for every conflicting pair). */
static void expect_before(int i, int j)
{
    assert_true(i < j);
    assert_true(conflict(i, j));
    assert_true(atomic_load(&g_end[i]) < atomic_load(&g_start[j]));
}

static void test_exact_raw_war_waw(void **state)
{
    (void)state;
    reset();
    int w0 = TASK(D(OUT, 0, 64));
    int r1 = TASK(D(IN, 0, 64));
    int w2 = TASK(D(INOUT, 0, 64));
    int w3 = TASK(D(OUT, 0, 64));
    int r4 = TASK(D(IN, 0, 64));
    int w5 = TASK(D(INOUT, 0, 64));
    wait_and_check();
    expect_before(w0, r1);   /* RAW */
    expect_before(r1, w2);   /* WAR */
    expect_before(w2, w3);   /* WAW */
    expect_before(w3, r4);
    expect_before(r4, w5);
}

static void test_partial_overlaps(void **state)
{
    (void)state;
    reset();
    int w0 = TASK(D(OUT, 0, 64));
    int r1 = TASK(D(IN, 32, 64));        /* [32,96) */
    int w2 = TASK(D(OUT, 60, 1));        /* [60,61) */
    int r3 = TASK(D(IN, 0, 1));
    int w4 = TASK(D(INOUT, 95, 105));    /* [95,200): one byte shared with r1 */
    int r5 = TASK(D(IN, 61, 1));
    int w6 = TASK(D(OUT, 64, 64));       /* adjacent to w0, overlaps r1, w4 */
    int r7 = TASK(D(IN, 59, 3));         /* [59,62) */
    wait_and_check();
    expect_before(w0, r1);
    expect_before(r1, w2);
    expect_before(w0, w2);
    expect_before(w0, r3);
    expect_before(r1, w4);
    expect_before(w0, r5);
    expect_before(r1, w6);
    expect_before(w4, w6);
    expect_before(w2, r7);
    assert_false(conflict(w0, w6));
    assert_false(conflict(w2, r5));
}

static void test_reader_covers_writers(void **state)
{
    (void)state;
    reset();
    int w0 = TASK(D(OUT, 0, 16));
    int w1 = TASK(D(OUT, 16, 16));
    int w2 = TASK(D(INOUT, 32, 16));
    int r3 = TASK(D(IN, 0, 48));
    int w4 = TASK(D(OUT, 8, 32));
    /* a writer covering several readers */
    int r5 = TASK(D(IN, 100, 10));
    int r6 = TASK(D(IN, 110, 10));
    int r7 = TASK(D(IN, 105, 10));
    int w8 = TASK(D(OUT, 100, 20));
    /* several dependencies in one task */
    int t9 = TASK(D(IN, 0, 10), D(INOUT, 100, 4), D(OUT, 200, 8));
    int t10 = TASK(D(IN, 204, 8), D(IN, 102, 1));
    wait_and_check();
    expect_before(w0, r3);
    expect_before(w1, r3);
    expect_before(w2, r3);
    expect_before(r3, w4);
    expect_before(r5, w8);
    expect_before(r6, w8);
    expect_before(r7, w8);
    expect_before(w8, t9);
    expect_before(w4, t9);
    expect_before(t9, t10);
}

static void test_nested_ranges(void **state)
{
    (void)state;
    reset();
    int w0 = TASK(D(OUT, 0, 256));
    int w1 = TASK(D(INOUT, 64, 64));
    int w2 = TASK(D(INOUT, 80, 16));
    int r3 = TASK(D(IN, 88, 1));
    int r4 = TASK(D(IN, 0, 256));
    int w5 = TASK(D(INOUT, 88, 1));
    int w6 = TASK(D(OUT, 0, 256));
    int r7 = TASK(D(IN, 81, 2));
    wait_and_check();
    expect_before(w0, w1);
    expect_before(w1, w2);
    expect_before(w2, r3);
    expect_before(w2, r4);
    expect_before(r3, w5);
    expect_before(r4, w5);
    expect_before(w5, w6);
    expect_before(w6, r7);
}

static void test_concurrent_group(void **state)
{
    (void)state;
    reset();
    int w0 = TASK(D(OUT, 0, 32));
    int c[6], c2[3];
    for (int i = 0; i < 6; i++)
        c[i] = TASK(D(CONCURRENT, 0, 32));
    int r7 = TASK(D(IN, 0, 32));
    for (int i = 0; i < 3; i++)
        c2[i] = TASK(D(CONCURRENT, 0, 32));
    int w11 = TASK(D(OUT, 0, 32));
    /* partially overlapping concurrent ranges, then a reader of both */
    int c12 = TASK(D(CONCURRENT, 100, 16));
    int c13 = TASK(D(CONCURRENT, 108, 16));
    int r14 = TASK(D(IN, 100, 24));
    int c15 = TASK(D(CONCURRENT, 100, 24));
    int w16 = TASK(D(INOUT, 110, 1));
    wait_and_check();
    for (int i = 0; i < 6; i++) {
        expect_before(w0, c[i]);
        expect_before(c[i], r7);
        assert_false(conflict(c[i], c[(i + 1) % 6]));
    }
    for (int i = 0; i < 3; i++) {
        expect_before(r7, c2[i]);
        expect_before(c2[i], w11);
    }
    expect_before(c12, r14);
    expect_before(c13, r14);
    expect_before(r14, c15);
    expect_before(c15, w16);
}

static void test_in_group_and_out_writer(void **state)
{
    (void)state;
    reset();
    int w0 = TASK(D(OUT, 0, 40));
    int r[8];
    for (int i = 0; i < 8; i++)
        r[i] = TASK(D(IN, (size_t)i, 40 - (size_t)i));
    int o9 = TASK(D(OUT, 0, 40));     /* OUT after readers: WAR */
    int o10 = TASK(D(OUT, 20, 40));   /* OUT after OUT: WAW */
    int c11 = TASK(D(CONCURRENT, 30, 4));
    int o12 = TASK(D(OUT, 31, 1));    /* OUT after CONCURRENT */
    int r13 = TASK(D(IN, 0, 64));
    wait_and_check();
    for (int i = 0; i < 8; i++) {
        expect_before(w0, r[i]);
        expect_before(r[i], o9);
    }
    expect_before(o9, o10);
    expect_before(o10, c11);
    expect_before(c11, o12);
    expect_before(o12, r13);
    expect_before(o9, r13);
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

static void test_random_graphs(void **state)
{
    (void)state;
    static const locus_access_t modes[4] = { LOCUS_ACCESS_IN, LOCUS_ACCESS_OUT,
                                             LOCUS_ACCESS_INOUT, LOCUS_ACCESS_CONCURRENT };
    for (uint64_t seed = 1; seed <= 6; seed++) {
        uint64_t s = seed * 0x9e3779b97f4a7c15ull;
        reset();
        int n = 300 + (int)(rng_next(&s) % 300);
        for (int t = 0; t < n; t++) {
            struct dspec d[MAX_DEPS];
            int nd = 1 + (int)(rng_next(&s) % MAX_DEPS);
            for (int k = 0; k < nd; k++) {
                /* a small range so exact repeats and partial overlaps are common */
                size_t off = (size_t)(rng_next(&s) % 24) * 8 + rng_next(&s) % 3;
                size_t len = 1 + (size_t)(rng_next(&s) % 48);
                d[k] = (struct dspec){ off, len, modes[rng_next(&s) % 4] };
            }
            add_task_v(0, nd, d);
        }
        wait_and_check();
    }
}

/* Tasks the spec leaves unordered must be able to run at the same time:
 * the first waits for a flag the second sets.  Needs 2 workers. */
static void test_disjoint_may_run_at_once(void **state)
{
    (void)state;
    if (locus_num_workers() < 2) {
        print_message("skipping: needs LOCUS_THREADS >= 2\n");
        skip();
    }
    reset();
    int a = TASK_FLAG(1, D(OUT, 0, 8));
    int b = TASK_FLAG(2, D(OUT, 8, 8));
    int c = TASK(D(INOUT, 0, 16));
    wait_and_check();
    assert_int_equal(atomic_load(&g_flag_timeout), 0);
    expect_before(a, c);
    expect_before(b, c);
}

static void test_readers_may_run_at_once(void **state)
{
    (void)state;
    if (locus_num_workers() < 2) {
        print_message("skipping: needs LOCUS_THREADS >= 2\n");
        skip();
    }
    reset();
    int w0 = TASK(D(OUT, 0, 16));
    int r1 = TASK_FLAG(1, D(IN, 0, 16));
    int r2 = TASK_FLAG(2, D(IN, 4, 8));
    int w3 = TASK(D(OUT, 0, 16));
    wait_and_check();
    assert_int_equal(atomic_load(&g_flag_timeout), 0);
    expect_before(w0, r1);
    expect_before(w0, r2);
    expect_before(r1, w3);
    expect_before(r2, w3);
}

static int group_setup(void **state)
{
    (void)state;
    setenv("LOCUS_THREADS", "4", 0);   /* a caller's value wins */
    int rc = locus_init();
    if (rc != 0)
        fprintf(stderr, "locus_init: %s (%s)\n", locus_strerror(rc), locus_error_message());
    return rc == 0 ? 0 : -1;
}

/*
 * The "may run at once" tests ask that unordered tasks, once queued, can
 * run side by side.  A task ready at spawn may also run on its spawner
 * before locus_spawn() returns (locus_spawn(3): short recent bodies,
 * LOCUS_GRAIN_NS), and the first of such a pair then waits for a sibling
 * not yet spawned: that is the documented contract, not a scheduling
 * fault.  So these tests run in a runtime of their own with that feature
 * off, where queuing is the only path (fewer than 64 tasks queued).
 */
static int queued_setup(void **state)
{
    setenv("LOCUS_GRAIN_NS", "0", 1);   /* read once, by locus_init() */
    return group_setup(state);
}

static int group_teardown(void **state)
{
    (void)state;
    return locus_finalize() == 0 ? 0 : -1;
}

static void on_alarm(int sig)
{
    static const char msg[] = "test_api_deps: watchdog expired (deadlock?)\n";
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0) { /* nothing more to do */ }
    _exit(124);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_raw_war_waw),
        cmocka_unit_test(test_partial_overlaps),
        cmocka_unit_test(test_reader_covers_writers),
        cmocka_unit_test(test_nested_ranges),
        cmocka_unit_test(test_concurrent_group),
        cmocka_unit_test(test_in_group_and_out_writer),
        cmocka_unit_test(test_random_graphs),
    };
    const struct CMUnitTest queued[] = {
        cmocka_unit_test(test_disjoint_may_run_at_once),
        cmocka_unit_test(test_readers_may_run_at_once),
    };
    const char *san = getenv("LOCUS_TEST_SANITIZER");
    signal(SIGALRM, on_alarm);
    alarm(san && *san ? 600 : 120);
    int failed = cmocka_run_group_tests(tests, group_setup, group_teardown);
    failed += cmocka_run_group_tests(queued, queued_setup, group_teardown);
    return failed;
}
