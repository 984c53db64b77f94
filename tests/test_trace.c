/*
 * test_trace.c - LOCUS_TRACE (OTF2) and LOCUS_DAG (Graphviz dot) on a run
 * of known tasks: eight labelled tasks whose dependencies cover each rule
 * (readers after the last writer, a writer after the readers since, not
 * after the writer they follow), on data booked on different nodes of a
 * virtual four-node machine.  Checked: otf2-print reads the trace and
 * counts as many task entries as leaves; locus-trace lists one task per
 * task run (locus_get_stats), each with the label it was given, on the
 * worker and node the task itself saw (locus_worker_id/node), and the
 * local/near/far bytes of all tasks sum to locus_get_stats'; locus-trace
 * summary, timeline and compare run and the PNGs are written (timeline
 * without -o: TRACE-DIR-NAME-timeline.png in the current directory); an OpenMP
 * program through liblocus-gomp gets its outlined functions as labels; the
 * dot file parses (dot -Tsvg), has one node per task, labelled with the
 * task's label and node, and exactly the declared edges, and dot draws as
 * many nodes and edges; past 5000 tasks it holds a note instead; a task
 * of a static function without a label is named by the function.  A chain
 * with a fan (partial overlaps) gets its declared edges written beside
 * the trace and locus-trace summary's critical path runs through its
 * chain's tasks.
 * "%p" in LOCUS_TRACE and LOCUS_DAG is the process id.
 * Bad input: an uncreatable trace directory, a file where the directory
 * should be, a directory that already holds a trace, an unwritable graph
 * path, a bad label, a full disk for each (/dev/full, a file size limit):
 * each a clear error, and the runtime starts again afterwards.
 * Tests needing otf2-print, dot or python3-otf2 skip with the reason.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "config.h"
#include "locus.h"

/* tests/test_trace_nootf2.c includes this file as a build without OTF2 */
#ifndef LOCUS_HAVE_OTF2_BUILD
#ifdef HAVE_OTF2
#define LOCUS_HAVE_OTF2_BUILD 1
#else
#define LOCUS_HAVE_OTF2_BUILD 0
#endif
#endif

#define NT 8
static char tmpdir[PATH_MAX];
static const char *const names[NT] = { "k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7" };

struct seen {
    int worker, node;
};
static struct seen seen[NT];

static void body(void *arg)
{
    int k = *(const int *)arg;
    seen[k].worker = locus_worker_id();
    seen[k].node = locus_worker_node();
    volatile unsigned x = 0;
    for (unsigned i = 0; i < 200000; i++)   /* long enough to be seen on a timeline */
        x += i;
}

/* The declared edges of the program below, a -> b. */
static const int edges[][2] = {
    { 0, 2 }, { 1, 2 }, { 2, 3 }, { 2, 4 }, { 3, 5 }, { 4, 5 }, { 0, 6 }, { 2, 7 }, { 6, 7 },
};
#define NEDGES (sizeof edges / sizeof edges[0])

static int spawn(int k, const locus_dep_t *d, size_t n)
{
    locus_task_attr_t a = LOCUS_TASK_ATTR_INIT;
    a.label = names[k];
    return locus_spawn_attr(body, &k, sizeof k, d, n, &a);
}

/* Runs the known tasks; fills *st (after the taskwait) and returns 0 or
 * locus_finalize()'s result. */
