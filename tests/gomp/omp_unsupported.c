/*
 * omp_unsupported.c - uses taskloop, which liblocus-gomp does not
 * implement: on Locus it must stop with a message naming the entry point
 * (test_gomp checks that), on libgomp it prints "taskloop 4950".
 */
#include <stdio.h>

int main(void)
{
    long sum = 0;
    #pragma omp parallel
    #pragma omp single
    #pragma omp taskloop reduction(+: sum)
    for (int i = 0; i < 100; i++)
        sum += i;
    printf("taskloop %ld\n", sum);
    return 0;
}
