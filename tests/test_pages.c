/*
 * test_pages.c - tests of how a range is booked from the kernel's page
 * placement (alloc/pages.c): lc_pages_plan fed with fabricated samples
 * (interleaved pages -> spread, one node -> that node, blocks -> runs with
 * their boundaries on the page or huge-page grid, pages not present,
 * interleaving over only some nodes, a node without workers), and the
 * program's memory policy given back after LOCUS_REGIME=di (which sets
 * MPOL_INTERLEAVE only on a real machine of several nodes, e.g. the
 * tests/numa-vm guests).  lc_pages_sample itself is tested against the
 * kernel in test_directory.c.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <numa.h>
#include <numaif.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "directory.h"
#include "locus.h"
#include "pages.h"

#define PG ((uintptr_t)4096)
#define HUGE ((uintptr_t)2 << 20)
#define BASE ((uintptr_t)0x40000000)   /* addresses are only numbers here */
#define N LC_PAGES_SAMPLES

static const int ft2[] = { 0, 1 }, ft4[] = { 0, 1, 2, 3 };

/* Samples as lc_pages_sample cuts [base, base + npages pages): n slices of
 * whole pages, slice i asking about page pick(i) of itself; node_of(page
 * index) is the fabricated placement, -1 not present. */
static unsigned fabricate(struct lc_page_run *s, uintptr_t base, uint64_t npages, unsigned n,
                          int (*node_of)(uint64_t pg, void *arg), void *arg)
{
    if (npages < n)
        n = (unsigned)npages;
    for (unsigned i = 0; i < n; i++) {
        uint64_t p0 = i * npages / n, p1 = (i + 1) * npages / n;
        uint64_t pg = p0 + (p1 - p0) * (i % 7) / 7;   /* somewhere in the slice */
        s[i] = (struct lc_page_run){ base + p0 * PG, base + p1 * PG, base + pg * PG,
                                     node_of(pg, arg) };
    }
    return n;
}

static int rr(uint64_t pg, void *arg)   /* round robin over *arg nodes */
{
    return (int)(pg % (uint64_t)*(int *)arg);
}

static int hashed(uint64_t pg, void *arg)   /* pseudo-random over *arg nodes */
{
    uint64_t x = (pg + 1) * UINT64_C(0x9E3779B97F4A7C15);
    x ^= x >> 29;
    return (int)((x * UINT64_C(0xBF58476D1CE4E5B9) >> 40) % (uint64_t)*(int *)arg);
}

static int blocks(uint64_t pg, void *arg)   /* node list per block of arg[0] pages */
{
    const int *a = arg;
    return a[1 + pg / (uint64_t)a[0]];
}

static int none(uint64_t pg, void *arg)
{
    (void)pg, (void)arg;
    return -1;
}

static int one(uint64_t pg, void *arg)
{
    (void)arg;
    return pg % 3 ? 1 : -1;
}

static int two(uint64_t pg, void *arg)
{
    (void)pg, (void)arg;
    return 2;
}

static int other(uint64_t pg, void *arg)   /* 0 and 2 alternate */
{
    (void)arg;
    return pg % 2 ? 2 : 0;
}

static int lead(uint64_t pg, void *arg)   /* absent, 0, absent, 1 */
{
    (void)arg;
    return pg < 4 ? -1 : pg < 8 ? 0 : pg == 8 ? -1 : 1;
}

/* The runs cover [lo, hi) in order. */
static void assert_cover(const struct lc_page_run *s, unsigned r, uintptr_t lo, uintptr_t hi)
{
    assert_true(r > 0);
    assert_true(s[0].lo == lo);
    for (unsigned k = 0; k + 1 < r; k++) {
        assert_true(s[k].hi == s[k + 1].lo);
        assert_int_not_equal(s[k].node, s[k + 1].node);
    }
    assert_true(s[r - 1].hi == hi);
}

