/*
 * alloc.c - OpenMP memory allocators on liblocus-gomp: omp_init_allocator
 * and omp_destroy_allocator with their traits, omp_alloc, omp_aligned_alloc,
 * omp_calloc, omp_aligned_calloc, omp_realloc and omp_free, the
 * def-allocator-var ICV (OMP_ALLOCATOR, omp_set/get_default_allocator), and
 * GOMP_alloc/GOMP_free, which gcc emits for the allocate clause.
 *
 * As libgomp does on a host without memkind: every memory space is the
 * ordinary heap (the high-bandwidth space and pinned memory are refused at
 * omp_init_allocator, so a program asking for them gets omp_null_allocator
 * as it would there); the traits that change behaviour are alignment,
 * pool_size (a byte budget counted per allocator, header included) and
 * fallback.  Each block carries a header just below the address handed out
 * that names the malloc'd block, its size and the allocator that paid for
 * it, so that omp_free and omp_realloc need no allocator argument.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gomp.h"

/* omp.h's values: predefined allocators and memory spaces, trait keys and
 * trait values (omp_alloctrait_key_t, omp_alloctrait_value_t) */
enum { A_NULL = 0, A_DEFAULT = 1, A_LAST_PREDEFINED = 8 };
enum { MS_DEFAULT = 0, MS_LARGE_CAP, MS_CONST, MS_HIGH_BW, MS_LOW_LAT };
enum { K_SYNC_HINT = 1, K_ALIGNMENT, K_ACCESS, K_POOL_SIZE, K_FALLBACK, K_FB_DATA, K_PINNED,
       K_PARTITION };
enum { V_FALSE = 0, V_TRUE = 1, V_DEFAULT = -1, V_CONTENDED = 3, V_UNCONTENDED, V_SERIALIZED,
       V_PRIVATE, V_ALL, V_THREAD, V_PTEAM, V_CGROUP, V_DEFAULT_MEM_FB, V_NULL_FB, V_ABORT_FB,
       V_ALLOCATOR_FB, V_ENVIRONMENT, V_NEAREST, V_BLOCKED, V_INTERLEAVED };

typedef struct { int key; uintptr_t value; } alloctrait_t;

/* A user-defined allocator: its handle is the address of this. */
struct allocator {
    uintptr_t alignment;          /* at least sizeof(void *) */
    uintptr_t pool_size;          /* UINTPTR_MAX: no limit */
    _Atomic uintptr_t used;       /* bytes of the pool in use (headers included) */
    uintptr_t fb_data;            /* the allocator_fb fallback's allocator */
    int fallback;
};

/* Just below every block handed out. */
struct header {
    void *block;                  /* what malloc gave */
    size_t size;                  /* bytes malloc'd, charged to the pool */
    uintptr_t allocator;          /* handle that paid */
    void *pad;                    /* keeps the header 32 bytes, the user block 16-aligned */
};

/* The def-allocator-var ICV: OMP_ALLOCATOR's, unless the thread's data
 * environment set its own (gomp_thr.def_allocator, which the members of a
 * parallel region inherit, parallel.c) */
static uintptr_t def_allocator = A_DEFAULT;

__attribute__((constructor)) static void read_allocator_env(void)
{
    static const char *const names[] = {
        "omp_default_mem_alloc", "omp_large_cap_mem_alloc", "omp_const_mem_alloc",
        "omp_high_bw_mem_alloc", "omp_low_lat_mem_alloc", "omp_cgroup_mem_alloc",
        "omp_pteam_mem_alloc", "omp_thread_mem_alloc",
    };
    const char *s = getenv("OMP_ALLOCATOR");
    if (!s)
        return;
    const char *p = s;
    while (*p == ' ' || *p == '\t')
        p++;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t len = strlen(names[i]);
        if (strncasecmp(p, names[i], len))
            continue;
        const char *q = p + len;
        while (*q == ' ' || *q == '\t')
            q++;
        if (!*q) {
            def_allocator = i + 1;
            return;
        }
    }
    gomp_say("ignoring OMP_ALLOCATOR='%s': expected the name of a "
            "predefined allocator (omp_default_mem_alloc, ...)\n", s);
}

