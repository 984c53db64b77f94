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
 * (tw_target); the completion that reaches it wakes everyone (run.c: its
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
#include <stdio.h>

#include "events.h"
#include "run.h"
#include "futex.h"
#include "runtime.h"
#include "policy.h"
#include "ready.h"
#include "spin.h"
#include "thread.h"

static void wake_node(struct lc_node_sync *ns, int n)
{
    /* the first wake-up of a batch is timed (lc_wake_latency_ns): a clock
     * read beside a system call */
    if (!atomic_load_explicit(&ns->waking, memory_order_relaxed))
        atomic_store_explicit(&ns->wake_ns, lc_now_ns(), memory_order_relaxed);
    atomic_store_explicit(&ns->waking, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&ns->epoch, 1, memory_order_seq_cst);
    futex_wake(&ns->epoch, n);
}

void lc_wake_node_all(struct lc_runtime *rt, int node)
{
    wake_node(&rt->nsync[node], INT_MAX);
    if (rt->team_mode) {   /* a worker waiting for a team job (team.c) */
        atomic_fetch_add_explicit(&rt->job_epoch, 0, memory_order_seq_cst);
        futex_wake(&rt->job_epoch, INT_MAX);
    }
}

void lc_wake_workers(struct lc_runtime *rt)
{
    for (int i = 0; i < rt->topo.nnodes; i++)
        wake_node(&rt->nsync[i], INT_MAX);
}

void lc_wake_all(struct lc_runtime *rt)
{
    lc_wake_workers(rt);
    /* threads away from their workers, waiting for a condition
     * (wait_away): they count themselves here before in ntw_sleepers, which
     * the caller read after changing the condition */
    if (atomic_load_explicit(&rt->ncond_parked, memory_order_seq_cst) > 0) {
        atomic_fetch_add_explicit(&rt->cond_epoch, 1, memory_order_seq_cst);
        futex_wake(&rt->cond_epoch, INT_MAX);
    }
}

/* The first sleeper back after a wake-up: how long it took, into the
 * node's mean (1/8 weight; racing sleepers may lose a sample). */
static void note_wake_latency(struct lc_node_sync *ns)
{
    uint64_t sent = atomic_load_explicit(&ns->wake_ns, memory_order_relaxed), now = lc_now_ns();
    if (!sent || now <= sent)
        return;
    uint64_t lat = now - sent, mean = atomic_load_explicit(&ns->wake_lat, memory_order_relaxed);
    mean = mean ? mean - mean / 8 + lat / 8 : lat;
    atomic_store_explicit(&ns->wake_lat, mean ? mean : 1, memory_order_relaxed);
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
    if (__builtin_expect(lc_sim != NULL, 0)) {   /* the same pauses, in simulated time */
        lc_sim->poll(spins < LC_BACKOFF_MAX ? spins : LC_BACKOFF_MAX);
        return;
    }
    if (lc_spin_yields(rt, word)) {
        /* more workers than CPUs: the worker with the work may be waiting
         * for this CPU, so give it up at every poll */
        lc_yield();
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

/* How long the throttle waits with nothing to run for one of the
 * spawner's children to complete before it lets the spawn through, and
 * the first delay before locus_finalize says what it waits for (then
 * doubled each time). */
#define LC_THROTTLE_STALL_NS 100000000ull   /* 100 ms */
#define LC_THROTTLE_NAP_NS 1000000ull       /* its sleeps, between two looks */
#define LC_FINAL_NOTE_NS 5000000000ull      /* 5 s */

/* What a waiting thread waits for: the runtime to stop (nothing set: an
 * idle worker), t to have at most max_outstanding incomplete children, or
 * a word to differ from old (team.c: barriers and taskgroups; events.c: a
 * blocked task's state).  mode: how it may end otherwise (LC_UNTIL_*). */
enum { LC_UNTIL_PLAIN, LC_UNTIL_THROTTLE, LC_UNTIL_FINAL };
struct lc_until {
    struct lc_task *t;
    int64_t max_outstanding;
    _Atomic uint32_t *word;
    uint32_t old;
    _Atomic uint64_t *word64;
    uint64_t old64;
    int mode;
    int outer;    /* the thread's outermost loop all the same (lc_wait_job) */
};

static inline int64_t children_done(const struct lc_task *t)
{
    return LC_BIAS - atomic_load_explicit(&t->pending, memory_order_seq_cst);
}

static inline int wait_over(struct lc_runtime *rt, const struct lc_until *u)
{
    if (u->word)
        return atomic_load_explicit(u->word, memory_order_seq_cst) != u->old;
    if (u->word64)
        return atomic_load_explicit(u->word64, memory_order_seq_cst) != u->old64;
    if (!u->t)
        return atomic_load_explicit(&rt->stop, memory_order_seq_cst);
    return u->t->nspawned - children_done(u->t) <= u->max_outstanding;
}

/* The state of a throttle's or a final wait while it has nothing to run. */
struct lc_stall {
    int64_t done;           /* children complete at the last look */
    uint64_t since_ns;      /* when that count last moved */
    uint64_t note_ns;       /* final: when to say what it waits for next */
    uint64_t delay_ns;      /* final: the delay after that */
};

/*
 * A wait with nothing to run, about to sleep: 1 when it should end instead
 * (a throttle that must let the spawn through), else 0 with *nap the
 * longest it may sleep (0: until woken).
 *  - The throttle lets the spawn through when none of the spawner's
 *    remaining children can complete without it: every other worker is
 *    asleep (nothing is running anywhere), or none of them completed for
 *    LC_THROTTLE_STALL_NS (something runs, but not towards them).  It
 *    remembers where it did (w->throttle), and does not hold the spawner
 *    again until one of them has completed.  locus(7), LOCUS_THROTTLE.
 *  - locus_finalize says on stderr what it waits for, once it has waited
 *    LC_FINAL_NOTE_NS and then after each doubled delay, when tasks wait
 *    for events nobody has fulfilled yet or are blocked: a program that
 *    forgot one would otherwise hang without a word.
 */
/* The throttle's half of that: whether it lets the spawn through, with
 * `asleep` other workers asleep meaning nothing runs (st->done and
 * st->since_ns follow the spawner's completed children). */
static int throttle_gives_way(struct lc_runtime *rt, const struct lc_until *u,
                              struct lc_stall *st, uint64_t now, int asleep)
{
    int64_t done = children_done(u->t);
    if (done != st->done) {
        st->done = done;
        st->since_ns = now;
    }
    return lc_sleepers(rt, -1) >= asleep || now - st->since_ns >= LC_THROTTLE_STALL_NS;
}

static int stalled(struct lc_worker *w, const struct lc_until *u, struct lc_stall *st,
                   uint64_t *nap)
{
    struct lc_runtime *rt = w->rt;
    uint64_t now = lc_now_ns();
    *nap = 0;
    if (u->mode == LC_UNTIL_THROTTLE) {
        if (throttle_gives_way(rt, u, st, now, rt->nworkers - 1)) {
            w->throttle.task = u->t;
            w->throttle.done = st->done;
            return 1;
        }
        *nap = LC_THROTTLE_NAP_NS;
        return 0;
    }
    if (u->mode == LC_UNTIL_FINAL) {
        if (now >= st->note_ns) {
            long ev = atomic_load_explicit(&lc_events_waiting, memory_order_relaxed);
            long bl = atomic_load_explicit(&lc_tasks_blocked, memory_order_relaxed);
            if (ev > 0 || bl > 0) {
                long long left = u->t ? (long long)(u->t->nspawned - children_done(u->t)) : 0;
                fprintf(stderr, "locus: locus_finalize has waited %.0f s for the program's "
                        "tasks%s%lld%s: %ld wait%s for events not fulfilled yet "
                        "(locus_task_events_decrease, omp_fulfill_event, "
                        "alpi_task_events_decrease), %ld %s blocked (locus_task_unblock, "
                        "alpi_task_unblock)\n",
                        (double)(now - st->since_ns) / 1e9, u->t ? " (" : "",
                        left, u->t ? " incomplete)" : "", ev, ev == 1 ? "s" : "", bl,
                        bl == 1 ? "is" : "are");
            }
            st->note_ns = now + st->delay_ns;
            st->delay_ns *= 2;
        }
        *nap = st->note_ns - now;
    }
    return 0;
}

/*
 * Once tasks may block (rt->blocking, thread.h): the waiting thread gives w
 * to another thread and sleeps until the condition holds, then takes w
 * back, instead of running tasks above its own frame.  0 when no thread
 * can be had: the caller waits on its own stack.  It sleeps on
 * rt->cond_epoch with the handshake of the top (counted in ncond_parked,
 * then in ntw_sleepers, then a last look), and a throttle's wait ends as
 * run_until's does: when every worker sleeps or none of the spawner's
 * children has completed for LC_THROTTLE_STALL_NS.
 */
static int wait_away(struct lc_worker *w, const struct lc_until *u)
{
    struct lc_runtime *rt = w->rt;
    if (!lc_thr)
        return 0;   /* a thread the runtime does not know: it has no record to sleep on */
    struct lc_thread *to = lc_thread_reserve(w);
    if (!to)
        return 0;
    struct lc_stall st = { -1, lc_now_ns(), 0, 0 };
    int let_through = 0;
    lc_thread_leave(w, to);
    /* w is another thread's now: only rt, the condition and our record */
    while (!wait_over(rt, u)) {
        uint64_t nap = 0;
        if (u->mode == LC_UNTIL_THROTTLE) {
            /* every worker asleep: this thread serves none of them */
            if (throttle_gives_way(rt, u, &st, lc_now_ns(), rt->nworkers)) {
                let_through = 1;
                break;
            }
            nap = LC_THROTTLE_NAP_NS;
        }
        uint32_t e = atomic_load_explicit(&rt->cond_epoch, memory_order_seq_cst);
        if (u->t)
            atomic_store_explicit(&u->t->tw_target,
                                  lc_tw_key(LC_BIAS - u->t->nspawned + u->max_outstanding),
                                  memory_order_seq_cst);
        atomic_fetch_add_explicit(&rt->ncond_parked, 1, memory_order_seq_cst);
        atomic_fetch_add_explicit(&rt->ntw_sleepers, 1, memory_order_seq_cst);
        if (!wait_over(rt, u)) {
            if (nap)
                futex_wait_ns(&rt->cond_epoch, e, nap);
            else
                futex_wait(&rt->cond_epoch, e);
        }
        atomic_fetch_sub_explicit(&rt->ntw_sleepers, 1, memory_order_seq_cst);
        atomic_fetch_sub_explicit(&rt->ncond_parked, 1, memory_order_seq_cst);
        if (u->t)
            atomic_store_explicit(&u->t->tw_target, 0, memory_order_relaxed);
    }
    lc_thread_rejoin(w);
    if (let_through) {
        w->throttle.task = u->t;
        w->throttle.done = st.done;
    }
    return 1;
}

/*
 * Team mode, between jobs (lc_wait_job): whether x, taken after the next
 * job was posted, must wait for this thread to take that job.  It may be
 * one of the job's own tasks, spawned by a member already inside it, and
 * its body would see this thread's state outside any region (the layer's:
 * gomp/, omp_get_num_threads() 1) instead of its team's.  So it goes back
 * to the queue and the thread takes the job first.  Checking after the pop
 * is enough: the pop synchronises with the push, which came after the
 * post, so a task of the new job is never seen with the old epoch.
 */
static inline int job_comes_first(struct lc_worker *w, const struct lc_until *u,
                                  struct lc_task *x)
{
    if (__builtin_expect(!u->outer || !u->word, 1) || !wait_over(w->rt, u))
        return 0;
    lc_ready_do(w, x, LC_ACT_QUEUE);
    return 1;
}

/*
 * Runs tasks on w until wait_over(): pops, polls LOCUS_SPIN times, then
 * sleeps on the node's futex word (handshake at the top).  A thread waiting
 * for a condition (not for work) also counts itself in ntw_sleepers, so
 * that whoever makes the condition true wakes it (lc_wake_waiters); a
 * taskwait publishes the pending value it waits for as well, so only the
 * completion that reaches it wakes everyone (run.c).
 */
static int run_until(struct lc_worker *w, const struct lc_until *u)
{
    struct lc_runtime *rt = w->rt;
    const struct lc_sched_ops *sched = rt->sched;
    unsigned spins = 0;
    int cond = u->t || u->word || u->word64;
    int barrier = u->word != NULL;   /* a condition word: polls without yielding (spin.h) */
    int resleep = 0;   /* woke from a timed sleep with nothing new: sleep again at once */
    int idle = 0;      /* tracing: inside an idle event (instrument.h) */
    struct lc_stall st = { -1, 0, 0, LC_FINAL_NOTE_NS };
    if (u->mode != LC_UNTIL_PLAIN) {
        st.since_ns = lc_now_ns();
        st.note_ns = st.since_ns + LC_FINAL_NOTE_NS;
    }

    int plain = !cond || u->outer;   /* a thread's outermost loop: it may go idle (thread.h) */
    /* tasks may block: wait away from w, not under the tasks w runs
     * meanwhile (locus_finalize's waits excepted: nothing waits for what
     * follows them) */
    if (cond && !plain && u->mode != LC_UNTIL_FINAL
        && __builtin_expect(atomic_load_explicit(&rt->blocking, memory_order_relaxed), 0)
        && !wait_over(rt, u) && wait_away(w, u))
        return 0;
    while (!wait_over(rt, u)) {
        /* a thread waits to be given this worker back: a switch point */
        if (__builtin_expect(lc_thread_waiting(w), 0)) {
            if (__builtin_expect(idle, 0)) {
                lc_trace_mark(w, LC_EV_IDLE_END, 0);
                idle = 0;
            }
            if (lc_thread_switch(w, plain))
                return 1;   /* w is another thread's now */
            spins = 0;
            resleep = 0;
            continue;
        }
        int wake = LC_WAKE_NONE;
        struct lc_qitem it = sched->pop(w, &wake);
        lc_wake_for(w, wake);
        struct lc_task *x = it.p ? lc_item_open(w, &it) : NULL;
        if (x && job_comes_first(w, u, x))
            break;
        if (x) {
            w->idle_polls = 0;
            lc_spin_found(w, spins);
            if (__builtin_expect(idle, 0)) {
                lc_trace_mark(w, LC_EV_IDLE_END, 0);
                idle = 0;
            }
            lc_run(w, x, LC_RUN_TAKEN);
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
        if (lc_instr_on(w) && !idle) {
            lc_trace_mark(w, LC_EV_IDLE, 0);
            idle = 1;
        }
        if (!resleep && !lc_spin_give_up(w, ++spins, barrier)) {
            idle_poll(rt, spins, barrier);
            continue;
        }
        resleep = 0;
        uint64_t nap = 0;
        if (u->mode != LC_UNTIL_PLAIN && stalled(w, u, &st, &nap))
            break;
        struct lc_node_sync *ns = &rt->nsync[w->node];
        uint32_t e = atomic_load_explicit(&ns->epoch, memory_order_seq_cst);
        if (u->t) {
            /* pending reaches this value when max_outstanding children remain */
            atomic_store_explicit(&u->t->tw_target,
                                  lc_tw_key(LC_BIAS - u->t->nspawned + u->max_outstanding),
                                  memory_order_seq_cst);
        }
        if (cond)
            atomic_fetch_add_explicit(&rt->ntw_sleepers, 1, memory_order_seq_cst);
        atomic_fetch_add_explicit(&ns->nsleepers, 1, memory_order_seq_cst);
        atomic_fetch_add_explicit(&rt->nsleep_total, 1, memory_order_seq_cst);
        lc_sleep_fence(rt);   /* the sleeper's half of the handshake (top) */
        /* the last look takes what the policy's patience would leave
         * (sched/steal.h): with LOCUS_SPIN below it a worker would
         * otherwise sleep past a lone task whose owner is blocked, and no
         * push would come to wake it */
        w->last_look = 1;
        x = NULL;
        if (!wait_over(rt, u)) {
            wake = LC_WAKE_NONE;
            it = sched->pop(w, &wake);
            lc_wake_for(w, wake);
            x = it.p ? lc_item_open(w, &it) : NULL;
        }
        w->last_look = 0;
        if (x && job_comes_first(w, u, x))
            x = NULL;   /* and the wait is over: it ends below, after the sleeper's count */
        if (!x && !wait_over(rt, u) && !lc_thread_waiting(w)
            && !atomic_load_explicit(&lc_ext_head, memory_order_seq_cst)
            && !atomic_load_explicit(&lc_inject_head, memory_order_seq_cst)) {
            lc_stat_add(&w->stats.sleeps, 1);
            if (__builtin_expect(idle, 0))
                lc_trace_mark(w, LC_EV_SLEEP, 0);
            /* tasks w may take only once they waited: look again then
             * (after the last look, which the policy's answer follows) */
            uint64_t pnap = sched->idle_nap ? sched->idle_nap(w) : 0;
            if (pnap && (!nap || pnap < nap))
                nap = pnap;
            /* while polling services exist, one sleeper wakes every
             * LOCUS_POLL_US to call them (poll.c) */
            if (lc_poll_sleeper_claim()) {
                uint64_t t = rt->opt.poll_us * 1000ull;
                futex_wait_ns(&ns->epoch, e, nap && nap < t ? nap : t);
                lc_poll_sleeper_done();
                resleep = atomic_load_explicit(&ns->epoch, memory_order_relaxed) == e;
            } else if (nap) {
                futex_wait_ns(&ns->epoch, e, nap);
            } else {
                futex_wait(&ns->epoch, e);
            }
            if (__builtin_expect(idle, 0))
                lc_trace_mark(w, LC_EV_WAKE, 0);
        }
        atomic_fetch_sub_explicit(&rt->nsleep_total, 1, memory_order_seq_cst);
        atomic_fetch_sub_explicit(&ns->nsleepers, 1, memory_order_seq_cst);
        if (atomic_load_explicit(&ns->waking, memory_order_relaxed)) {
            atomic_store_explicit(&ns->waking, 0, memory_order_relaxed);
            note_wake_latency(ns);
        }
        if (cond)
            atomic_fetch_sub_explicit(&rt->ntw_sleepers, 1, memory_order_seq_cst);
        if (u->t)
            atomic_store_explicit(&u->t->tw_target, 0, memory_order_relaxed);
        if (__builtin_expect(idle, 0)) {
            lc_trace_mark(w, LC_EV_IDLE_END, 0);
            idle = 0;
        }
        if (x)
            lc_run(w, x, LC_RUN_TAKEN);
        spins = 0;
    }
    if (__builtin_expect(idle, 0))
        lc_trace_mark(w, LC_EV_IDLE_END, 0);
    return 0;
}

int lc_wait_job(struct lc_worker *w, uint32_t old)
{
    const struct lc_until u = { .word = &w->rt->job_epoch, .old = old, .outer = 1 };
    return run_until(w, &u);
}

void lc_worker_loop(struct lc_worker *w)
{
    const struct lc_until u = { .mode = LC_UNTIL_PLAIN };
    run_until(w, &u);
}

void lc_wait_children(struct lc_worker *w, struct lc_task *t, int64_t max_outstanding)
{
    const struct lc_until u = { .t = t, .max_outstanding = max_outstanding };
    run_until(w, &u);
    /* thieves may have emptied w's queues meanwhile: a stale estimate would
     * make the next spawns run at once with nothing queued behind them */
    if (w->rt->sched->waited)
        w->rt->sched->waited(w);
}

void lc_wait_children_final(struct lc_worker *w, struct lc_task *t)
{
    const struct lc_until u = { .t = t, .mode = LC_UNTIL_FINAL };
    run_until(w, &u);
}

void lc_throttle(struct lc_worker *w, struct lc_task *t)
{
    /* let through before, and none of its children completed since:
     * holding it again could only wait for what held nothing up */
    if (w->throttle.task == t && w->throttle.done == children_done(t))
        return;
    const struct lc_until u = { .t = t, .max_outstanding = w->rt->opt.throttle / 2,
                                .mode = LC_UNTIL_THROTTLE };
    run_until(w, &u);
}

void lc_wait_word(struct lc_worker *w, _Atomic uint32_t *word, uint32_t old)
{
    const struct lc_until u = { .word = word, .old = old };
    run_until(w, &u);
}

void lc_wait_word_final(struct lc_worker *w, _Atomic uint32_t *word, uint32_t old)
{
    const struct lc_until u = { .word = word, .old = old, .mode = LC_UNTIL_FINAL };
    run_until(w, &u);
}

void lc_wait_state(struct lc_worker *w, struct lc_task *t, uint64_t old)
{
    const struct lc_until u = { .word64 = &t->state, .old64 = old };
    run_until(w, &u);
}

void lc_wake_waiters(struct lc_runtime *rt)
{
    /* the caller changed a word with a seq_cst read-modify-write: the
     * waker's half of the handshake (a waiter counts itself, then looks) */
    if (atomic_load_explicit(&rt->ntw_sleepers, memory_order_seq_cst) > 0)
        lc_wake_all(rt);
}
