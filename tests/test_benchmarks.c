/*
 * test_benchmarks.c - the five benchmark programs and their driver, end to
 * end, as users run them: each program at --size test in every regime on
 * this machine and once on the virtual bullion-s16 must exit 0 with a
 * `RESULT ... verified=1` line; bad parameters must exit 2 with a message on
 * stderr; benchmarks/run must write one CSV row per run and add none when
 * run again (resume); benchmarks/plot must write its figures and table3.md.
 *
 * The programs are found beside this binary: BUILD/tests/test_benchmarks
 * -> BUILD/bench/NAME, so build-asan/ and build-tsan/ test their own
 * instrumented programs.  A benchmark not written yet (no
 * benchmarks/ * /NAME.c) is skipped with the reason printed; one whose source
 * exists but whose program was not built fails, so that a skip never hides a
 * broken build.  Under LOCUS_TEST_SANITIZER=asan|tsan only the DFT and NAFT
 * runs on this machine and the bad-parameter checks run, to keep the time down.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

extern char **environ;

#define RUN_TIMEOUT_S 150          /* one benchmark run, or one driver call */
#define TIMED_OUT (-1000)          /* run.status of a run killed at the timeout */

static char g_build[PATH_MAX];     /* build, build-asan, ... (from argv[0]) */
static char g_root[PATH_MAX];      /* the source tree: g_build's parent */
static char g_tmp[PATH_MAX];
static int g_sanitizer;            /* LOCUS_TEST_SANITIZER is asan or tsan */
static int g_tsan;                 /* LOCUS_TEST_SANITIZER is tsan */
static int g_driver_ok;            /* test_driver left a CSV for test_plot */
static char g_driver_bench[32];

struct run {
    int status;                    /* exit status, -signal, or TIMED_OUT */
    char *out, *err;
};

static void run_free(struct run *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    size_t cap = 4096, len = 0, n;
    char *s = malloc(cap);
    assert_non_null(s);
    while (f && (n = fread(s + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 2) {
            s = realloc(s, cap *= 2);
            assert_non_null(s);
        }
    }
    if (f)
        fclose(f);
    s[len] = '\0';
    return s;
}

static int is_set_name(const char *entry, const char *const set[])
{
    static const char *const always[] = { "LOCUS_REGIME", "LOCUS_TOPOLOGY", "LOCUS_THREADS", NULL };
    size_t n = strcspn(entry, "=");
    for (int i = 0; always[i]; i++)
        if (strlen(always[i]) == n && strncmp(entry, always[i], n) == 0)
            return 1;
    for (int i = 0; set && set[i]; i++)
        if (strcspn(set[i], "=") == n && strncmp(entry, set[i], n) == 0)
            return 1;
    return 0;
}

/*
 * Runs argv[0] (a path) with this process's environment less LOCUS_REGIME,
 * LOCUS_TOPOLOGY and LOCUS_THREADS, plus the NAME=VALUE entries of set,
 * stdout and stderr captured, killed after timeout_s.
 */
static struct run run_prog(char *const argv[], const char *const set[], int timeout_s)
{
    struct run r = { .status = -1 };
    size_t n = 0, k = 0;
    while (environ[n])
        n++;
    for (int i = 0; set && set[i]; i++)
        n++;
    char **envp = calloc(n + 1, sizeof *envp);
    assert_non_null(envp);
    for (char **e = environ; *e; e++)
        if (!is_set_name(*e, set))
            envp[k++] = *e;
    for (int i = 0; set && set[i]; i++)
        envp[k++] = (char *)set[i];
    envp[k] = NULL;

    char out_path[PATH_MAX + 16], err_path[PATH_MAX + 16];
    snprintf(out_path, sizeof out_path, "%s/stdout", g_tmp);
    snprintf(err_path, sizeof err_path, "%s/stderr", g_tmp);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    int e = posix_spawn(&pid, argv[0], &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    free(envp);
    if (e != 0)
        fail_msg("cannot run %s: %s", argv[0], strerror(e));

    struct timespec t0, now, nap = { 0, 10 * 1000 * 1000 };
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int st = 0;
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR)
            fail_msg("waitpid: %s", strerror(errno));
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - t0.tv_sec >= timeout_s) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            st = -1;
            break;
        }
        nanosleep(&nap, NULL);
    }
    if (st == -1)
        r.status = TIMED_OUT;
    else if (WIFEXITED(st))
        r.status = WEXITSTATUS(st);
    else
        r.status = -WTERMSIG(st);
    r.out = slurp(out_path);
    r.err = slurp(err_path);
    return r;
}

/* The last 1500 characters of s, for failure messages. */
static const char *tail(const char *s)
{
    size_t n = strlen(s);
    return n > 1500 ? s + n - 1500 : s;
}

static void describe(const char *what, const struct run *r)
{
    char st[64];
    if (r->status == TIMED_OUT)
        snprintf(st, sizeof st, "killed after %d s", RUN_TIMEOUT_S);
    else if (r->status < 0)
        snprintf(st, sizeof st, "signal %d", -r->status);
    else
        snprintf(st, sizeof st, "exit %d", r->status);
    print_error("%s: %s\n--- stdout (end)\n%s\n--- stderr (end)\n%s\n", what, st, tail(r->out),
                tail(r->err));
}

