/*
 * test_mpi_blocking.c - tasks that block in locus_mpi_wait, in an order only
 * real suspension survives (issue 25's program).  Ranks pair up (rank ^ 1);
 * in each pair, the even rank ("rank 0") has
 *   task A  waits (locus_mpi_wait) for tag 1,
 *   task B  waits for tag 2, then writes x,
 *   task D  reads x (after B), sends tag 3;
 * and the odd rank ("rank 1") sends tag 2, waits for tag 3, then sends
 * tag 1, from a task of its own (with a second task there that blocks on
 * its own receive meanwhile).  A correct program: tag 1 comes only after D,
 * which comes after B.  A tells the odd rank it has started (tag 5), and
 * tag 2 is sent only then, so B is still waiting when A starts.  Where a
 * blocked task waited on its worker's stack, one worker ran A above the
 * blocked B: B could not resume before A returned, and A waits for what
 * follows B (a34be7c hangs in the rounds that start B first).  Each round
 * spawns A and B in one order or the other.
 */
#include <mpi.h>
#include <stdatomic.h>

#include "mpi_check.h"

#define ROUNDS 20

static int rank, partner;
static atomic_int a_done, b_done, d_done, odd_done;

struct arg {
    int tag;      /* the round's base tag */
    long *x;      /* B's result, D's input */
};

static long recv_long(int tag)
{
    long v = -1;
    MPI_Request r;
    MPI_Status st;
    MC_EQ(MPI_Irecv(&v, 1, MPI_LONG, partner, tag, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    MC_EQ(locus_mpi_wait(&r, &st), 0);   /* the task blocks; its worker goes on */
    MC_EQ(st.MPI_TAG, tag);
    return v;
}

static void send_long(int tag, long v)
{
    MPI_Request r;
    MC_EQ(MPI_Isend(&v, 1, MPI_LONG, partner, tag, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    MC_EQ(locus_mpi_wait(&r, MPI_STATUS_IGNORE), 0);
}

static void task_a(void *p)
{
    const struct arg *a = p;
    send_long(a->tag + 5, 5000L + a->tag);   /* "A has started": tag 2 comes after it */
    MC_EQ(recv_long(a->tag + 1), 1000L + a->tag);
    MC_TRUE(atomic_load(&d_done), "tag 1 arrived before D sent tag 3");
    atomic_fetch_add(&a_done, 1);
}

static void task_b(void *p)
{
    const struct arg *a = p;
    *a->x = recv_long(a->tag + 2);
    MC_EQ(*a->x, 2000L + a->tag);
    atomic_fetch_add(&b_done, 1);
}

static void task_d(void *p)
{
    const struct arg *a = p;
    MC_EQ(*a->x, 2000L + a->tag);   /* after B */
    atomic_store(&d_done, 1);
    send_long(a->tag + 3, 3000L + a->tag);
}

/* the odd rank: tag 2, then wait for tag 3, then tag 1 */
static void odd_main(void *p)
{
    const struct arg *a = p;
    MC_EQ(recv_long(a->tag + 5), 5000L + a->tag);
    send_long(a->tag + 2, 2000L + a->tag);
    MC_EQ(recv_long(a->tag + 3), 3000L + a->tag);
    send_long(a->tag + 1, 1000L + a->tag);
    atomic_fetch_add(&odd_done, 1);
}

/* the odd rank's second task: blocks on a message its partner sends last
 * in the round (tag 4), while odd_main needs the worker */
static void odd_late(void *p)
{
    const struct arg *a = p;
    MC_EQ(recv_long(a->tag + 4), 4000L + a->tag);
}

int main(int argc, char **argv)
{
    int nranks;
    mc_watchdog(120);
    mc_mpi_init_pairs(&argc, &argv, &rank, &nranks);
    partner = rank ^ 1;

    MC_EQ(locus_init(), 0);
    MC_EQ(locus_mpi_init(), 0);

    static long x[ROUNDS];
    for (int round = 0; round < ROUNDS; round++) {
        struct arg a = { 8 * round, &x[round] };
        atomic_store(&d_done, 0);
        if (rank % 2 == 0) {
            if (round % 2 == 0) {
                MC_EQ(locus_task(task_a, &a, sizeof a), 0);
                MC_EQ(locus_task(task_b, &a, sizeof a, LOCUS_OUT(a.x, sizeof *a.x)), 0);
            } else {
                MC_EQ(locus_task(task_b, &a, sizeof a, LOCUS_OUT(a.x, sizeof *a.x)), 0);
                MC_EQ(locus_task(task_a, &a, sizeof a), 0);
            }
            MC_EQ(locus_task(task_d, &a, sizeof a, LOCUS_IN(a.x, sizeof *a.x)), 0);
            MC_EQ(locus_taskwait(), 0);
            send_long(a.tag + 4, 4000L + a.tag);   /* main is a task: it may wait too */
        } else {
            MC_EQ(locus_task(odd_late, &a, sizeof a), 0);
            MC_EQ(locus_task(odd_main, &a, sizeof a), 0);
            MC_EQ(locus_taskwait(), 0);
        }
    }
    if (rank % 2 == 0) {
        MC_EQ(atomic_load(&a_done), ROUNDS);
        MC_EQ(atomic_load(&b_done), ROUNDS);
    } else {
        MC_EQ(atomic_load(&odd_done), ROUNDS);
    }
    MC_EQ(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
    MC_EQ(locus_mpi_finalize(), 0);
    MC_EQ(locus_finalize(), 0);
    MC_EQ(MPI_Finalize(), MPI_SUCCESS);
    if (rank == 0)
        printf("test_mpi_blocking: %d ranks x %d rounds passed\n", nranks, ROUNDS);
    return 0;
}
