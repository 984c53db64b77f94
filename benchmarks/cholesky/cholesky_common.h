/*
 * cholesky_common.h - what the Cholesky and SMI benchmark programs share
 * besides the kernels: command line and presets, the tile storage, the
 * checks of the results and the result lines.  cholesky.c (Locus),
 * cholesky_omp.c (libgomp) and smi.c include this one file so that their
 * command line, their output and their checks cannot drift apart; only the
 * task-spawning loops differ.
 *
 * Programs that do not link Locus define BENCH_NO_LOCUS before including it.
 */
#ifndef CHOLESKY_COMMON_H
#define CHOLESKY_COMMON_H

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../common/bench.h"
#include "cholesky_kernels.h"

/* Sizes: the paper's is 59136 rows in tiles of 768 (section 5). */
struct chol_preset {
    const char *name;
    long n;
    int b;
};

static const struct chol_preset chol_presets[] = {
    { "test", 512, 128 },
    { "small", 2048, 256 },
    { "medium", 8192, 512 },
    { "paper", 59136, 768 },
};
#define CHOL_NPRESETS (int)(sizeof chol_presets / sizeof chol_presets[0])

#define CHOL_MAX_N 1000000L
#define CHOL_MAX_TILE 16384L
#define CHOL_MAX_REPS 1000L
#define CHOL_CHECK_BOUND 10.0  /* scaled residuals below this pass */
#define CHOL_CHECK_VECTORS 3   /* random vectors of the O(n^2) checks */

struct chol_opts {
    const char *size;  /* preset name, or "custom" when --n/--tile changed it */
    long n;
    int b;
    int reps;
    int prio;          /* --priorities: 1 on (default), 0 off */
    char params[64];   /* "n=..,b=..", and ",prio=off" with --priorities off */
};

/*
 * Priorities (--priorities on): PLASMA's lookahead of one panel, as
 * StarPU's Cholesky also does it.  The panel k's POTRF and TRSMs, and the
 * updates of column k+1 (the next panel), go before the rest of the
 * trailing update, so that the next panel's POTRF is ready as early as
 * possible and the remaining updates fill the gaps.
 */
#define CHOL_P_POTRF 3
#define CHOL_P_TRSM 2
static int chol_prio = 1;   /* --priorities (chol_parse sets it) */

/* The priority of an update (SYRK, GEMM) of a tile in column j at step k. */
static inline int chol_p_update(int j, int k)
{
    return j == k + 1 ? 1 : 0;
}

static inline void chol_usage(FILE *f, const char *prog, const char *what)
{
    fprintf(f,
            "usage: %s [options]\n"
            "%s\n"
            "  --size P    test (n=512, b=128) | small (2048, 256) | medium (8192, 512)\n"
            "              | paper (59136, 768); default test\n"
            "  --n N       matrix order (overrides the preset's)\n"
            "  --tile B    tile order, must divide N (overrides the preset's)\n"
            "  --reps R    factorisations, each on a freshly initialised matrix, one\n"
            "              RESULT line each (default 1)\n"
            "  --priorities on|off  the critical path's tasks first (default on; on\n"
            "              libgomp only with OMP_MAX_TASK_PRIORITY set)\n"
            "  --help      this text\n"
            "Threads: LOCUS_THREADS for Locus, OMP_NUM_THREADS for libgomp; BLAS runs one\n"
            "thread per task.\n",
            prog, what);
}

