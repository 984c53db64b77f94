/*
 * bench_mpi.h - what the distributed benchmarks (benchmarks/NAME-mpi/) share:
 * starting MPI (MPI_THREAD_MULTIPLE), Locus and locus-mpi in that order,
 * stopping them, and the per-rank figures of the RESULT line: the rank, the
 * time the rank's requests were pending, the time its tasks computed, and
 * from them the share of the communication time hidden behind computation.
 *
 * The hidden share is an estimate: with W workers over a phase of wall
 * seconds, W * wall - compute is the time workers were not computing;
 * the part of the pending time it could cover (at most all of it) is
 * counted as exposed, the rest as hidden:
 *   hidden = 1 - min(pending, W * wall - compute) / pending.
 * Idle time that has other causes (load imbalance, runtime overhead)
 * counts as exposed, so the estimate errs low.
 * Include bench.h first.
 */
#ifndef LOCUS_BENCH_MPI_H
#define LOCUS_BENCH_MPI_H

#include <mpi.h>
#include <stdatomic.h>

#include "locus_mpi.h"

static int bm_rank, bm_ranks;
static atomic_ullong bm_compute_ns;   /* summed over the rank's compute tasks */

__attribute__((noreturn, cold)) static void bm_die(const char *prog, const char *what, int err,
                                                    const char *msg)
{
    fprintf(stderr, "%s: rank %d: %s: %s (%s)\n", prog, bm_rank, what, locus_strerror(err), msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static void bm_start(const char *prog, int *argc, char ***argv)
{
    int provided, err;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "%s: MPI_Init_thread failed\n", prog);
        exit(1);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &bm_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &bm_ranks);
    if ((err = locus_init()) < 0)
        bm_die(prog, "locus_init", err, locus_error_message());
    if ((err = locus_mpi_init()) < 0)
        bm_die(prog, "locus_mpi_init", err, locus_mpi_error_message());
}

static void bm_stop(const char *prog)
{
    int err;
    if ((err = locus_mpi_finalize()) < 0)
        bm_die(prog, "locus_mpi_finalize", err, locus_mpi_error_message());
    if ((err = locus_finalize()) < 0)
        bm_die(prog, "locus_finalize", err, locus_error_message());
    MPI_Finalize();
}

/* Starts a measured phase on every rank at once. */
static void bm_phase_start(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    (void)locus_reset_stats();
    (void)locus_mpi_reset_stats();
    atomic_store(&bm_compute_ns, 0);
}

/* A compute task's time, measured around its kernel. */
static inline void bm_add_compute(double seconds)
{
    atomic_fetch_add_explicit(&bm_compute_ns, (unsigned long long)(seconds * 1e9),
                              memory_order_relaxed);
}

/* The rank's fields of the RESULT line for a phase of wall seconds. */
static void bm_rank_fields(char *buf, size_t len, double wall)
{
    locus_mpi_stats_t ms;
    memset(&ms, 0, sizeof ms);
    (void)locus_mpi_get_stats(&ms, sizeof ms);
    int w = locus_num_workers();
    double compute = (double)atomic_load(&bm_compute_ns) * 1e-9;
    double idle = (double)(w > 0 ? w : 1) * wall - compute;
    if (idle < 0)
        idle = 0;
    double exposed = idle < ms.pending_seconds ? idle : ms.pending_seconds;
    double hidden = ms.pending_seconds > 0 ? 1.0 - exposed / ms.pending_seconds : 1.0;
    snprintf(buf, len, "rank=%d ranks=%d requests=%llu comm_pending_s=%.6f compute_s=%.6f "
             "hidden=%.3f", bm_rank, bm_ranks, (unsigned long long)ms.requests,
             ms.pending_seconds, compute, hidden);
}

/* The slowest rank's time: the phase's. */
static double bm_max_time(double t)
{
    double m = t;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

#endif /* LOCUS_BENCH_MPI_H */