static int run_known(locus_stats_t *st, locus_node_stats_t *ns, int *nn)
{
    void *x[3];
    size_t sz = 1 << 16;
    memset(seen, -1, sizeof seen);
    assert_int_equal(locus_init(), 0);
    *nn = locus_num_nodes();
    for (int i = 0; i < 3; i++)
        assert_int_equal(locus_alloc(&x[i], sz, &LOCUS_PLACE_ON_NODE(i % *nn)), 0);
    locus_dep_t d[3];
    d[0] = LOCUS_OUT(x[0], sz);
    assert_int_equal(spawn(0, d, 1), 0);
    d[0] = LOCUS_OUT(x[1], sz);
    assert_int_equal(spawn(1, d, 1), 0);
    d[0] = LOCUS_IN(x[0], sz), d[1] = LOCUS_IN(x[1], sz), d[2] = LOCUS_OUT(x[2], sz);
    assert_int_equal(spawn(2, d, 3), 0);
    d[0] = LOCUS_IN(x[2], sz);
    assert_int_equal(spawn(3, d, 1), 0);
    assert_int_equal(spawn(4, d, 1), 0);
    d[0] = LOCUS_INOUT(x[2], sz);
    assert_int_equal(spawn(5, d, 1), 0);   /* after 3 and 4, not after 2 */
    d[0] = LOCUS_IN(x[0], sz);
    assert_int_equal(spawn(6, d, 1), 0);   /* after 0 only */
    d[0] = LOCUS_OUT(x[0], sz);
    assert_int_equal(spawn(7, d, 1), 0);   /* after the readers 2 and 6, not after 0 */
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(locus_get_stats(st, sizeof *st), 0);
    for (int n = 0; n < *nn && n < 4; n++)
        assert_int_equal(locus_get_node_stats(n, &ns[n], sizeof ns[n]), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(locus_free(x[i], sz), 0);
    return locus_finalize();
}

static int have(const char *cmd)
{
    char buf[256];
    snprintf(buf, sizeof buf, "command -v %s >/dev/null 2>&1", cmd);
    return system(buf) == 0;
}

static int have_pyotf2(void)
{
    return system("/usr/bin/python3 -c 'import otf2, matplotlib' >/dev/null 2>&1") == 0;
}

static void env_clean(void)
{
    unsetenv("LOCUS_TRACE");
    unsetenv("LOCUS_DAG");
}

static int setup(void **state)
{
    (void)state;
    setenv("LOCUS_TOPOLOGY", "4s", 1);
    setenv("LOCUS_THREADS", "4", 1);
    setenv("LOCUS_REGIME", "naft", 1);
    env_clean();
    return 0;
}

/* ---- the traced run ------------------------------------------------------ */

static void test_traced_run(void **state)
{
    (void)state;
    if (!LOCUS_HAVE_OTF2_BUILD) {
        print_message("skipped: a build without OTF2 writes no trace (test_bad_paths checks "
                      "its error)\n");
        skip();
    }
    if (!have("otf2-print") || !have_pyotf2()) {
        print_message("skipped: otf2-print (otf2-tools) or python3-otf2/matplotlib missing\n");
        skip();
    }
    char dir[PATH_MAX + 16], dag[PATH_MAX + 16], cmd[4 * PATH_MAX], line[512];
    snprintf(dir, sizeof dir, "%s/trace", tmpdir);
    snprintf(dag, sizeof dag, "%s/g.dot", tmpdir);
    setenv("LOCUS_TRACE", dir, 1);
    setenv("LOCUS_DAG", dag, 1);
    locus_stats_t st;
    locus_node_stats_t ns[4];
    int nn;
    assert_int_equal(run_known(&st, ns, &nn), 0);
    env_clean();
    assert_int_equal(st.tasks_run, NT);

    /* otf2-print reads it: as many task entries as leaves of them */
    snprintf(cmd, sizeof cmd, "otf2-print '%s/traces.otf2' 2>&1", dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    int enter = 0, leave = 0, lines = 0;
    while (fgets(line, sizeof line, p)) {
        lines++;
        if (strncmp(line, "ENTER ", 6) == 0 && strstr(line, "Region: \"k"))
            enter++;
        if (strncmp(line, "LEAVE ", 6) == 0 && strstr(line, "Region: \"k"))
            leave++;
    }
    assert_int_equal(pclose(p), 0);
    assert_true(lines > NT);
    assert_int_equal((uint64_t)enter, st.tasks_run);   /* begins == tasks run */
    assert_int_equal((uint64_t)leave, st.tasks_run);

    /* locus-trace: each task once, with its label, where it ran, its bytes */
    snprintf(cmd, sizeof cmd, "tools/locus-trace tasks '%s'", dir);
    p = popen(cmd, "r");
    assert_non_null(p);
    int count[NT] = { 0 }, n = 0;
    unsigned long long sum[3] = { 0, 0, 0 };
    while (fgets(line, sizeof line, p)) {
        char label[80];
        int w, node;
        unsigned long long t0, t1, b[3];
        assert_int_equal(sscanf(line, "%79s %d %d %llu %llu %llu %llu %llu", label, &w, &node,
                                &t0, &t1, &b[0], &b[1], &b[2]), 8);
        assert_true(t1 >= t0);
        int k = -1;
        for (int i = 0; i < NT; i++)
            if (strcmp(label, names[i]) == 0)
                k = i;
        assert_true(k >= 0);   /* a label that was given */
        count[k]++;
        assert_int_equal(w, seen[k].worker);
        assert_int_equal(node, seen[k].node);
        for (int c = 0; c < 3; c++)
            sum[c] += b[c];
        n++;
    }
    assert_int_equal(pclose(p), 0);
    assert_int_equal(n, (int)st.tasks_run);
    for (int k = 0; k < NT; k++)
        assert_int_equal(count[k], 1);
    assert_int_equal(sum[0], st.bytes_local);
    assert_int_equal(sum[1], st.bytes_near);
    assert_int_equal(sum[2], st.bytes_far);
    assert_true(st.bytes_local + st.bytes_near + st.bytes_far > 0);

    /* tasks per node: the trace's against the report's */
    snprintf(cmd, sizeof cmd, "tools/locus-trace summary '%s' > '%s/summary.txt'", dir, tmpdir);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/summary.txt", tmpdir);
    FILE *f = fopen(cmd, "r");
    assert_non_null(f);
    int nodes_seen = 0, crit = 0;
    while (fgets(line, sizeof line, f)) {
        int node, workers, tasks;
        double idle;
        if (sscanf(line, "  node %d %d workers, %lf%% idle, %d tasks", &node, &workers, &idle,
                   &tasks) == 4 && node < 4) {
            assert_int_equal((uint64_t)tasks, ns[node].tasks_run);
            nodes_seen++;
        }
        crit += strncmp(line, "critical path:", 14) == 0;
    }
    fclose(f);
    assert_int_equal(nodes_seen, nn < 4 ? nn : 4);
    assert_int_equal(crit, 1);

    /* the timelines are drawn: by label without -o, into NAME-timeline.png
     * in the current directory (NAME: the trace directory's), which it
     * names; by far bytes into the -o file */
    char top[PATH_MAX];
    assert_non_null(getcwd(top, sizeof top));
    for (int far = 0; far < 2; far++) {
        char out[PATH_MAX + 32];
        if (far) {
            snprintf(out, sizeof out, "%s/t1.png", tmpdir);
            snprintf(cmd, sizeof cmd, "tools/locus-trace timeline '%s' --color far -o '%s' "
                     ">/dev/null", dir, out);
            assert_int_equal(system(cmd), 0);
        } else {
            snprintf(out, sizeof out, "%s/trace-timeline.png", tmpdir);
            assert_int_equal(access(out, F_OK), -1);
            snprintf(cmd, sizeof cmd, "cd '%s' && '%s/tools/locus-trace' timeline '%s/'", tmpdir,
                     top, dir);
            p = popen(cmd, "r");
            assert_non_null(p);
            int named = 0;
            while (fgets(line, sizeof line, p))
                named += strcmp(line, "locus-trace: wrote trace-timeline.png\n") == 0;
            assert_int_equal(pclose(p), 0);
            assert_int_equal(named, 1);
        }
        f = fopen(out, "rb");
        assert_non_null(f);
        unsigned char magic[8];
        assert_int_equal(fread(magic, 1, 8, f), 8);
        fclose(f);
        assert_memory_equal(magic, "\x89PNG\r\n\x1a\n", 8);
    }
    snprintf(cmd, sizeof cmd, "tools/locus-trace compare '%s' '%s' >/dev/null", dir, dir);
    assert_int_equal(system(cmd), 0);
}

/* Through liblocus-gomp: an OpenMP program's tasks are named by their
 * outlined functions (fib._omp_fn.N: object+offset in the trace, which
 * locus-trace turns into the function with addr2line). */
static void test_gomp_labels(void **state)
{
    (void)state;
    char self[PATH_MAX], build[PATH_MAX], prog[PATH_MAX + 32], cmd[4 * PATH_MAX], line[512];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(n > 0);
    self[n] = '\0';
    snprintf(build, sizeof build, "%s", self);
    for (int up = 0; up < 2; up++) {   /* BUILD/tests/test_trace -> BUILD */
        char *slash = strrchr(build, '/');
        assert_non_null(slash);
        *slash = '\0';
    }
    snprintf(prog, sizeof prog, "%s/tests/gomp/omp_tasks", build);
    if (!LOCUS_HAVE_OTF2_BUILD || access(prog, X_OK) != 0 || !have_pyotf2()
        || !have("addr2line")) {
        print_message("skipped: needs OTF2, %s (gcc -fopenmp), python3-otf2 and addr2line\n",
                      prog);
        skip();
    }
    int k = snprintf(cmd, sizeof cmd, "LD_LIBRARY_PATH='%s/gomp' LOCUS_TRACE='%s/gomp-trace' "
                     "LOCUS_TOPOLOGY= '%s' >/dev/null 2>&1 && "
                     "tools/locus-trace tasks '%s/gomp-trace'", build, tmpdir, prog, tmpdir);
    assert_true(k > 0 && (size_t)k < sizeof cmd);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    int tasks = 0, fib = 0;
    while (fgets(line, sizeof line, p)) {
        tasks++;
        fib += strncmp(line, "fib._omp_fn.", 12) == 0;
    }
    assert_int_equal(pclose(p), 0);
    assert_true(tasks > 100);
    assert_true(fib > 10);
}

/* ---- the critical path ------------------------------------------------------ */

/* A chain with a fan in its middle and a task beside it:
 *   a (out x) -> fan x4 (each in a quarter of x) -> b (inout x) -> c (inout x);
 *   side (out y) alone.
 * The fans read parts of what a and b write (partial overlaps: graph.c's
 * pairwise rule; test_dag's program takes the per-range walk).  a, b and c
 * each run at least CP_MS; the others are empty.  Whatever the machine
 * does, the longest path through the declared edges is a, one fan, b, c:
 * every other path is a part of one of those four plus nothing longer. */
#define CP_MS 20
#define CP_EDGES 9   /* a -> 4 fans, 4 fans -> b, b -> c */
#define CP_TASKS 8

static void cp_long(void *arg)
{
    (void)arg;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000000ll + (t.tv_nsec - t0.tv_nsec)
           < CP_MS * 1000000ll);
}

static void cp_short(void *arg)
{
    (void)arg;
}

static void cp_spawn(locus_task_fn fn, const char *label, const locus_dep_t *d, size_t n)
{
    locus_task_attr_t a = LOCUS_TASK_ATTR_INIT;
    a.label = label;
    assert_int_equal(locus_spawn_attr(fn, NULL, 0, d, n, &a), 0);
}

static void test_critical_path(void **state)
{
    (void)state;
    if (!LOCUS_HAVE_OTF2_BUILD) {
        print_message("skipped: a build without OTF2 writes no trace\n");
        skip();
    }
    if (!have_pyotf2()) {
        print_message("skipped: python3-otf2/matplotlib missing (locus-trace)\n");
        skip();
    }
    char dir[PATH_MAX + 16], dag[PATH_MAX + 16], cmd[4 * PATH_MAX], line[512];
    snprintf(dir, sizeof dir, "%s/cp", tmpdir);
    snprintf(dag, sizeof dag, "%s/cp.dot", tmpdir);
    setenv("LOCUS_TRACE", dir, 1);
    setenv("LOCUS_DAG", dag, 1);
    static char x[4096], y[64];
    size_t q = sizeof x / 4;
    assert_int_equal(locus_init(), 0);
    locus_dep_t d = LOCUS_OUT(x, sizeof x);
    cp_spawn(cp_long, "a", &d, 1);
    for (int i = 0; i < 4; i++) {
        d = LOCUS_IN(x + i * q, q);
        cp_spawn(cp_short, "fan", &d, 1);
    }
    d = LOCUS_INOUT(x, sizeof x);
    cp_spawn(cp_long, "b", &d, 1);
    cp_spawn(cp_long, "c", &d, 1);
    d = LOCUS_OUT(y, sizeof y);
    cp_spawn(cp_short, "side", &d, 1);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(locus_finalize(), 0);
    env_clean();

    /* the edges beside the trace: those declared */
    snprintf(cmd, sizeof cmd, "%s/locus-edges.txt", dir);
    FILE *f = fopen(cmd, "r");
    assert_non_null(f);
    int nedges = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long a, b;
        if (line[0] == '#')
            continue;
        assert_int_equal(sscanf(line, "%llu %llu", &a, &b), 2);
        assert_true(a != b);
        nedges++;
    }
    fclose(f);
    assert_int_equal(nedges, CP_EDGES);

    /* the path summary finds */
    snprintf(cmd, sizeof cmd, "tools/locus-trace summary '%s' > '%s/cp.txt'", dir, tmpdir);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/cp.txt", tmpdir);
    f = fopen(cmd, "r");
    assert_non_null(f);
    int crit = 0, path = 0;
    while (fgets(line, sizeof line, f)) {
        double len, wall;
        int ntasks, ne;
        char u1[8], u2[8];
        if (sscanf(line, "critical path: %lf %7s over %d tasks, against a wall time of %lf %7s",
                   &len, u1, &ntasks, &wall, u2) == 5) {
            assert_int_equal(ntasks, 4);
            /* three tasks of at least CP_MS each lie on it */
            double unit = strcmp(u1, "s") == 0 ? 1e3 : strcmp(u1, "ms") == 0 ? 1.0 : 0.0;
            assert_true(unit > 0);
            assert_true(len * unit >= 3 * CP_MS);
            const char *e = strstr(line, "; ");
            assert_non_null(e);
            assert_int_equal(sscanf(e, "; %d declared edges", &ne), 1);
            assert_int_equal(ne, CP_EDGES);
            crit++;
        }
        if (strcmp(line, "  path: a -> fan -> b -> c\n") == 0)
            path++;
    }
    fclose(f);
    assert_int_equal(crit, 1);
    assert_int_equal(path, 1);

    /* the same graph drawn: one node per task, the declared edges */
    f = fopen(dag, "r");
    assert_non_null(f);
    int nodes = 0;
    nedges = 0;
    while (fgets(line, sizeof line, f)) {
        int a, b;
        nodes += strncmp(line, "  t", 3) == 0 && strstr(line, "[label=") != NULL;
        nedges += sscanf(line, "  t%d -> t%d;", &a, &b) == 2;
    }
    fclose(f);
    assert_int_equal(nodes, CP_TASKS);
    assert_int_equal(nedges, CP_EDGES);
}

