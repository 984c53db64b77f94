/*
 * test_light.c - light tasks: a ready task spawned without dependencies
 * and without an argument copy is queued as (fn, arg, parent) and gets its
 * descriptor from the worker that takes it (runtime/spawn.c, lc_item_open;
 * sched/policy.h).  Checks the descriptor so built, what happens when there
 * is no memory for it (the worker's reserve serves; with the reserve spent
 * the task goes back to the policy's queue, nothing lost), and light tasks
 * that spawn and wait for children of their own on 1, 2 and 8 workers.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "deque.h"
#include "locus.h"
#include "mem.h"
#include "runtime.h"
#include "steal.h"
#include "taskpool.h"
#include "support.h"

static void nop(void *arg)
{
    (void)arg;
}

/* ---- the taker's side, on a worker of our own ---- */

extern const struct lc_sched_ops lc_sched_oblivious;

static struct lc_runtime rt;
static struct lc_worker wk;
static struct lc_taskpool_global pool;
static struct lc_task parent;
static struct lc_deque dq;   /* the oblivious policy's deque for wk (its sched_local) */

static int worker_setup(void **state)
{
    (void)state;
    memset(&rt, 0, sizeof rt);
    memset(&wk, 0, sizeof wk);
    if (lc_taskpool_global_init(&pool) != 0)
        return -1;
    rt.sched = &lc_sched_oblivious;   /* its push_light: onto wk's own deque */
    wk.rt = &rt;
    wk.npool = &pool;
    wk.sched_local = &dq;
    return lc_deque_init(&dq, 2) == 0 ? 0 : -1;
}

static int worker_teardown(void **state)
{
    (void)state;
    lc_deque_destroy(&dq);
    wk.pool.head = NULL;   /* descriptors are the pool's slabs */
    wk.pool.reserve = NULL;
    wk.pool.nreserve = 0;
    lc_taskpool_global_fini(&pool);
    return 0;
}

static void test_open_builds_descriptor(void **state)
{
    (void)state;
    int x;

    struct lc_qitem it = { (void *)nop, &x, &parent, LC_QI_LIGHT };
    struct lc_task *t = lc_item_open(&wk, &it);
    assert_non_null(t);
    assert_ptr_equal(t->fn, nop);
    assert_ptr_equal(t->arg, &x);
    assert_ptr_equal(t->parent, &parent);
    assert_null(t->tg);
    assert_null(t->map);
    assert_int_equal(t->nspawned, 0);
    assert_int_equal(t->flags, 0);
    assert_int_equal(atomic_load(&t->npreds), 0);
    assert_true(atomic_load(&t->pending) == LC_BIAS);
    assert_int_equal(LC_ST_LOW(atomic_load(&t->state)), LC_ST_UNMAPPED);   /* in no map */
    assert_null(atomic_load(&t->succ));
    /* a descriptor item is passed through as it is */
    struct lc_qitem dt = lc_qitem_task(t);
    assert_ptr_equal(lc_item_open(&wk, &dt), t);
    lc_task_release(&wk.pool, &pool, t);
}

static void test_open_without_memory_takes_the_reserve(void **state)
{
    (void)state;
    int x;

    assert_int_equal(lc_taskpool_reserve_fill(&wk.pool, &pool), 0);
    unsigned before = wk.pool.nreserve;
    assert_int_equal(before, LC_POOL_RESERVE);
    struct lc_task *spare[4 * LC_POOL_BATCH];
    unsigned n = 0;
    while (wk.pool.head)   /* the pool emptied: the next descriptor needs a slab */
        spare[n++] = lc_task_alloc(&wk.pool, &pool);
    struct lc_qitem it = { (void *)nop, &x, &parent, LC_QI_LIGHT };
    lc_mem_fail_after(1);
    struct lc_task *t = lc_item_open(&wk, &it);
    lc_mem_fail_after(0);
    assert_non_null(t);   /* from the reserve */
    assert_int_equal(wk.pool.nreserve, before - 1);
    assert_ptr_equal(t->fn, nop);
    assert_ptr_equal(t->arg, &x);
    assert_int_equal(lc_deque_size(&dq), 0);
    lc_task_release(&wk.pool, &pool, t);
    while (n)
        lc_task_release(&wk.pool, &pool, spare[--n]);
}

