/*
 * inthist.c - the paper's Integral Histogram benchmark on Locus (Caheny et
 * al., "Reducing cache coherence traffic with a NUMA-aware runtime
 * approach", section 5): for every pixel (x, y) of a W x H image of 8-bit
 * values in K bins, the histogram of the rectangle [0, x] x [0, y], so that
 * the histogram of any rectangle costs four lookups (Porikli, "Integral
 * histogram: a fast way to extract histograms in Cartesian spaces", CVPR
 * 2005).  Computed as the OmpSs version's cross-weave (BSC, tdnuca-artifacts
 * other_apps/ompss/inthist): per row of blocks, horizontal scans from left
 * to right, then per column of blocks, vertical scans from top to bottom.
 *
 * Each b x b block is one allocation, first touched by its own task:
 *   h     uint32 [b][b][K]   the block's part of the integral histogram
 *   edge  uint32 [b][K]      copy of h's last column (x = b-1): with the
 *                            row-major h the column is strided, this makes
 *                            the one thing the right neighbour reads a
 *                            contiguous range (the OmpSs version's halo)
 *   px    uint8  [b][b]      the image, from a seeded hash of (x, y)
 * Tasks:
 *   init(i,j)   out h, out edge, out px          (the first-touch tasks)
 *   hscan(i,j)  in px, in edge(i,j-1), out h, out edge
 *   vscan(i,j)  in h(i-1,j)'s last row (contiguous), inout h
 * One taskwait per repetition, at the end; the dependencies order the rest.
 * Each task is labelled with its name above (traces, and the simulator's
 * task models).
 *
 * Simulated (LOCUS_SIM with task models, bench_simulated()): the modelled
 * bodies do not run, so the image is never touched; the blocks are mapped
 * MAP_NORESERVE and the memory check and the verification are skipped, so
 * that the paper's ~550 GB image can be simulated on a small machine.
 * sim/models/inthist.model (benchmarks/sim/sim_calibrate_inthist.c) models
 * "init", "hscan" and "vscan".
 */
#include <stdbool.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../common/bench.h"

struct ih_preset {
    const char *name;
    long width, height, block;
};

static const struct ih_preset ih_presets[] = {
    { "test", 512, 512, 128 },
    { "small", 4096, 4096, 512 },
    { "medium", 8192, 8192, 512 },
    { "paper", 65536, 65536, 512 },  /* the paper's, with 32 bins: ~550 GB */
};
#define IH_NPRESETS (sizeof ih_presets / sizeof ih_presets[0])
#define IH_BINS 32
#define IH_MAX_DIM (1L << 24)
#define IH_MAX_RECT 1024  /* longest side of a checked rectangle (but the first) */

struct ih_opts {
    const char *size;
    long width, height, block, nbx, nby;
    unsigned bins;
    int reps;
    long rects;
    uint64_t seed;
    bool verify;
    char params[128];
};

struct ih_block {
    uint32_t *h, *edge;
    uint8_t *px;
};

struct ih_image {
    const struct ih_opts *o;
    struct ih_block *blk;    /* nby x nbx, row-major */
    size_t h_bytes, edge_bytes, px_bytes, bytes;
};

__attribute__((noreturn, cold)) static void die(const char *what, int err)
{
    fprintf(stderr, "inthist: %s: %s (%s)\n", what, locus_strerror(err), locus_error_message());
    exit(1);
}

static void usage(FILE *f, const char *prog)
{
    fprintf(f,
            "usage: %s [options]\n"
            "Integral histogram of a W x H image of 8-bit pixels in K bins, in b x b blocks:\n"
            "horizontal scan tasks along each block row, then vertical scans down each column.\n"
            "  --size P      test (512x512, block 128; default), small (4096x4096, 512),\n"
            "                medium (8192x8192, 512), paper (65536x65536, 512: ~550 GB);\n"
            "                all with 32 bins\n"
            "  --width W     image width (pixels)\n"
            "  --height H    image height (pixels)\n"
            "  --block b     block side (must divide W and H)\n"
            "  --bins K      histogram bins, 1..256 (pixel v goes to bin v * K / 256)\n"
            "  --reps R      timed repetitions, best reported (default 1)\n"
            "  --rects N     rectangles checked against direct counting (default 200;\n"
            "                the first is the whole image)\n"
            "  --seed S      image generator seed (default 1)\n"
            "  --no-verify   skip the check\n"
            "  --help        this text\n"
            "Memory: W * H * (4 K + 1) bytes.  Metric: Mpixel/s = W * H / seconds / 1e6.\n"
            "Threads: LOCUS_THREADS.\n",
            prog);
}

