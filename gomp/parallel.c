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

__thread struct gomp_thread gomp_thr;

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

static void warn_once(int rc)
{
    static _Atomic int warned;
    if (!atomic_exchange(&warned, 1))
        fprintf(stderr, "liblocus-gomp: warning: parallel regions run on one thread: %s (%s)\n",
                locus_strerror(rc), locus_error_message());
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

__attribute__((destructor)) static void gomp_fini(void)
{
    /* at exit, from the thread that started the pool outside any region:
     * joins the workers and prints the LOCUS_REPORT report if asked for */
    struct lc_worker *w = lc_self;
    if (started_here && lc_rt && w == &lc_rt->workers[0] && w->cur == lc_rt->root)
        locus_finalize();
}

/* One member's part of a region: the user's function, then the region's
 * closing barrier, which also waits for every task of the region. */
static void member_main(void *arg)
{
    struct gomp_team *team = arg;
    struct gomp_thread saved = gomp_thr;
    gomp_thr = (struct gomp_thread){
        .team = team, .id = lc_self->id, .level = saved.level + 1,
        .active_level = saved.active_level + 1, .nthreads_var = saved.nthreads_var,
    };
    if (team->preset) {                   /* a combined parallel loop */
        gomp_thr.ws = &team->ws[0];
        gomp_thr.ws_seen = 1;
    }
    team->fn(team->data);
    lc_barrier_wait(lc_self, &team->barrier);
    gomp_thr = saved;
}

/* A region of one thread: the caller runs it; its tasks run at once. */
static void run_serial(void (*fn)(void *), void *data, const struct gomp_ws *preset)
{
    struct gomp_thread saved = gomp_thr;
    struct gomp_ws local;
    gomp_thr = (struct gomp_thread){
        .team = NULL, .id = 0, .level = saved.level + 1, .active_level = saved.active_level,
        .nthreads_var = saved.nthreads_var, .serial_ws = &local,
    };
    if (preset) {
        memcpy(&local, preset, sizeof local);
        gomp_thr.ws = &local;
    }
    fn(data);
    gomp_thr = saved;
}

/* Starts a region; preset (combined loops) is the loop every member starts
 * in, copied into the team's first work-share slot. */
void gomp_parallel(void (*fn)(void *), void *data, unsigned num_threads,
                   const struct gomp_ws *preset)
{
    struct gomp_thread *thr = &gomp_thr;
    int n = num_threads ? (int)num_threads : gomp_nthreads_var();

    /* nested in an active region, or inside a task: one thread */
    if (thr->active_level > 0 || n == 1 || (lc_self && lc_rt && lc_self->cur != lc_rt->root)) {
        run_serial(fn, data, preset);
        return;
    }
    int rc = gomp_ensure_runtime(n);
    struct lc_worker *w = rc == 0 ? gomp_worker() : NULL;
    if (rc == 0 && (!w || w->id != 0))
        rc = -ENOTSUP;   /* a thread other than the pool's initial thread */
    struct gomp_team *team = NULL;
    if (rc == 0 && !(team = aligned_alloc(64, (sizeof *team + 63) / 64 * 64)))
        rc = -ENOMEM;
    if (rc == 0) {
        memset(team, 0, sizeof *team);
        team->nthreads = lc_rt->nworkers;
        team->level = thr->level + 1;
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
        rc = lc_team_run(member_main, team);
        pthread_mutex_destroy(&team->ws_lock);
        free(team);
        if (rc == 0)
            return;
    }
    if (rc != -ENOTSUP)
        warn_once(rc);
    run_serial(fn, data, preset);
}

GOMP_EXPORT void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads,
                               unsigned flags)
{
    (void)flags;   /* proc_bind: workers are bound by LOCUS_BIND */
    gomp_parallel(fn, data, num_threads, NULL);
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