/* The value of key in the last RESULT line of out, or "" (buf holds it). */
static const char *result_field(const char *out, const char *key, char *buf, size_t len)
{
    const char *line = NULL;
    for (const char *p = out; (p = strstr(p, "RESULT ")) != NULL; p++)
        if (p == out || p[-1] == '\n')
            line = p;
    buf[0] = '\0';
    if (!line)
        return buf;
    size_t kl = strlen(key);
    const char *end = strchr(line, '\n');
    if (!end)
        end = line + strlen(line);
    for (const char *p = line + 7; p < end; p++) {   /* after "RESULT " */
        if (p[-1] == ' ' && strncmp(p, key, kl) == 0 && p[kl] == '=') {
            size_t n = strcspn(p + kl + 1, " \n");
            if (n >= len)
                n = len - 1;
            memcpy(buf, p + kl + 1, n);
            buf[n] = '\0';
            break;
        }
    }
    return buf;
}

static int has_result_line(const char *out)
{
    return strncmp(out, "RESULT ", 7) == 0 || strstr(out, "\nRESULT ") != NULL;
}

/*
 * 1: the program is built.  Skips the test when the benchmark is not
 * written yet; fails when its source is there but the program is not.
 */
static int need_bench(const char *name, char *path, size_t len)
{
    snprintf(path, len, "%s/bench/%s", g_build, name);
    if (access(path, X_OK) == 0)
        return 1;
    char pat[PATH_MAX + 64];
    glob_t g;
    snprintf(pat, sizeof pat, "%s/benchmarks/*/%s.c", g_root, name);
    int found = glob(pat, 0, NULL, &g) == 0 && g.gl_pathc > 0;
    if (found) {
        char src[PATH_MAX];
        snprintf(src, sizeof src, "%s", g.gl_pathv[0]);
        globfree(&g);
        fail_msg("%s exists but %s was not built: run make", src, path);
    }
    globfree(&g);
    print_message("skipping %s: not written yet (no benchmarks/*/%s.c, no %s)\n", name, name, path);
    skip();
    return 0;
}

/* One run at --size test must pass and say so in its RESULT line. */
static void check_run(const char *bench, const char *path, const char *regime, const char *topo,
                      const char *threads)
{
    char e_reg[64], e_top[64], e_thr[64], buf[256], what[256];
    snprintf(e_reg, sizeof e_reg, "LOCUS_REGIME=%s", regime);
    snprintf(e_thr, sizeof e_thr, "LOCUS_THREADS=%s", threads);
    snprintf(e_top, sizeof e_top, "LOCUS_TOPOLOGY=%s", topo ? topo : "");
    const char *set[] = { e_reg, e_thr, topo ? e_top : NULL, NULL };
    char *argv[] = { (char *)path, "--size", "test", "--reps", "1", NULL };
    snprintf(what, sizeof what, "LOCUS_REGIME=%s LOCUS_THREADS=%s%s%s %s --size test --reps 1",
             regime, threads, topo ? " LOCUS_TOPOLOGY=" : "", topo ? topo : "", path);
    print_message("%s\n", what);

    struct run r = run_prog(argv, set, RUN_TIMEOUT_S);
    int ok = r.status == 0 && has_result_line(r.out)
             && strcmp(result_field(r.out, "verified", buf, sizeof buf), "1") == 0
             && strcmp(result_field(r.out, "benchmark", buf, sizeof buf), bench) == 0
             && strcmp(result_field(r.out, "regime", buf, sizeof buf), regime) == 0
             && strcmp(result_field(r.out, "workers", buf, sizeof buf), threads) == 0;
    if (ok && topo)
        ok = strcmp(result_field(r.out, "topology", buf, sizeof buf), topo) == 0
             && strcmp(result_field(r.out, "nodes", buf, sizeof buf), "16") == 0;
    if (!ok) {
        describe(what, &r);
        int st = r.status;
        run_free(&r);
        fail_msg("%s: exit %d; expected exit 0 and a RESULT line with benchmark=%s regime=%s "
                 "workers=%s%s verified=1", what, st, bench, regime, threads,
                 topo ? " nodes=16" : "");
    }
    run_free(&r);
}

static void test_runs(void **state)
{
    const char *bench = *state;
    char path[PATH_MAX + 64];
    if (!need_bench(bench, path, sizeof path))
        return;
    check_run(bench, path, "dft", NULL, "2");
    if (!g_sanitizer)
        check_run(bench, path, "di", NULL, "2");
    check_run(bench, path, "naft", NULL, "2");
    if (!g_sanitizer)
        check_run(bench, path, "naft", "bullion-s16", "4");
}

/* Parameters each program must refuse with exit 2 and a message on stderr. */
struct bad {
    const char *bench;             /* NULL: every benchmark */
    const char *why;
    const char *args[8];
};

static const struct bad bad_params[] = {
    { NULL, "unknown preset", { "--size", "bogus" } },
    { NULL, "unknown option", { "--no-such-option" } },
    { NULL, "missing value", { "--size" } },
    { NULL, "zero repetitions", { "--reps", "0" } },
    { "cholesky", "tile not dividing the order", { "--n", "500", "--tile", "128" } },
    { "cholesky", "zero order", { "--n", "0" } },
    { "cholesky", "zero tile", { "--tile", "0" } },
    { "smi", "tile not dividing the order", { "--n", "500", "--tile", "128" } },
    { "smi", "zero order", { "--n", "0" } },
    { "smi", "zero tile", { "--tile", "0" } },
    { "jacobi", "block not dividing the rows", { "--n", "512", "--block", "100" } },
    { "jacobi", "zero grid", { "--n", "0" } },
    { "jacobi", "zero block", { "--block", "0" } },
    { "inthist", "block not dividing the image", { "--width", "512", "--height", "512", "--block", "100" } },
    { "inthist", "zero width", { "--width", "0" } },
    { "inthist", "zero bins", { "--bins", "0" } },
    /* Streamcluster's chunks and blocks may end short (as in PARSEC): its
     * inconsistent sets are medians and room for them instead. */
    { "streamcluster", "generic preset name", { "--size", "small" } },
    { "streamcluster", "fewer medians allowed than required", { "--k1", "5", "--k2", "3" } },
    { "streamcluster", "no room for a chunk's centres", { "--size", "test", "--centres", "10" } },
    { "streamcluster", "zero points", { "--points", "0" } },
    { "streamcluster", "zero dimension", { "--dim", "0" } },
    { "streamcluster", "zero block", { "--block", "0" } },
};