static void test_nothing_present(void **state)
{
    (void)state;
    struct lc_page_run s[N];
    unsigned n = fabricate(s, BASE, 1000, N, none, NULL);
    assert_int_equal(lc_pages_plan(s, n, ft2, 2, PG, PG), 0);
}

static void test_one_node(void **state)
{
    (void)state;
    struct lc_page_run s[N];
    /* every present page on node 1, every third sample not present */
    unsigned n = fabricate(s, BASE, 5000, N, one, NULL);
    assert_int_equal(lc_pages_plan(s, n, ft4, 4, PG, HUGE), 1);
    assert_cover(s, 1, BASE, BASE + 5000 * PG);
    assert_int_equal(s[0].node, 1);
    /* a range inside one huge page, every page asked */
    n = fabricate(s, BASE + HUGE, 16, N, two, NULL);
    assert_int_equal(n, 16);
    assert_int_equal(lc_pages_plan(s, n, ft4, 4, PG, HUGE), 1);
    assert_int_equal(s[0].node, 2);
}

/* Every page asked (a 64 KiB tile): interleaved evenly -> SPREAD, exact. */
static void test_exact_interleaved(void **state)
{
    (void)state;
    struct lc_page_run s[N];
    int m = 2;
    unsigned n = fabricate(s, BASE, 16, N, rr, &m);
    assert_int_equal(lc_pages_plan(s, n, ft2, 2, PG, PG), 1);
    assert_cover(s, 1, BASE, BASE + 16 * PG);
    assert_int_equal(s[0].node, LC_DIR_SPREAD);
    m = 4;
    n = fabricate(s, BASE, 16, N, rr, &m);
    assert_int_equal(lc_pages_plan(s, n, ft4, 4, PG, PG), 1);
    assert_int_equal(s[0].node, LC_DIR_SPREAD);
    /* the same pages, but only 2 of the 4 nodes in use hold them: SPREAD
     * would put a quarter on each; page by page instead */
    m = 2;
    n = fabricate(s, BASE, 16, N, rr, &m);
    assert_int_equal(lc_pages_plan(s, n, ft4, 4, PG, PG), 16);
    assert_cover(s, 16, BASE, BASE + 16 * PG);
    for (unsigned k = 0; k < 16; k++) {
        assert_true(s[k].lo == BASE + k * PG);
        assert_int_equal(s[k].node, (int)(k % 2));
    }
}

/* Every page asked, uneven (an odd count, or blocks): one run per stretch,
 * exact to the byte, unaligned ends included. */
static void test_exact_runs(void **state)
{
    (void)state;
    struct lc_page_run s[N];
    int m = 2;
    unsigned n = fabricate(s, BASE, 5, N, rr, &m);
    s[0].lo += 100;   /* the range starts and ends inside a page */
    s[4].hi -= 10;
    assert_int_equal(lc_pages_plan(s, n, ft2, 2, PG, PG), 5);
    assert_cover(s, 5, BASE + 100, BASE + 5 * PG - 10);
    uint64_t b[2] = { 0, 0 };
    for (unsigned k = 0; k < 5; k++)
        b[s[k].node] += s[k].hi - s[k].lo;
    assert_true(b[0] == 3 * PG - 110 && b[1] == 2 * PG);

    int half[] = { 8, 0, 1 };   /* balanced but in two blocks: not SPREAD */
    n = fabricate(s, BASE, 16, N, blocks, half);
    assert_int_equal(lc_pages_plan(s, n, ft2, 2, PG, PG), 2);
    assert_cover(s, 2, BASE, BASE + 16 * PG);
    assert_true(s[1].lo == BASE + 8 * PG);
    assert_int_equal(s[0].node, 0);
    assert_int_equal(s[1].node, 1);
}

/* Sampled ranges interleaved page by page (fault order or a hash), or by
 * huge pages, over every node in use: SPREAD, one entry. */
