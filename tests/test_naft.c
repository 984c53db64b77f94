/*
 * test_naft.c - the NUMA regimes on virtual topologies (2s, 4s,
 * bullion-s16), through the public API: first-touch tasks are dealt evenly
 * over the nodes, a task runs on the node holding most of its bytes,
 * stealing obeys LOCUS_STEAL, NAFT moves far less data than DI on a
 * Jacobi-like pattern, DFT homes data where it was first touched, and the
 * refused combination is refused; and, with LOCUS_STEAL and
 * LOCUS_STEAL_SPIN at their defaults, what stealing may and may not take:
 * first-touch tasks never leave their node, tasks without data reach a
 * worker of any node, data-bound tasks go to the nearest node that has
 * workers only while their node has more than the margin queued.  No
 * assertion depends on timing: each one follows from a rule (a task that
 * no rule lets another node take can only run where it was queued; the main
 * thread waits without running tasks, so that only the other node can).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "locus.h"
#include "runtime.h"

#define BLOCK 4096
#define MAXB 256
static char data[MAXB][BLOCK] __attribute__((aligned(64)));
static int node_of_block[MAXB];
static int ran_on[4 * MAXB];

static void start(const char *regime, const char *topo, const char *threads, const char *steal)
{
    if (locus_num_workers() > 0)   /* a failed test left it running: keep the others meaningful */
        locus_finalize();
    setenv("LOCUS_REGIME", regime, 1);
    setenv("LOCUS_TOPOLOGY", topo, 1);
    setenv("LOCUS_THREADS", threads, 1);
    if (steal) {
        setenv("LOCUS_STEAL", steal, 1);
        setenv("LOCUS_STEAL_SPIN", "0", 1);
    } else {   /* both at their defaults */
        unsetenv("LOCUS_STEAL");
        unsetenv("LOCUS_STEAL_SPIN");
    }
    int r = locus_init();
    if (r)
        fail_msg("locus_init(%s, %s, %s): %s", regime, topo, threads, locus_error_message());
}

/* Every LOCUS_STEAL* at its default. */
static void start_defaults(const char *topo, const char *threads)
{
    start("naft", topo, threads, NULL);
}

/* LOCUS_WAIT_US as the caller set it (tests/numa-vm/run turns NAFT's wait
 * bound off where the CPUs are shared), put back after the cases that set
 * their own */
static char caller_wait[32];

static void stop(void)
{
    assert_int_equal(locus_finalize(), 0);
    unsetenv("LOCUS_REGIME");
    unsetenv("LOCUS_TOPOLOGY");
    unsetenv("LOCUS_THREADS");
    unsetenv("LOCUS_STEAL");
    unsetenv("LOCUS_STEAL_SPIN");
    if (caller_wait[0])
        setenv("LOCUS_WAIT_US", caller_wait, 1);
    else
        unsetenv("LOCUS_WAIT_US");
}

struct blk { int b; };

static void init_block(void *arg)
{
    int b = ((struct blk *)arg)->b;
    memset(data[b], b, BLOCK);
    node_of_block[b] = locus_worker_node();
}

static void note_node(void *arg)
{
    int i = ((struct blk *)arg)->b;
    ran_on[i] = locus_worker_node();
}

/* nb first-touch tasks, one per block; returns per-node counts in cnt */
static void first_touch(int nb)
{
    for (int b = 0; b < nb; b++) {
        struct blk a = { b };
        assert_int_equal(locus_task(init_block, &a, sizeof a, LOCUS_OUT(data[b], BLOCK)), 0);
    }
    assert_int_equal(locus_taskwait(), 0);
}

static void check_dealt_evenly(const char *topo, int nnodes)
{
    char threads[16];
    snprintf(threads, sizeof threads, "%d", nnodes);
    start("naft", topo, threads, "none");
    assert_int_equal(locus_num_nodes(), nnodes);
    int nb = 8 * nnodes + 3;     /* not a multiple: counts differ by one at most */
    first_touch(nb);
    int lo = nb, hi = 0;
    for (int n = 0; n < nnodes; n++) {
        locus_node_stats_t s;
        assert_int_equal(locus_get_node_stats(n, &s, sizeof s), 0);
        int c = 0;
        for (int b = 0; b < nb; b++)
            c += node_of_block[b] == n;
        assert_int_equal((int)s.first_touch_tasks, c);   /* the stats agree with the bodies */
        lo = c < lo ? c : lo;
        hi = c > hi ? c : hi;
    }
    assert_true(hi - lo <= 1);
    stop();
}

