/*
 * papi.c - the PAPI backend: the table's uncore events by their libpfm4
 * native names through PAPI's perf_event_uncore component, one event set
 * per box and socket (the ":cpu=N" qualifier picks the socket).  Compiled
 * to a stub that says why when configure found no PAPI (build/config.h
 * HAVE_PAPI).  PAPI is never shut down here: the program may use it too
 * (e.g. to read Locus's own software-defined events, sde.c).
 *
 * libpapi is loaded (dlopen) when the backend is first tried, not linked:
 * with libpfm's tables it cost every program's start about 1.2 ms, and
 * most runs never try PAPI (counters.c tries it only where perf_event has
 * uncore PMUs, or when LOCUS_COUNTERS=papi asks).  A program that uses
 * PAPI itself has it loaded already: the same library serves both.
 */
#if defined(__has_include)
#if __has_include("config.h")
#include "config.h"
#endif
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/counters.h"

#ifdef HAVE_PAPI
#include <papi.h>
#include <pthread.h>

#ifndef LC_PAPI_SONAME
#define LC_PAPI_SONAME "libpapi.so"
#endif

/* The entry points used, found in libpapi once loaded. */
#define PAPI_FNS(X) X(PAPI_add_named_event) X(PAPI_assign_eventset_component) \
    X(PAPI_cleanup_eventset) X(PAPI_create_eventset) X(PAPI_destroy_eventset) \
    X(PAPI_get_component_index) X(PAPI_get_component_info) X(PAPI_is_initialized) \
    X(PAPI_library_init) X(PAPI_multiplex_init) X(PAPI_read) X(PAPI_set_multiplex) \
    X(PAPI_start) X(PAPI_stop) X(PAPI_strerror)
#define PAPI_PTR(f) static __typeof__(&f) lp_##f;
PAPI_FNS(PAPI_PTR)
#undef PAPI_PTR

static pthread_once_t lp_once = PTHREAD_ONCE_INIT;
static char lp_why[256];   /* why libpapi is not usable, "" when it is */

static void lp_load(void)
{
#define PAPI_NAME(f) #f,
#define PAPI_SLOT(f) (void **)&lp_##f,
    static const char *const names[] = { PAPI_FNS(PAPI_NAME) };
    static void **const slots[] = { PAPI_FNS(PAPI_SLOT) };
#undef PAPI_NAME
#undef PAPI_SLOT
    lc_ctr_dl_load(LC_PAPI_SONAME, names, slots, (int)(sizeof names / sizeof names[0]), lp_why,
                   sizeof lp_why);
}

#define MAX_PER_SET 32

struct pset {
    int es;
    int slot;
    int n;
    int ev[MAX_PER_SET];    /* table index of each added event */
    int mpx;
};

struct papi_priv {
    const struct lc_ctr_table *t;
    struct pset *set;
    int nset;
};

static int papi_ready(char *buf, size_t len, int *cidx)
{
    pthread_once(&lp_once, lp_load);
    if (lp_why[0] != '\0') {
        snprintf(buf, len, "%s", lp_why);
        return -ENODEV;
    }
    if (!lp_PAPI_is_initialized()) {
        lc_sde_preload(); /* PAPI's sde component looks libsde up only now */
        int v = lp_PAPI_library_init(PAPI_VER_CURRENT);
        if (v != PAPI_VER_CURRENT) {
            snprintf(buf, len, "PAPI_library_init failed: %s",
                     v < 0 ? lp_PAPI_strerror(v) : "version mismatch between papi.h and libpapi");
            return -ENODEV;
        }
    }
    int c = lp_PAPI_get_component_index("perf_event_uncore");
    if (c < 0) {
        snprintf(buf, len, "PAPI has no perf_event_uncore component");
        return -ENODEV;
    }
    const PAPI_component_info_t *info = lp_PAPI_get_component_info(c);
    if (info == NULL) {
        snprintf(buf, len, "PAPI: no information on the perf_event_uncore component");
        return -ENODEV;
    }
    if (info->disabled) {
        snprintf(buf, len, "PAPI perf_event_uncore component disabled: %s",
                 info->disabled_reason[0] ? info->disabled_reason : "no reason given");
        return -ENODEV;
    }
    *cidx = c;
    return 0;
}

static int papi_probe(const struct lc_ctr_env *env, char *buf, size_t len)
{
    int cidx;
    (void)env;
    buf[0] = '\0';
    return papi_ready(buf, len, &cidx);
}

