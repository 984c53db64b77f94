/*
 * test_mpi_tasks.c - locus-mpi between ranks (run by tests/mpi/run with
 * mpirun -np 2 and -np 4, an even count): each rank exchanges with its
 * partner (rank ^ 1) and its ring neighbours, and checks every value in a
 * task that depends on the receiving task's buffer, i.e. that the receiving
 * task completed (released its dependency) only once the data was there.
 *
 *   before   the message is sent and a barrier passed before the receiving
 *            task is spawned (it waits in MPI as an unexpected message)
 *   after    the data is sent only once the partner says its receive is
 *            posted (a "go" message), so it arrives after the task handed
 *            its request over
 *   order    K messages sent by K tasks in the reverse of the order the
 *            receiving tasks are spawned in, matched by tag
 *   ring     a task blocks in locus_mpi_wait (receive from the left) after
 *            spawning the send to the right as its child: with one worker
 *            (LOCUS_THREADS=1) the ring completes only if the blocked task
 *            leaves its worker to the child
 *   coll     an MPI_Iallreduce handed over with locus_mpi_iwait
 * then the statistics must count every request handed over as completed.
 */
#include <mpi.h>
#include <stdatomic.h>

#include "mpi_check.h"

#define K 8
#define ROUNDS 10

static int rank, nranks, partner, left, right;
static atomic_int checked;

struct xfer {
    long *buf;
    int peer, tag;
    long value;
};