static void test_first_touch_dealt_evenly(void **state)
{
    (void)state;
    check_dealt_evenly("2s", 2);
    check_dealt_evenly("4s", 4);
    check_dealt_evenly("bullion-s16", 16);
}

/* A task reading one block and writing a smaller piece of another runs on
 * the node of the bigger one (ties: test_ties_spread). */
static void test_task_follows_its_bytes(void **state)
{
    (void)state;
    start("naft", "4s", "4", "none");
    int nb = 16;
    first_touch(nb);
    for (int i = 0; i < 64; i++) {
        int big = i % nb, small = (i * 7 + 3) % nb;
        if (node_of_block[big] == node_of_block[small])
            continue;
        struct blk a = { i };
        assert_int_equal(locus_task(note_node, &a, sizeof a, LOCUS_IN(data[big], BLOCK),
                                    LOCUS_INOUT(data[small], BLOCK / 4)), 0);
        assert_int_equal(locus_taskwait(), 0);
        assert_int_equal(ran_on[i], node_of_block[big]);
    }
    /* with LOCUS_STEAL=none every task ran where it was placed: the bytes
     * the placement put local are exactly the local ones */
    locus_stats_t st;
    assert_int_equal(locus_get_stats(&st, sizeof st), 0);
    assert_true(st.bytes_placed > 0);
    assert_int_equal(st.bytes_placed, st.bytes_local);
    stop();
}

/* A task holding as many bytes on two nodes runs on either, about as often:
 * not always on the lower one, nor on the spawner's (the initial thread's
 * node 0 here), which put every flat program's ties on the first nodes. */
static void test_ties_spread(void **state)
{
    (void)state;
    start("naft", "4s", "4", "none");
    first_touch(8);
    /* pairs of blocks on two different nodes, one of them the spawner's */
    int pairs[][2] = { { -1, -1 }, { -1, -1 } };
    for (int a = 0; a < 8; a++)
        for (int b = 0; b < 8; b++) {
            int na = node_of_block[a], nb = node_of_block[b];
            if (na == nb)
                continue;
            if (na == 0 && pairs[0][0] < 0) {
                pairs[0][0] = a;
                pairs[0][1] = b;
            } else if (na != 0 && nb != 0 && pairs[1][0] < 0) {
                pairs[1][0] = a;
                pairs[1][1] = b;
            }
        }
    assert_true(pairs[0][0] >= 0 && pairs[1][0] >= 0);
    for (int p = 0; p < 2; p++) {
        int a = pairs[p][0], b = pairs[p][1], n = 200, on_a = 0, on_b = 0;
        for (int i = 0; i < n; i++) {
            struct blk x = { i };
            assert_int_equal(locus_task(note_node, &x, sizeof x, LOCUS_IN(data[a], BLOCK),
                                        LOCUS_IN(data[b], BLOCK)), 0);
        }
        assert_int_equal(locus_taskwait(), 0);
        for (int i = 0; i < n; i++) {
            on_a += ran_on[i] == node_of_block[a];
            on_b += ran_on[i] == node_of_block[b];
        }
        /* LOCUS_STEAL=none: each ran where it was placed */
        assert_int_equal(on_a + on_b, n);
        if (on_a < n / 4 || on_b < n / 4)
            fail_msg("ties between nodes %d and %d: %d and %d of %d tasks (expected about "
                     "half each)", node_of_block[a], node_of_block[b], on_a, on_b, n);
    }
    stop();
}

/*
 * A task that first writes a little data beside a block it reads runs next
 * to the block, and its new data is booked there; one that writes more new
 * data than any node holds of its other bytes is dealt like any first-touch
 * task.  5 blocks are dealt first (nodes 0 1 2 3 0), so dealing the next
 * tasks would give nodes 1 2 3 0 ...: never the node of their block.
 */
static char flags[4][64] __attribute__((aligned(64)));

