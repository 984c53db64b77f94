/*
 * parallel.c - parallel regions of the libgomp ABI (GOMP_parallel and the
 * combined parallel loops), barriers, single, and the start and end of the
 * Locus runtime under an OpenMP program.
 *
 * An outermost region's team is the whole Locus worker pool, so that every
 * task of the region is run by a team member (omp_get_thread_num() inside
 * a task is the number of the thread running it, as with libgomp).  The
 * pool is started by the first region, in team mode, with the region's
 * thread count; a later outermost region asking for another count restarts
 * it (what the runtime learned about data placement starts afresh then).
 * A nested region's team is made of extra threads (nest.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "detach.h"
#include "gomp.h"
#include "locus.h"
#include "runtime.h"
#include "task.h"
#include "thread.h"

__thread struct gomp_thread gomp_thr __attribute__((tls_model("initial-exec")));

static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static int started_here;   /* the runtime was started by this layer */

_Noreturn void gomp_unsupported(const char *what, const char *why)
{
    gomp_say("%s: %s; this program cannot run on Locus's OpenMP "
             "layer (run it on %s instead)\n", what, why, gomp_layer_native);
    abort();
}

struct lc_worker *gomp_worker(void)
{
    struct lc_worker *w = lc_self;
    return w && w->rt->team_mode ? w : NULL;
}

/* Says once why parallel regions fall back to one thread. */
static void warn_once(int rc)
{
    static _Atomic int warned;
    if (atomic_exchange(&warned, 1))
        return;
    const char *why = rc == -EBUSY ? "the program started Locus itself with locus_init()"
                      : rc == -ENOMEM ? "out of memory for a team"
                      : locus_error_message();   /* locus_init() said why */
    gomp_say("warning: parallel regions run on one thread: %s (%s)\n",
            locus_strerror(rc), why);
}

int gomp_ensure_runtime(int threads)
{
    int rc = 0;
    if (threads > LC_MAX_WORKERS)
        threads = LC_MAX_WORKERS;
    pthread_mutex_lock(&start_lock);
    struct lc_runtime *rt = lc_rt;
    if (rt && !rt->team_mode) {
        rc = -EBUSY;   /* the program started Locus itself: its workers are not ours */
    } else if (rt && lc_self != &rt->workers[0]) {
        rc = -ENOTSUP; /* only the pool's initial thread may start or restart it */
    } else if (rt && (threads <= 0 || rt->nworkers == threads)) {
        rc = 0;
    } else {
        if (rt && (rc = locus_finalize()) < 0)
            goto out;
        gomp_read_env();
        if ((rc = lc_init_teams(threads)) == 0)
            started_here = 1;
    }
out:
    pthread_mutex_unlock(&start_lock);
    return rc;
}

/* target.c's omp_pause_resource: the pool this layer started, stopped
 * from its initial thread outside any region (the next region starts a
 * fresh one); 0, or -1 where it cannot be paused now. */
int gomp_pause_pool(void)
{
    int rc = 0;
    pthread_mutex_lock(&start_lock);
    struct lc_runtime *rt = lc_rt;
    if (rt && started_here) {
        if (lc_self != &rt->workers[0] || lc_self->cur != rt->root)
            rc = -1;
        else if (locus_finalize() == 0)
            started_here = 0;
        else
            rc = -1;
    }
    pthread_mutex_unlock(&start_lock);
    return rc;
}

/* ALPI's entries start the pool, as a first parallel region would: TAMPI
 * binds in MPI_Init_thread, before the program's first region, and its
 * polling tasks run on the pool's workers between regions (team.c) */
static void autostart(void)
{
    gomp_read_env();
    if (gomp_ensure_runtime(gomp_nthreads_var()) < 0)
        warn_once(-ENOTSUP);
}

/* A thread that serves a worker in place of one whose task blocked
 * (runtime/thread.h) is that thread for the tasks it runs there: its team,
 * its number, its levels, its task's ICVs.  The giver's own, which stay
 * put while it is away. */
struct thread_ctx {
    const struct gomp_thread *thr;
    const struct lc_icvs *icvs;
};

static void *thread_ctx_get(void)
{
    static __thread struct thread_ctx me;
    me = (struct thread_ctx){ &gomp_thr, &lc_task_icvs };
    return &me;
}

static void thread_ctx_adopt(const void *from)
{
    const struct thread_ctx *c = from;
    gomp_thr = *c->thr;
    lc_task_icvs = *c->icvs;
}

