/*
 * icv.c - OpenMP's internal control variables under Locus: the OMP_*
 * environment variables the layer honours (OMP_NUM_THREADS, OMP_SCHEDULE,
 * OMP_DYNAMIC, OMP_MAX_ACTIVE_LEVELS, OMP_MAX_TASK_PRIORITY) and the omp_* query and setting
 * routines of the C API.  A bad value gets a message naming it and the
 * default, as libgomp does; it never stops the program.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "env.h"
#include "gomp.h"
#include "runtime.h"

struct gomp_icv gomp_icv = { .nthreads = 0, .run_sched = GS_DYNAMIC, .run_chunk = 1,
                              .dynamic = 0, .max_active_levels = 1, .max_task_priority = 0,
                              .cancellation = 0 };
struct gomp_icv gomp_icv_initial;

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    while (*end == ' ' || *end == '\t')
        end++;
    if (errno || end == s || (*end && *end != ',') || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static void bad(const char *name, const char *val, const char *expect)
{
    fprintf(stderr, "liblocus-gomp: ignoring %s='%s': expected %s\n", name, val, expect);
}

static void read_schedule(const char *s)
{
    static const struct { const char *name; int kind; } kinds[] = {
        { "static", GS_STATIC }, { "dynamic", GS_DYNAMIC },
        { "guided", GS_GUIDED }, { "auto", GS_AUTO },
    };
    const char *p = s;
    while (*p == ' ')
        p++;
    /* OpenMP 5.0 modifiers: accepted, and monotonicity changes nothing here */
    if (!strncasecmp(p, "monotonic:", 10))
        p += 10;
    else if (!strncasecmp(p, "nonmonotonic:", 13))
        p += 13;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t len = strlen(kinds[i].name);
        if (strncasecmp(p, kinds[i].name, len) || (p[len] && p[len] != ',' && p[len] != ' '))
            continue;
        long chunk = 0;
        const char *c = strchr(p + len, ',');
        if (c && parse_long(c + 1, 1, 1L << 30, &chunk) < 0)
            break;
        gomp_icv.run_sched = kinds[i].kind;
        gomp_icv.run_chunk = (int)chunk;
        return;
    }
    bad("OMP_SCHEDULE", s, "static, dynamic, guided or auto, then optionally ,CHUNK");
}

static int read_bool(const char *name, const char *s, int *out)
{
    if (!strcasecmp(s, "true") || !strcmp(s, "1"))
        *out = 1;
    else if (!strcasecmp(s, "false") || !strcmp(s, "0"))
        *out = 0;
    else {
        bad(name, s, "true or false");
        return -1;
    }
    return 0;
}

void gomp_read_env(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    const char *s;
    long v;
    if ((s = getenv("OMP_NUM_THREADS")) && *s) {
        /* a list gives the nested levels' counts; nested regions here have
         * one thread, so only the first value matters */
        if (parse_long(s, 1, LC_MAX_WORKERS, &v) == 0)
            gomp_icv.nthreads = (int)v;
        else
            bad("OMP_NUM_THREADS", s, "a positive integer (or a list of them)");
    }
    if ((s = getenv("OMP_SCHEDULE")) && *s)
        read_schedule(s);
    if ((s = getenv("OMP_DYNAMIC")) && *s)
        read_bool("OMP_DYNAMIC", s, &gomp_icv.dynamic);
    if ((s = getenv("OMP_CANCELLATION")) && *s)
        read_bool("OMP_CANCELLATION", s, &gomp_icv.cancellation);
    if ((s = getenv("OMP_MAX_ACTIVE_LEVELS")) && *s) {
        if (parse_long(s, 0, 1L << 30, &v) == 0)
            gomp_icv.max_active_levels = (int)v;
        else
            bad("OMP_MAX_ACTIVE_LEVELS", s, "a non-negative integer");
    }
    if ((s = getenv("OMP_MAX_TASK_PRIORITY")) && *s) {
        if (parse_long(s, 0, INT_MAX, &v) == 0)
            gomp_icv.max_task_priority = (int)v;
        else
            bad("OMP_MAX_TASK_PRIORITY", s, "a non-negative integer");
    }
    gomp_icv_initial = gomp_icv;
}

struct gomp_icv *gomp_cur_icv(void)
{
    gomp_read_env();
    return gomp_thr.teams.icv ? gomp_thr.teams.icv : &gomp_icv;
}

