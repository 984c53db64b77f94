/*
 * cancel.c - cancellation in the libgomp ABI: GOMP_cancel,
 * GOMP_cancellation_point and the cancellable closing barriers
 * (GOMP_barrier_cancel, GOMP_loop_end_cancel, GOMP_sections_end_cancel),
 * for parallel regions, loops, sections and taskgroups.
 *
 * gcc emits these for every program with a cancel construct, whether or
 * not cancellation is on at run time.  With the cancel-var ICV false
 * (OMP_CANCELLATION unset or false, the default) libgomp makes them
 * no-ops that answer "not cancelled" and keeps the barriers (libgomp's
 * cancel.c: "if (!gomp_cancel_var) return false;"); so does this layer.
 *
 * With OMP_CANCELLATION=true, as libgomp does:
 * - cancel parallel marks the team; every later cancellation point and
 *   cancellable barrier of its members answers true (gcc then jumps to
 *   the region's end), members waiting in a cancellable barrier leave it,
 *   and the team's members create no more tasks.
 * - cancel for / sections marks the construct: no more chunks or sections
 *   are handed out, and its cancellation points answer true.
 * - cancel taskgroup marks the innermost taskgroup of the current task:
 *   its tasks not yet started are discarded (runtime/team.h), no new task
 *   is created in it, its cancellation points answer true.
 * A cancellable barrier is a barrier of its own (team->cbar) that waiters
 * leave when the team is cancelled; when it completes, the team's task
 * barrier follows, so that tasks complete there as at any barrier.
 */
#include <stdbool.h>
#include <stddef.h>

#include "gomp.h"
#include "runtime.h"
#include "task.h"

enum { CANCEL_PARALLEL = 1, CANCEL_LOOP = 2, CANCEL_SECTIONS = 4, CANCEL_TASKGROUP = 8 };

static bool cancellation_on(void)
{
    gomp_read_env();
    return gomp_icv.cancellation != 0;
}

static bool team_cancelled(const struct gomp_team *team)
{
    return team && atomic_load_explicit(&team->cancelled, memory_order_acquire);
}

/* The taskgroup a cancel taskgroup in the current task binds to: the
 * innermost one the task opened, else the group it was created in, which
 * for a task created outside any group of its parent is its parent's. */
static struct lc_taskgroup *current_group(void)
{
    struct lc_worker *w = gomp_thr.team ? lc_self : NULL;
    if (!w || !w->cur)
        return NULL;
    struct lc_taskgroup *g = lc_task_open_group(w->cur);
    for (const struct lc_task *t = w->cur; !g && t && !(t->flags & LC_TF_ROOT); t = t->parent)
        g = t->tg;
    return g;
}

static struct gomp_taskgroup *gomp_group(struct lc_taskgroup *g)
{
    return (struct gomp_taskgroup *)((char *)g - offsetof(struct gomp_taskgroup, g));
}

/* The serial group of depth d (1 outermost) is a worksharing construct's. */
static bool serial_ws(const struct gomp_thread *thr, unsigned d)
{
    return d >= 1 && d <= 64 && (thr->serial_tg_ws >> (d - 1) & 1);
}

/*
 * Without a team, tasks run at once and taskgroups are only counted
 * (gomp_thr.serial_tg_depth); a cancel taskgroup marks the depth of the
 * innermost open one, which stays cancelled until it ends.
 */
void gomp_serial_taskgroup(int begin)
{
    struct gomp_thread *thr = &gomp_thr;
    if (begin) {
        thr->serial_tg_depth++;
        return;
    }
    if (thr->serial_tg_cancelled == thr->serial_tg_depth)
        thr->serial_tg_cancelled = 0;
    if (thr->serial_tg_depth) {
        if (thr->serial_tg_depth <= 64)
            thr->serial_tg_ws &= ~(1ull << (thr->serial_tg_depth - 1));
        thr->serial_tg_depth--;
    }
}

/*
 * A worksharing construct's group (reduction(task, ...)) is not one the
 * program wrote: libgomp binds cancel taskgroup inside it to the enclosing
 * group and discards the construct's tasks when that one is cancelled.
 * Here the construct's group follows the enclosing one (runtime/team.h:
 * its tasks not yet begun are discarded when either is cancelled), and a
 * cancel inside it cancels both.
 */
