/*
 * runtime.h - the runtime's shared state (one instance between locus_init
 * and locus_finalize) and each worker's state, plus the internal entry
 * points the runtime files call on each other.  Per-worker state is padded
 * to cache lines: a worker's hot fields must never share a line with
 * another worker's (seeds: ramos-hoefler cache-line-aware).
 */
#ifndef LC_RUNTIME_H
#define LC_RUNTIME_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "deque.h"
#include "env.h"
#include "grain.h"
#include "instrument.h"
#include "task.h"
#include "taskpool.h"
#include "policy.h"
#include "topology.h"

struct lc_sched_ops;

/* Per-worker counters, written only by their worker (summed on demand). */
struct lc_worker_stats {
    _Atomic uint64_t tasks_run;
    _Atomic uint64_t spawned;           /* tasks spawned (what an exit reports unfinished) */
    _Atomic uint64_t first_touch;       /* first-touch tasks run */
    _Atomic uint64_t bytes[3];          /* dependency bytes by enum lc_dist_class */
    _Atomic uint64_t steals[3];         /* tasks taken from others, by distance class */
    _Atomic uint64_t sleeps;
    _Atomic uint64_t placed;            /* dependency bytes on the node each task was placed on */
    _Atomic uint64_t given_up;          /* tasks run here that a stalled node gave up (NAFT) */
    _Atomic uint64_t given_up_bytes;    /* their bytes on the node they were placed on */
};

/* Counters are written by their worker only; atomic (relaxed: a plain load
 * and store on the owner's side) so that locus_get_stats() may read them
 * from any thread at any time. */
static inline void lc_stat_add(_Atomic uint64_t *c, uint64_t v)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + v,
                          memory_order_relaxed);
}

/* One futex word and sleeper count per node, so a task queued for a node
 * can wake a worker that is allowed to take it. */
struct lc_node_sync {
    _Alignas(LC_CACHELINE) _Atomic uint32_t epoch;
    _Atomic int nsleepers;
    _Atomic int waking;     /* a wake-up was sent and no sleeper has come back since:
                               a hint for thieves (sched/naft.c), not part of the handshake */
    _Atomic uint64_t wake_ns;   /* when the pending wake-up was sent (lc_now_ns) */
    _Atomic uint64_t wake_lat;  /* how long sleepers of the node took to come back after a
                                   wake-up: a mean, in ns, 0 before one did (wait.c) */
};

struct lc_worker {
    /* read-mostly: written at init only, read by thieves and the scheduler */
    _Alignas(LC_CACHELINE) struct lc_runtime *rt;
    int id;
    int node;                                   /* logical NUMA node */
    int cpu;                                    /* real OS CPU bound to, -1 none */
    pthread_t thread;
    void *sched_local;                          /* the policy's part for this worker
                                                   (policy.h): the core never follows it */
    struct lc_taskpool_global *npool;           /* its node's descriptor stack (taskpool.h) */
    uintptr_t stack_floor;                      /* run.c: tasks run at their spawn only
                                                   while the stack is above this */
    /* written by the owner on every task: on a line no other thread reads */
    _Alignas(LC_CACHELINE) struct lc_task *cur; /* task running on this worker */
    struct lc_taskpool pool;
    uint64_t rng;
    unsigned idle_polls;                        /* failed pops in a row (policies read it) */
    int last_look;                              /* the last look before sleeping: a policy
                                                   takes what its patience rules would leave */
    unsigned nest;                              /* tasks running on this stack, one on top of
                                                   the other (run.c) */
    struct {                                    /* idle polling (spin.h) */
        unsigned limit;                         /* polls before sleeping, <= LOCUS_SPIN */
        uint64_t last_ns;                       /* the clock at the last check */
        uint64_t shared_ns;                     /* the clock when the CPU was last found
                                                   shared, 0 never */
    } spin;
    int at_spawn;                               /* running a task at its spawn (run.c) */
    uint32_t job_seen;                          /* team mode: the last job epoch taken here
                                                   (team.c), by whichever thread served it */
    void *job_ctx;                              /* team mode: while a job runs here, the
                                                   layer state of the thread running it
                                                   (thread.h, lc_thread_ctx), NULL else */
    uint64_t poll_next_ns;                      /* when a busy worker next calls the
                                                   polling services (events.c) */
    struct lc_trace_buf *trace;                 /* LOCUS_TRACE/LOCUS_DAG recording, NULL off
                                                   (instrument.h): each point's one branch */
    struct {                                    /* the throttle (wait.c, lc_throttle) */
        struct lc_task *task;                   /* the spawner it last let through ... */
        int64_t done;                           /* ... with so many children complete */
    } throttle;
    struct lc_grain_state grain;                /* body-length estimate (grain.h); its est
                                                   is read by others, seldom (lc_grain_ask) */
    _Alignas(LC_CACHELINE) struct lc_worker_stats stats;
    struct lc_worker_stats stats_base;          /* snapshot at locus_reset_stats() */
    /* threads waiting to be given this worker back (thread.h): written by
     * whoever unblocks a task, read by the serving thread between tasks */
    _Alignas(LC_CACHELINE) _Atomic int nresume;
    pthread_mutex_t rlock;
    struct lc_thread *rhead, *rtail;
};

