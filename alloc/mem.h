/*
 * mem.h - the runtime's own allocations (task descriptor slabs, argument
 * copies, dependency map nodes, locality records) go through here.
 *
 * In a normal build they come from jemalloc (mallocx/dallocx), never from
 * the application's malloc, so that the runtime's allocation pattern does
 * not fragment the program's heap.  On a runtime of several nodes each
 * node has a jemalloc arena of its own, used only by the threads of that
 * node's workers (lc_mem_thread_bind), so the runtime's objects a worker
 * allocates are carved from pages first touched on its node (mem.c says
 * how far that goes).  Every thread that allocates here first does so
 * while memory is plentiful (lc_mem_thread_bind, at its start): jemalloc
 * sets a thread up on its first call, and a thread whose first call comes
 * when memory is exhausted crashes inside jemalloc (jemalloc issue 2289),
 * where one set up earlier gets NULL.
 *
 * In a sanitizer build (ASan, TSan) they come from the system allocator
 * instead, which the sanitizer replaces, so that it sees overflows and
 * uses after free of the runtime's blocks; descriptors, which are pooled,
 * are poisoned while in the pool (LC_POISON, taskpool.h).
 *
 * Allocation failure is NULL, never anything else; callers turn it into
 * -ENOMEM or a path that needs no memory.  Tests inject failures by
 * wrapping the allocator's entry points at link time (tests/support/),
 * so the library carries no test hook.
 */
#ifndef LC_MEM_H
#define LC_MEM_H

#include <stddef.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LC_MEM_SYSTEM 1      /* the sanitizer's allocator, not jemalloc */
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#undef LC_MEM_SYSTEM
#define LC_MEM_SYSTEM 1
#endif
#endif

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
/* Marks n bytes at p as not to be touched (touching them is reported) or
 * as usable again. */
#define LC_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define LC_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define LC_POISON(p, n) ((void)(p), (void)(n))
#define LC_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* NULL on failure; align must be a power of two (0 = natural). */
void *lc_mem_alloc(size_t size, size_t align);
/* Zeroed; NULL on failure or when n * size overflows. */
void *lc_mem_calloc(size_t n, size_t size);
/* size is not used (callers pass 0 where they do not know it); p may come
 * from any thread and any arena. */
void lc_mem_free(void *p, size_t size);
/* Grows an array; returns NULL (old block untouched) on failure. */
void *lc_mem_realloc(void *p, size_t oldsize, size_t newsize);

/* Makes sure nodes arenas exist, one per node (created once per process and
 * kept: jemalloc cannot destroy an arena that still holds a block).  Returns
 * nodes, or 0 when they cannot be created (the default arenas serve then);
 * verbose > 0: says why on stderr.  Not thread-safe: call from locus_init. */
int lc_mem_arenas_init(int nodes, int verbose);
/* From now on the calling thread allocates from node's arena through a
 * cache of its own (node < 0, or no arenas: the default arena), and it has
 * allocated once: 0, or -ENOMEM when even that failed (the thread must not
 * go on to allocate here). */
int lc_mem_thread_bind(int node);
/* Back to the default arena; flushes and destroys the thread's cache.
 * Every bound thread calls it before it exits. */
void lc_mem_thread_unbind(void);
/* The arena index of node's arena in use, -1 when there is none (a build
 * without jemalloc, one node, or jemalloc refused). */
int lc_mem_node_arena(int node);

#endif /* LC_MEM_H */
