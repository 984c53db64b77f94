/*
 * machine.c - the simulated machine: per topology, what an access to
 * memory costs at each distance (bandwidth and latency), how much one
 * node's memory and one core can carry, and the runtime's own costs; and
 * the SimGrid platform that makes bandwidth shared: 288 workers reading one
 * node's memory share its one link.
 *
 * Presets take their figures from the kind of machine the topology preset
 * describes (runtime/topology.c); bullion-s16 and its smaller kin from
 * Caheny et al., Table 2.  A file (LOCUS_SIM_MACHINE, locus-sim(7)) sets
 * any of them: "key = value" lines, # comments.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim.h"

#define GB 1e9
#define NS 1e-9

/* The runtime's own costs, measured on the development machine
 * (benchmarks/README.md, "Simulation"): the same for every preset, since
 * task models are measured there too. */
#define SPAWN_NS 150.0
#define TASK_NS 250.0
#define WAKE_NS 5000.0
#define POLL_NS 40.0

struct preset {
    const char *topo;          /* the topology preset it serves (runtime/topology.c) */
    const char *source;
    double bw[3], lat[3], mem_bw, core_bw;   /* GB/s, ns */
    double module_bw;          /* GB/s, 0: no module links */
};

static const struct preset presets[] = {
    /* Caheny et al., Table 2: the bullion S16's local / near / far memory
     * bandwidth and latency; one core's share is a Haswell-EX core's.  The
     * far figure is one socket's alone; every far access of a module also
     * crosses its BCS, whose capacity the paper does not give: taken as
     * what its two sockets draw from far memory together, 2 x 4.6 GB/s
     * (benchmarks/README.md, Simulation, shows Table 3 with and without) */
    { "bullion-s16", "Caheny et al., Table 2 (bullion S16)",
      { 41.3, 25.0, 4.6 }, { 125.6, 178.0, 416.0 }, 41.3, 10.0, 9.2 },
    { "8s", "Caheny et al., Table 2 (bullion S, 8 sockets)",
      { 41.3, 25.0, 4.6 }, { 125.6, 178.0, 416.0 }, 41.3, 10.0, 9.2 },
    { "4s", "Caheny et al., Table 2 (bullion S, 4 sockets)",
      { 41.3, 25.0, 4.6 }, { 125.6, 178.0, 416.0 }, 41.3, 10.0, 9.2 },
    /* a two-socket Xeon of six DDR4 channels per socket, joined by UPI */
    { "2s", "two-socket Xeon (6 DDR4-2933 channels per socket, UPI)",
      { 100.0, 35.0, 35.0 }, { 90.0, 140.0, 140.0 }, 100.0, 12.0, 0 },
    /* an EPYC node in NPS4: two channels per node, Infinity Fabric */
    { "epyc-2s", "two-socket EPYC in NPS4 (2 DDR4-3200 channels per node)",
      { 40.0, 30.0, 20.0 }, { 90.0, 110.0, 200.0 }, 40.0, 20.0, 0 },
};
#define NPRESETS (sizeof presets / sizeof presets[0])

/* Any other topology (a synthetic description, an XML file) */
static const struct preset generic = {
    "generic", "generic NUMA machine (no preset for this topology; LOCUS_SIM_MACHINE sets one)",
    { 20.0, 10.0, 5.0 }, { 100.0, 150.0, 300.0 }, 20.0, 10.0, 0 };

static void from_preset(struct sim_machine *m, const struct preset *p)
{
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", p->topo);
    snprintf(m->source, sizeof m->source, "%s", p->source);
    for (int i = 0; i < 3; i++) {
        m->bw[i] = p->bw[i] * GB;
        m->lat[i] = p->lat[i] * NS;
    }
    m->mem_bw = p->mem_bw * GB;
    m->core_bw = p->core_bw * GB;
    m->module_bw = p->module_bw * GB;
    m->speed = 1.0;
    m->spawn_s = SPAWN_NS * NS;
    m->task_s = TASK_NS * NS;
    m->wake_s = WAKE_NS * NS;
    m->poll_s = POLL_NS * NS;
}