static void mark(struct lc_counters *c, unsigned classes, const char *why)
{
    for (int k = 0; k < LC_NCLS; k++)
        if ((classes & (1u << k)) && c->cls[k].kind != LOCUS_COUNTER_UNAVAILABLE)
            lc_ctr_set_unavailable(c, k, "%s", why);
}

static int slot_of(struct lc_counters *c, int pkg)
{
    for (int i = 0; i < c->nsockets; i++)
        if (c->sockets[i] == pkg)
            return i;
    if (c->nsockets >= LC_CTR_MAX_SOCKETS)
        return -1;
    c->sockets[c->nsockets] = pkg;
    return c->nsockets++;
}

static int papi_open(struct lc_counters *c, char *err, size_t errlen)
{
    const char *sysfs = c->env.sysfs && c->env.sysfs[0] ? c->env.sysfs : "/sys";
    char why[LC_CTR_REASON_MAX];
    int cidx;

    if (papi_ready(why, sizeof why, &cidx) < 0) {
        lc_ctr_all_unavailable(c, why);
        return 0;
    }
    /* PAPI's uncore component sits on the same perf_event uncore PMUs */
    lc_ctr_blocker(&c->mach, 1, c->mach.uncore_pmus > 0, why, sizeof why);
    const struct lc_ctr_table *t = why[0] ? NULL : lc_ctr_table_for(&c->mach, why, sizeof why);
    if (t == NULL) {
        for (int k = 0; k < LC_NCLS; k++)
            lc_ctr_set_unavailable(c, k, "%s", k >= LOCUS_COUNTER_LOCAL_DRAM
                                   ? "the PAPI backend counts uncore events only "
                                     "(LOCUS_COUNTERS=perf counts the per-thread proxies)"
                                   : why);
        return 0;
    }
    c->table = t;
    lc_ctr_apply_table(c, t);
    for (int k = LOCUS_COUNTER_LOCAL_DRAM; k < LC_NCLS; k++)
        if (c->cls[k].kind != LOCUS_COUNTER_UNAVAILABLE)
            lc_ctr_set_unavailable(c, k, "the PAPI backend counts uncore events only "
                                   "(LOCUS_COUNTERS=perf counts the per-thread proxies)");
    for (size_t i = 0; i < t->nev; i++)
        if (t->ev[i].pfm == NULL && !lc_ctr_event_is_core(&t->ev[i]))
            mark(c, t->ev[i].classes, "libpfm4 (under PAPI) has no name for this CPU's "
                 "uncore events: use LOCUS_COUNTERS=perf");

    struct papi_priv *pp = calloc(1, sizeof *pp);
    if (pp == NULL) {
        snprintf(err, errlen, "counters: out of memory");
        return -ENOMEM;
    }
    pp->t = t;
    c->priv = pp;
    lp_PAPI_multiplex_init();

    /* One event set per box and socket. */
    char names[LC_CTR_MAX_SOCKETS][LC_PMU_NAME_MAX], prefixes[4][LC_PMU_NAME_MAX];
    int nprefix = 0;
    for (size_t i = 0; i < t->nev; i++) {
        const struct lc_ctr_event *e = &t->ev[i];
        int seen = lc_ctr_event_is_core(e) || e->pfm == NULL;
        for (int p = 0; p < nprefix && !seen; p++)
            seen = strcmp(prefixes[p], e->pmu) == 0;
        if (!seen && nprefix < 4)
            snprintf(prefixes[nprefix++], LC_PMU_NAME_MAX, "%s", e->pmu);
    }
    for (int p = 0; p < nprefix; p++) {
        int nbox = lc_pmu_list(sysfs, prefixes[p], names, LC_CTR_MAX_SOCKETS);
        for (int b = 0; b < nbox; b++) {
            struct lc_pmu pmu;
            if (lc_pmu_read(sysfs, names[b], &pmu, why, sizeof why) < 0)
                continue;
            for (int s = 0; s < pmu.ncpus; s++) {
                struct pset *np = realloc(pp->set, ((size_t)pp->nset + 1) * sizeof *np);
                if (np == NULL) {
                    snprintf(err, errlen, "counters: out of memory");
                    return -ENOMEM;
                }
                pp->set = np;
                struct pset *ps = &pp->set[pp->nset];
                memset(ps, 0, sizeof *ps);
                ps->es = PAPI_NULL;
                int pkg = lc_cpu_package(sysfs, pmu.cpus[s]);
                ps->slot = slot_of(c, pkg >= 0 ? pkg : s);
                if (ps->slot < 0 || lp_PAPI_create_eventset(&ps->es) != PAPI_OK)
                    continue;
                pp->nset++;
                if (lp_PAPI_assign_eventset_component(ps->es, cidx) == PAPI_OK &&
                    lp_PAPI_set_multiplex(ps->es) == PAPI_OK)
                    ps->mpx = 1;
                for (size_t i = 0; i < t->nev && ps->n < MAX_PER_SET; i++) {
                    const struct lc_ctr_event *e = &t->ev[i];
                    char name[256], fmt[200];
                    if (e->pfm == NULL || strcmp(e->pmu, prefixes[p]) != 0)
                        continue;
                    snprintf(fmt, sizeof fmt, "%s:cpu=%%d", e->pfm);
                    snprintf(name, sizeof name, fmt, pmu.box, pmu.cpus[s]);
                    int r = lp_PAPI_add_named_event(ps->es, name);
                    if (r != PAPI_OK) {
                        snprintf(why, sizeof why, "PAPI cannot add %.100s: %.60s", name, lp_PAPI_strerror(r));
                        mark(c, e->classes, why);
                        continue;
                    }
                    ps->ev[ps->n++] = (int)i;
                }
                int r = ps->n > 0 ? lp_PAPI_start(ps->es) : PAPI_OK;
                if (r != PAPI_OK) {
                    snprintf(why, sizeof why, "PAPI_start on %.60s cpu %d: %.80s", names[b],
                             pmu.cpus[s], lp_PAPI_strerror(r));
                    for (int j = 0; j < ps->n; j++)
                        mark(c, t->ev[ps->ev[j]].classes, why);
                    ps->n = 0;
                }
            }
        }
    }
    if (pp->nset == 0)
        for (int k = 0; k < LC_NCLS; k++)
            if (c->cls[k].kind != LOCUS_COUNTER_UNAVAILABLE)
                lc_ctr_set_unavailable(c, k, "PAPI: no uncore box could be programmed");
    return 0;
}

