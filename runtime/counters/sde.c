/*
 * sde.c - the runtime's own figures as PAPI Software Defined Events
 * (sde_lib.h, PAPI 7): any PAPI tool reads them as sde:::locus::NAME, e.g.
 * sde:::locus::TASKS_RUN, BYTES_FAR, STEALS_NEAR, TASKS_RUN_NODE1.  They
 * work on machines without hardware counters.
 *
 * libsde is reached at run time: dlsym(RTLD_DEFAULT) when the program (or
 * liblocus) was linked with -lsde, else dlopen("libsde.so.1", RTLD_GLOBAL),
 * so that liblocus needs no -lsde on its link line and PAPI's sde
 * component, which looks libsde's tools interface up in the global scope
 * when PAPI_library_init() runs, finds it (hence: call locus_init() before
 * PAPI_library_init(), or link the program with -lsde).
 *
 * The counters are callbacks summing the workers' own counters since
 * locus_init() (not since locus_reset_stats(): PAPI takes its own
 * differences).  They are registered once per process and, after
 * locus_finalize(), keep the last run's final values.  Two libsde 7.0
 * defects shape this: papi_sde_init() of a library that was shut down
 * crashes, so the handle is never shut down; papi_sde_describe_counter()
 * loses its copy of the text (a leak in every sanitized program), so the
 * events carry no description (locus(7) describes them).
 */
#if defined(__has_include)
#if __has_include("config.h")
#include "config.h"
#endif
#endif

#include <stdio.h>
#include <string.h>

#include "counters/counters.h"

#if defined(HAVE_PAPI) && defined(__has_include)
#if __has_include(<sde_lib.h>)
#define LC_WITH_SDE 1
#endif
#endif

#ifdef LC_WITH_SDE
#include <dlfcn.h>
#include <pthread.h>
#include <sde_lib.h>
#include <stdint.h>

#include "runtime.h"

enum { F_TASKS, F_FIRST_TOUCH, F_BYTES_LOCAL, F_BYTES_NEAR, F_BYTES_FAR, F_STEALS_LOCAL,
       F_STEALS_NEAR, F_STEALS_FAR, NFIG };
#define MAX_NODES 64

static const struct {
    const char *name, *desc;
} figs[NFIG] = {
    { "TASKS_RUN", "tasks executed" },
    { "FIRST_TOUCH_TASKS", "tasks that first wrote a region the runtime had never seen" },
    { "BYTES_LOCAL", "dependency bytes on the node of the worker that ran the task" },
    { "BYTES_NEAR", "dependency bytes on a node at the nearest remote distance" },
    { "BYTES_FAR", "dependency bytes on a farther node" },
    { "STEALS_LOCAL", "tasks taken from another worker of the same node" },
    { "STEALS_NEAR", "tasks taken from a worker of a near node" },
    { "STEALS_FAR", "tasks taken from a worker of a far node" },
};

typedef papi_handle_t (*init_fn)(const char *);
typedef int (*reg_cb_fn)(papi_handle_t, const char *, int, int, papi_sde_fptr_t, void *);


static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
/* callbacks (any thread, inside PAPI_read) against finalize */
static pthread_rwlock_t run_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct lc_runtime *sde_rt;
static long long last[NFIG + MAX_NODES];
static papi_handle_t handle;     /* for the life of the process */
static init_fn sde_init_fn;
static reg_cb_fn reg_cb;
static int nregistered;          /* figures and nodes registered so far */
static int tried;
static char fail_reason[160];

static uint64_t rd(const _Atomic uint64_t *c)
{
    return atomic_load_explicit(c, memory_order_relaxed);
}

/* Figure idx of rt, since locus_init(). */
static long long compute(const struct lc_runtime *rt, intptr_t idx)
{
    uint64_t sum = 0;
    for (int i = 0; i < rt->nworkers; i++) {
        const struct lc_worker_stats *s = &rt->workers[i].stats;
        if (idx >= NFIG) {
            if (rt->workers[i].node == idx - NFIG)
                sum += rd(&s->tasks_run);
            continue;
        }
        switch (idx) {
        case F_TASKS: sum += rd(&s->tasks_run); break;
        case F_FIRST_TOUCH: sum += rd(&s->first_touch); break;
        case F_BYTES_LOCAL: sum += rd(&s->bytes[LC_DIST_LOCAL]); break;
        case F_BYTES_NEAR: sum += rd(&s->bytes[LC_DIST_NEAR]); break;
        case F_BYTES_FAR: sum += rd(&s->bytes[LC_DIST_FAR]); break;
        case F_STEALS_LOCAL: sum += rd(&s->steals[LC_DIST_LOCAL]); break;
        case F_STEALS_NEAR: sum += rd(&s->steals[LC_DIST_NEAR]); break;
        case F_STEALS_FAR: sum += rd(&s->steals[LC_DIST_FAR]); break;
        default: break;
        }
    }
    return (long long)sum;
}

