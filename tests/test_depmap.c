/*
 * test_depmap.c - unit tests of the dependency map (runtime/depmap.c):
 * which earlier siblings a new task is linked behind, for exact, partial
 * and nested ranges and every access mode, checked against a brute-force
 * model of the ordering rules on random task sequences.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "depmap.h"
#include "edge.h"
#include "mem.h"
#include "runtime.h"
#include "task.h"
#include "support.h"

static struct lc_runtime rt;
static struct lc_worker wk;
static struct lc_taskpool_global pool;
static char buf[4096];

static int setup(void **state)
{
    (void)state;
    memset(&rt, 0, sizeof rt);
    memset(&wk, 0, sizeof wk);
    lc_taskpool_global_init(&pool);
    wk.rt = &rt;
    wk.npool = &pool;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    lc_taskpool_global_fini(&pool);
    return 0;
}

static struct lc_task *new_task(void)
{
    struct lc_task *t = aligned_alloc(64, (sizeof *t + 63) / 64 * 64);
    memset(t, 0, sizeof *t);
    atomic_store(&t->npreds, LC_GUARD);
    return t;
}

/* Everything released at the end: tasks may sit in the worker's pool list
 * (where a sanitizer build poisons them: taskpool.h), and so may the
 * descriptors their edge chunks came from (the global pool frees those at
 * teardown). */
static void free_tasks(struct lc_task **v, int n)
{
    for (int i = 0; i < n; i++) {
        LC_UNPOISON(v[i], sizeof *v[i]);
        lc_edge_chunks_free(&wk, v[i]);
    }
    wk.pool.head = NULL;
    wk.pool.count = 0;
    for (int i = 0; i < n; i++)
        free(v[i]);
}

/* A task's references from the map.  The map may have freed the task into
 * the worker's pool, where a sanitizer build poisons it (taskpool.h): the
 * memory is still the test's, to look at. */
static uint32_t refs(struct lc_task *t)
{
    LC_UNPOISON(t, sizeof *t);
    return t->maprefs;
}

/* 1 when b waits directly for a (an edge in a's successor list). */
static int linked(struct lc_task *a, struct lc_task *b)
{
    struct lc_edge *e = atomic_load(&a->succ);
    for (; e && e != LC_SUCC_CLOSED; e = e->next)
        if (e->succ == b)
            return 1;
    return 0;
}

static void mark_complete(struct lc_task *t)
{
    atomic_store(&t->succ, LC_SUCC_CLOSED);
    atomic_fetch_or(&t->state, LC_ST_COMPLETE);
}

#define DEP(acc, off, len) ((locus_dep_t){ buf + (off), (len), LOCUS_ACCESS_##acc })

/* The n dependencies of a variadic helper's argument list, into d (8 at most). */
static void deps_from(locus_dep_t *d, int n, va_list ap)
{
    assert_in_range(n, 0, 8);
    for (int i = 0; i < n; i++)
        d[i] = va_arg(ap, locus_dep_t);
}

static uint32_t reg(struct lc_depmap *m, struct lc_task *t, int n, ...)
{
    locus_dep_t d[8];
    va_list ap;
    va_start(ap, n);
    deps_from(d, n, ap);
    va_end(ap);
    uint32_t nl = 0;
    assert_int_equal(lc_depmap_register(&wk, m, t, d, (size_t)n, &nl), 0);
    return nl;
}



static int ready(struct lc_depmap *m, int n, ...)
{
    locus_dep_t d[8];
    va_list ap;
    va_start(ap, n);
    deps_from(d, n, ap);
    va_end(ap);
    return lc_depmap_ready(m, d, (size_t)n);
}

/* lc_depmap_ready: exactly what registration would link behind, found
 * without changing the map. */
