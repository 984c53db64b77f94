/*
 * granularity_common.h - everything the METG benchmark's programs share:
 * the calibrated compute kernel, the task graphs of the seven patterns, the
 * task body, verification, options and output.  granularity.c spawns the
 * graphs on Locus (locus_spawn with locus_dep_t on the cells),
 * granularity_omp.c with #pragma omp task depend on the same cells (built by
 * gcc for libgomp and liblocus-gomp, by clang for LLVM's libomp); only the
 * spawn call differs, so that the programs differ only in the runtime.
 *
 * Minimum effective task granularity (METG) after Slaughter et al., "Task
 * Bench: A Parameterized Benchmark for Evaluating Parallel Runtime
 * Performance", SC'20: for each pattern the programs sweep the task body
 * from about 1 ms down to 100 ns and report the work throughput at each
 * size; benchmarks/granularity/metg turns the throughputs of all runtimes
 * into efficiencies and METG(50%).
 *
 * Graphs (P = workers; a task is (t, x), step t, point x; cells are one
 * cache line each and carry a 64-bit value from task to task):
 *   independent    4P tasks a step, no dependencies
 *   stencil_1d_1x  width P: (t,x) reads (t-1, x-1..x+1) (clipped at the
 *                  ends, as Task Bench's stencil_1d), writes (t,x)
 *   stencil_1d_4x  the same, width 4P
 *   nearest_r3     width max(4P, 8), reads the 3 points around x at t-1,
 *   nearest_r5     the 5 points, wrapping at the ends (every task has
 *                  exactly r inputs, unlike the clipped stencil)
 *   fanin_tree     rounds of a binary reduction over 4P leaves: each leaf
 *                  updates its cell (inout), each of the 4P-1 inner nodes
 *                  reads its two children; rounds overlap where the
 *                  dependencies allow
 *   wavefront      width 4P, (t,x) reads (t, x-1) and updates (t-1, x):
 *                  2-D dependencies, parallelism along anti-diagonals
 * Stencil and nearest keep two rows of cells (step parity), so that a
 * task's inputs are the previous step's values; the runtimes order the
 * writes after the earlier reads (write-after-read).
 *
 * Verification: every task mixes its inputs, t and x into a seed, runs the
 * kernel from it and writes the result to its output cell and adds it to
 * its own slot (a cache line of its own: with its at most 5 input cells and
 * its output cell, a task touches at most 7 lines).  The kernel is a 64-bit LCG, so n iterations from s are
 * A_n * s + C_n, computable in O(log n): the reference replays the graph
 * serially at no kernel cost and checks every slot (a skipped task leaves
 * 0, a duplicated one 2y) and every final cell (a task run before its
 * inputs were written reads wrong values).
 *
 * Two shapes (--shape): ours, every measurement in one process after a
 * warm-up (gran_run_all below), and master, one measurement a process from
 * before the runtime's first parallel region (granularity_master.h).
 *
 * Header-only: each program is built from one .c file.
 */
#ifndef GRANULARITY_COMMON_H
#define GRANULARITY_COMMON_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/bench.h"

enum gran_pattern {
    GP_INDEPENDENT, GP_STENCIL_1X, GP_STENCIL_4X, GP_NEAREST_R3, GP_NEAREST_R5,
    GP_FANIN, GP_WAVEFRONT, GP_COUNT
};

static const char *const gran_pattern_name[GP_COUNT] = {
    "independent", "stencil_1d_1x", "stencil_1d_4x", "nearest_r3", "nearest_r5",
    "fanin_tree", "wavefront",
};

#define GRAN_MAX_IN 5              /* inputs of a task besides its output cell */
#define GRAN_MAX_GRAINS 32
#define GRAN_MIN_STEPS 16          /* a graph has at least this many steps (rounds) */
#define GRAN_WARMUP_TASKS 2000L

