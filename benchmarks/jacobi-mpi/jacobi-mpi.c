/*
 * jacobi-mpi.c - the Jacobi benchmark over MPI ranks, with Locus tasks in
 * each rank and locus-mpi for the halo exchange.  Same presets, kernel and
 * options as benchmarks/jacobi (jacobi_kernels.h); the row blocks are dealt
 * to the ranks in contiguous ranges, each rank keeping one ghost row above
 * and below its range per grid.
 *
 * Tasks of one sweep (src into dst) on a rank:
 *   send-up/-down  in the first/last row of the rank's range of src;
 *                  MPI_Isend to the neighbour rank, handed to locus-mpi
 *   recv-up/-down  out the ghost row of src; MPI_Irecv, handed to locus-mpi:
 *                  the task completes, releasing its ghost row, only when
 *                  the row has arrived
 *   sweep(k)       in src[k] and its neighbour rows (a neighbour block's or
 *                  a ghost row), out dst[k]
 * No taskwait between sweeps: the dependencies order them, so the interior
 * blocks of sweep s+1 can run while the halos of sweep s+1 are in flight,
 * and only the two edge blocks wait for the ghost rows.  Tags carry the
 * sweep number, so messages of successive sweeps cannot be confused.
 *
 * The result is compared bitwise with the sequential sweep, computed
 * spread over the ranks: each rank sweeps its own rows again, with plain
 * MPI for the ghost rows (verify_part), in twice its own part's memory.
 */
#include "../common/bench.h"
#include "../jacobi/jacobi_kernels.h"
#include "../common/bench_mpi.h"

#define PROG "jacobi-mpi"

static void die(const char *what, int err)
{
    bm_die(PROG, what, err, err == -EIO || !strncmp(what, "locus_mpi", 9)
                                ? locus_mpi_error_message() : locus_error_message());
}

struct jm_init_arg {
    double *a, *b;
    long row0, nrows, cols;
};

static void init_task(void *p)
{
    const struct jm_init_arg *t = p;
    jb_init_rows(t->a, t->row0, t->nrows, t->cols);
    memcpy(t->b, t->a, (size_t)t->nrows * (size_t)t->cols * sizeof(double));
}

static void sweep_task(void *p)
{
    double t0 = bench_now();
    jb_block_sweep(p);
    bm_add_compute(bench_now() - t0);
}

struct jm_halo {
    double *row;
    long cols;
    int peer, tag;
};

static void send_task(void *p)
{
    const struct jm_halo *h = p;
    MPI_Request r;
    if (MPI_Isend(h->row, (int)h->cols, MPI_DOUBLE, h->peer, h->tag, MPI_COMM_WORLD, &r))
        die("MPI_Isend", -EIO);
    int err = locus_mpi_iwait(&r, MPI_STATUS_IGNORE);
    if (err < 0)
        die("locus_mpi_iwait", err);
}

static void recv_task(void *p)
{
    const struct jm_halo *h = p;
    MPI_Request r;
    if (MPI_Irecv(h->row, (int)h->cols, MPI_DOUBLE, h->peer, h->tag, MPI_COMM_WORLD, &r))
        die("MPI_Irecv", -EIO);
    int err = locus_mpi_iwait(&r, MPI_STATUS_IGNORE);
    if (err < 0)
        die("locus_mpi_iwait", err);
}

/* The rank's share of the blocks: [*b0, *b1). */
static void jm_range(long nblocks, long *b0, long *b1)
{
    *b0 = nblocks * bm_rank / bm_ranks;
    *b1 = nblocks * (bm_rank + 1) / bm_ranks;
}

/* label: the task's name in traces (LOCUS_TRACE, LOCUS_DAG), as jacobi's */
static void spawn(const char *label, locus_task_fn fn, const void *arg, size_t size,
                  const locus_dep_t *d, size_t n)
{
    locus_task_attr_t at = LOCUS_TASK_ATTR_INIT;
    at.label = label;
    int err = locus_spawn_attr(fn, arg, size, d, n, &at);
    if (err < 0)
        die("locus_spawn", err);
}

