/*
 * test_topology.c - tests of runtime/topology.c and machine.c: the real
 * machine, sysfs trees written here (machine.c's reading of nodes, CPUs,
 * distances and SMT siblings), every
 * preset (bullion-s16 is the machine of Caheny et al., Table 2: local 10,
 * near 15, far 40), synthetic descriptions with and without distances, hwloc
 * XML files written here with hwloc's own export, bad specs, worker
 * placement and thread binding.
 */
#define _GNU_SOURCE /* sched_getcpu, open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <hwloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machine.h"
#include "topology.h"

static int total_cpus(const struct lc_topology *t)
{
    int n = 0;

    for (int i = 0; i < t->nnodes; i++)
        n += t->nodes[i].ncpus;
    return n;
}

static int in_list(int x, const int *v, int n)
{
    for (int i = 0; i < n; i++)
        if (v[i] == x)
            return 1;
    return 0;
}

/* Checks the invariants every loaded topology keeps. */
static void check_shape(const struct lc_topology *t)
{
    int n = t->nnodes, vcpu = 0;

    assert_true(n >= 1);
    assert_int_equal(total_cpus(t), t->ncpus);
    for (int a = 0; a < n; a++) {
        assert_true(t->nodes[a].ncpus >= 1);
        assert_int_equal(t->dist[a * n + a], 10);
        assert_int_equal(lc_topology_class(t, a, a), LC_DIST_LOCAL);
        assert_int_equal(lc_topology_node_of_os(t, t->nodes[a].os_index), a);
        for (int b = 0; b < n; b++)
            if (b != a)
                assert_true(t->dist[a * n + b] >= 10);
        if (t->is_virtual) /* virtual CPUs are 0..N-1 in node order */
            for (int k = 0; k < t->nodes[a].ncpus; k++)
                assert_int_equal(t->nodes[a].cpus[k], vcpu++);
    }
    assert_true(t->nreal_cpus >= 1);
    assert_int_equal(lc_topology_class(t, 0, n), LC_DIST_FAR);
    assert_int_equal(lc_topology_class(t, -1, 0), LC_DIST_FAR);
}

static void test_real_machine(void **state)
{
    (void)state;
    struct lc_topology t;
    char err[512];
    cpu_set_t set;

    assert_int_equal(lc_topology_load(&t, NULL, err, sizeof err), 0);
    check_shape(&t);
    assert_int_equal(t.is_virtual, 0);
    assert_non_null(t.real_cpus);
    assert_string_equal(t.name, "machine");
    assert_int_equal(t.dist[0], 10);
    assert_true(t.ncpus <= lc_affinity_cpus());
    /* Every CPU of a node is in the affinity mask and in no other node. */
    CPU_ZERO(&set);
    assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
    for (int a = 0; a < t.nnodes; a++)
        for (int k = 0; k < t.nodes[a].ncpus; k++) {
            int c = t.nodes[a].cpus[k];

            if (c < CPU_SETSIZE)
                assert_true(CPU_ISSET(c, &set));
            for (int b = a + 1; b < t.nnodes; b++)
                assert_false(in_list(c, t.nodes[b].cpus, t.nodes[b].ncpus));
        }
    lc_topology_free(&t);
    assert_null(t.nodes);
    lc_topology_free(&t); /* twice is harmless */

    /* "" is the real machine as well */
    assert_int_equal(lc_topology_load(&t, "", err, sizeof err), 0);
    assert_int_equal(t.is_virtual, 0);
    lc_topology_free(&t);
}

static void test_affinity_cpus(void **state)
{
    (void)state;
    cpu_set_t set;

    CPU_ZERO(&set);
    assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
    assert_true(lc_affinity_cpus() >= 1);
    assert_int_equal(lc_affinity_cpus(), CPU_COUNT(&set));
}

struct preset_case {
    const char *name;
    int nnodes, ncpus;
    int near, far;  /* distances from node 0: near class, far class (0: none) */
};

