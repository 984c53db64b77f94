/*
 * kmp_display_affinity.c - tests/gomp/omp_display_affinity.c built by
 * clang: OMP_DISPLAY_AFFINITY over regions of 3, 3, 2 and 3 threads and
 * one serialized region (libomp displays a line for it, libgomp none);
 * under libomp's ABI the lines go to stdout.  test_kmp compares them with
 * libomp's.
 */
#include "../gomp/omp_display_affinity.c"
