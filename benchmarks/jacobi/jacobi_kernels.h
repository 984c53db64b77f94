/*
 * jacobi_kernels.h - what the Locus (jacobi.c) and the libgomp (jacobi_omp.c)
 * Jacobi benchmarks share: options and presets, the grid's initial values,
 * the five-point kernel, block allocation and the sequential reference the
 * result is checked against.  Only the task creation differs between the
 * two programs, so that their kernels and their numbers cannot drift apart.
 *
 * The benchmark is the paper's Jacobi (Caheny et al., "Reducing cache
 * coherence traffic with a NUMA-aware runtime approach", section 5): a 2-D
 * five-point stencil on a grid of doubles with a fixed boundary, the grid
 * split into blocks of whole rows, one task per block per sweep and a
 * synchronisation only at the end of each sweep.  Each block of each of the
 * two (ping-pong) grids is its own allocation, first touched by a task, so
 * that a NUMA-aware first-touch regime can spread the blocks over the nodes.
 *
 * Header-only: each benchmark program is built from one .c file.
 * Include bench.h first.
 */
#ifndef JACOBI_KERNELS_H
#define JACOBI_KERNELS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * Presets.  The paper's input is "6400 blocks ... each block having
 * dimensions of 800 x 20000", blocks being row blocks: read as 800 rows of
 * 20000 columns, a 5120000 x 20000 grid (820 GB per grid); the paper gives
 * no sweep count, 10 is ours.  It is accepted, and refused when the machine
 * has too little memory.
 */
struct jb_preset {
    const char *name;
    long rows, cols, block, sweeps;
};

static const struct jb_preset jb_presets[] = {
    { "test", 512, 512, 64, 10 },
    { "small", 4096, 4096, 256, 50 },
    { "medium", 8192, 8192, 256, 100 },
    { "paper", 5120000, 20000, 800, 10 },
};
#define JB_NPRESETS (sizeof jb_presets / sizeof jb_presets[0])
#define JB_MAX_DIM 100000000L
#define JB_MAX_REPS 1000

struct jb_opts {
    const char *size;   /* preset name, or "custom" when a dimension was given */
    long rows, cols;    /* grid, boundary included */
    long block;         /* rows per block; divides rows */
    long nblocks;
    long sweeps;        /* per repetition */
    int reps;           /* timed repetitions, each of 'sweeps' sweeps; best reported */
    bool verify;
    char params[128];
};

static void jb_usage(FILE *f, const char *prog)
{
    fprintf(f,
            "usage: %s [options]\n"
            "2-D five-point Jacobi stencil on an N x N grid of doubles in row blocks,\n"
            "one task per block per sweep, a taskwait after each sweep.\n"
            "  --size P     test (N=512, block 64, 10 sweeps; default), small (4096, 256, 50),\n"
            "               medium (8192, 256, 100), paper (5120000 x 20000, block 800, 10)\n"
            "  --n N        grid rows and columns (boundary included)\n"
            "  --cols C     grid columns, when not N\n"
            "  --block B    rows per block (must divide N)\n"
            "  --sweeps S   sweeps per repetition\n"
            "  --reps R     timed repetitions, each continuing from the last; best reported\n"
            "               (default 1)\n"
            "  --no-verify  skip the comparison with a sequential run\n"
            "  --help       this text\n"
            "Metric: GB/s = sweeps * rows * cols * (8 read + 8 written) / seconds.\n"
            "Threads: LOCUS_THREADS for Locus, OMP_NUM_THREADS for libgomp.\n",
            prog);
}

