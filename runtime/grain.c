/*
 * grain.c - the one slow part of the body-length estimate (grain.h): the
 * clock's rate, so that LOCUS_GRAIN_NS can be given in nanoseconds while
 * the hot path reads the TSC.
 */
#include <stdint.h>

#include "grain.h"
#include "runtime.h"

/* How long the TSC is compared against CLOCK_MONOTONIC: the rate comes out
 * within a fraction of a percent, plenty for a threshold. */
#define CALIBRATE_NS 100000u

/* Ticks of lc_ticks() per 2^16 ns. */
static uint64_t ticks_per_64k_ns(void)
{
#if defined(__x86_64__) || defined(__i386__)
    uint64_t n0 = lc_now_ns(), t0 = lc_ticks(), n1, t1;
    do {
        n1 = lc_now_ns();
        t1 = lc_ticks();
    } while (n1 - n0 < CALIBRATE_NS);
    uint64_t r = (t1 - t0) * 65536 / (n1 - n0);
    return r ? r : 1;
#else
    return 65536;   /* lc_ticks() is nanoseconds */
#endif
}

void lc_grain_init(struct lc_grain *g, unsigned limit_ns, int nworkers)
{
    g->always = limit_ns && nworkers == 1;
    if (g->always)
        limit_ns = 0;   /* nothing to estimate */
    g->limit = limit_ns ? ((uint64_t)limit_ns * ticks_per_64k_ns() >> 16) : 0;
    if (limit_ns && g->limit == 0)
        g->limit = 1;
    g->clamp = g->limit * LC_GRAIN_CLAMP;
    atomic_init(&g->hint, LC_GRAIN_UNKNOWN);
}
