/*
 * events.c - external events and blocking of the running task (the public
 * API in locus.h; the handshake with the body's end in events.h), the
 * references to tasks that users hold for them, and the hand-over of
 * completions from threads that are not workers.
 *
 * A reference is the task's descriptor and the low bits of its generation
 * (task.h).  Every call that takes one checks, before reading the
 * descriptor, that it points into the runtime's descriptor slabs
 * (lc_taskpool_owns: a pointer that was never a reference is refused
 * without being read), and checks the generation in the same
 * compare-and-swap that changes the state: a reference to a task that has
 * completed gets -EINVAL however long ago it completed and whatever task
 * the descriptor carries now.
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
 * lc_wait_state, running other tasks meanwhile.
 */
#include <errno.h>
#include <stdatomic.h>

#include "events.h"
#include "run.h"
#include "runtime.h"
#include "spin.h"
#include "thread.h"

/* read by every worker between tasks: a line of its own, away from writes */
_Alignas(64) _Atomic(struct lc_task *) lc_ext_head;
_Alignas(64) _Atomic long lc_events_waiting, lc_tasks_blocked;

/* The task running on the calling thread: a task's body, or the
 * initial thread's implicit task (main is a task, as under OmpSs-2: ALPI
 * and locus-mpi may block it or count events on it), or an OpenMP
 * implicit task. */
locus_task_ref_t lc_task_current_ref(void)
{
    struct lc_worker *w = lc_self;
    if (!w || !w->cur)
        return NULL;
    return lc_ref_of(w->cur);
}

/* The handle a task is unblocked by: the program may block tasks from now
 * on (thread.h).  The library's own uses (gomp/detach.c) take
 * lc_task_current_ref, which says nothing of the kind. */
LOCUS_API locus_task_ref_t locus_task_current(void)
{
    lc_blocking_note();
    return lc_task_current_ref();
}

struct lc_task *lc_ref_check(locus_task_ref_t ref, uint32_t *gen, const char *fn, int *err)
{
    struct lc_runtime *rt = lc_rt;
    if (!rt) {
        *err = lc_error(-EPERM, "%s: the runtime is not running", fn);
        return NULL;
    }
    if (!ref) {
        *err = lc_error(-EINVAL, "%s: task is NULL", fn);
        return NULL;
    }
    struct lc_task *t = lc_ref_task(ref, gen);
    if (!lc_taskpool_owns(rt->npools, t)) {
        *err = lc_error(-EINVAL, "%s: %p is not a task reference of this runtime (one from "
                        "locus_task_current() or alpi_task_self() before the last "
                        "locus_init(), or not one at all)", fn, (void *)ref);
        return NULL;
    }
    return t;
}

/* The message for a reference whose task is over. */
static int stale(const char *fn)
{
    return lc_error(-EINVAL, "%s: the task is complete (the reference is stale)", fn);
}

int lc_events_body_end_slow(struct lc_task *t)
{
    /* release: the fulfiller that completes t reads t->nspawned */
    uint64_t old = atomic_fetch_or_explicit(&t->state, LC_ST_BODYDONE, memory_order_acq_rel);
    if (LC_ST_LOW(old) < LC_ST_EV_ONE)
        return 1;   /* fulfilled between the load and here */
    atomic_fetch_add_explicit(&lc_events_waiting, 1, memory_order_relaxed);
    return 0;
}

