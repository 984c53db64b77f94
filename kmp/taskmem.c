/*
 * taskmem.c - the memory of kmp task blocks (task.c, taskloop.c): a cache
 * per thread of freed blocks by size class, as libomp's fast memory
 * (__kmp_fast_allocate) keeps, so that a program of many small tasks does
 * not pay an aligned malloc and a free for each.
 *
 * Blocks are 64-byte aligned, their size a multiple of 64; up to 1 KiB
 * they are cached.  A block goes back to the cache of the thread that
 * allocated it (its home, which the caller keeps in the block's header):
 * freed by that thread, onto its own list (LC_KMP_CACHE_MAX a class at
 * most, the rest to malloc); freed by another, onto the home's return
 * list, a lock-free stack the home takes whole when its own list is empty
 * (taskmem.h inlines the own list's pop and push).  Tasks
 * flow from the threads that create them to those that run them, so a
 * block freed into the runner's cache would leave the creator to malloc
 * every block, and glibc's arenas then pass each one back across threads
 * under a lock (the clang granularity benchmark spent a quarter of its
 * time in malloc and free so).
 *
 * A cache lives on the heap, not in thread-local storage, because other
 * threads write to it.  When its thread exits, its blocks are freed and
 * the cache is kept for the next thread that starts (the worker pool
 * restarts with another size), so that a block returned late never writes
 * to freed memory: returned to a cache whose thread is gone, it is freed,
 * or, in a race with the exit, kept on the return list for the cache's
 * next owner.  Every cache stays on one global list, whose lock only
 * threads starting and exiting take.
 *
 * Blocks returned to another thread go in chains of up to RETURN_BATCH
 * per size class: the freeing thread gathers them for one home, then
 * pushes the chain with one compare-and-swap.  A block per push cost each
 * task an atomic on a line its creator owns, as much as the rest of the
 * free (the granularity benchmark's independent tasks).  A chain waits at
 * most until its thread frees a block of that class for another home, or
 * exits.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "kmp.h"
#include "taskmem.h"

#define RETURN_BATCH 16

/* every cache ever made; those whose thread is gone are taken again */
static struct lc_kmp_cache *caches;
static pthread_mutex_t caches_lock = PTHREAD_MUTEX_INITIALIZER;

__thread struct lc_kmp_cache *lc_kmp_mine __attribute__((tls_model("initial-exec")));
static __thread int no_cache __attribute__((tls_model("initial-exec")));

/* The blocks this thread freed for another thread's cache, not yet
 * returned: a chain per size class, all for one home. */
struct return_chain {
    struct lc_kmp_cache *home;
    struct lc_kmp_free_block *head, *tail;
    unsigned n;
};
static __thread struct return_chain returning[LC_KMP_NCLASSES]
    __attribute__((tls_model("initial-exec")));

static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

static void free_list(struct lc_kmp_free_block *b)
{
    while (b) {
        struct lc_kmp_free_block *next = b->next;
        free(b);
        b = next;
    }
}

/* Pushes the chain head .. tail of class k onto home's return list, or
 * frees it when home's thread is gone. */
static void give_back(struct lc_kmp_cache *home, size_t k, struct lc_kmp_free_block *head,
                      struct lc_kmp_free_block *tail)
{
    if (atomic_load_explicit(&home->gone, memory_order_acquire)) {
        tail->next = NULL;
        free_list(head);
        return;
    }
    struct lc_kmp_free_block *top = atomic_load_explicit(&home->back[k], memory_order_relaxed);
    do {
        tail->next = top;
    } while (!atomic_compare_exchange_weak_explicit(&home->back[k], &top, head,
                                                    memory_order_release,
                                                    memory_order_relaxed));
}

static void return_flush(size_t k)
{
    struct return_chain *r = &returning[k];
    if (!r->head)
        return;
    give_back(r->home, k, r->head, r->tail);
    r->head = r->tail = NULL;
    r->n = 0;
}

