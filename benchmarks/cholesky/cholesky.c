/*
 * cholesky.c - tiled Cholesky factorisation A = L L^T on Locus, the first
 * benchmark of section 5 of Caheny et al. (the OmpSs "cholesky" of BSC).
 * One first-touch task per tile writes its tile from the generator (so that
 * under NAFT the tiles spread over the nodes with their tasks), then one
 * task per POTRF/TRSM/SYRK/GEMM tile kernel, ordered only by the tiles they
 * read and write.  cholesky_omp.c is the same program on libgomp: keep the
 * two spawn loops line for line alike.  Kernels and generator are in
 * cholesky_kernels.h, options, storage, checks and output in
 * cholesky_common.h.
 */
#define CHOL_PROGRAM "cholesky"
#include "cholesky_tasks.h"

#define CHOL_FULL_CHECK_MAX_N 4096  /* above: the O(n^2) random-vector check */

static void spawn_cholesky(struct chol_tiles *m)
{
    const int nt = m->nt, b = m->b;
    const size_t tb = m->tile_bytes;
    for (int k = 0; k < nt; k++) {
        double *akk = CHOL_TILE(m, k, k);
        struct targ p = { .c = akk, .nb = b };
        check("locus_task", locus_task(t_potrf, &p, sizeof p, LOCUS_INOUT(akk, tb)));
        for (int i = k + 1; i < nt; i++) {
            double *aik = CHOL_TILE(m, i, k);
            struct targ a = { .a = akk, .c = aik, .nb = b };
            check("locus_task", locus_task(t_trsm, &a, sizeof a, LOCUS_IN(akk, tb),
                                           LOCUS_INOUT(aik, tb)));
        }
        for (int i = k + 1; i < nt; i++) {
            double *aik = CHOL_TILE(m, i, k);
            for (int j = k + 1; j < i; j++) {
                double *ajk = CHOL_TILE(m, j, k), *aij = CHOL_TILE(m, i, j);
                struct targ a = { .a = aik, .b = ajk, .c = aij, .nb = b };
                check("locus_task", locus_task(t_gemm, &a, sizeof a, LOCUS_IN(aik, tb),
                                               LOCUS_IN(ajk, tb), LOCUS_INOUT(aij, tb)));
            }
            double *aii = CHOL_TILE(m, i, i);
            struct targ a = { .a = aik, .c = aii, .nb = b };
            check("locus_task", locus_task(t_syrk, &a, sizeof a, LOCUS_IN(aik, tb),
                                           LOCUS_INOUT(aii, tb)));
        }
    }
}

int main(int argc, char **argv)
{
    struct chol_opts o;
    struct chol_tiles m;
    char blas[64];

    chol_parse(argc, argv, "Tiled Cholesky factorisation on Locus tasks.", &o);
    bench_blas(blas, sizeof blas, 1);
    chol_warmup(o.b);
    check("locus_init", locus_init());
    /* after locus_init: under DI the pages of the tiles are interleaved */
    chol_tiles_alloc(&m, o.n, o.b);

    for (int rep = 0; rep < o.reps; rep++) {
        spawn_init(&m);
        check("locus_taskwait", locus_taskwait());
        check("locus_reset_stats", locus_reset_stats());
        atomic_store_explicit(&chol_tile_failed, 0, memory_order_relaxed);

        double t0 = bench_now();
        spawn_cholesky(&m);
        check("locus_taskwait", locus_taskwait());
        double secs = bench_now() - t0;

        struct chol_check c = chol_check_factor(&m, o.n <= CHOL_FULL_CHECK_MAX_N);
        if (atomic_load_explicit(&chol_tile_failed, memory_order_relaxed)) {
            printf("  a POTRF tile was not positive definite\n");
            c.ok = 0;
        }
        chol_report("cholesky", &o, "locus", blas, secs, (double)o.n * o.n * o.n / 3.0,
                    "||A - L L^T|| / (||A|| n eps)", &c);
    }

    /* the directory must not keep the tiles' placement for reused memory */
    for (int i = 0; i < m.nt; i++)
        for (int j = 0; j <= i; j++)
            check("locus_forget", locus_forget(CHOL_TILE(&m, i, j), m.tile_bytes));
    chol_tiles_free(&m);
    check("locus_finalize", locus_finalize());
    return 0;
}
