/*
 * test_reduction.c - native task reductions (locus_reduction_create,
 * locus_reduction_local, locus_reduction_finish and locus_spawn_attr's
 * attr->reduction), in every regime on several workers:
 *  - many tasks, some spawning children that take part too, some with
 *    dependencies, add into a sum: the result equals the serial sum, the
 *    target's starting value included, and no worker made two copies;
 *  - an init function (a max reduction starts at INT64_MIN), a large
 *    argument block (past the wrapper's stack buffer) reaching the body
 *    intact, and a NULL-with-size-0 argument passed through;
 *  - two reductions open at once stay apart;
 *  - bad input: every error is negative errno with a message, and spawns
 *    nothing.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "locus.h"

enum { NTASKS = 4000, NCHILD = 3 };

static locus_reduction_t *sum_red, *max_red;
static atomic_int inits;   /* copies made by init functions */

static void add(void *into, const void *from)
{
    *(long long *)into += *(const long long *)from;
}

static void init_max(void *p)
{
    atomic_fetch_add(&inits, 1);
    *(long long *)p = INT64_MIN;
}

static void max_of(void *into, const void *from)
{
    long long f = *(const long long *)from;
    if (f > *(long long *)into)
        *(long long *)into = f;
}

static void child(void *arg)
{
    long long *s = locus_reduction_local(sum_red);
    assert_non_null(s);
    *s += *(int *)arg;
}

static void parent(void *arg)
{
    int i = *(int *)arg;
    long long *s = locus_reduction_local(sum_red);
    assert_non_null(s);
    *s += i;
    if (i % 97 == 0) {
        /* children spawned with the reduction take part too */
        locus_task_attr_t a = LOCUS_TASK_ATTR_INIT;
        a.reduction = sum_red;
        for (int c = 0; c < NCHILD; c++) {
            int v = 100000 + c;
            assert_int_equal(locus_spawn_attr(child, &v, sizeof v, NULL, 0, &a), 0);
        }
    }
    long long *m = locus_reduction_local(max_red);
    assert_non_null(m);
    if ((long long)(i % 1013) * 3 > *m)
        *m = (long long)(i % 1013) * 3;
}

static void start(const char *regime, const char *topology)
{
    setenv("LOCUS_REGIME", regime, 1);
    setenv("LOCUS_THREADS", "4", 1);
    if (topology)
        setenv("LOCUS_TOPOLOGY", topology, 1);
    else
        unsetenv("LOCUS_TOPOLOGY");
    assert_int_equal(locus_init(), 0);
}

static void sum_in(const char *regime, const char *topology)
{
    start(regime, topology);
    long long sum = 7, max = -5, expect = 7, expect_max = -5;
    atomic_store(&inits, 0);
    assert_int_equal(locus_reduction_create(&sum_red, &sum, sizeof sum, NULL, add), 0);
    assert_int_equal(locus_reduction_create(&max_red, &max, sizeof max, init_max, max_of), 0);
    locus_task_attr_t a = LOCUS_TASK_ATTR_INIT;
    a.reduction = sum_red;
    static char cell[64];
    for (int i = 0; i < NTASKS; i++) {
        /* some in a dependency chain, which must not change the sum */
        locus_dep_t d = LOCUS_INOUT(&cell[i % 4], 1);
        assert_int_equal(locus_spawn_attr(parent, &i, sizeof i, &d, i % 3 == 0, &a), 0);
        expect += i;
        if (i % 97 == 0)
            expect += NCHILD * 100000 + NCHILD * (NCHILD - 1) / 2;
        if ((long long)(i % 1013) * 3 > expect_max)
            expect_max = (long long)(i % 1013) * 3;
    }
    /* max_red's tasks are sum_red's: finishing sum first waits for them */
    assert_int_equal(locus_reduction_finish(sum_red), 0);
    assert_int_equal(locus_reduction_finish(max_red), 0);
    assert_true(sum == expect);
    assert_true(max == expect_max);
    /* one copy per worker that used it, at most */
    assert_true(atomic_load(&inits) >= 1 && atomic_load(&inits) <= locus_num_workers());
    assert_int_equal(locus_finalize(), 0);
}

static void test_sum_dft(void **s) { (void)s; sum_in("dft", NULL); }
static void test_sum_naft(void **s) { (void)s; sum_in("naft", NULL); }
static void test_sum_naft_4s(void **s) { (void)s; sum_in("naft", "4s"); }
static void test_sum_di(void **s) { (void)s; sum_in("di", "2s"); }

/* ---- argument blocks through the wrapper ---- */
struct big { int tag; char bytes[1000]; int tail; };
static locus_reduction_t *cnt_red;