static void spin_body(void *arg);
static void init_fails(const char *var, const char *val, int err, const char *needle);

/* ---- %p in the paths ---------------------------------------------------------- */

/* "%p" is the process id (one setting for all ranks of an MPI job); a path
 * too long once expanded is refused at locus_init. */
static void test_pid_paths(void **state)
{
    (void)state;
    char dag[PATH_MAX + 16], dir[PATH_MAX + 16], want[PATH_MAX + 64];
    snprintf(dag, sizeof dag, "%s/g.%%p.dot", tmpdir);
    snprintf(dir, sizeof dir, "%s/t.%%p", tmpdir);
    setenv("LOCUS_DAG", dag, 1);
    if (LOCUS_HAVE_OTF2_BUILD)
        setenv("LOCUS_TRACE", dir, 1);
    assert_int_equal(locus_init(), 0);
    assert_int_equal(locus_spawn(spin_body, NULL, 0, NULL, 0), 0);
    assert_int_equal(locus_finalize(), 0);
    env_clean();
    struct stat sb;
    snprintf(want, sizeof want, "%s/g.%ld.dot", tmpdir, (long)getpid());
    assert_int_equal(stat(want, &sb), 0);
    assert_true(sb.st_size > 0);
    if (LOCUS_HAVE_OTF2_BUILD) {
        snprintf(want, sizeof want, "%s/t.%ld/traces.otf2", tmpdir, (long)getpid());
        assert_int_equal(stat(want, &sb), 0);
        snprintf(want, sizeof want, "%s/t.%ld/locus-edges.txt", tmpdir, (long)getpid());
        assert_int_equal(stat(want, &sb), 0);
    }
    /* 2000 x "%p" fits LOCUS_DAG's 4095 bytes, not its expansion */
    static char lng[4001];
    for (int i = 0; i < 2000; i++)
        memcpy(lng + 2 * i, "%p", 2);
    lng[4000] = '\0';
    init_fails("LOCUS_DAG", lng, -ENAMETOOLONG, "process id");
}