GOMP_EXPORT void omp_set_default_allocator(uintptr_t allocator)
{
    gomp_thr.def_allocator = allocator ? allocator : A_DEFAULT;
}

GOMP_EXPORT uintptr_t omp_get_default_allocator(void)
{
    return gomp_thr.def_allocator ? gomp_thr.def_allocator : def_allocator;
}

GOMP_EXPORT uintptr_t omp_init_allocator(uintptr_t memspace, int ntraits,
                                         const alloctrait_t traits[])
{
    struct allocator a = { .alignment = 1, .pool_size = UINTPTR_MAX,
                           .fallback = V_DEFAULT_MEM_FB };
    int pinned = 0;
    if (memspace > MS_LOW_LAT || ntraits < 0 || (ntraits > 0 && !traits))
        return A_NULL;
    for (int i = 0; i < ntraits; i++) {
        intptr_t v = (intptr_t)traits[i].value;
        switch (traits[i].key) {
        case K_SYNC_HINT:
            if (v != V_DEFAULT && (v < V_CONTENDED || v > V_PRIVATE))
                return A_NULL;
            break;
        case K_ALIGNMENT:
            if (v == V_DEFAULT)
                a.alignment = 1;
            else if (v <= 0 || (v & (v - 1)))
                return A_NULL;
            else
                a.alignment = (uintptr_t)v;
            break;
        case K_ACCESS:
            if (v != V_DEFAULT && (v < V_ALL || v > V_CGROUP))
                return A_NULL;
            break;
        case K_POOL_SIZE:
            a.pool_size = v == V_DEFAULT ? UINTPTR_MAX : traits[i].value;
            break;
        case K_FALLBACK:
            if (v == V_DEFAULT)
                a.fallback = V_DEFAULT_MEM_FB;
            else if (v >= V_DEFAULT_MEM_FB && v <= V_ALLOCATOR_FB)
                a.fallback = (int)v;
            else
                return A_NULL;
            break;
        case K_FB_DATA:
            a.fb_data = traits[i].value;
            break;
        case K_PINNED:
            if (v == V_TRUE)
                pinned = 1;
            else if (v != V_DEFAULT && v != V_FALSE)
                return A_NULL;
            break;
        case K_PARTITION:
            if (v != V_DEFAULT && (v < V_ENVIRONMENT || v > V_INTERLEAVED))
                return A_NULL;
            break;
        default:
            return A_NULL;
        }
    }
    if (a.alignment < sizeof(void *))
        a.alignment = sizeof(void *);
    /* no pinned memory and no high-bandwidth memory here: refused, as
     * libgomp refuses them without memkind */
    if (pinned || memspace == MS_HIGH_BW)
        return A_NULL;
    struct allocator *h = malloc(sizeof *h);
    if (!h)
        return A_NULL;
    *h = a;
    return (uintptr_t)h;
}

GOMP_EXPORT void omp_destroy_allocator(uintptr_t allocator)
{
    if (allocator > A_LAST_PREDEFINED)
        free((void *)allocator);
}

static struct allocator *user(uintptr_t handle)
{
    return handle > A_LAST_PREDEFINED ? (struct allocator *)handle : NULL;
}

/* Charges bytes to a's pool; false when it does not fit. */
static bool pool_take(struct allocator *a, size_t bytes)
{
    uintptr_t used = atomic_load_explicit(&a->used, memory_order_relaxed), next;
    do {
        if (__builtin_add_overflow(used, bytes, &next) || next > a->pool_size)
            return false;
    } while (!atomic_compare_exchange_weak_explicit(&a->used, &used, next, memory_order_relaxed,
                                                    memory_order_relaxed));
    return true;
}

static void pool_give(struct allocator *a, size_t bytes)
{
    atomic_fetch_sub_explicit(&a->used, bytes, memory_order_relaxed);
}

