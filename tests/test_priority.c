/*
 * test_priority.c - task priorities (locus_spawn_attr's attr->priority,
 * sched/prio.h), observed in the order tasks start, under both
 * schedulers:
 *  - one worker: tasks queued behind a running task, or released together
 *    by a blocker's completion, start by priority (highest first, oldest
 *    first among equals queued one by one), before every priority 0 task; priority 0 tasks
 *    keep their order (the owner's newest first);
 *  - two workers, with the order made deterministic by holding one worker
 *    in a task while the other takes: a thief takes the priority tasks a
 *    busy worker spawned by priority before its deque's, and a completion
 *    never runs the successor it released first while a successor of
 *    higher priority it released later waits;
 *  - a spawner's long queue does not make it run a new task at once
 *    while a task of higher priority waits;
 *  - bad attr values are errors that run nothing; an old caller's smaller
 *    structure is read without its priority.
 * Short bodies would run at their spawn (grain.h): LOCUS_GRAIN_NS=0.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <cmocka.h>

#include "locus.h"

enum { MAXT = 160, NBACKLOG = 100 };   /* NBACKLOG: past the backlog (ready.h) */

static int prio_of[MAXT];          /* each task's priority, by id */
static int started[MAXT];          /* ids in the order they started */
static atomic_int nstarted;
static atomic_int who[MAXT];       /* the worker each started on, + 1 */

static void note(void *arg)
{
    int id = *(int *)arg;
    int k = atomic_fetch_add(&nstarted, 1);
    started[k] = id;
    atomic_store(&who[id], locus_worker_id() + 1);
}

static int spawn_prio(int id, int prio, const locus_dep_t *deps, size_t ndeps)
{
    locus_task_attr_t a = LOCUS_TASK_ATTR_INIT;
    a.priority = prio;
    prio_of[id] = prio;
    return locus_spawn_attr(note, &id, sizeof id, deps, ndeps, &a);
}

static void start(const char *regime, const char *threads)
{
    setenv("LOCUS_REGIME", regime, 1);
    setenv("LOCUS_THREADS", threads, 1);
    setenv("LOCUS_GRAIN_NS", "0", 1);
    unsetenv("LOCUS_TOPOLOGY");
    assert_int_equal(locus_init(), 0);
    atomic_store(&nstarted, 0);
    for (int i = 0; i < MAXT; i++)
        atomic_store(&who[i], 0);
}

static void stop(void)
{
    assert_int_equal(locus_finalize(), 0);
    unsetenv("LOCUS_GRAIN_NS");
}

/* The n tasks started in priority order: no task started while one of
 * higher priority had not; with fifo, equal priorities above 0 oldest
 * (lowest id) first (ties go by when tasks became ready: for tasks that
 * one completion releases, an order of its own). */
static void check_order(int n, int fifo)
{
    assert_int_equal(atomic_load(&nstarted), n);
    for (int k = 1; k < n; k++) {
        int a = started[k - 1], b = started[k];
        if (prio_of[a] < prio_of[b])
            fail_msg("task %d (priority %d) started before task %d (priority %d)",
                     a, prio_of[a], b, prio_of[b]);
        if (fifo && prio_of[a] == prio_of[b] && prio_of[a] > 0 && a > b)
            fail_msg("task %d started before the older task %d of the same priority %d",
                     a, b, prio_of[a]);
    }
}

static const int mix[] = { 0, 3, 1, 7, 0, 5, 3, 0, 2, 7, 1, LOCUS_PRIORITY_MAX, 0, 4 };
#define NMIX ((int)(sizeof mix / sizeof mix[0]))

static const char *const regimes[] = { "dft", "naft" };

/* One worker, the root task running on it: what it queues starts by
 * priority when it waits; priority 0 tasks newest first, as without
 * priorities. */
static void test_one_worker_queued(void **state)
{
    (void)state;
    for (size_t r = 0; r < 2; r++) {
        start(regimes[r], "1");
        for (int i = 0; i < NMIX; i++)
            assert_int_equal(spawn_prio(i, mix[i], NULL, 0), 0);
        assert_int_equal(atomic_load(&nstarted), 0);   /* all queued */
        assert_int_equal(locus_taskwait(), 0);
        check_order(NMIX, 1);
        /* the priority 0 tasks last, newest first (the owner's LIFO) */
        int last = NMIX;
        for (int k = 0; k < NMIX; k++) {
            int id = started[k];
            if (prio_of[id] == 0) {
                assert_true(id < last);
                last = id;
            }
        }
        /* and with no priority at all, exactly the order of before */
        atomic_store(&nstarted, 0);
        for (int i = 0; i < 10; i++)
            assert_int_equal(spawn_prio(i, 0, NULL, 0), 0);
        assert_int_equal(locus_taskwait(), 0);
        for (int k = 0; k < 10; k++)
            assert_int_equal(started[k], 9 - k);
        stop();
    }
}

