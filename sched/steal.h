/*
 * steal.h - what every scheduling policy does the same way: push on the
 * calling worker's own deque, and steal from a set of victim workers
 * (random start, lone tasks left alone for a while, wake-ups passed on
 * through the core's lc_wake_for).
 */
#ifndef LC_STEAL_H
#define LC_STEAL_H

#include <stdatomic.h>
#include <stdint.h>

#include "deque.h"
#include "policy.h"
#include "rng.h"
#include "runtime.h"

/* Deque items: a task descriptor, or a light task (a ready task without
 * dependencies or argument copy, queued as fn, arg, parent: whoever takes
 * it builds its descriptor from its own pool, so a thief moves one deque
 * slot instead of the descriptor's lines there and back). */
#define LC_QI_LIGHT 1u
/* A task its queuing worker will not run next (LC_TF_HANDOFF): a thief may
 * take it even when it is alone in the deque (lc_may_steal_from). */
#define LC_QI_HANDOFF 2u

static inline struct lc_qitem lc_qitem_task(struct lc_task *t)
{
    struct lc_qitem it = { t, NULL, NULL, t->flags & LC_TF_HANDOFF ? LC_QI_HANDOFF : 0 };
    return it;
}

/*
 * Whether w may steal from d now.  A lone task is left alone for
 * LC_LONE_STEAL_POLLS idle polls (runtime.h: its owner is usually about
 * to run it) unless it was handed off: queued by a completion whose worker
 * went on to run another released task first (ready.h), so that it waits
 * at least a whole body there.  Without that exception a width-2 stencil
 * ran on one worker: each step's second completion runs one successor and
 * queues the other alone, and the idle worker, having polled fewer than
 * LC_LONE_STEAL_POLLS times since its own task ended, left it to the owner
 * (benchmarks/README.md, the parallelism probe).
 */
static inline int lc_may_steal_from(const struct lc_worker *w, struct lc_deque *d)
{
    int64_t n = lc_deque_size(d);
    if (lc_may_steal(w, n))
        return 1;
    return n == 1 && (lc_deque_peek_top_c(d) & LC_QI_HANDOFF);
}

/* spawn.c: the descriptor of a light task taken by w, or NULL when memory
 * is exhausted and the item went back on w's deque. */
struct lc_task *lc_light_open(struct lc_worker *w, const struct lc_qitem *it);

/* The task an item taken from a deque stands for (NULL for "nothing"). */
static inline struct lc_task *lc_qitem_open(struct lc_worker *w, const struct lc_qitem *it)
{
    if (__builtin_expect(it->c & LC_QI_LIGHT, 0))
        return lc_light_open(w, it);
    return it->p;
}

/* Queues a ready task on w's own deque, where any node's workers may take
 * it: a push's answer (policy.h). */
static inline int lc_push_own(struct lc_worker *w, struct lc_task *t)
{
    struct lc_qitem it = lc_qitem_task(t);
    if (__builtin_expect(lc_deque_push_owner(&w->dq, &it) < 0, 0))
        return LC_PUSH_FULL;   /* the deque could not grow */
    return LC_WAKE_ANY;
}

/*
 * Steals one task from deques[v] of the n workers v in victims (ids; w
 * itself is skipped; deques NULL: each worker's own dq), starting at a
 * random one, and counts the steal by the distance between w's node and the
 * victim's.  node >= 0: the victims' node, whose sleepers a thief that
 * leaves work behind wakes; -1: any node's.
 */
