/*
 * target.c - target constructs on liblocus-gomp, run on the host as
 * libgomp runs them when it has no offloading device: GOMP_target_ext and
 * GOMP_target (the target region), GOMP_target_data(_ext),
 * GOMP_target_end_data, GOMP_target_update(_ext) and
 * GOMP_target_enter_exit_data (data mapping, nothing to do on the host but
 * honour depend and nowait), the device ICV and device queries
 * (omp_get_num_devices() == 0, the host is the initial device, number 0),
 * and the device memory routines on the host device (omp_target_alloc,
 * omp_target_free, omp_target_is_present, omp_target_memcpy(_rect),
 * omp_target_associate_ptr/disassociate_ptr, omp_pause_resource(_all)).
 *
 * A target region's host fallback (libgomp's gomp_target_fallback) runs
 * the region as a new initial task on the encountering thread: outside any
 * parallel region, team or league, with the initial ICVs and the thread
 * limit the construct gives, and with its own copies of the firstprivate
 * variables.  target nowait is a deferred task with the construct's depend
 * clause, spawned through GOMP_task, so it is a Locus task with Locus
 * dependencies (and NAFT places it by their addresses like any other).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gomp.h"

/* gcc's gomp-constants.h */
#define DEVICE_ICV           (-1)
#define DEVICE_HOST_FALLBACK (-2)
#define TARGET_FLAG_NOWAIT   (1u << 0)
#define MAP_FIRSTPRIVATE     12       /* GOMP_MAP_FLAG_SPECIAL | 0 */
#define ARG_DEVICE_MASK      ((1 << 7) - 1)
#define ARG_SUBSEQUENT_PARAM (1 << 7)
#define ARG_ID_MASK          (((1 << 8) - 1) << 8)
#define ARG_THREAD_LIMIT     (2 << 8)
#define ARG_VALUE_SHIFT      16
#define TF_DEPEND            (1u << 3)   /* GOMP_TASK_FLAG_DEPEND */

/* The host is the initial device; there is no other. */
#define INITIAL_DEVICE 0

/* OMP_TARGET_OFFLOAD=mandatory: a target construct for a device that does
 * not exist stops the program (as libgomp's resolve_device does). */
static int offload_mandatory;
static int default_device_env;               /* OMP_DEFAULT_DEVICE */
static __thread int default_device_set;      /* the thread changed its device-var */
static __thread int default_device;

__attribute__((constructor)) static void read_target_env(void)
{
    const char *s = getenv("OMP_DEFAULT_DEVICE");
    if (s && *s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || *end || v < 0 || v > INT_MAX)
            gomp_say("ignoring OMP_DEFAULT_DEVICE='%s': expected a "
                    "non-negative integer\n", s);
        else
            default_device_env = (int)v;
    }
    if ((s = getenv("OMP_TARGET_OFFLOAD")) && *s) {
        if (!strcasecmp(s, "mandatory"))
            offload_mandatory = 1;
        else if (strcasecmp(s, "default") && strcasecmp(s, "disabled"))
            gomp_say("ignoring OMP_TARGET_OFFLOAD='%s': expected "
                    "mandatory, disabled or default\n", s);
    }
}

int gomp_target_offload_mandatory(void)
{
    return offload_mandatory;
}

GOMP_EXPORT void omp_set_default_device(int device)
{
    default_device = device >= 0 ? device : 0;
    default_device_set = 1;
}

GOMP_EXPORT int omp_get_default_device(void)
{
    return default_device_set ? default_device : default_device_env;
}

GOMP_EXPORT int omp_get_num_devices(void)
{
    return 0;
}

GOMP_EXPORT int omp_get_initial_device(void)
{
    return INITIAL_DEVICE;
}

GOMP_EXPORT int omp_get_device_num(void)
{
    return INITIAL_DEVICE;   /* the host, where everything runs */
}

GOMP_EXPORT int omp_is_initial_device(void)
{
    return 1;
}

/*
 * Every construct runs on the host; a device number names no device but the
 * host (the initial device, or the host fallback), and any other runs on
 * the host too, unless OMP_TARGET_OFFLOAD=mandatory asks for a device that
 * is not there: then, as with libgomp, the program stops with that message.
 */
static void resolve_device(int device)
{
    if (device == DEVICE_ICV)
        device = omp_get_default_device();
    if (offload_mandatory && device != DEVICE_HOST_FALLBACK && device != INITIAL_DEVICE) {
        fprintf(stderr, "libgomp: OMP_TARGET_OFFLOAD is set to MANDATORY, but device "
                "not found\n");
        exit(EXIT_FAILURE);
    }
}

