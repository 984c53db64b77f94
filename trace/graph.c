/*
 * graph.c - the declared task graph (graph.h): the tasks and dependencies
 * the workers recorded, and the edges among the children of each task by
 * the rules of locus_spawn(3): a reader after the last writer of its data,
 * a writer after the readers since that writer (or after the writer when
 * there were none), commuting (concurrent) accesses grouped as readers are.
 * The edges are worked out from the declared accesses, not from what the
 * runtime linked: the runtime skips edges to tasks already complete and
 * those another edge implies, which a picture or a critical path of the
 * program must not lose.
 *
 * Two ways to the same edges: when every two ranges the children of one
 * task declared are either the same range or disjoint (the usual case:
 * tiles, blocks), each range's accesses are walked once in spawn order;
 * otherwise (partial overlaps) every child is compared with its earlier
 * siblings, which is quadratic but exact for any overlap.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "runtime.h"
#include "trace.h"

struct elist {
    size_t (*e)[2];
    size_t n, cap;
    int nomem;
};

static void add_edge(struct elist *l, size_t from, size_t to)
{
    if (from == to || l->nomem)
        return;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        size_t (*ne)[2] = realloc(l->e, cap * sizeof *ne);
        if (!ne) {
            l->nomem = 1;
            return;
        }
        l->e = ne;
        l->cap = cap;
    }
    l->e[l->n][0] = from;
    l->e[l->n][1] = to;
    l->n++;
}

static int is_read(int access)
{
    return access == LOCUS_ACCESS_IN;
}

static int is_writer(int access)
{
    return !is_read(access) && access != LOCUS_ACCESS_CONCURRENT;
}

/* The general rule, for any overlap: edges into child c (s[c], an index
 * into g->t) from its earlier siblings s[0..c-1]. */
static void child_edges(const struct lc_graph *g, const size_t *s, size_t c, struct elist *l)
{
    const struct lc_gtask *tc = &g->t[s[c]];
    for (uint32_t k = 0; k < tc->ndeps; k++) {
        const struct lc_gdep *d = &g->d[tc->dep0 + k];
        int linked_group = 0;   /* edges made to a group of readers (or concurrent tasks) */
        for (size_t j = c; j-- > 0;) {
            const struct lc_gtask *tj = &g->t[s[j]];
            for (uint32_t m = 0; m < tj->ndeps; m++) {
                const struct lc_gdep *e = &g->d[tj->dep0 + m];
                if (e->addr >= d->addr + d->size || d->addr >= e->addr + e->size)
                    continue;
                int group = (is_read(e->access) && is_read(d->access))
                            || (e->access == LOCUS_ACCESS_CONCURRENT
                                && d->access == LOCUS_ACCESS_CONCURRENT);
                if (group)
                    continue;   /* the same group: no order, look further back */
                int covers = e->addr <= d->addr && e->addr + e->size >= d->addr + d->size;
                if (is_writer(e->access) && covers && linked_group)
                    goto next_dep;   /* the group it follows already runs after this writer */
                add_edge(l, s[j], s[c]);
                if (is_writer(e->access) && covers)
                    goto next_dep;   /* nothing before the last writer matters */
                linked_group = 1;
            }
        }
    next_dep:;
    }
}

/* One access of one child, for the walk by range. */
struct acc {
    uint64_t addr, size;
    size_t pos;     /* the child's place among its siblings */
    size_t task;    /* index into g->t */
    int access;
};

static int by_range(const void *a, const void *b)
{
    const struct acc *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    if (x->size != y->size)
        return x->size < y->size ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Edges among the children s[0..m-1] of one task. */
static int group_edges(const struct lc_graph *g, const size_t *s, size_t m, struct elist *l)
{
    size_t na = 0;
    for (size_t i = 0; i < m; i++)
        na += g->t[s[i]].ndeps;
    if (na == 0)
        return 0;
    struct acc *a = malloc(na * sizeof *a);
    if (!a)
        return -ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < m; i++)
        for (uint32_t j = 0; j < g->t[s[i]].ndeps; j++) {
            const struct lc_gdep *d = &g->d[g->t[s[i]].dep0 + j];
            a[k++] = (struct acc){ d->addr, d->size, i, s[i], d->access };
        }
    qsort(a, na, sizeof *a, by_range);
    /* same range or disjoint, never an empty one? */
    int clean = 1;
    for (size_t i = 0; i < na && clean; i++) {
        if (a[i].size == 0)
            clean = 0;
        else if (i + 1 < na && (a[i + 1].addr != a[i].addr || a[i + 1].size != a[i].size)
                 && a[i + 1].addr < a[i].addr + a[i].size)
            clean = 0;
    }
    if (!clean) {
        free(a);
        for (size_t c = 1; c < m; c++)
            child_edges(g, s, c, l);
        return 0;
    }
    /* each range's accesses in spawn order: the last writer, and the
     * readers and concurrent accesses since it */
    size_t *since = malloc(na * sizeof *since);
    if (!since) {
        free(a);
        return -ENOMEM;
    }
    for (size_t r = 0; r < na;) {
        size_t end = r;
        while (end < na && a[end].addr == a[r].addr && a[end].size == a[r].size)
            end++;
        size_t writer = SIZE_MAX, nsince = 0;
        for (size_t i = r; i < end; i++) {
            const struct acc *x = &a[i];
            if (is_writer(x->access)) {
                /* after everything since the last writer, else after it */
                int linked = 0;
                for (size_t j = 0; j < nsince; j++)
                    if (a[since[j]].task != x->task) {
                        add_edge(l, a[since[j]].task, x->task);
                        linked = 1;
                    }
                if (!linked && writer != SIZE_MAX)
                    add_edge(l, writer, x->task);
                writer = x->task;
                nsince = 0;
            } else {
                /* after the other group's accesses since the writer, else
                 * after the writer */
                int linked = 0;
                for (size_t j = 0; j < nsince; j++)
                    if (a[since[j]].access != x->access && a[since[j]].task != x->task) {
                        add_edge(l, a[since[j]].task, x->task);
                        linked = 1;
                    }
                if (!linked && writer != SIZE_MAX)
                    add_edge(l, writer, x->task);
                since[nsince++] = i;
            }
        }
        r = end;
    }
    free(since);
    free(a);
    return 0;
}

