/*
 * sim_calibrate_jacobi.c - measures the task models the simulator reads
 * (LOCUS_SIM_MODEL, locus-sim(7)) for the Jacobi benchmark's two tasks
 * (benchmarks/jacobi/jacobi.c) on this machine:
 *   init   jb_init_rows into grid A's block, then the copy into B's
 *          (dependencies: both blocks)
 *   sweep  jb_block_sweep of one interior block (dependencies: the source
 *          block, the neighbours' two adjacent rows, the destination block)
 * at each block shape asked for (default: the presets' blocks), written as
 * model lines "name bytes ns" whose bytes are what the task declares.
 *
 * The figures are compute times with the data in cache, the memory traffic
 * being the simulator's to add (sim/charge.c): a block of the presets does
 * not fit in a cache (the paper's is 128 MB), so the kernel is timed on a
 * strip of the block's rows (same row length) that fits in the L2 cache
 * with its halo and its destination, warmed once, best of --reps runs, and
 * scaled by the block's rows over the strip's.  The kernels are
 * jacobi_kernels.h's own.  Each line's comment also gives the time of the
 * whole block out of cache (the caches flushed before each of --reps runs)
 * and the bandwidth that makes of the task's dependency bytes: what a
 * machine model's per-core bandwidth (core_bw) must give for the simulated
 * task to last as long as the real one.
 *
 *   build/bench/sim_calibrate_jacobi > sim/models/jacobi.model
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/bench.h"
#pragma GCC diagnostic ignored "-Wunused-function"   /* the header's option parsing, checks */
#include "../jacobi/jacobi_kernels.h"

#define MAX_SHAPES 16

