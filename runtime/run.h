/*
 * run.h - the one way a ready task runs (lc_run) and the entry of the one
 * completion routine (lc_complete), inline here because they run once per
 * task on every path: a spawn that runs a task at once pays no call for
 * them.  run.c has the rest of the completion (lc_complete_chain: the
 * successors, the parent, the chain of ancestors) and says how it all
 * fits together.
 */
#ifndef LC_RUN_H
#define LC_RUN_H

#include "events.h"
#include "runtime.h"
#include "sim.h"
#include "taskpool.h"
#include "team.h"

/* run.c: the completion of a counted task and of the ancestors it was the
 * last incomplete child of, its released successors decided (ready.h). */
/* may_run_next: LC_COMPLETE_BUSY (0: w runs something else next),
 * LC_COMPLETE_NEXT (1: w may run a released task next), LC_COMPLETE_EVENT
 * (the fulfilment of t's last event completes it: ready.h, LC_READY_EVENT). */
enum { LC_COMPLETE_BUSY = 0, LC_COMPLETE_NEXT = 1, LC_COMPLETE_EVENT = 2 };
struct lc_task *lc_complete_chain(struct lc_worker *w, struct lc_task *t, int may_run_next);
/* run.c: lc_call_body between the task's begin and end events. */
void lc_call_body_traced(struct lc_worker *w, struct lc_task *t);

/*
 * The one completion routine: t's body and children are done (and its
 * events fulfilled); completes it, then every ancestor it was the last
 * incomplete child of, and decides each successor released on the way
 * (ready.h); returns one for the caller to run next when may_run_next,
 * else NULL.  Any worker may call it for any task (events.c: a task whose
 * last event was fulfilled elsewhere).
 */
static inline struct lc_task *lc_complete(struct lc_worker *w, struct lc_task *t, int may_run_next)
{
    return lc_complete_chain(w, t, may_run_next);
}

/* The completion of a task run at its spawn that left nothing behind
 * (LC_TB_UNCOUNTED, lc_run): it is in no map, has nobody linked behind it
 * and is not among its parent's children, so it needs none of the
 * completion's atomics, and its descriptor goes straight back to the pool.
 * (What lc_complete_chain does for such a task, without what it skips.) */
static inline __attribute__((always_inline))
void lc_complete_uncounted(struct lc_worker *w, struct lc_task *t)
{
    if (t->flags & LC_TF_HEAPARG)
        lc_mem_free(t->arg, 0);
    if (t->tg)
        lc_taskgroup_done(w->rt, t->tg);
    lc_task_release(&w->pool, w->npool, t);
}

/* Runs t's body on w, with its locality accounting around it. */
static inline __attribute__((always_inline))
void lc_call_body(struct lc_worker *w, struct lc_task *t)
{
    /* the ICVs of the task this thread ran before (runtime.h): t starts
     * with none, and that task gets its own back */
    struct lc_icvs icvs = lc_task_icvs;
    lc_task_icvs = (struct lc_icvs){ 0 };
    if (__builtin_expect(lc_sim != NULL, 0)) {   /* simulated (sim.h) */
        lc_sim_call_body(w, t);
    } else {
        struct lc_task *saved = w->cur;
        if (t->loc)
            lc_locality_run(w, t);
        w->cur = t;
        lc_run_task(w, t);
        if (t->loc)   /* kept for after the body: DI first touch (locality.c) */
            lc_locality_ran(w, t);
        w->cur = saved;
    }
    lc_task_icvs = icvs;
}

/* t's body has returned on w: 1 when t completes now; 0 when its last
 * event or child will complete it (lc_complete, from wherever that is). */
static inline __attribute__((always_inline))
int lc_body_end(struct lc_task *t)
{
    /* events outstanding: the last fulfilment drops the share (events.h) */
    if (!lc_events_body_end(t))
        return 0;
    /* the body's share of pending goes; what is left counts children */
    int64_t share = LC_BIAS - t->nspawned;
    return atomic_fetch_sub_explicit(&t->pending, share, memory_order_acq_rel) == share;
}

/* The one way a ready task runs: its body on w, then the completion
 * routine for it and whatever completes with it; with ctx LC_RUN_TAKEN a
 * successor released on the way runs next here, and so on. */
static inline __attribute__((always_inline))
void lc_run(struct lc_worker *w, struct lc_task *t, enum lc_run_ctx ctx)
{
    int at_spawn = w->at_spawn;
    if (ctx == LC_RUN_SPAWN)
        w->at_spawn = 1;
    w->nest++;
    do {
        if (lc_instr_on(w))
            lc_call_body_traced(w, t);
        else
            lc_call_body(w, t);
        lc_stat_add(&w->stats.tasks_run, 1);
        if (__builtin_expect(t->bflags & LC_TB_UNCOUNTED, ctx == LC_RUN_SPAWN)) {
            /* (no children: no map either, it is made at a child's spawn) */
            if (__builtin_expect(t->nspawned == 0 && !lc_events_held(t), 1)) {
                lc_complete_uncounted(w, t);
                break;
            }
            /* children running or events outstanding: it becomes an
             * ordinary child of its spawner (this thread, whose task
             * w->cur is its parent), counted before anyone could complete
             * it, and completes as one */
            t->bflags &= (uint8_t)~LC_TB_UNCOUNTED;
            t->parent->nspawned++;
        }
        if (!lc_body_end(t))
            break;
        t = lc_complete(w, t, ctx == LC_RUN_TAKEN);
        /* a chain of successors is "between tasks" too: services stay polled */
        if (t && __builtin_expect(lc_async_due(), 0))
            lc_async_run(w, 0);
    } while (t);
    w->nest--;
    w->at_spawn = at_spawn;
}

#endif /* LC_RUN_H */