/* Parses the command line; a bad one is reported and exits 2. */
static inline void chol_parse(int argc, char **argv, const char *what, struct chol_opts *o)
{
    const char *prog = argv[0];
    const struct chol_preset *p = &chol_presets[0];
    long n = 0, b = 0;

    memset(o, 0, sizeof *o);
    o->reps = 1;
    o->prio = 1;
    for (int i = 1; i < argc; i++) {
        static const char *const with_value[] = {
            "--size", "--n", "--tile", "--reps", "--priorities", NULL,
        };
        char name[32];
        const char *val = bench_next_opt(prog, argc, argv, &i, name, sizeof name, with_value);

        if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
            chol_usage(stdout, prog, what);
            exit(0);
        } else if (!strcmp(name, "--size")) {
            int k;
            for (k = 0; k < CHOL_NPRESETS && strcmp(val, chol_presets[k].name); k++)
                ;
            if (k == CHOL_NPRESETS)
                bench_die(prog, "--size '%s': expected test, small, medium or paper", val);
            p = &chol_presets[k];
        } else if (!strcmp(name, "--n")) {
            n = bench_parse_long(prog, "--n", val, 1, CHOL_MAX_N);
        } else if (!strcmp(name, "--tile")) {
            b = bench_parse_long(prog, "--tile", val, 1, CHOL_MAX_TILE);
        } else if (!strcmp(name, "--reps")) {
            o->reps = (int)bench_parse_long(prog, "--reps", val, 1, CHOL_MAX_REPS);
        } else if (!strcmp(name, "--priorities")) {
            if (strcmp(val, "on") && strcmp(val, "off"))
                bench_die(prog, "--priorities '%s': expected on or off", val);
            o->prio = !strcmp(val, "on");
            chol_prio = o->prio;
        } else {
            bench_die(prog, "unknown option '%s' (try --help)", argv[i]);
        }
    }
    o->n = n ? n : p->n;
    o->b = (int)(b ? b : p->b);
    o->size = o->n == p->n && o->b == p->b ? p->name : "custom";
    if (o->n % o->b)
        bench_die(prog, "tile order %d does not divide matrix order %ld", o->b, o->n);
    snprintf(o->params, sizeof o->params, "n=%ld,b=%d%s", o->n, o->b,
             o->prio ? "" : ",prio=off");
}

/* ---------------------------------------------------------------- tiles */

/*
 * The lower triangle of the matrix as nt (nt + 1) / 2 separate tiles.  Each
 * tile is its own page-aligned anonymous mapping, untouched until its
 * initialisation task writes it: under first-touch its pages go to the node
 * of that task, so the tiles spread over the nodes as the tasks do.
 */
struct chol_tiles {
    long n;
    int b, nt;
    size_t tile_bytes;  /* b * b doubles: the extent of a tile's dependency */
    size_t map_bytes;   /* rounded up to whole pages */
    double **t;
};

#define CHOL_TILE(m, i, j) ((m)->t[(long)(i) * ((i) + 1) / 2 + (j)])

static inline void chol_tiles_alloc(struct chol_tiles *m, long n, int b)
{
    long page = 4096, count;

    m->n = n;
    m->b = b;
    m->nt = (int)(n / b);
    m->tile_bytes = (size_t)b * (size_t)b * sizeof(double);
    m->map_bytes = (m->tile_bytes + (size_t)page - 1) / (size_t)page * (size_t)page;
    count = (long)m->nt * (m->nt + 1) / 2;
    m->t = calloc((size_t)count, sizeof *m->t);
    if (!m->t) {
        fprintf(stderr, "out of memory for %ld tile pointers\n", count);
        exit(1);
    }
    for (long k = 0; k < count; k++) {
        void *p = mmap(NULL, m->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
        if (p == MAP_FAILED) {
            fprintf(stderr, "cannot map tile %ld of %ld (%zu bytes each): %s\n", k, count,
                    m->map_bytes, strerror(errno));
            exit(1);
        }
        m->t[k] = p;
    }
}

static inline void chol_tiles_free(struct chol_tiles *m)
{
    long count = (long)m->nt * (m->nt + 1) / 2;
    for (long k = 0; k < count; k++)
        munmap(m->t[k], m->map_bytes);
    free(m->t);
    m->t = NULL;
}

/*
 * One tile GEMM on the calling thread before anything is timed, as the OmpSs
 * codes do: OpenBLAS sets up its buffers on its first call, which would
 * otherwise land in the first repetition.
 */
static inline void chol_warmup(int b)
{
    size_t bytes = (size_t)b * (size_t)b * sizeof(double);
    double *x = calloc(3, bytes);
    if (!x)
        return;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, b, b, b, -1.0, x, b,
                x + (size_t)b * b, b, 1.0, x + 2 * (size_t)b * b, b);
    free(x);
}

