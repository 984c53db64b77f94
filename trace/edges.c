/*
 * edges.c - the declared dependency edges of a traced run, written beside
 * the OTF2 archive (graph.h says why a side file: OTF2 has no record for a
 * relation between two tasks, and locus-trace needs the graph the program
 * declared, not the order the runtime happened to release tasks in, for
 * the critical path).  Plain text, one "FROM TO" per line, the tasks' ids
 * as the trace's "task" parameter gives them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "graph.h"
#include "runtime.h"

int lc_trace_write_edges(const struct lc_graph *g, const char *dir, char *err, size_t errlen)
{
    char path[LC_PATH_MAX + sizeof LC_EDGES_FILE + 2];
    snprintf(path, sizeof path, "%s/%s", dir, LC_EDGES_FILE);
    FILE *f = fopen(path, "w");
    if (!f) {
        int e = errno;
        snprintf(err, errlen, "LOCUS_TRACE='%s': cannot write %s: %s", dir, LC_EDGES_FILE,
                 strerror(e));
        return -e;
    }
    errno = 0;
    fprintf(f, "# locus task graph: %zu tasks, %zu declared dependency edges; "
            "FROM TO (task ids, as the trace's \"task\" parameter)\n", g->nt, g->ne);
    for (size_t k = 0; k < g->ne; k++)
        fprintf(f, "%llu %llu\n", (unsigned long long)g->t[g->e[k][0]].id,
                (unsigned long long)g->t[g->e[k][1]].id);
    if (ferror(f) | (fclose(f) != 0)) {
        int e = errno ? errno : EIO;
        snprintf(err, errlen, "LOCUS_TRACE='%s': writing %s failed: %s", dir, LC_EDGES_FILE,
                 strerror(e));
        return -e;
    }
    return 0;
}
