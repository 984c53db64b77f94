/*
 * thread.h - the kernel threads that serve the workers, and how a task
 * that blocks gives its worker to another thread (thread.c).
 *
 * A worker (struct lc_worker) is a CPU: its queues, its pools, its
 * counters.  At any time exactly one kernel thread serves it (runs tasks
 * for it, as lc_self).  A task that blocks (locus_task_block, and through
 * it ALPI's block and waitfor and locus-mpi's waits) keeps its thread,
 * which sleeps; its worker is handed to another thread (one parked for
 * this worker, an idle one, or a new one), which goes on running tasks
 * there.  When the task is unblocked its thread is queued on that same
 * worker, and the thread serving it hands the worker back at its next
 * switch point (between two tasks of its loop, or before it sleeps): the
 * task resumes on its worker whatever ran there meanwhile, and the thread
 * that served in its place either goes idle (it was at its outermost loop)
 * or waits its turn on the worker's queue (it was waiting inside a task:
 * a taskwait, a barrier).  This is how Nanos6 and nOS-V suspend a task:
 * at most one running thread per CPU, the blocked ones asleep in the
 * kernel; doc/design.md says why it and not user-level stacks.
 *
 * What moves with a thread is the execution state of the worker it
 * serves: the running task (w->cur), how deep tasks are nested on its stack
 * (w->nest, w->at_spawn), its stack's bound (w->stack_floor) and its
 * throttle memory.  A thread saves it when it leaves a worker and puts it
 * back when it returns; a thread starting to serve one begins with none.
 */
#ifndef LC_THREAD_H
#define LC_THREAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

struct lc_worker;
struct lc_runtime;
struct lc_task;

struct lc_thread {
    _Alignas(64) _Atomic uint32_t go;   /* futex word: 1 once its turn has come */
    struct lc_worker *slot;             /* the worker it serves, or is to serve: set
                                           with its turn (give_turn, lc_thread_new,
                                           locus_init's thread) and unchanged while
                                           it serves, blocked tasks' unblockers read
                                           it (lc_thread_resume) */
    struct lc_worker *first;            /* the worker it was made for (lc_thread_new):
                                           set before its thread starts, never changed,
                                           so that it binds and allocates on that
                                           worker's node even if stopped (slot NULL)
                                           before it ran */
    struct lc_thread *next;             /* in the idle list, or a worker's queue */
    struct lc_thread *all_next;         /* every thread the runtime started */
    pthread_t pt;
    void *sim;                          /* its actor under LOCUS_SIM (sim.h) */
    int initial;                        /* the thread that called locus_init */
    int ok;                             /* set up (first allocation made) */
    int prebound;                       /* created on its CPU (its attr's affinity) */
    _Atomic uint32_t up;                /* futex word: 1 once set up (ok or not) */
    int queued;                         /* on its worker's queue */
    int served;                         /* given a turn at least once */
    int reserved_from_queue;            /* lc_thread_reserve took it off that queue */
    /* the execution state of its worker while it is away from it */
    struct lc_task *cur;
    unsigned nest;
    int at_spawn;
    uintptr_t stack_floor;
    struct lc_task *throttle_task;
    int64_t throttle_done;
    /* a layer's per-thread state (lc_thread_ctx): the leaving thread's,
     * set when it gives a worker away, and the one the receiver adopts */
    void *ctx;
    void *adopt;
};

/*
 * A layer with per-thread state of its own that tasks read (gomp/: the
 * thread's team and number in it, which omp_get_thread_num answers) sets
 * these at load: get, on a thread giving its worker away, returns its
 * state; adopt, on the thread receiving the worker afresh, makes that
 * state its own, so that the tasks it runs there see what they would have
 * seen on the thread they replace.  A thread given its worker back keeps
 * its own.
 */
struct lc_thread_ctx {
    void *(*get)(void);
    void (*adopt)(const void *from);
};
extern struct lc_thread_ctx lc_thread_ctx;

/*
 * The program may block tasks: called by the interfaces a task blocks
 * through or gets the handle to be unblocked by (locus_task_current,
 * locus_task_block, locus_task_unblock, every ALPI entry, locus_mpi_init),
 * before or after locus_init.  From then on (rt->blocking) no task runs at
 * its spawn, on its spawner's stack, and a thread that waits (taskwait,
 * taskgroup, barrier, throttle) gives its worker to another thread instead
 * of running tasks above its own frame: a task that blocks could otherwise
 * bury the frames beneath it until it is unblocked, and what unblocks it
 * may be what those frames were about to do.  Before then, nesting is
 * kept: it costs nothing, and a program that never blocks cannot deadlock
 * on it.
 */
