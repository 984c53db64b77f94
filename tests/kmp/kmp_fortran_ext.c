/*
 * kmp_fortran_ext.c - libomp's Fortran bindings (omp_*_ and kmp_*_), called
 * as a Fortran compiler calls them (integers by reference where libomp
 * takes them so, character arguments blank-padded with their lengths in
 * hidden trailing size_t arguments), checked against the C routines; and
 * libomp's C extensions: the kmp affinity-mask API, kmp_*_cancellation_
 * status, kmp_get_num_known_threads, the interop queries on the host and
 * ompt_start_tool (test_kmp runs it on libomp and on liblocus-omp).
 *
 * A failed check names itself on stderr and fails the program.  What is
 * printed is the same on libomp and Locus.  What libomp does not do the
 * same way is checked on Locus only (the program knows it runs there by
 * ALPI's entry points, which only liblocus-omp has): bad input to the
 * mask routines (libomp dereferences a NULL mask, or stops under
 * KMP_CONSISTENCY_CHECK) and the interop answers (libomp 14 without
 * libomptarget answers NULL names and leaves *ret_code alone; Locus gives
 * OpenMP 5.1's).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <omp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;
#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "FAILED line %d: %s\n", __LINE__, #cond);        \
            failures++;                                                      \
        }                                                                    \
    } while (0)

/* the Fortran bindings, as libomp's kmp_ftn_entry.h defines them */
void omp_set_num_threads_(int *);
int omp_get_num_threads_(void), omp_get_max_threads_(void), omp_get_thread_num_(void);
int omp_get_num_procs_(void), omp_in_parallel_(void), omp_get_dynamic_(void);
void omp_set_dynamic_(int *), omp_set_nested_(int *), omp_set_max_active_levels_(int *);
int omp_get_nested_(void), omp_get_thread_limit_(void), omp_get_max_active_levels_(void);
int omp_get_supported_active_levels_(void), omp_get_level_(void), omp_get_active_level_(void);
int omp_get_ancestor_thread_num_(int *), omp_get_team_size_(int *);
void omp_set_schedule_(int *, int *), omp_get_schedule_(int *, int *);
int omp_in_final_(void), omp_get_cancellation_(void), omp_get_max_task_priority_(void);
int omp_get_proc_bind_(void), omp_get_num_places_(void), omp_get_place_num_(void);
int omp_get_partition_num_places_(void), omp_get_place_num_procs_(int);
void omp_get_place_proc_ids_(int, int *), omp_get_partition_place_nums_(int *);
void omp_set_default_device_(int *);
int omp_get_default_device_(void), omp_get_num_devices_(void), omp_get_device_num_(void);
int omp_is_initial_device_(void), omp_get_initial_device_(void);
int omp_get_num_teams_(void), omp_get_team_num_(void), omp_get_max_teams_(void);
void omp_set_num_teams_(int *), omp_set_teams_thread_limit_(int *);
int omp_get_teams_thread_limit_(void);
double omp_get_wtime_(void), omp_get_wtick_(void);
int omp_pause_resource_all_(int), omp_control_tool_(int, int, void *);
void omp_display_env_(int);
omp_allocator_handle_t omp_init_allocator_(omp_memspace_handle_t *, int *, omp_alloctrait_t *);
void omp_destroy_allocator_(omp_allocator_handle_t), omp_set_default_allocator_(omp_allocator_handle_t);
omp_allocator_handle_t omp_get_default_allocator_(void);
void omp_init_lock_(void **), omp_destroy_lock_(void **), omp_set_lock_(void **);
void omp_unset_lock_(void **), omp_init_nest_lock_(void **), omp_destroy_nest_lock_(void **);
void omp_set_nest_lock_(void **), omp_unset_nest_lock_(void **);
int omp_test_lock_(void **), omp_test_nest_lock_(void **);
void omp_init_lock_with_hint_(void **, uintptr_t *), omp_init_nest_lock_with_hint_(void **, uintptr_t *);
void omp_set_affinity_format_(const char *, size_t);
size_t omp_get_affinity_format_(char *, size_t);
void omp_display_affinity_(const char *, size_t);
size_t omp_capture_affinity_(char *, const char *, size_t, size_t);
void kmp_set_stacksize_(int *), kmp_set_stacksize_s_(size_t *), kmp_set_blocktime_(int *);
int kmp_get_stacksize_(void), kmp_get_blocktime_(void), kmp_get_library_(void);
size_t kmp_get_stacksize_s_(void);
void kmp_set_library_(int *), kmp_set_library_serial_(void), kmp_set_library_turnaround_(void);
void kmp_set_library_throughput_(void), kmp_set_disp_num_buffers_(int *);
void kmp_set_warnings_on_(void), kmp_set_warnings_off_(void), kmp_set_defaults_(const char *, size_t);
int kmp_get_num_known_threads_(void), kmp_get_cancellation_status_(int);
void *kmp_malloc_(size_t *), *kmp_aligned_malloc_(size_t *, size_t *);
void *kmp_calloc_(size_t *, size_t *), *kmp_realloc_(void **, size_t *);
void kmp_free_(void **);
int kmp_get_affinity_max_proc_(void), kmp_set_affinity_(void **), kmp_get_affinity_(void **);
void kmp_create_affinity_mask_(void **), kmp_destroy_affinity_mask_(void **);
int kmp_set_affinity_mask_proc_(int *, void **), kmp_unset_affinity_mask_proc_(int *, void **);
int kmp_get_affinity_mask_proc_(int *, void **);
int omp_get_num_interop_properties_(const omp_interop_t);
omp_intptr_t omp_get_interop_int_(const omp_interop_t, omp_interop_property_t, int *);
void *omp_get_interop_ptr_(const omp_interop_t, omp_interop_property_t, int *);
const char *omp_get_interop_str_(const omp_interop_t, omp_interop_property_t, int *);
const char *omp_get_interop_name_(const omp_interop_t, omp_interop_property_t);
const char *omp_get_interop_type_desc_(const omp_interop_t, omp_interop_property_t);
const char *omp_get_interop_rc_desc_(const omp_interop_t, omp_interop_rc_t);
/* C entries omp.h does not declare */
int kmp_get_cancellation_status(int kind);
int kmp_get_num_known_threads(void);
int kmpc_set_affinity_mask_proc(int, void **), kmpc_unset_affinity_mask_proc(int, void **);
int kmpc_get_affinity_mask_proc(int, void **);
int kmp_set_thread_affinity_mask_initial(void);
void *ompt_start_tool(unsigned int omp_version, const char *runtime_version);