static void parse_options(int argc, char **argv, struct ih_opts *o)
{
    const char *prog = argv[0];
    const struct ih_preset *p = &ih_presets[0];
    long w = 0, h = 0, b = 0, k = 0;

    memset(o, 0, sizeof *o);
    o->reps = 1;
    o->rects = 200;
    o->seed = 1;
    o->verify = true;
    for (int i = 1; i < argc; i++) {
        static const char *const with_value[] = {
            "--size", "--width", "--height", "--block", "--bins", "--reps", "--rects", "--seed", NULL,
        };
        char name[32];
        const char *val = bench_next_opt(prog, argc, argv, &i, name, sizeof name, with_value);
        if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
            usage(stdout, prog);
            exit(0);
        } else if (!strcmp(name, "--size")) {
            size_t q;
            for (q = 0; q < IH_NPRESETS && strcmp(val, ih_presets[q].name); q++)
                ;
            if (q == IH_NPRESETS)
                bench_die(prog, "unknown size '%s': expected test, small, medium or paper", val);
            p = &ih_presets[q];
        } else if (!strcmp(name, "--width")) {
            w = bench_parse_long(prog, name, val, 1, IH_MAX_DIM);
        } else if (!strcmp(name, "--height")) {
            h = bench_parse_long(prog, name, val, 1, IH_MAX_DIM);
        } else if (!strcmp(name, "--block")) {
            b = bench_parse_long(prog, name, val, 1, IH_MAX_DIM);
        } else if (!strcmp(name, "--bins")) {
            k = bench_parse_long(prog, name, val, 1, 256);
        } else if (!strcmp(name, "--reps")) {
            o->reps = (int)bench_parse_long(prog, name, val, 1, 1000);
        } else if (!strcmp(name, "--rects")) {
            o->rects = bench_parse_long(prog, name, val, 1, 1000000);
        } else if (!strcmp(name, "--seed")) {
            o->seed = (uint64_t)bench_parse_long(prog, name, val, 0, INT64_MAX);
        } else if (!strcmp(name, "--no-verify")) {
            o->verify = false;
        } else {
            bench_die(prog, "unknown option '%s' (try --help)", argv[i]);
        }
    }

    o->size = (w || h || b || k) ? "custom" : p->name;
    o->width = w ? w : p->width;
    o->height = h ? h : p->height;
    o->block = b ? b : p->block;
    o->bins = k ? (unsigned)k : IH_BINS;
    if (o->block > o->width || o->width % o->block)
        bench_die(prog, "block %ld does not divide the width %ld", o->block, o->width);
    if (o->block > o->height || o->height % o->block)
        bench_die(prog, "block %ld does not divide the height %ld", o->block, o->height);
    if ((double)o->block * (double)o->block * o->bins > (double)UINT32_MAX / 4)
        bench_die(prog, "block %ld is too large", o->block);
    o->nbx = o->width / o->block;
    o->nby = o->height / o->block;
    snprintf(o->params, sizeof o->params, "width=%ld,height=%ld,block=%ld,bins=%u", o->width,
             o->height, o->block, o->bins);
}

/* The image: a hash of the seed and the pixel's index (splitmix64's
 * finaliser), so that the check can recount any rectangle without it. */
static inline uint8_t ih_pixel(uint64_t seed, long width, long x, long y)
{
    uint64_t z = seed * 0x9e3779b97f4a7c15ULL + (uint64_t)y * (uint64_t)width + (uint64_t)x;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (uint8_t)((z ^ (z >> 31)) >> 56);
}

static inline unsigned ih_bin(uint8_t v, unsigned K)
{
    return ((unsigned)v * K) >> 8;
}

