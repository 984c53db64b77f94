/*
 * report.h - the locality report written at locus_finalize() (or at an
 * exit or a signal without it: exit.c) when LOCUS_REPORT is set: a human
 * table (stderr, or a file with any other extension), JSON (*.json) or
 * CSV (*.csv), with the coherence-traffic counters when info->counters is
 * set.
 */
#ifndef LC_REPORT_H
#define LC_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "locus.h"

struct lc_report_info {
    const char *regime;      /* dft | di | naft */
    const char *sched;       /* scheduler name */
    const char *pages;       /* firsttouch | interleave */
    const char *steal;       /* near | all | none */
    const char *topology;    /* "machine" or the preset / spec */
    int virtual_topology;    /* 1 when placement is bookkeeping only */
    int first_touch_tracked; /* 0 on one node: first-touch tasks are not classified */
    /* Coherence-traffic counters (LOCUS_COUNTERS).  NULL: no counters section
     * and no counter columns; the runtime always passes them, so that every
     * CSV row it writes has the same columns. */
    const locus_counters_t *counters;         /* totals over sockets */
    const locus_counters_t *socket_counters;  /* nsockets entries, may be NULL */
    int nsockets;
    /* NULL: ended by locus_finalize; else how the run ended without it
     * ("exit", "SIGTERM", "SIGINT"), with unfinished tasks not run to their end */
    const char *ended;
    uint64_t unfinished;
};

/*
 * Writes the report for the given totals and per-node figures (nnodes
 * entries) to dest ("stderr" or a path; the format follows the path's
 * extension).  A file is appended to when it exists (CSV: the header line is
 * written only to a new or empty file), so several runs can share one file.
 * Returns 0 or a negative errno with a message in err.
 */
int lc_report_write(const char *dest, const struct lc_report_info *info,
                    const locus_stats_t *total, const locus_node_stats_t *nodes, int nnodes,
                    char *err, size_t errlen);

#endif /* LC_REPORT_H */
