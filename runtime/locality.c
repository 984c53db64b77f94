/*
 * locality.c - where each task's data lives and how far it was from where
 * the task ran (the runtime's own account of coherence movement, paper
 * sections 4 and 6), on machines and virtual topologies of several nodes.
 *
 * At spawn every dependency is looked up in the data-location directory
 * (alloc/directory.c: a lookup writes no shared memory, so spawners on
 * every node query at once).  Bytes it does not know are resolved once: on
 * a real machine the kernel is asked where the pages are (move_pages on a
 * bounded sample, nothing moves, alloc/pages.c) and the range is booked as
 * the kernel placed it: on one node, as interleaved, or in runs per node;
 * pages never touched, when the task writes them, make it a first-touch
 * task, whose regions are booked on the node the scheduler
 * deals it to (interleaved when pages are interleaved).  Read-only data
 * nobody wrote is booked on the initial thread's node, which is where the
 * main program touched it.  Only the unknown parts of a range are booked
 * (lc_dir_record_gaps): a dependency that is partly known keeps the home of
 * its known part.
 *
 * The per-node byte counts computed for placement are kept with the task
 * (struct lc_task_loc: one (node, bytes) pair per node holding some, the
 * interleaved bytes, the bytes it touches first), so that running it costs
 * no directory lookup: the account is of where the bytes were when the
 * task was placed.  A task is placed at its spawn and, if it waited for
 * predecessors while bookings moved (rt->moves: a first-touch task ran
 * elsewhere, DI's after-body booking, locus_forget, locus_alloc,
 * locus_free), again when it becomes ready (lc_locality_replace, which
 * needs the task's ranges: kept for the tasks a scheduler may place
 * again).  Data moved after that is not seen by it.  Only first-touch ranges
 * change at run: when the task runs on another node than the one they were
 * booked on (a stolen task touches its pages where it runs), its gaps are
 * booked again there, at most LC_LOC_GAPS of them (further gaps, which
 * take a dependency that is known in more than that many pieces, stay
 * where they were booked).  A first-touch task's own bytes are counted
 * local to the node that ran it.  Under interleaved pages on a real machine
 * the node of a first-touched page is the kernel's choice, not the task's:
 * after the body the kernel is asked again (lc_locality_ran).
 */
#include <errno.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "directory.h"
#include "mem.h"
#include "pages.h"
#include "policy.h"
#include "runtime.h"

#define LC_LOC_GAPS 8

struct lc_loc_bytes {
    int32_t node;
    uint64_t bytes;
};

struct lc_loc_gap {
    uintptr_t addr;
    size_t size;
};

/* What lc_locality_run needs, computed at spawn: npairs lc_loc_bytes, then
 * ngaps lc_loc_gap (the ranges this task booked as first-toucher), then
 * ndeps lc_loc_gap (its dependencies' ranges, kept for a task the
 * scheduler may place again when it becomes ready: not a first-touch task
 * bound to its node, not a hinted one). */
struct lc_task_loc {
    uint32_t gen;           /* rt->moves when it was placed: first (lc_locality_ready) */
    uint16_t npairs;
    uint16_t ngaps;
    uint16_t ndeps;         /* its ranges, for placing it again (0: never placed again) */
    uint8_t first;          /* a first-touch task */
    uint8_t given_up;       /* taken from a stalled node (lc_locality_given_up) */
    int32_t booked;         /* where its first-touched ranges were booked at spawn */
    uint64_t spread;        /* bytes interleaved over every node in use */
    uint64_t touched;       /* bytes it touches first: on the node it runs on */
    struct lc_loc_bytes p[];
};

/* Collects the gaps a first-touch task books (lc_dir_record_gaps). */
struct gap_list {
    uint32_t n;
    uint64_t bytes;
    struct lc_loc_gap g[LC_LOC_GAPS];
};

static void keep_gap(uintptr_t addr, size_t size, void *arg)
{
    struct gap_list *l = arg;
    if (l->n < LC_LOC_GAPS)
        l->g[l->n++] = (struct lc_loc_gap){ addr, size };
    l->bytes += size;
}

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

    /* under simulation every task's bytes are known, for its memory traffic */
    rt->track = nn > 1 || rt->opt.sim[0];
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

/* Where the kernel has the pages of [a, a+size): s (LC_PAGES_SAMPLES
 * entries) gets the runs to book (lc_pages_plan, pages.h), in logical
 * nodes; returns their number, 0 when no sampled page is present or the
 * kernel cannot tell.  One move_pages call of at most LC_PAGES_SAMPLES
 * pages whatever the size: the cost per lookup is bounded. */
