/*
 * gomp.h - internals of liblocus-gomp, the libgomp-compatible layer: what
 * each thread knows about the parallel region it is in, the team of a
 * region, and the helpers the GOMP_* and omp_* entry points share.
 *
 * Model: a parallel region's team is every Locus worker (the worker pool
 * is restarted when a region asks for a different size, see parallel.c);
 * a region nested in an active one, or started by a thread that is not a
 * worker, runs on the calling thread alone, and tasks created there run
 * at once (a team of one thread may execute them immediately).
 */
#ifndef LC_GOMP_H
#define LC_GOMP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "team.h"

#define GOMP_EXPORT __attribute__((visibility("default")))

/* libgomp's schedule kinds (omp_sched_t values) */
enum gomp_sched { GS_STATIC = 1, GS_DYNAMIC = 2, GS_GUIDED = 3, GS_AUTO = 4 };

/* A worksharing loop in progress.  Iterations are numbered 0..n-1 here;
 * the entry points convert to and from the user's start/incr. */
struct gomp_ws {
    _Atomic uint64_t construct;   /* 1 + number of the construct using it, 0 free */
    _Atomic int users;            /* members that have not left it */
    int sched;
    uint64_t n, chunk;
    long long start, incr;        /* user's bounds, signed or two's complement */
    _Alignas(64) _Atomic uint64_t next;   /* first iteration not handed out */
};

#define GOMP_WS_RING 8   /* constructs members may be apart (nowait loops) */

struct gomp_region;

/* teams.c: the league a thread runs a team of (teams run one after the
 * other on the encountering thread) and the thread-limit-var ICV that
 * teams and target regions set; all 0 outside them.  Part of the thread's
 * state (gomp_thr.teams): the members of a parallel region inherit it, and
 * a target region, a new initial task, starts with it cleared. */
struct gomp_teams_thr {
    unsigned num_teams;           /* 0: not in a teams region (one team) */
    unsigned team_num;
    int thread_limit;             /* 0: the global thread-limit-var */
    struct gomp_icv *icv;         /* target.c: the dyn, run-sched and max-active-levels
                                   * ICVs of a target region's data environment;
                                   * NULL: the global ones (gomp_icv) */
};


struct gomp_team {
    int nthreads;
    unsigned level;               /* nesting level of the region (1 outermost) */
    struct lc_barrier barrier;
    _Atomic uint64_t single_count;   /* single constructs claimed so far */
    pthread_mutex_t ws_lock;
    struct gomp_ws ws[GOMP_WS_RING];
    void (*fn)(void *);
    void *data;
    int preset;                   /* members start in loop 0 (combined parallel loop) */
    void *copyprivate;            /* single copyprivate: the winner's values */
    int nthreads_var;             /* the ICV of the task that started the region */
    uintptr_t def_allocator;      /* alloc.c: the members inherit it too */
    struct gomp_teams_thr teams;  /* teams.c: and this */
};

/* Per thread: the innermost region it takes part in. */
struct gomp_thread {
    struct gomp_team *team;       /* NULL: sequential part, or a region of one thread */
    int id;                       /* thread number in team */
    unsigned level;               /* parallel regions enclosing (active or not) */
    unsigned active_level;        /* of those, the ones with more than one thread */
    int in_final;                 /* running a final or included task */
    uint64_t single_seen, ws_seen;   /* constructs met in the current region */
    struct gomp_ws *ws;           /* loop being run */
    struct gomp_ws *serial_ws;    /* loop storage of a region of one thread */
    uint64_t static_next;         /* static loops: chunk number to take next */
    int nthreads_var;             /* omp_set_num_threads() of this thread, 0 unset */
    struct gomp_region *region;   /* innermost GOMP_parallel_start region it started */
    /* The OpenMP task running here, which owns the nestable locks it sets
     * (sync.c): task_id while the Locus task running is still task_cur
     * (an implicit or included task), else the running Locus task. */
    const void *task_id;
    struct lc_task *task_cur;
    uintptr_t def_allocator;      /* alloc.c: omp_set_default_allocator(), 0 unset */
    struct gomp_teams_thr teams;  /* teams.c */
};
/* Marks the calling thread as running a new implicit or included task
 * known by id (see task_id above). */
void gomp_task_id_set(const void *id);

extern __thread struct gomp_thread gomp_thr __attribute__((tls_model("initial-exec")));

/* icv.c: environment and global settings */
struct gomp_icv {
    int nthreads;                 /* OMP_NUM_THREADS (first value), 0 unset */
    int run_sched, run_chunk;     /* OMP_SCHEDULE */
    int dynamic, max_active_levels;
    int max_task_priority;        /* OMP_MAX_TASK_PRIORITY, default 0 (priorities ignored) */
    int cancellation;             /* OMP_CANCELLATION (see cancel.c) */
};
extern struct gomp_icv gomp_icv;
/* The ICVs that omp_set_dynamic, omp_set_schedule and
 * omp_set_max_active_levels change: gomp_icv, or a target region's own */
struct gomp_icv *gomp_cur_icv(void);
/* The ICVs as the environment set them (a target region starts with these) */
extern struct gomp_icv gomp_icv_initial;
void gomp_read_env(void);
/* The thread count a region started here would ask for. */
int gomp_nthreads_var(void);

/* loop.c: iterations of for (i = start; i < end (incr > 0) or i > end;
 * i += incr), and of the unsigned form with its direction given */
unsigned long long gomp_count_long(long start, long end, long incr);
unsigned long long gomp_count_ull(bool up, unsigned long long start, unsigned long long end,
                                  unsigned long long incr);

/* parallel.c */
/* The Locus worker of the calling thread when it may run team work (it is
 * a worker and the runtime runs in team mode), else NULL. */
struct lc_worker *gomp_worker(void);
/* The runtime started in team mode with at least one worker; 0 or -errno */
int gomp_ensure_runtime(int threads);
/* Runs a parallel region (num_threads 0: the nthreads ICV); preset, for
 * the combined parallel loops, is the loop every member starts in. */
void gomp_parallel(void (*fn)(void *), void *data, unsigned num_threads,
                   const struct gomp_ws *preset);
/* Stops the worker pool this layer started (omp_pause_resource): 0, or -1
 * when called inside a region or task, or by another thread. */
int gomp_pause_pool(void);
/* The ABI entry points the layer itself calls. */
void GOMP_barrier(void);
void GOMP_loop_end(void);
void GOMP_sections_end(void);
bool GOMP_single_start(void);
void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
               long arg_align, bool if_clause, unsigned flags, void **depend, int priority,
               void *detach);
void GOMP_taskwait_depend(void **depend);
void GOMP_taskgroup_start(void);
void GOMP_taskgroup_end(void);
/* The thread-limit-var ICV of the calling task. */
int gomp_thread_limit(void);
/* nteams-var and teams-thread-limit-var, for omp_display_env */
void gomp_teams_icvs(int *nteams, int *teams_thread_limit);

/* places.c: OMP_PLACES as omp_display_env shows it */
void gomp_places_print(FILE *f);
/* target.c: OMP_TARGET_OFFLOAD=mandatory (for omp_display_env) */
int gomp_target_offload_mandatory(void);

/* Loud failure for an unsupported use; names the entry point. */
_Noreturn void gomp_unsupported(const char *what, const char *why);

#endif /* LC_GOMP_H */