/* ---- the task graph -------------------------------------------------------- */

static void test_dag(void **state)
{
    (void)state;
    char dag[PATH_MAX + 16], cmd[2 * PATH_MAX + 64], line[512];
    snprintf(dag, sizeof dag, "%s/only.dot", tmpdir);
    setenv("LOCUS_DAG", dag, 1);   /* without LOCUS_TRACE: works in every build */
    locus_stats_t st;
    locus_node_stats_t ns[4];
    int nn;
    assert_int_equal(run_known(&st, ns, &nn), 0);
    env_clean();

    FILE *f = fopen(dag, "r");
    assert_non_null(f);
    int idx_of[4 * NT];   /* dot node number -> our task */
    int nodes = 0, nedges = 0, got[NT][NT];
    memset(got, 0, sizeof got);
    for (int i = 0; i < 4 * NT; i++)
        idx_of[i] = -1;
    while (fgets(line, sizeof line, f)) {
        int a, b, node;
        char label[80];
        if (sscanf(line, "  t%d [label=\"%79[^\\]\\nnode %d\"];", &a, label, &node) == 3) {
            assert_true(a >= 0 && a < 4 * NT);
            for (int k = 0; k < NT; k++)
                if (strcmp(label, names[k]) == 0) {
                    idx_of[a] = k;
                    assert_int_equal(node, seen[k].node);
                }
            assert_true(idx_of[a] >= 0);
            nodes++;
        } else if (sscanf(line, "  t%d -> t%d;", &a, &b) == 2) {
            assert_true(a >= 0 && a < 4 * NT && b >= 0 && b < 4 * NT);
            assert_true(idx_of[a] >= 0 && idx_of[b] >= 0);
            got[idx_of[a]][idx_of[b]]++;
            nedges++;
        }
    }
    fclose(f);
    assert_int_equal(nodes, NT);
    assert_int_equal(nedges, (int)NEDGES);
    for (size_t e = 0; e < NEDGES; e++)
        assert_int_equal(got[edges[e][0]][edges[e][1]], 1);

    if (!have("dot")) {
        print_message("skipped: dot (graphviz) missing: the graph was checked, not parsed\n");
        skip();
    }
    snprintf(cmd, sizeof cmd, "dot -Tsvg '%s' -o '%s/g.svg'", dag, tmpdir);
    assert_int_equal(system(cmd), 0);
    /* what dot made of it: as many nodes and edges */
    snprintf(cmd, sizeof cmd, "%s/g.svg", tmpdir);
    f = fopen(cmd, "r");
    assert_non_null(f);
    int svg_nodes = 0, svg_edges = 0;
    while (fgets(line, sizeof line, f)) {
        svg_nodes += strstr(line, "class=\"node\"") != NULL;
        svg_edges += strstr(line, "class=\"edge\"") != NULL;
    }
    fclose(f);
    assert_int_equal(svg_nodes, NT);
    assert_int_equal(svg_edges, (int)NEDGES);
}