/* The default sweep: 1-2-5 steps from 1 ms down to 100 ns. */
static const long gran_default_grains[] = {
    1000000, 500000, 200000, 100000, 50000, 20000, 10000, 5000, 2000, 1000, 500, 200, 100,
};
static const long gran_quick_grains[] = { 100000, 10000, 1000, 100 };

/* Knuth's MMIX LCG: x -> A x + C (mod 2^64). */
#define GRAN_LCG_A 6364136223846793005ULL
#define GRAN_LCG_C 1442695040888963407ULL

/* One dependency object a cache line, so that the runtimes track disjoint
 * lines and no two tasks' cells share one. */
struct gran_cell {
    _Alignas(64) uint64_t v;
};

/* A task's own slot, a line each too: tasks running side by side on
 * different workers never write one line (false sharing would be the
 * benchmark's cost, not the runtime's). */
struct gran_slot {
    _Alignas(64) uint64_t v;
};

/*
 * The kernel: n dependent LCG steps in registers, no memory access.  Written
 * in assembly on x86-64 so that gcc and clang run the very same loop (a
 * different loop would give the two builds different task sizes for one
 * iteration count): imul + add, about 4 cycles an iteration.
 */
__attribute__((noinline)) static uint64_t gran_kernel(uint64_t x, uint64_t n)
{
    if (n == 0)
        return x;
#if defined(__x86_64__)
    uint64_t a = GRAN_LCG_A, c = GRAN_LCG_C;
    __asm__ volatile("1:\n\t"
                     "imulq %[a], %[x]\n\t"
                     "addq %[c], %[x]\n\t"
                     "decq %[n]\n\t"
                     "jnz 1b"
                     : [x] "+r"(x), [n] "+r"(n)
                     : [a] "r"(a), [c] "r"(c)
                     : "cc");
#else
    for (; n; n--) {
        x = x * GRAN_LCG_A + GRAN_LCG_C;
        __asm__ volatile("" : "+r"(x));   /* keep it a loop */
    }
#endif
    return x;
}

/* n kernel steps as one affine map: kernel(s, n) = a * s + c. */
static void gran_jump(uint64_t n, uint64_t *a_out, uint64_t *c_out)
{
    uint64_t a = 1, c = 0, pa = GRAN_LCG_A, pc = GRAN_LCG_C;
    for (; n; n >>= 1) {
        if (n & 1) {         /* (pa,pc) after (a,c) */
            a = pa * a;
            c = pa * c + pc;
        }
        pc = pa * pc + pc;   /* (pa,pc) twice */
        pa = pa * pa;
    }
    *a_out = a;
    *c_out = c;
}

static inline uint64_t gran_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 29);
}

/* Kernel iterations per microsecond: the best of 25 timings of >= 2 ms each
 * (short and many, so that on a shared machine some run without being
 * preempted: the noise only ever slows the kernel down). */
static double gran_calibrate(void)
{
    uint64_t n = 1000, x = 1;
    double dt;
    for (;;) {
        double t0 = bench_now();
        x = gran_kernel(x, n);
        dt = bench_now() - t0;
        if (dt >= 0.002)
            break;
        n *= dt > 0.0002 ? (uint64_t)(0.0024 / dt) + 1 : 10;
    }
    double best = dt;
    for (int i = 0; i < 25; i++) {
        double t0 = bench_now();
        x = gran_kernel(x, n);
        dt = bench_now() - t0;
        if (dt < best)
            best = dt;
    }
    __asm__ volatile("" ::"r"(x));
    return (double)n / (best * 1e6);
}

/* ---------------------------------------------------------------- graphs */

struct gran_graph {
    enum gran_pattern p;
    int width;             /* points a step (leaves of the fan-in tree) */
    int per_step;          /* tasks a step */
    long steps;
    long tasks;            /* steps * per_step */
    int ncells;
    uint64_t iters;        /* kernel iterations a task */
    struct gran_cell *cells;
    struct gran_slot *slots;   /* one a task, in spawn order */
};

