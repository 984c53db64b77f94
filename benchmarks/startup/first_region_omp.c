/*
 * first_region_omp.c - what an OpenMP program pays before its first parallel
 * region has run: the time from main's first statement to the end of the
 * program's first `#pragma omp parallel` (a master that reads the team
 * size, the others at the closing barrier), then a second region for
 * comparison, and the page faults each cost.  Built by
 * benchmarks/startup/run with gcc -fopenmp (libgomp, liblocus-gomp) and
 * clang -fopenmp (libomp, liblocus-omp); never linked with Locus.  One
 * measurement per process: the first region happens once.
 */
#include <omp.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static long faults(void)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return r.ru_minflt + r.ru_majflt;
}

int main(void)
{
    long f0 = faults();
    double t0 = now_ms();
    int n = 0;
#pragma omp parallel
    {
#pragma omp master
        n = omp_get_num_threads();
    }
    double t1 = now_ms();
    long f1 = faults();
#pragma omp parallel
    {
#pragma omp master
        n += omp_get_num_threads() == n ? 0 : 1;
    }
    double t2 = now_ms();
    printf("RESULT threads=%d first_ms=%.4f second_ms=%.4f faults_before_main=%ld "
           "faults_first=%ld\n", n, t1 - t0, t2 - t1, f0, f1 - f0);
    return 0;
}
