/*
 * test_sim.c - the simulator (LOCUS_SIM, sim/, locus-sim(7)) on task
 * graphs whose simulated makespan is worked out by hand: independent tasks
 * on one node, a chain, fork-join rounds, two readers sharing one node's
 * memory bandwidth across nodes, tasks given to a stalled node with and
 * without NAFT's wait bound; the same seed giving the same schedule; and
 * bad model and machine files refused.  The machine model here has no runtime costs and no latency,
 * so the makespans are exact: 1 ms tasks, 10 GB/s memories and links.
 *
 * SimGrid's engine starts once per process, so each graph runs in a child:
 * this program runs itself with "--graph NAME" and reads the simulated
 * time from the summary the simulator prints at locus_finalize.  Skipped
 * (with the reason) where the simulator was not built (no SimGrid).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "locus.h"

/* ------------------------------------------------------------ the graphs */

static void body(void *arg)
{
    (void)arg;
    abort();   /* every task here has a model: a body that runs is a failure */
}

static int spawn_labelled(const char *label, int node, const locus_dep_t *deps, size_t n)
{
    locus_task_attr_t at = LOCUS_TASK_ATTR_INIT;
    at.label = label;
    at.node = node;
    return locus_spawn_attr(body, NULL, 0, deps, n, &at);
}

static int graph(const char *name)
{
    static char buf[10000000];   /* 10 MB: 1 ms at 10 GB/s */
    static double x;
    double t0 = locus_wtime();   /* simulated: 0 before the run */
    int r = locus_init();
    if (r)
        return 2;
    if (strcmp(name, "fork9") == 0) {            /* 9 x 1 ms on 4 workers: 3 ms */
        for (int i = 0; i < 9 && !r; i++)
            r = spawn_labelled("unit", LOCUS_NODE_ANY, NULL, 0);
    } else if (strcmp(name, "chain5") == 0) {    /* 5 x 1 ms in a chain: 5 ms */
        for (int i = 0; i < 5 && !r; i++) {
            locus_dep_t d = LOCUS_INOUT(&x, sizeof x);
            r = spawn_labelled("unit", LOCUS_NODE_ANY, &d, 1);
        }
    } else if (strcmp(name, "forkjoin") == 0) {  /* 3 rounds of 8 x 1 ms on 4: 6 ms */
        for (int k = 0; k < 3 && !r; k++) {
            for (int i = 0; i < 8 && !r; i++)
                r = spawn_labelled("unit", LOCUS_NODE_ANY, NULL, 0);
            if (!r)
                r = locus_taskwait();
        }
    } else if (strncmp(name, "readers", 7) == 0) {
        /* a writer on node 0 touches 10 MB first (1 ms through its memory),
         * then n readers on node 1 read it all from there: alone 1 ms, two
         * share node 0's memory and the link (5 GB/s each): 2 ms */
        int n = atoi(name + 7);
        locus_dep_t w = LOCUS_OUT(buf, sizeof buf);
        r = spawn_labelled("zero", 0, &w, 1);
        for (int i = 0; i < n && !r; i++) {
            locus_dep_t d = LOCUS_IN(buf, sizeof buf);
            r = spawn_labelled("zero", 1, &d, 1);
        }
    } else if (strcmp(name, "flood") == 0) {     /* 1600 x 1 ms on 16 workers: 100 ms */
        /* The spawner queues 65 and then, its deque long (the backlog rule,
         * ready.h), runs each further task at its spawn; the 15 thieves
         * must never run dry meanwhile.  They did when the spawner judged
         * its deque by a top read 16 spawns earlier: it ran 15 bodies in a
         * row on a deque the thieves had emptied, 1/3 of the throughput
         * (seen at 16 real cores as 0.33x libgomp on independent tasks). */
        for (int i = 0; i < 1600 && !r; i++)
            r = spawn_labelled("unit", LOCUS_NODE_ANY, NULL, 0);
    } else if (strcmp(name, "hinted8") == 0) {   /* 8 x 1 ms given to node 1 */
        for (int i = 0; i < 8 && !r; i++)
            r = spawn_labelled("unit", 1, NULL, 0);
    } else if (strcmp(name, "random") == 0) {    /* for the seed: a graph with choices */
        static double v[64];
        for (int i = 0; i < 400 && !r; i++) {
            locus_dep_t d[2] = { LOCUS_INOUT(&v[(i * 7) % 64], sizeof v[0]),
                                 LOCUS_IN(&v[(i * 13 + 5) % 64], sizeof v[0]) };
            r = spawn_labelled(i % 3 ? "unit" : "zero", LOCUS_NODE_ANY, d, 2);
        }
    } else {
        fprintf(stderr, "test_sim: no graph %s\n", name);
        r = 3;
    }
    if (!r)
        r = locus_taskwait();
    fprintf(stderr, "test_sim: done %.9f\n", locus_wtime());   /* the graph's end */
    int f = locus_finalize();
    fprintf(stderr, "test_sim: wtime %.9f %.9f\n", t0, locus_wtime());   /* the run's end */
    return r || f ? 4 : 0;
}

