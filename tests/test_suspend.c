/*
 * test_suspend.c - tasks that block really suspend (runtime/thread.h): a
 * blocked task's thread sleeps and its worker goes on with other tasks on
 * another thread, so that whatever runs meanwhile, the blocked task
 * resumes once unblocked.  Before, a blocked task waited on its worker's
 * stack, under every task its worker ran meanwhile, and could resume only
 * when they had all returned: the scenarios here hung.
 *  - not buried: A blocks; C, run meanwhile, blocks until A has finished;
 *    D unblocks A;
 *  - many at once: 64 tasks block and are unblocked in reverse order;
 *  - main is a task: it blocks until a task unblocks it, and locus_finalize
 *    waits for an event counted on it;
 *  - ALPI polling tasks (as TAMPI's): independent tasks that poll and sleep
 *    with alpi_task_waitfor_ns until told to stop, while the program's own
 *    tasks run, block and wait on every worker.
 * Every scenario runs in a child process with a deadline.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "alpi.h"
#include "locus.h"

static int sanitized(void)
{
    const char *s = getenv("LOCUS_TEST_SANITIZER");
    return s && s[0] && strcmp(s, "none") != 0;
}

/* Runs fn in a child with the "NAME=VALUE" pairs set, killed after
 * seconds; fails the case unless it exits 0. */