static bool limited(const struct allocator *a)
{
    return a && a->pool_size != UINTPTR_MAX;
}

/* The user block inside a malloc'd block, its header filled in. */
static void *finish(void *block, size_t total, size_t align, uintptr_t handle)
{
    uintptr_t p = (uintptr_t)block + sizeof(struct header);
    if (align > sizeof(void *))
        p = ((uintptr_t)block + sizeof(struct header) + align - sizeof(void *)) & ~(align - 1);
    struct header *h = (struct header *)p - 1;
    h->block = block;
    h->size = total;
    h->allocator = handle;
    return (void *)p;
}

/* Bytes to malloc for size bytes at align: header and alignment slack. */
static bool total_bytes(size_t size, size_t align, size_t *total)
{
    size_t extra = sizeof(struct header) + (align > sizeof(void *) ? align - sizeof(void *) : 0);
    return !__builtin_add_overflow(size, extra, total);
}

/*
 * What an allocator does when it cannot give the memory.  Returns the
 * allocator to retry with, or A_NULL for "return NULL".  abort_fb ends the
 * program, as the standard requires of that trait.
 */
static uintptr_t fallback(struct allocator *a, size_t size, size_t align, size_t asked_align)
{
    switch (a->fallback) {
    case V_DEFAULT_MEM_FB:
        /* the default memory only helps when this allocator added a
         * constraint that the default allocator does not have */
        if ((align > sizeof(void *) && align > asked_align) || limited(a))
            return A_DEFAULT;
        return A_NULL;
    case V_NULL_FB:
        return A_NULL;
    case V_ALLOCATOR_FB:
        return a->fb_data;
    default:
        gomp_say("Out of memory allocating %lu bytes "
                "(allocator with the abort_fb fallback)\n", (unsigned long)size);
        exit(EXIT_FAILURE);
    }
}

/* The alignment a block from handle gets when alignment is asked for. */
static size_t block_align(uintptr_t handle, size_t alignment)
{
    struct allocator *a = user(handle);
    size_t align = alignment;
    if (a && align < a->alignment)
        align = a->alignment;
    return align < sizeof(void *) ? sizeof(void *) : align;
}

/* One attempt on one allocator (no fallback); NULL when it cannot give. */
static void *try_alloc(uintptr_t handle, size_t alignment, size_t size, bool zero)
{
    struct allocator *a = user(handle);
    size_t align = block_align(handle, alignment), total;
    if (!total_bytes(size, align, &total) || (limited(a) && !pool_take(a, total)))
        return NULL;
    void *block = zero ? calloc(1, total) : malloc(total);
    if (!block) {
        if (limited(a))
            pool_give(a, total);
        return NULL;
    }
    return finish(block, total, align, handle);
}

static void *allocate(size_t alignment, size_t size, uintptr_t handle, bool zero)
{
    for (;;) {
        if (handle == A_NULL)
            handle = omp_get_default_allocator();
        void *p = try_alloc(handle, alignment, size, zero);
        if (p)
            return p;
        struct allocator *a = user(handle);
        if (!a || (handle = fallback(a, size, block_align(handle, alignment), alignment)) == A_NULL)
            return NULL;
    }
}

/* An alignment that is not a power of two is an error the standard leaves
 * undefined; here it gets NULL. */
static bool bad_alignment(size_t alignment)
{
    return alignment == 0 || (alignment & (alignment - 1));
}

GOMP_EXPORT void *omp_aligned_alloc(size_t alignment, size_t size, uintptr_t allocator)
{
    if (size == 0 || bad_alignment(alignment))
        return NULL;
    return allocate(alignment, size, allocator, false);
}

GOMP_EXPORT void *omp_alloc(size_t size, uintptr_t allocator)
{
    return omp_aligned_alloc(1, size, allocator);
}

