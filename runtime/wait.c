/*
 * wait.c - what a thread does while it has nothing to run: poll for work
 * a while (LOCUS_SPIN polls), then sleep on one futex word (the epoch) so
 * an idle runtime uses no CPU.  The same loop serves idle workers and
 * threads waiting in taskwait (who keep running other tasks meanwhile).
 *
 * Each node has its own futex word and sleeper count (a task queued for a
 * node must wake a worker allowed to take it), so a push reads a line
 * written only when a worker sleeps or wakes, and only its node's when the
 * task is bound to its node.
 *
 * Why no wake-up is lost (the Dekker pairing; Vyukov's eventcount is the
 * same handshake with the announcement folded into the futex word):
 *
 *   sleeper                                pusher
 *   e = epoch                              publish the task (deque, queue)
 *   nsleepers++, nsleep_total++ (RMW)      seq_cst fence     (lc_push_fence)
 *   seq_cst fence                          if (nsleepers > 0)
 *   look for work once more                    epoch++ (RMW), FUTEX_WAKE
 *   none: FUTEX_WAIT(epoch, e)
 *
 * The two fences are ordered one way or the other (C11's single order of
 * seq_cst fences).  Sleeper's first: the pusher's load after its fence sees
 * the announcement, so it bumps the epoch and wakes; the sleeper is either
 * already in FUTEX_WAIT (woken) or not yet there (the kernel compares the
 * epoch with e and returns at once).  Pusher's first: the sleeper's last
 * look, after its fence, sees the task published before the pusher's fence
 * (a deque steal reads bottom after a seq_cst fence of its own; a locked
 * queue is read under its lock).  Either the sleeper's last look sees the
 * task or the pusher sees the sleeper.  A wake-up that finds the task
 * already taken is harmless: the woken worker polls and sleeps again.
 *
 * Cost: the pusher's fence is one locked instruction on x86 (GCC emits
 * `lock or` for it; about 2 ns, benchmarks/README.md) and touches no
 * shared line; the sleeper pays two or three read-modify-writes and a
 * fence, and nothing that grows with the CPU count (the membarrier() this
 * replaces interrupted every CPU running a thread of the process at every
 * sleep).  Thieves that find more behind pass the wake-up on (sched/).  A
 * taskwait sleeper also publishes the pending value it waits for
 * (tw_target); the completion that reaches it wakes everyone (exec.c: its
 * seq_cst read-modify-write of pending, then a seq_cst load of
 * ntw_sleepers, against the sleeper's increment of ntw_sleepers, then its
 * seq_cst load of pending).
 *
 * Under TSan (which does not model fences) both fences become a seq_cst
 * read-modify-write of nsleep_total: two RMWs of one word are ordered, and
 * the later one reads from (synchronises with) the earlier, which gives
 * the same either-or.
 *
 * The core owns all of this: a policy only says, for each task it queues,
 * which workers may take it (its push's answer, then its wake_other hook:
 * policy.h), and lc_wake_for / lc_wake_slow do the waking.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <sched.h>
#include <stdatomic.h>

#include "events.h"
#include "futex.h"
#include "runtime.h"
#include "policy.h"
#include "spin.h"

static void wake_node(struct lc_node_sync *ns, int n)
{
    atomic_store_explicit(&ns->waking, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&ns->epoch, 1, memory_order_seq_cst);
    futex_wake(&ns->epoch, n);
}

void lc_wake_all(struct lc_runtime *rt)
{
    for (int i = 0; i < rt->topo.nnodes; i++)
        wake_node(&rt->nsync[i], INT_MAX);
}

/* The waking halves, after the pusher's fence. */
static void notify_node(struct lc_runtime *rt, int node)
{
    if (atomic_load_explicit(&rt->nsync[node].nsleepers, memory_order_seq_cst) > 0)
        wake_node(&rt->nsync[node], 1);
}

static void notify_any(struct lc_runtime *rt, int from_node)
{
    int n = rt->topo.nnodes;
    if (atomic_load_explicit(&rt->nsleep_total, memory_order_seq_cst) == 0)
        return;
    for (int i = 0; i < n; i++) {
        int k = from_node + i < n ? from_node + i : from_node + i - n;
        if (atomic_load_explicit(&rt->nsync[k].nsleepers, memory_order_seq_cst) > 0) {
            wake_node(&rt->nsync[k], 1);
            return;
        }
    }
}

void lc_notify_node(struct lc_runtime *rt, int node)
{
    /* orders the push before the read of nsleepers (the pusher's half of the
     * handshake described at the top) */
    lc_push_fence(rt);
    notify_node(rt, node);
}

void lc_notify_any(struct lc_runtime *rt, int from_node)
{
    lc_push_fence(rt);
    notify_any(rt, from_node);
}