/*
 * The scans, written for a K known at compile time (ih_hscan and ih_vscan
 * instantiate them for the default 32, which gcc -O2 vectorises: the inner
 * loops have a constant trip count) and for any other K.
 *
 * hscan: row y of the block, pixel x: h[y][x] = h[y][x-1] + e(bin), where
 * h[y][-1] is the left neighbour's edge row (zero at the image's edge);
 * then the block's own edge gets h[y][b-1].
 */
static inline __attribute__((always_inline)) void
ih_hscan_k(uint32_t *restrict h, uint32_t *restrict edge, const uint32_t *restrict left,
           const uint8_t *restrict px, long b, unsigned K)
{
    for (long y = 0; y < b; y++) {
        uint32_t *row = h + y * b * K;
        const uint8_t *p = px + y * b;
        unsigned bin = ih_bin(p[0], K);
        if (left)
            for (unsigned k = 0; k < K; k++)
                row[k] = left[y * K + k] + (k == bin);
        else
            for (unsigned k = 0; k < K; k++)
                row[k] = (k == bin);
        for (long x = 1; x < b; x++) {
            uint32_t *cur = row + x * K;
            bin = ih_bin(p[x], K);
            for (unsigned k = 0; k < K; k++)
                cur[k] = cur[(long)k - (long)K] + (k == bin);
        }
        memcpy(edge + y * K, row + (b - 1) * K, K * sizeof *row);
    }
}

/* dst[i] += src[i] for n pixels of K bins; two restrict pointers, so that
 * gcc need not check at run time whether the rows overlap. */
static inline __attribute__((always_inline)) void
ih_add_row(uint32_t *restrict dst, const uint32_t *restrict src, long n, unsigned K)
{
    for (long x = 0; x < n; x++)
        for (unsigned k = 0; k < K; k++)
            dst[x * K + k] += src[x * K + k];
}

/* vscan: h[y] += h[y-1] down the block, h[-1] being the last row of the
 * block above (nothing to add at the image's edge). */
static inline __attribute__((always_inline)) void
ih_vscan_k(uint32_t *h, const uint32_t *top, long b, unsigned K)
{
    const long r = b * K;
    if (top)
        ih_add_row(h, top, b, K);
    for (long y = 1; y < b; y++)
        ih_add_row(h + y * r, h + (y - 1) * r, b, K);
}

struct ih_arg {
    struct ih_block blk;
    const uint32_t *nb;   /* hscan: left edge; vscan: row above; NULL at the image's edge */
    long x0, y0, b, width;
    unsigned K;
    uint64_t seed;
};

static void init_task(void *p)
{
    const struct ih_arg *a = p;
    for (long y = 0; y < a->b; y++)
        for (long x = 0; x < a->b; x++)
            a->blk.px[y * a->b + x] = ih_pixel(a->seed, a->width, a->x0 + x, a->y0 + y);
    memset(a->blk.h, 0, (size_t)a->b * (size_t)a->b * a->K * sizeof(uint32_t));
    memset(a->blk.edge, 0, (size_t)a->b * a->K * sizeof(uint32_t));
}

static void hscan_task(void *p)
{
    const struct ih_arg *a = p;
    if (a->K == IH_BINS)
        ih_hscan_k(a->blk.h, a->blk.edge, a->nb, a->blk.px, a->b, IH_BINS);
    else
        ih_hscan_k(a->blk.h, a->blk.edge, a->nb, a->blk.px, a->b, a->K);
}

static void vscan_task(void *p)
{
    const struct ih_arg *a = p;
    if (a->K == IH_BINS)
        ih_vscan_k(a->blk.h, a->nb, a->b, IH_BINS);
    else
        ih_vscan_k(a->blk.h, a->nb, a->b, a->K);
}

static struct ih_arg block_arg(const struct ih_image *im, long i, long j, const uint32_t *nb)
{
    const struct ih_opts *o = im->o;
    return (struct ih_arg){ .blk = im->blk[i * o->nbx + j], .nb = nb, .x0 = j * o->block,
                            .y0 = i * o->block, .b = o->block, .width = o->width, .K = o->bins,
                            .seed = o->seed };
}

static void spawn(const char *label, locus_task_fn fn, const struct ih_arg *a,
                  const locus_dep_t *deps, size_t n)
{
    locus_task_attr_t at = LOCUS_TASK_ATTR_INIT;
    at.label = label;   /* its name in traces and in the simulator's task models */
    int err = locus_spawn_attr(fn, a, sizeof *a, deps, n, &at);
    if (err < 0)
        die("locus_spawn", err);
}

