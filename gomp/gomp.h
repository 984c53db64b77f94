/*
 * gomp.h - internals of liblocus-gomp, the libgomp-compatible layer: what
 * each thread knows about the parallel region it is in, the team of a
 * region, and the helpers the GOMP_* and omp_* entry points share.
 *
 * Model: an outermost parallel region's team is every Locus worker (the
 * worker pool is restarted when a region asks for a different size, see
 * parallel.c); a region nested in an active one gets a team of extra
 * threads (nest.c) while max-active-levels allows, else runs on the calling
 * thread alone, as does a region started by a thread that is not a worker.
 * Tasks are Locus tasks in the outermost team only; elsewhere they run at
 * once (a team whose members are not all workers may execute them at
 * their creation).
 */
#ifndef LC_GOMP_H
#define LC_GOMP_H

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "futex.h"
#include "team.h"

#define GOMP_EXPORT __attribute__((visibility("default")))

/* The library this layer is linked into, as its messages name it
 * ("liblocus-gomp", "liblocus-omp": the generated stubs of each define
 * it), and the runtime a program would otherwise run on ("libgomp",
 * "libomp"). */
extern const char gomp_layer_name[], gomp_layer_native[];
/* A warning or error on stderr, prefixed with the library's name. */
#define gomp_say(fmt, ...) fprintf(stderr, "%s: " fmt, gomp_layer_name, ##__VA_ARGS__)

/* One step of a wait for another member of the team (ordered turns,
 * doacross sinks, cancellable barriers): a few pauses, then the core is
 * yielded, as the member waited for may need it (teams can be larger
 * than the machine). */
static inline void gomp_pause(unsigned *spins)
{
    if (++*spins < 64)
        cpu_relax();
    else
        sched_yield();
}

/* libgomp's schedule kinds (omp_sched_t values), and the modifier bit
 * (omp_sched_monotonic) the run-sched ICV keeps with them */
enum gomp_sched { GS_STATIC = 1, GS_DYNAMIC = 2, GS_GUIDED = 3, GS_AUTO = 4 };
/* A loop kind of the layer's own, not an omp_sched_t: guided whose chunks
 * are multiples of the chunk (the SIMD width; clang's schedule(simd:guided)
 * through kmp/loop.c) */
#define GS_GUIDED_SIMD 5
#define GOMP_SCHED_MONOTONIC INT_MIN   /* 0x80000000 */

struct gomp_doacross;

/* A worksharing loop in progress.  Iterations are numbered 0..n-1 here;
 * the entry points convert to and from the user's start/incr. */
struct gomp_ws {
    _Atomic uint64_t construct;   /* 1 + number of the construct using it, 0 free */
    _Atomic int users;            /* members that have not left it */
    int sched;
    int ordered;                  /* ordered clause: chunks take turns (ordered.c) */
    uint64_t n, chunk;
    long long start, incr;        /* user's bounds, signed or two's complement */
    void *mem;                    /* the team's zeroed scratch block gcc asked for
                                     (GOMP_loop_start's mem), or NULL */
    struct gomp_doacross *dx;     /* ordered(n) depend(sink/source) state (doacross.c) */
    _Atomic int cancelled;        /* cancel for / cancel sections (cancel.c) */
    uintptr_t *task_red;          /* reduction(task, ...): the first member's arrays,
                                     whose chunks the others share (reduction.c) */
    _Alignas(64) _Atomic uint64_t next;   /* first iteration not handed out */
    _Alignas(64) _Atomic uint64_t ord_pos;   /* ordered: first iteration of the chunk
                                                whose turn it is */
};
/* Frees what a loop slot owns (its mem block, doacross state); the slot
 * stays usable. */
void gomp_ws_release(struct gomp_ws *ws);

#define GOMP_WS_RING 8   /* constructs members may be apart (nowait loops) */

struct gomp_region;

/* One level of parallel regions as a thread sees it (omp_get_team_size,
 * omp_get_ancestor_thread_num); level 0, the initial thread, is NULL. */
struct gomp_level {
    const struct gomp_level *up;
    int id, size;
};

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
    _Atomic int *cg_extra;        /* the contention group of a teams or target region:
                                   * threads beyond its initial one its parallel
                                   * regions use (parallel.c keeps them within
                                   * thread_limit); NULL outside one */
};