/* libomp's cancel kinds (kmp.h: cancel_parallel 1, ..., cancel_taskgroup 4) */
enum { cancel_parallel = 1, cancel_taskgroup = 4 };

static int on_locus;
static cpu_set_t process_mask;   /* the affinity the program started with */

static void icvs(void)
{
    int n = 3;
    omp_set_num_threads_(&n);
    CHECK(omp_get_max_threads() == 3 && omp_get_max_threads_() == 3);
    omp_set_num_threads(2);
    CHECK(omp_get_max_threads_() == 2);
    int one = 1, zero = 0, lv = 3;
    omp_set_dynamic_(&one);
    CHECK(omp_get_dynamic() == 1 && omp_get_dynamic_() == 1);
    omp_set_dynamic_(&zero);
    CHECK(omp_get_dynamic() == 0 && omp_get_dynamic_() == 0);
    omp_set_max_active_levels_(&lv);
    CHECK(omp_get_max_active_levels() == 3 && omp_get_max_active_levels_() == 3);
    omp_set_nested_(&one);
    CHECK(omp_get_nested_() == omp_get_nested() && omp_get_nested() == 1);
    omp_set_nested_(&zero);
    CHECK(omp_get_nested_() == omp_get_nested() && omp_get_nested() == 0);
    int kind = omp_sched_dynamic, chunk = 5, k = 0, c = 0;
    omp_set_schedule_(&kind, &chunk);
    omp_get_schedule((omp_sched_t *)&k, &c);
    CHECK(k == omp_sched_dynamic && c == 5);
    k = c = 0;
    omp_get_schedule_(&k, &c);
    CHECK(k == omp_sched_dynamic && c == 5);
    int t = 3, tl = 4, dev = 0;
    omp_set_num_teams_(&t);
    CHECK(omp_get_max_teams() == 3 && omp_get_max_teams_() == 3);
    omp_set_teams_thread_limit_(&tl);
    CHECK(omp_get_teams_thread_limit() == 4 && omp_get_teams_thread_limit_() == 4);
    omp_set_default_device_(&dev);
    CHECK(omp_get_default_device() == 0 && omp_get_default_device_() == 0);
    CHECK(omp_get_num_procs_() == omp_get_num_procs() && omp_get_num_procs() >= 1);
    CHECK(omp_get_thread_limit_() == omp_get_thread_limit());
    CHECK(omp_get_supported_active_levels_() == omp_get_supported_active_levels());
    CHECK(omp_get_max_task_priority_() == omp_get_max_task_priority());
    CHECK(omp_get_cancellation_() == omp_get_cancellation() && omp_get_cancellation() == 1);
    CHECK(omp_get_proc_bind_() == (int)omp_get_proc_bind());
    CHECK(omp_get_num_devices_() == omp_get_num_devices());
    CHECK(omp_get_device_num_() == omp_get_device_num());
    CHECK(omp_is_initial_device_() == 1 && omp_get_initial_device_() == omp_get_initial_device());
    CHECK(omp_get_num_teams_() == 1 && omp_get_team_num_() == 0);
    CHECK(omp_in_parallel_() == 0 && omp_get_level_() == 0 && omp_get_active_level_() == 0);
    CHECK(omp_in_final_() == omp_in_final());
    double a = omp_get_wtime_(), b = omp_get_wtime();
    CHECK(b >= a && b - a < 10.0);
    CHECK(omp_get_wtick_() == omp_get_wtick());
    printf("icvs: max threads %d, schedule %d/%d, max teams %d\n", omp_get_max_threads_(), k, c,
           omp_get_max_teams_());

    int np = omp_get_num_places_();
    CHECK(np == omp_get_num_places());
    for (int p = 0; p < np; p++) {
        int m = omp_get_place_num_procs_(p);
        CHECK(m == omp_get_place_num_procs(p));
        int ids[m + 1], cids[m + 1];
        omp_get_place_proc_ids_(p, ids);
        omp_get_place_proc_ids(p, cids);
        CHECK(!memcmp(ids, cids, sizeof(int) * (size_t)m));
    }
    CHECK(omp_get_place_num_() == omp_get_place_num());
    int pp = omp_get_partition_num_places_();
    CHECK(pp == omp_get_partition_num_places());
    if (pp > 0) {
        int f[pp], cf[pp];
        omp_get_partition_place_nums_(f);
        omp_get_partition_place_nums(cf);
        CHECK(!memcmp(f, cf, sizeof f));
    }

    int bad = 0;
#pragma omp parallel num_threads(2) reduction(+ : bad)
    {
        int level = 1;
        bad += omp_get_thread_num_() != omp_get_thread_num();
        bad += omp_get_num_threads_() != omp_get_num_threads();
        bad += omp_in_parallel_() != omp_in_parallel();
        bad += omp_get_level_() != 1 || omp_get_active_level_() != omp_get_active_level();
        bad += omp_get_ancestor_thread_num_(&level) != omp_get_thread_num();
        bad += omp_get_team_size_(&level) != omp_get_num_threads();
    }
    CHECK(bad == 0);
}

