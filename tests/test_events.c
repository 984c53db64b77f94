/*
 * test_events.c - external events, blocking and polling services through
 * the public API: a task with events completes (releases its successors,
 * satisfies taskwait) only when its body has returned and every event is
 * fulfilled, whoever fulfils them (a thread that is not a worker, another
 * task, a polling service, the body itself) and whenever (before or after
 * the body returns); block/unblock from other threads and unblock before
 * block; services called by an idle pool, by a busy worker, never twice at
 * once, removed when done or unregistered; and every bad input.
 * Task bodies never call cmocka asserts (they may run on other threads):
 * they count failures in g_bad, which the test thread checks.
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

static _Atomic int g_bad;

static int sanitizer(void)
{
    const char *s = getenv("LOCUS_TEST_SANITIZER");
    return s && *s;
}

static void pause_a_little(void)
{
    struct timespec ts = { 0, 200000 };   /* 0.2 ms: lets workers go to sleep */
    nanosleep(&ts, NULL);
}

/* ---- events fulfilled by a thread that is not a worker ---- */

#define NT 96
enum mode { AFTER_BODY, BEFORE_RETURN, IN_PARTS };

struct slot {
    _Atomic(locus_task_ref_t) ref;   /* published by the task's body */
    _Atomic int body_done;           /* the body is about to return */
    _Atomic int fulfilled;           /* set before the last decrease */
    _Atomic int decreased;           /* the decrease has returned */
    _Atomic int checked;             /* the successor ran */
    int mode;
    int data;
};
static struct slot slots[NT];

static void evt_body(void *arg)
{
    struct slot *s = &slots[*(int *)arg];
    locus_task_ref_t me = locus_task_current();
    if (!me) {
        atomic_fetch_add(&g_bad, 1);
        return;
    }
    unsigned n = s->mode == IN_PARTS ? 3 : 1;
    if (locus_task_events_increase(me, n) != 0)
        atomic_fetch_add(&g_bad, 1);
    s->data = 42;
    atomic_store(&s->ref, me);
    if (s->mode == BEFORE_RETURN)
        while (!atomic_load(&s->decreased))   /* fulfilled while the body still runs */
            sched_yield();
    atomic_store(&s->body_done, 1);
}

static void succ_body(void *arg)
{
    struct slot *s = &slots[*(int *)arg];
    /* runs only after its predecessor's events are all fulfilled */
    if (!atomic_load(&s->fulfilled) || !atomic_load(&s->body_done) || s->data != 42)
        atomic_fetch_add(&g_bad, 1);
    atomic_store(&s->checked, 1);
}

static void *foreign_fulfiller(void *arg)
{
    (void)arg;
    int left = NT;
    int done[NT] = { 0 };
    while (left > 0) {
        for (int i = 0; i < NT; i++) {
            struct slot *s = &slots[i];
            locus_task_ref_t r = atomic_load(&s->ref);
            if (done[i] || !r)
                continue;
            if (s->mode != BEFORE_RETURN && !atomic_load(&s->body_done))
                continue;   /* after the body: wait until it returned */
            if (s->mode != BEFORE_RETURN)
                pause_a_little();   /* and let the worker move on */
            if (atomic_load(&s->checked))
                atomic_fetch_add(&g_bad, 1);   /* the successor ran before the fulfilment */
            if (s->mode == IN_PARTS) {
                if (locus_task_events_decrease(r, 1) != 0)
                    atomic_fetch_add(&g_bad, 1);
                /* a decrease of more than is outstanding is refused and changes nothing */
                if (locus_task_events_decrease(r, 3) != -EINVAL)
                    atomic_fetch_add(&g_bad, 1);
                if (locus_task_events_decrease(r, 1) != 0)
                    atomic_fetch_add(&g_bad, 1);
            }
            atomic_store(&s->fulfilled, 1);
            if (locus_task_events_decrease(r, 1) != 0)
                atomic_fetch_add(&g_bad, 1);
            atomic_store(&s->decreased, 1);
            done[i] = 1;
            left--;
        }
        sched_yield();
    }
    return NULL;
}

