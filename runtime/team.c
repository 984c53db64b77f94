/*
 * team.c - fork-join on top of the task runtime, for the libgomp layer:
 * team jobs (one function run by every worker at once), implicit tasks,
 * barriers that run tasks while they wait, and task groups.
 *
 * In team mode every task belongs to a team whose members are all the
 * workers, so idle workers wait for the next job on one futex word
 * (job_epoch) instead of polling task queues: between parallel regions
 * there are no tasks to find, and a region starts with one wake-up.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "depmap.h"
#include "events.h"
#include "futex.h"
#include "runtime.h"
#include "spin.h"
#include "taskpool.h"
#include "team.h"
#include "thread.h"

static void implicit_init(struct lc_task *t)
{
    lc_task_clear(t, LC_ST_UNMAPPED);
    t->flags = LC_TF_ROOT;
    t->node = -1;
    atomic_store_explicit(&t->pending, LC_BIAS, memory_order_relaxed);
}

int lc_implicit_begin(struct lc_worker *w, struct lc_task **saved)
{
    struct lc_task *t = lc_task_alloc(&w->pool, w->npool);
    if (!t)
        return -ENOMEM;
    implicit_init(t);
    *saved = w->cur;
    w->cur = t;
    return 0;
}

void lc_implicit_end(struct lc_worker *w, struct lc_task *saved)
{
    struct lc_task *t = w->cur;
    lc_wait_children(w, t, 0);
    if (t->map)
        lc_depmap_destroy(w, t->map);
    w->cur = saved;
    lc_task_release(&w->pool, w->npool, t);
}

/* Whether tasks may be queued outside a region, or run on a thread that
 * serves in place of a member: tasks without a parent (ALPI's: TAMPI's
 * polling tasks) and what they spawn, polling services, completions left
 * by foreign threads, and once tasks may block (rt->blocking: a member
 * waiting in a region gives its worker to a thread that runs the region's
 * tasks meanwhile, wait.c).  Then the loop waits for a job as a worker
 * waits for tasks, running them (lc_wait_job). */
static int tasks_outside_jobs(struct lc_runtime *rt)
{
    return atomic_load_explicit(&rt->blocking, memory_order_relaxed)
           || atomic_load_explicit(&lc_indep_live, memory_order_relaxed) > 0
           || lc_async_due();
}

/*
 * The loop of whichever thread serves w in team mode (thread.h: a thread
 * that serves in place of one whose task blocked takes the jobs too, so
 * the job last taken is w's, not the thread's).  It leaves the loop when it
 * gives w to a thread waiting for it, or when the runtime stops.
 */
void lc_team_loop(struct lc_worker *w)
{
    struct lc_runtime *rt = w->rt;
    unsigned max_spins = lc_spin_word_polls(rt);

    for (;;) {
        uint32_t e;
        unsigned spins = 0;
        while ((e = atomic_load_explicit(&rt->job_epoch, memory_order_acquire)) == w->job_seen) {
            if (__builtin_expect(lc_thread_waiting(w), 0) && lc_thread_switch(w, 1))
                return;   /* w is another thread's now */
            if (__builtin_expect(tasks_outside_jobs(rt), 0)) {
                if (lc_wait_job(w, w->job_seen))
                    return;
                continue;
            }
            if (++spins < max_spins) {
                cpu_relax();
                continue;
            }
            /* announce, look again, sleep: the poster bumps the epoch, then
             * reads job_sleepers (both seq_cst).  While tasks may come
             * outside jobs, wake now and then (every 1 ms) to look: they
             * may have appeared while this thread slept. */
            atomic_fetch_add_explicit(&rt->job_sleepers, 1, memory_order_seq_cst);
            if (atomic_load_explicit(&rt->job_epoch, memory_order_seq_cst) == w->job_seen
                && !lc_thread_waiting(w)) {
                lc_stat_add(&w->stats.sleeps, 1);
                if (atomic_load_explicit(&rt->nsuspended, memory_order_relaxed))
                    futex_wait_ns(&rt->job_epoch, w->job_seen, 1000000);
                else
                    futex_wait(&rt->job_epoch, w->job_seen);
            }
            atomic_fetch_sub_explicit(&rt->job_sleepers, 1, memory_order_seq_cst);
            spins = 0;
        }
        if (atomic_load_explicit(&rt->stop, memory_order_acquire))
            break;
        w->job_seen = e;
        struct lc_task *saved = w->cur;
        w->cur = rt->job_implicit[w->id];
        w->job_ctx = lc_thread_ctx.get ? lc_thread_ctx.get() : NULL;
        rt->job_fn(rt->job_arg);
        w = lc_self;   /* the same worker: a thread resumes where it blocked */
        w->job_ctx = NULL;
        lc_implicit_end(w, saved);
        /* the last one out wakes a sleeping poster: the decrement and the
         * poster's announcement are both seq_cst (as in post()) */
        if (atomic_fetch_sub_explicit(&rt->job_running, 1, memory_order_seq_cst) == 1
            && atomic_load_explicit(&rt->join_sleeping, memory_order_seq_cst))
            futex_wake(&rt->job_running, 1);
    }
}

