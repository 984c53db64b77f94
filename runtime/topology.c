/*
 * topology.c - NUMA nodes, CPUs and distances: the real machine's from
 * sysfs (machine.c), virtual topologies for testing NUMA logic on a
 * one-node machine from hwloc (style guide item 5: its synthetic
 * descriptions and XML files), and worker placement and binding.  The
 * three distance classes (local 10, near 15, far 40) and the bullion-s16
 * preset are the machine of Caheny et al., "Reducing
 * Cache Coherence Traffic with a NUMA-Aware Runtime Approach" (section 3.2,
 * Table 2); stealing only from the near class follows its section 4.
 * The spec syntax is documented in topology.h.
 */
#define _GNU_SOURCE /* CPU_ALLOC & co. */
#include "topology.h"
#include "machine.h"

#include <ctype.h>
#include <errno.h>
#include <hwloc.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define DIST_LOCAL 10
#define DIST_REMOTE 20  /* the ACPI SLIT default for "remote" */
#define DIST_MAX 1000
#define SYSFS "/sys"

struct preset {
    const char *name;
    const char *synthetic;   /* hwloc synthetic description */
    const char *dist;        /* ;dist= value */
    const char *desc;
};

/* Packages carry one NUMA node each; a "group" level is a module (bullion S
 * BCS), which is what makes the L,N,F distance form tell near from far. */
static const struct preset presets[] = {
    { "bullion-s16", "group:8 pack:2 numa:1 core:18 pu:1", "10,15,40",
      "the paper's bullion S16: 8 modules x 2 sockets x 18 cores, 16 nodes, "
      "288 CPUs, distances 10 local / 15 same module / 40 other module" },
    { "8s", "group:4 pack:2 numa:1 core:18 pu:1", "10,15,40",
      "bullion S8: 4 modules x 2 sockets x 18 cores, 8 nodes, 144 CPUs, 10/15/40" },
    { "4s", "group:2 pack:2 numa:1 core:15 pu:1", "10,15,40",
      "bullion S4 of the paper's earlier work: 2 modules x 2 sockets x 15 cores, "
      "4 nodes, 60 CPUs, 10/15/40" },
    { "2s", "pack:2 numa:1 core:16 pu:1", "10,21",
      "two-socket Xeon: 2 sockets x 16 cores, 2 nodes, 32 CPUs, 10 local / 21 remote" },
    { "epyc-2s", "pack:2 numa:4 core:8 pu:1", "10,12,32",
      "two-socket AMD EPYC in NPS4 mode: 2 sockets x 4 nodes x 8 cores, 8 nodes, "
      "64 CPUs, 10 local / 12 same socket / 32 other socket" },
};
#define NPRESETS ((int)(sizeof presets / sizeof presets[0]))

/* ---------------------------------------------------------------- errors */

static void list_presets(char *buf, size_t len)
{
    size_t off = 0;

    buf[0] = '\0';
    for (int i = 0; i < NPRESETS && off < len; i++) {
        int n = snprintf(buf + off, len - off, "%s%s", i ? ", " : "", presets[i].name);
        if (n < 0)
            break;
        off += (size_t)n;
    }
}

/* Writes "topology 'SPEC': <why>; accepted: ..." and returns rc. */
static int fail(char *err, size_t errlen, int rc, const char *spec, const char *fmt, ...)
{
    char why[512], names[256];
    va_list ap;

    if (err == NULL || errlen == 0)
        return rc;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    list_presets(names, sizeof names);
    snprintf(err, errlen,
             "topology '%s': %s; accepted: a preset (%s), "
             "'synthetic:<hwloc synthetic description>[;dist=<list>]' "
             "or the path of an hwloc XML file",
             spec, why, names);
    return rc;
}

/* -------------------------------------------------------------- affinity */

/* The CPUs of the affinity mask, ascending, into *out (may be NULL).
 * Returns their number or a negative errno.  The set grows until the kernel
 * accepts its size, so machines with more than CPU_SETSIZE CPUs work. */