static void test_foreign_fulfilment(void **state)
{
    (void)state;
    memset(slots, 0, sizeof slots);
    for (int i = 0; i < NT; i++)
        slots[i].mode = i % 3;
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, foreign_fulfiller, NULL), 0);
    for (int i = 0; i < NT; i++) {
        assert_int_equal(locus_task(evt_body, &i, sizeof i, LOCUS_OUT(&slots[i].data, sizeof(int))), 0);
        assert_int_equal(locus_task(succ_body, &i, sizeof i, LOCUS_IN(&slots[i].data, sizeof(int))), 0);
    }
    assert_int_equal(locus_taskwait(), 0);
    /* taskwait saw every task complete: every event was fulfilled first */
    for (int i = 0; i < NT; i++) {
        assert_int_equal(atomic_load(&slots[i].fulfilled), 1);
        assert_int_equal(atomic_load(&slots[i].checked), 1);
    }
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(atomic_load(&g_bad), 0);
}

/* ---- events fulfilled by other tasks and by the body itself ---- */

struct holder {
    locus_task_ref_t ref;
    _Atomic int *flag;
};

static void fulfil_child(void *arg)
{
    const struct holder *h = arg;
    for (int i = 0; i < 20; i++)
        sched_yield();   /* often after the parent's body returned */
    atomic_store(h->flag, 1);
    if (locus_task_events_decrease(h->ref, 1) != 0)
        atomic_fetch_add(&g_bad, 1);
}

static _Atomic int child_flags[NT];
static int cells[NT];

static void parent_with_event(void *arg)
{
    int i = *(int *)arg;
    locus_task_ref_t me = locus_task_current();
    /* the body may add and fulfil its own events */
    if (locus_task_events_increase(me, 2) != 0 || locus_task_events_decrease(me, 2) != 0)
        atomic_fetch_add(&g_bad, 1);
    if (locus_task_events_increase(me, 1) != 0)
        atomic_fetch_add(&g_bad, 1);
    struct holder h = { me, &child_flags[i] };
    if (locus_spawn(fulfil_child, &h, sizeof h, NULL, 0) != 0)
        atomic_fetch_add(&g_bad, 1);
    cells[i] = i;
}

static void check_after(void *arg)
{
    int i = *(int *)arg;
    if (!atomic_load(&child_flags[i]) || cells[i] != i)
        atomic_fetch_add(&g_bad, 1);
}

static void test_task_fulfilment(void **state)
{
    (void)state;
    for (int i = 0; i < NT; i++) {
        atomic_store(&child_flags[i], 0);
        cells[i] = -1;
    }
    for (int i = 0; i < NT; i++) {
        assert_int_equal(locus_task(parent_with_event, &i, sizeof i, LOCUS_OUT(&cells[i], sizeof(int))), 0);
        assert_int_equal(locus_task(check_after, &i, sizeof i, LOCUS_IN(&cells[i], sizeof(int))), 0);
    }
    assert_int_equal(locus_taskwait(), 0);
    for (int i = 0; i < NT; i++)
        assert_int_equal(atomic_load(&child_flags[i]), 1);
    assert_int_equal(atomic_load(&g_bad), 0);
}

/* Tasks without dependencies (which their spawner may run inline) whose
 * events are fulfilled only once every one of them is spawned: a spawner
 * that waited for the event inside the spawn would never get there (the
 * watchdog fails the test), and taskwait waits for them. */
static _Atomic(locus_task_ref_t) free_refs[NT];
static _Atomic int free_done[NT], all_spawned;

static void free_evt(void *arg)
{
    int i = *(int *)arg;
    locus_task_ref_t me = locus_task_current();
    if (locus_task_events_increase(me, 1) != 0)
        atomic_fetch_add(&g_bad, 1);
    atomic_store(&free_refs[i], me);
}

static void *free_fulfiller(void *arg)
{
    (void)arg;
    while (!atomic_load(&all_spawned))
        sched_yield();
    for (int i = 0; i < NT; i++) {
        locus_task_ref_t r;
        while (!(r = atomic_load(&free_refs[i])))
            sched_yield();   /* queued tasks: a worker runs them meanwhile */
        atomic_store(&free_done[i], 1);
        if (locus_task_events_decrease(r, 1) != 0)
            atomic_fetch_add(&g_bad, 1);
    }
    return NULL;
}

