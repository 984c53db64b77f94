/*
 * probe_omp.c - the parallelism probe (probe_common.h) on GNU libgomp:
 * #pragma omp task depend from inside parallel + single, the same body and
 * blocks as probe.c.  Built with gcc -fopenmp, never linked with Locus.
 */
#include <omp.h>

#define BENCH_NO_LOCUS 1
#include "probe_common.h"

#if !defined(_OPENMP)
#error "probe_omp.c must be compiled with -fopenmp"
#endif

static struct probe_arg args[PROBE_MAX_TASKS];

static void run_indep(long n)
{
    for (long i = 0; i < n; i++) {
        args[i] = (struct probe_arg){ &probe_blocks[i / 2][i % 2], NULL, NULL };
        struct probe_arg *a = &args[i];
#pragma omp task firstprivate(a)
        probe_body(a);
    }
#pragma omp taskwait
}

static void run_stencil(long n)
{
    for (long i = 0; i < n; i++) {
        long s = i / 2 + 1, j = i % 2;
        struct probe_block *out = &probe_blocks[s][j];
        struct probe_block *in0 = &probe_blocks[s - 1][0], *in1 = &probe_blocks[s - 1][1];
        args[i] = (struct probe_arg){ out, in0, in1 };
        struct probe_arg *a = &args[i];
#pragma omp task firstprivate(a) depend(in: in0[0], in1[0]) depend(out: out[0])
        probe_body(a);
    }
#pragma omp taskwait
}

int main(int argc, char **argv)
{
    struct probe_opts o;
    probe_parse(argc, argv, &o);
    double body = probe_calibrate(o.body_ns);
    double *ms = calloc((size_t)o.reps, sizeof *ms);
    int workers = 1;
#pragma omp parallel
#pragma omp single
    {
        workers = omp_get_num_threads();
        for (int shape = 1; shape <= 2; shape++) {
            if (o.shape && o.shape != shape)
                continue;
            run_indep(o.tasks < 200 ? o.tasks : 200);   /* warm-up */
            for (int r = 0; r < o.reps; r++) {
                double t0 = probe_now();
                if (shape == 1)
                    run_indep(o.tasks);
                else
                    run_stencil(o.tasks);
                ms[r] = (probe_now() - t0) * 1e3;
            }
            probe_report("gomp", shape == 1 ? "indep" : "stencil", o.tasks, workers, body, ms,
                         o.reps);
        }
    }
    free(ms);
    return 0;
}