static void test_presets(void **state)
{
    (void)state;
    static const struct preset_case cases[] = {
        { "bullion-s16", 16, 288, 15, 40 },
        { "8s", 8, 144, 15, 40 },
        { "4s", 4, 60, 15, 40 },
        { "2s", 2, 32, 21, 0 },
        { "epyc-2s", 8, 64, 12, 32 },
    };
    char err[512];

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct preset_case *c = &cases[i];
        struct lc_topology t;
        int nnear = 0, nfar = 0;

        assert_int_equal(lc_topology_load(&t, c->name, err, sizeof err), 0);
        check_shape(&t);
        assert_int_equal(t.is_virtual, 1);
        assert_string_equal(t.name, c->name);
        assert_int_equal(t.nnodes, c->nnodes);
        assert_int_equal(t.ncpus, c->ncpus);
        for (int b = 1; b < t.nnodes; b++) {
            int d = t.dist[b];
            enum lc_dist_class k = lc_topology_class(&t, 0, b);

            assert_true(d == c->near || d == c->far);
            assert_int_equal(k, d == c->near ? LC_DIST_NEAR : LC_DIST_FAR);
            nnear += k == LC_DIST_NEAR;
            nfar += k == LC_DIST_FAR;
            assert_int_equal(t.dist[b * t.nnodes], d); /* symmetric */
        }
        assert_true(nnear >= 1);
        if (c->far == 0)
            assert_int_equal(nfar, 0);
        else
            assert_true(nfar >= 1);
        lc_topology_free(&t);
    }
}

static void test_bullion_s16(void **state)
{
    (void)state;
    struct lc_topology t;
    char err[512];

    /* Preset names are case-insensitive, like every LOCUS_* keyword. */
    assert_int_equal(lc_topology_load(&t, "Bullion-S16", err, sizeof err), 0);
    assert_int_equal(t.nnodes, 16);
    assert_int_equal(t.ncpus, 288);
    assert_int_equal(t.dist[0 * 16 + 1], 15);
    assert_int_equal(t.dist[0 * 16 + 2], 40);
    assert_int_equal(lc_topology_class(&t, 0, 1), LC_DIST_NEAR);
    assert_int_equal(lc_topology_class(&t, 0, 2), LC_DIST_FAR);
    assert_int_equal(lc_topology_class(&t, 1, 0), LC_DIST_NEAR);
    assert_int_equal(lc_topology_class(&t, 14, 15), LC_DIST_NEAR);
    assert_int_equal(lc_topology_class(&t, 13, 14), LC_DIST_FAR);
    /* exactly one near neighbour per node: the other socket of the module */
    for (int a = 0; a < 16; a++) {
        int nnear = 0;

        assert_int_equal(t.nodes[a].ncpus, 18);
        for (int b = 0; b < 16; b++)
            nnear += lc_topology_class(&t, a, b) == LC_DIST_NEAR;
        assert_int_equal(nnear, 1);
        assert_int_equal(lc_topology_class(&t, a, a ^ 1), LC_DIST_NEAR);
    }
    lc_topology_free(&t);
}

static void test_synthetic_default_distances(void **state)
{
    (void)state;
    struct lc_topology t;
    char err[512];

    assert_int_equal(lc_topology_load(&t, "synthetic:pack:2 numa:1 core:4 pu:1", err, sizeof err), 0);
    check_shape(&t);
    assert_int_equal(t.is_virtual, 1);
    assert_string_equal(t.name, "synthetic");
    assert_int_equal(t.nnodes, 2);
    assert_int_equal(t.nodes[0].ncpus, 4);
    assert_int_equal(t.nodes[1].ncpus, 4);
    assert_int_equal(t.dist[0], 10);
    assert_int_equal(t.dist[1], 20);
    assert_int_equal(t.dist[2], 20);
    assert_int_equal(t.dist[3], 10);
    assert_int_equal(lc_topology_class(&t, 0, 1), LC_DIST_NEAR);
    lc_topology_free(&t);

    /* no NUMA level: hwloc's single node holds every PU */
    assert_int_equal(lc_topology_load(&t, "synthetic:pack:2 core:3 pu:2", err, sizeof err), 0);
    check_shape(&t);
    assert_int_equal(t.nnodes, 1);
    assert_int_equal(t.ncpus, 12);
    lc_topology_free(&t);
}

