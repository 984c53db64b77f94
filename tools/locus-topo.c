/*
 * locus-topo.c - prints the topology as Locus sees it: NUMA nodes, their
 * CPUs, the distance matrix, each node's steal neighbours and where the
 * workers would run.  It reads LOCUS_TOPOLOGY and LOCUS_THREADS through
 * env.c like the runtime does, so what it prints is what locus_init() would
 * use; --topology and --workers override them.  A diagnostic for topology
 * misdetection (the peers' users ask for one: StarPU #33).  --counters
 * shows instead which coherence-traffic counter backends and classes this
 * machine can count, and why not (LOCUS_COUNTERS, see locus(7)).
 * Exit status (locus-topo(1)): 0; 1 when the topology cannot be loaded or
 * the counters asked for cannot be opened; 2 for a usage error.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"   /* LOCUS_VERSION: configure's PACKAGE_VERSION */
#include "counters/counters.h"
#include "env.h"
#include "topology.h"

static void usage(FILE *f, const char *prog)
{
    fprintf(f,
            "usage: %s [--workers N] [--topology SPEC]\n"
            "       %s --presets | --counters | --help | --version\n"
            "Prints the NUMA topology Locus schedules over and the placement of N workers.\n"
            "  --workers N      workers to place (default LOCUS_THREADS, else the CPUs of\n"
            "                   the affinity mask), 1..%d\n"
            "  --topology SPEC  default LOCUS_TOPOLOGY, else the real machine; SPEC is\n"
            "                   a preset, synthetic:<hwloc description>[;dist=<list>]\n"
            "                   or the path of an hwloc XML file (see --presets)\n"
            "  --presets        lists the preset topologies\n"
            "  --counters       which coherence-traffic counter backends and classes\n"
            "                   this machine can count, and why not (LOCUS_COUNTERS)\n"
            "  --help           this text;  --version  the version of Locus\n"
            "Environment: LOCUS_TOPOLOGY, LOCUS_THREADS, LOCUS_COUNTERS (see locus(7)).\n"
            "Exit status: 0; 1 when the topology or the counters cannot be loaded;\n"
            "2 for a usage error.  Manual: locus-topo(1).\n",
            prog, prog, LC_MAX_WORKERS);
}

static void print_spec_help(FILE *f)
{
    fprintf(f,
            "Topology specs (LOCUS_TOPOLOGY, --topology):\n"
            "  (unset)                  the real machine\n"
            "  <preset>                 one of:\n");
    lc_topology_print_presets(f);
    fprintf(f,
            "  synthetic:DESC[;dist=D]  DESC as for lstopo -i, e.g. 'pack:2 numa:1 core:4 pu:1';\n"
            "                           D: the full N*N matrix, or 10,R (local,remote), or\n"
            "                           10,N,F (N between nodes of one package or group);\n"
            "                           default 10 local / 20 remote\n"
            "  PATH                     an hwloc XML file (lstopo file.xml)\n");
}

/* --counters: the machine as the counters see it, every backend, and the
 * classes LOCUS_COUNTERS (default auto) would count. */
static int print_counters(const struct lc_options *o)
{
    struct lc_ctr_env env = { .likwid_marker = o->likwid_marker };
    struct lc_ctr_machine m;
    struct lc_counters *c;
    char err[LC_CTR_ERR_MAX], why[LC_CTR_REASON_MAX];

    lc_ctr_detect(&env, &m);
    printf("Coherence-traffic counters (LOCUS_COUNTERS, see locus(7))\n");
    if (m.family >= 0)
        printf("  cpu              %s family 0x%x model 0x%x%s\n", m.vendor, (unsigned)m.family,
               (unsigned)m.model, m.hypervisor ? ", in a VM (hypervisor flag)" : "");
    else
        printf("  cpu              unknown (no cpuinfo)\n");
    if (m.paranoid == LC_PARANOID_NONE)
        printf("  perf_event       not supported by this kernel\n");
    else
        printf("  perf_event       perf_event_paranoid=%d, CAP_PERFMON or CAP_SYS_ADMIN: %s\n",
               m.paranoid, m.privileged ? "yes" : "no");
    printf("  PMUs             core (cpu): %s; uncore (uncore_upi_*, uncore_qpi_*, amd_df): %d\n",
           m.cpu_pmu ? "yes" : "no", m.uncore_pmus);
    const struct lc_ctr_table *t = lc_ctr_table_for(&m, why, sizeof why);
    if (t != NULL)
        printf("  event table      %s: %s\n", t->name, t->title);
    else
        printf("  event table      none: %s\n", why);

    printf("\nbackends\n");
    for (int i = 0; lc_ctr_backends[i] != NULL; i++) {
        const struct lc_ctr_backend *be = lc_ctr_backends[i];
        printf("  %-7s %s\n", be->name, be->description);
        if (lc_counters_open(be->name, &env, &c, err, sizeof err) < 0) {
            printf("          unavailable: %s\n", err);
            continue;
        }
        printf("          counts %d of %d classes\n", lc_ctr_navailable(c), LC_NCLS);
        lc_counters_close(c);
    }

    const char *req = lc_counters_name(o->counters);
    if (lc_counters_open(req, &env, &c, err, sizeof err) < 0) {
        printf("\nLOCUS_COUNTERS=%s: locus_init() would fail: %s\n", req, err);
        return 1;
    }
    locus_counters_t r;
    lc_counters_read(c, -1, &r);
    printf("\nclasses with LOCUS_COUNTERS=%s (backend %s, %d socket%s)\n", req, r.backend,
           r.sockets, r.sockets == 1 ? "" : "s");
    for (int k = 0; k < LC_NCLS; k++) {
        const locus_counter_value_t *v = &r.cls[k];
        if (v->kind == LOCUS_COUNTER_UNAVAILABLE) {
            printf("  %-12s  unavailable: %s\n", locus_counter_class_name(k), v->reason);
            continue;
        }
        printf("  %-12s  %-6s %-8s %s%s%s  [%s]\n", locus_counter_class_name(k),
               locus_counter_kind_name(v->kind), v->unit,
               v->flags & LOCUS_COUNTER_HAS_TX ? "tx" : "",
               (v->flags & LOCUS_COUNTER_HAS_TX) && (v->flags & LOCUS_COUNTER_HAS_RX) ? "+" : "",
               v->flags & LOCUS_COUNTER_HAS_RX ? "rx" : "", v->source);
        if (v->reason[0])
            printf("  %-12s  %s\n", "", v->reason);
    }
    lc_counters_close(c);
    return 0;
}