/* The thread_limit among a target construct's args (0: none). */
static int args_thread_limit(void **args)
{
    if (!args)
        return 0;
    while (*args) {
        intptr_t id = (intptr_t)*args++, val;
        if (id & ARG_SUBSEQUENT_PARAM)
            val = (intptr_t)*args++;
        else
            val = id >> ARG_VALUE_SHIFT;
        if ((id & ARG_DEVICE_MASK) != 0 || (id & ARG_ID_MASK) != ARG_THREAD_LIMIT)
            continue;
        return val > INT_MAX ? INT_MAX : val < 0 ? 0 : (int)val;
    }
    return 0;
}

/* Runs fn(hostaddrs) as a new initial task on this thread. */
static void run_region(void (*fn)(void *), void **hostaddrs, int thread_limit)
{
    struct gomp_thread saved = gomp_thr;
    struct lc_icvs saved_icvs = lc_task_icvs;
    int saved_dev = default_device, saved_dev_set = default_device_set;
    gomp_read_env();
    struct gomp_icv icv = gomp_icv_initial;   /* the initial task's ICVs */
    _Atomic int cg = 0;                       /* a new contention group */
    gomp_thr = (struct gomp_thread){ .teams.thread_limit = thread_limit, .teams.icv = &icv,
                                     .teams.cg_extra = &cg };
    lc_task_icvs = (struct lc_icvs){ 0 };
    default_device_set = 0;
    gomp_task_id_set(&saved);   /* an address unique while the region runs */
    fn(hostaddrs);
    gomp_thr = saved;
    lc_task_icvs = saved_icvs;
    default_device = saved_dev;
    default_device_set = saved_dev_set;
}

static bool is_firstprivate(unsigned short kind)
{
    return (kind & 0xff) == MAP_FIRSTPRIVATE;
}

static size_t fp_align(unsigned short kind)
{
    return (size_t)1 << (kind >> 8);
}

/* Bytes and alignment the firstprivate copies need, laid out in order. */
static size_t fp_layout(size_t mapnum, const size_t *sizes, const unsigned short *kinds,
                        size_t *align)
{
    size_t size = 0;
    *align = 1;
    for (size_t i = 0; i < mapnum; i++)
        if (is_firstprivate(kinds[i])) {
            size_t a = fp_align(kinds[i]);
            if (*align < a)
                *align = a;
            size = (size + a - 1) & ~(a - 1);
            size += sizes[i];
        }
    return size;
}

/* Copies the firstprivate variables into area (fp_layout's size, aligned)
 * and points hostaddrs at the copies. */
static void fp_copy(char *area, size_t mapnum, void **hostaddrs, const size_t *sizes,
                    const unsigned short *kinds)
{
    size_t off = 0;
    for (size_t i = 0; i < mapnum; i++)
        if (is_firstprivate(kinds[i])) {
            size_t a = fp_align(kinds[i]);
            off = (off + a - 1) & ~(a - 1);
            if (hostaddrs[i]) {
                memcpy(area + off, hostaddrs[i], sizes[i]);
                hostaddrs[i] = area + off;
            }
            off += sizes[i];
        }
}

/*
 * target nowait: the task's block, copied by GOMP_task.  Addresses inside
 * it are offsets, as the copy moves it: entry i is the variable's address,
 * or, for a firstprivate one, 1 + its copy's offset in the block.
 */
struct ttask {
    void (*fn)(void *);
    size_t mapnum;
    int thread_limit;
    size_t fp_off;        /* where the firstprivate copies start */
};
struct tentry {
    void *addr;
    size_t fp;            /* 0, or 1 + offset of the copy in the block */
};

static void run_ttask(void *arg)
{
    struct ttask *t = arg;
    struct tentry *e = (struct tentry *)(t + 1);
    void *hostaddrs[t->mapnum ? t->mapnum : 1];
    for (size_t i = 0; i < t->mapnum; i++)
        hostaddrs[i] = e[i].fp ? (char *)t + e[i].fp - 1 : e[i].addr;
    run_region(t->fn, hostaddrs, t->thread_limit);
}

