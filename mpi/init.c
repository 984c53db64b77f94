/*
 * init.c - locus_mpi_init() and locus_mpi_finalize(): the checks that make
 * locus-mpi refuse, with a reason, an MPI or a Locus it cannot work with,
 * and the registration of the polling service; also the statistics calls.
 *
 * Why MPI_THREAD_MULTIPLE and nothing less: tasks on every worker call MPI
 * (MPI_Isend, ...) while the service, on whichever worker polls, calls
 * MPI_Testsome.  Serialising every MPI call of every task through one lock
 * would be the alternative; locus-mpi does not, and says so.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lmpi.h"

struct lm_table lm_table = { .lock = PTHREAD_MUTEX_INITIALIZER };

static const char *lm_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE:
        return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
        return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
        return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE:
        return "MPI_THREAD_MULTIPLE";
    default:
        return "an unknown level";
    }
}

LOCUS_API int locus_mpi_init(void)
{
    int flag = 0, level = MPI_THREAD_SINGLE;

    MPI_Initialized(&flag);
    if (!flag)
        return lm_error(-EPERM, "locus_mpi_init: MPI is not initialised; call "
                        "MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) first");
    MPI_Finalized(&flag);
    if (flag)
        return lm_error(-EPERM, "locus_mpi_init: MPI is already finalised");
    MPI_Query_thread(&level);
    if (level < MPI_THREAD_MULTIPLE)
        return lm_error(-ENOTSUP, "locus_mpi_init: MPI provides %s; locus-mpi needs "
                        "MPI_THREAD_MULTIPLE (tasks on every worker call MPI while the polling "
                        "service tests requests): initialise MPI with MPI_Init_thread(..., "
                        "MPI_THREAD_MULTIPLE, ...) and check 'provided'", lm_level_name(level));
    if (locus_num_workers() < 0)
        return lm_error(-EPERM, "locus_mpi_init: the Locus runtime is not running; call "
                        "locus_init() first");

    /* tasks will block in locus_mpi_wait: tell Locus before they run (the
     * reference itself is not needed) */
    (void)locus_task_current();

    pthread_mutex_lock(&lm_table.lock);
    if (lm_table.initialised) {
        pthread_mutex_unlock(&lm_table.lock);
        return lm_error(-EALREADY, "locus_mpi_init: already initialised");
    }
    memset(&lm_table.stats, 0, sizeof lm_table.stats);
    lm_table.n = 0;
    lm_table.initialised = 1;
    pthread_mutex_unlock(&lm_table.lock);
    /* Outside the table lock: a poll holds the runtime's service lock and
     * then takes the table lock, so the other order could deadlock.  A
     * request handed over before this returns waits for the first poll. */
    int err = locus_poll_register("locus-mpi", lm_poll, NULL);
    if (err < 0) {
        pthread_mutex_lock(&lm_table.lock);
        lm_table.initialised = 0;
        pthread_mutex_unlock(&lm_table.lock);
        return lm_error(err, "locus_mpi_init: registering the polling service: %s",
                        locus_error_message());
    }
    return 0;
}

LOCUS_API int locus_mpi_finalize(void)
{
    pthread_mutex_lock(&lm_table.lock);
    if (!lm_table.initialised) {
        pthread_mutex_unlock(&lm_table.lock);
        return lm_error(-EPERM, "locus_mpi_finalize: locus_mpi_init() was not called");
    }
    if (lm_table.n > 0) {
        int n = lm_table.n;
        pthread_mutex_unlock(&lm_table.lock);
        return lm_error(-EBUSY, "locus_mpi_finalize: %d request%s still pending; wait for "
                        "the tasks that handed them over (locus_taskwait) first", n,
                        n == 1 ? " is" : "s are");
    }
    lm_table.initialised = 0;
    pthread_mutex_unlock(&lm_table.lock);
    /* Outside the lock: unregistering may wait for a poll in progress,
     * which takes the lock. */
    int err = locus_poll_unregister(lm_poll, NULL);
    if (err < 0 && err != -ENOENT)
        return lm_error(err, "locus_mpi_finalize: %s", locus_error_message());
    pthread_mutex_lock(&lm_table.lock);
    free(lm_table.reqs);
    free(lm_table.slots);
    free(lm_table.indices);
    free(lm_table.st);
    lm_table.reqs = NULL;
    lm_table.slots = NULL;
    lm_table.indices = NULL;
    lm_table.st = NULL;
    lm_table.cap = 0;
    pthread_mutex_unlock(&lm_table.lock);
    return 0;
}

LOCUS_API int locus_mpi_get_stats(locus_mpi_stats_t *st, size_t size)
{
    if (!st || size == 0)
        return lm_error(-EINVAL, "locus_mpi_get_stats: NULL or empty buffer");
    pthread_mutex_lock(&lm_table.lock);
    if (!lm_table.initialised) {
        pthread_mutex_unlock(&lm_table.lock);
        return lm_error(-EPERM, "locus_mpi_get_stats: locus_mpi_init() was not called");
    }
    locus_mpi_stats_t s = lm_table.stats;
    if (lm_table.n > 0)   /* the interval in progress counts up to now */
        s.pending_seconds += (double)(lm_now_ns() - lm_table.pending_since) * 1e-9;
    pthread_mutex_unlock(&lm_table.lock);
    memset(st, 0, size);
    memcpy(st, &s, size < sizeof s ? size : sizeof s);
    return 0;
}

LOCUS_API int locus_mpi_reset_stats(void)
{
    pthread_mutex_lock(&lm_table.lock);
    if (!lm_table.initialised) {
        pthread_mutex_unlock(&lm_table.lock);
        return lm_error(-EPERM, "locus_mpi_reset_stats: locus_mpi_init() was not called");
    }
    memset(&lm_table.stats, 0, sizeof lm_table.stats);
    lm_table.pending_since = lm_now_ns();
    pthread_mutex_unlock(&lm_table.lock);
    return 0;
}