static void post(struct lc_runtime *rt)
{
    atomic_fetch_add_explicit(&rt->job_epoch, 1, memory_order_seq_cst);
    if (atomic_load_explicit(&rt->job_sleepers, memory_order_seq_cst) > 0)
        futex_wake(&rt->job_epoch, INT_MAX);
    lc_wake_waiters(rt);   /* threads in lc_wait_job sleep as workers do */
}

void lc_team_stop(struct lc_runtime *rt)
{
    if (rt->team_mode)
        post(rt);   /* stop is already set: members see it with the new epoch */
}

int lc_team_start(void (*fn)(void *), void *arg, struct lc_task **saved)
{
    struct lc_worker *w = lc_self;
    struct lc_runtime *rt = lc_rt;
    int n = rt->nworkers;

    if (!rt->job_implicit
        && !(rt->job_implicit = calloc((size_t)n, sizeof *rt->job_implicit)))
        return -ENOMEM;
    for (int i = 1; i < n; i++) {
        struct lc_task *t = lc_task_alloc(&w->pool, w->npool);
        if (!t) {
            while (--i >= 1)
                lc_task_release(&w->pool, w->npool, rt->job_implicit[i]);
            return -ENOMEM;
        }
        implicit_init(t);
        rt->job_implicit[i] = t;
    }
    if (lc_implicit_begin(w, saved) < 0) {
        for (int i = 1; i < n; i++)
            lc_task_release(&w->pool, w->npool, rt->job_implicit[i]);
        return -ENOMEM;
    }
    rt->job_fn = fn;
    rt->job_arg = arg;
    w->job_ctx = lc_thread_ctx.get ? lc_thread_ctx.get() : NULL;   /* the master's (thread.h) */
    atomic_store_explicit(&rt->job_running, (uint32_t)(n - 1), memory_order_relaxed);
    post(rt);   /* seq_cst: publishes the job before the epoch members wait on */
    return 0;
}

void lc_team_join(struct lc_task *saved)
{
    struct lc_worker *w = lc_self;
    struct lc_runtime *rt = w->rt;
    w->job_ctx = NULL;
    lc_implicit_end(w, saved);
    /* members only leave after fn, whose last act is the team's barrier:
     * poll a while, then sleep until the last one wakes this thread */
    unsigned spins = 0, max_spins = lc_spin_word_polls(rt);
    while (atomic_load_explicit(&rt->job_running, memory_order_acquire) > 0) {
        if (++spins < max_spins) {
            cpu_relax();
            continue;
        }
        atomic_store_explicit(&rt->join_sleeping, 1, memory_order_seq_cst);
        uint32_t left;
        while ((left = atomic_load_explicit(&rt->job_running, memory_order_seq_cst)) > 0)
            futex_wait(&rt->job_running, left);
        atomic_store_explicit(&rt->join_sleeping, 0, memory_order_relaxed);
    }
}

void lc_barrier_init(struct lc_barrier *b, uint32_t n)
{
    atomic_store_explicit(&b->arrived, 0, memory_order_relaxed);
    atomic_store_explicit(&b->gen, 0, memory_order_relaxed);
    b->n = n;
}

void lc_barrier_wait(struct lc_worker *w, struct lc_barrier *b)
{
    /* my children first: once all members are past this, no member has an
     * incomplete child, and children complete only after their own */
    lc_wait_children(w, w->cur, 0);
    uint32_t g = atomic_load_explicit(&b->gen, memory_order_acquire);
    if (atomic_fetch_add_explicit(&b->arrived, 1, memory_order_acq_rel) + 1 == b->n) {
        atomic_store_explicit(&b->arrived, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&b->gen, 1, memory_order_seq_cst);
        lc_wake_waiters(w->rt);
        return;
    }
    lc_wait_word(w, &b->gen, g);
}

void lc_taskgroup_begin(struct lc_worker *w, struct lc_taskgroup *g)
{
    /* the owner's reference keeps pending above 0 until end begins */
    atomic_store_explicit(&g->pending, 1, memory_order_relaxed);
    atomic_store_explicit(&g->done, 0, memory_order_relaxed);
    atomic_store_explicit(&g->cancelled, 0, memory_order_relaxed);
    g->follows_outer = 0;
    g->discard = NULL;
    lc_task_groups_init(w->cur);
    g->outer = w->cur->tg_open;
    w->cur->tg_open = g;
}

_Atomic int lc_groups_cancelled;

void lc_taskgroup_cancel(struct lc_taskgroup *g)
{
    atomic_store_explicit(&lc_groups_cancelled, 1, memory_order_relaxed);
    atomic_store_explicit(&g->cancelled, 1, memory_order_release);
}

void lc_taskgroup_done(struct lc_runtime *rt, struct lc_taskgroup *g)
{
    if (atomic_fetch_sub_explicit(&g->pending, 1, memory_order_acq_rel) == 1) {
        atomic_fetch_add_explicit(&g->done, 1, memory_order_seq_cst);
        lc_wake_waiters(rt);
    }
}

void lc_taskgroup_end(struct lc_worker *w, struct lc_taskgroup *g)
{
    w->cur->tg_open = g->outer;
    if (atomic_fetch_sub_explicit(&g->pending, 1, memory_order_acq_rel) != 1)
        lc_wait_word(w, &g->done, 0);
}