/* Sweep number s from src into dst (local blocks b0..b1-1 at src[0..]). */
static void sweep(const struct jb_opts *o, long s, long b0, long b1, double *const *src,
                  double *const *dst, double *gup, double *gdn)
{
    const long cols = o->cols, nb = b1 - b0;
    const size_t row = (size_t)cols * sizeof(double), blk = (size_t)o->block * row;
    const int up = bm_rank - 1, dn = bm_rank + 1;
    const int tag = (int)(s % 100000) * 2;   /* +0: data going down, +1: going up */

    if (up >= 0) {
        struct jm_halo r = { gup, cols, up, tag + 0 }, t = { src[0], cols, up, tag + 1 };
        spawn("recv", recv_task, &r, sizeof r, (locus_dep_t[]){ LOCUS_OUT(gup, row) }, 1);
        spawn("send", send_task, &t, sizeof t, (locus_dep_t[]){ LOCUS_IN(src[0], row) }, 1);
    }
    if (dn < bm_ranks) {
        double *last = src[nb - 1] + (o->block - 1) * cols;
        struct jm_halo r = { gdn, cols, dn, tag + 1 }, t = { last, cols, dn, tag + 0 };
        spawn("recv", recv_task, &r, sizeof r, (locus_dep_t[]){ LOCUS_OUT(gdn, row) }, 1);
        spawn("send", send_task, &t, sizeof t, (locus_dep_t[]){ LOCUS_IN(last, row) }, 1);
    }
    for (long k = 0; k < nb; k++) {
        struct jb_block b = {
            .up = k ? src[k - 1] + (o->block - 1) * cols : up >= 0 ? gup : NULL,
            .src = src[k],
            .dn = k < nb - 1 ? src[k + 1] : dn < bm_ranks ? gdn : NULL,
            .dst = dst[k],
            .row0 = (b0 + k) * o->block, .nrows = o->block, .rows = o->rows, .cols = cols,
        };
        locus_dep_t deps[4];
        size_t nd = 0;
        deps[nd++] = LOCUS_IN(b.src, blk);
        if (b.up)
            deps[nd++] = LOCUS_IN(b.up, row);
        if (b.dn)
            deps[nd++] = LOCUS_IN(b.dn, row);
        deps[nd++] = LOCUS_OUT(b.dst, blk);
        spawn("sweep", sweep_task, &b, sizeof b, deps, nd);
    }
}

/*
 * The check: the sequential sweep of the whole grid, each rank computing
 * its own rows of it with the ghost rows of its neighbours exchanged by
 * MPI_Sendrecv before every sweep (on a communicator of its own), then
 * comparing them bitwise with its blocks.  The same kernel on the same
 * values in the same order as jb_verify's single sweep, so the result is
 * that sweep's; memory: two copies of the rank's part (not of the grid),
 * and time: the rank's share of a sequential run.  Every rank takes part
 * (it is collective).  1 equal, 0 not (with a message), -1 no memory on
 * some rank.
 */
static int verify_part(const struct jb_opts *o, double *const *blocks, long b0, long b1,
                       long sweeps)
{
    const long cols = o->cols, r0 = b0 * o->block, n = (b1 - b0) * o->block;
    const size_t bytes = (size_t)(n + 2) * (size_t)cols * sizeof(double);
    double *a = malloc(bytes), *b = malloc(bytes);
    int have = a && b, all = 0;
    MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!all) {
        if (!have)
            fprintf(stderr, PROG ": rank %d: no memory for the reference, not verified\n",
                    bm_rank);
        free(a);
        free(b);
        return -1;
    }
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    const int up = bm_rank > 0 ? bm_rank - 1 : MPI_PROC_NULL;
    const int dn = bm_rank + 1 < bm_ranks ? bm_rank + 1 : MPI_PROC_NULL;
    /* the part's row i at a + (i + 1) * cols; rows 0 and n + 1: ghosts */
    jb_init_rows(a + cols, r0, n, cols);
    memcpy(b + cols, a + cols, (size_t)n * (size_t)cols * sizeof(double));
    for (long s = 0; s < sweeps; s++) {
        MPI_Sendrecv(a + cols, (int)cols, MPI_DOUBLE, up, 0, a + (n + 1) * cols, (int)cols,
                     MPI_DOUBLE, dn, 0, comm, MPI_STATUS_IGNORE);
        MPI_Sendrecv(a + n * cols, (int)cols, MPI_DOUBLE, dn, 1, a, (int)cols, MPI_DOUBLE, up,
                     1, comm, MPI_STATUS_IGNORE);
        for (long i = 0; i < n; i++) {
            long g = r0 + i;
            if (g == 0 || g == o->rows - 1)
                continue;   /* the grid's edge rows stay as initialised, in both copies */
            jb_row(b + (i + 1) * cols, a + i * cols, a + (i + 1) * cols, a + (i + 2) * cols,
                   cols);
        }
        double *t = a;
        a = b;
        b = t;
    }
    MPI_Comm_free(&comm);
    int ok = 1;
    const long per = o->block * cols;
    for (long k = 0; k < b1 - b0 && ok; k++) {
        const double *ref = a + cols + k * per, *got = blocks[k];
        if (memcmp(got, ref, (size_t)per * sizeof(double)) == 0)
            continue;
        for (long e = 0; e < per; e++)
            if (memcmp(&got[e], &ref[e], sizeof(double))) {
                fprintf(stderr, PROG ": rank %d: point (%ld, %ld) is %.17g, the sequential run "
                        "gives %.17g\n", bm_rank, (b0 + k) * o->block + e / cols, e % cols,
                        got[e], ref[e]);
                break;
            }
        ok = 0;
    }
    free(a);
    free(b);
    return ok;
}

