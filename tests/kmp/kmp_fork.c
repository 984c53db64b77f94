/*
 * kmp_fork.c - tests/gomp/omp_fork.c built by clang (test_kmp compares it
 * with libomp, which handles fork as well): a region with tasks, fork(),
 * regions in the child, which starts a runtime of its own, and one more
 * in the parent once the child ended.
 */
#include "../gomp/omp_fork.c"