static void spawn_target_task(void (*fn)(void *), size_t mapnum, void **hostaddrs,
                              size_t *sizes, unsigned short *kinds, void **depend,
                              int thread_limit)
{
    size_t align, fp_size = fp_layout(mapnum, sizes, kinds, &align);
    if (align < 16)
        align = 16;
    size_t head = sizeof(struct ttask) + mapnum * sizeof(struct tentry);
    size_t fp_off = (head + align - 1) & ~(align - 1);
    size_t total = fp_off + fp_size;
    struct ttask *t = aligned_alloc(align, (total + align - 1) & ~(align - 1));
    if (!t) {
        /* out of memory for the task: run it now, after its dependences */
        if (depend)
            GOMP_taskwait_depend(depend);
        char area[fp_size + align];
        fp_copy((char *)(((uintptr_t)area + align - 1) & ~(align - 1)), mapnum, hostaddrs,
                sizes, kinds);
        run_region(fn, hostaddrs, thread_limit);
        return;
    }
    *t = (struct ttask){ fn, mapnum, thread_limit, fp_off };
    struct tentry *e = (struct tentry *)(t + 1);
    size_t off = 0;
    for (size_t i = 0; i < mapnum; i++) {
        e[i] = (struct tentry){ hostaddrs[i], 0 };
        if (is_firstprivate(kinds[i])) {
            size_t a = fp_align(kinds[i]);
            off = (off + a - 1) & ~(a - 1);
            if (hostaddrs[i]) {
                memcpy((char *)t + fp_off + off, hostaddrs[i], sizes[i]);
                e[i].fp = 1 + fp_off + off;
            }
            off += sizes[i];
        }
    }
    GOMP_task(run_ttask, t, NULL, (long)total, (long)align, true, depend ? TF_DEPEND : 0,
              depend, 0, NULL);
    free(t);
}

GOMP_EXPORT void GOMP_target_ext(int device, void (*fn)(void *), size_t mapnum,
                                 void **hostaddrs, size_t *sizes, unsigned short *kinds,
                                 unsigned flags, void **depend, void **args)
{
    resolve_device(device);
    int limit = args_thread_limit(args);
    if (flags & TARGET_FLAG_NOWAIT) {
        spawn_target_task(fn, mapnum, hostaddrs, sizes, kinds, depend, limit);
        return;
    }
    /* undeferred: its dependences are met before it starts, and later
     * siblings are created after it has finished */
    if (depend)
        GOMP_taskwait_depend(depend);
    size_t align, fp_size = fp_layout(mapnum, sizes, kinds, &align);
    if (fp_size) {
        char area[fp_size + align];
        fp_copy((char *)(((uintptr_t)area + align - 1) & ~(align - 1)), mapnum, hostaddrs,
                sizes, kinds);
        run_region(fn, hostaddrs, limit);
    } else {
        run_region(fn, hostaddrs, limit);
    }
}

/* The OpenMP 4.0 ABI: no firstprivate maps, no clauses beyond the device. */
GOMP_EXPORT void GOMP_target(int device, void (*fn)(void *), const void *unused,
                             size_t mapnum, void **hostaddrs, size_t *sizes,
                             unsigned char *kinds)
{
    (void)unused;
    (void)mapnum;
    (void)sizes;
    (void)kinds;
    resolve_device(device);
    run_region(fn, hostaddrs, 0);
}

/* target data: the host's variables are the device's, nothing to map. */
GOMP_EXPORT void GOMP_target_data_ext(int device, size_t mapnum, void **hostaddrs,
                                      size_t *sizes, unsigned short *kinds)
{
    (void)mapnum;
    (void)hostaddrs;
    (void)sizes;
    (void)kinds;
    resolve_device(device);
}

GOMP_EXPORT void GOMP_target_data(int device, const void *unused, size_t mapnum,
                                  void **hostaddrs, size_t *sizes, unsigned char *kinds)
{
    (void)unused;
    (void)mapnum;
    (void)hostaddrs;
    (void)sizes;
    (void)kinds;
    resolve_device(device);
}

GOMP_EXPORT void GOMP_target_end_data(void)
{
}

static void nothing(void *arg)
{
    (void)arg;
}

/*
 * update, enter data, exit data: no data moves, but their depend clauses
 * order them among sibling tasks: with nowait an empty task with those
 * dependences (later tasks wait for it, and through it for its
 * predecessors), without it a wait for the predecessors.
 */
static void data_construct(int device, unsigned flags, void **depend)
{
    resolve_device(device);
    if (!depend)
        return;
    if (flags & TARGET_FLAG_NOWAIT)
        GOMP_task(nothing, NULL, NULL, 0, 1, true, TF_DEPEND, depend, 0, NULL);
    else
        GOMP_taskwait_depend(depend);
}

GOMP_EXPORT void GOMP_target_update_ext(int device, size_t mapnum, void **hostaddrs,
                                        size_t *sizes, unsigned short *kinds, unsigned flags,
                                        void **depend)
{
    (void)mapnum;
    (void)hostaddrs;
    (void)sizes;
    (void)kinds;
    data_construct(device, flags, depend);
}

GOMP_EXPORT void GOMP_target_update(int device, const void *unused, size_t mapnum,
                                    void **hostaddrs, size_t *sizes, unsigned char *kinds)
{
    (void)unused;
    (void)mapnum;
    (void)hostaddrs;
    (void)sizes;
    (void)kinds;
    resolve_device(device);
}