/* The data-environment ICVs a task sets for itself (omp_set_num_threads,
 * omp_set_schedule, omp_set_dynamic) and passes on to the tasks and
 * regions it creates: struct lc_icvs, those of the task running on a
 * thread in lc_task_icvs, which the core makes each task body's own
 * (runtime/runtime.h).  0 in a field: unset, the environment's value
 * (gomp_icv); run_sched and run_chunk as gomp_icv's, dyn 1 false, 2 true.
 * Zero as a whole for a task that set none, so that the common task path
 * carries nothing (gomp/task.c). */
static inline int gomp_denv_set(const struct lc_icvs *d)
{
    return (d->nthreads | d->run_sched | d->dyn) != 0;
}

struct gomp_team {
    int nthreads;
    unsigned level;               /* nesting level of the region (1 outermost) */
    unsigned active_level;        /* active levels, this one included */
    int nested;                   /* members are extra threads (nest.c), not the pool */
    const struct gomp_level *up;  /* the levels around the region */
    _Atomic int nest_running;     /* nested: extra members not yet gone */
    struct lc_barrier barrier;
    _Atomic uint64_t single_count;   /* single constructs claimed so far */
    pthread_mutex_t ws_lock;
    struct gomp_ws ws[GOMP_WS_RING];
    void (*fn)(void *);
    void *data;
    int preset;                   /* members start in loop 0 (combined parallel loop) */
    void *copyprivate;            /* single copyprivate: the winner's values */
    uintptr_t *reductions;        /* GOMP_parallel_reductions' arrays (reduction.c) */
    struct lc_icvs denv;          /* the ICVs of the task that started the region */
    _Atomic int cancelled;        /* cancel parallel (cancel.c) */
    struct {                      /* the barrier cancellation may interrupt (cancel.c) */
        _Alignas(64) _Atomic uint32_t arrived;
        _Atomic uint32_t gen;
    } cbar;
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
    uint64_t ord_lo, ord_hi;      /* ordered loops: the chunk held, lo == hi none */
    /* taskgroups of a thread without a team, whose tasks run at once
     * (cancel.c): how many are open, and the depth of the outermost
     * cancelled one, 0 none */
    unsigned serial_tg_depth, serial_tg_cancelled;
    uint64_t serial_tg_ws;        /* bit d-1: serial group of depth d is a worksharing
                                     construct's (cancel.c) */
    struct gomp_region *region;   /* innermost GOMP_parallel_start region it started */
    /* The OpenMP task running here, which owns the nestable locks it sets
     * (sync.c): task_id while the Locus task running is still task_cur
     * (an implicit or included task), else the running Locus task. */
    const void *task_id;
    struct lc_task *task_cur;
    /* task reductions (reduction.c): the region's arrays, and without a
     * team those of the thread's serial taskgroups, which it counts */
    uintptr_t *par_red, *serial_red;   /* serial_tg_depth (above) tells their groups apart */
    const struct gomp_level *lv;  /* the innermost level, NULL at level 0 */
    uintptr_t def_allocator;      /* alloc.c: omp_set_default_allocator(), 0 unset */
    struct gomp_teams_thr teams;  /* teams.c */
};
/* sync.c: the futex word every OpenMP lock and critical section is made
 * of (0 free, 1 held, 2 held with waiters), and the identity of the task
 * running here, which owns the nestable locks it sets. */
typedef _Atomic uint32_t lockword;
void gomp_lockword_lock(lockword *l);
void gomp_lockword_unlock(lockword *l);
int gomp_lockword_trylock(lockword *l);
const void *gomp_lock_owner_id(void);
/* Marks the calling thread as running a new implicit or included task
 * known by id (see task_id above). */
void gomp_task_id_set(const void *id);

extern __thread struct gomp_thread gomp_thr __attribute__((tls_model("initial-exec")));

/* icv.c: environment and global settings */
#define GOMP_NTHREADS_LIST 16   /* OMP_NUM_THREADS values kept (levels) */
struct gomp_icv {
    int nthreads;                 /* OMP_NUM_THREADS (first value), 0 unset */
    int nthreads_list[GOMP_NTHREADS_LIST];   /* OMP_NUM_THREADS's values, by level - 1 */
    int nthreads_list_len;
    int run_sched, run_chunk;     /* OMP_SCHEDULE: a gomp_sched kind, with
                                     GOMP_SCHED_MONOTONIC when monotonic; the chunk
                                     as omp_get_schedule gives it (static: 0 blocks) */
    int dynamic, max_active_levels;
    int max_task_priority;        /* OMP_MAX_TASK_PRIORITY, default 0 (priorities ignored) */
    int cancellation;             /* OMP_CANCELLATION (see cancel.c) */
    int display_affinity;         /* OMP_DISPLAY_AFFINITY (see display.c) */
};
/* display.c: with OMP_DISPLAY_AFFINITY, the calling thread's affinity line
 * at the start of its part of a parallel region, when it changed since
 * the thread's last one; serialized: the region has no team (libgomp
 * displays nothing for it, libomp does) */
