/*
 * test_taskpool.c - unit tests of the task descriptor pools
 * (alloc/taskpool.c) and of the allocation wrapper's fault injection
 * (alloc/mem.c): local reuse, refill from slabs and from the global batch
 * stack, spilling of long lists, and clean failure when memory runs out.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mem.h"
#include "task.h"
#include "taskpool.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reuse_is_lifo),
        cmocka_unit_test(test_distinct_and_spill),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_fault_injection_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