/* One task as the spawner sees it and the body gets it (copied). */
struct gran_task {
    int32_t in[GRAN_MAX_IN];   /* cells read, not written */
    int32_t nin;
    int32_t out;               /* cell written, -1 for none */
    int32_t out_read;          /* 1: out is read too (inout) */
    int32_t x;
    int64_t t;
    int64_t idx;               /* slot */
    struct gran_cell *cells;
    struct gran_slot *slots;
    uint64_t iters;
};

static int gran_width(enum gran_pattern p, int workers)
{
    switch (p) {
    case GP_STENCIL_1X:
        return workers;
    case GP_NEAREST_R3:
    case GP_NEAREST_R5:
        return 4 * workers > 8 ? 4 * workers : 8;
    default:
        return 4 * workers;
    }
}

/* Fills *g for pattern p at about `tasks` tasks (whole steps, at least
 * GRAN_MIN_STEPS); 0 or -ENOMEM. */
static int gran_graph_init(struct gran_graph *g, enum gran_pattern p, int workers, long tasks,
                           uint64_t iters)
{
    memset(g, 0, sizeof *g);
    g->p = p;
    g->width = gran_width(p, workers);
    g->per_step = p == GP_FANIN ? 2 * g->width - 1 : g->width;
    g->steps = (tasks + g->per_step - 1) / g->per_step;
    if (g->steps < GRAN_MIN_STEPS)
        g->steps = GRAN_MIN_STEPS;
    g->tasks = g->steps * g->per_step;
    g->iters = iters;
    switch (p) {
    case GP_INDEPENDENT: g->ncells = 1; break;
    case GP_FANIN: g->ncells = 2 * g->width - 1; break;
    case GP_WAVEFRONT: g->ncells = g->width; break;
    default: g->ncells = 2 * g->width; break;
    }
    g->cells = aligned_alloc(64, (size_t)g->ncells * sizeof *g->cells);
    g->slots = aligned_alloc(64, (size_t)g->tasks * sizeof *g->slots);
    if (!g->cells || !g->slots) {
        free(g->cells);
        free(g->slots);
        return -ENOMEM;
    }
    return 0;
}

static void gran_graph_free(struct gran_graph *g)
{
    free(g->cells);
    free(g->slots);
    g->cells = NULL;
    g->slots = NULL;
}

static inline uint64_t gran_cell_init(int i)
{
    return gran_mix(0x6c6f637573ULL, (uint64_t)i);
}

/* Cells and slots as before any task ran. */
static void gran_graph_reset(struct gran_graph *g)
{
    for (int i = 0; i < g->ncells; i++)
        g->cells[i].v = gran_cell_init(i);
    memset(g->slots, 0, (size_t)g->tasks * sizeof *g->slots);
}

/* Inlined by every compiler: gcc inlines these two of its own accord and
 * clang does not, which cost the clang builds (libomp, liblocus-omp)
 * about 60 instructions a task of the program's own, outside the runtime
 * being measured. */
#define GRAN_INLINE static inline __attribute__((always_inline))

