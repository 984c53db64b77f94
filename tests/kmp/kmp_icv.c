/*
 * kmp_icv.c - the data-environment ICVs of a clang program each task's
 * own (tests/gomp/icv_per_task.h): test_kmp compares its lines with
 * libomp's.
 */
#include "../gomp/icv_per_task.h"

int main(void)
{
    icv_common_path();   /* first: icv_per_task sets ICVs outside any region */
    icv_per_task();
    return 0;
}