struct lc_runtime {
    struct lc_options opt;
    struct lc_topology topo;
    const struct lc_sched_ops *sched;
    void *sched_data;                   /* the policy's state (policy.h): never followed here */
    int sched_inited;
    /* a task with a priority was spawned: from then on the ready decision
     * asks the policy for the priority it has queued (ready.h).  Written
     * once, by the first such spawn. */
    _Atomic int prio_on;
    /* tasks may block (the program has used a blocking interface:
     * lc_blocking_note): from then on no task runs at its spawn and a
     * waiting thread gives its worker away instead of running tasks above
     * its frame (ready.h, wait.c; thread.h says why).  Written once. */
    _Atomic int blocking;
    int nworkers;
    int oversubscribed;                 /* more workers than CPUs */
    struct lc_worker *workers;          /* nworkers, cache-line aligned */
    struct lc_task *root;               /* the program's implicit task */
    int saved_affinity_valid;
    void *saved_affinity;               /* initial thread's cpu_set_t */

    /* locality (locality.c); track is 0 on one node, where all is local */
    int track;
    int initial_node;                   /* node of the initial thread (worker 0) */
    int (*spread_classes)[3];           /* per node: nodes in use in each distance class */
    struct lc_directory *dir;
    /* bookings moved from where tasks were placed by them (a first-touch
     * task ran elsewhere, locus_forget, locus_alloc, locus_free): a task
     * placed before a move is placed again when it becomes ready
     * (locality.c).  Written only on such moves: a line of its own. */
    _Alignas(LC_CACHELINE) _Atomic uint32_t moves;
    _Alignas(LC_CACHELINE) int *node_nworkers;  /* workers per node */
    int *node_home;                     /* node -> itself, or the nearest node with workers */
    int *ft_nodes, n_ft_nodes;          /* nodes with workers, for dealing first-touch tasks */
    uint64_t t0_ns;                     /* stats clock start */
    int mempolicy_set;                  /* DI on a real machine: interleave policy installed */
    int saved_policy;                   /* the initial thread's policy before it (mode|flags) */
    unsigned long saved_nodes[16];      /* and its node mask, restored at finalize */
    struct lc_grain grain;              /* LOCUS_GRAIN_NS in clock ticks (grain.h) */
    struct lc_trace_buf *trace_bufs;    /* per worker, NULL without LOCUS_TRACE/LOCUS_DAG */

    /* the nodes' descriptor stacks (taskpool.h), nnodes entries, each on
     * lines of its own: a pool's lock changes hands every LC_POOL_BATCH
     * tasks a worker frees or allocates */
    struct lc_taskpool_global *npools;