static void test_synthetic_distances(void **state)
{
    (void)state;
    struct lc_topology t;
    char err[512];
    static const int m[16] = { 10, 12, 30, 31, 12, 10, 30, 31, 30, 31, 10, 12, 31, 30, 12, 10 };

    /* full matrix, asymmetric on purpose */
    assert_int_equal(lc_topology_load(&t, "synthetic:pack:4 numa:1 core:2 pu:1;"
                                      "dist=10,12,30,31,12,10,30,31,30,31,10,12,31,30,12,10",
                                      err, sizeof err), 0);
    check_shape(&t);
    assert_int_equal(t.nnodes, 4);
    assert_memory_equal(t.dist, m, sizeof m);
    assert_int_equal(lc_topology_class(&t, 0, 1), LC_DIST_NEAR);
    assert_int_equal(lc_topology_class(&t, 0, 2), LC_DIST_FAR);
    assert_int_equal(lc_topology_class(&t, 0, 3), LC_DIST_FAR);
    assert_int_equal(lc_topology_class(&t, 3, 2), LC_DIST_NEAR);
    assert_int_equal(lc_topology_class(&t, 3, 0), LC_DIST_FAR);
    lc_topology_free(&t);

    /* local,remote */
    assert_int_equal(lc_topology_load(&t, "synthetic:pack:3 numa:1 core:1 pu:1;dist=10,25",
                                      err, sizeof err), 0);
    assert_int_equal(t.nnodes, 3);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            assert_int_equal(t.dist[a * 3 + b], a == b ? 10 : 25);
    lc_topology_free(&t);

    /* local,near,far: near inside a package (two nodes per package) */
    assert_int_equal(lc_topology_load(&t, "synthetic:pack:2 numa:2 core:2 pu:1;dist=10, 11, 22",
                                      err, sizeof err), 0);
    assert_int_equal(t.nnodes, 4);
    assert_int_equal(t.dist[0 * 4 + 1], 11);
    assert_int_equal(t.dist[0 * 4 + 2], 22);
    assert_int_equal(t.dist[3 * 4 + 2], 11);
    assert_int_equal(t.dist[3 * 4 + 1], 22);
    lc_topology_free(&t);
}

/* Exports "pack:NPACK numa:1 core:2 pu:1" to an XML file, with a NUMA
 * latency matrix when values is not NULL. */
static void write_xml(const char *path, int npack, const uint64_t *values)
{
    hwloc_topology_t topo;
    char desc[64];

    snprintf(desc, sizeof desc, "pack:%d numa:1 core:2 pu:1", npack);
    assert_int_equal(hwloc_topology_init(&topo), 0);
    assert_int_equal(hwloc_topology_set_synthetic(topo, desc), 0);
    assert_int_equal(hwloc_topology_load(topo), 0);
    if (values != NULL) {
        hwloc_obj_t objs[16];
        hwloc_distances_add_handle_t h;

        assert_true(npack <= 16);
        for (int i = 0; i < npack; i++)
            objs[i] = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
        h = hwloc_distances_add_create(topo, "NUMALatency",
                                       HWLOC_DISTANCES_KIND_FROM_USER | HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0);
        assert_non_null(h);
        assert_int_equal(hwloc_distances_add_values(topo, h, (unsigned)npack, objs,
                                                    (hwloc_uint64_t *)values, 0), 0);
        assert_int_equal(hwloc_distances_add_commit(topo, h, 0), 0);
    }
    assert_int_equal(hwloc_topology_export_xml(topo, path, 0), 0);
    hwloc_topology_destroy(topo);
}

