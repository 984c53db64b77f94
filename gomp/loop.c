/*
 * loop.c - worksharing constructs of the libgomp ABI: loops, GOMP_loop_*
 * (long) and GOMP_loop_ull_* (unsigned long long) with static, dynamic,
 * guided, runtime and auto schedules, their monotonic/nonmonotonic
 * spellings, the combined GOMP_parallel_loop_* forms and the loop ends;
 * and sections (GOMP_sections_*, GOMP_parallel_sections), which are a
 * dynamic loop over the section numbers; and gcc 9's GOMP_loop_start,
 * GOMP_loop_ull_start and GOMP_sections2_start, whose mem block is
 * allocated with the loop's slot and whose task reductions
 * (reduction(task, ...), reduction.c) the first member to arrive sets up.  Ordered loops are in ordered.c,
 * doacross loops in doacross.c, cancellation in cancel.c.
 *
 * Every loop is reduced to iterations 0..n-1 handed out in chunks; the
 * entry points only convert the user's bounds.  Members of a team meet
 * the same sequence of constructs, so the k-th loop of a region uses slot
 * k % GOMP_WS_RING of the team, set up by the first member to arrive; a
 * member GOMP_WS_RING loops ahead (nowait) waits for the slot to empty.
 */
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gomp.h"
#include "runtime.h"

typedef unsigned long long ull;

#define MONOTONIC_FLAG 0x80000000u   /* gcc marks schedule(monotonic:...) with it */

static __thread struct gomp_ws seq_ws;   /* loops outside any parallel region */

static int resolve_sched(int sched, ull *chunk)
{
    sched &= ~(int)MONOTONIC_FLAG;
    if (sched == 0) {                    /* runtime: OMP_SCHEDULE / omp_set_schedule */
        int kind, c;
        gomp_run_sched(&kind, &c);          /* the data environment's */
        sched = kind & ~GOMP_SCHED_MONOTONIC;   /* kept for omp_get_schedule */
        *chunk = (ull)c;
    }
    if (sched == GS_AUTO)
        sched = GS_STATIC;
    if (sched != GS_STATIC && *chunk == 0)
        *chunk = 1;
    return sched;
}

void gomp_ws_release(struct gomp_ws *ws)
{
    free(ws->mem);
    ws->mem = NULL;
    gomp_doacross_free(ws->dx);
    ws->dx = NULL;
}

int gomp_sched_resolve(long sched, ull *chunk)
{
    int s = (int)(sched & ~(long)MONOTONIC_FLAG);
    if (s == GS_AUTO)
        s = 0;   /* here auto is the runtime schedule, nonmonotonic */
    return resolve_sched(s, chunk);
}

static void ws_fill(struct gomp_ws *ws, int sched, ull n, ull chunk, ull start, ull incr)
{
    ws->sched = sched;
    ws->ordered = 0;
    ws->n = n;
    ws->chunk = chunk;
    ws->start = (long long)start;
    ws->incr = (long long)incr;
    ws->mem = NULL;
    ws->dx = NULL;
    ws->task_red = NULL;
    atomic_store_explicit(&ws->cancelled, 0, memory_order_relaxed);
    atomic_store_explicit(&ws->next, 0, memory_order_relaxed);
    atomic_store_explicit(&ws->ord_pos, 0, memory_order_relaxed);
}

/* ws_fill, then what the newer loop forms ask for; a slot reused frees
 * what its previous loop owned (gcc may read a loop's mem block after the
 * loop's end, until the team's next constructs, as libgomp keeps it). */
static void ws_setup(struct gomp_ws *ws, int sched, ull n, ull chunk, ull start, ull incr,
                     int ordered, size_t mem_size, unsigned ncounts, const ull *counts,
                     int nthreads)
{
    gomp_ws_release(ws);
    ws_fill(ws, sched, n, chunk, start, incr);
    ws->ordered = ordered;
    if (mem_size && !(ws->mem = calloc(1, mem_size)))
        gomp_unsupported("GOMP_loop_start", "out of memory for a loop's scratch block");
    if (ncounts)
        ws->dx = gomp_doacross_new(ncounts, counts, nthreads);
}

/* Makes the calling thread enter its next loop; the team's slot is set up
 * by whoever comes first, who also registers the task reductions (new
 * chunks) before the others, which find its arrays in the slot, may use
 * them (libgomp's order: the first member initializes, the rest follow). */
