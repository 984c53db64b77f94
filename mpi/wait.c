/*
 * wait.c - handing requests over: locus_mpi_iwaitall() (the task completes
 * when they do, through one event) and locus_mpi_waitall() (the task blocks
 * until they do, its worker running other tasks meanwhile), with the checks
 * every hand-over makes first.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "lmpi.h"

static void lm_empty_status(MPI_Status *st)
{
    memset(st, 0, sizeof *st);
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = MPI_SUCCESS;
}

/* reqs[i] repeats an earlier entry of the same call. */
static int lm_repeats(const MPI_Request reqs[], int i)
{
    for (int k = 0; k < i; k++)
        if (reqs[k] == reqs[i])
            return 1;
    return 0;
}

/* Records a request that completed at once (MPI_Test in lm_hand_over). */
static void lm_now_done(struct lm_group *g, int i, MPI_Status *st, int rc)
{
    st->MPI_ERROR = rc;   /* MPI_Test leaves it unset on success */
    if (rc != MPI_SUCCESS) {
        lm_table.stats.errors++;
        if (g->first_error < 0) {
            g->first_error = i;
            g->error_code = rc;
        }
    }
    if (g->statuses)
        g->statuses[i] = *st;
    lm_table.stats.completed++;
}

/*
 * The common part: checks, then (table locked) each request is tested once
 * and only those not complete yet are added to the table, as one group.
 * Testing first matters beyond speed: MPI may return one shared, already
 * complete request object for many operations (Open MPI does for small
 * sends), which must never sit in the table twice.  The duplicate checks
 * come before anything is tested, so that a refused call changes nothing;
 * a complete request listed twice in one call is tested once.  The event
 * (non-blocking form) is added before the service can see the requests,
 * so it never fulfils one not yet added; it is taken back when nothing was
 * left pending.  On success *gp is the group (NULL when every request was
 * MPI_REQUEST_NULL) and *pending_out the requests left pending (the
 * service changes g->left from then on, under the table lock).
 */
static int lm_hand_over(const char *fn, int count, MPI_Request reqs[], MPI_Status statuses[],
                        locus_task_ref_t task, int blocking, struct lm_group **gp,
                        int *pending_out)
{
    *gp = NULL;
    *pending_out = 0;
    if (count < 0)
        return lm_error(-EINVAL, "%s: count %d is negative", fn, count);
    if (count > 0 && !reqs)
        return lm_error(-EINVAL, "%s: NULL request array with count %d", fn, count);

    int live = 0;
    for (int i = 0; i < count; i++)
        live += reqs[i] != MPI_REQUEST_NULL;
    int *index = live ? malloc((size_t)live * sizeof *index) : NULL;
    MPI_Request *copy = live ? malloc((size_t)live * sizeof *copy) : NULL;
    struct lm_group *g = live ? calloc(1, sizeof *g) : NULL;
    if (live && (!index || !copy || !g)) {
        free(index);
        free(copy);
        free(g);
        return lm_error(-ENOMEM, "%s: no memory for %d requests", fn, live);
    }

    pthread_mutex_lock(&lm_table.lock);
    int err = 0;
    if (!lm_table.initialised)
        err = lm_error(-EPERM, "%s: locus_mpi_init() was not called", fn);
    else
        err = lm_table_check_new(fn, reqs, count);
    if (err == 0 && live && !blocking && (err = locus_task_events_increase(task, 1)) < 0)
        lm_error(err, "%s: locus_task_events_increase: %s", fn, locus_error_message());
    if (err == 0 && live) {
        g->task = task;
        g->blocking = blocking;
        g->first_error = -1;
        g->statuses = statuses == MPI_STATUSES_IGNORE ? NULL : statuses;
        int pending = 0;
        for (int i = 0; i < count; i++) {
            if (reqs[i] == MPI_REQUEST_NULL || lm_repeats(reqs, i))
                continue;
            lm_table.stats.requests++;
            MPI_Request r = reqs[i];
            MPI_Status st;
            int flag = 0, rc = MPI_Test(&r, &flag, &st);
            if (rc != MPI_SUCCESS || flag) {
                lm_now_done(g, i, &st, rc);
            } else {
                index[pending] = i;
                copy[pending++] = r;
            }
        }
        g->left = pending;
        *pending_out = pending;
        if (pending)
            lm_table_add(g, copy, index, pending);   /* room was made by the check */
        else if (!blocking)
            locus_task_events_decrease(task, 1);     /* the body runs: cannot complete */
        for (int i = 0; i < count; i++) {
            if (statuses != MPI_STATUSES_IGNORE
                && (reqs[i] == MPI_REQUEST_NULL || lm_repeats(reqs, i)))
                lm_empty_status(&statuses[i]);
        }
        if (blocking && pending)
            lm_table.stats.blocked_waits++;
    }
    if (err == 0)   /* ours from now on, as MPI_Waitall would free them */
        for (int i = 0; i < count; i++)
            reqs[i] = MPI_REQUEST_NULL;
    pthread_mutex_unlock(&lm_table.lock);
    free(index);
    free(copy);
    /* *pending_out, not g->left: once the lock is released the service
     * may finish the group and (non-blocking form) free it */
    if (err < 0 || (g && !blocking && *pending_out == 0)) {
        free(g);
        return err;
    }
    *gp = g;
    return 0;
}