static void test_ready_probe(void **state)
{
    (void)state;
    struct lc_task *t[4];
    for (int i = 0; i < 4; i++)
        t[i] = new_task();
    struct lc_depmap *m = lc_depmap_create();
    assert_non_null(m);

    assert_false(ready(m, 1, DEP(IN, 0, 64)));            /* no segment: not known */
    reg(m, t[0], 1, DEP(OUT, 0, 64));
    assert_false(ready(m, 1, DEP(IN, 0, 64)));            /* RAW on t0, running */
    assert_false(ready(m, 1, DEP(OUT, 0, 64)));           /* WAW */
    assert_false(ready(m, 1, DEP(IN, 0, 32)));            /* part of a segment: not known */
    assert_false(ready(m, 1, DEP(IN, 64, 64)));           /* no segment there */
    mark_complete(t[0]);
    assert_true(ready(m, 1, DEP(IN, 0, 64)));
    assert_true(ready(m, 1, DEP(INOUT, 0, 64)));
    reg(m, t[1], 1, DEP(IN, 0, 64));                      /* a reader, running */
    assert_true(ready(m, 1, DEP(IN, 0, 64)));             /* readers do not conflict */
    assert_false(ready(m, 1, DEP(CONCURRENT, 0, 64)));    /* another kind waits for them */
    assert_false(ready(m, 1, DEP(OUT, 0, 64)));           /* WAR */
    assert_false(ready(m, 2, DEP(IN, 0, 64), DEP(OUT, 0, 64)));   /* every range counts */
    mark_complete(t[1]);
    assert_true(ready(m, 2, DEP(IN, 0, 64), DEP(OUT, 0, 64)));
    reg(m, t[2], 1, DEP(OUT, 0, 64));
    assert_false(ready(m, 1, DEP(IN, 0, 64)));
    lc_depmap_retire(m);                                  /* a taskwait: all complete */
    assert_true(ready(m, 1, DEP(IN, 0, 64)));
    assert_int_equal(lc_depmap_segments(m), 1);           /* and nothing changed */

    lc_depmap_destroy(&wk, m);
    free_tasks(t, 4);
}

static void test_exact_modes(void **state)
{
    (void)state;
    struct lc_task *t[10];
    for (int i = 0; i < 10; i++)
        t[i] = new_task();
    struct lc_depmap *m = lc_depmap_create();
    assert_non_null(m);

    assert_int_equal(reg(m, t[0], 1, DEP(OUT, 0, 64)), 0);
    assert_int_equal(reg(m, t[1], 1, DEP(IN, 0, 64)), 1);       /* RAW */
    assert_true(linked(t[0], t[1]));
    assert_int_equal(reg(m, t[2], 1, DEP(IN, 0, 64)), 1);       /* readers share */
    assert_true(linked(t[0], t[2]));
    assert_false(linked(t[1], t[2]));
    assert_int_equal(reg(m, t[3], 1, DEP(INOUT, 0, 64)), 2);    /* WAR on both readers */
    assert_true(linked(t[1], t[3]) && linked(t[2], t[3]));
    assert_false(linked(t[0], t[3]));                           /* implied through them */
    assert_int_equal(reg(m, t[4], 1, DEP(CONCURRENT, 0, 64)), 1);
    assert_int_equal(reg(m, t[5], 1, DEP(CONCURRENT, 0, 64)), 1);
    assert_true(linked(t[3], t[4]) && linked(t[3], t[5]));
    assert_false(linked(t[4], t[5]));                           /* concurrent commute */
    assert_int_equal(reg(m, t[6], 1, DEP(IN, 0, 64)), 2);       /* reader after the group */
    assert_true(linked(t[4], t[6]) && linked(t[5], t[6]));
    assert_int_equal(reg(m, t[7], 1, DEP(OUT, 0, 64)), 1);      /* WAW-like after reader */
    assert_true(linked(t[6], t[7]));
    assert_int_equal(lc_depmap_segments(m), 1);

    /* a completed predecessor orders nothing */
    mark_complete(t[7]);
    assert_int_equal(reg(m, t[8], 1, DEP(IN, 0, 64)), 0);
    /* one task reading and writing the same bytes is not linked to itself */
    assert_int_equal(reg(m, t[9], 2, DEP(IN, 0, 64), DEP(INOUT, 0, 64)), 1);
    assert_true(linked(t[8], t[9]));
    assert_false(linked(t[9], t[9]));

    lc_depmap_destroy(&wk, m);
    free_tasks(t, 10);
}