static unsigned kernel_runs(struct lc_runtime *rt, uintptr_t a, size_t size,
                            struct lc_page_run *s)
{
    long n = lc_pages_sample(a, size, LC_PAGES_SAMPLES, s);
    if (n <= 0)
        return 0;
    for (long i = 0; i < n; i++)
        if (s[i].node >= 0) {
            int node = lc_topology_node_of_os(&rt->topo, s[i].node);
            s[i].node = node >= 0 ? node : rt->initial_node;
        }
    return lc_pages_plan(s, (unsigned)n, rt->ft_nodes, rt->n_ft_nodes,
                         (size_t)sysconf(_SC_PAGESIZE), lc_pages_unit());
}

/* Books runs s[0..r) and adds `count` bytes to bytes[] and *spread in the
 * runs' proportions (all of them when count is the runs' size; less when
 * part of the range was known already and has been counted).  gaps: book
 * only what the directory does not know yet (a range seen at spawn, whose
 * known part keeps its home); else overwrite (a range this task booked
 * provisionally, now that its pages exist). */
static void book_runs(struct lc_runtime *rt, const struct lc_page_run *s, unsigned r,
                      uint64_t count, uint64_t *bytes, uint64_t *spread, int gaps)
{
    uint64_t total = s[r - 1].hi - s[0].lo, left = count;
    for (unsigned k = 0; k < r; k++) {
        uint64_t part = k + 1 == r ? left
                      : (uint64_t)(((unsigned __int128)(s[k].hi - s[k].lo) * count) / total);
        left -= part;
        if (gaps)
            lc_dir_record_gaps(rt->dir, s[k].lo, s[k].hi - s[k].lo, s[k].node, NULL, NULL);
        else
            lc_dir_record(rt->dir, s[k].lo, s[k].hi - s[k].lo, s[k].node);
        if (s[k].node == LC_DIR_SPREAD)
            *spread += part;
        else
            bytes[s[k].node] += part;
    }
}

/* A range the directory did not know all of (`unknown` of its bytes):
 * books the unknown parts where the kernel has its pages (data the main
 * program initialised), per node, as interleaved or in runs, and counts
 * the unknown bytes so; 0 when the kernel has none of them (or cannot
 * tell). */
static int kernel_home(struct lc_runtime *rt, uintptr_t a, size_t size, size_t unknown,
                       uint64_t *bytes, uint64_t *spread)
{
    struct lc_page_run s[LC_PAGES_SAMPLES];
    unsigned r = kernel_runs(rt, a, size, s);
    if (r)
        book_runs(rt, s, r, unknown, bytes, spread, 1);
    return r > 0;
}

void lc_locality_spawn(struct lc_worker *w, struct lc_task *t, const locus_dep_t *deps,
                       size_t ndeps, int hint)
{
    struct lc_runtime *rt = w->rt;
    int nn = rt->topo.nnodes, interleave = rt->opt.pages == LC_PAGES_INTERLEAVE;
    uint64_t bytes[nn], spread = 0;
    struct lc_placement pl = { 0, 0, bytes, 0, hint };
    struct gap_list gaps;
    /* read before the lookups: a move meanwhile makes the task look stale */
    uint32_t gen = atomic_load_explicit(&rt->moves, memory_order_relaxed);

    memset(bytes, 0, sizeof bytes);
    size_t ndata = 0;
    for (size_t i = 0; i < ndeps; i++) {
        if (!lc_dep_is_data(&deps[i]))
            continue;
        ndata++;
        uintptr_t a = (uintptr_t)deps[i].addr;
        size_t size = deps[i].size;
        size_t unknown = lc_dir_query(rt->dir, a, size, bytes, &spread);
        if (!unknown || (!rt->topo.is_virtual
                         && kernel_home(rt, a, size, unknown, bytes, &spread)))
            continue;
        if (deps[i].access != LOCUS_ACCESS_IN) {
            pl.first_touch = 1;
            pl.fresh += unknown;
            continue;
        }
        int home = interleave && rt->topo.is_virtual ? LC_DIR_SPREAD : rt->initial_node;
        lc_dir_record_gaps(rt->dir, a, size, home, NULL, NULL);
        if (home == LC_DIR_SPREAD)
            spread += unknown;
        else
            bytes[home] += unknown;
    }
    pl.spread = spread;
    t->node = -1;
    if (rt->sched->place)
        rt->sched->place(w, t, &pl);
    if (!ndata)
        return;   /* a hinted task without data: nothing to book or count */
    int booked = interleave ? LC_DIR_SPREAD : t->node >= 0 ? t->node : w->node;
    gaps.n = 0;
    gaps.bytes = 0;
    if (pl.first_touch)
        for (size_t i = 0; i < ndeps; i++)
            if (deps[i].access != LOCUS_ACCESS_IN && lc_dep_is_data(&deps[i]))
                lc_dir_record_gaps(rt->dir, (uintptr_t)deps[i].addr, deps[i].size, booked,
                                   keep_gap, &gaps);

    uint16_t npairs = 0;
    for (int n = 0; n < nn; n++)
        npairs += bytes[n] != 0;
    /* a task the scheduler may place again when it becomes ready keeps its
     * ranges (rt->moves) */
    size_t keep = rt->sched->place && !(t->flags & LC_TF_BOUND) && hint < 0 ? ndata : 0;
    struct lc_task_loc *loc = lc_mem_alloc(sizeof *loc + npairs * sizeof loc->p[0]
                                           + (gaps.n + keep) * sizeof(struct lc_loc_gap), 0);
    if (!loc)
        return;   /* not counted: the report is an estimate, the task still runs */
    loc->gen = gen;
    loc->npairs = npairs;
    loc->ngaps = (uint16_t)gaps.n;
    loc->ndeps = (uint16_t)(keep < UINT16_MAX ? keep : 0);
    loc->first = (uint8_t)pl.first_touch;
    loc->given_up = 0;
    loc->booked = booked;
    loc->spread = spread;
    loc->touched = gaps.bytes;
    for (int n = 0, k = 0; n < nn; n++)
        if (bytes[n])
            loc->p[k++] = (struct lc_loc_bytes){ n, bytes[n] };
    struct lc_loc_gap *g = (struct lc_loc_gap *)&loc->p[npairs];
    memcpy(g, gaps.g, gaps.n * sizeof gaps.g[0]);
    for (size_t i = 0, k = 0; k < loc->ndeps; i++)
        if (lc_dep_is_data(&deps[i]))
            g[gaps.n + k++] = (struct lc_loc_gap){ (uintptr_t)deps[i].addr, deps[i].size };
    t->loc = loc;
}

