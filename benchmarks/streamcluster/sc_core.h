/*
 * sc_core.h - the PARSEC streamcluster algorithm (online k-median clustering
 * of a stream of points) with the blocks of points as Locus tasks.
 *
 * Algorithm: PARSEC streamcluster (Bienia, Kumar, Singh, Li, "The PARSEC
 * Benchmark Suite: Characterization and Architectural Implications",
 * PACT 2008), after O'Callaghan, Mishra, Meyerson, Guha, Motwani,
 * "Streaming-Data Algorithms for High-Quality Clustering", ICDE 2002.
 * For each chunk of the stream: pkmedian (facility-cost binary search around
 * pspeedy, the randomised initial solution, and pFL, local search by pgain
 * moves) to k1..k2 medians; the medians, weighted, become intermediate
 * centres, which are clustered the same way at the end.  The task version is
 * that of the OmpSs port (PARSECSs, Chasapis et al., ACM TACO 2015) used by
 * Caheny et al.: per-block hiz tasks; pspeedy with one task per block and
 * opened centre and a taskwait after each; pgain in three phases: per-block
 * gain tasks updating a shared accumulator with `concurrent` accesses, a
 * serial reduction, per-block tasks that move the points.
 *
 * Dependencies name a block's points (PARSEC's Point structs, as OmpSs names
 * points->p[k1:k2]) and pgain's switch flags; the first-touch tasks also
 * name the block's coordinates.  Per-block partial results (hiz, costs,
 * pgain's lower[] rows) go to one cache-line-padded slot per block that the
 * spawning thread reads only after a taskwait, so they need no dependency;
 * naming the whole partial array in every task, as OmpSs' concurrent(work_mem)
 * does, would make it the biggest dependency of every task at large sizes
 * and pull all of them to the node that holds it.  The `concurrent` access
 * stays on what is truly shared: one cache line of counters that the gain
 * tasks update with C11 atomics (integers, so the order does not matter).
 *
 * Determinism: every random number of the algorithm is drawn by the
 * spawning thread (one lrand48-compatible stream), the points come from a
 * second stream that each block's first-touch task enters at its own offset
 * (so the data does not depend on the block size either), and every
 * reduction stores one partial per block and sums the partials serially in
 * block order.  The same code with par = 0 calls each task body directly,
 * in spawn order: its results are bit-for-bit those of the task run.
 *
 * Differences from PARSEC: partial sums are per block, not per thread, so
 * the rounding depends on the block size (not on the thread count); the
 * medians are kept as a sorted list rather than found by scanning
 * is_center over all points in every pgain (same order, same arithmetic);
 * a chunk's coordinate pointers are reset when it is generated (PARSEC keeps
 * the previous chunk's shuffled ones); the algorithm's random stream is
 * separate from the data's; no output file (a hash of the final medians
 * stands for it); the count of points nearer each candidate is new.
 */
#ifndef SC_CORE_H
#define SC_CORE_H

#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <locus.h>

#define SC_SP 1     /* extra pspeedy tries before lowering the facility cost */
#define SC_ITER 3   /* pFL runs SC_ITER * k * ln k pgain moves per round */
#define SC_LINE 8   /* doubles per cache line: partials never share a line */

/* ------------------------------------------------------------ random numbers */

/* lrand48/srand48 (the generator PARSEC uses), with a state of its own and a
 * jump-ahead, so that each block's task can start at its offset. */
#define SC_LCG_A 0x5DEECE66DULL
#define SC_LCG_C 0xBULL
#define SC_LCG_MASK ((1ULL << 48) - 1)

typedef struct sc_rng {
    uint64_t x;
} sc_rng_t;

static inline void sc_rng_seed(sc_rng_t *r, long seed)
{
    r->x = ((((uint64_t)seed & 0xffffffffULL) << 16) | 0x330EULL) & SC_LCG_MASK;
}

static inline long sc_lrand(sc_rng_t *r)
{
    r->x = (SC_LCG_A * r->x + SC_LCG_C) & SC_LCG_MASK;
    return (long)(r->x >> 17);
}

