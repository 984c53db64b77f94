/*
 * bench.h - what every Locus benchmark program shares (header-only, so the
 * build's one-program-per-source rule needs no exception): option parsing
 * helpers, the clock, the BLAS line, and the two result lines every run
 * prints: one for people and one `RESULT key=value ...` line that
 * benchmarks/run turns into a CSV row.
 *
 * Benchmark programs may read the environment (they are programs, not the
 * library): LOCUS_REGIME and LOCUS_TOPOLOGY are echoed in the result line.
 */
#ifndef LOCUS_BENCH_H
#define LOCUS_BENCH_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"      /* build/config.h: HAVE_CBLAS, HAVE_LAPACKE */
#ifndef BENCH_NO_LOCUS   /* defined by the OpenMP peers, which do not link Locus */
#include "locus.h"
#endif

#ifdef HAVE_CBLAS
#define BENCH_WITH_BLAS 1
char *openblas_get_corename(void);
char *openblas_get_config(void);
void openblas_set_num_threads(int num_threads);
#endif

#ifndef BENCH_NO_LOCUS
/* Under simulation (LOCUS_SIM, locus-sim(7)) the runtime's clock is the
 * simulated one (bench_now), and with task models (LOCUS_SIM_MODEL) the
 * bodies that have one do not run: their results are not there to verify
 * (bench_simulated). */
static inline int bench_in_sim(void)
{
    const char *s = getenv("LOCUS_SIM");
    return s && *s;
}

static inline int bench_simulated(void)
{
    const char *m = getenv("LOCUS_SIM_MODEL");
    return bench_in_sim() && m && *m;
}
#endif