static void locks(void)
{
    void *lk;
    omp_init_lock_(&lk);
    CHECK(omp_test_lock_(&lk) == 1);
    CHECK(omp_test_lock((omp_lock_t *)&lk) == 0);   /* the same storage as C's lock */
    omp_unset_lock_(&lk);
    CHECK(omp_test_lock((omp_lock_t *)&lk) == 1);
    omp_unset_lock((omp_lock_t *)&lk);
    long count = 0;
#pragma omp parallel num_threads(4)
    for (int i = 0; i < 1000; i++) {
        omp_set_lock_(&lk);
        count++;
        omp_unset_lock_(&lk);
    }
    CHECK(count == 4000 || count == 1000 * omp_get_max_threads());
    omp_destroy_lock_(&lk);

    uintptr_t hint = omp_lock_hint_contended;
    omp_init_lock_with_hint_(&lk, &hint);
    CHECK(omp_test_lock_(&lk) == 1 && omp_test_lock_(&lk) == 0);
    omp_unset_lock_(&lk);
    omp_destroy_lock_(&lk);

    void *nl;
    omp_init_nest_lock_(&nl);
    omp_set_nest_lock_(&nl);
    omp_set_nest_lock_(&nl);
    CHECK(omp_test_nest_lock_(&nl) == 3);
    CHECK(omp_test_nest_lock((omp_nest_lock_t *)&nl) == 4);
    omp_unset_nest_lock((omp_nest_lock_t *)&nl);
    for (int i = 0; i < 3; i++)
        omp_unset_nest_lock_(&nl);
    int other = -1;
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 1)
        other = omp_test_nest_lock_(&nl);   /* free again: another thread gets it */
    CHECK(other == 1);
    omp_unset_nest_lock((omp_nest_lock_t *)&nl);
    omp_destroy_nest_lock_(&nl);
    omp_init_nest_lock_with_hint_(&nl, &hint);
    CHECK(omp_test_nest_lock_(&nl) == 1);
    omp_unset_nest_lock_(&nl);
    omp_destroy_nest_lock_(&nl);
    printf("locks: count %ld\n", count);
}