void gomp_display_affinity_region(int serialized);
extern struct gomp_icv gomp_icv;
/* The ICVs that omp_set_dynamic, omp_set_schedule and
 * omp_set_max_active_levels change: gomp_icv, or a target region's own */
struct gomp_icv *gomp_cur_icv(void);
/* The ICVs as the environment set them (a target region starts with these) */
extern struct gomp_icv gomp_icv_initial;
void gomp_read_env(void);
/* The thread count a region started here would ask for. */
int gomp_nthreads_var(void);
/* run-sched-var as omp_get_schedule gives it, of the task running here */
void gomp_run_sched(int *kind, int *chunk);

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
/* The barrier of the calling member's team. */
void gomp_team_barrier(struct gomp_team *team);
/* The worker to run the calling thread's tasks as Locus tasks: the calling
 * worker in the outermost team, else NULL (the tasks run at once). */
static inline struct lc_worker *gomp_task_worker(void)
{
    return gomp_thr.team && !gomp_thr.team->nested ? lc_self : NULL;
}
/* nest.c: extra threads of nested teams.  reserve: a count of up to want
 * of them (fewer near the thread limit), unreserve gives it back; acquire
 * takes up to k threads (idle ones, else new ones) into out and returns
 * how many it got (fewer when no thread can be made); launch starts
 * members 1..nthreads-1 of team on the threads acquired; join waits until
 * they have all left the team; barrier: a plain barrier, for members that
 * have no tasks to run. */
struct nest_thread;
int gomp_nest_reserve(int want);
void gomp_nest_unreserve(int k);
int gomp_nest_acquire(int k, struct nest_thread **out);
void gomp_nest_launch(struct gomp_team *team, struct nest_thread **threads);
/* Threads acquired and not launched go back idle. */
void gomp_nest_release(struct nest_thread **threads, int n);
void gomp_nest_join(struct gomp_team *team);
void gomp_nest_barrier(struct lc_barrier *b);
/* The child of a fork: the parent's extra threads forgotten (parallel.c). */
void gomp_nest_forget_after_fork(void);

/* loop.c: the calling thread enters its next worksharing loop (sched
 * resolved, chunk 0 = static blocks); ordered: the loop has an ordered
 * clause; mem_size > 0: a zeroed team-shared block of that size is made
 * (returned through ws->mem); dx_counts: doacross with ncounts loops;
 * red: the construct's reduction(task, ...) arrays, or NULL (the member
 * opens a taskgroup with them, which GOMP_workshare_task_reduction_unregister
 * closes). */
struct gomp_ws *gomp_ws_enter(int sched, unsigned long long n, unsigned long long chunk,
                              unsigned long long start,
                              unsigned long long incr, int ordered, size_t mem_size,
                              unsigned ncounts, const unsigned long long *dx_counts,
                              uintptr_t *red);
/* GOMP_loop_start's schedule argument (libgomp's GFS_* with the monotonic
 * bit; 0 and GS_AUTO mean the run-sched ICV) and chunk, resolved. */
int gomp_sched_resolve(long sched, unsigned long long *chunk);
/* The calling thread's next chunk of its loop in the user's values. */
bool gomp_loop_next_ull(unsigned long long *istart, unsigned long long *iend);
/* The same in a signed loop's values (the GOMP_loop_* forms of long). */
bool gomp_loop_next_long(long *istart, long *iend);

/* ordered.c: an ordered loop's turn passing (see there) */
void gomp_ordered_pass(struct gomp_ws *ws);
/* doacross.c: the doacross state of a loop over ncounts loops (NULL when
 * waits need nothing: one thread, or an empty loop) */
struct gomp_doacross *gomp_doacross_new(unsigned ncounts, const unsigned long long *counts,
                                        int nthreads);
void gomp_doacross_free(struct gomp_doacross *dx);