static void temp_path(char *buf, size_t len)
{
    const char *dir = getenv("TMPDIR");
    int fd;

    snprintf(buf, len, "%s/lc_topo_XXXXXX", dir && *dir ? dir : "/tmp");
    fd = mkstemp(buf);
    assert_true(fd >= 0);
    close(fd);
}

static void test_xml(void **state)
{
    (void)state;
    static const uint64_t slit[16] = { 10, 15, 40, 40, 15, 10, 40, 40, 40, 40, 10, 15, 40, 40, 15, 10 };
    /* Table 2's latencies in ns: rescaled to local = 10 */
    static const uint64_t ns[4] = { 125, 178, 178, 125 };
    struct lc_topology t;
    char path[4096], err[512];

    temp_path(path, sizeof path);

    write_xml(path, 4, slit);
    assert_int_equal(lc_topology_load(&t, path, err, sizeof err), 0);
    check_shape(&t);
    assert_int_equal(t.is_virtual, 1);
    assert_string_equal(t.name, "xml");
    assert_int_equal(t.nnodes, 4);
    assert_int_equal(t.ncpus, 8);
    for (int i = 0; i < 16; i++)
        assert_int_equal(t.dist[i], (int)slit[i]);
    assert_int_equal(lc_topology_class(&t, 0, 1), LC_DIST_NEAR);
    assert_int_equal(lc_topology_class(&t, 0, 2), LC_DIST_FAR);
    lc_topology_free(&t);

    write_xml(path, 2, ns);
    assert_int_equal(lc_topology_load(&t, path, err, sizeof err), 0);
    assert_int_equal(t.dist[0], 10);
    assert_int_equal(t.dist[1], 14);
    assert_int_equal(t.dist[3], 10);
    lc_topology_free(&t);

    write_xml(path, 3, NULL);
    assert_int_equal(lc_topology_load(&t, path, err, sizeof err), 0);
    assert_int_equal(t.nnodes, 3);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            assert_int_equal(t.dist[a * 3 + b], a == b ? 10 : 20);
    lc_topology_free(&t);

    unlink(path);
}

static void expect_error(const char *spec, int rc, const char *mention)
{
    struct lc_topology t;
    char err[1024];

    memset(&t, 0x5a, sizeof t);
    err[0] = '\0';
    assert_int_equal(lc_topology_load(&t, spec, err, sizeof err), rc);
    assert_non_null(strstr(err, mention));
    assert_null(t.nodes); /* left empty */
    lc_topology_free(&t);
}

static void test_bad_specs(void **state)
{
    (void)state;
    char path[4096];
    FILE *f;

    expect_error("nonesuch", -EINVAL, "nonesuch");
    expect_error("nonesuch", -EINVAL, "bullion-s16"); /* lists the presets */
    expect_error("help", -EINVAL, "help");
    expect_error("synthetic:pack:zz", -EINVAL, "pack:zz");
    expect_error("synthetic:", -EINVAL, "synthetic:");
    expect_error("/nonexistent/locus/topology.xml", -ENOENT, "/nonexistent/locus/topology.xml");
    expect_error("missing-file.xml", -ENOENT, "missing-file.xml");
    expect_error("synthetic:pack:2 numa:1 core:1 pu:1;dist=10,20,20,10,30", -EINVAL, "dist=");
    expect_error("synthetic:pack:2 numa:1 core:1 pu:1;dist=10,x", -EINVAL, "10,x");
    expect_error("synthetic:pack:2 numa:1 core:1 pu:1;dist=10,5", -EINVAL, "dist=");
    expect_error("synthetic:pack:2 numa:1 core:1 pu:1;dist=10,30,20", -EINVAL, "dist=");
    expect_error("synthetic:pack:2 numa:1 core:1 pu:1;dist=11,20,20,10", -EINVAL, "diagonal");
    expect_error("synthetic:pack:2 numa:1 core:1 pu:1;dist=10,20,2000,10", -EINVAL, "2000");
    expect_error("synthetic:pack:2 numa:1 core:1 pu:1;dist=", -EINVAL, "dist=");
    expect_error("synthetic:pack:2 numa:1 core:1 pu:1;colour=red", -EINVAL, "colour=red");

    /* a file that is not XML */
    temp_path(path, sizeof path);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("not xml at all\n", f);
    fclose(f);
    expect_error(path, -EINVAL, path);
    unlink(path);
}