/* The Fortran strings: blank-padded, not NUL-terminated, hidden lengths. */
static void affinity_format(void)
{
    char fmt[] = "T%n/%NXXXX";   /* a Fortran string of 6 characters, then others */
    omp_set_affinity_format_(fmt, 6);
    char c[64];
    CHECK(omp_get_affinity_format(c, sizeof c) == 6 && !strcmp(c, "T%n/%N"));
    char f[12];
    memset(f, '#', sizeof f);
    CHECK(omp_get_affinity_format_(f, 10) == 6);
    CHECK(!memcmp(f, "T%n/%N    ##", 12));   /* padded to 10, nothing past it */
    /* a cut answer: libomp 14 asserts that the buffer's last character was
     * NUL before the call (its __kmp_fortran_strncpy_truncate), so it is */
    memset(f, '#', sizeof f);
    f[2] = '\0';
    CHECK(omp_get_affinity_format_(f, 3) == 6);
    CHECK(!memcmp(f, "T%n#", 4));           /* cut to 3, no NUL */

    char cap[24], want[64];
    memset(cap, '#', sizeof cap);
    size_t n = omp_capture_affinity_(cap, "L%L.%nZZZ", 20, 6);
    size_t cn = omp_capture_affinity(want, sizeof want, "L%L.%n");
    CHECK(n == cn && n < 20);
    CHECK(!memcmp(cap, want, n));
    for (size_t i = n; i < 20; i++)
        CHECK(cap[i] == ' ');
    CHECK(cap[20] == '#');
    memset(cap, '#', sizeof cap);
    cap[1] = '\0';
    CHECK(omp_capture_affinity_(cap, "L%L.%n", 2, 6) == cn && !memcmp(cap, want, 2) &&
          cap[2] == '#');
    /* the ICV's format when the format is empty */
    n = omp_capture_affinity_(cap, "", 20, 0);
    CHECK(n == omp_capture_affinity(want, sizeof want, NULL) && !memcmp(cap, want, n));
    int bad = 0;
#pragma omp parallel num_threads(2) reduction(+ : bad)
    {
        char mine[32], cmine[32];
        size_t m = omp_capture_affinity_(mine, "%n of %N", sizeof mine, 8);
        size_t cm = omp_capture_affinity(cmine, sizeof cmine, "%n of %N");
        bad += m != cm || memcmp(mine, cmine, m) || mine[m] != ' ';
    }
    CHECK(bad == 0);
    printf("capture: %.*s\n", (int)cn, want);
    fflush(stdout);
    omp_display_affinity_("D%L.%nYY", 6);
    fflush(stdout);
}

