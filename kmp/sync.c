/*
 * sync.c - synchronisation constructs of the LLVM OpenMP ABI: barrier,
 * critical (named by the program's kmp_critical_name, with or without a
 * hint), single, master and masked, ordered, flush, reductions
 * (__kmpc_reduce*), copyprivate, cancellation and threadprivate data
 * without native TLS (__kmpc_threadprivate_*).
 *
 * Each is the shared layer's construct (gomp/): the same team barrier,
 * single count, ordered turns and cancellation as a gcc program's.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "kmp.h"

void GOMP_critical_name_start(void **pptr);
void GOMP_critical_name_end(void **pptr);
void GOMP_ordered_start(void);
void GOMP_ordered_end(void);
bool GOMP_cancel(int which, bool do_cancel);
bool GOMP_cancellation_point(int which);
bool GOMP_barrier_cancel(void);

KMP_EXPORT void __kmpc_barrier(ident_t *loc, kmp_int32 gtid)
{
    (void)loc;
    (void)gtid;
    GOMP_barrier();
}

KMP_EXPORT void __kmpc_flush(ident_t *loc)
{
    (void)loc;
    atomic_thread_fence(memory_order_seq_cst);
}

/* A critical section's lock is the first word of the 32 bytes the
 * program gives per name (zero at first), as a named section of gcc's. */
KMP_EXPORT void __kmpc_critical(ident_t *loc, kmp_int32 gtid, kmp_critical_name *crit)
{
    (void)loc;
    (void)gtid;
    GOMP_critical_name_start((void **)crit);
}

KMP_EXPORT void __kmpc_critical_with_hint(ident_t *loc, kmp_int32 gtid,
                                          kmp_critical_name *crit, uint32_t hint)
{
    (void)hint;   /* every lock spins a little, then sleeps (gomp/sync.c) */
    __kmpc_critical(loc, gtid, crit);
}

KMP_EXPORT void __kmpc_end_critical(ident_t *loc, kmp_int32 gtid, kmp_critical_name *crit)
{
    (void)loc;
    (void)gtid;
    GOMP_critical_name_end((void **)crit);
}

KMP_EXPORT kmp_int32 __kmpc_single(ident_t *loc, kmp_int32 gtid)
{
    (void)loc;
    (void)gtid;
    return GOMP_single_start();
}

KMP_EXPORT void __kmpc_end_single(ident_t *loc, kmp_int32 gtid)
{
    (void)loc;
    (void)gtid;
}

KMP_EXPORT kmp_int32 __kmpc_master(ident_t *loc, kmp_int32 gtid)
{
    (void)loc;
    (void)gtid;
    return omp_get_thread_num() == 0;
}

KMP_EXPORT void __kmpc_end_master(ident_t *loc, kmp_int32 gtid)
{
    (void)loc;
    (void)gtid;
}

KMP_EXPORT kmp_int32 __kmpc_masked(ident_t *loc, kmp_int32 gtid, kmp_int32 filter)
{
    (void)loc;
    (void)gtid;
    return omp_get_thread_num() == filter;
}

KMP_EXPORT void __kmpc_end_masked(ident_t *loc, kmp_int32 gtid)
{
    (void)loc;
    (void)gtid;
}

KMP_EXPORT void __kmpc_ordered(ident_t *loc, kmp_int32 gtid)
{
    (void)loc;
    (void)gtid;
    GOMP_ordered_start();
}

KMP_EXPORT void __kmpc_end_ordered(ident_t *loc, kmp_int32 gtid)
{
    (void)loc;
    (void)gtid;
    GOMP_ordered_end();
}

/* single copyprivate(...): the thread that ran the single publishes its
 * list; each other thread copies from it with cpy_func; the barriers keep
 * the list alive until every copy is made. */
KMP_EXPORT void __kmpc_copyprivate(ident_t *loc, kmp_int32 gtid, size_t cpy_size,
                                   void *cpy_data, void (*cpy_func)(void *, void *),
                                   kmp_int32 didit)
{
    (void)loc;
    (void)gtid;
    (void)cpy_size;
    struct gomp_team *team = gomp_thr.team;
    if (!team)
        return;
    if (didit)
        team->copyprivate = cpy_data;
    GOMP_barrier();
    if (!didit)
        cpy_func(cpy_data, team->copyprivate);
    GOMP_barrier();
}

