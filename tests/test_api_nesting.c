/*
 * test_api_nesting.c - nested tasks through the public API only: tasks
 * spawning tasks, taskwait, deep recursion, dependencies that order siblings
 * only, a task's completion including its children's, worker identity and
 * counts, the arg copy rule, and init/finalize repeated in one process.
 * Task bodies never call cmocka asserts (they may run on other threads); they
 * count failures in atomics that the test thread checks.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "locus.h"

static _Atomic int g_bad;        /* failures seen inside task bodies */
static _Atomic long g_ticket;

static int sanitizer(void)
{
    const char *s = getenv("LOCUS_TEST_SANITIZER");
    return s && *s;
}

static void yield_a_while(int n)
{
    for (int i = 0; i < n; i++)
        sched_yield();
}

/* ---- children and taskwait ---- */

struct sq_arg { long *out; long i; };

static void square_body(void *arg)
{
    const struct sq_arg *a = arg;
    if (a->i % 3 == 0)
        yield_a_while(2);
    *a->out = a->i * a->i;
}

static void sum_children_body(void *arg)
{
    const struct sq_arg *a = arg;
    long part[10];
    for (long k = 0; k < 10; k++) {
        struct sq_arg c = { &part[k], a->i * 10 + k };
        if (locus_spawn(square_body, &c, sizeof c, NULL, 0) != 0)
            atomic_fetch_add(&g_bad, 1);
    }
    if (locus_taskwait() != 0)
        atomic_fetch_add(&g_bad, 1);
    long s = 0;
    for (int k = 0; k < 10; k++)
        s += part[k];
    *a->out = s;
}

static void test_children_and_taskwait(void **state)
{
    (void)state;
    enum { N = 100 };
    static long out[N];
    atomic_store(&g_bad, 0);
    for (long i = 0; i < N; i++) {
        out[i] = -1;
        struct sq_arg a = { &out[i], i };
        assert_int_equal(locus_spawn(sum_children_body, &a, sizeof a, NULL, 0), 0);
    }
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(atomic_load(&g_bad), 0);
    for (long i = 0; i < N; i++) {
        long s = 0;
        for (long k = 0; k < 10; k++)
            s += (i * 10 + k) * (i * 10 + k);
        assert_int_equal(out[i], s);
    }
    /* a taskwait with no children returns at once */
    assert_int_equal(locus_taskwait(), 0);
}

/* ---- deep recursion ---- */

struct fib_arg { int n; long *out; };

static void fib_body(void *arg)
{
    const struct fib_arg *a = arg;
    if (a->n < 2) {
        *a->out = a->n;
        return;
    }
    long x = -1, y = -1;
    struct fib_arg l = { a->n - 1, &x }, r = { a->n - 2, &y };
    if (locus_spawn(fib_body, &l, sizeof l, NULL, 0) != 0 ||
        locus_spawn(fib_body, &r, sizeof r, NULL, 0) != 0 || locus_taskwait() != 0)
        atomic_fetch_add(&g_bad, 1);
    *a->out = x + y;
}

