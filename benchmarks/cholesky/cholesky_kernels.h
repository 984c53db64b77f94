/*
 * cholesky_kernels.h - the matrix generator and the tile kernels of the
 * Cholesky and symmetric matrix inversion (SMI) benchmarks, shared by
 * cholesky.c (Locus), cholesky_omp.c (libgomp), smi.c and lapack_peer.c so
 * that every program does the same work on the same matrix.
 *
 * Tiled algorithms of Buttari, Langou, Kurzak and Dongarra, "A class of
 * parallel tiled linear algebra algorithms for multicore architectures",
 * Parallel Computing 35(1), 2009 (POTRF/TRSM/SYRK/GEMM), and Agullo et al.,
 * "Towards an efficient tile matrix inversion of symmetric positive definite
 * matrices on multicore architectures", VECPAR 2010 (TRTRI, LAUUM); the
 * benchmarks themselves follow Al-Omairy et al., SuperFRI 2(1), 2015, the [1]
 * of the Caheny et al. paper.
 *
 * Conventions: a tile is b x b doubles, column-major, leading dimension b,
 * one contiguous block.  Only the lower triangle of the matrix is stored and
 * computed (tiles (i, j) with i >= j); in a diagonal tile only the lower
 * triangle is meaningful once a kernel has run on it.
 *
 * Header-only on purpose: each benchmark is built from a single .c file.
 */
#ifndef CHOLESKY_KERNELS_H
#define CHOLESKY_KERNELS_H

#include <stdint.h>

#include <cblas.h>
#include <lapacke.h>

/* ---------------------------------------------------------------- generator */

/* splitmix64's finaliser (Steele, Lea, Flood, OOPSLA 2014): a cheap hash
 * whose outputs look independent even for consecutive inputs. */
static inline uint64_t chol_mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A uniform double in [-0.5, 0.5) from a hash. */
static inline double chol_unit(uint64_t h)
{
    return (double)(h >> 11) * 0x1p-53 - 0.5;
}

/*
 * Element (i, j) of the SPD test matrix of order n: A = M + n I, M symmetric
 * with entries in [-0.5, 0.5) hashed from (max, min).  Every row of M sums to
 * less than n/2 in absolute value, so A is strictly diagonally dominant with
 * a positive diagonal (hence SPD) and its eigenvalues lie in (n/2, 3n/2):
 * condition number below 3, whatever n.  Computable element by element, so
 * a task can initialise its tile with no global data.
 */
static inline double chol_gen(long i, long j, long n)
{
    uint64_t hi = (uint64_t)(i > j ? i : j), lo = (uint64_t)(i > j ? j : i);
    return chol_unit(chol_mix((hi << 32) | lo)) + (i == j ? (double)n : 0.0);
}

/* Tile (ti, tj) of A (both triangles of a diagonal tile are written). */
static inline void chol_gen_tile(double *t, long ti, long tj, int b, long n)
{
    for (int c = 0; c < b; c++) {
        long j = tj * b + c;
        for (int r = 0; r < b; r++)
            t[(long)c * b + r] = chol_gen(ti * b + r, j, n);
    }
}

/* Element i of the k-th deterministic random vector of the checks. */
static inline double chol_vec(long i, int k)
{
    return chol_unit(chol_mix(0x5eed000000000000ull ^ ((uint64_t)k << 40) ^ (uint64_t)i));
}

/* ---------------------------------------------------------------- Cholesky */

/* A_kk = L_kk L_kk^T (lower).  Returns LAPACK's info: 0, or > 0 when the
 * tile is not positive definite. */
static inline int chol_potrf(double *akk, int b)
{
    return LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', b, akk, b);
}

/* A_ik = A_ik L_kk^-T */
static inline void chol_trsm(const double *lkk, double *aik, int b)
{
    cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, b, b, 1.0,
                lkk, b, aik, b);
}

/* A_ii = A_ii - L_ik L_ik^T (lower triangle) */
static inline void chol_syrk(const double *lik, double *aii, int b)
{
    cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, b, b, -1.0, lik, b, 1.0, aii, b);
}

/* A_ij = A_ij - L_ik L_jk^T */
static inline void chol_gemm(const double *lik, const double *ljk, double *aij, int b)
{
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, b, b, b, -1.0, lik, b, ljk, b, 1.0,
                aij, b);
}

/* ------------------------------------------------- SMI: W = inv(L) in place */

/* Step k of the tiled TRTRI (lower, non-unit), in PLASMA's pdtrtri order:
 *   A_mk = -A_mk L_kk^-1          (m > k)   smi_trsm_right
 *   A_mn = A_mn + A_mk A_kn       (m > k > n) smi_gemm_nn
 *   A_kn = L_kk^-1 A_kn           (n < k)   smi_trsm_left
 *   A_kk = L_kk^-1                          smi_trtri          */
static inline void smi_trsm_right(const double *lkk, double *amk, int b)
{
    cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, b, b, -1.0,
                lkk, b, amk, b);
}

static inline void smi_gemm_nn(const double *amk, const double *akn, double *amn, int b)
{
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, b, b, b, 1.0, amk, b, akn, b, 1.0,
                amn, b);
}

static inline void smi_trsm_left(const double *lkk, double *akn, int b)
{
    cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, b, b, 1.0,
                lkk, b, akn, b);
}

/* Returns LAPACK's info: 0, or > 0 for a singular tile. */
static inline int smi_trtri(double *akk, int b)
{
    return LAPACKE_dtrtri(LAPACK_COL_MAJOR, 'L', 'N', b, akk, b);
}

/* ----------------------------------------- SMI: inv(A) = W^T W in place */

/* Step k of the tiled LAUUM (lower), in PLASMA's pdlauum order:
 *   A_nn = A_nn + W_kn^T W_kn     (n < k)      smi_syrk_t
 *   A_mn = A_mn + W_km^T W_kn     (n < m < k)  smi_gemm_tn
 *   A_kn = W_kk^T A_kn            (n < k)      smi_trmm
 *   A_kk = W_kk^T W_kk                         smi_lauum        */
static inline void smi_syrk_t(const double *wkn, double *ann, int b)
{
    cblas_dsyrk(CblasColMajor, CblasLower, CblasTrans, b, b, 1.0, wkn, b, 1.0, ann, b);
}

static inline void smi_gemm_tn(const double *wkm, const double *wkn, double *amn, int b)
{
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, b, b, b, 1.0, wkm, b, wkn, b, 1.0,
                amn, b);
}

static inline void smi_trmm(const double *wkk, double *akn, int b)
{
    cblas_dtrmm(CblasColMajor, CblasLeft, CblasLower, CblasTrans, CblasNonUnit, b, b, 1.0,
                wkk, b, akn, b);
}

/* Returns LAPACK's info (0). */
static inline int smi_lauum(double *akk, int b)
{
    return LAPACKE_dlauum(LAPACK_COL_MAJOR, 'L', b, akk, b);
}

#endif /* CHOLESKY_KERNELS_H */
