/*
 * overhead_omp.c - the peer of overhead.c on GNU libgomp: the same patterns,
 * window logic, task body and output, with tasks created by
 * #pragma omp task depend(...) from inside parallel + single.  Built with
 * gcc -fopenmp and never linked with Locus.  Keep the spawn loops line for
 * line alike with overhead.c.
 *
 * Fairness notes: the team is started once, before any timing (as Locus's
 * workers are by locus_init()); each task calls the same out-of-line
 * bench_body() as a Locus task does (one extra call from gcc's outlined task
 * function, about a nanosecond); libgomp's own behaviour is left alone, in
 * particular it runs a new task immediately (undeferred, after waiting for
 * its dependencies) whenever more than 64 * threads tasks are queued, so its
 * real in-flight window never exceeds that whatever W is.
 */
#define BENCH_NO_LOCUS 1   /* bench.h (through overhead_common.h): no Locus here */
#include <omp.h>

#include "overhead_common.h"
#include "../common/omp_impl.h"

#if !defined(_OPENMP)
#error "overhead_omp.c must be compiled with -fopenmp"
#endif

static void run_pattern(enum bench_pattern p, long n, long w)
{
    long left = w;
    const long m = BENCH_FANIN_OBJS - 1;

    switch (p) {
    case PAT_INDEP:
        for (long i = 0; i < n; i++) {
#pragma omp task
            bench_body(NULL);
            if (--left == 0) {
#pragma omp taskwait
                left = w;
            }
        }
        break;
    case PAT_CHAIN:
        for (long i = 0; i < n; i++) {
#pragma omp task depend(inout: bench_objs[0])
            bench_body(NULL);
            if (--left == 0) {
#pragma omp taskwait
                left = w;
            }
        }
        break;
    case PAT_CHAINS:
        for (long i = 0; i < n; i++) {
#pragma omp task depend(inout: bench_objs[i & (BENCH_CHAINS - 1)])
            bench_body(NULL);
            if (--left == 0) {
#pragma omp taskwait
                left = w;
            }
        }
        break;
    case PAT_FANIN:
        for (long i = 0; i < n; i++) {
#pragma omp task depend(in: bench_objs[(i + 1) & m], bench_objs[(i + 2) & m], \
                            bench_objs[(i + 3) & m], bench_objs[(i + 4) & m])    \
                 depend(inout: bench_objs[i & m])
            bench_body(NULL);
            if (--left == 0) {
#pragma omp taskwait
                left = w;
            }
        }
        break;
    case PAT_COUNT:
        break;
    }
#pragma omp taskwait
}

int main(int argc, char **argv)
{
    struct bench_opts o;
    bench_parse_options(argc, argv, &o);

#pragma omp parallel
#pragma omp single
    bench_run_all(&o, bench_omp_impl(), omp_get_num_threads(), run_pattern);

    return 0;
}