static void recv_iwait(void *p)
{
    struct xfer *x = p;
    MPI_Request r;
    MC_EQ(MPI_Irecv(x->buf, 1, MPI_LONG, x->peer, x->tag, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    MC_EQ(locus_mpi_iwait(&r, MPI_STATUS_IGNORE), 0);
    MC_TRUE(r == MPI_REQUEST_NULL, "the request was not taken over");
}

static void send_iwait(void *p)
{
    struct xfer *x = p;
    MPI_Request r;
    *x->buf = x->value;
    MC_EQ(MPI_Isend(x->buf, 1, MPI_LONG, x->peer, x->tag, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    MC_EQ(locus_mpi_iwait(&r, MPI_STATUS_IGNORE), 0);
}

static void check_value(void *p)
{
    struct xfer *x = p;
    MC_TRUE(*x->buf == x->value, "tag %d from rank %d: got %ld, expected %ld (the receiving "
            "task completed before its message arrived?)", x->tag, x->peer, *x->buf, x->value);
    atomic_fetch_add(&checked, 1);
}

/* ---- before: the message is in MPI before the receiving task exists */
static long before_buf, before_out;

static void test_before(int round)
{
    before_out = rank * 1000 + round;
    MC_EQ(MPI_Send(&before_out, 1, MPI_LONG, partner, 100, MPI_COMM_WORLD), MPI_SUCCESS);
    MC_EQ(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
    before_buf = -1;
    struct xfer x = { &before_buf, partner, 100, partner * 1000 + round };
    MC_EQ(locus_task(recv_iwait, &x, sizeof x, LOCUS_OUT(&before_buf, sizeof before_buf)), 0);
    MC_EQ(locus_task(check_value, &x, sizeof x, LOCUS_IN(&before_buf, sizeof before_buf)), 0);
}

/* ---- after: the data leaves only when the partner's receive is posted */
static long after_buf, after_out, go_out, go_in;

static void after_recv(void *p)
{
    struct xfer *x = p;
    MPI_Request r;
    MC_EQ(MPI_Irecv(x->buf, 1, MPI_LONG, x->peer, 200, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    MC_EQ(locus_mpi_iwait(&r, MPI_STATUS_IGNORE), 0);
    go_out = 1;
    MC_EQ(MPI_Send(&go_out, 1, MPI_LONG, x->peer, 201, MPI_COMM_WORLD), MPI_SUCCESS);
}

static void after_send(void *p)
{
    struct xfer *x = p;
    MPI_Request r;
    MPI_Status st;
    MC_EQ(MPI_Irecv(&go_in, 1, MPI_LONG, x->peer, 201, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    MC_EQ(locus_mpi_wait(&r, &st), 0);
    MC_TRUE(st.MPI_SOURCE == x->peer && st.MPI_TAG == 201, "wrong status: source %d tag %d",
            st.MPI_SOURCE, st.MPI_TAG);
    MC_EQ(go_in, 1);
    after_out = x->value;
    MC_EQ(MPI_Isend(&after_out, 1, MPI_LONG, x->peer, 200, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    MC_EQ(locus_mpi_iwait(&r, MPI_STATUS_IGNORE), 0);
}

static void test_after(int round)
{
    after_buf = -1;
    struct xfer rx = { &after_buf, partner, 200, partner * 7 + round };
    struct xfer tx = { NULL, partner, 200, rank * 7 + round };
    MC_EQ(locus_task(after_recv, &rx, sizeof rx, LOCUS_OUT(&after_buf, sizeof after_buf)), 0);
    MC_EQ(locus_task(check_value, &rx, sizeof rx, LOCUS_IN(&after_buf, sizeof after_buf)), 0);
    MC_EQ(locus_task(after_send, &tx, sizeof tx, LOCUS_OUT(&after_out, sizeof after_out)), 0);
}

/* ---- order: sends in reverse order of the receiving tasks */
static long order_in[K], order_out[K];

static void test_order(int round)
{
    for (int t = K - 1; t >= 0; t--) {
        struct xfer x = { &order_out[t], partner, 300 + t, rank * 100 + t + round };
        MC_EQ(locus_task(send_iwait, &x, sizeof x, LOCUS_OUT(&order_out[t], sizeof(long))), 0);
    }
    for (int t = 0; t < K; t++) {
        order_in[t] = -1;
        struct xfer x = { &order_in[t], partner, 300 + t, partner * 100 + t + round };
        MC_EQ(locus_task(recv_iwait, &x, sizeof x, LOCUS_OUT(&order_in[t], sizeof(long))), 0);
        MC_EQ(locus_task(check_value, &x, sizeof x, LOCUS_IN(&order_in[t], sizeof(long))), 0);
    }
}

/* ---- ring: a blocked task leaves its worker to its child */
static long ring_in, ring_out;

static void ring_send(void *p)
{
    struct xfer *x = p;
    MPI_Request r;
    ring_out = x->value;
    MC_EQ(MPI_Isend(&ring_out, 1, MPI_LONG, right, 400, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    MC_EQ(locus_mpi_wait(&r, MPI_STATUS_IGNORE), 0);
}

static void ring_task(void *p)
{
    struct xfer *x = p;
    MPI_Request r;
    MC_EQ(MPI_Irecv(&ring_in, 1, MPI_LONG, left, 400, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    struct xfer s = { NULL, right, 400, rank + x->value };
    MC_EQ(locus_spawn(ring_send, &s, sizeof s, NULL, 0), 0);
    MC_EQ(locus_mpi_wait(&r, MPI_STATUS_IGNORE), 0);
    MC_EQ(ring_in, left + x->value);
    MC_EQ(locus_taskwait(), 0);
    atomic_fetch_add(&checked, 1);
}

static void test_ring(int round)
{
    struct xfer x = { NULL, left, 400, round * 10 };
    MC_EQ(locus_task(ring_task, &x, sizeof x, LOCUS_INOUT(&ring_in, sizeof ring_in)), 0);
}

/* ---- coll: a collective's request */
static long coll_in, coll_sum;

static void coll_task(void *p)
{
    (void)p;
    MPI_Request r;
    coll_in = rank + 1;
    MC_EQ(MPI_Iallreduce(&coll_in, &coll_sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r),
          MPI_SUCCESS);
    MC_EQ(locus_mpi_iwait(&r, MPI_STATUS_IGNORE), 0);
}

static void test_coll(int round)
{
    struct xfer x = { &coll_sum, -1, 0, (long)nranks * (nranks + 1) / 2 };
    (void)round;
    coll_sum = -1;
    MC_EQ(locus_task(coll_task, NULL, 0, LOCUS_OUT(&coll_sum, sizeof coll_sum)), 0);
    MC_EQ(locus_task(check_value, &x, sizeof x, LOCUS_IN(&coll_sum, sizeof coll_sum)), 0);
}

int main(int argc, char **argv)
{
    mc_watchdog(120);
    mc_mpi_init_pairs(&argc, &argv, &rank, &nranks);
    partner = rank ^ 1;
    left = (rank + nranks - 1) % nranks;
    right = (rank + 1) % nranks;

    MC_EQ(locus_init(), 0);
    MC_EQ(locus_mpi_init(), 0);

    void (*const tests[])(int) = { test_before, test_after, test_order, test_ring, test_coll };
    const int per_round_requests = 1 + 3 + 2 * K + 2 + 1;
    const int per_round_checks = 1 + 1 + K + 1 + 1;
    for (int round = 0; round < ROUNDS; round++)
        for (size_t t = 0; t < sizeof tests / sizeof tests[0]; t++) {
            tests[t](round);
            MC_EQ(locus_taskwait(), 0);
            MC_EQ(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
        }
    MC_EQ(atomic_load(&checked), ROUNDS * per_round_checks);

    locus_mpi_stats_t st;
    MC_EQ(locus_mpi_get_stats(&st, sizeof st), 0);
    MC_EQ(st.requests, ROUNDS * per_round_requests);
    MC_EQ(st.completed, st.requests);
    MC_EQ(st.errors, 0);
    MC_TRUE(st.polls > 0, "the service never polled");

    MC_EQ(locus_mpi_finalize(), 0);
    MC_EQ(locus_finalize(), 0);
    MC_EQ(MPI_Finalize(), MPI_SUCCESS);
    if (rank == 0)
        printf("test_mpi_tasks: %d ranks x %d rounds: before, after, order, ring, coll passed\n",
               nranks, ROUNDS);
    return 0;
}
