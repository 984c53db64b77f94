/*
 * cholesky-mpi.c - the tiled Cholesky benchmark over MPI ranks: the lower
 * tiles dealt 2-D block-cyclically over a Pr x Pc process grid (tile (i, j)
 * on rank (i mod Pr) * Pc + (j mod Pc), as ScaLAPACK, DPLASMA and Chameleon
 * deal them), Locus tasks in each rank, and every tile a rank needs but
 * does not own sent to it by a task of the owner, as in DPLASMA/Chameleon:
 *   L_kk (after POTRF)  to the owners of the TRSM tiles (i, k), i > k
 *   L_ik (after TRSM)   to the owners of the update tiles (i, j), k < j <= i
 *                       (GEMM's first operand, SYRK) and (m, i), m > i
 *                       (GEMM's second operand)
 * Every rank walks the same loop nest (so that tags and dependencies agree)
 * and spawns the kernels of its own tiles, a send task after each tile it
 * owns that others need (one MPI_Isend per destination, handed to
 * locus-mpi) and a receive task for each tile it needs from another rank,
 * into that tile's slot (each rank maps every tile's slot; only those it
 * owns or receives are ever touched).  A kernel depends on the tiles it
 * reads like any other task, so it starts as soon as the receive task
 * completes, i.e. when the tile has arrived.  Same presets, kernels and
 * priorities as benchmarks/cholesky.
 *
 * Check: the ranks send their tiles of L to rank 0, which computes the
 * scaled residual ||A - L L^T|| / (||A|| n eps) (or its random-vector
 * form above CHOL_FULL_CHECK_MAX_N) as the single-node program does.
 */
#define CHOL_PROGRAM "cholesky-mpi"
#include "../cholesky/cholesky_tasks.h"
#include "../common/bench_mpi.h"

#define CHOL_FULL_CHECK_MAX_N 4096

static int pr, pc;   /* the process grid */

static int owner(int i, int j)
{
    return (i % pr) * pc + (j % pc);
}

/* Pr: the largest divisor of the rank count not above its square root. */
static void grid_shape(void)
{
    pr = 1;
    for (int d = 1; d * d <= bm_ranks; d++)
        if (bm_ranks % d == 0)
            pr = d;
    pc = bm_ranks / pr;
}

static void mpi_check(const char *what, int rc)
{
    if (rc != MPI_SUCCESS)
        bm_die(CHOL_PROGRAM, what, -EIO, "MPI error");
}

/* ---- kernels, timed for the hidden-communication estimate */
#define TIMED(name, kernel)                   \
    static void name(void *p)                 \
    {                                         \
        double t0 = bench_now();              \
        kernel(p);                            \
        bm_add_compute(bench_now() - t0);     \
    }
TIMED(m_potrf, t_potrf)
TIMED(m_trsm, t_trsm)
TIMED(m_syrk, t_syrk)
TIMED(m_gemm, t_gemm)

/* ---- communication tasks */
#define XFER_MAX 64   /* destinations per send task; more take several tasks */
struct xfer {
    double *tile;
    int count;          /* doubles */
    int tag;
    int ndest;
    int dest[XFER_MAX]; /* ndest ranks (send), or dest[0] the source (receive) */
};

static void send_task(void *p)
{
    const struct xfer *x = p;
    MPI_Request r[x->ndest];
    for (int d = 0; d < x->ndest; d++)
        mpi_check("MPI_Isend", MPI_Isend(x->tile, x->count, MPI_DOUBLE, x->dest[d], x->tag,
                                         MPI_COMM_WORLD, &r[d]));
    int err = locus_mpi_iwaitall(x->ndest, r, MPI_STATUSES_IGNORE);
    if (err < 0)
        bm_die(CHOL_PROGRAM, "locus_mpi_iwaitall", err, locus_mpi_error_message());
}

static void recv_task(void *p)
{
    const struct xfer *x = p;
    MPI_Request r;
    mpi_check("MPI_Irecv", MPI_Irecv(x->tile, x->count, MPI_DOUBLE, x->dest[0], x->tag,
                                     MPI_COMM_WORLD, &r));
    int err = locus_mpi_iwait(&r, MPI_STATUS_IGNORE);
    if (err < 0)
        bm_die(CHOL_PROGRAM, "locus_mpi_iwait", err, locus_mpi_error_message());
}