/* Accepts --name value and --name=value; exits 2 on any bad option. */
static void jb_parse_options(int argc, char **argv, struct jb_opts *o)
{
    const char *prog = argv[0];
    const struct jb_preset *p = &jb_presets[0];
    long n = 0, cols = 0, block = 0, sweeps = 0;

    memset(o, 0, sizeof *o);
    o->reps = 1;
    o->verify = true;
    for (int i = 1; i < argc; i++) {
        static const char *const with_value[] = {
            "--size", "--n", "--cols", "--block", "--sweeps", "--reps", NULL,
        };
        char name[32];
        const char *val = bench_next_opt(prog, argc, argv, &i, name, sizeof name, with_value);
        if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
            jb_usage(stdout, prog);
            exit(0);
        } else if (!strcmp(name, "--size")) {
            size_t k;
            for (k = 0; k < JB_NPRESETS && strcmp(val, jb_presets[k].name); k++)
                ;
            if (k == JB_NPRESETS)
                bench_die(prog, "unknown size '%s': expected test, small, medium or paper", val);
            p = &jb_presets[k];
        } else if (!strcmp(name, "--n")) {
            n = bench_parse_long(prog, name, val, 3, JB_MAX_DIM);
        } else if (!strcmp(name, "--cols")) {
            cols = bench_parse_long(prog, name, val, 3, JB_MAX_DIM);
        } else if (!strcmp(name, "--block")) {
            block = bench_parse_long(prog, name, val, 1, JB_MAX_DIM);
        } else if (!strcmp(name, "--sweeps")) {
            sweeps = bench_parse_long(prog, name, val, 1, 1000000);
        } else if (!strcmp(name, "--reps")) {
            o->reps = (int)bench_parse_long(prog, name, val, 1, JB_MAX_REPS);
        } else if (!strcmp(name, "--no-verify")) {
            o->verify = false;
        } else {
            bench_die(prog, "unknown option '%s' (try --help)", argv[i]);
        }
    }

    o->size = (n || cols || block || sweeps) ? "custom" : p->name;
    o->rows = n ? n : p->rows;
    o->cols = cols ? cols : n ? n : p->cols;
    o->block = block ? block : p->block;
    o->sweeps = sweeps ? sweeps : p->sweeps;
    if (o->block > o->rows || o->rows % o->block)
        bench_die(prog, "block %ld does not divide the grid's %ld rows", o->block, o->rows);
    if ((unsigned long)o->rows * (unsigned long)o->cols > (1UL << 56) / 8)
        bench_die(prog, "a %ld x %ld grid is too large", o->rows, o->cols);
    o->nblocks = o->rows / o->block;
    if (o->rows == o->cols)
        snprintf(o->params, sizeof o->params, "n=%ld,block=%ld,sweeps=%ld", o->rows, o->block,
                 o->sweeps);
    else
        snprintf(o->params, sizeof o->params, "n=%ld,cols=%ld,block=%ld,sweeps=%ld", o->rows,
                 o->cols, o->block, o->sweeps);
}

/*
 * Refuses (exit 1, before anything is allocated) a run that needs more than
 * 90% of the machine's memory: it would only end in the OOM killer.
 */
static void jb_check_memory(const char *prog, const struct jb_opts *o)
{
    double grid = (double)o->rows * (double)o->cols * sizeof(double);
    double need = grid * (o->verify ? 4 : 2);
    double have = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    if (have > 0 && need > 0.9 * have) {
        fprintf(stderr, "%s: %s needs %.1f GiB (two grids%s), this machine has %.1f GiB%s\n", prog,
                o->params, need / (1 << 30), o->verify ? " and two for the check" : "",
                have / (1 << 30), o->verify ? " (--no-verify halves it)" : "");
        exit(1);
    }
}

/*
 * One block's memory, never touched here: mmap gives fresh pages, so the
 * first task that writes them places them (the Linux first-touch policy).
 * Under ASan it is malloc memory instead, so that overruns are caught.
 * lazy (a simulated run, whose modelled bodies never touch the grids): the
 * mapping is MAP_NORESERVE, so that untouched memory costs nothing, not even
 * commit charge (the paper's 820 GB grids on a machine of a few GB), and it
 * is an mmap under ASan too; jb_free_ex must be given the same lazy.
 */
