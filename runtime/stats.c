/*
 * stats.c - the locality figures of the public API (locus_get_stats() and
 * friends), summed over the workers' own counters, and the LOCUS_REPORT
 * written at finalize.  Resetting keeps a snapshot instead of writing the
 * workers' counters, which only their owners write.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "counters/counters.h"
#include "directory.h"
#include "policy.h"
#include "report.h"
#include "runtime.h"
#include "sim.h"

uint64_t lc_now_ns(void)
{
    if (__builtin_expect(lc_sim != NULL, 0))   /* simulated time (sim.h) */
        return lc_sim->now_ns();
    if (__builtin_expect(lc_sim_frozen(), 0))   /* LOCUS_SIM, before or after the run */
        return lc_sim_last_ns;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

LOCUS_API double locus_wtime(void)
{
    return (double)lc_now_ns() * 1e-9;
}

static uint64_t rd(const _Atomic uint64_t *c)
{
    return atomic_load_explicit(c, memory_order_relaxed);
}

/* Figures of worker w since the last reset. */
static void worker_figures(const struct lc_worker *w, locus_node_stats_t *o)
{
    const struct lc_worker_stats *s = &w->stats, *b = &w->stats_base;
    o->tasks_run += rd(&s->tasks_run) - rd(&b->tasks_run);
    o->first_touch_tasks += rd(&s->first_touch) - rd(&b->first_touch);
    o->bytes_local += rd(&s->bytes[LC_DIST_LOCAL]) - rd(&b->bytes[LC_DIST_LOCAL]);
    o->bytes_near += rd(&s->bytes[LC_DIST_NEAR]) - rd(&b->bytes[LC_DIST_NEAR]);
    o->bytes_far += rd(&s->bytes[LC_DIST_FAR]) - rd(&b->bytes[LC_DIST_FAR]);
    o->steals_local += rd(&s->steals[LC_DIST_LOCAL]) - rd(&b->steals[LC_DIST_LOCAL]);
    o->steals_near += rd(&s->steals[LC_DIST_NEAR]) - rd(&b->steals[LC_DIST_NEAR]);
    o->steals_far += rd(&s->steals[LC_DIST_FAR]) - rd(&b->steals[LC_DIST_FAR]);
    o->bytes_placed += rd(&s->placed) - rd(&b->placed);
    o->tasks_given_up += rd(&s->given_up) - rd(&b->given_up);
    o->bytes_given_up += rd(&s->given_up_bytes) - rd(&b->given_up_bytes);
}

static void node_figures(const struct lc_runtime *rt, int node, locus_node_stats_t *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 0; i < rt->nworkers; i++)
        if (rt->workers[i].node == node) {
            worker_figures(&rt->workers[i], o);
            o->workers++;
        }
    if (rt->dir) {
        uint64_t homed[rt->topo.nnodes], spread = 0;
        memset(homed, 0, sizeof homed);
        lc_dir_totals(rt->dir, homed, &spread);
        o->bytes_homed = homed[node];
        if (o->workers && rt->n_ft_nodes)
            o->bytes_homed += spread / (uint64_t)rt->n_ft_nodes;
    }
}

static void total_figures(const struct lc_runtime *rt, locus_stats_t *o)
{
    locus_node_stats_t n;
    memset(&n, 0, sizeof n);
    for (int i = 0; i < rt->nworkers; i++)
        worker_figures(&rt->workers[i], &n);
    memset(o, 0, sizeof *o);
    o->tasks_run = n.tasks_run;
    o->first_touch_tasks = n.first_touch_tasks;
    o->bytes_local = n.bytes_local;
    o->bytes_near = n.bytes_near;
    o->bytes_far = n.bytes_far;
    o->steals_local = n.steals_local;
    o->steals_near = n.steals_near;
    o->steals_far = n.steals_far;
    o->bytes_placed = n.bytes_placed;
    o->tasks_given_up = n.tasks_given_up;
    o->bytes_given_up = n.bytes_given_up;
    o->nodes = rt->topo.nnodes;
    o->workers = rt->nworkers;
    o->seconds = (double)(lc_now_ns() - rt->t0_ns) * 1e-9;
}

/* Copies min(size, sizeof *full) bytes: a caller built against an older,
 * shorter struct gets the fields it knows. */
static int copy_out(void *dst, size_t size, const void *full, size_t full_size)
{
    if (!dst || size == 0)
        return lc_error(-EINVAL, "locus stats: NULL buffer or size 0");
    memset(dst, 0, size);
    memcpy(dst, full, size < full_size ? size : full_size);
    return 0;
}

LOCUS_API int locus_get_stats(locus_stats_t *st, size_t size)
{
    struct lc_runtime *rt = lc_rt;
    locus_stats_t s;
    if (!rt)
        return lc_error(-EPERM, "locus_get_stats: the runtime is not running");
    total_figures(rt, &s);
    return copy_out(st, size, &s, sizeof s);
}