/* The k-th task of step t (k < per_step), in the order it is spawned. */
GRAN_INLINE void gran_task_at(const struct gran_graph *g, long t, int k, struct gran_task *a)
{
    const int w = g->width;
    a->nin = 0;
    a->out = -1;
    a->out_read = 0;
    a->x = k;
    a->t = t;
    a->idx = t * g->per_step + k;
    a->cells = g->cells;
    a->slots = g->slots;
    a->iters = g->iters;
    const int cur = (int)(t & 1) * w, prev = w - cur;   /* row offsets by step parity */
    switch (g->p) {
    case GP_INDEPENDENT:
        break;
    case GP_STENCIL_1X:
    case GP_STENCIL_4X:
        for (int x = k - 1; x <= k + 1; x++)
            if (x >= 0 && x < w)
                a->in[a->nin++] = prev + x;
        a->out = cur + k;
        break;
    case GP_NEAREST_R3:
    case GP_NEAREST_R5: {
        int r = g->p == GP_NEAREST_R3 ? 3 : 5;
        for (int d = -(r - 1) / 2; d <= r / 2; d++)
            a->in[a->nin++] = prev + (k + d + w) % w;
        a->out = cur + k;
        break;
    }
    case GP_FANIN:
        /* Heap layout of 2w-1 nodes: leaves w-1..2w-2 first, then the inner
         * nodes w-2..0 (children before parents). */
        if (k < w) {
            a->out = w - 1 + k;
            a->out_read = 1;
        } else {
            int i = w - 2 - (k - w);
            a->in[a->nin++] = 2 * i + 1;
            a->in[a->nin++] = 2 * i + 2;
            a->out = i;
        }
        break;
    case GP_WAVEFRONT:
        if (k > 0)
            a->in[a->nin++] = k - 1;
        a->out = k;
        a->out_read = 1;
        break;
    case GP_COUNT:
        break;
    }
}

static inline uint64_t gran_seed(const struct gran_task *a, const uint64_t *vals, size_t stride)
{
    uint64_t s = gran_mix((uint64_t)a->t, (uint64_t)a->x);
    for (int i = 0; i < a->nin; i++)
        s = gran_mix(s, *(const uint64_t *)((const char *)vals + (size_t)a->in[i] * stride));
    if (a->out_read)
        s = gran_mix(s, *(const uint64_t *)((const char *)vals + (size_t)a->out * stride));
    return s;
}

/* The task body, the same for every runtime. */
GRAN_INLINE void gran_body(void *arg)
{
    const struct gran_task *a = arg;
    uint64_t y = gran_kernel(gran_seed(a, &a->cells[0].v, sizeof a->cells[0]), a->iters);
    if (a->out >= 0)
        a->cells[a->out].v = y;
    a->slots[a->idx].v += y;
}

/*
 * Replays the graph serially with the kernel in closed form: returns the
 * number of slots and cells that differ from what the run left, and the
 * checksum (sum of every task's result) in *sum.
 */
static long gran_verify(const struct gran_graph *g, uint64_t *sum)
{
    uint64_t ja, jc, *ref = malloc((size_t)g->ncells * sizeof *ref);
    long bad = 0;
    if (!ref)
        return -1;
    gran_jump(g->iters, &ja, &jc);
    for (int i = 0; i < g->ncells; i++)
        ref[i] = gran_cell_init(i);
    *sum = 0;
    for (long t = 0; t < g->steps; t++)
        for (int k = 0; k < g->per_step; k++) {
            struct gran_task a;
            gran_task_at(g, t, k, &a);
            uint64_t y = ja * gran_seed(&a, ref, sizeof *ref) + jc;
            if (a.out >= 0)
                ref[a.out] = y;
            bad += g->slots[a.idx].v != y;
            *sum += y;
        }
    for (int i = 0; i < g->ncells; i++)
        bad += g->cells[i].v != ref[i];
    free(ref);
    return bad;
}

/* ---------------------------------------------------------------- options */

enum gran_fault { GF_NONE, GF_SKIP, GF_DUP };

/* How a graph is spawned and timed.  GS_OURS: one program run measures
 * every (pattern, grain), each graph spawned by one thread (Locus's initial
 * thread, OpenMP's single) and ended by a taskwait, after an untimed
 * warm-up.  GS_MASTER: the shape of an independent OpenMP task benchmark
 * (issue 28): one measurement a process, timed from before the runtime's
 * first parallel region to after its closing barrier, the master spawning
 * step by step; granularity_master.h. */
enum gran_shape { GS_OURS, GS_MASTER };

struct gran_opts {
    bool on[GP_COUNT];
    long grains[GRAN_MAX_GRAINS];   /* ns, as given */
    int ngrains;
    long budget_ms;                 /* body time a worker, per measurement */
    long max_tasks;
    double iters_per_us;            /* 0: calibrate */
    bool calibrate_only;
    bool quick;
    enum gran_fault fault;
    enum gran_shape shape;
};