/* --- reductions ---
 * Every thread combines its partial results into the shared variables
 * under the construct's lock (the critical method: the compiler's
 * reduce_func path), then leaves the lock in __kmpc_end_reduce*.  A team
 * of one combines without it. */
static __thread kmp_critical_name *reduce_held;

static kmp_int32 reduce_begin(kmp_critical_name *lck)
{
    if (!gomp_thr.team)
        return KMP_REDUCE_CRITICAL;
    GOMP_critical_name_start((void **)lck);
    reduce_held = lck;
    return KMP_REDUCE_CRITICAL;
}

static void reduce_end(kmp_critical_name *lck)
{
    if (reduce_held) {
        GOMP_critical_name_end((void **)(reduce_held ? reduce_held : lck));
        reduce_held = NULL;
    }
}

KMP_EXPORT kmp_int32 __kmpc_reduce_nowait(ident_t *loc, kmp_int32 gtid, kmp_int32 num_vars,
                                          size_t reduce_size, void *reduce_data,
                                          void (*reduce_func)(void *, void *),
                                          kmp_critical_name *lck)
{
    (void)loc;
    (void)gtid;
    (void)num_vars;
    (void)reduce_size;
    (void)reduce_data;
    (void)reduce_func;
    return reduce_begin(lck);
}

KMP_EXPORT void __kmpc_end_reduce_nowait(ident_t *loc, kmp_int32 gtid, kmp_critical_name *lck)
{
    (void)loc;
    (void)gtid;
    reduce_end(lck);
}

KMP_EXPORT kmp_int32 __kmpc_reduce(ident_t *loc, kmp_int32 gtid, kmp_int32 num_vars,
                                   size_t reduce_size, void *reduce_data,
                                   void (*reduce_func)(void *, void *), kmp_critical_name *lck)
{
    return __kmpc_reduce_nowait(loc, gtid, num_vars, reduce_size, reduce_data, reduce_func,
                                lck);
}

/* the barrier of a reduction without nowait follows the combining */
KMP_EXPORT void __kmpc_end_reduce(ident_t *loc, kmp_int32 gtid, kmp_critical_name *lck)
{
    reduce_end(lck);
    __kmpc_barrier(loc, gtid);
}

/* --- cancellation: kmp's kinds as gomp/cancel.c's --- */
static int cancel_kind(kmp_int32 kind)
{
    switch (kind) {
    case 1: return 1;   /* parallel */
    case 2: return 2;   /* for */
    case 3: return 4;   /* sections */
    case 4: return 8;   /* taskgroup */
    default: return 0;
    }
}

KMP_EXPORT kmp_int32 __kmpc_cancel(ident_t *loc, kmp_int32 gtid, kmp_int32 kind)
{
    (void)loc;
    (void)gtid;
    int which = cancel_kind(kind);
    return which && GOMP_cancel(which, true);
}

KMP_EXPORT kmp_int32 __kmpc_cancellationpoint(ident_t *loc, kmp_int32 gtid, kmp_int32 kind)
{
    (void)loc;
    (void)gtid;
    int which = cancel_kind(kind);
    return which && GOMP_cancellation_point(which);
}

KMP_EXPORT kmp_int32 __kmpc_cancel_barrier(ident_t *loc, kmp_int32 gtid)
{
    (void)loc;
    (void)gtid;
    return GOMP_barrier_cancel();
}

/* --- threadprivate without native TLS (clang -fno-openmp-use-tls) ---
 * Each thread keeps an open-addressing table from a variable's address to
 * its copy.  The initial thread uses the variable itself, as libomp does.
 * A copy starts as the registered constructor or copy-constructor makes
 * it, else as a copy of the variable's initial bytes. */
struct tp_ctor {
    const void *data;
    void *(*ctor)(void *);
    void *(*cctor)(void *, void *);
    struct tp_ctor *next;
};
static _Atomic(struct tp_ctor *) tp_ctors;

