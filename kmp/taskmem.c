/*
 * taskmem.c - the memory of kmp task blocks (task.c, taskloop.c): a cache
 * per thread of freed blocks by size class, as libomp's fast memory
 * (__kmp_fast_allocate) keeps, so that a program of many small tasks does
 * not pay an aligned malloc and a free for each.
 *
 * Blocks are 64-byte aligned, their size a multiple of 64; up to 1 KiB
 * they are cached, CACHE_MAX of each class per thread, the rest freed.  A
 * block freed by the thread that ran its task goes to that thread's
 * cache, whoever allocated it: the caches only ever hold whole blocks of
 * the malloc heap, so any thread may take them.  A thread's cache is
 * freed when it exits (the worker pool restarts with another size).
 */
#include <pthread.h>
#include <stdlib.h>

#include "kmp.h"

#define BLOCK 64
#define NCLASSES 16
#define CACHE_MAX 256

struct free_block {
    struct free_block *next;
};

struct cache {
    struct free_block *head[NCLASSES];
    unsigned n[NCLASSES];
    int at_exit;                  /* drop_cache is registered for this thread */
};
static __thread struct cache cache __attribute__((tls_model("initial-exec")));

static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

static void drop_cache(void *arg)
{
    struct cache *c = arg;
    for (int k = 0; k < NCLASSES; k++)
        while (c->head[k]) {
            struct free_block *b = c->head[k];
            c->head[k] = b->next;
            free(b);
        }
}

static void make_key(void)
{
    if (pthread_key_create(&exit_key, drop_cache) != 0)
        exit_key = (pthread_key_t)-1;
}

void *lc_kmp_block_alloc(size_t size)
{
    size_t c = size / BLOCK - 1;
    if (c < NCLASSES && cache.head[c]) {
        struct free_block *b = cache.head[c];
        cache.head[c] = b->next;
        cache.n[c]--;
        return b;
    }
    return aligned_alloc(BLOCK, size);
}

void lc_kmp_block_free(void *p, size_t size)
{
    size_t c = size / BLOCK - 1;
    if (c < NCLASSES && cache.n[c] < CACHE_MAX) {
        if (__builtin_expect(!cache.at_exit, 0)) {
            pthread_once(&exit_once, make_key);
            if (exit_key == (pthread_key_t)-1 || pthread_setspecific(exit_key, &cache) != 0) {
                free(p);   /* no way to free the cache at exit: no cache */
                return;
            }
            cache.at_exit = 1;
        }
        struct free_block *b = p;
        b->next = cache.head[c];
        cache.head[c] = b;
        cache.n[c]++;
        return;
    }
    free(p);
}
