/*
 * exec.c - running a task and everything that follows its body: its
 * completion (once its children are complete too), the release of its
 * successors, the completion of ancestors it was the last child of, and
 * the recycling of its descriptor.
 */
#include <stdatomic.h>

#include "depmap.h"
#include "edge.h"
#include "events.h"
#include "mem.h"
#include "runtime.h"
#include "policy.h"
#include "ready.h"
#include "taskpool.h"
#include "team.h"

static inline void task_free(struct lc_worker *w, struct lc_task *t)
{
    if (t->more)
        lc_edge_chunks_free(w, t);
    lc_task_release(&w->pool, w->npool, t);
}

void lc_task_unmapped(struct lc_worker *w, struct lc_task *t)
{
    /* The second of {complete, unmapped} frees the descriptor.  Once
     * COMPLETE is set the completing thread never touches the task again,
     * so seeing it lets us free without the read-modify-write (and the
     * exclusive cache line it would need). */
    if (atomic_load_explicit(&t->state, memory_order_acquire) & LC_ST_COMPLETE
        || atomic_fetch_or_explicit(&t->state, LC_ST_UNMAPPED, memory_order_acq_rel) & LC_ST_COMPLETE)
        task_free(w, t);
}

/*
 * Completes t and then any ancestor t was the last incomplete child of.
 * Returns a released successor that w should run next, or NULL.
 */
static struct lc_task *complete_chain(struct lc_worker *w, struct lc_task *t)
{
    struct lc_runtime *rt = w->rt;
    const struct lc_sched_ops *sched = rt->sched;
    struct lc_task *next = NULL;

    for (;;) {
        struct lc_task *parent = t->parent;

        if (t->map) {
            lc_depmap_destroy(w, t->map);
            t->map = NULL;
        }
        if (t->flags & LC_TF_HEAPARG)
            lc_mem_free(t->arg, 0);

        /* acq_rel: successors must see everything t (and its children) wrote,
         * and we must see the edges their spawners published */
        struct lc_edge *e = atomic_exchange_explicit(&t->succ, LC_SUCC_CLOSED, memory_order_acq_rel);
        while (e) {
            struct lc_edge *en = e->next;   /* e lives in s: read before s may run */
            struct lc_task *s = e->succ;
            if (atomic_fetch_sub_explicit(&s->npreds, 1, memory_order_acq_rel) == 1) {
                if (__builtin_expect(w->trace != NULL, 0))
                    lc_trace_ready(w, s, t);
                if (!next)
                    next = lc_task_ready(w, s, LC_READY_RELEASED);
                else
                    lc_task_ready(w, s, LC_READY_RELEASED_BUSY);
            }
            e = en;
        }
        if (sched->task_done)
            sched->task_done(w, t);
        if (t->tg)
            lc_taskgroup_done(rt, t->tg);   /* after this, the group may be gone */

        /* The mirror of lc_task_unmapped: once UNMAPPED is set the map side
         * never touches t again, so a task in no map (every task without
         * dependencies) is freed without a read-modify-write. */
        if (atomic_load_explicit(&t->state, memory_order_acquire) & LC_ST_UNMAPPED
            || atomic_fetch_or_explicit(&t->state, LC_ST_COMPLETE, memory_order_acq_rel) & LC_ST_UNMAPPED)
            task_free(w, t);
        if (!parent)
            break;
        /* seq_cst: pairs with a sleeping taskwait's announcement (wait.c) */
        int64_t v = atomic_fetch_sub_explicit(&parent->pending, 1, memory_order_seq_cst) - 1;
        if (v == 0) {
            t = parent;         /* its body had ended: it completes now */
            continue;
        }
        if (atomic_load_explicit(&rt->ntw_sleepers, memory_order_seq_cst) > 0
            && v == atomic_load_explicit(&parent->tw_target, memory_order_relaxed))
            lc_wake_all(rt);
        break;
    }
    /* a successor released after next may outrank it, or a task queued
     * meanwhile: then next waits its turn (sched/prio.h) */
    if (__builtin_expect(lc_prio_on(rt), 0) && next && lc_prio_outranked(w, next->prio)) {
        lc_ready_do(w, next, LC_ACT_QUEUE);
        next = NULL;
    }
    return next;
}

void lc_task_complete(struct lc_worker *w, struct lc_task *t)
{
    struct lc_task *next = complete_chain(w, t);
    if (next)
        lc_execute(w, next);
}

void lc_task_complete_busy(struct lc_worker *w, struct lc_task *t)
{
    struct lc_task *next = complete_chain(w, t);
    if (next)
        lc_task_ready(w, next, LC_READY_RELEASED_BUSY);
}

/* Runs t's body on w, with its locality accounting around it. */
static inline void call_body(struct lc_worker *w, struct lc_task *t)
{
    struct lc_task *saved = w->cur;
    if (t->loc)
        lc_locality_run(w, t);
    w->cur = t;
    lc_run_task(w, t);
    if (t->loc)   /* kept for after the body: DI first touch (locality.c) */
        lc_locality_ran(w, t);
    w->cur = saved;
}

/* call_body between a task's begin and end events (trace/trace.h): out of
 * line, so that without tracing run_body pays only the test of w->trace */
static __attribute__((noinline, cold)) void call_body_traced(struct lc_worker *w,
                                                             struct lc_task *t)
{
    lc_trace_begin(w, t);
    call_body(w, t);
    lc_trace_end(w, t);
}

/* Runs t's body on w and drops the body's share of pending; 1 when t is
 * then complete. */
static inline int run_body(struct lc_worker *w, struct lc_task *t)
{
    if (__builtin_expect(w->trace != NULL, 0))
        call_body_traced(w, t);
    else
        call_body(w, t);
    lc_stat_add(&w->stats.tasks_run, 1);

    /* events outstanding: the last fulfilment drops the share (events.h) */
    if (!lc_events_body_end(t))
        return 0;
    /* the body's share of pending goes; what is left counts children */
    int64_t share = LC_BIAS - t->nspawned;
    return atomic_fetch_sub_explicit(&t->pending, share, memory_order_acq_rel) == share;
}

void lc_execute(struct lc_worker *w, struct lc_task *t)
{
    while (t) {
        if (!run_body(w, t))
            return;
        t = complete_chain(w, t);
        /* a chain of successors is "between tasks" too: services stay polled */
        if (__builtin_expect(lc_async_due(), 0))
            lc_async_run(w, 0);
    }
}

/*
 * The spawner runs a short task itself (grain.h) but stays the spawner:
 * the successor a completion would run next is queued instead, and tasks
 * spawned meanwhile (by t, or by tasks a taskwait in t runs) go to the
 * scheduler, so that a long task taken for short keeps only itself here.
 */
void lc_run_at_spawn(struct lc_worker *w, struct lc_task *t)
{
    int at_spawn = w->at_spawn;
    w->at_spawn = 1;
    if (run_body(w, t)) {
        struct lc_task *next = complete_chain(w, t);
        if (next)
            lc_task_ready(w, next, LC_READY_RELEASED_BUSY);
    }
    w->at_spawn = at_spawn;
}
