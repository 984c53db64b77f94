/*
 * test_stress.c - randomized stress test of the public API: a seeded PRNG
 * builds a random nested task graph over 64 shared 32-bit integers; every
 * task has 1-4 dependencies with random (often partially overlapping, often
 * repeated) ranges and random modes, and a body whose effect on its ranges
 * matches its modes:
 *   IN          folds the values into the task's own checksum slot,
 *   OUT, INOUT  x = x * 3 + id (mod 2^32),
 *   CONCURRENT  atomic x += id (commutes, so any order among them is equal).
 * Some tasks spawn children whose ranges lie inside one of the parent's and
 * whose modes that dependency allows (IN -> IN, CONCURRENT -> CONCURRENT,
 * OUT/INOUT -> any); half of those parents taskwait and then apply their
 * ranges once more.  The same graph run as plain calls in spawn order
 * (depth first) must give the same array and the same checksums.
 * Runs several seeds with LOCUS_THREADS = 1, 2 and 8 (oversubscribed here),
 * then under NAFT with every other LOCUS_* at its default (stealing on) on
 * virtual topologies: 4s with 8 workers (two per node), 4s with 3 workers
 * and bullion-s16 with 2 (fewer workers than nodes), so that tasks are
 * bound to nodes, pushed across nodes into inboxes and stolen by the
 * nearest nodes with workers.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "locus.h"

#define NELEM 64
#define MAX_DEPS 4
#define MAX_DEPTH 3

struct sdep {
    uint8_t off, len;
    locus_access_t acc;
};

struct snode {
    int nd;
    struct sdep d[MAX_DEPS];
    int first_child, nchildren;   /* children are nodes[first_child ..] */
    int wait;                     /* taskwait, then apply the ranges again */
};

static struct snode *g_node;
static int g_nnodes, g_cap;
static int g_ntop;               /* top-level tasks are nodes 0..g_ntop-1 */
static uint32_t g_a[NELEM], g_ref[NELEM];
static uint64_t *g_sum, *g_ref_sum;
static _Atomic int *g_ran;
static _Atomic int g_bad;

static uint64_t g_rng;

static uint64_t rnd(void)
{
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 2685821657736338717ull;
}

static int sanitizer(void)
{
    const char *s = getenv("LOCUS_TEST_SANITIZER");
    return s && *s;
}

/* ---- graph generation ---- */

static struct sdep g_favourite[8];   /* ranges reused often: exact repeats */

/* Mostly short ranges, 1 in 8 up to the end of the array. */
static struct sdep random_range(uint64_t r)
{
    struct sdep d;
    unsigned off = (unsigned)((r >> 8) % NELEM);
    unsigned room = NELEM - off;
    unsigned maxlen = (r >> 20) % 8 == 0 ? room : (room < 12 ? room : 12);
    d.off = (uint8_t)off;
    d.len = (uint8_t)(1 + (r >> 32) % maxlen);
    d.acc = LOCUS_ACCESS_IN;
    return d;
}

static struct sdep random_dep(void)
{
    static const locus_access_t modes[4] = { LOCUS_ACCESS_IN, LOCUS_ACCESS_OUT,
                                             LOCUS_ACCESS_INOUT, LOCUS_ACCESS_CONCURRENT };
    uint64_t r = rnd();
    struct sdep d = r % 3 == 0 ? g_favourite[(r >> 4) % 8] : random_range(r);
    d.acc = modes[(r >> 40) % 4];
    return d;
}

/* A dependency inside parent dependency p, in a mode p allows. */
static struct sdep child_dep(const struct sdep *p)
{
    struct sdep d;
    uint64_t r = rnd();
    unsigned off = p->off + (unsigned)(r % p->len);
    unsigned room = p->off + p->len - off;
    d.off = (uint8_t)off;
    d.len = (uint8_t)(1 + (r >> 16) % room);
    if (p->acc == LOCUS_ACCESS_IN || p->acc == LOCUS_ACCESS_CONCURRENT)
        d.acc = p->acc;
    else
        d.acc = (locus_access_t)(1 + (r >> 32) % 4);
    return d;
}

static void gen_children(int idx, int depth)
{
    struct snode *n = &g_node[idx];
    n->first_child = g_nnodes;
    n->nchildren = 0;
    n->wait = 0;
    /* top level: 1 in 8 tasks has children; deeper: 1 in 4 */
    if (depth >= MAX_DEPTH || rnd() % (depth == 0 ? 8 : 4) != 0)
        return;
    int k = 1 + (int)(rnd() % 4);
    if (g_nnodes + k > g_cap)
        return;
    n->nchildren = k;
    n->wait = (int)(rnd() % 2);
    g_nnodes += k;
    for (int c = 0; c < k; c++) {
        struct snode *ch = &g_node[n->first_child + c];
        ch->nd = 1 + (int)(rnd() % MAX_DEPS);
        for (int j = 0; j < ch->nd; j++)
            ch->d[j] = child_dep(&n->d[rnd() % (uint64_t)n->nd]);
    }
    for (int c = 0; c < k; c++)
        gen_children(n->first_child + c, depth + 1);
}

