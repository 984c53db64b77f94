/*
 * prio.h - task priorities (locus_spawn_attr's attr->priority, OpenMP's
 * priority clause), the same for every policy: a ready task of priority
 * above 0 is queued on a node's priority queue instead of the policy's
 * deques, and every policy's pop looks at its node's priority queue before
 * anything else, and at another node's before that node's deques (what
 * it may take there, as its policy says: LC_PRIO_*).  Ties run oldest
 * first (StarPU's prio scheduler does the same).  The queue is a binary
 * heap under a lock: priority tasks are meant to be few (the critical
 * path), and a lock costs nothing next to a task's body.
 *
 * None of it runs in a program that never asks for a priority: rt->prio_on
 * is set by the first spawn that does (spawn.c), and every test here is
 * behind it, one load of a line every pop reads anyway.  Once it is on, a
 * worker never starts a task of lower priority than the highest waiting
 * on its node's queue: ready.h queues a spawned task instead of running
 * it at its spawn, and exec.c queues the successor it would run next.
 */
#ifndef LC_PRIO_H
#define LC_PRIO_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime.h"
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
    /* the highest key queued, 0 when empty: read without the lock by every
     * pop and every run-next decision while priorities are on */
    _Alignas(LC_CACHELINE) _Atomic uint64_t top;
};

/* What a worker may take from a node's queue (lc_prio_take). */
enum lc_prio_mode {
    LC_PRIO_ANY,       /* anything: its own node's, or any node's in an oblivious policy */
    LC_PRIO_UNBOUND,   /* not a task bound to its node (NAFT first-touch, LC_TF_BOUND) */
    LC_PRIO_FREE,      /* only a task without a node (t->node < 0) */
};

/* init.c: one queue per node in rt->prioq; 0 or -ENOMEM. */
int lc_prio_init(struct lc_runtime *rt);
void lc_prio_fini(struct lc_runtime *rt);
/* Queues the ready task t (t->prio > 0) on node's queue: 0, or -ENOMEM
 * when the queue could not grow. */
int lc_prio_push(struct lc_runtime *rt, int node, struct lc_task *t);
/* The highest task of node's queue if mode allows it, else NULL. */
struct lc_task *lc_prio_pop(struct lc_worker *w, int node, enum lc_prio_mode mode);

static inline int lc_prio_on(const struct lc_runtime *rt)
{
    return atomic_load_explicit(&rt->prio_on, memory_order_relaxed);
}

/* The highest priority waiting on node's queue, 0 none (a hint). */
static inline unsigned lc_prio_waiting(const struct lc_runtime *rt, int node)
{
    return (unsigned)(atomic_load_explicit(&rt->prioq[node].top, memory_order_acquire)
                      >> LC_PRIO_SHIFT);
}

/* Nonzero when a task of priority p must not start on w: a higher one
 * waits on w's node. */
static inline int lc_prio_outranked(const struct lc_worker *w, unsigned p)
{
    return lc_prio_on(w->rt) && lc_prio_waiting(w->rt, w->node) > p;
}

/* A policy's push of t when t->prio > 0: queued on node's queue (-1: w's
 * node), answering as a push does (policy.h) with who, or LC_PUSH_FULL. */
static inline int lc_prio_push_task(struct lc_worker *w, struct lc_task *t, int node, int who)
{
    if (lc_prio_push(w->rt, node >= 0 ? node : w->node, t) < 0)
        return LC_PUSH_FULL;
    return who;
}

/* The highest task on node's queue that mode allows w to take, or NULL;
 * the lock only when something is queued. */
static inline struct lc_task *lc_prio_take(struct lc_worker *w, int node, enum lc_prio_mode mode)
{
    if (!atomic_load_explicit(&w->rt->prioq[node].top, memory_order_acquire))
        return NULL;
    return lc_prio_pop(w, node, mode);
}

#endif /* LC_PRIO_H */
