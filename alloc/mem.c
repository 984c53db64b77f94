/*
 * mem.c - the runtime's allocator (mem.h): jemalloc with per-node arenas
 * in a normal build, the system allocator in a sanitizer build.
 *
 * Per-node arenas: locus_init creates one jemalloc arena per node
 * ("arenas.create") when the runtime has more than one node, and each
 * worker thread allocates from its node's arena with MALLOCX_ARENA, through
 * an explicit cache of its own ("tcache.create", MALLOCX_TCACHE): the
 * thread's automatic cache would hand out blocks of whatever arena filled
 * it.  What places the pages: only threads of the node's workers allocate
 * from its arena, and jemalloc hands out fresh pages untouched, so the
 * first write, by that worker, faults them in on the worker's node (under
 * the default first-touch policy, with workers bound to their node's cores,
 * LOCUS_BIND=core).  No extent hooks and no mbind: a worker that is not
 * bound, or a block freed on another node and reused from that node's
 * thread cache, can still put a node's object on another node's pages.
 * One node (one arena would only add lock contention to the automatic
 * arenas jemalloc spreads threads over) or a jemalloc that refuses: the
 * default arenas, said under LOCUS_VERBOSE, never an init failure.
 * Arenas live as long as the process (jemalloc cannot destroy an arena that
 * still holds a block, and nothing guarantees the program freed nothing
 * into one); a later locus_init reuses them.
 *
 * Binding also makes the thread's first allocation (mem.h says why).
 */
#include "mem.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"

#ifndef LC_MEM_SYSTEM
#include <jemalloc/jemalloc.h>

/* Arenas created so far (process lifetime), and how many the running
 * runtime uses (0: none).  Written by locus_init only, before the workers
 * start; read by workers after (pthread_create orders the two). */
static unsigned arena_ind[LC_TOPO_MAX_NODES];
static int narenas_made, narenas_used;

/* The calling thread's flags: MALLOCX_ARENA and MALLOCX_TCACHE when bound. */
static __thread int t_aflags, t_dflags;
static __thread unsigned t_tcache;
static __thread int t_has_tcache;

void *lc_mem_alloc(size_t size, size_t align)
{
    return mallocx(size ? size : 1, t_aflags | (align > 1 ? MALLOCX_ALIGN(align) : 0));
}

void *lc_mem_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    return mallocx(n * size != 0 ? n * size : 1, t_aflags | MALLOCX_ZERO);
}

void lc_mem_free(void *p, size_t size)
{
    (void)size;
    if (p)
        dallocx(p, t_dflags);
}

void *lc_mem_realloc(void *p, size_t oldsize, size_t newsize)
{
    (void)oldsize;
    if (!p)
        return mallocx(newsize ? newsize : 1, t_aflags);
    return rallocx(p, newsize ? newsize : 1, t_aflags);
}

int lc_mem_arenas_init(int nodes, int verbose)
{
    narenas_used = 0;
    if (nodes <= 1)
        return 0;
    if (nodes > LC_TOPO_MAX_NODES) {
        if (verbose > 0)
            fprintf(stderr, "locus: no per-node allocator arenas (too many nodes): the "
                    "runtime's objects come from jemalloc's default arenas\n");
        return 0;
    }
    while (narenas_made < nodes) {
        unsigned ind;
        size_t sz = sizeof ind;
        int r = mallctl("arenas.create", &ind, &sz, NULL, 0);
        if (r != 0) {
            if (verbose > 0)
                fprintf(stderr, "locus: no per-node allocator arenas (arenas.create: %s): the "
                        "runtime's objects come from jemalloc's default arenas\n", strerror(r));
            return 0;
        }
        arena_ind[narenas_made++] = ind;
    }
    narenas_used = nodes;
    return nodes;
}

void lc_mem_thread_unbind(void)
{
    if (t_has_tcache) {
        /* flushes the cached blocks back to their arenas */
        mallctl("tcache.destroy", NULL, NULL, &t_tcache, sizeof t_tcache);
        t_has_tcache = 0;
    }
    t_aflags = t_dflags = 0;
}

int lc_mem_thread_bind(int node)
{
    lc_mem_thread_unbind();
    if (node >= 0 && node < narenas_used) {
        unsigned tc;
        size_t sz = sizeof tc;
        int tflags = MALLOCX_TCACHE_NONE;   /* no cache of its own: straight to the arena */
        if (mallctl("tcache.create", &tc, &sz, NULL, 0) == 0) {
            t_tcache = tc;
            t_has_tcache = 1;
            tflags = MALLOCX_TCACHE(tc);
        }
        t_aflags = (int)MALLOCX_ARENA(arena_ind[node]) | tflags;
        t_dflags = tflags;
    }
    /* the thread's first allocation, now that memory is there (mem.h) */
    void *p = lc_mem_alloc(64, 0);
    if (!p)
        return -ENOMEM;
    lc_mem_free(p, 64);
    return 0;
}

int lc_mem_node_arena(int node)
{
    return node >= 0 && node < narenas_used ? (int)arena_ind[node] : -1;
}

#else /* LC_MEM_SYSTEM: the sanitizer's allocator sees every block */

void *lc_mem_alloc(size_t size, size_t align)
{
    void *p;
    if (align < sizeof(void *))
        align = sizeof(void *);
    return posix_memalign(&p, align, size ? size : 1) == 0 ? p : NULL;
}

void *lc_mem_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    void *p = lc_mem_alloc(n * size, 0);
    if (p)
        memset(p, 0, n * size);
    return p;
}

void lc_mem_free(void *p, size_t size)
{
    (void)size;
    free(p);
}

void *lc_mem_realloc(void *p, size_t oldsize, size_t newsize)
{
    void *q = lc_mem_alloc(newsize, 0);
    if (!q)
        return NULL;
    if (p) {
        memcpy(q, p, oldsize < newsize ? oldsize : newsize);
        free(p);
    }
    return q;
}

int lc_mem_arenas_init(int nodes, int verbose)
{
    if (nodes > 1 && verbose >= 2)
        fprintf(stderr, "locus: no per-node allocator arenas in a sanitizer build: the "
                "runtime's objects come from the system allocator\n");
    return 0;
}

int lc_mem_thread_bind(int node)
{
    (void)node;
    return 0;
}

void lc_mem_thread_unbind(void)
{
}

int lc_mem_node_arena(int node)
{
    (void)node;
    return -1;
}

#endif