/* ---------------------------------------------------------------- checks */

/* What a check found: the scaled residual and how it was computed. */
struct chol_check {
    double residual;
    const char *how;  /* "full" or "vectors" */
    int ok;           /* 1 passed, 0 failed, -1 not run (simulated) */
};

static inline void *chol_xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes) for the check\n", bytes);
        exit(1);
    }
    return p;
}

/* dst = the lower triangle of src, zeros above. */
static inline void chol_copy_lower(double *dst, const double *src, int b)
{
    for (int c = 0; c < b; c++)
        for (int r = 0; r < b; r++)
            dst[(long)c * b + r] = r >= c ? src[(long)c * b + r] : 0.0;
}

/* Sum of squares of a tile counted for the whole symmetric matrix: twice
 * off the diagonal; a diagonal tile's lower triangle mirrored. */
static inline double chol_sumsq_sym(const double *t, int b, int diag)
{
    double s = 0.0;
    for (int c = 0; c < b; c++)
        for (int r = diag ? c : 0; r < b; r++) {
            double v = t[(long)c * b + r];
            s += (diag && r == c ? 1.0 : 2.0) * v * v;
        }
    return s;
}

/*
 * y = S x for the symmetric matrix S whose lower triangle is in m (the
 * upper triangles of its diagonal tiles are ignored); gen != 0: S = A from
 * the generator instead (m gives only the shape), *sumsq gets ||A||_F^2.
 */
static inline void chol_symv(const struct chol_tiles *m, int gen, const double *x, double *y,
                      double *tile, double *sumsq)
{
    int b = m->b;
    memset(y, 0, (size_t)m->n * sizeof *y);
    if (sumsq)
        *sumsq = 0.0;
    for (int i = 0; i < m->nt; i++)
        for (int j = 0; j <= i; j++) {
            const double *t = CHOL_TILE(m, i, j);
            if (gen) {
                chol_gen_tile(tile, i, j, b, m->n);
                t = tile;
                if (sumsq)
                    *sumsq += chol_sumsq_sym(t, b, i == j);
            }
            const double *xi = x + (long)i * b, *xj = x + (long)j * b;
            double *yi = y + (long)i * b, *yj = y + (long)j * b;
            if (i == j) {
                cblas_dsymv(CblasColMajor, CblasLower, b, 1.0, t, b, xj, 1, 1.0, yi, 1);
            } else {
                cblas_dgemv(CblasColMajor, CblasNoTrans, b, b, 1.0, t, b, xj, 1, 1.0, yi, 1);
                cblas_dgemv(CblasColMajor, CblasTrans, b, b, 1.0, t, b, xi, 1, 1.0, yj, 1);
            }
        }
}

static inline double chol_norm2(const double *v, long n)
{
    return cblas_dnrm2((int)n, v, 1);
}

/*
 * Checks the factor L in m against A: ||A - L L^T||_F / (||A||_F n eps),
 * computed tile by tile (n^3/3 flops, single thread) when full, else
 * max over random x of ||A x - L (L^T x)||_2 / (||A||_F ||x||_2 n eps) in
 * O(n^2).  Both pass below CHOL_CHECK_BOUND.
 */
