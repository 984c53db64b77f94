/*
 * steal.h - the queue kinds every policy builds on, and what every policy
 * does the same way with them: per-worker Chase-Lev deques (the owner
 * pushes and pops at one end, thieves steal at the other), locked FIFOs
 * linked through the tasks (a node's inbox, its first-touch tasks, and
 * the spill list that makes a push unable to fail), stealing from a set of
 * victims (random start, a lone task left to its owner for a while, the
 * core told when a take leaves work behind), and the owner's counts that
 * the core decides by (LC_BACKLOG, LC_STOCK).  All of it operates on
 * queues the calling policy owns and passes in.
 */
#ifndef LC_STEAL_H
#define LC_STEAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "deque.h"
#include "policy.h"
#include "rng.h"
#include "runtime.h"

/* The item standing for task descriptor t. */
static inline struct lc_qitem lc_qitem_task(struct lc_task *t)
{
    struct lc_qitem it = { t, NULL, NULL, t->flags & LC_TF_HANDOFF ? LC_QI_HANDOFF : 0 };
    return it;
}

/* ---- locked FIFOs of task descriptors, linked through qnext ---- */

struct lc_fifo {
    _Alignas(LC_CACHELINE) pthread_mutex_t lock;
    struct lc_task *head, *tail;
    _Atomic long size;   /* read without the lock: an empty FIFO costs a load */
};

static inline void lc_fifo_init(struct lc_fifo *f)
{
    pthread_mutex_init(&f->lock, NULL);
    f->head = f->tail = NULL;
    atomic_init(&f->size, 0);
}

static inline void lc_fifo_destroy(struct lc_fifo *f)
{
    pthread_mutex_destroy(&f->lock);
}

static inline long lc_fifo_size(const struct lc_fifo *f)
{
    return atomic_load_explicit(&f->size, memory_order_relaxed);
}

static inline void lc_fifo_push(struct lc_fifo *f, struct lc_task *t)
{
    t->qnext = NULL;
    pthread_mutex_lock(&f->lock);
    if (f->tail)
        f->tail->qnext = t;
    else
        f->head = t;
    f->tail = t;
    atomic_store_explicit(&f->size, atomic_load_explicit(&f->size, memory_order_relaxed) + 1,
                          memory_order_release);
    pthread_mutex_unlock(&f->lock);
}

/* The oldest task, or NULL; the lock only when the FIFO looks non-empty. */
static inline struct lc_task *lc_fifo_pop(struct lc_fifo *f)
{
    if (atomic_load_explicit(&f->size, memory_order_acquire) == 0)
        return NULL;
    pthread_mutex_lock(&f->lock);
    struct lc_task *t = f->head;
    if (t) {
        f->head = t->qnext;
        if (!f->head)
            f->tail = NULL;
        atomic_store_explicit(&f->size, atomic_load_explicit(&f->size, memory_order_relaxed) - 1,
                              memory_order_release);
    }
    pthread_mutex_unlock(&f->lock);
    return t;
}

/* ---- deques ---- */

/* Queues t on deque d (w's own), or on spill when d cannot grow (no
 * memory): a push never fails. */
static inline void lc_deque_push_or_spill(struct lc_deque *d, struct lc_fifo *spill,
                                          struct lc_task *t)
{
    struct lc_qitem it = lc_qitem_task(t);
    if (__builtin_expect(lc_deque_push_owner(d, &it) < 0, 0))
        lc_fifo_push(spill, t);
}

/* The item for a task taken from a FIFO (p NULL when t is NULL). */
static inline struct lc_qitem lc_qitem_of(struct lc_task *t)
{
    struct lc_qitem it = { t, NULL, NULL, 0 };
    return it;
}

/*
 * Whether w may steal from d now.  A lone task is usually about to be run
 * by its owner, or heads a chain of dependent tasks its owner is still
 * spawning: taking it at once makes every task of the chain cross cores.
 * A thief that waits LC_LONE_STEAL_POLLS idle polls (a few microseconds)
 * finds it still there only when its owner is really busy, and then takes
 * the whole chain behind it; so does a worker's last look before it sleeps
 * (w->last_look: with LOCUS_SPIN below the patience it would otherwise
 * sleep past a lone task whose owner is blocked, and no push would come to
 * wake it).  The exception is a task handed off: queued by a completion
 * whose worker went on to run another released task first (ready.h), so
 * that it waits at least a whole body there.  Without that exception a
 * width-2 stencil ran on one worker: each step's second completion runs
 * one successor and queues the other alone, and the idle worker, having
 * polled fewer than LC_LONE_STEAL_POLLS times since its own task ended,
 * left it to the owner (benchmarks/README.md, the parallelism probe).
 */
