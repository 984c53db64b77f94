/*
 * prio.c - the nodes' priority queues (prio.h): a binary max-heap per node
 * under a lock, with the highest key mirrored in an atomic so that a pop
 * finds an empty queue without the lock.
 */
#include <errno.h>
#include <stdlib.h>

#include "prio.h"
#include "runtime.h"

int lc_prio_init(struct lc_prio_set *s, int nnodes)
{
    struct lc_prioq *q = aligned_alloc(LC_CACHELINE, (size_t)nnodes * sizeof *q);
    if (!q)
        return -ENOMEM;
    for (int n = 0; n < nnodes; n++) {
        pthread_mutex_init(&q[n].lock, NULL);
        q[n].heap = NULL;
        q[n].n = q[n].cap = 0;
        q[n].seq = 0;
        lc_fifo_init(&q[n].spill);
        atomic_init(&q[n].top, 0);
    }
    atomic_init(&s->used, 0);
    s->nnodes = nnodes;
    s->q = q;
    return 0;
}

void lc_prio_fini(struct lc_prio_set *s)
{
    if (!s->q)
        return;
    for (int n = 0; n < s->nnodes; n++) {
        pthread_mutex_destroy(&s->q[n].lock);
        lc_fifo_destroy(&s->q[n].spill);
        free(s->q[n].heap);
    }
    free(s->q);
    s->q = NULL;
}

void lc_prio_push(struct lc_prio_set *s, int node, struct lc_task *t)
{
    struct lc_prioq *q = &s->q[node];
    if (!atomic_load_explicit(&s->used, memory_order_relaxed))
        atomic_store_explicit(&s->used, 1, memory_order_relaxed);   /* once per run */
    pthread_mutex_lock(&q->lock);
    if (q->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 16;
        struct lc_prio_item *h = realloc(q->heap, cap * sizeof *h);
        if (!h) {
            pthread_mutex_unlock(&q->lock);
            lc_fifo_push(&q->spill, t);
            return;
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
}

/* Whether mode lets a worker take t from another node's queue. */
static int allowed(const struct lc_task *t, enum lc_prio_mode mode)
{
    return !((mode == LC_PRIO_UNBOUND && (t->flags & LC_TF_BOUND))
             || (mode == LC_PRIO_FREE && t->node >= 0));
}

struct lc_task *lc_prio_pop(struct lc_worker *w, struct lc_prio_set *s, int node,
                            enum lc_prio_mode mode)
{
    struct lc_prioq *q = &s->q[node];
    struct lc_task *t = NULL;
    pthread_mutex_lock(&q->lock);
    if (q->n && allowed(q->heap[0].t, mode)) {
        t = q->heap[0].t;
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
    }
    pthread_mutex_unlock(&q->lock);
    if (!t && lc_fifo_size(&q->spill)) {
        /* the spill list, after the heap: a task the heap could not hold
         * when it became ready; one whose mode forbids it goes back */
        t = lc_fifo_pop(&q->spill);
        if (t && !allowed(t, mode)) {
            lc_fifo_push(&q->spill, t);
            t = NULL;
        }
    }
    if (t && node != w->node)
        lc_note_steal(w, node);
    return t;
}