static void kmp_settings(void)
{
    int bt = 0;
    kmp_set_blocktime_(&bt);
    CHECK(kmp_get_blocktime() == 0 && kmp_get_blocktime_() == 0);
    bt = 50;
    kmp_set_blocktime_(&bt);
    CHECK(kmp_get_blocktime() == 50 && kmp_get_blocktime_() == 50);
    int st = 1 << 21;
    size_t sts = (size_t)1 << 22;
    kmp_set_stacksize_(&st);
    CHECK(kmp_get_stacksize_() == kmp_get_stacksize());
    kmp_set_stacksize_s_(&sts);
    CHECK(kmp_get_stacksize_s_() == kmp_get_stacksize_s());
    int lib = 3;   /* throughput */
    kmp_set_library_(&lib);
    kmp_set_library_throughput_();
    CHECK(kmp_get_library_() == kmp_get_library() && kmp_get_library() == 3);
    int nb = 7;
    kmp_set_disp_num_buffers_(&nb);
    kmp_set_warnings_off_();
    kmp_set_warnings_on_();
    kmp_set_defaults_("KMP_WARNINGS=1", 14);
    kmp_set_blocktime_(&bt);
    printf("kmp: blocktime %d library %d\n", kmp_get_blocktime_(), kmp_get_library_());

    size_t sz = 100, al = 64, big = 4000, one = 1;
    void *p = kmp_aligned_malloc_(&sz, &al);
    CHECK(p && (uintptr_t)p % 64 == 0);
    memset(p, 7, sz);
    p = kmp_realloc_(&p, &big);
    CHECK(p && ((unsigned char *)p)[99] == 7);
    kmp_free_(&p);
    p = kmp_calloc_(&sz, &one);
    CHECK(p && ((char *)p)[0] == 0 && ((char *)p)[99] == 0);
    kmp_free_(&p);
    p = kmp_malloc_(&sz);
    CHECK(p != NULL);
    kmp_free_(&p);

    omp_memspace_handle_t ms = omp_default_mem_space;
    omp_alloctrait_t tr[1] = { { omp_atk_alignment, 256 } };
    int nt = 1;
    omp_allocator_handle_t a = omp_init_allocator_(&ms, &nt, tr);
    CHECK(a != omp_null_allocator);
    void *q = omp_alloc(10, a);
    CHECK(q && (uintptr_t)q % 256 == 0);
    omp_free(q, a);
    omp_set_default_allocator_(a);
    CHECK(omp_get_default_allocator() == a && omp_get_default_allocator_() == a);
    omp_set_default_allocator_(omp_default_mem_alloc);
    CHECK(omp_get_default_allocator_() == omp_default_mem_alloc);
    omp_destroy_allocator_(a);
    CHECK(omp_control_tool_(omp_control_tool_flush, 0, NULL) == omp_control_tool(omp_control_tool_flush, 0, NULL));
}

/* OMP_CANCELLATION is true (set before the first OpenMP call). */
static void cancellation(void)
{
    CHECK(kmp_get_cancellation_status(cancel_taskgroup) == 0);
    CHECK(kmp_get_cancellation_status_(cancel_parallel) == 0);
    int st = -1, fst = -1;
#pragma omp parallel num_threads(2)
#pragma omp single
#pragma omp taskgroup
    {
#pragma omp task
        {
#pragma omp cancel taskgroup
        }
#pragma omp taskwait
        st = kmp_get_cancellation_status(cancel_taskgroup);
        fst = kmp_get_cancellation_status_(cancel_taskgroup);
    }
    CHECK(st == 1 && fst == 1);
    int known = kmp_get_num_known_threads();
    CHECK(known >= 1 && kmp_get_num_known_threads_() == known);
    printf("cancellation: taskgroup %d/%d\n", st, fst);
}

static int allowed_count(void)
{
    cpu_set_t s;
    return sched_getaffinity(0, sizeof s, &s) == 0 ? CPU_COUNT(&s) : -1;
}