static inline double *jb_alloc_ex(size_t bytes, bool lazy)
{
#ifdef __SANITIZE_ADDRESS__
    if (!lazy)
        return aligned_alloc(64, (bytes + 63) & ~(size_t)63);
#endif
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | (lazy ? MAP_NORESERVE : 0), -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static inline void jb_free_ex(double *p, size_t bytes, bool lazy)
{
#ifdef __SANITIZE_ADDRESS__
    if (!lazy) {
        free(p);
        return;
    }
#endif
    (void)lazy;
    if (p)
        munmap(p, bytes);
}

static inline double *jb_alloc(size_t bytes)
{
    return jb_alloc_ex(bytes, false);
}

static inline void jb_free(double *p, size_t bytes)
{
    jb_free_ex(p, bytes, false);
}

/* Initial value of point (i, j), boundary included: varied, so that the
 * bitwise comparison with the reference means something. */
static inline double jb_initial(long i, long j)
{
    return (double)((i * 31 + j * 17) % 97) * (1.0 / 97.0) + (double)(i == 0) * 4.0;
}

/* Writes rows [row0, row0 + nrows) of the initial grid into dst. */
static void jb_init_rows(double *dst, long row0, long nrows, long cols)
{
    for (long r = 0; r < nrows; r++)
        for (long j = 0; j < cols; j++)
            dst[r * cols + j] = jb_initial(row0 + r, j);
}

/*
 * The stencil on one interior row; the boundary columns are never written
 * (both grids hold their fixed values from initialisation).
 *
 * Written with explicit 4-double vectors (gcc vector extensions: two SSE2
 * operations, or one AVX one where enabled) because gcc -O2's "very cheap"
 * vectoriser leaves a loop with an unknown trip count scalar, and the
 * scalar loop runs at about 3/4 of one core's memory bandwidth (measured
 * 9.4 against 12.3 GB/s on the development machine).  Each element gets the
 * same operations in the same order as the scalar tail, so task results and
 * the reference are bitwise equal.  memcpy: rows need not be 32-byte aligned.
 */
typedef double jb_v4 __attribute__((vector_size(4 * sizeof(double))));

static inline void jb_row(double *restrict out, const double *restrict up,
                          const double *restrict mid, const double *restrict dn, long cols)
{
    const jb_v4 q = { 0.25, 0.25, 0.25, 0.25 };
    long j = 1;
    for (; j + 4 <= cols - 1; j += 4) {
        jb_v4 u, d, l, r;
        memcpy(&u, up + j, sizeof u);
        memcpy(&d, dn + j, sizeof d);
        memcpy(&l, mid + j - 1, sizeof l);
        memcpy(&r, mid + j + 1, sizeof r);
        jb_v4 o = q * (u + d + l + r);
        memcpy(out + j, &o, sizeof o);
    }
    for (; j < cols - 1; j++)
        out[j] = 0.25 * (up[j] + dn[j] + mid[j - 1] + mid[j + 1]);
}

/* One task's work: block rows [row0, row0 + nrows) of src into dst; up and
 * dn are the neighbour blocks' adjacent rows (NULL at the grid's edge). */
struct jb_block {
    const double *up, *src, *dn;
    double *dst;
    long row0, nrows, rows, cols;
};

static void jb_block_sweep(const struct jb_block *b)
{
    const long c = b->cols;
    for (long r = 0; r < b->nrows; r++) {
        long g = b->row0 + r;
        if (g == 0 || g == b->rows - 1)
            continue;
        const double *up = r ? b->src + (r - 1) * c : b->up;
        const double *dn = r < b->nrows - 1 ? b->src + (r + 1) * c : b->dn;
        jb_row(b->dst + r * c, up, b->src + r * c, dn, c);
    }
}

/*
 * The check: total_sweeps sequential sweeps over two contiguous grids, then
 * a bitwise comparison with the blocks k0..k1-1 of the grid the tasks ended
 * in (blocks[0] is block k0: a distributed run checks its own range).
 * Returns 1 when equal, 0 (with a message on stderr) when not, -1 when the
 * memory for the reference could not be had.
 */
static int jb_verify_range(const struct jb_opts *o, double *const *blocks, long k0, long k1,
                           long total_sweeps)
{
    const long rows = o->rows, cols = o->cols;
    size_t bytes = (size_t)rows * (size_t)cols * sizeof(double);
    double *a = malloc(bytes), *b = malloc(bytes);
    int ok = 1;

    if (!a || !b) {
        fprintf(stderr, "jacobi: no memory for the reference grids, not verified\n");
        free(a);
        free(b);
        return -1;
    }
    jb_init_rows(a, 0, rows, cols);
    memcpy(b, a, bytes);
    for (long s = 0; s < total_sweeps; s++) {
        for (long i = 1; i < rows - 1; i++)
            jb_row(b + i * cols, a + (i - 1) * cols, a + i * cols, a + (i + 1) * cols, cols);
        double *t = a;
        a = b;
        b = t;
    }
    size_t bb = (size_t)o->block * (size_t)cols * sizeof(double);
    for (long k = k0; k < k1 && ok; k++) {
        const double *ref = a + k * o->block * cols, *got = blocks[k - k0];
        if (memcmp(got, ref, bb)) {
            for (long e = 0; e < o->block * cols; e++)
                if (memcmp(&got[e], &ref[e], sizeof(double))) {
                    fprintf(stderr, "jacobi: point (%ld, %ld) is %.17g, the sequential run "
                            "gives %.17g\n", k * o->block + e / cols, e % cols, got[e], ref[e]);
                    break;
                }
            ok = 0;
        }
    }
    free(a);
    free(b);
    return ok;
}

/* The whole grid's check (see jb_verify_range). */
static inline int jb_verify(const struct jb_opts *o, double *const *blocks, long total_sweeps)
{
    return jb_verify_range(o, blocks, 0, o->nblocks, total_sweeps);
}

#endif /* JACOBI_KERNELS_H */
