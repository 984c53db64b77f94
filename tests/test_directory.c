/*
 * test_directory.c - tests of the data-location directory (alloc/directory.c):
 * exact and overlapping records, partly unknown queries, spread, forget,
 * running totals against a recount, a randomized run against a byte-array
 * model, allocation failure leaving the state unchanged (also for ranges
 * split over several shards), booking only the gaps of a range, ranges
 * crossing 2 MiB granules, concurrent writers and readers (a reader must
 * never see a half-done change of a shard), and the kernel page-location
 * sampling (lc_pages_sample, alloc/pages.c; its booking plan is tested in
 * test_pages.c).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <numa.h>
#include <numaif.h>
#include <sys/mman.h>
#include <unistd.h>

#include "directory.h"
#include "mem.h"
#include "pages.h"
#include "support.h"

#define NNODES 3
#define BASE ((uintptr_t)0x100000)   /* addresses are only numbers here */

static int sanitizer(void)
{
    const char *s = getenv("LOCUS_TEST_SANITIZER");
    return s && *s && strcmp(s, "none") != 0;
}

/* ---------------------------------------------------------------- helpers */

struct snap {
    size_t n;
    uintptr_t lo[256];
    size_t size[256];
    int node[256];
};

static int snap_cb(uintptr_t addr, size_t size, int node, void *arg)
{
    struct snap *s = arg;
    if (s->n == 256)
        return -ENOSPC;
    s->lo[s->n] = addr;
    s->size[s->n] = size;
    s->node[s->n] = node;
    s->n++;
    return 0;
}

static void take_snap(struct lc_directory *d, struct snap *s)
{
    memset(s, 0, sizeof *s);
    assert_int_equal(lc_dir_foreach(d, snap_cb, s), 0);
    assert_int_equal(s->n, lc_dir_entries(d));
}

static void assert_same_snap(const struct snap *a, const struct snap *b)
{
    assert_int_equal(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        assert_int_equal(a->lo[i], b->lo[i]);
        assert_int_equal(a->size[i], b->size[i]);
        assert_int_equal(a->node[i], b->node[i]);
    }
}

/* Totals recounted from the entries must equal the running totals. */
static void assert_totals_recount(struct lc_directory *d)
{
    struct snap s;
    take_snap(d, &s);
    uint64_t want[NNODES] = { 0 }, want_spread = 0;
    for (size_t i = 0; i < s.n; i++) {
        if (s.node[i] == LC_DIR_SPREAD)
            want_spread += s.size[i];
        else
            want[s.node[i]] += s.size[i];
    }
    uint64_t got[NNODES], got_spread = 12345;
    memset(got, 0xff, sizeof got);
    lc_dir_totals(d, got, &got_spread);
    for (int i = 0; i < NNODES; i++)
        assert_int_equal(got[i], want[i]);
    assert_int_equal(got_spread, want_spread);
    assert_int_equal(lc_dir_check(d), 0);
}

/* Queries [lo, hi) (offsets from BASE) and checks every count. */
static void expect_query(struct lc_directory *d, uintptr_t lo, uintptr_t hi,
                         uint64_t n0, uint64_t n1, uint64_t n2, uint64_t spread,
                         size_t unknown)
{
    uint64_t b[NNODES] = { 0 }, s = 0;
    size_t u = lc_dir_query(d, BASE + lo, hi - lo, b, &s);
    assert_int_equal(b[0], n0);
    assert_int_equal(b[1], n1);
    assert_int_equal(b[2], n2);
    assert_int_equal(s, spread);
    assert_int_equal(u, unknown);
}

static int rec(struct lc_directory *d, uintptr_t lo, uintptr_t hi, int node)
{
    return lc_dir_record(d, BASE + lo, hi - lo, node);
}

static int fgt(struct lc_directory *d, uintptr_t lo, uintptr_t hi)
{
    return lc_dir_forget(d, BASE + lo, hi - lo);
}

/* ---------------------------------------------------------------- basics */

static void test_create_destroy(void **state)
{
    (void)state;
    lc_dir_destroy(NULL);
    struct lc_directory *d = lc_dir_create(NNODES);
    assert_non_null(d);
    assert_int_equal(lc_dir_entries(d), 0);
    expect_query(d, 0, 100, 0, 0, 0, 0, 100);
    assert_int_equal(lc_dir_query(d, BASE, 0, NULL, NULL), 0);
    assert_totals_recount(d);
    lc_dir_destroy(d);

    /* one allocation: the directory with every shard */
    lc_mem_fail_after(1);
    assert_null(lc_dir_create(NNODES));
    lc_mem_fail_after(0);
    assert_null(lc_dir_create(-1));
}

static void test_invalid(void **state)
{
    (void)state;
    struct lc_directory *d = lc_dir_create(NNODES);
    assert_int_equal(rec(d, 0, 10, NNODES), -EINVAL);
    assert_int_equal(rec(d, 0, 10, -1), -EINVAL);
    assert_int_equal(lc_dir_record(d, UINTPTR_MAX - 5, 10, 0), -EINVAL);
    assert_int_equal(lc_dir_forget(d, UINTPTR_MAX - 5, 10), -EINVAL);
    assert_int_equal(rec(d, 10, 10, 0), 0);      /* empty: nothing */
    assert_int_equal(fgt(d, 10, 10), 0);
    assert_int_equal(lc_dir_entries(d), 0);
    /* A range that ends at the very top of the address space is fine. */
    assert_int_equal(lc_dir_record(d, UINTPTR_MAX - 10, 10, 1), 0);
    uint64_t b[NNODES] = { 0 };
    assert_int_equal(lc_dir_query(d, UINTPTR_MAX - 10, 10, b, NULL), 0);
    assert_int_equal(b[1], 10);
    /* A query past the end: the part beyond is unknown. */
    memset(b, 0, sizeof b);
    assert_int_equal(lc_dir_query(d, UINTPTR_MAX - 10, 20, b, NULL), 10);
    assert_int_equal(b[1], 10);
    assert_totals_recount(d);
    lc_dir_destroy(d);
}

