/*
 * events.c - external events and blocking of the running task (the public
 * API in locus.h; the handshake with the body's end in events.h), and the
 * hand-over of completions from threads that are not workers.
 *
 * A task whose last event is fulfilled after its body returned completes
 * on the fulfilling thread when that is a worker (as if a child had
 * completed there).  Any other thread cannot run a completion (it needs a
 * worker's descriptor pool and queues), so it pushes the task on
 * lc_ext_head, linked through qnext (free once the task has run), and
 * wakes a sleeper with the same handshake as a task push (wait.c); every
 * worker looks at the list between tasks and before sleeping.
 *
 * Blocking keeps no state outside the task: the token is a bit of its
 * state word, and the blocked task's thread waits on that word with
 * lc_wait_word, running other tasks meanwhile.
 */
#include <errno.h>
#include <stdatomic.h>

#include "events.h"
#include "runtime.h"
#include "spin.h"

_Atomic(struct lc_task *) lc_ext_head;

/* The public handle is the descriptor itself. */
static inline struct lc_task *task_of(locus_task_ref_t ref)
{
    return (struct lc_task *)(void *)ref;
}

LOCUS_API locus_task_ref_t locus_task_current(void)
{
    struct lc_worker *w = lc_self;
    if (!w || !w->cur || (w->cur->flags & LC_TF_ROOT))
        return NULL;
    return (locus_task_ref_t)(void *)w->cur;
}

int lc_events_body_end_slow(struct lc_task *t)
{
    /* release: the fulfiller that completes t reads t->nspawned */
    uint32_t old = atomic_fetch_or_explicit(&t->state, LC_ST_BODYDONE, memory_order_acq_rel);
    return old < LC_ST_EV_ONE;   /* fulfilled between the load and here */
}

LOCUS_API int locus_task_events_increase(locus_task_ref_t ref, unsigned n)
{
    struct lc_task *t = task_of(ref);
    if (!lc_rt)
        return lc_error(-EPERM, "locus_task_events_increase: the runtime is not running");
    if (!t)
        return lc_error(-EINVAL, "locus_task_events_increase: task is NULL");
    if (n == 0)
        return lc_error(-EINVAL, "locus_task_events_increase: n is 0");
    if (n > LOCUS_EVENTS_MAX)
        return lc_error(-EINVAL, "locus_task_events_increase: n = %u is more than "
                        "LOCUS_EVENTS_MAX (%u)", n, LOCUS_EVENTS_MAX);
    struct lc_worker *w = lc_self;
    int own = w && w->cur == t;   /* the task's body is what runs here */
    if (own && (t->flags & LC_TF_ROOT))
        return lc_error(-EINVAL, "locus_task_events_increase: the initial thread's or an "
                        "implicit task cannot have events");
    uint32_t old = atomic_load_explicit(&t->state, memory_order_relaxed);
    for (;;) {
        uint32_t cnt = old >> LC_ST_EV_SHIFT;
        if (old & LC_ST_COMPLETE)
            return lc_error(-EINVAL, "locus_task_events_increase: the task is complete");
        if (cnt == 0 && (old & LC_ST_BODYDONE))
            return lc_error(-EINVAL, "locus_task_events_increase: the task's body has "
                            "returned and its events are all fulfilled (it is completing)");
        if (cnt == 0 && !own)
            return lc_error(-EINVAL, "locus_task_events_increase: only the task's own body, "
                            "or a holder of one of its unfulfilled events, may add events");
        if (n > LOCUS_EVENTS_MAX - cnt)
            return lc_error(-EINVAL, "locus_task_events_increase: %u + %u events would be "
                            "more than LOCUS_EVENTS_MAX (%u)", cnt, n, LOCUS_EVENTS_MAX);
        if (atomic_compare_exchange_weak_explicit(&t->state, &old, old + (n << LC_ST_EV_SHIFT),
                                                  memory_order_relaxed, memory_order_relaxed))
            return 0;
    }
}

/* t's body has returned and its last event is fulfilled: the body's share
 * of pending goes now, as at the end of run_body (exec.c). */
static void body_share_done(struct lc_task *t)
{
    int64_t share = LC_BIAS - t->nspawned;
    if (atomic_fetch_sub_explicit(&t->pending, share, memory_order_acq_rel) != share)
        return;   /* children still running: the last one completes t */
    struct lc_worker *w = lc_self;
    struct lc_runtime *rt = lc_rt;
    if (w && w->rt == rt) {
        lc_task_complete_busy(w, t);
        return;
    }
    /* release: the worker that completes t sees everything before this */
    struct lc_task *head = atomic_load_explicit(&lc_ext_head, memory_order_relaxed);
    do
        t->qnext = head;
    while (!atomic_compare_exchange_weak_explicit(&lc_ext_head, &head, t,
                                                  memory_order_release, memory_order_relaxed));
    lc_notify_any(rt, 0);   /* the pusher's half of wait.c's handshake */
}