static inline struct chol_check chol_check_factor(const struct chol_tiles *m, int full)
{
    int b = m->b, nt = m->nt;
    long n = m->n;
    double asq = 0.0, rsq = 0.0, scale;
    double *c = chol_xmalloc(m->tile_bytes), *s = chol_xmalloc(m->tile_bytes);
    struct chol_check r = { 0.0, full ? "full" : "vectors", 0 };

    if (full) {
        for (int i = 0; i < nt; i++)
            for (int j = 0; j <= i; j++) {
                /* c = A_ij - sum_{k<j} L_ik L_jk^T - L_ij L_jj^T */
                chol_gen_tile(c, i, j, b, n);
                asq += chol_sumsq_sym(c, b, i == j);
                for (int k = 0; k < j; k++)
                    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, b, b, b, -1.0,
                                CHOL_TILE(m, i, k), b, CHOL_TILE(m, j, k), b, 1.0, c, b);
                if (i == j)
                    chol_copy_lower(s, CHOL_TILE(m, i, j), b);
                else
                    memcpy(s, CHOL_TILE(m, i, j), m->tile_bytes);
                cblas_dtrmm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, b,
                            b, 1.0, CHOL_TILE(m, j, j), b, s, b);
                for (long e = 0; e < (long)b * b; e++)
                    c[e] -= s[e];
                rsq += chol_sumsq_sym(c, b, i == j);
            }
        r.residual = sqrt(rsq) / (sqrt(asq) * (double)n * DBL_EPSILON);
    } else {
        double *x = chol_xmalloc((size_t)n * sizeof *x), *y = chol_xmalloc((size_t)n * sizeof *y);
        double *z = chol_xmalloc((size_t)n * sizeof *z);
        for (int v = 0; v < CHOL_CHECK_VECTORS; v++) {
            for (long e = 0; e < n; e++)
                x[e] = chol_vec(e, v);
            chol_symv(m, 1, x, y, c, v == 0 ? &asq : NULL);     /* y = A x */
            memset(z, 0, (size_t)n * sizeof *z);                /* z = L^T x */
            for (int j = 0; j < nt; j++) {
                double *zj = z + (long)j * b;
                memcpy(s, x + (long)j * b, (size_t)b * sizeof *s);
                cblas_dtrmv(CblasColMajor, CblasLower, CblasTrans, CblasNonUnit, b,
                            CHOL_TILE(m, j, j), b, s, 1);
                cblas_daxpy(b, 1.0, s, 1, zj, 1);
                for (int i = j + 1; i < nt; i++)
                    cblas_dgemv(CblasColMajor, CblasTrans, b, b, 1.0, CHOL_TILE(m, i, j), b,
                                x + (long)i * b, 1, 1.0, zj, 1);
            }
            for (int i = 0; i < nt; i++) {                      /* y = y - L z */
                double *yi = y + (long)i * b;
                for (int j = 0; j < i; j++)
                    cblas_dgemv(CblasColMajor, CblasNoTrans, b, b, -1.0, CHOL_TILE(m, i, j), b,
                                z + (long)j * b, 1, 1.0, yi, 1);
                memcpy(s, z + (long)i * b, (size_t)b * sizeof *s);
                cblas_dtrmv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, b,
                            CHOL_TILE(m, i, i), b, s, 1);
                cblas_daxpy(b, -1.0, s, 1, yi, 1);
            }
            scale = sqrt(asq) * chol_norm2(x, n) * (double)n * DBL_EPSILON;
            double res = chol_norm2(y, n) / scale;
            if (!(res <= r.residual))   /* keeps a NaN */
                r.residual = res;
        }
        free(x);
        free(y);
        free(z);
    }
    free(c);
    free(s);
    r.ok = r.residual < CHOL_CHECK_BOUND;   /* false for NaN */
    return r;
}

/* The full symmetric matrix of m (lower tiles mirrored), column-major n x n. */
static inline void chol_tiles_to_dense(const struct chol_tiles *m, double *d)
{
    int b = m->b;
    long n = m->n;
    for (int i = 0; i < m->nt; i++)
        for (int j = 0; j <= i; j++) {
            const double *t = CHOL_TILE(m, i, j);
            for (int c = 0; c < b; c++)
                for (int r = (i == j ? c : 0); r < b; r++) {
                    long gi = (long)i * b + r, gj = (long)j * b + c;
                    d[gj * n + gi] = d[gi * n + gj] = t[(long)c * b + r];
                }
        }
}

