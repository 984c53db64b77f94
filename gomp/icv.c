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

/* Nested regions get teams of their own (parallel.c, nest.c) down to this
 * many active levels, libgomp's figure. */
#define SUPPORTED_LEVELS 255

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
    gomp_say("ignoring %s='%s': expected %s\n", name, val, expect);
}

static const char *skip_space(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* OMP_SCHEDULE, in libgomp's grammar: [monotonic|nonmonotonic :] kind
 * [, chunk], blanks allowed around each part.  As in libgomp the kind
 * keeps its modifier as GOMP_SCHED_MONOTONIC (omp_get_schedule returns it),
 * static without one is monotonic (OpenMP's default for static), and the
 * chunk is 0 (static: blocks) or 1 unless given; a chunk of 0 means that
 * default too.  A malformed value changes nothing and is named. */
static void read_schedule(const char *s)
{
    static const struct { const char *name; int kind; } kinds[] = {
        { "static", GS_STATIC }, { "dynamic", GS_DYNAMIC },
        { "guided", GS_GUIDED }, { "auto", GS_AUTO },
    };
    const char *p = skip_space(s);
    int monotonic = 0;   /* 1 monotonic:, -1 nonmonotonic:, 0 neither */
    if (!strncasecmp(p, "monotonic", 9)) {
        monotonic = 1;
        p += 9;
    } else if (!strncasecmp(p, "nonmonotonic", 12)) {
        monotonic = -1;
        p += 12;
    }
    if (monotonic) {
        p = skip_space(p);
        if (*p++ != ':')
            goto bad_value;
        p = skip_space(p);
    }
    int kind = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0] && !kind; i++) {
        size_t len = strlen(kinds[i].name);
        if (!strncasecmp(p, kinds[i].name, len)) {
            kind = kinds[i].kind;
            p += len;
        }
    }
    if (!kind)
        goto bad_value;
    p = skip_space(p);
    long chunk = 0;
    if (*p) {
        if (*p != ',' || parse_long(p + 1, 0, INT_MAX, &chunk) < 0)
            goto bad_value;
        /* parse_long stops at a comma: nothing may follow the number */
        const char *q = p + 1;
        while (*q && *q != ',')
            q++;
        if (*q)
            goto bad_value;
    }
    if (chunk == 0 && kind != GS_STATIC)
        chunk = 1;
    if (monotonic == 1 || (monotonic == 0 && kind == GS_STATIC))
        kind |= GOMP_SCHED_MONOTONIC;
    gomp_icv.run_sched = kind;
    gomp_icv.run_chunk = (int)chunk;
    return;
bad_value:
    bad("OMP_SCHEDULE", s, "static, dynamic, guided or auto, optionally after monotonic: or "
        "nonmonotonic:, then optionally ,CHUNK");
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
        /* a list gives the nested levels' counts: the first the outermost
         * region's, value L the members' ICV at level L (team_new) */
        int n = 0, vals[GOMP_NTHREADS_LIST];
        const char *p = s;
        for (;;) {
            if (parse_long(p, 1, LC_MAX_WORKERS, &v) < 0 || n == GOMP_NTHREADS_LIST) {
                n = -1;
                break;
            }
            vals[n++] = (int)v;
            if (!(p = strchr(p, ',')))
                break;
            p++;
        }
        if (n > 0) {
            gomp_icv.nthreads = vals[0];
            memcpy(gomp_icv.nthreads_list, vals, (size_t)n * sizeof vals[0]);
            gomp_icv.nthreads_list_len = n;
        } else {
            bad("OMP_NUM_THREADS", s, "a positive integer (or a list of them)");
        }
    }
    /* as libgomp: OMP_NESTED=true, or a list of thread counts, allows
     * every supported level, unless OMP_NESTED=false or
     * OMP_MAX_ACTIVE_LEVELS (read below) says otherwise */
    int nested = -1;
    if ((s = getenv("OMP_NESTED")) && *s && read_bool("OMP_NESTED", s, &nested) == 0 && nested)
        gomp_icv.max_active_levels = SUPPORTED_LEVELS;
    else if (nested != 0 && gomp_icv.nthreads_list_len > 1)
        gomp_icv.max_active_levels = SUPPORTED_LEVELS;
    if ((s = getenv("OMP_SCHEDULE")) && *s)
        read_schedule(s);
    if ((s = getenv("OMP_DYNAMIC")) && *s)
        read_bool("OMP_DYNAMIC", s, &gomp_icv.dynamic);
    if ((s = getenv("OMP_CANCELLATION")) && *s)
        read_bool("OMP_CANCELLATION", s, &gomp_icv.cancellation);
    if ((s = getenv("OMP_DISPLAY_AFFINITY")) && *s)
        read_bool("OMP_DISPLAY_AFFINITY", s, &gomp_icv.display_affinity);
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
    return lc_task_icvs.nthreads ? lc_task_icvs.nthreads : gomp_icv.nthreads;
}

/* run-sched-var of the task running here: a target region's own, else
 * what the task (or one it inherited from) set, else the environment's */