static void test_exact(void **state)
{
    (void)state;
    struct lc_directory *d = lc_dir_create(NNODES);
    /* Tiles of 64 bytes, round robin over the nodes. */
    for (int i = 0; i < 16; i++)
        assert_int_equal(rec(d, 64 * i, 64 * (i + 1), i % NNODES), 0);
    assert_int_equal(lc_dir_entries(d), 16);  /* same-node neighbours stay apart */
    for (int i = 0; i < 16; i++) {
        uint64_t b[NNODES] = { 0 };
        b[i % NNODES] = 64;
        expect_query(d, 64 * i, 64 * (i + 1), b[0], b[1], b[2], 0, 0);
        /* A prefix of a tile (hash hit, shorter query). */
        memset(b, 0, sizeof b);
        b[i % NNODES] = 10;
        expect_query(d, 64 * i, 64 * i + 10, b[0], b[1], b[2], 0, 0);
    }
    /* Re-recording a tile retargets it in place. */
    assert_int_equal(rec(d, 64, 128, 2), 0);
    expect_query(d, 64, 128, 0, 0, 64, 0, 0);
    assert_int_equal(lc_dir_entries(d), 16);
    assert_totals_recount(d);
    /* A query over several tiles. */
    expect_query(d, 0, 192, 64, 0, 128, 0, 0);
    expect_query(d, 32, 160, 32, 0, 96, 0, 0);
    /* NULL output arrays are allowed. */
    assert_int_equal(lc_dir_query(d, BASE, 192, NULL, NULL), 0);
    assert_totals_recount(d);
    lc_dir_destroy(d);
}

static void test_overlap(void **state)
{
    (void)state;
    struct lc_directory *d = lc_dir_create(NNODES);

    /* A later record inside an earlier one: split in three. */
    assert_int_equal(rec(d, 0, 100, 0), 0);
    assert_int_equal(rec(d, 40, 60, 1), 0);
    assert_int_equal(lc_dir_entries(d), 3);
    expect_query(d, 0, 100, 80, 20, 0, 0, 0);
    expect_query(d, 0, 40, 40, 0, 0, 0, 0);
    expect_query(d, 40, 60, 0, 20, 0, 0, 0);
    expect_query(d, 60, 100, 40, 0, 0, 0, 0);
    assert_totals_recount(d);

    /* Sharing a start with an earlier one but shorter. */
    assert_int_equal(rec(d, 0, 10, 2), 0);
    expect_query(d, 0, 40, 30, 0, 10, 0, 0);
    assert_int_equal(lc_dir_entries(d), 4);
    /* Sharing an end. */
    assert_int_equal(rec(d, 90, 100, 2), 0);
    expect_query(d, 60, 100, 30, 0, 10, 0, 0);
    assert_int_equal(lc_dir_entries(d), 5);
    assert_totals_recount(d);

    /* Across a boundary: [50, 70) trims [40,60) and [60,90). */
    assert_int_equal(rec(d, 50, 70, 2), 0);
    expect_query(d, 40, 60, 0, 10, 10, 0, 0);
    expect_query(d, 60, 90, 20, 0, 10, 0, 0);
    expect_query(d, 0, 100, 50, 10, 40, 0, 0);
    assert_totals_recount(d);

    /* Covering several earlier entries and reaching past them into a gap. */
    assert_int_equal(rec(d, 5, 150, 1), 0);
    expect_query(d, 0, 200, 0, 145, 5, 0, 50);
    assert_int_equal(lc_dir_entries(d), 2);
    assert_totals_recount(d);

    /* Exactly covering several entries. */
    assert_int_equal(rec(d, 150, 160, 0), 0);
    assert_int_equal(rec(d, 160, 170, 2), 0);
    assert_int_equal(rec(d, 150, 170, LC_DIR_SPREAD), 0);
    expect_query(d, 150, 170, 0, 0, 0, 20, 0);
    assert_int_equal(lc_dir_entries(d), 3);
    assert_totals_recount(d);
    lc_dir_destroy(d);
}

static void test_unknown(void **state)
{
    (void)state;
    struct lc_directory *d = lc_dir_create(NNODES);
    assert_int_equal(rec(d, 100, 200, 0), 0);
    assert_int_equal(rec(d, 300, 400, 1), 0);
    expect_query(d, 0, 500, 100, 100, 0, 0, 300);
    expect_query(d, 50, 150, 50, 0, 0, 0, 50);
    expect_query(d, 150, 350, 50, 50, 0, 0, 100);
    expect_query(d, 200, 300, 0, 0, 0, 0, 100);  /* exactly a gap */
    expect_query(d, 390, 410, 0, 10, 0, 0, 10);
    expect_query(d, 0, 100, 0, 0, 0, 0, 100);
    /* The query adds to what is already in the arrays. */
    uint64_t b[NNODES] = { 7, 7, 7 }, s = 7;
    assert_int_equal(lc_dir_query(d, BASE + 150, 200, b, &s), 100);
    assert_int_equal(b[0], 57);
    assert_int_equal(b[1], 57);
    assert_int_equal(b[2], 7);
    assert_int_equal(s, 7);
    lc_dir_destroy(d);
}