static void gen_graph(uint64_t seed, int ntasks)
{
    g_rng = seed * 0x9e3779b97f4a7c15ull + 1;
    g_cap = ntasks + 64;
    g_nnodes = 0;
    for (int i = 0; i < 8; i++) {
        g_favourite[i] = random_range(rnd());
        if (i < 2) {   /* a few wide ones covering many others */
            g_favourite[i].off = (uint8_t)(i * 8);
            g_favourite[i].len = (uint8_t)(NELEM - i * 16);
        }
    }
    /* top-level tasks first (contiguous), then everyone's children */
    g_ntop = ntasks * 7 / 8;
    for (int i = 0; i < g_ntop; i++) {
        struct snode *n = &g_node[g_nnodes++];
        n->first_child = n->nchildren = n->wait = 0;
        n->nd = 1 + (int)(rnd() % MAX_DEPS);
        for (int j = 0; j < n->nd; j++)
            n->d[j] = random_dep();
    }
    for (int i = 0; i < g_ntop && g_nnodes < ntasks; i++)
        gen_children(i, 0);
}

/* ---- the task body, shared by the parallel run and the replay ---- */

static void apply(const struct snode *n, uint32_t id, uint32_t *a, uint64_t *sum)
{
    for (int k = 0; k < n->nd; k++) {
        uint32_t *p = a + n->d[k].off;
        unsigned len = n->d[k].len;
        switch (n->d[k].acc) {
        case LOCUS_ACCESS_IN:
            for (unsigned i = 0; i < len; i++)
                *sum = *sum * 1000003u + p[i];
            break;
        case LOCUS_ACCESS_OUT:
        case LOCUS_ACCESS_INOUT:
            for (unsigned i = 0; i < len; i++)
                p[i] = p[i] * 3u + id;
            break;
        case LOCUS_ACCESS_CONCURRENT:
            for (unsigned i = 0; i < len; i++)
                __atomic_fetch_add(&p[i], id, __ATOMIC_RELAXED);
            break;
        }
    }
}

static void to_deps(const struct snode *n, locus_dep_t *deps)
{
    for (int k = 0; k < n->nd; k++)
        deps[k] = (locus_dep_t){ &g_a[n->d[k].off], n->d[k].len * sizeof(uint32_t),
                                 n->d[k].acc };
}

static void body(void *arg)
{
    int idx = *(const int *)arg;
    const struct snode *n = &g_node[idx];
    atomic_fetch_add(&g_ran[idx], 1);
    apply(n, (uint32_t)idx, g_a, &g_sum[idx]);
    for (int c = 0; c < n->nchildren; c++) {
        int ci = n->first_child + c;
        locus_dep_t deps[MAX_DEPS];
        to_deps(&g_node[ci], deps);
        if (locus_spawn(body, &ci, sizeof ci, deps, (size_t)g_node[ci].nd) != 0)
            atomic_fetch_add(&g_bad, 1);
    }
    if (n->wait) {
        if (locus_taskwait() != 0)
            atomic_fetch_add(&g_bad, 1);
        apply(n, (uint32_t)idx ^ 0x5a5a0000u, g_a, &g_sum[idx]);
    }
}

static void run_seq(int idx)
{
    const struct snode *n = &g_node[idx];
    apply(n, (uint32_t)idx, g_ref, &g_ref_sum[idx]);
    for (int c = 0; c < n->nchildren; c++)
        run_seq(n->first_child + c);
    if (n->wait)
        apply(n, (uint32_t)idx ^ 0x5a5a0000u, g_ref, &g_ref_sum[idx]);
}

/* One configuration: worker count, and a virtual topology (NULL: the machine's). */
struct config {
    int threads;
    const char *topology;
};

/* Read after a taskwait, when the figures are exact: the per-node figures
 * account for every task, nodes without workers ran none, and the workers
 * sit on as many nodes as the layout gives them.  Where NAFT ran each task
 * is its choice (the array is 256 bytes, on one or a few nodes): the
 * placement rules are checked by test_naft, correctness here. */
static void check_node_figures(const struct config *c, int ntasks)
{
    int nn = locus_num_nodes(), with_workers = 0;
    uint64_t total = 0;
    assert_true(nn > 1);
    for (int n = 0; n < nn; n++) {
        locus_node_stats_t st;
        assert_int_equal(locus_get_node_stats(n, &st, sizeof st), 0);
        total += st.tasks_run;
        if (st.workers == 0)
            assert_int_equal(st.tasks_run, 0);
        else
            with_workers++;
    }
    assert_int_equal(with_workers, c->threads < nn ? c->threads : nn);
    assert_int_equal(total, (uint64_t)ntasks);
}

