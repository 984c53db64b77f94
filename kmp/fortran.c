/*
 * fortran.c - the Fortran spellings of the omp_* and kmp_* routines that
 * libomp exports (the name with a trailing underscore, as gfortran, flang
 * and ifx call them without bind(c)), each a call of the C routine the
 * shared layer (gomp/) or kmp/ implements: the semantics are there.
 *
 * The arguments are as libomp's kmp_ftn_entry.h takes them on Linux (its
 * KMP_FTN_APPEND entries): integers by reference, except where libomp
 * takes them by value (omp_get_place_num_procs_, omp_get_place_proc_ids_,
 * omp_pause_resource_, omp_pause_resource_all_, omp_display_env_,
 * omp_control_tool_, omp_destroy_allocator_, omp_set_default_allocator_,
 * kmp_get_cancellation_status_): the ABI is libomp's, not what the
 * Fortran standard would suggest.  A lock is the program's integer of
 * pointer kind, passed by reference: the same storage as C's omp_lock_t
 * and omp_nest_lock_t of LLVM's omp.h (kmp/lock.c).
 *
 * Character arguments carry their length in a hidden trailing size_t,
 * and are blank-padded, not NUL-terminated.  As in libomp, a format is
 * taken with its blanks (libomp does not trim), and an answer is copied
 * into the program's buffer blank-padded, or cut to the buffer's length
 * (no NUL: libomp's __kmp_fortran_strncpy_truncate); the return value is
 * the full length, as in C.
 *
 * The affinity-mask routines' Fortran forms are in affinity.c, the
 * interop routines' in interop.c.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kmp.h"

/* The C routines called (gomp/ and kmp/; the handles as they take them). */
void omp_set_num_threads(int n);
int omp_get_num_threads(void);
int omp_get_max_threads(void);
int omp_get_thread_num(void);
int omp_get_num_procs(void);
int omp_in_parallel(void);
void omp_set_dynamic(int v);
int omp_get_dynamic(void);
void omp_set_nested(int v);
int omp_get_nested(void);
void omp_set_schedule(int kind, int chunk);
void omp_get_schedule(int *kind, int *chunk);
int omp_get_thread_limit(void);
void omp_set_max_active_levels(int v);
int omp_get_max_active_levels(void);
int omp_get_supported_active_levels(void);
int omp_get_level(void);
int omp_get_active_level(void);
int omp_get_ancestor_thread_num(int level);
int omp_get_team_size(int level);
int omp_in_final(void);
int omp_get_cancellation(void);
int omp_get_proc_bind(void);
int omp_get_num_places(void);
int omp_get_place_num_procs(int place);
void omp_get_place_proc_ids(int place, int *ids);
int omp_get_place_num(void);
int omp_get_partition_num_places(void);
void omp_get_partition_place_nums(int *places);
void omp_set_default_device(int dev);
int omp_get_default_device(void);
int omp_get_num_devices(void);
int omp_get_device_num(void);
int omp_get_num_teams(void);
int omp_get_team_num(void);
int omp_is_initial_device(void);
int omp_get_initial_device(void);
int omp_get_max_task_priority(void);
void omp_set_num_teams(int n);
int omp_get_max_teams(void);
void omp_set_teams_thread_limit(int n);
int omp_get_teams_thread_limit(void);
double omp_get_wtime(void);
double omp_get_wtick(void);
int omp_pause_resource(int kind, int device);
int omp_pause_resource_all(int kind);
void omp_display_env(int verbose);
int omp_control_tool(int command, int modifier, void *arg);
uintptr_t omp_init_allocator(uintptr_t memspace, int ntraits, const void *traits);
void omp_destroy_allocator(uintptr_t allocator);
void omp_set_default_allocator(uintptr_t allocator);
uintptr_t omp_get_default_allocator(void);
void omp_set_affinity_format(const char *format);
size_t omp_get_affinity_format(char *buffer, size_t size);
void omp_display_affinity(const char *format);
size_t omp_capture_affinity(char *buffer, size_t size, const char *format);
void omp_init_lock(void *lock);
void omp_init_lock_with_hint(void *lock, int hint);
void omp_destroy_lock(void *lock);
void omp_set_lock(void *lock);
void omp_unset_lock(void *lock);
int omp_test_lock(void *lock);
void omp_init_nest_lock(void *lock);
void omp_init_nest_lock_with_hint(void *lock, int hint);
void omp_destroy_nest_lock(void *lock);
void omp_set_nest_lock(void *lock);
void omp_unset_nest_lock(void *lock);
int omp_test_nest_lock(void *lock);
void kmp_set_stacksize(int size);
void kmp_set_stacksize_s(size_t size);
int kmp_get_stacksize(void);
size_t kmp_get_stacksize_s(void);
void kmp_set_blocktime(int ms);
int kmp_get_blocktime(void);
void kmp_set_library(int mode);
void kmp_set_library_serial(void);
void kmp_set_library_turnaround(void);
void kmp_set_library_throughput(void);
int kmp_get_library(void);
void kmp_set_defaults(const char *str);
void kmp_set_disp_num_buffers(int n);
void kmp_set_warnings_on(void);
void kmp_set_warnings_off(void);
int kmp_get_num_known_threads(void);
int kmp_get_cancellation_status(int kind);
void *kmp_malloc(size_t size);
void *kmp_aligned_malloc(size_t size, size_t alignment);
void *kmp_calloc(size_t nelem, size_t elsize);
void *kmp_realloc(void *ptr, size_t size);
void kmp_free(void *ptr);