static void test_spread(void **state)
{
    (void)state;
    struct lc_directory *d = lc_dir_create(NNODES);
    assert_int_equal(rec(d, 0, 4096, LC_DIR_SPREAD), 0);
    expect_query(d, 0, 4096, 0, 0, 0, 4096, 0);
    assert_int_equal(rec(d, 1024, 2048, 1), 0);
    expect_query(d, 0, 4096, 0, 1024, 0, 3072, 0);
    expect_query(d, 1000, 1100, 0, 76, 0, 24, 0);
    assert_totals_recount(d);
    assert_int_equal(rec(d, 1024, 2048, LC_DIR_SPREAD), 0);
    expect_query(d, 0, 4096, 0, 0, 0, 4096, 0);
    assert_totals_recount(d);
    lc_dir_destroy(d);
}

static void test_forget(void **state)
{
    (void)state;
    struct lc_directory *d = lc_dir_create(NNODES);
    assert_int_equal(rec(d, 0, 100, 0), 0);
    /* Middle: splits one entry in two. */
    assert_int_equal(fgt(d, 40, 60), 0);
    assert_int_equal(lc_dir_entries(d), 2);
    expect_query(d, 0, 100, 80, 0, 0, 0, 20);
    assert_totals_recount(d);
    /* Ends. */
    assert_int_equal(fgt(d, 0, 10), 0);
    assert_int_equal(fgt(d, 90, 100), 0);
    expect_query(d, 0, 100, 60, 0, 0, 0, 40);
    assert_int_equal(lc_dir_entries(d), 2);
    assert_totals_recount(d);
    /* Exactly an entry. */
    assert_int_equal(fgt(d, 10, 40), 0);
    assert_int_equal(lc_dir_entries(d), 1);
    expect_query(d, 0, 100, 30, 0, 0, 0, 70);
    assert_totals_recount(d);
    /* A gap: nothing happens. */
    assert_int_equal(fgt(d, 0, 50), 0);
    assert_int_equal(lc_dir_entries(d), 1);
    assert_totals_recount(d);

    /* Across several: trims the first and last, drops those between. */
    for (int i = 0; i < 10; i++)
        assert_int_equal(rec(d, 1000 + 10 * i, 1010 + 10 * i, i % NNODES), 0);
    assert_int_equal(lc_dir_entries(d), 11);
    assert_int_equal(fgt(d, 1015, 1085), 0);
    assert_int_equal(lc_dir_entries(d), 5);
    /* Left: [1000,1010) on 0, [1010,1015) on 1; right: [1085,1090) on 2,
     * [1090,1100) on 0. */
    expect_query(d, 1000, 1100, 20, 5, 5, 0, 70);
    assert_totals_recount(d);
    /* Everything. */
    assert_int_equal(fgt(d, 0, 2000), 0);
    assert_int_equal(lc_dir_entries(d), 0);
    expect_query(d, 0, 2000, 0, 0, 0, 0, 2000);
    assert_totals_recount(d);
    lc_dir_destroy(d);
}

/* Many entries: the hash grows; every tile is still found exactly. */
static void test_many(void **state)
{
    (void)state;
    struct lc_directory *d = lc_dir_create(NNODES);
    const int n = sanitizer() ? 2000 : 20000;
    for (int i = 0; i < n; i++)
        assert_int_equal(lc_dir_record(d, BASE + 4096 * (uintptr_t)i, 4096, i % NNODES), 0);
    assert_int_equal(lc_dir_entries(d), n);
    assert_int_equal(lc_dir_check(d), 0);
    for (int i = 0; i < n; i++) {
        uint64_t b[NNODES] = { 0 };
        assert_int_equal(lc_dir_query(d, BASE + 4096 * (uintptr_t)i, 4096, b, NULL), 0);
        assert_int_equal(b[i % NNODES], 4096);
    }
    uint64_t b[NNODES] = { 0 };
    assert_int_equal(lc_dir_query(d, BASE, 4096 * (size_t)n, b, NULL), 0);
    for (int k = 0; k < NNODES; k++)
        assert_int_equal(b[k], 4096 * (uint64_t)((n - k + NNODES - 1) / NNODES));
    for (int i = 0; i < n; i += 2)
        assert_int_equal(lc_dir_forget(d, BASE + 4096 * (uintptr_t)i, 4096), 0);
    assert_int_equal(lc_dir_entries(d), n / 2);
    assert_int_equal(lc_dir_check(d), 0);
    lc_dir_destroy(d);
}

/* ---------------------------------------------------------------- random model */

#define MODEL_SIZE 4096
#define UNKNOWN (-1)

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

/* A random range: half the time on a 64-byte grid (tile reuse, the hash
 * path), otherwise anywhere. */
static void rnd_range(uintptr_t *lo, uintptr_t *hi)
{
    if (rnd() % 2) {
        uintptr_t t = rnd() % (MODEL_SIZE / 64), n = 1 + rnd() % 4;
        *lo = t * 64;
        *hi = *lo + n * 64;
        if (*hi > MODEL_SIZE)
            *hi = MODEL_SIZE;
    } else {
        uintptr_t a = rnd() % MODEL_SIZE, len = 1 + rnd() % (rnd() % 2 ? 32 : 1024);
        *lo = a;
        *hi = a + len > MODEL_SIZE ? MODEL_SIZE : a + len;
    }
}

