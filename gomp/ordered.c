/*
 * ordered.c - ordered loops of the libgomp ABI: GOMP_loop_ordered_* and
 * GOMP_loop_ull_ordered_* (each schedule, and gcc 9's GOMP_loop_ordered_start
 * with its mem block), and the ordered construct inside them
 * (GOMP_ordered_start/end).
 *
 * Turns go by chunks.  Chunks of a loop cover 0..n-1 in increasing order
 * of their first iteration, and a thread runs the iterations of a chunk
 * in order, so the ordered regions run in iteration order when each chunk
 * waits for every earlier chunk to be finished before its ordered regions
 * start.  ws->ord_pos is the first iteration of the chunk whose turn it
 * is; the thread holding that chunk moves it to the chunk's end when it
 * takes its next chunk or leaves the loop (gomp_ordered_pass), whether or
 * not its iterations met an ordered region.  The holder of the earliest
 * unfinished chunk never waits, so the turns always move on.
 */
#include <stdint.h>

#include "gomp.h"

typedef unsigned long long ull;

/* Waits until the chunk the calling thread holds has its turn. */
static void wait_turn(struct gomp_ws *ws)
{
    unsigned spins = 0;
    while (atomic_load_explicit(&ws->ord_pos, memory_order_acquire) != gomp_thr.ord_lo) {
        if (atomic_load_explicit(&ws->cancelled, memory_order_relaxed))
            return;   /* cancel for: the region is left without running in order */
        gomp_pause(&spins);
    }
}

void gomp_ordered_pass(struct gomp_ws *ws)
{
    struct gomp_thread *thr = &gomp_thr;
    if (thr->ord_lo == thr->ord_hi)
        return;   /* no chunk held */
    wait_turn(ws);
    atomic_store_explicit(&ws->ord_pos, thr->ord_hi, memory_order_release);
    thr->ord_lo = thr->ord_hi = 0;
}

GOMP_EXPORT void GOMP_ordered_start(void)
{
    struct gomp_ws *ws = gomp_thr.ws;
    if (ws && ws->ordered)
        wait_turn(ws);
    /* else an orphaned ordered region, or one in a loop of one thread
     * that runs in order anyway */
}

GOMP_EXPORT void GOMP_ordered_end(void)
{
    /* the turn stays with the chunk until its thread takes another */
}

/* ---- the loop forms: a loop entered with ordered set ---- */

static bool start_long(int sched, long start, long end, long incr, ull chunk, size_t mem_size,
                       void **mem, uintptr_t *red, long *istart, long *iend)
{
    struct gomp_ws *ws = gomp_ws_enter(sched, gomp_count_long(start, end, incr), chunk,
                                       (ull)start, (ull)incr, 1, mem_size, 0, NULL, red);
    if (mem)
        *mem = ws->mem;
    return !istart || gomp_loop_next_long(istart, iend);
}

#define ORD_START(name, kind)                                                          \
    GOMP_EXPORT bool name(long start, long end, long incr, long chunk, long *istart,   \
                          long *iend)                                                   \
    {                                                                                   \
        ull c = chunk > 0 ? (ull)chunk : 0;                                             \
        int s = gomp_sched_resolve(kind, &c);                                           \
        return start_long(s, start, end, incr, c, 0, NULL, NULL, istart, iend);         \
    }
ORD_START(GOMP_loop_ordered_static_start, GS_STATIC)
ORD_START(GOMP_loop_ordered_dynamic_start, GS_DYNAMIC)
ORD_START(GOMP_loop_ordered_guided_start, GS_GUIDED)

GOMP_EXPORT bool GOMP_loop_ordered_runtime_start(long start, long end, long incr, long *istart,
                                                 long *iend)
{
    ull c = 0;
    int s = gomp_sched_resolve(0, &c);
    return start_long(s, start, end, incr, c, 0, NULL, NULL, istart, iend);
}

GOMP_EXPORT bool GOMP_loop_ordered_start(long start, long end, long incr, long sched,
                                         long chunk, long *istart, long *iend,
                                         uintptr_t *reductions, void **mem)
{
    ull c = chunk > 0 ? (ull)chunk : 0;
    int s = gomp_sched_resolve(sched, &c);
    return start_long(s, start, end, incr, c, mem ? (size_t)(uintptr_t)*mem : 0, mem,
                      reductions, istart, iend);
}

#define ORD_NEXT(name)                                                                 \
    GOMP_EXPORT bool name(long *istart, long *iend)                                     \
    {                                                                                   \
        return gomp_loop_next_long(istart, iend);                                                 \
    }
ORD_NEXT(GOMP_loop_ordered_static_next)
ORD_NEXT(GOMP_loop_ordered_dynamic_next)
ORD_NEXT(GOMP_loop_ordered_guided_next)
ORD_NEXT(GOMP_loop_ordered_runtime_next)

/* ---- unsigned long long ---- */

static bool start_ull(int sched, bool up, ull start, ull end, ull incr, ull chunk,
                      size_t mem_size, void **mem, uintptr_t *red, ull *istart, ull *iend)
{
    struct gomp_ws *ws = gomp_ws_enter(sched, gomp_count_ull(up, start, end, incr), chunk,
                                       start, incr, 1, mem_size, 0, NULL, red);
    if (mem)
        *mem = ws->mem;
    if (!istart)
        return true;
    return gomp_loop_next_ull(istart, iend);
}

#define ORD_ULL_START(name, kind)                                                      \
    GOMP_EXPORT bool name(bool up, ull start, ull end, ull incr, ull chunk, ull *istart, \
                          ull *iend)                                                    \
    {                                                                                   \
        int s = gomp_sched_resolve(kind, &chunk);                                       \
        return start_ull(s, up, start, end, incr, chunk, 0, NULL, NULL, istart, iend);  \
    }
ORD_ULL_START(GOMP_loop_ull_ordered_static_start, GS_STATIC)
ORD_ULL_START(GOMP_loop_ull_ordered_dynamic_start, GS_DYNAMIC)
ORD_ULL_START(GOMP_loop_ull_ordered_guided_start, GS_GUIDED)

GOMP_EXPORT bool GOMP_loop_ull_ordered_runtime_start(bool up, ull start, ull end, ull incr,
                                                     ull *istart, ull *iend)
{
    ull c = 0;
    int s = gomp_sched_resolve(0, &c);
    return start_ull(s, up, start, end, incr, c, 0, NULL, NULL, istart, iend);
}

GOMP_EXPORT bool GOMP_loop_ull_ordered_start(bool up, ull start, ull end, ull incr, long sched,
                                             ull chunk, ull *istart, ull *iend,
                                             uintptr_t *reductions, void **mem)
{
    int s = gomp_sched_resolve(sched, &chunk);
    return start_ull(s, up, start, end, incr, chunk, mem ? (size_t)(uintptr_t)*mem : 0, mem,
                     reductions, istart, iend);
}

#define ORD_ULL_NEXT(name)                                                             \
    GOMP_EXPORT bool name(ull *istart, ull *iend)                                       \
    {                                                                                   \
        return gomp_loop_next_ull(istart, iend);                                        \
    }
ORD_ULL_NEXT(GOMP_loop_ull_ordered_static_next)
ORD_ULL_NEXT(GOMP_loop_ull_ordered_dynamic_next)
ORD_ULL_NEXT(GOMP_loop_ull_ordered_guided_next)
ORD_ULL_NEXT(GOMP_loop_ull_ordered_runtime_next)