static void test_partial_overlaps(void **state)
{
    (void)state;
    struct lc_task *t[6];
    for (int i = 0; i < 6; i++)
        t[i] = new_task();
    struct lc_depmap *m = lc_depmap_create();

    reg(m, t[0], 1, DEP(OUT, 0, 64));
    assert_int_equal(reg(m, t[1], 1, DEP(IN, 32, 64)), 1);      /* [32,96) */
    assert_true(linked(t[0], t[1]));
    assert_int_equal(lc_depmap_segments(m), 3);                 /* [0,32) [32,64) [64,96) */
    assert_int_equal(reg(m, t[2], 1, DEP(OUT, 60, 1)), 1);      /* inside both: waits for the reader */
    assert_true(linked(t[1], t[2]));
    assert_int_equal(reg(m, t[3], 1, DEP(IN, 0, 8)), 1);        /* only t0 wrote there */
    assert_true(linked(t[0], t[3]));
    assert_int_equal(reg(m, t[4], 1, DEP(INOUT, 200, 10)), 0);  /* disjoint: free */
    /* covers everything: waits for the last group of each segment, t0 included
     * where nobody read after it ([8,32)); a task found in two segments may
     * get two edges, which costs a little and orders the same */
    assert_true(reg(m, t[5], 1, DEP(OUT, 0, 256)) >= 5);
    assert_true(linked(t[0], t[5]) && linked(t[1], t[5]) && linked(t[2], t[5])
                && linked(t[3], t[5]) && linked(t[4], t[5]));

    lc_depmap_clear(&wk, m);
    assert_int_equal(lc_depmap_segments(m), 0);
    lc_depmap_destroy(&wk, m);
    free_tasks(t, 6);
}

/* Random sequences: the transitive closure of the edges the map makes must
 * equal the brute-force "every earlier conflicting task" relation. */
#define RN 160
static void test_random_vs_model(void **state)
{
    (void)state;
    static struct lc_task *t[RN];
    static locus_dep_t d[RN][3];
    static int nd[RN];
    static unsigned char reach[RN][RN];
    const char *san = getenv("LOCUS_TEST_SANITIZER");
    int rounds = san && *san ? 10 : 60;
    uint64_t s = 12345;

    for (int round = 0; round < rounds; round++) {
        struct lc_depmap *m = lc_depmap_create();
        for (int i = 0; i < RN; i++) {
            t[i] = new_task();
            nd[i] = 1 + (int)(((s = s * 6364136223846793005ull + 1442695040888963407ull) >> 40) % 3);
            for (int k = 0; k < nd[i]; k++) {
                s = s * 6364136223846793005ull + 1442695040888963407ull;
                int off = (int)((s >> 33) % 48) * 4, len = 4 * (1 + (int)((s >> 20) % 8));
                if ((s >> 10) % 3 == 0) { off = (off / 32) * 32; len = 32; }   /* exact repeats */
                d[i][k] = (locus_dep_t){ buf + off, (size_t)len, (locus_access_t)(1 + (s >> 40) % 4) };
            }
            uint32_t nl;
            assert_int_equal(lc_depmap_register(&wk, m, t[i], d[i], (size_t)nd[i], &nl), 0);
        }
        memset(reach, 0, sizeof reach);
        for (int j = 0; j < RN; j++)
            for (int i = 0; i < j; i++)
                if (linked(t[i], t[j]))
                    reach[i][j] = 1;
        for (int k = 0; k < RN; k++)          /* closure, in spawn order */
            for (int i = 0; i < k; i++)
                if (reach[i][k])
                    for (int j = k + 1; j < RN; j++)
                        if (reach[k][j])
                            reach[i][j] = 1;
        for (int j = 0; j < RN; j++)
            for (int i = 0; i < j; i++) {
                int conflict = 0;
                for (int a = 0; a < nd[i]; a++)
                    for (int b = 0; b < nd[j]; b++) {
                        uintptr_t ai = (uintptr_t)d[i][a].addr, bj = (uintptr_t)d[j][b].addr;
                        int overlap = ai < bj + d[j][b].size && bj < ai + d[i][a].size;
                        int both_read = d[i][a].access == LOCUS_ACCESS_IN && d[j][b].access == LOCUS_ACCESS_IN;
                        int both_conc = d[i][a].access == LOCUS_ACCESS_CONCURRENT
                                        && d[j][b].access == LOCUS_ACCESS_CONCURRENT;
                        if (overlap && !both_read && !both_conc)
                            conflict = 1;
                    }
                if (conflict && !reach[i][j])
                    fail_msg("round %d: task %d does not wait for conflicting task %d", round, j, i);
            }
        lc_depmap_destroy(&wk, m);
        free_tasks(t, RN);
    }
}

static void test_out_of_memory(void **state)
{
    (void)state;
    struct lc_task *t[3] = { new_task(), new_task(), new_task() };
    struct lc_depmap *m = lc_depmap_create();
    uint32_t nl;
    reg(m, t[0], 1, DEP(OUT, 0, 64));
    locus_dep_t d = DEP(IN, 16, 8);             /* needs two splits */
    lc_mem_fail_after(1);
    assert_int_equal(lc_depmap_register(&wk, m, t[1], &d, 1, &nl), -ENOMEM);
    lc_mem_fail_after(0);
    /* the map is still usable and still orders later tasks behind t0 */
    assert_int_equal(reg(m, t[2], 1, DEP(IN, 0, 64)), 1);
    assert_true(linked(t[0], t[2]));
    lc_depmap_destroy(&wk, m);
    free_tasks(t, 3);
}

