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
 * has polled LC_SPIN_FLOOR times (its last look before sleeping reaches
 * the other nodes, as NAFT's polls would after LOCUS_STEAL_SPIN: wait.c).
 * Its later idle periods poll only that floor for LC_SPIN_HOLD_NS after
 * the last gap it saw; after that each idle period that ends in work
 * doubles its limit again, up to 20000 polls, and a gap seen on the way
 * up brings it back to the floor for as long again.  A worker on a CPU
 * of its own is never descheduled that long and keeps the full 20000.
 * The hold is what makes the floor stick on a CPU that stays shared: a
 * worker polling only the floor seldom sees a gap, so without it a
 * fork-join program doubled back to 20000 within 7 rounds, and its
 * pollers held the cores its workers with work waited for (a 4-node
 * virtual machine on 2 host cores).  The floor is short for the same
 * reason: the earlier one, LOCUS_STEAL_SPIN + 64 polls, held with it,
 * kept less than half of the gain there (benchmarks/README.md).
 *
 * With more workers than CPUs (rt->oversubscribed) every poll yields the
 * CPU (wait.c), so that a worker with work gets it from a poller, and an
 * idle period lasts at most LC_SPIN_OVERSUB_NS of wall time, however many
 * polls that is: a yield may return at once (other pollers runnable) or
 * after another process's whole time slice, so a count of polls bounds
 * nothing.  Polls that do not yield, or an idle worker that sleeps at
 * once, are both worse there: a non-yielding poller holds a CPU until the
 * scheduler preempts it while the worker with work waits, and a sleeper
 * must be woken for every task its node gets (a fork-join program on a
 * virtual 16-node topology then pays a wake-up per node per round; see
 * benchmarks/README.md).  The worker's last look before it sleeps counts
 * as LOCUS_STEAL_SPIN polls (wait.c), so NAFT's look at other nodes still
 * happens.  A thread waiting at a barrier (a condition word: team.c) is
 * the exception: there every member but the last polls while the late
 * ones are the threads with work, and yielding polls kept them from the
 * CPUs (OpenMP loop tests ran several times slower than libgomp:
 * benchmarks/README.md), so it polls LC_SPIN_FLOOR times without yielding
 * and sleeps; the last arrival wakes it.  An explicit LOCUS_SPIN is obeyed
 * as it is, oversubscribed or not.  Everything here is the worker's own:
 * nothing shared is written, and the clock is read only while the worker
 * has nothing to do.
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
#define LC_SPIN_FLOOR 64                 /* polls on a shared CPU */
#define LC_SPIN_OVERSUB_NS 1000000u      /* an oversubscribed idle period, at most */
#define LC_SPIN_HOLD_NS 100000000u       /* after a gap, the floor for at least this long */

/* The polls of an idle period on a shared CPU: LC_SPIN_FLOOR, or fewer
 * where LOCUS_SPIN is smaller. */
static inline unsigned lc_spin_floor(const struct lc_options *o)
{
    return LC_SPIN_FLOOR < o->spin ? LC_SPIN_FLOOR : o->spin;
}

static inline void lc_spin_init(struct lc_worker *w)
{
    w->spin.limit = w->rt->opt.spin;
    w->spin.last_ns = 0;
    w->spin.shared_ns = 0;
}

/* An idle period begins: w's first failed poll. */
static inline void lc_spin_begin(struct lc_worker *w)
{
    if (w->rt->opt.spin_adapt)
        w->spin.last_ns = LC_SPIN_NOW();
}

/* Polls of a condition word (a barrier, a team's next job or its join:
 * team.c) before sleeping on it: oversubscribed with LOCUS_SPIN unset,
 * LC_SPIN_FLOOR, which do not yield (above); else LOCUS_SPIN. */
static inline unsigned lc_spin_word_polls(const struct lc_runtime *rt)
{
    return rt->oversubscribed && rt->opt.spin_adapt ? LC_SPIN_FLOOR : rt->opt.spin;
}

/* Whether an oversubscribed poll yields: not while waiting for a
 * condition word (a barrier: above). */
static inline int lc_spin_yields(const struct lc_runtime *rt, int word)
{
    return rt->oversubscribed && !word;
}

/* After w's spins-th failed poll of this idle period: 1 when it should
 * stop polling and sleep.  word: w waits for a condition word (a barrier
 * or a task group: team.c), not for work or children. */
static inline int lc_spin_give_up(struct lc_worker *w, unsigned spins, int word)
{
    if (spins >= w->spin.limit)
        return 1;
    if (!w->rt->opt.spin_adapt)
        return 0;
    if (w->rt->oversubscribed)   /* bounded by time, or a few polls (above) */
        return word ? spins >= lc_spin_word_polls(w->rt)
                    : LC_SPIN_NOW() - w->spin.last_ns > LC_SPIN_OVERSUB_NS;
    if (spins % LC_SPIN_CHECK)
        return 0;
    uint64_t now = LC_SPIN_NOW(), gap = now - w->spin.last_ns;
    w->spin.last_ns = now;
    if (gap <= LC_SPIN_PREEMPTED_NS)
        return 0;
    /* the CPU is shared: poll no more than the floor from now on */
    unsigned floor = lc_spin_floor(&w->rt->opt);
    w->spin.limit = floor;
    w->spin.shared_ns = now ? now : 1;   /* 0 means never */
    return spins >= floor;
}

/* An idle period of spins failed polls ended in work.  The clock is read
 * only below the full limit, after a gap. */
static inline void lc_spin_found(struct lc_worker *w, unsigned spins)
{
    const struct lc_options *o = &w->rt->opt;
    if (!spins || w->spin.limit >= o->spin)
        return;
    if (w->spin.shared_ns && LC_SPIN_NOW() - w->spin.shared_ns < LC_SPIN_HOLD_NS)
        return;   /* still held at the floor */
    w->spin.limit = 2 * (uint64_t)w->spin.limit < o->spin ? 2 * w->spin.limit : o->spin;
}

#endif /* LC_SPIN_H */