static void test_open_without_memory_requeues(void **state)
{
    (void)state;
    int x;

    /* empty pools and no reserve: the descriptor needs a new slab, and
     * that fails */
    struct lc_qitem it = { (void *)nop, &x, &parent, LC_QI_LIGHT };
    lc_mem_fail_after(1);
    assert_null(lc_item_open(&wk, &it));
    lc_mem_fail_after(0);
    /* the task is back on the worker's deque (the policy's push_light), whole */
    assert_int_equal(lc_deque_size(&dq), 1);
    struct lc_qitem back = lc_deque_pop_owner(&dq);
    assert_ptr_equal(back.p, (void *)nop);
    assert_ptr_equal(back.a, &x);
    assert_ptr_equal(back.b, &parent);
    assert_int_equal(back.c, LC_QI_LIGHT);
    /* with memory again it opens */
    struct lc_task *t = lc_item_open(&wk, &back);
    assert_non_null(t);
    assert_ptr_equal(t->arg, &x);
    lc_task_release(&wk.pool, &pool, t);
}

/* ---- through the API ---- */

enum { OUTER = 64, INNER = 16 };

struct outer {
    long chain[INNER];      /* filled by a dependent chain of grandchildren */
    long sum;               /* what the task found after its taskwait */
};

static struct outer outers[OUTER];
static atomic_long leaves;
static atomic_int failures;   /* task bodies run on workers: no cmocka asserts there */

static void leaf(void *arg)
{
    (void)arg;
    atomic_fetch_add(&leaves, 1);
}

struct link { long *cell; long i; };

/* chain[i] = chain[i - 1] + i + 1: needs the step before it */
static void chain_step(void *arg)
{
    struct link *l = arg;
    l->cell[0] = (l->i ? l->cell[-1] : 0) + l->i + 1;
}

/* A light task (spawned with arg_size 0) that spawns light children and a
 * chain of dependent ones, then waits for them: its descriptor, built by
 * whichever worker took it, must carry its children and its taskwait. */
static void outer_body(void *arg)
{
    struct outer *o = arg;
    for (int i = 0; i < INNER; i++)
        if (locus_spawn(leaf, NULL, 0, NULL, 0) != 0)
            atomic_fetch_add(&failures, 1);
    for (long i = 0; i < INNER; i++) {
        struct link l = { &o->chain[i], i };
        locus_dep_t d[2] = { LOCUS_OUT(&o->chain[i], sizeof(long)),
                             LOCUS_IN(&o->chain[i ? i - 1 : 0], sizeof(long)) };
        if (locus_spawn(chain_step, &l, sizeof l, d, i ? 2 : 1) != 0)
            atomic_fetch_add(&failures, 1);
    }
    if (locus_taskwait() != 0)
        atomic_fetch_add(&failures, 1);
    o->sum = o->chain[INNER - 1];
}

static void run_tree(const char *threads, const char *regime)
{
    setenv("LOCUS_THREADS", threads, 1);
    setenv("LOCUS_REGIME", regime, 1);
    assert_int_equal(locus_init(), 0);
    memset(outers, 0, sizeof outers);
    atomic_store(&leaves, 0);
    atomic_store(&failures, 0);
    for (int i = 0; i < OUTER; i++)
        assert_int_equal(locus_spawn(outer_body, &outers[i], 0, NULL, 0), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(atomic_load(&failures), 0);
    assert_int_equal(atomic_load(&leaves), OUTER * INNER);
    for (int i = 0; i < OUTER; i++)
        assert_int_equal(outers[i].sum, INNER * (INNER + 1) / 2);   /* 1 + 2 + ... + 16 */
    assert_int_equal(locus_finalize(), 0);
    unsetenv("LOCUS_THREADS");
    unsetenv("LOCUS_REGIME");
}

static void test_nested_light_tasks(void **state)
{
    (void)state;
    const char *threads[] = { "1", "2", "8" };
    const char *regimes[] = { "dft", "naft" };
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 3; k++)
            run_tree(threads[k], regimes[r]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_open_builds_descriptor, worker_setup, worker_teardown),
        cmocka_unit_test_setup_teardown(test_open_without_memory_takes_the_reserve,
                                        worker_setup, worker_teardown),
        cmocka_unit_test_setup_teardown(test_open_without_memory_requeues, worker_setup,
                                        worker_teardown),
        cmocka_unit_test(test_nested_light_tasks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