GOMP_EXPORT void *omp_aligned_calloc(size_t alignment, size_t nmemb, size_t size,
                                     uintptr_t allocator)
{
    size_t bytes;
    if (size == 0 || nmemb == 0 || bad_alignment(alignment))
        return NULL;
    if (__builtin_mul_overflow(nmemb, size, &bytes)) {
        /* no allocator can give this: its fallback decides */
        for (struct allocator *a = user(allocator ? allocator : omp_get_default_allocator());
             a; a = user(allocator)) {
            if ((allocator = fallback(a, SIZE_MAX, alignment, alignment)) == A_NULL)
                return NULL;
        }
        return NULL;
    }
    return allocate(alignment, bytes, allocator, true);
}

GOMP_EXPORT void *omp_calloc(size_t nmemb, size_t size, uintptr_t allocator)
{
    return omp_aligned_calloc(1, nmemb, size, allocator);
}

GOMP_EXPORT void omp_free(void *ptr, uintptr_t allocator)
{
    (void)allocator;   /* the header says which allocator paid */
    if (!ptr)
        return;
    struct header *h = (struct header *)ptr - 1;
    struct allocator *a = user(h->allocator);
    if (limited(a))
        pool_give(a, h->size);
    free(h->block);
}

/*
 * Resizes old's block in place with realloc() for the same allocator, or
 * for two without a pool, when neither block needs more than malloc's
 * alignment: a pool is charged only the difference then.  NULL when it
 * cannot (old is untouched).
 */
static void *try_realloc_in_place(void *ptr, size_t size, uintptr_t handle)
{
    struct header *old = (struct header *)ptr - 1;
    struct allocator *a = user(handle);
    size_t total;
    if (block_align(handle, 1) != sizeof(void *)
        || (char *)ptr - (char *)old->block != sizeof(struct header)
        || (handle != old->allocator && (limited(a) || limited(user(old->allocator))))
        || !total_bytes(size, sizeof(void *), &total))
        return NULL;
    size_t old_size = old->size;
    if (limited(a) && total > old_size && !pool_take(a, total - old_size))
        return NULL;
    void *block = realloc(old->block, total);
    if (!block) {
        if (limited(a) && total > old_size)
            pool_give(a, total - old_size);
        return NULL;
    }
    if (limited(a) && total < old_size)
        pool_give(a, old_size - total);
    return finish(block, total, sizeof(void *), handle);
}

/*
 * omp_realloc: the block resized for allocator (omp_null_allocator: the
 * one the old block came from), in place where it can be, else a new
 * block with the old contents and the old block freed.  A failure leaves
 * the old block as it was.
 */
GOMP_EXPORT void *omp_realloc(void *ptr, size_t size, uintptr_t allocator,
                              uintptr_t free_allocator)
{
    if (!ptr)
        return omp_alloc(size, allocator);
    if (size == 0) {
        omp_free(ptr, free_allocator);
        return NULL;
    }
    struct header *old = (struct header *)ptr - 1;
    size_t old_room = old->size - (size_t)((char *)ptr - (char *)old->block);
    uintptr_t handle = allocator ? allocator : old->allocator;
    for (;;) {
        void *p = try_realloc_in_place(ptr, size, handle);
        if (p)
            return p;
        if ((p = try_alloc(handle, 1, size, false))) {
            memcpy(p, ptr, size < old_room ? size : old_room);
            omp_free(ptr, free_allocator);
            return p;
        }
        struct allocator *a = user(handle);
        if (!a || (handle = fallback(a, size, block_align(handle, 1), 1)) == A_NULL)
            return NULL;
    }
}

/* The allocate clause's allocations: as omp_aligned_alloc, but a failure
 * ends the program (the standard makes null_fb behave as abort_fb there). */
GOMP_EXPORT void *GOMP_alloc(size_t alignment, size_t size, uintptr_t allocator)
{
    void *p = omp_aligned_alloc(alignment, size, allocator);
    if (!p && size) {
        gomp_say("Out of memory allocating %lu bytes\n",
                (unsigned long)size);
        exit(EXIT_FAILURE);
    }
    return p;
}

GOMP_EXPORT void GOMP_free(void *ptr, uintptr_t allocator)
{
    omp_free(ptr, allocator);
}