static void test_free_tasks(void **state)
{
    (void)state;
    atomic_store(&all_spawned, 0);
    for (int i = 0; i < NT; i++) {
        atomic_store(&free_refs[i], NULL);
        atomic_store(&free_done[i], 0);
    }
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, free_fulfiller, NULL), 0);
    for (int i = 0; i < NT; i++)
        assert_int_equal(locus_spawn(free_evt, &i, sizeof i, NULL, 0), 0);
    atomic_store(&all_spawned, 1);
    assert_int_equal(locus_taskwait(), 0);
    for (int i = 0; i < NT; i++)
        assert_int_equal(atomic_load(&free_done[i]), 1);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(atomic_load(&g_bad), 0);
}

/* ---- bad input ---- */

static void bad_in_task(void *arg)
{
    (void)arg;
    locus_task_ref_t me = locus_task_current();
    if (locus_task_events_increase(me, 0) != -EINVAL
        || locus_task_events_increase(me, LOCUS_EVENTS_MAX + 1u) != -EINVAL
        || locus_task_events_decrease(me, 1) != -EINVAL)          /* none outstanding */
        atomic_fetch_add(&g_bad, 1);
    if (locus_task_events_increase(me, LOCUS_EVENTS_MAX) != 0
        || locus_task_events_increase(me, 1) != -EINVAL           /* one too many */
        || locus_task_events_decrease(me, LOCUS_EVENTS_MAX) != 0)
        atomic_fetch_add(&g_bad, 1);
    if (strlen(locus_error_message()) == 0)
        atomic_fetch_add(&g_bad, 1);
}

static void *increase_from_outside(void *arg)
{
    /* a thread holding none of the task's events may not add any */
    return (void *)(intptr_t)locus_task_events_increase(arg, 1);
}

static _Atomic int outside_result = 1;
static void task_checked_from_outside(void *arg)
{
    (void)arg;
    pthread_t th;
    void *r;
    if (pthread_create(&th, NULL, increase_from_outside, locus_task_current()) != 0
        || pthread_join(th, &r) != 0)
        atomic_fetch_add(&g_bad, 1);
    else
        atomic_store(&outside_result, (int)(intptr_t)r);
}

static int never_done(void *d) { (void)d; return 0; }

static atomic_int outside_block;
static void *block_from_outside(void *arg)
{
    (void)arg;
    atomic_store(&outside_block, locus_task_block());   /* not a task: refused */
    if (!strstr(locus_error_message(), "locus_task_block"))
        atomic_store(&outside_block, 1);
    return NULL;
}

static void test_bad_input(void **state)
{
    (void)state;
    /* main is a task after locus_init: the initial thread's implicit one */
    assert_non_null(locus_task_current());
    assert_int_equal(locus_task_events_increase(NULL, 1), -EINVAL);
    assert_int_equal(locus_task_events_decrease(NULL, 1), -EINVAL);
    assert_int_equal(locus_task_unblock(NULL), -EINVAL);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, block_from_outside, NULL), 0);
    pthread_join(th, NULL);
    assert_int_equal(atomic_load(&outside_block), -ENOTSUP);
    assert_int_equal(locus_poll_register("x", NULL, NULL), -EINVAL);
    assert_int_equal(locus_poll_unregister(never_done, NULL), -ENOENT);
    assert_int_equal(locus_poll_register("x", never_done, &g_bad), 0);
    assert_int_equal(locus_poll_register("x", never_done, &g_bad), -EEXIST);
    assert_int_equal(locus_poll_register(NULL, never_done, NULL), 0);   /* other data: another service */
    assert_int_equal(locus_poll_unregister(never_done, &g_bad), 0);
    assert_int_equal(locus_poll_unregister(never_done, &g_bad), -ENOENT);
    assert_int_equal(locus_poll_unregister(never_done, NULL), 0);

    assert_int_equal(locus_spawn(bad_in_task, NULL, 0, NULL, 0), 0);
    assert_int_equal(locus_spawn(task_checked_from_outside, NULL, 0, NULL, 0), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(atomic_load(&outside_result), -EINVAL);
    assert_int_equal(atomic_load(&g_bad), 0);
}