static void drop_cache(void *arg)
{
    struct lc_kmp_cache *c = arg;
    for (size_t k = 0; k < LC_KMP_NCLASSES; k++)
        return_flush(k);   /* before the lock: a home may be this cache itself */
    pthread_mutex_lock(&caches_lock);
    atomic_store_explicit(&c->gone, 1, memory_order_seq_cst);
    for (int k = 0; k < LC_KMP_NCLASSES; k++) {
        free_list(c->head[k]);
        c->head[k] = NULL;
        c->n[k] = 0;
        free_list(atomic_exchange_explicit(&c->back[k], NULL, memory_order_acquire));
    }
    pthread_mutex_unlock(&caches_lock);
    lc_kmp_mine = NULL;
}

static void make_key(void)
{
    if (pthread_key_create(&exit_key, drop_cache) != 0)
        exit_key = (pthread_key_t)-1;
}

/* The calling thread's cache, made on first use; NULL when it cannot be
 * (blocks are then plain malloc'd ones). */
static struct lc_kmp_cache *my_cache(void)
{
    if (__builtin_expect(lc_kmp_mine != NULL, 1))
        return lc_kmp_mine;
    if (no_cache)
        return NULL;
    pthread_once(&exit_once, make_key);
    if (exit_key == (pthread_key_t)-1) {
        no_cache = 1;   /* no way to free its blocks at exit: no cache */
        return NULL;
    }
    pthread_mutex_lock(&caches_lock);
    struct lc_kmp_cache *c = caches;
    while (c && !atomic_load_explicit(&c->gone, memory_order_relaxed))
        c = c->next;
    if (!c && (c = calloc(1, sizeof *c))) {
        c->next = caches;
        caches = c;
    }
    if (c && pthread_setspecific(exit_key, c) == 0)
        atomic_store_explicit(&c->gone, 0, memory_order_seq_cst);   /* ours now */
    else if (c)
        c = NULL;   /* stays gone, for another thread */
    pthread_mutex_unlock(&caches_lock);
    if (!c) {
        no_cache = 1;
        return NULL;
    }
    return lc_kmp_mine = c;
}

void *lc_kmp_block_alloc(size_t size, struct lc_kmp_cache **home)
{
    size_t k = size / LC_KMP_BLOCK - 1;
    struct lc_kmp_cache *c = k < LC_KMP_NCLASSES ? my_cache() : NULL;
    *home = c;
    if (!c)
        return aligned_alloc(LC_KMP_BLOCK, size);
    if (!c->head[k] && atomic_load_explicit(&c->back[k], memory_order_relaxed)) {
        /* take back every block other threads returned, uncounted: n
         * bounds what the owner keeps of the blocks it freed, and these
         * are blocks it allocated, bounded by its tasks in flight; counting
         * them walked the chain, a cache miss per block on the spawner */
        c->head[k] = atomic_exchange_explicit(&c->back[k], NULL, memory_order_acquire);
    }
    return c->head[k] ? lc_kmp_own_pop(c, k) : aligned_alloc(LC_KMP_BLOCK, size);
}

void lc_kmp_block_free(void *p, size_t size, struct lc_kmp_cache *home)
{
    size_t k = size / LC_KMP_BLOCK - 1;
    struct lc_kmp_free_block *b = p;
    if (!home) {
        free(p);
    } else if (home == lc_kmp_mine) {
        if (home->n[k] < LC_KMP_CACHE_MAX) {
            lc_kmp_own_push(home, k, p);
        } else {
            free(p);
        }
    } else if (!my_cache()) {
        /* no cache, so no exit hook to return a chain from: one at a time */
        give_back(home, k, b, b);
    } else {
        struct return_chain *r = &returning[k];
        if (r->home != home) {
            return_flush(k);
            r->home = home;
        }
        b->next = r->head;
        r->head = b;
        if (!r->tail)
            r->tail = b;
        if (++r->n == RETURN_BATCH)
            return_flush(k);
    }
}
