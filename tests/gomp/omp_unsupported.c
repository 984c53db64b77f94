/*
 * omp_unsupported.c - calls an OpenACC routine, which liblocus-gomp does
 * not implement (it is not an OpenMP layer for OpenACC): on Locus it must
 * stop with a message naming the entry point (test_gomp checks that); on
 * libgomp it prints "host devices 1".
 */
#include <stdio.h>

int acc_get_num_devices(int device_type);   /* openacc.h; 2 is acc_device_host */

int main(void)
{
    int n = 0;
    #pragma omp parallel reduction(+ : n)
    n += 1;
    if (n < 1)
        return 1;
    printf("host devices %d\n", acc_get_num_devices(2));
    return 0;
}