static int papi_read(struct lc_counters *c, struct lc_ctr_snap *snaps)
{
    struct papi_priv *pp = c->priv;
    if (pp == NULL)
        return 0;
    for (int i = 0; i < pp->nset; i++) {
        struct pset *ps = &pp->set[i];
        long long v[MAX_PER_SET];
        if (ps->n == 0 || lp_PAPI_read(ps->es, v) != PAPI_OK)
            continue;
        for (int j = 0; j < ps->n; j++) {
            const struct lc_ctr_event *e = &pp->t->ev[ps->ev[j]];
            for (int k = 0; k < LC_NCLS; k++)
                if (e->classes & (1u << k))
                    snaps[ps->slot].v[k][e->dir] += (double)v[j] * e->scale;
            if (ps->mpx)
                snaps[ps->slot].scaled |= e->classes;
        }
    }
    return 0;
}

static void papi_close(struct lc_counters *c)
{
    struct papi_priv *pp = c->priv;
    if (pp == NULL)
        return;
    for (int i = 0; i < pp->nset; i++) {
        long long v[MAX_PER_SET];
        if (pp->set[i].n > 0)
            lp_PAPI_stop(pp->set[i].es, v);
        lp_PAPI_cleanup_eventset(pp->set[i].es);
        lp_PAPI_destroy_eventset(&pp->set[i].es);
    }
    free(pp->set);
    free(pp);
    c->priv = NULL;
}

#else /* !HAVE_PAPI */

static int papi_probe(const struct lc_ctr_env *env, char *buf, size_t len)
{
    (void)env;
    snprintf(buf, len, "built without PAPI (configure found no papi.h/libpapi; "
             "install libpapi-dev and re-run configure)");
    return -ENOTSUP;
}

static int papi_open(struct lc_counters *c, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    lc_ctr_all_unavailable(c, "built without PAPI");
    return 0;
}

static int papi_read(struct lc_counters *c, struct lc_ctr_snap *snaps)
{
    (void)c;
    (void)snaps;
    return 0;
}

static void papi_close(struct lc_counters *c)
{
    (void)c;
}

#endif /* HAVE_PAPI */

const struct lc_ctr_backend lc_ctr_papi = {
    .name = "papi",
    .description = "PAPI perf_event_uncore component, libpfm4 native event names",
    .probe = papi_probe,
    .open = papi_open,
    .read = papi_read,
    .close = papi_close,
};
