/*
 * alloc.c - memory allocation in the LLVM OpenMP ABI: the predefined
 * allocator and memory-space handles, which libomp's omp.h declares as
 * constants the runtime defines (libgomp's omp.h makes them enumerators;
 * the values are the same, so gomp/alloc.c's allocators take either), the
 * __kmpc_* forms clang emits for the allocate directive and clause, and
 * the kmp_malloc family of Intel's extensions.
 */
#include <stdint.h>
#include <stdlib.h>

#include "kmp.h"

void *omp_alloc(size_t size, uintptr_t allocator);
void *omp_aligned_alloc(size_t alignment, size_t size, uintptr_t allocator);
void *omp_calloc(size_t nmemb, size_t size, uintptr_t allocator);
void *omp_realloc(void *ptr, size_t size, uintptr_t allocator, uintptr_t free_allocator);
void omp_free(void *ptr, uintptr_t allocator);

KMP_EXPORT const uintptr_t omp_null_allocator = 0;
KMP_EXPORT const uintptr_t omp_default_mem_alloc = 1;
KMP_EXPORT const uintptr_t omp_large_cap_mem_alloc = 2;
KMP_EXPORT const uintptr_t omp_const_mem_alloc = 3;
KMP_EXPORT const uintptr_t omp_high_bw_mem_alloc = 4;
KMP_EXPORT const uintptr_t omp_low_lat_mem_alloc = 5;
KMP_EXPORT const uintptr_t omp_cgroup_mem_alloc = 6;
KMP_EXPORT const uintptr_t omp_pteam_mem_alloc = 7;
KMP_EXPORT const uintptr_t omp_thread_mem_alloc = 8;
KMP_EXPORT const uintptr_t kmp_max_mem_alloc = UINTPTR_MAX;
KMP_EXPORT const uintptr_t omp_default_mem_space = 0;
KMP_EXPORT const uintptr_t omp_large_cap_mem_space = 1;
KMP_EXPORT const uintptr_t omp_const_mem_space = 2;
KMP_EXPORT const uintptr_t omp_high_bw_mem_space = 3;
KMP_EXPORT const uintptr_t omp_low_lat_mem_space = 4;

KMP_EXPORT void *__kmpc_alloc(int gtid, size_t size, uintptr_t allocator)
{
    (void)gtid;
    return omp_alloc(size, allocator);
}

KMP_EXPORT void *__kmpc_aligned_alloc(int gtid, size_t align, size_t size, uintptr_t allocator)
{
    (void)gtid;
    return omp_aligned_alloc(align, size, allocator);
}

KMP_EXPORT void *__kmpc_calloc(int gtid, size_t nmemb, size_t size, uintptr_t allocator)
{
    (void)gtid;
    return omp_calloc(nmemb, size, allocator);
}

KMP_EXPORT void *__kmpc_realloc(int gtid, void *ptr, size_t size, uintptr_t allocator,
                                uintptr_t free_allocator)
{
    (void)gtid;
    return omp_realloc(ptr, size, allocator, free_allocator);
}

KMP_EXPORT void __kmpc_free(int gtid, void *ptr, uintptr_t allocator)
{
    (void)gtid;
    omp_free(ptr, allocator);
}

/* Intel's kmp_malloc family: the C heap (kmp_free takes any of them). */
KMP_EXPORT void *kmp_malloc(size_t size)
{
    return malloc(size);
}

KMP_EXPORT void *kmp_aligned_malloc(size_t size, size_t alignment)
{
    void *p = NULL;
    if (alignment < sizeof(void *))
        alignment = sizeof(void *);
    return posix_memalign(&p, alignment, size) == 0 ? p : NULL;
}

KMP_EXPORT void *kmp_calloc(size_t nelem, size_t elsize)
{
    return calloc(nelem, elsize);
}

KMP_EXPORT void *kmp_realloc(void *ptr, size_t size)
{
    return realloc(ptr, size);
}

KMP_EXPORT void kmp_free(void *ptr)
{
    free(ptr);
}

KMP_EXPORT void *kmpc_malloc(size_t size)
{
    return malloc(size);
}

KMP_EXPORT void *kmpc_aligned_malloc(size_t size, size_t alignment)
{
    return kmp_aligned_malloc(size, alignment);
}

KMP_EXPORT void *kmpc_calloc(size_t nelem, size_t elsize)
{
    return calloc(nelem, elsize);
}

KMP_EXPORT void *kmpc_realloc(void *ptr, size_t size)
{
    return realloc(ptr, size);
}

KMP_EXPORT void kmpc_free(void *ptr)
{
    free(ptr);
}
