/*
 * granularity.c - the METG benchmark on Locus: the task graphs of
 * granularity_common.h spawned with locus_spawn(), one locus_dep_t a cell
 * (LOCUS_IN on the cells a task reads, LOCUS_OUT or LOCUS_INOUT on the cell
 * it writes), one locus_taskwait() at the end of each graph.
 * granularity_omp.c is the same program with #pragma omp task depend; keep
 * the two spawn functions alike.  Runs with every LOCUS_* variable at its
 * default unless the caller sets one; workers: LOCUS_THREADS.
 *
 * --shape master (granularity_master.h) in Locus's terms, master_region:
 *   timer before `#pragma omp parallel`  -> timer before locus_init(), which
 *                                          starts the workers (the first
 *                                          region's thread creation)
 *   `#pragma omp master` spawning        -> the initial thread spawning
 *   the other threads at the closing     -> Locus's workers, which take and
 *   barrier, running tasks                 run tasks while the initial
 *                                          thread spawns
 *   the master reaching the barrier,     -> locus_taskwait() on the initial
 *   the region ending when all is done     thread (it runs tasks too)
 *   timer after the region               -> timer after that taskwait;
 *                                          locus_finalize() (joining the
 *                                          workers) is outside it, as an
 *                                          OpenMP runtime keeps its threads
 *                                          after a region.
 */
#define _GNU_SOURCE   /* sched_getaffinity in granularity_master.h */
#include <locus.h>

#include "granularity_master.h"

__attribute__((noinline, cold, noreturn)) static void die(const char *what, int err)
{
    fprintf(stderr, "granularity: %s: %s (%s)\n", what, locus_strerror(err), locus_error_message());
    exit(1);
}

static void spawn_one(const struct gran_task *a)
{
    locus_dep_t deps[GRAN_MAX_IN + 1];
    size_t n = 0;
    for (int i = 0; i < a->nin; i++)
        deps[n++] = LOCUS_IN(&a->cells[a->in[i]], sizeof a->cells[0]);
    if (a->out >= 0)
        deps[n++] = a->out_read ? LOCUS_INOUT(&a->cells[a->out], sizeof a->cells[0])
                                : LOCUS_OUT(&a->cells[a->out], sizeof a->cells[0]);
    int err = locus_spawn(gran_body, a, sizeof *a, deps, n);
    if (__builtin_expect(err < 0, 0))
        die("locus_spawn", err);
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
            spawn_one(&a);
            if (__builtin_expect(a.idx == dup, 0))
                spawn_one(&a);
        }
}

static void spawn_graph(const struct gran_graph *g, long skip, long dup)
{
    spawn_steps(g, skip, dup);
    int err = locus_taskwait();
    if (err < 0)
        die("locus_taskwait", err);
}

/* --shape master: the runtime's start, the graph and its end, timed
 * together (the correspondence with OpenMP is at the top of this file). */
static double master_region(const struct gran_graph *g, long skip, long dup, int *workers)
{
    double t0 = bench_now();
    int err = locus_init();
    if (err < 0)
        die("locus_init", err);
    *workers = locus_num_workers();
    spawn_steps(g, skip, dup);
    err = locus_taskwait();
    if (err < 0)
        die("locus_taskwait", err);
    double dt = bench_now() - t0;
    err = locus_finalize();
    if (err < 0)
        die("locus_finalize", err);
    return dt;
}

int main(int argc, char **argv)
{
    struct gran_opts o;
    double ipu = gran_setup(argc, argv, &o);
    if (o.shape == GS_MASTER)
        return gran_master_main(&o, "locus", "LOCUS_THREADS", ipu,
                                o.iters_per_us > 0 ? "given" : "calibrated", master_region);

    int err = locus_init();
    if (err < 0)
        die("locus_init", err);
    int workers = locus_num_workers();
    if (workers < 0)
        die("locus_num_workers", workers);

    int failed = gran_run_all(&o, "locus", workers, ipu,
                              o.iters_per_us > 0 ? "given" : "calibrated", spawn_graph);

    err = locus_finalize();
    if (err < 0)
        die("locus_finalize", err);
    return failed ? 1 : 0;
}