/* A reader joining its group drops the writer before it once that writer is
 * complete, so later readers do not look at it again. */
static void test_reader_drops_complete_writer(void **state)
{
    (void)state;
    struct lc_task *t[4];
    for (int i = 0; i < 4; i++)
        t[i] = new_task();
    struct lc_depmap *m = lc_depmap_create();
    assert_non_null(m);

    assert_int_equal(reg(m, t[0], 1, DEP(OUT, 0, 64)), 0);
    assert_int_equal(reg(m, t[1], 1, DEP(IN, 0, 64)), 1);
    assert_int_equal(refs(t[0]), 1);
    mark_complete(t[0]);
    assert_int_equal(reg(m, t[2], 1, DEP(IN, 0, 64)), 0);
    assert_int_equal(refs(t[0]), 0);            /* dropped by the joining reader */
    assert_int_equal(reg(m, t[3], 1, DEP(OUT, 0, 64)), 2);  /* still behind both readers */
    assert_true(linked(t[1], t[3]) && linked(t[2], t[3]));

    lc_depmap_destroy(&wk, m);
    free_tasks(t, 4);
}

/* A taskwait retires the map (lc_depmap_retire): its segments stay, so the
 * same ranges are found again without new entries, but nothing registered
 * before orders anything after, and the old tasks' references are dropped
 * when their segment is next used, also when that use splits it. */
static void test_retire_keeps_segments(void **state)
{
    (void)state;
    struct lc_task *t[6];
    for (int i = 0; i < 6; i++)
        t[i] = new_task();
    struct lc_depmap *m = lc_depmap_create();
    assert_non_null(m);

    assert_int_equal(reg(m, t[0], 1, DEP(OUT, 0, 64)), 0);
    assert_int_equal(reg(m, t[1], 1, DEP(IN, 0, 64)), 1);
    mark_complete(t[0]);
    mark_complete(t[1]);
    lc_depmap_retire(m);
    assert_int_equal(lc_depmap_segments(m), 1);
    assert_int_equal(refs(t[0]), 1);            /* kept until the segment is used */

    assert_int_equal(reg(m, t[2], 1, DEP(IN, 0, 64)), 0);
    assert_int_equal(lc_depmap_segments(m), 1);    /* found again, not rebuilt */
    assert_int_equal(refs(t[0]), 0);
    assert_int_equal(refs(t[1]), 0);
    assert_int_equal(reg(m, t[3], 1, DEP(OUT, 0, 64)), 1);  /* behind t2 only */
    assert_true(linked(t[2], t[3]));

    mark_complete(t[2]);
    mark_complete(t[3]);
    lc_depmap_retire(m);
    /* a partial access splits the retired segment: neither half may keep
     * (or copy) the retired writer */
    assert_int_equal(reg(m, t[4], 1, DEP(IN, 32, 32)), 0);
    assert_int_equal(lc_depmap_segments(m), 2);
    assert_int_equal(refs(t[3]), 0);
    assert_int_equal(reg(m, t[5], 1, DEP(OUT, 0, 64)), 1);  /* behind t4 only */
    assert_true(linked(t[4], t[5]));

    lc_depmap_destroy(&wk, m);
    free_tasks(t, 6);
}

/* A pipeline where each task reads the next four objects and writes its
 * own: the writer of object i finds the readers i-4..i-1, the newest of
 * which already runs after the other three, so one edge is enough. */
static void test_writer_skips_implied_readers(void **state)
{
    (void)state;
    enum { N = 24, OBJS = 64 };   /* no wrap-around: no older writer */
    struct lc_task *t[N];
    struct lc_depmap *m = lc_depmap_create();
    assert_non_null(m);
    for (int i = 0; i < N; i++) {
        t[i] = new_task();
        uint32_t nl = reg(m, t[i], 5, DEP(IN, 8 * ((i + 1) % OBJS), 8),
                          DEP(IN, 8 * ((i + 2) % OBJS), 8), DEP(IN, 8 * ((i + 3) % OBJS), 8),
                          DEP(IN, 8 * ((i + 4) % OBJS), 8), DEP(INOUT, 8 * (i % OBJS), 8));
        if (i == 0)
            continue;
        assert_int_equal(nl, 1);
        assert_true(linked(t[i - 1], t[i]));
        for (int k = 2; k <= 4 && k <= i; k++)   /* reached through t[i-1] */
            assert_false(linked(t[i - k], t[i]));
    }
    lc_depmap_destroy(&wk, m);
    free_tasks(t, N);
}

