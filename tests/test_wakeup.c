/*
 * test_wakeup.c - the lost-wake-up race of runtime/wait.c's sleep
 * handshake, hammered: thousands of rounds in which one task is pushed
 * while every other worker is asleep or on its way to sleep (the push lands
 * at a pseudo-random point of the workers' last polls, announcement and
 * futex wait), and the pusher then waits for that task without running
 * anything itself, so only a worker woken by the push can run it.  A lost
 * wake-up hangs the round; the alarm() watchdog turns the hang into a
 * failure that names the case and round.  No assertion on timings.
 *
 * Two shapes, under dft and naft, on one node and on four virtual nodes
 * (one worker each: the task must wake another node's worker):
 *   direct  the initial thread pushes on its own deque and spins;
 *   nested  a task running on a woken worker pushes a child on its own
 *           deque and spins, while the initial thread waits in taskwait
 *           (so the taskwait sleeper, counted in ntw_sleepers, races too).
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "futex.h"
#include "locus.h"
#include "runtime.h"

static atomic_int ran, started;
static char where[128];   /* the case and round running, for the watchdog */

static void on_alarm(int sig)
{
    static const char msg[] = "test_wakeup: watchdog expired: lost wake-up in ";
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0 || write(2, where, strlen(where)) < 0
        || write(2, "\n", 1) < 0) { /* nothing more to do */ }
    _exit(1);
}

static int sleepers(void)
{
    int n = 0;
    for (int i = 0; i < lc_rt->topo.nnodes; i++)
        n += atomic_load(&lc_rt->nsync[i].nsleepers);
    return n;
}

static uint64_t rng = 88172645463325252ull;
static unsigned next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng >> 32);
}

/* Lets the other workers drift towards sleep: every 8th round until all
 * of them (but the calling thread) sleep, else a pseudo-random number of
 * pauses, so that pushes land all over the sleepers' handshake. */
static void settle(int round)
{
    if (round % 8 == 0) {
        struct timespec us = { 0, 1000 };
        for (int i = 0; i < 100000 && sleepers() < locus_num_workers() - 1; i++)
            nanosleep(&us, NULL);
    } else {
        unsigned n = next_rand() % 4096;
        for (unsigned i = 0; i < n; i++)
            cpu_relax();
    }
}

static void count(void *arg)
{
    (void)arg;
    atomic_fetch_add(&ran, 1);
}

/* Runs on some worker: pushes a child on that worker's own deque and
 * waits for it without running it. */
static void push_child(void *arg)
{
    int round = (int)(intptr_t)arg;
    atomic_store(&started, 1);
    settle(round + 1);   /* round + 1: never the all-asleep wait (the initial
                            thread only sleeps in taskwait, maybe) */
    int before = atomic_load(&ran);
    if (locus_spawn(count, NULL, 0, NULL, 0) != 0)
        return;          /* ran stays short: the round's check fails */
    while (atomic_load(&ran) == before)
        cpu_relax();
}

static void run_case(const char *regime, const char *topology, const char *threads,
                     int nested, int rounds)
{
    setenv("LOCUS_REGIME", regime, 1);
    setenv("LOCUS_THREADS", threads, 1);
    /* above LC_LONE_STEAL_POLLS / 2, so a woken worker may take a lone task
     * within its polls after the wake-up */
    setenv("LOCUS_SPIN", "100", 1);
    setenv("LOCUS_GRAIN_NS", "0", 1);   /* queue every task, never run it at its spawn */
    if (topology)
        setenv("LOCUS_TOPOLOGY", topology, 1);
    else
        unsetenv("LOCUS_TOPOLOGY");
    assert_int_equal(locus_init(), 0);
    atomic_store(&ran, 0);
    for (int r = 0; r < rounds; r++) {
        snprintf(where, sizeof where, "%s regime=%s topology=%s threads=%s round %d",
                 nested ? "nested" : "direct", regime, topology ? topology : "unset",
                 threads, r);
        settle(r);
        if (!nested) {
            assert_int_equal(locus_spawn(count, NULL, 0, NULL, 0), 0);
            while (atomic_load(&ran) == r)
                cpu_relax();
        } else {
            atomic_store(&started, 0);
            assert_int_equal(locus_spawn(push_child, (void *)(intptr_t)r, 0, NULL, 0), 0);
            while (!atomic_load(&started))   /* taken by a woken worker */
                cpu_relax();
        }
        assert_int_equal(locus_taskwait(), 0);
        assert_int_equal(atomic_load(&ran), r + 1);   /* exactly once */
    }
    assert_int_equal(locus_finalize(), 0);
    unsetenv("LOCUS_REGIME");
    unsetenv("LOCUS_TOPOLOGY");
    unsetenv("LOCUS_GRAIN_NS");
}

static int rounds(void)
{
    const char *san = getenv("LOCUS_TEST_SANITIZER");
    return san && *san ? 300 : 1200;
}

static void test_direct_one_node(void **state)
{
    (void)state;
    run_case("dft", NULL, "2", 0, rounds());
    run_case("naft", NULL, "2", 0, rounds());
}

static void test_direct_four_nodes(void **state)
{
    (void)state;
    run_case("dft", "4s", "4", 0, rounds() / 2);
    run_case("naft", "4s", "4", 0, rounds() / 2);
}

static void test_nested_one_node(void **state)
{
    (void)state;
    run_case("dft", NULL, "3", 1, rounds());
    run_case("naft", NULL, "3", 1, rounds());
}

static void test_nested_four_nodes(void **state)
{
    (void)state;
    run_case("dft", "4s", "4", 1, rounds() / 2);
    run_case("naft", "4s", "4", 1, rounds() / 2);
}

/* After a failed assertion the runtime may still be up: stop it. */
static int teardown_stop(void **state)
{
    (void)state;
    int rc = locus_finalize();
    return rc == 0 || rc == -EPERM ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_direct_one_node, teardown_stop),
        cmocka_unit_test_teardown(test_direct_four_nodes, teardown_stop),
        cmocka_unit_test_teardown(test_nested_one_node, teardown_stop),
        cmocka_unit_test_teardown(test_nested_four_nodes, teardown_stop),
    };
    const char *san = getenv("LOCUS_TEST_SANITIZER");
    signal(SIGALRM, on_alarm);
    alarm(san && *san ? 600 : 120);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
