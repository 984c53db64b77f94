/*
 * test_idle.c - an idle runtime uses no CPU: once there is no work, every
 * worker thread ends up asleep on its node's futex (checked through the
 * runtime's sleeper counts, not through timings), also when there are more
 * workers than cores; and sleeping workers wake up for new work, also
 * for a task pushed on a busy worker's own deque.  test_wakeup.c hammers
 * the race of that handshake (runtime/wait.c).  And a start loads nothing
 * the program cannot use: without PAPI in the process (the plain build
 * of this test is not linked with it), libsde, which only PAPI reads,
 * stays out (runtime/counters/sde.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Whether a library whose file name contains name is mapped here. */
static int mapped(const char *name)
{
    FILE *f = fopen("/proc/self/maps", "r");
    assert_non_null(f);
    char line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, name) != NULL;
    fclose(f);
    return found;
}

static void test_no_libsde_without_papi(void **state)
{
    (void)state;
    /* the premise: PAPI is not in the process.  Linked as the suite's
     * other tests are, with --as-needed dropping it where nothing here
     * calls it; sanitizer builds link it in all the same */
    if (mapped("libpapi")) {
        print_message("skipped: this binary has PAPI linked in (a sanitizer build)\n");
        skip();
    }
    unsetenv("LOCUS_COUNTERS");
    setenv("LOCUS_THREADS", "2", 1);
    unsetenv("LOCUS_TOPOLOGY");
    assert_int_equal(locus_init(), 0);
    assert_false(mapped("libsde"));
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

/* A task that queues a sibling on its own deque while every other worker
 * sleeps, then waits for that sibling: only a sleeper woken by the push can
 * run it.  Gives up after 10 s, so a lost wake-up fails instead of hanging. */
static atomic_int flag, timed_out;
static void set_flag(void *arg)
{
    (void)arg;
    atomic_store(&flag, 1);
}

static void push_and_wait(void *arg)
{
    (void)arg;
    struct timespec us = { 0, 1000 }, t0, t;
    for (int i = 0; i < 200000 && sleepers() < locus_num_workers() - 1; i++)
        nanosleep(&us, NULL);
    atomic_store(&flag, 0);
    if (locus_spawn(set_flag, NULL, 0, NULL, 0) != 0) {
        atomic_store(&timed_out, 1);
        return;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (!atomic_load(&flag)) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > 10) {
            atomic_store(&timed_out, 1);
            return;
        }
    }
}

static void wake_case(const char *regime, const char *threads)
{
    setenv("LOCUS_REGIME", regime, 1);
    setenv("LOCUS_THREADS", threads, 1);
    setenv("LOCUS_SPIN", "50", 1);
    unsetenv("LOCUS_TOPOLOGY");
    assert_int_equal(locus_init(), 0);
    atomic_store(&timed_out, 0);
    for (int round = 0; round < 20 && !atomic_load(&timed_out); round++) {
        assert_int_equal(locus_spawn(push_and_wait, NULL, 0, NULL, 0), 0);
        assert_int_equal(locus_taskwait(), 0);
    }
    assert_int_equal(atomic_load(&timed_out), 0);
    assert_int_equal(locus_finalize(), 0);
    unsetenv("LOCUS_REGIME");
}

static void test_wake_for_own_push(void **state)
{
    (void)state;
    wake_case("dft", "2");
    wake_case("naft", "2");
    wake_case("naft", "4");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_libsde_without_papi),
        cmocka_unit_test(test_idle_sleeps),
        cmocka_unit_test(test_idle_sleeps_oversubscribed),
        cmocka_unit_test(test_idle_sleeps_on_every_node),
        cmocka_unit_test(test_wake_for_own_push),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