static int affinity_list(int **out)
{
    for (int ncpu = 1024; ncpu <= (1 << 22); ncpu *= 2) {
        cpu_set_t *set = CPU_ALLOC(ncpu);
        size_t sz = CPU_ALLOC_SIZE(ncpu);
        int e, n, k = 0;

        if (set == NULL)
            return -ENOMEM;
        CPU_ZERO_S(sz, set);
        if (sched_getaffinity(0, sz, set) != 0) {
            e = errno;
            CPU_FREE(set);
            if (e == EINVAL)
                continue;
            return -e;
        }
        n = CPU_COUNT_S(sz, set);
        if (out != NULL) {
            *out = malloc((size_t)(n > 0 ? n : 1) * sizeof **out);
            if (*out == NULL) {
                CPU_FREE(set);
                return -ENOMEM;
            }
            for (int c = 0; c < (int)(sz * 8) && k < n; c++)
                if (CPU_ISSET_S(c, sz, set))
                    (*out)[k++] = c;
        }
        CPU_FREE(set);
        return n;
    }
    return -EINVAL;
}

int lc_affinity_cpus(void)
{
    int n = affinity_list(NULL);
    long c;

    if (n >= 1)
        return n;
    c = sysconf(_SC_NPROCESSORS_ONLN);
    return c >= 1 && c <= INT_MAX ? (int)c : 1;
}

/* ------------------------------------------------------- hwloc helpers */

static int load_hw(hwloc_topology_t *out, const char *synthetic, const char *xml)
{
    hwloc_topology_t topo;
    int e;

    if (hwloc_topology_init(&topo) != 0)
        return -(errno ? errno : ENOMEM);
    if ((synthetic != NULL && hwloc_topology_set_synthetic(topo, synthetic) != 0) ||
        (xml != NULL && hwloc_topology_set_xml(topo, xml) != 0) ||
        hwloc_topology_load(topo) != 0) {
        e = errno ? errno : EINVAL;
        hwloc_topology_destroy(topo);
        return -e;
    }
    *out = topo;
    return 0;
}

struct rank_pos { int rank, pos, cpu; };

static int cmp_rank_pos(const void *a, const void *b)
{
    const struct rank_pos *x = a, *y = b;

    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Reorders real OS CPUs one per core first (see lc_topo_node.cpus). */
static int order_cores_first(int *cpus, int n)
{
    struct rank_pos *rp;

    if (n < 2)
        return 0;
    rp = malloc((size_t)n * sizeof *rp);
    int *rank = malloc((size_t)n * sizeof *rank);
    if (rp == NULL || rank == NULL || lc_machine_smt_ranks(SYSFS, cpus, n, rank) < 0) {
        free(rp);
        free(rank);
        return -ENOMEM;
    }
    for (int i = 0; i < n; i++)
        rp[i] = (struct rank_pos){ rank[i], i, cpus[i] };
    free(rank);
    qsort(rp, (size_t)n, sizeof *rp, cmp_rank_pos);
    for (int i = 0; i < n; i++)
        cpus[i] = rp[i].cpu;
    free(rp);
    return 0;
}

/* ------------------------------------------------------------ building */

/*
 * Fills t->nodes from a virtual topology topo.
 * numa_of[i] receives the hwloc NUMA object of node i (NULL when the
 * machine has none).  Virtual topologies number CPUs 0..N-1 in node order.
 */
static int build_nodes(struct lc_topology *t, hwloc_topology_t topo,
                       hwloc_obj_t **numa_of,
                       const char *spec, char *err, size_t errlen)
{
    int nnuma = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    int nslots = nnuma > 0 ? nnuma : 1, vcpu = 0, rc = 0;
    hwloc_bitmap_t claimed = hwloc_bitmap_alloc(), set = hwloc_bitmap_alloc();

    *numa_of = calloc((size_t)nslots, sizeof **numa_of);
    t->nodes = calloc((size_t)nslots, sizeof *t->nodes);
    if (claimed == NULL || set == NULL || *numa_of == NULL || t->nodes == NULL) {
        rc = fail(err, errlen, -ENOMEM, spec, "out of memory");
        goto out;
    }
    for (int i = 0; i < nslots; i++) {
        hwloc_obj_t numa = nnuma > 0 ? hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)i) : NULL;
        hwloc_const_bitmap_t cs = numa != NULL ? numa->cpuset : hwloc_topology_get_topology_cpuset(topo);
        struct lc_topo_node *nd = &t->nodes[t->nnodes];
        hwloc_obj_t pu = NULL;
        int n, k = 0;

        if (cs == NULL)
            continue;
        /* A PU belongs to the first node that has it (DRAM before HBM). */
        hwloc_bitmap_andnot(set, cs, claimed);
        n = 0;
        while ((pu = hwloc_get_next_obj_inside_cpuset_by_type(topo, set, HWLOC_OBJ_PU, pu)) != NULL)
            n++;
        if (n == 0)
            continue;
        if (t->nnodes >= LC_TOPO_MAX_NODES) {
            rc = fail(err, errlen, -EINVAL, spec, "more than %d NUMA nodes", LC_TOPO_MAX_NODES);
            goto out;
        }
        nd->cpus = malloc((size_t)n * sizeof *nd->cpus);
        if (nd->cpus == NULL) {
            rc = fail(err, errlen, -ENOMEM, spec, "out of memory");
            goto out;
        }
        while ((pu = hwloc_get_next_obj_inside_cpuset_by_type(topo, set, HWLOC_OBJ_PU, pu)) != NULL && k < n)
            nd->cpus[k++] = vcpu++;
        nd->ncpus = k;
        nd->os_index = t->nnodes;
        (*numa_of)[t->nnodes] = numa;
        t->nnodes++;
        t->ncpus += k;
        hwloc_bitmap_or(claimed, claimed, set);
    }
    if (t->nnodes == 0)
        rc = fail(err, errlen, -ENODEV, spec, "no NUMA node has a usable CPU");