static void gran_usage(FILE *f, const char *prog)
{
    fprintf(f,
            "usage: %s [options]\n"
            "Throughput of task graphs whose tasks run a calibrated compute kernel, for task\n"
            "bodies from 1 ms down to 100 ns (one RESULT line per pattern and body size);\n"
            "benchmarks/granularity/metg runs it on every runtime and computes METG.\n"
            "  --pattern P       independent | stencil_1d_1x | stencil_1d_4x | nearest_r3 |\n"
            "                    nearest_r5 | fanin_tree | wavefront | all (comma list or\n"
            "                    repeated; default all)\n"
            "  --grain NS,...    task body sizes in ns, 10..10000000 (default 1-2-5 steps\n"
            "                    from 1000000 to 100)\n"
            "  --budget-ms B     body time per worker per measurement (default 20)\n"
            "  --max-tasks N     at most N tasks per measurement (default 10000)\n"
            "  --iters-per-us F  kernel speed (as --calibrate prints); default: calibrate\n"
            "  --calibrate       print 'CALIBRATION iters_per_us=F' and exit\n"
            "  --quick           grains 100000,10000,1000,100, budget 2 ms, 5000 tasks\n"
            "                    at most (a smoke test; explicit options win)\n"
            "  --fault skip|dup  spawn one task fewer or one twice: verification must fail\n"
            "  --shape S         ours (default): every pattern and size in this process,\n"
            "                    one spawning thread (single), a taskwait a graph, after a\n"
            "                    warm-up; master: one measurement a process, timed from\n"
            "                    before the first parallel region (Locus: locus_init) to\n"
            "                    after its closing barrier, the master thread spawning\n"
            "                    step by step (several sizes or patterns: this program\n"
            "                    runs itself once for each)\n"
            "  --help            this text\n"
            "Workers: LOCUS_THREADS (Locus) or OMP_NUM_THREADS (OpenMP).  Exit 1 when a\n"
            "run fails verification, 2 for bad options.\n",
            prog);
}

static void gran_parse_patterns(const char *prog, const char *v, struct gran_opts *o)
{
    char buf[256];
    if (strlen(v) >= sizeof buf)
        bench_bad_usage(prog, "--pattern '%s': too long", v);
    strcpy(buf, v);
    for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int p = 0; p < GP_COUNT; p++)
            if (strcmp(tok, "all") == 0 || strcmp(tok, gran_pattern_name[p]) == 0) {
                o->on[p] = true;
                found = 1;
            }
        if (!found)
            bench_bad_usage(prog, "--pattern '%s': expected independent, stencil_1d_1x, "
                           "stencil_1d_4x, nearest_r3, nearest_r5, fanin_tree, wavefront or all", tok);
    }
}

static void gran_parse_grains(const char *prog, const char *v, struct gran_opts *o)
{
    const char *p = v;
    o->ngrains = 0;
    for (;;) {
        char *end;
        errno = 0;
        long g = strtol(p, &end, 10);
        if (end == p || errno || g < 10 || g > 10000000 || (*end && *end != ','))
            bench_bad_usage(prog, "--grain '%s': expected a comma list of integers in 10..10000000", v);
        if (o->ngrains == GRAN_MAX_GRAINS)
            bench_bad_usage(prog, "--grain '%s': at most %d sizes", v, GRAN_MAX_GRAINS);
        o->grains[o->ngrains++] = g;
        if (!*end)
            break;
        p = end + 1;
    }
}

