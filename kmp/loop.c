/*
 * loop.c - worksharing loops of the LLVM OpenMP ABI.
 *
 * clang hands a loop to the runtime with inclusive bounds (lb..ub, most
 * often the normalized 0..trip count - 1, step 1) in one of four integer
 * types (_4, _4u, _8, _8u):
 * - static schedules (__kmpc_for_static_init_*): each thread computes its
 *   own share, no shared state: one block per thread (sizes differ by at
 *   most one, as gomp/'s static loops deal them), or chunks dealt round
 *   robin, which the compiler walks with the stride returned;
 * - every other schedule, and every ordered loop, is a loop of the shared
 *   layer (__kmpc_dispatch_*): gomp_ws_enter with the schedule resolved,
 *   then chunks from gomp_loop_next_ull, converted back to inclusive bounds.
 * distribute (teams on the host) shares a loop among the teams the same
 * way, with the team number in place of the thread number.
 */
#include <stdint.h>

#include "kmp.h"

typedef unsigned long long ull;

int omp_get_num_teams(void);
int omp_get_team_num(void);
void GOMP_loop_end_nowait(void);

/* The thread count and number a static schedule deals by. */
static void team_of(int sched, ull *nth, ull *tid)
{
    if (sched == KMP_DISTRIBUTE_STATIC || sched == KMP_DISTRIBUTE_STATIC_CHUNKED) {
        *nth = (ull)omp_get_num_teams();
        *tid = (ull)omp_get_team_num();
    } else {
        *nth = (ull)omp_get_num_threads();
        *tid = (ull)omp_get_thread_num();
    }
}

/* Iterations of lb..ub (inclusive) by incr, in the loop's own width:
 * bits is 32 or 64, sgn whether the loop variable is signed. */
static ull trip_count(ull lb, ull ub, long long incr, int bits, int sgn)
{
    ull mask = bits == 64 ? ~0ULL : 0xffffffffULL;
    lb &= mask;
    ub &= mask;
    int empty;
    if (sgn) {
        long long l = bits == 64 ? (long long)lb : (long long)(int32_t)(uint32_t)lb;
        long long u = bits == 64 ? (long long)ub : (long long)(int32_t)(uint32_t)ub;
        empty = incr > 0 ? u < l : l < u;
    } else {
        empty = incr > 0 ? ub < lb : lb < ub;
    }
    if (empty || incr == 0)
        return 0;
    ull span = incr > 0 ? (ub - lb) & mask : (lb - ub) & mask;
    ull step = incr > 0 ? (ull)incr : 0 - (ull)incr;
    return span / step + 1;
}

/* One thread's share of a static loop, in the loop's values (two's
 * complement: the caller truncates to its width).  Returns the trip count. */
static ull static_share(int sched, ull *lb, ull *ub, long long *stride, int *last,
                        long long incr, long long chunk, int bits, int sgn)
{
    ull tc = trip_count(*lb, *ub, incr, bits, sgn);
    ull nth, tid;
    team_of(sched, &nth, &tid);
    if (nth < 1)
        nth = 1;
    if (tc == 0) {
        *last = 0;
        *stride = incr;
        return 0;
    }
    if (nth == 1) {
        *last = 1;
        *stride = (long long)(tc * (ull)incr);
        return tc;
    }
    ull first = *lb;
    switch (sched) {
    case KMP_SCH_STATIC_CHUNKED:
    case KMP_DISTRIBUTE_STATIC_CHUNKED: {
        ull c = chunk > 0 ? (ull)chunk : 1;
        ull span = c * (ull)incr;
        *lb = first + span * tid;
        *ub = *lb + span - (ull)incr;
        *stride = (long long)(span * nth);
        *last = tid == ((tc - 1) / c) % nth;
        return tc;
    }
    case KMP_SCH_STATIC_BALANCED_CHUNKED: {   /* simd: whole chunks per thread */
        ull c = chunk > 0 ? (ull)chunk : 1;
        ull per = (tc + nth - 1) / nth;
        per = (per + c - 1) / c * c;
        ull begin = per * tid;
        *stride = (long long)(tc * (ull)incr);
        if (begin >= tc) {
            *lb = first + tc * (ull)incr;
            *ub = *lb - (ull)incr;
            *last = 0;
            return tc;
        }
        ull end = begin + per > tc ? tc : begin + per;
        *lb = first + begin * (ull)incr;
        *ub = first + (end - 1) * (ull)incr;
        *last = end == tc;
        return tc;
    }
    default: {   /* one block per thread, sizes differing by at most one */
        ull q = tc / nth, r = tc % nth;
        ull begin = tid * q + (tid < r ? tid : r);
        ull cnt = q + (tid < r);
        *stride = (long long)(tc * (ull)incr);
        if (cnt == 0) {
            *lb = first + tc * (ull)incr;
            *ub = *lb - (ull)incr;
            *last = 0;
            return tc;
        }
        *lb = first + begin * (ull)incr;
        *ub = *lb + (cnt - 1) * (ull)incr;
        *last = begin + cnt == tc;
        return tc;
    }
    }
}