LOCUS_API int locus_task_events_decrease(locus_task_ref_t ref, unsigned n)
{
    struct lc_task *t = task_of(ref);
    if (!lc_rt)
        return lc_error(-EPERM, "locus_task_events_decrease: the runtime is not running");
    if (!t)
        return lc_error(-EINVAL, "locus_task_events_decrease: task is NULL");
    if (n == 0)
        return lc_error(-EINVAL, "locus_task_events_decrease: n is 0");
    uint32_t old = atomic_load_explicit(&t->state, memory_order_relaxed);
    for (;;) {
        uint32_t cnt = old >> LC_ST_EV_SHIFT;
        if (old & LC_ST_COMPLETE)
            return lc_error(-EINVAL, "locus_task_events_decrease: the task is complete");
        if (n > cnt)
            return lc_error(-EINVAL, "locus_task_events_decrease: %u events fulfilled but "
                            "only %u outstanding", n, cnt);
        /* acq_rel: the body's end (acquire) and the completing thread
         * (acquire) see what every fulfiller wrote before fulfilling */
        if (atomic_compare_exchange_weak_explicit(&t->state, &old, old - (n << LC_ST_EV_SHIFT),
                                                  memory_order_acq_rel, memory_order_relaxed))
            break;
    }
    if (n == old >> LC_ST_EV_SHIFT && (old & LC_ST_BODYDONE))
        body_share_done(t);
    return 0;
}

LOCUS_API int locus_task_block(void)
{
    struct lc_worker *w = lc_self;
    if (!lc_rt)
        return lc_error(-EPERM, "locus_task_block: the runtime is not running");
    if (!w || !w->cur || (w->cur->flags & LC_TF_ROOT))
        return lc_error(-ENOTSUP, "locus_task_block: not called from inside a task");
    struct lc_task *t = w->cur;
    uint32_t s = atomic_load_explicit(&t->state, memory_order_acquire);
    for (;;) {
        if (s & LC_ST_TOKEN) {
            /* acquire: what the unblocker wrote before unblocking is seen */
            if (atomic_compare_exchange_weak_explicit(&t->state, &s, s & ~LC_ST_TOKEN,
                                                      memory_order_acquire, memory_order_acquire))
                return 0;
            continue;
        }
        /* runs other tasks until the word changes (any change: look again) */
        lc_wait_word(w, &t->state, s);
        s = atomic_load_explicit(&t->state, memory_order_acquire);
    }
}

LOCUS_API int locus_task_unblock(locus_task_ref_t ref)
{
    struct lc_task *t = task_of(ref);
    struct lc_runtime *rt = lc_rt;
    if (!rt)
        return lc_error(-EPERM, "locus_task_unblock: the runtime is not running");
    if (!t)
        return lc_error(-EINVAL, "locus_task_unblock: task is NULL");
    uint32_t old = atomic_load_explicit(&t->state, memory_order_relaxed);
    do {
        if (old & LC_ST_COMPLETE)
            return lc_error(-EINVAL, "locus_task_unblock: the task is complete");
        if (old & LC_ST_TOKEN)
            return 0;   /* one token: a second unblock before the block adds nothing */
        /* seq_cst: the waker's half of lc_wait_word's handshake */
    } while (!atomic_compare_exchange_weak_explicit(&t->state, &old, old | LC_ST_TOKEN,
                                                    memory_order_seq_cst, memory_order_relaxed));
    lc_wake_waiters(rt);
    return 0;
}

/* Completes what foreign threads left; 1 when there was something. */
static int ext_drain(struct lc_worker *w)
{
    if (!atomic_load_explicit(&lc_ext_head, memory_order_relaxed))
        return 0;
    struct lc_task *t = atomic_exchange_explicit(&lc_ext_head, NULL, memory_order_acquire);
    int any = t != NULL;
    while (t) {
        struct lc_task *next = t->qnext;   /* read before t may be freed */
        lc_task_complete_busy(w, t);
        t = next;
    }
    return any;
}

int lc_async_run(struct lc_worker *w, int idle)
{
    int did = ext_drain(w);
    if (atomic_load_explicit(&lc_poll_count, memory_order_relaxed) > 0) {
        uint64_t now = idle ? 0 : lc_now_ns();
        if (idle || now >= w->poll_next_ns) {
            if (lc_poll_services())
                did = 1;
            w->poll_next_ns = (idle ? lc_now_ns() : now) + w->rt->opt.poll_us * 1000ull;
        }
    }
    return did;
}
