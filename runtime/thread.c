/*
 * thread.c - the threads that serve the workers and the handing of a
 * worker from one to another (thread.h has the model).
 *
 * The hand-over is a pair of futex words: the thread giving a worker away
 * saves the worker's execution state into its own record, sets the
 * receiver's `go` (release) and wakes it, then sleeps on its own `go` until
 * someone sets it; the receiver, woken, reads (acquire) the worker it is
 * to serve.  A worker is touched by one thread at a time: the giver writes
 * nothing to it after setting `go`.  Threads are made on demand (the first
 * time a task blocks where no thread is idle) and live until
 * locus_finalize; a thread that goes idle keeps its kernel thread, asleep.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "futex.h"
#include "mem.h"
#include "runtime.h"
#include "team.h"
#include "thread.h"

__thread struct lc_thread *lc_thr __attribute__((tls_model("initial-exec")));

/* Set before any runtime exists too (an ALPI call before locus_init);
 * locus_init copies it into rt->blocking. */
_Atomic int lc_blocking_wanted;

void lc_blocking_note(void)
{
    if (!atomic_load_explicit(&lc_blocking_wanted, memory_order_relaxed))
        atomic_store_explicit(&lc_blocking_wanted, 1, memory_order_seq_cst);
    atomic_thread_fence(memory_order_seq_cst);   /* against locus_init's publishing of rt */
    struct lc_runtime *rt = lc_rt;
    if (rt && !atomic_load_explicit(&rt->blocking, memory_order_relaxed))
        atomic_store_explicit(&rt->blocking, 1, memory_order_relaxed);
}

void lc_thread_init_initial(struct lc_thread *t, struct lc_worker *w)
{
    memset(t, 0, sizeof *t);
    t->slot = t->first = w;
    t->initial = 1;
    t->ok = 1;
    t->pt = pthread_self();
    lc_thr = t;
}

struct lc_thread_ctx lc_thread_ctx;

/* The execution state of w goes with the thread leaving it... */
static void save_exec(struct lc_worker *w, struct lc_thread *t)
{
    /* what a thread starting afresh on w adopts: the state of the member
     * whose job runs on w (a thread that blocked in a task of its own,
     * outside the job, may have been away since before the job), else
     * the leaving thread's own */
    t->ctx = w->job_ctx ? w->job_ctx : lc_thread_ctx.get ? lc_thread_ctx.get() : NULL;
    t->cur = w->cur;
    t->nest = w->nest;
    t->at_spawn = w->at_spawn;
    t->stack_floor = w->stack_floor;
    t->throttle_task = w->throttle.task;
    t->throttle_done = w->throttle.done;
}

/* ...and comes back with it. */
static void restore_exec(struct lc_worker *w, const struct lc_thread *t)
{
    w->cur = t->cur;
    w->nest = t->nest;
    w->at_spawn = t->at_spawn;
    w->stack_floor = t->stack_floor;
    w->throttle.task = t->throttle_task;
    w->throttle.done = t->throttle_done;
}

/* Sleeps until t's turn comes (its `go` set by whoever hands it a worker). */
static void wait_turn(struct lc_thread *t, uint64_t poll_ns)
{
    while (!atomic_load_explicit(&t->go, memory_order_acquire))
        futex_wait_polled(&t->go, 0, poll_ns);
}

/* Gives t its turn, on worker w (NULL: stop), from the thread `from`
 * (NULL: none, the first turn), whose layer state t adopts when it starts
 * afresh there. */
static void give_turn(struct lc_thread *t, struct lc_worker *w, const struct lc_thread *from)
{
    t->slot = w;
    t->adopt = from ? from->ctx : NULL;
    t->served = 1;
    atomic_store_explicit(&t->go, 1, memory_order_release);
    futex_wake(&t->go, 1);
}