struct gomp_ws *gomp_ws_enter(int sched, ull n, ull chunk, ull start, ull incr, int ordered,
                              size_t mem_size, unsigned ncounts, const ull *counts,
                              uintptr_t *red)
{
    struct gomp_thread *thr = &gomp_thr;
    struct gomp_team *team = thr->team;
    struct gomp_ws *ws;
    thr->static_next = 0;
    thr->ord_lo = thr->ord_hi = 0;
    if (!team) {
        ws = thr->serial_ws ? thr->serial_ws : &seq_ws;
        ws_setup(ws, sched, n, chunk, start, incr, ordered, mem_size, ncounts, counts, 1);
        if (red)
            gomp_ws_reductions_begin(red, NULL);
        return thr->ws = ws;
    }
    uint64_t k = thr->ws_seen++;
    ws = &team->ws[k % GOMP_WS_RING];
    int first = 0;
    pthread_mutex_lock(&team->ws_lock);
    while (atomic_load_explicit(&ws->construct, memory_order_relaxed) != k + 1) {
        if (atomic_load_explicit(&ws->users, memory_order_acquire) == 0) {
            ws_setup(ws, sched, n, chunk, start, incr, ordered, mem_size, ncounts, counts,
                     team->nthreads);
            if (red) {
                gomp_ws_reductions_begin(red, NULL);
                ws->task_red = red;
            }
            first = 1;
            atomic_store_explicit(&ws->users, team->nthreads, memory_order_relaxed);
            atomic_store_explicit(&ws->construct, k + 1, memory_order_relaxed);
            break;
        }
        /* the loop GOMP_WS_RING back is still being left by a slow member */
        pthread_mutex_unlock(&team->ws_lock);
        sched_yield();
        pthread_mutex_lock(&team->ws_lock);
    }
    /* read under the lock the first member set it under; the slot cannot
     * be reused before this member leaves it */
    uintptr_t *orig = ws->task_red;
    pthread_mutex_unlock(&team->ws_lock);
    if (red && !first)
        gomp_ws_reductions_begin(red, orig);
    return thr->ws = ws;
}

static struct gomp_ws *ws_enter(int sched, ull n, ull chunk, ull start, ull incr)
{
    return gomp_ws_enter(sched, n, chunk, start, incr, 0, 0, 0, NULL, NULL);
}

/* The calling thread's next chunk [*lo, *hi) of the loop it is in. */
static bool ws_next(ull *lo, ull *hi)
{
    struct gomp_thread *thr = &gomp_thr;
    struct gomp_ws *ws = thr->ws;
    ull n = ws->n, c = ws->chunk;
    if (atomic_load_explicit(&ws->cancelled, memory_order_relaxed))
        return false;   /* cancel for: no more chunks are handed out */
    ull nth = thr->team ? (ull)thr->team->nthreads : 1, id = thr->team ? (ull)thr->id : 0;

    switch (ws->sched) {
    case GS_STATIC:
        if (c == 0) {                    /* one block per thread, sizes differ by at most 1 */
            if (thr->static_next++)
                return false;
            ull q = n / nth, r = n % nth;
            *lo = id * q + (id < r ? id : r);
            *hi = *lo + q + (id < r);
            return *lo < *hi;
        } else {                         /* chunks dealt round-robin */
            ull j = thr->static_next++ * nth + id;
            if (j >= (n + c - 1) / c)
                return false;
            *lo = j * c;
            *hi = n - *lo < c ? n : *lo + c;
            return true;
        }
    case GS_DYNAMIC: {
        ull l = atomic_load_explicit(&ws->next, memory_order_relaxed);
        if (l >= n)
            return false;                /* keeps next from running away past n */
        l = atomic_fetch_add_explicit(&ws->next, c, memory_order_relaxed);
        if (l >= n)
            return false;
        *lo = l;
        *hi = n - l < c ? n : l + c;
        return true;
    }
    default: {                           /* guided: a share of what is left, at least c */
        ull l = atomic_load_explicit(&ws->next, memory_order_relaxed);
        for (;;) {
            if (l >= n)
                return false;
            ull q = (n - l + nth - 1) / nth;
            if (q < c)
                q = c;
            else if (ws->sched == GS_GUIDED_SIMD)
                q = (q + c - 1) / c * c;   /* whole SIMD widths */
            ull h = n - l < q ? n : l + q;
            if (atomic_compare_exchange_weak_explicit(&ws->next, &l, h, memory_order_relaxed,
                                                      memory_order_relaxed)) {
                *lo = l;
                *hi = h;
                return true;
            }
        }
    }
    }
}