static void test_fib_recursion(void **state)
{
    (void)state;
    int n = sanitizer() ? 15 : 21;   /* 2 * fib(n + 1) - 1 tasks: ~35k normally */
    long want[2] = { 0, 1 };
    for (int i = 2; i <= n; i++) {
        long t = want[0] + want[1];
        want[0] = want[1];
        want[1] = t;
    }
    long got = -1;
    struct fib_arg a = { n, &got };
    atomic_store(&g_bad, 0);
    assert_int_equal(locus_spawn(fib_body, &a, sizeof a, NULL, 0), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(atomic_load(&g_bad), 0);
    assert_int_equal(got, want[1]);
}

/* ---- completion includes children ---- */

static long g_x;
static long g_seen_by_b;
static long g_grandchild_end, g_b_start;

static void grandchild_inc_body(void *arg)
{
    (void)arg;
    yield_a_while(20);
    g_x += 1;
    g_grandchild_end = atomic_fetch_add(&g_ticket, 1);
}

/* child of A: writes x under its own OUT, then a grandchild increments it */
static void child_write_body(void *arg)
{
    (void)arg;
    yield_a_while(20);
    g_x = 42;
    if (locus_task(grandchild_inc_body, NULL, 0, LOCUS_INOUT(&g_x, sizeof g_x)) != 0)
        atomic_fetch_add(&g_bad, 1);
}

/* child of A without any dependency: still part of A's completion */
static void child_nodeps_body(void *arg)
{
    (void)arg;
    yield_a_while(20);
    g_x = 42;
    if (locus_spawn(grandchild_inc_body, NULL, 0, NULL, 0) != 0)
        atomic_fetch_add(&g_bad, 1);
}

static void parent_a_body(void *arg)
{
    int with_deps = *(const int *)arg;
    int rc = with_deps ? locus_task(child_write_body, NULL, 0, LOCUS_OUT(&g_x, sizeof g_x))
                       : locus_spawn(child_nodeps_body, NULL, 0, NULL, 0);
    if (rc != 0)
        atomic_fetch_add(&g_bad, 1);
    /* no taskwait: A's body returns before its children have run */
}

static void reader_b_body(void *arg)
{
    (void)arg;
    g_b_start = atomic_fetch_add(&g_ticket, 1);
    g_seen_by_b = g_x;
}

static void test_completion_includes_children(void **state)
{
    (void)state;
    for (int with_deps = 0; with_deps < 2; with_deps++) {
        for (int rep = 0; rep < 20; rep++) {
            g_x = 0;
            g_seen_by_b = -1;
            atomic_store(&g_bad, 0);
            assert_int_equal(locus_task(parent_a_body, &with_deps, sizeof with_deps,
                                        LOCUS_OUT(&g_x, sizeof g_x)), 0);
            assert_int_equal(locus_task(reader_b_body, NULL, 0, LOCUS_IN(&g_x, sizeof g_x)), 0);
            assert_int_equal(locus_taskwait(), 0);
            assert_int_equal(atomic_load(&g_bad), 0);
            assert_int_equal(g_seen_by_b, 43);
            assert_true(g_grandchild_end < g_b_start);
            assert_int_equal(g_x, 43);
        }
    }
}

/* taskwait waits for grandchildren too (a child is complete only when its
 * own children are) */
static long g_deep_value;

static void chain_body(void *arg)
{
    int depth = *(const int *)arg;
    if (depth == 0) {
        yield_a_while(30);
        g_deep_value = 7;
        return;
    }
    int next = depth - 1;
    if (locus_spawn(chain_body, &next, sizeof next, NULL, 0) != 0)
        atomic_fetch_add(&g_bad, 1);
}

static void test_taskwait_includes_grandchildren(void **state)
{
    (void)state;
    for (int rep = 0; rep < 20; rep++) {
        int depth = 1 + rep % 6;
        g_deep_value = 0;
        atomic_store(&g_bad, 0);
        assert_int_equal(locus_spawn(chain_body, &depth, sizeof depth, NULL, 0), 0);
        assert_int_equal(locus_taskwait(), 0);
        assert_int_equal(atomic_load(&g_bad), 0);
        assert_int_equal(g_deep_value, 7);
    }
}

/* ---- dependencies order siblings only ---- */

static long g_y[4];
static long g_child_log[3];

static void sib_c1(void *arg) { (void)arg; yield_a_while(10); g_y[0] = g_y[0] * 10 + 1; }
static void sib_c2(void *arg) { (void)arg; g_child_log[1] = g_y[0]; }
static void sib_c3(void *arg) { (void)arg; g_y[0] = g_y[0] * 10 + 3; }

/* Children use the same range as their parent: they must not wait for the
 * parent (a deadlock, caught by the watchdog) and are ordered among
 * themselves in spawn order. */
static void parent_same_range_body(void *arg)
{
    (void)arg;
    g_y[0] = 5;
    if (locus_task(sib_c1, NULL, 0, LOCUS_INOUT(&g_y[0], sizeof g_y[0])) != 0 ||
        locus_task(sib_c2, NULL, 0, LOCUS_IN(&g_y[0], sizeof g_y[0])) != 0 ||
        locus_task(sib_c3, NULL, 0, LOCUS_OUT(&g_y[0], sizeof g_y[0])) != 0 ||
        locus_taskwait() != 0)
        atomic_fetch_add(&g_bad, 1);
    g_child_log[2] = g_y[0];
}

static void test_child_deps_order_siblings_only(void **state)
{
    (void)state;
    for (int rep = 0; rep < 20; rep++) {
        atomic_store(&g_bad, 0);
        assert_int_equal(locus_task(parent_same_range_body, NULL, 0,
                                    LOCUS_INOUT(&g_y[0], sizeof g_y[0])), 0);
        assert_int_equal(locus_taskwait(), 0);
        assert_int_equal(atomic_load(&g_bad), 0);
        assert_int_equal(g_child_log[1], 51);
        assert_int_equal(g_child_log[2], 513);
    }
}

static _Atomic int g_flag, g_flag_timeout;

static void wait_flag_body(void *arg)
{
    (void)arg;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (!atomic_load(&g_flag)) {
        sched_yield();
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > 20) {
            atomic_store(&g_flag_timeout, 1);
            return;
        }
    }
}

