/*
 * test_all_regimes.c - one blocked workload run under every regime (dft, di,
 * naft) and every virtual topology (none, 2s, 4s, bullion-s16), after StarPU's
 * execute_all_tasks.c.  Each task writes its id into a shared log and, when it
 * starts, reads the completion tickets of the tasks it depends on (its
 * conflicting earlier siblings and their children).  Checked afterwards:
 * every task ran exactly once, every predecessor had completed when its
 * successor started, every conflicting pair of siblings ran in spawn order
 * (children included in their parent's completion), each task saw a valid
 * worker id and node, and the data equal a sequential run.
 * A regime or topology the library rejects with -EINVAL is skipped, with the
 * reason printed.
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

#define NB 24              /* blocks */
#define BS 16              /* elements per block */
#define NACC 4             /* reduction accumulators after the blocks */
#define NELEM (NB * BS + NACC)
#define MAX_DEPS 4
#define MAX_PREDS 16
#define MAX_TASKS 4096

struct dspec {
    int off, len;
    locus_access_t acc;
};

struct rtask {
    int parent;                  /* -1: top level */
    int nd;
    struct dspec d[MAX_DEPS];
    int first_child, nchildren;  /* children are ids first_child .. + n - 1 */
    int npreds;
    int pred[MAX_PREDS];         /* conflicting earlier siblings and their children */
};

static struct rtask g_t[MAX_TASKS];
static int g_n;
static uint32_t g_a[NELEM], g_ref[NELEM];
static uint64_t g_sum[MAX_TASKS], g_ref_sum[MAX_TASKS];
static _Atomic long g_ticket;
static _Atomic long g_start[MAX_TASKS], g_end[MAX_TASKS];
static long g_obs[MAX_TASKS][MAX_PREDS];
static _Atomic int g_log[MAX_TASKS + 64];
static _Atomic int g_logn;
static _Atomic int g_bad_worker;
static int g_nworkers, g_nnodes;

/* ---- the workload ---- */

static struct dspec blk(int b, int from, int len, locus_access_t acc)
{
    return (struct dspec){ b * BS + from, len, acc };
}

static int add(int parent, int nd, const struct dspec *d)
{
    int id = g_n++;
    struct rtask *t = &g_t[id];
    t->parent = parent;
    t->nd = nd;
    memcpy(t->d, d, sizeof(struct dspec) * (size_t)nd);
    t->first_child = 0;
    t->nchildren = 0;
    t->npreds = 0;
    return id;
}

static int conflict(int i, int j)
{
    for (int a = 0; a < g_t[i].nd; a++)
        for (int b = 0; b < g_t[j].nd; b++) {
            const struct dspec *x = &g_t[i].d[a], *y = &g_t[j].d[b];
            if (x->off + x->len <= y->off || y->off + y->len <= x->off)
                continue;
            if (x->acc == y->acc &&
                (x->acc == LOCUS_ACCESS_IN || x->acc == LOCUS_ACCESS_CONCURRENT))
                continue;
            return 1;
        }
    return 0;
}

static void add_pred(int j, int p)
{
    if (g_t[j].npreds < MAX_PREDS)
        g_t[j].pred[g_t[j].npreds++] = p;
}

/* Predecessors of each task: the most recent conflicting earlier siblings,
 * each with its children. */
static void compute_preds(void)
{
    for (int j = 0; j < g_n; j++)
        for (int i = j - 1, found = 0; i >= 0 && found < 4; i--) {
            if (g_t[i].parent != g_t[j].parent || !conflict(i, j))
                continue;
            found++;
            add_pred(j, i);
            for (int c = 0; c < g_t[i].nchildren; c++)
                add_pred(j, g_t[i].first_child + c);
        }
}

static void build_workload(int iters)
{
    g_n = 0;
    for (int it = 0; it < iters; it++) {
        /* stencil sweep: own block in-out, neighbours' edges read */
        for (int b = 0; b < NB; b++) {
            struct dspec d[3];
            int nd = 0;
            d[nd++] = blk(b, 0, BS, LOCUS_ACCESS_INOUT);
            if (b > 0)
                d[nd++] = blk(b - 1, BS - 4, 4, LOCUS_ACCESS_IN);
            if (b < NB - 1)
                d[nd++] = blk(b + 1, 0, 4, LOCUS_ACCESS_IN);
            int p = add(-1, nd, d);
            if (it % 3 == 1 && b % 2 == 0) {
                /* nested: halves updated by children, then a reader */
                struct dspec h0 = blk(b, 0, BS / 2, LOCUS_ACCESS_INOUT);
                struct dspec h1 = blk(b, BS / 2, BS / 2, LOCUS_ACCESS_OUT);
                struct dspec all = blk(b, 2, BS - 4, LOCUS_ACCESS_IN);
                g_t[p].first_child = g_n;
                g_t[p].nchildren = 3;
                add(p, 1, &h0);
                add(p, 1, &h1);
                add(p, 1, &all);
            }
        }
        if (it % 2 == 1) {
            /* reduction into one accumulator, then a consumer */
            int acc = NB * BS + it % NACC, next = NB * BS + (it + 1) % NACC;
            for (int b = 0; b < NB; b++) {
                struct dspec d[2] = { { acc, 1, LOCUS_ACCESS_CONCURRENT },
                                      blk(b, 0, BS, LOCUS_ACCESS_IN) };
                add(-1, 2, d);
            }
            struct dspec d[2] = { { acc, 1, LOCUS_ACCESS_IN }, { next, 1, LOCUS_ACCESS_OUT } };
            add(-1, 2, d);
        }
    }
    compute_preds();
}

