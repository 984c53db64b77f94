/*
 * alpi.c - ALPI 1.0 (include/alpi.h) on Locus: every call maps onto the
 * public events, blocking and polling API of locus.h, except the two
 * things that API does not offer: spawning a task without a parent
 * (independent.c) and reading a task's event count (task.h).
 *
 * A task handle is the Locus task reference itself.  Where ALPI wants
 * "the calling task's own handle", a different one is ALPI_ERR_PARAMETER.
 * An increment or decrement of 0 does nothing and succeeds (as nOS-V).
 *
 * alpi_task_waitfor_ns blocks the task and registers a one-shot polling
 * service that unblocks it once the time has passed: the worker runs
 * other tasks meanwhile, and the wait lasts at least target_ns and
 * usually no more than LOCUS_POLL_US longer.
 *
 * alpi_task_spawn: the independent task runs the body as a child, waits
 * for it (taskwait covers its events and children), then calls the
 * completion callback.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "alpi.h"
#include "events.h"
#include "locus.h"
#include "runtime.h"
#include "thread.h"

#define ATTR_MAGIC 0x616c7069u   /* "alpi": marks an initialised attributes block */

struct alpi_attr {
    uint32_t magic;
    uint32_t reserved;
};

static const char *const errors[ALPI_ERR_MAX] = {
    [ALPI_SUCCESS] = "Operation succeeded",
    [ALPI_ERR_VERSION] = "Incompatible version",
    [ALPI_ERR_NOT_INITIALIZED] = "Runtime system not initialized",
    [ALPI_ERR_PARAMETER] = "Invalid parameter",
    [ALPI_ERR_OUT_OF_MEMORY] = "Failed to allocate memory",
    [ALPI_ERR_OUTSIDE_TASK] = "Must run within a task",
    [ALPI_ERR_UNKNOWN] = "Unknown error",
};

/* A Locus error (negative errno) as an ALPI code. */
static int from_errno(int r)
{
    switch (r) {
    case 0: return ALPI_SUCCESS;
    case -EPERM: return ALPI_ERR_NOT_INITIALIZED;
    case -EINVAL: case -EEXIST: case -ENOENT: return ALPI_ERR_PARAMETER;
    case -ENOMEM: return ALPI_ERR_OUT_OF_MEMORY;
    case -ENOTSUP: return ALPI_ERR_OUTSIDE_TASK;
    default: return ALPI_ERR_UNKNOWN;
    }
}

/* Every entry but alpi_error_string: tasks may block from now on
 * (thread.h: a library binds to ALPI before its tasks block, as TAMPI in
 * MPI_Init_thread), and a runtime that starts on first use (liblocus-gomp:
 * lc_autostart) starts now, so that ALPI may come before the program's
 * first parallel region. */
static void enter(void)
{
    lc_blocking_note();
    if (!lc_rt && lc_autostart)
        lc_autostart();
}