static void affinity(void)
{
    long conf = sysconf(_SC_NPROCESSORS_CONF);
    int max = kmp_get_affinity_max_proc();
    CHECK(max == (conf > CPU_SETSIZE ? CPU_SETSIZE : conf));
    CHECK(kmp_get_affinity_max_proc_() == max);
    cpu_set_t initial;   /* this thread's now: Locus may have bound it */
    CHECK(sched_getaffinity(0, sizeof initial, &initial) == 0);

    kmp_affinity_mask_t m = NULL, one = NULL, empty = NULL, got = NULL;
    kmp_create_affinity_mask(&m);
    kmp_create_affinity_mask_(&one);
    kmp_create_affinity_mask_(&empty);
    kmp_create_affinity_mask(&got);
    CHECK(m && one && empty && got);
    CHECK(kmp_get_affinity(&m) == 0);
    int inmask = 0, first = -1, unavailable = -1;
    for (int i = 0; i < max; i++) {
        int c = kmp_get_affinity_mask_proc(i, &m);
        CHECK(c == (CPU_ISSET(i, &initial) ? 1 : 0));
        CHECK(kmp_get_affinity_mask_proc_(&i, &m) == c && kmpc_get_affinity_mask_proc(i, &m) == c);
        CHECK(kmp_get_affinity_mask_proc_(&i, &one) == 0);
        inmask += c;
        if (c && first < 0)
            first = i;
        if (!CPU_ISSET(i, &process_mask) && unavailable < 0)
            unavailable = i;
    }
    CHECK(inmask == allowed_count() && first >= 0);

    CHECK(kmp_set_affinity_mask_proc_(&first, &one) == 0);
    CHECK(kmp_get_affinity_mask_proc(first, &one) == 1);
    CHECK(kmp_unset_affinity_mask_proc_(&first, &one) == 0);
    CHECK(kmp_get_affinity_mask_proc_(&first, &one) == 0);
    CHECK(kmpc_set_affinity_mask_proc(first, &one) == 0 && kmp_get_affinity_mask_proc(first, &one) == 1);
    CHECK(kmpc_unset_affinity_mask_proc(first, &one) == 0 && kmp_get_affinity_mask_proc(first, &one) == 0);
    CHECK(kmp_set_affinity_mask_proc(first, &one) == 0);

    /* out of range: -1; not in the process's affinity: -2 */
    int neg = -1;
    CHECK(kmp_set_affinity_mask_proc(-1, &one) == -1 && kmp_set_affinity_mask_proc(max, &one) == -1);
    CHECK(kmp_unset_affinity_mask_proc(-1, &one) == -1 && kmp_unset_affinity_mask_proc(max, &one) == -1);
    CHECK(kmp_get_affinity_mask_proc(-1, &one) == -1 && kmp_get_affinity_mask_proc(max, &one) == -1);
    CHECK(kmp_set_affinity_mask_proc_(&neg, &one) == -1 && kmp_get_affinity_mask_proc_(&max, &one) == -1);
    CHECK(kmpc_set_affinity_mask_proc(max, &one) == -1 && kmpc_unset_affinity_mask_proc(-5, &one) == -1);
    if (unavailable >= 0) {
        CHECK(kmp_set_affinity_mask_proc(unavailable, &one) == -2);
        CHECK(kmp_unset_affinity_mask_proc_(&unavailable, &one) == -2);
        CHECK(kmp_get_affinity_mask_proc(unavailable, &one) == 0);
    }

    /* binding the calling thread, and back */
    CHECK(kmp_set_affinity_(&one) == 0);
    cpu_set_t now;
    CHECK(sched_getaffinity(0, sizeof now, &now) == 0 && CPU_COUNT(&now) == 1 && CPU_ISSET(first, &now));
    CHECK(kmp_get_affinity_(&got) == 0 && kmp_get_affinity_mask_proc(first, &got) == 1);
    int ngot = 0;
    for (int i = 0; i < max; i++)
        ngot += kmp_get_affinity_mask_proc(i, &got) == 1;
    CHECK(ngot == 1);
    CHECK(kmp_set_affinity(&empty) == EINVAL);   /* sched_setaffinity's answer */
    CHECK(kmp_set_affinity(&m) == 0 && allowed_count() == inmask);
    CHECK(kmp_set_affinity(&one) == 0 && allowed_count() == 1);
    CHECK(kmp_set_thread_affinity_mask_initial() == 0);
    CHECK(sched_getaffinity(0, sizeof now, &now) == 0 && CPU_EQUAL(&now, &process_mask));
    CHECK(kmp_set_affinity(&m) == 0 && allowed_count() == inmask);   /* as it was */

    kmp_destroy_affinity_mask_(&one);
    CHECK(one == NULL);
    kmp_destroy_affinity_mask(&m);
    kmp_destroy_affinity_mask(&empty);
    kmp_destroy_affinity_mask_(&got);
    printf("affinity: max proc is the configured count, %s\n",
           unavailable >= 0 ? "some procs unavailable" : "every proc available");

    if (!on_locus)
        return;
    /* bad input answers an error, where libomp crashes or stops */
    kmp_affinity_mask_t none = NULL;
    CHECK(kmp_set_affinity_mask_proc(0, NULL) == -1 && kmp_set_affinity_mask_proc(0, &none) == -1);
    CHECK(kmp_unset_affinity_mask_proc(0, &none) == -1 && kmp_get_affinity_mask_proc(0, &none) == -1);
    CHECK(kmp_set_affinity_mask_proc_(&first, &none) == -1 && kmpc_get_affinity_mask_proc(0, NULL) == -1);
    CHECK(kmp_set_affinity(&none) == EINVAL && kmp_get_affinity(NULL) == EINVAL);
    CHECK(kmp_set_affinity_(NULL) == EINVAL && kmp_get_affinity_(&none) == EINVAL);
    kmp_destroy_affinity_mask(&none);
    kmp_destroy_affinity_mask(NULL);
    kmp_create_affinity_mask(NULL);
    CHECK(allowed_count() == inmask);
}

