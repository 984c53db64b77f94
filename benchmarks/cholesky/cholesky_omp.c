/*
 * cholesky_omp.c - the tiled Cholesky benchmark of cholesky.c on GNU libgomp
 * (#pragma omp task depend, gcc -fopenmp, not linked with Locus): same
 * generator, kernels, first-touch initialisation tasks, tile loop, options,
 * checks, output and task priorities (honoured with OMP_MAX_TASK_PRIORITY
 * set), so that the two differ only in the runtime.  Keep the
 * two spawn loops line for line alike.  Threads: OMP_NUM_THREADS.
 */
#define BENCH_NO_LOCUS 1
#include <stdatomic.h>

#include "cholesky_common.h"
#include "../common/omp_impl.h"

#define CHOL_FULL_CHECK_MAX_N 4096  /* above: the O(n^2) random-vector check */

static atomic_int not_spd;  /* a POTRF found a tile not positive definite */

/* A tile is named in depend clauses by its first element, as OmpSs and
 * KASTORS do: tiles never overlap, so the start identifies the tile. */
static void spawn_init(struct chol_tiles *m)
{
    for (int i = 0; i < m->nt; i++)
        for (int j = 0; j <= i; j++) {
            double *aij = CHOL_TILE(m, i, j);
            long n = m->n;
            int b = m->b;
#pragma omp task depend(out: aij[0]) firstprivate(aij, i, j, n, b)
            chol_gen_tile(aij, i, j, b, n);
        }
}

static void spawn_cholesky(struct chol_tiles *m)
{
    const int nt = m->nt, b = m->b;
    for (int k = 0; k < nt; k++) {
        double *akk = CHOL_TILE(m, k, k);
#pragma omp task depend(inout: akk[0]) firstprivate(akk) priority(chol_prio * CHOL_P_POTRF)
        if (chol_potrf(akk, b) != 0)
            atomic_store_explicit(&not_spd, 1, memory_order_relaxed);
        for (int i = k + 1; i < nt; i++) {
            double *aik = CHOL_TILE(m, i, k);
#pragma omp task depend(in: akk[0]) depend(inout: aik[0]) firstprivate(akk, aik) \
        priority(chol_prio * CHOL_P_TRSM)
            chol_trsm(akk, aik, b);
        }
        for (int i = k + 1; i < nt; i++) {
            double *aik = CHOL_TILE(m, i, k);
            for (int j = k + 1; j < i; j++) {
                double *ajk = CHOL_TILE(m, j, k), *aij = CHOL_TILE(m, i, j);
#pragma omp task depend(in: aik[0], ajk[0]) depend(inout: aij[0]) firstprivate(aik, ajk, aij) \
        priority(chol_prio * chol_p_update(j, k))
                chol_gemm(aik, ajk, aij, b);
            }
            double *aii = CHOL_TILE(m, i, i);
#pragma omp task depend(in: aik[0]) depend(inout: aii[0]) firstprivate(aik, aii) \
        priority(chol_prio * chol_p_update(i, k))
            chol_syrk(aik, aii, b);
        }
    }
}

int main(int argc, char **argv)
{
    struct chol_opts o;
    struct chol_tiles m;
    char blas[64];

    chol_parse(argc, argv, "Tiled Cholesky factorisation on libgomp tasks.", &o);
    bench_blas(blas, sizeof blas, 1);
    chol_warmup(o.b);
    chol_tiles_alloc(&m, o.n, o.b);

    for (int rep = 0; rep < o.reps; rep++) {
        double secs = 0.0;
        atomic_store_explicit(&not_spd, 0, memory_order_relaxed);
        /* the team is started before timing, as Locus's workers are */
#pragma omp parallel
#pragma omp single
        {
            spawn_init(&m);
#pragma omp taskwait
            double t0 = bench_now();
            spawn_cholesky(&m);
#pragma omp taskwait
            secs = bench_now() - t0;
        }

        struct chol_check c = chol_check_factor(&m, o.n <= CHOL_FULL_CHECK_MAX_N);
        if (atomic_load_explicit(&not_spd, memory_order_relaxed)) {
            printf("  a POTRF tile was not positive definite\n");
            c.ok = 0;
        }
        chol_report("cholesky", &o, bench_omp_impl(), blas, secs, (double)o.n * o.n * o.n / 3.0,
                    "||A - L L^T|| / (||A|| n eps)", &c);
    }

    chol_tiles_free(&m);
    return 0;
}