#define STATIC_INIT(sfx, T, ST, bits, sgn)                                                    \
    KMP_EXPORT void __kmpc_for_static_init_##sfx(ident_t *loc, kmp_int32 gtid,               \
                                                 kmp_int32 schedtype, kmp_int32 *plastiter,  \
                                                 T *plower, T *pupper, ST *pstride, ST incr, \
                                                 ST chunk)                                   \
    {                                                                                         \
        (void)loc;                                                                            \
        (void)gtid;                                                                           \
        ull lb = (ull)*plower, ub = (ull)*pupper;                                             \
        long long stride;                                                                     \
        int last;                                                                             \
        static_share(schedtype & ~(KMP_SCH_MODIFIER_MONOTONIC | KMP_SCH_MODIFIER_NONMONOTONIC), \
                     &lb, &ub, &stride, &last, incr, chunk, bits, sgn);                       \
        *plower = (T)lb;                                                                      \
        *pupper = (T)ub;                                                                      \
        *pstride = (ST)stride;                                                                \
        if (plastiter)                                                                        \
            *plastiter = last;                                                                \
    }                                                                                         \
                                                                                              \
    /* distribute parallel for: the team's block, then the thread's share of it */           \
    KMP_EXPORT void __kmpc_dist_for_static_init_##sfx(                                        \
        ident_t *loc, kmp_int32 gtid, kmp_int32 schedule, kmp_int32 *plastiter, T *plower,    \
        T *pupper, T *pupperD, ST *pstride, ST incr, ST chunk)                                \
    {                                                                                         \
        (void)loc;                                                                            \
        (void)gtid;                                                                           \
        ull lb = (ull)*plower, ub = (ull)*pupper;                                             \
        long long stride;                                                                     \
        int team_last, last;                                                                  \
        static_share(KMP_DISTRIBUTE_STATIC, &lb, &ub, &stride, &team_last, incr, 0, bits,     \
                     sgn);                                                                    \
        *pupperD = (T)ub;                                                                     \
        static_share(schedule & ~(KMP_SCH_MODIFIER_MONOTONIC | KMP_SCH_MODIFIER_NONMONOTONIC), \
                     &lb, &ub, &stride, &last, incr, chunk, bits, sgn);                       \
        *plower = (T)lb;                                                                      \
        *pupper = (T)ub;                                                                      \
        *pstride = (ST)stride;                                                                \
        if (plastiter)                                                                        \
            *plastiter = team_last && last;                                                   \
    }                                                                                         \
                                                                                              \
    /* dist_schedule(static, chunk) of a distribute loop the teams walk by stride */         \
    KMP_EXPORT void __kmpc_team_static_init_##sfx(ident_t *loc, kmp_int32 gtid,              \
                                                  kmp_int32 *p_last, T *p_lb, T *p_ub,        \
                                                  ST *p_st, ST incr, ST chunk)                \
    {                                                                                         \
        (void)loc;                                                                            \
        (void)gtid;                                                                           \
        ull lb = (ull)*p_lb, ub = (ull)*p_ub;                                                 \
        long long stride;                                                                     \
        int last;                                                                             \
        static_share(KMP_DISTRIBUTE_STATIC_CHUNKED, &lb, &ub, &stride, &last, incr, chunk,    \
                     bits, sgn);                                                              \
        *p_lb = (T)lb;                                                                        \
        *p_ub = (T)ub;                                                                        \
        *p_st = (ST)stride;                                                                   \
        if (p_last)                                                                           \
            *p_last = last;                                                                   \
    }