    /* sleeping and waking (wait.c) */
    struct lc_node_sync *nsync;         /* nnodes entries */
    _Alignas(LC_CACHELINE) _Atomic int nsleep_total;   /* sum of the nodes' nsleepers */
    _Alignas(LC_CACHELINE) _Atomic int ntw_sleepers;  /* threads asleep waiting for a condition */
    _Alignas(LC_CACHELINE) _Atomic int stop;
    /* the threads (thread.c): every one started, and the idle ones */
    pthread_mutex_t threads_lock;
    struct lc_thread *threads_all, *threads_idle;
    int nthreads;
    _Atomic int nsuspended;             /* threads asleep in a blocked task */
    /* threads that gave their worker away to wait for a condition (wait.c)
     * sleep on cond_epoch, bumped by lc_wake_all while any do */
    _Alignas(LC_CACHELINE) _Atomic uint32_t cond_epoch;
    _Atomic int ncond_parked;
    _Atomic uint32_t started;                        /* threads set up (init.c, thread.c;
                                                        futex word) */

    /* team mode (team.c): idle workers wait for a job, not for tasks */
    int team_mode;
    _Alignas(LC_CACHELINE) _Atomic uint32_t job_epoch; /* bumped per job posted (futex word) */
    _Atomic int job_sleepers;
    void (*job_fn)(void *);
    void *job_arg;
    struct lc_task **job_implicit;                   /* per worker, allocated by the poster */
    _Alignas(LC_CACHELINE) _Atomic uint32_t job_running; /* workers still inside the job
                                                          * (futex word of the join) */
    _Atomic int join_sleeping;                       /* the poster sleeps on job_running */

    /* who wrote LOCUS_REPORT, LOCUS_TRACE, LOCUS_DAG (exit.c's lock) */
    int outputs_by;                                  /* enum lc_outputs_by */
};

/* Calls a task body on w, timing one body in LC_GRAIN_EVERY for the
 * body-length estimate (grain.h). */
static inline void lc_run_fn(struct lc_worker *w, locus_task_fn fn, void *arg)
{
    if (__builtin_expect(--w->grain.countdown == 0, 0)) {
        const struct lc_grain *g = &w->rt->grain;
        w->grain.countdown = w->grain.timed < LC_GRAIN_FIRST ? (w->grain.timed++, 1) : LC_GRAIN_EVERY;
        uint64_t t0 = lc_ticks();
        fn(arg);
        if (g->rate)
            lc_grain_note(g, &w->grain, lc_ticks() - t0);
    } else {
        fn(arg);
    }
}

/* grain.c: w's estimate becomes the mean of a few other workers'. */
void lc_grain_ask(struct lc_worker *w);

/* Whether w runs a ready task it is spawning at once, by body length
 * (grain.h); never inside a task run so (run.c, LC_RUN_SPAWN). */
static inline int lc_grain_run_here(struct lc_worker *w)
{
    if (w->at_spawn)
        return 0;
    int r = lc_grain_check(&w->rt->grain, &w->grain);
    if (__builtin_expect(r == LC_GRAIN_ASK, 0)) {
        lc_grain_ask(w);
        return 0;
    }
    return r;
}

/* The running runtime, NULL outside init..finalize. */
extern struct lc_runtime *lc_rt;
/* A layer whose runtime starts on first use (gomp/parallel.c, at load)
 * sets this: called, from the initial thread, by an entry that needs the
 * runtime and may come before the layer's own first use (alpi/alpi.c). */
extern void (*lc_autostart)(void);
/* The calling thread's worker, NULL on foreign threads. */
extern __thread struct lc_worker *lc_self __attribute__((tls_model("initial-exec")));

/*
 * The data environment of the task body running on this thread: the ICVs
 * an OpenMP task sets for itself (omp_set_num_threads, omp_set_schedule,
 * omp_set_dynamic) and passes on to what it creates, which the OpenMP
 * layers keep here (gomp/gomp.h says what the fields hold; 0: unset, the
 * environment's value).  The core makes them each task's own: every body
 * starts with them zero (a task that inherits some sets them first) and
 * the thread gets its own back when the body returns (lc_call_body), so
 * that a task run by a thread waiting in another task neither sees the
 * waiting task's ICVs nor leaves its own behind.
 */