KMP_EXPORT void __kmpc_threadprivate_register(ident_t *loc, void *data, void *(*ctor)(void *),
                                              void *(*cctor)(void *, void *),
                                              void (*dtor)(void *))
{
    (void)loc;
    (void)dtor;   /* copies live as long as their threads; the process frees them */
    struct tp_ctor *c = malloc(sizeof *c);
    if (!c)
        return;   /* the copies start as plain copies of the variable */
    c->data = data;
    c->ctor = ctor;
    c->cctor = cctor;
    c->next = atomic_load(&tp_ctors);
    while (!atomic_compare_exchange_weak(&tp_ctors, &c->next, c))
        ;
}

struct tp_slot {
    const void *key;
    void *copy;
};
static __thread struct tp_slot *tp_table;
static __thread size_t tp_cap, tp_used;

static struct tp_slot *tp_find(const void *key)
{
    size_t h = ((uintptr_t)key >> 4) * 0x9e3779b97f4a7c15ull;
    for (size_t i = 0;; i++) {
        struct tp_slot *s = &tp_table[(h + i) & (tp_cap - 1)];
        if (s->key == key || !s->key)
            return s;
    }
}

static int tp_grow(void)
{
    size_t cap = tp_cap ? tp_cap * 2 : 16;
    struct tp_slot *old = tp_table, *t = calloc(cap, sizeof *t);
    if (!t)
        return -1;
    size_t old_cap = tp_cap;
    tp_table = t;
    tp_cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].key)
            *tp_find(old[i].key) = old[i];
    free(old);
    return 0;
}

static void *tp_copy(void *data, size_t size)
{
    if (lc_kmp_gtid() == 0)
        return data;
    if ((tp_used + 1) * 2 > tp_cap && tp_grow() != 0)
        gomp_unsupported("__kmpc_threadprivate_cached", "out of memory for threadprivate data");
    struct tp_slot *s = tp_find(data);
    if (s->key)
        return s->copy;
    void *copy = calloc(1, size ? size : 1);
    if (!copy)
        gomp_unsupported("__kmpc_threadprivate_cached", "out of memory for threadprivate data");
    const struct tp_ctor *c = atomic_load(&tp_ctors);
    while (c && c->data != data)
        c = c->next;
    if (c && c->cctor)
        c->cctor(copy, data);
    else if (c && c->ctor)
        c->ctor(copy);
    else
        memcpy(copy, data, size);
    s->key = data;
    s->copy = copy;
    tp_used++;
    return copy;
}

KMP_EXPORT void *__kmpc_threadprivate_cached(ident_t *loc, kmp_int32 gtid, void *data,
                                             size_t size, void ***cache)
{
    (void)loc;
    (void)gtid;
    (void)cache;   /* the per-thread table serves every variable */
    return tp_copy(data, size);
}

KMP_EXPORT void *__kmpc_threadprivate(ident_t *loc, kmp_int32 gtid, void *data, size_t size)
{
    (void)loc;
    (void)gtid;
    return tp_copy(data, size);
}

/* A split barrier (Intel compilers' reductions): every thread arrives;
 * the primary thread runs code before the others go on, which it lets go
 * in __kmpc_end_barrier_master.  _nowait: the others do not wait for it. */
KMP_EXPORT kmp_int32 __kmpc_barrier_master(ident_t *loc, kmp_int32 gtid)
{
    (void)loc;
    (void)gtid;
    GOMP_barrier();
    if (omp_get_thread_num() == 0)
        return 1;
    GOMP_barrier();
    return 0;
}

KMP_EXPORT void __kmpc_end_barrier_master(ident_t *loc, kmp_int32 gtid)
{
    (void)loc;
    (void)gtid;
    GOMP_barrier();
}

KMP_EXPORT kmp_int32 __kmpc_barrier_master_nowait(ident_t *loc, kmp_int32 gtid)
{
    (void)loc;
    (void)gtid;
    GOMP_barrier();
    return omp_get_thread_num() == 0;
}