static void test_random(void **state)
{
    (void)state;
    static signed char model[MODEL_SIZE];
    memset(model, UNKNOWN, sizeof model);
    struct lc_directory *d = lc_dir_create(NNODES);
    const int ops = sanitizer() ? 4000 : 20000;
    for (int op = 0; op < ops; op++) {
        uintptr_t lo, hi;
        rnd_range(&lo, &hi);
        unsigned kind = rnd() % 10;
        if (kind < 4) {
            int node = (int)(rnd() % (NNODES + 1)) - 1;
            if (node < 0)
                node = LC_DIR_SPREAD;
            assert_int_equal(rec(d, lo, hi, node), 0);
            memset(model + lo, node, hi - lo);
        } else if (kind < 6) {
            assert_int_equal(fgt(d, lo, hi), 0);
            memset(model + lo, UNKNOWN, hi - lo);
        } else {
            uint64_t b[NNODES] = { 0 }, s = 0, wb[NNODES] = { 0 }, ws = 0;
            size_t wu = 0;
            for (uintptr_t i = lo; i < hi; i++) {
                if (model[i] == UNKNOWN)
                    wu++;
                else if (model[i] == LC_DIR_SPREAD)
                    ws++;
                else
                    wb[(int)model[i]]++;
            }
            size_t u = lc_dir_query(d, BASE + lo, hi - lo, b, &s);
            if (u != wu || s != ws || memcmp(b, wb, sizeof b) != 0)
                fail_msg("op %d: query [%lu, %lu): got %lu/%lu/%lu spread %lu unknown %zu, "
                         "want %lu/%lu/%lu spread %lu unknown %zu", op,
                         (unsigned long)lo, (unsigned long)hi,
                         (unsigned long)b[0], (unsigned long)b[1], (unsigned long)b[2],
                         (unsigned long)s, u, (unsigned long)wb[0], (unsigned long)wb[1],
                         (unsigned long)wb[2], (unsigned long)ws, wu);
        }
        /* Running totals against the model, after every change. */
        if (kind < 6) {
            uint64_t t[NNODES], ts, wt[NNODES] = { 0 }, wts = 0;
            for (int i = 0; i < MODEL_SIZE; i++) {
                if (model[i] == LC_DIR_SPREAD)
                    wts++;
                else if (model[i] != UNKNOWN)
                    wt[(int)model[i]]++;
            }
            lc_dir_totals(d, t, &ts);
            assert_memory_equal(t, wt, sizeof t);
            assert_int_equal(ts, wts);
        }
        if (op % 64 == 0)
            assert_int_equal(lc_dir_check(d), 0);
    }
    assert_totals_recount(d);
    lc_dir_destroy(d);
}

/* ---------------------------------------------------------------- failures */

/* Runs op with the n-th allocation failing for n = 1, 2, ... until it
 * succeeds; each failure must return -ENOMEM and change nothing.  Returns
 * how many failures it saw. */
static int fail_until_done(struct lc_directory *d, int (*op)(struct lc_directory *))
{
    struct snap before, after;
    uint64_t tb[NNODES], ta[NNODES], sb, sa;
    int failures = 0;
    for (long n = 1;; n++) {
        take_snap(d, &before);
        lc_dir_totals(d, tb, &sb);
        lc_mem_fail_after(n);
        int rc = op(d);
        lc_mem_fail_after(0);
        if (rc == 0)
            return failures;
        assert_int_equal(rc, -ENOMEM);
        failures++;
        take_snap(d, &after);
        lc_dir_totals(d, ta, &sa);
        assert_same_snap(&before, &after);
        assert_memory_equal(tb, ta, sizeof tb);
        assert_int_equal(sb, sa);
        assert_int_equal(lc_dir_check(d), 0);
        assert_true(n < 10);
    }
}

static int op_record_inside(struct lc_directory *d) { return rec(d, 40, 60, 1); }
static int op_record_across(struct lc_directory *d) { return rec(d, 90, 110, 2); }
static int op_record_gap(struct lc_directory *d) { return rec(d, 1000, 1100, 2); }
static int op_forget_middle(struct lc_directory *d) { return fgt(d, 10, 20); }

static void test_enomem(void **state)
{
    (void)state;
    struct lc_directory *d = lc_dir_create(NNODES);
    assert_int_equal(rec(d, 0, 100, 0), 0);
    assert_int_equal(rec(d, 100, 200, 1), 0);

    /* The brief's case: the very next allocation fails, record needs a split. */
    struct snap before, after;
    take_snap(d, &before);
    lc_mem_fail_after(1);
    assert_int_equal(rec(d, 40, 60, 1), -ENOMEM);
    lc_mem_fail_after(0);
    take_snap(d, &after);
    assert_same_snap(&before, &after);
    assert_totals_recount(d);

    /* Inside an entry: two allocations (the new entry, the right part). */
    assert_int_equal(fail_until_done(d, op_record_inside), 2);
    expect_query(d, 0, 200, 80, 120, 0, 0, 0);
    assert_int_equal(lc_dir_entries(d), 4);
    /* Across a boundary: one (the new entry). */
    assert_int_equal(fail_until_done(d, op_record_across), 1);
    expect_query(d, 0, 200, 70, 110, 20, 0, 0);
    /* Into a gap: one. */
    assert_int_equal(fail_until_done(d, op_record_gap), 1);
    /* Forget inside an entry: one (the right part). */
    assert_int_equal(fail_until_done(d, op_forget_middle), 1);
    expect_query(d, 0, 200, 60, 110, 20, 0, 10);
    assert_totals_recount(d);

    /* Changes that need no allocation succeed with the next one failing. */
    lc_mem_fail_after(1);
    assert_int_equal(rec(d, 40, 60, 2), 0);        /* exact: retarget */
    assert_int_equal(rec(d, 0, 200, 0), 0);        /* reuses a dropped entry */
    assert_int_equal(fgt(d, 0, 100), 0);           /* trims */
    assert_int_equal(fgt(d, 1000, 1100), 0);       /* drops */
    lc_mem_fail_after(0);
    expect_query(d, 0, 2000, 100, 0, 0, 0, 1900);
    assert_totals_recount(d);
    lc_dir_destroy(d);
}

