/*
 * doacross.c - doacross loops of the LLVM OpenMP ABI (ordered(n) with
 * depend(sink: ...) and depend(source)): __kmpc_doacross_init before the
 * loop, post and wait with the iteration vector in the program's values,
 * fini after it.
 *
 * One bit per iteration of the n ordered loops, set by its post, as
 * libomp keeps them: clang may share out a collapsed iteration space, so
 * the iterations of one outermost index can run on several threads, out
 * of order, which gomp/doacross.c's one word per outermost index (gcc
 * shares out the outermost loop only) cannot follow.  The bits are the
 * zeroed team-shared block of a worksharing slot that every member enters
 * at init and leaves at fini (gomp_ws_enter's mem): clang's static loops
 * take no slot, so the state cannot ride on the loop's own.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "kmp.h"

typedef unsigned long long ull;

struct kmp_dim {
    kmp_int64 lo, up, st;
};

/* The calling member's doacross loop (one at a time: worksharing loops
 * of a team do not nest). */
static __thread struct {
    struct gomp_ws *ws;           /* NULL: no loop, or nothing to wait for */
    _Atomic uint32_t *bits;
    unsigned n;
    struct kmp_dim *dims;
    ull *counts;
} dxl;

static ull count_of(const struct kmp_dim *d)
{
    if (d->st > 0)
        return d->up < d->lo ? 0 : ((ull)d->up - (ull)d->lo) / (ull)d->st + 1;
    if (d->st < 0)
        return d->lo < d->up ? 0 : ((ull)d->lo - (ull)d->up) / (0 - (ull)d->st) + 1;
    return 0;
}

static void forget(void)
{
    free(dxl.dims);
    free(dxl.counts);
    dxl.dims = NULL;
    dxl.counts = NULL;
    dxl.bits = NULL;
}

KMP_EXPORT void __kmpc_doacross_init(ident_t *loc, kmp_int32 gtid, kmp_int32 num_dims,
                                     const struct kmp_dim *dims)
{
    (void)loc;
    (void)gtid;
    forget();
    unsigned n = num_dims > 0 ? (unsigned)num_dims : 0;
    dxl.n = n;
    dxl.ws = NULL;
    if (!n)
        return;
    dxl.dims = malloc(sizeof *dxl.dims * n);
    dxl.counts = malloc(sizeof *dxl.counts * n);
    if (!dxl.dims || !dxl.counts)
        gomp_unsupported("__kmpc_doacross_init", "out of memory for doacross state");
    ull total = 1;
    for (unsigned i = 0; i < n; i++) {
        dxl.dims[i] = dims[i];
        dxl.counts[i] = count_of(&dims[i]);
        if (__builtin_mul_overflow(total, dxl.counts[i], &total) || total > (1ULL << 40))
            gomp_unsupported("__kmpc_doacross_init", "a doacross iteration space too large "
                             "for one bit per iteration");
    }
    /* a team of one runs the iterations in order: its waits are met (and
     * a loop of its own would reuse the one slot it has) */
    if (!gomp_thr.team || gomp_thr.team->nthreads <= 1)
        return;
    struct gomp_ws *saved = gomp_thr.ws;
    size_t bytes = (size_t)((total + 31) / 32 * sizeof(uint32_t));
    dxl.ws = gomp_ws_enter(GS_STATIC, total, 0, 0, 1, 0, bytes ? bytes : sizeof(uint32_t), 0,
                           NULL, NULL);
    dxl.bits = dxl.ws->mem;
    gomp_thr.ws = saved;   /* the loop itself comes next, and is not this slot */
}

/* The flattened position of vec (row-major over the counts); false when
 * outside the iteration space (a sink before the first iteration:
 * nothing to wait for). */
static bool position(const kmp_int64 *vec, ull *pos)
{
    ull p = 0;
    for (unsigned i = 0; i < dxl.n; i++) {
        const struct kmp_dim *d = &dxl.dims[i];
        if (d->st > 0 ? vec[i] < d->lo || vec[i] > d->up : vec[i] > d->lo || vec[i] < d->up)
            return false;
        p = p * dxl.counts[i] + (ull)((vec[i] - d->lo) / d->st);
    }
    *pos = p;
    return true;
}

KMP_EXPORT void __kmpc_doacross_wait(ident_t *loc, kmp_int32 gtid, const kmp_int64 *vec)
{
    (void)loc;
    (void)gtid;
    ull p;
    if (!dxl.bits || !position(vec, &p))
        return;
    uint32_t mask = 1u << (p % 32);
    unsigned spins = 0;
    /* acquire: what the iteration wrote before its post is seen here */
    while (!(atomic_load_explicit(&dxl.bits[p / 32], memory_order_acquire) & mask))
        gomp_pause(&spins);
}

KMP_EXPORT void __kmpc_doacross_post(ident_t *loc, kmp_int32 gtid, const kmp_int64 *vec)
{
    (void)loc;
    (void)gtid;
    ull p;
    if (!dxl.bits || !position(vec, &p))
        return;
    /* release: the iteration's writes before the bit */
    atomic_fetch_or_explicit(&dxl.bits[p / 32], 1u << (p % 32), memory_order_release);
}

KMP_EXPORT void __kmpc_doacross_fini(ident_t *loc, kmp_int32 gtid)
{
    (void)loc;
    (void)gtid;
    if (dxl.ws) {
        struct gomp_ws *saved = gomp_thr.ws;
        gomp_thr.ws = dxl.ws;
        GOMP_loop_end_nowait();   /* the slot and its bits are free once every member left */
        gomp_thr.ws = saved == dxl.ws ? NULL : saved;
        dxl.ws = NULL;
    }
    forget();
}