/* ---- block and unblock ---- */

#define NB 32
static _Atomic(locus_task_ref_t) blk_refs[NB];
static _Atomic int blk_unblocked[NB], blk_resumed[NB];

static void blocker(void *arg)
{
    int i = *(int *)arg;
    locus_task_ref_t me = locus_task_current();
    if (i % 4 == 0) {
        /* unblock before block: the block returns at once (one token) */
        if (locus_task_unblock(me) != 0 || locus_task_unblock(me) != 0 || locus_task_block() != 0)
            atomic_fetch_add(&g_bad, 1);
        atomic_store(&blk_resumed[i], 1);
        atomic_store(&blk_unblocked[i], 1);
        return;
    }
    atomic_store(&blk_refs[i], me);
    if (locus_task_block() != 0)
        atomic_fetch_add(&g_bad, 1);
    if (!atomic_load(&blk_unblocked[i]))
        atomic_fetch_add(&g_bad, 1);   /* resumed without its unblock */
    atomic_store(&blk_resumed[i], 1);
}

static void *unblocker(void *arg)
{
    (void)arg;
    for (int left = NB - NB / 4; left > 0;) {
        for (int i = 0; i < NB; i++) {
            locus_task_ref_t r = atomic_load(&blk_refs[i]);
            if (!r || atomic_load(&blk_unblocked[i]))
                continue;
            if (i % 2)
                pause_a_little();   /* often after the task went to block */
            atomic_store(&blk_unblocked[i], 1);
            if (locus_task_unblock(r) != 0)
                atomic_fetch_add(&g_bad, 1);
            left--;
        }
        sched_yield();
    }
    return NULL;
}

static void test_block_foreign(void **state)
{
    (void)state;
    for (int i = 0; i < NB; i++) {
        atomic_store(&blk_refs[i], NULL);
        atomic_store(&blk_unblocked[i], 0);
        atomic_store(&blk_resumed[i], 0);
    }
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, unblocker, NULL), 0);
    for (int i = 0; i < NB; i++)
        assert_int_equal(locus_spawn(blocker, &i, sizeof i, NULL, 0), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    for (int i = 0; i < NB; i++)
        assert_int_equal(atomic_load(&blk_resumed[i]), 1);
    assert_int_equal(atomic_load(&g_bad), 0);
}

/* One worker: a blocked task's worker must run the task that unblocks it
 * (otherwise this deadlocks and the watchdog fails the test). */
static _Atomic int one_order;

static void one_unblocker(void *arg)
{
    locus_task_ref_t r = *(locus_task_ref_t *)arg;
    atomic_store(&one_order, 1);
    if (locus_task_unblock(r) != 0)
        atomic_fetch_add(&g_bad, 1);
}

static void one_blocker(void *arg)
{
    (void)arg;
    locus_task_ref_t me = locus_task_current();
    /* its child, queued behind it on the one worker, unblocks it */
    if (locus_spawn(one_unblocker, &me, sizeof me, NULL, 0) != 0)
        atomic_fetch_add(&g_bad, 1);
    if (locus_task_block() != 0 || atomic_load(&one_order) != 1)
        atomic_fetch_add(&g_bad, 1);
    atomic_store(&one_order, 2);
}

/* ---- polling services ---- */

static _Atomic int svc_calls, svc_inside;
static _Atomic int svc_limit;

static int counting_service(void *data)
{
    (void)data;
    if (atomic_fetch_add(&svc_inside, 1) != 0)
        atomic_fetch_add(&g_bad, 1);   /* called concurrently with itself */
    int n = atomic_fetch_add(&svc_calls, 1) + 1;
    atomic_fetch_sub(&svc_inside, 1);
    return n >= atomic_load(&svc_limit);
}

/* Waits (generously: never a timing assertion) until calls reach n. */
static int wait_calls(int n)
{
    for (int i = 0; i < 200000 && atomic_load(&svc_calls) < n; i++)
        pause_a_little();
    return atomic_load(&svc_calls);
}