/* ---------------------------------------------------------------- gaps */

struct gapcol {
    size_t n;
    uintptr_t lo[16];
    size_t size[16];
};

static void gap_cb(uintptr_t addr, size_t size, void *arg)
{
    struct gapcol *g = arg;
    if (g->n < 16) {
        g->lo[g->n] = addr;
        g->size[g->n] = size;
    }
    g->n++;
}

static int op_gaps(struct lc_directory *d)
{
    return lc_dir_record_gaps(d, BASE, 500, LC_DIR_SPREAD, NULL, NULL);
}

static void test_gaps(void **state)
{
    (void)state;
    struct lc_directory *d = lc_dir_create(NNODES);
    assert_int_equal(rec(d, 100, 200, 0), 0);
    assert_int_equal(rec(d, 300, 400, 1), 0);

    /* A partly known range: only the gaps are booked, the known parts keep
     * their home (a plain record would move them to node 2). */
    struct gapcol g = { 0 };
    assert_int_equal(lc_dir_record_gaps(d, BASE, 500, 2, gap_cb, &g), 0);
    assert_int_equal(g.n, 3);
    assert_int_equal(g.lo[0], BASE);
    assert_int_equal(g.size[0], 100);
    assert_int_equal(g.lo[1], BASE + 200);
    assert_int_equal(g.size[1], 100);
    assert_int_equal(g.lo[2], BASE + 400);
    assert_int_equal(g.size[2], 100);
    expect_query(d, 0, 500, 100, 100, 300, 0, 0);
    expect_query(d, 100, 200, 100, 0, 0, 0, 0);
    expect_query(d, 300, 400, 0, 100, 0, 0, 0);
    assert_int_equal(lc_dir_entries(d), 5);
    assert_totals_recount(d);

    /* Everything known: nothing booked, nothing called. */
    memset(&g, 0, sizeof g);
    assert_int_equal(lc_dir_record_gaps(d, BASE + 50, 400, 0, gap_cb, &g), 0);
    assert_int_equal(g.n, 0);
    expect_query(d, 0, 500, 100, 100, 300, 0, 0);

    /* Starting and ending inside known entries, one gap between. */
    assert_int_equal(fgt(d, 200, 300), 0);
    memset(&g, 0, sizeof g);
    assert_int_equal(lc_dir_record_gaps(d, BASE + 150, 200, 0, gap_cb, &g), 0);
    assert_int_equal(g.n, 1);
    assert_int_equal(g.lo[0], BASE + 200);
    assert_int_equal(g.size[0], 100);
    expect_query(d, 0, 500, 200, 100, 200, 0, 0);
    /* Inside one entry, and past the last one. */
    assert_int_equal(lc_dir_record_gaps(d, BASE + 120, 10, 1, NULL, NULL), 0);
    expect_query(d, 100, 200, 100, 0, 0, 0, 0);
    assert_int_equal(lc_dir_record_gaps(d, BASE + 450, 100, 1, NULL, NULL), 0);
    expect_query(d, 400, 550, 0, 50, 100, 0, 0);
    assert_totals_recount(d);

    /* Bad input changes nothing. */
    assert_int_equal(lc_dir_record_gaps(d, BASE + 600, 10, NNODES, NULL, NULL), -EINVAL);
    assert_int_equal(lc_dir_record_gaps(d, BASE + 600, 10, -1, NULL, NULL), -EINVAL);
    assert_int_equal(lc_dir_record_gaps(d, UINTPTR_MAX - 5, 10, 0, NULL, NULL), -EINVAL);
    assert_int_equal(lc_dir_record_gaps(d, BASE, (size_t)1 << 41, 0, NULL, NULL), -E2BIG);
    assert_int_equal(lc_dir_record(d, BASE, (size_t)1 << 41, 0), -E2BIG);
    assert_int_equal(lc_dir_record_gaps(d, BASE + 600, 0, 0, NULL, NULL), 0);
    expect_query(d, 0, 1000, 200, 150, 200, 0, 450);
    assert_totals_recount(d);
    lc_dir_destroy(d);

    /* Out of memory: three gaps, three allocations; each failure leaves
     * the directory as it was and calls nothing. */
    d = lc_dir_create(NNODES);
    assert_int_equal(rec(d, 100, 200, 0), 0);
    assert_int_equal(rec(d, 300, 400, 1), 0);
    memset(&g, 0, sizeof g);
    lc_mem_fail_after(1);
    assert_int_equal(lc_dir_record_gaps(d, BASE, 500, 2, gap_cb, &g), -ENOMEM);
    lc_mem_fail_after(0);
    assert_int_equal(g.n, 0);
    expect_query(d, 0, 500, 100, 100, 0, 0, 300);
    assert_int_equal(fail_until_done(d, op_gaps), 2);   /* one spare was kept */
    expect_query(d, 0, 500, 100, 100, 0, 300, 0);
    assert_totals_recount(d);
    lc_dir_destroy(d);
}