/* ---- bodies ---- */

static void apply(int id, uint32_t *a, uint64_t *sum)
{
    const struct rtask *t = &g_t[id];
    for (int k = 0; k < t->nd; k++) {
        uint32_t *p = a + t->d[k].off;
        switch (t->d[k].acc) {
        case LOCUS_ACCESS_IN:
            for (int i = 0; i < t->d[k].len; i++)
                *sum = *sum * 1000003u + p[i];
            break;
        case LOCUS_ACCESS_OUT:
        case LOCUS_ACCESS_INOUT:
            for (int i = 0; i < t->d[k].len; i++)
                p[i] = p[i] * 3u + (uint32_t)id;
            break;
        case LOCUS_ACCESS_CONCURRENT:
            for (int i = 0; i < t->d[k].len; i++)
                __atomic_fetch_add(&p[i], (uint32_t)id, __ATOMIC_RELAXED);
            break;
        }
    }
}

static void to_deps(int id, locus_dep_t *deps)
{
    for (int k = 0; k < g_t[id].nd; k++)
        deps[k] = (locus_dep_t){ &g_a[g_t[id].d[k].off], g_t[id].d[k].len * sizeof(uint32_t),
                                 g_t[id].d[k].acc };
}

static void body(void *arg)
{
    int id = *(const int *)arg;
    const struct rtask *t = &g_t[id];
    atomic_store(&g_start[id], atomic_fetch_add(&g_ticket, 1));
    atomic_store(&g_log[atomic_fetch_add(&g_logn, 1)], id);
    for (int k = 0; k < t->npreds; k++)
        g_obs[id][k] = atomic_load(&g_end[t->pred[k]]);
    int w = locus_worker_id(), node = locus_worker_node();
    if (w < 0 || w >= g_nworkers || node < 0 || node >= g_nnodes)
        atomic_fetch_add(&g_bad_worker, 1);
    apply(id, g_a, &g_sum[id]);
    for (int c = 0; c < t->nchildren; c++) {
        int ci = t->first_child + c;
        locus_dep_t deps[MAX_DEPS];
        to_deps(ci, deps);
        if (locus_spawn(body, &ci, sizeof ci, deps, (size_t)g_t[ci].nd) != 0)
            atomic_fetch_add(&g_bad_worker, 1000);
    }
    atomic_store(&g_end[id], atomic_fetch_add(&g_ticket, 1));
}

/* Latest end ticket in a task's subtree: when it was complete. */
static long completed_at(int id)
{
    long e = atomic_load(&g_end[id]);
    for (int c = 0; c < g_t[id].nchildren; c++) {
        long ce = completed_at(g_t[id].first_child + c);
        if (ce > e)
            e = ce;
    }
    return e;
}

static void run_seq(int id)
{
    apply(id, g_ref, &g_ref_sum[id]);
    for (int c = 0; c < g_t[id].nchildren; c++)
        run_seq(g_t[id].first_child + c);
}

static void check_run(const char *combo)
{
    int logn = atomic_load(&g_logn);
    static int count[MAX_TASKS];
    memset(count, 0, sizeof count);
    if (logn != g_n)
        print_error("%s: %d log entries for %d tasks\n", combo, logn, g_n);
    assert_int_equal(logn, g_n);
    for (int i = 0; i < logn; i++) {
        int id = atomic_load(&g_log[i]);
        assert_true(id >= 0 && id < g_n);
        count[id]++;
    }
    for (int id = 0; id < g_n; id++)
        if (count[id] != 1) {
            print_error("%s: task %d ran %d times\n", combo, id, count[id]);
            fail();
        }
    assert_int_equal(atomic_load(&g_bad_worker), 0);
    for (int j = 0; j < g_n; j++) {
        long sj = atomic_load(&g_start[j]);
        for (int k = 0; k < g_t[j].npreds; k++) {
            int p = g_t[j].pred[k];
            if (g_obs[j][k] < 0 || g_obs[j][k] != atomic_load(&g_end[p])) {
                print_error("%s: task %d started before its predecessor %d completed\n",
                            combo, j, p);
                fail();
            }
        }
        for (int i = 0; i < j; i++)
            if (g_t[i].parent == g_t[j].parent && conflict(i, j) && !(completed_at(i) < sj)) {
                print_error("%s: task %d started before conflicting sibling %d completed\n",
                            combo, j, i);
                fail();
            }
    }
    for (int id = 0; id < g_n; id++)
        if (g_t[id].parent < 0)
            run_seq(id);
    assert_memory_equal(g_a, g_ref, sizeof g_a);
    assert_memory_equal(g_sum, g_ref_sum, sizeof(uint64_t) * (size_t)g_n);
}