static void test_first_touch_beside_known_data(void **state)
{
    (void)state;
    start("naft", "4s", "4", "none");
    first_touch(5);
    for (int b = 0; b < 4; b++) {
        struct blk a = { b };
        assert_int_equal(locus_task(note_node, &a, sizeof a, LOCUS_IN(data[b], BLOCK),
                                    LOCUS_OUT(flags[b], sizeof flags[b])), 0);
        assert_int_equal(locus_taskwait(), 0);
        assert_int_equal(ran_on[b], node_of_block[b]);
    }
    /* the flags were booked with their blocks: a reader of flags alone
     * follows them */
    for (int b = 0; b < 4; b++) {
        struct blk a = { 10 + b };
        assert_int_equal(locus_task(note_node, &a, sizeof a, LOCUS_IN(flags[b], sizeof flags[b])), 0);
        assert_int_equal(locus_taskwait(), 0);
        assert_int_equal(ran_on[10 + b], node_of_block[b]);
    }
    /* more new bytes (a block) than known ones (64 bytes of flags on node
     * 1): dealt, to node 1 (the sixth dealt task) */
    locus_node_stats_t before, after;
    assert_int_equal(locus_get_node_stats(1, &before, sizeof before), 0);
    struct blk a = { 20 };
    assert_int_equal(node_of_block[2], 2);
    assert_int_equal(locus_task(note_node, &a, sizeof a, LOCUS_OUT(data[5], BLOCK),
                                LOCUS_IN(flags[2], sizeof flags[2])), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(ran_on[20], 1);
    assert_int_equal(locus_get_node_stats(1, &after, sizeof after), 0);
    assert_int_equal(after.first_touch_tasks, before.first_touch_tasks + 1);
    stop();
}

/*
 * Placement when a task becomes ready: R reads a block booked on node 2
 * (locus_alloc) and writes a flag after P, which is dealt to node 0 (the
 * first first-touch task) and, with LOCUS_STEAL=none, can only run on this
 * thread, node 0's only worker, in its taskwait.  P's body forgets the
 * block's booking: when P releases R, the block is unknown and R's known
 * bytes are its flag, on node 0, so R is placed on node 0 and runs there.
 * Placed only at its spawn, R would run on node 2.
 */
static char ready_flag[64] __attribute__((aligned(64)));
static void *ready_block;

static void forget_block(void *arg)
{
    (void)arg;
    ran_on[30] = locus_worker_node();
    assert_int_equal(locus_forget(ready_block, BLOCK), 0);
}

static void test_placed_again_when_ready(void **state)
{
    (void)state;
    start("naft", "4s", "4", "none");
    locus_place_t on2 = LOCUS_PLACE_ON_NODE(2);
    assert_int_equal(locus_alloc(&ready_block, BLOCK, &on2), 0);
    assert_int_equal(locus_task(forget_block, NULL, 0, LOCUS_OUT(ready_flag, sizeof ready_flag)), 0);
    struct blk a = { 31 };
    assert_int_equal(locus_task(note_node, &a, sizeof a, LOCUS_IN(ready_block, BLOCK),
                                LOCUS_INOUT(ready_flag, sizeof ready_flag)), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(ran_on[30], 0);
    assert_int_equal(ran_on[31], 0);
    /* and without the move, the same pair runs by the block: on node 2 */
    assert_int_equal(locus_forget(ready_flag, sizeof ready_flag), 0);
    assert_int_equal(locus_free(ready_block, BLOCK), 0);
    assert_int_equal(locus_alloc(&ready_block, BLOCK, &on2), 0);
    a.b = 32;
    assert_int_equal(locus_task(note_node, &a, sizeof a, LOCUS_OUT(ready_flag, sizeof ready_flag)), 0);
    a.b = 33;
    assert_int_equal(locus_task(note_node, &a, sizeof a, LOCUS_IN(ready_block, BLOCK),
                                LOCUS_INOUT(ready_flag, sizeof ready_flag)), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(ran_on[33], 2);
    assert_int_equal(locus_free(ready_block, BLOCK), 0);
    stop();
}

static void heavy(void *arg)
{
    volatile double x = 0;
    for (int i = 0; i < 20000; i++)
        x += i * 0.5;
    (void)arg;
}

/* Every task's data on node 0: other nodes may only help as LOCUS_STEAL says. */
static void imbalanced(const char *steal, locus_stats_t *st)
{
    start("naft", "bullion-s16", "32", steal);
    /* one block first-touched on node 0 (the first dealt node) or, when
     * stealing is allowed, wherever a thief ran its first-touch task */
    struct blk a = { 0 };
    assert_int_equal(locus_task(init_block, &a, sizeof a, LOCUS_OUT(data[0], BLOCK)), 0);
    assert_int_equal(locus_taskwait(), 0);
    if (strcmp(steal, "none") == 0)     /* otherwise a thief may have run it */
        assert_int_equal(node_of_block[0], 0);
    assert_int_equal(locus_reset_stats(), 0);
    for (int i = 0; i < 400; i++)
        assert_int_equal(locus_task(heavy, NULL, 0, LOCUS_IN(data[0], BLOCK)), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(locus_get_stats(st, sizeof *st), 0);
    assert_int_equal((int)st->tasks_run, 400);
    stop();
}

static void test_steal_policies(void **state)
{
    (void)state;
    locus_stats_t st;
    imbalanced("near", &st);
    assert_int_equal((int)st.steals_far, 0);       /* never from the other modules */
    imbalanced("none", &st);
    assert_int_equal((int)(st.steals_near + st.steals_far), 0);
    assert_int_equal((int)st.bytes_near + (int)st.bytes_far, 0);   /* all ran on node 0 */
    imbalanced("all", &st);                        /* allowed: only checks it completes */
}

/* Jacobi-like: row blocks of 1024 rows of 256 bytes; each sweep task
 * updates its block and reads one halo row of each neighbour. */
#define JROW 256
#define JROWS 1024
#define JB 64
static char grid[JB][JROWS * JROW] __attribute__((aligned(4096)));

static void jacobi_init(void *arg)
{
    int b = ((struct blk *)arg)->b;
    memset(grid[b], 0, sizeof grid[b]);
}

static void jacobi_task(void *arg)
{
    (void)arg;
}

static void jacobi_like(const char *regime, locus_stats_t *st)
{
    start(regime, "bullion-s16", "16", "near");
    for (int b = 0; b < JB; b++) {
        struct blk a = { b };
        assert_int_equal(locus_task(jacobi_init, &a, sizeof a, LOCUS_OUT(grid[b], sizeof grid[b])), 0);
    }
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(locus_reset_stats(), 0);
    for (int sweep = 0; sweep < 4; sweep++) {
        for (int b = 0; b < JB; b++) {
            locus_dep_t d[3];
            int n = 0;
            d[n++] = LOCUS_INOUT(grid[b], sizeof grid[b]);
            if (b > 0)
                d[n++] = LOCUS_IN(grid[b - 1] + (JROWS - 1) * JROW, JROW);
            if (b + 1 < JB)
                d[n++] = LOCUS_IN(grid[b + 1], JROW);
            assert_int_equal(locus_spawn(jacobi_task, NULL, 0, d, (size_t)n), 0);
        }
        assert_int_equal(locus_taskwait(), 0);
    }
    assert_int_equal(locus_get_stats(st, sizeof *st), 0);
    stop();
}

/* ---- what stealing may take, every LOCUS_STEAL* at its default ---- */

static _Atomic int done_on[64];   /* tasks run per node */

/* Some microseconds of work (heavy): longer than LOCUS_GRAIN_NS, so the
 * spawner queues these tasks instead of running them at spawn (grain.h). */
static void count_node(void *arg)
{
    heavy(arg);
    atomic_fetch_add(&done_on[locus_worker_node()], 1);
}

static int done_total(void)
{
    int n = 0;
    for (int i = 0; i < 64; i++)
        n += atomic_load(&done_on[i]);
    return n;
}

/* The main thread (worker 0, node 0) waits up to 60 s, running nothing,
 * until at least want tasks have run: only other workers can run them. */
static int wait_without_running(int want)
{
    for (int ms = 0; ms < 60000 && done_total() < want; ms++) {
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    return done_total();
}

static void reset_done(void)
{
    for (int i = 0; i < 64; i++)
        atomic_store(&done_on[i], 0);
}

/* bullion-s16 with 2 workers: worker 0 on node 0, worker 1 on node 8; node
 * 0's nearest node (1) has no workers. */
static void test_shared_tasks_reach_any_node(void **state)
{
    (void)state;
    start_defaults("bullion-s16", "2");
    assert_int_equal(locus_worker_node(), 0);
    reset_done();
    for (int i = 0; i < 20; i++)   /* no dependencies: no node */
        assert_int_equal(locus_spawn(count_node, NULL, 0, NULL, 0), 0);
    /* whatever the spawner ran at spawn, the rest only node 8 can run */
    assert_int_equal(wait_without_running(20), 20);
    assert_true(atomic_load(&done_on[8]) > 0);
    assert_int_equal(locus_taskwait(), 0);
    stop();
}

static void test_first_touch_never_leaves_its_node(void **state)
{
    (void)state;
    /* the most eager stealing there is: still, each first-touch task runs
     * on the node it was dealt to (0, 8, 0, 8, ...) */
    start("naft", "bullion-s16", "2", "all");
    int nb = 40;
    for (int b = 0; b < nb; b++) {
        node_of_block[b] = -1;
        struct blk a = { b };
        assert_int_equal(locus_task(init_block, &a, sizeof a, LOCUS_OUT(data[b], BLOCK)), 0);
    }
    assert_int_equal(locus_taskwait(), 0);
    for (int b = 0; b < nb; b++)
        if (node_of_block[b] != (b % 2 ? 8 : 0))
            fail_msg("first-touch task %d ran on node %d, dealt to %d", b, node_of_block[b],
                     b % 2 ? 8 : 0);
    stop();
    /* with defaults, on 4 nodes: exactly dealt, whatever became idle */
    start_defaults("4s", "4");
    nb = 4 * 16 + 2;
    for (int b = 0; b < nb; b++) {
        struct blk a = { b };
        assert_int_equal(locus_task(init_block, &a, sizeof a, LOCUS_OUT(data[b], BLOCK)), 0);
    }
    assert_int_equal(locus_taskwait(), 0);
    int per[4] = { 0 };
    for (int b = 0; b < nb; b++) {
        assert_in_range(node_of_block[b], 0, 3);
        per[node_of_block[b]]++;
    }
    for (int n = 0; n < 4; n++)
        assert_in_range(per[n], nb / 4, nb / 4 + 1);
    stop();
}

#define MARGIN 16  /* LC_NAFT_MARGIN, documented in locus(7) */

static void test_bound_tasks_move_only_past_the_margin(void **state)
{
    (void)state;
    /* the main thread, node 0's only worker, sleeps below while its tasks
     * wait: node 0 does not run, and the wait bound would give them all to
     * node 8 (test_stalled_node_gives_up_its_tasks); off here, so that only
     * the margin rules */
    setenv("LOCUS_WAIT_US", "0", 1);
    start_defaults("bullion-s16", "2");
    struct blk a = { 0 };   /* the first dealt first-touch task: node 0 */
    assert_int_equal(locus_task(init_block, &a, sizeof a, LOCUS_OUT(data[0], BLOCK)), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(node_of_block[0], 0);

    /* no more than the margin queued on node 0: node 8 takes none while it
     * is idle, for less than the hold's second (a node that runs none of
     * its tasks for that long gives them up: test_robust.c) */
    reset_done();
    for (int i = 0; i < MARGIN; i++)
        assert_int_equal(locus_task(count_node, NULL, 0, LOCUS_IN(data[0], BLOCK)), 0);
    struct timespec ts = { 0, 200000000 };
    nanosleep(&ts, NULL);
    assert_int_equal(atomic_load(&done_on[8]), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(atomic_load(&done_on[0]), MARGIN);

    /* many more: node 8, the nearest node that has workers (though far),
     * takes them until the margin is left */
    reset_done();
    int n = 100;
    for (int i = 0; i < n; i++)
        assert_int_equal(locus_task(count_node, NULL, 0, LOCUS_IN(data[0], BLOCK)), 0);
    assert_true(wait_without_running(n - MARGIN) >= n - MARGIN);
    int far = atomic_load(&done_on[8]);
    assert_true(far > 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(done_total(), n);
    locus_stats_t st;
    assert_int_equal(locus_get_stats(&st, sizeof st), 0);
    assert_true(st.steals_far >= (uint64_t)far);   /* each one taken from node 0 */
    stop();

    /* LOCUS_STEAL=none: nothing moves, past the margin or not (nor by the
     * wait bound, which it turns off) */
    start("naft", "bullion-s16", "2", "none");
    reset_done();
    assert_int_equal(locus_task(init_block, &a, sizeof a, LOCUS_OUT(data[1], BLOCK)), 0);
    assert_int_equal(locus_taskwait(), 0);
    for (int i = 0; i < 50; i++)
        assert_int_equal(locus_task(count_node, NULL, 0, LOCUS_IN(data[1], BLOCK)), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(atomic_load(&done_on[0]), 50);
    stop();
}

static double secs_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * The wait bound (sched/naft.c, locus(7)): a node that finishes none of its
 * tasks for LOCUS_WAIT_US (default 1 ms; more for long bodies) while
 * data-bound tasks wait there gives them to an idle worker elsewhere.  Node
 * 0's only worker is the main thread, which stalls here in nanosleep with
 * 8 tasks queued on node 0 (fewer than the margin): node 8's worker runs
 * them, long before the hold's second.  First-touch tasks wait for the
 * hold, as their data would move with them; and LOCUS_WAIT_US=0 turns the
 * bound off.  With more workers than CPUs Locus shares them itself and
 * the bound is off (its polls yield the CPUs instead): skipped then.
 */
static void test_stalled_node_gives_up_its_tasks(void **state)
{
    (void)state;
    setenv("LOCUS_WAIT_US", "1000", 1);   /* the default, whatever the caller's */
    start_defaults("bullion-s16", "2");
    if (lc_rt->oversubscribed) {
        stop();
        skip();
    }
    struct blk a = { 0 };   /* the first dealt first-touch task: node 0 */
    assert_int_equal(locus_task(init_block, &a, sizeof a, LOCUS_OUT(data[0], BLOCK)), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(node_of_block[0], 0);

    reset_done();
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < 8; i++)
        assert_int_equal(locus_task(count_node, NULL, 0, LOCUS_IN(data[0], BLOCK)), 0);
    /* the spawner may have run a few at their spawn (grain.h), before its
     * estimate learnt that these bodies are long */
    int at_spawn = atomic_load(&done_on[0]);
    assert_true(at_spawn <= 4);
    assert_int_equal(wait_without_running(8), 8);
    double took = secs_since(&t0);
    print_message("stalled node 0: %d of its 8 tasks ran on node 8 within %.1f ms\n",
                  8 - at_spawn, took * 1e3);
    assert_int_equal(atomic_load(&done_on[0]), at_spawn);
    assert_int_equal(atomic_load(&done_on[8]), 8 - at_spawn);
    /* well before the hold's second: the bound moved them, not the hold */
    assert_true(took < 0.5);
    locus_stats_t st;
    assert_int_equal(locus_get_stats(&st, sizeof st), 0);
    assert_true(st.steals_near + st.steals_far >= (uint64_t)(8 - at_spawn));
    /* counted as given up, with the bytes node 0's placement promised */
    assert_int_equal(st.tasks_given_up, 8 - at_spawn);
    assert_int_equal(st.bytes_given_up, (uint64_t)(8 - at_spawn) * BLOCK);
    locus_node_stats_t n8, n0;
    assert_int_equal(locus_get_node_stats(8, &n8, sizeof n8), 0);
    assert_int_equal(locus_get_node_stats(0, &n0, sizeof n0), 0);
    assert_int_equal(n8.tasks_given_up, 8 - at_spawn);
    assert_int_equal(n8.bytes_given_up, (uint64_t)(8 - at_spawn) * BLOCK);
    assert_int_equal(n0.tasks_given_up, 0);
    assert_int_equal(locus_taskwait(), 0);

    /* first-touch tasks, dealt 8, 0, 8, 0: those of node 0 wait for it */
    for (int b = 1; b <= 4; b++) {
        node_of_block[b] = -1;
        struct blk x = { b };
        assert_int_equal(locus_task(init_block, &x, sizeof x, LOCUS_OUT(data[b], BLOCK)), 0);
    }
    struct timespec ts = { 0, 200000000 };
    nanosleep(&ts, NULL);
    assert_int_equal(node_of_block[2], -1);
    assert_int_equal(node_of_block[4], -1);
    assert_int_equal(locus_taskwait(), 0);
    for (int b = 1; b <= 4; b++)
        assert_int_equal(node_of_block[b], b % 2 ? 8 : 0);
    stop();

    /* LOCUS_WAIT_US=0: no bound, node 0 keeps them while it naps */
    setenv("LOCUS_WAIT_US", "0", 1);
    start_defaults("bullion-s16", "2");
    assert_int_equal(locus_task(init_block, &a, sizeof a, LOCUS_OUT(data[0], BLOCK)), 0);
    assert_int_equal(locus_taskwait(), 0);
    reset_done();
    for (int i = 0; i < 8; i++)
        assert_int_equal(locus_task(count_node, NULL, 0, LOCUS_IN(data[0], BLOCK)), 0);
    nanosleep(&ts, NULL);
    assert_int_equal(atomic_load(&done_on[8]), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(atomic_load(&done_on[0]), 8);
    assert_int_equal(locus_get_stats(&st, sizeof st), 0);
    assert_int_equal(st.tasks_given_up, 0);
    assert_int_equal(st.bytes_given_up, 0);
    stop();
}

static void test_naft_moves_far_less_than_di(void **state)
{
    (void)state;
    locus_stats_t naft, di, dft;
    jacobi_like("naft", &naft);
    jacobi_like("di", &di);
    jacobi_like("dft", &dft);
    uint64_t total = naft.bytes_local + naft.bytes_near + naft.bytes_far;
    assert_true(total > 0);
    assert_true(di.bytes_far > 0);
    /* DI spreads every block over 16 nodes: 14/16 of its bytes are far */
    assert_true(di.bytes_far * 16 >= (di.bytes_local + di.bytes_near + di.bytes_far) * 13);
    print_message("jacobi-like on bullion-s16: far bytes naft %llu, di %llu, dft %llu\n",
                  (unsigned long long)naft.bytes_far, (unsigned long long)di.bytes_far,
                  (unsigned long long)dft.bytes_far);
    assert_true(naft.bytes_far * 100 < di.bytes_far);
}

/* DFT: data is homed where the first-touch task happened to run. */
static void test_dft_homes_data_where_touched(void **state)
{
    (void)state;
    start("dft", "4s", "4", "near");
    int nb = 40;
    first_touch(nb);
    for (int n = 0; n < 4; n++) {
        locus_node_stats_t s;
        assert_int_equal(locus_get_node_stats(n, &s, sizeof s), 0);
        uint64_t expect = 0;
        for (int b = 0; b < nb; b++)
            if (node_of_block[b] == n)
                expect += BLOCK;
        assert_int_equal(s.bytes_homed, expect);
    }
    /* and forgetting a block unhomes it */
    int n0 = node_of_block[0];
    locus_node_stats_t before, after;
    assert_int_equal(locus_get_node_stats(n0, &before, sizeof before), 0);
    assert_int_equal(locus_forget(data[0], BLOCK), 0);
    assert_int_equal(locus_get_node_stats(n0, &after, sizeof after), 0);
    assert_int_equal(before.bytes_homed - after.bytes_homed, BLOCK);
    /* the oblivious scheduler places nothing */
    locus_stats_t st;
    assert_int_equal(locus_get_stats(&st, sizeof st), 0);
    assert_true(st.bytes_local > 0);
    assert_int_equal(st.bytes_placed, 0);
    stop();
}

static void test_refused_and_bad_values(void **state)
{
    (void)state;
    setenv("LOCUS_REGIME", "naft", 1);
    setenv("LOCUS_PAGES", "interleave", 1);
    assert_int_equal(locus_init(), -EINVAL);
    assert_non_null(strstr(locus_error_message(), "LOCUS_PAGES"));
    unsetenv("LOCUS_PAGES");
    setenv("LOCUS_STEAL", "sometimes", 1);
    assert_int_equal(locus_init(), -EINVAL);
    assert_non_null(strstr(locus_error_message(), "LOCUS_STEAL"));
    unsetenv("LOCUS_STEAL");
    setenv("LOCUS_TOPOLOGY", "bullion-s17", 1);
    assert_int_equal(locus_init(), -EINVAL);
    assert_non_null(strstr(locus_error_message(), "bullion-s17"));
    unsetenv("LOCUS_TOPOLOGY");
    unsetenv("LOCUS_REGIME");
    assert_int_equal(locus_num_workers(), -EPERM);
}

int main(void)
{
    if (getenv("LOCUS_WAIT_US"))
        snprintf(caller_wait, sizeof caller_wait, "%s", getenv("LOCUS_WAIT_US"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_touch_dealt_evenly),
        cmocka_unit_test(test_task_follows_its_bytes),
        cmocka_unit_test(test_ties_spread),
        cmocka_unit_test(test_first_touch_beside_known_data),
        cmocka_unit_test(test_placed_again_when_ready),
        cmocka_unit_test(test_steal_policies),
        cmocka_unit_test(test_shared_tasks_reach_any_node),
        cmocka_unit_test(test_first_touch_never_leaves_its_node),
        cmocka_unit_test(test_bound_tasks_move_only_past_the_margin),
        cmocka_unit_test(test_stalled_node_gives_up_its_tasks),
        cmocka_unit_test(test_naft_moves_far_less_than_di),
        cmocka_unit_test(test_dft_homes_data_where_touched),
        cmocka_unit_test(test_refused_and_bad_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
