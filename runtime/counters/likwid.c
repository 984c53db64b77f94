/*
 * likwid.c - the likwid backend: a Marker API region named "locus" around
 * the counted phase, for programs run under `likwid-perfctr -C <cpus>
 * -g <group> -m` (e.g. the UPI/QPI groups, or NUMA on Zen).  likwid-perfctr
 * prints the region's results itself; this backend also reads them back
 * (likwid_markerGetRegion) and maps the group's link-flit events to the
 * LINK_BYTES class.  The region measures the CPUs of the threads inside
 * it: here the thread that called locus_init(), so the uncore counts are
 * those of its socket.  Compiled to a stub that says why without
 * HAVE_LIKWID.
 *
 * liblikwid is loaded (dlopen) by the probe of a run under likwid-perfctr
 * -m, not linked: it is a large library whose load took about 11 ms of
 * every program's start, which only such a run uses.
 */
#if defined(__has_include)
#if __has_include("config.h")
#include "config.h"
#endif
#endif

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/counters.h"

#define NOT_MARKER "not running under likwid-perfctr -m (LIKWID_EVENTS/LIKWID_FILEPATH unset)"

#ifdef HAVE_LIKWID
#include <likwid.h>

#define REGION "locus"
#define MAXEV 64

/* The group's events Locus understands: name fragment, class, direction,
 * bytes per count. */
static const struct lk_map {
    const char *name;
    int cls, dir;
    double scale;
    const char *unit;
} lk_map[] = {
    { "TXL_FLITS_ALL_DATA", LOCUS_COUNTER_LINK_BYTES, LC_TX, 64.0 / 9.0, "bytes" }, /* UPI */
    { "RXL_FLITS_ALL_DATA", LOCUS_COUNTER_LINK_BYTES, LC_RX, 64.0 / 9.0, "bytes" },
    { "TXL_FLITS_G0_DATA", LOCUS_COUNTER_LINK_BYTES, LC_TX, 8.0, "bytes" },         /* QPI */
    { "RXL_FLITS_G0_DATA", LOCUS_COUNTER_LINK_BYTES, LC_RX, 8.0, "bytes" },
    { "DATA_CACHE_REFILLS_REMOTE_ALL", LOCUS_COUNTER_REMOTE_DRAM, LC_RX, 1.0, "fills" }, /* Zen NUMA */
    { "HWPREF_DATA_CACHE_FILLS_REMOTE_ALL", LOCUS_COUNTER_REMOTE_DRAM, LC_RX, 1.0, "fills" },
};
#define NMAP (sizeof lk_map / sizeof lk_map[0])

struct lk_priv {
    int nev;
    int map[MAXEV];        /* index into lk_map, -1 for events Locus ignores */
    int stopped_once;
};

#ifndef LC_LIKWID_SONAME
#define LC_LIKWID_SONAME "liblikwid.so"
#endif

/* The entry points used, found in liblikwid once loaded. */
#define LK_FNS(X) X(likwid_markerInit) X(likwid_markerThreadInit) \
    X(likwid_markerRegisterRegion) X(likwid_markerStartRegion) X(likwid_markerStopRegion) \
    X(likwid_markerGetRegion) X(likwid_markerClose) X(perfmon_getIdOfActiveGroup) \
    X(perfmon_getNumberOfEvents) X(perfmon_getEventName) X(perfmon_getGroupName)
#define LK_PTR(f) static __typeof__(&f) lk_##f;
LK_FNS(LK_PTR)
#undef LK_PTR

static pthread_once_t lk_once = PTHREAD_ONCE_INIT;
static char lk_why[256];   /* why liblikwid is not usable, "" when it is */

static void lk_load(void)
{
#define LK_NAME(f) #f,
#define LK_SLOT(f) (void **)&lk_##f,
    static const char *const names[] = { LK_FNS(LK_NAME) };
    static void **const slots[] = { LK_FNS(LK_SLOT) };
#undef LK_NAME
#undef LK_SLOT
    lc_ctr_dl_load(LC_LIKWID_SONAME, names, slots, (int)(sizeof names / sizeof names[0]), lk_why,
                   sizeof lk_why);
}

static int lk_probe(const struct lc_ctr_env *env, char *buf, size_t len)
{
    if (!env->likwid_marker) {
        snprintf(buf, len, NOT_MARKER);
        return -ENODEV;
    }
    pthread_once(&lk_once, lk_load);
    if (lk_why[0] != '\0') {
        snprintf(buf, len, "%s", lk_why);
        return -ENODEV;
    }
    buf[0] = '\0';
    return 0;
}

