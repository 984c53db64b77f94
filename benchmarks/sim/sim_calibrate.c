/*
 * sim_calibrate.c - measures the task models the simulator reads
 * (LOCUS_SIM_MODEL, locus-sim(7)) for the tile kernels of the Cholesky and
 * SMI benchmarks (SMI's first stage is Cholesky's) on this machine: each tile kernel's compute time with its tiles in cache
 * (run once to warm, then the best of --reps runs on the same tiles), at
 * each tile order asked for, written as model lines "name bytes ns" whose
 * bytes are what the task declares as dependencies (the model's size).
 * The memory traffic is the simulator's to add (sim/charge.c), so it is
 * kept out of these figures.
 *
 *   build/bench/sim_calibrate > sim/models/cholesky.model   (read by smi too)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/bench.h"
#include "../cholesky/cholesky_kernels.h"

#define MAX_TILES 16

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double *tile(int b)
{
    double *t = aligned_alloc(64, (size_t)b * (size_t)b * sizeof *t);
    if (!t) {
        fprintf(stderr, "sim_calibrate: out of memory for a %dx%d tile\n", b, b);
        exit(1);
    }
    return t;
}

/* The best of reps timed runs of what, each after restore (untimed). */
enum kernel { K_INIT, K_POTRF, K_TRSM, K_SYRK, K_GEMM, K_TRSM_RIGHT, K_GEMM_NN, K_TRSM_LEFT,
              K_TRTRI, K_SYRK_T, K_GEMM_TN, K_TRMM, K_LAUUM };

static double best(enum kernel k, int b, int reps, double *l, double *a, double *c,
                   const double *c0, long n)
{
    size_t tb = (size_t)b * (size_t)b * sizeof(double);
    double min = 1e30;
    for (int r = 0; r <= reps; r++) {   /* run 0 warms the tiles and BLAS */
        memcpy(c, c0, tb);
        double t0 = now();
        switch (k) {
        case K_INIT: chol_gen_tile(c, 1, 0, b, n); break;
        case K_POTRF:
            if (chol_potrf(c, b) != 0) {
                fprintf(stderr, "sim_calibrate: the generated tile is not positive definite\n");
                exit(1);
            }
            break;
        case K_TRSM: chol_trsm(l, c, b); break;
        case K_SYRK: chol_syrk(a, c, b); break;
        case K_GEMM: chol_gemm(a, l, c, b); break;
        case K_TRSM_RIGHT: smi_trsm_right(l, c, b); break;
        case K_GEMM_NN: smi_gemm_nn(a, l, c, b); break;
        case K_TRSM_LEFT: smi_trsm_left(l, c, b); break;
        case K_TRTRI:
            if (smi_trtri(c, b) != 0) {
                fprintf(stderr, "sim_calibrate: the factor tile is singular\n");
                exit(1);
            }
            break;
        case K_SYRK_T: smi_syrk_t(a, c, b); break;
        case K_GEMM_TN: smi_gemm_tn(a, l, c, b); break;
        case K_TRMM: smi_trmm(l, c, b); break;
        case K_LAUUM: smi_lauum(c, b); break;
        }
        double t = now() - t0;
        if (r > 0 && t < min)
            min = t;
    }
    return min;
}

int main(int argc, char **argv)
{
    int tiles[MAX_TILES], nt = 0, reps = 5;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--tile") == 0 && i + 1 < argc && nt < MAX_TILES) {
            tiles[nt] = atoi(argv[++i]);
            if (tiles[nt] < 8 || tiles[nt] > 4096) {
                fprintf(stderr, "sim_calibrate: --tile %s: expected 8..4096\n", argv[i]);
                return 2;
            }
            nt++;
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
            if (reps < 1 || reps > 1000) {
                fprintf(stderr, "sim_calibrate: --reps %s: expected 1..1000\n", argv[i]);
                return 2;
            }
        } else {
            fprintf(stderr, "usage: %s [--tile B]... [--reps R]\n"
                    "Task models of the Cholesky kernels for LOCUS_SIM_MODEL (locus-sim(7)):\n"
                    "  name  dependency-bytes  compute-ns, one line per kernel and tile order\n"
                    "  (default tiles 128 256 512 768, best of 5 runs in cache)\n", argv[0]);
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    if (nt == 0) {
        tiles[nt++] = 128;
        tiles[nt++] = 256;
        tiles[nt++] = 512;
        tiles[nt++] = 768;
    }
    char blas[64];
    bench_blas(blas, sizeof blas, 1);
    printf("# Cholesky and SMI tile kernels' compute time in cache, measured by sim_calibrate on this\n"
           "# machine (BLAS %s, one thread); read by the simulator (LOCUS_SIM_MODEL).\n"
           "# name  dependency-bytes  compute-ns\n", blas);
    for (int i = 0; i < nt; i++) {
        int b = tiles[i];
        long n = 4L * b;
        size_t tb = (size_t)b * (size_t)b * sizeof(double);
        double *l = tile(b), *a = tile(b), *c = tile(b), *spd = tile(b), *off = tile(b);
        chol_gen_tile(spd, 0, 0, b, n);
        chol_gen_tile(off, 1, 0, b, n);
        memcpy(l, spd, tb);
        chol_potrf(l, b);           /* a factor for TRSM */
        memcpy(a, off, tb);
        chol_trsm(l, a, b);         /* a panel tile for SYRK and GEMM */
        struct { const char *name; enum kernel k; int ntiles; const double *c0; } ks[] = {
            { "init", K_INIT, 1, off }, { "potrf", K_POTRF, 1, spd }, { "trsm", K_TRSM, 2, off },
            { "syrk", K_SYRK, 2, spd }, { "gemm", K_GEMM, 3, off },
            /* SMI's TRTRI and LAUUM stages (smi.c) */
            { "trsm_right", K_TRSM_RIGHT, 2, off }, { "gemm_nn", K_GEMM_NN, 3, off },
            { "trsm_left", K_TRSM_LEFT, 2, off }, { "trtri", K_TRTRI, 1, l },
            { "syrk_t", K_SYRK_T, 2, spd }, { "gemm_tn", K_GEMM_TN, 3, off },
            { "trmm", K_TRMM, 2, off }, { "lauum", K_LAUUM, 1, l },
        };
        for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++) {
            double t = best(ks[k].k, b, reps, l, a, c, ks[k].c0, n);
            printf("%-10s %10zu %12.0f   # b=%d\n", ks[k].name, (size_t)ks[k].ntiles * tb, t * 1e9, b);
        }
        free(l);
        free(a);
        free(c);
        free(spd);
        free(off);
    }
    return 0;
}