void gomp_taskgroup_workshare(void)
{
    struct gomp_thread *thr = &gomp_thr;
    struct lc_worker *w = gomp_task_worker();
    if (!w) {
        unsigned d = thr->serial_tg_depth;
        if (d >= 1 && d <= 64)
            thr->serial_tg_ws |= 1ull << (d - 1);
        return;
    }
    if (w->cur->tg_nomem || !w->cur->tg_open)
        return;   /* no group of its own: the enclosing one is used */
    struct lc_taskgroup *g = w->cur->tg_open;
    gomp_group(g)->workshare = 1;
    g->follows_outer = 1;   /* before any task of the construct exists */
}

static bool group_cancelled(void)
{
    const struct gomp_thread *thr = &gomp_thr;
    if (!thr->team)
        return thr->serial_tg_cancelled != 0;
    struct lc_taskgroup *g = current_group();
    return g && lc_taskgroup_cancelled(g);
}

bool gomp_task_creation_cancelled(void)
{
    if (!gomp_icv.cancellation)
        return false;
    return team_cancelled(gomp_thr.team) || group_cancelled();
}

GOMP_EXPORT bool GOMP_cancellation_point(int which)
{
    if (!cancellation_on())
        return false;
    struct gomp_thread *thr = &gomp_thr;
    if (which & (CANCEL_LOOP | CANCEL_SECTIONS)) {
        if (thr->ws && atomic_load_explicit(&thr->ws->cancelled, memory_order_relaxed))
            return true;
    } else if (which & CANCEL_TASKGROUP) {
        if (group_cancelled())
            return true;
        /* and cancel parallel cancels the region's explicit tasks too */
    }
    return team_cancelled(thr->team);
}

GOMP_EXPORT bool GOMP_cancel(int which, bool do_cancel)
{
    if (!cancellation_on())
        return false;
    if (!do_cancel)   /* cancel ... if (false): a cancellation point */
        return GOMP_cancellation_point(which);
    struct gomp_thread *thr = &gomp_thr;
    if (which & (CANCEL_LOOP | CANCEL_SECTIONS)) {
        if (thr->team && thr->ws)
            atomic_store_explicit(&thr->ws->cancelled, 1, memory_order_relaxed);
        return true;   /* one thread: it leaves the construct itself */
    }
    if (which & CANCEL_TASKGROUP) {
        struct lc_taskgroup *g = current_group();
        if (g) {
            if (gomp_group(g)->workshare && g->outer)
                lc_taskgroup_cancel(g->outer);   /* the group the program wrote */
            lc_taskgroup_cancel(g);
        } else if (!thr->team && thr->serial_tg_depth && !thr->serial_tg_cancelled) {
            unsigned d = thr->serial_tg_depth;
            thr->serial_tg_cancelled = serial_ws(thr, d) && d > 1 ? d - 1 : d;
        }
        return true;
    }
    if (thr->team)
        atomic_store_explicit(&thr->team->cancelled, 1, memory_order_release);
    return true;
}

/* The closing barrier of a cancellable region: true when the team is
 * cancelled (the members then go to the region's end). */
static bool barrier_cancellable(void)
{
    struct gomp_team *team = gomp_thr.team;
    if (!team)
        return false;
    if (team_cancelled(team))
        return true;
    uint32_t gen = atomic_load_explicit(&team->cbar.gen, memory_order_acquire);
    if (atomic_fetch_add_explicit(&team->cbar.arrived, 1, memory_order_acq_rel) + 1
        == (uint32_t)team->nthreads) {
        atomic_store_explicit(&team->cbar.arrived, 0, memory_order_relaxed);
        atomic_store_explicit(&team->cbar.gen, gen + 1, memory_order_release);
    } else {
        /* a cancelled team never completes this barrier again: its
         * members all leave for the region's end */
        unsigned spins = 0;
        while (atomic_load_explicit(&team->cbar.gen, memory_order_acquire) == gen) {
            if (team_cancelled(team))
                return true;
            gomp_pause(&spins);
        }
    }
    /* every member is here: no one can cancel the region any more; the
     * tasks they created complete at the team's barrier */
    GOMP_barrier();
    return team_cancelled(team);
}

GOMP_EXPORT bool GOMP_barrier_cancel(void)
{
    if (!cancellation_on()) {
        GOMP_barrier();
        return false;
    }
    return barrier_cancellable();
}

GOMP_EXPORT bool GOMP_loop_end_cancel(void)
{
    if (!cancellation_on()) {
        GOMP_loop_end();
        return false;
    }
    GOMP_loop_end_nowait();
    return barrier_cancellable();
}

GOMP_EXPORT bool GOMP_sections_end_cancel(void)
{
    if (!cancellation_on()) {
        GOMP_sections_end();
        return false;
    }
    GOMP_sections_end_nowait();
    return barrier_cancellable();
}