static void test_bad_params(void **state)
{
    const char *bench = *state;
    char path[PATH_MAX + 64];
    if (!need_bench(bench, path, sizeof path))
        return;
    int failed = 0;
    for (size_t i = 0; i < sizeof bad_params / sizeof bad_params[0]; i++) {
        const struct bad *b = &bad_params[i];
        if (b->bench && strcmp(b->bench, bench) != 0)
            continue;
        char *argv[10] = { path };
        char what[512];
        int n = snprintf(what, sizeof what, "%s", path);
        for (int j = 0; b->args[j]; j++) {
            argv[j + 1] = (char *)b->args[j];
            n += snprintf(what + n, sizeof what - (size_t)n, " %s", b->args[j]);
        }
        const char *set[] = { "LOCUS_THREADS=2", NULL };
        struct run r = run_prog(argv, set, RUN_TIMEOUT_S);
        const char *e = r.err + strspn(r.err, " \t\n");
        if (r.status != 2 || *e == '\0') {
            print_error("%s (%s): exit %d, stderr '%s'; expected exit 2 and a message on stderr\n",
                        what, b->why, r.status, tail(r.err));
            failed++;
        }
        run_free(&r);
    }
    if (failed)
        fail_msg("%s: %d bad parameter set(s) not refused as they should be", bench, failed);
}

static int count_lines(const char *path)
{
    char *s = slurp(path);
    int n = 0;
    for (char *p = s; *p; p++)
        n += *p == '\n';
    free(s);
    return n;
}

static int python3_found(void)
{
    char *argv[] = { "/bin/sh", "-c", "command -v python3", NULL };
    struct run r = run_prog(argv, NULL, 30);
    int ok = r.status == 0;
    run_free(&r);
    return ok;
}

/* benchmarks/run: 1 benchmark x 2 regimes x 1 worker count x 2 reps. */
static void test_driver(void **state)
{
    (void)state;
    if (g_sanitizer) {
        print_message("skipping the driver under LOCUS_TEST_SANITIZER (time; it runs no new code)\n");
        skip();
    }
    if (!python3_found()) {
        print_message("skipping: python3 not found (benchmarks/run needs it)\n");
        skip();
    }
    static const char *const names[] = { "cholesky", "jacobi", "inthist", "smi", "streamcluster" };
    const char *bench = NULL;
    char path[PATH_MAX + 64];
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !bench; i++) {
        snprintf(path, sizeof path, "%s/bench/%s", g_build, names[i]);
        if (access(path, X_OK) == 0)
            bench = names[i];
    }
    if (!bench) {
        print_message("skipping: no benchmark program built in %s/bench yet\n", g_build);
        skip();
    }

    char driver[PATH_MAX + 32], bindir[PATH_MAX + 16], csv[PATH_MAX + 16];
    snprintf(driver, sizeof driver, "%s/benchmarks/run", g_root);
    snprintf(bindir, sizeof bindir, "%s/bench", g_build);
    snprintf(csv, sizeof csv, "%s/results.csv", g_tmp);
    char *argv[] = { driver, "--bench", (char *)bench, "--size", "test", "--regimes", "dft,naft",
                     "--workers", "2", "--reps", "2", "--csv", csv, "--bin-dir", bindir, NULL };
    print_message("%s --bench %s --size test --regimes dft,naft --workers 2 --reps 2\n", driver, bench);
    struct run r = run_prog(argv, NULL, RUN_TIMEOUT_S);
    if (r.status != 0)
        describe("benchmarks/run", &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "[4/4] "));
    run_free(&r);
    assert_int_equal(count_lines(csv), 1 + 4);   /* header + one row a run */
    char *s = slurp(csv);
    static const char head[] = "benchmark,size,params,regime,topology,workers,nodes,rep,seconds,";
    assert_true(strncmp(s, head, sizeof head - 1) == 0);
    /* What the figures say of the topology: real here, and the CPUs the
     * runs had (benchmarks/plot: "16 workers on 2 CPUs" where virtual). */
    char tail[64];
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        cpus = CPU_COUNT(&set);
    snprintf(tail, sizeof tail, ",real,%ld\r\n", cpus);   /* Python's csv ends rows in \r\n */
    const char *eol = strstr(s, "\r\n");
    assert_non_null(eol);
    assert_true(eol - s > 20 && strncmp(eol - 15, ",topo_kind,cpus", 15) == 0);
    if (!strstr(eol, tail))
        print_error("no row ends in ',real,%ld' in:\n%s\n", cpus, s);
    assert_non_null(strstr(eol, tail));
    free(s);

    /* Resume: the same sweep again runs nothing and adds no row. */
    r = run_prog(argv, NULL, RUN_TIMEOUT_S);
    if (r.status != 0 || !strstr(r.out, "nothing to do"))
        describe("benchmarks/run again", &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "nothing to do"));
    run_free(&r);
    assert_int_equal(count_lines(csv), 1 + 4);
    g_driver_ok = 1;
    snprintf(g_driver_bench, sizeof g_driver_bench, "%s", bench);

    /* Clear refusals, exit 2: an unknown benchmark, a regime, a missing program. */
    char *bad_bench[] = { driver, "--bench", "nosuch", "--csv", csv, NULL };
    char *bad_regime[] = { driver, "--bench", (char *)bench, "--regimes", "dft,xyz", "--csv", csv, NULL };
    char *bad_workers[] = { driver, "--bench", (char *)bench, "--workers", "0", "--csv", csv, NULL };
    char *no_prog[] = { driver, "--bench", (char *)bench, "--workers", "1", "--csv", csv,
                        "--bin-dir", g_tmp, NULL };
    struct { char **argv; const char *needle; } refusals[] = {
        { bad_bench, "nosuch" }, { bad_regime, "xyz" }, { bad_workers, "'0'" }, { no_prog, "make" },
    };
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
        r = run_prog(refusals[i].argv, NULL, RUN_TIMEOUT_S);
        if (r.status != 2 || !strstr(r.err, refusals[i].needle))
            describe("benchmarks/run with a bad option", &r);
        assert_int_equal(r.status, 2);
        assert_non_null(strstr(r.err, refusals[i].needle));
        run_free(&r);
    }
    assert_int_equal(count_lines(csv), 1 + 4);
}