/*
 * Tile (i, k) of step k is final: its owner sends it to the ranks in need
 * (need[r] set), a rank in need receives it.  i == k: the POTRF tile.
 */
static void share_tile(struct chol_tiles *m, int i, int k, const char *need)
{
    const int nt = m->nt, own = owner(i, k);
    double *t = CHOL_TILE(m, i, k);
    const size_t tb = m->tile_bytes;
    const int tag = i * nt + k;
    if (own == bm_rank) {
        struct xfer x = { t, m->b * m->b, tag, 0, { 0 } };
        for (int r = 0; r <= bm_ranks; r++) {
            if (r == bm_rank || (r < bm_ranks && !need[r]))
                continue;
            if (r < bm_ranks)
                x.dest[x.ndest++] = r;
            if (x.ndest && (x.ndest == XFER_MAX || r == bm_ranks)) {
                check("locus_task", locus_task(send_task, &x, sizeof x, LOCUS_IN(t, tb)));
                x.ndest = 0;
            }
        }
    } else if (need[bm_rank]) {
        struct xfer x = { t, m->b * m->b, tag, 1, { own } };
        check("locus_task", locus_task(recv_task, &x, sizeof x, LOCUS_OUT(t, tb)));
    }
}

static void spawn_cholesky(struct chol_tiles *m)
{
    const int nt = m->nt, b = m->b;
    const size_t tb = m->tile_bytes;
    char need[bm_ranks];
    for (int k = 0; k < nt; k++) {
        double *akk = CHOL_TILE(m, k, k);
        if (owner(k, k) == bm_rank) {
            struct targ p = { .c = akk, .nb = b };
            locus_dep_t dp[] = { LOCUS_INOUT(akk, tb) };
            check("locus_task", chol_spawn(CHOL_P_POTRF, "potrf", m_potrf, &p, sizeof p, dp, 1));
        }
        memset(need, 0, sizeof need);
        for (int i = k + 1; i < nt; i++)
            need[owner(i, k)] = 1;
        share_tile(m, k, k, need);
        for (int i = k + 1; i < nt; i++) {
            double *aik = CHOL_TILE(m, i, k);
            if (owner(i, k) == bm_rank) {
                struct targ a = { .a = akk, .c = aik, .nb = b };
                locus_dep_t d[] = { LOCUS_IN(akk, tb), LOCUS_INOUT(aik, tb) };
                check("locus_task", chol_spawn(CHOL_P_TRSM, "trsm", m_trsm, &a, sizeof a, d, 2));
            }
            memset(need, 0, sizeof need);
            for (int j = k + 1; j <= i; j++)
                need[owner(i, j)] = 1;
            for (int r = i + 1; r < nt; r++)
                need[owner(r, i)] = 1;
            share_tile(m, i, k, need);
        }
        for (int i = k + 1; i < nt; i++) {
            double *aik = CHOL_TILE(m, i, k);
            for (int j = k + 1; j < i; j++) {
                if (owner(i, j) != bm_rank)
                    continue;
                double *ajk = CHOL_TILE(m, j, k), *aij = CHOL_TILE(m, i, j);
                struct targ a = { .a = aik, .b = ajk, .c = aij, .nb = b };
                locus_dep_t d[] = { LOCUS_IN(aik, tb), LOCUS_IN(ajk, tb), LOCUS_INOUT(aij, tb) };
                check("locus_task", chol_spawn(chol_p_update(j, k), "gemm", m_gemm, &a, sizeof a, d, 3));
            }
            if (owner(i, i) == bm_rank) {
                double *aii = CHOL_TILE(m, i, i);
                struct targ a = { .a = aik, .c = aii, .nb = b };
                locus_dep_t d[] = { LOCUS_IN(aik, tb), LOCUS_INOUT(aii, tb) };
                check("locus_task", chol_spawn(chol_p_update(i, k), "syrk", m_syrk, &a, sizeof a, d, 2));
            }
        }
    }
}

/* First-touch initialisation of the rank's own tiles. */
static void spawn_init_owned(struct chol_tiles *m)
{
    const size_t tb = m->tile_bytes;
    for (int i = 0; i < m->nt; i++)
        for (int j = 0; j <= i; j++) {
            if (owner(i, j) != bm_rank)
                continue;
            double *aij = CHOL_TILE(m, i, j);
            struct targ a = { .c = aij, .ti = i, .tj = j, .n = m->n, .nb = m->b };
            check("locus_task", locus_task(t_init, &a, sizeof a, LOCUS_OUT(aij, tb)));
        }
}