/* After lc_wake_for's fence, once somebody sleeps. */
void lc_wake_slow(struct lc_worker *w, int target)
{
    struct lc_runtime *rt = w->rt;
    if (target < 0) {
        notify_any(rt, w->node);
        return;
    }
    if (atomic_load_explicit(&rt->nsync[target].nsleepers, memory_order_seq_cst) > 0) {
        wake_node(&rt->nsync[target], 1);
        return;
    }
    /* nobody of that node sleeps: maybe another node should help */
    int other = rt->sched->wake_other ? rt->sched->wake_other(w, target) : -1;
    if (other >= 0)
        notify_node(rt, other);
}

/* Pause between two idle polls.  The pause grows with the number of
 * failed polls: a thief polling a busy worker's queue at full speed would
 * steal the cache lines of that queue from its owner on every push, and a
 * thief that comes back a little later finds more work queued, so each
 * steal pays for more tasks.  On oversubscribed runs give the CPU to a
 * thread with work at every poll (spin.h bounds such polling by time). */
#define LC_BACKOFF_MAX 16   /* pauses; one pause is 10-140 cycles, 40 ns in a KVM guest */
static inline void idle_poll(struct lc_runtime *rt, unsigned spins, int word)
{
    if (lc_spin_yields(rt, word)) {
        /* more workers than CPUs: the worker with the work may be waiting
         * for this CPU, so give it up at every poll */
        sched_yield();
        return;
    }
    if (rt->oversubscribed) {   /* a barrier's few polls before it sleeps */
        cpu_relax();
        return;
    }
    unsigned n = spins < LC_BACKOFF_MAX ? spins : LC_BACKOFF_MAX;
    for (unsigned i = 0; i < n; i++)
        cpu_relax();
}

/* What a waiting thread waits for: the runtime to stop (t and word NULL: an
 * idle worker), t to have at most max_outstanding incomplete children, or
 * *word to differ from old (team.c: barriers and taskgroups). */
struct lc_until {
    struct lc_task *t;
    int64_t max_outstanding;
    _Atomic uint32_t *word;
    uint32_t old;
};

static inline int wait_over(struct lc_runtime *rt, const struct lc_until *u)
{
    if (u->word)
        return atomic_load_explicit(u->word, memory_order_seq_cst) != u->old;
    if (!u->t)
        return atomic_load_explicit(&rt->stop, memory_order_seq_cst);
    int64_t done = LC_BIAS - atomic_load_explicit(&u->t->pending, memory_order_seq_cst);
    return u->t->nspawned - done <= u->max_outstanding;
}

/*
 * Runs tasks on w until wait_over(): pops, polls LOCUS_SPIN times, then
 * sleeps on the node's futex word (handshake at the top).  A thread waiting
 * for a condition (not for work) also counts itself in ntw_sleepers, so
 * that whoever makes the condition true wakes it (lc_wake_waiters); a
 * taskwait publishes the pending value it waits for as well, so only the
 * completion that reaches it wakes everyone (exec.c).
 */