static inline struct lc_task *lc_steal_from_deques(struct lc_worker *w, const int *victims,
                                                   int n, int node, struct lc_deque *deques)
{
    struct lc_runtime *rt = w->rt;
    if (n <= 0)
        return NULL;
    int start = (int)(lc_rng_next(&w->rng) % (uint64_t)n);
    for (int i = 0; i < n; i++) {
        int v = victims[start + i < n ? start + i : start + i - n];
        if (v == w->id)
            continue;
        struct lc_deque *d = deques ? &deques[v] : &rt->workers[v].dq;
        if (!lc_may_steal_from(w, d))
            continue;
        struct lc_qitem it = lc_deque_steal(d);
        if (!it.p)
            continue;
        lc_stat_add(&w->stats.steals[rt->topo.nnodes == 1 ? LC_DIST_LOCAL
                    : lc_topology_class(&rt->topo, w->node, rt->workers[v].node)], 1);
        if (__builtin_expect(w->trace != NULL, 0))
            lc_trace_mark(w, LC_EV_STEAL, (uint64_t)rt->workers[v].node);
        /* more left behind: pass the wake-up on (a push wakes one sleeper,
         * which would otherwise leave a burst to a single thief) */
        if (lc_sleepers(rt, node) > 0 && lc_deque_size(d) > 0)
            lc_wake_for(w, node >= 0 ? node : LC_WAKE_ANY);
        struct lc_task *t = lc_qitem_open(w, &it);
        if (t)
            return t;
    }
    return NULL;
}

/* Steals one task from the own deques of the n workers in victims. */
static inline struct lc_task *lc_steal_from(struct lc_worker *w, const int *victims, int n,
                                            int node)
{
    return lc_steal_from_deques(w, victims, n, node, NULL);
}

/* Puts a light task on w's own deque without waking anyone: 0 or -ENOMEM. */
static inline int lc_queue_light(struct lc_worker *w, locus_task_fn fn, void *arg,
                                 struct lc_task *parent)
{
    struct lc_qitem it = { (void *)fn, arg, parent, LC_QI_LIGHT };
    return lc_deque_push_owner(&w->dq, &it);
}

/* Queues a light task on w's own deque (any node's workers may take it). */
static inline int lc_push_light(struct lc_worker *w, locus_task_fn fn, void *arg,
                                struct lc_task *parent)
{
    if (__builtin_expect(lc_queue_light(w, fn, arg, parent) < 0, 0))
        return -ENOMEM;
    return 0;
}

/* The owner's pop of its own deque. */
static inline struct lc_task *lc_pop_own(struct lc_worker *w)
{
    struct lc_qitem it = lc_deque_pop_owner(&w->dq);
    return it.p ? lc_qitem_open(w, &it) : NULL;
}

/* Queue length past which a spawner runs dependency-free tasks itself:
 * plenty of work is already exposed to thieves, so deferring more only
 * costs a push and a pop (libgomp makes the same trade). */
#define LC_BACKLOG 64

static inline int lc_backlog_own(struct lc_worker *w)
{
    return lc_deque_size_owner(&w->dq, LC_BACKLOG) > LC_BACKLOG;
}

/*
 * Tasks a spawner of short tasks keeps queued for idle workers.  When
 * bodies are shorter than a hand-over (runtime/grain.h) a ready task runs
 * at its spawn; if every one did, the other workers would get nothing and
 * independent tiny tasks would run at one worker's speed, below half the
 * machine at any body size under LOCUS_GRAIN_NS.  So a spawner whose own
 * deque holds fewer than this many tasks queues the next one instead: idle
 * thieves take from that stock at their pace (each at a hand-over's cost,
 * which is theirs to pay, being idle), and a spawner nobody takes from
 * pushes this many and then runs the rest itself.  Not for bodies far
 * shorter than a hand-over (lc_grain_shareable in runtime/grain.h).
 * Half the backlog, whatever the number of workers: with a stock of a few
 * the spawner's end of the deque and the thieves' end share cache lines
 * (two items a line), so that every push and every steal moves them
 * between the cores, and a thief often finds a lone task (lc_may_steal)
 * and waits; 32 keeps the ends apart (benchmarks/README.md has the
 * measurements of 4, 8, 16, 32 and 56).
 */
#define LC_STOCK (LC_BACKLOG / 2)

static inline int lc_stock_low_own(struct lc_worker *w)
{
    if (w->rt->nworkers < 2)
        return 0;   /* nobody to keep them for */
    return lc_deque_below_owner(&w->dq, LC_STOCK);
}

#endif /* LC_STEAL_H */