static void in_child(const char *what, int (*fn)(void), const char *const *env, int seconds)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        for (; env && *env; env++)
            putenv((char *)*env);
        _exit(fn());
    }
    int status = 0;
    struct timespec tick = { 0, 10 * 1000 * 1000 };
    long waited = 0;
    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (++waited > 100L * seconds) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            fail_msg("%s (%s %s): still running after %d s (a hang)", what,
                     env && env[0] ? env[0] : "", env && env[0] && env[1] ? env[1] : "",
                     seconds);
        }
        nanosleep(&tick, NULL);
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("%s (%s %s): %s %d", what, env && env[0] ? env[0] : "",
                 env && env[0] && env[1] ? env[1] : "",
                 WIFSIGNALED(status) ? "killed by signal" : "exit status",
                 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

static const char *const envs[][3] = {
    { "LOCUS_THREADS=1", NULL },
    { "LOCUS_THREADS=2", "LOCUS_REGIME=naft", NULL },
    { "LOCUS_THREADS=2", "LOCUS_REGIME=dft", NULL },
    { "LOCUS_THREADS=3", "LOCUS_TOPOLOGY=4s", NULL },
};

static void in_every_config(const char *what, int (*fn)(void))
{
    for (size_t i = 0; i < sizeof envs / sizeof envs[0]; i++)
        in_child(what, fn, envs[i], sanitized() ? 300 : 60);
}

/* A task waits for another to have published its reference: it sleeps
 * (alpi_task_waitfor_ns suspends it, so the other may run on its worker,
 * even the only one; a sched_yield loop would hold the worker). */
static locus_task_ref_t await_ref(_Atomic(locus_task_ref_t) *ref)
{
    locus_task_ref_t r;
    while (!(r = atomic_load(ref)))
        if (alpi_task_waitfor_ns(10000, NULL) != ALPI_SUCCESS)
            return NULL;
    return r;
}

/* ---- not buried ---- */

static _Atomic(locus_task_ref_t) ref_a, ref_c;
static atomic_int a_done, c_done, bad;

static void task_a(void *arg)
{
    (void)arg;
    atomic_store(&ref_a, locus_task_current());
    if (locus_task_block() != 0)
        atomic_fetch_add(&bad, 1);
    atomic_store(&a_done, 1);
    /* C waits for this */
    if (locus_task_unblock(await_ref(&ref_c)) != 0)
        atomic_fetch_add(&bad, 1);
}

static void task_c(void *arg)
{
    (void)arg;
    await_ref(&ref_a);   /* runs after A has started */
    atomic_store(&ref_c, locus_task_current());
    if (locus_task_block() != 0)   /* until A has finished */
        atomic_fetch_add(&bad, 1);
    if (!atomic_load(&a_done))
        atomic_fetch_add(&bad, 1);
    atomic_store(&c_done, 1);
}

static void task_d(void *arg)
{
    (void)arg;
    await_ref(&ref_c);   /* C is blocked, or about to block */
    if (locus_task_unblock(await_ref(&ref_a)) != 0)
        atomic_fetch_add(&bad, 1);
}

static int not_buried(void)
{
    if (locus_init() != 0)
        return 10;
    /* the program will block tasks: said before it spawns them (locus(3):
     * else the first may run at its spawn, under main) */
    (void)locus_task_current();
    /* in whatever order they start, A starts before C, which blocks
     * before D unblocks A; waiting on its worker's stack, A would be
     * buried under C there */
    if (locus_spawn(task_a, NULL, 0, NULL, 0) != 0 || locus_spawn(task_c, NULL, 0, NULL, 0) != 0
        || locus_spawn(task_d, NULL, 0, NULL, 0) != 0)
        return 11;
    if (locus_taskwait() != 0)
        return 12;
    if (atomic_load(&bad) || !atomic_load(&a_done) || !atomic_load(&c_done))
        return 13;
    return locus_finalize() != 0 ? 14 : 0;
}

static void test_blocked_task_is_not_buried(void **state)
{
    (void)state;
    in_every_config("A blocks, C runs and blocks until A is done, D unblocks A", not_buried);
}

/* ---- many at once ---- */

enum { MANY = 64 };
static _Atomic(locus_task_ref_t) many_ref[MANY];
static atomic_int many_resumed;

static void many_blocker(void *arg)
{
    int i = *(int *)arg;
    atomic_store(&many_ref[i], locus_task_current());
    if (locus_task_block() != 0)
        atomic_fetch_add(&bad, 1);
    atomic_fetch_add(&many_resumed, 1);
}

static void many_unblocker(void *arg)
{
    (void)arg;
    for (int i = MANY - 1; i >= 0; i--)
        if (locus_task_unblock(await_ref(&many_ref[i])) != 0)
            atomic_fetch_add(&bad, 1);
}

static int many_blocked(void)
{
    if (locus_init() != 0)
        return 10;
    /* the program will block tasks: said before it spawns them (locus(3):
     * else the first may run at its spawn, under main) */
    (void)locus_task_current();
    for (int i = 0; i < MANY; i++)
        if (locus_spawn(many_blocker, &i, sizeof i, NULL, 0) != 0)
            return 11;
    if (locus_spawn(many_unblocker, NULL, 0, NULL, 0) != 0)
        return 12;
    if (locus_taskwait() != 0 || atomic_load(&bad) || atomic_load(&many_resumed) != MANY)
        return 13;
    return locus_finalize() != 0 ? 14 : 0;
}

static void test_many_blocked_tasks(void **state)
{
    (void)state;
    in_every_config("64 tasks blocked, unblocked in reverse by a task", many_blocked);
}

/* ---- main is a task ---- */

static _Atomic(locus_task_ref_t) main_ref;
static atomic_int main_unblocked, main_event_done;

static void unblock_main(void *arg)
{
    (void)arg;
    struct timespec ms = { 0, 20 * 1000 * 1000 };
    nanosleep(&ms, NULL);   /* main is asleep by now, usually */
    atomic_store(&main_unblocked, 1);
    if (locus_task_unblock(atomic_load(&main_ref)) != 0)
        atomic_fetch_add(&bad, 1);
}

static void fulfil_main(void *arg)
{
    (void)arg;
    struct timespec ms = { 0, 20 * 1000 * 1000 };
    nanosleep(&ms, NULL);
    atomic_store(&main_event_done, 1);
    if (locus_task_events_decrease(atomic_load(&main_ref), 1) != 0)
        atomic_fetch_add(&bad, 1);
}

static int main_is_a_task(void)
{
    if (locus_init() != 0)
        return 10;
    locus_task_ref_t me = locus_task_current();
    if (!me)
        return 11;
    atomic_store(&main_ref, me);
    /* main blocks; a task, run on its worker meanwhile, unblocks it */
    if (locus_spawn(unblock_main, NULL, 0, NULL, 0) != 0)
        return 12;
    if (locus_task_block() != 0 || !atomic_load(&main_unblocked))
        return 13;
    if (locus_taskwait() != 0)
        return 14;
    /* an event on main holds locus_finalize */
    if (locus_task_events_increase(me, 1) != 0)
        return 15;
    if (locus_spawn(fulfil_main, NULL, 0, NULL, 0) != 0)
        return 16;
    if (locus_finalize() != 0)
        return 17;
    return atomic_load(&main_event_done) && !atomic_load(&bad) ? 0 : 18;
}

static void test_main_is_a_task(void **state)
{
    (void)state;
    in_every_config("main blocks until a task unblocks it; an event on main", main_is_a_task);
}

/* ---- ALPI polling tasks ---- */

static atomic_int poll_stop, polls, pollers_done;
static atomic_long work_done;

static void poller(void *arg)
{
    (void)arg;
    while (!atomic_load(&poll_stop)) {
        atomic_fetch_add(&polls, 1);
        uint64_t actual;
        if (alpi_task_waitfor_ns(50000, &actual) != ALPI_SUCCESS)   /* 50 us */
            atomic_fetch_add(&bad, 1);
    }
}

static void poller_done(void *arg)
{
    (void)arg;
    atomic_fetch_add(&pollers_done, 1);
}

static _Atomic(locus_task_ref_t) pp_ref;

/* work that blocks too: a pair, one unblocking the other */
static void pp_block(void *arg)
{
    (void)arg;
    atomic_store(&pp_ref, locus_task_current());
    if (locus_task_block() != 0)
        atomic_fetch_add(&bad, 1);
    atomic_fetch_add(&work_done, 1);
}

static void pp_unblock(void *arg)
{
    (void)arg;
    locus_task_ref_t r = await_ref(&pp_ref);
    atomic_store(&pp_ref, NULL);
    if (locus_task_unblock(r) != 0)
        atomic_fetch_add(&bad, 1);
    atomic_fetch_add(&work_done, 1);
}

static void work(void *arg)
{
    (void)arg;
    for (volatile int i = 0; i < 20000; i++)
        ;
    atomic_fetch_add(&work_done, 1);
}

static int polling_tasks(void)
{
    if (locus_init() != 0)
        return 10;
    /* two pollers, as TAMPI starts in MPI_Init_thread, from main */
    for (int i = 0; i < 2; i++)
        if (alpi_task_spawn(poller, NULL, poller_done, NULL, "poller", NULL) != ALPI_SUCCESS)
            return 11;
    long expect = 0;
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < 50; i++, expect++)
            if (locus_spawn(work, NULL, 0, NULL, 0) != 0)
                return 12;
        if (locus_spawn(pp_block, NULL, 0, NULL, 0) != 0
            || locus_spawn(pp_unblock, NULL, 0, NULL, 0) != 0)
            return 13;
        expect += 2;
        if (locus_taskwait() != 0)
            return 14;
        uint64_t actual;   /* main sleeps too: a task, as under OmpSs-2 */
        if (alpi_task_waitfor_ns(100000, &actual) != ALPI_SUCCESS || actual < 100000)
            return 15;
    }
    atomic_store(&poll_stop, 1);
    if (locus_finalize() != 0)
        return 16;
    if (atomic_load(&work_done) != expect || atomic_load(&pollers_done) != 2
        || atomic_load(&bad) || atomic_load(&polls) < 2)
        return 17;
    return 0;
}

static void test_alpi_polling_tasks(void **state)
{
    (void)state;
    in_every_config("two ALPI polling tasks while tasks run, block and wait", polling_tasks);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blocked_task_is_not_buried),
        cmocka_unit_test(test_many_blocked_tasks),
        cmocka_unit_test(test_main_is_a_task),
        cmocka_unit_test(test_alpi_polling_tasks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
