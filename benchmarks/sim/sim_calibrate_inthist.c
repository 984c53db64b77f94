/*
 * sim_calibrate_inthist.c - measures the task models the simulator reads
 * (LOCUS_SIM_MODEL, locus-sim(7)) for the Integral Histogram benchmark's
 * three tasks (benchmarks/inthist/inthist.c) on this machine, for the
 * default 32 bins:
 *   init   the block's pixels generated, its histogram and edge zeroed
 *          (dependencies: h, edge, px)
 *   hscan  an interior block's horizontal scans (px, the left block's edge,
 *          h, edge)
 *   vscan  an interior block's vertical scans (the last row of the block
 *          above, h)
 * at each block side asked for (default: the presets' blocks), written as
 * model lines "name bytes ns" whose bytes are what the task declares.
 *
 * The figures are compute times with the data in cache, the memory traffic
 * being the simulator's to add (sim/charge.c): a block of the presets does
 * not fit in a cache (512 x 512 pixels of 32 bins is 32 MiB), so each task
 * body is timed on a block of side c, the largest power of two up to the
 * preset's whose memory fits in 3/4 of the L2 cache, warmed once, best of
 * --reps runs, and scaled by the pixel count, (b / c)^2: all three bodies
 * do the same work per pixel whatever the block's side (32 bins each), but
 * for a per-row step of 1/b of it.  The bodies are inthist.c's own: it is
 * included (its main renamed), since its kernels are static there.  Each
 * line's comment also gives the time of the whole block out of cache and
 * the bandwidth that makes of the task's dependency bytes.
 *
 *   build/bench/sim_calibrate_inthist > sim/models/inthist.model
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define main inthist_main
#include "../inthist/inthist.c"
#undef main

#define MAX_BLOCKS 16

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *mem(size_t bytes)
{
    void *p = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    if (!p) {
        fprintf(stderr, "sim_calibrate_inthist: out of memory for %zu bytes\n", bytes);
        exit(1);
    }
    memset(p, 1, bytes);   /* faulted in, as the real run's blocks are by init */
    return p;
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
static void flush_caches(const uint64_t *buf, size_t n)
{
    volatile uint64_t sink = 0;
    uint64_t s = 0;
    for (size_t i = 0; i < n; i += 8)
        s += buf[i];
    sink = s;
    (void)sink;
}

/* One block of side b and what its tasks read from the neighbours. */
struct calib_block {
    struct ih_arg a;
    uint32_t *nb;   /* left edge (hscan), top row (vscan): b * IH_BINS each */
    char *m;
};

static void calib_block(struct calib_block *cb, long b)
{
    size_t h = (size_t)b * (size_t)b * IH_BINS * sizeof(uint32_t), e = (size_t)b * IH_BINS * 4;
    cb->m = mem(h + e + (size_t)b * (size_t)b);
    cb->nb = mem(e);
    cb->a = (struct ih_arg){
        .blk = { .h = (uint32_t *)cb->m, .edge = (uint32_t *)(cb->m + h),
                 .px = (uint8_t *)(cb->m + h + e) },
        .x0 = b, .y0 = b, .b = b, .width = 4 * b, .K = IH_BINS, .seed = 1,
    };
    init_task(&cb->a);   /* pixels for the scans */
}

static void calib_free(struct calib_block *cb)
{
    free(cb->m);
    free(cb->nb);
}

enum kernel { K_INIT, K_HSCAN, K_VSCAN };

static void body(enum kernel k, struct calib_block *cb)
{
    struct ih_arg a = cb->a;
    switch (k) {
    case K_INIT: init_task(&a); break;
    case K_HSCAN: a.nb = cb->nb; hscan_task(&a); break;
    case K_VSCAN: a.nb = cb->nb; vscan_task(&a); break;
    }
}

/* The best of the timed runs after one to warm: reps of them, and in
 * cache more up to 1 s in all (at most 100000), so that a short body's
 * best is not one that another process interrupted.  flush: the caches
 * emptied before each of reps runs instead. */