/* ---------------------------------------------------------------- granules */

#define GRAIN ((uintptr_t)1 << 21)
#define GBASE (64 * GRAIN)

static int op_record_granules(struct lc_directory *d)
{
    return lc_dir_record(d, GBASE + GRAIN - 100, 2 * GRAIN + 200, 1);
}

static int snap_ordered(uintptr_t addr, size_t size, int node, void *arg)
{
    uintptr_t *next = arg;
    (void)node;
    if (addr < *next)
        return -EFAULT;
    *next = addr + size;
    return 0;
}

/* Ranges crossing the 2 MiB granules, stored one entry per granule in
 * different shards, behave as one range. */
static void test_granules(void **state)
{
    (void)state;
    struct lc_directory *d = lc_dir_create(NNODES);
    /* Out of memory first: four pieces, four entries to allocate (in as
     * many shards); the spares a failed try got stay, so three failures. */
    assert_int_equal(fail_until_done(d, op_record_granules), 3);
    assert_int_equal(lc_dir_entries(d), 4);
    assert_int_equal(lc_dir_check(d), 0);
    uint64_t b[NNODES] = { 0 }, s = 0;
    assert_int_equal(lc_dir_query(d, GBASE + GRAIN - 100, 2 * GRAIN + 200, b, &s), 0);
    assert_int_equal(b[1], 2 * GRAIN + 200);
    memset(b, 0, sizeof b);
    assert_int_equal(lc_dir_query(d, GBASE, 4 * GRAIN, b, NULL), 2 * GRAIN - 200);
    assert_int_equal(b[1], 2 * GRAIN + 200);

    /* Overwrite across one boundary: trims two pieces, adds two. */
    assert_int_equal(lc_dir_record(d, GBASE + 2 * GRAIN - 50, 100, 2), 0);
    assert_int_equal(lc_dir_entries(d), 6);
    memset(b, 0, sizeof b);
    assert_int_equal(lc_dir_query(d, GBASE + 2 * GRAIN - 60, 120, b, NULL), 0);
    assert_int_equal(b[1], 20);
    assert_int_equal(b[2], 100);
    /* Gaps across boundaries. */
    assert_int_equal(lc_dir_record_gaps(d, GBASE, 4 * GRAIN, 0, NULL, NULL), 0);
    memset(b, 0, sizeof b);
    assert_int_equal(lc_dir_query(d, GBASE, 4 * GRAIN, b, NULL), 0);
    assert_int_equal(b[0], 2 * GRAIN - 200);
    assert_int_equal(b[1], 2 * GRAIN + 100);
    assert_int_equal(b[2], 100);
    uintptr_t next = 0;
    assert_int_equal(lc_dir_foreach(d, snap_ordered, &next), 0);
    assert_int_equal(next, GBASE + 4 * GRAIN);
    assert_totals_recount(d);

    /* Forget across boundaries, then everything at once. */
    assert_int_equal(lc_dir_forget(d, GBASE + GRAIN / 2, 2 * GRAIN), 0);
    memset(b, 0, sizeof b);
    assert_int_equal(lc_dir_query(d, GBASE, 4 * GRAIN, b, NULL), 2 * GRAIN);
    assert_int_equal(lc_dir_check(d), 0);
    assert_int_equal(lc_dir_forget(d, 0, UINTPTR_MAX), 0);
    assert_int_equal(lc_dir_entries(d), 0);
    assert_int_equal(lc_dir_query(d, 0, UINTPTR_MAX, NULL, NULL), UINTPTR_MAX);
    assert_totals_recount(d);
    lc_dir_destroy(d);
}

/* ---------------------------------------------------------------- threads */

#define TILE 256
#define TILES_PER_WRITER 64

struct conc {
    struct lc_directory *d;
    int iters;
    int id;
};

static void *writer(void *arg)
{
    struct conc *c = arg;
    uintptr_t base = BASE + (uintptr_t)c->id * TILE * TILES_PER_WRITER;
    for (int it = 0; it < c->iters; it++) {
        int t = it % TILES_PER_WRITER;
        uintptr_t a = base + (uintptr_t)t * TILE;
        int node = (it / TILES_PER_WRITER + t) % NNODES;
        if (lc_dir_record(c->d, a, TILE, node) != 0)
            return (void *)1;
        if (it % 7 == 0 && lc_dir_record(c->d, a + TILE / 4, TILE / 2, LC_DIR_SPREAD) != 0)
            return (void *)1;
        if (it % 11 == 0 && lc_dir_forget(c->d, a + TILE / 2, TILE / 4) != 0)
            return (void *)1;
    }
    /* Final state: every tile on node id. */
    for (int t = 0; t < TILES_PER_WRITER; t++)
        if (lc_dir_record(c->d, base + (uintptr_t)t * TILE, TILE, c->id) != 0)
            return (void *)1;
    return NULL;
}