static void test_sampled_interleaved(void **state)
{
    (void)state;
    struct lc_page_run s[N];
    for (int m = 2; m <= 4; m += 2)
        for (uint64_t np = 40; np < 300000; np = np * 3 + 1) {
            unsigned n = fabricate(s, BASE, np, N, rr, &m);
            assert_int_equal(lc_pages_plan(s, n, m == 2 ? ft2 : ft4, m, PG, HUGE), 1);
            assert_int_equal(s[0].node, LC_DIR_SPREAD);
            n = fabricate(s, BASE, np, N, hashed, &m);
            assert_int_equal(lc_pages_plan(s, n, m == 2 ? ft2 : ft4, m, PG, PG), 1);
            assert_int_equal(s[0].node, LC_DIR_SPREAD);
            assert_cover(s, 1, BASE, BASE + np * PG);
        }
    /* 64 huge pages interleaved over 4 nodes, each huge page on one node */
    int hp[65] = { 512 };
    for (int k = 0; k < 64; k++)
        hp[1 + k] = k % 4;
    unsigned n = fabricate(s, BASE, 64 * 512, N, blocks, hp);
    assert_int_equal(lc_pages_plan(s, n, ft4, 4, PG, HUGE), 1);
    assert_int_equal(s[0].node, LC_DIR_SPREAD);
}

/* Sampled blocks: one run per block, boundaries between the samples that
 * differ, on the huge-page grid when one falls there. */
static void test_sampled_blocks(void **state)
{
    (void)state;
    struct lc_page_run s[N];
    /* three huge pages on nodes 0, 1, 0 (2 MiB-aligned) */
    int three[] = { 512, 0, 1, 0 };
    unsigned n = fabricate(s, BASE, 3 * 512, N, blocks, three);
    assert_int_equal(lc_pages_plan(s, n, ft2, 2, PG, HUGE), 3);
    assert_cover(s, 3, BASE, BASE + 3 * HUGE);
    assert_true(s[1].lo == BASE + HUGE && s[2].lo == BASE + 2 * HUGE);
    assert_int_equal(s[0].node, 0);
    assert_int_equal(s[1].node, 1);
    /* with 4 KiB pages only, the boundary is a slice boundary between the
     * two samples: within one slice (48 pages) of the truth */
    n = fabricate(s, BASE, 3 * 512, N, blocks, three);
    assert_int_equal(lc_pages_plan(s, n, ft2, 2, PG, PG), 3);
    assert_cover(s, 3, BASE, BASE + 3 * HUGE);
    assert_true(s[1].lo > BASE + HUGE - 48 * PG && s[1].lo < BASE + HUGE + 48 * PG);
    assert_true(s[1].lo % PG == 0);
    /* quarters on four nodes: blocks, not interleaving */
    int quarters[] = { 1000, 3, 2, 1, 0 };
    n = fabricate(s, BASE, 4000, N, blocks, quarters);
    assert_int_equal(lc_pages_plan(s, n, ft4, 4, PG, PG), 4);
    for (unsigned k = 0; k < 4; k++)
        assert_int_equal(s[k].node, 3 - (int)k);
}

/* Interleaved over only some of the nodes in use, or with a node without
 * workers: SPREAD would misplace it, so runs per sample stretch, whose
 * bytes follow the samples. */