/* ---- one test per regime x topology ---- */

struct combo {
    const char *regime;
    const char *topology;   /* NULL: unset (the real machine) */
    char name[64];
};

static char *g_user_threads;

static void test_combo(void **state)
{
    const struct combo *c = *state;
    const char *san = getenv("LOCUS_TEST_SANITIZER");
    setenv("LOCUS_REGIME", c->regime, 1);
    if (c->topology)
        setenv("LOCUS_TOPOLOGY", c->topology, 1);
    else
        unsetenv("LOCUS_TOPOLOGY");
    setenv("LOCUS_THREADS", g_user_threads ? g_user_threads : "4", 1);
    int rc = locus_init();
    if (rc == -EINVAL) {
        print_message("skipping %s: locus_init: %s\n", c->name, locus_error_message());
        skip();
    }
    if (rc != 0)
        print_error("%s: locus_init: %s (%s)\n", c->name, locus_strerror(rc),
                    locus_error_message());
    assert_int_equal(rc, 0);
    g_nworkers = locus_num_workers();
    g_nnodes = locus_num_nodes();
    assert_true(g_nworkers >= 1);
    assert_true(g_nnodes >= 1);
    print_message("%s: %d workers, %d nodes\n", c->name, g_nworkers, g_nnodes);

    build_workload(san && *san ? 6 : 30);
    assert_true(g_n <= MAX_TASKS);
    for (int i = 0; i < NELEM; i++)
        g_a[i] = g_ref[i] = (uint32_t)i * 2654435761u;
    memset(g_sum, 0, sizeof g_sum);
    memset(g_ref_sum, 0, sizeof g_ref_sum);
    atomic_store(&g_ticket, 0);
    atomic_store(&g_logn, 0);
    atomic_store(&g_bad_worker, 0);
    for (int i = 0; i < g_n; i++) {
        atomic_store(&g_start[i], -1);
        atomic_store(&g_end[i], -1);
    }
    for (int id = 0; id < g_n; id++) {
        if (g_t[id].parent >= 0)
            continue;
        locus_dep_t deps[MAX_DEPS];
        to_deps(id, deps);
        assert_int_equal(locus_spawn(body, &id, sizeof id, deps, (size_t)g_t[id].nd), 0);
    }
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(locus_finalize(), 0);
    check_run(c->name);
}

static const char *const g_vars[] = { "LOCUS_REGIME", "LOCUS_TOPOLOGY", "LOCUS_THREADS" };
static char *g_saved[3];

static int group_setup(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++) {
        const char *v = getenv(g_vars[i]);
        g_saved[i] = v ? strdup(v) : NULL;
    }
    g_user_threads = g_saved[2];   /* a caller's LOCUS_THREADS wins */
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++) {
        if (g_saved[i])
            setenv(g_vars[i], g_saved[i], 1);
        else
            unsetenv(g_vars[i]);
        free(g_saved[i]);
    }
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
    static const char msg[] = "test_all_regimes: watchdog expired (deadlock?)\n";
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0) { /* nothing more to do */ }
    _exit(124);
}

int main(void)
{
    static const char *const regimes[] = { "dft", "di", "naft" };
    static const char *const topologies[] = { NULL, "2s", "4s", "bullion-s16" };
    enum { NR = 3, NT = 4 };
    static struct combo combos[NR * NT];
    struct CMUnitTest tests[NR * NT];
    for (int r = 0; r < NR; r++)
        for (int t = 0; t < NT; t++) {
            struct combo *c = &combos[r * NT + t];
            c->regime = regimes[r];
            c->topology = topologies[t];
            snprintf(c->name, sizeof c->name, "regime=%s topology=%s", regimes[r],
                     topologies[t] ? topologies[t] : "unset");
            tests[r * NT + t] = (struct CMUnitTest){ c->name, test_combo, NULL, teardown_stop, c };
        }
    const char *san = getenv("LOCUS_TEST_SANITIZER");
    signal(SIGALRM, on_alarm);
    alarm(san && *san ? 600 : 120);
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
