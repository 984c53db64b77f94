/*
 * api.c - the runtime's coherence-traffic counters: opened by locus_init()
 * as LOCUS_COUNTERS asks (before the workers exist where per-thread events
 * may be opened, so that the workers inherit them), counting from the end
 * of locus_init() to locus_finalize() unless the program brackets a phase
 * with locus_counters_start()/stop(), and read by the public API and the
 * LOCUS_REPORT writer.  One instance per process, under one mutex.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "counters/counters.h"
#include "env.h"
#include "runtime.h"

static pthread_mutex_t ctr_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lc_counters *ctr;

int lc_counters_rt_open(const struct lc_options *o, char *err, size_t errlen)
{
    struct lc_ctr_env env;
    struct lc_counters *c;

    lc_sde_preload();
    memset(&env, 0, sizeof env);
    env.likwid_marker = o->likwid_marker;
    int r = lc_counters_open(lc_counters_name(o->counters), &env, &c, err, errlen);
    /* A backend asked for by name that counts nothing here is a LOCUS_*
     * value that cannot be honoured: -EINVAL, as for any other (locus(7)). */
    if (r == -ENODEV)
        return -EINVAL;
    if (r < 0)
        return r;
    pthread_mutex_lock(&ctr_lock);
    lc_counters_close(ctr); /* none is left open by a run, but never leak one */
    ctr = c;
    pthread_mutex_unlock(&ctr_lock);
    return 0;
}

int lc_counters_rt_per_thread(const struct lc_options *o)
{
    if (o->counters == LC_COUNTERS_NONE)
        return 0;
    /* lc_ctr_detect's cpu_pmu, without its scan: the core PMU's directory */
    return access("/sys/bus/event_source/devices/cpu", F_OK) == 0;
}

void lc_counters_rt_begin(void)
{
    pthread_mutex_lock(&ctr_lock);
    if (ctr != NULL) {
        lc_counters_start(ctr);
        ctr->phase = 0;
    }
    pthread_mutex_unlock(&ctr_lock);
}

void lc_counters_rt_end(void)
{
    pthread_mutex_lock(&ctr_lock);
    if (ctr != NULL)
        lc_counters_stop(ctr);
    pthread_mutex_unlock(&ctr_lock);
}

int lc_counters_rt_fill(locus_counters_t *total, locus_counters_t *per, int max)
{
    int n = -1;
    pthread_mutex_lock(&ctr_lock);
    if (ctr != NULL && lc_counters_read(ctr, -1, total) == 0) {
        n = 0;
        for (int s = 0; s < ctr->nsockets && s < max; s++)
            if (lc_counters_read(ctr, s, &per[n]) == 0)
                n++;
    }
    pthread_mutex_unlock(&ctr_lock);
    return n;
}

void lc_counters_rt_close(void)
{
    pthread_mutex_lock(&ctr_lock);
    struct lc_counters *c = ctr;
    ctr = NULL;
    pthread_mutex_unlock(&ctr_lock);
    lc_counters_close(c);
}

void lc_counters_print_help(const struct lc_ctr_env *env, void *file)
{
    FILE *f = file;
    char err[LC_CTR_ERR_MAX];

    fprintf(f, "locus: coherence-traffic counter backends (LOCUS_COUNTERS; default auto = the "
               "first of perf, likwid, papi that counts anything here):\n");
    for (int i = 0; lc_ctr_backends[i] != NULL; i++) {
        const struct lc_ctr_backend *be = lc_ctr_backends[i];
        struct lc_counters *c;
        fprintf(f, "  %-7s %s\n", be->name, be->description);
        if (lc_counters_open(be->name, env, &c, err, sizeof err) < 0) {
            fprintf(f, "          here: unavailable: %s\n", err);
            continue;
        }
        int n = lc_ctr_navailable(c);
        if (n > 0)
            fprintf(f, "          here: counts %d of %d classes (%s%s%s)\n", n, LC_NCLS,
                    c->table ? c->table->name : "no table", c->table ? ": " : "",
                    c->table ? c->table->title : "");
        else
            fprintf(f, "          here: counts nothing\n");
        lc_counters_close(c);
    }
}

/* ---- public API ------------------------------------------------------------ */

static int copy_out(void *dst, size_t size, const void *full, size_t full_size)
{
    memset(dst, 0, size);
    memcpy(dst, full, size < full_size ? size : full_size);
    return 0;
}

LOCUS_API int locus_counters_start(void)
{
    if (lc_rt == NULL)
        return lc_error(-EPERM, "locus_counters_start: the runtime is not running");
    pthread_mutex_lock(&ctr_lock);
    if (ctr != NULL) {
        lc_counters_start(ctr);
        ctr->phase = 1;
    }
    pthread_mutex_unlock(&ctr_lock);
    return 0;
}

LOCUS_API int locus_counters_stop(void)
{
    if (lc_rt == NULL)
        return lc_error(-EPERM, "locus_counters_stop: the runtime is not running");
    pthread_mutex_lock(&ctr_lock);
    if (ctr != NULL)
        lc_counters_stop(ctr);
    pthread_mutex_unlock(&ctr_lock);
    return 0;
}

static int get(const char *fn, int socket, locus_counters_t *c, size_t size)
{
    locus_counters_t tmp;
    int r;

    if (lc_rt == NULL)
        return lc_error(-EPERM, "%s: the runtime is not running", fn);
    if (c == NULL || size == 0)
        return lc_error(-EINVAL, "%s: NULL buffer or size 0", fn);
    pthread_mutex_lock(&ctr_lock);
    if (ctr == NULL) {
        pthread_mutex_unlock(&ctr_lock);
        return lc_error(-EPERM, "%s: the runtime is not running", fn);
    }
    int ns = ctr->nsockets;
    r = lc_counters_read(ctr, socket, &tmp);
    pthread_mutex_unlock(&ctr_lock);
    if (r == -EINVAL)
        return lc_error(-EINVAL, "%s: socket %d is not in 0..%d", fn, socket, ns - 1);
    if (r < 0)
        return lc_error(r, "%s: out of memory", fn);
    return copy_out(c, size, &tmp, sizeof tmp);
}

LOCUS_API int locus_get_counters(locus_counters_t *c, size_t size)
{
    return get("locus_get_counters", -1, c, size);
}

LOCUS_API int locus_get_socket_counters(int socket, locus_counters_t *c, size_t size)
{
    if (socket < 0)
        return lc_error(-EINVAL, "locus_get_socket_counters: socket %d is negative", socket);
    return get("locus_get_socket_counters", socket, c, size);
}

LOCUS_API const char *locus_counter_class_name(int cls)
{
    static const char *const names[LC_NCLS] = {
        "DTC", "DWB", "HREQ", "SNP", "HRSP", "NDR",
        "LINK_BYTES", "LOCAL_DRAM", "REMOTE_DRAM", "REMOTE_CACHE",
    };
    return cls >= 0 && cls < LC_NCLS ? names[cls] : "?";
}

LOCUS_API const char *locus_counter_kind_name(int kind)
{
    static const char *const names[] = { "unavailable", "exact", "merged", "flits", "proxy" };
    return kind >= 0 && kind < (int)(sizeof names / sizeof names[0]) ? names[kind] : "?";
}
