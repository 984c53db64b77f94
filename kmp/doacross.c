/*
 * doacross.c - doacross loops of the LLVM OpenMP ABI (ordered(n) with
 * depend(sink: ...) and depend(source)): __kmpc_doacross_init before the
 * loop, post and wait with the iteration vector in the program's values,
 * fini after it.
 *
 * The state is gomp's (gomp/doacross.c: one word per outermost iteration)
 * in a worksharing slot of the team of its own, which every member enters
 * at init and leaves at fini: clang shares the loop out with the static
 * schedule too, which takes no slot, so the doacross state cannot ride on
 * the loop's as in gcc's ABI.  The loops' bounds are inclusive (lo, up,
 * st); post and wait number the iterations from 0 as gomp's state does.
 */
#include <stdlib.h>

#include "kmp.h"

typedef unsigned long long ull;

struct kmp_dim {
    kmp_int64 lo, up, st;
};

/* The calling member's doacross loop (one at a time: worksharing loops
 * of a team do not nest). */
static __thread struct {
    struct gomp_ws *ws;
    unsigned n;
    struct kmp_dim *dims;
} dxl;

static ull count_of(const struct kmp_dim *d)
{
    if (d->st > 0)
        return d->up < d->lo ? 0 : ((ull)d->up - (ull)d->lo) / (ull)d->st + 1;
    if (d->st < 0)
        return d->lo < d->up ? 0 : ((ull)d->lo - (ull)d->up) / (0 - (ull)d->st) + 1;
    return 0;
}

KMP_EXPORT void __kmpc_doacross_init(ident_t *loc, kmp_int32 gtid, kmp_int32 num_dims,
                                     const struct kmp_dim *dims)
{
    (void)loc;
    (void)gtid;
    unsigned n = num_dims > 0 ? (unsigned)num_dims : 1;
    ull counts[n];
    free(dxl.dims);
    if (!(dxl.dims = malloc(sizeof *dxl.dims * n)))
        gomp_unsupported("__kmpc_doacross_init", "out of memory for doacross state");
    for (unsigned i = 0; i < n; i++) {
        dxl.dims[i] = num_dims > 0 ? dims[i] : (struct kmp_dim){ 0, 0, 1 };
        counts[i] = count_of(&dxl.dims[i]);
    }
    dxl.n = n;
    struct gomp_ws *saved = gomp_thr.ws;
    dxl.ws = gomp_ws_enter(GS_STATIC, counts[0], 0, 0, 1, 0, 0, n, counts, NULL);
    gomp_thr.ws = saved;   /* the loop itself comes next, and is not this slot */
}

/* vec as 0-based positions; false when outside the iteration space (a
 * sink before the first iteration: nothing to wait for). */
static bool positions(const kmp_int64 *vec, ull *pos)
{
    for (unsigned i = 0; i < dxl.n; i++) {
        const struct kmp_dim *d = &dxl.dims[i];
        if (d->st > 0 ? vec[i] < d->lo || vec[i] > d->up : vec[i] > d->lo || vec[i] < d->up)
            return false;
        pos[i] = (ull)((vec[i] - d->lo) / d->st);
    }
    return true;
}

KMP_EXPORT void __kmpc_doacross_wait(ident_t *loc, kmp_int32 gtid, const kmp_int64 *vec)
{
    (void)loc;
    (void)gtid;
    if (!dxl.ws || !dxl.ws->dx)
        return;
    ull pos[dxl.n];
    if (positions(vec, pos))
        gomp_doacross_wait_dx(dxl.ws->dx, pos);
}

KMP_EXPORT void __kmpc_doacross_post(ident_t *loc, kmp_int32 gtid, const kmp_int64 *vec)
{
    (void)loc;
    (void)gtid;
    if (!dxl.ws || !dxl.ws->dx)
        return;
    ull pos[dxl.n];
    if (positions(vec, pos))
        gomp_doacross_post_dx(dxl.ws->dx, pos);
}

KMP_EXPORT void __kmpc_doacross_fini(ident_t *loc, kmp_int32 gtid)
{
    (void)loc;
    (void)gtid;
    if (!dxl.ws)
        return;
    struct gomp_ws *saved = gomp_thr.ws;
    gomp_thr.ws = dxl.ws;
    GOMP_loop_end_nowait();   /* the slot is free once every member left it */
    gomp_thr.ws = saved == dxl.ws ? NULL : saved;
    dxl.ws = NULL;
    free(dxl.dims);
    dxl.dims = NULL;
}