struct lc_icvs {
    int nthreads;                 /* nthreads-var */
    int run_sched, run_chunk;     /* run-sched-var */
    int dyn;                      /* dyn-var */
};
extern __thread struct lc_icvs lc_task_icvs __attribute__((tls_model("initial-exec")));

/* run.c: how a ready task runs (lc_run). */
enum lc_run_ctx {
    LC_RUN_TAKEN,    /* taken from a queue, or handed back to run next: a successor it
                        releases may run next on w, and so on */
    LC_RUN_SPAWN,    /* at its spawn, on its spawner: what it releases is queued, and
                        the tasks it spawns are not run at their spawn */
};
/* run.h: lc_run, the one way a ready task runs, and lc_complete, the one
 * completion routine. */
/* run.c: the task's parent map dropped its last reference. */
void lc_task_unmapped(struct lc_worker *w, struct lc_task *t);
/* spawn.c: the task a queue item stands for: the descriptor, or one made
 * for a light item from w's pool (or its reserve); NULL when there was no
 * memory for one, and the item went back to the policy's queues. */
struct lc_task *lc_item_open(struct lc_worker *w, const struct lc_qitem *it);

/* wait.c */
void lc_wait_children(struct lc_worker *w, struct lc_task *t, int64_t max_outstanding);
/* wait.c: the throttle (spawn.c): t has more than LOCUS_THROTTLE incomplete
 * children; runs tasks until half remain, or until it is clear that they
 * will not complete without t going on (locus(7) says when). */
void lc_throttle(struct lc_worker *w, struct lc_task *t);
/* wait.c: locus_finalize's wait for t's children: says on stderr, after a
 * while, what it waits for when tasks wait for events or are blocked. */
void lc_wait_children_final(struct lc_worker *w, struct lc_task *t);
void lc_worker_loop(struct lc_worker *w);
/* team.c: a team-mode thread's outermost loop, waiting for a job: runs
 * tasks on w until the job epoch differs from old; 1 when the thread gave
 * w away meanwhile (thread.h: it then leaves its loop). */
int lc_wait_job(struct lc_worker *w, uint32_t old);
/* lc_wake_workers wakes every sleeping worker (every node's sleepers);
 * lc_wake_all those and the threads waiting away from their workers for a
 * condition (wait.c: wait_away) too. */
void lc_wake_workers(struct lc_runtime *rt);
void lc_wake_all(struct lc_runtime *rt);
/* Wakes every sleeper of node (thread.c: the thread serving a worker there
 * has a thread to hand it to), and team-mode workers waiting for a job. */
void lc_wake_node_all(struct lc_runtime *rt, int node);
/* Runs tasks on w until *word differs from old; whoever changes the word
 * (with a seq_cst read-modify-write) then calls lc_wake_waiters(). */
void lc_wait_word(struct lc_worker *w, _Atomic uint32_t *word, uint32_t old);
/* The same for a task's 64-bit state word (events.c: a blocked task). */
void lc_wait_state(struct lc_worker *w, struct lc_task *t, uint64_t old);
/* lc_wait_word for locus_finalize, which says what it waits for after a
 * while (lc_wait_children_final). */
void lc_wait_word_final(struct lc_worker *w, _Atomic uint32_t *word, uint32_t old);
void lc_wake_waiters(struct lc_runtime *rt);
/* A task was queued where anyone may take it, by a thread that is not a
 * worker (events.c, independent.c). */
void lc_notify_any(struct lc_runtime *rt, int from_node);

/* A worker's stack, for the bound on what runs at a spawn (run.c): the
 * calling thread's stack from pthread_getattr_np, w->stack_floor set to
 * half way down it.  For the initial thread the pages down to the floor
 * are touched now (its stack grows on demand, and a stack that cannot grow
 * when memory or address space runs out kills the process). */
void lc_stack_setup(struct lc_worker *w);
/* Finds the calling thread's stack once (lc_stack_setup's first call does
 * if nothing did before): a thread the runtime starts does it while its
 * creator is still setting up, not at its first turn. */
void lc_stack_find(void);

