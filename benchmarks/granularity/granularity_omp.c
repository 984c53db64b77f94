/*
 * granularity_omp.c - the METG benchmark of granularity.c with OpenMP
 * tasks: the same graphs, body and output, each task created by
 * #pragma omp task depend(in: ...) depend(out|inout: ...) on the same
 * cells, inside parallel + single (--shape master: parallel + master, one
 * measurement a process, granularity_master.h).  Never linked with Locus.  The Makefile
 * builds it with gcc -fopenmp (build/bench/granularity-omp), which runs on
 * libgomp or, with build/gomp on LD_LIBRARY_PATH, on liblocus-gomp;
 * benchmarks/granularity/metg builds it with clang-14 -fopenmp for LLVM's
 * libomp (build/bench/granularity-libomp).  Workers: OMP_NUM_THREADS.
 *
 * A depend clause's list is fixed in the source, so each number of inputs
 * the graphs use has its own pragma (GRAN_OMP_CASE below).
 */
#define _GNU_SOURCE   /* sched_getaffinity in granularity_master.h */
#define BENCH_NO_LOCUS 1
#include <omp.h>

#include "granularity_master.h"
#include "../common/omp_impl.h"

#if !defined(_OPENMP)
#error "granularity_omp.c must be compiled with -fopenmp"
#endif

/* libgomp, liblocus-gomp or LLVM's libomp, by the library actually mapped. */
static const char *impl_name(void)
{
    char line[4096];
    const char *impl = NULL;
    FILE *f = fopen("/proc/self/maps", "r");
    while (f && !impl && fgets(line, sizeof line, f))
        if (strstr(line, "/libomp.so") || strstr(line, "/libomp-"))
            impl = "libomp";
    if (f)
        fclose(f);
    return impl ? impl : bench_omp_impl();
}

#define GRAN_STR_(...) #__VA_ARGS__
#define GRAN_STR(...) GRAN_STR_(__VA_ARGS__)
#define GRAN_TASK(...)                                                 \
    do {                                                               \
        _Pragma(GRAN_STR(omp task firstprivate(a) __VA_ARGS__))        \
        gran_body(&a);                                                 \
    } while (0)
/* One number of inputs n (c[i0]..): out and inout forms. */
#define GRAN_OMP_CASE(n, ...)                                          \
    case n:                                                            \
        if (a.out_read)                                                \
            GRAN_TASK(depend(in: __VA_ARGS__) depend(inout: c[o]));    \
        else                                                           \
            GRAN_TASK(depend(in: __VA_ARGS__) depend(out: c[o]));      \
        break;

static void spawn_one(struct gran_task a)
{
    struct gran_cell *c = a.cells;
    int o = a.out, i0 = a.in[0], i1 = a.in[1], i2 = a.in[2], i3 = a.in[3], i4 = a.in[4];
    (void)c, (void)o, (void)i0, (void)i1, (void)i2, (void)i3, (void)i4;
    if (a.out < 0) {
        GRAN_TASK();
        return;
    }
    switch (a.nin) {
    case 0:
        if (a.out_read)
            GRAN_TASK(depend(inout: c[o]));
        else
            GRAN_TASK(depend(out: c[o]));
        break;
    GRAN_OMP_CASE(1, c[i0])
    GRAN_OMP_CASE(2, c[i0], c[i1])
    GRAN_OMP_CASE(3, c[i0], c[i1], c[i2])
    GRAN_OMP_CASE(4, c[i0], c[i1], c[i2], c[i3])
    GRAN_OMP_CASE(5, c[i0], c[i1], c[i2], c[i3], c[i4])
    default:
        bench_die("granularity", "internal error: a task with %d inputs", a.nin);
    }
}

/* Every task of the graph, step by step, with no wait between steps. */
static void spawn_steps(const struct gran_graph *g, long skip, long dup)
{
    struct gran_task a;
    for (long t = 0; t < g->steps; t++)
        for (int k = 0; k < g->per_step; k++) {
            gran_task_at(g, t, k, &a);
            if (__builtin_expect(a.idx == skip, 0))
                continue;
            spawn_one(a);
            if (__builtin_expect(a.idx == dup, 0))
                spawn_one(a);
        }
}

static void spawn_graph(const struct gran_graph *g, long skip, long dup)
{
    spawn_steps(g, skip, dup);
#pragma omp taskwait
}

/* --shape master: the process's first parallel region, timed from before
 * it starts; the master spawns, the other threads go straight to the
 * closing barrier (master has none of its own) and run tasks there. */
static double master_region(const struct gran_graph *g, long skip, long dup, int *workers)
{
    double t0 = bench_now();
#pragma omp parallel
#pragma omp master
    {
        *workers = omp_get_num_threads();
        spawn_steps(g, skip, dup);
    }
    return bench_now() - t0;
}

int main(int argc, char **argv)
{
    struct gran_opts o;
    double ipu = gran_setup(argc, argv, &o);
    if (o.shape == GS_MASTER)   /* before any region: the first one is the one timed */
        return gran_master_main(&o, impl_name(), "OMP_NUM_THREADS", ipu,
                                o.iters_per_us > 0 ? "given" : "calibrated", master_region);

    int failed = 0;
#pragma omp parallel
#pragma omp single
    failed = gran_run_all(&o, impl_name(), omp_get_num_threads(), ipu,
                          o.iters_per_us > 0 ? "given" : "calibrated", spawn_graph);
    return failed ? 1 : 0;
}