/* Advances r by n numbers in O(log n): x -> A x + C with (A, C) = (a, c)^n. */
static inline void sc_rng_skip(sc_rng_t *r, uint64_t n)
{
    uint64_t A = 1, C = 0, a = SC_LCG_A, c = SC_LCG_C;
    while (n) {
        if (n & 1) {
            A = (A * a) & SC_LCG_MASK;
            C = (C * a + c) & SC_LCG_MASK;
        }
        c = (c * (a + 1)) & SC_LCG_MASK;
        a = (a * a) & SC_LCG_MASK;
        n >>= 1;
    }
    r->x = (A * r->x + C) & SC_LCG_MASK;
}

/* ------------------------------------------------------------ data */

/* PARSEC's Point.  shuffle() swaps these structs, coordinate pointers
 * included, as PARSEC does: after it a block's points have their coordinates
 * anywhere in the chunk (the remote reads the paper reports for this code). */
typedef struct sc_point {
    float *coord;
    long assign;  /* the median this point belongs to */
    float weight;
    float cost;   /* weight * squared distance to that median */
} sc_point_t;

typedef struct sc_points {
    sc_point_t *p;
    long num;
    int dim;
} sc_points_t;

/* What the algorithm keeps besides the points; scratch sized for cap points. */
typedef struct sc_ctx {
    int par;              /* 1: blocks are Locus tasks; 0: bodies called in order */
    long block;           /* points per block */
    long cap;             /* most points in one set (max of chunk and centres) */
    sc_rng_t rng;         /* the algorithm's draws; spawning thread only */
    unsigned char *sw;    /* pgain: point moves to the candidate (switch_membership) */
    unsigned char *mark;  /* is_center / is_a_median while listing medians */
    int *ctab[2];         /* median's point index -> slot (center_table) */
    double *gl_lower[2];  /* per slot: z + what closing that median saves */
    long *med;            /* the medians, ascending point index */
    long nmed;
    int *feasible;
    float *accw;          /* selectfeasible's running weights */
    double *part;         /* SC_LINE doubles per block: hiz and cost partials */
    double *work;         /* pgain rows, one per block */
    size_t work_cap;      /* doubles in work */
    unsigned long ngain;  /* pgain calls so far: picks ctab/gl_lower buffer */
    struct sc_shared *acc;/* pgain phase 1's shared accumulator */
    unsigned long long tasks;
    unsigned long long switching; /* sum over pgain calls of points nearer the candidate */
    unsigned long long moves;     /* pgain moves taken */
} sc_ctx_t;

/* Written by all gain tasks at once (LOCUS_CONCURRENT): its own cache line. */
struct sc_shared {
    _Alignas(64) atomic_long switching;
};

__attribute__((noreturn, cold)) static void sc_fail(const char *what, int err)
{
    fprintf(stderr, "streamcluster: %s: %s (%s)\n", what, locus_strerror(err),
            locus_error_message());
    exit(1);
}

__attribute__((noreturn, cold)) static void sc_oom(const char *what)
{
    fprintf(stderr, "streamcluster: out of memory allocating %s\n", what);
    exit(1);
}

static void *sc_alloc(size_t bytes, const char *what)
{
    /* Cache-line aligned so that per-block partials and rows own their lines;
     * pages are left untouched for the first-touch tasks to place. */
    size_t sz = (bytes + 63) & ~(size_t)63;
    void *p = aligned_alloc(64, sz ? sz : 64);
    if (!p)
        sc_oom(what);
    return p;
}

static void sc_free(void *p, size_t bytes)
{
    /* The directory must not believe that reused memory still holds this data. */
    if (p && bytes && locus_num_workers() > 0)
        locus_forget(p, bytes);
    free(p);
}

static void sc_ctx_init(sc_ctx_t *c, long cap, long block)
{
    long nb = (cap + block - 1) / block;
    memset(c, 0, sizeof *c);
    c->block = block;
    c->cap = cap;
    c->sw = sc_alloc((size_t)cap, "switch flags");
    c->mark = calloc((size_t)cap, 1);
    if (!c->mark)
        sc_oom("median marks");
    for (int i = 0; i < 2; i++) {
        c->ctab[i] = sc_alloc((size_t)cap * sizeof(int), "centre table");
        c->gl_lower[i] = sc_alloc((size_t)cap * sizeof(double), "gain table");
    }
    c->med = sc_alloc((size_t)cap * sizeof(long), "median list");
    c->feasible = sc_alloc((size_t)cap * sizeof(int), "feasible list");
    c->accw = sc_alloc((size_t)cap * sizeof(float), "weights");
    c->part = sc_alloc((size_t)nb * SC_LINE * sizeof(double), "partials");
    c->acc = sc_alloc(sizeof *c->acc, "accumulator");
    atomic_init(&c->acc->switching, 0);
}

