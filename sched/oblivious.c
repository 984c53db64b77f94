/*
 * oblivious.c - the NUMA-oblivious scheduler of the DFT and DI regimes:
 * one Chase-Lev deque per worker; a worker runs its own newest task first
 * (depth-first, cache-warm) and, when it has none, steals the oldest task
 * of a victim picked at random (R. D. Blumofe and C. E. Leiserson,
 * "Scheduling multithreaded computations by work stealing", JACM 1999).
 * Tasks with a priority go to the spawner's node's priority queue
 * (prio.h), which every worker looks at first: its own node's, then the
 * other nodes', before any deque.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "deque.h"
#include "runtime.h"
#include "policy.h"
#include "prio.h"
#include "steal.h"

extern const struct lc_sched_ops lc_sched_oblivious;   /* below: its name for messages */

/* The ids of all workers: every worker is every other's victim. */
struct obl {
    int *all;
};

static void obl_fini(struct lc_runtime *rt)
{
    struct obl *s = rt->sched_data;
    for (int i = 0; i < rt->nworkers; i++)
        lc_deque_destroy(&rt->workers[i].dq);
    if (s)
        free(s->all);
    free(s);
    rt->sched_data = NULL;
}

static int obl_init(struct lc_runtime *rt, char *err, size_t errlen)
{
    struct obl *s = calloc(1, sizeof *s);
    if (!s || !(s->all = calloc((size_t)rt->nworkers, sizeof *s->all))) {
        free(s);
        snprintf(err, errlen, "scheduler %s: out of memory for the ready queues",
                 lc_sched_oblivious.name);
        return -ENOMEM;
    }
    rt->sched_data = s;
    for (int i = 0; i < rt->nworkers; i++) {
        s->all[i] = i;
        int r = lc_deque_init(&rt->workers[i].dq, 10);
        if (r < 0) {
            while (i-- > 0)
                lc_deque_destroy(&rt->workers[i].dq);
            free(s->all);
            free(s);
            rt->sched_data = NULL;
            snprintf(err, errlen, "scheduler %s: cannot allocate the ready queues",
                     lc_sched_oblivious.name);
            return r;
        }
    }
    return 0;
}

static int obl_push(struct lc_worker *w, struct lc_task *t)
{
    if (__builtin_expect(t->prio != 0, 0))
        return lc_prio_push_task(w, t, -1, LC_WAKE_ANY);
    return lc_push_own(w, t);
}

static struct lc_task *obl_pop(struct lc_worker *w)
{
    struct lc_runtime *rt = w->rt;
    struct lc_task *t;
    int prio = lc_prio_on(rt);
    if (__builtin_expect(prio, 0) && (t = lc_prio_take(w, w->node, LC_PRIO_ANY)))
        return t;
    if ((t = lc_pop_own(w)))
        return t;
    if (__builtin_expect(prio, 0))
        for (int n = 0; n < rt->topo.nnodes; n++)
            if (n != w->node && (t = lc_prio_take(w, n, LC_PRIO_ANY)))
                return t;
    struct obl *s = rt->sched_data;
    return lc_steal_from(w, s->all, rt->nworkers, -1);
}


const struct lc_sched_ops lc_sched_oblivious = {
    .name = "oblivious",
    .description = "NUMA-oblivious work stealing: per-worker deques, random victims",
    .caps = 0,
    .init = obl_init,
    .fini = obl_fini,
    .place = NULL,
    .push = obl_push,
    .push_light = lc_push_light,
    .wake_other = NULL,
    .pop = obl_pop,
    .run_here = NULL,
    .backlog = lc_backlog_own,
    .stock_low = lc_stock_low_own,
    .task_done = NULL,
};
