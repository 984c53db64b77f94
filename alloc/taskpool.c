/*
 * taskpool.c - the slow paths of the task descriptor pools: refilling an
 * empty worker list from its node's batch stack, another node's, or a new
 * slab, and spilling a long list back to its node's stack.
 */
#include "taskpool.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "task.h"

struct lc_task_slab {
    struct lc_task_slab *next;
    _Alignas(64) struct lc_task tasks[LC_POOL_SLAB];
};

/* Slabs are aligned to a power of two at least their size, so the slab
 * that would hold an address is that address rounded down. */
#define SLAB_ALIGN ((size_t)1 << (64 - __builtin_clzll(sizeof(struct lc_task_slab) - 1)))

/*
 * The slabs' addresses, as a set: written when a slab is made (rare, under
 * the mutex), read without a lock when a task reference is checked
 * (events.c), so that checking one writes no shared line.  Open addressing
 * over atomic slots, which only ever go from 0 to a slab's address; a
 * table that fills up is replaced by one twice its size and kept (a reader
 * may still be in it) until the pools are freed.  A reader that finds an
 * empty slot before the address knows the slab is not there: a slab is in
 * the set before any of its descriptors is handed out, and a reference is
 * made from a descriptor in use.
 */
struct slab_table {
    struct slab_table *older;
    size_t mask;                   /* slots - 1 */
    _Atomic uintptr_t key[];       /* a slab's address, 0 empty */
};

struct lc_slab_index {
    pthread_mutex_t lock;          /* writers */
    _Atomic(struct slab_table *) cur;
    size_t n;                      /* addresses in cur */
};

static size_t slot_of(const struct slab_table *t, uintptr_t base)
{
    return (size_t)(((uint64_t)(base / SLAB_ALIGN) * UINT64_C(0x9E3779B97F4A7C15)) >> 20)
           & t->mask;
}

static struct slab_table *table_new(size_t slots)
{
    struct slab_table *t = calloc(1, sizeof *t + slots * sizeof t->key[0]);
    if (t)
        t->mask = slots - 1;
    return t;
}

/* Puts base in t (the index's mutex held, room certain). */
static void table_put(struct slab_table *t, uintptr_t base)
{
    size_t i = slot_of(t, base);
    while (atomic_load_explicit(&t->key[i], memory_order_relaxed))
        i = (i + 1) & t->mask;
    atomic_store_explicit(&t->key[i], base, memory_order_release);
}

static void index_free(struct lc_slab_index *x)
{
    struct slab_table *t = atomic_load_explicit(&x->cur, memory_order_relaxed), *o;
    for (; t; t = o) {
        o = t->older;
        free(t);
    }
    pthread_mutex_destroy(&x->lock);
    free(x);
}

static struct lc_slab_index *index_new(void)
{
    struct lc_slab_index *x = calloc(1, sizeof *x);
    struct slab_table *t = x ? table_new(64) : NULL;
    if (!t) {
        free(x);
        return NULL;
    }
    pthread_mutex_init(&x->lock, NULL);
    atomic_init(&x->cur, t);
    return x;
}

int lc_taskpool_global_init(struct lc_taskpool_global *g)
{
    memset(g, 0, sizeof *g);
    g->peers = g;
    g->npeers = 1;
    if (!(g->index = index_new()))
        return -ENOMEM;
    return -pthread_mutex_init(&g->lock, NULL);
}

int lc_taskpool_nodes_init(struct lc_taskpool_global *pools, int n)
{
    for (int i = 0; i < n; i++) {
        int r = lc_taskpool_global_init(&pools[i]);
        if (r < 0) {
            lc_taskpool_nodes_fini(pools, i);
            return r;
        }
        pools[i].peers = pools;
        pools[i].npeers = n;
        pools[i].self = i;
        if (i > 0) {   /* one index for all */
            index_free(pools[i].index);
            pools[i].index = pools[0].index;
        }
    }
    return 0;
}