/* kept[] lives in the edge slots no edge uses: an edge that needs its slot
 * takes it back, intact, and the entries it covered are gone. */
static void test_edges_take_back_kept_slots(void **state)
{
    (void)state;
    enum { W = LC_INLINE_EDGES - 1 };
    struct lc_task *a = new_task(), *b = new_task(), *t = new_task(), *w[W];
    struct lc_depmap *m = lc_depmap_create();
    assert_non_null(m);
    reg(m, a, 2, DEP(IN, 0, 8), DEP(IN, 8, 8));
    assert_int_equal(reg(m, b, 2, DEP(IN, 0, 8), DEP(INOUT, 8, 8)), 1);   /* b after a */
    for (int k = 0; k < W; k++) {
        w[k] = new_task();
        reg(m, w[k], 1, DEP(OUT, 64 + 8 * k, 8));
    }
    /* t writes what a and b read: one edge (to b), a noted in kept[] */
    assert_int_equal(reg(m, t, 1, DEP(INOUT, 0, 8)), 1);
    assert_true(linked(b, t) && !linked(a, t));
    assert_int_equal(t->nkept, 2);
    lc_depmap_destroy(&wk, m);

    /* the same again with new tasks, then W more edges in the same
     * registration: the last one needs the slot kept[] was using */
    struct lc_task *a2 = new_task(), *b2 = new_task(), *t2 = new_task(), *w2[W];
    m = lc_depmap_create();
    reg(m, a2, 2, DEP(IN, 0, 8), DEP(IN, 8, 8));
    reg(m, b2, 2, DEP(IN, 0, 8), DEP(INOUT, 8, 8));
    for (int k = 0; k < W; k++) {
        w2[k] = new_task();
        reg(m, w2[k], 1, DEP(OUT, 64 + 8 * k, 8));
    }
    assert_int_equal(reg(m, t2, 8, DEP(INOUT, 0, 8), DEP(OUT, 64, 8), DEP(OUT, 72, 8),
                         DEP(OUT, 80, 8), DEP(OUT, 88, 8), DEP(OUT, 96, 8), DEP(OUT, 104, 8),
                         DEP(OUT, 112, 8)), 1 + W);
    assert_true(linked(b2, t2) && !linked(a2, t2));
    for (int k = 0; k < W; k++)
        assert_true(linked(w2[k], t2));
    assert_int_equal(t2->nkept, 0);
    lc_depmap_destroy(&wk, m);
    struct lc_task *all[6 + 2 * W] = { a, b, t, a2, b2, t2 };
    for (int k = 0; k < W; k++) {
        all[6 + k] = w[k];
        all[6 + W + k] = w2[k];
    }
    free_tasks(all, 6 + 2 * W);
}

static void test_sweep_keeps_size_bounded(void **state)
{
    (void)state;
    enum { N = 20000 };
    static char big[N * 8];
    struct lc_task **t = calloc(N, sizeof *t);
    struct lc_depmap *m = lc_depmap_create();
    for (int i = 0; i < N; i++) {
        t[i] = new_task();
        locus_dep_t d = { big + 8 * i, 8, LOCUS_ACCESS_OUT };
        uint32_t nl;
        assert_int_equal(lc_depmap_register(&wk, m, t[i], &d, 1, &nl), 0);
        mark_complete(t[i]);   /* as if each ran at once */
    }
    /* completed tasks' segments are swept: far fewer than N remain */
    assert_true(lc_depmap_segments(m) < N / 2);
    lc_depmap_destroy(&wk, m);
    free_tasks(t, N);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_modes),
        cmocka_unit_test(test_ready_probe),
        cmocka_unit_test(test_partial_overlaps),
        cmocka_unit_test(test_random_vs_model),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_reader_drops_complete_writer),
        cmocka_unit_test(test_retire_keeps_segments),
        cmocka_unit_test(test_sweep_keeps_size_bounded),
        cmocka_unit_test(test_writer_skips_implied_readers),
        cmocka_unit_test(test_edges_take_back_kept_slots),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
