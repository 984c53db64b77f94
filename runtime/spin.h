/*
 * spin.h - how long an idle worker polls for work before it sleeps.
 *
 * Polling pays when work arrives before the polls run out: the worker
 * takes it at once instead of being woken (a futex wake-up, several
 * microseconds).  It costs nothing only while the poller has a CPU to
 * itself.  Where threads share CPUs - more workers than CPUs, other
 * programs, or a virtual machine whose vCPUs outnumber the host's cores,
 * which the guest cannot see - a polling worker holds a CPU that a worker
 * with work is waiting for.  Under NAFT that is worse than under DFT: the
 * poller may not take the waiting task (it belongs to another node), so
 * the task waits for the descheduled worker of its node while the others
 * poll.
 *
 * So with LOCUS_SPIN unset, a worker notices when its CPU is being shared:
 * it reads the clock every LC_SPIN_CHECK polls, and a gap of more than
 * LC_SPIN_PREEMPTED_NS between two reads means it was descheduled
 * meanwhile (polls take well under a microsecond; a scheduler time slice
 * is a millisecond or more).  It then stops polling and sleeps, once it
 * has polled its floor (LOCUS_STEAL_SPIN polls plus LC_SPIN_FLOOR: NAFT
 * looks at other nodes only after LOCUS_STEAL_SPIN polls, and a worker
 * must look there before it sleeps); its later idle periods poll only that
 * floor, and each idle period that ends in work doubles its limit again,
 * up to 20000 polls.  A worker on a CPU of its own is never descheduled
 * that long and keeps the full 20000.
 *
 * With more workers than CPUs (rt->oversubscribed) LC_SPIN_FLOOR polls are
 * the limit from the start and stay so, as libgomp throttles its spinning
 * when it has more threads than CPUs, and the polls do not yield; the
 * worker's last look before it sleeps then counts as LOCUS_STEAL_SPIN
 * polls (wait.c), so it still looks at the other nodes first.  Polls used to
 * be a sched_yield() each there: the clock never showed the gap above (a
 * yield returns soon while the other pollers are runnable too), so 16
 * workers on 2 CPUs went through all 20000 polls, and under CFS each yield
 * could hand a whole time slice to another process while the worker with
 * work waited.
 * Sleeping leaves the CPUs to whoever has work; a push or a barrier's
 * last arrival wakes the sleepers, and a woken thread preempts a CPU-bound
 * one.  An explicit LOCUS_SPIN is obeyed as it is, oversubscribed or not.  Everything here is the worker's own: nothing shared is written,
 * and the clock is read only while the worker has nothing to do.
 */
#ifndef LC_SPIN_H
#define LC_SPIN_H

#include <stdint.h>

#include "runtime.h"

/* The clock the gaps are read on.  tests/test_spin.c defines its own
 * before including this file, so that its verdicts do not depend on how
 * the test thread itself is scheduled. */
#ifndef LC_SPIN_NOW
#define LC_SPIN_NOW() lc_now_ns()
#endif

#define LC_SPIN_CHECK 16                 /* polls between two reads of the clock */
#define LC_SPIN_PREEMPTED_NS 1000000u    /* a gap this long: the worker was descheduled */
#define LC_SPIN_FLOOR 64                 /* polls besides LOCUS_STEAL_SPIN's */

static inline unsigned lc_spin_floor(const struct lc_options *o)
{
    uint64_t f = (uint64_t)o->steal_spin + LC_SPIN_FLOOR;
    return f < o->spin ? (unsigned)f : o->spin;
}

/* The most polls an idle period may have: LOCUS_SPIN, or LC_SPIN_FLOOR
 * when oversubscribed and LOCUS_SPIN is unset. */
static inline unsigned lc_spin_max(const struct lc_runtime *rt)
{
    if (rt->oversubscribed && rt->opt.spin_adapt)
        return LC_SPIN_FLOOR < rt->opt.spin ? LC_SPIN_FLOOR : rt->opt.spin;
    return rt->opt.spin;
}
static inline void lc_spin_init(struct lc_worker *w)
{
    w->spin.limit = lc_spin_max(w->rt);
    w->spin.last_ns = 0;
}

/* An idle period begins: w's first failed poll. */
static inline void lc_spin_begin(struct lc_worker *w)
{
    if (w->rt->opt.spin_adapt)
        w->spin.last_ns = LC_SPIN_NOW();
}

/* After w's spins-th failed poll of this idle period: 1 when it should
 * stop polling and sleep. */
static inline int lc_spin_give_up(struct lc_worker *w, unsigned spins)
{
    if (spins >= w->spin.limit)
        return 1;
    if (!w->rt->opt.spin_adapt || spins % LC_SPIN_CHECK)
        return 0;
    uint64_t now = LC_SPIN_NOW(), gap = now - w->spin.last_ns;
    w->spin.last_ns = now;
    if (gap <= LC_SPIN_PREEMPTED_NS)
        return 0;
    /* the CPU is shared: poll no more than the floor from now on */
    unsigned floor = lc_spin_floor(&w->rt->opt);
    if (floor > w->spin.limit)
        floor = w->spin.limit;   /* oversubscribed: already below it */
    w->spin.limit = floor;
    return spins >= floor;
}

/* An idle period of spins failed polls ended in work. */
static inline void lc_spin_found(struct lc_worker *w, unsigned spins)
{
    unsigned max = lc_spin_max(w->rt);
    if (spins && w->spin.limit < max)
        w->spin.limit = 2 * (uint64_t)w->spin.limit < max ? 2 * w->spin.limit : max;
}

#endif /* LC_SPIN_H */