static void run_one(uint64_t seed, const struct config *c, int ntasks)
{
    int threads = c->threads;
    gen_graph(seed, ntasks);
    for (int i = 0; i < NELEM; i++)
        g_a[i] = g_ref[i] = (uint32_t)(i * 2654435761u);
    memset(g_sum, 0, sizeof(uint64_t) * (size_t)g_nnodes);
    memset(g_ref_sum, 0, sizeof(uint64_t) * (size_t)g_nnodes);
    for (int i = 0; i < g_nnodes; i++)
        atomic_store(&g_ran[i], 0);
    atomic_store(&g_bad, 0);

    char t[16];
    snprintf(t, sizeof t, "%d", threads);
    setenv("LOCUS_THREADS", t, 1);
    if (c->topology) {
        setenv("LOCUS_TOPOLOGY", c->topology, 1);
        setenv("LOCUS_REGIME", "naft", 1);
    }
    int rc = locus_init();
    if (c->topology) {
        unsetenv("LOCUS_TOPOLOGY");
        unsetenv("LOCUS_REGIME");
    }
    if (rc != 0)
        print_error("locus_init: %s (%s)\n", locus_strerror(rc), locus_error_message());
    assert_int_equal(rc, 0);
    for (int i = 0; i < g_ntop; i++) {
        locus_dep_t deps[MAX_DEPS];
        to_deps(&g_node[i], deps);
        assert_int_equal(locus_spawn(body, &i, sizeof i, deps, (size_t)g_node[i].nd), 0);
    }
    /* odd seeds leave the waiting to locus_finalize(), except where the
     * per-node figures are read */
    if (seed % 2 == 0 || c->topology)
        assert_int_equal(locus_taskwait(), 0);
    if (c->topology)
        check_node_figures(c, g_nnodes);
    assert_int_equal(locus_finalize(), 0);

    for (int i = 0; i < g_ntop; i++)
        run_seq(i);
    print_message("seed %llu, %d threads: %d tasks, %d of them nested\n",
                  (unsigned long long)seed, threads, g_nnodes, g_nnodes - g_ntop);
    assert_int_equal(atomic_load(&g_bad), 0);
    for (int i = 0; i < g_nnodes; i++)
        if (atomic_load(&g_ran[i]) != 1) {
            print_error("seed %llu, %d threads: task %d ran %d times\n",
                        (unsigned long long)seed, threads, i, atomic_load(&g_ran[i]));
            fail();
        }
    for (int i = 0; i < NELEM; i++)
        if (g_a[i] != g_ref[i]) {
            print_error("seed %llu, %d threads: a[%d] = %u, sequential %u\n",
                        (unsigned long long)seed, threads, i, g_a[i], g_ref[i]);
            fail();
        }
    for (int i = 0; i < g_nnodes; i++)
        if (g_sum[i] != g_ref_sum[i]) {
            print_error("seed %llu, %d threads: task %d read checksum differs\n",
                        (unsigned long long)seed, threads, i);
            fail();
        }
}

static void test_stress(void **state)
{
    const struct config *c = *state;
    int ntasks = sanitizer() ? 2000 : 20000;
    uint64_t base = (uint64_t)c->threads * 100 + (c->topology ? 1000 : 0);
    for (uint64_t seed = 1; seed <= 4; seed++)
        run_one(seed + base, c, ntasks);
}

static char *g_saved_threads;

static int group_setup(void **state)
{
    (void)state;
    size_t cap = 20000 + 64;
    const char *t = getenv("LOCUS_THREADS");
    g_saved_threads = t ? strdup(t) : NULL;
    g_node = calloc(cap, sizeof *g_node);
    g_sum = calloc(cap, sizeof *g_sum);
    g_ref_sum = calloc(cap, sizeof *g_ref_sum);
    g_ran = calloc(cap, sizeof *g_ran);
    return g_node && g_sum && g_ref_sum && g_ran ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    if (g_saved_threads)
        setenv("LOCUS_THREADS", g_saved_threads, 1);
    else
        unsetenv("LOCUS_THREADS");
    free(g_saved_threads);
    free(g_node);
    free(g_sum);
    free(g_ref_sum);
    free((void *)g_ran);
    return 0;
}

/* After a failed assertion the runtime may still be up: stop it. */
static int teardown_stop(void **state)
{
    (void)state;
    int rc = locus_finalize();
    return rc == 0 || rc == -EPERM ? 0 : -1;
}

static void on_alarm(int sig)
{
    static const char msg[] = "test_stress: watchdog expired (deadlock?)\n";
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0) { /* nothing more to do */ }
    _exit(124);
}

int main(void)
{
    static const struct config one = { 1, NULL }, two = { 2, NULL }, eight = { 8, NULL },
                               s4_8 = { 8, "4s" }, s4_3 = { 3, "4s" },
                               s16_2 = { 2, "bullion-s16" };
    const struct CMUnitTest tests[] = {
        { "stress_1_thread", test_stress, NULL, teardown_stop, (void *)&one },
        { "stress_2_threads", test_stress, NULL, teardown_stop, (void *)&two },
        { "stress_8_threads", test_stress, NULL, teardown_stop, (void *)&eight },
        { "stress_naft_4s_8_threads", test_stress, NULL, teardown_stop, (void *)&s4_8 },
        { "stress_naft_4s_3_threads", test_stress, NULL, teardown_stop, (void *)&s4_3 },
        { "stress_naft_bullion_s16_2_threads", test_stress, NULL, teardown_stop, (void *)&s16_2 },
    };
    signal(SIGALRM, on_alarm);
    alarm(sanitizer() ? 600 : 120);
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