int main(int argc, char **argv)
{
    struct jb_opts o;
    jb_parse_options(argc, argv, &o);
    bm_start(PROG, &argc, &argv);
    if (o.nblocks < bm_ranks) {
        if (bm_rank == 0)
            fprintf(stderr, PROG ": %ld blocks cannot be shared by %d ranks (use a smaller "
                    "--block)\n", o.nblocks, bm_ranks);
        MPI_Finalize();
        return 2;
    }
    if (bm_rank == 0)
        jb_check_memory(argv[0], &o);

    long b0, b1;
    jm_range(o.nblocks, &b0, &b1);
    const long nb = b1 - b0;
    const size_t row = (size_t)o.cols * sizeof(double);
    const size_t blk = (size_t)o.block * row;
    double **grid[2], *gup[2], *gdn[2];
    for (int g = 0; g < 2; g++) {
        grid[g] = calloc((size_t)nb, sizeof *grid[g]);
        gup[g] = calloc((size_t)o.cols, sizeof(double));
        gdn[g] = calloc((size_t)o.cols, sizeof(double));
        if (!grid[g] || !gup[g] || !gdn[g])
            die("block table", -ENOMEM);
        for (long k = 0; k < nb; k++)
            if (!(grid[g][k] = jb_alloc(blk)))
                die("allocating the grid", -ENOMEM);
    }
    for (long k = 0; k < nb; k++) {
        struct jm_init_arg a = { grid[0][k], grid[1][k], (b0 + k) * o.block, o.block, o.cols };
        int err = locus_task(init_task, &a, sizeof a, LOCUS_OUT(a.a, blk), LOCUS_OUT(a.b, blk));
        if (err < 0)
            die("locus_spawn", err);
    }
    int err = locus_taskwait();
    if (err < 0)
        die("locus_taskwait", err);

    double best = 0, best_rank = 0;
    char fields[256] = "";
    long done = 0;
    for (int r = 0; r < o.reps; r++) {
        bm_phase_start();
        double t0 = bench_now();
        for (long s = 0; s < o.sweeps; s++, done++) {
            int g = (int)(done & 1);
            sweep(&o, done, b0, b1, grid[g], grid[g ^ 1], gup[g], gdn[g]);
        }
        if ((err = locus_taskwait()) < 0)
            die("locus_taskwait", err);
        double mine = bench_now() - t0, t = bm_max_time(mine);
        if (r == 0 || t < best) {
            best = t;
            best_rank = mine;
            bm_rank_fields(fields, sizeof fields, best_rank);
        }
    }

    int verified = o.verify ? verify_part(&o, grid[done & 1], b0, b1, done) : -1;
    char params[160];
    snprintf(params, sizeof params, "%s,ranks=%d", o.params, bm_ranks);
    double bytes = (double)o.sweeps * (double)o.rows * (double)o.cols * 16.0;
    struct bench_result res = {
        .benchmark = PROG, .size = o.size, .params = params, .seconds = best,
        .metric = bytes / best / 1e9, .metric_unit = "GB/s", .verified = verified,
        .blas = "none", .impl = "locus", .extra = fields,
    };
    /* one rank at a time, so that the lines do not interleave */
    for (int k = 0; k < bm_ranks; k++) {
        if (k == bm_rank)
            bench_print(&res);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    int all_ok = verified != 0, every = 0;
    MPI_Allreduce(&all_ok, &every, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    bm_stop(PROG);
    for (int g = 0; g < 2; g++) {
        for (long k = 0; k < nb; k++)
            jb_free(grid[g][k], blk);
        free(grid[g]);
        free(gup[g]);
        free(gdn[g]);
    }
    return every ? 0 : 1;
}
