/*
 * independent.c - tasks without a parent (ALPI's alpi_task_spawn, which
 * alpi/alpi.c builds on): no task waits for them and their dependencies
 * live in a namespace of their own, so they are queued (ready.h,
 * LC_READY_DETACHED) as light tasks whose parent is NULL (a completion
 * stops there: run.c).  Any thread may
 * spawn one: a worker queues it at once; another thread leaves it on an
 * injection list that every worker looks at between tasks and before
 * sleeping (events.h), and wakes a sleeper as a push does.
 *
 * locus_finalize() waits for them too: lc_indep_live counts those spawned
 * and not yet returned from, and the last one wakes the waiter.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "events.h"
#include "runtime.h"

struct lc_indep {
    struct lc_indep *next;   /* on the injection list */
    locus_task_fn fn;
    void *arg;
};

/* the head is read by every worker between tasks: lines of their own */
_Alignas(64) _Atomic(struct lc_indep *) lc_inject_head;
_Alignas(64) _Atomic uint32_t lc_indep_live;

/* The body of every independent task: the caller's, then the count. */
static void indep_body(void *arg)
{
    struct lc_indep *r = arg;
    locus_task_fn fn = r->fn;
    void *a = r->arg;
    free(r);
    fn(a);
    struct lc_runtime *rt = lc_rt;
    /* seq_cst: the waker's half of lc_wait_word (locus_finalize) */
    atomic_fetch_sub_explicit(&lc_indep_live, 1, memory_order_seq_cst);
    lc_wake_waiters(rt);
}

/* Leaves r on the injection list for a worker to queue (wait.c's
 * handshake wakes one). */
static void inject(struct lc_runtime *rt, struct lc_indep *r)
{
    struct lc_indep *head = atomic_load_explicit(&lc_inject_head, memory_order_relaxed);
    do
        r->next = head;
    while (!atomic_compare_exchange_weak_explicit(&lc_inject_head, &head, r,
                                                  memory_order_release, memory_order_relaxed));
    lc_notify_any(rt, 0);   /* the pusher's half of wait.c's handshake */
}

int lc_spawn_independent(locus_task_fn fn, void *arg)
{
    struct lc_runtime *rt = lc_rt;
    if (!rt)
        return lc_error(-EPERM, "alpi_task_spawn: the runtime is not running");
    struct lc_indep *r = malloc(sizeof *r);
    if (!r)
        return lc_error(-ENOMEM, "alpi_task_spawn: out of memory");
    r->fn = fn;
    r->arg = arg;
    atomic_fetch_add_explicit(&lc_indep_live, 1, memory_order_relaxed);
    struct lc_worker *w = lc_self;
    if (w && w->rt == rt) {
        if (lc_spawn_detached(w, indep_body, r) < 0) {
            atomic_fetch_sub_explicit(&lc_indep_live, 1, memory_order_relaxed);
            free(r);
            return lc_error(-ENOMEM, "alpi_task_spawn: out of memory");
        }
        return 0;
    }
    inject(rt, r);
    return 0;
}

int lc_inject_drain(struct lc_worker *w)
{
    if (!atomic_load_explicit(&lc_inject_head, memory_order_relaxed))
        return 0;
    struct lc_indep *r = atomic_exchange_explicit(&lc_inject_head, NULL, memory_order_acquire);
    int any = r != NULL;
    while (r) {
        struct lc_indep *next = r->next;   /* r is freed once its task starts */
        if (lc_spawn_detached(w, indep_body, r) < 0)
            inject(w->rt, r);   /* no memory now: left for a later look */
        r = next;
    }
    return any;
}

void lc_independent_wait(struct lc_worker *w)
{
    uint32_t v;
    while ((v = atomic_load_explicit(&lc_indep_live, memory_order_seq_cst)) != 0)
        lc_wait_word_final(w, &lc_indep_live, v);
}