/* The first thread waiting for w, taken off its queue, or NULL. */
static struct lc_thread *queue_take(struct lc_worker *w)
{
    if (!lc_thread_waiting(w))
        return NULL;
    pthread_mutex_lock(&w->rlock);
    struct lc_thread *t = w->rhead;
    if (t) {
        w->rhead = t->next;
        if (!w->rhead)
            w->rtail = NULL;
        t->queued = 0;
        atomic_fetch_sub_explicit(&w->nresume, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&w->rlock);
    return t;
}

/* Puts t on w's queue, at its tail (a thread that was unblocked, or one
 * that gave w away and waits its turn) or at its head (one taken off it
 * and not used). */
static void queue_put(struct lc_worker *w, struct lc_thread *t, int head)
{
    pthread_mutex_lock(&w->rlock);
    if (head) {
        t->next = w->rhead;
        w->rhead = t;
        if (!w->rtail)
            w->rtail = t;
    } else {
        t->next = NULL;
        if (w->rtail)
            w->rtail->next = t;
        else
            w->rhead = t;
        w->rtail = t;
    }
    t->queued = 1;
    atomic_fetch_add_explicit(&w->nresume, 1, memory_order_release);
    pthread_mutex_unlock(&w->rlock);
}

/* The thread serving w for a while: the worker's loop, starting with no
 * execution state of its own, until it gives w to a thread that waited
 * for it or the runtime stops. */
static void serve(struct lc_thread *me, struct lc_worker *w)
{
    lc_self = w;
    w->cur = NULL;
    w->nest = 0;
    w->at_spawn = 0;
    w->throttle.task = NULL;
    w->throttle.done = 0;
    lc_stack_setup(w);
    if (me->adopt && lc_thread_ctx.adopt)
        lc_thread_ctx.adopt(me->adopt);   /* its giver is away from w: its state is still */
    if (w->rt->team_mode && w->id != 0)   /* worker 0's jobs are its master's, who posts them */
        lc_team_loop(w);
    else
        lc_worker_loop(w);
    lc_self = NULL;
}

/* An idle thread: waits for a worker to serve (NULL: stop). */
static void idle(struct lc_runtime *rt, struct lc_thread *me)
{
    for (;;) {
        atomic_store_explicit(&me->go, 0, memory_order_relaxed);
        pthread_mutex_lock(&rt->threads_lock);
        if (atomic_load_explicit(&rt->stop, memory_order_acquire)) {
            pthread_mutex_unlock(&rt->threads_lock);
            return;
        }
        me->next = rt->threads_idle;
        rt->threads_idle = me;
        pthread_mutex_unlock(&rt->threads_lock);
        wait_turn(me, 0);
        if (!me->slot)
            return;   /* stop */
        serve(me, me->slot);
    }
}

void *lc_thread_main(void *arg)
{
    struct lc_thread *me = arg;
    struct lc_worker *w = me->first;
    struct lc_runtime *rt = w->rt;
    lc_thr = me;
    lc_self = w;
    /* a thread made with its CPU in its attributes is there already;
     * binding it again would cost its first allocation from the C
     * library, an arena of its own, in every first parallel region */
    if (rt->opt.bind == LC_BIND_CORE && w->cpu >= 0 && !me->prebound)
        lc_topology_bind_self(&rt->topo, w->cpu);
    /* after binding: its pages are faulted in on the node; and its first
     * allocation now, while there is memory (mem.h) */
    me->ok = lc_mem_thread_bind(w->node) == 0;
    /* its creator waits for this (init.c: rt->started; make: me->up) */
    atomic_store_explicit(&me->up, 1, memory_order_release);
    futex_wake(&me->up, 1);
    atomic_fetch_add_explicit(&rt->started, 1, memory_order_seq_cst);
    futex_wake(&rt->started, INT_MAX);
    if (me->ok) {
        lc_stack_find();
        /* the first turn comes as soon as every worker has started
         * (init.c): polled for as long as init polls for the start */
        wait_turn(me, lc_start_poll_ns(rt));
        if (me->slot) {
            serve(me, me->slot);
            idle(rt, me);
        }
    }
    lc_mem_thread_unbind();
    lc_self = NULL;
    return NULL;
}

struct lc_thread *lc_thread_new(struct lc_worker *w)
{
    struct lc_thread *t = aligned_alloc(64, sizeof *t);
    if (t) {
        memset(t, 0, sizeof *t);
        t->slot = t->first = w;
    }
    return t;
}

void lc_thread_free(struct lc_thread *t)
{
    free(t);
}

void lc_thread_register(struct lc_runtime *rt, struct lc_thread *t)
{
    pthread_mutex_lock(&rt->threads_lock);
    t->all_next = rt->threads_all;
    rt->threads_all = t;
    rt->nthreads++;
    pthread_mutex_unlock(&rt->threads_lock);
}

int lc_threads_ok(struct lc_runtime *rt)
{
    for (struct lc_thread *t = rt->threads_all; t; t = t->all_next)
        if (!t->ok)
            return 0;
    return 1;
}

void lc_threads_go(struct lc_runtime *rt)
{
    for (struct lc_thread *t = rt->threads_all; t; t = t->all_next)
        give_turn(t, t->slot, NULL);
}

int lc_thread_spawn(struct lc_thread *t, pthread_attr_t *attr)
{
    if (__builtin_expect(lc_sim != NULL, 0))   /* an actor on its worker's core (sim.h) */
        return lc_sim->thread_start(lc_thread_main, t, t->slot ? t->slot->id : 0, &t->sim);
    return pthread_create(&t->pt, attr, lc_thread_main, t);
}

void lc_thread_join(struct lc_thread *t)
{
    if (t->sim)
        lc_sim->thread_join(t->sim);
    else
        pthread_join(t->pt, NULL);
}

/* A new thread, set up and waiting for its turn (to serve w), or NULL. */
static struct lc_thread *make(struct lc_worker *w)
{
    struct lc_runtime *rt = w->rt;
    struct lc_thread *t = lc_thread_new(w);
    if (!t)
        return NULL;
    if (lc_thread_spawn(t, NULL) != 0) {
        free(t);
        return NULL;
    }
    while (!atomic_load_explicit(&t->up, memory_order_acquire))
        futex_wait(&t->up, 0);
    if (!t->ok) {   /* it could not allocate: it has ended */
        lc_thread_join(t);
        free(t);
        return NULL;
    }
    lc_thread_register(rt, t);
    return t;
}

struct lc_thread *lc_thread_reserve(struct lc_worker *w)
{
    struct lc_runtime *rt = w->rt;
    struct lc_thread *t = queue_take(w);
    if (t) {
        t->reserved_from_queue = 1;
        return t;
    }
    pthread_mutex_lock(&rt->threads_lock);
    t = rt->threads_idle;
    if (t)
        rt->threads_idle = t->next;
    pthread_mutex_unlock(&rt->threads_lock);
    if (!t)
        t = make(w);
    if (t)
        t->reserved_from_queue = 0;
    return t;
}

void lc_thread_unreserve(struct lc_thread *t)
{
    /* one taken off w's queue goes back to its head; an idle or new one
     * back to the idle list */
    if (t->reserved_from_queue) {
        queue_put(t->slot, t, 1);
        return;
    }
    struct lc_runtime *rt = lc_rt;
    pthread_mutex_lock(&rt->threads_lock);
    t->next = rt->threads_idle;
    rt->threads_idle = t;
    pthread_mutex_unlock(&rt->threads_lock);
}

void lc_thread_leave(struct lc_worker *w, struct lc_thread *to)
{
    struct lc_thread *me = lc_thr;
    save_exec(w, me);
    atomic_store_explicit(&me->go, 0, memory_order_relaxed);
    /* me->slot is w already (struct lc_thread): an unblocker reads it as
     * soon as it sees the task PARKED, which may be before this */
    atomic_fetch_add_explicit(&w->rt->nsuspended, 1, memory_order_relaxed);
    lc_self = NULL;
    give_turn(to, w, me);   /* one that waited for w restores its own state; others start afresh */
}

/* Sleeps until the calling thread, away from w, is given it back. */
static void back_on(struct lc_worker *w)
{
    struct lc_thread *me = lc_thr;
    wait_turn(me, 0);
    atomic_fetch_sub_explicit(&w->rt->nsuspended, 1, memory_order_relaxed);
    restore_exec(w, me);
    lc_self = w;
}

void lc_thread_rejoin(struct lc_worker *w)
{
    lc_thread_resume(lc_thr);
    back_on(w);
}

void lc_thread_handoff(struct lc_worker *w, struct lc_thread *to)
{
    lc_thread_leave(w, to);
    back_on(w);
}

void lc_thread_resume(struct lc_thread *t)
{
    struct lc_worker *w = t->slot;
    queue_put(w, t, 0);
    /* the thread serving w may sleep: wake its node's sleepers (one of
     * them serves w), and a team-mode worker waiting for a job */
    lc_wake_node_all(w->rt, w->node);
}

int lc_thread_switch(struct lc_worker *w, int outermost)
{
    struct lc_thread *to = queue_take(w);
    if (!to)
        return 0;
    struct lc_thread *me = lc_thr;
    save_exec(w, me);
    atomic_store_explicit(&me->go, 0, memory_order_relaxed);
    if (!outermost)
        queue_put(w, me, 0);   /* back on w after the threads ahead of it */
    give_turn(to, w, me);
    if (outermost)
        return 1;   /* w is the other thread's now: not another look at it */
    wait_turn(me, 0);
    restore_exec(w, me);
    lc_self = w;
    return 0;
}

void lc_threads_stop(struct lc_runtime *rt)
{
    pthread_mutex_lock(&rt->threads_lock);
    struct lc_thread *all = rt->threads_all, *idle_list = rt->threads_idle;
    rt->threads_idle = NULL;
    pthread_mutex_unlock(&rt->threads_lock);
    /* the idle ones, and those never given a turn (a failed locus_init) */
    for (struct lc_thread *t = idle_list; t; t = t->next)
        give_turn(t, NULL, NULL);
    for (struct lc_thread *t = all; t; t = t->all_next)
        if (!t->served)
            give_turn(t, NULL, NULL);
    for (struct lc_thread *t = all, *n; t; t = n) {
        n = t->all_next;
        lc_thread_join(t);
        free(t);
    }
    rt->threads_all = NULL;
    rt->nthreads = 0;
}