/*
 * t was placed at its spawn and bookings have moved since (rt->moves):
 * place it again from what the directory knows now, and count its bytes
 * from there (the account is where the bytes were when it was placed).
 * Nothing is booked here: ranges the directory no longer knows (forgotten)
 * count as unknown.  A first-touch task bound to its node and a hinted
 * task keep their node.
 */
void lc_locality_replace(struct lc_worker *w, struct lc_task *t)
{
    struct lc_runtime *rt = w->rt;
    struct lc_task_loc *loc = t->loc;
    int nn = rt->topo.nnodes;
    uint32_t gen = atomic_load_explicit(&rt->moves, memory_order_relaxed);

    loc->gen = gen;
    if (!loc->ndeps)
        return;
    uint64_t bytes[nn], spread = 0;
    memset(bytes, 0, sizeof bytes);
    const struct lc_loc_gap *d = (const struct lc_loc_gap *)&loc->p[loc->npairs] + loc->ngaps;
    for (uint32_t i = 0; i < loc->ndeps; i++)
        lc_dir_query(rt->dir, d[i].addr, d[i].size, bytes, &spread);
    struct lc_placement pl = { 0, 0, bytes, spread, -1 };
    t->node = -1;
    rt->sched->place(w, t, &pl);

    uint16_t npairs = 0;
    for (int n = 0; n < nn; n++)
        npairs += bytes[n] != 0;
    size_t tail = (loc->ngaps + loc->ndeps) * sizeof(struct lc_loc_gap);
    struct lc_task_loc *nl = lc_mem_alloc(sizeof *nl + npairs * sizeof nl->p[0] + tail, 0);
    if (!nl)
        return;   /* the account keeps the spawn's figures; the placement is new */
    *nl = *loc;
    nl->npairs = npairs;
    nl->spread = spread;
    for (int n = 0, k = 0; n < nn; n++)
        if (bytes[n])
            nl->p[k++] = (struct lc_loc_bytes){ n, bytes[n] };
    memcpy(&nl->p[npairs], &loc->p[loc->npairs], tail);
    lc_mem_free(loc, 0);
    t->loc = nl;
}

/* Counts bytes interleaved over the nodes in use for a task run on node. */
static void count_spread(struct lc_worker *w, int node, uint64_t spread)
{
    struct lc_runtime *rt = w->rt;
    const int *c = rt->spread_classes[node];
    uint64_t local = spread * (uint64_t)c[0] / (uint64_t)rt->n_ft_nodes;
    uint64_t near = spread * (uint64_t)c[1] / (uint64_t)rt->n_ft_nodes;
    lc_stat_add(&w->stats.bytes[LC_DIST_LOCAL], local);
    lc_stat_add(&w->stats.bytes[LC_DIST_NEAR], near);
    lc_stat_add(&w->stats.bytes[LC_DIST_FAR], spread - local - near);
}

