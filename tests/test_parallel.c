/*
 * test_parallel.c - rules that decide whether a second worker gets to run
 * tasks at all (issue 15: a width-2 stencil of 7 us tasks ran on one
 * worker).  No assertion on timings: each case is a handshake that can
 * only complete if two tasks run at the same time, under an alarm()
 * watchdog that turns a hang into a failure naming the case.
 *
 *   handoff   a width-2 stencil (each step's two tasks read both blocks of
 *             the step before): the completion that releases a step runs
 *             one task and queues the other alone on its deque, marked as
 *             handed off (ready.h), and the idle worker must take it at
 *             once, not after LC_LONE_STEAL_POLLS polls.  With LOCUS_SPIN
 *             below that, a worker that leaves the lone task alone sleeps
 *             and is never woken again: the step's running task waits for
 *             its sibling for ever.
 *   peek      the rule itself (sched/steal.h lc_may_steal_from) on a deque
 *             holding one item: taken at once only when handed off.
 *   start     a worker starts on its own CPU (init.c start_worker): with
 *             the initial thread under SCHED_FIFO, spinning on worker 0's
 *             CPU, a worker created inside its mask could never run.
 *             Skipped without permission for SCHED_FIFO or two CPUs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "deque.h"
#include "futex.h"
#include "locus.h"
#include "runtime.h"
#include "steal.h"

static char where[128];   /* the case running, for the watchdog */

static void on_alarm(int sig)
{
    static const char msg[] = "test_parallel: watchdog expired: two tasks never ran at once in ";
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0 || write(2, where, strlen(where)) < 0
        || write(2, "\n", 1) < 0) { /* nothing more to do */ }
    _exit(1);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---------------------------------------------------------------- handoff */

#define STEPS 64

static struct {
    _Alignas(64) uint64_t v;
} block[STEPS + 1][2];
static atomic_int started[STEPS + 1];
static atomic_int ran_by[2];

/* A body long enough that the workers' estimates call bodies long
 * (grain.h: a task queued by a completion is handed off only then). */
static void work(void)
{
    double end = now_s() + 20e-6;
    while (now_s() < end)
        cpu_relax();
}

struct cell {
    int step, col;
};
static struct cell cells[STEPS + 1][2];

static void stencil_task(void *p)
{
    const struct cell *c = p;
    int id = locus_worker_id();
    if (id >= 0 && id < 2)
        atomic_fetch_add(&ran_by[id], 1);
    atomic_fetch_add(&started[c->step], 1);
    work();
    /* from step 2 on, both tasks of a step were released by one completion:
     * wait for the sibling to start, which only another worker can do */
    if (c->step >= 2)
        while (atomic_load(&started[c->step]) < 2)
            cpu_relax();
    block[c->step][c->col].v = block[c->step - 1][0].v + block[c->step - 1][1].v + 1;
}

static void run_stencil(const char *regime)
{
    snprintf(where, sizeof where, "handoff regime=%s", regime);
    setenv("LOCUS_REGIME", regime, 1);
    setenv("LOCUS_THREADS", "2", 1);
    /* below LC_LONE_STEAL_POLLS: a worker that leaves a lone task alone
     * sleeps before it would take it, and nothing wakes it again */
    setenv("LOCUS_SPIN", "8", 1);
    assert_int_equal(locus_init(), 0);
    for (int s = 0; s <= STEPS; s++) {
        atomic_store(&started[s], 0);
        block[s][0].v = block[s][1].v = 0;
    }
    atomic_store(&ran_by[0], 0);
    atomic_store(&ran_by[1], 0);
    const size_t sz = sizeof block[0][0];
    for (int s = 1; s <= STEPS; s++) {
        for (int j = 0; j < 2; j++) {
            cells[s][j] = (struct cell){ s, j };
            assert_int_equal(locus_task(stencil_task, &cells[s][j], 0,
                                        LOCUS_IN(&block[s - 1][0], sz),
                                        LOCUS_IN(&block[s - 1][1], sz),
                                        LOCUS_OUT(&block[s][j], sz)), 0);
        }
    }
    assert_int_equal(locus_taskwait(), 0);
    for (int s = 1; s <= STEPS; s++)
        assert_int_equal(atomic_load(&started[s]), 2);
    /* the dependencies held: block s is 2^s - 1 (mod 2^64) */
    for (int s = 1; s <= STEPS; s++)
        for (int j = 0; j < 2; j++)
            assert_true(block[s][j].v == (s < 64 ? (UINT64_C(1) << s) - 1 : UINT64_MAX));
    assert_true(atomic_load(&ran_by[0]) > 0);
    assert_true(atomic_load(&ran_by[1]) > 0);
    assert_int_equal(atomic_load(&ran_by[0]) + atomic_load(&ran_by[1]), 2 * STEPS);
    assert_int_equal(locus_finalize(), 0);
    unsetenv("LOCUS_REGIME");
    unsetenv("LOCUS_THREADS");
    unsetenv("LOCUS_SPIN");
}

static void test_handoff_dft(void **state)
{
    (void)state;
    run_stencil("dft");
}