static void test_plot(void **state)
{
    (void)state;
    if (g_sanitizer) {
        print_message("skipping the plots under LOCUS_TEST_SANITIZER (time; they run no new code)\n");
        skip();
    }
    if (!g_driver_ok) {
        print_message("skipping: test_driver made no CSV to plot (see its message)\n");
        skip();
    }
    char plot[PATH_MAX + 32], csv[PATH_MAX + 16], out[PATH_MAX + 16];
    snprintf(plot, sizeof plot, "%s/benchmarks/plot", g_root);
    snprintf(csv, sizeof csv, "%s/results.csv", g_tmp);
    snprintf(out, sizeof out, "%s/plots", g_tmp);
    char *check[] = { plot, "--check", NULL };
    struct run r = run_prog(check, NULL, RUN_TIMEOUT_S);
    if (r.status != 0) {
        print_message("skipping the plots: %s", r.out[0] ? r.out : "matplotlib missing\n");
        run_free(&r);
        skip();
    }
    run_free(&r);

    char *argv[] = { plot, csv, "--out", out, NULL };
    r = run_prog(argv, NULL, RUN_TIMEOUT_S);
    if (r.status != 0)
        describe("benchmarks/plot", &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "Table 3"));
    run_free(&r);
    static const char *const files[] = { "fig2-speedup-machine.png", "fig3-bandwidth-machine.png",
                                         "fig4-movement-machine.png", "fig7-nodes-machine.png",
                                         "table3.md" };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char p[PATH_MAX + 64];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", out, files[i]);
        if (stat(p, &st) != 0 || st.st_size == 0)
            fail_msg("benchmarks/plot did not write %s", p);
    }
    char p[PATH_MAX + 64], row[64];
    snprintf(p, sizeof p, "%s/table3.md", out);
    snprintf(row, sizeof row, "| %s | test | 2 |", g_driver_bench);
    char *s = slurp(p);
    int found = strstr(s, row) != NULL;
    if (!found)
        print_error("table3.md:\n%s\n", s);
    free(s);
    assert_true(found);
}

/* ---------------------------------------------------------------- granularity */

static const char *const gran_patterns[] = { "independent", "stencil_1d_1x", "stencil_1d_4x",
                                             "nearest_r3", "nearest_r5", "fanin_tree",
                                             "wavefront" };
#define GRAN_NPATTERNS (sizeof gran_patterns / sizeof gran_patterns[0])
#define GRAN_QUICK_GRAINS 4        /* the programs' --quick sweep */

/*
 * Checks the RESULT lines of a granularity program: `per_pattern` lines for
 * each of the seven patterns, each with benchmark=granularity, impl=impl,
 * verified=want_verified and a 16-digit checksum.  Returns the number of
 * problems, each printed.
 */
static int gran_check_results(const char *what, const char *out, const char *impl,
                              int per_pattern, const char *want_verified)
{
    int count[GRAN_NPATTERNS] = { 0 }, problems = 0;
    for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (strncmp(p, "RESULT ", 7) != 0)
            continue;
        char line[1024], buf[256], params[512];
        size_t n = strcspn(p, "\n");
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
        result_field(line, "params", params, sizeof params);
        size_t i = 0;
        for (; i < GRAN_NPATTERNS; i++) {
            size_t l = strlen(gran_patterns[i]);
            if (strncmp(params, "pattern=", 8) == 0 && strncmp(params + 8, gran_patterns[i], l) == 0
                && params[8 + l] == ',')
                break;
        }
        const char *ck = strstr(params, ",checksum=");
        if (i == GRAN_NPATTERNS
            || strcmp(result_field(line, "benchmark", buf, sizeof buf), "granularity") != 0
            || strcmp(result_field(line, "impl", buf, sizeof buf), impl) != 0
            || strcmp(result_field(line, "verified", buf, sizeof buf), want_verified) != 0
            || !ck || strspn(ck + 10, "0123456789abcdef") != 16) {
            print_error("%s: unexpected line (want impl=%s verified=%s and a checksum):\n%s\n",
                        what, impl, want_verified, line);
            problems++;
            continue;
        }
        count[i]++;
    }
    for (size_t i = 0; i < GRAN_NPATTERNS; i++)
        if (count[i] != per_pattern) {
            print_error("%s: %d RESULT lines for %s, expected %d\n", what, count[i],
                        gran_patterns[i], per_pattern);
            problems++;
        }
    return problems;
}