/* Checks the spread rule on t for nworkers workers. */
static void check_placement(const struct lc_topology *t, int nworkers)
{
    int *node = malloc((size_t)nworkers * sizeof *node);
    int *cpu = malloc((size_t)nworkers * sizeof *cpu);
    int *count = calloc((size_t)t->nnodes, sizeof *count);
    int lo = nworkers / t->nnodes, hi = lo + (nworkers % t->nnodes != 0);

    assert_non_null(node);
    assert_non_null(cpu);
    assert_non_null(count);
    assert_int_equal(lc_topology_place_workers(t, nworkers, node, cpu), 0);
    for (int w = 0; w < nworkers; w++) {
        assert_true(node[w] >= 0 && node[w] < t->nnodes);
        if (w > 0)
            assert_true(node[w] >= node[w - 1]);
        count[node[w]]++;
        assert_true(in_list(cpu[w], t->real_cpus, t->nreal_cpus));
        if (!t->is_virtual)
            assert_true(in_list(cpu[w], t->nodes[node[w]].cpus, t->nodes[node[w]].ncpus));
    }
    for (int a = 0; a < t->nnodes; a++)
        assert_true(count[a] >= lo && count[a] <= hi);
    /* distinct CPUs inside a node while it has enough (real machine) */
    for (int w = 0; !t->is_virtual && w < nworkers; w++)
        for (int v = w + 1; v < nworkers; v++)
            if (node[v] == node[w] && count[node[w]] <= t->nodes[node[w]].ncpus)
                assert_int_not_equal(cpu[v], cpu[w]);
    free(node);
    free(cpu);
    free(count);
}

static void test_placement(void **state)
{
    (void)state;
    struct lc_topology t;
    char err[512];
    int node[64], cpu[64];

    assert_int_equal(lc_topology_load(&t, "bullion-s16", err, sizeof err), 0);
    assert_int_equal(lc_topology_place_workers(&t, 16, node, cpu), 0);
    for (int w = 0; w < 16; w++)
        assert_int_equal(node[w], w);
    assert_int_equal(lc_topology_place_workers(&t, 32, node, cpu), 0);
    for (int w = 0; w < 32; w++)
        assert_int_equal(node[w], w / 2);
    assert_int_equal(lc_topology_place_workers(&t, 2, node, cpu), 0);
    assert_int_equal(node[0], 0);
    assert_int_equal(node[1], 8);
    assert_int_equal(lc_topology_place_workers(&t, 4, node, NULL), 0);
    assert_int_equal(node[0], 0);
    assert_int_equal(node[1], 4);
    assert_int_equal(node[2], 8);
    assert_int_equal(node[3], 12);
    /* virtual: real CPUs round-robin */
    assert_int_equal(lc_topology_place_workers(&t, 64, node, cpu), 0);
    for (int w = 0; w < 64; w++)
        assert_int_equal(cpu[w], t.real_cpus[w % t.nreal_cpus]);
    for (int n = 1; n <= 100; n++)
        check_placement(&t, n);
    check_placement(&t, 4096);
    assert_int_equal(lc_topology_place_workers(&t, 0, node, cpu), -EINVAL);
    assert_int_equal(lc_topology_place_workers(&t, -3, node, cpu), -EINVAL);
    assert_int_equal(lc_topology_place_workers(&t, 4, NULL, cpu), -EINVAL);
    lc_topology_free(&t);

    assert_int_equal(lc_topology_load(&t, "epyc-2s", err, sizeof err), 0);
    for (int n = 1; n <= 40; n++)
        check_placement(&t, n);
    lc_topology_free(&t);

    assert_int_equal(lc_topology_load(&t, NULL, err, sizeof err), 0);
    for (int n = 1; n <= 3 * t.ncpus; n++)
        check_placement(&t, n);
    lc_topology_free(&t);
}

