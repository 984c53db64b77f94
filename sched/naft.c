/*
 * naft.c - the NUMA-aware scheduler of the NAFT regime (Caheny et al.,
 * "Reducing cache coherence traffic with a NUMA-aware runtime approach",
 * IEEE TPDS 29(5), 2018, section 4):
 *  - a ready queue per node: the deques of the node's workers plus an inbox
 *    for tasks sent to the node from other nodes;
 *  - first-touch tasks are dealt round-robin over the nodes that have
 *    workers, so data is spread uniformly;
 *  - every other task goes to the node holding most of its dependency bytes
 *    (ties: the spawning worker's node if it is among the best, else the
 *    lowest-numbered node; no known bytes: the spawner's node);
 *  - an idle worker takes from its own deque, its node's inbox and the other
 *    workers of its node; only after LOCUS_STEAL_SPIN idle polls does it
 *    steal from other nodes, and then only from the nearest ones
 *    (LOCUS_STEAL=near), from all, nearest first (all), or never (none).
 * On a single node this is the oblivious scheduler with one more empty
 * queue to look at, which keeps its cost within reach of DFT.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "deque.h"
#include "policy.h"
#include "steal.h"
#include "runtime.h"

/* Tasks sent to a node by workers of other nodes: a FIFO under a lock
 * (cross-node pushes are the rare case), linked through qnext. */
struct naft_inbox {
    _Alignas(LC_CACHELINE) pthread_mutex_t lock;
    struct lc_task *head, *tail;
    _Atomic long size;
};

struct naft_node {
    struct naft_inbox inbox;
    int *workers, nworkers;     /* ids of this node's workers */
    int *victims, nvictims;     /* other nodes this node may steal from, nearest first */
    int *thieves, nthieves;     /* nodes that may steal from this one, nearest first */
};

struct naft {
    struct naft_node *nodes;
    int nnodes;
};

static void naft_fini(struct lc_runtime *rt)
{
    struct naft *s = rt->sched_data;
    for (int i = 0; i < rt->nworkers; i++)
        lc_deque_destroy(&rt->workers[i].dq);
    if (!s)
        return;
    for (int n = 0; n < s->nnodes; n++) {
        pthread_mutex_destroy(&s->nodes[n].inbox.lock);
        free(s->nodes[n].workers);
        free(s->nodes[n].victims);
        free(s->nodes[n].thieves);
    }
    free(s->nodes);
    free(s);
    rt->sched_data = NULL;
}

static const struct lc_topology *sort_topo;
static int sort_from;
static int by_distance(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b, nn = sort_topo->nnodes;
    int dx = sort_topo->dist[sort_from * nn + x], dy = sort_topo->dist[sort_from * nn + y];
    return dx != dy ? (dx < dy ? -1 : 1) : (x < y ? -1 : x > y);
}