static int lk_open(struct lc_counters *c, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    struct lk_priv *p = calloc(1, sizeof *p);
    if (p == NULL)
        return -ENOMEM;
    c->priv = p;
    lk_likwid_markerInit();
    lk_likwid_markerThreadInit();
    lk_likwid_markerRegisterRegion(REGION);

    int gid = lk_perfmon_getIdOfActiveGroup();
    int n = gid >= 0 ? lk_perfmon_getNumberOfEvents(gid) : 0;
    if (n > MAXEV)
        n = MAXEV;
    p->nev = n > 0 ? n : 0;
    lc_ctr_all_unavailable(c, "not in the likwid group measured (likwid-perfctr -g); "
                           "its results are in likwid-perfctr's own output, region 'locus'");
    for (int i = 0; i < p->nev; i++) {
        const char *name = lk_perfmon_getEventName(gid, i);
        p->map[i] = -1;
        for (size_t m = 0; name != NULL && m < NMAP; m++) {
            if (strstr(name, lk_map[m].name) == NULL)
                continue;
            struct lc_ctr_class *k = &c->cls[lk_map[m].cls];
            if (k->kind == LOCUS_COUNTER_UNAVAILABLE) {
                memset(k, 0, sizeof *k);
                k->kind = lk_map[m].cls == LOCUS_COUNTER_LINK_BYTES ? LOCUS_COUNTER_FLITS
                                                                     : LOCUS_COUNTER_PROXY;
                k->process = lk_map[m].cls != LOCUS_COUNTER_LINK_BYTES;
                snprintf(k->unit, sizeof k->unit, "%s", lk_map[m].unit);
                snprintf(k->reason, sizeof k->reason, "likwid group %s, region 'locus', "
                         "the socket of the calling thread only", lk_perfmon_getGroupName(gid));
            }
            k->dirs |= lk_map[m].dir == LC_TX ? LOCUS_COUNTER_HAS_TX : LOCUS_COUNTER_HAS_RX;
            size_t used = strlen(k->source);
            snprintf(k->source + used, sizeof k->source - used, "%s%s", used ? " + " : "", name);
            p->map[i] = (int)m;
            break;
        }
    }
    c->nsockets = 1;
    c->sockets[0] = 0;
    return 0;
}

static int lk_start(struct lc_counters *c)
{
    (void)c;
    return lk_likwid_markerStartRegion(REGION);
}

static int lk_stop(struct lc_counters *c)
{
    struct lk_priv *p = c->priv;
    if (p != NULL)
        p->stopped_once = 1;
    return lk_likwid_markerStopRegion(REGION);
}

/* The region's totals over all its start/stop pairs: cumulative, as the
 * baselines of counters.c want. */
static int lk_read(struct lc_counters *c, struct lc_ctr_snap *snaps)
{
    struct lk_priv *p = c->priv;
    double ev[MAXEV], t = 0;
    int n = MAXEV, count = 0;

    if (p == NULL || !p->stopped_once)
        return 0; /* likwid has results only once the region was stopped */
    lk_likwid_markerGetRegion(REGION, &n, ev, &t, &count);
    for (int i = 0; i < n && i < p->nev; i++) {
        int m = p->map[i];
        if (m < 0)
            continue;
        struct lc_ctr_snap *s = lk_map[m].cls == LOCUS_COUNTER_LINK_BYTES ? &snaps[0]
                                                                           : &snaps[c->nsockets];
        s->v[lk_map[m].cls][lk_map[m].dir] += ev[i] * lk_map[m].scale;
    }
    return 0;
}

static void lk_close(struct lc_counters *c)
{
    if (c->priv == NULL)
        return;
    lk_likwid_markerClose(); /* writes the results likwid-perfctr prints */
    free(c->priv);
    c->priv = NULL;
}

#else /* !HAVE_LIKWID */

static int lk_probe(const struct lc_ctr_env *env, char *buf, size_t len)
{
    (void)env;
    snprintf(buf, len, "built without likwid (configure found no likwid.h/liblikwid)");
    return -ENOTSUP;
}

static int lk_open(struct lc_counters *c, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    lc_ctr_all_unavailable(c, "built without likwid");
    return 0;
}

#define lk_start NULL
#define lk_stop NULL
#define lk_read NULL
#define lk_close NULL

#endif /* HAVE_LIKWID */

const struct lc_ctr_backend lc_ctr_likwid = {
    .name = "likwid",
    .description = "likwid Marker API region 'locus' (run under likwid-perfctr -m)",
    .probe = lk_probe,
    .open = lk_open,
    .read = lk_read,
    .start = lk_start,
    .stop = lk_stop,
    .close = lk_close,
};