/* One integral histogram: the cross-weave, then one taskwait. */
static void compute(const struct ih_image *im)
{
    const struct ih_opts *o = im->o;
    const size_t row = (size_t)o->block * o->bins * sizeof(uint32_t);

    for (long i = 0; i < o->nby; i++)
        for (long j = 0; j < o->nbx; j++) {
            const uint32_t *left = j ? im->blk[i * o->nbx + j - 1].edge : NULL;
            struct ih_arg a = block_arg(im, i, j, left);
            locus_dep_t d[4];
            size_t n = 0;
            d[n++] = LOCUS_IN(a.blk.px, im->px_bytes);
            if (left)
                d[n++] = LOCUS_IN(left, im->edge_bytes);
            d[n++] = LOCUS_OUT(a.blk.h, im->h_bytes);
            d[n++] = LOCUS_OUT(a.blk.edge, im->edge_bytes);
            spawn("hscan", hscan_task, &a, d, n);
        }
    for (long j = 0; j < o->nbx; j++)
        for (long i = 0; i < o->nby; i++) {
            const uint32_t *top = NULL;
            if (i) {
                const struct ih_block *up = &im->blk[(i - 1) * o->nbx + j];
                top = (const uint32_t *)((const char *)up->h + im->h_bytes - row);
            }
            struct ih_arg a = block_arg(im, i, j, top);
            locus_dep_t d[2];
            size_t n = 0;
            if (top)
                d[n++] = LOCUS_IN(top, row);
            d[n++] = LOCUS_INOUT(a.blk.h, im->h_bytes);
            spawn("vscan", vscan_task, &a, d, n);
        }
    int err = locus_taskwait();
    if (err < 0)
        die("locus_taskwait", err);
}

/* The integral histogram's bin k at (x, y); 0 left of or above the image. */
static uint32_t ih_at(const struct ih_image *im, long x, long y, unsigned k)
{
    const struct ih_opts *o = im->o;
    if (x < 0 || y < 0)
        return 0;
    const struct ih_block *b = &im->blk[(y / o->block) * o->nbx + x / o->block];
    return b->h[((y % o->block) * o->block + x % o->block) * o->bins + k];
}

static uint64_t ih_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/*
 * The check: for o->rects rectangles (the whole image, then random ones with
 * sides up to IH_MAX_RECT anywhere in the image), the four-corner lookup
 * against a direct count of the regenerated pixels.  1 equal, 0 not.
 */
static int verify(const struct ih_image *im)
{
    const struct ih_opts *o = im->o;
    uint64_t rng = o->seed ^ 0x5eed;
    uint64_t count[256];

    for (long r = 0; r < o->rects; r++) {
        long x0 = 0, y0 = 0, x1 = o->width - 1, y1 = o->height - 1;
        if (r) {
            long mw = o->width < IH_MAX_RECT ? o->width : IH_MAX_RECT;
            long mh = o->height < IH_MAX_RECT ? o->height : IH_MAX_RECT;
            long w = 1 + (long)(ih_rand(&rng) % (uint64_t)mw);
            long h = 1 + (long)(ih_rand(&rng) % (uint64_t)mh);
            x0 = (long)(ih_rand(&rng) % (uint64_t)(o->width - w + 1));
            y0 = (long)(ih_rand(&rng) % (uint64_t)(o->height - h + 1));
            x1 = x0 + w - 1;
            y1 = y0 + h - 1;
        }
        memset(count, 0, sizeof count);
        for (long y = y0; y <= y1; y++)
            for (long x = x0; x <= x1; x++)
                count[ih_bin(ih_pixel(o->seed, o->width, x, y), o->bins)]++;
        for (unsigned k = 0; k < o->bins; k++) {
            uint32_t got = ih_at(im, x1, y1, k) - ih_at(im, x0 - 1, y1, k) -
                           ih_at(im, x1, y0 - 1, k) + ih_at(im, x0 - 1, y0 - 1, k);
            if (got != (uint32_t)count[k]) {
                fprintf(stderr, "inthist: rectangle [%ld, %ld] x [%ld, %ld], bin %u: the integral "
                        "histogram gives %u, counting gives %llu\n", x0, x1, y0, y1, k, got,
                        (unsigned long long)count[k]);
                return 0;
            }
        }
    }
    return 1;
}