LOCUS_API int locus_task_events_increase(locus_task_ref_t ref, unsigned n)
{
    static const char fn[] = "locus_task_events_increase";
    uint32_t gen;
    int err;
    struct lc_task *t = lc_ref_check(ref, &gen, fn, &err);
    if (!t)
        return err;
    if (n == 0)
        return lc_error(-EINVAL, "%s: n is 0", fn);
    if (n > LOCUS_EVENTS_MAX)
        return lc_error(-EINVAL, "%s: n = %u is more than LOCUS_EVENTS_MAX (%u)", fn, n,
                        LOCUS_EVENTS_MAX);
    struct lc_worker *w = lc_self;
    uint64_t old = atomic_load_explicit(&t->state, memory_order_relaxed);
    /* the task's body is what runs here (checked with the generation) */
    int own = w && w->cur == t && lc_ref_current(old, gen);
    if (own && (t->flags & LC_TF_ROOT) && t != lc_rt->root)
        return lc_error(-EINVAL, "%s: an OpenMP implicit task cannot have events", fn);
    for (;;) {
        uint32_t low = LC_ST_LOW(old), cnt = low >> LC_ST_EV_SHIFT;
        if (!lc_ref_current(old, gen) || (low & LC_ST_COMPLETE))
            return stale(fn);
        if (cnt == 0 && (low & LC_ST_BODYDONE))
            return lc_error(-EINVAL, "%s: the task's body has returned and its events are "
                            "all fulfilled (it is completing)", fn);
        if (cnt == 0 && !own)
            return lc_error(-EINVAL, "%s: only the task's own body, or a holder of one of its "
                            "unfulfilled events, may add events", fn);
        if (n > LOCUS_EVENTS_MAX - cnt)
            return lc_error(-EINVAL, "%s: %u + %u events would be more than LOCUS_EVENTS_MAX "
                            "(%u)", fn, cnt, n, LOCUS_EVENTS_MAX);
        if (atomic_compare_exchange_weak_explicit(&t->state, &old,
                                                  old + ((uint64_t)n << LC_ST_EV_SHIFT),
                                                  memory_order_relaxed, memory_order_relaxed))
            return 0;
    }
}

/* t's body has returned and its last event is fulfilled: the body's share
 * of pending goes now, as at the end of a body (run.c). */
