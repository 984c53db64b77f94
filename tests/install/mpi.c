/*
 * mpi.c - a locus-mpi program that tests/install/run builds with
 * locus-mpi.pc (and CMake's Locus::locus-mpi) and runs under mpirun -np 2:
 * each rank sends its rank to the other from a task that hands the request
 * to locus_mpi_iwait; a second task reads what arrived.  Prints "rank R got
 * G"; exits 1 on any error or a wrong value.
 */
#include <locus_mpi.h>
#include <stdio.h>

static int rank, size, got = -1, sent;
static MPI_Request reqs[2];

static void exchange(void *arg)
{
    (void)arg;
    int peer = (rank + 1) % size;
    sent = rank;
    MPI_Irecv(&got, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(&sent, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &reqs[1]);
    if (locus_mpi_iwaitall(2, reqs, MPI_STATUSES_IGNORE) != 0)
        fprintf(stderr, "locus_mpi_iwaitall: %s\n", locus_mpi_error_message());
}

static void report(void *arg)
{
    (void)arg;
    printf("rank %d got %d\n", rank, got);
}

int main(int argc, char **argv)
{
    int provided, rc = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (locus_init() != 0 || locus_mpi_init() != 0) {
        fprintf(stderr, "init: %s / %s\n", locus_error_message(), locus_mpi_error_message());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (locus_task(exchange, NULL, 0, LOCUS_OUT(&got, sizeof got)) != 0 ||
        locus_task(report, NULL, 0, LOCUS_IN(&got, sizeof got)) != 0)
        rc = 1;
    locus_taskwait();
    if (got != (rank + 1) % size)
        rc = 1;
    locus_mpi_finalize();
    locus_finalize();
    MPI_Finalize();
    return rc;
}