/* What runs at a spawn is bounded: a task runs on top of its spawner's
 * frame only while fewer than LC_NEST_MAX tasks run on this stack below it
 * and the stack is above w->stack_floor (half its size left), so that no
 * chain of spawns, however long, overflows a stack: past the bound a task
 * is queued, and the worker runs it from its loop. */
#define LC_NEST_MAX 256
static inline int lc_stack_room(const struct lc_worker *w)
{
    return w->nest < LC_NEST_MAX && (uintptr_t)__builtin_frame_address(0) > w->stack_floor;
}

/* A policy took a task queued for from_node (policy.h): counted by
 * distance and told to the instrumentation. */
static inline void lc_note_steal(struct lc_worker *w, int from_node)
{
    struct lc_runtime *rt = w->rt;
    lc_stat_add(&w->stats.steals[rt->topo.nnodes == 1 ? LC_DIST_LOCAL
                : lc_topology_class(&rt->topo, w->node, from_node)], 1);
    lc_instr(w, mark, LC_EV_STEAL, (uint64_t)from_node);
}

/* A pusher's half of the sleep handshake (wait.c), between publishing a task
 * and reading a sleeper count: a full fence (one locked instruction on x86,
 * on no shared line).  TSan does not model fences: a seq_cst
 * read-modify-write of the word the sleeper's half also modifies instead. */
static inline void lc_push_fence(struct lc_runtime *rt)
{
#if LC_DEQUE_TSAN
    atomic_fetch_add_explicit(&rt->nsleep_total, 0, memory_order_seq_cst);
#else
    (void)rt;
    atomic_thread_fence(memory_order_seq_cst);
#endif
}

/* The sleeper's half, between announcing itself and its last look. */
static inline void lc_sleep_fence(struct lc_runtime *rt)
{
#if LC_DEQUE_TSAN
    atomic_fetch_add_explicit(&rt->nsleep_total, 0, memory_order_seq_cst);
#else
    (void)rt;
    atomic_thread_fence(memory_order_seq_cst);
#endif
}

/*
 * Waking, owned by the core: a policy's push says who may take what it
 * queued (policy.h), and the core wakes a sleeper accordingly.
 * LC_WAKE_ANY: any node's workers; n >= 0: node n's workers, or when none
 * of them sleeps, whoever the policy's wake_other hook names.
 */
/* wait.c: the slow half of lc_wake_for, once somebody sleeps. */
void lc_wake_slow(struct lc_worker *w, int target);

/* A task was queued by w for target (LC_WAKE_ANY or a node; LC_WAKE_NONE:
 * nobody). */
static inline void lc_wake_for(struct lc_worker *w, int target)
{
    if (target == LC_WAKE_NONE)
        return;
    struct lc_runtime *rt = w->rt;
    lc_push_fence(rt);   /* the pusher's half of wait.c's handshake */
    if (__builtin_expect(atomic_load_explicit(&rt->nsleep_total, memory_order_relaxed) > 0, 0))
        lc_wake_slow(w, target);
}

/* Node's workers all sleep and none is being woken: it has no capacity
 * for the tasks queued on it until a push wakes one (a hint). */
static inline int lc_node_asleep(const struct lc_runtime *rt, int node, int nworkers)
{
    return atomic_load_explicit(&rt->nsync[node].nsleepers, memory_order_relaxed) >= nworkers
           && !atomic_load_explicit(&rt->nsync[node].waking, memory_order_relaxed);
}

/* A wake-up was sent to node and none of its sleepers has come back since
 * (a hint). */
static inline int lc_node_waking(const struct lc_runtime *rt, int node)
{
    return atomic_load_explicit(&rt->nsync[node].waking, memory_order_relaxed);
}

/* The mean body time, in ns, of the tasks worker id runs (grain.h's span;
 * 0 before it timed one, or with one worker): a hint for policies. */
static inline uint64_t lc_body_ns(const struct lc_runtime *rt, int id)
{
    uint64_t span = atomic_load_explicit(&rt->workers[id].grain.span, memory_order_relaxed);
    return rt->grain.rate ? (span << 16) / rt->grain.rate : 0;
}

