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
 * (the policy's backlog, ready.h) and this is the other half, by body length.
 * Not while another worker is idle for want of the task (a worker sleeps,
 * or the spawner has nothing queued: lc_ready_helper_idle in ready.h),
 * which then takes it: a task run on its spawner that waits for the
 * spawner's next step would wait for ever.
 *
 * The estimate is an exponentially weighted mean of sampled body times
 * (every LC_GRAIN_EVERY-th body a worker runs), one per worker, on a line
 * only its owner writes: a shared one would move between cores with
 * every sample, which costs more than it saves (recursive fib with tiny
 * tasks ran 20% slower).  A spawner thus judges by the bodies it has run
 * itself; one that has timed none lately (its tasks all run elsewhere)
 * takes the mean of a few other workers' estimates.  With one worker
 * there is nobody to hand over to: every ready task runs at spawn.
 *
 * What bounds a wrong guess: a spawner in short mode reads the clock at
 * each such spawn, and two gaps in a row since the previous one longer
 * than LC_GRAIN_GAP limits (or one longer than LC_GRAIN_GAP_ONE) mean the
 * tasks it ran were long: the next LC_GRAIN_COOLDOWN ready tasks are
 * queued.  So at most two tasks in LC_GRAIN_COOLDOWN (one, if they take
 * longer than LC_GRAIN_GAP_ONE limits) run on their spawner by mistake
 * until the spawner's own timings say the bodies are long, and only their
 * own bodies: the successors they release are queued, and tasks they
 * spawn are not run at spawn (LC_RUN_SPAWN in run.h, chosen by
 * lc_ready_decide in ready.h).
 */
#ifndef LC_GRAIN_H
#define LC_GRAIN_H

#include <stdatomic.h>
#include <stdint.h>

#include "sim.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

/* The limits, fixed at init. */
struct lc_grain {
    uint64_t limit;         /* LOCUS_GRAIN_NS in ticks; 0: never run at spawn */
    uint64_t clamp;         /* largest sample taken in (LC_GRAIN_CLAMP limits) */
    uint64_t rate;          /* ticks per 2^16 ns (0: one worker, nothing timed) */
    int always;             /* one worker: no other core to hand over to, so every
                               ready task runs at spawn, without a clock read */
};

/* One worker's estimate and run-at-spawn state, on a line only its owner
 * writes.  est is atomic because a stale spawner reads it (grain.c). */
struct lc_grain_state {
    _Atomic uint64_t est;   /* mean body time in ticks, LC_GRAIN_UNKNOWN before a sample */
    _Atomic uint64_t span;  /* the same without the clamp (lc_grain_note), 0 before a sample */
    uint64_t last;          /* clock at the last check in short mode, 0 none */
    uint32_t countdown;     /* bodies until the next timed one */
    uint32_t skip;          /* checks still refused after long gaps */
    uint32_t gaps;          /* long gaps in a row */
    uint32_t stale;         /* spawns since this worker last timed a body */
    uint32_t timed;         /* bodies timed so far, up to LC_GRAIN_FIRST */
};

#define LC_GRAIN_UNKNOWN UINT64_MAX
#define LC_GRAIN_EVERY 16     /* one body timed in so many: two clock reads cost ~25 ns here */
#define LC_GRAIN_FIRST 16     /* ...after the first so many, which are all timed: a worker's
                                 few first bodies (a program's set-up) say little of the rest */
#define LC_GRAIN_GAP 8        /* two gaps in a row of this many limits between checks... */
#define LC_GRAIN_GAP_ONE 1000 /* ...or one of this many (longer than an interrupt)... */
#define LC_GRAIN_COOLDOWN 64  /* ...make the spawner queue the next so many ready tasks */
#define LC_GRAIN_CLAMP 4      /* one outlier (a preempted body) lifts the mean by half a limit */
#define LC_GRAIN_STALE 256    /* spawns without a body timed here before the peers are asked */
#define LC_GRAIN_PEERS 4      /* workers asked */

/* What lc_grain_check() answers. */
enum { LC_GRAIN_QUEUE = 0, LC_GRAIN_RUN = 1, LC_GRAIN_ASK = 2 };

/* A cheap, monotonic clock: the TSC where there is one, else nanoseconds. */
static inline uint64_t lc_ticks(void)
{
    if (__builtin_expect(lc_sim != NULL, 0))   /* simulated time: nanoseconds (sim.h) */
        return lc_sim->now_ns();
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#else
    extern uint64_t lc_now_ns(void);
    return lc_now_ns();
#endif
}

/* The clock lc_grain_check() reads the gaps on.  tests/test_grain.c
 * defines its own before including this file, so that its verdicts do not
 * depend on how the test thread itself is scheduled. */
#ifndef LC_GRAIN_NOW
#define LC_GRAIN_NOW() lc_ticks()
#endif

/* grain.c: opens the window in which the clock's rate is measured (once
 * per process; lc_grain_init closes it), so that what init does meanwhile
 * is not spent waiting.  Called first thing in init. */
void lc_grain_clock_mark(void);
/* Both clocks at one instant (lc_now_ns, lc_ticks): the tick count read
 * between two nanosecond reads, the shortest such bracket of a few tries
 * kept.  A preemption between the reads of a single pair (a vCPU its host
 * stopped: hundreds of microseconds) would be all of a rate's error. */
void lc_clock_pair(uint64_t *ns, uint64_t *ticks);

/* grain.c: sets g up for a limit of limit_ns (0 = off) and nworkers
 * workers, measuring the clock's rate against CLOCK_MONOTONIC (about
 * 100 us, once per process) where it needs it. */
void lc_grain_init(struct lc_grain *g, unsigned limit_ns, int nworkers);

/* grain.c: a worker's state before its first body. */
void lc_grain_state_init(struct lc_grain_state *s);

/* grain.c: the mean of the known estimates in peers[0..n-1] (NULL entries
 * skipped), or LC_GRAIN_UNKNOWN. */
uint64_t lc_grain_mean(_Atomic uint64_t *const *peers, int n);

/* Takes one body time (ticks) into s's means.  est: the first sample
 * whole, then 1/8 weight, clamped (LC_GRAIN_CLAMP limits: it only has to
 * tell short bodies from long ones).  span, which policies read to tell a
 * worker in a long body from one that does not run (sched/naft.c), is not
 * clamped and rises fast: a sample above it counts for half, one below
 * for 1/8.  A program whose bodies grow is then known to have long ones
 * after one timed body, and one preempted body makes the bodies look
 * longer for a while, which only makes that policy wait longer. */
static inline void lc_grain_note(const struct lc_grain *g, struct lc_grain_state *s,
                                 uint64_t ticks)
{
    uint64_t span = atomic_load_explicit(&s->span, memory_order_relaxed);
    if (!span)
        span = ticks;
    else if (ticks > span)
        span += (ticks - span) / 2;
    else
        span -= (span - ticks) / 8;
    atomic_store_explicit(&s->span, span ? span : 1, memory_order_relaxed);
    if (!g->limit)
        return;
    if (ticks > g->clamp)
        ticks = g->clamp;
    uint64_t est = atomic_load_explicit(&s->est, memory_order_relaxed);
    est = est == LC_GRAIN_UNKNOWN ? ticks : est - est / 8 + ticks / 8;
    atomic_store_explicit(&s->est, est, memory_order_relaxed);
    s->stale = 0;
}

/* Whether bodies averaging est are short enough to run a ready task at
 * spawn. */
static inline int lc_grain_short(const struct lc_grain *g, uint64_t est)
{
    return est < g->limit;
}

/* Whether bodies averaging est, short as they are, are long enough for an
 * idle worker to gain by taking some (LC_STOCK in
 * sched/steal.h): a quarter of the limit.  Below that a thief's hand-over
 * costs many bodies, and keeping a stock for it costs the spawner more
 * (the reads of the line thieves write) than the thief runs. */
static inline int lc_grain_shareable(const struct lc_grain *g, uint64_t est)
{
    return est >= g->limit / 4;
}

/*
 * The spawner's check before running a ready task at spawn: LC_GRAIN_RUN
 * to run it here, LC_GRAIN_QUEUE to queue it, LC_GRAIN_ASK to queue it
 * and take the peers' estimate (the spawner has timed no body in
 * LC_GRAIN_STALE spawns: its tasks run elsewhere, so its own estimate
 * would never change).  In short mode the clock is read at every check:
 * two gaps in a row longer than LC_GRAIN_GAP limits since the previous
 * check, or one longer than LC_GRAIN_GAP_ONE, mean the tasks run then were
 * long (or the program did long work between spawns), and the next
 * LC_GRAIN_COOLDOWN ready tasks are queued.  One shorter gap is not
 * enough: an interrupt makes one.  The estimate is left alone: a spawner
 * that queues runs few bodies, and a wrong one would stick.
 */
static inline int lc_grain_check(const struct lc_grain *g, struct lc_grain_state *s)
{
    if (g->always)
        return LC_GRAIN_RUN;
    if (!lc_grain_short(g, atomic_load_explicit(&s->est, memory_order_relaxed))) {
        s->last = 0;
        return s->stale >= LC_GRAIN_STALE && g->limit ? LC_GRAIN_ASK : LC_GRAIN_QUEUE;
    }
    if (s->skip) {
        s->skip--;
        s->last = 0;
        return LC_GRAIN_QUEUE;
    }
    uint64_t now = LC_GRAIN_NOW(), prev = s->last;
    s->last = now;
    if (!prev || now - prev <= LC_GRAIN_GAP * g->limit) {
        s->gaps = 0;
        return LC_GRAIN_RUN;
    }
    if (++s->gaps < 2 && now - prev <= LC_GRAIN_GAP_ONE * g->limit)
        return LC_GRAIN_RUN;
    s->gaps = 0;
    s->skip = LC_GRAIN_COOLDOWN;
    s->last = 0;
    return LC_GRAIN_QUEUE;
}

#endif /* LC_GRAIN_H */
