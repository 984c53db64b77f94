/*
 * dag.c - LOCUS_DAG: the task graph of a run in Graphviz dot, written at
 * locus_finalize() from the declared graph (graph.h): a node per task,
 * labelled with its label (else its function) and the NUMA node it ran
 * on, and an edge per dependency the program declared.
 *
 * For small runs: past LC_DAG_MAX_TASKS tasks a graph is not readable, and
 * the file gets a one-node graph saying so instead (trace.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "graph.h"
#include "runtime.h"
#include "trace.h"

int lc_trace_write_dag(struct lc_runtime *rt, uint64_t ntasks, const struct lc_graph *g,
                       const char *path, char *err, size_t errlen)
{
    (void)rt;
    FILE *f = fopen(path, "w");
    if (!f) {
        int e = errno;
        snprintf(err, errlen, "LOCUS_DAG='%s': cannot open the file for writing: %s", path,
                 strerror(e));
        return -e;
    }
    errno = 0;
    if (ntasks > LC_DAG_MAX_TASKS) {
        fprintf(stderr, "locus: LOCUS_DAG='%s': the run spawned %llu tasks, more than the %d "
                "a task graph is drawn for; the file holds a note instead (LOCUS_TRACE "
                "records runs of any size)\n", path, (unsigned long long)ntasks,
                LC_DAG_MAX_TASKS);
        fprintf(f, "digraph locus {\n  note [shape=note, label=\"%llu tasks: more than the "
                "%d LOCUS_DAG draws\"];\n}\n", (unsigned long long)ntasks, LC_DAG_MAX_TASKS);
    } else {
        fprintf(f, "digraph locus {\n  node [shape=box, style=rounded];\n");
        char name[LOCUS_LABEL_MAX + 160];
        for (size_t k = 0; k < g->nt; k++) {
            const char *s = lc_trace_name(g->t[k].p, g->t[k].q, 0, name, sizeof name);
            fprintf(f, "  t%zu [label=\"", k);
            for (; *s; s++)   /* dot strings: quotes and backslashes escaped */
                fprintf(f, *s == '"' || *s == '\\' ? "\\%c" : "%c", *s);
            if (g->t[k].node >= 0)
                fprintf(f, "\\nnode %d\"];\n", g->t[k].node);
            else
                fprintf(f, "\"];\n");
        }
        for (size_t k = 0; k < g->ne; k++)
            fprintf(f, "  t%zu -> t%zu;\n", g->e[k][0], g->e[k][1]);
        fprintf(f, "}\n");
    }
    if (ferror(f) | (fclose(f) != 0)) {
        int e = errno ? errno : EIO;
        snprintf(err, errlen, "LOCUS_DAG='%s': writing the task graph failed: %s", path,
                 strerror(e));
        return -e;
    }
    return 0;
}