/* The number of RESULT lines of out whose params do not end in
 * ",shape=master" (each printed): --shape master's lines say so. */
static int gran_not_master(const char *what, const char *out)
{
    int problems = 0;
    for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (strncmp(p, "RESULT ", 7) != 0)
            continue;
        char line[1024], params[512];
        size_t n = strcspn(p, "\n");
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
        result_field(line, "params", params, sizeof params);
        size_t l = strlen(params);
        if (l < 13 || strcmp(params + l - 13, ",shape=master") != 0) {
            print_error("%s: a RESULT line without shape=master:\n%s\n", what, line);
            problems++;
        }
    }
    return problems;
}

/* The METG benchmark on Locus: --quick, every pattern at every size verified. */
static void test_granularity_quick(void **state)
{
    (void)state;
    char path[PATH_MAX + 64];
    if (!need_bench("granularity", path, sizeof path))
        return;
    char *argv[] = { path, "--quick", NULL };
    const char *set[] = { "LOCUS_THREADS=2", NULL };
    print_message("LOCUS_THREADS=2 %s --quick\n", path);
    struct run r = run_prog(argv, set, RUN_TIMEOUT_S);
    int problems = gran_check_results("granularity --quick", r.out, "locus", GRAN_QUICK_GRAINS, "1");
    if (r.status != 0 || problems) {
        describe("granularity --quick", &r);
        fail_msg("granularity --quick: exit %d, %d problem(s) in its RESULT lines", r.status,
                 problems);
    }
    run_free(&r);
}

/*
 * --shape master (the shape of issue 28's other benchmark: one measurement
 * a process from before the first region, the master spawning step by
 * step), --quick, every pattern at every size verified: natively and with
 * the gcc OpenMP program on liblocus-gomp.  The program runs itself once a
 * measurement, so this also checks that the children's lines all arrive.
 */
static void test_granularity_master(void **state)
{
    (void)state;
    char path[PATH_MAX + 64], omp[PATH_MAX + 64], e_lib[PATH_MAX + 96];
    if (!need_bench("granularity", path, sizeof path)
        || !need_bench("granularity-omp", omp, sizeof omp))
        return;
    snprintf(e_lib, sizeof e_lib, "LD_LIBRARY_PATH=%s/gomp", g_build);
    const char *on_locus[] = { "LOCUS_THREADS=2", NULL };
    const char *on_layer[] = { "OMP_NUM_THREADS=2", e_lib, "LD_PRELOAD=", NULL };
    struct { const char *impl, *prog, *const *set; } runs[] = {
        { "locus", path, on_locus }, { "locus-gomp", omp, on_layer },
    };
    for (size_t i = 0; i < 2; i++) {
        if (i == 1 && g_tsan) {
            print_message("skipping the OpenMP program under TSan (gcc's OpenMP code is not "
                          "instrumented)\n");
            break;
        }
        char *argv[] = { (char *)runs[i].prog, "--quick", "--shape", "master", NULL };
        char what[2 * PATH_MAX + 256];
        snprintf(what, sizeof what, "%s %s --quick --shape master", runs[i].set[0], runs[i].prog);
        print_message("%s\n", what);
        struct run r = run_prog(argv, runs[i].set, RUN_TIMEOUT_S);
        int problems = gran_check_results(what, r.out, runs[i].impl, GRAN_QUICK_GRAINS, "1")
                       + gran_not_master(what, r.out);
        if (r.status != 0 || problems) {
            describe(what, &r);
            fail_msg("%s: exit %d, %d problem(s) in its RESULT lines", what, r.status, problems);
        }
        run_free(&r);
    }
}

/*
 * lapack_peer --bound: the Cholesky kernel bound peers.sh divides by.  Its
 * RESULT line must be the rate of max(kernel time / workers, critical
 * path) that it prints beside it, at 1 and at 4 workers, with a critical
 * path no longer than the kernel time; a tile that does not divide the
 * order, or either option without the other, exits 2.  (Rates are not
 * asserted: timings.)
 */
static double bound_seconds(const char *path, const char *workers, double *kernel, double *crit)
{
    char *argv[] = { (char *)path, "--bound", "512", "--tile", "128", "--threads",
                     (char *)workers, NULL };
    print_message("%s --bound 512 --tile 128 --threads %s\n", path, workers);
    struct run r = run_prog(argv, NULL, RUN_TIMEOUT_S);
    char buf[64];
    const char *k = strstr(r.out, "kernel time ");
    const char *c = strstr(r.out, "critical path ");
    int ok = r.status == 0 && has_result_line(r.out) && k && c
             && strcmp(result_field(r.out, "impl", buf, sizeof buf), "kernel-bound") == 0
             && sscanf(k, "kernel time %lf", kernel) == 1
             && sscanf(c, "critical path %lf", crit) == 1;
    double secs = ok ? atof(result_field(r.out, "seconds", buf, sizeof buf)) : 0.0;
    if (!ok || !(secs > 0.0)) {
        int st = r.status;
        describe("lapack_peer --bound", &r);
        run_free(&r);
        fail_msg("lapack_peer --bound 512 --tile 128: exit %d; expected exit 0, the kernel time "
                 "and critical path, and a RESULT line with impl=kernel-bound", st);
    }
    run_free(&r);
    return secs;
}