static void test_handoff_naft(void **state)
{
    (void)state;
    run_stencil("naft");
}

/* ---------------------------------------------------------------- peek */

static void nop(void *arg)
{
    (void)arg;
}

static void test_lone_task_rule(void **state)
{
    (void)state;
    static struct lc_worker thief;   /* only idle_polls is read */
    struct lc_deque d;
    static struct lc_task plain, handed;
    assert_int_equal(lc_deque_init(&d, 2), 0);
    plain.flags = 0;
    handed.flags = LC_TF_HANDOFF;
    plain.fn = handed.fn = nop;

    thief.idle_polls = 0;
    assert_false(lc_may_steal_from(&thief, &d));            /* empty */
    struct lc_qitem it = lc_qitem_task(&plain);
    assert_int_equal(lc_deque_push_owner(&d, &it), 0);
    assert_false(lc_may_steal_from(&thief, &d));            /* lone, its owner's next */
    thief.idle_polls = LC_LONE_STEAL_POLLS;
    assert_true(lc_may_steal_from(&thief, &d));             /* lone, but left long enough */
    thief.idle_polls = 0;
    thief.last_look = 1;
    assert_true(lc_may_steal_from(&thief, &d));             /* a last look before sleeping */
    thief.last_look = 0;
    assert_ptr_equal(lc_deque_pop_owner(&d).p, &plain);

    it = lc_qitem_task(&handed);
    assert_int_equal(it.c & LC_QI_LIGHT, 0);                /* still a descriptor */
    assert_int_equal(lc_deque_push_owner(&d, &it), 0);
    assert_true(lc_may_steal_from(&thief, &d));             /* lone, handed off: at once */
    struct lc_qitem got = lc_deque_steal(&d);
    assert_ptr_equal(got.p, &handed);
    assert_ptr_equal(lc_item_open(&thief, &got), &handed);

    it = lc_qitem_task(&plain);                             /* two items: always */
    assert_int_equal(lc_deque_push_owner(&d, &it), 0);
    assert_int_equal(lc_deque_push_owner(&d, &it), 0);
    assert_true(lc_may_steal_from(&thief, &d));
    lc_deque_destroy(&d);
}

/* ---------------------------------------------------------------- start */

static atomic_int other_ran;
static int fifo_set, old_policy;
static struct sched_param old_param;

static void note_worker(void *arg)
{
    (void)arg;
    if (locus_worker_id() != 0)
        atomic_store(&other_ran, 1);
}

static void restore_policy(void)
{
    if (fifo_set && sched_setscheduler(0, old_policy, &old_param) == 0)
        fifo_set = 0;
}

static void test_worker_starts_on_its_cpu(void **state)
{
    (void)state;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) < 2)
        skip();
    struct sched_param fifo = { .sched_priority = 1 };
    old_policy = sched_getscheduler(0);
    if (old_policy < 0 || sched_getparam(0, &old_param) != 0
        || sched_setscheduler(0, SCHED_FIFO, &fifo) != 0)
        skip();   /* no permission for real-time scheduling here */
    fifo_set = 1;
    snprintf(where, sizeof where, "start (SCHED_FIFO)");
    setenv("LOCUS_THREADS", "2", 1);
    setenv("LOCUS_BIND", "core", 1);
    setenv("LOCUS_SPIN", "100", 1);   /* idle real-time workers soon sleep */
    setenv("LOCUS_GRAIN_NS", "0", 1); /* queue the tasks, never run them at their spawn */
    assert_int_equal(locus_init(), 0);
    /* The initial thread, bound to worker 0's CPU and real-time, never
     * blocks below until another worker has run a task (or 10 s passed):
     * a worker that could only run on that CPU never would. */
    atomic_store(&other_ran, 0);
    double end = now_s() + 10;
    int ok = 0;
    while (!ok && now_s() < end) {
        assert_int_equal(locus_spawn(note_worker, NULL, 0, NULL, 0), 0);
        assert_int_equal(locus_spawn(note_worker, NULL, 0, NULL, 0), 0);
        for (int i = 0; i < 100000 && !(ok = atomic_load(&other_ran)); i++)
            cpu_relax();
        assert_int_equal(locus_taskwait(), 0);
    }
    assert_int_equal(locus_finalize(), 0);
    restore_policy();
    assert_true(ok);
    unsetenv("LOCUS_THREADS");
    unsetenv("LOCUS_BIND");
    unsetenv("LOCUS_SPIN");
    unsetenv("LOCUS_GRAIN_NS");
}

/* After a failed assertion the runtime may still be up: stop it. */
static int teardown_stop(void **state)
{
    (void)state;
    int rc = locus_finalize();
    restore_policy();
    return rc == 0 || rc == -EPERM ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lone_task_rule),
        cmocka_unit_test_teardown(test_handoff_dft, teardown_stop),
        cmocka_unit_test_teardown(test_handoff_naft, teardown_stop),
        cmocka_unit_test_teardown(test_worker_starts_on_its_cpu, teardown_stop),
    };
    const char *san = getenv("LOCUS_TEST_SANITIZER");
    signal(SIGALRM, on_alarm);
    alarm(san && *san ? 600 : 120);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