/* One worker: a spawner with a long queue runs what it spawns at once
 * (LC_BACKLOG, ready.h), but not while a task of higher priority waits:
 * the first task to start is the priority one. */
static void test_backlog_waits_for_priority(void **state)
{
    (void)state;
    for (size_t r = 0; r < 2; r++) {
        start(regimes[r], "1");
        assert_int_equal(spawn_prio(0, 5, NULL, 0), 0);
        for (int i = 1; i < NBACKLOG; i++)
            assert_int_equal(spawn_prio(i, 0, NULL, 0), 0);
        assert_int_equal(atomic_load(&nstarted), 0);   /* nothing ran before it */
        assert_int_equal(locus_taskwait(), 0);
        assert_int_equal(atomic_load(&nstarted), NBACKLOG);
        assert_int_equal(started[0], 0);
        /* without a priority waiting, the backlog rule is as before: a
         * long queue makes the spawner run new tasks itself */
        atomic_store(&nstarted, 0);
        for (int i = 0; i < NBACKLOG; i++)
            assert_int_equal(spawn_prio(i, 0, NULL, 0), 0);
        assert_true(atomic_load(&nstarted) > 0);
        assert_int_equal(locus_taskwait(), 0);
        stop();
    }
}

/* One worker: a blocker holds a cell; tasks of mixed priorities wait for
 * it; its completion releases them all at once, and they start by
 * priority (the one the completion would run next included). */
static int cell;
static void blocker(void *arg)
{
    (void)arg;
    cell = 1;
}

static void test_one_worker_released(void **state)
{
    (void)state;
    for (size_t r = 0; r < 2; r++) {
        start(regimes[r], "1");
        locus_dep_t out = LOCUS_OUT(&cell, sizeof cell), in = LOCUS_IN(&cell, sizeof cell);
        assert_int_equal(locus_spawn(blocker, NULL, 0, &out, 1), 0);
        for (int i = 0; i < NMIX; i++)
            assert_int_equal(spawn_prio(i, mix[i], &in, 1), 0);
        assert_int_equal(atomic_load(&nstarted), 0);
        assert_int_equal(locus_taskwait(), 0);
        check_order(NMIX, 0);
        stop();
    }
}

/* Spins (up to 30 s) until *flag reaches want; 0 on time out. */
static int await(atomic_int *flag, int want)
{
    struct timespec ts = { 0, 100000 };
    for (int i = 0; i < 300000; i++) {
        if (atomic_load(flag) >= want)
            return 1;
        nanosleep(&ts, NULL);
    }
    return 0;
}

static atomic_int holder_in, holder_spawned, holder_timed_out;

/* Runs on the other worker: spawns the mixed tasks there (its node's
 * priority queue and its own deque), then stays busy until the root's
 * worker has run them all. */
static void holder(void *arg)
{
    (void)arg;
    atomic_store(&holder_in, 1);
    for (int i = 0; i < NMIX; i++)
        if (spawn_prio(i, mix[i], NULL, 0) != 0)
            atomic_store(&holder_timed_out, 2);
    atomic_store(&holder_spawned, 1);
    if (!await(&nstarted, NMIX))
        atomic_store(&holder_timed_out, 1);
}

/* Two workers: the root's worker takes what the other one queued while
 * that one is busy: by priority, before anything in its deque. */
static void test_thief_takes_by_priority(void **state)
{
    (void)state;
    for (size_t r = 0; r < 2; r++) {
        start(regimes[r], "2");
        atomic_store(&holder_in, 0);
        atomic_store(&holder_spawned, 0);
        atomic_store(&holder_timed_out, 0);
        assert_int_equal(locus_spawn(holder, NULL, 0, NULL, 0), 0);
        assert_true(await(&holder_in, 1));        /* the other worker took it */
        assert_true(await(&holder_spawned, 1));
        assert_int_equal(locus_taskwait(), 0);    /* the root's worker runs them */
        assert_int_equal(atomic_load(&holder_timed_out), 0);
        check_order(NMIX, 1);
        for (int i = 0; i < NMIX; i++)
            assert_int_equal(atomic_load(&who[i]), 0 + 1);
        stop();
    }
}

/* Two workers: the root spawns a gate and tasks waiting for it, then keeps
 * its worker busy; the other worker runs the gate, whose completion
 * releases them all there: they start by priority. */
static atomic_int gate_done, all_spawned;
static void gate(void *arg)
{
    (void)arg;
    /* every waiting task spawned before it completes (else one spawned
     * after would be ready at once, and could run before a later one of
     * higher priority exists) */
    if (!await(&all_spawned, 1))
        atomic_store(&holder_timed_out, 1);
    cell = 2;
    atomic_store(&gate_done, 1);
}

