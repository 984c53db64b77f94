/*
 * grain.c - the out-of-line parts of the body-length estimate (grain.h):
 * the clock's rate, measured once so that LOCUS_GRAIN_NS can be given in
 * nanoseconds while the hot path reads the TSC, and a spawner's question
 * to other workers when it has timed nothing of its own.
 */
#include <stdatomic.h>
#include <stdint.h>

#include "grain.h"
#include "rng.h"
#include "runtime.h"

/* How long the TSC is compared against CLOCK_MONOTONIC: the rate comes out
 * within a fraction of a percent, plenty for a threshold. */
#define CALIBRATE_NS 100000u

#if defined(__x86_64__) || defined(__i386__)
static _Atomic uint64_t rate;
/* Both clocks as lc_grain_clock_mark() read them (0: not read) */
static _Atomic uint64_t mark_ns, mark_ticks;
#endif

void lc_clock_pair(uint64_t *ns, uint64_t *ticks)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 8 && best > 2000; i++) {
        uint64_t a = lc_now_ns(), k = lc_ticks(), b = lc_now_ns();
        if (b - a < best) {
            best = b - a;
            *ns = a + (b - a) / 2;
            *ticks = k;
        }
    }
}

void lc_grain_clock_mark(void)
{
#if defined(__x86_64__) || defined(__i386__)
    if (lc_sim || lc_sim_frozen()   /* simulated clocks: no rate to measure */
        || atomic_load_explicit(&rate, memory_order_relaxed)
        || atomic_load_explicit(&mark_ns, memory_order_relaxed))
        return;
    uint64_t n, k;
    lc_clock_pair(&n, &k);
    atomic_store_explicit(&mark_ticks, k, memory_order_relaxed);
    atomic_store_explicit(&mark_ns, n, memory_order_relaxed);
#endif
}

/* Ticks of lc_ticks() per 2^16 ns, measured at the first call only: the
 * rate is the machine's, and every locus_init() after the first (test
 * suites start the runtime hundreds of times) would spin for it again.
 * The window opens at lc_grain_clock_mark(), when the first locus_init()
 * began, so the time init spends reading the topology counts towards it
 * and the first parallel region waits only for what is left of it.
 * Racing first calls both measure and store about the same value. */
static uint64_t ticks_per_64k_ns(void)
{
    if (lc_sim || lc_sim_frozen())
        return 65536;   /* lc_ticks() is (or is to be) simulated nanoseconds */
#if defined(__x86_64__) || defined(__i386__)
    uint64_t r = atomic_load_explicit(&rate, memory_order_relaxed);
    if (r)
        return r;
    uint64_t n0 = atomic_load_explicit(&mark_ns, memory_order_relaxed);
    uint64_t t0 = atomic_load_explicit(&mark_ticks, memory_order_relaxed), n1, t1;
    if (!n0 || !t0 || lc_now_ns() - n0 > 1000000000ull)   /* no mark, or a stale one */
        lc_clock_pair(&n0, &t0);
    do
        lc_clock_pair(&n1, &t1);
    while (n1 - n0 < CALIBRATE_NS);
    r = (t1 - t0) * 65536 / (n1 - n0);
    r = r ? r : 1;
    atomic_store_explicit(&rate, r, memory_order_relaxed);
    return r;
#else
    return 65536;   /* lc_ticks() is nanoseconds */
#endif
}

void lc_grain_init(struct lc_grain *g, unsigned limit_ns, int nworkers)
{
    g->always = limit_ns && nworkers == 1;
    if (g->always)
        limit_ns = 0;   /* nothing to estimate */
    /* bodies are timed whenever there are other workers: policies read
     * their length (lc_body_ns) even with LOCUS_GRAIN_NS=0 */
    g->rate = nworkers > 1 ? ticks_per_64k_ns() : 0;
    g->limit = limit_ns ? ((uint64_t)limit_ns * g->rate >> 16) : 0;
    if (limit_ns && g->limit == 0)
        g->limit = 1;
    g->clamp = g->limit * LC_GRAIN_CLAMP;
}

void lc_grain_state_init(struct lc_grain_state *s)
{
    atomic_init(&s->est, LC_GRAIN_UNKNOWN);
    atomic_init(&s->span, 0);
    s->last = 0;
    s->countdown = 1;                  /* the first LC_GRAIN_FIRST bodies are timed */
    s->timed = 0;
    s->skip = 0;
    s->gaps = 0;
    s->stale = LC_GRAIN_STALE;         /* the first check asks the peers */
}

uint64_t lc_grain_mean(_Atomic uint64_t *const *peers, int n)
{
    uint64_t sum = 0;
    int known = 0;
    for (int i = 0; i < n; i++) {
        if (!peers[i])
            continue;
        uint64_t e = atomic_load_explicit(peers[i], memory_order_relaxed);
        if (e != LC_GRAIN_UNKNOWN) {
            sum += e;
            known++;
        }
    }
    return known ? sum / (uint64_t)known : LC_GRAIN_UNKNOWN;
}

void lc_grain_ask(struct lc_worker *w)
{
    struct lc_runtime *rt = w->rt;
    _Atomic uint64_t *peers[LC_GRAIN_PEERS];
    int n = rt->nworkers - 1 < LC_GRAIN_PEERS ? rt->nworkers - 1 : LC_GRAIN_PEERS;
    int start = (int)(lc_rng_next(&w->rng) % (uint64_t)rt->nworkers);
    for (int i = 0, k = 0; i < n; k++) {
        int v = (start + k) % rt->nworkers;
        if (v != w->id)
            peers[i++] = &rt->workers[v].grain.est;
    }
    uint64_t mean = lc_grain_mean(peers, n);
    if (mean != LC_GRAIN_UNKNOWN)
        atomic_store_explicit(&w->grain.est, mean, memory_order_relaxed);
    w->grain.stale = 0;
}
