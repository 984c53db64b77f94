/*
 * test_taskpool.c - unit tests of the task descriptor pools
 * (alloc/taskpool.c) and of the allocation wrapper's fault injection
 * (alloc/mem.c): local reuse, refill from slabs and from the node's batch
 * stack, spilling of long lists, and clean failure when memory runs out;
 * per-node stacks (a node's workers spill to and refill from their own
 * node's, borrow from another only when theirs is empty), in a runtime on
 * a virtual four-node topology too; per-node allocator arenas, and the
 * fallback to the default arenas when jemalloc refuses.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <stdio.h>
#include <cmocka.h>

#include "locus.h"
#include "mem.h"
#include "runtime.h"
#include "task.h"
#include "taskpool.h"
#include "support.h"

static void test_reuse_is_lifo(void **state)
{
    (void)state;
    struct lc_taskpool_global g;
    struct lc_taskpool p = { 0 };
    assert_int_equal(lc_taskpool_global_init(&g), 0);
    struct lc_task *a = lc_task_alloc(&p, &g);
    assert_non_null(a);
    assert_true(((uintptr_t)a & 63) == 0);          /* cache-line aligned */
    lc_task_release(&p, &g, a);
    assert_ptr_equal(lc_task_alloc(&p, &g), a);     /* the warm one comes back */
    lc_taskpool_global_fini(&g);
}

static void test_distinct_and_spill(void **state)
{
    (void)state;
    enum { N = 2000 };
    struct lc_taskpool_global g;
    struct lc_taskpool producer = { 0 }, consumer = { 0 };
    struct lc_task **v = calloc(N, sizeof *v);
    assert_int_equal(lc_taskpool_global_init(&g), 0);
    for (int i = 0; i < N; i++) {
        v[i] = lc_task_alloc(&producer, &g);
        assert_non_null(v[i]);
        memset(v[i], 0xab, sizeof *v[i]);           /* whole descriptor is ours */
    }
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < i + 8 && j < N; j++)
            assert_ptr_not_equal(v[i], v[j]);
    /* freed on another worker: its list stays bounded, the rest goes global */
    for (int i = 0; i < N; i++)
        lc_task_release(&consumer, &g, v[i]);
    assert_true(consumer.count <= 4 * LC_POOL_BATCH);
    assert_true(g.nbatches > 0);
    /* and the producer gets them back from the global stack, not new slabs */
    struct lc_task_slab *slabs_before = g.slabs;
    for (int i = 0; i < N / 2; i++)
        assert_non_null(lc_task_alloc(&producer, &g));
    assert_ptr_equal(g.slabs, slabs_before);
    free(v);
    lc_taskpool_global_fini(&g);
}

static void test_out_of_memory(void **state)
{
    (void)state;
    struct lc_taskpool_global g;
    struct lc_taskpool p = { 0 };
    assert_int_equal(lc_taskpool_global_init(&g), 0);
    lc_mem_fail_after(1);
    assert_null(lc_task_alloc(&p, &g));              /* the slab allocation failed */
    assert_int_equal(p.count, 0);
    assert_non_null(lc_task_alloc(&p, &g));          /* and the next one works */
    lc_taskpool_global_fini(&g);
}

static void test_fault_injection_counts(void **state)
{
    (void)state;
    lc_mem_fail_after(3);
    void *a = lc_mem_alloc(16, 0), *b = lc_mem_alloc(16, 0), *c = lc_mem_alloc(16, 0);
    void *d = lc_mem_alloc(16, 0);
    assert_non_null(a);
    assert_non_null(b);
    assert_null(c);                                 /* exactly the third */
    assert_non_null(d);
    lc_mem_free(a, 16);
    lc_mem_free(b, 16);
    lc_mem_free(d, 16);
    void *z = lc_mem_calloc(4, 8);
    assert_non_null(z);
    assert_true(((char *)z)[0] == 0 && ((char *)z)[31] == 0);
    lc_mem_free(z, 32);
    assert_null(lc_mem_calloc(SIZE_MAX / 2, 4));    /* overflow refused */
}

static unsigned nbatches(struct lc_taskpool_global *g)
{
    pthread_mutex_lock(&g->lock);
    unsigned n = g->nbatches;
    pthread_mutex_unlock(&g->lock);
    return n;
}

/* Descriptors freed by node 2's workers go to node 2's stack, not to the
 * stack of the node that allocated them, and node 2's workers then reuse
 * them without new slabs. */
