/*
 * ready.h - the one place that decides what happens to a task once it is
 * ready (nothing left to wait for): queue it on the scheduler, run it now
 * on the worker that made it ready, or hand it back to the caller to run
 * next.  Every path that makes a task ready comes here: a spawn with no
 * dependencies or whose dependencies are all complete (spawn.c), a
 * completion that releases successors (exec.c), and a spawn that ran out
 * of memory registering its dependencies (spawn.c, serialised).
 *
 * What a ready task is does not depend on the path: by the time it gets
 * here it has its descriptor, its own copy of the argument (arg_size > 0),
 * its parent's innermost open task group and a count among its parent's
 * children (spawn.c builds all of that before asking; the one exception,
 * a dependency-free task run inline, completes inside its own spawn, so
 * nothing but its spawner could wait for it).  Queued, run at spawn, run
 * for a backlog or serialised after an allocation failure, it then runs
 * the same way and completes the same way: its group counted down, its
 * argument copy freed, its successors released through here again.  The
 * only task that is ready without a descriptor is a light task (no
 * dependencies, no argument copy, no open group: see lc_push_light in
 * sched/steal.h), and it is only ever queued.  doc/scheduler.md has the
 * design.
 */
#ifndef LC_READY_H
#define LC_READY_H

#include "depmap.h"
#include "events.h"
#include "mem.h"
#include "policy.h"
#include "prio.h"
#include "runtime.h"
#include "taskpool.h"
#include "team.h"

/* How a task became ready. */
enum lc_ready_how {
    LC_READY_SPAWNED,       /* w is spawning it and its dependencies are all complete */
    LC_READY_SPAWNED_FREE,  /* w is spawning it and it has no dependencies at all */
    LC_READY_RELEASED,      /* a completion on w released it; w may run it next */
    LC_READY_RELEASED_BUSY, /* released on w, which runs something else next */
    LC_READY_SERIAL,        /* its spawn ran out of memory: it must run on w now */
};

/* What happens to it. */
enum lc_ready_act {
    LC_ACT_QUEUE,           /* the policy's push */
    LC_ACT_HAND_OFF,        /* the policy's push, marked for an idle worker to take
                               at once (LC_TF_HANDOFF: sched/steal.h) */
    LC_ACT_RUN_NOW,         /* lc_execute on w, with what it releases */
    LC_ACT_RUN_AT_SPAWN,    /* lc_run_at_spawn on w: its body only (grain.h) */
    LC_ACT_RUN_INLINE,      /* lc_run_inline on w: complete before its spawn returns */
    LC_ACT_RUN_NEXT,        /* returned to the completing caller to run next */
};

/*
 * The decision, for a task of priority prio bound for node (-1: any) that
 * became ready by how.  A spawned task runs at once when bodies are shorter than a
 * hand-over to another core (grain.h: its body only; a dependency-free
 * one is queued still while w keeps fewer than a few tasks queued for idle
 * workers, sched/steal.h) or when w has a long queue already
 * (lc_backlog_own: deferring more only costs a push and a pop); never when
 * the policy placed it on another node.  Asking grain.h
 * has a side effect (its clock), so a spawn decides once and keeps the
 * answer.  Nor while a task of higher priority waits on w's node
 * (sched/prio.h): it would start first.  (A released task run next is
 * checked by exec.c, once every successor is released.)
 */
static inline __attribute__((always_inline))
enum lc_ready_act lc_ready_decide(struct lc_worker *w, int node, unsigned prio,
                                  enum lc_ready_how how)
{
    const struct lc_sched_ops *sched = w->rt->sched;
    if (__builtin_expect(lc_prio_on(w->rt), 0) && how != LC_READY_SERIAL
        && how != LC_READY_RELEASED && lc_prio_outranked(w, prio))
        return LC_ACT_QUEUE;
    switch (how) {
    case LC_READY_SPAWNED_FREE:
        /* nothing can depend on it (it is in no map) and nothing to place:
         * run now, it completes before its spawn returns; but a spawner of
         * short tasks keeps a few queued for idle workers (sched/steal.h) */
        if (sched->backlog(w))
            return LC_ACT_RUN_INLINE;
        if (!lc_grain_run_here(w))
            return LC_ACT_QUEUE;
        return sched->stock_low && lc_grain_shareable(&w->rt->grain, atomic_load_explicit(
                                       &w->grain.est, memory_order_relaxed))
               && sched->stock_low(w) ? LC_ACT_QUEUE : LC_ACT_RUN_INLINE;
    case LC_READY_SPAWNED:
        if (node >= 0 && node != w->node)
            return LC_ACT_QUEUE;
        if (lc_grain_run_here(w))
            return LC_ACT_RUN_AT_SPAWN;
        return sched->backlog(w) ? LC_ACT_RUN_NOW : LC_ACT_QUEUE;
    case LC_READY_RELEASED:
        return !sched->run_here || sched->run_here(w, node) ? LC_ACT_RUN_NEXT : LC_ACT_QUEUE;
    case LC_READY_RELEASED_BUSY:
        /* w runs another task first: a whole body, when bodies are long,
         * during which an idle worker could have run this one.  Not when
         * bodies are short (handing over would cost more than waiting) nor
         * while w runs a task at its spawn (it goes back to spawning, and
         * the lone-task rule's chains are spawned so). */
        return w->at_spawn || lc_grain_short(&w->rt->grain, atomic_load_explicit(
                                  &w->grain.est, memory_order_relaxed))
               ? LC_ACT_QUEUE : LC_ACT_HAND_OFF;
    case LC_READY_SERIAL:
        return LC_ACT_RUN_NOW;
    }
    return LC_ACT_QUEUE;
}

