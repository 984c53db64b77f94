/*
 * kmp_abi.h - the part of LLVM libomp's task ABI (kmp.h's types and the
 * __kmpc_* task entry points) that the test programs calling it by hand
 * declare, as clang emits the calls: kmp_task_abi.c, kmp_proxy.c.
 */
#ifndef KMP_TEST_ABI_H
#define KMP_TEST_ABI_H

#include <stddef.h>
#include <stdint.h>

typedef struct ident ident_t;
typedef int32_t kmp_int32;
typedef int64_t kmp_int64;
typedef uint64_t kmp_uint64;
typedef kmp_int32 (*kmp_routine_entry_t)(kmp_int32, void *);
typedef struct kmp_task {
    void *shareds;
    kmp_routine_entry_t routine;
    kmp_int32 part_id;
    void *data1, *data2;
} kmp_task_t;
typedef struct kmp_depend_info {
    intptr_t base_addr;
    size_t len;
    uint8_t flags;
} kmp_depend_info_t;

kmp_int32 __kmpc_global_thread_num(ident_t *);
kmp_task_t *__kmpc_omp_task_alloc(ident_t *, kmp_int32, kmp_int32, size_t, size_t,
                                  kmp_routine_entry_t);
kmp_int32 __kmpc_omp_task(ident_t *, kmp_int32, kmp_task_t *);
kmp_int32 __kmpc_omp_task_with_deps(ident_t *, kmp_int32, kmp_task_t *, kmp_int32,
                                    kmp_depend_info_t *, kmp_int32, kmp_depend_info_t *);
kmp_int32 __kmpc_omp_taskwait(ident_t *, kmp_int32);

#endif /* KMP_TEST_ABI_H */
