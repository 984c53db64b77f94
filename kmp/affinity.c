/*
 * affinity.c - Intel's kmp affinity-mask API as libomp exports it
 * (kmp_create_affinity_mask, kmp_set_affinity_mask_proc, kmp_set_affinity,
 * ...), its kmpc_* spellings, its Fortran forms (trailing underscore, the
 * proc by reference) and kmp_set_thread_affinity_mask_initial.
 *
 * A mask is a heap cpu_set_t (the type gomp/places.c keeps places in),
 * handed to the program as the opaque kmp_affinity_mask_t (a void *); every
 * routine takes the address of the program's handle, as libomp's do.  The
 * return codes are libomp's (kmp_affinity.cpp, __kmp_aux_*): -1 for a proc
 * outside 0 .. kmp_get_affinity_max_proc() - 1, -2 for one outside the
 * process's initial affinity (libomp's "full mask"), and kmp_set_affinity
 * / kmp_get_affinity answer 0 or the errno of sched_setaffinity /
 * sched_getaffinity.  Where libomp stops the program (KMP_FATAL under
 * KMP_CONSISTENCY_CHECK) or dereferences a NULL mask, these answer -1
 * (a proc routine) or EINVAL (set/get affinity) instead.
 *
 * kmp_set_affinity binds only the calling thread; as in libomp it is the
 * program's business, and Locus's own placement of its workers
 * (OMP_PROC_BIND, LOCUS_BIND) is not told of it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "kmp.h"

/* The process's affinity as the program started with it, read when the
 * library is loaded, before the runtime or the program binds any thread:
 * libomp's __kmp_affin_fullMask, against which procs are checked and to
 * which kmp_set_thread_affinity_mask_initial returns a thread. */
static cpu_set_t initial_mask;
static int initial_mask_ok;

__attribute__((constructor)) static void read_initial_mask(void)
{
    initial_mask_ok = sched_getaffinity(0, sizeof initial_mask, &initial_mask) == 0;
}

/* libomp: __kmp_xproc, the configured processor count (sysconf
 * _SC_NPROCESSORS_CONF on Linux), capped here at what a cpu_set_t holds. */
KMP_EXPORT int kmp_get_affinity_max_proc(void)
{
    long n = sysconf(_SC_NPROCESSORS_CONF);
    if (n < 1)
        n = 1;
    return n > CPU_SETSIZE ? CPU_SETSIZE : (int)n;
}

KMP_EXPORT void kmp_create_affinity_mask(void **mask)
{
    if (!mask)
        return;
    cpu_set_t *set = malloc(sizeof *set);   /* NULL when out of memory: every routine checks */
    if (set)
        CPU_ZERO(set);
    *mask = set;
}

KMP_EXPORT void kmp_destroy_affinity_mask(void **mask)
{
    if (!mask)
        return;
    free(*mask);
    *mask = NULL;
}

/* The mask behind the program's handle, or NULL when there is none. */
static cpu_set_t *mask_of(void **mask)
{
    return mask ? (cpu_set_t *)*mask : NULL;
}

/* 0 when proc may be in a mask, else libomp's code for it. */
static int check_proc(int proc)
{
    if (proc < 0 || proc >= kmp_get_affinity_max_proc())
        return -1;
    if (initial_mask_ok && !CPU_ISSET(proc, &initial_mask))
        return -2;
    return 0;
}

KMP_EXPORT int kmp_set_affinity_mask_proc(int proc, void **mask)
{
    cpu_set_t *set = mask_of(mask);
    if (!set)
        return -1;
    int rc = check_proc(proc);
    if (rc == 0)
        CPU_SET(proc, set);
    return rc;
}

KMP_EXPORT int kmp_unset_affinity_mask_proc(int proc, void **mask)
{
    cpu_set_t *set = mask_of(mask);
    if (!set)
        return -1;
    int rc = check_proc(proc);
    if (rc == 0)
        CPU_CLR(proc, set);
    return rc;
}

/* 1 if proc is in the mask, 0 if not, -1 out of range; a proc outside the
 * initial affinity is never in a mask (0), as in libomp. */
KMP_EXPORT int kmp_get_affinity_mask_proc(int proc, void **mask)
{
    cpu_set_t *set = mask_of(mask);
    if (!set)
        return -1;
    int rc = check_proc(proc);
    if (rc == -1)
        return -1;
    return rc == 0 && CPU_ISSET(proc, set);
}

KMP_EXPORT int kmp_set_affinity(void **mask)
{
    cpu_set_t *set = mask_of(mask);
    if (!set)
        return EINVAL;
    return sched_setaffinity(0, sizeof *set, set) == 0 ? 0 : errno;
}

KMP_EXPORT int kmp_get_affinity(void **mask)
{
    cpu_set_t *set = mask_of(mask);
    if (!set)
        return EINVAL;
    return sched_getaffinity(0, sizeof *set, set) == 0 ? 0 : errno;
}

/* libomp: 0, -1 when the thread cannot be bound, or an errno.  Any thread
 * may call it here (libomp answers -1 to a thread it did not make). */
KMP_EXPORT int kmp_set_thread_affinity_mask_initial(void)
{
    if (!initial_mask_ok)
        return -1;
    return sched_setaffinity(0, sizeof initial_mask, &initial_mask) == 0 ? 0 : errno;
}

/* --- the kmpc_* spellings (kmp_csupport.cpp) --- */

KMP_EXPORT int kmpc_set_affinity_mask_proc(int proc, void **mask)
{
    return kmp_set_affinity_mask_proc(proc, mask);
}

KMP_EXPORT int kmpc_unset_affinity_mask_proc(int proc, void **mask)
{
    return kmp_unset_affinity_mask_proc(proc, mask);
}

KMP_EXPORT int kmpc_get_affinity_mask_proc(int proc, void **mask)
{
    return kmp_get_affinity_mask_proc(proc, mask);
}

/* --- Fortran: the proc by reference, the mask (an integer of pointer
 * kind) by reference as in C --- */

KMP_EXPORT int kmp_get_affinity_max_proc_(void)
{
    return kmp_get_affinity_max_proc();
}

KMP_EXPORT void kmp_create_affinity_mask_(void **mask)
{
    kmp_create_affinity_mask(mask);
}

KMP_EXPORT void kmp_destroy_affinity_mask_(void **mask)
{
    kmp_destroy_affinity_mask(mask);
}

KMP_EXPORT int kmp_set_affinity_mask_proc_(const int *proc, void **mask)
{
    return proc ? kmp_set_affinity_mask_proc(*proc, mask) : -1;
}

KMP_EXPORT int kmp_unset_affinity_mask_proc_(const int *proc, void **mask)
{
    return proc ? kmp_unset_affinity_mask_proc(*proc, mask) : -1;
}

KMP_EXPORT int kmp_get_affinity_mask_proc_(const int *proc, void **mask)
{
    return proc ? kmp_get_affinity_mask_proc(*proc, mask) : -1;
}

KMP_EXPORT int kmp_set_affinity_(void **mask)
{
    return kmp_set_affinity(mask);
}

KMP_EXPORT int kmp_get_affinity_(void **mask)
{
    return kmp_get_affinity(mask);
}