/* ------------------------------------------------------------ the checks */

static char dir[] = "/tmp/locus-test-sim-XXXXXX";
static char model[PATH_MAX], machine[PATH_MAX], stalled[PATH_MAX], self[PATH_MAX];

/* Writes text to the file name in dir, its path into path.  0 or -1. */
static int put_file(char *path, size_t size, const char *name, const char *text)
{
    snprintf(path, size, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f) == 0 ? 0 : -1;
}

/* A machine whose every cost but the bodies' is 0 or unbounded */
#define EXACT_KEYS "local_bw = 10\nnear_bw = 10\nfar_bw = 10\nmem_bw = 10\ncore_bw = 100\n" \
                   "local_lat = 0\nnear_lat = 0\nfar_lat = 0\nspawn_ns = 0\ntask_ns = 0\n" \
                   "wake_ns = 0\npoll_ns = 0\n"

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir)
        || put_file(model, sizeof model, "tasks.model",
                    "# name bytes compute_ns\nunit 0 1000000\nzero 0 0\n") != 0
        || put_file(machine, sizeof machine, "exact.machine", "name = exact\n" EXACT_KEYS) != 0
        /* the same, node 1's workers stalled for the first 50 ms */
        || put_file(stalled, sizeof stalled, "stalled.machine",
                    "name = exact, node 1 stalled\n" EXACT_KEYS
                    "stall_node = 1\nstall_at_ms = 0\nstall_ms = 50\n") != 0)
        return -1;
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = '\0';
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Whether the plug-in was built (it sits in the build directory, the
 * parent of this program's). */
static int have_simulator(void)
{
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s", self);
    char *slash = strrchr(p, '/');
    if (!slash)
        return 0;
    *slash = '\0';
    strcat(p, "/../liblocus-sim.so");
    return access(p, R_OK) == 0;
}

/* When the last graph simulate() ran had finished, before locus_finalize
 * (which waits for every worker's thread: a stalled one too). */
static double graph_done;

/* Runs graph name in a child under topology with the extra environment
 * (NAME=VALUE strings, NULL-ended); returns the simulated seconds, or a
 * negative number (failing the test with the child's output). */
static double simulate(const char *name, const char *topology, const char *const *env)
{
    char out[PATH_MAX];
    snprintf(out, sizeof out, "%s/%s.err", dir, name);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("LOCUS_SIM", topology, 1);
        setenv("LOCUS_SIM_MODEL", model, 1);
        setenv("LOCUS_SIM_MACHINE", machine, 1);
        for (int i = 0; env && env[i]; i++)
            putenv((char *)env[i]);
        if (!freopen(out, "w", stderr))
            _exit(126);
        execl(self, self, "--graph", name, (char *)NULL);
        _exit(127);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return -1;
    FILE *f = fopen(out, "r");
    char line[4096];
    double t = -1, w0 = -1, w1 = -1;
    graph_done = -1;
    while (f && fgets(line, sizeof line, f)) {
        sscanf(line, "locus-sim: simulated %lf s", &t);
        sscanf(line, "test_sim: wtime %lf %lf", &w0, &w1);
        sscanf(line, "test_sim: done %lf", &graph_done);
    }
    /* locus_wtime reads simulated time before, during and after the run */
    if (t >= 0 && (w0 != 0 || w1 < t - 1e-6 || w1 > t + 1e-6)) {
        fprintf(stderr, "test_sim: graph %s: locus_wtime %.9f before and %.9f after a run of "
                "%.9f simulated s\n", name, w0, w1, t);
        t = -1;
    }
    if (f)
        fclose(f);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || t < 0) {
        char cmd[PATH_MAX + 16];
        snprintf(cmd, sizeof cmd, "cat '%s' >&2", out);
        if (system(cmd) != 0)
            fprintf(stderr, "(no output)\n");
        fprintf(stderr, "test_sim: graph %s: %s %d\n", name,
                WIFEXITED(st) ? "exit" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
        return -1;
    }
    return t;
}

#define ONE_NODE "synthetic:pack:1 numa:1 core:4 pu:1"
#define TWO_NODES "synthetic:pack:2 numa:1 core:2 pu:1"
#define SIXTEEN "synthetic:pack:1 numa:1 core:16 pu:1"

static void expect_ms(const char *name, const char *topo, const char *const *env, double ms)
{
    if (!have_simulator())
        skip();
    double t = simulate(name, topo, env);
    assert_true(t >= 0);
    if (t * 1e3 < ms - 1e-6 || t * 1e3 > ms + 1e-6)
        fail_msg("graph %s: simulated %.9f ms, worked out by hand %.3f ms", name, t * 1e3, ms);
}

static void test_fork(void **state)
{
    (void)state;
    expect_ms("fork9", ONE_NODE, NULL, 3.0);
}

static void test_chain(void **state)
{
    (void)state;
    expect_ms("chain5", ONE_NODE, NULL, 5.0);
}

static void test_forkjoin(void **state)
{
    (void)state;
    expect_ms("forkjoin", ONE_NODE, NULL, 6.0);
}

/* Independent tasks from one spawner keep 16 workers busy: 100 ms, not
 * a moment of a worker idle while tasks wait (the bound is exact: no
 * runtime costs in this machine model). */
static void test_flood(void **state)
{
    (void)state;
    expect_ms("flood", SIXTEEN, NULL, 100.0);
}

/* Bandwidth is shared: one reader across nodes takes 1 ms, two take 2. */
static void test_shared_bandwidth(void **state)
{
    (void)state;
    static const char *const env[] = { "LOCUS_STEAL=none", NULL };
    expect_ms("readers1", TWO_NODES, env, 2.0);
    expect_ms("readers2", TWO_NODES, env, 3.0);
}

static int slurp(const char *path, char **buf)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t cap = 1 << 16, n = 0;
    *buf = malloc(cap);
    while (*buf) {
        size_t k = fread(*buf + n, 1, cap - n, f);
        n += k;
        if (n < cap)
            break;
        char *nb = realloc(*buf, cap *= 2);
        if (!nb) {
            free(*buf);
            *buf = NULL;
        }
        *buf = nb;
    }
    fclose(f);
    if (!*buf)
        return -1;
    (*buf)[n < cap ? n : cap - 1] = '\0';
    return (int)n;
}