static void big_task(void *arg)
{
    const struct big *b = arg;
    int ok = b->tag == 42 && b->tail == 4242 && b->bytes[999] == 9;
    *(long long *)locus_reduction_local(cnt_red) += ok;
}

static void null_task(void *arg)
{
    *(long long *)locus_reduction_local(cnt_red) += arg == &cnt_red;
}

static void test_args(void **s)
{
    (void)s;
    start("dft", NULL);
    long long n = 0;
    assert_int_equal(locus_reduction_create(&cnt_red, &n, sizeof n, NULL, add), 0);
    locus_task_attr_t a = LOCUS_TASK_ATTR_INIT;
    a.reduction = cnt_red;
    struct big b = { .tag = 42, .tail = 4242 };
    b.bytes[999] = 9;
    for (int i = 0; i < 50; i++) {
        assert_int_equal(locus_spawn_attr(big_task, &b, sizeof b, NULL, 0, &a), 0);
        /* a pointer passed with size 0 reaches the body as it is */
        assert_int_equal(locus_spawn_attr(null_task, &cnt_red, 0, NULL, 0, &a), 0);
    }
    assert_int_equal(locus_reduction_finish(cnt_red), 0);
    assert_true(n == 100);
    assert_int_equal(locus_finalize(), 0);
}

/* ---- bad input ---- */
static atomic_int ran;
static void count(void *arg) { (void)arg; atomic_fetch_add(&ran, 1); }

static void test_errors(void **s)
{
    (void)s;
    long long x = 0;
    locus_reduction_t *r = NULL;
    /* no runtime */
    assert_int_equal(locus_reduction_create(&r, &x, sizeof x, NULL, add), -EPERM);
    assert_null(locus_reduction_local(r));
    start("dft", NULL);
    assert_int_equal(locus_reduction_create(NULL, &x, sizeof x, NULL, add), -EINVAL);
    assert_int_equal(locus_reduction_create(&r, NULL, sizeof x, NULL, add), -EINVAL);
    assert_int_equal(locus_reduction_create(&r, &x, 0, NULL, add), -EINVAL);
    assert_int_equal(locus_reduction_create(&r, &x, sizeof x, NULL, NULL), -EINVAL);
    assert_non_null(strstr(locus_error_message(), "combine"));
    assert_int_equal(locus_reduction_finish(NULL), -EINVAL);
    assert_null(locus_reduction_local(NULL));

    /* not a reduction: refused, nothing runs */
    unsigned char junk[256] = { 0 };
    locus_task_attr_t a = LOCUS_TASK_ATTR_INIT;
    a.reduction = (locus_reduction_t *)junk;
    atomic_store(&ran, 0);
    assert_int_equal(locus_spawn_attr(count, NULL, 0, NULL, 0, &a), -EINVAL);
    assert_non_null(strstr(locus_error_message(), "not an open reduction"));
    assert_int_equal(locus_reduction_finish((locus_reduction_t *)junk), -EINVAL);

    /* a real one with bad spawn arguments: refused, its count untouched
     * (finish would wait forever otherwise: the watchdog would say so) */
    assert_int_equal(locus_reduction_create(&r, &x, sizeof x, NULL, add), 0);
    a.reduction = r;
    assert_int_equal(locus_spawn_attr(NULL, NULL, 0, NULL, 0, &a), -EINVAL);
    assert_int_equal(locus_spawn_attr(count, NULL, 8, NULL, 0, &a), -EINVAL);
    assert_int_equal(locus_spawn_attr(count, NULL, 0, NULL, 3, &a), -EINVAL);
    a.priority = -1;
    assert_int_equal(locus_spawn_attr(count, NULL, 0, NULL, 0, &a), -EINVAL);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(atomic_load(&ran), 0);
    assert_int_equal(locus_reduction_finish(r), 0);
    assert_true(x == 0);
    assert_int_equal(locus_finalize(), 0);
}

static int teardown_stop(void **state)
{
    (void)state;
    int rc = locus_finalize();
    return rc == 0 || rc == -EPERM ? 0 : -1;
}

static void on_alarm(int sig)
{
    static const char msg[] = "test_reduction: watchdog expired (deadlock?)\n";
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0) { /* nothing more to do */ }
    _exit(124);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_sum_dft, teardown_stop),
        cmocka_unit_test_teardown(test_sum_naft, teardown_stop),
        cmocka_unit_test_teardown(test_sum_naft_4s, teardown_stop),
        cmocka_unit_test_teardown(test_sum_di, teardown_stop),
        cmocka_unit_test_teardown(test_args, teardown_stop),
        cmocka_unit_test_teardown(test_errors, teardown_stop),
    };
    const char *san = getenv("LOCUS_TEST_SANITIZER");
    signal(SIGALRM, on_alarm);
    alarm(san && *san ? 600 : 120);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