/* A routine without arguments: the same answer as C's. */
#define FTN_GET(type, name) \
    KMP_EXPORT type name##_(void) { return name(); }
/* A routine of one argument, by reference. */
#define FTN_SET(type, name) \
    KMP_EXPORT void name##_(const type *v) { name(*v); }
/* A routine without arguments or answer. */
#define FTN_DO(name) \
    KMP_EXPORT void name##_(void) { name(); }

/* --- threads, teams and levels --- */
FTN_SET(int, omp_set_num_threads)
FTN_GET(int, omp_get_num_threads)
FTN_GET(int, omp_get_max_threads)
FTN_GET(int, omp_get_thread_num)
FTN_GET(int, omp_get_num_procs)
FTN_GET(int, omp_in_parallel)
FTN_SET(int, omp_set_dynamic)
FTN_GET(int, omp_get_dynamic)
FTN_SET(int, omp_set_nested)
FTN_GET(int, omp_get_nested)
FTN_GET(int, omp_get_thread_limit)
FTN_SET(int, omp_set_max_active_levels)
FTN_GET(int, omp_get_max_active_levels)
FTN_GET(int, omp_get_supported_active_levels)
FTN_GET(int, omp_get_level)
FTN_GET(int, omp_get_active_level)
FTN_GET(int, omp_in_final)
FTN_GET(int, omp_get_cancellation)
FTN_GET(int, omp_get_max_task_priority)
FTN_SET(int, omp_set_num_teams)
FTN_GET(int, omp_get_max_teams)
FTN_SET(int, omp_set_teams_thread_limit)
FTN_GET(int, omp_get_teams_thread_limit)
FTN_GET(int, omp_get_num_teams)
FTN_GET(int, omp_get_team_num)
FTN_GET(double, omp_get_wtime)
FTN_GET(double, omp_get_wtick)

KMP_EXPORT int omp_get_ancestor_thread_num_(const int *level)
{
    return omp_get_ancestor_thread_num(*level);
}

KMP_EXPORT int omp_get_team_size_(const int *level)
{
    return omp_get_team_size(*level);
}

KMP_EXPORT void omp_set_schedule_(const int *kind, const int *chunk)
{
    omp_set_schedule(*kind, *chunk);
}