out:
    hwloc_bitmap_free(claimed);
    hwloc_bitmap_free(set);
    return rc;
}

static void dist_default(struct lc_topology *t, int remote)
{
    int n = t->nnodes;

    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            t->dist[a * n + b] = a == b ? DIST_LOCAL : remote;
}

/* Takes hwloc's NUMA latency matrix when it covers every node.  Matrices
 * whose local value is not 10 (an XML with latencies in ns) are rescaled so
 * that local = 10, keeping remote > local.  Returns 1 when used. */
static int dist_from_hwloc(struct lc_topology *t, hwloc_topology_t topo, hwloc_obj_t *numa_of)
{
    struct hwloc_distances_s *d[1] = { NULL };
    unsigned nr = 1;
    int n = t->nnodes, ok = 1;
    uint64_t *v = NULL, diag = 0;
    int *idx = NULL;

#if HWLOC_API_VERSION >= 0x00020500
    if (hwloc_distances_get_by_name(topo, "NUMALatency", &nr, d, 0) != 0 || nr == 0)
#endif
    {
        nr = 1;
        if (hwloc_distances_get_by_type(topo, HWLOC_OBJ_NUMANODE, &nr, d,
                                        HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) != 0 || nr == 0)
            return 0;
    }
    v = calloc((size_t)n * (size_t)n, sizeof *v);
    idx = malloc((size_t)n * sizeof *idx);
    if (v == NULL || idx == NULL) {
        ok = 0;
        goto out;
    }
    /* idx[node] = row of node in the hwloc matrix */
    for (int a = 0; a < n && ok; a++) {
        idx[a] = -1;
        for (unsigned i = 0; i < d[0]->nbobjs; i++)
            if (numa_of[a] != NULL && d[0]->objs[i] == numa_of[a])
                idx[a] = (int)i;
        ok = idx[a] >= 0;
    }
    for (int a = 0; a < n && ok; a++)
        for (int b = 0; b < n; b++)
            v[a * n + b] = d[0]->values[(size_t)idx[a] * d[0]->nbobjs + (size_t)idx[b]];
    diag = ok ? v[0] : 0;
    for (int a = 0; a < n && ok; a++)
        for (int b = 0; b < n && ok; b++) {
            uint64_t x = v[a * n + b];
            ok = a == b ? x == diag : x >= diag;
        }
    ok = ok && diag > 0 && diag <= UINT32_MAX;
    for (int a = 0; a < n && ok; a++)
        for (int b = 0; b < n && ok; b++) {
            uint64_t x = v[a * n + b], s;

            if (x / diag > DIST_MAX) {
                ok = 0;
                break;
            }
            s = (x * DIST_LOCAL + diag / 2) / diag;
            if (a != b && x > diag && s <= DIST_LOCAL)
                s = DIST_LOCAL + 1;
            t->dist[a * n + b] = a == b ? DIST_LOCAL : (int)s;
        }
out:
    free(v);
    free(idx);
    hwloc_distances_release(topo, d[0]);
    return ok;
}

/* Two nodes are near when their NUMA objects hang below a common package
 * or group, i.e. the common ancestor is not the machine. */
static int share_ancestor(hwloc_topology_t topo, hwloc_obj_t x, hwloc_obj_t y)
{
    hwloc_obj_t c;

    if (x == NULL || y == NULL || x->parent == NULL || y->parent == NULL)
        return 0;
    c = hwloc_get_common_ancestor_obj(topo, x->parent, y->parent);
    return c != NULL && c != hwloc_get_root_obj(topo);
}

