/*
 * perf.h - the perf_event backend's plan: which perf_event_attr to open on
 * which CPU for every event of a table, computed from the sysfs tree alone,
 * so that tests can check the exact attr.type/config values against
 * recorded machines without a PMU.
 */
#ifndef LC_COUNTERS_PERF_H
#define LC_COUNTERS_PERF_H

#include <linux/perf_event.h>

#include "counters/counters.h"

struct lc_perf_event {
    struct perf_event_attr attr;
    int pid, cpu;               /* perf_event_open arguments */
    int slot;                   /* socket slot; LC_PERF_PROCESS for per-thread events */
    unsigned classes;
    int dir;
    double scale;
    const char *name;
    char pmu[LC_PMU_NAME_MAX];
    int fd;
};

#define LC_PERF_PROCESS (-1)

struct lc_perf_plan {
    struct lc_perf_event *ev;
    size_t nev;
    int nsockets;
    int sockets[LC_CTR_MAX_SOCKETS];    /* package id of each slot */
};

/*
 * Plans table t on the machine under c->env (c->mach detected): fills
 * plan and marks in c->cls the classes that cannot be counted, with the
 * reason (no PMU, privileges, encoding).  Call lc_ctr_apply_table() first.
 * 0 or -ENOMEM.
 */
int lc_perf_plan(struct lc_counters *c, const struct lc_ctr_table *t, struct lc_perf_plan *plan);
void lc_perf_plan_free(struct lc_perf_plan *plan);

#endif /* LC_COUNTERS_PERF_H */