/* Rank 0 gets every tile of L (plain MPI, outside the timed phase). */
static void gather_factor(struct chol_tiles *m)
{
    const int nt = m->nt, count = m->b * m->b, base = nt * nt;
    for (int i = 0; i < nt; i++)
        for (int j = 0; j <= i; j++) {
            int own = owner(i, j);
            if (own == 0)
                continue;
            if (bm_rank == own)
                mpi_check("MPI_Send", MPI_Send(CHOL_TILE(m, i, j), count, MPI_DOUBLE, 0,
                                               base + i * nt + j, MPI_COMM_WORLD));
            else if (bm_rank == 0)
                mpi_check("MPI_Recv", MPI_Recv(CHOL_TILE(m, i, j), count, MPI_DOUBLE, own,
                                               base + i * nt + j, MPI_COMM_WORLD,
                                               MPI_STATUS_IGNORE));
        }
}

int main(int argc, char **argv)
{
    struct chol_opts o;
    struct chol_tiles m;
    char blas[64];

    chol_parse(argc, argv, "Tiled Cholesky factorisation over MPI ranks (2-D block-cyclic "
               "tiles), Locus tasks and locus-mpi in each rank.", &o);
    bench_blas(blas, sizeof blas, 0);
    chol_warmup(o.b);
    bm_start(CHOL_PROGRAM, &argc, &argv);
    grid_shape();
    chol_tiles_alloc(&m, o.n, o.b);
    if (bm_ranks > m.nt * m.nt) {
        if (bm_rank == 0)
            fprintf(stderr, CHOL_PROGRAM ": %d ranks for %d x %d tiles: use a smaller --tile\n",
                    bm_ranks, m.nt, m.nt);
        MPI_Finalize();
        return 2;
    }
    char params[96];
    snprintf(params, sizeof params, "%s,ranks=%d,grid=%dx%d", o.params, bm_ranks, pr, pc);

    int every = 1;
    for (int rep = 0; rep < o.reps; rep++) {
        spawn_init_owned(&m);
        check("locus_taskwait", locus_taskwait());
        atomic_store_explicit(&chol_tile_failed, 0, memory_order_relaxed);
        bm_phase_start();

        double t0 = bench_now();
        spawn_cholesky(&m);
        check("locus_taskwait", locus_taskwait());
        double mine = bench_now() - t0, secs = bm_max_time(mine);
        char fields[256];
        bm_rank_fields(fields, sizeof fields, mine);

        int failed = atomic_load_explicit(&chol_tile_failed, memory_order_relaxed), any = 0;
        MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
        gather_factor(&m);
        struct chol_check c = { 0.0, "full", 0 };
        if (bm_rank == 0)
            c = chol_check_factor(&m, o.n <= CHOL_FULL_CHECK_MAX_N);
        MPI_Bcast(&c.residual, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        MPI_Bcast(&c.ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
        c.how = o.n <= CHOL_FULL_CHECK_MAX_N ? "full" : "vectors";
        if (any) {
            if (bm_rank == 0)
                printf("  a POTRF tile was not positive definite\n");
            c.ok = 0;
        }
        every &= c.ok;
        for (int r = 0; r < bm_ranks; r++) {   /* one rank at a time */
            if (r == bm_rank) {
                struct bench_result res = {
                    .benchmark = CHOL_PROGRAM, .size = o.size, .params = params,
                    .seconds = secs, .metric = o.n * (double)o.n * o.n / 3.0 / secs * 1e-9,
                    .metric_unit = "GFLOP/s", .verified = c.ok, .blas = blas, .impl = "locus",
                    .extra = fields,
                };
                printf("  check (%s): ||A - L L^T|| / (||A|| n eps) = %.3g, bound %g: %s\n",
                       c.how, c.residual, CHOL_CHECK_BOUND, c.ok ? "passed" : "FAILED");
                bench_print(&res);
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    for (int i = 0; i < m.nt; i++)
        for (int j = 0; j <= i; j++)
            check("locus_forget", locus_forget(CHOL_TILE(&m, i, j), m.tile_bytes));
    chol_tiles_free(&m);
    bm_stop(CHOL_PROGRAM);
    return every ? 0 : 1;
}
