/*
 * kmp_unsupported.c - calls an entry point of libomp that liblocus-omp
 * does not implement (Intel's affinity extension: Locus binds its workers
 * by LOCUS_BIND), to see the program stop with its name (test_kmp).
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int n = kmp_get_affinity_max_proc();
    printf("max proc %d\n", n > 0);
    return 0;
}
