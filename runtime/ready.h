/*
 * ready.h - what happens to a task once it is ready (nothing left to wait
 * for): one function decides (lc_ready_decide) and one does it
 * (lc_ready_do).  Every way a task becomes ready comes through them:
 *
 *   spawned ready -------------+
 *   (spawn.c: no dependencies,  |
 *    or all complete)           |                     +--> QUEUE / HAND_OFF: the policy's
 *                               +--> lc_ready_decide -+    push (or push_light), the core
 *   released by a completion ---+    (w, node, prio,  |    wakes whom it answers
 *   (run.c, lc_complete)        |     how)            +--> RUN_AT_SPAWN: lc_run on the
 *                               |                     |    spawner's stack (bounded)
 *   detached: no parent --------+                     +--> RUN_NEXT: back to the completing
 *   (independent.c, ALPI)                                  worker, which runs it next
 *
 * and every way a task runs ends in the one completion routine
 * (lc_complete, run.c).  doc/design.md has the drawing and the list of
 * paths this replaced.
 *
 * What a ready task is does not depend on the path: by the time it gets
 * here it has its descriptor (or, as a light task, the three words that
 * make one: policy.h), its own copy of the argument, its parent's innermost
 * open task group and, unless it runs at its spawn without dependencies
 * (LC_TB_UNCOUNTED: spawn.c), a count among its parent's children.
 */
#ifndef LC_READY_H
#define LC_READY_H

#include "depmap.h"
#include "events.h"
#include "mem.h"
#include "policy.h"
#include "run.h"
#include "runtime.h"
#include "taskpool.h"
#include "team.h"

/* How a task became ready. */
enum lc_ready_how {
    LC_READY_SPAWNED,       /* w is spawning it, and it waits for nothing */
    LC_READY_SPAWNED_FREE,  /* the same, and it has no dependencies at all: nothing can
                               wait for it but its spawner */
    LC_READY_RELEASED,      /* a completion on w released it; w may run it next */
    LC_READY_RELEASED_BUSY, /* released on w, which runs something else next */
    LC_READY_EVENT,         /* released by a completion that the fulfilment of an event
                               made (events.c), not by the end of a body */
    LC_READY_DETACHED,      /* it has no parent (independent.c): queued for any worker */
};

/* What happens to it. */
enum lc_ready_act {
    LC_ACT_QUEUE,           /* the policy's push */
    LC_ACT_HAND_OFF,        /* the policy's push, marked for an idle worker to take
                               at once (LC_TF_HANDOFF: sched/steal.h) */
    LC_ACT_RUN_AT_SPAWN,    /* lc_run on w, LC_RUN_SPAWN: what it releases is queued */
    LC_ACT_RUN_NEXT,        /* returned to the completing caller to run next */
};

/* The highest priority queued where w looks first, once priorities are in
 * use (0 before). */
static inline unsigned lc_ready_top_prio(struct lc_worker *w)
{
    struct lc_runtime *rt = w->rt;
    if (__builtin_expect(!atomic_load_explicit(&rt->prio_on, memory_order_relaxed), 1))
        return 0;
    return rt->sched->top_prio ? rt->sched->top_prio(w) : 0;
}

/* Tasks may block (rt->blocking, thread.h): none runs at its spawn, where
 * blocking would hold its spawner until it is unblocked. */
static inline int lc_ready_blocking(const struct lc_runtime *rt)
{
    return __builtin_expect(atomic_load_explicit(&rt->blocking, memory_order_relaxed), 0);
}

/*
 * Whether another worker could take a ready task w is spawning: a worker
 * sleeps (nobody else gives it work), or w has nothing queued that an
 * idle one could take instead (the policy's bare: w's last count of its
 * queue, counted again when that saw only a few items, which thieves may
 * have taken since; a long queue is not counted again, which would read
 * the line thieves write at every spawn).  Then the short-task rule
 * (grain.h) queues the task instead of running it at its spawn.  Running
 * it there takes it from the idle worker, and it is not only a matter of
 * speed: a task may wait for something its spawner does after the spawn
 * (an OpenMP task spinning on a flag set after its creation, legal and
 * run by libgomp), and run on its spawner it waits for ever.
 * man locus-gomp(7) says when a task may still run at its spawn.
 * nsleep_total is the line lc_wake_for reads at every push already; bare
 * reads w's own queue.
 */
static inline int lc_ready_helper_idle(struct lc_worker *w)
{
    const struct lc_runtime *rt = w->rt;
    return lc_sleepers(rt, -1) > 0 || (rt->sched->bare && rt->sched->bare(w));
}

/*
 * The decision, for a task of priority prio bound for node (-1: any) that
 * became ready by how.
 *  - Never on w while a task of higher priority waits for w (sched/prio.h):
 *    it would start first.
 *  - A spawned task runs at its spawn when bodies are shorter than a
 *    hand-over to another core and no other worker is idle for want of
 *    it (grain.h, lc_ready_helper_idle: a dependency-free one is queued
 *    still while w keeps fewer than LC_STOCK queued for idle workers,
 *    sched/steal.h) or when w has a long queue already (backlog:
 *    deferring more only costs a push and a pop); never when the policy
 *    placed it on another node, and never past the stack's bound
 *    (lc_stack_room: so no chain of spawns overflows a stack), nor once
 *    tasks may block (lc_ready_blocking).  Asking
 *    grain.h has a side effect (its clock): each task is decided once.
 *  - A released task runs next on the completing worker when its policy
 *    lets it (run_here); another released by the same completion is
 *    handed off when bodies are long (an idle worker may take it at once),
 *    else queued.
 *  - A detached task is queued.
 */
