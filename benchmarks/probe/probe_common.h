/*
 * probe_common.h - what the parallelism probe (probe.c on Locus,
 * probe_omp.c on libgomp) shares: options, the compute-bound task body,
 * its calibration, the blocks the stencil's tasks read and write, timing
 * and output.  Only the spawn loops differ.
 *
 * Two shapes of NTASKS tasks, spawned by the initial thread and waited
 * for by one taskwait:
 *   indep    no dependencies
 *   stencil  width 2: step s has two tasks, each reading both blocks of
 *            step s-1 and writing its own block of step s (one block per
 *            step and column, so only read-after-write edges)
 * The question it answers (issue 15): does a second worker make these run
 * twice as fast, as it does on libgomp?
 */
#ifndef PROBE_COMMON_H
#define PROBE_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROBE_MAX_TASKS 100000

struct probe_block {
    _Alignas(64) uint64_t v[8];
};

/* block [s][j]: step s, column j (stencil); indep uses [i/2][i%2] */
static struct probe_block probe_blocks[PROBE_MAX_TASKS / 2 + 1][2];

static long probe_iters = 1000;   /* body length, calibrated */

struct probe_arg {
    struct probe_block *out;
    const struct probe_block *in0, *in1;
};

/* The body: a chain of dependent integer multiply-adds, probe_iters long,
 * seeded by what it reads and stored where it writes, so that it can be
 * neither dropped nor overlapped with its neighbour. */
__attribute__((noinline)) static void probe_body(void *p)
{
    const struct probe_arg *a = p;
    uint64_t x = (a->in0 ? a->in0->v[0] : 1) + (a->in1 ? a->in1->v[0] : 2);
    for (long i = 0; i < probe_iters; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        __asm__ volatile("" : "+r"(x));
    }
    a->out->v[0] = x;
}

static inline double probe_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Sets probe_iters so that one body takes about ns nanoseconds here (the
 * fastest of a few tries, so that a busy CPU makes bodies shorter, not
 * longer); returns the body time measured with that count. */
static double probe_calibrate(double ns)
{
    struct probe_block b;
    struct probe_arg a = { &b, NULL, NULL };
    probe_iters = 100000;
    double best = 1e9;
    for (int k = 0; k < 5; k++) {
        double t0 = probe_now();
        probe_body(&a);
        double t = (probe_now() - t0) * 1e9;
        if (t < best)
            best = t;
    }
    probe_iters = (long)(100000.0 * ns / best);
    if (probe_iters < 1)
        probe_iters = 1;
    best = 1e9;
    for (int k = 0; k < 200; k++) {
        double t0 = probe_now();
        probe_body(&a);
        double t = (probe_now() - t0) * 1e9;
        if (t < best)
            best = t;
    }
    return best;
}

struct probe_opts {
    long tasks;
    int reps;
    double body_ns;
    int shape;    /* 0 both, 1 indep, 2 stencil */
};

static void probe_parse(int argc, char **argv, struct probe_opts *o)
{
    o->tasks = 2000;
    o->reps = 15;
    o->body_ns = 7000;
    o->shape = 0;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--tasks") && v) {
            o->tasks = strtol(v, NULL, 10);
            i++;
        } else if (!strcmp(argv[i], "--reps") && v) {
            o->reps = (int)strtol(v, NULL, 10);
            i++;
        } else if (!strcmp(argv[i], "--body-ns") && v) {
            o->body_ns = strtod(v, NULL);
            i++;
        } else if (!strcmp(argv[i], "--shape") && v) {
            o->shape = !strcmp(v, "indep") ? 1 : !strcmp(v, "stencil") ? 2
                     : !strcmp(v, "all") ? 0 : -1;
            i++;
        } else if (!strcmp(argv[i], "--help")) {
            printf("usage: %s [--tasks N] [--reps R] [--body-ns NS] [--shape indep|stencil|all]\n"
                   "See benchmarks/README.md (the parallelism probe).\n", argv[0]);
            exit(0);
        } else {
            o->shape = -1;
        }
        if (o->shape < 0 || o->tasks < 2 || o->tasks > PROBE_MAX_TASKS || o->reps < 1
            || o->reps > 1000 || !(o->body_ns > 0)) {
            fprintf(stderr, "usage: %s [--tasks N (2..%d, default 2000)] [--reps R (default 15)]\n"
                    "       [--body-ns NS (default 7000)] [--shape indep|stencil|all]\n"
                    "Threads: LOCUS_THREADS for Locus, OMP_NUM_THREADS for libgomp.\n",
                    argv[0], PROBE_MAX_TASKS);
            exit(2);
        }
    }
}

static int probe_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One line per shape: impl shape tasks workers body_ns median_ms min_ms */
static void probe_report(const char *impl, const char *shape, long tasks, int workers,
                         double body_ns, double *ms, int reps)
{
    qsort(ms, (size_t)reps, sizeof *ms, probe_cmp);
    printf("%-6s %-8s tasks=%ld workers=%d body_ns=%.0f median_ms=%.2f min_ms=%.2f\n",
           impl, shape, tasks, workers, body_ns, ms[reps / 2], ms[0]);
    fflush(stdout);
}

#endif /* PROBE_COMMON_H */