static void ws_leave(void)
{
    struct gomp_thread *thr = &gomp_thr;
    if (thr->ws && thr->ws->ordered)
        gomp_ordered_pass(thr->ws);   /* the last chunk's turn goes on */
    if (thr->team && thr->ws)
        atomic_fetch_sub_explicit(&thr->ws->users, 1, memory_order_release);
    thr->ws = NULL;
}

/* ---- long loops: for (i = start; incr > 0 ? i < end : i > end; i += incr) ---- */

ull gomp_count_long(long start, long end, long incr)
{
    if (incr > 0)
        return start < end ? ((ull)end - (ull)start - 1) / (ull)incr + 1 : 0;
    return start > end ? ((ull)start - (ull)end - 1) / (0 - (ull)incr) + 1 : 0;
}

/* The calling thread's next chunk in the user's values: start + i * incr,
 * in two's complement, which serves the signed loops and the unsigned ones. */
bool gomp_loop_next_ull(ull *istart, ull *iend)
{
    ull lo, hi;
    struct gomp_ws *ws = gomp_thr.ws;
    if (!ws)
        return false;
    if (ws->ordered) {
        gomp_ordered_pass(ws);   /* the chunk done hands the turn on first */
        if (!ws_next(&lo, &hi))
            return false;
        gomp_thr.ord_lo = lo;
        gomp_thr.ord_hi = hi;
    } else if (!ws_next(&lo, &hi)) {
        return false;
    }
    *istart = (ull)ws->start + lo * (ull)ws->incr;
    *iend = (ull)ws->start + hi * (ull)ws->incr;
    return true;
}

bool gomp_loop_next_long(long *istart, long *iend)
{
    ull s, e;
    if (!gomp_loop_next_ull(&s, &e))
        return false;
    *istart = (long)s;
    *iend = (long)e;
    return true;
}

static bool start_long(int sched, long start, long end, long incr, long chunk,
                       long *istart, long *iend)
{
    ull c = chunk > 0 ? (ull)chunk : 0;
    sched = resolve_sched(sched, &c);
    ws_enter(sched, gomp_count_long(start, end, incr), c, (ull)start, (ull)incr);
    return gomp_loop_next_long(istart, iend);
}

#define LONG_START(name, sched)                                                        \
    GOMP_EXPORT bool name(long start, long end, long incr, long chunk, long *istart,   \
                          long *iend)                                                   \
    {                                                                                   \
        return start_long(sched, start, end, incr, chunk, istart, iend);                \
    }
#define LONG_RUNTIME_START(name)                                                       \
    GOMP_EXPORT bool name(long start, long end, long incr, long *istart, long *iend)   \
    {                                                                                   \
        return start_long(0, start, end, incr, 0, istart, iend);                        \
    }
#define LONG_NEXT(name)                                                                \
    GOMP_EXPORT bool name(long *istart, long *iend)                                     \
    {                                                                                   \
        return gomp_loop_next_long(istart, iend);                                                 \
    }

LONG_START(GOMP_loop_static_start, GS_STATIC)
LONG_START(GOMP_loop_dynamic_start, GS_DYNAMIC)
LONG_START(GOMP_loop_guided_start, GS_GUIDED)
LONG_START(GOMP_loop_nonmonotonic_dynamic_start, GS_DYNAMIC)
LONG_START(GOMP_loop_nonmonotonic_guided_start, GS_GUIDED)
LONG_RUNTIME_START(GOMP_loop_runtime_start)
LONG_RUNTIME_START(GOMP_loop_nonmonotonic_runtime_start)
LONG_RUNTIME_START(GOMP_loop_maybe_nonmonotonic_runtime_start)
LONG_NEXT(GOMP_loop_static_next)
LONG_NEXT(GOMP_loop_dynamic_next)
LONG_NEXT(GOMP_loop_guided_next)
LONG_NEXT(GOMP_loop_nonmonotonic_dynamic_next)
LONG_NEXT(GOMP_loop_nonmonotonic_guided_next)
LONG_NEXT(GOMP_loop_runtime_next)
LONG_NEXT(GOMP_loop_nonmonotonic_runtime_next)
LONG_NEXT(GOMP_loop_maybe_nonmonotonic_runtime_next)