static inline __attribute__((always_inline))
enum lc_ready_act lc_ready_decide(struct lc_worker *w, int node, unsigned prio,
                                  enum lc_ready_how how)
{
    struct lc_runtime *rt = w->rt;
    const struct lc_sched_ops *sched = rt->sched;
    if (how == LC_READY_DETACHED || how == LC_READY_EVENT)
        return LC_ACT_QUEUE;
    if (how != LC_READY_RELEASED_BUSY && __builtin_expect(lc_ready_top_prio(w) > prio, 0))
        return LC_ACT_QUEUE;
    switch (how) {
    case LC_READY_SPAWNED_FREE:
        if (!lc_stack_room(w) || lc_ready_blocking(rt))
            return LC_ACT_QUEUE;
        if (!lc_grain_run_here(w))
            return sched->backlog(w) ? LC_ACT_RUN_AT_SPAWN : LC_ACT_QUEUE;
        /* short bodies: run here, unless another worker is idle for want
         * of it, or w keeps too few queued for idle workers (then it has
         * no backlog either) */
        if (sched->stock_low && lc_grain_shareable(&rt->grain, atomic_load_explicit(
                                    &w->grain.est, memory_order_relaxed))
            && sched->stock_low(w))
            return LC_ACT_QUEUE;
        return lc_ready_helper_idle(w) ? LC_ACT_QUEUE : LC_ACT_RUN_AT_SPAWN;
    case LC_READY_SPAWNED:
        if ((node >= 0 && node != w->node) || !lc_stack_room(w) || lc_ready_blocking(rt))
            return LC_ACT_QUEUE;
        if (lc_grain_run_here(w))
            return lc_ready_helper_idle(w) ? LC_ACT_QUEUE : LC_ACT_RUN_AT_SPAWN;
        return sched->backlog(w) ? LC_ACT_RUN_AT_SPAWN : LC_ACT_QUEUE;
    case LC_READY_RELEASED:
        return !sched->run_here || sched->run_here(w, node) ? LC_ACT_RUN_NEXT : LC_ACT_QUEUE;
    case LC_READY_RELEASED_BUSY:
        /* w runs another task first: a whole body, when bodies are long,
         * during which an idle worker could have run this one.  Not when
         * bodies are short (handing over would cost more than waiting) nor
         * while w runs a task at its spawn (it goes back to spawning, and
         * the lone-task rule's chains are spawned so). */
        return w->at_spawn || lc_grain_short(&rt->grain, atomic_load_explicit(
                                  &w->grain.est, memory_order_relaxed))
               ? LC_ACT_QUEUE : LC_ACT_HAND_OFF;
    case LC_READY_DETACHED:
    case LC_READY_EVENT:
        break;
    }
    return LC_ACT_QUEUE;
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
    case LC_ACT_QUEUE:
        lc_wake_for(w, w->rt->sched->push(w, t));
        return NULL;
    case LC_ACT_RUN_AT_SPAWN:
        lc_run(w, t, LC_RUN_SPAWN);
        return NULL;
    case LC_ACT_RUN_NEXT:
        return t;
    }
    return NULL;
}

/* The light form of lc_ready_do's queueing (LC_ACT_QUEUE for a task that
 * has no descriptor yet: fn, arg, parent): 0, or -ENOMEM when the policy
 * could not queue it (the caller then makes a descriptor). */
static inline int lc_ready_queue_light(struct lc_worker *w, locus_task_fn fn, void *arg,
                                       struct lc_task *parent)
{
    const struct lc_qitem it = { (void *)fn, arg, parent, LC_QI_LIGHT };
    if (__builtin_expect(w->rt->sched->push_light(w, &it) < 0, 0))
        return -ENOMEM;
    lc_wake_for(w, LC_WAKE_ANY);
    return 0;
}

/* t is ready (how): decides and does.  Returns t when the caller is to run
 * it next (only LC_READY_RELEASED can), else NULL. */
static inline struct lc_task *lc_task_ready(struct lc_worker *w, struct lc_task *t,
                                            enum lc_ready_how how)
{
    /* a task that waited for predecessors is placed by what is known now,
     * not only by what was known at its spawn */
    if (how == LC_READY_RELEASED || how == LC_READY_RELEASED_BUSY || how == LC_READY_EVENT)
        lc_locality_ready(w, t);
    /* Events are fulfilled in the outside world's order (a network's: the
     * order messages arrive in, which is the order a peer sent them in), and
     * the tasks they release keep it: queued first in, first out, not on a
     * deque whose owner takes the newest first.  Otherwise a stream of
     * fulfilments (a polling task's, every 100 us) buries the older tasks
     * under the newer, and the program's next requests come out in an order
     * its peers did not send in: each receive of MPI then matches past a
     * growing queue of unexpected messages (tests/tampi). */
    if (how == LC_READY_EVENT)
        t->flags |= LC_TF_FIFO;
    return lc_ready_do(w, t, lc_ready_decide(w, t->node, t->prio, how));
}

#endif /* LC_READY_H */