int gomp_nthreads_var(void)
{
    gomp_read_env();
    return gomp_thr.nthreads_var ? gomp_thr.nthreads_var : gomp_icv.nthreads;
}

/* --- omp_* routines (OMP_1.0 and later) --- */

GOMP_EXPORT int omp_get_thread_num(void)
{
    return gomp_thr.team ? gomp_thr.id : 0;
}

GOMP_EXPORT int omp_get_num_threads(void)
{
    return gomp_thr.team ? gomp_thr.team->nthreads : 1;
}

GOMP_EXPORT int omp_get_max_threads(void)
{
    /* the task's nthreads-var, as libgomp answers, even where a nested
     * region would get one thread */
    int n = gomp_nthreads_var();
    if (n > 0)
        return n;
    /* the runtime's own default (LOCUS_THREADS, else the CPUs): ask it */
    if (gomp_ensure_runtime(0) == 0 && lc_rt)
        return lc_rt->nworkers;
    return 1;
}

GOMP_EXPORT void omp_set_num_threads(int n)
{
    gomp_thr.nthreads_var = n > 0 ? (n > LC_MAX_WORKERS ? LC_MAX_WORKERS : n) : 1;
}

GOMP_EXPORT int omp_get_thread_limit(void)
{
    return gomp_thread_limit();   /* teams.c: set by teams and target regions */
}

GOMP_EXPORT int omp_in_parallel(void)
{
    return gomp_thr.active_level > 0;
}

GOMP_EXPORT int omp_get_num_procs(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

GOMP_EXPORT double omp_get_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

GOMP_EXPORT double omp_get_wtick(void)
{
    struct timespec ts;
    clock_getres(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

GOMP_EXPORT void omp_set_dynamic(int v)
{
    gomp_cur_icv()->dynamic = v != 0;
}

GOMP_EXPORT int omp_get_dynamic(void)
{
    return gomp_cur_icv()->dynamic;
}

GOMP_EXPORT void omp_set_nested(int v)
{
    (void)v;   /* nested regions have one thread here */
}

GOMP_EXPORT int omp_get_nested(void)
{
    return 0;
}

GOMP_EXPORT void omp_set_max_active_levels(int v)
{
    if (v >= 0)
        gomp_cur_icv()->max_active_levels = v;
}

GOMP_EXPORT int omp_get_max_active_levels(void)
{
    return gomp_cur_icv()->max_active_levels;
}

GOMP_EXPORT int omp_get_supported_active_levels(void)
{
    return 1;
}

GOMP_EXPORT int omp_get_level(void)
{
    return (int)gomp_thr.level;
}

GOMP_EXPORT int omp_get_active_level(void)
{
    return (int)gomp_thr.active_level;
}

/* Ancestor numbers and team sizes: the only active level is the team's. */
GOMP_EXPORT int omp_get_ancestor_thread_num(int level)
{
    if (level < 0 || level > (int)gomp_thr.level)
        return -1;
    /* level 0 is the initial thread, and the levels other than the
     * active team's are regions of one thread: thread number 0 */
    return gomp_thr.team && level == (int)gomp_thr.level ? gomp_thr.id : 0;
}

GOMP_EXPORT int omp_get_team_size(int level)
{
    if (level < 0 || level > (int)gomp_thr.level)
        return -1;
    return gomp_thr.team && level == (int)gomp_thr.level ? gomp_thr.team->nthreads : 1;
}

GOMP_EXPORT void omp_set_schedule(int kind, int chunk)
{
    int k = kind & 0x7fffffff;   /* drop the monotonic modifier bit */
    if (k < GS_STATIC || k > GS_AUTO)
        return;
    struct gomp_icv *icv = gomp_cur_icv();
    icv->run_sched = k;
    icv->run_chunk = chunk > 0 ? chunk : 0;
}

GOMP_EXPORT void omp_get_schedule(int *kind, int *chunk)
{
    const struct gomp_icv *icv = gomp_cur_icv();
    *kind = icv->run_sched;
    *chunk = icv->run_chunk ? icv->run_chunk : 1;
}

GOMP_EXPORT int omp_in_final(void)
{
    return gomp_thr.in_final;
}

GOMP_EXPORT int omp_get_max_task_priority(void)
{
    gomp_read_env();
    return gomp_icv.max_task_priority;
}

GOMP_EXPORT int omp_get_cancellation(void)
{
    gomp_read_env();
    return gomp_icv.cancellation;
}