static void test_released_by_priority(void **state)
{
    (void)state;
    /* first and last spawned of low priority: whichever the completion
     * releases first, a higher one is released after it */
    static const int prios[] = { 1, 9, 4, 0, 7, 2, 9, 0, 3, 1 };
    const int n = (int)(sizeof prios / sizeof prios[0]);
    for (size_t r = 0; r < 2; r++) {
        start(regimes[r], "2");
        atomic_store(&gate_done, 0);
        atomic_store(&all_spawned, 0);
        atomic_store(&holder_timed_out, 0);
        locus_dep_t out = LOCUS_OUT(&cell, sizeof cell), in = LOCUS_IN(&cell, sizeof cell);
        assert_int_equal(locus_spawn(gate, NULL, 0, &out, 1), 0);
        for (int i = 0; i < n; i++)
            assert_int_equal(spawn_prio(i, prios[i], &in, 1), 0);
        atomic_store(&all_spawned, 1);
        /* the root's worker stays here: only the other one runs them */
        assert_true(await(&gate_done, 1));
        assert_int_equal(atomic_load(&holder_timed_out), 0);
        assert_true(await(&nstarted, n));
        assert_int_equal(locus_taskwait(), 0);
        check_order(n, 0);
        for (int i = 0; i < n; i++)
            assert_int_equal(atomic_load(&who[i]), 1 + 1);
        stop();
    }
}

/* Many priority tasks with dependencies on a virtual machine of 4 nodes:
 * each runs exactly once, in its dependencies' order. */
static int chain[4];
static atomic_int ran_count[200];
static void step(void *arg)
{
    int id = *(int *)arg;
    atomic_fetch_add(&ran_count[id], 1);
    chain[id % 4]++;
}

static void test_many_nodes(void **state)
{
    (void)state;
    for (size_t r = 0; r < 2; r++) {
        setenv("LOCUS_TOPOLOGY", "4s", 1);
        setenv("LOCUS_REGIME", regimes[r], 1);
        setenv("LOCUS_THREADS", "4", 1);
        assert_int_equal(locus_init(), 0);
        for (int i = 0; i < 4; i++)
            chain[i] = 0;
        for (int i = 0; i < 200; i++) {
            atomic_store(&ran_count[i], 0);
            locus_dep_t d = LOCUS_INOUT(&chain[i % 4], sizeof chain[0]);
            locus_task_attr_t a = LOCUS_TASK_ATTR_INIT;
            a.priority = (i * 7) % 5;
            a.node = i % 3 == 0 ? (i / 3) % 4 : LOCUS_NODE_ANY;
            assert_int_equal(locus_spawn_attr(step, &i, sizeof i, &d, 1, &a), 0);
        }
        assert_int_equal(locus_taskwait(), 0);
        for (int i = 0; i < 200; i++)
            assert_int_equal(atomic_load(&ran_count[i]), 1);
        for (int i = 0; i < 4; i++)
            assert_int_equal(chain[i], 50);
        assert_int_equal(locus_finalize(), 0);
        unsetenv("LOCUS_TOPOLOGY");
    }
}

static void test_errors(void **state)
{
    (void)state;
    start("dft", "1");
    locus_task_attr_t a = LOCUS_TASK_ATTR_INIT;
    int id = 0;
    a.priority = -1;
    assert_int_equal(locus_spawn_attr(note, &id, sizeof id, NULL, 0, &a), -EINVAL);
    a.priority = LOCUS_PRIORITY_MAX + 1;
    assert_int_equal(locus_spawn_attr(note, &id, sizeof id, NULL, 0, &a), -EINVAL);
    a.priority = -2147483647 - 1;
    assert_int_equal(locus_spawn_attr(note, &id, sizeof id, NULL, 0, &a), -EINVAL);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(atomic_load(&nstarted), 0);     /* nothing ran */
    /* the first version's structure (size 16) ends before the priority:
     * whatever its tail holds is not read */
    a.size = offsetof(locus_task_attr_t, pad0_) + sizeof(int);
    a.pad0_ = 77;
    a.priority = -5;
    assert_int_equal(locus_spawn_attr(note, &id, sizeof id, NULL, 0, &a), 0);
    a = (locus_task_attr_t)LOCUS_TASK_ATTR_INIT;
    a.priority = LOCUS_PRIORITY_MAX;
    assert_int_equal(locus_spawn_attr(note, &id, sizeof id, NULL, 0, &a), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(atomic_load(&nstarted), 2);
    stop();
}

static int teardown(void **state)
{
    (void)state;
    if (locus_num_workers() > 0)   /* a failed test left it running */
        locus_finalize();
    unsetenv("LOCUS_TOPOLOGY");
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_one_worker_queued, teardown),
        cmocka_unit_test_teardown(test_one_worker_released, teardown),
        cmocka_unit_test_teardown(test_backlog_waits_for_priority, teardown),
        cmocka_unit_test_teardown(test_thief_takes_by_priority, teardown),
        cmocka_unit_test_teardown(test_released_by_priority, teardown),
        cmocka_unit_test_teardown(test_many_nodes, teardown),
        cmocka_unit_test_teardown(test_errors, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
