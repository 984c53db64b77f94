/*
 * jacobi_omp.c - the peer of jacobi.c on GNU libgomp: the same blocks,
 * kernel, first-touch initialisation tasks and taskwait per sweep, with
 * tasks made by #pragma omp task depend(...) inside parallel + single.
 * Built with gcc -fopenmp and never linked with Locus.  Keep the spawn
 * loops alike with jacobi.c.
 *
 * libgomp matches dependencies by their first address only, so the halo
 * clauses (a row inside a neighbour's block) would order nothing across
 * sweeps; they do not need to: the taskwait after every sweep does, in both
 * programs.
 */
#define BENCH_NO_LOCUS
#include <omp.h>

#include "../common/bench.h"
#include "jacobi_kernels.h"
#include "../common/omp_impl.h"

#if !defined(_OPENMP)
#error "jacobi_omp.c must be compiled with -fopenmp"
#endif

static void sweep(const struct jb_opts *o, double *const *src, double *const *dst)
{
    for (long k = 0; k < o->nblocks; k++) {
        struct jb_block b = {
            .up = k ? src[k - 1] + (o->block - 1) * o->cols : NULL,
            .src = src[k],
            .dn = k < o->nblocks - 1 ? src[k + 1] : NULL,
            .dst = dst[k],
            .row0 = k * o->block, .nrows = o->block, .rows = o->rows, .cols = o->cols,
        };
        /* At the grid's edge the missing halo's clause names the own block.
         * (gcc counts a use in a depend clause as none: hence 'unused'.) */
        __attribute__((unused)) const double *s = b.src, *hu = b.up ? b.up : s,
                                             *hd = b.dn ? b.dn : s;
        __attribute__((unused)) double *d = b.dst;
        const long n = o->block * o->cols, c = o->cols;
#pragma omp task firstprivate(b) depend(in: s[0:n], hu[0:c], hd[0:c]) depend(out: d[0:n])
        jb_block_sweep(&b);
    }
#pragma omp taskwait
}

static void run(const struct jb_opts *o, double **grid[2], double *best, long *done)
{
    const long n = o->block * o->cols;
    const size_t bytes = (size_t)n * sizeof(double);
    for (long k = 0; k < o->nblocks; k++) {
        double *a = grid[0][k], *b = grid[1][k];
        const long row0 = k * o->block, nrows = o->block, cols = o->cols;
#pragma omp task depend(out: a[0:n], b[0:n])
        {
            jb_init_rows(a, row0, nrows, cols);
            memcpy(b, a, bytes);
        }
    }
#pragma omp taskwait

    *done = 0;
    for (int r = 0; r < o->reps; r++) {
        double t0 = bench_now();
        for (long s = 0; s < o->sweeps; s++, (*done)++)
            sweep(o, grid[*done & 1], grid[(*done + 1) & 1]);
        double t = bench_now() - t0;
        if (r == 0 || t < *best)
            *best = t;
    }
}

int main(int argc, char **argv)
{
    struct jb_opts o;
    jb_parse_options(argc, argv, &o);
    jb_check_memory(argv[0], &o);

    const size_t blk = (size_t)o.block * (size_t)o.cols * sizeof(double);
    double **grid[2];
    for (int g = 0; g < 2; g++) {
        grid[g] = calloc((size_t)o.nblocks, sizeof *grid[g]);
        if (!grid[g]) {
            fprintf(stderr, "jacobi-omp: out of memory\n");
            return 1;
        }
        for (long k = 0; k < o.nblocks; k++)
            if (!(grid[g][k] = jb_alloc(blk))) {
                fprintf(stderr, "jacobi-omp: out of memory for the grid\n");
                return 1;
            }
    }

    double best = 0;
    long done = 0;
#pragma omp parallel
#pragma omp single
    run(&o, grid, &best, &done);

    int verified = o.verify ? jb_verify(&o, grid[done & 1], done) : -1;
    double bytes = (double)o.sweeps * (double)o.rows * (double)o.cols * 16.0;
    struct bench_result res = {
        .benchmark = "jacobi", .size = o.size, .params = o.params, .seconds = best,
        .metric = bytes / best / 1e9, .metric_unit = "GB/s", .verified = verified,
        .blas = "none", .impl = bench_omp_impl(),
    };
    bench_print(&res);

    for (int g = 0; g < 2; g++) {
        for (long k = 0; k < o.nblocks; k++)
            jb_free(grid[g][k], blk);
        free(grid[g]);
    }
    return verified == 0 ? 1 : 0;
}