struct bind_arg {
    const struct lc_topology *t;
    int cpu;
    int rc;
    int seen;   /* sched_getcpu() after binding */
};

static void *bind_thread(void *p)
{
    struct bind_arg *a = p;

    a->rc = lc_topology_bind_self(a->t, a->cpu);
    a->seen = a->rc == 0 ? sched_getcpu() : -1;
    return NULL;
}

/* Binds a fresh thread (so the test's own mask stays as it was). */
static struct bind_arg bind_in_thread(const struct lc_topology *t, int cpu)
{
    struct bind_arg a = { t, cpu, -1, -1 };
    pthread_t th;

    assert_int_equal(pthread_create(&th, NULL, bind_thread, &a), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    return a;
}

static void test_binding(void **state)
{
    (void)state;
    struct lc_topology t;
    char err[512];
    int node[8], cpu[8], nw;
    struct bind_arg a;

    assert_int_equal(lc_topology_load(&t, NULL, err, sizeof err), 0);
    a = bind_in_thread(&t, t.nodes[0].cpus[0]);
    if (a.rc == -ENOSYS || a.rc == -EPERM) {
        print_message("binding skipped: sched_setaffinity says %s here\n", strerror(-a.rc));
        lc_topology_free(&t);
        skip();
    }
    nw = t.ncpus < 8 ? t.ncpus : 8;
    assert_int_equal(lc_topology_place_workers(&t, nw, node, cpu), 0);
    for (int w = 0; w < nw; w++) {
        a = bind_in_thread(&t, cpu[w]);
        assert_int_equal(a.rc, 0);
        /* bound to one CPU, the thread can only be running there */
        assert_int_equal(a.seen, cpu[w]);
    }
    assert_int_equal(lc_topology_bind_self(&t, -1), -EINVAL);
    assert_int_equal(lc_topology_bind_self(&t, 1 << 30), -EINVAL);
    lc_topology_free(&t);

    /* a virtual topology binds to real CPUs */
    assert_int_equal(lc_topology_load(&t, "bullion-s16", err, sizeof err), 0);
    assert_int_equal(lc_topology_place_workers(&t, 8, node, cpu), 0);
    for (int w = 0; w < 8; w++) {
        a = bind_in_thread(&t, cpu[w]);
        assert_int_equal(a.rc, 0);
        assert_int_equal(a.seen, cpu[w]);
    }
    lc_topology_free(&t);
}

static char *print_to_string(const struct lc_topology *t, int nworkers, const int *node)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    assert_non_null(f);
    lc_topology_print(t, nworkers, node, f);
    fclose(f);
    return buf;
}