static void sc_ctx_fini(sc_ctx_t *c)
{
    long nb = (c->cap + c->block - 1) / c->block;
    sc_free(c->sw, (size_t)c->cap);
    free(c->mark);
    for (int i = 0; i < 2; i++) {
        free(c->ctab[i]);
        free(c->gl_lower[i]);
    }
    free(c->med);
    free(c->feasible);
    free(c->accw);
    sc_free(c->part, (size_t)nb * SC_LINE * sizeof(double));
    sc_free(c->work, c->work_cap * sizeof(double));
    sc_free(c->acc, sizeof *c->acc);
    memset(c, 0, sizeof *c);
}

/* ------------------------------------------------------------ task bodies */

/* PARSEC's dist(): squared Euclidean distance, accumulated in float. */
static inline float sc_dist(const float *a, const float *b, int dim)
{
    float r = 0.0f;
    for (int i = 0; i < dim; i++)
        r += (a[i] - b[i]) * (a[i] - b[i]);
    return r;
}

/* One block of points and what a task body needs about it (copied at spawn). */
struct sc_blk {
    sc_point_t *p;           /* the block's first point */
    long n;                  /* points in the block */
    int dim;
    const float *ref;        /* coordinates of the reference point */
    long ref_idx;            /* and its index in the set */
    double *out;             /* this block's partial or pgain row */
    unsigned char *sw;       /* this block's switch flags */
    const int *ctab;
    const double *gl_lower;
    struct sc_shared *acc;
    long nmed;               /* pgain row: slots 0..nmed-1, cost at nmed */
    float *coords;           /* init: the block's coordinates */
    uint64_t rng;            /* init: generator state at its first number */
};

/* First-touch task: the block's points are generated (PARSEC's synthetic
 * stream: lrand48() / INT_MAX per coordinate) where they will live. */
static void sc_task_init(void *arg)
{
    const struct sc_blk *b = arg;
    sc_rng_t r = { b->rng };
    for (long i = 0; i < b->n; i++) {
        float *c = b->coords + (size_t)i * (size_t)b->dim;
        for (int d = 0; d < b->dim; d++)
            c[d] = (float)sc_lrand(&r) / (float)INT_MAX;
        b->p[i] = (sc_point_t){ .coord = c, .assign = 0, .weight = 1.0f, .cost = 0.0f };
    }
}

/* pkmedian: the block's share of hiz, the cost of one facility at point 0. */
static void sc_task_hiz(void *arg)
{
    const struct sc_blk *b = arg;
    double s = 0.0;
    for (long i = 0; i < b->n; i++)
        s += sc_dist(b->p[i].coord, b->ref, b->dim) * b->p[i].weight;
    b->out[0] = s;
}

/* pspeedy: every point starts assigned to the first point. */
static void sc_task_speedy_first(void *arg)
{
    const struct sc_blk *b = arg;
    for (long i = 0; i < b->n; i++) {
        float d = sc_dist(b->p[i].coord, b->ref, b->dim);
        b->p[i].cost = d * b->p[i].weight;
        b->p[i].assign = b->ref_idx;
    }
}

/* pspeedy: a centre opened at ref_idx takes the points it is nearer to. */
static void sc_task_speedy_open(void *arg)
{
    const struct sc_blk *b = arg;
    for (long i = 0; i < b->n; i++) {
        float d = sc_dist(b->ref, b->p[i].coord, b->dim);
        if (d * b->p[i].weight < b->p[i].cost) {
            b->p[i].cost = d * b->p[i].weight;
            b->p[i].assign = b->ref_idx;
        }
    }
}