void lc_blocking_note(void);
extern _Atomic int lc_blocking_wanted;

/* The calling thread's record, NULL on threads the runtime does not know. */
extern __thread struct lc_thread *lc_thr __attribute__((tls_model("initial-exec")));

/* init.c: the initial thread's record (static: it outlives no runtime),
 * serving worker 0. */
void lc_thread_init_initial(struct lc_thread *t, struct lc_worker *w);

/* How long a worker's start is polled for before its waiter sleeps: by
 * init for the thread to be up, by the thread for its first turn, both
 * on the way of a program's first parallel region, where each futex
 * wake-up would add tens of microseconds to a start of 100-200
 * (benchmarks/README.md).  Not when the workers outnumber the CPUs or
 * under simulation (futex.h, futex_wait_polled). */
#define LC_START_POLL_NS 1000000u
#define lc_start_poll_ns(rt) ((rt)->oversubscribed || (rt)->opt.sim[0] ? 0 : LC_START_POLL_NS)

/* A worker thread's life (init.c starts it on worker w): serves w, then,
 * whenever it has given its worker away at its outermost loop, waits idle
 * for another to serve, until the runtime stops. */
void *lc_thread_main(void *arg);
/* Starts t's thread in lc_thread_main (a simulated one under LOCUS_SIM):
 * 0, or an errno; attr NULL or the thread's attributes.  lc_thread_join
 * waits for it to end. */
int lc_thread_spawn(struct lc_thread *t, pthread_attr_t *attr);
void lc_thread_join(struct lc_thread *t);
/* init.c: a record for a thread to serve w first (NULL: no memory), freed
 * with lc_thread_free unless registered, which makes it the runtime's (its
 * kernel thread joined and the record freed by lc_threads_stop). */
struct lc_thread *lc_thread_new(struct lc_worker *w);
void lc_thread_free(struct lc_thread *t);
void lc_thread_register(struct lc_runtime *rt, struct lc_thread *t);
/* init.c, once rt->started says every worker thread has set up: whether
 * all could allocate; then each is given its turn on its worker. */
int lc_threads_ok(struct lc_runtime *rt);
void lc_threads_go(struct lc_runtime *rt);
/* locus_finalize (and a failed init): every thread the runtime started is
 * told to stop and joined (the workers' loops have seen rt->stop already). */
void lc_threads_stop(struct lc_runtime *rt);

/*
 * The calling thread, serving w, gives w to another thread and sleeps
 * until it is given w back (lc_thread_resume, then a switch point on w).
 * reserved: the thread to give w to, from lc_thread_reserve.
 */
void lc_thread_handoff(struct lc_worker *w, struct lc_thread *reserved);
/* The two halves of a handoff for a thread that waits for something of
 * its own meanwhile (wait.c): leave gives w to reserved (the caller then
 * touches nothing of w's), rejoin queues the caller on w and sleeps until
 * it has w back. */
void lc_thread_leave(struct lc_worker *w, struct lc_thread *reserved);
void lc_thread_rejoin(struct lc_worker *w);
/* A thread to hand w to: one waiting on w's queue, an idle one, or a new
 * one; NULL when none can be had (no memory, no thread): the caller then
 * waits on its own stack.  lc_thread_unreserve gives back one not used. */
struct lc_thread *lc_thread_reserve(struct lc_worker *w);
void lc_thread_unreserve(struct lc_thread *t);
/* t, asleep after a handoff, may go on: queued on its worker, which is
 * woken (any thread, any time). */
void lc_thread_resume(struct lc_thread *t);

/* Whether a thread waits to be given w back (a hint, one load). */
static inline int lc_thread_waiting(const struct lc_worker *w);
/*
 * A switch point of the thread serving w: when a thread waits for w, hands
 * w to it.  outermost: the caller is a thread's outermost loop, and goes
 * idle (returns 1: the caller must leave its loop without touching w);
 * otherwise the caller waits its turn on w's queue and returns 0 once it
 * has w back.
 */
int lc_thread_switch(struct lc_worker *w, int outermost);

#include "runtime.h"

static inline int lc_thread_waiting(const struct lc_worker *w)
{
    return atomic_load_explicit(&w->nresume, memory_order_acquire) > 0;
}

#endif /* LC_THREAD_H */
