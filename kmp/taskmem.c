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
 * the malloc heap, so any thread may take them.
 */
#include <stdlib.h>

#include "kmp.h"

#define BLOCK 64
#define NCLASSES 16
#define CACHE_MAX 256

struct free_block {
    struct free_block *next;
};

static __thread struct {
    struct free_block *head[NCLASSES];
    unsigned n[NCLASSES];
} cache __attribute__((tls_model("initial-exec")));

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
        struct free_block *b = p;
        b->next = cache.head[c];
        cache.head[c] = b;
        cache.n[c]++;
        return;
    }
    free(p);
}
