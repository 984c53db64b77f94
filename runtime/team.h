/*
 * team.h - what a fork-join layer on top of the task runtime needs (the
 * libgomp-compatible layer in gomp/ is the user): running one function on
 * every worker at once, each in an implicit task of its own; barriers
 * whose waiters keep running tasks; task groups; waiting for a word while
 * running tasks.  Internal, not part of locus.h.
 */
#ifndef LC_TEAM_H
#define LC_TEAM_H

#include <stdatomic.h>
#include <stdint.h>

#include "runtime.h"

/* locus_init() in team mode: idle workers wait for team jobs instead of
 * looking for tasks (every task then belongs to a team whose members run
 * it).  threads > 0 replaces an unset LOCUS_THREADS.  0 or negative errno. */
int lc_init_teams(int threads);

/* Worker loop of team mode (init.c starts it on every worker but 0). */
void lc_team_loop(struct lc_worker *w);
/* locus_finalize(): lets team-mode workers leave their loop. */
void lc_team_stop(struct lc_runtime *rt);

/* Runs fn(arg) on every worker at once, in two halves: start posts the job
 * to the other workers (worker i as member i, each in a new implicit task)
 * and makes a new implicit task current on the caller (worker 0, in team
 * mode, not inside another job; the task it replaces in *saved), which
 * then runs member 0's part itself; join waits until every member has
 * returned and every task they spawned is complete, and restores saved.
 * start: 0, or -ENOMEM before anything ran. */
int lc_team_start(void (*fn)(void *), void *arg, struct lc_task **saved);
void lc_team_join(struct lc_task *saved);

/* Makes a new implicit task current on w (a parallel region's task of one
 * thread) and stores the task it replaces in *saved: 0, or -ENOMEM.
 * lc_implicit_end() waits for its children, frees it and makes saved
 * current again. */
int lc_implicit_begin(struct lc_worker *w, struct lc_task **saved);
void lc_implicit_end(struct lc_worker *w, struct lc_task *saved);

/* A barrier for n members that run tasks while they wait.  Each member
 * first waits for its own current task's children; when every member has
 * arrived, every task the members spawned before it is complete. */
struct lc_barrier {
    _Alignas(LC_CACHELINE) _Atomic uint32_t arrived;
    _Atomic uint32_t gen;
    uint32_t n;
};
void lc_barrier_init(struct lc_barrier *b, uint32_t n);
void lc_barrier_wait(struct lc_worker *w, struct lc_barrier *b);

/* A task group (OpenMP taskgroup): tasks spawned by the current task
 * between begin and end, and all their descendants, are complete when end
 * returns.  Groups nest; the struct lives with the caller until end. */
struct lc_taskgroup {
    _Atomic int64_t pending;         /* member tasks not complete */
    _Atomic uint32_t done;           /* 1 once pending reached 0 after end began */
    _Atomic uint32_t cancelled;      /* lc_taskgroup_cancel() was called */
    uint32_t follows_outer;          /* also cancelled when outer is (set after begin:
                                        OpenMP's worksharing-construct groups) */
    struct lc_taskgroup *outer;
    /* what a member task discarded by cancellation gets instead of its
     * body, NULL nothing (set after begin by the layer that made the
     * group: gomp/ frees what the task's wrapper would have freed) */
    void (*discard)(locus_task_fn fn, void *arg);
};
void lc_taskgroup_begin(struct lc_worker *w, struct lc_taskgroup *g);
void lc_taskgroup_end(struct lc_worker *w, struct lc_taskgroup *g);

/*
 * Cancelling a group (OpenMP cancel taskgroup): its member tasks whose
 * bodies have not begun are discarded.  A discarded task's body does not
 * run; the group's discard function, when set, gets (fn, arg) instead so
 * that the layer that spawned it can free what fn would have freed; the
 * task completes as usual (its successors are released, its group counted
 * down).  lc_groups_cancelled (set by the first cancel) keeps the check
 * off the way of programs that never cancel.
 */
extern _Atomic int lc_groups_cancelled;
void lc_taskgroup_cancel(struct lc_taskgroup *g);

/* g is cancelled, itself or, following it, its outer group. */
static inline int lc_taskgroup_cancelled(const struct lc_taskgroup *g)
{
    return atomic_load_explicit(&g->cancelled, memory_order_acquire)
           || (g->follows_outer && g->outer
               && atomic_load_explicit(&g->outer->cancelled, memory_order_acquire));
}

/* Runs t's body on w, or discards it when its group is cancelled. */
static inline void lc_run_task(struct lc_worker *w, struct lc_task *t)
{
    if (__builtin_expect(atomic_load_explicit(&lc_groups_cancelled, memory_order_relaxed), 0)
        && t->tg && lc_taskgroup_cancelled(t->tg)) {
        if (t->tg->discard)
            t->tg->discard(t->fn, t->arg);
        return;
    }
    lc_run_fn(w, t->fn, t->arg);
}

/* spawn.c: a task joins its parent's innermost open group */
static inline void lc_taskgroup_add(struct lc_taskgroup *g)
{
    atomic_fetch_add_explicit(&g->pending, 1, memory_order_relaxed);
}

/* run.c: a member task completed.  The group may be freed as soon as its
 * count reaches 0 (its owner returns from end), so g is not touched after. */
void lc_taskgroup_done(struct lc_runtime *rt, struct lc_taskgroup *g);

#endif /* LC_TEAM_H */