/* gcc 9+: one entry point for every schedule, with task reductions
 * (reductions: reduction(task, ...), see reduction.c) and a team-shared
 * zeroed block (*mem: its size in, its address out; lastprivate
 * (conditional:) and scan reductions keep per-thread values there).
 * istart NULL: the loop is only entered (gcc computes a static schedule). */
GOMP_EXPORT bool GOMP_loop_start(long start, long end, long incr, long sched, long chunk,
                                 long *istart, long *iend, uintptr_t *reductions, void **mem)
{
    ull c = chunk > 0 ? (ull)chunk : 0;
    int s = gomp_sched_resolve(sched, &c);
    struct gomp_ws *ws = gomp_ws_enter(s, gomp_count_long(start, end, incr), c, (ull)start,
                                       (ull)incr, 0, mem ? (size_t)(uintptr_t)*mem : 0, 0, NULL,
                                       reductions);
    if (mem)
        *mem = ws->mem;
    if (!istart)
        return true;
    return gomp_loop_next_long(istart, iend);
}

/* ---- unsigned long long loops: up ? i < end : i > end, incr two's complement ---- */

ull gomp_count_ull(bool up, ull start, ull end, ull incr)
{
    if (up)
        return start < end ? (end - start - 1) / incr + 1 : 0;
    return start > end ? (start - end - 1) / (0 - incr) + 1 : 0;
}

static bool start_ull(int sched, bool up, ull start, ull end, ull incr, ull chunk,
                      ull *istart, ull *iend)
{
    sched = resolve_sched(sched, &chunk);
    ws_enter(sched, gomp_count_ull(up, start, end, incr), chunk, start, incr);
    return gomp_loop_next_ull(istart, iend);
}

#define ULL_START(name, sched)                                                         \
    GOMP_EXPORT bool name(bool up, ull start, ull end, ull incr, ull chunk, ull *istart, \
                          ull *iend)                                                    \
    {                                                                                   \
        return start_ull(sched, up, start, end, incr, chunk, istart, iend);             \
    }
#define ULL_RUNTIME_START(name)                                                        \
    GOMP_EXPORT bool name(bool up, ull start, ull end, ull incr, ull *istart, ull *iend) \
    {                                                                                   \
        return start_ull(0, up, start, end, incr, 0, istart, iend);                     \
    }
#define ULL_NEXT(name)                                                                 \
    GOMP_EXPORT bool name(ull *istart, ull *iend)                                       \
    {                                                                                   \
        return gomp_loop_next_ull(istart, iend);                                                  \
    }

ULL_START(GOMP_loop_ull_static_start, GS_STATIC)
ULL_START(GOMP_loop_ull_dynamic_start, GS_DYNAMIC)
ULL_START(GOMP_loop_ull_guided_start, GS_GUIDED)
ULL_START(GOMP_loop_ull_nonmonotonic_dynamic_start, GS_DYNAMIC)
ULL_START(GOMP_loop_ull_nonmonotonic_guided_start, GS_GUIDED)
ULL_RUNTIME_START(GOMP_loop_ull_runtime_start)
ULL_RUNTIME_START(GOMP_loop_ull_nonmonotonic_runtime_start)
ULL_RUNTIME_START(GOMP_loop_ull_maybe_nonmonotonic_runtime_start)
ULL_NEXT(GOMP_loop_ull_static_next)
ULL_NEXT(GOMP_loop_ull_dynamic_next)
ULL_NEXT(GOMP_loop_ull_guided_next)
ULL_NEXT(GOMP_loop_ull_nonmonotonic_dynamic_next)
ULL_NEXT(GOMP_loop_ull_nonmonotonic_guided_next)
ULL_NEXT(GOMP_loop_ull_runtime_next)
ULL_NEXT(GOMP_loop_ull_nonmonotonic_runtime_next)
ULL_NEXT(GOMP_loop_ull_maybe_nonmonotonic_runtime_next)

