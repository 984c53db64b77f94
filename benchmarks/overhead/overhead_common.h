/*
 * overhead_common.h - everything the Locus and the libgomp overhead
 * benchmarks share: options, the empty task body, the dependency objects,
 * timing, statistics and output.  Both programs include this one file so
 * that their command line, their output and their task bodies cannot drift
 * apart; only the spawn loops differ (locus_spawn vs #pragma omp task).
 *
 * Header-only on purpose: each benchmark is built from a single .c file
 * (overhead.c against Locus, overhead_omp.c with -fopenmp against libgomp).
 */
#ifndef OVERHEAD_COMMON_H
#define OVERHEAD_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/bench.h"   /* bench_bad_usage */

enum bench_pattern { PAT_INDEP, PAT_CHAIN, PAT_CHAINS, PAT_FANIN, PAT_COUNT };

static const char *const bench_pattern_name[PAT_COUNT] = { "indep", "chain", "chains", "fanin" };

#define BENCH_CHAINS 64      /* independent chains of the 'chains' pattern */
#define BENCH_FANIN_OBJS 1024 /* objects of the 'fanin' pattern (power of two) */
#define BENCH_MAX_WINDOWS 32
#define BENCH_MAX_REPS 1000
#define BENCH_MAX_TASKS 10000000000L
#define BENCH_WARMUP_TASKS 20000L
#define BENCH_WINDOW_ALL 0   /* window "N": no taskwait until the end */

/* One dependency object per cache line, so that no two objects share a line
 * and the cost measured is the runtime's, not false sharing between them. */
struct bench_obj {
    _Alignas(64) unsigned char bytes[64];
};

static struct bench_obj bench_objs[BENCH_FANIN_OBJS];

/*
 * The task body, identical for both runtimes: it does nothing visible, but
 * the compiler may neither drop the call nor merge it with its neighbours
 * (noinline + a volatile asm with a memory clobber).
 */
__attribute__((noinline)) static void bench_body(void *arg)
{
    (void)arg;
    __asm__ volatile("" ::: "memory");
}

struct bench_opts {
    bool pattern_on[PAT_COUNT];
    int npatterns;
    enum bench_pattern patterns[PAT_COUNT]; /* in the order given */
    long tasks;                             /* 0: not given */
    long windows[BENCH_MAX_WINDOWS];        /* as given; BENCH_WINDOW_ALL = N */
    int nwindows;
    int reps;                               /* 0: not given */
    bool quick;
    bool csv;
};

static void bench_usage(FILE *f, const char *prog)
{
    fprintf(f,
            "usage: %s [options]\n"
            "Per-task overhead of empty tasks spawned by one thread.\n"
            "  --pattern P   indep | chain | chains | fanin | all (repeatable; default all)\n"
            "  --tasks N     tasks per measurement (default 1000000)\n"
            "  --window W    taskwait after every W tasks; W = N or 'all' means only at\n"
            "                the end (repeatable; default 1000 10000 100000 N)\n"
            "  --reps R      timed repetitions, median and min reported (default 5)\n"
            "  --quick       N = 100000, windows 1000 and N, reps 3 (explicit options win)\n"
            "  --csv         one line per result: impl,pattern,window,tasks,workers,median_ns,min_ns\n"
            "  --help        this text\n"
            "Threads: LOCUS_THREADS for Locus, OMP_NUM_THREADS for libgomp.\n",
            prog);
}

/* Strict positive integer: decimal digits, optionally 'e' and an exponent
 * (1e6), no sign, no junk, at most max.  Returns -1 when it is not one. */
static long bench_parse_count(const char *s, long max)
{
    const char *p = s;
    long v = 0;

    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (max - (*p - '0')) / 10)
            return -1;
        v = v * 10 + (*p - '0');
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p < '0' || *p > '9' || p[1] != '\0')
            return -1;
        for (int e = *p++ - '0'; e > 0; e--) {
            if (v > max / 10)
                return -1;
            v *= 10;
        }
    }
    if (*p != '\0' || v <= 0 || v > max)
        return -1;
    return v;
}