static double best(enum kernel k, struct calib_block *cb, int reps, const uint64_t *flush,
                   size_t nflush)
{
    double min = 1e30, start = now();
    for (int r = 0; r <= reps || (!flush && now() - start < 1.0 && r <= 100000); r++) {
        if (flush)
            flush_caches(flush, nflush);
        double t0 = now();
        body(k, cb);
        double t = now() - t0;
        if (r > 0 && t < min)
            min = t;
    }
    return min;
}

int main(int argc, char **argv)
{
    long blocks[MAX_BLOCKS];
    int nb = 0, reps = 5;
    long cache = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (cache <= 0)
        cache = 512 * 1024;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--block") == 0 && i + 1 < argc && nb < MAX_BLOCKS) {
            blocks[nb] = atol(argv[++i]);
            if (blocks[nb] < 8 || blocks[nb] > 4096) {
                fprintf(stderr, "sim_calibrate_inthist: --block %s: expected 8..4096\n", argv[i]);
                return 2;
            }
            nb++;
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
            if (reps < 1 || reps > 1000) {
                fprintf(stderr, "sim_calibrate_inthist: --reps %s: expected 1..1000\n", argv[i]);
                return 2;
            }
        } else {
            fprintf(stderr, "usage: %s [--block B]... [--reps R]\n"
                    "Task models of the Integral Histogram tasks (init, hscan, vscan; 32 bins)\n"
                    "for LOCUS_SIM_MODEL (locus-sim(7)): name  dependency-bytes  compute-ns, one\n"
                    "line per task and block side (default: the presets' blocks), compute in\n"
                    "cache, best of 5\n", argv[0]);
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    if (nb == 0)
        for (size_t p = 0; p < IH_NPRESETS && nb < MAX_BLOCKS; p++) {
            int dup = 0;
            for (int q = 0; q < nb; q++)
                dup |= blocks[q] == ih_presets[p].block;
            if (!dup)
                blocks[nb++] = ih_presets[p].block;
        }
    const size_t nflush = 4 * llc_size() / sizeof(uint64_t);
    uint64_t *flush = mem(nflush * sizeof *flush);

    printf("# Integral Histogram tasks' compute time in cache (%d bins), measured by\n"
           "# sim_calibrate_inthist on this machine (one thread): each body timed on a block\n"
           "# of side c that fits in the L2 cache (%ld KiB), best of %d runs or more (1 s)\n"
           "# after a warm-up, scaled by the pixel count to the block's side b.  Read by the\n"
           "# simulator (LOCUS_SIM_MODEL); the memory traffic is its own to add.  The\n"
           "# comments give the whole block's time out of cache (best of %d) and the\n"
           "# bandwidth that is of the task's dependency bytes.\n"
           "# name  dependency-bytes  compute-ns  overlap (1: streaming kernels hide their\n"
           "# compute under their traffic: the longer of the two counts, locus-sim(7))\n", IH_BINS, cache / 1024, reps, reps);
    for (int i = 0; i < nb; i++) {
        const long b = blocks[i];
        long c = 8;
        while (2 * c <= b &&
               (size_t)(2 * c) * (size_t)(2 * c) * (IH_BINS * 4 + 1) <= (size_t)cache * 3 / 4)
            c *= 2;
        const size_t h = (size_t)b * (size_t)b * IH_BINS * 4, e = (size_t)b * IH_BINS * 4,
                     px = (size_t)b * (size_t)b;
        struct { const char *name; enum kernel k; size_t bytes; } ks[] = {
            { "init", K_INIT, h + e + px },
            { "hscan", K_HSCAN, px + e + h + e },
            { "vscan", K_VSCAN, e + h },   /* the top row is as long as an edge */
        };
        struct calib_block small, whole;
        calib_block(&small, c);
        calib_block(&whole, b);
        for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++) {
            double t = best(ks[k].k, &small, reps, NULL, 0) * (double)b * (double)b /
                       ((double)c * (double)c);
            double tm = best(ks[k].k, &whole, reps, flush, nflush);
            printf("%-6s %10zu %12.0f 1   # b=%ld, in cache at c=%ld; out of cache %.0f ns, "
                   "%.1f GB/s\n", ks[k].name, ks[k].bytes, t * 1e9, b, c, tm * 1e9,
                   (double)ks[k].bytes / tm / 1e9);
        }
        calib_free(&small);
        calib_free(&whole);
    }
    free(flush);
    return 0;
}