/* Parses "a,b,c" into a fresh array; returns the count or -EINVAL. */
static int parse_list(const char *s, int **out)
{
    int n = 1, k = 0;

    for (const char *p = s; *p; p++)
        n += *p == ',';
    *out = malloc((size_t)n * sizeof **out);
    if (*out == NULL)
        return -ENOMEM;
    for (const char *p = s;;) {
        unsigned long x = 0;
        int digits = 0;

        while (*p == ' ')
            p++;
        for (; isdigit((unsigned char)*p) && x <= DIST_MAX; p++, digits++)
            x = x * 10 + (unsigned long)(*p - '0');
        while (*p == ' ')
            p++;
        if (digits == 0 || x > DIST_MAX || (*p != ',' && *p != '\0')) {
            free(*out);
            *out = NULL;
            return -EINVAL;
        }
        (*out)[k++] = (int)x;
        if (*p++ == '\0')
            break;
    }
    return k;
}

/* Applies a ;dist= list (already parsed) to t; see topology.h for the forms. */
static int dist_from_list(struct lc_topology *t, hwloc_topology_t topo, hwloc_obj_t *numa_of,
                          const int *v, int k, const char *spec, char *err, size_t errlen)
{
    int n = t->nnodes;

    if (k == n * n) {
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++) {
                int x = v[a * n + b];

                if (a == b && x != DIST_LOCAL)
                    return fail(err, errlen, -EINVAL, spec,
                                "dist= entry [%d][%d] is %d, the diagonal must be 10", a, b, x);
                if (x < DIST_LOCAL)
                    return fail(err, errlen, -EINVAL, spec,
                                "dist= entry [%d][%d] is %d, expected 10..%d", a, b, x, DIST_MAX);
                t->dist[a * n + b] = x;
            }
        return 0;
    }
    if (k != 2 && k != 3)
        return fail(err, errlen, -EINVAL, spec,
                    "dist= has %d values, expected %d (the full %dx%d matrix), "
                    "2 (local,remote) or 3 (local,near,far)", k, n * n, n, n);
    if (v[0] != DIST_LOCAL || v[1] < DIST_LOCAL || (k == 3 && v[2] < v[1]))
        return fail(err, errlen, -EINVAL, spec,
                    "dist= must be 10,R or 10,N,F with 10 <= N <= F <= %d", DIST_MAX);
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            t->dist[a * n + b] = a == b ? DIST_LOCAL
                : k == 2 || share_ancestor(topo, numa_of[a], numa_of[b]) ? v[1] : v[2];
    return 0;
}

static void finish_near(struct lc_topology *t)
{
    int n = t->nnodes;

    for (int a = 0; a < n; a++) {
        int m = INT_MAX;

        for (int b = 0; b < n; b++)
            if (b != a && t->dist[a * n + b] < m)
                m = t->dist[a * n + b];
        t->near[a] = m == INT_MAX ? DIST_LOCAL : m;
    }
}

/* Allocates dist and near once nnodes is known. */
static int alloc_dist(struct lc_topology *t, const char *spec, char *err, size_t errlen)
{
    t->dist = malloc((size_t)t->nnodes * (size_t)t->nnodes * sizeof *t->dist);
    t->near = malloc((size_t)t->nnodes * sizeof *t->near);
    if (t->dist == NULL || t->near == NULL)
        return fail(err, errlen, -ENOMEM, spec, "out of memory");
    return 0;
}

/* The real CPUs to bind to, ordered one per core first. */
static int load_real_cpus(struct lc_topology *t, const char *spec, char *err, size_t errlen)
{
    int n = affinity_list(&t->real_cpus);

    if (n < 0)
        return fail(err, errlen, n, spec, "sched_getaffinity failed: %s", strerror(-n));
    t->nreal_cpus = n;
    if (order_cores_first(t->real_cpus, n) < 0)
        return fail(err, errlen, -ENOMEM, spec, "out of memory");
    return 0;
}

/* Adds a node of the real machine: those of its CPUs (cpus, ncpus; all
 * CPUs when cpus is NULL) that are in the affinity mask and in no earlier
 * node, in the order of t->real_cpus.  claimed: one flag per entry of
 * t->real_cpus. */
