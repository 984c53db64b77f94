/*
 * graph.h - the task graph of a run as the program declared it, built at
 * locus_finalize() from the spawns and dependencies the workers recorded
 * (trace.h): tasks, and the edges the rules of locus_spawn(3) give among
 * the children of one task.  LOCUS_DAG draws it (dag.c); LOCUS_TRACE
 * writes its edges beside the OTF2 archive (edges.c), from which
 * locus-trace computes the critical path.
 */
#ifndef LC_GRAPH_H
#define LC_GRAPH_H

#include <stddef.h>
#include <stdint.h>

struct lc_runtime;

struct lc_gtask {
    uint64_t id;         /* the trace's task id (trace.h) */
    uint64_t parent;     /* parent's id, or (1 << 63 | worker) for the root and implicit tasks */
    const void *p, *q;   /* label, fn */
    int node;            /* where it ran, -1 unknown */
    uint32_t dep0, ndeps;
};

struct lc_gdep {
    uint64_t addr, size;
    int access;
};

struct lc_graph {
    struct lc_gtask *t;  /* in collection order: spawn order within a parent */
    size_t nt;
    struct lc_gdep *d;
    size_t nd;
    size_t (*e)[2];      /* edges: indices into t, from -> to; sorted, no duplicates */
    size_t ne;
};

/* Collects the tasks and works out the declared edges; 0 or -ENOMEM
 * (g then holds nothing to free). */
int lc_graph_build(struct lc_runtime *rt, struct lc_graph *g);
void lc_graph_free(struct lc_graph *g);

/* edges.c: LOCUS_TRACE's side file DIR/LC_EDGES_FILE, one line per edge
 * ("FROM TO", the tasks' ids as the trace's "task" parameter has them);
 * 0, or a negative errno with a message in err. */
#define LC_EDGES_FILE "locus-edges.txt"
int lc_trace_write_edges(const struct lc_graph *g, const char *dir, char *err, size_t errlen);

#endif /* LC_GRAPH_H */