/* cancel.c */
/* Cancellation is on (OMP_CANCELLATION) and the calling thread's team or
 * its innermost taskgroup is cancelled: a new task is not created. */
bool gomp_task_creation_cancelled(void);
/* A taskgroup begins or ends on a thread without a team (task.c). */
void gomp_serial_taskgroup(int begin);
/* The taskgroup just opened belongs to a worksharing construct with task
 * reductions (reduction.c): as in libgomp, cancel taskgroup inside it
 * cancels the enclosing group, and a cancelled enclosing group cancels it. */
void gomp_taskgroup_workshare(void);
/* Stops the worker pool this layer started (omp_pause_resource): 0, or -1
 * when called inside a region or task, or by another thread. */
int gomp_pause_pool(void);
/* The ABI entry points the layer itself calls. */
void GOMP_barrier(void);
void GOMP_loop_end(void);
void GOMP_loop_end_nowait(void);
void GOMP_sections_end(void);
void GOMP_sections_end_nowait(void);
bool GOMP_single_start(void);
void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
               long arg_align, bool if_clause, unsigned flags, void **depend, int priority,
               void *detach);
void GOMP_taskwait_depend(void **depend);
/* task.c: a deferred task whose argument is data itself, which the caller
 * keeps until the task has run; flags and depend as GOMP_task's.  0, or -1
 * when it must go through GOMP_task instead (gomp_task_plain false, more
 * dependences than the short path takes, no memory). */
int gomp_task_uncopied(void (*fn)(void *), void *data, unsigned flags, void **depend);
/* Whether a task created now with GOMP_task's flags (which hold neither
 * final, detach nor priority) may take GOMP_task's common path: a deferred
 * task of a team's thread, outside a final task and a nested team, whose
 * creator set no ICV (else the task is boxed, with them: lc_task_icvs). */
static inline int gomp_task_plain(void)
{
    const struct gomp_thread *thr = &gomp_thr;
    return thr->team && !thr->team->nested && !thr->in_final && !gomp_denv_set(&lc_task_icvs);
}
void GOMP_taskgroup_start(void);
void GOMP_taskgroup_end(void);
/* reduction.c: task reductions.  A taskgroup of a team (task.c) keeps
 * the reduction arrays its tasks see, inherited from the enclosing one. */
struct gomp_taskgroup {
    struct lc_taskgroup g;
    uintptr_t *reductions;
    int workshare;                /* opened by a worksharing construct's task
                                     reductions: cancel taskgroup means the
                                     enclosing group (cancel.c) */
};
/* The reduction arrays the running task sees, NULL none. */
uintptr_t *gomp_reductions(void);
void gomp_serial_reductions_pop(unsigned depth);
void gomp_parallel_reductions_register(uintptr_t *data, unsigned nthreads);
void gomp_taskloop_reductions(void *data);
/* reduction(task, ...) on a worksharing construct: opens the member's
 * taskgroup and registers data, on the chunks of orig (the first member's
 * arrays) unless orig is NULL (the first member);
 * GOMP_workshare_task_reduction_unregister ends it. */
void gomp_ws_reductions_begin(uintptr_t *data, const uintptr_t *orig);
void GOMP_taskgroup_reduction_register(uintptr_t *data);
void GOMP_taskgroup_reduction_unregister(uintptr_t *data);
void GOMP_workshare_task_reduction_unregister(bool cancelled);
/* The thread-limit-var ICV of the calling task. */
int gomp_thread_limit(void);
/* The program's: OMP_THREAD_LIMIT, at most LC_MAX_WORKERS. */
int gomp_global_thread_limit(void);
/* nteams-var and teams-thread-limit-var, for omp_display_env */
void gomp_teams_icvs(int *nteams, int *teams_thread_limit);

/* places.c: OMP_PLACES as omp_display_env shows it */
void gomp_places_print(FILE *f);
/* target.c: OMP_TARGET_OFFLOAD=mandatory (for omp_display_env) */
int gomp_target_offload_mandatory(void);

/* task.c: a depend object's kind that no gcc emits, for the LLVM layer's
 * omp_all_memory (kmp/task.c): an inout dependence on every byte, which
 * orders the task after every earlier sibling with dependences and every
 * later one after it */
#define GOMP_DEP_ALL_MEMORY 0x80

/* Loud failure for an unsupported use; names the entry point. */
_Noreturn void gomp_unsupported(const char *what, const char *why);

#endif /* LC_GOMP_H */
