/*
 * lapack_peer.c - the library baselines the Cholesky benchmark is compared
 * with in the same run, on the same machine and the same BLAS:
 *   --potrf N   OpenBLAS's own multithreaded LAPACKE_dpotrf on the matrix of
 *               cholesky.c (cholesky_kernels.h's generator), stored whole
 *               and column-major: what a program gets without a task runtime;
 *   --dgemm N   the DGEMM rate of N x N matrices (median of 3), the ceiling
 *               any tiled factorisation built on this BLAS can approach;
 *   --bound N --tile B  the kernel bound of the tiled factorisation: each
 *               tile kernel (cholesky_kernels.h) timed alone on one
 *               thread with its tiles in cache (best of a few runs), and the
 *               rate a schedule of N/B x N/B tiles on T workers would reach
 *               if no worker ever waited and every kernel ran that fast:
 *               n^3/3 over max(kernel time / T, critical path).  No task
 *               runtime can beat it with these kernels; what a runtime
 *               loses is the distance to it.
 * Threads: --threads T is given to OpenBLAS (openblas_set_num_threads).
 * No Locus here: no tasks, no locus_init.
 */
#define BENCH_NO_LOCUS 1
#include <unistd.h>

#include "cholesky_common.h"

#define PEER_DGEMM_RUNS 3
#define PEER_BOUND_RUNS 5

static void usage(FILE *f, const char *prog)
{
    fprintf(f,
            "usage: %s (--potrf N | --dgemm N | --bound N --tile B) [--threads T] [--reps R]\n"
            "OpenBLAS baselines for the Cholesky benchmark.\n"
            "  --potrf N    time LAPACKE_dpotrf (lower) on the N x N test matrix of\n"
            "               build/bench/cholesky, R times (default 1) on a fresh copy\n"
            "  --dgemm N    time C = A B on N x N matrices, median of %d runs\n"
            "  --bound N    the kernel bound of build/bench/cholesky --n N --tile B on T\n"
            "               workers: its tile kernels timed one at a time on one thread,\n"
            "               tiles in cache (best of %d), as if no worker ever waited\n"
            "  --tile B     the tile order of --bound (must divide N)\n"
            "  --threads T  OpenBLAS threads, or the workers of --bound (default: the\n"
            "               online CPUs)\n"
            "  --help       this text\n",
            prog, PEER_DGEMM_RUNS, PEER_BOUND_RUNS);
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

/* Seconds of the fastest of PEER_BOUND_RUNS calls of kernel k (0 potrf, 1
 * trsm, 2 syrk, 3 gemm) on b x b tiles warm in cache, each call on a fresh
 * copy of the tile it writes: potrf factors the diagonal tile c, trsm
 * solves x against c's factor lkk, syrk and gemm update c with x and y. */
static double time_kernel(int k, int b, double *lkk, double *x, double *y, double *c)
{
    size_t bytes = (size_t)b * (size_t)b * sizeof(double);
    double *w = malloc(bytes);
    if (!w) {
        fprintf(stderr, "lapack_peer: out of memory for a %d x %d tile\n", b, b);
        exit(1);
    }
    double best = INFINITY;
    for (int run = 0; run < PEER_BOUND_RUNS + 1; run++) {   /* the first warms up */
        memcpy(w, k == 1 ? x : c, bytes);   /* trsm solves x; the others update c */
        double t0 = bench_now();
        switch (k) {
        case 0: (void)chol_potrf(w, b); break;
        case 1: chol_trsm(lkk, w, b); break;
        case 2: chol_syrk(y, w, b); break;
        default: chol_gemm(x, y, w, b); break;
        }
        double secs = bench_now() - t0;
        if (run > 0 && secs < best)
            best = secs;
    }
    free(w);
    return best;
}

static void run_bound(const char *prog, long n, int b, int workers, const char *blas)
{
    if (n % b != 0)
        bench_die(prog, "--tile %d does not divide --bound %ld", b, n);
    size_t bytes = (size_t)b * (size_t)b * sizeof(double);
    double *lkk = malloc(bytes), *x = malloc(bytes), *y = malloc(bytes), *c = malloc(bytes);
    if (!lkk || !x || !y || !c) {
        fprintf(stderr, "lapack_peer: out of memory for %d x %d tiles\n", b, b);
        exit(1);
    }
    /* the matrix's own tiles: (1,0) and (2,0) off the diagonal, (0,0) on it
     * (whole, SPD), and L_00 its factor */
    chol_gen_tile(x, 1, 0, b, n);
    chol_gen_tile(y, 2, 0, b, n);
    chol_gen_tile(c, 0, 0, b, n);
    memcpy(lkk, c, bytes);
    if (chol_potrf(lkk, b) != 0)
        bench_die(prog, "dpotrf of the first %d x %d tile failed", b, b);

    openblas_set_num_threads(1);   /* a task's kernel runs on one thread */
    double t[4];
    for (int k = 0; k < 4; k++)
        t[k] = time_kernel(k, b, lkk, x, y, c);
    double nt = (double)(n / b);
    double count[4] = { nt, nt * (nt - 1) / 2, nt * (nt - 1) / 2, nt * (nt - 1) * (nt - 2) / 6 };
    double work = 0.0;
    for (int k = 0; k < 4; k++)
        work += count[k] * t[k];
    /* potrf(k) -> trsm(k+1, k) -> syrk(k+1, k) -> potrf(k+1) */
    double path = nt * t[0] + (nt - 1) * (t[1] + t[2]);
    double secs = work / workers > path ? work / workers : path;
    double f = (double)b * b * b;
    printf("  tile kernels, one thread, GFLOP/s: potrf %.1f trsm %.1f syrk %.1f gemm %.1f; "
           "kernel time %.6f s, critical path %.6f s\n", f / 3 / t[0] * 1e-9, f / t[1] * 1e-9,
           f / t[2] * 1e-9, 2 * f / t[3] * 1e-9, work, path);
    char params[96];
    snprintf(params, sizeof params, "n=%ld,b=%d,workers=%d", n, b, workers);
    struct bench_result r = {
        .benchmark = "cholesky", .size = size_name(n), .params = params, .seconds = secs,
        .metric = (double)n * n * n / 3.0 / secs * 1e-9, .metric_unit = "GFLOP/s",
        .verified = -1, .blas = blas, .impl = "kernel-bound",
    };
    bench_print(&r);
    free(lkk);
    free(x);
    free(y);
    free(c);
}

int main(int argc, char **argv)
{
    const char *prog = argv[0];
    long potrf = 0, dgemm = 0, bound = 0, tile = 0, reps = 1;
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
        } else if (!strcmp(arg, "--bound")) {
            bound = bench_parse_long(prog, arg, argv[i + 1], 1, 100000);
            i++;
        } else if (!strcmp(arg, "--tile")) {
            tile = bench_parse_long(prog, arg, argv[i + 1], 1, 100000);
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
    if (!!potrf + !!dgemm + !!bound != 1)
        bench_die(prog, "give exactly one of --potrf N, --dgemm N and --bound N (try --help)");
    if (!bound != !tile)
        bench_die(prog, "--tile B goes with --bound N, and --bound N needs it (try --help)");
    if (threads < 1)
        threads = 1;

    bench_blas(blas, sizeof blas, 1);   /* sets one thread: set ours after it */
    openblas_set_num_threads((int)threads);
    chol_warmup(256);
    if (bound)
        run_bound(prog, bound, (int)tile, (int)threads, blas);
    else if (potrf)
        run_potrf(potrf, (int)threads, (int)reps, blas);
    else
        run_dgemm(dgemm, (int)threads, blas);
    return 0;
}
