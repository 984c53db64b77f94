/*
 * machine.c - the real machine from Linux sysfs: the online NUMA nodes
 * (devices/system/node/online), each node's CPUs (nodeN/cpulist), the
 * distance rows (nodeN/distance, the ACPI SLIT values libnuma gives) and
 * a core's SMT siblings (devices/system/cpu/cpuN/topology/
 * thread_siblings_list, read once a core, and not at all where
 * devices/system/cpu/smt/active says no sibling runs).  That is all the
 * real topology needs, and what libgomp reads too.  hwloc's discovery of the same machine loads its
 * plugins (OpenCL, GL, PCI, XML) and scans every cache and device: it cost
 * milliseconds at a program's first parallel region, where libgomp costs
 * a fraction of one (benchmarks/README.md).
 */
#include "machine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/counters.h"

#define LIST_MAX 16384   /* the longest cpulist read (a list of 2,000 single CPUs) */
#define CPU_MAX (1 << 20)

/* The number of CPUs a cpulist names, or -EINVAL. */
static int list_count(const char *s)
{
    long n = 0;
    const char *p = s;

    while (*p == ' ')
        p++;
    while (*p != '\0' && *p != '\n') {
        char *end;
        long a = strtol(p, &end, 10), b;
        if (end == p || a < 0 || a >= CPU_MAX)
            return -EINVAL;
        b = a;
        p = end;
        if (*p == '-') {
            b = strtol(p + 1, &end, 10);
            if (end == p + 1 || b < a || b >= CPU_MAX)
                return -EINVAL;
            p = end;
        }
        n += b - a + 1;
        if (n > CPU_MAX)
            return -EINVAL;
        if (*p == ',')
            p++;
        else if (*p != '\0' && *p != '\n')
            return -EINVAL;
    }
    return (int)n;
}

/* Reads the cpulist at path into a new array (*out, NULL when empty).
 * The count, -ENOENT when there is no such file, or -EINVAL / -ENOMEM. */
static int read_list(const char *path, int **out)
{
    char *buf = malloc(LIST_MAX);
    int n, r;

    *out = NULL;
    if (buf == NULL)
        return -ENOMEM;
    if ((r = lc_read_small(path, buf, LIST_MAX)) < 0) {
        free(buf);
        return r;
    }
    if (strlen(buf) >= LIST_MAX - 1 || (n = list_count(buf)) < 0) {
        free(buf);
        return -EINVAL;   /* too long to have been read whole, or not a list */
    }
    if (n > 0) {
        if ((*out = malloc((size_t)n * sizeof **out)) == NULL) {
            free(buf);
            return -ENOMEM;
        }
        if (lc_parse_cpulist(buf, *out, n) != n) {
            free(*out);
            *out = NULL;
            free(buf);
            return -EINVAL;
        }
    }
    free(buf);
    return n;
}

/* The distance rows of the m->nnodes nodes, when each row has exactly one
 * value per online node (the kernel prints them in node order); m->dist
 * stays NULL otherwise.  -ENOMEM only. */
static int read_distances(const char *sys, struct lc_machine *m)
{
    int n = m->nnodes;
    int *d = malloc((size_t)n * (size_t)n * sizeof *d);
    char path[4096], row[4096];

    if (d == NULL)
        return -ENOMEM;
    for (int a = 0; a < n; a++) {
        const char *p = row;
        int k = 0;

        snprintf(path, sizeof path, "%s/devices/system/node/node%d/distance", sys,
                 m->nodes[a].os_index);
        if (lc_read_small(path, row, sizeof row) < 0 || strlen(row) >= sizeof row - 1)
            goto none;
        for (;;) {
            char *end;
            long v = strtol(p, &end, 10);
            if (end == p)
                break;
            if (k >= n || v < 1 || v > 1000)
                goto none;
            d[a * n + k++] = (int)v;
            p = end;
        }
        if (k != n || *p != '\0')
            goto none;
    }
    m->dist = d;
    return 0;
none:
    free(d);
    return 0;
}

int lc_machine_read(const char *sys, struct lc_machine *m)
{
    char path[4096];
    int *online = NULL, n, r = 0;

    memset(m, 0, sizeof *m);
    snprintf(path, sizeof path, "%s/devices/system/node/online", sys);
    n = read_list(path, &online);
    if (n == -ENOENT || n == 0)
        return 0;   /* no NUMA nodes shown: the caller makes one */
    if (n < 0)
        return n;
    if ((m->nodes = calloc((size_t)n, sizeof *m->nodes)) == NULL) {
        free(online);
        return -ENOMEM;
    }
    for (int i = 0; i < n; i++) {
        struct lc_machine_node *nd = &m->nodes[m->nnodes++];

        nd->os_index = online[i];
        snprintf(path, sizeof path, "%s/devices/system/node/node%d/cpulist", sys, online[i]);
        r = read_list(path, &nd->cpus);
        if (r == -ENOENT)
            r = 0;   /* a node directory without a cpulist: a node without CPUs */
        if (r < 0)
            break;
        nd->ncpus = r;
        r = 0;
    }
    free(online);
    if (r == 0)
        r = read_distances(sys, m);
    if (r < 0)
        lc_machine_free(m);
    return r;
}

void lc_machine_free(struct lc_machine *m)
{
    for (int i = 0; i < m->nnodes; i++)
        free(m->nodes[i].cpus);
    free(m->nodes);
    free(m->dist);
    memset(m, 0, sizeof *m);
}

int lc_machine_smt_ranks(const char *sys, const int *cpus, int n, int *rank)
{
    char path[4096], active[16];
    int *sib = NULL, k;

    for (int i = 0; i < n; i++)
        rank[i] = -1;
    snprintf(path, sizeof path, "%s/devices/system/cpu/smt/active", sys);
    if (lc_read_small(path, active, sizeof active) == 0 && strcmp(active, "0") == 0)
        k = 0;   /* no CPU has a sibling running: every rank is 0 */
    else
        k = -1;
    for (int i = 0; i < n; i++) {
        if (rank[i] >= 0)
            continue;
        if (k == 0) {
            rank[i] = 0;
            continue;
        }
        snprintf(path, sizeof path, "%s/devices/system/cpu/cpu%d/topology/thread_siblings_list",
                 sys, cpus[i]);
        int m = read_list(path, &sib);
        if (m == -ENOMEM)
            return -ENOMEM;
        rank[i] = 0;
        /* every sibling listed among cpus[] gets its rank from this list */
        for (int a = 0; a < m; a++)
            for (int j = i; j < n; j++)
                if (cpus[j] == sib[a]) {
                    int r = 0;
                    for (int b = 0; b < m; b++)
                        r += sib[b] < sib[a];
                    rank[j] = r;
                }
        free(sib);
        sib = NULL;
    }
    return 0;
}
