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
        locus_dep_t dp[] = { LOCUS_INOUT(akk, tb) };
        check("locus_task", chol_spawn(CHOL_P_POTRF, "potrf", t_potrf, &p, sizeof p, dp, 1));
        for (int i = k + 1; i < nt; i++) {
            double *aik = CHOL_TILE(m, i, k);
            struct targ a = { .a = akk, .c = aik, .nb = b };
            locus_dep_t d[] = { LOCUS_IN(akk, tb), LOCUS_INOUT(aik, tb) };
            check("locus_task", chol_spawn(CHOL_P_TRSM, "trsm", t_trsm, &a, sizeof a, d, 2));
        }
        for (int i = k + 1; i < nt; i++) {
            double *aik = CHOL_TILE(m, i, k);
            for (int j = k + 1; j < i; j++) {
                double *ajk = CHOL_TILE(m, j, k), *aij = CHOL_TILE(m, i, j);
                struct targ a = { .a = aik, .b = ajk, .c = aij, .nb = b };
                locus_dep_t d[] = { LOCUS_IN(aik, tb), LOCUS_IN(ajk, tb), LOCUS_INOUT(aij, tb) };
                check("locus_task", chol_spawn(chol_p_update(j, k), "gemm", t_gemm, &a, sizeof a, d, 3));
            }
            double *aii = CHOL_TILE(m, i, i);
            struct targ a = { .a = aik, .c = aii, .nb = b };
            locus_dep_t d[] = { LOCUS_IN(aik, tb), LOCUS_INOUT(aii, tb) };
            check("locus_task", chol_spawn(chol_p_update(i, k), "syrk", t_syrk, &a, sizeof a, d, 2));
        }
    }
}

int main(int argc, char **argv)
{
    static const struct chol_program p = {
        .name = "cholesky",
        .about = "Tiled Cholesky factorisation on Locus tasks.",
        .spawn = spawn_cholesky,
        .verify = chol_check_factor,
        .full_check_max_n = CHOL_FULL_CHECK_MAX_N,
        .flops_per_n3 = 1.0 / 3.0,
        .tile_failed = "a POTRF tile was not positive definite",
        .residual = "||A - L L^T|| / (||A|| n eps)",
    };
    return chol_tasks_main(argc, argv, &p);
}