/* pspeedy: the block's share of the assignment cost. */
static void sc_task_cost(void *arg)
{
    const struct sc_blk *b = arg;
    double s = 0.0;
    for (long i = 0; i < b->n; i++)
        s += b->p[i].cost;
    b->out[0] = s;
}

/* pgain phase 1: which points would move to candidate ref, what they save,
 * and for each median what closing it would save (lower[] in PARSEC). */
static void sc_task_gain(void *arg)
{
    const struct sc_blk *b = arg;
    double *row = b->out, cx = 0.0;
    long switching = 0;
    memset(row, 0, (size_t)(b->nmed + 1) * sizeof *row);
    for (long i = 0; i < b->n; i++) {
        float x_cost = sc_dist(b->p[i].coord, b->ref, b->dim) * b->p[i].weight;
        float cur = b->p[i].cost;
        if (x_cost < cur) {
            b->sw[i] = 1;
            switching++;
            cx += x_cost - cur;
        } else {
            b->sw[i] = 0;
            row[b->ctab[b->p[i].assign]] += cur - x_cost;
        }
    }
    row[b->nmed] = cx;
    /* Relaxed: the sum is read after the taskwait, which orders it. */
    atomic_fetch_add_explicit(&b->acc->switching, switching, memory_order_relaxed);
}

/* pgain phase 3: the move is taken; points that save, and every point of a
 * closing median, go to the candidate. */
static void sc_task_save(void *arg)
{
    const struct sc_blk *b = arg;
    for (long i = 0; i < b->n; i++) {
        int closing = b->gl_lower[b->ctab[b->p[i].assign]] > 0;
        if (b->sw[i] || closing) {
            b->p[i].cost = b->p[i].weight * sc_dist(b->p[i].coord, b->ref, b->dim);
            b->p[i].assign = b->ref_idx;
        }
    }
}

/* ------------------------------------------------------------ spawning */

static void sc_spawn(sc_ctx_t *c, locus_task_fn fn, struct sc_blk *b, const locus_dep_t *deps,
                     size_t ndeps)
{
    c->tasks++;
    if (!c->par) {
        fn(b);
        return;
    }
    int err = locus_spawn(fn, b, sizeof *b, deps, ndeps);
    if (err < 0)
        sc_fail("locus_spawn", err);
}

static void sc_wait(sc_ctx_t *c)
{
    if (!c->par)
        return;
    int err = locus_taskwait();
    if (err < 0)
        sc_fail("locus_taskwait", err);
}

static inline long sc_nblocks(const sc_ctx_t *c, long num)
{
    return (num + c->block - 1) / c->block;
}

/* Block k of a set: first point and count. */
static inline struct sc_blk sc_block(const sc_ctx_t *c, const sc_points_t *s, long k)
{
    long lo = k * c->block, n = s->num - lo < c->block ? s->num - lo : c->block;
    return (struct sc_blk){ .p = s->p + lo, .n = n, .dim = s->dim };
}

#define SC_META_IN(b) LOCUS_IN((b).p, (size_t)(b).n * sizeof(sc_point_t))
#define SC_META_INOUT(b) LOCUS_INOUT((b).p, (size_t)(b).n * sizeof(sc_point_t))

/*
 * Generates points [first, first + s->num) of the stream into s, whose
 * coordinates are coords: one first-touch task per block (LOCUS_OUT on its
 * points and coordinates), then a taskwait.
 */
static void sc_generate(sc_ctx_t *c, sc_points_t *s, float *coords, long seed, long first)
{
    for (long k = 0; k < sc_nblocks(c, s->num); k++) {
        struct sc_blk b = sc_block(c, s, k);
        sc_rng_t r;
        sc_rng_seed(&r, seed);
        sc_rng_skip(&r, (uint64_t)(first + k * c->block) * (uint64_t)s->dim);
        b.coords = coords + (size_t)k * (size_t)c->block * (size_t)s->dim;
        b.rng = r.x;
        locus_dep_t d[2] = { LOCUS_OUT(b.p, (size_t)b.n * sizeof(sc_point_t)),
                             LOCUS_OUT(b.coords, (size_t)b.n * (size_t)s->dim * sizeof(float)) };
        sc_spawn(c, sc_task_init, &b, d, 2);
    }
    sc_wait(c);
}