static void set_flag_body(void *arg) { (void)arg; atomic_store(&g_flag, 1); }

static void parent_other_range_body(void *arg)
{
    (void)arg;
    /* conflicts with the parent's earlier sibling on g_y[1], but that task is
     * not its sibling: it must not wait for it */
    if (locus_task(set_flag_body, NULL, 0, LOCUS_INOUT(&g_y[1], sizeof g_y[1])) != 0)
        atomic_fetch_add(&g_bad, 1);
}

static void test_child_not_ordered_after_uncle(void **state)
{
    (void)state;
    if (locus_num_workers() < 2) {
        print_message("skipping: needs LOCUS_THREADS >= 2\n");
        skip();
    }
    atomic_store(&g_flag, 0);
    atomic_store(&g_flag_timeout, 0);
    atomic_store(&g_bad, 0);
    assert_int_equal(locus_task(wait_flag_body, NULL, 0, LOCUS_INOUT(&g_y[1], sizeof g_y[1])), 0);
    assert_int_equal(locus_task(parent_other_range_body, NULL, 0,
                                LOCUS_INOUT(&g_y[2], sizeof g_y[2])), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(atomic_load(&g_bad), 0);
    assert_int_equal(atomic_load(&g_flag_timeout), 0);
}

/* ---- worker identity ---- */

static int g_nworkers, g_nnodes;

static void id_body(void *arg)
{
    (void)arg;
    int w = locus_worker_id(), n = locus_worker_node();
    if (w < 0 || w >= g_nworkers || n < 0 || n >= g_nnodes)
        atomic_fetch_add(&g_bad, 1);
    if (locus_num_workers() != g_nworkers || locus_num_nodes() != g_nnodes)
        atomic_fetch_add(&g_bad, 1);
}

static void *foreign_thread(void *arg)
{
    int *r = arg;
    r[0] = locus_worker_id();
    r[1] = locus_worker_node();
    return NULL;
}

static void test_worker_ids(void **state)
{
    (void)state;
    g_nworkers = locus_num_workers();
    g_nnodes = locus_num_nodes();
    assert_true(g_nworkers >= 1 && g_nworkers <= 4096);
    assert_true(g_nnodes >= 1 && g_nnodes <= 4096);
    assert_int_equal(locus_worker_id(), 0);   /* the initial thread is worker 0 */
    assert_true(locus_worker_node() >= 0 && locus_worker_node() < g_nnodes);
    atomic_store(&g_bad, 0);
    for (int i = 0; i < 500; i++)
        assert_int_equal(locus_spawn(id_body, NULL, 0, NULL, 0), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(atomic_load(&g_bad), 0);

    pthread_t th;
    int r[2] = { 99, 99 };
    assert_int_equal(pthread_create(&th, NULL, foreign_thread, r), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(r[0], -1);
    assert_int_equal(r[1], -1);
}

/* ---- arg copy ---- */

struct big_arg {
    uint64_t tag;
    double d;
    unsigned char bytes[1000];
};

static struct big_arg g_copy_seen;
static const void *g_ptr_seen;

static void copy_body(void *arg)
{
    const struct big_arg *a = arg;
    g_ptr_seen = arg;
    if ((uintptr_t)arg % _Alignof(uint64_t) != 0) {
        atomic_fetch_add(&g_bad, 1);   /* a copy must be usable as the type copied */
        return;
    }
    yield_a_while(5);
    memcpy(&g_copy_seen, a, sizeof g_copy_seen);
}

static void ptr_body(void *arg)
{
    g_ptr_seen = arg;
}

static void test_arg_copy(void **state)
{
    (void)state;
    struct big_arg *buf = malloc(sizeof *buf);
    assert_non_null(buf);
    for (int rep = 0; rep < 10; rep++) {
        buf->tag = 0x1234567890abcdefull + (uint64_t)rep;
        buf->d = 2.5 * rep;
        for (size_t i = 0; i < sizeof buf->bytes; i++)
            buf->bytes[i] = (unsigned char)(i + (size_t)rep);
        struct big_arg want = *buf;
        atomic_store(&g_bad, 0);
        assert_int_equal(locus_spawn(copy_body, buf, sizeof *buf, NULL, 0), 0);
        memset(buf, 0xee, sizeof *buf);   /* must not reach the task */
        assert_int_equal(locus_taskwait(), 0);
        assert_int_equal(atomic_load(&g_bad), 0);
        assert_ptr_not_equal(g_ptr_seen, buf);
        assert_memory_equal(&g_copy_seen, &want, sizeof want);
    }
    free(buf);

    /* arg_size == 0: the pointer itself, not a copy (even NULL) */
    static int obj = 5;
    g_ptr_seen = NULL;
    assert_int_equal(locus_spawn(ptr_body, &obj, 0, NULL, 0), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_ptr_equal(g_ptr_seen, &obj);
    g_ptr_seen = &obj;
    assert_int_equal(locus_spawn(ptr_body, NULL, 0, NULL, 0), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_null(g_ptr_seen);
}

/* ---- init / finalize repeated ---- */

static _Atomic int g_ran;

static void count_body(void *arg)
{
    (void)arg;
    atomic_fetch_add(&g_ran, 1);
}

static void test_init_finalize_repeated(void **state)
{
    (void)state;
    static const char *threads[] = { "1", "2", "3", "1", "4", "2" };
    char *saved = getenv("LOCUS_THREADS") ? strdup(getenv("LOCUS_THREADS")) : NULL;
    for (int i = 0; i < 6; i++) {
        setenv("LOCUS_THREADS", threads[i], 1);
        int rc = locus_init();
        if (rc != 0)
            print_error("locus_init #%d: %s (%s)\n", i, locus_strerror(rc), locus_error_message());
        assert_int_equal(rc, 0);
        assert_int_equal(locus_num_workers(), atoi(threads[i]));
        atomic_store(&g_ran, 0);
        for (int k = 0; k < 100 * (i + 1); k++)
            assert_int_equal(locus_spawn(count_body, NULL, 0, NULL, 0), 0);
        if (i % 2 == 0)
            assert_int_equal(locus_taskwait(), 0);
        /* odd rounds: finalize itself must wait for every task */
        assert_int_equal(locus_finalize(), 0);
        assert_int_equal(atomic_load(&g_ran), 100 * (i + 1));
        assert_int_equal(locus_num_workers(), -EPERM);
    }
    if (saved) {
        setenv("LOCUS_THREADS", saved, 1);
        free(saved);
    } else {
        unsetenv("LOCUS_THREADS");
    }
}

static int setup_init(void **state)
{
    (void)state;
    int rc = locus_init();
    if (rc != 0)
        fprintf(stderr, "locus_init: %s (%s)\n", locus_strerror(rc), locus_error_message());
    return rc == 0 ? 0 : -1;
}

static int teardown_fini(void **state)
{
    (void)state;
    return locus_finalize() == 0 ? 0 : -1;
}

static int group_setup(void **state)
{
    (void)state;
    setenv("LOCUS_THREADS", "4", 0);   /* a caller's value wins */
    return 0;
}

static void on_alarm(int sig)
{
    static const char msg[] = "test_api_nesting: watchdog expired (deadlock?)\n";
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0) { /* nothing more to do */ }
    _exit(124);
}

#define RT_TEST(f) cmocka_unit_test_setup_teardown(f, setup_init, teardown_fini)

int main(void)
{
    const struct CMUnitTest tests[] = {
        RT_TEST(test_children_and_taskwait),
        RT_TEST(test_fib_recursion),
        RT_TEST(test_completion_includes_children),
        RT_TEST(test_taskwait_includes_grandchildren),
        RT_TEST(test_child_deps_order_siblings_only),
        RT_TEST(test_child_not_ordered_after_uncle),
        RT_TEST(test_worker_ids),
        RT_TEST(test_arg_copy),
        cmocka_unit_test(test_init_finalize_repeated),
    };
    signal(SIGALRM, on_alarm);
    alarm(sanitizer() ? 600 : 120);
    return cmocka_run_group_tests(tests, group_setup, NULL);
}