static void test_sampled_not_spread(void **state)
{
    (void)state;
    struct lc_page_run s[N];
    int m = 2;
    unsigned n = fabricate(s, BASE, 100000, N, hashed, &m);
    unsigned r = lc_pages_plan(s, n, ft4, 4, PG, PG);
    assert_true(r > 3 && r <= N);
    assert_cover(s, r, BASE, BASE + 100000 * PG);
    for (unsigned k = 0; k < r; k++)
        assert_true(s[k].node == 0 || s[k].node == 1);

    /* nodes 0 and 2 alternate, node 2 has no workers (spread: 0 and 1) */
    n = fabricate(s, BASE, 100000, N, other, NULL);
    r = lc_pages_plan(s, n, ft2, 2, PG, PG);
    assert_true(r > 1);
    for (unsigned k = 0; k < r; k++)
        assert_int_not_equal(s[k].node, LC_DIR_SPREAD);
    /* nodes 0, 1, 2 in use and a node 4 without workers, page by page */
    n = fabricate(s, BASE, 100000, N, rr, &(int){ 5 });
    for (unsigned i = 0; i < n; i++)
        s[i].node = s[i].node == 3 ? 0 : s[i].node;
    r = lc_pages_plan(s, n, ft4, 4, PG, PG);
    assert_true(r > 1);
    for (unsigned k = 0; k < r; k++)
        assert_int_not_equal(s[k].node, LC_DIR_SPREAD);
    /* one node in use: nothing is spread */
    n = fabricate(s, BASE, 100000, N, other, NULL);
    r = lc_pages_plan(s, n, ft2, 1, PG, PG);
    for (unsigned k = 0; k < r; k++)
        assert_int_not_equal(s[k].node, LC_DIR_SPREAD);
}

/* Pages not present join the run before them (the first ones the run after). */
static void test_absent_joined(void **state)
{
    (void)state;
    struct lc_page_run s[N];
    unsigned n = fabricate(s, BASE, 12, N, lead, NULL);
    assert_int_equal(lc_pages_plan(s, n, ft2, 2, PG, PG), 2);
    assert_cover(s, 2, BASE, BASE + 12 * PG);
    assert_int_equal(s[0].node, 0);
    assert_true(s[1].lo == BASE + 9 * PG);
}

/* A program's own memory policy survives LOCUS_REGIME=di: MPOL_INTERLEAVE
 * while the runtime runs on a real machine of several nodes, the program's
 * policy again after locus_finalize (on one node DI leaves it alone). */
static void test_di_restores_policy(void **state)
{
    (void)state;
    if (numa_available() < 0 || get_mempolicy(NULL, NULL, 0, NULL, 0) != 0) {
        print_message("skipping: no memory policies here\n");
        skip();
    }
    int node = 0;
    while (node <= numa_max_node() && !numa_bitmask_isbitset(numa_all_nodes_ptr, (unsigned)node))
        node++;
    unsigned long pref = 1ul << node, got = 0;
    int mode = -1, during;
    assert_int_equal(set_mempolicy(MPOL_PREFERRED, &pref, 8 * sizeof pref), 0);
    unsetenv("LOCUS_TOPOLOGY");
    setenv("LOCUS_REGIME", "di", 1);
    assert_int_equal(locus_init(), 0);
    assert_int_equal(get_mempolicy(&during, NULL, 0, NULL, 0), 0);
    assert_int_equal(during, locus_num_nodes() > 1 ? MPOL_INTERLEAVE : MPOL_PREFERRED);
    assert_int_equal(locus_finalize(), 0);
    assert_int_equal(get_mempolicy(&mode, &got, 8 * sizeof got, NULL, 0), 0);
    assert_int_equal(mode, MPOL_PREFERRED);
    assert_true(got == pref);
    print_message("%d node(s): the program's policy was %s during DI, restored after\n",
                  locus_num_nodes() > 0 ? locus_num_nodes() : numa_num_configured_nodes(),
                  during == MPOL_INTERLEAVE ? "replaced by interleave" : "left alone");
    set_mempolicy(MPOL_DEFAULT, NULL, 0);
}

int main(void)
{
    alarm(60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nothing_present),    cmocka_unit_test(test_one_node),
        cmocka_unit_test(test_exact_interleaved),  cmocka_unit_test(test_exact_runs),
        cmocka_unit_test(test_sampled_interleaved), cmocka_unit_test(test_sampled_blocks),
        cmocka_unit_test(test_sampled_not_spread), cmocka_unit_test(test_absent_joined),
        cmocka_unit_test(test_di_restores_policy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
