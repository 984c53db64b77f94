/*
 * locality.c - where each task's data lives and how far it was from where
 * the task ran (the runtime's own account of coherence movement, paper
 * sections 4 and 6), on machines and virtual topologies of several nodes.
 *
 * At spawn every dependency is looked up in the data-location directory.
 * Bytes it does not know are resolved once: on a real machine the kernel is
 * asked where the pages are (move_pages, nothing moves); pages never
 * touched, when the task writes them, make it a first-touch task, whose
 * regions are booked on the node the scheduler deals it to (interleaved
 * when pages are interleaved).  Read-only data nobody wrote is booked on the
 * initial thread's node, which is where the main program touched it.  When
 * the task runs, a first-touch region moves to the node it really ran on
 * (stolen tasks touch their pages elsewhere), and every other dependency is
 * counted local / near / far from the running worker's node.
 */
#include <errno.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "directory.h"
#include "mem.h"
#include "policy.h"
#include "runtime.h"

#define LC_PAGE_SAMPLES 16

struct lc_dep_loc {
    uintptr_t addr;
    size_t size;
    uint8_t first;          /* this task first touches the range */
};

struct lc_task_loc {
    uint32_t n;
    int32_t booked;         /* where first-touched ranges were booked at spawn */
    struct lc_dep_loc d[];
};

int lc_locality_init(struct lc_runtime *rt, char *err, size_t errlen)
{
    int nn = rt->topo.nnodes;

    rt->node_nworkers = calloc((size_t)nn, sizeof *rt->node_nworkers);
    rt->node_home = calloc((size_t)nn, sizeof *rt->node_home);
    rt->ft_nodes = calloc((size_t)nn, sizeof *rt->ft_nodes);
    rt->spread_classes = calloc((size_t)nn, sizeof *rt->spread_classes);
    if (!rt->node_nworkers || !rt->node_home || !rt->ft_nodes || !rt->spread_classes) {
        snprintf(err, errlen, "locus_init: out of memory for the locality tables");
        return -ENOMEM;
    }
    for (int i = 0; i < rt->nworkers; i++)
        rt->node_nworkers[rt->workers[i].node]++;
    rt->n_ft_nodes = 0;
    for (int n = 0; n < nn; n++)
        if (rt->node_nworkers[n])
            rt->ft_nodes[rt->n_ft_nodes++] = n;
    /* a node without workers sends its tasks to the nearest node with some
     * (ties: the lower number, so the choice is deterministic) */
    for (int n = 0; n < nn; n++) {
        int best = -1;
        for (int k = 0; k < rt->n_ft_nodes; k++) {
            int c = rt->ft_nodes[k];
            if (best < 0 || rt->topo.dist[n * nn + c] < rt->topo.dist[n * nn + best])
                best = c;
        }
        rt->node_home[n] = best;
        for (int k = 0; k < rt->n_ft_nodes; k++)
            rt->spread_classes[n][lc_topology_class(&rt->topo, n, rt->ft_nodes[k])]++;
    }
    rt->initial_node = rt->workers[0].node;
    rt->nos = 1;
    for (int n = 0; n < nn; n++)
        if (rt->topo.nodes[n].os_index + 1 > rt->nos)
            rt->nos = rt->topo.nodes[n].os_index + 1;

    rt->track = nn > 1;
    if (!rt->track)
        return 0;
    if (!(rt->dir = lc_dir_create(nn))) {
        snprintf(err, errlen, "locus_init: out of memory for the data-location directory");
        return -ENOMEM;
    }
    if (rt->opt.pages == LC_PAGES_INTERLEAVE && !rt->topo.is_virtual) {
        /* like numactl --interleave: the workers, created after this, inherit it */
        unsigned long mask[16] = { 0 };
        for (int k = 0; k < rt->n_ft_nodes; k++) {
            int os = rt->topo.nodes[rt->ft_nodes[k]].os_index;
            if (os < (int)(8 * sizeof mask))
                mask[os / (8 * sizeof mask[0])] |= 1ul << (os % (8 * sizeof mask[0]));
        }
        /* the program's own policy comes back at finalize */
        memset(rt->saved_nodes, 0, sizeof rt->saved_nodes);
        if (get_mempolicy(&rt->saved_policy, rt->saved_nodes, 8 * sizeof rt->saved_nodes,
                          NULL, 0) != 0) {
            snprintf(err, errlen, "interleaved pages (LOCUS_REGIME=%s, LOCUS_PAGES): cannot read "
                     "the memory policy to restore it later (get_mempolicy: %s)",
                     rt->opt.regime, strerror(errno));
            return -errno;
        }
        if (set_mempolicy(MPOL_INTERLEAVE, mask, 8 * sizeof mask) != 0) {
            snprintf(err, errlen, "interleaved pages (LOCUS_REGIME=%s, LOCUS_PAGES): cannot "
                     "interleave pages over the nodes (set_mempolicy: %s)",
                     rt->opt.regime, strerror(errno));
            return -errno;
        }
        rt->mempolicy_set = 1;
    }
    return 0;
}

void lc_locality_fini(struct lc_runtime *rt)
{
    if (rt->mempolicy_set
        && set_mempolicy(rt->saved_policy, rt->saved_nodes, 8 * sizeof rt->saved_nodes) != 0)
        set_mempolicy(MPOL_DEFAULT, NULL, 0);   /* the old one cannot come back: no interleave */
    rt->mempolicy_set = 0;
    if (rt->dir)
        lc_dir_destroy(rt->dir);
    rt->dir = NULL;
    free(rt->node_nworkers);
    free(rt->node_home);
    free(rt->ft_nodes);
    free(rt->spread_classes);
    rt->node_nworkers = rt->node_home = rt->ft_nodes = NULL;
    rt->spread_classes = NULL;
}

