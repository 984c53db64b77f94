/*
 * mem.h - the runtime's own allocations (task descriptors, dependency map
 * nodes, queues) go through jemalloc's mallocx/dallocx here, never through
 * the application's malloc, so that the runtime's allocation pattern does
 * not fragment the program's heap.  On a runtime of several nodes each node
 * has a jemalloc arena of its own, used only by the threads of that node's
 * workers (lc_mem_thread_bind), so the runtime's objects a worker allocates
 * are carved from pages first touched on its node (mem.c says how far that
 * goes).  A fault-injection countdown (always compiled, one relaxed load on
 * the fast path) lets tests make the N-th allocation fail.
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
/* size is not used (dallocx, not sdallocx: callers pass 0 where they do not
 * know it); p may come from any thread and any arena. */
void lc_mem_free(void *p, size_t size);
/* Grows an array; returns NULL (old block untouched) on failure. */
void *lc_mem_realloc(void *p, size_t oldsize, size_t newsize);

/* Makes sure nodes arenas exist, one per node (created once per process and
 * kept: jemalloc cannot destroy an arena that still holds a block).  Returns
 * nodes, or 0 when they cannot be created (the default arenas serve then);
 * verbose > 0: says why on stderr.  Not thread-safe: call from locus_init. */
int lc_mem_arenas_init(int nodes, int verbose);
/* From now on the calling thread allocates from node's arena through a
 * cache of its own (node < 0, or no arenas: the default arena). */
void lc_mem_thread_bind(int node);
/* Back to the default arena; flushes and destroys the thread's cache.
 * Every bound thread calls it before it exits. */
void lc_mem_thread_unbind(void);
/* The arena index of node's arena in use, -1 when there is none. */
int lc_mem_node_arena(int node);
/* The arena that p was allocated from (tests), -1 if unknown. */
int lc_mem_arena_of(const void *p);
/* Test hook: on, lc_mem_arenas_init() behaves as if jemalloc refused. */
void lc_mem_refuse_arenas(int on);

/* Test hook: the n-th allocation from now fails (n >= 1); 0 disables. */
void lc_mem_fail_after(long n);

#endif /* LC_MEM_H */