static int naft_init(struct lc_runtime *rt, char *err, size_t errlen)
{
    int nn = rt->topo.nnodes;
    struct naft *s = calloc(1, sizeof *s);
    if (!s || !(s->nodes = calloc((size_t)nn, sizeof *s->nodes)))
        goto nomem;
    s->nnodes = nn;
    rt->sched_data = s;
    for (int i = 0; i < rt->nworkers; i++)
        if (lc_deque_init(&rt->workers[i].dq, 10) < 0) {
            while (i-- > 0)
                lc_deque_destroy(&rt->workers[i].dq);
            goto nomem_deques;
        }
    for (int n = 0; n < nn; n++) {
        struct naft_node *nd = &s->nodes[n];
        pthread_mutex_init(&nd->inbox.lock, NULL);
        nd->workers = calloc((size_t)rt->nworkers, sizeof *nd->workers);
        nd->victims = calloc((size_t)nn, sizeof *nd->victims);
        nd->thieves = calloc((size_t)nn, sizeof *nd->thieves);
        if (!nd->workers || !nd->victims || !nd->thieves)
            goto nomem_all;
        for (int i = 0; i < rt->nworkers; i++)
            if (rt->workers[i].node == n)
                nd->workers[nd->nworkers++] = i;
    }
    for (int n = 0; n < nn; n++) {
        struct naft_node *nd = &s->nodes[n];
        for (int v = 0; v < nn; v++) {
            if (v == n || !s->nodes[v].nworkers)
                continue;
            if (rt->opt.steal == LC_STEAL_NONE)
                continue;
            if (rt->opt.steal == LC_STEAL_NEAR
                && lc_topology_class(&rt->topo, n, v) != LC_DIST_NEAR)
                continue;
            nd->victims[nd->nvictims++] = v;
        }
        sort_topo = &rt->topo;
        sort_from = n;
        qsort(nd->victims, (size_t)nd->nvictims, sizeof *nd->victims, by_distance);
    }
    for (int n = 0; n < nn; n++)          /* thieves, in each node's order of distance */
        for (int v = 0; v < nn; v++)
            for (int i = 0; i < s->nodes[v].nvictims; i++)
                if (s->nodes[v].victims[i] == n)
                    s->nodes[n].thieves[s->nodes[n].nthieves++] = v;
    for (int n = 0; n < nn; n++) {
        sort_topo = &rt->topo;
        sort_from = n;
        qsort(s->nodes[n].thieves, (size_t)s->nodes[n].nthieves, sizeof(int), by_distance);
    }
    return 0;

nomem_all:
    naft_fini(rt);
    snprintf(err, errlen, "scheduler naft: out of memory for the node queues");
    return -ENOMEM;
nomem_deques:
    free(s->nodes);
nomem:
    free(s);
    rt->sched_data = NULL;
    snprintf(err, errlen, "scheduler naft: out of memory for the node queues");
    return -ENOMEM;
}

static void naft_place(struct lc_worker *w, struct lc_task *t, const struct lc_placement *pl)
{
    struct lc_runtime *rt = w->rt;
    int nn = rt->topo.nnodes;

    if (pl->first_touch) {
        unsigned k = atomic_fetch_add_explicit(&rt->ft_next, 1, memory_order_relaxed);
        t->node = rt->ft_nodes[k % (unsigned)rt->n_ft_nodes];
        return;
    }
    /* bytes per node with workers; interleaved bytes weigh the same on every
     * node in use, so they cannot change the choice and are left out */
    uint64_t score[nn];
    for (int n = 0; n < nn; n++)
        score[n] = 0;
    for (int n = 0; n < nn; n++)
        if (pl->bytes[n])
            score[rt->node_home[n]] += pl->bytes[n];
    int best = -1;
    for (int n = 0; n < nn; n++)
        if (score[n] && (best < 0 || score[n] > score[best]))
            best = n;
    if (best < 0) {
        t->node = -1;           /* nothing known: stays with its spawner */
        return;
    }
    if (score[w->node] == score[best])
        best = w->node;
    t->node = best;
}

static void inbox_push(struct naft_inbox *ib, struct lc_task *t)
{
    t->qnext = NULL;
    pthread_mutex_lock(&ib->lock);
    if (ib->tail)
        ib->tail->qnext = t;
    else
        ib->head = t;
    ib->tail = t;
    atomic_store_explicit(&ib->size, atomic_load_explicit(&ib->size, memory_order_relaxed) + 1,
                          memory_order_release);
    pthread_mutex_unlock(&ib->lock);
}

static struct lc_task *inbox_pop(struct naft_inbox *ib)
{
    if (atomic_load_explicit(&ib->size, memory_order_acquire) == 0)
        return NULL;
    pthread_mutex_lock(&ib->lock);
    struct lc_task *t = ib->head;
    if (t) {
        ib->head = t->qnext;
        if (!ib->head)
            ib->tail = NULL;
        atomic_store_explicit(&ib->size, atomic_load_explicit(&ib->size, memory_order_relaxed) - 1,
                              memory_order_release);
    }
    pthread_mutex_unlock(&ib->lock);
    return t;
}