/*
 * A task without dependencies that its spawner runs at once (backlog or
 * short bodies: ready.h) completes before its spawn returns, so it needs
 * none of the completion's atomics: nothing can depend on it (it is in no
 * map), it is not counted among its parent's children (its spawner is the
 * only thread that could wait for it, and it is still inside the spawn),
 * and its descriptor goes straight back to the pool.  What it shares with
 * every other task: its own argument copy (freed here), its group's count
 * (taken at spawn, given back here) and its children (waited for here,
 * since its descriptor must outlive them).  Its children are not run at
 * their spawn (grain.h): if it is longer than it was taken for, they are
 * what the other workers can take meanwhile.
 */
static inline __attribute__((always_inline))
void lc_run_inline(struct lc_worker *w, struct lc_task *t)
{
    struct lc_task *parent = w->cur;
    int at_spawn = w->at_spawn;
    w->cur = t;
    w->at_spawn = 1;
    if (__builtin_expect(w->trace != NULL, 0)) {   /* trace/trace.h */
        lc_trace_begin(w, t);
        lc_run_task(w, t);
        lc_trace_end(w, t);
    } else {
        lc_run_task(w, t);
    }
    w->at_spawn = at_spawn;
    w->cur = parent;
    lc_stat_add(&w->stats.tasks_run, 1);
    if (t->nspawned)
        lc_wait_children(w, t, 0);
    if (__builtin_expect(lc_events_held(t), 0)) {
        /* events outstanding: it becomes an ordinary child of its spawner
         * (counted now, before anyone could complete it), and completes as
         * one, when its last event is fulfilled (events.h) */
        parent->nspawned++;
        if (!lc_events_body_end(t))
            return;
        int64_t share = LC_BIAS - t->nspawned;   /* its children are all complete */
        atomic_fetch_sub_explicit(&t->pending, share, memory_order_acq_rel);
        lc_task_complete_busy(w, t);
        return;
    }
    if (t->map)
        lc_depmap_destroy(w, t->map);
    if (t->flags & LC_TF_HEAPARG)
        lc_mem_free(t->arg, 0);
    if (w->rt->sched->task_done)
        w->rt->sched->task_done(w, t);
    if (t->tg)
        lc_taskgroup_done(w->rt, t->tg);
    lc_task_release(&w->pool, w->npool, t);
}

/* Carries out act for the ready task t on w; t when the caller is to run
 * it next (LC_ACT_RUN_NEXT), else NULL. */
static inline __attribute__((always_inline))
struct lc_task *lc_ready_do(struct lc_worker *w, struct lc_task *t, enum lc_ready_act act)
{
    switch (act) {
    case LC_ACT_HAND_OFF:
        t->flags |= LC_TF_HANDOFF;   /* t is ours until pushed */
        /* fall through */
    case LC_ACT_QUEUE: {
        int who = w->rt->sched->push(w, t);
        if (__builtin_expect(who == LC_PUSH_FULL, 0))
            lc_execute(w, t);   /* no queue could take it: t is ready, so run it now */
        else
            lc_wake_for(w, who);
        return NULL;
    }
    case LC_ACT_RUN_NOW:
        lc_execute(w, t);
        return NULL;
    case LC_ACT_RUN_AT_SPAWN:
        lc_run_at_spawn(w, t);
        return NULL;
    case LC_ACT_RUN_INLINE:
        lc_run_inline(w, t);
        return NULL;
    case LC_ACT_RUN_NEXT:
        return t;
    }
    return NULL;
}

/* t is ready (how): decides and does.  Returns t when the caller is to run
 * it next (only LC_READY_RELEASED can), else NULL. */
static inline struct lc_task *lc_task_ready(struct lc_worker *w, struct lc_task *t,
                                            enum lc_ready_how how)
{
    /* a task that waited for predecessors is placed by what is known now,
     * not only by what was known at its spawn */
    if (how == LC_READY_RELEASED || how == LC_READY_RELEASED_BUSY)
        lc_locality_ready(w, t);
    return lc_ready_do(w, t, lc_ready_decide(w, t->node, t->prio, how));
}

#endif /* LC_READY_H */
