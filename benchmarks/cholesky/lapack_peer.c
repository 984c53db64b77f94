/*
 * lapack_peer.c - the library baselines the Cholesky benchmark is compared
 * with in the same run, on the same machine and the same BLAS:
 *   --potrf N   OpenBLAS's own multithreaded LAPACKE_dpotrf on the matrix of
 *               cholesky.c (cholesky_kernels.h's generator), stored whole
 *               and column-major: what a program gets without a task runtime;
 *   --dgemm N   the DGEMM rate of N x N matrices (median of 3), the ceiling
 *               any tiled factorisation built on this BLAS can approach.
 * Threads: --threads T is given to OpenBLAS (openblas_set_num_threads).
 * No Locus here: no tasks, no locus_init.
 */
#define BENCH_NO_LOCUS 1
#include <unistd.h>

#include "cholesky_common.h"

#define PEER_DGEMM_RUNS 3

static void usage(FILE *f, const char *prog)
{
    fprintf(f,
            "usage: %s (--potrf N | --dgemm N) [--threads T] [--reps R]\n"
            "OpenBLAS baselines for the Cholesky benchmark.\n"
            "  --potrf N    time LAPACKE_dpotrf (lower) on the N x N test matrix of\n"
            "               build/bench/cholesky, R times (default 1) on a fresh copy\n"
            "  --dgemm N    time C = A B on N x N matrices, median of %d runs\n"
            "  --threads T  OpenBLAS threads (default: the online CPUs)\n"
            "  --help       this text\n",
            prog, PEER_DGEMM_RUNS);
}

/* The preset whose matrix order is n, so rows can be joined by size. */
static const char *size_name(long n)
{
    for (int k = 0; k < CHOL_NPRESETS; k++)
        if (chol_presets[k].n == n)
            return chol_presets[k].name;
    return "custom";
}

static double *alloc_square(long n)
{
    double *p = malloc((size_t)n * (size_t)n * sizeof *p);
    if (!p) {
        fprintf(stderr, "lapack_peer: out of memory for a %ld x %ld matrix\n", n, n);
        exit(1);
    }
    return p;
}

/*
 * max over random x of ||A x - L (L^T x)||_2 / (||A||_F ||x||_2 n eps), L
 * the lower triangle of a (column-major, order n), A from the generator:
 * the same O(n^2) check as cholesky.c's for large sizes.
 */
static double check_potrf(const double *a, long n)
{
    enum { V = CHOL_CHECK_VECTORS };
    double asq = 0.0, worst = 0.0;
    double *x = malloc((size_t)n * V * sizeof *x);
    double *y = calloc((size_t)n * V, sizeof *y), *z = malloc((size_t)n * sizeof *z);
    if (!x || !y || !z) {
        fprintf(stderr, "lapack_peer: out of memory for the check\n");
        exit(1);
    }
    for (int v = 0; v < V; v++)
        for (long i = 0; i < n; i++)
            x[v * n + i] = chol_vec(i, v);
    for (long j = 0; j < n; j++)            /* y = A x, one pass over A */
        for (long i = 0; i < n; i++) {
            double e = chol_gen(i, j, n);
            asq += e * e;
            for (int v = 0; v < V; v++)
                y[v * n + i] += e * x[v * n + j];
        }
    for (int v = 0; v < V; v++) {           /* y = y - L (L^T x) */
        memcpy(z, x + v * n, (size_t)n * sizeof *z);
        cblas_dtrmv(CblasColMajor, CblasLower, CblasTrans, CblasNonUnit, (int)n, a, (int)n, z, 1);
        cblas_dtrmv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, (int)n, a, (int)n, z,
                    1);
        cblas_daxpy((int)n, -1.0, z, 1, y + v * n, 1);
        double res = cblas_dnrm2((int)n, y + v * n, 1) /
                     (sqrt(asq) * cblas_dnrm2((int)n, x + v * n, 1) * (double)n * DBL_EPSILON);
        if (!(res <= worst))
            worst = res;
    }
    free(x);
    free(y);
    free(z);
    return worst;
}