static int add_real_node(struct lc_topology *t, int os_index, const int *cpus, int ncpus,
                         char *claimed, const char *spec, char *err, size_t errlen)
{
    struct lc_topo_node *nd = &t->nodes[t->nnodes];
    int k = 0;

    if ((nd->cpus = malloc((size_t)(t->nreal_cpus > 0 ? t->nreal_cpus : 1) * sizeof *nd->cpus)) == NULL)
        return fail(err, errlen, -ENOMEM, spec, "out of memory");
    for (int i = 0; i < t->nreal_cpus; i++) {
        int c = t->real_cpus[i], in = cpus == NULL;

        for (int j = 0; j < ncpus && !in; j++)
            in = cpus[j] == c;
        if (in && !claimed[i]) {
            claimed[i] = 1;
            nd->cpus[k++] = c;
        }
    }
    if (k == 0) {
        free(nd->cpus);
        nd->cpus = NULL;
        return 0;   /* no usable CPU (a memory-only node, or outside the mask) */
    }
    nd->ncpus = k;
    nd->os_index = os_index;
    t->nnodes++;
    t->ncpus += k;
    return 1;
}

static int load_real(struct lc_topology *t, char *err, size_t errlen)
{
    const char *spec = "";
    struct lc_machine m;
    char *claimed = NULL;
    int *row = NULL;   /* logical node -> index in m.nodes */
    const char *src;
    int rc;

    snprintf(t->name, sizeof t->name, "machine");
    if ((rc = load_real_cpus(t, spec, err, errlen)) < 0)
        return rc;
    if ((rc = lc_machine_read(SYSFS, &m)) < 0)
        return fail(err, errlen, rc, spec, "cannot read the NUMA nodes under " SYSFS
                    "/devices/system/node: %s", strerror(-rc));
    if (m.nnodes > LC_TOPO_MAX_NODES) {
        rc = fail(err, errlen, -EINVAL, spec, "more than %d NUMA nodes", LC_TOPO_MAX_NODES);
        goto out;
    }
    t->nodes = calloc((size_t)(m.nnodes > 0 ? m.nnodes : 1), sizeof *t->nodes);
    row = calloc((size_t)(m.nnodes > 0 ? m.nnodes : 1), sizeof *row);
    claimed = calloc((size_t)(t->nreal_cpus > 0 ? t->nreal_cpus : 1), 1);
    if (t->nodes == NULL || row == NULL || claimed == NULL) {
        rc = fail(err, errlen, -ENOMEM, spec, "out of memory");
        goto out;
    }
    /* A CPU belongs to the first node that has it (DRAM before HBM). */
    for (int i = 0; i < m.nnodes; i++) {
        row[t->nnodes] = i;
        if ((rc = add_real_node(t, m.nodes[i].os_index, m.nodes[i].cpus, m.nodes[i].ncpus,
                                claimed, spec, err, errlen)) < 0)
            goto out;
    }
    if (m.nnodes == 0 && (rc = add_real_node(t, 0, NULL, 0, claimed, spec, err, errlen)) < 0)
        goto out;
    if (t->nnodes == 0) {
        rc = fail(err, errlen, -ENODEV, spec, "no NUMA node has a usable CPU");
        goto out;
    }
    if ((rc = alloc_dist(t, spec, err, errlen)) < 0)
        goto out;
    if (t->nnodes == 1) {
        t->dist[0] = DIST_LOCAL;
        src = "local only";
    } else if (m.dist != NULL) {
        int n = t->nnodes;

        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++) {
                int x = m.dist[row[a] * m.nnodes + row[b]];

                t->dist[a * n + b] = a == b ? DIST_LOCAL
                                     : x <= DIST_LOCAL || x > DIST_MAX ? DIST_REMOTE : x;
            }
        src = "from sysfs";
    } else {
        dist_default(t, DIST_REMOTE);
        src = "10/20 (default)";
    }
    finish_near(t);
    snprintf(t->desc, sizeof t->desc,
             "this machine: %d NUMA node%s, %d CPU%s of the affinity mask, distances %s",
             t->nnodes, t->nnodes == 1 ? "" : "s", t->ncpus, t->ncpus == 1 ? "" : "s", src);
    rc = 0;
out:
    free(claimed);
    free(row);
    lc_machine_free(&m);
    return rc;
}

/*
 * Builds a virtual topology from an hwloc synthetic description (with an
 * optional ;dist= list) or an XML file, then loads the real machine for
 * binding.  preset: the preset it comes from, or NULL.
 */