/*
 * Checks the inverse X in m against A: ||A X - I||_F / (||A||_F ||X||_F n
 * eps) with one dense product (2 n^3 flops, single thread) when full, else
 * max over random x of ||X (A x) - x||_2 / (||A||_F ||X||_F ||x||_2 n eps).
 */
static inline struct chol_check chol_check_inverse(const struct chol_tiles *m, int full)
{
    int b = m->b, nt = m->nt;
    long n = m->n;
    double asq = 0.0, xsq = 0.0;
    struct chol_check r = { 0.0, full ? "full" : "vectors", 0 };

    for (int i = 0; i < nt; i++)
        for (int j = 0; j <= i; j++)
            xsq += chol_sumsq_sym(CHOL_TILE(m, i, j), b, i == j);
    if (full) {
        size_t bytes = (size_t)n * (size_t)n * sizeof(double);
        double *a = chol_xmalloc(bytes), *x = chol_xmalloc(bytes), *p = chol_xmalloc(bytes);
        for (long j = 0; j < n; j++)
            for (long i = 0; i < n; i++) {
                double v = chol_gen(i, j, n);
                a[j * n + i] = v;
                asq += v * v;
            }
        chol_tiles_to_dense(m, x);
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0, a,
                    (int)n, x, (int)n, 0.0, p, (int)n);
        double rsq = 0.0;
        for (long j = 0; j < n; j++)
            for (long i = 0; i < n; i++) {
                double v = p[j * n + i] - (i == j ? 1.0 : 0.0);
                rsq += v * v;
            }
        r.residual = sqrt(rsq) / (sqrt(asq) * sqrt(xsq) * (double)n * DBL_EPSILON);
        free(a);
        free(x);
        free(p);
    } else {
        double *v = chol_xmalloc((size_t)n * sizeof *v), *y = chol_xmalloc((size_t)n * sizeof *y);
        double *w = chol_xmalloc((size_t)n * sizeof *w), *tile = chol_xmalloc(m->tile_bytes);
        for (int k = 0; k < CHOL_CHECK_VECTORS; k++) {
            for (long e = 0; e < n; e++)
                v[e] = chol_vec(e, k);
            chol_symv(m, 1, v, y, tile, k == 0 ? &asq : NULL);  /* y = A v */
            chol_symv(m, 0, y, w, NULL, NULL);                  /* w = X y */
            cblas_daxpy((int)n, -1.0, v, 1, w, 1);
            double res = chol_norm2(w, n) /
                         (sqrt(asq) * sqrt(xsq) * chol_norm2(v, n) * (double)n * DBL_EPSILON);
            if (!(res <= r.residual))
                r.residual = res;
        }
        free(v);
        free(y);
        free(w);
        free(tile);
    }
    r.ok = r.residual < CHOL_CHECK_BOUND;
    return r;
}

/* ---------------------------------------------------------------- output */

static inline void chol_report(const char *benchmark, const struct chol_opts *o, const char *impl,
                        const char *blas, double seconds, double flops, const char *what,
                        const struct chol_check *c)
{
    struct bench_result r = {
        .benchmark = benchmark,
        .size = o->size,
        .params = o->params,
        .seconds = seconds,
        .metric = flops / seconds * 1e-9,
        .metric_unit = "GFLOP/s",
        .verified = c->ok,
        .blas = blas,
        .impl = impl,
    };
    if (c->ok < 0)
        printf("  check: not run (%s: task bodies with a model do not run)\n", c->how);
    else
        printf("  check (%s): %s = %.3g, bound %g: %s\n", c->how, what, c->residual,
               CHOL_CHECK_BOUND, c->ok ? "passed" : "FAILED");
    bench_print(&r);
}

#endif /* CHOLESKY_COMMON_H */
