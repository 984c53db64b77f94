/*
 * mpi_check.h - what the MPI test programs share: a check that names the
 * rank, the line and the values, and a watchdog, so that a failure or a
 * hang ends the program (and with it the mpirun job) with a message.
 * The programs are run by tests/mpi/run under mpirun.
 */
#ifndef MPI_CHECK_H
#define MPI_CHECK_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "locus.h"
#include "locus_mpi.h"

static int mc_rank = -1;

#define MC_FAIL(...)                                                                  \
    do {                                                                              \
        fprintf(stderr, "FAIL rank %d %s:%d: ", mc_rank, __FILE__, __LINE__);         \
        fprintf(stderr, __VA_ARGS__);                                                 \
        fputc('\n', stderr);                                                          \
        fflush(stderr);                                                               \
        _exit(1);                                                                     \
    } while (0)

/* An expression that must give the expected int value. */
#define MC_EQ(expr, want)                                                             \
    do {                                                                              \
        long mc_got_ = (long)(expr), mc_want_ = (long)(want);                         \
        if (mc_got_ != mc_want_)                                                      \
            MC_FAIL("%s is %ld, expected %ld (locus: '%s', locus-mpi: '%s')", #expr,  \
                    mc_got_, mc_want_, locus_error_message(), locus_mpi_error_message()); \
    } while (0)

#define MC_TRUE(cond, ...)                                                            \
    do {                                                                              \
        if (!(cond))                                                                  \
            MC_FAIL(__VA_ARGS__);                                                     \
    } while (0)

static void mc_watchdog_fired(int sig)
{
    (void)sig;
    static const char msg[] = "FAIL: watchdog: the test hung (no progress within its limit)\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(3);
}

/* A hang becomes a failure after seconds (longer under a sanitizer). */
static void mc_watchdog(unsigned seconds)
{
    const char *san = getenv("LOCUS_TEST_SANITIZER");
    if (san && *san && strcmp(san, "none"))
        seconds *= 5;
    signal(SIGALRM, mc_watchdog_fired);
    alarm(seconds);
}

/* MPI_Init_thread at MPI_THREAD_MULTIPLE, checked; *rank (also mc_rank)
 * and *nranks, which must be even: the programs pair ranks up (rank ^ 1). */
static inline void mc_mpi_init_pairs(int *argc, char ***argv, int *rank, int *nranks)
{
    int provided;
    MC_EQ(MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided), MPI_SUCCESS);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, nranks);
    mc_rank = *rank;
    MC_TRUE(provided == MPI_THREAD_MULTIPLE, "MPI gives thread level %d", provided);
    MC_TRUE(*nranks % 2 == 0, "needs an even number of ranks, not %d", *nranks);
}

#endif /* MPI_CHECK_H */