static int load_virtual(struct lc_topology *t, const char *spec, const char *synthetic,
                        const char *xml, const struct preset *preset, char *err, size_t errlen)
{
    char *desc = NULL, *opts = NULL;
    int *dl = NULL, nd = 0, rc;
    hwloc_topology_t vt = NULL;
    hwloc_obj_t *numa_of = NULL;
    const char *src;

    t->is_virtual = 1;
    if (synthetic != NULL) {
        desc = strdup(preset != NULL ? preset->synthetic : synthetic);
        if (desc == NULL)
            return fail(err, errlen, -ENOMEM, spec, "out of memory");
        if (preset != NULL)
            opts = NULL;
        else if ((opts = strchr(desc, ';')) != NULL)
            *opts++ = '\0';
        /* options: ;dist=... (the only one so far) */
        while (opts != NULL && *opts != '\0') {
            char *next = strchr(opts, ';');

            if (next != NULL)
                *next++ = '\0';
            if (strncmp(opts, "dist=", 5) == 0 && dl == NULL) {
                nd = parse_list(opts + 5, &dl);
                if (nd < 0) {
                    rc = nd == -ENOMEM ? fail(err, errlen, nd, spec, "out of memory")
                        : fail(err, errlen, nd, spec, "dist= wants comma-separated integers 10..%d, got '%s'",
                               DIST_MAX, opts + 5);
                    goto out;
                }
            } else if (*opts != '\0') {
                rc = fail(err, errlen, -EINVAL, spec, "unknown option '%s' (expected one dist=<list>)", opts);
                goto out;
            }
            opts = next;
        }
        if (preset != NULL && (nd = parse_list(preset->dist, &dl)) < 0) {
            rc = fail(err, errlen, nd, spec, "bad preset");
            goto out;
        }
    }
    rc = load_hw(&vt, desc, xml);
    if (rc < 0) {
        if (xml != NULL)
            rc = fail(err, errlen, rc == -ENOENT ? -ENOENT : -EINVAL, spec,
                      "hwloc cannot load '%s' as an XML topology", xml);
        else
            rc = fail(err, errlen, -EINVAL, spec,
                      "hwloc cannot parse the synthetic description '%s' "
                      "(the syntax of lstopo -i, e.g. 'pack:2 numa:1 core:4 pu:1')", desc);
        goto out;
    }
    if ((rc = build_nodes(t, vt, &numa_of, spec, err, errlen)) < 0 ||
        (rc = alloc_dist(t, spec, err, errlen)) < 0)
        goto out;
    if (dl != NULL) {
        if ((rc = dist_from_list(t, vt, numa_of, dl, nd, spec, err, errlen)) < 0)
            goto out;
        src = "given";
    } else if (dist_from_hwloc(t, vt, numa_of)) {
        src = "from the file";
    } else {
        dist_default(t, DIST_REMOTE);
        src = "10/20 (default)";
    }
    finish_near(t);

    if (preset != NULL) {
        snprintf(t->name, sizeof t->name, "%s", preset->name);
        snprintf(t->desc, sizeof t->desc, "%s", preset->desc);
    } else if (xml != NULL) {
        snprintf(t->name, sizeof t->name, "xml");
        snprintf(t->desc, sizeof t->desc, "hwloc XML '%.160s': %d node%s, %d CPU%s, distances %s",
                 xml, t->nnodes, t->nnodes == 1 ? "" : "s", t->ncpus, t->ncpus == 1 ? "" : "s", src);
    } else {
        snprintf(t->name, sizeof t->name, "synthetic");
        snprintf(t->desc, sizeof t->desc, "hwloc synthetic '%.160s': %d node%s, %d CPU%s, distances %s",
                 desc, t->nnodes, t->nnodes == 1 ? "" : "s", t->ncpus, t->ncpus == 1 ? "" : "s", src);
    }

    /* the real CPUs, for binding */
    rc = load_real_cpus(t, spec, err, errlen);
out:
    if (vt != NULL)
        hwloc_topology_destroy(vt);
    free(numa_of);
    free(dl);
    free(desc);
    return rc;
}

static const struct preset *find_preset(const char *name)
{
    for (int i = 0; i < NPRESETS; i++)
        if (strcasecmp(name, presets[i].name) == 0)
            return &presets[i];
    return NULL;
}

static int looks_like_path(const char *s)
{
    size_t n = strlen(s);

    return strchr(s, '/') != NULL || (n >= 4 && strcasecmp(s + n - 4, ".xml") == 0) ||
           access(s, F_OK) == 0;
}