/*
 * The child of a fork() has only the thread that forked: the pool's
 * workers and nest.c's extra threads are not there, and a region's first
 * barrier would wait for them forever.  So the child forgets the
 * parent's pool (runtime/init.c's lc_forget_after_fork: leaked, never
 * joined or woken, since its threads are gone) and its first region
 * starts a new one, as a fresh process's would (libomp re-initializes in
 * its atfork handler likewise; gcc 12's libgomp hangs in such a child,
 * tests/gomp/omp_fork.c).  The thread keeps its ICVs (lc_task_icvs,
 * def_allocator).
 *
 * A fork from inside a region (OpenMP leaves it unspecified): the child's
 * thread leaves the region here (level 0, no team), so that a region it
 * starts next gets a pool of its own; the rest of the region it was in
 * (its barriers, its end) has no team left to meet, and a forking worker
 * has no main to go back to: such a child should exec or _exit, as
 * POSIX asks of a child of any multithreaded process.
 */
static void gomp_after_fork_child(void)
{
    pthread_mutex_init(&start_lock, NULL);
    started_here = 0;
    lc_forget_after_fork();
    gomp_nest_forget_after_fork();
    gomp_thr = (struct gomp_thread){
        .def_allocator = gomp_thr.def_allocator,
    };
}

__attribute__((constructor)) static void gomp_hooks(void)
{
    lc_autostart = autostart;
    lc_thread_ctx = (struct lc_thread_ctx){ thread_ctx_get, thread_ctx_adopt };
    pthread_atfork(NULL, NULL, gomp_after_fork_child);
}

__attribute__((destructor)) static void gomp_fini(void)
{
    /* at exit, from the thread that started the pool outside any region:
     * joins the workers and prints the LOCUS_REPORT report if asked for */
    struct lc_worker *w = lc_self;
    if (started_here && lc_rt && w == &lc_rt->workers[0] && w->cur == lc_rt->root)
        locus_finalize();
}

void gomp_team_barrier(struct gomp_team *team)
{
    if (team->nested) {
        /* members of a nested team run their tasks at once (gomp.h): a
         * barrier completes the detached ones this member parked
         * (detach.c), which belong to this team */
        gomp_detach_wait_parked();
        gomp_nest_barrier(&team->barrier);
    } else {
        lc_barrier_wait(lc_self, &team->barrier);
    }
}

/* The state of member id of team; lv: the member's level record, which
 * lives as long as its part of the region; task_id: an address unique
 * while the member's implicit task runs (it owns nestable locks). */
static void member_enter(struct gomp_team *team, int id, struct gomp_level *lv,
                         const void *task_id)
{
    *lv = (struct gomp_level){ .up = team->up, .id = id, .size = team->nthreads };
    gomp_thr = (struct gomp_thread){
        .team = team, .id = id, .level = team->level, .active_level = team->active_level,
        .par_red = team->reductions, .lv = lv,
        .def_allocator = team->def_allocator, .teams = team->teams,
    };
    lc_task_icvs = team->denv;
    gomp_task_id_set(task_id);
    if (team->preset) {                   /* a combined parallel loop */
        gomp_thr.ws = &team->ws[0];
        gomp_thr.ws_seen = 1;
    }
    gomp_display_affinity_region(0);
}

/* Member i > 0's part of an outermost region: the user's function, then
 * the region's closing barrier, which also waits for every task of the
 * region. */
static void member_main(void *arg)
{
    struct gomp_team *team = arg;
    struct gomp_thread saved = gomp_thr;
    struct lc_icvs saved_icvs = lc_task_icvs;
    struct gomp_level lv;
    member_enter(team, lc_self->id, &lv, &saved);
    team->fn(team->data);
    lc_barrier_wait(lc_self, &team->barrier);
    gomp_thr = saved;
    lc_task_icvs = saved_icvs;
}

/* A parallel region seen from the thread that starts it. */
struct gomp_region {
    struct gomp_thread saved;     /* the thread's state outside */
    struct lc_icvs saved_icvs;    /* and its task's ICVs */
    struct gomp_team *team;       /* NULL: the region has one thread */
    struct lc_task *saved_task;
    int extra;                    /* nested team: extra threads reserved */
    int cg;                       /* threads counted in the contention group's cg_extra */
    struct gomp_level lv;         /* the starting thread's level record */
    struct gomp_ws local;         /* loop storage when it has one thread */
    struct gomp_event *parked;    /* detach.c: the enclosing region's parked events */
};