/* A task without a label is named by its function, a static one (not in
 * the dynamic symbol table: dladdr alone gave "test_trace+0x...") by the
 * program's .symtab, as locus-trace names it. */
static __attribute__((noinline)) void unlabelled_static_body(void *arg)
{
    volatile int *x = arg;
    if (x)
        (*x)++;
}

static void test_dag_static_names(void **state)
{
    (void)state;
    char dag[PATH_MAX + 16], line[512];
    snprintf(dag, sizeof dag, "%s/static.dot", tmpdir);
    setenv("LOCUS_DAG", dag, 1);
    assert_int_equal(locus_init(), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(locus_spawn(unlabelled_static_body, NULL, 0, NULL, 0), 0);
    assert_int_equal(locus_finalize(), 0);
    env_clean();
    FILE *f = fopen(dag, "r");
    assert_non_null(f);
    int named = 0, nodes = 0;
    while (fgets(line, sizeof line, f)) {
        int a;
        char label[80];
        if (sscanf(line, "  t%d [label=\"%79[^\\]", &a, label) == 2) {
            nodes++;
            named += strcmp(label, "unlabelled_static_body") == 0;
        }
    }
    fclose(f);
    assert_int_equal(nodes, 3);
    assert_int_equal(named, 3);
}

/* Past LC_DAG_MAX_TASKS: a graph holding a note, no error. */
static void spin_body(void *arg)
{
    (void)arg;
}

static void test_dag_too_big(void **state)
{
    (void)state;
    char dag[PATH_MAX + 16], line[512];
    snprintf(dag, sizeof dag, "%s/big.dot", tmpdir);
    setenv("LOCUS_DAG", dag, 1);
    assert_int_equal(locus_init(), 0);
    for (int i = 0; i < 6000; i++)
        assert_int_equal(locus_spawn(spin_body, NULL, 0, NULL, 0), 0);
    assert_int_equal(locus_finalize(), 0);
    env_clean();
    FILE *f = fopen(dag, "r");
    assert_non_null(f);
    int note = 0, nodes = 0;
    while (fgets(line, sizeof line, f)) {
        note += strstr(line, "more than the 5000") != NULL;
        nodes += strstr(line, "label=") != NULL;
    }
    fclose(f);
    assert_int_equal(note, 1);
    assert_int_equal(nodes, 1);
}

/* ---- bad input -------------------------------------------------------------- */

static void init_fails(const char *var, const char *val, int err, const char *needle)
{
    setenv(var, val, 1);
    assert_int_equal(locus_init(), err);
    assert_non_null(strstr(locus_error_message(), var));
    assert_non_null(strstr(locus_error_message(), needle));
    unsetenv(var);
    assert_int_equal(locus_init(), 0);   /* nothing left behind */
    assert_int_equal(locus_finalize(), 0);
}

static void test_bad_paths(void **state)
{
    (void)state;
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/no/such/dir", tmpdir);
    if (LOCUS_HAVE_OTF2_BUILD) {
        init_fails("LOCUS_TRACE", path, -ENOENT, "cannot create the directory");
        snprintf(path, sizeof path, "%s/afile", tmpdir);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fclose(f);
        init_fails("LOCUS_TRACE", path, -ENOTDIR, "not a directory");
        /* a directory that holds a trace is not overwritten */
        snprintf(path, sizeof path, "%s/old", tmpdir);
        assert_int_equal(mkdir(path, 0777), 0);
        char anchor[PATH_MAX + 64];
        snprintf(anchor, sizeof anchor, "%s/traces.otf2", path);
        assert_non_null(f = fopen(anchor, "w"));
        fclose(f);
        init_fails("LOCUS_TRACE", path, -EEXIST, "already holds a trace");
    } else {
        init_fails("LOCUS_TRACE", path, -ENOTSUP, "built without OTF2");
    }
    snprintf(path, sizeof path, "%s/no/such/g.dot", tmpdir);
    init_fails("LOCUS_DAG", path, -ENOENT, "cannot open the file for writing");

    /* a bad label is refused whether or not anything is traced */
    assert_int_equal(locus_init(), 0);
    locus_task_attr_t a = LOCUS_TASK_ATTR_INIT;
    a.label = "";
    assert_int_equal(locus_spawn_attr(spin_body, NULL, 0, NULL, 0, &a), -EINVAL);
    assert_non_null(strstr(locus_error_message(), "label"));
    char longer[LOCUS_LABEL_MAX + 2];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    a.label = longer;
    assert_int_equal(locus_spawn_attr(spin_body, NULL, 0, NULL, 0, &a), -EINVAL);
    longer[LOCUS_LABEL_MAX] = '\0';
    assert_int_equal(locus_spawn_attr(spin_body, NULL, 0, NULL, 0, &a), 0);
    assert_int_equal(locus_finalize(), 0);
}

/* The child of test_full_disk: a traced run under a file size limit of
 * 128 bytes (the anchor file fits, the definitions do not).  Plain checks
 * (no cmocka in a child): 0 when locus_finalize() reports the truncated
 * trace as it should, else the number of the failed check. */
static int full_disk_child(const char *dir)
{
    struct rlimit lim;
    signal(SIGXFSZ, SIG_IGN);
    if (getrlimit(RLIMIT_FSIZE, &lim) != 0)
        return 10;
    lim.rlim_cur = 128;
    if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
        return 11;
    setenv("LOCUS_TRACE", dir, 1);
    if (locus_init() != 0)
        return 12;
    for (int i = 0; i < 64; i++)
        if (locus_spawn(spin_body, NULL, 0, NULL, 0) != 0)
            return 13;
    int r = locus_finalize();
    if (r != -EIO && r != -ENOSPC) {
        fprintf(stderr, "test_trace: child: locus_finalize() = %d\n", r);
        return 14;
    }
    if (!strstr(locus_error_message(), "not written whole"))
        return 15;
    unsetenv("LOCUS_TRACE");
    if (locus_init() != 0)   /* nothing left behind */
        return 16;
    return locus_finalize() == 0 ? 0 : 17;
}

/* A full disk: /dev/full for the graph, a file size limit for the trace
 * (OTF2's closing calls return success after a failed write; the runtime
 * takes the error its callback reported, and never reads back a
 * truncated archive, on which OTF2's reader can loop for ever). */
static void test_full_disk(void **state)
{
    (void)state;
    locus_stats_t st;
    locus_node_stats_t ns[4];
    int nn;
    setenv("LOCUS_DAG", "/dev/full", 1);
    assert_int_equal(run_known(&st, ns, &nn), -ENOSPC);
    assert_non_null(strstr(locus_error_message(), "LOCUS_DAG"));
    env_clean();
    if (!LOCUS_HAVE_OTF2_BUILD)
        return;
    char dir[PATH_MAX + 16];
    snprintf(dir, sizeof dir, "%s/full", tmpdir);
    /* in a child (this program, started anew: a fork would run
     * jemalloc's fork handlers, too many locks for TSan): the limit stays
     * there, and OTF2 leaks a writer when its flush fails (its error path,
     * not ours), which LeakSanitizer would report at this process's exit;
     * the child leaves with _exit */
    char self[PATH_MAX], cmd[3 * PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(n > 0);
    self[n] = '\0';
    int k = snprintf(cmd, sizeof cmd, "'%s' --full-disk-child '%s'", self, dir);
    assert_true(k > 0 && (size_t)k < sizeof cmd);
    int status = system(cmd);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(locus_init(), 0);   /* and the runtime starts again */
    assert_int_equal(locus_finalize(), 0);
}

/* ---- main --------------------------------------------------------------------- */

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "test_trace: watchdog expired (deadlock?)\n";
    if (write(2, msg, sizeof msg - 1) < 0)
        _exit(3);
    _exit(2);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--full-disk-child") == 0) {
        alarm(300);
        setup(NULL);
        _exit(full_disk_child(argv[2]));
    }
    const char *san = getenv("LOCUS_TEST_SANITIZER");
    signal(SIGALRM, on_alarm);
    alarm(san && *san && strcmp(san, "none") != 0 ? 600 : 180);
    snprintf(tmpdir, sizeof tmpdir, "%s/locus-trace-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("test_trace: mkdtemp");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_traced_run, setup),
        cmocka_unit_test_setup(test_gomp_labels, setup),
        cmocka_unit_test_setup(test_critical_path, setup),
        cmocka_unit_test_setup(test_pid_paths, setup),
        cmocka_unit_test_setup(test_dag, setup),
        cmocka_unit_test_setup(test_dag_static_names, setup),
        cmocka_unit_test_setup(test_dag_too_big, setup),
        cmocka_unit_test_setup(test_bad_paths, setup),
        cmocka_unit_test_setup(test_full_disk, setup),
    };
    int r = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "test_trace: could not remove %s\n", tmpdir);
    return r;
}
