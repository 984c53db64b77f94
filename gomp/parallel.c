/*
 * parallel.c - parallel regions of the libgomp ABI (GOMP_parallel and the
 * combined parallel loops), barriers, single, and the start and end of the
 * Locus runtime under an OpenMP program.
 *
 * A region's team is the whole Locus worker pool, so that every task of the
 * region is run by a team member (omp_get_thread_num() inside a task is the
 * number of the thread running it, as with libgomp).  The pool is started
 * by the first region, in team mode, with the region's thread count; a
 * later outermost region asking for another count restarts it (what the
 * runtime learned about data placement starts afresh then).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "gomp.h"
#include "locus.h"
#include "runtime.h"
#include "task.h"

__thread struct gomp_thread gomp_thr __attribute__((tls_model("initial-exec")));

static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static int started_here;   /* the runtime was started by this layer */

_Noreturn void gomp_unsupported(const char *what, const char *why)
{
    fprintf(stderr, "liblocus-gomp: %s: %s; this program cannot run on Locus's OpenMP "
            "layer (run it on libgomp instead)\n", what, why);
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
    fprintf(stderr, "liblocus-gomp: warning: parallel regions run on one thread: %s (%s)\n",
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

__attribute__((destructor)) static void gomp_fini(void)
{
    /* at exit, from the thread that started the pool outside any region:
     * joins the workers and prints the LOCUS_REPORT report if asked for */
    struct lc_worker *w = lc_self;
    if (started_here && lc_rt && w == &lc_rt->workers[0] && w->cur == lc_rt->root)
        locus_finalize();
}

/* The state of member id of team, entered from saved; task_id: an address
 * unique while the member's implicit task runs (it owns nestable locks). */
static void member_enter(struct gomp_team *team, int id, const struct gomp_thread *saved,
                         const void *task_id)
{
    gomp_thr = (struct gomp_thread){
        .team = team, .id = id, .level = saved->level + 1,
        .active_level = saved->active_level + 1, .nthreads_var = team->nthreads_var,
        .def_allocator = team->def_allocator, .teams = team->teams,
    };
    gomp_task_id_set(task_id);
    if (team->preset) {                   /* a combined parallel loop */
        gomp_thr.ws = &team->ws[0];
        gomp_thr.ws_seen = 1;
    }
}

/* Member i > 0's part of a region: the user's function, then the region's
 * closing barrier, which also waits for every task of the region. */
static void member_main(void *arg)
{
    struct gomp_team *team = arg;
    struct gomp_thread saved = gomp_thr;
    member_enter(team, lc_self->id, &saved, &saved);
    team->fn(team->data);
    lc_barrier_wait(lc_self, &team->barrier);
    gomp_thr = saved;
}

/* A parallel region seen from the thread that starts it. */
struct gomp_region {
    struct gomp_thread saved;     /* the thread's state outside */
    struct gomp_team *team;       /* NULL: the region has one thread */
    struct lc_task *saved_task;
    struct gomp_ws local;         /* loop storage when it has one thread */
};

static struct gomp_team *team_new(void (*fn)(void *), void *data, const struct gomp_ws *preset)
{
    struct gomp_team *team = aligned_alloc(64, (sizeof *team + 63) / 64 * 64);
    if (!team)
        return NULL;
    memset(team, 0, sizeof *team);
    team->nthreads = lc_rt->nworkers;
    team->nthreads_var = gomp_thr.nthreads_var;   /* the members inherit it */
    team->def_allocator = gomp_thr.def_allocator;
    team->teams = gomp_thr.teams;
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
    pthread_mutex_destroy(&team->ws_lock);
    free(team);
}

/*
 * Starts a region on the calling thread, which then runs fn's part of
 * member 0 and calls region_end(): with the whole worker pool when the
 * caller is the pool's initial thread outside any region or task, else
 * (nested, inside a task, on another thread, or the runtime cannot start)
 * with the calling thread alone.  preset: the combined loop members start in.
 */
static void region_begin(struct gomp_region *r, void (*fn)(void *), void *data,
                         unsigned num_threads, const struct gomp_ws *preset)
{
    struct gomp_thread *thr = &gomp_thr;
    int n = num_threads ? (int)num_threads : gomp_nthreads_var();
    /* teams.c hook: a teams or target thread_limit caps the team */
    if (n > gomp_thread_limit())
        n = gomp_thread_limit();
    r->saved = *thr;
    r->team = NULL;

    int rc = -ENOTSUP;
    gomp_read_env();
    if (thr->active_level == 0 && n != 1 && gomp_icv.max_active_levels > 0
        && !(lc_self && lc_rt && lc_self->cur != lc_rt->root)
        && (rc = gomp_ensure_runtime(n)) == 0) {
        struct lc_worker *w = gomp_worker();
        if (!w || w->id != 0)
            rc = -ENOTSUP;   /* not the thread the pool belongs to */
        else if (!(r->team = team_new(fn, data, preset)))
            rc = -ENOMEM;
        else if ((rc = lc_team_start(member_main, r->team, &r->saved_task)) < 0) {
            team_free(r->team);
            r->team = NULL;
        }
    }
    if (r->team) {
        member_enter(r->team, 0, &r->saved, r);
        return;
    }
    if (rc != -ENOTSUP)
        warn_once(rc);
    gomp_thr = (struct gomp_thread){
        .team = NULL, .id = 0, .level = r->saved.level + 1,
        .active_level = r->saved.active_level, .nthreads_var = r->saved.nthreads_var,
        .serial_ws = &r->local, .def_allocator = r->saved.def_allocator,
        .teams = r->saved.teams,
    };
    gomp_task_id_set(r);   /* the region's implicit task */
    if (preset) {
        memcpy(&r->local, preset, sizeof r->local);
        gomp_thr.ws = &r->local;
    }
}

static void region_end(struct gomp_region *r)
{
    if (r->team) {
        lc_barrier_wait(lc_self, &r->team->barrier);
        gomp_thr = r->saved;
        lc_team_join(r->saved_task);
        team_free(r->team);
    } else {
        gomp_thr = r->saved;
    }
}

void gomp_parallel(void (*fn)(void *), void *data, unsigned num_threads,
                   const struct gomp_ws *preset)
{
    struct gomp_region r;
    region_begin(&r, fn, data, num_threads, preset);
    fn(data);
    region_end(&r);
}

GOMP_EXPORT void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads,
                               unsigned flags)
{
    (void)flags;   /* proc_bind: workers are bound by LOCUS_BIND */
    gomp_parallel(fn, data, num_threads, NULL);
}

/* The pre-4.0 ABI: the caller runs fn(data) itself between the two. */
GOMP_EXPORT void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads)
{
    struct gomp_region *r = malloc(sizeof *r);
    if (!r)
        gomp_unsupported("GOMP_parallel_start", "out of memory for a parallel region");
    region_begin(r, fn, data, num_threads, NULL);
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
        lc_barrier_wait(lc_self, &thr->team->barrier);
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
    lc_barrier_wait(lc_self, &thr->team->barrier);
    return thr->team->copyprivate;
}

GOMP_EXPORT void GOMP_single_copy_end(void *data)
{
    struct gomp_thread *thr = &gomp_thr;
    if (!thr->team)
        return;
    thr->team->copyprivate = data;   /* published by the barrier's release */
    lc_barrier_wait(lc_self, &thr->team->barrier);
}