/* The data-environment ICVs of the members of a region started from
 * outside: the starting task's (inherited), but for nthreads-var, the
 * OMP_NUM_THREADS list's value for the next level when it has one.  Called
 * while the starting task's ICVs are still the thread's. */
static struct lc_icvs level_denv(const struct gomp_thread *outside)
{
    struct lc_icvs d = lc_task_icvs;
    unsigned next = outside->level + 1;   /* the list's index of the level below */
    if (next < (unsigned)gomp_icv.nthreads_list_len)
        d.nthreads = gomp_icv.nthreads_list[next];
    return d;
}

static struct gomp_team *team_new(void (*fn)(void *), void *data, const struct gomp_ws *preset,
                                  int nthreads, const struct gomp_thread *outside)
{
    struct gomp_team *team = aligned_alloc(64, (sizeof *team + 63) / 64 * 64);
    if (!team)
        return NULL;
    memset(team, 0, sizeof *team);
    team->nthreads = nthreads;
    team->level = outside->level + 1;
    team->active_level = outside->active_level + 1;
    team->up = outside->lv;
    team->denv = level_denv(outside);
    team->def_allocator = outside->def_allocator;   /* the members inherit these */
    team->teams = outside->teams;
    lc_barrier_init(&team->barrier, (uint32_t)team->nthreads);
    pthread_mutex_init(&team->ws_lock, NULL);
    team->fn = fn;
    team->data = data;
    if (preset) {
        team->preset = 1;
        memcpy(&team->ws[0], preset, sizeof team->ws[0]);
        atomic_store(&team->ws[0].construct, 1);
        atomic_store(&team->ws[0].users, team->nthreads);
    }
    return team;
}

static void team_free(struct gomp_team *team)
{
    for (int i = 0; i < GOMP_WS_RING; i++)
        gomp_ws_release(&team->ws[i]);   /* loop.c: blocks of the last loops */
    pthread_mutex_destroy(&team->ws_lock);
    free(team);
}

/* Registers the region's reduction arrays (GOMP_parallel_reductions) for
 * team, before any member can run a task. */
static void team_reductions(struct gomp_team *team, uintptr_t *red)
{
    if (red) {
        gomp_parallel_reductions_register(red, (unsigned)team->nthreads);
        team->reductions = red;
    }
}

/* A teams or target region's contention group with a thread_limit:
 * takes up to k of the threads it has left (k when it has no limit). */
static int cg_take(const struct gomp_thread *outside, int k)
{
    _Atomic int *cg = outside->teams.cg_extra;
    int limit = outside->teams.thread_limit;
    if (!cg || limit <= 0)
        return k;
    int cur = atomic_load_explicit(cg, memory_order_relaxed);
    for (;;) {
        int take = k < limit - 1 - cur ? k : limit - 1 - cur;
        if (take <= 0)
            return 0;
        if (atomic_compare_exchange_weak_explicit(cg, &cur, cur + take, memory_order_relaxed,
                                                  memory_order_relaxed))
            return take;
    }
}

static void cg_give(const struct gomp_thread *outside, int k)
{
    if (k && outside->teams.cg_extra && outside->teams.thread_limit > 0)
        atomic_fetch_sub_explicit(outside->teams.cg_extra, k, memory_order_relaxed);
}

/* A region nested in an active one, of n > 1 threads: a team of extra
 * threads (nest.c), or NULL (no thread left under the limit, none could
 * be made, or no memory).  *registered: red was registered (for the
 * team's size).  A team gets the threads that could be had. */
static struct gomp_team *nested_begin(struct gomp_region *r, void (*fn)(void *), void *data,
                                      int n, const struct gomp_ws *preset, uintptr_t *red,
                                      int *registered)
{
    int k = gomp_nest_reserve(n - 1);
    int in_cg = k ? cg_take(&r->saved, k) : 0;   /* and within a teams thread_limit */
    gomp_nest_unreserve(k - in_cg);
    k = in_cg;
    if (k == 0)
        return NULL;
    struct nest_thread *stack[16], **threads = k <= 16 ? stack : malloc((size_t)k * sizeof *threads);
    int got = threads ? gomp_nest_acquire(k, threads) : 0;
    struct gomp_team *team = got ? team_new(fn, data, preset, got + 1, &r->saved) : NULL;
    if (!team) {
        if (got)   /* no memory for the team: the threads go back idle */
            gomp_nest_release(threads, got);
        got = 0;
    }
    gomp_nest_unreserve(k - got);
    cg_give(&r->saved, k - got);
    if (team) {
        team->nested = 1;
        team_reductions(team, red);
        *registered = red != NULL;
        gomp_nest_launch(team, threads);
        r->extra = got;
        r->cg = got;
    }
    if (threads != stack)
        free(threads);
    return team;
}