static void test_node_pools_keep_frees_on_their_node(void **state)
{
    (void)state;
    enum { N = 2000, NODES = 4 };
    struct lc_taskpool_global pools[NODES];
    struct lc_taskpool on0 = { 0 }, on2 = { 0 }, on2b = { 0 };
    struct lc_task **v = calloc(N, sizeof *v);
    assert_int_equal(lc_taskpool_nodes_init(pools, NODES), 0);
    for (int i = 0; i < N; i++)
        assert_non_null(v[i] = lc_task_alloc(&on0, &pools[0]));
    assert_non_null(pools[0].slabs);
    for (int i = 0; i < N; i++)
        lc_task_release(&on2, &pools[2], v[i]);
    assert_true(nbatches(&pools[2]) >= (N - 4 * LC_POOL_BATCH) / LC_POOL_BATCH);
    assert_int_equal(nbatches(&pools[0]), 0);
    assert_int_equal(nbatches(&pools[1]), 0);
    assert_int_equal(nbatches(&pools[3]), 0);
    /* another worker of node 2 gets them back, no slab of its own */
    for (int i = 0; i < N / 2; i++) {
        struct lc_task *t = lc_task_alloc(&on2b, &pools[2]);
        int found = 0;
        for (int j = 0; j < N && !found; j++)
            found = v[j] == t;
        assert_true(found);
    }
    assert_null(pools[2].slabs);
    free(v);
    lc_taskpool_nodes_fini(pools, NODES);
}

/* A node whose stack is empty borrows another node's batch before it
 * allocates a slab (else a producer on one node and a consumer on another
 * would grow memory without bound), and allocates one when all are empty. */
static void test_empty_node_borrows_before_allocating(void **state)
{
    (void)state;
    enum { NODES = 4 };
    struct lc_taskpool_global pools[NODES];
    struct lc_taskpool on1 = { 0 }, on3 = { 0 }, on3b = { 0 };
    assert_int_equal(lc_taskpool_nodes_init(pools, NODES), 0);
    struct lc_task *v[6 * LC_POOL_BATCH];
    for (int i = 0; i < 6 * LC_POOL_BATCH; i++)
        assert_non_null(v[i] = lc_task_alloc(&on1, &pools[1]));
    for (int i = 0; i < 6 * LC_POOL_BATCH; i++)
        lc_task_release(&on1, &pools[1], v[i]);
    unsigned before = nbatches(&pools[1]);
    assert_true(before > 0);
    assert_non_null(lc_task_alloc(&on3, &pools[3]));
    assert_int_equal(nbatches(&pools[1]), before - 1);   /* borrowed */
    assert_null(pools[3].slabs);
    /* nothing left anywhere: node 3's own slab */
    while (nbatches(&pools[1])) {
        assert_non_null(lc_task_alloc(&on3b, &pools[3]));
        on3b.head = NULL;   /* drop the rest of the batch: the next alloc refills */
        on3b.count = 0;
    }
    struct lc_taskpool fresh = { 0 };
    assert_non_null(lc_task_alloc(&fresh, &pools[3]));
    assert_non_null(pools[3].slabs);
    lc_taskpool_nodes_fini(pools, NODES);
}

/* ---- in a runtime on four virtual nodes, one worker each ---- */

static int start_4s(const char *verbose)
{
    setenv("LOCUS_TOPOLOGY", "4s", 1);
    setenv("LOCUS_THREADS", "4", 1);
    setenv("LOCUS_REGIME", "dft", 1);
    setenv("LOCUS_VERBOSE", verbose, 1);
    int r = locus_init();
    unsetenv("LOCUS_TOPOLOGY");
    unsetenv("LOCUS_THREADS");
    unsetenv("LOCUS_REGIME");
    unsetenv("LOCUS_VERBOSE");
    return r;
}

struct probe {
    int node;                       /* the node of the worker that ran it */
    unsigned before[4], after[4];   /* the nodes' stacks around its frees */
    int arena, want_arena;          /* arena of a block it allocated, its node's */
};

/* Runs on some worker: frees enough descriptors there to spill batches. */
static void spill_here(void *arg)
{
    struct probe *p = arg;
    struct lc_worker *w = lc_self;
    struct lc_runtime *rt = w->rt;
    enum { M = 6 * LC_POOL_BATCH };
    struct lc_task *v[M];
    p->node = w->node;
    int n = 0;
    while (n < M && (v[n] = lc_task_alloc(&w->pool, w->npool)))
        n++;
    for (int k = 0; k < 4; k++)
        p->before[k] = nbatches(&rt->npools[k]);
    for (int i = 0; i < n; i++)
        lc_task_release(&w->pool, w->npool, v[i]);
    for (int k = 0; k < 4; k++)
        p->after[k] = nbatches(&rt->npools[k]);
    void *b = lc_mem_alloc(48, 0);
    p->arena = lc_mem_arena_of(b);
    p->want_arena = lc_mem_node_arena(w->node);
    lc_mem_free(b, 48);
}