static void test_kernel_bound(void **state)
{
    (void)state;
    char path[PATH_MAX + 64];
    if (!need_bench("lapack_peer", path, sizeof path))
        return;
    double kernel, crit;
    for (int workers = 1; workers <= 4; workers *= 4) {
        char wbuf[8];
        snprintf(wbuf, sizeof wbuf, "%d", workers);
        double secs = bound_seconds(path, wbuf, &kernel, &crit);
        double want = kernel / workers > crit ? kernel / workers : crit;
        if (fabs(secs - want) > 2e-6 + 1e-3 * want)   /* both printed to 1 us */
            fail_msg("--threads %d: bound %.6f s; expected max(%.6f / %d, %.6f) = %.6f", workers,
                     secs, kernel, workers, crit, want);
        if (!(crit > 0.0 && crit <= kernel))
            fail_msg("--threads %d: critical path %.6f s outside (0, kernel time %.6f]", workers,
                     crit, kernel);
    }
    static const char *const bad[][6] = {
        { "--bound", "500", "--tile", "128" },
        { "--bound", "512" },
        { "--tile", "128", "--dgemm", "64" },
        { "--bound", "512", "--tile", "0" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *argv[8] = { path };
        for (int j = 0; bad[i][j]; j++)
            argv[j + 1] = (char *)bad[i][j];
        struct run r = run_prog(argv, NULL, RUN_TIMEOUT_S);
        int said = r.err[strspn(r.err, " \t\n")] != '\0';
        int st = r.status;
        run_free(&r);
        if (st != 2 || !said)
            fail_msg("lapack_peer %s %s %s %s: exit %d; expected exit 2 and a message", bad[i][0],
                     bad[i][1], bad[i][2] ? bad[i][2] : "", bad[i][3] ? bad[i][3] : "", st);
    }
}

/* A run that skips or duplicates a task must fail verification in every
 * pattern (exit 1, verified=0, a message on stderr), in both shapes (in
 * master's, each measurement is a child process whose failure the parent's
 * exit status must carry). */
static void test_granularity_faults(void **state)
{
    (void)state;
    char path[PATH_MAX + 64];
    if (!need_bench("granularity", path, sizeof path))
        return;
    if (g_tsan) {
        /* a duplicated task races with itself on its slot, by design */
        print_message("skipping the injected faults under TSan (a duplicated task races)\n");
        skip();
    }
    static const char *const faults[] = { "skip", "dup" };
    static const char *const shapes[] = { "ours", "master" };
    for (size_t f = 0; f < 4; f++) {
        char *argv[] = { path, "--quick", "--grain", "1000", "--fault", (char *)faults[f % 2],
                         "--shape", (char *)shapes[f / 2], NULL };
        const char *set[] = { "LOCUS_THREADS=2", NULL };
        char what[PATH_MAX + 128];
        snprintf(what, sizeof what, "%s --quick --grain 1000 --fault %s --shape %s", path,
                 faults[f % 2], shapes[f / 2]);
        print_message("LOCUS_THREADS=2 %s\n", what);
        struct run r = run_prog(argv, set, RUN_TIMEOUT_S);
        int problems = gran_check_results(what, r.out, "locus", 1, "0")
                       + (f / 2 ? gran_not_master(what, r.out) : 0);
        if (r.status != 1 || problems || !strstr(r.err, "differ from the serial replay")) {
            describe(what, &r);
            fail_msg("%s: exit %d, %d problem(s); expected exit 1, verified=0 in every pattern "
                     "and a message on stderr", what, r.status, problems);
        }
        run_free(&r);
    }
}

/* The OpenMP peer, --quick, on libgomp and on liblocus-gomp. */
static void test_granularity_omp(void **state)
{
    (void)state;
    char path[PATH_MAX + 64], layer[PATH_MAX + 64], e_lib[PATH_MAX + 96];
    if (!need_bench("granularity-omp", path, sizeof path))
        return;
    if (g_tsan) {
        print_message("skipping the OpenMP peer under TSan (libgomp is not instrumented)\n");
        skip();
    }
    snprintf(layer, sizeof layer, "%s/gomp", g_build);
    snprintf(e_lib, sizeof e_lib, "LD_LIBRARY_PATH=%s", layer);
    const char *on_gomp[] = { "OMP_NUM_THREADS=2", "LD_LIBRARY_PATH=", "LD_PRELOAD=", NULL };
    const char *on_locus[] = { "OMP_NUM_THREADS=2", e_lib, "LD_PRELOAD=", NULL };
    struct { const char *impl; const char *const *set; } runs[] = {
        { "libgomp", on_gomp }, { "locus-gomp", on_locus },
    };
    for (size_t i = 0; i < 2; i++) {
        char *argv[] = { path, "--quick", NULL };
        char what[2 * PATH_MAX + 256];
        snprintf(what, sizeof what, "OMP_NUM_THREADS=2 %s %s --quick",
                 i ? e_lib : "(on libgomp)", path);
        print_message("%s\n", what);
        struct run r = run_prog(argv, runs[i].set, RUN_TIMEOUT_S);
        int problems = gran_check_results(what, r.out, runs[i].impl, GRAN_QUICK_GRAINS, "1");
        if (r.status != 0 || problems) {
            describe(what, &r);
            fail_msg("%s: exit %d, %d problem(s) in its RESULT lines", what, r.status, problems);
        }
        run_free(&r);
    }
}

/* Options every granularity program and the driver must refuse with exit 2. */
static void test_granularity_bad_params(void **state)
{
    (void)state;
    char path[PATH_MAX + 64], driver[PATH_MAX + 64];
    if (!need_bench("granularity", path, sizeof path))
        return;
    snprintf(driver, sizeof driver, "%s/benchmarks/granularity/metg", g_root);
    static const char *const bad[][4] = {
        { "--grain", "5" }, { "--grain", "1000,x" }, { "--pattern", "bogus" },
        { "--fault", "twice" }, { "--budget-ms", "0" }, { "--iters-per-us", "-1" },
        { "--no-such-option" }, { "--grain" }, { "--shape", "single" },
    };
    static const char *const bad_driver[][4] = {
        { "--threads", "0" }, { "--pattern", "bogus" }, { "--runtimes", "tbb" },
        { "--grain", "5" }, { "--quick=1" }, { "--no-such-option" }, { "--shape", "single" },
    };
    int failed = 0;
    for (int d = 0; d < 2; d++) {
        if (d == 1 && (g_sanitizer || !python3_found()))
            break;
        size_t n = d ? sizeof bad_driver / sizeof bad_driver[0] : sizeof bad / sizeof bad[0];
        for (size_t i = 0; i < n; i++) {
            const char *const *args = d ? bad_driver[i] : bad[i];
            char *argv[6] = { d ? driver : path };
            char what[PATH_MAX + 128];
            int len = snprintf(what, sizeof what, "%s", argv[0]);
            for (int j = 0; j < 4 && args[j]; j++) {
                argv[j + 1] = (char *)args[j];
                len += snprintf(what + len, sizeof what - (size_t)len, " %s", args[j]);
            }
            const char *set[] = { "LOCUS_THREADS=2", NULL };
            struct run r = run_prog(argv, set, RUN_TIMEOUT_S);
            const char *e = r.err + strspn(r.err, " \t\n");
            if (r.status != 2 || *e == '\0') {
                print_error("%s: exit %d, stderr '%s'; expected exit 2 and a message\n", what,
                            r.status, tail(r.err));
                failed++;
            }
            run_free(&r);
        }
    }
    if (failed)
        fail_msg("%d bad option set(s) not refused as they should be", failed);
}

/* The driver, --quick: every runtime it finds, all verified, the METG table
 * with a row a pattern, metg.md, and the plots where matplotlib is found. */
static void test_granularity_driver(void **state)
{
    (void)state;
    char path[PATH_MAX + 64];
    if (!need_bench("granularity", path, sizeof path) || !need_bench("granularity-omp", path, sizeof path))
        return;
    if (g_sanitizer) {
        print_message("skipping the METG driver under LOCUS_TEST_SANITIZER (time; it runs no new code)\n");
        skip();
    }
    if (!python3_found()) {
        print_message("skipping: python3 not found (benchmarks/granularity/metg needs it)\n");
        skip();
    }
    char driver[PATH_MAX + 64], bindir[PATH_MAX + 16], out[PATH_MAX + 16];
    snprintf(driver, sizeof driver, "%s/benchmarks/granularity/metg", g_root);
    snprintf(bindir, sizeof bindir, "%s/bench", g_build);
    snprintf(out, sizeof out, "%s/metg", g_tmp);
    char *argv[] = { driver, "--quick", "--threads", "2", "--bin-dir", bindir, "--out", out, NULL };
    print_message("%s --quick --threads 2\n", driver);
    struct run r = run_prog(argv, NULL, RUN_TIMEOUT_S);
    int ok = r.status == 0 && strstr(r.out, "measurements verified") && strstr(r.out, "## METG(50%)");
    for (size_t i = 0; ok && i < GRAN_NPATTERNS; i++) {
        char row[64];
        snprintf(row, sizeof row, "\n| %s |", gran_patterns[i]);
        ok = strstr(r.out, row) != NULL;
    }
    if (!ok) {
        describe("metg --quick", &r);
        fail_msg("metg --quick: exit %d; expected exit 0, every measurement verified and a "
                 "METG row for each pattern", r.status);
    }
    if (strstr(r.err, "libomp skipped"))
        print_message("note: %s", strstr(r.err, "libomp skipped"));
    int plots = strstr(r.err, "plots skipped") == NULL;
    run_free(&r);
    char p[PATH_MAX + 64];
    struct stat st;
    snprintf(p, sizeof p, "%s/metg.md", out);
    if (stat(p, &st) != 0 || st.st_size == 0)
        fail_msg("metg did not write %s", p);
    for (size_t i = 0; plots && i < GRAN_NPATTERNS; i++) {
        snprintf(p, sizeof p, "%s/metg-%s.png", out, gran_patterns[i]);
        if (stat(p, &st) != 0 || st.st_size == 0)
            fail_msg("metg did not write %s", p);
    }

    /* --shape master: its own table and files, the default shape's left as they were. */
    static const char *const master_patterns[] = { "independent", "stencil_1d_1x", "nearest_r3" };
    snprintf(p, sizeof p, "%s/metg.md", out);
    char *ours_md = slurp(p);
    char *master[] = { driver, "--quick", "--shape", "master", "--threads", "2", "--bin-dir",
                       bindir, "--out", out, NULL };
    print_message("%s --quick --shape master --threads 2\n", driver);
    r = run_prog(master, NULL, RUN_TIMEOUT_S);
    ok = r.status == 0 && strstr(r.out, "measurements verified")
         && strstr(r.out, "## METG(50%), 2 workers, master shape");
    for (size_t i = 0; ok && i < 3; i++) {
        char row[64];
        snprintf(row, sizeof row, "\n| %s |", master_patterns[i]);
        ok = strstr(r.out, row) != NULL;
    }
    if (!ok) {
        describe("metg --quick --shape master", &r);
        fail_msg("metg --quick --shape master: exit %d; expected exit 0, every measurement "
                 "verified and a master-shape METG row for independent, stencil_1d_1x and "
                 "nearest_r3", r.status);
    }
    run_free(&r);
    snprintf(p, sizeof p, "%s/metg-master.md", out);
    if (stat(p, &st) != 0 || st.st_size == 0)
        fail_msg("metg --shape master did not write %s", p);
    snprintf(p, sizeof p, "%s/metg.md", out);
    char *ours_after = slurp(p);
    int same = strcmp(ours_md, ours_after) == 0;
    free(ours_md);
    free(ours_after);
    if (!same)
        fail_msg("metg --shape master changed %s (the default shape's table)", p);

    /* Without the compiler, libomp is skipped with the reason, not failed. */
    char *no_clang[] = { driver, "--quick", "--threads", "2", "--pattern", "wavefront",
                         "--runtimes", "locus,libomp", "--bin-dir", bindir, "--out", out, NULL };
    const char *set[] = { "CLANG=/nonexistent/clang-14", NULL };
    print_message("CLANG=/nonexistent/clang-14 %s --quick --pattern wavefront --runtimes "
                  "locus,libomp\n", driver);
    r = run_prog(no_clang, set, RUN_TIMEOUT_S);
    if (r.status != 0 || !strstr(r.err, "libomp skipped: clang-14 not found")
        || !strstr(r.out, "| wavefront |")) {
        describe("metg without clang", &r);
        fail_msg("metg without clang: exit %d; expected exit 0, 'libomp skipped: clang-14 not "
                 "found' on stderr and the Locus row", r.status);
    }
    run_free(&r);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static int group_setup(void **state)
{
    (void)state;
    snprintf(g_tmp, sizeof g_tmp, "%s/test_benchmarks.XXXXXX",
             getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    return mkdtemp(g_tmp) ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    nftw(g_tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}

/* BUILD from argv[0] (BUILD/tests/test_benchmarks), else from /proc/self/exe. */
static void find_dirs(const char *argv0)
{
    char exe[PATH_MAX];
    if (strchr(argv0, '/')) {
        snprintf(exe, sizeof exe, "%s", argv0);
    } else {
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = '\0';
    }
    char *slash = strrchr(exe, '/');       /* BUILD/tests | test_benchmarks */
    if (slash)
        *slash = '\0';
    slash = strrchr(exe, '/');             /* BUILD | tests */
    if (slash && slash != exe)
        *slash = '\0';
    else
        strcpy(exe, slash ? "/" : ".");
    snprintf(g_build, sizeof g_build, "%s", exe);
    char *r = realpath(g_build, NULL);
    if (r) {
        snprintf(g_build, sizeof g_build, "%s", r);
        free(r);
    }
    snprintf(g_root, sizeof g_root, "%s", g_build);
    slash = strrchr(g_root, '/');
    if (slash && slash != g_root)
        *slash = '\0';
}

int main(int argc, char **argv)
{
    (void)argc;
    find_dirs(argv[0]);
    const char *san = getenv("LOCUS_TEST_SANITIZER");
    g_sanitizer = san && (strcmp(san, "asan") == 0 || strcmp(san, "tsan") == 0);
    g_tsan = san && strcmp(san, "tsan") == 0;
    printf("test_benchmarks: programs in %s/bench, driver in %s/benchmarks%s\n", g_build, g_root,
           g_sanitizer ? " (sanitizer: DFT and NAFT runs only, no driver)" : "");
    fflush(stdout);

#define BENCH_TESTS(name) \
    { name ": --size test in each regime", test_runs, NULL, NULL, (void *)name }, \
    { name ": bad parameters exit 2", test_bad_params, NULL, NULL, (void *)name }
    const struct CMUnitTest tests[] = {
        BENCH_TESTS("cholesky"),
        BENCH_TESTS("smi"),
        BENCH_TESTS("jacobi"),
        BENCH_TESTS("streamcluster"),
        BENCH_TESTS("inthist"),
        { "benchmarks/run: sweep, resume, refusals", test_driver, NULL, NULL, NULL },
        { "lapack_peer --bound: the Cholesky kernel bound", test_kernel_bound, NULL, NULL, NULL },
        { "benchmarks/plot: figures and table3.md", test_plot, NULL, NULL, NULL },
        { "granularity: --quick, every pattern verified", test_granularity_quick, NULL, NULL, NULL },
        { "granularity: a skipped or duplicated task fails verification", test_granularity_faults,
          NULL, NULL, NULL },
        { "granularity-omp: --quick on libgomp and liblocus-gomp", test_granularity_omp, NULL,
          NULL, NULL },
        { "granularity --shape master: Locus and liblocus-gomp, every pattern verified",
          test_granularity_master, NULL, NULL, NULL },
        { "granularity: bad options exit 2", test_granularity_bad_params, NULL, NULL, NULL },
        { "benchmarks/granularity/metg --quick: table, files", test_granularity_driver, NULL,
          NULL, NULL },
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
