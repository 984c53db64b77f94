/*
 * taskpool.h - task descriptors come from per-worker free lists: allocation
 * and release are a pointer pop/push on the calling worker's own list.
 * Descriptors freed on one worker and needed on another travel in batches
 * through a small stack shared by the workers of one NUMA node (struct
 * lc_taskpool_global, one per node), so a producer/consumer pair of workers
 * does not grow one list without bound while the other allocates fresh
 * slabs, and descriptors circulate within the node whose worker first
 * touched their slab (a slab is allocated by the refilling worker, from its
 * node's arena, mem.h).  Only when its node's stack is empty does a worker
 * take a batch from another node's stack, before it allocates a slab: a
 * producer on one node and a consumer on another would otherwise grow the
 * consumer's node's stack without bound.
 * Descriptors are type-stable: slabs go back to the allocator only at
 * lc_taskpool_nodes_fini() (task.h says why that matters).
 *
 * Each worker also keeps a reserve of LC_POOL_RESERVE descriptors for the
 * one allocation that has no error to return: the descriptor of a light
 * task a worker took from a queue (runtime/spawn.c, lc_item_open).  It is
 * filled at locus_init and topped up whenever a refill succeeds.
 */
#ifndef LC_TASKPOOL_H
#define LC_TASKPOOL_H

#include <pthread.h>

#define LC_POOL_BATCH 64
#define LC_POOL_SLAB 64
#define LC_POOL_RESERVE 8

struct lc_task;
struct lc_task_slab;

struct lc_taskpool {
    struct lc_task *head;
    unsigned count;
    unsigned nreserve;
    struct lc_task *reserve;     /* LC_POOL_RESERVE at most, linked through pool_next */
};

/* A node's shared stack of batches (the name is older than the nodes: one
 * node's pool is the global pool of a one-node runtime).  Each on its own
 * cache lines: its lock changes hands every LC_POOL_BATCH descriptors. */
struct lc_slab_index;
struct lc_taskpool_global {
    _Alignas(64) pthread_mutex_t lock;
    struct lc_task **batches;    /* heads of chains of LC_POOL_BATCH descriptors */
    unsigned nbatches, cap;
    struct lc_task_slab *slabs;  /* allocated by this node's workers, freed at fini */
    struct lc_taskpool_global *peers;   /* all nodes' pools (npeers), self at [self] */
    int npeers, self;
    struct lc_slab_index *index; /* every slab of the peers, by address (shared) */
};

/* One pool on its own (its peers: itself). */
int lc_taskpool_global_init(struct lc_taskpool_global *g);
void lc_taskpool_global_fini(struct lc_taskpool_global *g);
/* n pools, one per node, that lend each other batches: 0 or -errno (then
 * nothing is left initialised).  fini frees every slab of every pool, so a
 * descriptor may end up on another node's stack than its slab's. */
int lc_taskpool_nodes_init(struct lc_taskpool_global *pools, int n);
void lc_taskpool_nodes_fini(struct lc_taskpool_global *pools, int n);

/* Returns an uninitialised descriptor, or NULL when memory is exhausted. */
struct lc_task *lc_taskpool_refill(struct lc_taskpool *p, struct lc_taskpool_global *g);
void lc_taskpool_spill(struct lc_taskpool *p, struct lc_taskpool_global *g);
/* Whether p is a descriptor of one of g's (or its peers') slabs: what a
 * task reference handed to a user must point to (events.c).  Any p may be
 * asked, a pointer nobody allocated too; nothing at p is read. */
int lc_taskpool_owns(const struct lc_taskpool_global *g, const void *p);
/* Fills p's reserve: 0, or -ENOMEM. */
int lc_taskpool_reserve_fill(struct lc_taskpool *p, struct lc_taskpool_global *g);
/* A descriptor of p's reserve, or NULL when it is empty. */
struct lc_task *lc_taskpool_reserve_take(struct lc_taskpool *p);

static inline struct lc_task *lc_task_alloc(struct lc_taskpool *p, struct lc_taskpool_global *g);
static inline void lc_task_release(struct lc_taskpool *p, struct lc_taskpool_global *g,
                                   struct lc_task *t);

#include "mem.h"
#include "task.h"

/* A sanitizer build poisons a descriptor while it is in a pool (mem.h),
 * all but the free-list link and the state word, which a stale task
 * reference may still read (task.h). */
static inline void lc_task_poison(struct lc_task *t)
{
    char *c = (char *)t;
    size_t st = __builtin_offsetof(struct lc_task, state);
    LC_POISON(c + sizeof(void *), st - sizeof(void *));
    LC_POISON(c + st + 8, sizeof *t - st - 8);
}

static inline struct lc_task *lc_task_alloc(struct lc_taskpool *p, struct lc_taskpool_global *g)
{
    struct lc_task *t = p->head;
    if (__builtin_expect(t == NULL, 0))
        t = lc_taskpool_refill(p, g);
    else {
        p->head = t->pool_next;
        p->count--;
        /* the next descriptor was likely freed on another core: start moving
         * it here now rather than stall on it at the next spawn */
        if (p->head)
            __builtin_prefetch(p->head, 1, 3);
    }
    if (t)
        LC_UNPOISON(t, sizeof *t);
    return t;
}

static inline void lc_task_release(struct lc_taskpool *p, struct lc_taskpool_global *g,
                                   struct lc_task *t)
{
    lc_task_state_retire(t);
    t->pool_next = p->head;
    lc_task_poison(t);
    p->head = t;
    if (__builtin_expect(++p->count > 4 * LC_POOL_BATCH, 0))
        lc_taskpool_spill(p, g);
}

#endif /* LC_TASKPOOL_H */