struct key {
    const char *name;
    size_t off;
    double scale;              /* the file's unit in the model's */
    int zero_ok;
};
#define K(n, f, s, z) { n, offsetof(struct sim_machine, f), s, z }
static const struct key keys[] = {
    K("local_bw", bw[0], GB, 0), K("near_bw", bw[1], GB, 0), K("far_bw", bw[2], GB, 0),
    K("local_lat", lat[0], NS, 1), K("near_lat", lat[1], NS, 1), K("far_lat", lat[2], NS, 1),
    K("mem_bw", mem_bw, GB, 0), K("core_bw", core_bw, GB, 0), K("module_bw", module_bw, GB, 1),
    K("speed", speed, 1.0, 0),
    K("spawn_ns", spawn_s, NS, 1), K("task_ns", task_s, NS, 1), K("wake_ns", wake_s, NS, 1),
    K("poll_ns", poll_s, NS, 1),
    K("stall_node", stall_node, 1.0, 1), K("stall_at_ms", stall_at_s, 1e-3, 1),
    K("stall_ms", stall_s, 1e-3, 1),
};
#define NKEYS (sizeof keys / sizeof keys[0])

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
        *--e = '\0';
    return s;
}

static int load_file(struct sim_machine *m, const char *path, int nnodes_of_cfg, char *err,
                     size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "LOCUS_SIM_MACHINE='%s': cannot open it: %s", path, strerror(errno));
        return -1;
    }
    char line[512];
    int ln = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *s = trim(line);
        if (!*s)
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            snprintf(err, errlen, "LOCUS_SIM_MACHINE='%s', line %d: expected 'key = value'",
                     path, ln);
            fclose(f);
            return -1;
        }
        *eq = '\0';
        char *k = trim(s), *v = trim(eq + 1);
        if (strcasecmp(k, "name") == 0) {
            snprintf(m->name, sizeof m->name, "%s", v);
            snprintf(m->source, sizeof m->source, "%s", path);
            continue;
        }
        size_t i;
        for (i = 0; i < NKEYS; i++)
            if (strcasecmp(k, keys[i].name) == 0)
                break;
        if (i == NKEYS) {
            snprintf(err, errlen, "LOCUS_SIM_MACHINE='%s', line %d: unknown key '%s' (known: "
                     "name, local_bw, near_bw, far_bw, mem_bw, core_bw, module_bw in GB/s; local_lat, "
                     "near_lat, far_lat, spawn_ns, task_ns, wake_ns, poll_ns in ns; speed; stall_node, "
                     "stall_at_ms, stall_ms)",
                     path, ln, k);
            fclose(f);
            return -1;
        }
        char *end;
        errno = 0;
        double x = strtod(v, &end);
        if (end == v || *end || errno || !(x >= 0) || x > 1e12 || (x == 0 && !keys[i].zero_ok)) {
            snprintf(err, errlen, "LOCUS_SIM_MACHINE='%s', line %d: %s = '%s': expected a %s "
                     "number", path, ln, k, v, keys[i].zero_ok ? "non-negative" : "positive");
            fclose(f);
            return -1;
        }
        *(double *)((char *)m + keys[i].off) = x * keys[i].scale;
    }
    fclose(f);
    if (m->stall_s > 0 && (m->stall_node >= nnodes_of_cfg   /* first: the cast below needs it */
                           || m->stall_node != (double)(int)m->stall_node)) {
        snprintf(err, errlen, "LOCUS_SIM_MACHINE='%s': stall_node = %g: expected a node of the "
                 "topology, 0 to %d", path, m->stall_node, nnodes_of_cfg - 1);
        return -1;
    }
    if (!m->source[0] || strcmp(m->source, path) != 0) {
        char src[sizeof m->source];
        snprintf(src, sizeof src, "%s over %s", path, m->name);
        memcpy(m->source, src, sizeof src);
    }
    return 0;
}

int sim_machine_load(struct sim_machine *m, const struct lc_sim_config *cfg, char *err,
                     size_t errlen)
{
    const struct preset *p = &generic;
    for (size_t i = 0; i < NPRESETS; i++)
        if (strcasecmp(cfg->topo_name, presets[i].topo) == 0)
            p = &presets[i];
    from_preset(m, p);
    if (cfg->machine && cfg->machine[0])
        return load_file(m, cfg->machine, cfg->nnodes, err, errlen);
    return 0;
}