/*
 * A task was queued on node: wake one of its sleeping workers or, when none
 * sleeps, a sleeping worker of a node allowed to steal from it, so that
 * near nodes help after they have gone to sleep too.
 */
static void naft_notify(struct lc_runtime *rt, const struct naft *s, int node)
{
    lc_push_fence(rt);   /* the pusher's half of wait.c's handshake */
    if (atomic_load_explicit(&rt->nsleep_total, memory_order_relaxed) == 0)
        return;
    if (atomic_load_explicit(&rt->nsync[node].nsleepers, memory_order_seq_cst) > 0) {
        lc_notify_node(rt, node);
        return;
    }
    const struct naft_node *nd = &s->nodes[node];
    for (int i = 0; i < nd->nthieves; i++)
        if (atomic_load_explicit(&rt->nsync[nd->thieves[i]].nsleepers, memory_order_relaxed) > 0) {
            lc_notify_node(rt, nd->thieves[i]);
            return;
        }
}

static void naft_push(struct lc_worker *w, struct lc_task *t)
{
    struct lc_runtime *rt = w->rt;
    int node = t->node;

    struct naft *s = rt->sched_data;
    if (node < 0 || node == w->node) {
        struct lc_qitem it = lc_qitem_task(t);
        if (__builtin_expect(lc_deque_push_owner(&w->dq, &it) < 0, 0)) {
            lc_execute(w, t);   /* the deque could not grow: t is ready, so run it now */
            return;
        }
        naft_notify(rt, s, w->node);
        return;
    }
    inbox_push(&s->nodes[node].inbox, t);
    naft_notify(rt, s, node);
}

/* Takes a task queued on node n: its inbox first (tasks sent there), then
 * its workers' deques (a steal, counted by lc_steal_from). */
static struct lc_task *take_from_node(struct lc_worker *w, struct naft *s, int n)
{
    struct naft_node *nd = &s->nodes[n];
    struct lc_task *t = inbox_pop(&nd->inbox);
    if (t) {
        if (n != w->node)   /* sent to another node, taken here: a steal too */
            lc_stat_add(&w->stats.steals[lc_topology_class(&w->rt->topo, w->node, n)], 1);
        return t;
    }
    return lc_steal_from(w, nd->workers, nd->nworkers, n);
}

/* A light task has no dependencies, so no node: it stays on its spawner's
 * deque like any task of node -1. */
static int naft_push_light(struct lc_worker *w, locus_task_fn fn, void *arg,
                           struct lc_task *parent)
{
    if (__builtin_expect(lc_queue_light(w, fn, arg, parent) < 0, 0))
        return -ENOMEM;
    naft_notify(w->rt, w->rt->sched_data, w->node);
    return 0;
}

static struct lc_task *naft_pop(struct lc_worker *w)
{
    struct lc_task *t = lc_pop_own(w);
    if (t)
        return t;
    struct lc_runtime *rt = w->rt;
    struct naft *s = rt->sched_data;
    if ((t = take_from_node(w, s, w->node)))
        return t;
    struct naft_node *nd = &s->nodes[w->node];
    if (nd->nvictims && w->idle_polls >= rt->opt.steal_spin) {
        for (int i = 0; i < nd->nvictims; i++) {
            int v = nd->victims[i];
            if ((t = take_from_node(w, s, v)))
                return t;
        }
    }
    return NULL;
}

static int naft_run_here(struct lc_worker *w, struct lc_task *t)
{
    return t->node < 0 || t->node == w->node;
}


const struct lc_sched_ops lc_sched_naft = {
    .name = "naft",
    .description = "NUMA-aware: per-node queues, first-touch tasks dealt over the nodes, "
                   "others on the node of most of their data, nearest-node stealing (NAFT)",
    .init = naft_init,
    .fini = naft_fini,
    .place = naft_place,
    .push = naft_push,
    .push_light = naft_push_light,
    .pop = naft_pop,
    .run_here = naft_run_here,
    .backlog = lc_backlog_own,
    .task_done = NULL,
};