static long long callback(void *param)
{
    intptr_t idx = (intptr_t)param;
    long long v;
    pthread_rwlock_rdlock(&run_lock);
    v = sde_rt != NULL ? compute(sde_rt, idx) : last[idx];
    pthread_rwlock_unlock(&run_lock);
    return v;
}

/* 0, -1 (fail_reason says why), or 1: PAPI is not in the process yet, so
 * nothing could read the events; a later locus_init() looks again. */
static int resolve(void)
{
    init_fn init = (init_fn)dlsym(RTLD_DEFAULT, "papi_sde_init");
    void *lib = NULL;
    if (init == NULL) {
        /* Only PAPI reads these events, and only the copy of PAPI in this
         * process: without it, loading libsde (with its search of the
         * library path, the largest part of what counters cost a
         * program's first parallel region) buys nothing. */
        if (dlsym(RTLD_DEFAULT, "PAPI_library_init") == NULL) {
            snprintf(fail_reason, sizeof fail_reason, "PAPI is not in this process (link the "
                     "program with -lpapi or -lsde to read sde:::locus events)");
            return 1;
        }
        lib = dlopen("libsde.so.1", RTLD_NOW | RTLD_GLOBAL);
        if (lib == NULL) {
            const char *e = dlerror();
            snprintf(fail_reason, sizeof fail_reason, "libsde.so.1 not loadable: %s",
                     e ? e : "unknown error");
            return -1;
        }
        init = (init_fn)dlsym(lib, "papi_sde_init");
    }
    reg_cb = (reg_cb_fn)dlsym(lib ? lib : RTLD_DEFAULT, "papi_sde_register_counter_cb");
    if (init == NULL || reg_cb == NULL) {
        snprintf(fail_reason, sizeof fail_reason, "libsde lacks papi_sde_init or "
                 "papi_sde_register_counter_cb");
        return -1;
    }
    sde_init_fn = init;
    return 0;
}

static void reg(intptr_t idx, const char *name)
{
    reg_cb(handle, name, PAPI_SDE_RO | PAPI_SDE_DELTA, PAPI_SDE_long_long, callback, (void *)idx);
}

static void load_once(void)
{
    if (!tried) {
        int r = resolve();
        tried = r <= 0;   /* no PAPI yet: a later init may find it */
        if (r != 0)
            sde_init_fn = NULL;
    }
}

void lc_sde_preload(void)
{
    pthread_mutex_lock(&reg_lock);
    load_once();
    pthread_mutex_unlock(&reg_lock);
}

int lc_sde_init(struct lc_runtime *rt, char *buf, size_t len)
{
    pthread_mutex_lock(&reg_lock);
    load_once();
    if (sde_init_fn != NULL && handle == NULL) {
        handle = sde_init_fn("locus");
        if (handle == NULL)
            snprintf(fail_reason, sizeof fail_reason, "papi_sde_init(\"locus\") failed");
    }
    if (handle == NULL) {
        snprintf(buf, len, "%s", fail_reason);
        pthread_mutex_unlock(&reg_lock);
        return 0;
    }
    int want = NFIG + (rt->topo.nnodes < MAX_NODES ? rt->topo.nnodes : MAX_NODES);
    for (int i = nregistered; i < want; i++) {
        if (i < NFIG) {
            reg(i, figs[i].name);
        } else {
            char name[64];
            snprintf(name, sizeof name, "TASKS_RUN_NODE%d", i - NFIG);
            reg(i, name);
        }
    }
    if (want > nregistered)
        nregistered = want;
    pthread_mutex_unlock(&reg_lock);

    pthread_rwlock_wrlock(&run_lock);
    sde_rt = rt;
    pthread_rwlock_unlock(&run_lock);
    return 1;
}

void lc_sde_fini(struct lc_runtime *rt)
{
    pthread_rwlock_wrlock(&run_lock);
    if (sde_rt == rt && rt != NULL) {
        for (int i = 0; i < NFIG + MAX_NODES; i++)
            last[i] = i < NFIG || i - NFIG < rt->topo.nnodes ? compute(rt, i) : 0;
        sde_rt = NULL;
    }
    pthread_rwlock_unlock(&run_lock);
}

#else /* !LC_WITH_SDE */

int lc_sde_init(struct lc_runtime *rt, char *buf, size_t len)
{
    (void)rt;
    snprintf(buf, len, "built without PAPI/sde_lib.h: no software-defined events");
    return 0;
}

void lc_sde_fini(struct lc_runtime *rt)
{
    (void)rt;
}

void lc_sde_preload(void)
{
}

#endif /* LC_WITH_SDE */
