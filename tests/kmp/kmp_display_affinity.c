/*
 * kmp_display_affinity.c - OMP_DISPLAY_AFFINITY: regions of 3, 3, 2 and
 * 3 threads and one serialized region (libgomp displays nothing for it,
 * libomp does); the runtime
 * displays each thread's affinity line (on stdout under libomp's ABI) at
 * the start of a region when it changed since the thread's last one.
 * The program prints which regions ran.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    static const int sizes[] = { 3, 3, 2, 3 };
    int members = 0;   /* regions with no effect could be optimised away */
    for (int i = 0; i < 4; i++) {
#pragma omp parallel num_threads(sizes[i])
        {
#pragma omp atomic
            members++;
        }
        printf("region %d: %d threads\n", i, members);
        members = 0;
    }
#pragma omp parallel if (0)
    {
#pragma omp atomic
        members++;
    }
    printf("serialized: %d thread\n", members);
    return 0;
}