/*
 * Starts a region on the calling thread, which then runs fn's part of
 * member 0 and calls region_end(): with the whole worker pool when the
 * caller is the pool's initial thread outside any region or task; with a
 * team of extra threads when nested in an active region and
 * max-active-levels allows; else (inside a task at level 0, on another
 * thread, or the runtime cannot start) with the calling thread alone.
 * preset: the combined loop members start in; red: GOMP_parallel_reductions'
 * arrays, or NULL.
 */
static void region_begin(struct gomp_region *r, void (*fn)(void *), void *data,
                         unsigned num_threads, const struct gomp_ws *preset, uintptr_t *red)
{
    struct gomp_thread *thr = &gomp_thr;
    int n = num_threads ? (int)num_threads : gomp_nthreads_var();
    /* teams.c hook: a teams or target thread_limit caps the team */
    if (n > gomp_thread_limit())
        n = gomp_thread_limit();
    r->saved = *thr;
    r->saved_icvs = lc_task_icvs;
    /* the events parked so far are the enclosing tasks': this region waits
     * for its own only (detach.c) */
    r->parked = gomp_detach_region_begin();
    r->team = NULL;
    r->extra = 0;
    r->cg = 0;

    int rc = -ENOTSUP, registered = 0;
    int max_levels = gomp_cur_icv()->max_active_levels;
    if (thr->active_level == 0 && n != 1 && max_levels > 0
        && !(lc_self && lc_rt && lc_self->cur != lc_rt->root)
        && (rc = gomp_ensure_runtime(n)) == 0) {
        struct lc_worker *w = gomp_worker();
        if (!w || w->id != 0)
            rc = -ENOTSUP;   /* not the thread the pool belongs to */
        else if (!(r->team = team_new(fn, data, preset, lc_rt->nworkers, &r->saved)))
            rc = -ENOMEM;
        else {
            team_reductions(r->team, red);
            if (thr->teams.cg_extra && thr->teams.thread_limit > 0) {
                /* the pool's team counts in a teams region's group (its
                 * size is within the limit: n was capped above), before
                 * any member can start a nested region */
                r->cg = r->team->nthreads - 1;
                atomic_fetch_add_explicit(thr->teams.cg_extra, r->cg, memory_order_relaxed);
            }
            if ((rc = lc_team_start(member_main, r->team, &r->saved_task)) < 0) {
                /* the arrays stay registered, for the one thread below */
                registered = red != NULL;
                team_free(r->team);
                r->team = NULL;
                cg_give(&r->saved, r->cg);
                r->cg = 0;
            }
        }
    } else if (thr->active_level > 0 && n > 1
               && (int)thr->active_level < max_levels) {
        r->team = nested_begin(r, fn, data, n, preset, red, &registered);
    }
    /* an outermost region on a thread that is not a Locus worker (a
     * target region's host fallback on an extra thread of a nested team,
     * which is a new initial task there, or a thread the program made)
     * gets a team of extra threads, as libgomp gives any initial thread a
     * team of its own */
    if (!r->team && rc == -ENOTSUP && !lc_self && thr->active_level == 0 && n > 1
        && max_levels > 0)
        r->team = nested_begin(r, fn, data, n, preset, red, &registered);
    if (r->team) {
        member_enter(r->team, 0, &r->lv, r);
        return;
    }
    if (rc != -ENOTSUP)
        warn_once(rc);
    r->lv = (struct gomp_level){ .up = r->saved.lv, .id = 0, .size = 1 };
    gomp_thr = (struct gomp_thread){
        .team = NULL, .id = 0, .level = r->saved.level + 1,
        .active_level = r->saved.active_level,
        .serial_ws = &r->local, .lv = &r->lv, .def_allocator = r->saved.def_allocator,
        .teams = r->saved.teams,
    };
    lc_task_icvs = level_denv(&r->saved);
    if (red) {
        if (!registered)
            gomp_parallel_reductions_register(red, 1);
        gomp_thr.par_red = red;
    }
    gomp_task_id_set(r);   /* the region's implicit task */
    memset(&r->local, 0, sizeof r->local);   /* region_end releases what it owns */
    if (preset) {
        memcpy(&r->local, preset, sizeof r->local);
        gomp_thr.ws = &r->local;
    }
    gomp_display_affinity_region(1);
}