struct shape {
    long rows, cols;   /* one block: rows x cols doubles */
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double *grid(long rows, long cols)
{
    size_t bytes = (size_t)rows * (size_t)cols * sizeof(double);
    double *p = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    if (!p) {
        fprintf(stderr, "sim_calibrate_jacobi: out of memory for %ld x %ld doubles\n", rows, cols);
        exit(1);
    }
    return p;
}

enum kernel { K_INIT, K_SWEEP };

/*
 * One task's body on nrows rows of cols: init writes a (rows row0..) and
 * copies it into b; sweep reads a's rows with halo rows a[-1] and a[nrows]
 * (a has nrows + 2 rows, the block starting at its second) into b.
 */
static void body(enum kernel k, double *a, double *b, long nrows, long cols)
{
    if (k == K_INIT) {
        jb_init_rows(a, 1, nrows, cols);
        memcpy(b, a, (size_t)nrows * (size_t)cols * sizeof(double));
    } else {
        struct jb_block blk = {
            .up = a, .src = a + cols, .dn = a + (nrows + 1) * cols, .dst = b,
            .row0 = 1, .nrows = nrows, .rows = nrows + 3, .cols = cols,   /* all interior */
        };
        jb_block_sweep(&blk);
    }
}

/* The best of the timed runs of k on nrows rows after one to warm: reps
 * of them, and more up to 1 s in all (at most 100000), so that a short
 * body's best is not one that another process interrupted. */
static double best(enum kernel k, double *a, double *b, long nrows, long cols, int reps)
{
    double min = 1e30, start = now();
    for (int r = 0; r <= reps || (now() - start < 1.0 && r <= 100000); r++) {
        double t0 = now();
        body(k, a, b, nrows, cols);
        double t = now() - t0;
        if (r > 0 && t < min)
            min = t;
    }
    return min;
}

/* The last-level cache's size: sysfs (glibc's sysconf misreads it in some
 * VMs), else sysconf, else 64 MiB; at most 1 GiB. */
static size_t llc_size(void)
{
    long kib = 0;
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
    if (f) {
        if (fscanf(f, "%ldK", &kib) != 1)
            kib = 0;
        fclose(f);
    }
    long b = kib > 0 ? kib * 1024 : sysconf(_SC_LEVEL3_CACHE_SIZE);
    return b > 0 && b <= (1L << 30) ? (size_t)b : (size_t)64 << 20;
}

/* Evicts what the caches hold by reading a buffer of four times the
 * last-level cache (read, so that no dirty line is left to write back). */
static void flush_caches(const double *buf, size_t n)
{
    volatile double sink = 0;
    double s = 0;
    for (size_t i = 0; i < n; i += 8)
        s += buf[i];
    sink = s;
    (void)sink;
}

/* Out of cache: the whole block, its memory faulted in (as the real run's
 * is after the init tasks) but evicted from the caches before each run,
 * best of reps. */
static double best_streamed(enum kernel k, long nrows, long cols, int reps, const double *flush,
                            size_t nflush)
{
    double *a = grid(nrows + 2, cols), *b = grid(nrows, cols);
    jb_init_rows(a, 0, nrows + 2, cols);
    jb_init_rows(b, 0, nrows, cols);
    double min = 1e30;
    for (int r = 0; r < reps; r++) {
        flush_caches(flush, nflush);
        double t0 = now();
        body(k, a, b, nrows, cols);
        double t = now() - t0;
        if (t < min)
            min = t;
    }
    free(a);
    free(b);
    return min;
}

int main(int argc, char **argv)
{
    struct shape shapes[MAX_SHAPES];
    int ns = 0, reps = 5;
    long cache = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (cache <= 0)
        cache = 512 * 1024;
    const size_t nflush = 4 * llc_size() / sizeof(double);
    double *flush = grid(1, (long)nflush);
    for (size_t i = 0; i < nflush; i++)
        flush[i] = (double)i;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc && ns < MAX_SHAPES) {
            struct shape s;
            if (sscanf(argv[++i], "%ldx%ld", &s.rows, &s.cols) != 2 || s.rows < 1 || s.cols < 8 ||
                s.rows > 100000 || s.cols > 10000000) {
                fprintf(stderr, "sim_calibrate_jacobi: --shape %s: expected ROWSxCOLS\n", argv[i]);
                return 2;
            }
            shapes[ns++] = s;
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
            if (reps < 1 || reps > 1000) {
                fprintf(stderr, "sim_calibrate_jacobi: --reps %s: expected 1..1000\n", argv[i]);
                return 2;
            }
        } else {
            fprintf(stderr, "usage: %s [--shape ROWSxCOLS]... [--reps R]\n"
                    "Task models of the Jacobi tasks (init, sweep) for LOCUS_SIM_MODEL\n"
                    "(locus-sim(7)): name  dependency-bytes  compute-ns, one line per task and\n"
                    "block shape (default: the presets' blocks), compute in cache, best of 5\n",
                    argv[0]);
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    if (ns == 0)
        for (size_t p = 0; p < JB_NPRESETS && ns < MAX_SHAPES; p++) {
            struct shape s = { jb_presets[p].block, jb_presets[p].cols };
            int dup = 0;
            for (int q = 0; q < ns; q++)
                dup |= shapes[q].rows == s.rows && shapes[q].cols == s.cols;
            if (!dup)
                shapes[ns++] = s;
        }

    printf("# Jacobi tasks' compute time in cache, measured by sim_calibrate_jacobi on this\n"
           "# machine (one thread): each block timed on a strip of its rows that fits in the\n"
           "# L2 cache (%ld KiB), best of %d runs or more (1 s) after a warm-up, scaled\n"
           "# to the block's rows.  Read by the simulator (LOCUS_SIM_MODEL); the memory\n"
           "# traffic is its own to add.  The comments give the whole block's time out of\n"
           "# cache (best of %d) and the bandwidth that is of the task's dependency bytes\n"
           "# (what the machine model's core_bw must be for the two to agree).\n"
           "# name  dependency-bytes  compute-ns  overlap (1: streaming kernels hide their\n"
           "# compute under their traffic: the longer of the two counts, locus-sim(7))\n", cache / 1024, reps, reps);
    for (int i = 0; i < ns; i++) {
        const long rows = shapes[i].rows, cols = shapes[i].cols;
        const size_t row = (size_t)cols * sizeof(double), blk = (size_t)rows * row;
        /* strip: s rows of a (plus two halo rows) and s of b in 3/4 of the L2 */
        long s = (long)((size_t)cache * 3 / 4 / (2 * row)) - 1;
        if (s < 1)
            s = 1;
        if (s > rows)
            s = rows;
        double *a = grid(s + 2, cols), *b = grid(s, cols);
        jb_init_rows(a, 0, s + 2, cols);
        jb_init_rows(b, 0, s, cols);
        struct { const char *name; enum kernel k; size_t bytes; } ks[] = {
            { "init", K_INIT, 2 * blk },
            { "sweep", K_SWEEP, 2 * blk + 2 * row },
        };
        for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++) {
            double t = best(ks[k].k, a, b, s, cols, reps) * (double)rows / (double)s;
            double tm = best_streamed(ks[k].k, rows, cols, reps, flush, nflush);
            printf("%-6s %10zu %12.0f 1   # block %ldx%ld, strip of %ld rows; out of cache %.0f ns, "
                   "%.1f GB/s\n", ks[k].name, ks[k].bytes, t * 1e9, rows, cols, s, tm * 1e9,
                   (double)ks[k].bytes / tm / 1e9);
        }
        free(a);
        free(b);
    }
    free(flush);
    return 0;
}