static void test_print(void **state)
{
    (void)state;
    struct lc_topology t;
    char err[512], *s, *buf = NULL;
    size_t len = 0;
    int node[32];
    FILE *f;

    assert_int_equal(lc_topology_load(&t, "bullion-s16", err, sizeof err), 0);
    assert_int_equal(lc_topology_place_workers(&t, 32, node, NULL), 0);
    s = print_to_string(&t, 32, node);
    assert_non_null(strstr(s, "bullion-s16"));
    assert_non_null(strstr(s, "16 NUMA nodes, 288 CPUs, 32 workers"));
    /* node 0: os node 0, 18 CPUs, 2 workers, steals from node 1, CPUs 0-17 */
    assert_non_null(strstr(s, "    0        0    18        2  1             0-17\n"));
    assert_non_null(strstr(s, "   15       15    18        2  14            270-287\n"));
    assert_non_null(strstr(s, "   0:   10   15   40"));
    free(s);
    s = print_to_string(&t, 0, NULL);
    assert_null(strstr(s, "cpus  workers"));
    assert_non_null(strstr(s, "cpus  steal-from"));
    free(s);
    lc_topology_free(&t);

    assert_int_equal(lc_topology_load(&t, NULL, err, sizeof err), 0);
    s = print_to_string(&t, 0, NULL);
    assert_non_null(strstr(s, "(real)"));
    free(s);
    lc_topology_free(&t);

    f = open_memstream(&buf, &len);
    assert_non_null(f);
    lc_topology_print_presets(f);
    fclose(f);
    assert_non_null(strstr(buf, "bullion-s16"));
    assert_non_null(strstr(buf, "2s"));
    assert_non_null(strstr(buf, "4s"));
    assert_non_null(strstr(buf, "8s"));
    free(buf);
}


/* ---- machine.c on sysfs trees written here ---- */