static void interop(void)
{
    CHECK(omp_get_num_interop_properties(omp_interop_none) == 0);
    CHECK(omp_get_num_interop_properties_(omp_interop_none) == 0);
    int rc[6] = { 99, 99, 99, 99, 99, 99 };
    CHECK(omp_get_interop_int(omp_interop_none, omp_ipr_fr_id, &rc[0]) == 0);
    CHECK(omp_get_interop_ptr(omp_interop_none, omp_ipr_device, &rc[1]) == NULL);
    CHECK(omp_get_interop_str(omp_interop_none, omp_ipr_vendor_name, &rc[2]) == NULL);
    CHECK(omp_get_interop_int_(omp_interop_none, omp_ipr_device_num, &rc[3]) == 0);
    CHECK(omp_get_interop_ptr_(omp_interop_none, omp_ipr_targetsync, &rc[4]) == NULL);
    CHECK(omp_get_interop_str_(omp_interop_none, omp_ipr_fr_name, &rc[5]) == NULL);
    CHECK(ompt_start_tool(201611, "test") == NULL);
    printf("interop: no properties, no values\n");
    if (!on_locus)
        return;
    for (int i = 0; i < 6; i++)
        CHECK(rc[i] == omp_irc_empty);
    static const char *const names[] = { "fr_id", "fr_name", "vendor", "vendor_name",
                                         "device_num", "platform", "device",
                                         "device_context", "targetsync" };
    for (int id = -1; id >= omp_ipr_first; id--) {
        const char *name = omp_get_interop_name(omp_interop_none, id);
        CHECK(name && !strcmp(name, names[-id - 1]));
        CHECK(omp_get_interop_name_(omp_interop_none, id) == name);
        const char *t = omp_get_interop_type_desc(omp_interop_none, id);
        CHECK(t && omp_get_interop_type_desc_(omp_interop_none, id) == t);
    }
    CHECK(strstr(omp_get_interop_type_desc(omp_interop_none, omp_ipr_device), "void *"));
    CHECK(omp_get_interop_name(omp_interop_none, 0) == NULL);
    CHECK(omp_get_interop_name(omp_interop_none, omp_ipr_first - 1) == NULL);
    CHECK(omp_get_interop_type_desc_(omp_interop_none, 5) == NULL);
    for (int r = omp_irc_other; r <= omp_irc_no_value; r++)
        CHECK(omp_get_interop_rc_desc(omp_interop_none, r) != NULL &&
              omp_get_interop_rc_desc_(omp_interop_none, r) == omp_get_interop_rc_desc(omp_interop_none, r));
    CHECK(strstr(omp_get_interop_rc_desc(omp_interop_none, omp_irc_empty), "omp_interop_none"));
    CHECK(omp_get_interop_rc_desc(omp_interop_none, omp_irc_other - 1) == NULL);
    CHECK(omp_get_interop_rc_desc(omp_interop_none, omp_irc_no_value + 1) == NULL);
}

int main(int argc, char **argv)
{
    /* Started again, before any OpenMP call: with cancellation on (libomp
     * reads the environment before main), and on all but the last of its
     * CPUs, so that a proc outside the process's affinity exists (-2). */
    if (argc > 0 && !getenv("OMP_CANCELLATION")) {
        setenv("OMP_CANCELLATION", "true", 1);
        cpu_set_t s;
        if (sched_getaffinity(0, sizeof s, &s) == 0 && CPU_COUNT(&s) >= 2) {
            int last = -1;
            for (int i = 0; i < CPU_SETSIZE; i++)
                if (CPU_ISSET(i, &s))
                    last = i;
            CPU_CLR(last, &s);
            sched_setaffinity(0, sizeof s, &s);
        }
        execv("/proc/self/exe", argv);
        perror("execv /proc/self/exe");
        return 2;
    }
    sched_getaffinity(0, sizeof process_mask, &process_mask);
    on_locus = dlsym(RTLD_DEFAULT, "alpi_attr_create") != NULL;
    icvs();
    locks();
    affinity_format();
    kmp_settings();
    cancellation();
    affinity();
    interop();
    omp_display_env_(0);   /* to stderr, which is not compared */
    CHECK(omp_pause_resource_all_(omp_pause_soft) == 0);
    if (failures)
        fprintf(stderr, "%d checks failed on %s\n", failures, on_locus ? "Locus" : "libomp");
    printf("done\n");
    return failures != 0;
}
