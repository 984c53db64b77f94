/*
 * probe.c - the parallelism probe on Locus (probe_common.h says what it
 * measures); probe_omp.c is the same on libgomp.  Keep the spawn loops
 * alike.  Run: LOCUS_THREADS=1 and 2 build/bench/probe (benchmarks/README.md).
 */
#include <locus.h>
#include <stdatomic.h>

#include "probe_common.h"

static struct probe_arg args[PROBE_MAX_TASKS];

/* Tasks run per worker (each counter written by its worker only): how much
 * of the work the workers other than the spawner took. */
#define PROBE_MAX_WORKERS 256
static struct {
    _Alignas(64) long n;
} ran[PROBE_MAX_WORKERS];

/* When another worker than the spawner first ran a task (0: not yet). */
static _Atomic double first_other;

static void counted_body(void *p)
{
    int id = locus_worker_id();
    if (id >= 0 && id < PROBE_MAX_WORKERS)
        ran[id].n++;
    if (id > 0 && !first_other) {
        double zero = 0;
        atomic_compare_exchange_strong(&first_other, &zero, probe_now());
    }
    probe_body(p);
}

static void check(int err, const char *what)
{
    if (err < 0) {
        fprintf(stderr, "probe: %s: %s (%s)\n", what, locus_strerror(err), locus_error_message());
        exit(1);
    }
}

static void run_indep(long n)
{
    for (long i = 0; i < n; i++) {
        args[i] = (struct probe_arg){ &probe_blocks[i / 2][i % 2], NULL, NULL };
        check(locus_spawn(counted_body, &args[i], 0, NULL, 0), "locus_spawn");
    }
    check(locus_taskwait(), "locus_taskwait");
}

static void run_stencil(long n)
{
    const size_t sz = sizeof(struct probe_block);
    for (long i = 0; i < n; i++) {
        long s = i / 2 + 1, j = i % 2;   /* step 0 is the input */
        struct probe_block *out = &probe_blocks[s][j];
        const struct probe_block *in0 = &probe_blocks[s - 1][0], *in1 = &probe_blocks[s - 1][1];
        args[i] = (struct probe_arg){ out, in0, in1 };
        check(locus_task(counted_body, &args[i], 0, LOCUS_IN(in0, sz), LOCUS_IN(in1, sz),
                         LOCUS_OUT(out, sz)), "locus_task");
    }
    check(locus_taskwait(), "locus_taskwait");
}

int main(int argc, char **argv)
{
    struct probe_opts o;
    probe_parse(argc, argv, &o);
    double body = probe_calibrate(o.body_ns);
    check(locus_init(), "locus_init");
    double t_init = probe_now();
    double *ms = calloc((size_t)o.reps, sizeof *ms);
    for (int shape = 1; shape <= 2; shape++) {
        if (o.shape && o.shape != shape)
            continue;
        run_indep(o.tasks < 200 ? o.tasks : 200);   /* warm-up */
        for (int i = 0; i < PROBE_MAX_WORKERS; i++)
            ran[i].n = 0;
        for (int r = 0; r < o.reps; r++) {
            double t0 = probe_now();
            if (shape == 1)
                run_indep(o.tasks);
            else
                run_stencil(o.tasks);
            ms[r] = (probe_now() - t0) * 1e3;
        }
        probe_report("locus", shape == 1 ? "indep" : "stencil", o.tasks, locus_num_workers(),
                     body, ms, o.reps);
        long all = 0;
        for (int i = 0; i < PROBE_MAX_WORKERS; i++)
            all += ran[i].n;
        printf("       %-8s share of tasks run by workers other than the spawner: %.1f%%\n",
               shape == 1 ? "indep" : "stencil", all ? 100.0 * (double)(all - ran[0].n) / (double)all : 0.0);
    }
    if (locus_num_workers() > 1) {
        if (first_other)
            printf("       a worker other than the spawner ran its first task %.2f ms after "
                   "locus_init() returned\n", (first_other - t_init) * 1e3);
        else
            printf("       no worker other than the spawner ran a task\n");
    }
    free(ms);
    check(locus_finalize(), "locus_finalize");
    return 0;
}
