/*
 * prio.c - the nodes' priority queues (prio.h): a binary max-heap per node
 * under a lock, with the highest key mirrored in an atomic so that a pop
 * finds an empty queue without the lock.
 */
#include <errno.h>
#include <stdlib.h>

#include "policy.h"
#include "prio.h"
#include "runtime.h"

int lc_prio_init(struct lc_runtime *rt)
{
    int nn = rt->topo.nnodes;
    struct lc_prioq *q = aligned_alloc(LC_CACHELINE, (size_t)nn * sizeof *q);
    if (!q)
        return -ENOMEM;
    for (int n = 0; n < nn; n++) {
        pthread_mutex_init(&q[n].lock, NULL);
        q[n].heap = NULL;
        q[n].n = q[n].cap = 0;
        q[n].seq = 0;
        atomic_init(&q[n].top, 0);
    }
    rt->prioq = q;
    return 0;
}

void lc_prio_fini(struct lc_runtime *rt)
{
    if (!rt->prioq)
        return;
    for (int n = 0; n < rt->topo.nnodes; n++) {
        pthread_mutex_destroy(&rt->prioq[n].lock);
        free(rt->prioq[n].heap);
    }
    free(rt->prioq);
    rt->prioq = NULL;
}

int lc_prio_push(struct lc_runtime *rt, int node, struct lc_task *t)
{
    struct lc_prioq *q = &rt->prioq[node];
    pthread_mutex_lock(&q->lock);
    if (q->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 16;
        struct lc_prio_item *h = realloc(q->heap, cap * sizeof *h);
        if (!h) {
            pthread_mutex_unlock(&q->lock);
            return -ENOMEM;
        }
        q->heap = h;
        q->cap = cap;
    }
    uint64_t key = (uint64_t)t->prio << LC_PRIO_SHIFT | (LC_PRIO_SEQ_MASK - (q->seq++ & LC_PRIO_SEQ_MASK));
    size_t i = q->n++;
    while (i > 0 && q->heap[(i - 1) / 2].key < key) {   /* sift up */
        q->heap[i] = q->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    q->heap[i] = (struct lc_prio_item){ key, t };
    /* release: a taker that sees the key sees the task's descriptor */
    atomic_store_explicit(&q->top, q->heap[0].key, memory_order_release);
    pthread_mutex_unlock(&q->lock);
    return 0;
}

struct lc_task *lc_prio_pop(struct lc_worker *w, int node, enum lc_prio_mode mode)
{
    struct lc_prioq *q = &w->rt->prioq[node];
    pthread_mutex_lock(&q->lock);
    if (!q->n) {
        pthread_mutex_unlock(&q->lock);
        return NULL;
    }
    struct lc_task *t = q->heap[0].t;
    if ((mode == LC_PRIO_UNBOUND && (t->flags & LC_TF_BOUND))
        || (mode == LC_PRIO_FREE && t->node >= 0)) {
        pthread_mutex_unlock(&q->lock);
        return NULL;
    }
    struct lc_prio_item last = q->heap[--q->n];
    size_t i = 0;
    for (;;) {   /* sift the last item down from the root */
        size_t c = 2 * i + 1;
        if (c >= q->n)
            break;
        if (c + 1 < q->n && q->heap[c + 1].key > q->heap[c].key)
            c++;
        if (q->heap[c].key <= last.key)
            break;
        q->heap[i] = q->heap[c];
        i = c;
    }
    if (q->n)
        q->heap[i] = last;
    atomic_store_explicit(&q->top, q->n ? q->heap[0].key : 0, memory_order_release);
    pthread_mutex_unlock(&q->lock);
    if (node != w->node) {
        lc_stat_add(&w->stats.steals[lc_topology_class(&w->rt->topo, w->node, node)], 1);
        if (__builtin_expect(w->trace != NULL, 0))
            lc_trace_mark(w, LC_EV_STEAL, (uint64_t)node);
    }
    return t;
}