static void run_until(struct lc_worker *w, const struct lc_until *u)
{
    struct lc_runtime *rt = w->rt;
    const struct lc_sched_ops *sched = rt->sched;
    unsigned spins = 0;
    int cond = u->t || u->word;
    int resleep = 0;   /* woke from a timed sleep with nothing new: sleep again at once */
    int idle = 0;      /* tracing: inside an idle event (trace/trace.h) */

    while (!wait_over(rt, u)) {
        struct lc_task *x = sched->pop(w);
        if (x) {
            w->idle_polls = 0;
            lc_spin_found(w, spins);
            if (__builtin_expect(idle, 0)) {
                lc_trace_mark(w, LC_EV_IDLE_END, 0);
                idle = 0;
            }
            lc_execute(w, x);
            spins = 0;
            resleep = 0;
            if (__builtin_expect(lc_async_due(), 0))
                lc_async_run(w, 0);   /* between tasks (events.h) */
            continue;
        }
        /* idle: completions left by foreign threads, polling services */
        if (__builtin_expect(lc_async_due(), 0)) {
            /* what they run (released successors) is no idle time */
            if (__builtin_expect(idle, 0)) {
                lc_trace_mark(w, LC_EV_IDLE_END, 0);
                idle = 0;
            }
            if (lc_async_run(w, 1)) {
                spins = 0;
                resleep = 0;
                continue;
            }
        }
        w->idle_polls++;
        if (spins == 0)
            lc_spin_begin(w);
        if (__builtin_expect(w->trace != NULL, 0) && !idle) {
            lc_trace_mark(w, LC_EV_IDLE, 0);
            idle = 1;
        }
        if (!resleep && !lc_spin_give_up(w, ++spins, u->word != NULL)) {
            idle_poll(rt, spins, u->word != NULL);
            continue;
        }
        resleep = 0;
        struct lc_node_sync *ns = &rt->nsync[w->node];
        uint32_t e = atomic_load_explicit(&ns->epoch, memory_order_seq_cst);
        if (u->t) {
            /* pending reaches this value when max_outstanding children remain */
            atomic_store_explicit(&u->t->tw_target,
                                  LC_BIAS - u->t->nspawned + u->max_outstanding,
                                  memory_order_seq_cst);
        }
        if (cond)
            atomic_fetch_add_explicit(&rt->ntw_sleepers, 1, memory_order_seq_cst);
        atomic_fetch_add_explicit(&ns->nsleepers, 1, memory_order_seq_cst);
        atomic_fetch_add_explicit(&rt->nsleep_total, 1, memory_order_seq_cst);
        lc_sleep_fence(rt);   /* the sleeper's half of the handshake (top) */
        /* the last look takes even a lone task (lc_may_steal): with
         * LOCUS_SPIN below LC_LONE_STEAL_POLLS a worker would otherwise
         * sleep past a lone task whose owner is blocked, and no push would
         * come to wake it */
        if (w->idle_polls < LC_LONE_STEAL_POLLS)
            w->idle_polls = LC_LONE_STEAL_POLLS;
        /* oversubscribed, the polls before sleeping may be fewer than NAFT's
         * LOCUS_STEAL_SPIN (spin.h): the last look is at the other nodes too */
        if (rt->oversubscribed && rt->opt.spin_adapt && w->idle_polls < rt->opt.steal_spin)
            w->idle_polls = rt->opt.steal_spin;
        x = NULL;
        if (!wait_over(rt, u) && !(x = sched->pop(w))
            && !atomic_load_explicit(&lc_ext_head, memory_order_seq_cst)
            && !atomic_load_explicit(&lc_inject_head, memory_order_seq_cst)) {
            lc_stat_add(&w->stats.sleeps, 1);
            if (__builtin_expect(idle, 0))
                lc_trace_mark(w, LC_EV_SLEEP, 0);
            /* while polling services exist, one sleeper wakes every
             * LOCUS_POLL_US to call them (poll.c) */
            if (lc_poll_sleeper_claim()) {
                futex_wait_ns(&ns->epoch, e, rt->opt.poll_us * 1000ull);
                lc_poll_sleeper_done();
                resleep = atomic_load_explicit(&ns->epoch, memory_order_relaxed) == e;
            } else {
                futex_wait(&ns->epoch, e);
            }
            if (__builtin_expect(idle, 0))
                lc_trace_mark(w, LC_EV_WAKE, 0);
        }
        atomic_fetch_sub_explicit(&rt->nsleep_total, 1, memory_order_seq_cst);
        atomic_fetch_sub_explicit(&ns->nsleepers, 1, memory_order_seq_cst);
        if (atomic_load_explicit(&ns->waking, memory_order_relaxed))
            atomic_store_explicit(&ns->waking, 0, memory_order_relaxed);
        if (cond)
            atomic_fetch_sub_explicit(&rt->ntw_sleepers, 1, memory_order_seq_cst);
        if (u->t)
            atomic_store_explicit(&u->t->tw_target, 0, memory_order_relaxed);
        if (__builtin_expect(idle, 0)) {
            lc_trace_mark(w, LC_EV_IDLE_END, 0);
            idle = 0;
        }
        if (x)
            lc_execute(w, x);
        spins = 0;
    }
    if (__builtin_expect(idle, 0))
        lc_trace_mark(w, LC_EV_IDLE_END, 0);
}

void lc_worker_loop(struct lc_worker *w)
{
    const struct lc_until u = { NULL, 0, NULL, 0 };
    run_until(w, &u);
}

void lc_wait_children(struct lc_worker *w, struct lc_task *t, int64_t max_outstanding)
{
    const struct lc_until u = { t, max_outstanding, NULL, 0 };
    run_until(w, &u);
    /* thieves may have emptied w's deque while it waited: a stale size
     * estimate would make the next spawns run inline (lc_backlog_own) with
     * nothing queued behind them */
    lc_deque_refresh_owner(&w->dq);
}

void lc_wait_word(struct lc_worker *w, _Atomic uint32_t *word, uint32_t old)
{
    const struct lc_until u = { NULL, 0, word, old };
    run_until(w, &u);
}

void lc_wake_waiters(struct lc_runtime *rt)
{
    /* the caller changed a word with a seq_cst read-modify-write: the
     * waker's half of the handshake (a waiter counts itself, then looks) */
    if (atomic_load_explicit(&rt->ntw_sleepers, memory_order_seq_cst) > 0)
        lc_wake_all(rt);
}