static void test_poll_idle(void **state)
{
    (void)state;
    atomic_store(&svc_calls, 0);
    atomic_store(&svc_limit, 5);
    /* the pool is idle (asleep): a sleeper must still call the service */
    assert_int_equal(locus_poll_register("counter", counting_service, NULL), 0);
    assert_int_equal(wait_calls(5), 5);
    /* it said it is done: removed, never called again */
    for (int i = 0; i < 50; i++)
        pause_a_little();
    assert_int_equal(atomic_load(&svc_calls), 5);
    assert_int_equal(locus_poll_unregister(counting_service, NULL), -ENOENT);

    /* unregistered while being called now and then: no call after it returns */
    atomic_store(&svc_calls, 0);
    atomic_store(&svc_limit, 1 << 30);
    assert_int_equal(locus_poll_register("counter", counting_service, NULL), 0);
    assert_true(wait_calls(3) >= 3);
    assert_int_equal(locus_poll_unregister(counting_service, NULL), 0);
    int seen = atomic_load(&svc_calls);
    for (int i = 0; i < 50; i++)
        pause_a_little();
    assert_int_equal(atomic_load(&svc_calls), seen);
    assert_int_equal(atomic_load(&svc_inside), 0);
    assert_int_equal(atomic_load(&g_bad), 0);
}

/* A service fulfils the events of tasks that queue themselves; workers are
 * busy with other tasks meanwhile. */
#define NQ 64
static _Atomic(locus_task_ref_t) queue_refs[NQ];
static _Atomic int queue_fulfilled[NQ];
static _Atomic int svc_done_count;
static int qcells[NQ];

static int fulfilling_service(void *data)
{
    (void)data;
    if (atomic_fetch_add(&svc_inside, 1) != 0)
        atomic_fetch_add(&g_bad, 1);
    for (int i = 0; i < NQ; i++) {
        locus_task_ref_t r = atomic_exchange(&queue_refs[i], NULL);
        if (!r)
            continue;
        atomic_store(&queue_fulfilled[i], 1);
        if (locus_task_events_decrease(r, 1) != 0)
            atomic_fetch_add(&g_bad, 1);
        atomic_fetch_add(&svc_done_count, 1);
    }
    atomic_fetch_sub(&svc_inside, 1);
    return atomic_load(&svc_done_count) == NQ;   /* every task served: done */
}

static void queued_task(void *arg)
{
    int i = *(int *)arg;
    locus_task_ref_t me = locus_task_current();
    if (locus_task_events_increase(me, 1) != 0)
        atomic_fetch_add(&g_bad, 1);
    qcells[i] = i + 1;
    atomic_store(&queue_refs[i], me);
}

static void queued_check(void *arg)
{
    int i = *(int *)arg;
    if (!atomic_load(&queue_fulfilled[i]) || qcells[i] != i + 1)
        atomic_fetch_add(&g_bad, 1);
}

static void busy_work(void *arg)
{
    (void)arg;
    volatile unsigned x = 0;
    for (int i = 0; i < 2000; i++)
        x += (unsigned)i;
}

static void test_poll_fulfils(void **state)
{
    (void)state;
    atomic_store(&svc_done_count, 0);
    for (int i = 0; i < NQ; i++) {
        atomic_store(&queue_refs[i], NULL);
        atomic_store(&queue_fulfilled[i], 0);
        qcells[i] = 0;
    }
    assert_int_equal(locus_poll_register("fulfil", fulfilling_service, NULL), 0);
    for (int i = 0; i < NQ; i++) {
        assert_int_equal(locus_task(queued_task, &i, sizeof i, LOCUS_OUT(&qcells[i], sizeof(int))), 0);
        assert_int_equal(locus_task(queued_check, &i, sizeof i, LOCUS_IN(&qcells[i], sizeof(int))), 0);
        for (int k = 0; k < 8; k++)
            assert_int_equal(locus_spawn(busy_work, NULL, 0, NULL, 0), 0);
    }
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(atomic_load(&svc_done_count), NQ);
    /* it returned nonzero once every task was served: it is gone */
    assert_int_equal(locus_poll_unregister(fulfilling_service, NULL), -ENOENT);
    assert_int_equal(atomic_load(&g_bad), 0);
}