STATIC_INIT(4, kmp_int32, kmp_int32, 32, 1)
STATIC_INIT(4u, kmp_uint32, kmp_int32, 32, 0)
STATIC_INIT(8, kmp_int64, kmp_int64, 64, 1)
STATIC_INIT(8u, kmp_uint64, kmp_int64, 64, 0)

KMP_EXPORT void __kmpc_for_static_fini(ident_t *loc, kmp_int32 gtid)
{
    (void)loc;
    (void)gtid;
}

/* --- dispatch: the loops of the shared layer --- */

/* A kmp schedule as the shared layer's (GS_*), with its chunk; *ordered
 * set for the ordered forms.  n and nth (the trip count and the team's
 * size) size the SIMD forms, whose chunk argument is the SIMD width: their
 * chunks are whole widths, as libomp makes them. */
static int dispatch_sched(kmp_int32 kind, long long chunk, ull n, ull nth, ull *c, int *ordered)
{
    int s = kind & ~(KMP_SCH_MODIFIER_MONOTONIC | KMP_SCH_MODIFIER_NONMONOTONIC);
    if (s >= KMP_NM_LOWER && s < KMP_NM_UPPER)
        s -= KMP_NM_LOWER - 32;   /* nomerge: the same schedule */
    *ordered = s >= KMP_ORD_LOWER && s < KMP_ORD_UPPER;
    if (*ordered)
        s -= KMP_ORD_LOWER - 32;
    *c = chunk > 0 ? (ull)chunk : 0;
    ull width = *c ? *c : 1;
    switch (s) {
    case KMP_SCH_STATIC_CHUNKED:
        if (*c == 0)
            *c = 1;
        return GS_STATIC;
    case KMP_SCH_STATIC_BALANCED_CHUNKED:
        /* one block a thread, whole widths: chunks of that size dealt once */
        *c = ((n + nth - 1) / (nth ? nth : 1) + width - 1) / width * width;
        if (*c == 0)
            *c = width;
        return GS_STATIC;
    case KMP_SCH_STATIC:
    case KMP_SCH_STATIC_GREEDY:
    case KMP_SCH_STATIC_BALANCED:
    case KMP_SCH_AUTO:
        *c = 0;
        return GS_STATIC;
    case KMP_SCH_DYNAMIC_CHUNKED:
    case KMP_SCH_STATIC_STEAL:
        if (*c == 0)
            *c = 1;
        return GS_DYNAMIC;
    case KMP_SCH_RUNTIME:
        *c = 0;
        return gomp_sched_resolve(0, c);   /* OMP_SCHEDULE, omp_set_schedule */
    case KMP_SCH_RUNTIME_SIMD: {
        /* schedule(simd:runtime): the run-sched ICV in whole widths (static
         * without a chunk: one block a thread) */
        ull rc = 0;
        int r = gomp_sched_resolve(0, &rc);
        if (r == GS_STATIC && rc == 0)
            return dispatch_sched(KMP_SCH_STATIC_BALANCED_CHUNKED, (long long)width, n, nth, c,
                                  ordered);
        *c = (rc ? rc : 1) * width;
        return r == GS_GUIDED ? GS_GUIDED_SIMD : r;
    }
    case KMP_SCH_GUIDED_SIMD:
        *c = width;
        return GS_GUIDED_SIMD;
    default:   /* the guided family and trapezoidal */
        if (*c == 0)
            *c = 1;
        return GS_GUIDED;
    }
}

static void dispatch_init(kmp_int32 kind, ull lb, ull ub, long long st, long long chunk,
                          int bits, int sgn)
{
    ull c;
    int ordered;
    ull n = trip_count(lb, ub, st, bits, sgn);
    int sched = dispatch_sched(kind, chunk, n, (ull)omp_get_num_threads(), &c, &ordered);
    gomp_ws_enter(sched, n, c, lb, (ull)st, ordered, 0, 0, NULL, NULL);
}