/* How long a sleeping worker of node takes to come back after a wake-up
 * (a mean, in ns; 0 before one did): a hint for policies, which tells a
 * machine whose wake-ups are slow (CPUs shared, a virtual machine's vCPUs
 * stopped by its host) from one whose workers come back at once. */
static inline uint64_t lc_wake_latency_ns(const struct lc_runtime *rt, int node)
{
    return atomic_load_explicit(&rt->nsync[node].wake_lat, memory_order_relaxed);
}

/* Tasks worker id has run (a hint for policies: progress, sched/naft.c). */
static inline uint64_t lc_tasks_run(const struct lc_runtime *rt, int id)
{
    return atomic_load_explicit(&rt->workers[id].stats.tasks_run, memory_order_relaxed);
}

/* Workers asleep on node (-1: on any node); a hint for policies (a racy
 * read: the handshake in wait.c does not depend on it, and a read after
 * lc_push_fence sees every sleeper counted before the other half's fence). */
static inline int lc_sleepers(const struct lc_runtime *rt, int node)
{
    return atomic_load_explicit(node >= 0 ? &rt->nsync[node].nsleepers : &rt->nsleep_total,
                                memory_order_relaxed);
}

/* A dependency longer than any address space can map orders tasks but is
 * not data: OpenMP's omp_all_memory, which the OpenMP layers spawn as the
 * range [1, UINTPTR_MAX).  Locality and the byte counts leave it out. */
#define LC_DEP_DATA_MAX ((size_t)1 << 57)
static inline int lc_dep_is_data(const locus_dep_t *d)
{
    return d->size <= LC_DEP_DATA_MAX;
}

/* locality.c (only called when rt->track) */
int lc_locality_init(struct lc_runtime *rt, char *err, size_t errlen);
void lc_locality_fini(struct lc_runtime *rt);
/* hint: the node the spawner asked for (locus_spawn_attr), -1 none; with a
 * hint, ndeps may be 0 */
void lc_locality_spawn(struct lc_worker *w, struct lc_task *t, const locus_dep_t *deps,
                       size_t ndeps, int hint);
void lc_locality_run(struct lc_worker *w, struct lc_task *t);
/* t, placed on a node stalled past its wait bound, was taken by another
 * node (sched/naft.c): its run counts it in the given-up figures. */
void lc_locality_given_up(struct lc_task *t);
/* Where t's dependency bytes are as its placement saw them (t->loc, before
 * lc_locality_run): bytes[n] on node n, the interleaved ones in *spread,
 * those it touches first in *touched (sim.c). */
void lc_locality_bytes(const struct lc_task *t, uint64_t *bytes, int nnodes, uint64_t *spread,
                       uint64_t *touched);
/* Bookings moved (see rt->moves). */
static inline void lc_locality_moved(struct lc_runtime *rt)
{
    atomic_fetch_add_explicit(&rt->moves, 1, memory_order_relaxed);
}
/* t, placed at its spawn, is ready: when bookings moved since, it is placed
 * again from what the directory knows now (the generation it was placed at
 * is the first word of t->loc). */
void lc_locality_replace(struct lc_worker *w, struct lc_task *t);
static inline void lc_locality_ready(struct lc_worker *w, struct lc_task *t)
{
    if (t->loc && *(const uint32_t *)(const void *)t->loc
                      != atomic_load_explicit(&w->rt->moves, memory_order_relaxed))
        lc_locality_replace(w, t);
}
void lc_locality_ran(struct lc_worker *w, struct lc_task *t);

/* spawn.c: -EPERM (not running) or -ENOTSUP (foreign thread), with a message */
int lc_not_worker(const char *fn);
/* reduction.c: lc_spawn_hinted() of a task taking part in red (locus_spawn_attr). */
int lc_reduction_spawn(locus_task_fn fn, const void *arg, size_t arg_size,
                       const locus_dep_t *deps, size_t ndeps, int hint, int prio,
                       const char *label, struct locus_reduction *red);
/* spawn.c: locus_spawn() asking a placing scheduler for node hint (-1 none),
 * with priority prio (0 none, else up to LOCUS_PRIORITY_MAX: sched/prio.h),
 * label (NULL none) and name_fn, the function a trace names it by without
 * a label (NULL: fn; gomp/ gives the program's behind its wrappers) */