int lc_topology_load(struct lc_topology *t, const char *spec, char *err, size_t errlen)
{
    const struct preset *p;
    int rc;

    if (err != NULL && errlen > 0)
        err[0] = '\0';
    if (t == NULL)
        return -EINVAL;
    memset(t, 0, sizeof *t);
    if (spec == NULL || spec[0] == '\0')
        rc = load_real(t, err, errlen);
    else if (strncasecmp(spec, "synthetic:", 10) == 0)
        rc = load_virtual(t, spec, spec + 10, NULL, NULL, err, errlen);
    else if ((p = find_preset(spec)) != NULL)
        rc = load_virtual(t, spec, p->synthetic, NULL, p, err, errlen);
    else if (looks_like_path(spec)) {
        if (access(spec, R_OK) != 0) {
            int e = errno;

            rc = fail(err, errlen, -e, spec, "cannot read the XML file: %s", strerror(e));
        } else {
            rc = load_virtual(t, spec, NULL, spec, NULL, err, errlen);
        }
    } else
        rc = fail(err, errlen, -EINVAL, spec, "no such preset");
    if (rc < 0)
        lc_topology_free(t);
    return rc;
}

void lc_topology_free(struct lc_topology *t)
{
    if (t == NULL)
        return;
    if (t->nodes != NULL)
        for (int i = 0; i < t->nnodes; i++)
            free(t->nodes[i].cpus);
    free(t->nodes);
    free(t->dist);
    free(t->near);
    free(t->real_cpus);
    memset(t, 0, sizeof *t);
}

/* ------------------------------------------------------------- queries */

enum lc_dist_class lc_topology_class(const struct lc_topology *t, int a, int b)
{
    if (a < 0 || b < 0 || a >= t->nnodes || b >= t->nnodes)
        return LC_DIST_FAR;
    if (a == b)
        return LC_DIST_LOCAL;
    return t->dist[a * t->nnodes + b] <= t->near[a] ? LC_DIST_NEAR : LC_DIST_FAR;
}

int lc_topology_node_of_os(const struct lc_topology *t, int os_node)
{
    for (int i = 0; i < t->nnodes; i++)
        if (t->nodes[i].os_index == os_node)
            return i;
    return -1;
}

int lc_topology_place_workers(const struct lc_topology *t, int nworkers,
                              int *worker_node, int *worker_cpu)
{
    int prev = -1, k = 0;

    if (t == NULL || t->nnodes < 1 || nworkers < 1 || worker_node == NULL)
        return -EINVAL;
    for (int w = 0; w < nworkers; w++) {
        /* nondecreasing in w, so a node's workers are consecutive */
        int node = (int)((long long)w * t->nnodes / nworkers);
        const struct lc_topo_node *nd = &t->nodes[node];

        k = node == prev ? k + 1 : 0;
        prev = node;
        worker_node[w] = node;
        if (worker_cpu == NULL)
            continue;
        if (t->is_virtual)
            worker_cpu[w] = t->nreal_cpus > 0 ? t->real_cpus[w % t->nreal_cpus] : -1;
        else
            worker_cpu[w] = nd->ncpus > 0 ? nd->cpus[k % nd->ncpus] : -1;
    }
    return 0;
}

int lc_topology_bind_self(const struct lc_topology *t, int cpu)
{
    cpu_set_t *set;
    size_t sz;
    int known = 0, r;

    if (t == NULL || cpu < 0)
        return -EINVAL;
    for (int i = 0; i < t->nreal_cpus && !known; i++)
        known = t->real_cpus[i] == cpu;
    if (!known)
        return -EINVAL;   /* not a CPU of the affinity mask the topology was loaded with */
    if (cpu < CPU_SETSIZE) {
        /* on the stack: a thread's first malloc makes it a C library arena */
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        return sched_setaffinity(0, sizeof one, &one) != 0 ? -errno : 0;
    }
    if ((set = CPU_ALLOC(cpu + 1)) == NULL)
        return -ENOMEM;
    sz = CPU_ALLOC_SIZE(cpu + 1);
    CPU_ZERO_S(sz, set);
    CPU_SET_S(cpu, sz, set);
    r = sched_setaffinity(0, sz, set) != 0 ? -errno : 0;
    CPU_FREE(set);
    return r;
}

/* --------------------------------------------------------------- print */

void lc_topology_print_presets(void *f)
{
    FILE *out = f;

    for (int i = 0; i < NPRESETS; i++)
        fprintf(out, "  %-12s %s\n", presets[i].name, presets[i].desc);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;

    return x < y ? -1 : x > y;
}