LOCUS_API int locus_mpi_iwaitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
    locus_task_ref_t task = locus_task_current();
    if (!task)
        return lm_error(-ENOTSUP, "locus_mpi_iwaitall: not inside a task (there is no task "
                        "to complete later); use locus_mpi_waitall or MPI_Waitall here");
    struct lm_group *g;
    int pending;
    int err = lm_hand_over("locus_mpi_iwaitall", count, reqs, statuses, task, 0, &g, &pending);
    return err;
}

LOCUS_API int locus_mpi_iwait(MPI_Request *req, MPI_Status *status)
{
    return locus_mpi_iwaitall(1, req, status == MPI_STATUS_IGNORE ? MPI_STATUSES_IGNORE
                                                                   : status);
}

LOCUS_API int locus_mpi_waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
    const char *fn = "locus_mpi_waitall";
    locus_task_ref_t task = locus_task_current();
    if (!task) {
        /* The initial thread outside any task: MPI's own wait, after the
         * same checks. */
        struct lm_group *none;
        int pending;
        if (count < 0 || (count > 0 && !reqs))
            return lm_hand_over(fn, count, reqs, statuses, NULL, 1, &none, &pending);
        pthread_mutex_lock(&lm_table.lock);
        int err = !lm_table.initialised ? lm_error(-EPERM, "%s: locus_mpi_init() was not "
                                                   "called", fn)
                                        : lm_table_check_new(fn, reqs, count);
        pthread_mutex_unlock(&lm_table.lock);
        if (err < 0)
            return err;
        int rc = MPI_Waitall(count, reqs, statuses);
        if (rc != MPI_SUCCESS) {
            char text[MPI_MAX_ERROR_STRING];
            int len = 0;
            MPI_Error_string(rc, text, &len);
            return lm_error(-EIO, "%s: MPI_Waitall: %s", fn, text);
        }
        return 0;
    }

    struct lm_group *g;
    int pending;
    int err = lm_hand_over(fn, count, reqs, statuses, task, 1, &g, &pending);
    if (err < 0 || !g)
        return err;
    while (pending > 0) {   /* until the service has finished the group (done == 2) */
        int e = locus_task_block();
        int s = atomic_load_explicit(&g->done, memory_order_acquire);
        if (s == 2)
            break;
        if (s == 1) {   /* our unblock is in flight: let it finish */
            while (atomic_load_explicit(&g->done, memory_order_acquire) != 2)
                sched_yield();
            break;
        }
        if (e < 0)      /* cannot block (should not happen inside a task): poll */
            sched_yield();
        /* else woken by another unblock: block again */
    }
    err = 0;
    if (g->first_error >= 0) {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(g->error_code, text, &len);
        err = lm_error(-EIO, "%s: request %d failed: %s", fn, g->first_error, text);
    }
    free(g);
    return err;
}

LOCUS_API int locus_mpi_wait(MPI_Request *req, MPI_Status *status)
{
    return locus_mpi_waitall(1, req, status == MPI_STATUS_IGNORE ? MPI_STATUSES_IGNORE : status);
}