#define LC_LONE_STEAL_POLLS 64
static inline int lc_may_steal_from(const struct lc_worker *w, struct lc_deque *d)
{
    int64_t n = lc_deque_size(d);
    if (n > 1 || (n == 1 && (w->idle_polls >= LC_LONE_STEAL_POLLS || w->last_look)))
        return 1;
    return n == 1 && (lc_deque_peek_top_c(d) & LC_QI_HANDOFF);
}

/* Worker v's deque in an array of per-worker records of stride bytes
 * whose first (or only) member is that deque. */
static inline struct lc_deque *lc_deque_at(void *base, size_t stride, int v)
{
    return (struct lc_deque *)(void *)((char *)base + (size_t)v * stride);
}

/*
 * Steals one item from worker v's deque (lc_deque_at(base, stride, v)) for
 * the n worker ids v in victims (w itself is skipped), starting at a
 * random one, and notes the steal from the victim's node (lc_note_steal).
 * wake_for: whom a thief that leaves work behind asks the core to wake (the
 * victims' node, or LC_WAKE_ANY), written to *wake when it does: a push
 * wakes one sleeper, which would otherwise leave a burst to a single thief.
 */
static inline struct lc_qitem lc_steal_items(struct lc_worker *w, void *base, size_t stride,
                                             const int *victims, int n, int wake_for,
                                             int *wake)
{
    struct lc_runtime *rt = w->rt;
    struct lc_qitem none = { NULL, NULL, NULL, 0 };
    if (n <= 0)
        return none;
    int start = (int)(lc_rng_next(&w->rng) % (uint64_t)n);
    for (int i = 0; i < n; i++) {
        int v = victims[start + i < n ? start + i : start + i - n];
        if (v == w->id)
            continue;
        struct lc_deque *d = lc_deque_at(base, stride, v);
        if (!lc_may_steal_from(w, d))
            continue;
        struct lc_qitem it = lc_deque_steal(d);
        if (!it.p)
            continue;
        lc_note_steal(w, rt->workers[v].node);
        if (lc_sleepers(rt, wake_for >= 0 ? wake_for : -1) > 0 && lc_deque_size(d) > 0)
            *wake = wake_for;
        return it;
    }
    return none;
}

/* ---- the owner's counts (policy.h: backlog, stock_low) ---- */

/* Queue length past which a spawner runs new tasks itself: plenty of work
 * is already exposed to thieves, so deferring more only costs a push and a
 * pop (libgomp makes the same trade). */
#define LC_BACKLOG 64

/*
 * Tasks a spawner of short tasks keeps queued for idle workers.  When
 * bodies are shorter than a hand-over (runtime/grain.h) a ready task runs
 * at its spawn; if every one did, the other workers would get nothing and
 * independent tiny tasks would run at one worker's speed, below half the
 * machine at any body size under LOCUS_GRAIN_NS.  So a spawner whose own
 * queues hold fewer than this many tasks queues the next one instead: idle
 * thieves take from that stock at their pace (each at a hand-over's cost,
 * which is theirs to pay, being idle), and a spawner nobody takes from
 * pushes this many and then runs the rest itself.  Not for bodies far
 * shorter than a hand-over (lc_grain_shareable in runtime/grain.h).
 * Half the backlog, whatever the number of workers: with a stock of a few
 * the spawner's end of the deque and the thieves' end share cache lines
 * (two items a line), so that every push and every steal moves them
 * between the cores, and a thief often finds a lone task and waits; 32
 * keeps the ends apart (benchmarks/README.md has the measurements of 4, 8,
 * 16, 32 and 56).
 */
#define LC_STOCK (LC_BACKLOG / 2)

#endif /* LC_STEAL_H */