/* The next chunk, inclusive; 0 when the loop is done (the thread has left
 * it then: the compiler puts the loop's barrier after, unless nowait). */
static int dispatch_next(ull *lb, ull *ub, long long *st, int *last)
{
    struct gomp_ws *ws = gomp_thr.ws;
    ull s, e;
    if (!ws)
        return 0;
    if (!gomp_loop_next_ull(&s, &e)) {
        GOMP_loop_end_nowait();
        return 0;
    }
    *lb = s;
    *ub = e - (ull)ws->incr;
    *st = ws->incr;
    *last = e == (ull)ws->start + ws->n * (ull)ws->incr;
    return 1;
}

#define DISPATCH(sfx, T, ST, bits, sgn)                                                      \
    KMP_EXPORT void __kmpc_dispatch_init_##sfx(ident_t *loc, kmp_int32 gtid,                \
                                               kmp_int32 schedule, T lb, T ub, ST st,        \
                                               ST chunk)                                     \
    {                                                                                        \
        (void)loc;                                                                           \
        (void)gtid;                                                                          \
        dispatch_init(schedule, (ull)lb, (ull)ub, st, chunk, bits, sgn);                     \
    }                                                                                        \
                                                                                             \
    KMP_EXPORT int __kmpc_dispatch_next_##sfx(ident_t *loc, kmp_int32 gtid,                 \
                                              kmp_int32 *p_last, T *p_lb, T *p_ub, ST *p_st) \
    {                                                                                        \
        (void)loc;                                                                           \
        (void)gtid;                                                                          \
        ull lb, ub;                                                                          \
        long long st;                                                                        \
        int last;                                                                            \
        if (!dispatch_next(&lb, &ub, &st, &last))                                            \
            return 0;                                                                        \
        *p_lb = (T)lb;                                                                       \
        *p_ub = (T)ub;                                                                       \
        if (p_st)                                                                            \
            *p_st = (ST)st;                                                                  \
        if (p_last)                                                                          \
            *p_last = last;                                                                  \
        return 1;                                                                            \
    }                                                                                        \
                                                                                             \
    /* the end of an ordered loop's iteration: the turn passes with the chunk */            \
    KMP_EXPORT void __kmpc_dispatch_fini_##sfx(ident_t *loc, kmp_int32 gtid)                \
    {                                                                                        \
        (void)loc;                                                                           \
        (void)gtid;                                                                          \
    }

DISPATCH(4, kmp_int32, kmp_int32, 32, 1)
DISPATCH(4u, kmp_uint32, kmp_int32, 32, 0)
DISPATCH(8, kmp_int64, kmp_int64, 64, 1)
DISPATCH(8u, kmp_uint64, kmp_int64, 64, 0)

/* distribute parallel for with a dynamic schedule: the team's block is
 * shared among its threads like any loop. */
#define DIST_DISPATCH(sfx, T, ST, bits, sgn)                                                 \
    KMP_EXPORT void __kmpc_dist_dispatch_init_##sfx(ident_t *loc, kmp_int32 gtid,           \
                                                    kmp_int32 schedule, kmp_int32 *p_last,   \
                                                    T lb, T ub, ST st, ST chunk)             \
    {                                                                                        \
        (void)loc;                                                                           \
        (void)gtid;                                                                          \
        ull l = (ull)lb, u = (ull)ub;                                                        \
        long long stride;                                                                    \
        int last;                                                                            \
        static_share(KMP_DISTRIBUTE_STATIC, &l, &u, &stride, &last, st, 0, bits, sgn);       \
        if (p_last)                                                                          \
            *p_last = last;                                                                  \
        dispatch_init(schedule, l, u, st, chunk, bits, sgn);                                 \
    }

DIST_DISPATCH(4, kmp_int32, kmp_int32, 32, 1)
DIST_DISPATCH(4u, kmp_uint32, kmp_int32, 32, 0)
DIST_DISPATCH(8, kmp_int64, kmp_int64, 64, 1)
DIST_DISPATCH(8u, kmp_uint64, kmp_int64, 64, 0)