void sim_machine_print(FILE *f, const struct sim_machine *m)
{
    fprintf(f, "machine model %s (%s): memory %.1f/%.1f/%.1f GB/s and %.0f/%.0f/%.0f ns "
            "local/near/far, %.1f GB/s per node, %.1f GB/s per core, ",
            m->name, m->source, m->bw[0] / GB, m->bw[1] / GB, m->bw[2] / GB, m->lat[0] / NS,
            m->lat[1] / NS, m->lat[2] / NS, m->mem_bw / GB, m->core_bw / GB);
    if (m->module_bw > 0)
        fprintf(f, "%.1f GB/s per module's link, ", m->module_bw / GB);
    fprintf(f, "speed %.2f", m->speed);
    if (m->stall_s > 0)
        fprintf(f, ", node %d stalled from %.3f s for %.3f s", (int)m->stall_node,
                m->stall_at_s, m->stall_s);
}

void sim_machine_platform(FILE *f, const struct sim_machine *m, const struct lc_sim_config *cfg)
{
    int nn = cfg->nnodes, nw = cfg->nworkers;
    fprintf(f, "<?xml version='1.0'?>\n"
            "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
            "<platform version=\"4.1\">\n<zone id=\"machine\" routing=\"Full\">\n");
    /* a flop is a nanosecond of the measuring machine's compute */
    for (int i = 0; i < nw; i++)
        fprintf(f, "<host id=\"w%d\" speed=\"%.6ef\"/>\n", i, m->speed * 1e9);
    for (int n = 0; n < nn; n++)
        fprintf(f, "<host id=\"m%d\" speed=\"1e9f\"/>\n", n);
    /* one node's memory: every reader of it shares this link; the local
     * latency is paid here, a remote access's extra on its pair's link */
    for (int n = 0; n < nn; n++)
        fprintf(f, "<link id=\"mem%d\" bandwidth=\"%.6eBps\" latency=\"%.6es\"/>\n", n,
                m->mem_bw < m->bw[0] ? m->mem_bw : m->bw[0], m->lat[0]);
    for (int i = 0; i < nw; i++)
        fprintf(f, "<link id=\"core%d\" bandwidth=\"%.6eBps\" latency=\"0s\"/>\n", i, m->core_bw);
    for (int a = 0; a < nn; a++)
        for (int b = a + 1; b < nn; b++) {
            int c = cfg->dist[a * nn + b];
            c = c < 0 ? 2 : c > 2 ? 2 : c;
            if (c == 0)
                c = 1;   /* two nodes are never local to each other */
            double extra = m->lat[c] - m->lat[0];
            fprintf(f, "<link id=\"x%d_%d\" bandwidth=\"%.6eBps\" latency=\"%.6es\"/>\n", a, b,
                    m->bw[c], extra > 0 ? extra : 0);
        }
    /* modules: nodes near each other (not far) share one; a module's link
     * carries every far access into or out of it */
    int module[nn];
    int nmod = 0;
    for (int a = 0; a < nn; a++) {
        module[a] = -1;
        for (int b = 0; b < a && module[a] < 0; b++)
            if (cfg->dist[a * nn + b] < 2)
                module[a] = module[b];
        if (module[a] < 0)
            module[a] = nmod++;
    }
    int modules = m->module_bw > 0 && nmod > 1;
    if (modules)
        for (int k = 0; k < nmod; k++)
            fprintf(f, "<link id=\"bcs%d\" bandwidth=\"%.6eBps\" latency=\"0s\"/>\n", k,
                    m->module_bw);
    for (int n = 0; n < nn; n++)
        for (int i = 0; i < nw; i++) {
            int wn = cfg->worker_node[i];
            fprintf(f, "<route src=\"m%d\" dst=\"w%d\"><link_ctn id=\"mem%d\"/>", n, i, n);
            if (wn != n)
                fprintf(f, "<link_ctn id=\"x%d_%d\"/>", n < wn ? n : wn, n < wn ? wn : n);
            if (modules && module[n] != module[wn])
                fprintf(f, "<link_ctn id=\"bcs%d\"/><link_ctn id=\"bcs%d\"/>", module[n],
                        module[wn]);
            fprintf(f, "<link_ctn id=\"core%d\"/></route>\n", i);
        }
    fprintf(f, "</zone>\n</platform>\n");
}
