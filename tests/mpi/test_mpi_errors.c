/*
 * test_mpi_errors.c - locus-mpi's answers to bad use, one mode per run
 * (tests/mpi/run runs each under mpirun):
 *   api      (default) calls before locus_mpi_init, twice, outside a task,
 *            bad counts, a request handed twice (in two calls and twice in
 *            one call), finalising with requests pending: each a clear
 *            negative errno and message, and nothing lost (the requests
 *            the failed call was given still complete normally)
 *   level    MPI initialised with MPI_THREAD_SERIALIZED: -ENOTSUP naming it
 *   dies     rank 1 exits without MPI_Finalize while rank 0's task waits
 *            for its message: the job must end with an error (the run
 *            script checks mpirun's status and that it did not time out)
 */
#include <mpi.h>
#include <sched.h>
#include <stdatomic.h>

#include "mpi_check.h"

static int rank, nranks;
static atomic_int done;

static void expect_msg(const char *what)
{
    MC_TRUE(strstr(locus_mpi_error_message(), what), "message '%s' does not say '%s'",
            locus_mpi_error_message(), what);
}

/* ---- api */
static long twice_buf, twice_out, twice_in, data_out;

static void twice_task(void *p)
{
    (void)p;
    int peer = rank ^ 1;
    MPI_Request r, keep;
    MC_EQ(MPI_Irecv(&twice_buf, 1, MPI_LONG, peer, 7, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    keep = r;                                  /* a copy of the handle */
    MC_EQ(locus_mpi_iwait(&r, MPI_STATUS_IGNORE), 0);
    MC_TRUE(r == MPI_REQUEST_NULL, "handed request not set to MPI_REQUEST_NULL");
    MC_EQ(locus_mpi_iwait(&keep, MPI_STATUS_IGNORE), -EBUSY);
    expect_msg("handed to locus-mpi before");
    MC_TRUE(keep != MPI_REQUEST_NULL, "a refused request was taken");
    /* the same array twice is fine: its entries are MPI_REQUEST_NULL now */
    MC_EQ(locus_mpi_iwait(&r, MPI_STATUS_IGNORE), 0);
    /* twice in one call while pending: refused, nothing taken */
    MPI_Request two[2];
    MC_EQ(MPI_Irecv(&twice_in, 1, MPI_LONG, peer, 8, MPI_COMM_WORLD, &two[0]), MPI_SUCCESS);
    two[1] = two[0];
    MC_EQ(locus_mpi_iwaitall(2, two, MPI_STATUSES_IGNORE), -EBUSY);
    expect_msg("are the same pending request");
    MC_TRUE(two[0] != MPI_REQUEST_NULL, "a refused request was taken");

    /* Only now may the partner send what r and two[0] receive (before, they
     * could have completed, and handing a completed request's copy is MPI's
     * undefined use of a freed handle): each side says "ready" and sends
     * its data once it has the other's "ready". */
    MPI_Request rdy[2];
    long rdy_out = 1, rdy_in = 0;
    MC_EQ(MPI_Isend(&rdy_out, 1, MPI_LONG, peer, 6, MPI_COMM_WORLD, &rdy[0]), MPI_SUCCESS);
    MC_EQ(MPI_Irecv(&rdy_in, 1, MPI_LONG, peer, 6, MPI_COMM_WORLD, &rdy[1]), MPI_SUCCESS);
    MC_EQ(locus_mpi_waitall(2, rdy, MPI_STATUSES_IGNORE), 0);
    MC_EQ(rdy_in, 1);
    data_out = rank;
    MC_EQ(MPI_Isend(&data_out, 1, MPI_LONG, peer, 7, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    MC_EQ(locus_mpi_iwait(&r, MPI_STATUS_IGNORE), 0);
    twice_out = rank;
    MC_EQ(MPI_Isend(&twice_out, 1, MPI_LONG, peer, 8, MPI_COMM_WORLD, &two[1]), MPI_SUCCESS);
    MPI_Status st[2];
    MC_EQ(locus_mpi_waitall(2, two, st), 0);   /* both complete: nothing was lost */
    MC_EQ(st[0].MPI_SOURCE, peer);
    MC_EQ(st[0].MPI_ERROR, MPI_SUCCESS);
    MC_EQ(st[1].MPI_ERROR, MPI_SUCCESS);
    MC_EQ(twice_in, peer);
    MC_EQ(locus_mpi_iwaitall(-1, two, MPI_STATUSES_IGNORE), -EINVAL);
    MC_EQ(locus_mpi_iwaitall(1, NULL, MPI_STATUSES_IGNORE), -EINVAL);
    MC_EQ(locus_mpi_waitall(-3, two, MPI_STATUSES_IGNORE), -EINVAL);
    MC_EQ(locus_mpi_iwaitall(0, NULL, MPI_STATUSES_IGNORE), 0);
    atomic_fetch_add(&done, 1);
}

static void check_twice(void *p)
{
    (void)p;
    MC_EQ(twice_buf, rank ^ 1);
    atomic_fetch_add(&done, 1);
}

/* Hands over a receive whose message comes only after finalize was tried. */
static long late_buf;
static void late_task(void *p)
{
    (void)p;
    MPI_Request r;
    MC_EQ(MPI_Irecv(&late_buf, 1, MPI_LONG, rank ^ 1, 9, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    MC_EQ(locus_mpi_iwait(&r, MPI_STATUS_IGNORE), 0);
}

static void mode_api(void)
{
    MPI_Request r = MPI_REQUEST_NULL;
    locus_mpi_stats_t st;
    MC_EQ(locus_mpi_init(), -EPERM);           /* Locus not running */
    expect_msg("locus_init");
    MC_EQ(locus_init(), 0);
    /* main is a task (its events hold locus_finalize), but locus-mpi is not
     * initialised yet */
    MC_EQ(locus_mpi_iwait(&r, MPI_STATUS_IGNORE), -EPERM);
    MC_EQ(locus_mpi_waitall(1, &r, MPI_STATUSES_IGNORE), -EPERM);  /* not initialised */
    MC_EQ(locus_mpi_get_stats(&st, sizeof st), -EPERM);
    MC_EQ(locus_mpi_finalize(), -EPERM);
    MC_EQ(locus_mpi_init(), 0);
    MC_EQ(locus_mpi_init(), -EALREADY);
    MC_EQ(locus_mpi_get_stats(NULL, sizeof st), -EINVAL);

    MC_EQ(locus_task(twice_task, NULL, 0, LOCUS_OUT(&twice_buf, sizeof twice_buf)), 0);
    MC_EQ(locus_task(check_twice, NULL, 0, LOCUS_IN(&twice_buf, sizeof twice_buf)), 0);
    long out = rank;
    MC_EQ(locus_taskwait(), 0);
    MC_EQ(atomic_load(&done), 2);

    /* finalize while a request is pending: -EBUSY, nothing changes */
    MC_EQ(locus_task(late_task, NULL, 0, LOCUS_OUT(&late_buf, sizeof late_buf)), 0);
    for (;;) {   /* until the task has handed its request over */
        MC_EQ(locus_mpi_get_stats(&st, sizeof st), 0);
        if (st.requests > st.completed)
            break;
        sched_yield();
    }
    MC_EQ(locus_mpi_finalize(), -EBUSY);
    expect_msg("still pending");
    MC_EQ(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
    MC_EQ(MPI_Send(&out, 1, MPI_LONG, rank ^ 1, 9, MPI_COMM_WORLD), MPI_SUCCESS);
    MC_EQ(locus_taskwait(), 0);
    MC_EQ(late_buf, rank ^ 1);

    MC_EQ(locus_mpi_get_stats(&st, sizeof st), 0);
    MC_EQ(st.completed, st.requests);
    MC_EQ(st.requests, 7);   /* twice: 3 receives, 3 sends; late: 1 */
    MC_EQ(locus_mpi_finalize(), 0);
    MC_EQ(locus_finalize(), 0);
}

/* ---- dies */
static long dies_buf;
static void dies_task(void *p)
{
    (void)p;
    MPI_Request r;
    MC_EQ(MPI_Irecv(&dies_buf, 1, MPI_LONG, 1, 11, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    int err = locus_mpi_wait(&r, MPI_STATUS_IGNORE);
    /* Open MPI ends the job when a rank dies (MPI_ERRORS_ARE_FATAL); an MPI
     * that reports it instead must give an error here, never a value. */
    MC_TRUE(err < 0, "a receive from a dead rank completed (buf %ld)", dies_buf);
    fprintf(stderr, "rank 0: the wait for the dead rank failed: %s\n", locus_mpi_error_message());
    _exit(4);
}

static void mode_dies(void)
{
    MC_EQ(locus_init(), 0);
    MC_EQ(locus_mpi_init(), 0);
    MC_EQ(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
    if (rank == 1) {
        fprintf(stderr, "rank 1: exiting without MPI_Finalize (on purpose)\n");
        _exit(5);
    }
    if (rank == 0)
        MC_EQ(locus_task(dies_task, NULL, 0, LOCUS_OUT(&dies_buf, sizeof dies_buf)), 0);
    locus_taskwait();
    MC_FAIL("rank %d: the job went on after rank 1 died", rank);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "api";
    int provided, want = strcmp(mode, "level") ? MPI_THREAD_MULTIPLE : MPI_THREAD_SERIALIZED;
    mc_watchdog(60);
    MC_EQ(locus_mpi_init(), -EPERM);           /* before MPI_Init */
    expect_msg("MPI is not initialised");
    MC_EQ(MPI_Init_thread(&argc, &argv, want, &provided), MPI_SUCCESS);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    mc_rank = rank;
    MC_TRUE(nranks % 2 == 0, "needs an even number of ranks, not %d", nranks);

    if (!strcmp(mode, "level")) {
        MC_TRUE(provided < MPI_THREAD_MULTIPLE, "asked for SERIALIZED, got MULTIPLE");
        MC_EQ(locus_init(), 0);
        MC_EQ(locus_mpi_init(), -ENOTSUP);
        expect_msg("MPI_THREAD_MULTIPLE");
        expect_msg(provided == MPI_THREAD_SERIALIZED ? "provides MPI_THREAD_SERIALIZED"
                                                     : "provides MPI_THREAD_");
        MC_EQ(locus_finalize(), 0);
    } else if (!strcmp(mode, "dies")) {
        mode_dies();
    } else if (!strcmp(mode, "api")) {
        MC_TRUE(provided == MPI_THREAD_MULTIPLE, "MPI gives thread level %d", provided);
        mode_api();
    } else {
        MC_FAIL("unknown mode '%s': api, level or dies", mode);
    }
    MC_EQ(MPI_Finalize(), MPI_SUCCESS);
    if (rank == 0)
        printf("test_mpi_errors %s: %d ranks passed\n", mode, nranks);
    return 0;
}