/*
 * NAFT's wait bound in simulated time (sched/naft.c, locus(7)): 8 tasks of
 * 1 ms given to node 1, whose two workers are stalled for the first 50 ms
 * (the machine's stall_node).  Without the bound (LOCUS_WAIT_US=0) they
 * wait for node 1: 50 ms, then 4 ms on its two workers.  With it, node
 * 0's two workers (the main thread in its taskwait, and the other) take
 * them once node 1 has finished nothing for 1 ms: about 1 + 4 ms.  The
 * times are those of the graph's end, before locus_finalize (which joins
 * node 1's threads, at 50 ms either way).
 */
static void test_stalled_node(void **state)
{
    (void)state;
    if (!have_simulator())
        skip();
    static const char *const off[] = { "LOCUS_WAIT_US=0", NULL };
    char *saved = strdup(machine);
    assert_non_null(saved);
    snprintf(machine, sizeof machine, "%s", stalled);
    assert_true(simulate("hinted8", TWO_NODES, off) >= 0);
    double waited = graph_done;
    assert_true(simulate("hinted8", TWO_NODES, NULL) >= 0);
    double bounded = graph_done;
    snprintf(machine, sizeof machine, "%s", saved);
    free(saved);
    print_message("node 1 stalled 50 ms: 8 x 1 ms given to it take %.3f ms without the wait "
                  "bound, %.3f ms with it\n", waited * 1e3, bounded * 1e3);
    assert_true(waited >= 0 && bounded >= 0);
    assert_true(waited * 1e3 >= 54.0 - 1e-6);
    assert_true(bounded * 1e3 < 10.0);
}

/* The same seed gives the same schedule, body for body, on a NUMA preset
 * of 64 workers where stealing and placement make choices. */
