/*
 * kmp_unsupported.c - calls an entry point of libomp that liblocus-omp
 * does not implement (__kmp_get_reduce_method, an internal of libomp's
 * that its exports list carries: nothing a compiler emits), to see the
 * program stop with its name (test_kmp).
 */
#include <stdio.h>

int __kmp_get_reduce_method(void);

int main(void)
{
    int m = __kmp_get_reduce_method();
    printf("reduce method %d\n", m >= 0);
    return 0;
}