int lc_spawn_hinted(locus_task_fn fn, const void *arg, size_t arg_size,
                    const locus_dep_t *deps, size_t ndeps, int hint, int prio,
                    const char *label, locus_task_fn name_fn);
/* A function that makes a task's argument copy at dst from src: an OpenMP
 * task's copy constructor (GOMP_task's cpyfn). */
typedef void (*lc_copy_fn)(void *dst, void *src);
/* spawn.c: locus_spawn() with its argument copy (arg_size bytes, at an
 * alignment of 64 up to LC_INLINE_ARG bytes and of 16 above) made by
 * cpyfn(copy, arg), as libgomp makes a task's firstprivate block, or by
 * memcpy when cpyfn is NULL */
int lc_spawn_copied(locus_task_fn fn, const void *arg, size_t arg_size, lc_copy_fn cpyfn,
                    const locus_dep_t *deps, size_t ndeps);
/* spawn.c: a task without dependencies, fn(arg) with arg not copied (the
 * caller keeps it alive until the task has run).  0 or -errno. */
int lc_spawn_ref(locus_task_fn fn, void *arg);
/* spawn.c: a task without dependencies run at once on the calling worker
 * (an undeferred OpenMP task), fn(arg) with arg not copied; name_fn as
 * lc_spawn_hinted's.  0, or -ENOMEM (nothing ran). */
int lc_spawn_here(locus_task_fn fn, void *arg, locus_task_fn name_fn);

/* spawn.c: queues a task without a parent (independent.c), light or with a
 * descriptor: 0, or -ENOMEM when neither the policy nor the pool had room. */
int lc_spawn_detached(struct lc_worker *w, locus_task_fn fn, void *arg);

/* attr.c: checks an options structure whose first field is its size as the
 * caller compiled it (locus_task_attr_t, locus_place_t): size >= min (the
 * first version's), and the bytes past known (this version's sizeof), which
 * only a newer caller has, all 0.  0 or -EINVAL with a message naming fn. */
int lc_struct_check(const void *p, size_t size, size_t min, size_t known,
                    const char *fn, const char *type);

/* exit.c: the outputs of a run that ends without locus_finalize.  arm: at
 * the end of a successful init (the atexit handler, the signal handlers
 * and their thread).  claim: locus_finalize, once the workers stopped; 1
 * if the outputs are still its to write.  disarm: locus_finalize, last:
 * the signals restored, then lc_rt = NULL under exit.c's lock. */
enum lc_outputs_by { LC_OUT_NONE, LC_OUT_FINALIZE, LC_OUT_EXIT, LC_OUT_SIGNAL };
void lc_exit_arm(struct lc_runtime *rt);
int lc_exit_claim(struct lc_runtime *rt);
void lc_exit_disarm(struct lc_runtime *rt);

/* The child of a fork() forgets the parent's runtime (init.c, exit.c,
 * poll.c): lc_rt, lc_self and lc_thr NULL, the locks afresh, our signal
 * handlers and their thread gone, so that the child's next start is a
 * fresh process's.  Called from a pthread_atfork child handler, on the
 * one thread the child has (gomp/parallel.c). */
void lc_forget_after_fork(void);
void lc_exit_forget_after_fork(void);
void lc_poll_forget_after_fork(void);

/* stats.c */
uint64_t lc_now_ns(void);
int lc_stats_check_report(const char *dest, char *err, size_t errlen);
/* ended: NULL at locus_finalize, else how the run ended without it (exit.c) */
int lc_stats_report(struct lc_runtime *rt, const char *ended, uint64_t unfinished);

/* error.c */
int lc_error(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lc_error_clear(void);

static inline int64_t lc_task_outstanding(struct lc_task *t)
{
    /* children spawned minus children completed; only the task's own thread asks */
    return t->nspawned - (LC_BIAS - atomic_load_explicit(&t->pending, memory_order_acquire));
}

#endif /* LC_RUNTIME_H */
