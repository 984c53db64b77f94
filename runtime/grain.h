/*
 * grain.h - how long task bodies take, and whether a task that is ready
 * when spawned is worth handing to another core.
 *
 * Handing a task over costs its descriptor's lines on the way there and
 * its completion's on the way back: 100-600 ns per round trip on the
 * machines we measured (benchmarks/overhead/corelat), paid by the spawner
 * as much as by the thief.  A body shorter than that finishes sooner on
 * the spawning thread than anywhere else, so when the bodies a worker has
 * been running are short (LOCUS_GRAIN_NS), a task it spawns that is ready
 * at once runs there and then.  Serial chains of tiny tasks then cost what
 * they cost on one thread instead of a cache-line round trip per task.
 * libgomp makes the same trade by queue length only (more than 64 queued
 * tasks per thread: run new ones at once); Locus does that too
 * (lc_backlog_own) and this is the other half, by body length.
 *
 * The estimate is an exponentially weighted mean of sampled body times
 * (every LC_GRAIN_EVERY-th body a worker runs), one per worker, on a line
 * only its owner touches: a shared one would move between cores with
 * every sample, which costs more than it saves (recursive fib with tiny
 * tasks ran 20% slower).  A spawner thus judges by the bodies it has run
 * itself, and one that has run none yet by the hint (struct lc_grain).
 * With one
 * worker there is nobody to hand over to: every ready task runs at spawn.
 *
 * What bounds a wrong guess: a spawner in short mode reads the clock at
 * each such spawn, and a gap since the previous one longer than
 * LC_GRAIN_GAP limits means the task it ran last was long, which ends
 * short mode at once; so at most one long task runs on its spawner by
 * mistake, and only its own body (its released successors are queued,
 * and tasks it spawns are not run at spawn: lc_run_at_spawn in exec.c,
 * run_inline in spawn.c).
 */
#ifndef LC_GRAIN_H
#define LC_GRAIN_H

#include <stdatomic.h>
#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

/* The limits, fixed at init, and the hint; each worker keeps its own
 * estimate. */
struct lc_grain {
    uint64_t limit;         /* LOCUS_GRAIN_NS in ticks; 0: never run at spawn */
    uint64_t clamp;         /* largest sample taken in (LC_GRAIN_CLAMP limits) */
    int always;             /* one worker: no other core to hand over to, so every
                               ready task runs at spawn, without a clock read */
    /* The estimate of the worker whose estimate last crossed the limit
     * (either way), for a spawner that has run no body yet: a thread that
     * only spawns, its tasks run by the others, would never leave the
     * unknown state.  Written on crossings only, so it seldom moves. */
    _Alignas(64) _Atomic uint64_t hint;
};

#define LC_GRAIN_UNKNOWN UINT64_MAX
#define LC_GRAIN_EVERY 16   /* one body timed in so many: two clock reads cost ~25 ns here */
#define LC_GRAIN_GAP 8      /* a gap of this many limits between short-mode spawns ends it */
#define LC_GRAIN_CLAMP 16   /* one outlier (a preempted body) lifts the mean by at most 2 limits */

/* A cheap, monotonic clock: the TSC where there is one, else nanoseconds. */
static inline uint64_t lc_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#else
    extern uint64_t lc_now_ns(void);
    return lc_now_ns();
#endif
}

/* grain.c: sets g up for a limit of limit_ns (0 = off) and nworkers
 * workers, measuring the clock's rate against CLOCK_MONOTONIC (about
 * 100 us) where it needs it. */
void lc_grain_init(struct lc_grain *g, unsigned limit_ns, int nworkers);

/* Takes one body time (ticks) into the mean *est (LC_GRAIN_UNKNOWN before
 * the first sample, which is taken whole; then 1/8 weight), and into the
 * hint when the mean crosses the limit. */
static inline void lc_grain_note(struct lc_grain *g, uint64_t *est, uint64_t ticks)
{
    if (ticks > g->clamp)
        ticks = g->clamp;
    uint64_t old = *est;
    *est = old == LC_GRAIN_UNKNOWN ? ticks : old - old / 8 + ticks / 8;
    if ((old < g->limit) != (*est < g->limit))
        atomic_store_explicit(&g->hint, *est, memory_order_relaxed);
}

/* Whether bodies averaging est are short enough to run a ready task at
 * spawn. */
static inline int lc_grain_short(const struct lc_grain *g, uint64_t est)
{
    return est < g->limit;
}

/*
 * The spawner's check before running a ready task at spawn: *est is its
 * estimate, *last its clock reading at its previous such check (0: none).
 * Returns 1 to run the task here.  A gap longer than LC_GRAIN_GAP limits
 * since the previous check (the task run then was long, or the program did
 * long work between spawns) is taken as a sample, which ends short mode,
 * and this task goes to the scheduler.
 */
static inline int lc_grain_check(struct lc_grain *g, uint64_t *est, uint64_t *last)
{
    if (g->always)
        return 1;
    if (__builtin_expect(*est == LC_GRAIN_UNKNOWN, 0))
        *est = atomic_load_explicit(&g->hint, memory_order_relaxed);
    if (!lc_grain_short(g, *est)) {
        *last = 0;
        return 0;
    }
    uint64_t now = lc_ticks(), prev = *last;
    *last = now;
    if (prev && now - prev > LC_GRAIN_GAP * g->limit) {
        lc_grain_note(g, est, g->clamp);
        *last = 0;
        return 0;
    }
    return 1;
}

#endif /* LC_GRAIN_H */