GOMP_EXPORT bool GOMP_loop_ull_start(bool up, ull start, ull end, ull incr, long sched,
                                     ull chunk, ull *istart, ull *iend, uintptr_t *reductions,
                                     void **mem)
{
    int s = gomp_sched_resolve(sched, &chunk);
    struct gomp_ws *ws = gomp_ws_enter(s, gomp_count_ull(up, start, end, incr), chunk, start,
                                       incr, 0, mem ? (size_t)(uintptr_t)*mem : 0, 0, NULL,
                                       reductions);
    if (mem)
        *mem = ws->mem;
    if (!istart)
        return true;
    return gomp_loop_next_ull(istart, iend);
}

/* ---- ends ---- */

GOMP_EXPORT void GOMP_loop_end(void)
{
    ws_leave();
    GOMP_barrier();
}

GOMP_EXPORT void GOMP_loop_end_nowait(void)
{
    ws_leave();
}

/* ---- combined parallel loops: members start inside the loop ---- */

static void parallel_loop(void (*fn)(void *), void *data, unsigned nthreads, int sched,
                          long start, long end, long incr, long chunk)
{
    ull c = chunk > 0 ? (ull)chunk : 0;
    struct gomp_ws preset;
    memset(&preset, 0, sizeof preset);
    sched = resolve_sched(sched, &c);
    ws_fill(&preset, sched, gomp_count_long(start, end, incr), c, (ull)start, (ull)incr);
    gomp_parallel(fn, data, nthreads, &preset);
}

#define PARALLEL_LOOP(name, sched)                                                     \
    GOMP_EXPORT void name(void (*fn)(void *), void *data, unsigned nthreads, long start, \
                          long end, long incr, long chunk, unsigned flags)              \
    {                                                                                   \
        (void)flags;                                                                    \
        parallel_loop(fn, data, nthreads, sched, start, end, incr, chunk);              \
    }
#define PARALLEL_LOOP_RUNTIME(name)                                                    \
    GOMP_EXPORT void name(void (*fn)(void *), void *data, unsigned nthreads, long start, \
                          long end, long incr, unsigned flags)                          \
    {                                                                                   \
        (void)flags;                                                                    \
        parallel_loop(fn, data, nthreads, 0, start, end, incr, 0);                      \
    }

PARALLEL_LOOP(GOMP_parallel_loop_static, GS_STATIC)
PARALLEL_LOOP(GOMP_parallel_loop_dynamic, GS_DYNAMIC)
PARALLEL_LOOP(GOMP_parallel_loop_guided, GS_GUIDED)
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic, GS_DYNAMIC)
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_guided, GS_GUIDED)
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_runtime)
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_nonmonotonic_runtime)
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_maybe_nonmonotonic_runtime)

/* ---- sections: section k of count is iteration k - 1, dealt one by one ---- */

static unsigned sections_next(void)
{
    ull lo, hi;
    if (!gomp_thr.ws || !ws_next(&lo, &hi))
        return 0;   /* no section left */
    return (unsigned)lo + 1;
}

GOMP_EXPORT unsigned GOMP_sections_start(unsigned count)
{
    ws_enter(GS_DYNAMIC, count, 1, 0, 1);
    return sections_next();
}

/* gcc 9+: sections with task reductions and a team-shared zeroed block
 * (as GOMP_loop_start's mem). */
GOMP_EXPORT unsigned GOMP_sections2_start(unsigned count, uintptr_t *reductions, void **mem)
{
    struct gomp_ws *ws = gomp_ws_enter(GS_DYNAMIC, count, 1, 0, 1, 0,
                                       mem ? (size_t)(uintptr_t)*mem : 0, 0, NULL, reductions);
    if (mem)
        *mem = ws->mem;
    return sections_next();
}

GOMP_EXPORT unsigned GOMP_sections_next(void)
{
    return sections_next();
}

GOMP_EXPORT void GOMP_sections_end(void)
{
    ws_leave();
    GOMP_barrier();
}

GOMP_EXPORT void GOMP_sections_end_nowait(void)
{
    ws_leave();
}

GOMP_EXPORT void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned nthreads,
                                        unsigned count, unsigned flags)
{
    struct gomp_ws preset;
    (void)flags;
    memset(&preset, 0, sizeof preset);
    ws_fill(&preset, GS_DYNAMIC, count, 1, 0, 1);
    gomp_parallel(fn, data, nthreads, &preset);
}
