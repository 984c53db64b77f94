/*
 * omp_unsupported.c - uses sections, which liblocus-gomp does not
 * implement: on Locus it must stop with a message naming the entry point
 * (test_gomp checks that), on libgomp it prints "sections 3".
 */
#include <stdio.h>

int main(void)
{
    int a = 0, b = 0, c = 0;
    #pragma omp parallel sections
    {
        #pragma omp section
        a = 1;
        #pragma omp section
        b = 1;
        #pragma omp section
        c = 1;
    }
    printf("sections %d\n", a + b + c);
    return 0;
}