KMP_EXPORT void omp_get_schedule_(int *kind, int *chunk)
{
    omp_get_schedule(kind, chunk);
}

/* --- places (libomp takes the place number by value) --- */
FTN_GET(int, omp_get_proc_bind)
FTN_GET(int, omp_get_num_places)
FTN_GET(int, omp_get_place_num)
FTN_GET(int, omp_get_partition_num_places)

KMP_EXPORT int omp_get_place_num_procs_(int place)
{
    return omp_get_place_num_procs(place);
}

KMP_EXPORT void omp_get_place_proc_ids_(int place, int *ids)
{
    omp_get_place_proc_ids(place, ids);
}

KMP_EXPORT void omp_get_partition_place_nums_(int *places)
{
    omp_get_partition_place_nums(places);
}

/* --- devices --- */
FTN_SET(int, omp_set_default_device)
FTN_GET(int, omp_get_default_device)
FTN_GET(int, omp_get_num_devices)
FTN_GET(int, omp_get_device_num)
FTN_GET(int, omp_is_initial_device)
FTN_GET(int, omp_get_initial_device)

KMP_EXPORT int omp_pause_resource_(int kind, int device)
{
    return omp_pause_resource(kind, device);
}

KMP_EXPORT int omp_pause_resource_all_(int kind)
{
    return omp_pause_resource_all(kind);
}

KMP_EXPORT void omp_display_env_(int verbose)
{
    omp_display_env(verbose);
}

KMP_EXPORT int omp_control_tool_(int command, int modifier, void *arg)
{
    return omp_control_tool(command, modifier, arg);
}

/* --- allocators (libomp: the handle by value, but for init's arguments) --- */
FTN_GET(uintptr_t, omp_get_default_allocator)

KMP_EXPORT uintptr_t omp_init_allocator_(const uintptr_t *memspace, const int *ntraits,
                                         const void *traits)
{
    return omp_init_allocator(*memspace, *ntraits, traits);
}

KMP_EXPORT void omp_destroy_allocator_(uintptr_t allocator)
{
    omp_destroy_allocator(allocator);
}

KMP_EXPORT void omp_set_default_allocator_(uintptr_t allocator)
{
    omp_set_default_allocator(allocator);
}

/* --- locks: the program's lock variable is C's omp_lock_t --- */
#define FTN_LOCK(name) \
    KMP_EXPORT void name##_(void **lock) { name(lock); }
FTN_LOCK(omp_init_lock)
FTN_LOCK(omp_destroy_lock)
FTN_LOCK(omp_set_lock)
FTN_LOCK(omp_unset_lock)
FTN_LOCK(omp_init_nest_lock)
FTN_LOCK(omp_destroy_nest_lock)
FTN_LOCK(omp_set_nest_lock)
FTN_LOCK(omp_unset_nest_lock)

KMP_EXPORT int omp_test_lock_(void **lock)
{
    return omp_test_lock(lock);
}

KMP_EXPORT int omp_test_nest_lock_(void **lock)
{
    return omp_test_nest_lock(lock);
}

KMP_EXPORT void omp_init_lock_with_hint_(void **lock, const uintptr_t *hint)
{
    omp_init_lock_with_hint(lock, (int)*hint);
}

KMP_EXPORT void omp_init_nest_lock_with_hint_(void **lock, const uintptr_t *hint)
{
    omp_init_nest_lock_with_hint(lock, (int)*hint);
}

/* --- affinity format: Fortran strings --- */

/* A Fortran string as a C string, on the heap (NULL when out of memory). */
static char *c_string(const char *s, size_t len)
{
    char *c = malloc(len + 1);
    if (c) {
        if (len)
            memcpy(c, s, len);
        c[len] = '\0';
        /* libomp copies with strncpy: a NUL inside ends the string */
    }
    return c;
}

