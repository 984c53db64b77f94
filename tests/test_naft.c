/*
 * test_naft.c - the NUMA regimes on virtual topologies (2s, 4s,
 * bullion-s16), through the public API: first-touch tasks are dealt evenly
 * over the nodes, a task runs on the node holding most of its bytes,
 * stealing obeys LOCUS_STEAL, NAFT moves far less data than DI on a
 * Jacobi-like pattern, DFT homes data where it was first touched, and the
 * refused combination is refused.  No assertion depends on timing: the
 * placement checks run with LOCUS_STEAL=none, where a task can only run on
 * the node it was queued on.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "locus.h"

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
    setenv("LOCUS_STEAL", steal, 1);
    setenv("LOCUS_STEAL_SPIN", "0", 1);
    int r = locus_init();
    if (r)
        fail_msg("locus_init(%s, %s, %s): %s", regime, topo, threads, locus_error_message());
}

static void stop(void)
{
    assert_int_equal(locus_finalize(), 0);
    unsetenv("LOCUS_REGIME");
    unsetenv("LOCUS_TOPOLOGY");
    unsetenv("LOCUS_THREADS");
    unsetenv("LOCUS_STEAL");
    unsetenv("LOCUS_STEAL_SPIN");
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
 * the node of the bigger one; ties go to the spawner's node. */
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
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_touch_dealt_evenly),
        cmocka_unit_test(test_task_follows_its_bytes),
        cmocka_unit_test(test_steal_policies),
        cmocka_unit_test(test_naft_moves_far_less_than_di),
        cmocka_unit_test(test_dft_homes_data_where_touched),
        cmocka_unit_test(test_refused_and_bad_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