/* Writes an ascending list as ranges ("0-17,36-53", "-" when empty). */
static void ranges(char *buf, size_t len, const int *v, int n)
{
    size_t off = 0;

    snprintf(buf, len, "-");
    for (int i = 0; i < n && off < len;) {
        int j = i, r;

        while (j + 1 < n && v[j + 1] == v[j] + 1)
            j++;
        if (j > i)
            r = snprintf(buf + off, len - off, "%s%d-%d", i ? "," : "", v[i], v[j]);
        else
            r = snprintf(buf + off, len - off, "%s%d", i ? "," : "", v[i]);
        if (r < 0)
            break;
        off += (size_t)r;
        i = j + 1;
    }
}

void lc_topology_print(const struct lc_topology *t, int nworkers,
                       const int *worker_node, FILE *f)
{
    int n = t->nnodes, *tmp, *count = NULL, m = n;
    char near[4096], cpus[4096];

    if (t->ncpus > m)
        m = t->ncpus;
    if (t->nreal_cpus > m)
        m = t->nreal_cpus;
    fprintf(f, "topology: %s (%s)\n  %s\n", t->name, t->is_virtual ? "virtual" : "real", t->desc);
    fprintf(f, "%d NUMA node%s, %d CPU%s", n, n == 1 ? "" : "s", t->ncpus, t->ncpus == 1 ? "" : "s");
    if (worker_node != NULL)
        fprintf(f, ", %d worker%s", nworkers, nworkers == 1 ? "" : "s");
    fputc('\n', f);
    tmp = malloc((size_t)(m + 1) * sizeof *tmp);
    if (worker_node != NULL)
        count = calloc((size_t)n, sizeof *count);
    if (tmp == NULL || (worker_node != NULL && count == NULL)) {
        fprintf(f, "(out of memory)\n");
        goto out;
    }
    for (int w = 0; worker_node != NULL && w < nworkers; w++)
        if (worker_node[w] >= 0 && worker_node[w] < n)
            count[worker_node[w]]++;

    fprintf(f, "\n node  os-node  cpus%s  steal-from    cpu-list\n", count ? "  workers" : "");
    for (int a = 0; a < n; a++) {
        const struct lc_topo_node *nd = &t->nodes[a];
        int k = 0;

        /* with workers laid out: the nearest nodes that have workers (what
         * naft's LOCUS_STEAL=near takes from), else the near class */
        int best = -1;
        for (int b = 0; count && b < n; b++)
            if (b != a && count[b] > 0 && (best < 0 || t->dist[a * n + b] < best))
                best = t->dist[a * n + b];
        for (int b = 0; b < n; b++)
            if (b != a && (count ? count[b] > 0 && t->dist[a * n + b] == best
                                 : lc_topology_class(t, a, b) == LC_DIST_NEAR))
                tmp[k++] = b;
        ranges(near, sizeof near, tmp, k);
        memcpy(tmp, nd->cpus, (size_t)nd->ncpus * sizeof *tmp);
        qsort(tmp, (size_t)nd->ncpus, sizeof *tmp, cmp_int);
        ranges(cpus, sizeof cpus, tmp, nd->ncpus);
        fprintf(f, "%5d  %7d  %4d", a, nd->os_index, nd->ncpus);
        if (count)
            fprintf(f, "  %7d", count[a]);
        fprintf(f, "  %-12s  %s\n", near, cpus);
    }

    fprintf(f, "\ndistances (10 = local; steal-from = the nodes at the row's nearest remote "
            "distance%s):\n     ", count ? " that have workers" : "");
    for (int b = 0; b < n; b++)
        fprintf(f, " %4d", b);
    fputc('\n', f);
    for (int a = 0; a < n; a++) {
        fprintf(f, "%4d:", a);
        for (int b = 0; b < n; b++)
            fprintf(f, " %4d", t->dist[a * n + b]);
        fputc('\n', f);
    }

    if (t->is_virtual) {
        memcpy(tmp, t->real_cpus, (size_t)t->nreal_cpus * sizeof *tmp);
        qsort(tmp, (size_t)t->nreal_cpus, sizeof *tmp, cmp_int);
        ranges(cpus, sizeof cpus, tmp, t->nreal_cpus);
        fprintf(f, "\nvirtual CPUs: workers bind round-robin to the %d real CPU%s %s%s\n",
                t->nreal_cpus, t->nreal_cpus == 1 ? "" : "s", cpus,
                t->nreal_cpus > 0 ? "" : " (no real CPUs known: unbound)");
    }
out:
    free(tmp);
    free(count);
}