/* Where the kernel has the pages of a range nobody booked: books it on the
 * node holding most sampled pages and returns that node, or -1 when no
 * sampled page has been touched (or the kernel cannot tell). */
static int kernel_home(struct lc_runtime *rt, uintptr_t a, size_t size)
{
    uint64_t os_bytes[rt->nos];
    memset(os_bytes, 0, sizeof os_bytes);
    long absent = lc_pages_where(a, size, LC_PAGE_SAMPLES, os_bytes, rt->nos);
    if (absent < 0)
        return -1;
    int best = -1;
    for (int os = 0; os < rt->nos; os++)
        if (os_bytes[os] && (best < 0 || os_bytes[os] > os_bytes[best]))
            best = os;
    if (best < 0)
        return -1;
    int node = lc_topology_node_of_os(&rt->topo, best);
    return node >= 0 ? node : rt->initial_node;
}

void lc_locality_spawn(struct lc_worker *w, struct lc_task *t, const locus_dep_t *deps,
                       size_t ndeps)
{
    struct lc_runtime *rt = w->rt;
    int nn = rt->topo.nnodes, interleave = rt->opt.pages == LC_PAGES_INTERLEAVE;
    uint64_t bytes[nn], spread = 0;
    struct lc_placement pl = { 0, bytes, 0 };
    struct lc_task_loc *loc = lc_mem_alloc(sizeof *loc + ndeps * sizeof loc->d[0], 0);

    memset(bytes, 0, sizeof bytes);
    for (size_t i = 0; i < ndeps; i++) {
        uintptr_t a = (uintptr_t)deps[i].addr;
        size_t size = deps[i].size;
        size_t unknown = lc_dir_query(rt->dir, a, size, bytes, &spread);
        uint8_t first = 0;
        if (unknown) {
            int home = rt->topo.is_virtual ? -1 : kernel_home(rt, a, size);
            if (home < 0 && deps[i].access != LOCUS_ACCESS_IN) {
                first = 1;
                pl.first_touch = 1;
            } else {
                if (home < 0)
                    home = rt->initial_node;
                if (interleave && rt->topo.is_virtual)
                    home = LC_DIR_SPREAD;
                lc_dir_record(rt->dir, a, size, home);
                if (home == LC_DIR_SPREAD)
                    spread += unknown;
                else
                    bytes[home] += unknown;
            }
        }
        if (loc)
            loc->d[i] = (struct lc_dep_loc){ a, size, first };
    }
    pl.spread = spread;
    t->node = -1;
    if (rt->sched->place)
        rt->sched->place(w, t, &pl);
    int booked = interleave ? LC_DIR_SPREAD : t->node >= 0 ? t->node : w->node;
    if (pl.first_touch)
        for (size_t i = 0; i < ndeps; i++)
            if (deps[i].access != LOCUS_ACCESS_IN
                && lc_dir_query(rt->dir, (uintptr_t)deps[i].addr, deps[i].size, bytes, &spread))
                lc_dir_record(rt->dir, (uintptr_t)deps[i].addr, deps[i].size, booked);
    if (loc) {
        loc->n = (uint32_t)ndeps;
        loc->booked = booked;
        t->loc = loc;
    }
}

/* Counts bytes that live on node `home` (or spread) for a task run on node. */
static void count_bytes(struct lc_worker *w, int node, const uint64_t *bytes, uint64_t spread,
                        uint64_t unknown)
{
    struct lc_runtime *rt = w->rt;
    int nn = rt->topo.nnodes;
    for (int n = 0; n < nn; n++)
        if (bytes[n])
            lc_stat_add(&w->stats.bytes[lc_topology_class(&rt->topo, node, n)], bytes[n]);
    if (spread) {
        const int *c = rt->spread_classes[node];
        uint64_t local = spread * (uint64_t)c[0] / (uint64_t)rt->n_ft_nodes;
        uint64_t near = spread * (uint64_t)c[1] / (uint64_t)rt->n_ft_nodes;
        lc_stat_add(&w->stats.bytes[LC_DIST_LOCAL], local);
        lc_stat_add(&w->stats.bytes[LC_DIST_NEAR], near);
        lc_stat_add(&w->stats.bytes[LC_DIST_FAR], spread - local - near);
    }
    if (unknown)   /* forgotten meanwhile (locus_forget): touched here, so local */
        lc_stat_add(&w->stats.bytes[LC_DIST_LOCAL], unknown);
}

void lc_locality_run(struct lc_worker *w, struct lc_task *t)
{
    struct lc_runtime *rt = w->rt;
    struct lc_task_loc *loc = t->loc;
    int nn = rt->topo.nnodes, interleave = rt->opt.pages == LC_PAGES_INTERLEAVE;
    uint64_t bytes[nn];
    int first = 0;

    t->loc = NULL;
    for (uint32_t i = 0; i < loc->n; i++) {
        const struct lc_dep_loc *d = &loc->d[i];
        uint64_t spread = 0;
        memset(bytes, 0, sizeof bytes);
        if (d->first) {
            first = 1;
            if (!interleave && loc->booked != w->node)
                lc_dir_record(rt->dir, d->addr, d->size, w->node);
            if (interleave)
                spread = d->size;
            else
                bytes[w->node] = d->size;
            count_bytes(w, w->node, bytes, spread, 0);
        } else {
            size_t unknown = lc_dir_query(rt->dir, d->addr, d->size, bytes, &spread);
            count_bytes(w, w->node, bytes, spread, unknown);
        }
    }
    if (first)
        lc_stat_add(&w->stats.first_touch, 1);
    lc_mem_free(loc, 0);
}