static void gran_parse_options(int argc, char **argv, struct gran_opts *o)
{
    static const char *const with_value[] = { "--pattern", "--grain", "--budget-ms", "--max-tasks",
                                              "--iters-per-us", "--fault", "--shape", NULL };
    const char *prog = "granularity";
    bool any_pattern = false, grains_given = false, budget_given = false, max_given = false;
    memset(o, 0, sizeof *o);
    o->budget_ms = 20;
    o->max_tasks = 10000;
    for (int i = 1; i < argc; i++) {
        char name[64];
        const char *v = bench_next_opt(prog, argc, argv, &i, name, sizeof name, with_value);
        if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
            gran_usage(stdout, prog);
            exit(0);
        } else if (strcmp(name, "--pattern") == 0) {
            gran_parse_patterns(prog, v, o);
            any_pattern = true;
        } else if (strcmp(name, "--grain") == 0) {
            gran_parse_grains(prog, v, o);
            grains_given = true;
        } else if (strcmp(name, "--budget-ms") == 0) {
            o->budget_ms = bench_parse_long(prog, name, v, 1, 100000);
            budget_given = true;
        } else if (strcmp(name, "--max-tasks") == 0) {
            o->max_tasks = bench_parse_long(prog, name, v, 1, 100000000);
            max_given = true;
        } else if (strcmp(name, "--iters-per-us") == 0) {
            char *end;
            errno = 0;
            o->iters_per_us = strtod(v, &end);
            if (end == v || *end || errno || !(o->iters_per_us >= 0.01 && o->iters_per_us <= 1e6))
                bench_bad_usage(prog, "--iters-per-us '%s': expected a number in 0.01..1e6", v);
        } else if (strcmp(name, "--calibrate") == 0) {
            o->calibrate_only = true;
        } else if (strcmp(name, "--quick") == 0) {
            o->quick = true;
        } else if (strcmp(name, "--fault") == 0) {
            if (strcmp(v, "skip") == 0)
                o->fault = GF_SKIP;
            else if (strcmp(v, "dup") == 0)
                o->fault = GF_DUP;
            else
                bench_bad_usage(prog, "--fault '%s': expected skip or dup", v);
        } else if (strcmp(name, "--shape") == 0) {
            if (strcmp(v, "ours") == 0)
                o->shape = GS_OURS;
            else if (strcmp(v, "master") == 0)
                o->shape = GS_MASTER;
            else
                bench_bad_usage(prog, "--shape '%s': expected ours or master", v);
        } else {
            bench_bad_usage(prog, "unknown option '%s'", name);
        }
    }
    if (!any_pattern)
        for (int p = 0; p < GP_COUNT; p++)
            o->on[p] = true;
    if (!grains_given) {
        const long *src = o->quick ? gran_quick_grains : gran_default_grains;
        size_t n = o->quick ? sizeof gran_quick_grains / sizeof *src
                            : sizeof gran_default_grains / sizeof *src;
        for (size_t i = 0; i < n; i++)
            o->grains[i] = src[i];
        o->ngrains = (int)n;
    }
    if (o->quick && !budget_given)
        o->budget_ms = 2;
    if (o->quick && !max_given)
        o->max_tasks = 5000;
}

/* ---------------------------------------------------------------- running */

/* Spawns the graph (on the one spawning thread) and waits for it; provided
 * by each program.  skip/dup: the slot index of a task to leave out or to
 * spawn twice (-1: none). */
typedef void (*gran_spawn_fn)(const struct gran_graph *g, long skip, long dup);

/* Tasks for a measurement of `grain` ns: budget_ms of body time per worker,
 * at most max_tasks. */
static long gran_tasks_for(const struct gran_opts *o, long grain, int workers)
{
    double n = (double)o->budget_ms * 1e6 * workers / (double)grain;
    return n > (double)o->max_tasks ? o->max_tasks : n < 1 ? 1 : (long)n;
}

/* The options, then the kernel's rate: calibrated here, before the
 * runtime starts its workers, so that nothing runs beside it; with
 * --calibrate it is printed and the program exits. */
