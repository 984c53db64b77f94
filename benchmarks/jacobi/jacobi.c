/*
 * jacobi.c - the paper's Jacobi benchmark on Locus: a five-point stencil
 * over row blocks, one task per block per sweep, a taskwait per sweep.
 * jacobi_omp.c is the same on libgomp; both share jacobi_kernels.h (kernel,
 * options, reference), keep their spawn loops alike.
 *
 * Tasks and their dependencies (block k of grid src is read, of dst written):
 *   init(k)   out A[k], out B[k]: one first-touch task per block index, so
 *             that NAFT deals both grids' block k to the same node
 *   sweep(k)  in src[k], in the last row of src[k-1], in the first row of
 *             src[k+1] (exact byte ranges), out dst[k]
 * The halo dependencies order nothing inside a sweep (a sweep only reads
 * src and only writes dst; the taskwait orders the sweeps) but they tell the
 * runtime every byte the task reads, so its locality figures are complete.
 *
 * Simulated (LOCUS_SIM with task models, bench_simulated()): the modelled
 * bodies do not run, so the grids are never touched; they are mapped
 * MAP_NORESERVE and the memory check and the verification are skipped, so
 * that the paper's two 820 GB grids can be simulated on a small machine.
 * sim/models/jacobi.model (benchmarks/sim/sim_calibrate_jacobi.c) models
 * the tasks "init" and "sweep".
 */
#include "../common/bench.h"
#include "jacobi_kernels.h"

__attribute__((noreturn, cold)) static void die(const char *what, int err)
{
    fprintf(stderr, "jacobi: %s: %s (%s)\n", what, locus_strerror(err), locus_error_message());
    exit(1);
}

struct jb_init_arg {
    double *a, *b;
    long row0, nrows, cols;
};

static void init_task(void *p)
{
    const struct jb_init_arg *t = p;
    jb_init_rows(t->a, t->row0, t->nrows, t->cols);
    memcpy(t->b, t->a, (size_t)t->nrows * (size_t)t->cols * sizeof(double));
}

static void sweep_task(void *p)
{
    jb_block_sweep(p);
}

/* One sweep from src into dst: nblocks tasks, then a taskwait. */
static void sweep(const struct jb_opts *o, double *const *src, double *const *dst)
{
    const size_t row = (size_t)o->cols * sizeof(double), blk = (size_t)o->block * row;
    for (long k = 0; k < o->nblocks; k++) {
        struct jb_block b = {
            .up = k ? src[k - 1] + (o->block - 1) * o->cols : NULL,
            .src = src[k],
            .dn = k < o->nblocks - 1 ? src[k + 1] : NULL,
            .dst = dst[k],
            .row0 = k * o->block, .nrows = o->block, .rows = o->rows, .cols = o->cols,
        };
        locus_dep_t deps[4];
        size_t nd = 0;
        deps[nd++] = LOCUS_IN(b.src, blk);
        if (b.up)
            deps[nd++] = LOCUS_IN(b.up, row);
        if (b.dn)
            deps[nd++] = LOCUS_IN(b.dn, row);
        deps[nd++] = LOCUS_OUT(b.dst, blk);
        locus_task_attr_t at = LOCUS_TASK_ATTR_INIT;
        at.label = "sweep";   /* its name in traces (LOCUS_TRACE, LOCUS_DAG) */
        int err = locus_spawn_attr(sweep_task, &b, sizeof b, deps, nd, &at);
        if (err < 0)
            die("locus_spawn", err);
    }
    int err = locus_taskwait();
    if (err < 0)
        die("locus_taskwait", err);
}

int main(int argc, char **argv)
{
    struct jb_opts o;
    jb_parse_options(argc, argv, &o);
    const bool simulated = bench_simulated();   /* the grids are never touched */
    if (simulated)
        o.verify = false;
    else
        jb_check_memory(argv[0], &o);

    int err = locus_init();
    if (err < 0)
        die("locus_init", err);

    const size_t blk = (size_t)o.block * (size_t)o.cols * sizeof(double);
    double **grid[2];
    for (int g = 0; g < 2; g++) {
        grid[g] = calloc((size_t)o.nblocks, sizeof *grid[g]);
        if (!grid[g])
            die("block table", -ENOMEM);
        for (long k = 0; k < o.nblocks; k++)
            if (!(grid[g][k] = jb_alloc_ex(blk, simulated)))
                die("allocating the grid", -ENOMEM);
    }

    for (long k = 0; k < o.nblocks; k++) {
        struct jb_init_arg a = { grid[0][k], grid[1][k], k * o.block, o.block, o.cols };
        locus_task_attr_t at = LOCUS_TASK_ATTR_INIT;
        at.label = "init";
        const locus_dep_t d[2] = { LOCUS_OUT(a.a, blk), LOCUS_OUT(a.b, blk) };
        err = locus_spawn_attr(init_task, &a, sizeof a, d, 2, &at);
        if (err < 0)
            die("locus_spawn", err);
    }
    if ((err = locus_taskwait()) < 0)
        die("locus_taskwait", err);
    (void)locus_reset_stats();

    double best = 0;
    long done = 0;
    for (int r = 0; r < o.reps; r++) {
        double t0 = bench_now();
        for (long s = 0; s < o.sweeps; s++, done++)
            sweep(&o, grid[done & 1], grid[(done + 1) & 1]);
        double t = bench_now() - t0;
        if (r == 0 || t < best)
            best = t;
    }

    int verified = o.verify ? jb_verify(&o, grid[done & 1], done) : -1;
    if (simulated)
        printf("  check: not run (simulated: task bodies with a model do not run)\n");
    double bytes = (double)o.sweeps * (double)o.rows * (double)o.cols * 16.0;
    struct bench_result res = {
        .benchmark = "jacobi", .size = o.size, .params = o.params, .seconds = best,
        .metric = bytes / best / 1e9, .metric_unit = "GB/s", .verified = verified,
        .blas = "none", .impl = "locus",
    };
    bench_print(&res);

    if ((err = locus_finalize()) < 0)
        die("locus_finalize", err);
    for (int g = 0; g < 2; g++) {
        for (long k = 0; k < o.nblocks; k++)
            jb_free_ex(grid[g][k], blk, simulated);
        free(grid[g]);
    }
    return verified == 0 ? 1 : 0;
}
