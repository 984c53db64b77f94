/*
 * locus_mpi.h - locus-mpi, task-aware MPI on Locus (liblocus-mpi): a task
 * hands its non-blocking MPI requests to Locus instead of waiting for them,
 * so that waiting for communication never holds a worker.
 *
 *   locus_mpi_iwaitall()  the calling task completes (its dependencies are
 *                         released, taskwaits for it return) only once its
 *                         body has returned AND the requests have completed;
 *                         the call itself returns at once.
 *   locus_mpi_waitall()   returns when the requests have completed, like
 *                         MPI_Waitall, but the calling task is blocked
 *                         (locus_task_block) and its worker runs other ready
 *                         tasks meanwhile.
 *
 * Both rest on one polling service (locus_poll_register) that calls
 * MPI_Testsome on every pending request from idle workers and, at a bounded
 * interval, from busy ones; a completion fulfils the task's event
 * (locus_task_events_decrease) or unblocks it (locus_task_unblock).
 *
 * MPI must be initialised with MPI_THREAD_MULTIPLE: tasks on every worker
 * call MPI while the service tests requests.  Order of calls:
 *   MPI_Init_thread(.., MPI_THREAD_MULTIPLE, ..); locus_init(); locus_mpi_init();
 *   ... tasks ...
 *   locus_taskwait(); locus_mpi_finalize(); locus_finalize(); MPI_Finalize();
 *
 * Error rule as in locus.h: 0 or a negative errno value; the detailed
 * message of the calling thread's last failure is locus_mpi_error_message().
 * On an error nothing was handed over: the requests are still the caller's.
 * Man page: locus_mpi(3).
 */
#ifndef LOCUS_MPI_H
#define LOCUS_MPI_H

#include <mpi.h>
#include <stdint.h>

#include "locus.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Checks MPI (initialised, not finalised, MPI_THREAD_MULTIPLE provided) and
 * Locus (running), and registers the polling service.  Call on the thread
 * that called locus_init(), outside any task.  0; -EPERM when MPI is not
 * initialised (or already finalised) or Locus is not running; -ENOTSUP when
 * MPI provides less than MPI_THREAD_MULTIPLE (the message names the level
 * provided); -EALREADY when already initialised; -ENOMEM.
 */
LOCUS_API int locus_mpi_init(void);

/**
 * Unregisters the service.  Call after the last task that handed requests
 * has completed (e.g. after locus_taskwait()), before locus_finalize() and
 * MPI_Finalize().  0; -EPERM when not initialised; -EBUSY (and nothing
 * changes) while requests are still pending.
 */
LOCUS_API int locus_mpi_finalize(void);

/**
 * Hands count requests to Locus: the calling task does not complete until
 * every one of them has.  Each reqs[i] becomes MPI_REQUEST_NULL at once (the
 * requests belong to Locus now; MPI_REQUEST_NULL entries are allowed and
 * complete already).  statuses (count entries, or MPI_STATUSES_IGNORE) is
 * written when each request completes, so it must stay valid until the task
 * has completed; an MPI error is reported in the status's MPI_ERROR (and
 * counted in locus_mpi_stats_t.errors), and the task still completes.
 * Only from inside a task.  0; -EINVAL for count < 0 or NULL reqs with
 * count > 0; -EPERM when locus_mpi_init() was not called; -ENOTSUP outside a
 * task; -EBUSY when a request is already pending (handed twice, here or by
 * an earlier call, until it completes); -ENOMEM.
 */
LOCUS_API int locus_mpi_iwaitall(int count, MPI_Request reqs[], MPI_Status statuses[]);

/** locus_mpi_iwaitall(1, req, status); status may be MPI_STATUS_IGNORE. */
LOCUS_API int locus_mpi_iwait(MPI_Request *req, MPI_Status *status);

/**
 * Waits until the requests have completed, as MPI_Waitall (reqs[i] become
 * MPI_REQUEST_NULL, statuses filled unless MPI_STATUSES_IGNORE).  Inside a
 * task the task blocks and its worker runs other tasks meanwhile; outside
 * any task (the initial thread) it is MPI_Waitall, holding the thread.
 * 0; the errors of locus_mpi_iwaitall() except -ENOTSUP; -EIO when MPI
 * reported an error for a request (the message names which; the status
 * holds MPI's code).
 */
LOCUS_API int locus_mpi_waitall(int count, MPI_Request reqs[], MPI_Status statuses[]);

/** locus_mpi_waitall(1, req, status). */
LOCUS_API int locus_mpi_wait(MPI_Request *req, MPI_Status *status);

/** What locus-mpi has done since locus_mpi_init() or the last reset. */
typedef struct locus_mpi_stats {
    uint64_t requests;      /**< requests handed over (MPI_REQUEST_NULL not counted) */
    uint64_t completed;     /**< of them, completed */
    uint64_t errors;        /**< completed with an MPI error */
    uint64_t blocked_waits; /**< locus_mpi_waitall() calls that had to block their task */
    uint64_t polls;         /**< MPI_Testsome calls of the service */
    double pending_seconds; /**< wall time during which at least one request was pending */
    double request_seconds; /**< sum over requests of hand-over to completion seen */
} locus_mpi_stats_t;

/** Fills *st (size = sizeof *st as compiled).  0, -EINVAL, -EPERM. */
LOCUS_API int locus_mpi_get_stats(locus_mpi_stats_t *st, size_t size);

/** Sets the figures to zero.  0 or -EPERM. */
LOCUS_API int locus_mpi_reset_stats(void);

/** The detailed message of the last failure of a locus_mpi call on this
 * thread, or "" (never NULL). */
LOCUS_API const char *locus_mpi_error_message(void);

#ifdef __cplusplus
}
#endif

#endif /* LOCUS_MPI_H */
