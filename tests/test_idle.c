/*
 * test_idle.c - an idle runtime uses no CPU: once there is no work, every
 * worker thread ends up asleep on its node's futex (checked through the
 * runtime's sleeper counts, not through timings), also when there are more
 * workers than cores; and sleeping workers wake up for new work.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <cmocka.h>

#include "locus.h"
#include "runtime.h"

static int sleepers(void)
{
    int n = 0;
    for (int i = 0; i < lc_rt->topo.nnodes; i++)
        n += atomic_load(&lc_rt->nsync[i].nsleepers);
    return n;
}

/* Waits (bounded) until every worker but the initial thread sleeps. */
static int all_asleep(void)
{
    struct timespec ms = { 0, 1000000 };
    for (int i = 0; i < 20000; i++) {
        if (sleepers() == locus_num_workers() - 1)
            return 1;
        nanosleep(&ms, NULL);
    }
    return 0;
}

static atomic_int ran;
static void body(void *arg)
{
    (void)arg;
    atomic_fetch_add(&ran, 1);
}

static void run_case(const char *threads, const char *topology)
{
    setenv("LOCUS_THREADS", threads, 1);
    setenv("LOCUS_SPIN", "200", 1);
    if (topology)
        setenv("LOCUS_TOPOLOGY", topology, 1);
    else
        unsetenv("LOCUS_TOPOLOGY");
    assert_int_equal(locus_init(), 0);
    assert_true(all_asleep());
    for (int round = 0; round < 3; round++) {
        atomic_store(&ran, 0);
        for (int i = 0; i < 1000; i++)
            assert_int_equal(locus_spawn(body, NULL, 0, NULL, 0), 0);
        assert_int_equal(locus_taskwait(), 0);
        assert_int_equal(atomic_load(&ran), 1000);
        assert_true(all_asleep());       /* and back to sleep */
    }
    assert_int_equal(locus_finalize(), 0);
}

static void test_idle_sleeps(void **state)
{
    (void)state;
    run_case("2", NULL);
}

static void test_idle_sleeps_oversubscribed(void **state)
{
    (void)state;
    run_case("8", NULL);
}

static void test_idle_sleeps_on_every_node(void **state)
{
    (void)state;
    setenv("LOCUS_REGIME", "naft", 1);
    run_case("6", "4s");
    unsetenv("LOCUS_REGIME");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idle_sleeps),
        cmocka_unit_test(test_idle_sleeps_oversubscribed),
        cmocka_unit_test(test_idle_sleeps_on_every_node),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
