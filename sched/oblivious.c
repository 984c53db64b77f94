/*
 * oblivious.c - the NUMA-oblivious policy of the DFT and DI regimes: one
 * Chase-Lev deque per worker; a worker runs its own newest task first
 * (depth-first, cache-warm) and, when it has none, steals the oldest task
 * of a victim picked at random (R. D. Blumofe and C. E. Leiserson,
 * "Scheduling multithreaded computations by work stealing", JACM 1999).
 * Tasks with a priority go to the pushing worker's node's priority queue
 * (prio.h), which every worker looks at first: its own node's, then the
 * other nodes', before any deque.  Every queue here is this policy's own
 * (policy.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "deque.h"
#include "policy.h"
#include "prio.h"
#include "runtime.h"
#include "steal.h"

extern const struct lc_sched_ops lc_sched_oblivious;   /* below: its name for messages */

struct obl {
    struct lc_deque *dq;        /* per worker; w->sched_local is its own */
    int *all;                   /* the ids of all workers: everyone is everyone's victim */
    int nworkers, nnodes;
    struct lc_fifo spill;       /* tasks a deque that could not grow did not take, and
                                   those an event released (LC_TF_FIFO), in order */
    struct lc_prio_set prio;
};

static void obl_fini(struct lc_runtime *rt)
{
    struct obl *s = rt->sched_data;
    if (!s)
        return;
    lc_deques_destroy(s->dq, s->nworkers);
    lc_prio_fini(&s->prio);
    lc_fifo_destroy(&s->spill);
    free(s->all);
    free(s);
    rt->sched_data = NULL;
    for (int i = 0; i < rt->nworkers; i++)
        rt->workers[i].sched_local = NULL;
}

static int obl_init(struct lc_runtime *rt, char *err, size_t errlen)
{
    struct obl *s = calloc(1, sizeof *s);
    if (!s)
        goto nomem;
    s->nworkers = rt->nworkers;
    s->nnodes = rt->topo.nnodes;
    lc_fifo_init(&s->spill);
    s->all = calloc((size_t)rt->nworkers, sizeof *s->all);
    s->dq = lc_deques_create(rt->nworkers, 10);
    if (!s->all || !s->dq || lc_prio_init(&s->prio, s->nnodes) < 0) {
        lc_deques_destroy(s->dq, rt->nworkers);
        lc_fifo_destroy(&s->spill);
        free(s->all);
        free(s);
        goto nomem;
    }
    for (int i = 0; i < rt->nworkers; i++) {
        s->all[i] = i;
        rt->workers[i].sched_local = &s->dq[i];
    }
    rt->sched_data = s;
    return 0;
nomem:
    snprintf(err, errlen, "scheduler %s: out of memory for the ready queues",
             lc_sched_oblivious.name);
    return -ENOMEM;
}

static int obl_push(struct lc_worker *w, struct lc_task *t)
{
    struct obl *s = w->rt->sched_data;
    if (__builtin_expect(t->prio != 0, 0))
        lc_prio_push(&s->prio, w->node, t);
    else if (__builtin_expect(t->flags & LC_TF_FIFO, 0))
        lc_fifo_push(&s->spill, t);   /* in its events' order (ready.h) */
    else
        lc_deque_push_or_spill(w->sched_local, &s->spill, t);
    return LC_WAKE_ANY;
}

static int obl_push_light(struct lc_worker *w, const struct lc_qitem *it)
{
    return lc_deque_push_owner(w->sched_local, it) < 0 ? -ENOMEM : 0;
}

static struct lc_qitem obl_pop(struct lc_worker *w, int *wake)
{
    struct obl *s = w->rt->sched_data;
    struct lc_task *t;
    int prio = lc_prio_used(&s->prio);
    if (__builtin_expect(prio, 0) && (t = lc_prio_take(w, &s->prio, w->node, LC_PRIO_ANY)))
        return lc_qitem_of(t);
    struct lc_qitem it = lc_deque_pop_owner(w->sched_local);
    if (it.p)
        return it;
    if (__builtin_expect(prio, 0))
        for (int n = 0; n < s->nnodes; n++)
            if (n != w->node && (t = lc_prio_take(w, &s->prio, n, LC_PRIO_ANY)))
                return lc_qitem_of(t);
    if (__builtin_expect(lc_fifo_size(&s->spill) > 0, 0) && (t = lc_fifo_pop(&s->spill)))
        return lc_qitem_of(t);
    return lc_steal_items(w, s->dq, sizeof *s->dq, s->all, s->nworkers, LC_WAKE_ANY, wake);
}

static int obl_backlog(struct lc_worker *w)
{
    return lc_deque_size_owner(w->sched_local, LC_BACKLOG) > LC_BACKLOG;
}

static int obl_stock_low(struct lc_worker *w)
{
    if (w->rt->nworkers < 2)
        return 0;   /* nobody to keep them for */
    return lc_deque_below_owner(w->sched_local, LC_STOCK);
}

static int obl_bare(struct lc_worker *w)
{
    return w->rt->nworkers > 1 && lc_deque_bare_owner(w->sched_local, LC_STOCK);
}

static void obl_waited(struct lc_worker *w)
{
    lc_deque_refresh_owner(w->sched_local);
}

static unsigned obl_top_prio(struct lc_worker *w)
{
    struct obl *s = w->rt->sched_data;
    return lc_prio_top(&s->prio, w->node);
}

const struct lc_sched_ops lc_sched_oblivious = {
    .name = "oblivious",
    .description = "NUMA-oblivious work stealing: per-worker deques, random victims",
    .caps = 0,
    .init = obl_init,
    .fini = obl_fini,
    .place = NULL,
    .push = obl_push,
    .push_light = obl_push_light,
    .pop = obl_pop,
    .wake_other = NULL,
    .run_here = NULL,
    .backlog = obl_backlog,
    .stock_low = obl_stock_low,
    .bare = obl_bare,
    .top_prio = obl_top_prio,
    .waited = obl_waited,
};
