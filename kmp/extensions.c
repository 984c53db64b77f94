/*
 * extensions.c - the C entry points libomp has besides OpenMP's: Intel's
 * ompc_* spellings of omp_* routines, the kmp_* settings (library mode,
 * block time, stack size, warnings), the runtime's own allocator and
 * pause entry points that clang may call, and the atomic lock of the
 * Intel compilers (__kmpc_atomic_start/end).
 *
 * Settings that have no meaning on Locus are accepted and answered
 * plainly: Locus's workers spin LOCUS_SPIN polls and then sleep (not
 * KMP_BLOCKTIME), their stacks are Locus's, and the library mode is
 * always throughput.  The __kmpc_atomic_<type>_<op> family: atomic.c.
 */
#include <stddef.h>
#include <stdint.h>

#include "kmp.h"
#include "runtime.h"

void omp_set_num_threads(int n);
void omp_set_dynamic(int v);
void omp_set_nested(int v);
void omp_set_max_active_levels(int v);
void omp_set_schedule(int kind, int chunk);
int omp_get_ancestor_thread_num(int level);
int omp_get_team_size(int level);
void omp_set_affinity_format(const char *format);
size_t omp_get_affinity_format(char *buffer, size_t size);
size_t omp_capture_affinity(char *buffer, size_t size, const char *format);
void omp_display_affinity(const char *format);
int omp_pause_resource_all(int kind);
uintptr_t omp_init_allocator(uintptr_t memspace, int ntraits, const void *traits);
void omp_destroy_allocator(uintptr_t allocator);
void omp_set_default_allocator(uintptr_t allocator);
uintptr_t omp_get_default_allocator(void);
int gomp_target_offload_mandatory(void);
kmp_int32 __kmpc_cancellationpoint(ident_t *loc, kmp_int32 gtid, kmp_int32 kind);
void GOMP_atomic_start(void);
void GOMP_atomic_end(void);

KMP_EXPORT void ompc_set_num_threads(int n)
{
    omp_set_num_threads(n);
}

KMP_EXPORT void ompc_set_dynamic(int v)
{
    omp_set_dynamic(v);
}

KMP_EXPORT void ompc_set_nested(int v)
{
    omp_set_nested(v);
}

KMP_EXPORT void ompc_set_max_active_levels(int v)
{
    omp_set_max_active_levels(v);
}

KMP_EXPORT void ompc_set_schedule(int kind, int chunk)
{
    omp_set_schedule(kind, chunk);
}

KMP_EXPORT int ompc_get_ancestor_thread_num(int level)
{
    return omp_get_ancestor_thread_num(level);
}

KMP_EXPORT int ompc_get_team_size(int level)
{
    return omp_get_team_size(level);
}

KMP_EXPORT void ompc_set_affinity_format(const char *format)
{
    omp_set_affinity_format(format);
}

KMP_EXPORT size_t ompc_get_affinity_format(char *buffer, size_t size)
{
    return omp_get_affinity_format(buffer, size);
}

KMP_EXPORT size_t ompc_capture_affinity(char *buffer, size_t size, const char *format)
{
    return omp_capture_affinity(buffer, size, format);
}

KMP_EXPORT void ompc_display_affinity(const char *format)
{
    omp_display_affinity(format);
}

/* --- kmp_* settings --- */
static int blocktime_ms = 200;   /* libomp's default, kept for kmp_get_blocktime */
static size_t stacksize;

KMP_EXPORT void kmp_set_blocktime(int ms)
{
    blocktime_ms = ms;
}

KMP_EXPORT int kmp_get_blocktime(void)
{
    return blocktime_ms;
}

KMP_EXPORT void kmpc_set_blocktime(int ms)
{
    kmp_set_blocktime(ms);
}

KMP_EXPORT void kmp_set_stacksize(int size)
{
    if (size > 0)
        stacksize = (size_t)size;
}

KMP_EXPORT void kmp_set_stacksize_s(size_t size)
{
    stacksize = size;
}

KMP_EXPORT void kmpc_set_stacksize(int size)
{
    kmp_set_stacksize(size);
}