static void test_runtime_frees_go_to_the_workers_node(void **state)
{
    (void)state;
    assert_int_equal(start_4s("0"), 0);
    struct lc_runtime *rt = lc_rt;
    assert_int_equal(rt->topo.nnodes, 4);
    for (int i = 0; i < rt->nworkers; i++)
        assert_ptr_equal(rt->workers[i].npool, &rt->npools[rt->workers[i].node]);
    for (int round = 0; round < 16; round++) {
        struct probe p;
        memset(&p, 0, sizeof p);
        assert_int_equal(locus_spawn(spill_here, &p, 0, NULL, 0), 0);
        assert_int_equal(locus_taskwait(), 0);
        assert_true(p.node >= 0 && p.node < 4);
        for (int k = 0; k < 4; k++) {
            if (k == p.node)
                assert_true(p.after[k] > p.before[k]);   /* its node's stack grew */
            else
                assert_int_equal(p.after[k], p.before[k]);
        }
        if (p.want_arena >= 0)   /* -1: jemalloc refused arenas (said under LOCUS_VERBOSE) */
            assert_int_equal(p.arena, p.want_arena);
    }
    assert_int_equal(locus_finalize(), 0);
}

/* Arenas: a bound thread allocates from its node's arena, an unbound one
 * does not; one node uses the default arenas. */
static void test_node_arenas(void **state)
{
    (void)state;
    if (lc_mem_arenas_init(4, 1) != 4) {
        print_message("jemalloc creates no arenas here: arena checks skipped\n");
        skip();
    }
    int a2 = lc_mem_node_arena(2);
    assert_true(a2 >= 0);
    assert_int_not_equal(a2, lc_mem_node_arena(3));
    lc_mem_thread_bind(2);
    void *p = lc_mem_alloc(100, 0), *q = lc_mem_calloc(3, 40), *r = lc_mem_alloc(5000, 64);
    assert_non_null(p);
    assert_non_null(q);
    assert_non_null(r);
    assert_int_equal(lc_mem_arena_of(p), a2);
    assert_int_equal(lc_mem_arena_of(q), a2);
    assert_int_equal(lc_mem_arena_of(r), a2);
    r = lc_mem_realloc(r, 5000, 20000);
    assert_non_null(r);
    assert_int_equal(lc_mem_arena_of(r), a2);
    lc_mem_free(p, 100);
    lc_mem_free(q, 120);
    lc_mem_thread_unbind();
    void *u = lc_mem_alloc(100, 0);
    assert_int_not_equal(lc_mem_arena_of(u), a2);
    lc_mem_free(u, 100);
    lc_mem_free(r, 20000);                          /* freed by an unbound thread: fine */
    assert_int_equal(lc_mem_arenas_init(1, 0), 0);  /* one node: none */
    assert_int_equal(lc_mem_node_arena(0), -1);
}

/* jemalloc refusing arenas fails nothing: the runtime starts, runs and
 * stops on the default arenas.  On a topology of more nodes than any run
 * before in this process, so that new arenas are asked for (arenas are
 * made once per process and reused: mem.c). */
static atomic_int ran;
static void count(void *arg)
{
    (void)arg;
    atomic_fetch_add(&ran, 1);
}

static void test_arenas_refused_is_not_an_error(void **state)
{
    (void)state;
    lc_mem_refuse_arenas(1);
    setenv("LOCUS_TOPOLOGY", "bullion-s16", 1);
    setenv("LOCUS_THREADS", "4", 1);
    setenv("LOCUS_REGIME", "dft", 1);
    setenv("LOCUS_VERBOSE", "1", 1);
    int r = locus_init();   /* says so on stderr */
    unsetenv("LOCUS_TOPOLOGY");
    unsetenv("LOCUS_THREADS");
    unsetenv("LOCUS_REGIME");
    unsetenv("LOCUS_VERBOSE");
    lc_mem_refuse_arenas(0);
    assert_int_equal(r, 0);
    for (int k = 0; k < 16; k++)
        assert_int_equal(lc_mem_node_arena(k), -1);
    atomic_store(&ran, 0);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(locus_spawn(count, NULL, 0, NULL, 0), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(atomic_load(&ran), 1000);
    assert_int_equal(locus_finalize(), 0);
}

static int teardown_stop(void **state)
{
    (void)state;
    int rc = locus_finalize();
    return rc == 0 || rc == -EPERM ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reuse_is_lifo),
        cmocka_unit_test(test_distinct_and_spill),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_fault_injection_counts),
        cmocka_unit_test(test_node_pools_keep_frees_on_their_node),
        cmocka_unit_test(test_empty_node_borrows_before_allocating),
        cmocka_unit_test_teardown(test_runtime_frees_go_to_the_workers_node, teardown_stop),
        cmocka_unit_test(test_node_arenas),
        cmocka_unit_test_teardown(test_arenas_refused_is_not_an_error, teardown_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