static int by_edge(const void *a, const void *b)
{
    const size_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Children grouped by parent, each group in spawn (collection) order. */
static const struct lc_gtask *sort_base;
static int by_parent(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    if (sort_base[x].parent != sort_base[y].parent)
        return sort_base[x].parent < sort_base[y].parent ? -1 : 1;
    return x < y ? -1 : x > y;
}

int lc_graph_build(struct lc_runtime *rt, struct lc_graph *g)
{
    memset(g, 0, sizeof *g);
    uint64_t ntasks = 0, ndeps = 0;
    for (int i = 0; i < rt->nworkers; i++) {
        ntasks += atomic_load_explicit(&rt->trace_bufs[i].seq, memory_order_relaxed);
        struct lc_trace_iter it = lc_trace_iter_start(&rt->trace_bufs[i]);
        const struct lc_trace_ev *e;
        while ((e = lc_trace_next(&it)))
            ndeps += e->kind == LC_EV_DEP;
    }
    g->t = calloc(ntasks ? ntasks : 1, sizeof *g->t);
    g->d = calloc(ndeps ? ndeps : 1, sizeof *g->d);
    size_t *order = calloc(ntasks ? ntasks : 1, sizeof *order);
    struct elist l = { NULL, 0, 0, 0 };
    if (!g->t || !g->d || !order)
        goto nomem;
    for (int i = 0; i < rt->nworkers; i++) {
        struct lc_trace_iter it = lc_trace_iter_start(&rt->trace_bufs[i]);
        const struct lc_trace_ev *e;
        while ((e = lc_trace_next(&it))) {
            if (e->kind == LC_EV_SPAWN && g->nt < ntasks) {
                struct lc_gtask *x = &g->t[g->nt++];
                x->id = e->id;
                x->parent = e->a ? e->a : (1ull << 63) | (uint64_t)i;
                x->p = e->p;
                x->q = e->q;
                x->node = -1;
                x->dep0 = (uint32_t)g->nd;
            } else if (e->kind == LC_EV_DEP && g->nt > 0 && g->t[g->nt - 1].id == e->id
                       && g->nd < ndeps) {
                g->d[g->nd].addr = e->a;
                g->d[g->nd].size = e->b;
                g->d[g->nd].access = (int)e->c;
                g->nd++;
                g->t[g->nt - 1].ndeps++;
            }
        }
    }
    /* where each task ran: its BEGIN's worker.  Collected worker by worker,
     * ids (worker << 40 | count) are increasing in collection order, so a
     * binary search finds them */
    for (int i = 0; i < rt->nworkers; i++) {
        struct lc_trace_iter it = lc_trace_iter_start(&rt->trace_bufs[i]);
        const struct lc_trace_ev *e;
        while ((e = lc_trace_next(&it)))
            if (e->kind == LC_EV_BEGIN) {
                size_t lo = 0, hi = g->nt;
                while (lo < hi) {
                    size_t mid = (lo + hi) / 2;
                    if (g->t[mid].id < e->id)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                if (lo < g->nt && g->t[lo].id == e->id)
                    g->t[lo].node = rt->workers[i].node;
            }
    }
    for (size_t k = 0; k < g->nt; k++)
        order[k] = k;
    sort_base = g->t;   /* finalize runs on one thread */
    qsort(order, g->nt, sizeof *order, by_parent);
    for (size_t s = 0; s < g->nt;) {
        size_t end = s;
        while (end < g->nt && g->t[order[end]].parent == g->t[order[s]].parent)
            end++;
        if (group_edges(g, &order[s], end - s, &l) < 0 || l.nomem)
            goto nomem;
        s = end;
    }
    if (l.n)
        qsort(l.e, l.n, sizeof *l.e, by_edge);
    size_t n = 0;
    for (size_t k = 0; k < l.n; k++)
        if (n == 0 || by_edge(l.e[n - 1], l.e[k]) != 0) {
            l.e[n][0] = l.e[k][0];
            l.e[n][1] = l.e[k][1];
            n++;
        }
    g->e = l.e;
    g->ne = n;
    free(order);
    return 0;
nomem:
    free(order);
    free(l.e);
    lc_graph_free(g);
    return -ENOMEM;
}

void lc_graph_free(struct lc_graph *g)
{
    free(g->t);
    free(g->d);
    free(g->e);
    memset(g, 0, sizeof *g);
}