LOCUS_API int locus_get_node_stats(int node, locus_node_stats_t *st, size_t size)
{
    struct lc_runtime *rt = lc_rt;
    locus_node_stats_t s;
    if (!rt)
        return lc_error(-EPERM, "locus_get_node_stats: the runtime is not running");
    if (node < 0 || node >= rt->topo.nnodes)
        return lc_error(-EINVAL, "locus_get_node_stats: node %d is not in 0..%d", node,
                        rt->topo.nnodes - 1);
    node_figures(rt, node, &s);
    return copy_out(st, size, &s, sizeof s);
}

LOCUS_API int locus_reset_stats(void)
{
    struct lc_runtime *rt = lc_rt;
    if (!rt)
        return lc_error(-EPERM, "locus_reset_stats: the runtime is not running");
    for (int i = 0; i < rt->nworkers; i++) {
        struct lc_worker *w = &rt->workers[i];
        atomic_store_explicit(&w->stats_base.tasks_run, rd(&w->stats.tasks_run), memory_order_relaxed);
        atomic_store_explicit(&w->stats_base.first_touch, rd(&w->stats.first_touch), memory_order_relaxed);
        atomic_store_explicit(&w->stats_base.sleeps, rd(&w->stats.sleeps), memory_order_relaxed);
        atomic_store_explicit(&w->stats_base.placed, rd(&w->stats.placed), memory_order_relaxed);
        atomic_store_explicit(&w->stats_base.given_up, rd(&w->stats.given_up), memory_order_relaxed);
        atomic_store_explicit(&w->stats_base.given_up_bytes, rd(&w->stats.given_up_bytes),
                              memory_order_relaxed);
        for (int c = 0; c < 3; c++) {
            atomic_store_explicit(&w->stats_base.bytes[c], rd(&w->stats.bytes[c]), memory_order_relaxed);
            atomic_store_explicit(&w->stats_base.steals[c], rd(&w->stats.steals[c]), memory_order_relaxed);
        }
    }
    rt->t0_ns = lc_now_ns();
    return 0;
}

LOCUS_API int locus_forget(const void *addr, size_t size)
{
    struct lc_runtime *rt = lc_rt;
    if (!rt)
        return lc_error(-EPERM, "locus_forget: the runtime is not running");
    if (!addr || !size || size > UINTPTR_MAX - (uintptr_t)addr)
        return lc_error(-EINVAL, "locus_forget: invalid range %p + %zu", addr, size);
    if (!rt->dir)
        return 0;
    int r = lc_dir_forget(rt->dir, (uintptr_t)addr, size);
    lc_locality_moved(rt);
    return r < 0 ? lc_error(r, "locus_forget: out of memory splitting a directory entry") : 0;
}

int lc_stats_check_report(const char *dest, char *err, size_t errlen)
{
    if (strcmp(dest, "stderr") == 0)
        return 0;
    FILE *f = fopen(dest, "a");
    if (!f) {
        int e = errno;
        snprintf(err, errlen, "LOCUS_REPORT='%s': cannot open the file for writing: %s "
                 "(expected stderr or a writable path; .json and .csv select those formats)",
                 dest, strerror(e));
        return -e;
    }
    fclose(f);
    return 0;
}

int lc_stats_report(struct lc_runtime *rt, const char *ended, uint64_t unfinished)
{
    int nn = rt->topo.nnodes;
    locus_stats_t total;
    locus_node_stats_t nodes[nn];
    char err[512];
    const char *regime = rt->opt.regime;

    total_figures(rt, &total);
    for (int n = 0; n < nn; n++)
        node_figures(rt, n, &nodes[n]);
    struct lc_report_info info = {
        .regime = regime,
        .sched = rt->sched->name,
        .pages = rt->opt.pages == LC_PAGES_INTERLEAVE ? "interleave" : "firsttouch",
        .steal = rt->opt.steal == LC_STEAL_NEAR ? "near" : rt->opt.steal == LC_STEAL_ALL ? "all" : "none",
        .topology = rt->topo.is_virtual ? rt->opt.topology : "machine",
        .virtual_topology = rt->topo.is_virtual,
        .first_touch_tracked = rt->track,
        .ended = ended,
        .unfinished = unfinished,
    };
    /* the coherence-traffic counters (a report without them if out of memory) */
    locus_counters_t *ctr = malloc((1 + LC_CTR_MAX_SOCKETS) * sizeof *ctr);
    if (ctr != NULL) {
        int ns = lc_counters_rt_fill(&ctr[0], &ctr[1], LC_CTR_MAX_SOCKETS);
        if (ns >= 0) {
            info.counters = &ctr[0];
            info.socket_counters = &ctr[1];
            info.nsockets = ns;
        }
    }
    int r = lc_report_write(rt->opt.report, &info, &total, nodes, nn, err, sizeof err);
    free(ctr);
    if (r < 0) {
        lc_error(r, "%s", err);
        fprintf(stderr, "locus: %s\n", err);
    }
    return r;
}
