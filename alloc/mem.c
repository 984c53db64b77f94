/*
 * mem.c - jemalloc-backed allocation for the runtime's internal objects,
 * with the fault-injection countdown the tests use to prove that an
 * allocation failure loses nothing.
 */
#include "mem.h"

#include <jemalloc/jemalloc.h>
#include <string.h>

_Atomic long lc_mem_fail_countdown;

void lc_mem_fail_after(long n)
{
    atomic_store_explicit(&lc_mem_fail_countdown, n > 0 ? n : 0, memory_order_relaxed);
}

/* Returns 1 when this allocation must fail (test fault injection). */
static int injected_failure(void)
{
    long c = atomic_load_explicit(&lc_mem_fail_countdown, memory_order_relaxed);
    while (c > 0) {
        if (atomic_compare_exchange_weak_explicit(&lc_mem_fail_countdown, &c, c - 1,
                                                  memory_order_relaxed, memory_order_relaxed))
            return c == 1;
    }
    return 0;
}

void *lc_mem_alloc_slow(size_t size, size_t align)
{
    if (injected_failure())
        return NULL;
    if (size == 0)
        size = 1;
    return mallocx(size, align > 1 ? MALLOCX_ALIGN(align) : 0);
}

void *lc_mem_calloc(size_t n, size_t size)
{
    if (size && n > (size_t)-1 / size)
        return NULL;
    if (injected_failure())
        return NULL;
    return mallocx(n * size != 0 ? n * size : 1, MALLOCX_ZERO);
}

void lc_mem_free(void *p, size_t size)
{
    (void)size;
    if (p)
        dallocx(p, 0);
}

void *lc_mem_realloc(void *p, size_t oldsize, size_t newsize)
{
    (void)oldsize;
    if (injected_failure())
        return NULL;
    if (!p)
        return mallocx(newsize ? newsize : 1, 0);
    return rallocx(p, newsize ? newsize : 1, 0);
}