static void region_end(struct gomp_region *r)
{
    if (r->team && r->team->nested) {
        gomp_team_barrier(r->team);   /* member 0's parked events too */
        gomp_thr = r->saved;
        lc_task_icvs = r->saved_icvs;
        gomp_nest_join(r->team);
        gomp_nest_unreserve(r->extra);
        cg_give(&r->saved, r->cg);
        team_free(r->team);
        gomp_detach_region_end(r->parked);   /* none of the region's left */
    } else if (r->team) {
        lc_barrier_wait(lc_self, &r->team->barrier);
        gomp_thr = r->saved;
        lc_task_icvs = r->saved_icvs;
        lc_team_join(r->saved_task);
        cg_give(&r->saved, r->cg);
        team_free(r->team);
        gomp_detach_region_end(r->parked);   /* its tasks are Locus tasks: none parked */
    } else {
        /* detach.c: the events of this region's tasks, not of those around it */
        gomp_detach_region_end(r->parked);
        gomp_ws_release(&r->local);   /* loop.c: what the last loop owned */
        gomp_thr = r->saved;
        lc_task_icvs = r->saved_icvs;
    }
}

void gomp_parallel(void (*fn)(void *), void *data, unsigned num_threads,
                   const struct gomp_ws *preset)
{
    struct gomp_region r;
    region_begin(&r, fn, data, num_threads, preset, NULL);
    fn(data);
    region_end(&r);
}

GOMP_EXPORT void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads,
                               unsigned flags)
{
    (void)flags;   /* proc_bind: workers are bound by LOCUS_BIND */
    gomp_parallel(fn, data, num_threads, NULL);
}

/* parallel reduction(task, ...): the region's reduction arrays are the
 * first word of data; gcc's code combines and unregisters them after.
 * Returns the team's size. */
GOMP_EXPORT unsigned GOMP_parallel_reductions(void (*fn)(void *), void *data,
                                              unsigned num_threads, unsigned flags)
{
    (void)flags;
    struct gomp_region r;
    region_begin(&r, fn, data, num_threads, NULL, *(uintptr_t **)data);
    unsigned n = r.team ? (unsigned)r.team->nthreads : 1;
    fn(data);
    region_end(&r);
    return n;
}

/* The pre-4.0 ABI: the caller runs fn(data) itself between the two. */
GOMP_EXPORT void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads)
{
    struct gomp_region *r = malloc(sizeof *r);
    if (!r)
        gomp_unsupported("GOMP_parallel_start", "out of memory for a parallel region");
    region_begin(r, fn, data, num_threads, NULL, NULL);
    gomp_thr.region = r;
}

GOMP_EXPORT void GOMP_parallel_end(void)
{
    struct gomp_region *r = gomp_thr.region;
    if (!r)
        gomp_unsupported("GOMP_parallel_end", "called outside GOMP_parallel_start");
    region_end(r);
    free(r);
}

GOMP_EXPORT void GOMP_barrier(void)
{
    struct gomp_thread *thr = &gomp_thr;
    if (thr->team)
        gomp_team_barrier(thr->team);
    else
        gomp_detach_wait_parked();   /* detach.c: tasks of a region of one thread */
}

GOMP_EXPORT bool GOMP_single_start(void)
{
    struct gomp_thread *thr = &gomp_thr;
    if (!thr->team)
        return true;
    /* the k-th single construct goes to the first member to move the
     * count from k to k + 1 */
    uint64_t k = thr->single_seen++;
    uint64_t expect = k;
    return atomic_compare_exchange_strong(&thr->team->single_count, &expect, k + 1);
}

/* single copyprivate(...): the member that runs the single publishes the
 * address of its values in GOMP_single_copy_end; the others, waiting in
 * GOMP_single_copy_start, read them after the barrier both pass.  The
 * barrier gcc puts after the construct keeps the values alive until then. */
GOMP_EXPORT void *GOMP_single_copy_start(void)
{
    struct gomp_thread *thr = &gomp_thr;
    if (!thr->team || GOMP_single_start())
        return NULL;
    gomp_team_barrier(thr->team);
    return thr->team->copyprivate;
}

GOMP_EXPORT void GOMP_single_copy_end(void *data)
{
    struct gomp_thread *thr = &gomp_thr;
    if (!thr->team)
        return;
    thr->team->copyprivate = data;   /* published by the barrier's release */
    gomp_team_barrier(thr->team);
}