void lc_locality_bytes(const struct lc_task *t, uint64_t *bytes, int nnodes, uint64_t *spread,
                       uint64_t *touched)
{
    const struct lc_task_loc *loc = t->loc;
    for (uint32_t i = 0; i < loc->npairs; i++)
        if (loc->p[i].node >= 0 && loc->p[i].node < nnodes)
            bytes[loc->p[i].node] += loc->p[i].bytes;
    *spread = loc->spread;
    *touched = loc->touched;
}

/* Written by the worker that took t from its queue: t is its own until it
 * runs, and only its run (lc_locality_run, on that worker) reads the mark. */
void lc_locality_given_up(struct lc_task *t)
{
    if (t->loc)
        t->loc->given_up = 1;
}

void lc_locality_run(struct lc_worker *w, struct lc_task *t)
{
    struct lc_runtime *rt = w->rt;
    struct lc_task_loc *loc = t->loc;
    int node = w->node, interleave = rt->opt.pages == LC_PAGES_INTERLEAVE;
    /* under interleaved pages on a real machine, first-touched ranges are
     * booked and counted once their pages exist (lc_locality_ran) */
    int after = interleave && !rt->topo.is_virtual && loc->touched;

    t->loc = NULL;
    if (loc->ngaps && !interleave && loc->booked != node) {
        const struct lc_loc_gap *g = (const struct lc_loc_gap *)&loc->p[loc->npairs];
        for (uint32_t i = 0; i < loc->ngaps; i++)
            lc_dir_record(rt->dir, g[i].addr, g[i].size, node);
        lc_locality_moved(rt);
    }
    /* what the placement promised: the bytes on the task's node, and those
     * it touches first (booked on that node, or where it runs) */
    uint64_t placed = loc->touched;
    for (uint32_t i = 0; i < loc->npairs; i++) {
        lc_stat_add(&w->stats.bytes[lc_topology_class(&rt->topo, node, loc->p[i].node)],
                    loc->p[i].bytes);
        if (loc->p[i].node == t->node)
            placed += loc->p[i].bytes;
    }
    if (t->node >= 0)
        lc_stat_add(&w->stats.placed, placed);
    if (loc->given_up) {
        lc_stat_add(&w->stats.given_up, 1);
        lc_stat_add(&w->stats.given_up_bytes, placed);
    }
    uint64_t spread = loc->spread + (interleave && !after ? loc->touched : 0);
    if (spread)
        count_spread(w, node, spread);
    if (loc->touched && !interleave)
        lc_stat_add(&w->stats.bytes[LC_DIST_LOCAL], loc->touched);
    if (loc->first)
        lc_stat_add(&w->stats.first_touch, 1);
    if (after)
        t->loc = loc;
    else
        lc_mem_free(loc, 0);
}

/*
 * After the body of a first-touch task under interleaved pages, on a real
 * machine: the kernel has placed the pages it wrote, each on the next node
 * of the writing thread's interleave turn, and with transparent huge pages
 * a whole huge page at a time (a 64 KiB tile inside one lives on one node;
 * spawn's provisional SPREAD booking would be wrong for it).  So each
 * first-touched range is booked where the kernel put it (kernel_runs: one
 * bounded move_pages call per range, once in the range's life) and its
 * bytes are counted from there; a range the body left untouched, and the
 * gaps past the LC_LOC_GAPS a task keeps, keep the provisional SPREAD
 * booking and are counted as interleaved.
 */
void lc_locality_ran(struct lc_worker *w, struct lc_task *t)
{
    struct lc_runtime *rt = w->rt;
    struct lc_task_loc *loc = t->loc;
    int nn = rt->topo.nnodes, node = w->node;
    const struct lc_loc_gap *g = (const struct lc_loc_gap *)&loc->p[loc->npairs];
    uint64_t bytes[nn], spread = 0, left = loc->touched;

    t->loc = NULL;
    memset(bytes, 0, sizeof bytes);
    for (uint32_t i = 0; i < loc->ngaps; i++) {
        struct lc_page_run s[LC_PAGES_SAMPLES];
        unsigned r = kernel_runs(rt, g[i].addr, g[i].size, s);
        if (r)
            book_runs(rt, s, r, g[i].size, bytes, &spread, 0);
        else
            spread += g[i].size;
        left -= g[i].size < left ? g[i].size : left;
    }
    if (loc->ngaps)
        lc_locality_moved(rt);
    for (int n = 0; n < nn; n++)
        if (bytes[n])
            lc_stat_add(&w->stats.bytes[lc_topology_class(&rt->topo, node, n)], bytes[n]);
    if (spread + left)
        count_spread(w, node, spread + left);
    lc_mem_free(loc, 0);
}
