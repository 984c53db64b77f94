/*
 * test_locality.c - the locality account of runtime/locality.c through the
 * public API, on a virtual two-node topology: a first-touch task whose
 * range is partly known books only the unknown part (the known part keeps
 * its home, as locus_get_node_stats' bytes_homed shows), and its bytes are
 * counted where they were when it was placed: the known part on its home,
 * the part it touches first local to the node that ran it.  NAFT deals
 * first-touch tasks round robin over the nodes and binds them there, so
 * which node runs what follows from a rule, not from timing.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "locus.h"

#define BLOCK 4096
static char data[3 * BLOCK] __attribute__((aligned(4096)));
static int ran_on[3];

struct which { int i; size_t n; };

static void touch(void *arg)
{
    const struct which *w = arg;
    memset(data, w->i, w->n);
    ran_on[w->i] = locus_worker_node();
}

static void node_stats(int node, locus_node_stats_t *s)
{
    assert_int_equal(locus_get_node_stats(node, s, sizeof *s), 0);
}

static void test_partly_known_keeps_its_home(void **state)
{
    (void)state;
    setenv("LOCUS_REGIME", "naft", 1);
    setenv("LOCUS_TOPOLOGY", "2s", 1);
    setenv("LOCUS_THREADS", "2", 1);
    setenv("LOCUS_STEAL", "none", 1);
    assert_int_equal(locus_init(), 0);
    assert_int_equal(locus_num_nodes(), 2);

    /* Task 0 first touches one block; task 1 then writes that block and
     * the next one: first-touch again (half unknown), dealt to the other
     * node. */
    struct which w0 = { 0, BLOCK }, w1 = { 1, 2 * BLOCK };
    assert_int_equal(locus_task(touch, &w0, sizeof w0, LOCUS_OUT(data, BLOCK)), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(locus_task(touch, &w1, sizeof w1, LOCUS_INOUT(data, 2 * BLOCK)), 0);
    assert_int_equal(locus_taskwait(), 0);
    int n0 = ran_on[0], n1 = ran_on[1];
    assert_true(n0 >= 0 && n0 < 2 && n1 >= 0 && n1 < 2);
    assert_int_not_equal(n0, n1);

    /* The first block stays on task 0's node; only the second was booked
     * on task 1's (booking the whole range would put both there). */
    locus_node_stats_t s0, s1;
    node_stats(n0, &s0);
    node_stats(n1, &s1);
    assert_int_equal(s0.bytes_homed, BLOCK);
    assert_int_equal(s1.bytes_homed, BLOCK);
    assert_int_equal(s0.first_touch_tasks, 1);
    assert_int_equal(s1.first_touch_tasks, 1);
    /* Task 0: its block, touched where it ran.  Task 1: the block it
     * touched first is local, the other one lives on the other node. */
    assert_int_equal(s0.bytes_local, BLOCK);
    assert_int_equal(s0.bytes_near + s0.bytes_far, 0);
    assert_int_equal(s1.bytes_local, BLOCK);
    assert_int_equal(s1.bytes_near + s1.bytes_far, BLOCK);

    /* A reader of both blocks counts each on its home. */
    locus_stats_t before, after;
    assert_int_equal(locus_get_stats(&before, sizeof before), 0);
    struct which w2 = { 2, 0 };
    assert_int_equal(locus_task(touch, &w2, sizeof w2, LOCUS_IN(data, 2 * BLOCK)), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(locus_get_stats(&after, sizeof after), 0);
    assert_int_equal(after.bytes_local - before.bytes_local, BLOCK);
    assert_int_equal(after.bytes_near + after.bytes_far - before.bytes_near - before.bytes_far,
                     BLOCK);
    assert_int_equal(after.first_touch_tasks, before.first_touch_tasks);

    assert_int_equal(locus_finalize(), 0);
    unsetenv("LOCUS_REGIME");
    unsetenv("LOCUS_TOPOLOGY");
    unsetenv("LOCUS_THREADS");
    unsetenv("LOCUS_STEAL");
}

int main(void)
{
    alarm(60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_partly_known_keeps_its_home),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
