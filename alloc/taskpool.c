/*
 * taskpool.c - the slow paths of the task descriptor pools: refilling an
 * empty worker list from its node's batch stack, another node's, or a new
 * slab, and spilling a long list back to its node's stack.
 */
#include "taskpool.h"

#include <errno.h>
#include <string.h>

#include "mem.h"
#include "task.h"

struct lc_task_slab {
    struct lc_task_slab *next;
    _Alignas(64) struct lc_task tasks[LC_POOL_SLAB];
};

int lc_taskpool_global_init(struct lc_taskpool_global *g)
{
    memset(g, 0, sizeof *g);
    g->peers = g;
    g->npeers = 1;
    return -pthread_mutex_init(&g->lock, NULL);
}

int lc_taskpool_nodes_init(struct lc_taskpool_global *pools, int n)
{
    for (int i = 0; i < n; i++) {
        int r = lc_taskpool_global_init(&pools[i]);
        if (r < 0) {
            while (i-- > 0)
                lc_taskpool_global_fini(&pools[i]);
            return r;
        }
        pools[i].peers = pools;
        pools[i].npeers = n;
        pools[i].self = i;
    }
    return 0;
}

void lc_taskpool_nodes_fini(struct lc_taskpool_global *pools, int n)
{
    for (int i = 0; i < n; i++)
        lc_taskpool_global_fini(&pools[i]);
}

void lc_taskpool_global_fini(struct lc_taskpool_global *g)
{
    struct lc_task_slab *s = g->slabs, *n;
    for (; s; s = n) {
        n = s->next;
        lc_mem_free(s, sizeof *s);
    }
    lc_mem_free(g->batches, g->cap * sizeof *g->batches);
    pthread_mutex_destroy(&g->lock);
    memset(g, 0, sizeof *g);
}

/* A batch from g's stack, or NULL. */
static struct lc_task *take_batch(struct lc_taskpool_global *g)
{
    struct lc_task *chain = NULL;
    pthread_mutex_lock(&g->lock);
    if (g->nbatches)
        chain = g->batches[--g->nbatches];
    pthread_mutex_unlock(&g->lock);
    return chain;
}

struct lc_task *lc_taskpool_refill(struct lc_taskpool *p, struct lc_taskpool_global *g)
{
    struct lc_task *chain = take_batch(g);
    unsigned n = LC_POOL_BATCH;

    /* the other nodes' stacks, next node first (one lock at a time) */
    for (int i = 1; !chain && i < g->npeers; i++) {
        int k = g->self + i < g->npeers ? g->self + i : g->self + i - g->npeers;
        chain = take_batch(&g->peers[k]);
    }
    if (!chain) {
        /* a new slab, first touched here, by a worker of g's node */
        struct lc_task_slab *s = lc_mem_alloc(sizeof *s, 64);
        if (!s)
            return NULL;
        for (unsigned i = 0; i < LC_POOL_SLAB; i++) {
            s->tasks[i].pool_next = chain;
            chain = &s->tasks[i];
        }
        n = LC_POOL_SLAB;
        pthread_mutex_lock(&g->lock);
        s->next = g->slabs;
        g->slabs = s;
        pthread_mutex_unlock(&g->lock);
    }
    p->head = chain->pool_next;
    p->count += n - 1;
    return chain;
}

void lc_taskpool_spill(struct lc_taskpool *p, struct lc_taskpool_global *g)
{
    struct lc_task *head = p->head, *t = head;
    for (unsigned i = 1; i < LC_POOL_BATCH; i++)
        t = t->pool_next;

    pthread_mutex_lock(&g->lock);
    if (g->nbatches == g->cap) {
        unsigned ncap = g->cap ? 2 * g->cap : 16;
        struct lc_task **nb = lc_mem_realloc(g->batches, g->cap * sizeof *nb, ncap * sizeof *nb);
        if (!nb) {
            /* keep the descriptors on the local list: a longer list, nothing lost */
            pthread_mutex_unlock(&g->lock);
            return;
        }
        g->batches = nb;
        g->cap = ncap;
    }
    p->head = t->pool_next;
    p->count -= LC_POOL_BATCH;
    t->pool_next = NULL;
    g->batches[g->nbatches++] = head;
    pthread_mutex_unlock(&g->lock);
}
