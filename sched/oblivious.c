/*
 * oblivious.c - the NUMA-oblivious scheduler of the DFT and DI regimes:
 * one Chase-Lev deque per worker; a worker runs its own newest task first
 * (depth-first, cache-warm) and, when it has none, steals the oldest task
 * of a victim picked at random (R. D. Blumofe and C. E. Leiserson,
 * "Scheduling multithreaded computations by work stealing", JACM 1999).
 */
#include <errno.h>
#include <stdio.h>

#include "deque.h"
#include "runtime.h"
#include "policy.h"

/* Queue length past which a spawner runs dependency-free tasks itself:
 * plenty of work is already exposed to thieves, so deferring more only
 * costs a push and a pop (libgomp makes the same trade). */
#define LC_BACKLOG 64

static int obl_init(struct lc_runtime *rt, char *err, size_t errlen)
{
    for (int i = 0; i < rt->nworkers; i++) {
        int r = lc_deque_init(&rt->workers[i].dq, 10);
        if (r < 0) {
            while (i-- > 0)
                lc_deque_destroy(&rt->workers[i].dq);
            snprintf(err, errlen, "scheduler oblivious: cannot allocate the ready queues");
            return r;
        }
    }
    return 0;
}

static void obl_fini(struct lc_runtime *rt)
{
    for (int i = 0; i < rt->nworkers; i++)
        lc_deque_destroy(&rt->workers[i].dq);
}

static void obl_push(struct lc_worker *w, struct lc_task *t)
{
    if (__builtin_expect(lc_deque_push_owner(&w->dq, t) < 0, 0)) {
        /* the queue could not grow: t is ready, so running it now is valid */
        lc_execute(w, t);
        return;
    }
    lc_notify_own(w->rt, w->node, 1);
}

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static struct lc_task *obl_pop(struct lc_worker *w)
{
    struct lc_task *t = lc_deque_pop_owner(&w->dq);
    if (t)
        return t;

    struct lc_runtime *rt = w->rt;
    int n = rt->nworkers;
    if (n == 1)
        return NULL;
    int start = (int)(rng_next(&w->rng) % (uint64_t)n);
    for (int i = 0; i < n; i++) {
        int v = start + i < n ? start + i : start + i - n;
        if (v == w->id)
            continue;
        struct lc_deque *d = &rt->workers[v].dq;
        if (!lc_may_steal(w, lc_deque_size(d)))
            continue;
        t = lc_deque_steal(d);
        if (t) {
            lc_stat_add(&w->stats.steals[rt->topo.nnodes == 1 ? LC_DIST_LOCAL
                        : lc_topology_class(&rt->topo, w->node, rt->workers[v].node)], 1);
            /* more left behind: pass the wake-up on (one sleeper per push of an
             * empty queue would otherwise leave a burst to a single thief) */
            if (atomic_load_explicit(&rt->nsleep_total, memory_order_relaxed) > 0
                && lc_deque_size(d) > 0)
                lc_notify_any(rt, w->node);
            return t;
        }
    }
    return NULL;
}

static int obl_backlog(struct lc_worker *w)
{
    return lc_deque_size_owner(&w->dq, LC_BACKLOG) > LC_BACKLOG;
}

const struct lc_sched_ops lc_sched_oblivious = {
    .name = "oblivious",
    .description = "NUMA-oblivious work stealing: per-worker deques, random victims (DFT, DI)",
    .init = obl_init,
    .fini = obl_fini,
    .place = NULL,
    .push = obl_push,
    .pop = obl_pop,
    .run_here = NULL,
    .backlog = obl_backlog,
    .task_done = NULL,
};
