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
#include "task.h"
#include "taskpool.h"
#include "topology.h"

struct lc_sched_ops;

struct lc_worker_stats {
    uint64_t tasks_run;
    uint64_t steals;
    uint64_t sleeps;
};

struct lc_worker {
    _Alignas(LC_CACHELINE) struct lc_deque dq;  /* ready tasks (oblivious scheduler) */
    _Alignas(LC_CACHELINE) struct lc_task *cur; /* task running on this worker */
    struct lc_runtime *rt;
    struct lc_taskpool pool;
    uint64_t rng;
    int id;
    int node;                                   /* logical NUMA node */
    int cpu;                                    /* real OS CPU bound to, -1 none */
    pthread_t thread;
    struct lc_worker_stats stats;
    void *sched_data;
};

struct lc_runtime {
    struct lc_options opt;
    struct lc_topology topo;
    const struct lc_sched_ops *sched;
    void *sched_data;
    int sched_inited;
    int nworkers;
    int oversubscribed;                 /* more workers than CPUs */
    struct lc_worker *workers;          /* nworkers, cache-line aligned */
    struct lc_task *root;               /* the program's implicit task */
    struct lc_taskpool_global gpool;
    int saved_affinity_valid;
    void *saved_affinity;               /* initial thread's cpu_set_t */

    /* sleeping and waking (wait.c) */
    _Alignas(LC_CACHELINE) _Atomic uint32_t epoch;   /* futex word */
    _Alignas(LC_CACHELINE) _Atomic int nsleepers;    /* threads asleep or about to be */
    _Atomic int ntw_sleepers;                        /* of which sleeping in a taskwait */
    _Alignas(LC_CACHELINE) _Atomic int stop;
    _Atomic int started;                             /* workers that reached their loop */
};

/* The running runtime, NULL outside init..finalize. */
extern struct lc_runtime *lc_rt;
/* The calling thread's worker, NULL on foreign threads. */
extern __thread struct lc_worker *lc_self __attribute__((tls_model("initial-exec")));

/* exec.c: run a ready task on w, then complete what completes. */
void lc_execute(struct lc_worker *w, struct lc_task *t);
/* exec.c: the body of t is done or its last child completed: finish it. */
void lc_task_complete(struct lc_worker *w, struct lc_task *t);
/* exec.c: the task's parent map dropped its last reference. */
void lc_task_unmapped(struct lc_worker *w, struct lc_task *t);

/* wait.c */
void lc_wait_children(struct lc_worker *w, struct lc_task *t, int64_t max_outstanding);
void lc_worker_loop(struct lc_worker *w);
void lc_wake_one(struct lc_runtime *rt);
void lc_wake_all(struct lc_runtime *rt);
void lc_notify_pushed(struct lc_runtime *rt);

/* spawn.c: -EPERM (not running) or -ENOTSUP (foreign thread), with a message */
int lc_not_worker(const char *fn);

/* error.c */
int lc_error(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lc_error_clear(void);

static inline int64_t lc_task_outstanding(struct lc_task *t)
{
    /* children spawned minus children completed; only the task's own thread asks */
    return t->nspawned - (LC_BIAS - atomic_load_explicit(&t->pending, memory_order_acquire));
}

#endif /* LC_RUNTIME_H */
