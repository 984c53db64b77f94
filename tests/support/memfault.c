/*
 * memfault.c - allocation failures on demand for the tests (support.h).
 * The test binaries are linked with -Wl,--wrap for the allocator entry
 * points alloc/mem.c calls (mallocx and rallocx with jemalloc,
 * posix_memalign in a sanitizer build), so each of the runtime's
 * allocations comes through here first; jemalloc's "arenas.create" is
 * wrapped too, so that a test can make it refuse.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <jemalloc/jemalloc.h>
#include <string.h>

#include "support.h"

static _Atomic long countdown;   /* > 0: the countdown-th allocation from now fails */
static _Atomic int refuse_arenas;
static _Atomic int fail_all;     /* every allocation fails */

void lc_mem_fail_after(long n)
{
    atomic_store_explicit(&countdown, n > 0 ? n : 0, memory_order_relaxed);
}

void lc_mem_fail_all(int on)
{
    atomic_store_explicit(&fail_all, on, memory_order_relaxed);
}

void lc_mem_refuse_arenas(int on)
{
    atomic_store_explicit(&refuse_arenas, on, memory_order_relaxed);
}

/* 1 when this allocation must fail. */
static int injected(void)
{
    if (atomic_load_explicit(&fail_all, memory_order_relaxed))
        return 1;
    long c = atomic_load_explicit(&countdown, memory_order_relaxed);
    while (c > 0)
        if (atomic_compare_exchange_weak_explicit(&countdown, &c, c - 1,
                                                  memory_order_relaxed, memory_order_relaxed))
            return c == 1;
    return 0;
}

void *__real_mallocx(size_t size, int flags);
void *__real_rallocx(void *p, size_t size, int flags);
int __real_posix_memalign(void **p, size_t align, size_t size);
int __real_mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);

void *__wrap_mallocx(size_t size, int flags)
{
    return injected() ? NULL : __real_mallocx(size, flags);
}

void *__wrap_rallocx(void *p, size_t size, int flags)
{
    return injected() ? NULL : __real_rallocx(p, size, flags);
}

int __wrap_posix_memalign(void **p, size_t align, size_t size)
{
    return injected() ? ENOMEM : __real_posix_memalign(p, align, size);
}

int __wrap_mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen)
{
    if (atomic_load_explicit(&refuse_arenas, memory_order_relaxed)
        && strcmp(name, "arenas.create") == 0)
        return EAGAIN;
    return __real_mallctl(name, oldp, oldlenp, newp, newlen);
}

int lc_mem_arena_of(const void *p)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    (void)p;
    return -1;
#else
    unsigned ind;
    size_t sz = sizeof ind;
    return __real_mallctl("arenas.lookup", &ind, &sz, &p, sizeof p) == 0 ? (int)ind : -1;
#endif
}