static void put(const char *root, const char *rel, const char *text)
{
    char path[512], cmd[600];

    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
    assert_int_equal(system(cmd), 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *new_tree(void)
{
    static char dir[64];

    snprintf(dir, sizeof dir, "/tmp/lc-sysfs-XXXXXX");
    assert_non_null(mkdtemp(dir));
    return dir;
}

static void drop_tree(const char *dir)
{
    char cmd[128];

    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_machine_sysfs(void **state)
{
    (void)state;
    struct lc_machine m;
    char *root = new_tree();

    /* two nodes with CPUs, an HBM node without (node 4, a gap in the
     * numbering), distances for all three */
    put(root, "devices/system/node/online", "0-1,4\n");
    put(root, "devices/system/node/node0/cpulist", "0-1,4\n");
    put(root, "devices/system/node/node1/cpulist", "2-3,5\n");
    put(root, "devices/system/node/node4/cpulist", "\n");
    put(root, "devices/system/node/node0/distance", "10 21 31\n");
    put(root, "devices/system/node/node1/distance", "21 10 41\n");
    put(root, "devices/system/node/node4/distance", "31 41 10\n");
    put(root, "devices/system/cpu/cpu5/topology/thread_siblings_list", "2,5\n");
    put(root, "devices/system/cpu/cpu2/topology/thread_siblings_list", "2,5\n");
    assert_int_equal(lc_machine_read(root, &m), 0);
    assert_int_equal(m.nnodes, 3);
    assert_int_equal(m.nodes[0].os_index, 0);
    assert_int_equal(m.nodes[1].os_index, 1);
    assert_int_equal(m.nodes[2].os_index, 4);
    assert_int_equal(m.nodes[0].ncpus, 3);
    assert_int_equal(m.nodes[0].cpus[2], 4);
    assert_int_equal(m.nodes[1].ncpus, 3);
    assert_int_equal(m.nodes[1].cpus[0], 2);
    assert_int_equal(m.nodes[2].ncpus, 0);
    assert_non_null(m.dist);
    assert_int_equal(m.dist[0 * 3 + 1], 21);
    assert_int_equal(m.dist[1 * 3 + 2], 41);
    assert_int_equal(m.dist[2 * 3 + 2], 10);
    lc_machine_free(&m);
    assert_int_equal(m.nnodes, 0);
    lc_machine_free(&m);   /* twice is harmless */
    {
        /* 5 and 2 are one core's threads (2 first), 7 is not described */
        int cpus[] = { 5, 7, 2 }, rank[3];
        assert_int_equal(lc_machine_smt_ranks(root, cpus, 3, rank), 0);
        assert_int_equal(rank[0], 1);
        assert_int_equal(rank[1], 0);   /* not described: first */
        assert_int_equal(rank[2], 0);
        /* the kernel says no sibling is running: no list is read */
        put(root, "devices/system/cpu/smt/active", "0\n");
        assert_int_equal(lc_machine_smt_ranks(root, cpus, 3, rank), 0);
        assert_int_equal(rank[0], 0);
        put(root, "devices/system/cpu/smt/active", "1\n");
        assert_int_equal(lc_machine_smt_ranks(root, cpus, 3, rank), 0);
        assert_int_equal(rank[0], 1);
    }

    /* a distance row that does not cover the nodes: no matrix, no error */
    put(root, "devices/system/node/node1/distance", "21 10\n");
    assert_int_equal(lc_machine_read(root, &m), 0);
    assert_int_equal(m.nnodes, 3);
    assert_null(m.dist);
    lc_machine_free(&m);
    put(root, "devices/system/node/node1/distance", "21 ten 41\n");
    assert_int_equal(lc_machine_read(root, &m), 0);
    assert_null(m.dist);
    lc_machine_free(&m);

    /* a cpulist that does not parse is an error, and leaves nothing */
    put(root, "devices/system/node/node1/cpulist", "2-x\n");
    assert_int_equal(lc_machine_read(root, &m), -EINVAL);
    assert_int_equal(m.nnodes, 0);
    assert_null(m.nodes);
    put(root, "devices/system/node/node1/cpulist", "3-2\n");
    assert_int_equal(lc_machine_read(root, &m), -EINVAL);
    put(root, "devices/system/node/online", "0,,1\n");
    assert_int_equal(lc_machine_read(root, &m), -EINVAL);
    drop_tree(root);

    /* a kernel without NUMA: no nodes, not an error */
    root = new_tree();
    assert_int_equal(lc_machine_read(root, &m), 0);
    assert_int_equal(m.nnodes, 0);
    assert_null(m.dist);
    drop_tree(root);
}

/* The real machine read through machine.c agrees with what the kernel
 * gives libnuma-style tools: every CPU of the affinity mask is in exactly
 * one node, and the nodes are the kernel's. */
static void test_real_machine_is_sysfs(void **state)
{
    (void)state;
    struct lc_topology t;
    struct lc_machine m;
    char err[512];

    assert_int_equal(lc_machine_read("/sys", &m), 0);
    assert_int_equal(lc_topology_load(&t, NULL, err, sizeof err), 0);
    assert_int_equal(t.ncpus, t.nreal_cpus);
    for (int a = 0; a < t.nnodes; a++) {
        int found = m.nnodes == 0 && t.nodes[a].os_index == 0;

        for (int i = 0; i < m.nnodes; i++)
            if (m.nodes[i].os_index == t.nodes[a].os_index) {
                found = 1;
                for (int k = 0; k < t.nodes[a].ncpus; k++)
                    assert_true(in_list(t.nodes[a].cpus[k], m.nodes[i].cpus, m.nodes[i].ncpus));
            }
        assert_true(found);
    }
    lc_machine_free(&m);
    lc_topology_free(&t);
}

int main(void)
{
    /* A hang fails the run instead of blocking it; nothing here needs a second. */
    alarm(60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_machine),
        cmocka_unit_test(test_affinity_cpus),
        cmocka_unit_test(test_presets),
        cmocka_unit_test(test_bullion_s16),
        cmocka_unit_test(test_synthetic_default_distances),
        cmocka_unit_test(test_synthetic_distances),
        cmocka_unit_test(test_xml),
        cmocka_unit_test(test_bad_specs),
        cmocka_unit_test(test_placement),
        cmocka_unit_test(test_binding),
        cmocka_unit_test(test_print),
        cmocka_unit_test(test_machine_sysfs),
        cmocka_unit_test(test_real_machine_is_sysfs),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
