/*
 * prio.h - the priority policy: task priorities (locus_spawn_attr's
 * attr->priority, OpenMP's priority clause), which every policy applies
 * the same way over queues of its own.  A policy that honours priorities
 * allocates a set (one queue per node) in its init; its push sends a ready
 * task of priority above 0 to a node's queue instead of its deques, its pop
 * looks at its node's queue before anything else, and at another node's
 * before that node's deques (what it may take there, as the policy says:
 * LC_PRIO_*), and its top_prio answers lc_prio_top, so that the core never
 * starts a task while a higher one waits for the same worker (ready.h).
 * Ties run oldest first (StarPU's prio scheduler does the same).  A queue
 * is a binary heap under a lock: priority tasks are meant to be few (the
 * critical path), and a lock costs nothing next to a task's body.
 *
 * None of it runs in a program that never asks for a priority: the set's
 * `used` word is written by the first push that queues one, and every look
 * is behind it, one load of a line that is read-mostly.
 */
#ifndef LC_PRIO_H
#define LC_PRIO_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime.h"
#include "steal.h"
#include "task.h"

/* key = priority in the top 16 bits, then the complement of a sequence
 * number (older first among equals); 0 is "empty" (priorities are >= 1) */
#define LC_PRIO_SHIFT 48
#define LC_PRIO_SEQ_MASK ((UINT64_C(1) << LC_PRIO_SHIFT) - 1)

struct lc_prio_item {
    uint64_t key;
    struct lc_task *t;
};

struct lc_prioq {
    _Alignas(LC_CACHELINE) pthread_mutex_t lock;
    struct lc_prio_item *heap;      /* max-heap on key, n entries of cap */
    size_t n, cap;
    uint64_t seq;
    struct lc_fifo spill;           /* tasks the heap had no room for (no memory) */
    /* the highest key queued, 0 when empty: read without the lock by every
     * pop and every run-next decision while priorities are used */
    _Alignas(LC_CACHELINE) _Atomic uint64_t top;
};

/* One priority queue per node. */
struct lc_prio_set {
    _Alignas(LC_CACHELINE) _Atomic int used;   /* a task with a priority was queued */
    int nnodes;
    struct lc_prioq *q;
};

/* What a worker may take from a node's queue (lc_prio_take). */
enum lc_prio_mode {
    LC_PRIO_ANY,       /* anything: its own node's, or any node's in an oblivious policy */
    LC_PRIO_UNBOUND,   /* not a task bound to its node (NAFT first-touch, LC_TF_BOUND) */
    LC_PRIO_FREE,      /* only a task without a node (t->node < 0) */
};

/* A set of nnodes queues: 0, or -ENOMEM with nothing allocated. */
int lc_prio_init(struct lc_prio_set *s, int nnodes);
void lc_prio_fini(struct lc_prio_set *s);
/* Queues the ready task t (t->prio > 0) on node's queue; never fails (a
 * heap that cannot grow keeps it on the queue's spill list, taken after
 * the heap: its order is lost, not the task). */
void lc_prio_push(struct lc_prio_set *s, int node, struct lc_task *t);
/* The highest task of node's queue if mode allows it, else NULL. */
struct lc_task *lc_prio_pop(struct lc_worker *w, struct lc_prio_set *s, int node,
                            enum lc_prio_mode mode);

static inline int lc_prio_used(const struct lc_prio_set *s)
{
    return atomic_load_explicit(&s->used, memory_order_relaxed);
}

/* The highest priority waiting on node's queue, 0 none (a hint). */
static inline unsigned lc_prio_top(const struct lc_prio_set *s, int node)
{
    return (unsigned)(atomic_load_explicit(&s->q[node].top, memory_order_acquire)
                      >> LC_PRIO_SHIFT);
}

/* The highest task on node's queue that mode allows w to take, or NULL;
 * the lock only when something is queued. */
static inline struct lc_task *lc_prio_take(struct lc_worker *w, struct lc_prio_set *s, int node,
                                           enum lc_prio_mode mode)
{
    if (!atomic_load_explicit(&s->q[node].top, memory_order_acquire)
        && !lc_fifo_size(&s->q[node].spill))
        return NULL;
    return lc_prio_pop(w, s, node, mode);
}

#endif /* LC_PRIO_H */
