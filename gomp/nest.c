/*
 * nest.c - the threads of nested parallel regions.
 *
 * The outermost region's team is the Locus worker pool (parallel.c).  A
 * region nested in an active one, when max-active-levels allows, gets a
 * team of its own: the encountering thread as member 0 and extra threads,
 * which are not Locus workers, for the others.  Extra threads are made on
 * demand and kept, idle, for later nested regions (as libgomp keeps its
 * pool), up to OMP_THREAD_LIMIT threads in all (workers and extra threads,
 * at most LC_MAX_WORKERS); a region that would pass the limit gets the
 * threads that remain.  (The thread_limit of a teams or target construct
 * caps each region inside it, parallel.c: its contention group is the
 * league's or the target region's own, not the worker pool.)
 *
 * The members of a nested team are not all workers, so their tasks run at
 * once on the thread that creates them, as in a team of one thread (OpenMP
 * lets any task run at its creation); the Locus scheduling of the tasks of
 * the outermost team is unchanged, and a region nested in a task of it
 * keeps its own tasks to itself.  Barriers of a nested team are plain
 * ones: no member has tasks to run while it waits.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "futex.h"
#include "gomp.h"
#include "runtime.h"

/* An extra thread; on the idle list between regions. */
struct nest_thread {
    struct nest_thread *next;
    _Atomic uint32_t go;           /* futex word: bumped for each job */
    struct gomp_team *team;        /* the job: member id of team */
    int id;
};

static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nest_thread *idle;
static _Atomic int extra_in_use;   /* extra threads in nested teams now */

/* Member id > 0 of a nested team, on an extra thread. */
static void member(struct gomp_team *team, int id)
{
    struct gomp_level lv = { .up = team->up, .id = id, .size = team->nthreads };
    gomp_thr = (struct gomp_thread){
        .team = team, .id = id, .level = team->level, .active_level = team->active_level,
        .par_red = team->reductions, .lv = &lv,
        .def_allocator = team->def_allocator, .teams = team->teams,
    };
    lc_task_icvs = team->denv;
    gomp_task_id_set(&lv);   /* the member's implicit task */
    if (team->preset) {
        gomp_thr.ws = &team->ws[0];
        gomp_thr.ws_seen = 1;
    }
    gomp_display_affinity_region(0);
    team->fn(team->data);
    gomp_team_barrier(team);
    gomp_thr = (struct gomp_thread){ 0 };
    lc_task_icvs = (struct lc_icvs){ 0 };
}

static void *nest_main(void *arg)
{
    struct nest_thread *t = arg;
    uint32_t seen = 0;
    for (;;) {
        uint32_t g;
        while ((g = atomic_load_explicit(&t->go, memory_order_acquire)) == seen)
            futex_wait(&t->go, seen);
        seen = g;
        struct gomp_team *team = t->team;
        member(team, t->id);
        /* idle again before the owner may go on, so that its next region
         * finds this thread; a job posted from then on is seen by the bump
         * of go (team and id were read before) */
        pthread_mutex_lock(&idle_lock);
        t->next = idle;
        idle = t;
        pthread_mutex_unlock(&idle_lock);
        /* the last touch of team: its owner frees it once every member left */
        atomic_fetch_sub_explicit(&team->nest_running, 1, memory_order_release);
    }
    return NULL;
}

int gomp_nest_reserve(int want)
{
    int pool = lc_rt ? lc_rt->nworkers : 1;
    int room = gomp_global_thread_limit() - pool;
    int cur = atomic_load_explicit(&extra_in_use, memory_order_relaxed);
    for (;;) {
        int k = want < room - cur ? want : room - cur;
        if (k <= 0)
            return 0;
        if (atomic_compare_exchange_weak_explicit(&extra_in_use, &cur, cur + k,
                                                  memory_order_relaxed, memory_order_relaxed))
            return k;
    }
}

void gomp_nest_unreserve(int k)
{
    atomic_fetch_sub_explicit(&extra_in_use, k, memory_order_relaxed);
}

int gomp_nest_acquire(int k, struct nest_thread **out)
{
    int got = 0;
    for (; got < k; got++) {
        pthread_mutex_lock(&idle_lock);
        struct nest_thread *t = idle;
        if (t)
            idle = t->next;
        pthread_mutex_unlock(&idle_lock);
        if (!t) {
            /* a new thread waits for its first job like an idle one */
            pthread_attr_t a;
            pthread_t th;
            if (!(t = calloc(1, sizeof *t)))
                break;
            pthread_attr_init(&a);
            pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
            int rc = pthread_create(&th, &a, nest_main, t);
            pthread_attr_destroy(&a);
            if (rc) {
                free(t);
                break;
            }
        }
        out[got] = t;
    }
    return got;
}

void gomp_nest_launch(struct gomp_team *team, struct nest_thread **threads)
{
    atomic_store_explicit(&team->nest_running, team->nthreads - 1, memory_order_relaxed);
    for (int id = 1; id < team->nthreads; id++) {
        struct nest_thread *t = threads[id - 1];
        t->team = team;
        t->id = id;
        atomic_fetch_add_explicit(&t->go, 1, memory_order_release);
        futex_wake(&t->go, 1);
    }
}

void gomp_nest_join(struct gomp_team *team)
{
    unsigned spins = 0;
    while (atomic_load_explicit(&team->nest_running, memory_order_acquire) > 0)
        if (++spins > 64)
            sched_yield();
        else
            cpu_relax();
}

void gomp_nest_barrier(struct lc_barrier *b)
{
    uint32_t g = atomic_load_explicit(&b->gen, memory_order_acquire);
    if (atomic_fetch_add_explicit(&b->arrived, 1, memory_order_acq_rel) + 1 == b->n) {
        atomic_store_explicit(&b->arrived, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&b->gen, 1, memory_order_release);
        futex_wake(&b->gen, INT_MAX);
        return;
    }
    for (unsigned spins = 0; atomic_load_explicit(&b->gen, memory_order_acquire) == g;)
        if (++spins < 256)
            cpu_relax();
        else
            futex_wait(&b->gen, g);
}

void gomp_nest_release(struct nest_thread **threads, int n)
{
    pthread_mutex_lock(&idle_lock);
    for (int i = 0; i < n; i++) {
        threads[i]->next = idle;
        idle = threads[i];
    }
    pthread_mutex_unlock(&idle_lock);
}

/* The child of a fork (parallel.c): the idle extra threads are the
 * parent's, not there; forgotten (leaked), never woken. */
void gomp_nest_forget_after_fork(void)
{
    pthread_mutex_init(&idle_lock, NULL);
    idle = NULL;
    atomic_store_explicit(&extra_in_use, 0, memory_order_relaxed);
}