void lc_taskpool_nodes_fini(struct lc_taskpool_global *pools, int n)
{
    for (int i = 1; i < n; i++)
        pools[i].index = NULL;   /* pools[0]'s, freed with it */
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
    if (g->index)
        index_free(g->index);
    pthread_mutex_destroy(&g->lock);
    memset(g, 0, sizeof *g);
}

/* Adds slab s to the index: 0, or -ENOMEM. */
static int index_add(struct lc_slab_index *x, const struct lc_task_slab *s)
{
    int r = 0;
    pthread_mutex_lock(&x->lock);
    struct slab_table *t = atomic_load_explicit(&x->cur, memory_order_relaxed);
    if (2 * (x->n + 1) > t->mask + 1) {   /* at most half full */
        struct slab_table *nt = table_new(2 * (t->mask + 1));
        if (!nt) {
            r = -ENOMEM;
            goto out;
        }
        for (size_t i = 0; i <= t->mask; i++) {
            uintptr_t k = atomic_load_explicit(&t->key[i], memory_order_relaxed);
            if (k)
                table_put(nt, k);
        }
        nt->older = t;
        atomic_store_explicit(&x->cur, nt, memory_order_release);
        t = nt;
    }
    table_put(t, (uintptr_t)s);
    x->n++;
out:
    pthread_mutex_unlock(&x->lock);
    return r;
}

int lc_taskpool_owns(const struct lc_taskpool_global *g, const void *p)
{
    uintptr_t a = (uintptr_t)p, base = a & ~(uintptr_t)(SLAB_ALIGN - 1);
    uintptr_t first = base + __builtin_offsetof(struct lc_task_slab, tasks);
    if (!base || a < first || (a - first) % sizeof(struct lc_task) != 0
        || (a - first) / sizeof(struct lc_task) >= LC_POOL_SLAB)
        return 0;
    const struct slab_table *t = atomic_load_explicit(&g->index->cur, memory_order_acquire);
    for (size_t i = slot_of(t, base), n = 0; n <= t->mask; i = (i + 1) & t->mask, n++) {
        uintptr_t k = atomic_load_explicit(&t->key[i], memory_order_acquire);
        if (k == base)
            return 1;
        if (!k)
            return 0;
    }
    return 0;
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
        struct lc_task_slab *s = lc_mem_alloc(sizeof *s, SLAB_ALIGN);
        if (!s)
            return NULL;
        if ((uintptr_t)s + sizeof *s > LC_REF_ADDR_LIMIT || index_add(g->index, s) < 0) {
            /* a task reference could not carry its address (task.h), or
             * no memory to know it by */
            lc_mem_free(s, sizeof *s);
            return NULL;
        }
        for (unsigned i = 0; i < LC_POOL_SLAB; i++) {
            s->tasks[i].pool_next = chain;
            /* generation 0 (task.h): the first task it carries is the first */
            atomic_init(&s->tasks[i].state, 0);
            lc_task_poison(&s->tasks[i]);
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
    /* top the reserve up from what just came in */
    while (p->nreserve < LC_POOL_RESERVE && p->head) {
        struct lc_task *t = p->head;
        p->head = t->pool_next;
        p->count--;
        t->pool_next = p->reserve;
        p->reserve = t;
        p->nreserve++;
    }
    return chain;
}

int lc_taskpool_reserve_fill(struct lc_taskpool *p, struct lc_taskpool_global *g)
{
    while (p->nreserve < LC_POOL_RESERVE) {
        struct lc_task *t = lc_task_alloc(p, g);
        if (!t)
            return -ENOMEM;
        if (p->nreserve >= LC_POOL_RESERVE) {   /* the refill topped it up */
            lc_task_release(p, g, t);
            break;
        }
        t->pool_next = p->reserve;
        lc_task_poison(t);
        p->reserve = t;
        p->nreserve++;
    }
    return 0;
}

struct lc_task *lc_taskpool_reserve_take(struct lc_taskpool *p)
{
    struct lc_task *t = p->reserve;
    if (!t)
        return NULL;
    p->reserve = t->pool_next;
    p->nreserve--;
    LC_UNPOISON(t, sizeof *t);
    return t;
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
