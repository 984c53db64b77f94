/*
 * alpi.h - ALPI 1.0, the tasking interface of BSC's OmpSs-2 ecosystem
 * (through which TAMPI and similar libraries talk to a task runtime),
 * implemented by liblocus (alpi/alpi.c).  Written for Locus from the
 * published interface: the names, types, error codes and semantics are
 * ALPI's, so that code built against ALPI 1.0 links and runs on Locus.
 * See alpi(3) for what each function does on Locus.
 *
 * Every function returns ALPI_SUCCESS (0) or one of the ALPI_ERR_* codes;
 * alpi_error_string() turns a code into text.
 */
#ifndef ALPI_INTERFACE_H
#define ALPI_INTERFACE_H

#include <stdint.h>

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque handles: never dereferenced by the caller. */
struct alpi_task;
struct alpi_attr;

#define ALPI_VERSION_MAJOR 1
#define ALPI_VERSION_MINOR 0

typedef enum {
    ALPI_SUCCESS = 0,          /* always 0 */
    ALPI_ERR_VERSION,          /* the version asked for is not compatible */
    ALPI_ERR_NOT_INITIALIZED,  /* the runtime is not running */
    ALPI_ERR_PARAMETER,        /* a parameter is not valid */
    ALPI_ERR_OUT_OF_MEMORY,    /* not enough memory */
    ALPI_ERR_OUTSIDE_TASK,     /* only from inside a running task */
    ALPI_ERR_UNKNOWN,          /* anything else */
    ALPI_ERR_MAX               /* the number of codes */
} alpi_error_t;

/* Text for an error code ("Error code not recognized" for others). */
const char *alpi_error_string(int error);

/* ALPI_SUCCESS when a caller built for major.minor can use this library
 * (same major, minor not newer), else ALPI_ERR_VERSION. */
int alpi_version_check(int major, int minor);

/* The version implemented. */
int alpi_version_get(int *major, int *minor);

/* The running task's handle, or NULL outside a task. */
int alpi_task_self(struct alpi_task **task);

/* The calling task (task must be its own handle) waits for its unblock;
 * an unblock that came first makes it return at once. */
int alpi_task_block(struct alpi_task *task);

/* Unblocks task, from any thread. */
int alpi_task_unblock(struct alpi_task *task);

/* The calling task waits about target_ns nanoseconds while its worker runs
 * other tasks; *actual_ns (may be NULL) gets the time it waited. */
int alpi_task_waitfor_ns(uint64_t target_ns, uint64_t *actual_ns);

/* The calling task (task: its own handle) gets increment more events:
 * it completes only once its body returned and they are all fulfilled. */
int alpi_task_events_increase(struct alpi_task *task, uint64_t increment);

/* Whether the calling task (task: its own handle) has events outstanding
 * (*has_events 1 or 0).  A Locus extension: ALPI 1.1 has it. */
int alpi_task_events_test(struct alpi_task *task, uint64_t *has_events);

/* Fulfils decrement events of task, from any thread. */
int alpi_task_events_decrease(struct alpi_task *task, uint64_t decrement);

/* Task attributes (ALPI 1.0 defines none: only defaults). */
int alpi_attr_create(struct alpi_attr **attr);
int alpi_attr_destroy(struct alpi_attr *attr);
int alpi_attr_init(struct alpi_attr *attr);
int alpi_attr_size(uint64_t *attr_size);

/* Spawns an independent task running body(body_args), from any thread;
 * completion_callback(completion_args) is called once it is complete
 * (its events fulfilled, its children complete).  label may be NULL,
 * attr NULL for the defaults. */
int alpi_task_spawn(void (*body)(void *), void *body_args,
                    void (*completion_callback)(void *), void *completion_args,
                    const char *label, const struct alpi_attr *attr);

/* The number of CPUs (workers) that run tasks. */
int alpi_cpu_count(uint64_t *count);

/* The calling task's CPU: logical id 0..count-1, and the system's id. */
int alpi_cpu_logical_id(uint64_t *logical_id);
int alpi_cpu_system_id(uint64_t *system_id);

#ifdef __cplusplus
}
#endif

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* ALPI_INTERFACE_H */
