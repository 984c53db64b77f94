/*
 * doacross.c - doacross loops of the libgomp ABI (ordered(n) with
 * depend(sink: ...) and depend(source)): GOMP_loop_doacross_* and
 * GOMP_loop_ull_doacross_* (each schedule, and gcc 9's *_doacross_start
 * with its mem block), GOMP_doacross_post/wait and their _ull forms.
 *
 * gcc numbers the iterations of each of the n ordered loops from 0 and
 * shares out the outermost one (counts[0] iterations); the iterations of
 * one outermost index run on one thread, in lexicographic order of the
 * inner ones.  So the state is one word per outermost index: 1 + the
 * position of the last posted inner iteration, flattened (mixed radix
 * over counts[1..n-1]), 0 when none; when the inner positions do not
 * fit a word, the posted indices themselves, under a sequence word.  A wait for (i0, i1, ...) waits
 * until word i0 is past the flattened (i1, ...): the thread running i0
 * posts in order, so that is the sink iteration or a later one.  The
 * thread of an earlier i0 never waits on a later one, so waits end.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>

#include "gomp.h"

typedef unsigned long long ull;

struct gomp_doacross {
    unsigned ncounts;
    int flat;                     /* the inner positions fit one word */
    ull n0;                       /* iterations of the outermost loop */
    _Atomic ull *posted;          /* flat: n0 words; else n0 records of a
                                     sequence word and ncounts - 1 indices */
    ull radix[];                  /* counts[1..ncounts-1] */
};

struct gomp_doacross *gomp_doacross_new(unsigned ncounts, const ull *counts, int nthreads)
{
    if (nthreads <= 1 || ncounts == 0)
        return NULL;   /* one thread runs the iterations in order: waits are met */
    ull inner = 1;
    int flat = 1;
    for (unsigned i = 0; i < ncounts; i++) {
        if (counts[i] == 0)
            return NULL;   /* an empty loop: no post or wait comes */
        if (i && (__builtin_mul_overflow(inner, counts[i], &inner) || inner > (ull)INT64_MAX))
            flat = 0;
    }
    size_t words = flat ? 1 : ncounts;   /* per outermost index */
    struct gomp_doacross *dx = malloc(sizeof *dx + (ncounts - 1) * sizeof(ull));
    if (!dx || (words > SIZE_MAX / sizeof(ull) / counts[0])
        || !(dx->posted = calloc(counts[0] * words, sizeof(ull))))
        gomp_unsupported("GOMP_loop_doacross_start", "out of memory for doacross state");
    dx->ncounts = ncounts;
    dx->flat = flat;
    dx->n0 = counts[0];
    for (unsigned i = 1; i < ncounts; i++)
        dx->radix[i - 1] = counts[i];
    return dx;
}

void gomp_doacross_free(struct gomp_doacross *dx)
{
    if (dx) {
        free((void *)dx->posted);
        free(dx);
    }
}

/* ---- the loops: iterations 0..counts[0]-1 of the outermost loop ---- */

static bool start(long sched, ull chunk, unsigned ncounts, const ull *counts, void **mem,
                  uintptr_t *red, ull *istart, ull *iend)
{
    int s = gomp_sched_resolve(sched, &chunk);
    struct gomp_ws *ws = gomp_ws_enter(s, counts[0], chunk, 0, 1, 0,
                                       mem ? (size_t)(uintptr_t)*mem : 0, ncounts, counts, red);
    if (mem)
        *mem = ws->mem;
    if (!istart)
        return true;
    return gomp_loop_next_ull(istart, iend);
}

static bool start_long(long sched, long chunk, unsigned ncounts, const long *counts, void **mem,
                       uintptr_t *red, long *istart, long *iend)
{
    ull c[ncounts ? ncounts : 1], s, e;
    for (unsigned i = 0; i < ncounts; i++)
        c[i] = counts[i] > 0 ? (ull)counts[i] : 0;
    bool more = start(sched, chunk > 0 ? (ull)chunk : 0, ncounts, c, mem, red,
                      istart ? &s : NULL, &e);
    if (istart && more) {
        *istart = (long)s;
        *iend = (long)e;
    }
    return more;
}

#define DX_START(name, kind)                                                           \
    GOMP_EXPORT bool name(unsigned ncounts, long *counts, long chunk, long *istart,    \
                          long *iend)                                                   \
    {                                                                                   \
        return start_long(kind, chunk, ncounts, counts, NULL, NULL, istart, iend);      \
    }
DX_START(GOMP_loop_doacross_static_start, GS_STATIC)
DX_START(GOMP_loop_doacross_dynamic_start, GS_DYNAMIC)
DX_START(GOMP_loop_doacross_guided_start, GS_GUIDED)

GOMP_EXPORT bool GOMP_loop_doacross_runtime_start(unsigned ncounts, long *counts, long *istart,
                                                  long *iend)
{
    return start_long(0, 0, ncounts, counts, NULL, NULL, istart, iend);
}

GOMP_EXPORT bool GOMP_loop_doacross_start(unsigned ncounts, long *counts, long sched,
                                          long chunk, long *istart, long *iend,
                                          uintptr_t *reductions, void **mem)
{
    return start_long(sched, chunk, ncounts, counts, mem, reductions, istart, iend);
}

