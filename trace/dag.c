/*
 * dag.c - LOCUS_DAG: the task graph of a run in Graphviz dot, written at
 * locus_finalize() from the spawns and dependencies the workers recorded
 * (trace.h).  A node per task, labelled with its label (else its
 * function) and the NUMA node it ran on; an edge per dependency the
 * program declared, by the rules of locus_spawn(3) among the children of
 * one task: a reader after the last writer of its data, a writer after the
 * readers since that writer (or after the writer when there were none).
 * The edges are worked out from the declared accesses, not from what the
 * runtime linked: the runtime skips edges to tasks already complete and
 * those another edge implies, which a picture of the program should show.
 *
 * For small runs: past LC_DAG_MAX_TASKS tasks a graph is not readable, and
 * the file gets a one-node graph saying so instead (trace.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "trace.h"

struct dtask {
    uint64_t id;
    uint64_t parent;     /* parent's id, or (1 << 63 | worker) for the root and implicit tasks */
    const void *p, *q;   /* label, fn */
    int node;            /* where it ran, -1 unknown */
    uint32_t dep0, ndeps;
    uint32_t seq;        /* order of collection: spawn order within a parent */
};

struct ddep {
    uint64_t addr, size;
    int access;
};

static int by_parent(const void *a, const void *b)
{
    const struct dtask *x = a, *y = b;
    if (x->parent != y->parent)
        return x->parent < y->parent ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int is_read(int access)
{
    return access == LOCUS_ACCESS_IN;
}

/* Edges into child c from its earlier siblings s[0..c-1]; writes them. */
static int child_edges(FILE *f, const struct dtask *s, size_t c, const struct ddep *deps,
                       const size_t *index, unsigned char *seen)
{
    memset(seen, 0, c);
    for (uint32_t k = 0; k < s[c].ndeps; k++) {
        const struct ddep *d = &deps[s[c].dep0 + k];
        int linked_group = 0;   /* edges made to a group of readers (or concurrent tasks) */
        for (size_t j = c; j-- > 0;) {
            for (uint32_t m = 0; m < s[j].ndeps; m++) {
                const struct ddep *e = &deps[s[j].dep0 + m];
                if (e->addr >= d->addr + d->size || d->addr >= e->addr + e->size)
                    continue;
                int group = (is_read(e->access) && is_read(d->access))
                            || (e->access == LOCUS_ACCESS_CONCURRENT
                                && d->access == LOCUS_ACCESS_CONCURRENT);
                if (group)
                    continue;   /* the same group: no order, look further back */
                int covers = e->addr <= d->addr && e->addr + e->size >= d->addr + d->size;
                int writer = !is_read(e->access) && e->access != LOCUS_ACCESS_CONCURRENT;
                if (writer && covers && linked_group)
                    goto next_dep;   /* the group it follows already runs after this writer */
                if (!seen[j]) {
                    seen[j] = 1;
                    if (fprintf(f, "  t%zu -> t%zu;\n", index[j], index[c]) < 0)
                        return -1;
                }
                if (writer && covers)
                    goto next_dep;   /* nothing before the last writer matters */
                linked_group = 1;
            }
        }
    next_dep:;
    }
    return 0;
}

int lc_trace_write_dag(struct lc_runtime *rt, const char *path, char *err, size_t errlen)
{
    uint64_t ntasks = 0, ndeps = 0;
    for (int i = 0; i < rt->nworkers; i++)
        ntasks += rt->trace_bufs[i].seq;
    FILE *f = fopen(path, "w");
    if (!f) {
        int e = errno;
        snprintf(err, errlen, "LOCUS_DAG='%s': cannot open the file for writing: %s", path,
                 strerror(e));
        return -e;
    }
    if (ntasks > LC_DAG_MAX_TASKS) {
        fprintf(stderr, "locus: LOCUS_DAG='%s': the run spawned %llu tasks, more than the %d "
                "a task graph is drawn for; the file holds a note instead (LOCUS_TRACE "
                "records runs of any size)\n", path, (unsigned long long)ntasks,
                LC_DAG_MAX_TASKS);
        fprintf(f, "digraph locus {\n  note [shape=note, label=\"%llu tasks: more than the "
                "%d LOCUS_DAG draws\"];\n}\n", (unsigned long long)ntasks, LC_DAG_MAX_TASKS);
        goto close;
    }
    for (int i = 0; i < rt->nworkers; i++) {
        struct lc_trace_iter it = { rt->trace_bufs[i].head, 0 };
        const struct lc_trace_ev *e;
        while ((e = lc_trace_next(&it)))
            ndeps += e->kind == LC_EV_DEP;
    }
    struct dtask *t = calloc(ntasks ? ntasks : 1, sizeof *t);
    struct ddep *d = calloc(ndeps ? ndeps : 1, sizeof *d);
    size_t *index = calloc(ntasks ? ntasks : 1, sizeof *index);
    unsigned char *seen = malloc(ntasks ? ntasks : 1);
    size_t nt = 0, nd = 0;
    int r = 0;
    if (!t || !d || !index || !seen) {
        snprintf(err, errlen, "LOCUS_DAG='%s': out of memory for the task graph", path);
        r = -ENOMEM;
        goto done;
    }
    for (int i = 0; i < rt->nworkers; i++) {
        struct lc_trace_iter it = { rt->trace_bufs[i].head, 0 };
        const struct lc_trace_ev *e;
        while ((e = lc_trace_next(&it))) {
            if (e->kind == LC_EV_SPAWN && nt < ntasks) {
                struct dtask *x = &t[nt];
                x->id = e->id;
                x->parent = e->a ? e->a : (1ull << 63) | (uint64_t)i;
                x->p = e->p;
                x->q = e->q;
                x->node = -1;
                x->dep0 = (uint32_t)nd;
                x->seq = (uint32_t)nt++;
            } else if (e->kind == LC_EV_DEP && nt > 0 && t[nt - 1].id == e->id && nd < ndeps) {
                d[nd].addr = e->a;
                d[nd].size = e->b;
                d[nd].access = (int)e->c;
                nd++;
                t[nt - 1].ndeps++;
            }
        }
    }
    /* where each task ran: its BEGIN's worker (ids are sorted by seq, not
     * by id, so a search by id over a copy sorted by id) */
    for (size_t k = 0; k < nt; k++)
        index[k] = k;
    for (int i = 0; i < rt->nworkers; i++) {
        struct lc_trace_iter it = { rt->trace_bufs[i].head, 0 };
        const struct lc_trace_ev *e;
        while ((e = lc_trace_next(&it)))
            if (e->kind == LC_EV_BEGIN) {
                /* ids of one spawner are increasing in its collection order */
                size_t lo = 0, hi = nt;
                while (lo < hi) {
                    size_t mid = (lo + hi) / 2;
                    if (t[mid].id < e->id)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                if (lo < nt && t[lo].id == e->id)
                    t[lo].node = rt->workers[i].node;
            }
    }
    /* collected worker by worker, so ids (worker << 40 | count) are in
     * increasing order and the search above holds; now group by parent */
    fprintf(f, "digraph locus {\n  node [shape=box, style=rounded];\n");
    char name[LOCUS_LABEL_MAX + 160];
    for (size_t k = 0; k < nt; k++) {
        const char *s = lc_trace_name(t[k].p, t[k].q, 0, name, sizeof name);
        fprintf(f, "  t%zu [label=\"", k);
        for (; *s; s++)   /* dot strings: quotes and backslashes escaped */
            fprintf(f, *s == '"' || *s == '\\' ? "\\%c" : "%c", *s);
        if (t[k].node >= 0)
            fprintf(f, "\\nnode %d\"];\n", t[k].node);
        else
            fprintf(f, "\"];\n");
    }
    qsort(t, nt, sizeof *t, by_parent);
    for (size_t g = 0; g < nt;) {
        size_t end = g;
        while (end < nt && t[end].parent == t[g].parent)
            end++;
        for (size_t c = g; c < end; c++)
            index[c - g] = t[c].seq;
        for (size_t c = 1; c < end - g; c++)
            if (child_edges(f, &t[g], c, d, index, seen) < 0)
                break;
        g = end;
    }
    fprintf(f, "}\n");
done:
    free(t);
    free(d);
    free(index);
    free(seen);
    if (r < 0) {
        fclose(f);
        return r;
    }
close:
    if (ferror(f) | (fclose(f) != 0)) {
        int e = errno ? errno : EIO;
        snprintf(err, errlen, "LOCUS_DAG='%s': writing the task graph failed: %s", path,
                 strerror(e));
        return -e;
    }
    return 0;
}