void gomp_run_sched(int *kind, int *chunk)
{
    const struct lc_icvs *d = &lc_task_icvs;
    const struct gomp_icv *icv = gomp_cur_icv();
    if (!gomp_thr.teams.icv && d->run_sched) {
        *kind = d->run_sched;
        *chunk = d->run_chunk;
    } else {
        *kind = icv->run_sched;
        *chunk = icv->run_chunk;
    }
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
    /* the runtime's own default (LOCUS_THREADS, else the CPUs): the pool's
     * size once it runs (only its initial thread may start it: a worker
     * asking must not read its refusal as one thread), else ask it */
    struct lc_runtime *rt = lc_rt;
    if (rt && rt->team_mode)
        return rt->nworkers;
    if (gomp_ensure_runtime(0) == 0 && lc_rt)
        return lc_rt->nworkers;
    return 1;
}

GOMP_EXPORT void omp_set_num_threads(int n)
{
    lc_task_icvs.nthreads = n > 0 ? (n > LC_MAX_WORKERS ? LC_MAX_WORKERS : n) : 1;
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
    /* the runtime's clock: CLOCK_MONOTONIC, or the simulated one under
     * LOCUS_SIM (locus-sim(7)) */
    return locus_wtime();
}

GOMP_EXPORT double omp_get_wtick(void)
{
    struct timespec ts;
    clock_getres(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* dyn-var is the task's (a target region's own inside one), as
 * run-sched-var and nthreads-var are */
GOMP_EXPORT void omp_set_dynamic(int v)
{
    struct gomp_icv *icv = gomp_cur_icv();
    if (gomp_thr.teams.icv)
        icv->dynamic = v != 0;
    else
        lc_task_icvs.dyn = v ? 2 : 1;
}

GOMP_EXPORT int omp_get_dynamic(void)
{
    const struct gomp_icv *icv = gomp_cur_icv();
    if (!gomp_thr.teams.icv && lc_task_icvs.dyn)
        return lc_task_icvs.dyn == 2;
    return icv->dynamic;
}

/* As libgomp: nesting on is every supported level, off is one. */
GOMP_EXPORT void omp_set_nested(int v)
{
    struct gomp_icv *icv = gomp_cur_icv();
    if (v)
        icv->max_active_levels = SUPPORTED_LEVELS;
    else if (icv->max_active_levels > 1)
        icv->max_active_levels = 1;
}

GOMP_EXPORT int omp_get_nested(void)
{
    const struct gomp_icv *icv = gomp_cur_icv();
    return icv->max_active_levels > 1 && icv->max_active_levels > (int)gomp_thr.active_level;
}

GOMP_EXPORT void omp_set_max_active_levels(int v)
{
    gomp_read_env();
    if (v >= 0)
        gomp_cur_icv()->max_active_levels = v < SUPPORTED_LEVELS ? v : SUPPORTED_LEVELS;
}

GOMP_EXPORT int omp_get_max_active_levels(void)
{
    return gomp_cur_icv()->max_active_levels;
}

GOMP_EXPORT int omp_get_supported_active_levels(void)
{
    return SUPPORTED_LEVELS;
}

GOMP_EXPORT int omp_get_level(void)
{
    return (int)gomp_thr.level;
}

GOMP_EXPORT int omp_get_active_level(void)
{
    return (int)gomp_thr.active_level;
}

/* The record of level 1..gomp_thr.level (each region keeps one per
 * member, linked to the levels around it), or NULL for level 0. */
static const struct gomp_level *level_rec(int level)
{
    const struct gomp_level *l = gomp_thr.lv;
    for (int k = (int)gomp_thr.level; l && k > level; k--)
        l = l->up;
    return level > 0 ? l : NULL;
}

GOMP_EXPORT int omp_get_ancestor_thread_num(int level)
{
    if (level < 0 || level > (int)gomp_thr.level)
        return -1;
    const struct gomp_level *l = level_rec(level);
    return l ? l->id : 0;   /* level 0: the initial thread */
}

GOMP_EXPORT int omp_get_team_size(int level)
{
    if (level < 0 || level > (int)gomp_thr.level)
        return -1;
    const struct gomp_level *l = level_rec(level);
    return l ? l->size : 1;
}

GOMP_EXPORT void omp_set_schedule(int kind, int chunk)
{
    /* as libgomp: the kind is kept with its monotonic modifier bit, which
     * omp_get_schedule returns; the chunk is at least 1 for dynamic and
     * guided, 0 (blocks) when below 1 for static, and auto keeps it */
    int k = kind & ~GOMP_SCHED_MONOTONIC;
    if (k < GS_STATIC || k > GS_AUTO)
        return;
    int cur_kind, cur_chunk;
    gomp_run_sched(&cur_kind, &cur_chunk);   /* auto keeps the chunk */
    if (k == GS_STATIC)
        cur_chunk = chunk > 0 ? chunk : 0;
    else if (k != GS_AUTO)
        cur_chunk = chunk > 0 ? chunk : 1;
    if (gomp_thr.teams.icv) {   /* a target region's own ICVs */
        gomp_thr.teams.icv->run_sched = kind;
        gomp_thr.teams.icv->run_chunk = cur_chunk;
    } else {                    /* the task's data environment */
        lc_task_icvs.run_sched = kind;
        lc_task_icvs.run_chunk = cur_chunk;
    }
}

GOMP_EXPORT void omp_get_schedule(int *kind, int *chunk)
{
    gomp_run_sched(kind, chunk);
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