GOMP_EXPORT void GOMP_target_enter_exit_data(int device, size_t mapnum, void **hostaddrs,
                                             size_t *sizes, unsigned short *kinds,
                                             unsigned flags, void **depend)
{
    (void)mapnum;
    (void)hostaddrs;
    (void)sizes;
    (void)kinds;
    data_construct(device, flags, depend);
}

/* --- device memory routines: only the host device (the initial device)
 * exists; a call naming another gets libgomp's answer for a missing
 * device (NULL, 0 or EINVAL) --- */

GOMP_EXPORT void *omp_target_alloc(size_t size, int device)
{
    return device == INITIAL_DEVICE ? malloc(size) : NULL;
}

GOMP_EXPORT void omp_target_free(void *ptr, int device)
{
    if (ptr && device == INITIAL_DEVICE)
        free(ptr);
}

GOMP_EXPORT int omp_target_is_present(const void *ptr, int device)
{
    return !ptr || device == INITIAL_DEVICE;
}

GOMP_EXPORT int omp_target_memcpy(void *dst, const void *src, size_t length,
                                  size_t dst_offset, size_t src_offset, int dst_device,
                                  int src_device)
{
    if (dst_device != INITIAL_DEVICE || src_device != INITIAL_DEVICE)
        return EINVAL;
    memcpy((char *)dst + dst_offset, (const char *)src + src_offset, length);
    return 0;
}

static int memcpy_rect(char *dst, const char *src, size_t elem, int dims, const size_t *volume,
                       const size_t *dst_off, const size_t *src_off, const size_t *dst_dims,
                       const size_t *src_dims)
{
    size_t dst_slice = elem, src_slice = elem, d, s, len;
    if (dims == 1) {
        if (__builtin_mul_overflow(elem, volume[0], &len)
            || __builtin_mul_overflow(elem, dst_off[0], &d)
            || __builtin_mul_overflow(elem, src_off[0], &s))
            return EINVAL;
        memcpy(dst + d, src + s, len);
        return 0;
    }
    for (int i = 1; i < dims; i++)
        if (__builtin_mul_overflow(dst_slice, dst_dims[i], &dst_slice)
            || __builtin_mul_overflow(src_slice, src_dims[i], &src_slice))
            return EINVAL;
    if (__builtin_mul_overflow(dst_slice, dst_off[0], &d)
        || __builtin_mul_overflow(src_slice, src_off[0], &s))
        return EINVAL;
    for (size_t j = 0; j < volume[0]; j++) {
        int rc = memcpy_rect(dst + d, src + s, elem, dims - 1, volume + 1, dst_off + 1,
                             src_off + 1, dst_dims + 1, src_dims + 1);
        if (rc)
            return rc;
        d += dst_slice;
        s += src_slice;
    }
    return 0;
}

GOMP_EXPORT int omp_target_memcpy_rect(void *dst, const void *src, size_t elem, int dims,
                                       const size_t *volume, const size_t *dst_offsets,
                                       const size_t *src_offsets, const size_t *dst_dimensions,
                                       const size_t *src_dimensions, int dst_device,
                                       int src_device)
{
    if (!dst && !src)
        return INT_MAX;   /* the question "how many dimensions": any number */
    if (dst_device != INITIAL_DEVICE || src_device != INITIAL_DEVICE || dims < 1)
        return EINVAL;
    return memcpy_rect(dst, src, elem, dims, volume, dst_offsets, src_offsets, dst_dimensions,
                       src_dimensions);
}

/* Associating host memory with device memory needs a device that is not
 * the host: EINVAL for every device here, as libgomp answers for the host. */
GOMP_EXPORT int omp_target_associate_ptr(const void *host_ptr, const void *device_ptr,
                                         size_t size, size_t device_offset, int device)
{
    (void)host_ptr;
    (void)device_ptr;
    (void)size;
    (void)device_offset;
    (void)device;
    return EINVAL;
}

GOMP_EXPORT int omp_target_disassociate_ptr(const void *ptr, int device)
{
    (void)ptr;
    (void)device;
    return EINVAL;
}

/* Pausing the host: the worker pool this layer started stops, so that
 * its threads and their thread-local data go (the next parallel region
 * starts a fresh pool); as with libgomp, inside a parallel region it fails. */
GOMP_EXPORT int omp_pause_resource(int kind, int device)
{
    (void)kind;   /* soft and hard pauses both release the threads */
    if (device != INITIAL_DEVICE)
        return -1;
    if (gomp_thr.level)
        return -1;
    return gomp_pause_pool();
}

GOMP_EXPORT int omp_pause_resource_all(int kind)
{
    return omp_pause_resource(kind, INITIAL_DEVICE);
}