#define DX_ULL_START(name, kind)                                                       \
    GOMP_EXPORT bool name(unsigned ncounts, ull *counts, ull chunk, ull *istart,       \
                          ull *iend)                                                    \
    {                                                                                   \
        return start(kind, chunk, ncounts, counts, NULL, NULL, istart, iend);           \
    }
DX_ULL_START(GOMP_loop_ull_doacross_static_start, GS_STATIC)
DX_ULL_START(GOMP_loop_ull_doacross_dynamic_start, GS_DYNAMIC)
DX_ULL_START(GOMP_loop_ull_doacross_guided_start, GS_GUIDED)

GOMP_EXPORT bool GOMP_loop_ull_doacross_runtime_start(unsigned ncounts, ull *counts,
                                                      ull *istart, ull *iend)
{
    return start(0, 0, ncounts, counts, NULL, NULL, istart, iend);
}

GOMP_EXPORT bool GOMP_loop_ull_doacross_start(unsigned ncounts, ull *counts, long sched,
                                              ull chunk, ull *istart, ull *iend,
                                              uintptr_t *reductions, void **mem)
{
    return start(sched, chunk, ncounts, counts, mem, reductions, istart, iend);
}

/* ---- post and wait ---- */

static struct gomp_doacross *current(void)
{
    struct gomp_ws *ws = gomp_thr.ws;
    return ws ? ws->dx : NULL;
}

/* 1 + the flattened position of inner indices idx[0..ncounts-2] (flat) */
static ull flatten(const struct gomp_doacross *dx, const ull *idx)
{
    ull pos = 0;
    for (unsigned i = 0; i + 1 < dx->ncounts; i++)
        pos = pos * dx->radix[i] + idx[i];
    return pos + 1;
}

/*
 * Not flat: record i0 is a sequence word (odd while its one writer, the
 * thread running i0, updates it; 0 before the first post) and the inner
 * indices of the last post; readers take a consistent copy.
 */
static void post(const ull *counts)
{
    struct gomp_doacross *dx = current();
    if (!dx || counts[0] >= dx->n0)
        return;
    if (dx->flat) {
        atomic_store_explicit(&dx->posted[counts[0]], flatten(dx, counts + 1),
                              memory_order_release);
        return;
    }
    _Atomic ull *rec = dx->posted + counts[0] * dx->ncounts;
    ull seq = atomic_load_explicit(&rec[0], memory_order_relaxed);
    atomic_store_explicit(&rec[0], seq + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    for (unsigned i = 1; i < dx->ncounts; i++)
        atomic_store_explicit(&rec[i], counts[i], memory_order_relaxed);
    atomic_store_explicit(&rec[0], seq + 2, memory_order_release);
}

/* Whether the post of i0 is at or past the inner indices want. */
static bool reached(const struct gomp_doacross *dx, ull i0, const ull *want)
{
    if (dx->flat)
        return atomic_load_explicit(&dx->posted[i0], memory_order_acquire) >= flatten(dx, want);
    _Atomic ull *rec = dx->posted + i0 * dx->ncounts;
    for (;;) {
        ull seq = atomic_load_explicit(&rec[0], memory_order_acquire);
        if (seq == 0)
            return false;   /* nothing posted yet */
        if (seq & 1) {
            cpu_relax();
            continue;
        }
        int cmp = 0;
        for (unsigned i = 1; i < dx->ncounts && !cmp; i++) {
            ull v = atomic_load_explicit(&rec[i], memory_order_relaxed);
            cmp = v < want[i - 1] ? -1 : v > want[i - 1];
        }
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&rec[0], memory_order_relaxed) == seq)
            return cmp >= 0;
    }
}

static void wait_for(struct gomp_doacross *dx, ull first, const ull *rest)
{
    if (first >= dx->n0)
        return;   /* outside the iteration space: nothing to wait for */
    for (unsigned i = 0; i + 1 < dx->ncounts; i++)
        if (rest[i] >= dx->radix[i])
            return;
    unsigned spins = 0;
    while (!reached(dx, first, rest)) {
        struct gomp_ws *ws = gomp_thr.ws;
        if (ws && atomic_load_explicit(&ws->cancelled, memory_order_relaxed))
            return;
        gomp_pause(&spins);
    }
}

GOMP_EXPORT void GOMP_doacross_post(long *counts)
{
    struct gomp_doacross *dx = current();
    if (!dx)
        return;
    ull c[dx->ncounts];
    for (unsigned i = 0; i < dx->ncounts; i++)
        c[i] = (ull)counts[i];
    post(c);
}

GOMP_EXPORT void GOMP_doacross_ull_post(ull *counts)
{
    post(counts);
}

GOMP_EXPORT void GOMP_doacross_wait(long first, ...)
{
    struct gomp_doacross *dx = current();
    if (!dx)
        return;
    ull rest[dx->ncounts];
    va_list ap;
    va_start(ap, first);
    for (unsigned i = 0; i + 1 < dx->ncounts; i++)
        rest[i] = (ull)va_arg(ap, long);   /* negative: huge, out of range */
    va_end(ap);
    wait_for(dx, (ull)first, rest);
}

GOMP_EXPORT void GOMP_doacross_ull_wait(ull first, ...)
{
    struct gomp_doacross *dx = current();
    if (!dx)
        return;
    ull rest[dx->ncounts];
    va_list ap;
    va_start(ap, first);
    for (unsigned i = 0; i + 1 < dx->ncounts; i++)
        rest[i] = va_arg(ap, ull);
    va_end(ap);
    wait_for(dx, first, rest);
}