/* A service that unregisters itself and registers another, from inside. */
static _Atomic int second_calls;
static int second_service(void *d) { (void)d; atomic_fetch_add(&second_calls, 1); return 1; }
static int first_service(void *d)
{
    (void)d;
    if (locus_poll_register("second", second_service, NULL) != 0
        || locus_poll_unregister(first_service, NULL) != 0)
        atomic_fetch_add(&g_bad, 1);
    return 0;
}

static void test_poll_from_service(void **state)
{
    (void)state;
    atomic_store(&second_calls, 0);
    assert_int_equal(locus_poll_register("first", first_service, NULL), 0);
    for (int i = 0; i < 200000 && atomic_load(&second_calls) == 0; i++)
        pause_a_little();
    assert_int_equal(atomic_load(&second_calls), 1);
    assert_int_equal(locus_poll_unregister(first_service, NULL), -ENOENT);
    assert_int_equal(locus_poll_unregister(second_service, NULL), -ENOENT);
    assert_int_equal(atomic_load(&g_bad), 0);
}

static int group_setup(void **state)
{
    (void)state;
    /* an idle pool must have a worker besides the test thread (which
     * polls only while it waits in taskwait) */
    const char *t = getenv("LOCUS_THREADS");
    char saved[32] = "";
    int had = t != NULL;
    if (t)
        snprintf(saved, sizeof saved, "%s", t);
    if (!had || atoi(saved) < 2)
        setenv("LOCUS_THREADS", "2", 1);
    int r = locus_init();
    if (had)
        setenv("LOCUS_THREADS", saved, 1);
    else
        unsetenv("LOCUS_THREADS");
    return r == 0 ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    return locus_finalize() == 0 ? 0 : -1;
}

/* With one worker: blocking runs the unblocker; a service on a busy
 * worker; events fulfilled by a task spawned after (inline runs). */
static void test_one_worker(void **state)
{
    (void)state;
    /* a task run at its spawn (short bodies, grain.h) that blocks would hold
     * up its spawner, which here spawns the unblocker: never at spawn */
    setenv("LOCUS_THREADS", "1", 1);
    setenv("LOCUS_GRAIN_NS", "0", 1);
    assert_int_equal(locus_init(), 0);
    unsetenv("LOCUS_THREADS");
    unsetenv("LOCUS_GRAIN_NS");
    atomic_store(&one_order, 0);
    assert_int_equal(locus_spawn(one_blocker, NULL, 0, NULL, 0), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(atomic_load(&one_order), 2);
    test_poll_fulfils(state);
    assert_int_equal(locus_finalize(), 0);
    assert_int_equal(atomic_load(&g_bad), 0);
}

static void test_not_running(void **state)
{
    (void)state;
    int dummy;
    assert_int_equal(locus_task_events_increase((locus_task_ref_t)(void *)&dummy, 1), -EPERM);
    assert_int_equal(locus_task_events_decrease((locus_task_ref_t)(void *)&dummy, 1), -EPERM);
    assert_int_equal(locus_task_block(), -EPERM);
    assert_int_equal(locus_task_unblock((locus_task_ref_t)(void *)&dummy), -EPERM);
    assert_null(locus_task_current());
}

static void on_alarm(int sig)
{
    static const char msg[] = "test_events: watchdog expired (deadlock?)\n";
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0) { /* nothing more to do */ }
    _exit(124);
}

int main(void)
{
    const struct CMUnitTest alone[] = {
        cmocka_unit_test(test_not_running),
        cmocka_unit_test(test_one_worker),
    };
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_foreign_fulfilment),
        cmocka_unit_test(test_task_fulfilment),
        cmocka_unit_test(test_free_tasks),
        cmocka_unit_test(test_block_foreign),
        cmocka_unit_test(test_poll_idle),
        cmocka_unit_test(test_poll_fulfils),
        cmocka_unit_test(test_poll_from_service),
    };
    signal(SIGALRM, on_alarm);
    alarm(sanitizer() ? 600 : 120);
    int failed = cmocka_run_group_tests(alone, NULL, NULL);
    failed += cmocka_run_group_tests(tests, group_setup, group_teardown);
    return failed;
}