static int parse_workers(const char *s, int *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < 1 || v > LC_MAX_WORKERS)
        return -1;
    *out = (int)v;
    return 0;
}

int main(int argc, char **argv)
{
    struct lc_options o;
    struct lc_topology t;
    const char *spec = NULL;
    char err[1024];
    int workers = 0, rc, *node, *cpu, counters = 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout, argv[0]);
            printf("\n");
            print_spec_help(stdout);
            return 0;
        } else if (strcmp(argv[i], "--version") == 0) {
            printf("locus-topo (Locus) %s\n", LOCUS_VERSION);
            return 0;
        } else if (strcmp(argv[i], "--counters") == 0) {
            counters = 1;
        } else if (strcmp(argv[i], "--presets") == 0) {
            lc_topology_print_presets(stdout);
            return 0;
        } else if (strcmp(argv[i], "--workers") == 0 && i + 1 < argc) {
            if (parse_workers(argv[++i], &workers) < 0) {
                fprintf(stderr, "%s: --workers '%s': expected an integer in 1..%d\n",
                        argv[0], argv[i], LC_MAX_WORKERS);
                return 2;
            }
        } else if (strcmp(argv[i], "--topology") == 0 && i + 1 < argc) {
            spec = argv[++i];
        } else if ((strcmp(argv[i], "--workers") == 0 || strcmp(argv[i], "--topology") == 0)
                   && i + 1 == argc) {
            fprintf(stderr, "%s: option '%s' needs a value (try --help)\n", argv[0], argv[i]);
            return 2;
        } else {
            fprintf(stderr, "%s: unexpected argument '%s' (try --help)\n", argv[0], argv[i]);
            return 2;
        }
    }

    if (lc_env_parse(&o, NULL, NULL, err, sizeof err) < 0) {
        fprintf(stderr, "%s: %s\n", argv[0], err);
        return 1;
    }
    if (counters)
        return print_counters(&o);
    if (o.help & LC_HELP_TOPOLOGY) {
        print_spec_help(stdout);
        return 0;
    }
    if (spec == NULL)
        spec = o.topology;
    if (workers == 0)
        workers = o.threads > 0 ? o.threads : lc_affinity_cpus();

    rc = lc_topology_load(&t, spec, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "%s: %s\n", argv[0], err);
        return 1;
    }
    node = malloc((size_t)workers * sizeof *node);
    cpu = malloc((size_t)workers * sizeof *cpu);
    if (node == NULL || cpu == NULL || lc_topology_place_workers(&t, workers, node, cpu) < 0) {
        fprintf(stderr, "%s: cannot place %d workers\n", argv[0], workers);
        free(node);
        free(cpu);
        lc_topology_free(&t);
        return 1;
    }
    lc_topology_print(&t, workers, node, stdout);
    printf("\nworker  node  bind-cpu\n");
    for (int w = 0; w < workers; w++) {
        printf("%6d  %4d  ", w, node[w]);
        if (cpu[w] >= 0)
            printf("%8d\n", cpu[w]);
        else
            printf("%8s\n", "unbound");
    }
    free(node);
    free(cpu);
    lc_topology_free(&t);
    return 0;
}