static void test_same_seed_same_schedule(void **state)
{
    (void)state;
    if (!have_simulator())
        skip();
    char s1[PATH_MAX + 32], s2[PATH_MAX + 32];
    snprintf(s1, sizeof s1, "LOCUS_SIM_SCHEDULE=%s/s1", dir);
    snprintf(s2, sizeof s2, "LOCUS_SIM_SCHEDULE=%s/s2", dir);
    const char *e1[] = { s1, "LOCUS_SIM_SEED=7", NULL }, *e2[] = { s2, "LOCUS_SIM_SEED=7", NULL };
    double t1 = simulate("random", "epyc-2s", e1), t2 = simulate("random", "epyc-2s", e2);
    assert_true(t1 > 0 && t2 > 0);
    char *a = NULL, *b = NULL;
    int na = slurp(s1 + strlen("LOCUS_SIM_SCHEDULE="), &a);
    int nb = slurp(s2 + strlen("LOCUS_SIM_SCHEDULE="), &b);
    assert_true(na > 0 && nb > 0);
    int lines = 0;
    for (char *p = a; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 1 + 400);   /* the header, then every body */
    if (strcmp(a, b) != 0)
        fail_msg("two runs with seed 7 gave different schedules (%s/s1, %s/s2)", dir, dir);
    assert_true(t1 == t2);
    free(a);
    free(b);
}

/* Without LOCUS_SIM the simulator's variables are refused, with the reason. */
static void test_needs_locus_sim(void **state)
{
    (void)state;
    setenv("LOCUS_SIM_MODEL", "/nonexistent", 1);
    int r = locus_init();
    unsetenv("LOCUS_SIM_MODEL");
    if (r == 0)
        locus_finalize();
    assert_int_equal(r, -EINVAL);
    assert_non_null(strstr(locus_error_message(), "set LOCUS_SIM as well"));
}

/* Runs graph fork9 in a child under topology with the given model and
 * machine files (machine NULL: the topology's own model), and checks that
 * locus_init failed (exit 2, no crash) with needle in its message. */
static void expect_init_refused(const char *topology, const char *model_file,
                                const char *machine_file, const char *name, const char *needle)
{
    char out[PATH_MAX + 32];
    snprintf(out, sizeof out, "%s/%s.err", dir, name);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("LOCUS_SIM", topology, 1);
        setenv("LOCUS_SIM_MODEL", model_file, 1);
        if (machine_file)
            setenv("LOCUS_SIM_MACHINE", machine_file, 1);
        if (!freopen(out, "w", stderr))
            _exit(126);
        execl(self, self, "--graph", "fork9", (char *)NULL);
        _exit(127);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 2);   /* locus_init failed, no crash */
    char *text = NULL;
    assert_true(slurp(out, &text) > 0);
    assert_non_null(strstr(text, needle));
    free(text);
}

/* A model file that cannot be read fails locus_init with its name. */
static void test_bad_model_file(void **state)
{
    (void)state;
    if (!have_simulator())
        skip();
    char bad[PATH_MAX + 32];
    assert_int_equal(put_file(bad, sizeof bad, "bad.model", "unit one 1000\n"), 0);
    expect_init_refused(ONE_NODE, bad, NULL, "bad", "line 1: expected 'name bytes compute_ns");
}

/* A stalled node the topology does not have fails locus_init, naming the
 * key (locus-sim(7)). */
static void test_bad_stall_node(void **state)
{
    (void)state;
    if (!have_simulator())
        skip();
    char bad[PATH_MAX + 32];
    /* TWO_NODES has nodes 0 and 1 */
    assert_int_equal(put_file(bad, sizeof bad, "badstall.machine",
                              "stall_node = 2\nstall_ms = 10\n"), 0);
    expect_init_refused(TWO_NODES, model, bad, "badstall",
                        "stall_node = 2: expected a node of the topology, 0 to 1");
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--graph") == 0)
        return graph(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_needs_locus_sim),
        cmocka_unit_test(test_fork),
        cmocka_unit_test(test_chain),
        cmocka_unit_test(test_forkjoin),
        cmocka_unit_test(test_flood),
        cmocka_unit_test(test_shared_bandwidth),
        cmocka_unit_test(test_stalled_node),
        cmocka_unit_test(test_same_seed_same_schedule),
        cmocka_unit_test(test_bad_model_file),
        cmocka_unit_test(test_bad_stall_node),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