/*
 * A block's memory, never touched here: mmap gives fresh pages, placed by
 * the first task that writes them.  Under ASan it is malloc memory, so that
 * overruns are caught.  lazy (a simulated run, whose modelled bodies never
 * touch the image): MAP_NORESERVE, so that untouched memory costs nothing,
 * not even commit charge, and an mmap under ASan too; ih_free must be
 * given the same lazy.
 */
static void *ih_alloc(size_t bytes, bool lazy)
{
#ifdef __SANITIZE_ADDRESS__
    if (!lazy)
        return aligned_alloc(64, (bytes + 63) & ~(size_t)63);
#endif
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | (lazy ? MAP_NORESERVE : 0), -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void ih_free(void *p, size_t bytes, bool lazy)
{
#ifdef __SANITIZE_ADDRESS__
    if (!lazy) {
        free(p);
        return;
    }
#endif
    (void)lazy;
    munmap(p, bytes);
}

int main(int argc, char **argv)
{
    struct ih_opts o;
    parse_options(argc, argv, &o);
    const bool simulated = bench_simulated();   /* the image is never touched */
    if (simulated)
        o.verify = false;

    struct ih_image im = { .o = &o };
    const size_t b = (size_t)o.block;
    im.h_bytes = b * b * o.bins * sizeof(uint32_t);
    im.edge_bytes = b * o.bins * sizeof(uint32_t);
    im.px_bytes = b * b;
    im.bytes = im.h_bytes + im.edge_bytes + im.px_bytes;
    double need = (double)im.bytes * (double)(o.nbx * o.nby);
    double have = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    if (!simulated && have > 0 && need > 0.9 * have) {
        fprintf(stderr, "%s: %s needs %.1f GiB, this machine has %.1f GiB\n", argv[0], o.params,
                need / (1 << 30), have / (1 << 30));
        return 1;
    }

    int err = locus_init();
    if (err < 0)
        die("locus_init", err);
    im.blk = calloc((size_t)(o.nbx * o.nby), sizeof *im.blk);
    if (!im.blk)
        die("block table", -ENOMEM);
    for (long q = 0; q < o.nbx * o.nby; q++) {
        char *m = ih_alloc(im.bytes, simulated);
        if (!m)
            die("allocating the image", -ENOMEM);
        im.blk[q].h = (uint32_t *)m;
        im.blk[q].edge = (uint32_t *)(m + im.h_bytes);
        im.blk[q].px = (uint8_t *)(m + im.h_bytes + im.edge_bytes);
    }

    for (long i = 0; i < o.nby; i++)
        for (long j = 0; j < o.nbx; j++) {
            struct ih_arg a = block_arg(&im, i, j, NULL);
            locus_dep_t d[3] = { LOCUS_OUT(a.blk.h, im.h_bytes),
                                 LOCUS_OUT(a.blk.edge, im.edge_bytes),
                                 LOCUS_OUT(a.blk.px, im.px_bytes) };
            spawn("init", init_task, &a, d, 3);
        }
    if ((err = locus_taskwait()) < 0)
        die("locus_taskwait", err);
    (void)locus_reset_stats();

    double best = 0;
    for (int r = 0; r < o.reps; r++) {
        double t0 = bench_now();
        compute(&im);
        double t = bench_now() - t0;
        if (r == 0 || t < best)
            best = t;
    }

    int verified = o.verify ? verify(&im) : -1;
    if (simulated)
        printf("  check: not run (simulated: task bodies with a model do not run)\n");
    struct bench_result res = {
        .benchmark = "inthist", .size = o.size, .params = o.params, .seconds = best,
        .metric = (double)o.width * (double)o.height / best / 1e6, .metric_unit = "Mpixel/s",
        .verified = verified, .blas = "none", .impl = "locus",
    };
    bench_print(&res);

    if ((err = locus_finalize()) < 0)
        die("locus_finalize", err);
    for (long q = 0; q < o.nbx * o.nby; q++)
        ih_free(im.blk[q].h, im.bytes, simulated);
    free(im.blk);
    return verified == 0 ? 1 : 0;
}