static void *reader(void *arg)
{
    struct conc *c = arg;
    const size_t span = 2 * TILE * TILES_PER_WRITER;
    for (int it = 0; it < c->iters; it++) {
        uint64_t b[NNODES] = { 0 }, s = 0;
        uintptr_t a;
        size_t n;
        if (it % 2) {   /* a tile */
            a = BASE + (uintptr_t)(it % (2 * TILES_PER_WRITER)) * TILE;
            n = TILE;
        } else {        /* a stretch across both writers' halves */
            a = BASE + (uintptr_t)(it * 37 % (span / 2));
            n = span / 2;
        }
        size_t u = lc_dir_query(c->d, a, n, b, &s);
        if (u + s + b[0] + b[1] + b[2] != n)
            return (void *)1;
        uint64_t t[NNODES], ts;
        lc_dir_totals(c->d, t, &ts);
        if (t[0] + t[1] + t[2] + ts > span)
            return (void *)1;
    }
    return NULL;
}

static void test_concurrent(void **state)
{
    (void)state;
    struct lc_directory *d = lc_dir_create(NNODES);
    const int iters = sanitizer() ? 3000 : 50000;
    struct conc c[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        c[i] = (struct conc){ .d = d, .iters = iters, .id = i % 2 };
        assert_int_equal(pthread_create(&th[i], NULL, i < 2 ? writer : reader, &c[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        void *ret;
        assert_int_equal(pthread_join(th[i], &ret), 0);
        assert_null(ret);
    }
    const uint64_t half = (uint64_t)TILE * TILES_PER_WRITER;
    expect_query(d, 0, 2 * half, half, half, 0, 0, 0);
    assert_totals_recount(d);
    lc_dir_destroy(d);
}

/*
 * Tiles in four 2 MiB granules (so four shards, four tiles each), always fully
 * known, changed in ways that take the tree apart and put it back: whole
 * tile on one node, first half elsewhere, middle half spread.  A reader
 * must always see a state between two changes: the whole tile known, each
 * node's share a multiple of a quarter tile.
 */
#define CT_TILES 16
#define CT_SIZE 4096

struct ct {
    struct lc_directory *d;
    int iters;
    int id;
};

static uintptr_t ct_tile(int t)
{
    return GBASE + (uintptr_t)(t % 4) * GRAIN + (uintptr_t)(t / 4) * 2 * CT_SIZE + 512;
}

static void *ct_writer(void *arg)
{
    struct ct *c = arg;
    for (int it = 0; it < c->iters; it++) {
        int t = 2 * (it % (CT_TILES / 2)) + c->id;   /* the writers' tiles are disjoint */
        uintptr_t a = ct_tile(t);
        int rc;
        switch (it / (CT_TILES / 2) % 3) {
        case 0: rc = lc_dir_record(c->d, a, CT_SIZE, it % NNODES); break;
        case 1: rc = lc_dir_record(c->d, a, CT_SIZE / 2, (it + 1) % NNODES); break;
        default: rc = lc_dir_record(c->d, a + CT_SIZE / 4, CT_SIZE / 2, LC_DIR_SPREAD); break;
        }
        if (rc != 0)
            return (void *)1;
    }
    return NULL;
}

static void *ct_reader(void *arg)
{
    struct ct *c = arg;
    for (int it = 0; it < c->iters; it++) {
        int t = it % CT_TILES;
        uint64_t b[NNODES] = { 0 }, s = 0;
        /* one tile (all known), or a granule's worth from a tile on: whole
         * tiles known (across a granule boundary, two shards) */
        size_t n = it % 4 ? CT_SIZE : GRAIN + CT_SIZE;
        size_t u = lc_dir_query(c->d, ct_tile(t % 3 + 4 * (t / 4)), n, b, &s);
        if ((it % 4 ? u != 0 : (n - u) % CT_SIZE != 0) || u + s + b[0] + b[1] + b[2] != n)
            return (void *)1;
        if (s % (CT_SIZE / 4) || b[0] % (CT_SIZE / 4) || b[1] % (CT_SIZE / 4)
            || b[2] % (CT_SIZE / 4))
            return (void *)1;
    }
    return NULL;
}

static void test_concurrent_tiles(void **state)
{
    (void)state;
    struct lc_directory *d = lc_dir_create(NNODES);
    for (int t = 0; t < CT_TILES; t++)
        assert_int_equal(lc_dir_record(d, ct_tile(t), CT_SIZE, 0), 0);
    const int iters = sanitizer() ? 5000 : 100000;
    struct ct c[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        c[i] = (struct ct){ .d = d, .iters = iters, .id = i % 2 };
        assert_int_equal(pthread_create(&th[i], NULL, i < 2 ? ct_writer : ct_reader, &c[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        void *ret;
        assert_int_equal(pthread_join(th[i], &ret), 0);
        assert_null(ret);
    }
    assert_totals_recount(d);
    uint64_t b[NNODES] = { 0 }, s = 0;
    for (int t = 0; t < CT_TILES; t++)
        assert_int_equal(lc_dir_query(d, ct_tile(t), CT_SIZE, b, &s), 0);
    assert_int_equal(b[0] + b[1] + b[2] + s, CT_TILES * CT_SIZE);
    lc_dir_destroy(d);
}

/* ---------------------------------------------------------------- pages */

static void skip_if_no_move_pages(long rc)
{
    if (rc == -ENOSYS || rc == -EPERM) {
        print_message("skipping: move_pages: %s\n", strerror((int)-rc));
        skip();
    }
}

/* The first node this process may place memory on, and its memory policy
 * bound to it for [p, p + size): the test then knows where pages land on a
 * host of any number of nodes. */
static int bind_to_first_node(void *p, size_t size)
{
    int node = 0;
    if (numa_available() >= 0) {
        struct bitmask *mems = numa_get_mems_allowed();
        while (node <= numa_max_node() && !numa_bitmask_isbitset(mems, (unsigned)node))
            node++;
        numa_bitmask_free(mems);
    }
    assert_true(node < 64);
    unsigned long mask = 1ul << node;
    assert_int_equal(mbind(p, size, MPOL_BIND, &mask, (unsigned long)node + 2, 0), 0);
    return node;
}

#define NOS 64

/* lc_pages_sample summed per OS node, as the runtime used to ask for it:
 * the bytes the present samples stand for on each node (os[NOS], added
 * to), and the number of samples not present; the samples checked to
 * cover the range in order, each asking about a page of its own slice. */
static long sampled_bytes(uintptr_t a, size_t size, unsigned max, uint64_t *os, int nos)
{
    static struct lc_page_run s[1024];
    assert_true(max <= 1024);
    long n = lc_pages_sample(a, size, max, s);
    if (n <= 0)
        return n;
    long ps = sysconf(_SC_PAGESIZE), absent = 0;
    uintptr_t at = a;
    for (long i = 0; i < n; i++) {
        assert_true(s[i].lo == at && s[i].hi > s[i].lo);
        assert_true(s[i].page % (uintptr_t)ps == 0);
        assert_true(s[i].page < s[i].hi && s[i].page + (uintptr_t)ps > s[i].lo);
        at = s[i].hi;
        if (s[i].node < 0)
            absent++;
        else if (s[i].node < nos && os)
            os[s[i].node] += s[i].hi - s[i].lo;
    }
    assert_true(at == a + size);
    return absent;
}

static void test_pages_where(void **state)
{
    (void)state;
    long ps = sysconf(_SC_PAGESIZE);
    const size_t npages = 64, size = npages * (size_t)ps;
    char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    /* Keep the kernel from backing the untouched region with a huge page
     * when a neighbour is touched. */
    madvise(p, size, MADV_NOHUGEPAGE);

    uint64_t os[NOS] = { 0 };
    long rc = sampled_bytes((uintptr_t)p, size, 16, os, NOS);
    if (rc < 0)
        munmap(p, size);
    skip_if_no_move_pages(rc);
    assert_int_equal(rc, 16);   /* untouched: every sampled page absent */
    /* 4 pages per slice: the pages asked about are not all at the same
     * place in their slices (that would alias with interleaving) */
    struct lc_page_run smp[16];
    assert_int_equal(lc_pages_sample((uintptr_t)p, size, 16, smp), 16);
    int same = 1;
    for (int i = 1; i < 16; i++)
        same &= smp[i].page - smp[i].lo == smp[0].page - smp[0].lo;
    assert_false(same);
    for (int i = 0; i < NOS; i++)
        assert_int_equal(os[i], 0);

    int node = bind_to_first_node(p, size);
    memset(p, 1, size);
    rc = sampled_bytes((uintptr_t)p, size, 16, os, NOS);
    assert_int_equal(rc, 0);
    for (int i = 0; i < NOS; i++)   /* every page on the node it was bound to */
        assert_int_equal(os[i], i == node ? size : 0);

    /* More samples than pages, an unaligned sub-range, nos = 0. */
    memset(os, 0, sizeof os);
    assert_int_equal(sampled_bytes((uintptr_t)p + 100, 3 * (size_t)ps, 1000, os, NOS), 0);
    assert_int_equal(os[node], 3 * (size_t)ps);
    assert_int_equal(sampled_bytes((uintptr_t)p, size, 7, NULL, 0), 0);
    assert_int_equal(sampled_bytes((uintptr_t)p, 0, 7, os, NOS), 0);
    struct lc_page_run one[1];
    assert_int_equal(lc_pages_sample(UINTPTR_MAX - 10, 100, 1, one), -EINVAL);

    /* Half touched: with one sample per page, exactly half absent. */
    assert_int_equal(munmap(p, size), 0);
    p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    madvise(p, size, MADV_NOHUGEPAGE);
    assert_int_equal(bind_to_first_node(p, size), node);
    for (size_t i = 0; i < npages; i += 2)
        p[i * (size_t)ps] = 1;
    memset(os, 0, sizeof os);
    assert_int_equal(sampled_bytes((uintptr_t)p, size, (unsigned)npages, os, NOS), npages / 2);
    assert_int_equal(os[node], size / 2);
    assert_int_equal(munmap(p, size), 0);

    /* Allocator memory, written after its policy is set, is present. */
    size_t msize = 1 << 20;
    char *m = aligned_alloc((size_t)ps, msize);
    assert_non_null(m);
    assert_int_equal(bind_to_first_node(m, msize), node);
    memset(m, 2, msize);
    memset(os, 0, sizeof os);
    assert_int_equal(sampled_bytes((uintptr_t)m, msize, 32, os, NOS), 0);
    assert_int_equal(os[node], msize);
    free(m);
}

int main(void)
{
    alarm(60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_destroy),
        cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_exact),
        cmocka_unit_test(test_overlap),
        cmocka_unit_test(test_unknown),
        cmocka_unit_test(test_spread),
        cmocka_unit_test(test_forget),
        cmocka_unit_test(test_many),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_enomem),
        cmocka_unit_test(test_gaps),
        cmocka_unit_test(test_granules),
        cmocka_unit_test(test_concurrent),
        cmocka_unit_test(test_concurrent_tiles),
        cmocka_unit_test(test_pages_where),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