static inline double bench_now(void)
{
#ifndef BENCH_NO_LOCUS
    if (bench_in_sim())
        return locus_wtime();
#endif
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline void bench_die(const char *prog, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

/* A command-line error: says what is wrong and what is accepted, points at
 * --help, exit 2. */
__attribute__((format(printf, 2, 3), noreturn)) static inline void
bench_bad_usage(const char *prog, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry '%s --help'.\n", prog);
    exit(2);
}

/* A positive integer option value, or exit 2 with a message naming it. */
static inline long bench_parse_long(const char *prog, const char *opt, const char *v,
                                    long min, long max)
{
    char *end;
    if (!v)
        bench_die(prog, "option '%s' needs a value", opt);
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < min || x > max)
        bench_die(prog, "option '%s': '%s' is not an integer in %ld..%ld", opt, v, min, max);
    return x;
}

/*
 * Reads the option at argv[*i] into name (len bytes): "--name=value", or
 * "--name value" when name is one of with_value (NULL-terminated), or a
 * flag.  Returns the value, NULL for a flag; exits 2 when a flag is given a
 * value or a value is missing.  *i moves past a separate value.
 */
static inline const char *bench_next_opt(const char *prog, int argc, char **argv, int *i,
                                         char *name, size_t len, const char *const *with_value)
{
    const char *arg = argv[*i], *val = NULL, *eq = strchr(arg, '=');
    if (strncmp(arg, "--", 2) == 0 && eq && (size_t)(eq - arg) < len) {
        memcpy(name, arg, (size_t)(eq - arg));
        name[eq - arg] = '\0';
        val = eq + 1;
    } else {
        snprintf(name, len, "%s", arg);
    }
    int takes = 0;
    for (const char *const *w = with_value; *w && !takes; w++)
        takes = strcmp(name, *w) == 0;
    if (!takes && val)
        bench_die(prog, "option '%s' takes no value", name);
    if (takes && !val) {
        if (*i + 1 >= argc)
            bench_die(prog, "option '%s' needs a value", name);
        val = argv[++*i];
    }
    return val;
}

/*
 * The BLAS library and the kernel set it runs (OpenBLAS names the CPU core
 * it optimises for).  OpenBLAS 0.3.21 misdetects some CPUs (e.g. in VMs)
 * and falls back to generic (Prescott) kernels several times slower: warn
 * when that happens on a CPU with AVX2 and say how to fix it.
 */
static inline void bench_blas(char *buf, size_t len, int warn)
{
#ifdef BENCH_WITH_BLAS
    const char *core = openblas_get_corename();
    snprintf(buf, len, "OpenBLAS:%s", core ? core : "unknown");
    if (warn && core && (strcasecmp(core, "prescott") == 0 || strcasecmp(core, "core2") == 0
                         || strcasecmp(core, "katmai") == 0 || strcasecmp(core, "generic") == 0)
        && __builtin_cpu_supports("avx2"))
        fprintf(stderr, "warning: OpenBLAS runs generic '%s' kernels on a CPU with AVX2%s: set "
                "OPENBLAS_CORETYPE (e.g. Haswell, SkylakeX or Zen) for the real speed\n", core,
                __builtin_cpu_supports("avx512f") ? "/AVX-512" : "");
    openblas_set_num_threads(1);   /* tasks are the parallelism; BLAS runs inside them */
#else
    (void)warn;
    snprintf(buf, len, "none");
#endif
}

/* The fields every result line carries besides the benchmark's own. */
struct bench_result {
    const char *benchmark;   /* cholesky, smi, jacobi, streamcluster, inthist */
    const char *size;        /* preset name or "custom" */
    const char *params;      /* e.g. "n=8192,b=512" (no spaces) */
    double seconds;          /* the measured phase */
    double metric;           /* GFLOP/s, GB/s, points/s ... */
    const char *metric_unit; /* "GFLOP/s" ... (no spaces) */
    int verified;            /* 1 passed, 0 failed, -1 not checked */
    const char *blas;        /* bench_blas() text */
    const char *impl;        /* "locus", or the peer's name */
    const char *extra;       /* more "key=value ..." for the RESULT line (the
                                distributed benchmarks' rank figures), or NULL */
};

/*
 * Prints the human line and the RESULT line.  For impl "locus" (runtime
 * running) it adds the locality figures of locus_get_stats() since the last
 * locus_reset_stats() and the bytes placed on each node.
 */
#ifdef BENCH_NO_LOCUS
typedef struct { int workers, nodes; unsigned long long bytes_local, bytes_near, bytes_far, bytes_placed,
                 bytes_given_up, first_touch_tasks, steals_near, steals_far; } bench_stats_t;
#define bench_get_stats(st) (-1)
#define bench_node_bytes(n, b) (-1)
#else
typedef locus_stats_t bench_stats_t;
#define bench_get_stats(st) locus_get_stats((st), sizeof *(st))
static inline int bench_node_bytes(int n, unsigned long long *b)
{
    locus_node_stats_t ns;
    int r = locus_get_node_stats(n, &ns, sizeof ns);
    *b = ns.bytes_local + ns.bytes_near + ns.bytes_far;
    return r;
}
#endif

/* Copies s into the RESULT line with blanks and '=' made '_' (one token). */
static inline void bench_token(const char *s)
{
    for (; *s; s++)
        putchar(*s == ' ' || *s == '=' || *s == '\t' || *s == '\n' ? '_' : *s);
}

/*
 * The hardware coherence counts of the run (LOCUS_COUNTERS): for each class
 * counted, CLASS:kind:tx/rx separated by ';', or unavailable(reason) when
 * the machine counts nothing -- never 0 for what was not counted.
 */
static inline void bench_print_counters(int is_locus)
{
#if !defined(BENCH_NO_LOCUS) && defined(LOCUS_HAVE_COUNTERS)
    locus_counters_t c;
    if (is_locus && locus_get_counters(&c, sizeof c) == 0) {
        int any = 0;
        for (int k = 0; k < LOCUS_COUNTER_NCLASSES; k++) {
            const locus_counter_value_t *v = &c.cls[k];
            if (v->kind == LOCUS_COUNTER_UNAVAILABLE)
                continue;
            printf("%s%s:%s:", any++ ? ";" : "", locus_counter_class_name(k),
                   locus_counter_kind_name(v->kind));
            if (v->flags & LOCUS_COUNTER_HAS_TX)
                printf("%llu", (unsigned long long)v->tx);
            putchar('/');
            if (v->flags & LOCUS_COUNTER_HAS_RX)
                printf("%llu", (unsigned long long)v->rx);
        }
        if (!any) {
            printf("unavailable(");
            bench_token(c.reason[0] ? c.reason : c.cls[0].reason);
            putchar(')');
        }
        return;
    }
#endif
    (void)is_locus;
    printf("-");
}

static inline void bench_print(const struct bench_result *r)
{
    const char *regime = getenv("LOCUS_REGIME"), *topo = getenv("LOCUS_TOPOLOGY");
#ifndef BENCH_NO_LOCUS
    char simtopo[128];
    if (bench_in_sim()) {   /* a simulated machine: said so wherever the topology is */
        snprintf(simtopo, sizeof simtopo, "sim:%s", getenv("LOCUS_SIM"));
        topo = simtopo;
    }
#endif
    int is_locus = strcmp(r->impl, "locus") == 0;
    bench_stats_t st;
    memset(&st, 0, sizeof st);
    if (is_locus && bench_get_stats(&st) != 0)
        is_locus = 0;
    printf("%s %s (%s) impl=%s: %.3f s, %.2f %s, %s\n", r->benchmark, r->size, r->params,
           r->impl, r->seconds, r->metric, r->metric_unit,
           r->verified > 0 ? "verified" : r->verified == 0 ? "VERIFICATION FAILED" : "not verified");
    if (is_locus) {
        uint64_t tot = st.bytes_local + st.bytes_near + st.bytes_far;
        printf("  workers %d on %d node%s, regime %s, topology %s; dependency bytes local %.1f%% "
               "near %.1f%% far %.1f%%; BLAS %s\n", st.workers, st.nodes, st.nodes == 1 ? "" : "s",
               regime && *regime ? regime : "naft", topo && *topo ? topo : "machine",
               tot ? 100.0 * (double)st.bytes_local / (double)tot : 0.0,
               tot ? 100.0 * (double)st.bytes_near / (double)tot : 0.0,
               tot ? 100.0 * (double)st.bytes_far / (double)tot : 0.0, r->blas);
    }
    printf("RESULT benchmark=%s size=%s params=%s impl=%s regime=%s topology=%s workers=%d nodes=%d "
           "seconds=%.6f metric=%.6g unit=%s verified=%d bytes_local=%llu bytes_near=%llu "
           "bytes_far=%llu bytes_placed=%llu bytes_given_up=%llu first_touch=%llu steals_near=%llu "
           "steals_far=%llu "
           "node_bytes=",
           r->benchmark, r->size, r->params, r->impl,
           is_locus ? (regime && *regime ? regime : "naft") : "-",
           is_locus ? (topo && *topo ? topo : "machine") : "-",
           is_locus ? st.workers : 0, is_locus ? st.nodes : 0, r->seconds, r->metric,
           r->metric_unit, r->verified, (unsigned long long)st.bytes_local,
           (unsigned long long)st.bytes_near, (unsigned long long)st.bytes_far,
           (unsigned long long)st.bytes_placed, (unsigned long long)st.bytes_given_up,
           (unsigned long long)st.first_touch_tasks, (unsigned long long)st.steals_near,
           (unsigned long long)st.steals_far);
    if (is_locus) {
        for (int n = 0; n < st.nodes; n++) {
            unsigned long long b = 0;
            if (bench_node_bytes(n, &b) == 0)
                printf("%s%llu", n ? ";" : "", b);
        }
    } else {
        printf("-");
    }
    printf(" blas=%s counters=", r->blas);
    bench_print_counters(is_locus);
    if (r->extra && *r->extra)
        printf(" %s", r->extra);
    printf("\n");
    fflush(stdout);
}

#endif /* LOCUS_BENCH_H */