static void body_share_done(struct lc_task *t)
{
    atomic_fetch_sub_explicit(&lc_events_waiting, 1, memory_order_relaxed);
    int64_t share = LC_BIAS - t->nspawned;
    if (atomic_fetch_sub_explicit(&t->pending, share, memory_order_acq_rel) != share)
        return;   /* children still running: the last one completes t */
    struct lc_worker *w = lc_self;
    struct lc_runtime *rt = lc_rt;
    if (w && w->rt == rt) {
        lc_complete(w, t, LC_COMPLETE_EVENT);
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
    static const char fn[] = "locus_task_events_decrease";
    uint32_t gen;
    int err;
    struct lc_task *t = lc_ref_check(ref, &gen, fn, &err);
    if (!t)
        return err;
    if (n == 0)
        return lc_error(-EINVAL, "%s: n is 0", fn);
    uint64_t old = atomic_load_explicit(&t->state, memory_order_relaxed);
    for (;;) {
        uint32_t low = LC_ST_LOW(old), cnt = low >> LC_ST_EV_SHIFT;
        if (!lc_ref_current(old, gen) || (low & LC_ST_COMPLETE))
            return stale(fn);
        if (n > cnt)
            return lc_error(-EINVAL, "%s: %u events fulfilled but only %u outstanding", fn, n,
                            cnt);
        /* acq_rel: the body's end (acquire) and the completing thread
         * (acquire) see what every fulfiller wrote before fulfilling */
        if (atomic_compare_exchange_weak_explicit(&t->state, &old,
                                                  old - ((uint64_t)n << LC_ST_EV_SHIFT),
                                                  memory_order_acq_rel, memory_order_relaxed))
            break;
    }
    if (n == LC_ST_LOW(old) >> LC_ST_EV_SHIFT && (LC_ST_LOW(old) & LC_ST_BODYDONE))
        body_share_done(t);
    else if (__builtin_expect(t == lc_rt->root, 0))
        lc_wake_waiters(lc_rt);   /* locus_finalize may wait for main's events */
    return 0;
}

/*
 * The calling task waits for an unblock.  Its thread sleeps and its worker
 * is handed to another thread, which runs other tasks meanwhile
 * (thread.h); the unblock queues the thread back on that worker.  The
 * state word carries the handshake: PARKED is set by the blocker with a
 * compare-and-swap that fails if a TOKEN came first, and the unblock that
 * finds PARKED clears it and resumes the thread.  Where no other thread can
 * be had (none idle, none can be made), the task waits on its own thread's
 * stack, running other tasks, as before.
 */
LOCUS_API int locus_task_block(void)
{
    lc_blocking_note();
    struct lc_worker *w = lc_self;
    if (!lc_rt)
        return lc_error(-EPERM, "locus_task_block: the runtime is not running");
    if (!w || !w->cur || !lc_thr)
        return lc_error(-ENOTSUP, "locus_task_block: not called from a task (a worker's, or "
                        "the initial thread's after locus_init)");
    struct lc_task *t = w->cur;
    uint64_t s = atomic_load_explicit(&t->state, memory_order_acquire);
    int counted = 0;
    for (;;) {
        if (s & LC_ST_TOKEN) {
            /* acquire: what the unblocker wrote before unblocking is seen */
            if (atomic_compare_exchange_weak_explicit(&t->state, &s, s & ~(uint64_t)LC_ST_TOKEN,
                                                      memory_order_acquire, memory_order_acquire))
                break;
            continue;
        }
        if (!counted) {
            atomic_fetch_add_explicit(&lc_tasks_blocked, 1, memory_order_relaxed);
            counted = 1;
        }
        struct lc_thread *to = lc_thread_reserve(w);
        if (!to) {
            /* no thread to give the worker to: wait here, running other
             * tasks until the word changes (any change: look again) */
            lc_wait_state(w, t, s);
            s = atomic_load_explicit(&t->state, memory_order_acquire);
            continue;
        }
        t->parked = lc_thr;
        /* release: the unblocker that sees PARKED sees t->parked */
        if (!atomic_compare_exchange_strong_explicit(&t->state, &s, s | LC_ST_PARKED,
                                                     memory_order_acq_rel,
                                                     memory_order_acquire)) {
            lc_thread_unreserve(to);   /* unblocked meanwhile: look again */
            continue;
        }
        lc_thread_handoff(w, to);      /* back once unblocked, on w */
        w = lc_self;
        s = atomic_load_explicit(&t->state, memory_order_acquire);
    }
    if (counted)
        atomic_fetch_sub_explicit(&lc_tasks_blocked, 1, memory_order_relaxed);
    return 0;
}

LOCUS_API int locus_task_unblock(locus_task_ref_t ref)
{
    static const char fn[] = "locus_task_unblock";
    lc_blocking_note();
    uint32_t gen;
    int err;
    struct lc_task *t = lc_ref_check(ref, &gen, fn, &err);
    if (!t)
        return err;
    uint64_t old = atomic_load_explicit(&t->state, memory_order_relaxed), nw;
    do {
        if (!lc_ref_current(old, gen) || (old & LC_ST_COMPLETE))
            return stale(fn);
        if (old & LC_ST_TOKEN)
            return 0;   /* one token: a second unblock before the block adds nothing */
        nw = (old | LC_ST_TOKEN) & ~(uint64_t)LC_ST_PARKED;
        /* seq_cst: the waker's half of lc_wait_state's handshake */
    } while (!atomic_compare_exchange_weak_explicit(&t->state, &old, nw,
                                                    memory_order_seq_cst, memory_order_relaxed));
    if (old & LC_ST_PARKED)
        lc_thread_resume(t->parked);   /* its thread sleeps: back on its worker */
    else
        lc_wake_waiters(lc_rt);        /* it waits on its stack, or has not blocked yet */
    return 0;
}

/* Completes what foreign threads left; 1 when there was something. */
static int ext_drain(struct lc_worker *w)
{
    if (!atomic_load_explicit(&lc_ext_head, memory_order_relaxed))
        return 0;
    struct lc_task *t = atomic_exchange_explicit(&lc_ext_head, NULL, memory_order_acquire);
    int any = t != NULL;
    /* pushed newest first: completed in the order their events were
     * fulfilled (ready.h, LC_READY_EVENT) */
    struct lc_task *fifo = NULL;
    while (t) {
        struct lc_task *next = t->qnext;
        t->qnext = fifo;
        fifo = t;
        t = next;
    }
    for (t = fifo; t;) {
        struct lc_task *next = t->qnext;   /* read before t may be freed */
        lc_complete(w, t, LC_COMPLETE_EVENT);
        t = next;
    }
    return any;
}

int lc_async_run(struct lc_worker *w, int idle)
{
    int did = ext_drain(w) | lc_inject_drain(w);
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

void lc_root_events_wait(struct lc_worker *w)
{
    struct lc_task *root = w->rt->root;
    uint64_t s;
    while (LC_ST_LOW(s = atomic_load_explicit(&root->state, memory_order_acquire))
           >= LC_ST_EV_ONE)
        lc_wait_state(w, root, s);
}