/* The calling task, or the code saying why there is none. */
static int current(locus_task_ref_t *t)
{
    if (!lc_rt)
        return ALPI_ERR_NOT_INITIALIZED;
    *t = locus_task_current();
    return *t ? ALPI_SUCCESS : ALPI_ERR_OUTSIDE_TASK;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const char *alpi_error_string(int error)
{
    if (error < 0 || error >= ALPI_ERR_MAX)
        return "Error code not recognized";
    return errors[error];
}

int alpi_version_check(int major, int minor)
{
    enter();
    if (major != ALPI_VERSION_MAJOR || minor < 0 || minor > ALPI_VERSION_MINOR)
        return ALPI_ERR_VERSION;
    return ALPI_SUCCESS;
}

int alpi_version_get(int *major, int *minor)
{
    enter();
    if (!major || !minor)
        return ALPI_ERR_PARAMETER;
    *major = ALPI_VERSION_MAJOR;
    *minor = ALPI_VERSION_MINOR;
    return ALPI_SUCCESS;
}

int alpi_task_self(struct alpi_task **task)
{
    enter();
    if (!task)
        return ALPI_ERR_PARAMETER;
    if (!lc_rt)
        return ALPI_ERR_NOT_INITIALIZED;
    *task = (struct alpi_task *)(void *)locus_task_current();
    return ALPI_SUCCESS;
}

int alpi_task_block(struct alpi_task *task)
{
    enter();
    locus_task_ref_t me;
    int r = current(&me);
    if (r)
        return r;
    if ((void *)task != (void *)me)
        return ALPI_ERR_PARAMETER;
    return from_errno(locus_task_block());
}

int alpi_task_unblock(struct alpi_task *task)
{
    enter();
    if (!lc_rt)
        return ALPI_ERR_NOT_INITIALIZED;
    if (!task)
        return ALPI_ERR_PARAMETER;
    return from_errno(locus_task_unblock((locus_task_ref_t)(void *)task));
}

/* The one-shot service of alpi_task_waitfor_ns. */
struct timer {
    uint64_t deadline;
    locus_task_ref_t task;
};

static int timer_service(void *data)
{
    struct timer *t = data;
    if (now_ns() < t->deadline)
        return 0;
    locus_task_unblock(t->task);
    return 1;   /* done: removed, never called again */
}

int alpi_task_waitfor_ns(uint64_t target_ns, uint64_t *actual_ns)
{
    enter();
    locus_task_ref_t me;
    int r = current(&me);
    if (r)
        return r;
    uint64_t start = now_ns();
    struct timer t = { start + target_ns, me };
    if (t.deadline < start)
        t.deadline = UINT64_MAX;   /* no overflow: "forever" */
    int borrowed = 0;   /* an unblock meant for a later block was taken: give it back */
    while (now_ns() < t.deadline) {
        if ((r = locus_poll_register("alpi_task_waitfor_ns", timer_service, &t)) != 0)
            return from_errno(r);
        locus_task_block();
        /* still registered: something else unblocked the task */
        if (locus_poll_unregister(timer_service, &t) == 0)
            borrowed = 1;
    }
    if (borrowed)
        locus_task_unblock(me);
    if (actual_ns)
        *actual_ns = now_ns() - start;
    return ALPI_SUCCESS;
}

int alpi_task_events_increase(struct alpi_task *task, uint64_t increment)
{
    enter();
    locus_task_ref_t me;
    int r = current(&me);
    if (r)
        return r;
    if ((void *)task != (void *)me || increment > LOCUS_EVENTS_MAX)
        return ALPI_ERR_PARAMETER;
    if (increment == 0)
        return ALPI_SUCCESS;
    return from_errno(locus_task_events_increase(me, (unsigned)increment));
}

int alpi_task_events_test(struct alpi_task *task, uint64_t *has_events)
{
    enter();
    locus_task_ref_t me;
    int r = current(&me);
    if (r)
        return r;
    if ((void *)task != (void *)me || !has_events)
        return ALPI_ERR_PARAMETER;
    /* the count lives in the task's state word (task.h); a hint, exact when 0 */
    uint32_t gen;
    int err;
    struct lc_task *t = lc_ref_check(me, &gen, "alpi_task_events_test", &err);
    if (!t)
        return from_errno(err);
    *has_events = LC_ST_LOW(atomic_load_explicit(&t->state, memory_order_acquire))
                  >= LC_ST_EV_ONE;
    return ALPI_SUCCESS;
}

int alpi_task_events_decrease(struct alpi_task *task, uint64_t decrement)
{
    enter();
    if (!lc_rt)
        return ALPI_ERR_NOT_INITIALIZED;
    if (!task || decrement > LOCUS_EVENTS_MAX)
        return ALPI_ERR_PARAMETER;
    if (decrement == 0)
        return ALPI_SUCCESS;
    return from_errno(locus_task_events_decrease((locus_task_ref_t)(void *)task,
                                                 (unsigned)decrement));
}

int alpi_attr_create(struct alpi_attr **attr)
{
    enter();
    if (!attr)
        return ALPI_ERR_PARAMETER;
    struct alpi_attr *a = malloc(sizeof *a);
    if (!a)
        return ALPI_ERR_OUT_OF_MEMORY;
    alpi_attr_init(a);
    *attr = a;
    return ALPI_SUCCESS;
}

int alpi_attr_destroy(struct alpi_attr *attr)
{
    enter();
    if (!attr || attr->magic != ATTR_MAGIC)
        return ALPI_ERR_PARAMETER;
    attr->magic = 0;
    free(attr);
    return ALPI_SUCCESS;
}

int alpi_attr_init(struct alpi_attr *attr)
{
    enter();
    if (!attr)
        return ALPI_ERR_PARAMETER;
    attr->magic = ATTR_MAGIC;
    attr->reserved = 0;
    return ALPI_SUCCESS;
}

int alpi_attr_size(uint64_t *attr_size)
{
    enter();
    if (!attr_size)
        return ALPI_ERR_PARAMETER;
    *attr_size = sizeof(struct alpi_attr);
    return ALPI_SUCCESS;
}

struct spawned {
    void (*body)(void *);
    void *body_args;
    void (*done)(void *);
    void *done_args;
};

/* The independent task: the body as its child, so that the taskwait
 * covers the body's events and children; then the callback. */
static void spawned_main(void *arg)
{
    struct spawned s = *(struct spawned *)arg;
    free(arg);
    if (locus_spawn(s.body, s.body_args, 0, NULL, 0) != 0)
        s.body(s.body_args);   /* no memory for a child: a body without events runs here */
    locus_taskwait();
    if (s.done)
        s.done(s.done_args);
}

int alpi_task_spawn(void (*body)(void *), void *body_args,
                    void (*completion_callback)(void *), void *completion_args,
                    const char *label, const struct alpi_attr *attr)
{
    enter();
    (void)label;   /* not kept: a trace names the body by its function (a LOCUS_TRACE
                      label must outlive the run, an ALPI one need not) */
    if (!lc_rt)
        return ALPI_ERR_NOT_INITIALIZED;
    if (!body || (attr && attr->magic != ATTR_MAGIC))
        return ALPI_ERR_PARAMETER;
    struct spawned *s = malloc(sizeof *s);
    if (!s)
        return ALPI_ERR_OUT_OF_MEMORY;
    *s = (struct spawned){ body, body_args, completion_callback, completion_args };
    int r = lc_spawn_independent(spawned_main, s);
    if (r)
        free(s);
    return from_errno(r);
}

int alpi_cpu_count(uint64_t *count)
{
    enter();
    if (!count)
        return ALPI_ERR_PARAMETER;
    int n = locus_num_workers();
    if (n < 0)
        return ALPI_ERR_NOT_INITIALIZED;
    *count = (uint64_t)n;
    return ALPI_SUCCESS;
}

int alpi_cpu_logical_id(uint64_t *logical_id)
{
    enter();
    locus_task_ref_t me;
    if (!logical_id)
        return ALPI_ERR_PARAMETER;
    int r = current(&me);
    if (r)
        return r;
    *logical_id = (uint64_t)locus_worker_id();
    return ALPI_SUCCESS;
}

int alpi_cpu_system_id(uint64_t *system_id)
{
    enter();
    locus_task_ref_t me;
    if (!system_id)
        return ALPI_ERR_PARAMETER;
    int r = current(&me);
    if (r)
        return r;
    int cpu = sched_getcpu();   /* where the task runs now (workers are bound by default) */
    if (cpu < 0)
        return ALPI_ERR_UNKNOWN;
    *system_id = (uint64_t)cpu;
    return ALPI_SUCCESS;
}