static void run_potrf(long n, int threads, int reps, const char *blas)
{
    char params[64];
    double *a = alloc_square(n);

    snprintf(params, sizeof params, "n=%ld,threads=%d", n, threads);
    for (int rep = 0; rep < reps; rep++) {
        for (long j = 0; j < n; j++)
            for (long i = 0; i < n; i++)
                a[j * n + i] = chol_gen(i, j, n);
        double t0 = bench_now();
        int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', (int)n, a, (int)n);
        double secs = bench_now() - t0;
        double res = info == 0 ? check_potrf(a, n) : NAN;
        int ok = info == 0 && res < CHOL_CHECK_BOUND;
        printf("  check (vectors): ||A - L L^T|| / (||A|| n eps) = %.3g, bound %g: %s%s\n", res,
               CHOL_CHECK_BOUND, ok ? "passed" : "FAILED", info ? " (dpotrf info != 0)" : "");
        struct bench_result r = {
            .benchmark = "cholesky", .size = size_name(n), .params = params,
            .seconds = secs, .metric = (double)n * n * n / 3.0 / secs * 1e-9,
            .metric_unit = "GFLOP/s", .verified = ok, .blas = blas, .impl = "openblas-potrf",
        };
        bench_print(&r);
    }
    free(a);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static void run_dgemm(long n, int threads, const char *blas)
{
    char params[64];
    double *a = alloc_square(n), *b = alloc_square(n), *c = alloc_square(n);
    double secs[PEER_DGEMM_RUNS];

    snprintf(params, sizeof params, "n=%ld,threads=%d", n, threads);
    for (long e = 0; e < n * n; e++) {
        a[e] = chol_unit(chol_mix((uint64_t)e));
        b[e] = chol_unit(chol_mix((uint64_t)e ^ 0xb0b0000000000000ull));
        c[e] = 0.0;
    }
    for (int k = 0; k < PEER_DGEMM_RUNS; k++) {
        double t0 = bench_now();
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0, a,
                    (int)n, b, (int)n, 0.0, c, (int)n);
        secs[k] = bench_now() - t0;
    }
    qsort(secs, PEER_DGEMM_RUNS, sizeof secs[0], cmp_double);
    double med = secs[PEER_DGEMM_RUNS / 2];
    struct bench_result r = {
        .benchmark = "dgemm", .size = size_name(n), .params = params, .seconds = med,
        .metric = 2.0 * n * n * n / med * 1e-9, .metric_unit = "GFLOP/s", .verified = -1,
        .blas = blas, .impl = "openblas-dgemm",
    };
    bench_print(&r);
    free(a);
    free(b);
    free(c);
}

int main(int argc, char **argv)
{
    const char *prog = argv[0];
    long potrf = 0, dgemm = 0, reps = 1;
    long threads = sysconf(_SC_NPROCESSORS_ONLN);
    char blas[64];

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            usage(stdout, prog);
            return 0;
        } else if (!strcmp(arg, "--potrf")) {
            potrf = bench_parse_long(prog, arg, argv[i + 1], 1, 100000);
            i++;
        } else if (!strcmp(arg, "--dgemm")) {
            dgemm = bench_parse_long(prog, arg, argv[i + 1], 1, 100000);
            i++;
        } else if (!strcmp(arg, "--threads")) {
            threads = bench_parse_long(prog, arg, argv[i + 1], 1, 1024);
            i++;
        } else if (!strcmp(arg, "--reps")) {
            reps = bench_parse_long(prog, arg, argv[i + 1], 1, CHOL_MAX_REPS);
            i++;
        } else {
            bench_die(prog, "unknown option '%s' (try --help)", arg);
        }
    }
    if (!potrf == !dgemm)
        bench_die(prog, "give exactly one of --potrf N and --dgemm N (try --help)");
    if (threads < 1)
        threads = 1;

    bench_blas(blas, sizeof blas, 1);   /* sets one thread: set ours after it */
    openblas_set_num_threads((int)threads);
    chol_warmup(256);
    if (potrf)
        run_potrf(potrf, (int)threads, (int)reps, blas);
    else
        run_dgemm(dgemm, (int)threads, blas);
    return 0;
}