static void bench_add_pattern(struct bench_opts *o, enum bench_pattern p)
{
    if (!o->pattern_on[p]) {
        o->pattern_on[p] = true;
        o->patterns[o->npatterns++] = p;
    }
}

static void bench_parse_options(int argc, char **argv, struct bench_opts *o)
{
    const char *prog = argv[0];
    memset(o, 0, sizeof *o);

    for (int i = 1; i < argc; i++) {
        char *arg = argv[i];
        const char *val = NULL;
        char name[32];
        char *eq = strchr(arg, '=');

        /* --name=value and --name value are both accepted. */
        if (strncmp(arg, "--", 2) == 0 && eq && (size_t)(eq - arg) < sizeof name) {
            memcpy(name, arg, (size_t)(eq - arg));
            name[eq - arg] = '\0';
            val = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", arg);
        }
        bool takes_value = !strcmp(name, "--pattern") || !strcmp(name, "--tasks") ||
                           !strcmp(name, "--window") || !strcmp(name, "--reps");
        if (!takes_value && val)
            bench_bad_usage(prog, "option '%s' takes no value", name);
        if (takes_value && !val) {
            if (i + 1 >= argc)
                bench_bad_usage(prog, "option '%s' needs a value", name);
            val = argv[++i];
        }

        if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
            bench_usage(stdout, prog);
            exit(0);
        } else if (!strcmp(name, "--quick")) {
            o->quick = true;
        } else if (!strcmp(name, "--csv")) {
            o->csv = true;
        } else if (!strcmp(name, "--pattern")) {
            int p;
            if (!strcmp(val, "all")) {
                for (p = 0; p < PAT_COUNT; p++)
                    bench_add_pattern(o, (enum bench_pattern)p);
                continue;
            }
            for (p = 0; p < PAT_COUNT && strcmp(val, bench_pattern_name[p]); p++)
                ;
            if (p == PAT_COUNT)
                bench_bad_usage(prog,
                                "--pattern '%s': expected indep, chain, chains, fanin or all", val);
            bench_add_pattern(o, (enum bench_pattern)p);
        } else if (!strcmp(name, "--tasks")) {
            o->tasks = bench_parse_count(val, BENCH_MAX_TASKS);
            if (o->tasks < 0)
                bench_bad_usage(prog, "--tasks '%s': expected a positive integer (e.g. 1000000 "
                                "or 1e6) at most 1e10", val);
        } else if (!strcmp(name, "--window")) {
            long w = BENCH_WINDOW_ALL;
            if (strcmp(val, "N") && strcmp(val, "all")) {
                w = bench_parse_count(val, BENCH_MAX_TASKS);
                if (w < 0)
                    bench_bad_usage(prog, "--window '%s': expected a positive integer, "
                                    "or N (or all) for no intermediate taskwait", val);
            }
            if (o->nwindows == BENCH_MAX_WINDOWS)
                bench_bad_usage(prog, "too many --window options (at most %d)", BENCH_MAX_WINDOWS);
            o->windows[o->nwindows++] = w;
        } else if (!strcmp(name, "--reps")) {
            long r = bench_parse_count(val, BENCH_MAX_REPS);
            if (r < 0)
                bench_bad_usage(prog, "--reps '%s': expected an integer in 1..1000", val);
            o->reps = (int)r;
        } else {
            bench_bad_usage(prog, "unknown option '%s'", arg);
        }
    }

    /* Defaults; --quick changes the defaults, explicit options still win. */
    if (o->npatterns == 0)
        for (int p = 0; p < PAT_COUNT; p++)
            bench_add_pattern(o, (enum bench_pattern)p);
    if (o->tasks == 0)
        o->tasks = o->quick ? 100000 : 1000000;
    if (o->reps == 0)
        o->reps = o->quick ? 3 : 5;
    if (o->nwindows == 0) {
        static const long full[] = { 1000, 10000, 100000, BENCH_WINDOW_ALL };
        static const long quick[] = { 1000, BENCH_WINDOW_ALL };
        const long *w = o->quick ? quick : full;
        int n = o->quick ? 2 : 4;
        for (int k = 0; k < n; k++)
            o->windows[o->nwindows++] = w[k];
    }

    /* A window of N or more is the same measurement as "no taskwait": clamp
     * to N and drop duplicates so each measurement runs once; then sort. */
    int kept = 0;
    for (int k = 0; k < o->nwindows; k++) {
        long w = o->windows[k];
        if (w == BENCH_WINDOW_ALL || w > o->tasks)
            w = o->tasks;
        bool dup = false;
        for (int j = 0; j < kept; j++)
            dup |= o->windows[j] == w;
        if (!dup)
            o->windows[kept++] = w;
    }
    o->nwindows = kept;
    for (int k = 1; k < kept; k++) /* ascending, so both programs agree */
        for (int j = k; j > 0 && o->windows[j - 1] > o->windows[j]; j--) {
            long t = o->windows[j];
            o->windows[j] = o->windows[j - 1];
            o->windows[j - 1] = t;
        }
}