KMP_EXPORT void kmpc_set_stacksize_s(size_t size)
{
    kmp_set_stacksize_s(size);
}

KMP_EXPORT int kmp_get_stacksize(void)
{
    return (int)stacksize;
}

KMP_EXPORT size_t kmp_get_stacksize_s(void)
{
    return stacksize;
}

/* library modes: 1 serial, 2 turnaround, 3 throughput (libomp's numbers) */
KMP_EXPORT void kmp_set_library(int mode)
{
    (void)mode;
}

KMP_EXPORT void kmp_set_library_serial(void)
{
}

KMP_EXPORT void kmp_set_library_turnaround(void)
{
}

KMP_EXPORT void kmp_set_library_throughput(void)
{
}

KMP_EXPORT void kmpc_set_library(int mode)
{
    (void)mode;
}

KMP_EXPORT int kmp_get_library(void)
{
    return 3;
}

KMP_EXPORT void kmp_set_defaults(const char *str)
{
    (void)str;
}

KMP_EXPORT void kmpc_set_defaults(const char *str)
{
    (void)str;
}

KMP_EXPORT void kmp_set_disp_num_buffers(int n)
{
    (void)n;
}

KMP_EXPORT void kmpc_set_disp_num_buffers(int n)
{
    (void)n;
}

KMP_EXPORT void kmp_set_warnings_on(void)
{
}

KMP_EXPORT void kmp_set_warnings_off(void)
{
}

/* libomp: whether cancellation of this kind (1 parallel, 2 loop, 3
 * sections, 4 taskgroup) is requested for the calling thread's innermost
 * such construct; the question __kmpc_cancellationpoint asks (sync.c),
 * which only reads. */
KMP_EXPORT int kmp_get_cancellation_status(int kind)
{
    return __kmpc_cancellationpoint(NULL, 0, kind);
}

/* libomp: the threads it has (__kmp_nth, read unsynchronized: "it can
 * change at any moment"); here the workers of the Locus runtime this
 * layer runs on, the initial thread among them, or 1 before the first
 * parallel region starts it.  Extra threads of nested teams (nest.c) are
 * not counted. */
KMP_EXPORT int kmp_get_num_known_threads(void)
{
    struct lc_runtime *rt = __atomic_load_n(&lc_rt, __ATOMIC_RELAXED);
    return rt ? rt->nworkers : 1;
}

/* --- what clang may call into the runtime for --- */

KMP_EXPORT void __kmpc_atomic_start(void)
{
    GOMP_atomic_start();
}

KMP_EXPORT void __kmpc_atomic_end(void)
{
    GOMP_atomic_end();
}

KMP_EXPORT int __kmpc_pause_resource(int kind)
{
    return omp_pause_resource_all(kind);
}

/* omp_target_offload_t: 0 disabled, 1 default, 2 mandatory */
KMP_EXPORT int __kmpc_get_target_offload(void)
{
    return gomp_target_offload_mandatory() ? 2 : 1;
}

KMP_EXPORT uintptr_t __kmpc_init_allocator(int gtid, uintptr_t memspace, int ntraits,
                                           const void *traits)
{
    (void)gtid;
    return omp_init_allocator(memspace, ntraits, traits);
}

KMP_EXPORT void __kmpc_destroy_allocator(int gtid, uintptr_t allocator)
{
    (void)gtid;
    omp_destroy_allocator(allocator);
}

KMP_EXPORT void __kmpc_set_default_allocator(int gtid, uintptr_t allocator)
{
    (void)gtid;
    omp_set_default_allocator(allocator);
}

KMP_EXPORT uintptr_t __kmpc_get_default_allocator(int gtid)
{
    (void)gtid;
    return omp_get_default_allocator();
}

/* omp_control_tool: no OMPT tool is attached to Locus */
KMP_EXPORT int omp_control_tool(int command, int modifier, void *arg)
{
    (void)command;
    (void)modifier;
    (void)arg;
    return -2;   /* omp_control_tool_notool */
}
