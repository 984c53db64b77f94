/*
 * mem.h - the runtime's own allocations (task descriptors, dependency map
 * nodes, queues) go through jemalloc's mallocx/sdallocx here, never through
 * the application's malloc, so that the runtime's allocation pattern does
 * not fragment the program's heap and per-node arenas can be added without
 * touching callers.  A fault-injection countdown (always compiled, one
 * relaxed load on the fast path) lets tests make the N-th allocation fail.
 */
#ifndef LC_MEM_H
#define LC_MEM_H

#include <stddef.h>
#include <stdatomic.h>

extern _Atomic long lc_mem_fail_countdown;   /* > 0: the countdown-th allocation from now fails */

void *lc_mem_alloc_slow(size_t size, size_t align);

/* NULL on failure; align must be a power of two (0 = natural). */
static inline void *lc_mem_alloc(size_t size, size_t align)
{
    return lc_mem_alloc_slow(size, align);
}
void *lc_mem_calloc(size_t n, size_t size);
void lc_mem_free(void *p, size_t size);
/* Grows an array; returns NULL (old block untouched) on failure. */
void *lc_mem_realloc(void *p, size_t oldsize, size_t newsize);

/* Test hook: the n-th allocation from now fails (n >= 1); 0 disables. */
void lc_mem_fail_after(long n);

#endif /* LC_MEM_H */