static double bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v and returns its median; *min gets the smallest value. */
static double bench_median(double *v, int n, double *min)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    *min = v[0];
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static const char *bench_env(const char *name)
{
    const char *v = getenv(name);
    return v ? v : "unset";
}

static void bench_print_header(const struct bench_opts *o, const char *impl, int workers)
{
    /* In CSV mode stdout carries only the CSV; the context goes to stderr. */
    FILE *f = o->csv ? stderr : stdout;
    fprintf(f, "# impl=%s workers=%d (LOCUS_THREADS=%s OMP_NUM_THREADS=%s) tasks=%ld reps=%d\n",
            impl, workers, bench_env("LOCUS_THREADS"), bench_env("OMP_NUM_THREADS"), o->tasks,
            o->reps);
    if (o->csv)
        printf("impl,pattern,window,tasks,workers,median_ns,min_ns\n");
    fflush(stdout);
}

static void bench_print_result(const struct bench_opts *o, const char *impl,
                               enum bench_pattern p, long window, int workers, double median,
                               double min)
{
    if (o->csv) {
        printf("%s,%s,%ld,%ld,%d,%.1f,%.1f\n", impl, bench_pattern_name[p], window, o->tasks,
               workers, median, min);
    } else {
        char w[24];
        if (window >= o->tasks)
            snprintf(w, sizeof w, "N");
        else
            snprintf(w, sizeof w, "%ld", window);
        printf("impl=%-7s pattern=%-6s window=%-7s tasks=%ld workers=%d  "
               "median %9.1f ns/task  min %9.1f ns/task\n",
               impl, bench_pattern_name[p], w, o->tasks, workers, median, min);
    }
    fflush(stdout); /* compare.sh reads the lines as they come */
}

/*
 * Runs every (pattern, window) of o: one untimed warm-up of at most
 * BENCH_WARMUP_TASKS tasks (first-touch of the runtime's pools), then o->reps
 * timed runs of o->tasks tasks; each run is spawn + completion of all tasks.
 * run(pattern, tasks, window) is the runtime-specific spawn loop.
 */
static void bench_run_all(const struct bench_opts *o, const char *impl, int workers,
                          void (*run)(enum bench_pattern, long, long))
{
    double ns[BENCH_MAX_REPS];

    bench_print_header(o, impl, workers);
    for (int pi = 0; pi < o->npatterns; pi++) {
        enum bench_pattern p = o->patterns[pi];
        for (int wi = 0; wi < o->nwindows; wi++) {
            long w = o->windows[wi];
            long warm = o->tasks < BENCH_WARMUP_TASKS ? o->tasks : BENCH_WARMUP_TASKS;
            run(p, warm, w < warm ? w : warm);
            for (int r = 0; r < o->reps; r++) {
                double t0 = bench_now_ns();
                run(p, o->tasks, w);
                ns[r] = (bench_now_ns() - t0) / (double)o->tasks;
            }
            double min, median = bench_median(ns, o->reps, &min);
            bench_print_result(o, impl, p, w, workers, median, min);
        }
    }
}

#endif /* OVERHEAD_COMMON_H */