/* src (len characters) into the program's buffer of size characters:
 * blank-padded when shorter, cut when longer, never NUL-terminated. */
static void to_fortran(char *buf, size_t size, const char *src, size_t len)
{
    if (!buf || !size)
        return;
    if (len >= size) {
        memcpy(buf, src, size);
    } else {
        memcpy(buf, src, len);
        memset(buf + len, ' ', size - len);
    }
}

KMP_EXPORT void omp_set_affinity_format_(const char *format, size_t len)
{
    char *c = c_string(format, len);
    if (c) {
        omp_set_affinity_format(c);
        free(c);
    }
}

KMP_EXPORT size_t omp_get_affinity_format_(char *buffer, size_t size)
{
    size_t n = omp_get_affinity_format(NULL, 0);
    char *c = malloc(n + 1);
    if (!c)
        return n;
    omp_get_affinity_format(c, n + 1);
    to_fortran(buffer, size, c, n);
    free(c);
    return n;
}

KMP_EXPORT void omp_display_affinity_(const char *format, size_t len)
{
    char *c = c_string(format, len);
    if (c) {
        omp_display_affinity(c);
        free(c);
    }
}

KMP_EXPORT size_t omp_capture_affinity_(char *buffer, const char *format, size_t size,
                                        size_t format_len)
{
    char *c = c_string(format, format_len);
    if (!c)
        return 0;
    char line[256];
    size_t n = omp_capture_affinity(line, sizeof line, c);
    if (n < sizeof line) {
        to_fortran(buffer, size, line, n);
    } else {
        /* a long line: captured again whole (the same thread, the same line) */
        char *big = malloc(n + 1);
        if (big) {
            n = omp_capture_affinity(big, n + 1, c);
            to_fortran(buffer, size, big, n);
            free(big);
        }
    }
    free(c);
    return n;
}

/* --- the kmp_* settings (extensions.c) --- */
FTN_SET(int, kmp_set_stacksize)
FTN_SET(size_t, kmp_set_stacksize_s)
FTN_GET(int, kmp_get_stacksize)
FTN_GET(size_t, kmp_get_stacksize_s)
FTN_SET(int, kmp_set_blocktime)
FTN_GET(int, kmp_get_blocktime)
FTN_SET(int, kmp_set_library)
FTN_DO(kmp_set_library_serial)
FTN_DO(kmp_set_library_turnaround)
FTN_DO(kmp_set_library_throughput)
FTN_GET(int, kmp_get_library)
FTN_SET(int, kmp_set_disp_num_buffers)
FTN_DO(kmp_set_warnings_on)
FTN_DO(kmp_set_warnings_off)
FTN_GET(int, kmp_get_num_known_threads)

/* libomp: the kind by value */
KMP_EXPORT int kmp_get_cancellation_status_(int kind)
{
    return kmp_get_cancellation_status(kind);
}

/* libomp declares the hidden length int; the compilers pass a size_t,
 * which the same register holds */
KMP_EXPORT void kmp_set_defaults_(const char *str, size_t len)
{
    char *c = c_string(str, len);
    if (c) {
        kmp_set_defaults(c);
        free(c);
    }
}

/* --- the kmp_malloc family: sizes and the pointer by reference --- */

KMP_EXPORT void *kmp_malloc_(const size_t *size)
{
    return kmp_malloc(*size);
}

KMP_EXPORT void *kmp_aligned_malloc_(const size_t *size, const size_t *alignment)
{
    return kmp_aligned_malloc(*size, *alignment);
}

KMP_EXPORT void *kmp_calloc_(const size_t *nelem, const size_t *elsize)
{
    return kmp_calloc(*nelem, *elsize);
}

KMP_EXPORT void *kmp_realloc_(void *const *ptr, const size_t *size)
{
    return kmp_realloc(*ptr, *size);
}

KMP_EXPORT void kmp_free_(void *const *ptr)
{
    kmp_free(*ptr);
}