/* ------------------------------------------------------------ the algorithm */

/* Sum of the per-block partials, in block order (same result for any schedule). */
static double sc_sum_parts(const sc_ctx_t *c, long nb)
{
    double s = 0.0;
    for (long k = 0; k < nb; k++)
        s += c->part[k * SC_LINE];
    return s;
}

static void sc_shuffle(sc_ctx_t *c, sc_points_t *s)
{
    for (long i = 0; i < s->num - 1; i++) {
        long j = (sc_lrand(&c->rng) % (s->num - i)) + i;
        sc_point_t t = s->p[i];
        s->p[i] = s->p[j];
        s->p[j] = t;
    }
}

static void sc_intshuffle(sc_ctx_t *c, int *a, int len)
{
    for (int i = 0; i < len; i++) {
        int j = (int)(sc_lrand(&c->rng) % (len - i)) + i;
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* Randomised initial solution: open a centre at each point with probability
 * cost/z, in point order.  Returns z * k + the assignment cost. */
static float sc_pspeedy(sc_ctx_t *c, sc_points_t *s, float z, long *kcenter)
{
    long nb = sc_nblocks(c, s->num);
    locus_dep_t d[1];

    for (long k = 0; k < nb; k++) {
        struct sc_blk b = sc_block(c, s, k);
        b.ref = s->p[0].coord;
        b.ref_idx = 0;
        d[0] = SC_META_INOUT(b);
        sc_spawn(c, sc_task_speedy_first, &b, d, 1);
    }
    *kcenter = 1;
    sc_wait(c);

    for (long i = 1; i < s->num; i++) {
        int to_open = ((float)sc_lrand(&c->rng) / (float)INT_MAX) < (s->p[i].cost / z);
        if (!to_open)
            continue;
        (*kcenter)++;
        for (long k = 0; k < nb; k++) {
            struct sc_blk b = sc_block(c, s, k);
            b.ref = s->p[i].coord;
            b.ref_idx = i;
            d[0] = SC_META_INOUT(b);
            sc_spawn(c, sc_task_speedy_open, &b, d, 1);
        }
        sc_wait(c); /* the next decision reads the costs */
    }

    for (long k = 0; k < nb; k++) {
        struct sc_blk b = sc_block(c, s, k);
        b.out = &c->part[k * SC_LINE];
        d[0] = SC_META_IN(b);
        sc_spawn(c, sc_task_cost, &b, d, 1);
    }
    sc_wait(c);
    return (float)(z * (double)*kcenter + sc_sum_parts(c, nb));
}

static void sc_work_reserve(sc_ctx_t *c, size_t doubles)
{
    if (doubles <= c->work_cap)
        return;
    size_t cap = c->work_cap ? c->work_cap : 1024;
    while (cap < doubles)
        cap *= 2;
    sc_free(c->work, c->work_cap * sizeof(double)); /* no task holds it: pgain waited */
    c->work = sc_alloc(cap * sizeof(double), "pgain rows");
    c->work_cap = cap;
}

/*
 * pgain: the cost of opening a facility at point x and closing the medians
 * whose points would rather go to x.  If negative, the move is made and its
 * saving returned; otherwise 0.
 *
 * Phase 3 (the move) is not waited for: the next pgain's phase 1 reads the
 * blocks after it through the dependencies.  Its tables alternate between
 * two buffers, so the serial part of the next pgain never writes what
 * phase-3 tasks still read; the next pgain's taskwait completes them before
 * the one after reuses the buffer.
 */
static double sc_pgain(sc_ctx_t *c, long x, sc_points_t *s, double z, long *numcenters)
{
    int par = (int)(c->ngain++ & 1);
    int *ctab = c->ctab[par];
    double *lower = c->gl_lower[par];
    long K = c->nmed, nb = sc_nblocks(c, s->num);
    size_t stride = (size_t)(K + 1 + SC_LINE - 1) / SC_LINE * SC_LINE;
    locus_dep_t d[3];

    for (long j = 0; j < K; j++)
        ctab[c->med[j]] = (int)j;
    sc_work_reserve(c, (size_t)nb * stride);

    /* Phase 3 tasks of the previous pgain may be writing cost and assign of
     * point x; they never write its coordinate pointer, which is read here. */
    const float *xcoord = s->p[x].coord;

    /* Phase 1: per-block gains into per-block rows; all blocks update the
     * shared counters together (OmpSs' concurrent access). */
    for (long k = 0; k < nb; k++) {
        struct sc_blk b = sc_block(c, s, k);
        b.ref = xcoord;
        b.ref_idx = x;
        b.sw = c->sw + k * c->block;
        b.ctab = ctab;
        b.out = c->work + (size_t)k * stride;
        b.nmed = K;
        b.acc = c->acc;
        d[0] = SC_META_IN(b);
        d[1] = LOCUS_OUT(b.sw, (size_t)b.n);
        d[2] = LOCUS_CONCURRENT(c->acc, sizeof *c->acc);
        sc_spawn(c, sc_task_gain, &b, d, 3);
    }
    sc_wait(c);
    c->switching += (unsigned long long)atomic_exchange_explicit(&c->acc->switching, 0,
                                                                 memory_order_relaxed);

    /* Phase 2, serial: rows summed in block order. */
    double cost_x = 0.0;
    for (long j = 0; j < K; j++)
        lower[j] = 0.0;
    for (long k = 0; k < nb; k++) {
        const double *row = c->work + (size_t)k * stride;
        cost_x += row[K];
        for (long j = 0; j < K; j++)
            lower[j] += row[j];
    }
    long to_close = 0;
    for (long j = 0; j < K; j++) {
        double low = z + lower[j];
        lower[j] = low;
        if (low > 0) {
            ++to_close;
            cost_x -= low;
        }
    }
    double gl_cost = z + cost_x;
    if (!(gl_cost < 0))
        return 0.0;

    /* Phase 3: move the points. */
    for (long k = 0; k < nb; k++) {
        struct sc_blk b = sc_block(c, s, k);
        b.ref = xcoord;
        b.ref_idx = x;
        b.sw = c->sw + k * c->block;
        b.ctab = ctab;
        b.gl_lower = lower;
        d[0] = SC_META_INOUT(b);
        d[1] = LOCUS_IN(b.sw, (size_t)b.n);
        sc_spawn(c, sc_task_save, &b, d, 2);
    }

    /* Close the medians that lose, open x, keep the list sorted. */
    long m = 0, at;
    for (long j = 0; j < K; j++)
        if (!(lower[j] > 0))
            c->med[m++] = c->med[j];
    for (at = 0; at < m && c->med[at] < x; at++)
        ;
    if (at == m || c->med[at] != x) {
        memmove(&c->med[at + 1], &c->med[at], (size_t)(m - at) * sizeof c->med[0]);
        c->med[at] = x;
        m++;
    }
    c->nmed = m;
    c->moves++;
    *numcenters = *numcenters + 1 - to_close;
    return -gl_cost;
}

/* Local search for facility location from a (reasonable) solution of cost
 * cost: rounds of iter pgain moves over the shuffled feasible points, until
 * a round improves the cost by less than e. */
static float sc_pfl(sc_ctx_t *c, sc_points_t *s, int numfeasible, float z, long *k,
                    double cost, long iter, float e)
{
    double change = cost;
    while (change / cost > 1.0 * e) {
        change = 0.0;
        sc_intshuffle(c, c->feasible, numfeasible);
        for (long i = 0; i < iter; i++)
            change += sc_pgain(c, c->feasible[i % numfeasible], s, z, k);
        cost -= change;
    }
    return (float)cost;
}

/* Candidate medians: ITER * kmin * ln kmin points drawn by weight. */
static int sc_selectfeasible(sc_ctx_t *c, sc_points_t *s, long kmin)
{
    int numfeasible = (int)s->num;
    if (numfeasible > (SC_ITER * kmin * log((double)kmin)))
        numfeasible = (int)(SC_ITER * kmin * log((double)kmin));
    if (numfeasible == s->num) {
        for (int i = 0; i < numfeasible; i++)
            c->feasible[i] = i;
        return numfeasible;
    }
    float *acc = c->accw;
    acc[0] = s->p[0].weight;
    for (long i = 1; i < s->num; i++)
        acc[i] = acc[i - 1] + s->p[i].weight;
    float total = acc[s->num - 1];
    for (int i = 0; i < numfeasible; i++) {
        float w = (sc_lrand(&c->rng) / (float)INT_MAX) * total;
        long l = 0, r = s->num - 1;
        if (acc[0] > w) {
            c->feasible[i] = 0;
            continue;
        }
        while (l + 1 < r) {
            long m = (l + r) / 2;
            if (acc[m] > w)
                r = m;
            else
                l = m;
        }
        c->feasible[i] = (int)r;
    }
    return numfeasible;
}

/* The medians are the points some point is assigned to (is_center). */
static void sc_list_medians(sc_ctx_t *c, const sc_points_t *s)
{
    for (long i = 0; i < s->num; i++)
        c->mark[s->p[i].assign] = 1;
    c->nmed = 0;
    for (long i = 0; i < s->num; i++)
        if (c->mark[i]) {
            c->med[c->nmed++] = i;
            c->mark[i] = 0;
        }
}

/* Approximate k-median of s with kmin..kmax medians; returns its cost. */
static float sc_pkmedian(sc_ctx_t *c, sc_points_t *s, long kmin, long kmax, long *kfinal)
{
    long nb = sc_nblocks(c, s->num), k = 0;
    double cost, hiz, loz, z;
    locus_dep_t d[1];

    for (long b = 0; b < nb; b++) {
        struct sc_blk blk = sc_block(c, s, b);
        blk.ref = s->p[0].coord;
        blk.out = &c->part[b * SC_LINE];
        d[0] = SC_META_IN(blk);
        sc_spawn(c, sc_task_hiz, &blk, d, 1);
    }
    sc_wait(c);
    hiz = sc_sum_parts(c, nb);
    loz = 0.0;
    z = (hiz + loz) / 2.0;

    if (s->num <= kmax) { /* every point its own median */
        for (long i = 0; i < s->num; i++) {
            s->p[i].assign = i;
            s->p[i].cost = 0;
        }
        *kfinal = s->num;
        return 0.0f;
    }

    sc_shuffle(c, s);
    cost = sc_pspeedy(c, s, (float)z, &k);
    int i = 0;
    while (k < kmin && i < SC_SP) { /* SC_SP more chances to get kmin */
        cost = sc_pspeedy(c, s, (float)z, &k);
        i++;
    }
    while (k < kmin) { /* still too few: facilities are too expensive */
        if (i >= SC_SP) {
            hiz = z;
            z = (hiz + loz) / 2.0;
            i = 0;
        }
        sc_shuffle(c, s);
        cost = sc_pspeedy(c, s, (float)z, &k);
        i++;
    }

    int numfeasible = sc_selectfeasible(c, s, kmin);
    sc_list_medians(c, s);
    long iter = (long)(SC_ITER * kmax * log((double)kmax));

    for (;;) { /* binary search on the facility cost z */
        cost = sc_pfl(c, s, numfeasible, (float)z, &k, cost, iter, 0.1f);
        if ((k <= 1.1 * kmax && k >= 0.9 * kmin) || (k <= kmax + 2 && k >= kmin - 2))
            cost = sc_pfl(c, s, numfeasible, (float)z, &k, cost, iter, 0.001f);
        if (k > kmax) { /* facilities too cheap */
            loz = z;
            z = (hiz + loz) / 2.0;
            cost += (z - loz) * k;
        }
        if (k < kmin) { /* facilities too expensive */
            hiz = z;
            z = (hiz + loz) / 2.0;
            cost += (z - hiz) * k;
        }
        if ((k <= kmax && k >= kmin) || loz >= 0.999 * hiz)
            break;
    }
    sc_wait(c); /* the last pgain's moves */
    *kfinal = k;
    return (float)cost;
}

/* Each median becomes the weighted mean of its points (serial, as PARSEC). */
static void sc_contcenters(sc_points_t *s)
{
    for (long i = 0; i < s->num; i++) {
        sc_point_t *m = &s->p[s->p[i].assign];
        if (s->p[i].assign == i)
            continue;
        float rel = m->weight + s->p[i].weight;
        rel = s->p[i].weight / rel;
        for (int d = 0; d < s->dim; d++) {
            m->coord[d] *= 1.0f - rel;
            m->coord[d] += s->p[i].coord[d] * rel;
        }
        m->weight += s->p[i].weight;
    }
}

/* Number of medians of s (points some point is assigned to); marks them. */
static long sc_mark_medians(sc_ctx_t *c, const sc_points_t *s)
{
    long n = 0;
    for (long i = 0; i < s->num; i++) {
        n += !c->mark[s->p[i].assign];
        c->mark[s->p[i].assign] = 1;
    }
    return n;
}

/* ------------------------------------------------------------ the stream */

typedef struct sc_params {
    long k1, k2, dim, n, chunk, centres;
    long seed;
} sc_params_t;

/* The buffers of one run: a chunk of points, the intermediate centres. */
typedef struct sc_data {
    sc_points_t pts;
    float *coords;
    sc_points_t ctr;
    float *ccoords;
} sc_data_t;

typedef struct sc_result {
    double final_cost;     /* cost of the final clustering of the centres */
    double chunk_costs;    /* sum of the chunks' clustering costs */
    long kfinal;
    long ncentres;         /* intermediate centres */
    long chunks;
    uint64_t hash;         /* final medians: weights and coordinates */
    unsigned long long moves;     /* pgain moves taken */
    unsigned long long switching; /* points nearer a candidate, over all pgain calls */
} sc_result_t;

static uint64_t sc_hash(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL; /* FNV-1a */
    return h;
}

/* Returns 0, or -1 when the intermediate centres do not fit. */
static int sc_stream(sc_ctx_t *c, const sc_params_t *pa, sc_data_t *dt, sc_result_t *res)
{
    sc_rng_seed(&c->rng, pa->seed + 1);
    memset(res, 0, sizeof *res);
    res->moves = c->moves;
    res->switching = c->switching;
    dt->ctr.num = 0;
    dt->ctr.dim = (int)pa->dim;
    for (long i = 0; i < pa->centres; i++) /* the previous run shuffled them */
        dt->ctr.p[i].coord = dt->ccoords + (size_t)i * (size_t)pa->dim;

    for (long first = 0; first < pa->n; first += dt->pts.num) {
        long kfinal;
        dt->pts.num = pa->n - first < pa->chunk ? pa->n - first : pa->chunk;
        dt->pts.dim = (int)pa->dim;
        sc_generate(c, &dt->pts, dt->coords, pa->seed, first);
        res->chunk_costs += sc_pkmedian(c, &dt->pts, pa->k1, pa->k2, &kfinal);
        sc_contcenters(&dt->pts);

        /* copycenters */
        long nmed = sc_mark_medians(c, &dt->pts);
        if (dt->ctr.num + nmed > pa->centres) {
            memset(c->mark, 0, (size_t)dt->pts.num);
            fprintf(stderr, "streamcluster: %ld intermediate centres do not fit in --centres %ld\n",
                    dt->ctr.num + nmed, pa->centres);
            return -1;
        }
        for (long i = 0; i < dt->pts.num; i++) {
            if (!c->mark[i])
                continue;
            c->mark[i] = 0;
            sc_point_t *q = &dt->ctr.p[dt->ctr.num];
            memcpy(q->coord, dt->pts.p[i].coord, (size_t)pa->dim * sizeof(float));
            q->weight = dt->pts.p[i].weight;
            dt->ctr.num++;
        }
        res->chunks++;
    }

    res->ncentres = dt->ctr.num;
    res->final_cost = sc_pkmedian(c, &dt->ctr, pa->k1, pa->k2, &res->kfinal);
    sc_contcenters(&dt->ctr);

    uint64_t h = 0xcbf29ce484222325ULL;
    sc_mark_medians(c, &dt->ctr);
    for (long i = 0; i < dt->ctr.num; i++) {
        if (!c->mark[i])
            continue;
        c->mark[i] = 0;
        h = sc_hash(h, &dt->ctr.p[i].weight, sizeof(float));
        h = sc_hash(h, dt->ctr.p[i].coord, (size_t)pa->dim * sizeof(float));
    }
    res->hash = h;
    res->moves = c->moves - res->moves;
    res->switching = c->switching - res->switching;
    return 0;
}

#endif /* SC_CORE_H */
