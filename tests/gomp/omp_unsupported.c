/*
 * omp_unsupported.c - uses an ordered loop, which liblocus-gomp does not
 * implement: on Locus it must stop with a message naming the entry point
 * (test_gomp checks that), on libgomp it prints "ordered 4950".
 */
#include <stdio.h>

int main(void)
{
    long sum = 0;
    #pragma omp parallel for ordered schedule(dynamic)
    for (int i = 0; i < 100; i++) {
        #pragma omp ordered
        sum += i;
    }
    printf("ordered %ld\n", sum);
    return 0;
}
