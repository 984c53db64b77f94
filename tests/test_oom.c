/*
 * test_oom.c - allocation failure through the public API loses nothing:
 * a spawn that cannot get memory returns -ENOMEM and creates nothing; a
 * dependency registration that runs out part-way still gives the
 * sequential result; locus_init under memory pressure either starts or
 * fails cleanly, never half-way.  Uses the allocator's fault injection.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "locus.h"
#include "mem.h"
#include "support.h"

static atomic_int ran;

static void count_body(void *arg)
{
    (void)arg;
    atomic_fetch_add(&ran, 1);
}

static void test_spawn_enomem_creates_nothing(void **state)
{
    (void)state;
    char big[256] = { 1 };
    setenv("LOCUS_THREADS", "2", 1);
    setenv("LOCUS_REGIME", "dft", 1);
    assert_int_equal(locus_init(), 0);
    atomic_store(&ran, 0);
    lc_mem_fail_after(1);   /* the copy of a 256-byte argument */
    assert_int_equal(locus_spawn(count_body, big, sizeof big, NULL, 0), -ENOMEM);
    lc_mem_fail_after(0);
    assert_true(strstr(locus_error_message(), "memory") != NULL);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(atomic_load(&ran), 0);
    assert_int_equal(locus_spawn(count_body, big, sizeof big, NULL, 0), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(atomic_load(&ran), 1);
    assert_int_equal(locus_finalize(), 0);
}

enum { N = 64 };
static unsigned long cells[N * 4];

struct step { int i; };

/* cells[4i..4i+3] = f(cells[4(i-1)..]) : each task reads its predecessor's block */
static void step_body(void *arg)
{
    int i = ((struct step *)arg)->i;
    for (int k = 0; k < 4; k++)
        cells[4 * i + k] = (i ? cells[4 * (i - 1) + k] : 0) * 3 + (unsigned long)(i + k);
}

static void test_registration_enomem_is_serialised(void **state)
{
    (void)state;
    unsigned long ref[N * 4];
    for (int i = 0; i < N; i++)
        for (int k = 0; k < 4; k++)
            ref[4 * i + k] = (i ? ref[4 * (i - 1) + k] : 0) * 3 + (unsigned long)(i + k);
    for (const char *regime = "dft"; regime; regime = strcmp(regime, "dft") ? NULL : "naft") {
        setenv("LOCUS_THREADS", "2", 1);
        setenv("LOCUS_REGIME", regime, 1);
        setenv("LOCUS_TOPOLOGY", "4s", 1);
        assert_int_equal(locus_init(), 0);
        memset(cells, 0, sizeof cells);
        for (int i = 0; i < N; i++) {
            struct step a = { i };
            /* partial ranges force segment splits, i.e. allocations */
            locus_dep_t d[3] = {
                LOCUS_OUT(&cells[4 * i], 4 * sizeof cells[0]),
                LOCUS_IN(&cells[4 * i - (i ? 3 : 0)], (i ? 3 : 1) * sizeof cells[0]),
                LOCUS_IN(&cells[i ? 4 * (i - 1) : 0], sizeof cells[0]),
            };
            lc_mem_fail_after(1 + i % 5);
            assert_int_equal(locus_spawn(step_body, &a, sizeof a, d, 3), 0);
        }
        lc_mem_fail_after(0);
        assert_int_equal(locus_taskwait(), 0);
        assert_memory_equal(cells, ref, sizeof ref);
        assert_int_equal(locus_finalize(), 0);
        unsetenv("LOCUS_TOPOLOGY");
    }
}

static void test_init_under_pressure(void **state)
{
    (void)state;
    setenv("LOCUS_THREADS", "3", 1);
    setenv("LOCUS_REGIME", "naft", 1);
    setenv("LOCUS_TOPOLOGY", "bullion-s16", 1);
    int started = 0, refused = 0;
    for (int k = 1; k <= 40; k++) {
        lc_mem_fail_after(k);
        int r = locus_init();
        lc_mem_fail_after(0);
        if (r == 0) {
            started++;
            atomic_store(&ran, 0);
            assert_int_equal(locus_spawn(count_body, NULL, 0, NULL, 0), 0);
            assert_int_equal(locus_finalize(), 0);
            assert_int_equal(atomic_load(&ran), 1);
        } else {
            refused++;
            assert_int_equal(r, -ENOMEM);
            assert_int_equal(locus_num_workers(), -EPERM);   /* nothing left running */
        }
    }
    assert_true(refused > 0);      /* the early allocations did fail */
    assert_true(started > 0);      /* and later ones left init alone */
    unsetenv("LOCUS_TOPOLOGY");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spawn_enomem_creates_nothing),
        cmocka_unit_test(test_registration_enomem_is_serialised),
        cmocka_unit_test(test_init_under_pressure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
