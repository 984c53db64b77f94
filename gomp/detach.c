/*
 * detach.c - the detach clause (task detach(ev)) and omp_fulfill_event(),
 * on Locus's task events (locus_task_events_increase/decrease).
 *
 * gcc hands GOMP_task the address of the event variable and expects the
 * handle there (and in the first word of the task's data, which holds the
 * task's firstprivate copy of it) before the task's data is copied, so a
 * handle exists before any Locus task does: it is a gomp_event, which
 * reaches the task in two ways.
 *  - Deferred (the task is spawned): the task's body, before the user's
 *    code, adds one event to itself and attaches (publishes the task and
 *    sets ATTACHED); omp_fulfill_event sets FULFILLED.  Whichever of the
 *    two comes second fulfils the Locus event and frees the handle: the
 *    handle may be fulfilled before the task even starts, and the task
 *    completes (releases its dependences, satisfies taskwait, taskgroup
 *    and barriers) only once both its body returned and the event came.
 *  - Waited (the task runs on the encountering thread: if(0), final, or a
 *    region of one thread, where tasks run at once): no Locus event; the
 *    thread that created the handle waits for FULFILLED, running other
 *    tasks meanwhile when it is a worker.  An if(0) or final task is
 *    waited for at once, as libgomp does.  A task run at once only because
 *    its region has one thread is parked instead: a later task may be the
 *    one that fulfils it, so the thread waits at its next taskwait,
 *    taskgroup end, barrier, end of region, or task with dependences.
 *    The parked list is the innermost region's: a region that begins on
 *    the thread sets the outer one's aside (gomp_detach_region_begin) and
 *    its end and barriers wait only for its own tasks' events, since the
 *    outer task may fulfil its events only after the region.
 */
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "detach.h"
#include "events.h"
#include "futex.h"
#include "gomp.h"
#include "runtime.h"

#define EV_ATTACHED  0x1u
#define EV_FULFILLED 0x2u

/* Events of included tasks this thread still waits for (parked). */
static __thread struct gomp_event *parked;

static void publish(struct gomp_event *ev, void **detach, void *data)
{
    *(void **)detach = ev;
    if (data)
        *(void **)data = ev;   /* the task's firstprivate copy of the handle */
}

struct gomp_event *gomp_event_new(void **detach, void *data, int waited,
                                  struct gomp_event *local)
{
    struct gomp_event *ev = malloc(sizeof *ev);
    if (!ev) {
        ev = local;   /* without memory: waited on the creating thread */
        waited = 1;
    }
    atomic_store_explicit(&ev->st, 0, memory_order_relaxed);
    ev->waited = waited;
    ev->heap = ev != local;
    ev->task = NULL;
    ev->next = NULL;
    publish(ev, detach, data);
    return ev;
}

void gomp_event_make_waited(struct gomp_event *ev)
{
    ev->waited = 1;
}

void gomp_event_attach(struct gomp_event *ev)
{
    locus_task_ref_t me = lc_task_current_ref();
    /* a spawned task always has one; the event keeps it incomplete */
    if (!me || locus_task_events_increase(me, 1) != 0)
        gomp_unsupported("GOMP_task", "a detached task could not take its event");
    ev->task = me;
    /* acq_rel: the fulfiller reads ev->task; we see its writes if it came first */
    if (atomic_fetch_or_explicit(&ev->st, EV_ATTACHED, memory_order_acq_rel) & EV_FULFILLED) {
        free(ev);
        locus_task_events_decrease(me, 1);   /* the body still runs: no completion here */
    }
}

void gomp_event_wait(struct gomp_event *ev)
{
    struct lc_worker *w = gomp_worker();
    uint32_t s;
    while (!((s = atomic_load_explicit(&ev->st, memory_order_acquire)) & EV_FULFILLED)) {
        if (w)
            lc_wait_word(w, &ev->st, s);   /* runs other tasks meanwhile */
        else
            futex_wait(&ev->st, s);
    }
    if (ev->heap)
        free(ev);
}

void gomp_event_park(struct gomp_event *ev)
{
    if (atomic_load_explicit(&ev->st, memory_order_acquire) & EV_FULFILLED) {
        free(ev);
        return;
    }
    ev->next = parked;
    parked = ev;
}

void gomp_detach_wait_parked(void)
{
    while (parked) {
        struct gomp_event *ev = parked;
        parked = ev->next;
        gomp_event_wait(ev);
    }
}

struct gomp_event *gomp_detach_region_begin(void)
{
    struct gomp_event *outer = parked;
    parked = NULL;
    return outer;
}

void gomp_detach_region_end(struct gomp_event *outer)
{
    gomp_detach_wait_parked();
    parked = outer;
}

GOMP_EXPORT void omp_fulfill_event(uintptr_t handle)
{
    struct gomp_event *ev = (struct gomp_event *)handle;
    if (!ev)
        gomp_unsupported("omp_fulfill_event", "the event handle is not one a detach "
                         "clause made");
    if (ev->waited) {
        /* the waiter frees ev once it sees the bit: touch only rt after it
         * (a futex wake of a freed word wakes nobody) */
        struct lc_runtime *rt = lc_rt;
        if (atomic_fetch_or_explicit(&ev->st, EV_FULFILLED, memory_order_seq_cst) & EV_FULFILLED)
            gomp_unsupported("omp_fulfill_event", "the event was fulfilled already");
        if (rt)
            lc_wake_waiters(rt);
        futex_wake(&ev->st, INT_MAX);
        return;
    }
    uint32_t old = atomic_fetch_or_explicit(&ev->st, EV_FULFILLED, memory_order_acq_rel);
    if (old & EV_FULFILLED)
        gomp_unsupported("omp_fulfill_event", "the event was fulfilled already");
    if (old & EV_ATTACHED) {
        locus_task_ref_t t = ev->task;
        free(ev);
        if (locus_task_events_decrease(t, 1) != 0)
            gomp_unsupported("omp_fulfill_event", locus_error_message());
    }
}

/* The Fortran binding takes the handle by reference. */
GOMP_EXPORT void omp_fulfill_event_(uintptr_t *handle)
{
    omp_fulfill_event(*handle);
}