static double gran_setup(int argc, char **argv, struct gran_opts *o)
{
    gran_parse_options(argc, argv, o);
    double ipu = o->iters_per_us > 0 ? o->iters_per_us : gran_calibrate();
    if (o->calibrate_only) {
        printf("CALIBRATION iters_per_us=%.4f\n", ipu);
        exit(0);
    }
    return ipu;
}

/*
 * Verifies a measured graph (pattern p, `grain` ns, dt seconds on `workers`)
 * against its serial replay and prints its RESULT line; `extra` (or NULL)
 * is appended to the line's params.  Returns 1 when verification failed.
 */
static int gran_report(const struct gran_opts *o, const struct gran_graph *g, int p, long grain,
                       double dt, int workers, const char *impl, const char *extra)
{
    uint64_t sum = 0, iters = g->iters;
    long bad = gran_verify(g, &sum);
    double task_ns = dt * 1e9 * workers / (double)g->tasks;
    char params[320];
    snprintf(params, sizeof params,
             "pattern=%s,grain_ns=%ld,iters=%llu,width=%d,steps=%ld,tasks=%ld,threads=%d,"
             "task_ns=%.1f,checksum=%016llx%s%s",
             gran_pattern_name[p], grain, (unsigned long long)iters, g->width, g->steps,
             g->tasks, workers, task_ns, (unsigned long long)sum, extra ? "," : "",
             extra ? extra : "");
    struct bench_result r = {
        .benchmark = "granularity",
        .size = o->quick ? "quick" : "custom",
        .params = params,
        .seconds = dt,
        .metric = (double)g->tasks * (double)iters / dt / 1e9,
        .metric_unit = "Giter/s",
        .verified = bad == 0,
        .blas = "none",
        .impl = impl,
    };
    if (bad > 0)
        fprintf(stderr, "granularity: %s at %ld ns on %s: %ld slot(s)/cell(s) differ from "
                "the serial replay\n", gran_pattern_name[p], grain, impl, bad);
    bench_print(&r);
    return bad != 0;
}

/* The number of kernel iterations of a `grain` ns body. */
static uint64_t gran_iters(long grain, double iters_per_us)
{
    uint64_t iters = (uint64_t)llround((double)grain * iters_per_us / 1000.0);
    return iters ? iters : 1;
}

/*
 * Runs every pattern at every grain on the calling (spawning) thread and
 * prints a human line and a RESULT line for each.  Returns the number of
 * measurements that failed verification.
 */
static int gran_run_all(const struct gran_opts *o, const char *impl, int workers,
                        double iters_per_us, const char *calibrated, gran_spawn_fn spawn)
{
    int failed = 0;
    printf("# granularity impl=%s workers=%d kernel %.2f iterations/us (%s)\n", impl, workers,
           iters_per_us, calibrated);
    for (int p = 0; p < GP_COUNT; p++) {
        if (!o->on[p])
            continue;
        struct gran_graph g;
        /* Warm-up: the runtime's first tasks of this pattern, untimed. */
        if (gran_graph_init(&g, p, workers, GRAN_WARMUP_TASKS, 1) != 0)
            bench_die("granularity", "out of memory");
        gran_graph_reset(&g);
        spawn(&g, -1, -1);
        gran_graph_free(&g);
        for (int i = 0; i < o->ngrains; i++) {
            long grain = o->grains[i];
            uint64_t iters = gran_iters(grain, iters_per_us);
            if (gran_graph_init(&g, p, workers, gran_tasks_for(o, grain, workers), iters) != 0)
                bench_die("granularity", "out of memory");
            gran_graph_reset(&g);
            long mid = g.tasks / 2;
            double t0 = bench_now();
            spawn(&g, o->fault == GF_SKIP ? mid : -1, o->fault == GF_DUP ? mid : -1);
            double dt = bench_now() - t0;
            failed += gran_report(o, &g, p, grain, dt, workers, impl, NULL);
            gran_graph_free(&g);
        }
    }
    return failed;
}

#endif /* GRANULARITY_COMMON_H */
