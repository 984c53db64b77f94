/*
 * counters.c - the backend-independent half of the coherence-traffic
 * counters: choosing a backend (auto = the best that counts anything here),
 * start/stop as baselines over cumulative counts (so a phase can be
 * bracketed without resetting hardware counters that inherited per-thread
 * events cannot reset), and turning per-socket snapshots into the public
 * locus_counters_t with each class's availability and reason.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "counters/counters.h"

const struct lc_ctr_backend *const lc_ctr_backends[] = {
    &lc_ctr_perf, &lc_ctr_papi, &lc_ctr_likwid, &lc_ctr_none, NULL,
};

uint64_t lc_ctr_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void lc_ctr_set_unavailable(struct lc_counters *c, int cls, const char *fmt, ...)
{
    struct lc_ctr_class *k = &c->cls[cls];
    va_list ap;

    k->kind = LOCUS_COUNTER_UNAVAILABLE;
    k->dirs = 0;
    k->merged = 0;
    va_start(ap, fmt);
    vsnprintf(k->reason, sizeof k->reason, fmt, ap);
    va_end(ap);
}

void lc_ctr_all_unavailable(struct lc_counters *c, const char *reason)
{
    for (int k = 0; k < LC_NCLS; k++)
        lc_ctr_set_unavailable(c, k, "%s", reason);
}

void lc_ctr_apply_table(struct lc_counters *c, const struct lc_ctr_table *t)
{
    for (int k = 0; k < LC_NCLS; k++) {
        const struct lc_ctr_class_map *m = &t->cls[k];
        struct lc_ctr_class *o = &c->cls[k];
        memset(o, 0, sizeof *o);
        o->kind = m->kind;
        o->merged = m->merged;
        snprintf(o->unit, sizeof o->unit, "%s", m->unit ? m->unit : "");
        snprintf(o->reason, sizeof o->reason, "%s", m->note ? m->note : "");
        /* directions and PMU kind from the events; the source names the Tx
         * events (their Rx twins read alike), or the Rx ones when alone */
        for (size_t i = 0; i < t->nev; i++) {
            const struct lc_ctr_event *e = &t->ev[i];
            if (e->classes & (1u << k)) {
                o->dirs |= e->dir == LC_TX ? LOCUS_COUNTER_HAS_TX : LOCUS_COUNTER_HAS_RX;
                o->process = lc_ctr_event_is_core(e);
            }
        }
        int want = o->dirs & LOCUS_COUNTER_HAS_TX ? LC_TX : LC_RX;
        size_t used = 0, nnamed = 0;
        for (size_t i = 0; i < t->nev; i++) {
            const struct lc_ctr_event *e = &t->ev[i];
            if (!(e->classes & (1u << k)) || e->dir != want)
                continue;
            if (++nnamed > 2) { /* 16 data fabric interfaces: name the first and count */
                continue;
            }
            int n = snprintf(o->source + used, sizeof o->source - used, "%s%s",
                             used ? " + " : "", e->name);
            if (n > 0 && (size_t)n < sizeof o->source - used)
                used += (size_t)n;
        }
        if (nnamed > 2) {
            int n = snprintf(o->source + used, sizeof o->source - used, " + %zu more",
                             nnamed - 2);
            (void)n;
        }
        if (m->kind == LOCUS_COUNTER_UNAVAILABLE)
            o->dirs = 0;
    }
}

int lc_ctr_navailable(const struct lc_counters *c)
{
    int n = 0;
    for (int k = 0; k < LC_NCLS; k++)
        n += c->cls[k].kind != LOCUS_COUNTER_UNAVAILABLE;
    return n;
}

static int append(char *buf, size_t len, size_t *used, const char *sep, const char *s)
{
    int n = snprintf(buf + *used, len - *used, "%s%s", *used ? sep : "", s);
    if (n < 0 || (size_t)n >= len - *used)
        return -1;
    *used += (size_t)n;
    return 0;
}

/* One line out of the distinct reasons of the unavailable classes.  The
 * reasons a VM causes all begin with LC_CTR_VM: they become one clause,
 * "running in a VM (hypervisor flag): no uncore PMU, no core PMU ...". */
static void summarize(const struct lc_counters *c, char *buf, size_t len)
{
    static const char vm[] = LC_CTR_VM ": ";
    char vmpart[LC_CTR_ERR_MAX], rest[LC_CTR_ERR_MAX];
    size_t nvm = 0, nrest = 0;

    vmpart[0] = rest[0] = '\0';
    for (int k = 0; k < LC_NCLS; k++) {
        const char *r = c->cls[k].reason;
        if (c->cls[k].kind != LOCUS_COUNTER_UNAVAILABLE || r[0] == '\0')
            continue;
        if (strncmp(r, vm, sizeof vm - 1) == 0) {
            r += sizeof vm - 1;
            if (strstr(vmpart, r) == NULL)
                append(vmpart, sizeof vmpart, &nvm, ", ", r);
        } else if (strstr(rest, r) == NULL) {
            append(rest, sizeof rest, &nrest, "; ", r);
        }
    }
    size_t used = 0;
    buf[0] = '\0';
    if (nvm > 0 && append(buf, len, &used, "", vm) == 0)
        append(buf, len, &used, "", vmpart);
    if (nrest > 0)
        append(buf, len, &used, "; ", rest);
}

static const struct lc_ctr_backend *find_backend(const char *name)
{
    for (int i = 0; lc_ctr_backends[i] != NULL; i++)
        if (strcasecmp(lc_ctr_backends[i]->name, name) == 0)
            return lc_ctr_backends[i];
    return NULL;
}

/* Opens be on c: probe, then open.  0 when it counts at least one class. */
static int try_backend(struct lc_counters *c, const struct lc_ctr_backend *be,
                       char *why, size_t whylen)
{
    char err[LC_CTR_ERR_MAX];
    int r;

    c->be = be;
    c->nsockets = 0;
    c->priv = NULL;
    memset(c->cls, 0, sizeof c->cls);
    if ((r = be->probe(&c->env, why, whylen)) < 0) {
        lc_ctr_all_unavailable(c, why);
        return r;
    }
    err[0] = '\0';
    if ((r = be->open(c, err, sizeof err)) < 0) {
        snprintf(why, whylen, "%s", err);
        lc_ctr_all_unavailable(c, why);
        return r;
    }
    if (lc_ctr_navailable(c) == 0) {
        summarize(c, why, whylen);
        return -ENODEV;
    }
    return 0;
}

static void close_backend(struct lc_counters *c)
{
    if (c->be != NULL && c->be->close != NULL)
        c->be->close(c);
    c->priv = NULL;
}

static int alloc_snaps(struct lc_counters *c)
{
    size_t n = (size_t)c->nsockets + 1;
    c->base = calloc(n, sizeof *c->base);
    c->end = calloc(n, sizeof *c->end);
    return c->base && c->end ? 0 : -ENOMEM;
}

int lc_counters_open(const char *backend, const struct lc_ctr_env *env,
                     struct lc_counters **out, char *err, size_t errlen)
{
    struct lc_counters *c;
    char why[LC_CTR_REASON_MAX];
    int r;

    *out = NULL;
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    if (backend == NULL || backend[0] == '\0')
        backend = "auto";
    c = calloc(1, sizeof *c);
    if (c == NULL)
        return -ENOMEM;
    if (env != NULL)
        c->env = *env;
    snprintf(c->requested, sizeof c->requested, "%s", backend);
    lc_ctr_detect(&c->env, &c->mach);

    if (strcasecmp(backend, "auto") == 0) {
        /* perf first: it is what PAPI and likwid sit on, and the only one
         * that also has the per-thread proxies.  Its per-class reasons are
         * the ones reported when nothing counts. */
        struct lc_ctr_class perf_cls[LC_NCLS];
        char perf_why[LC_CTR_REASON_MAX], papi_why[LC_CTR_REASON_MAX];
        char likwid_why[LC_CTR_REASON_MAX];

        if (try_backend(c, &lc_ctr_perf, perf_why, sizeof perf_why) == 0)
            goto opened;
        memcpy(perf_cls, c->cls, sizeof perf_cls);
        close_backend(c);
        if (try_backend(c, &lc_ctr_likwid, likwid_why, sizeof likwid_why) == 0)
            goto opened;
        close_backend(c);
        /* PAPI's uncore component is perf_event underneath: where perf has
         * no PMU or no permission it has neither, so it is not tried then. */
        if (c->mach.uncore_pmus > 0 && c->mach.paranoid != LC_PARANOID_NONE) {
            if (try_backend(c, &lc_ctr_papi, papi_why, sizeof papi_why) == 0)
                goto opened;
            close_backend(c);
        } else {
            snprintf(papi_why, sizeof papi_why, "not tried (PAPI counts through perf_event)");
        }
        c->be = &lc_ctr_none;
        c->nsockets = 0;
        memcpy(c->cls, perf_cls, sizeof c->cls);
        snprintf(c->reason, sizeof c->reason, "perf: %.150s | likwid: %.150s | papi: %.150s",
                 perf_why, likwid_why, papi_why);
        goto opened;
    }

    const struct lc_ctr_backend *be = find_backend(backend);
    if (be == NULL) {
        snprintf(err, errlen, "LOCUS_COUNTERS='%s': expected auto, perf, papi, likwid, none or help",
                 backend);
        free(c);
        return -EINVAL;
    }
    if ((r = try_backend(c, be, why, sizeof why)) < 0 && be != &lc_ctr_none) {
        snprintf(err, errlen, "LOCUS_COUNTERS=%s: this machine cannot count with %s: %s "
                 "(LOCUS_COUNTERS=auto counts what it can and reports the rest as unavailable)",
                 be->name, be->name, why);
        close_backend(c);
        free(c);
        return -ENODEV;
    }

opened:
    snprintf(c->backend_name, sizeof c->backend_name, "%s", c->be->name);
    if (c->reason[0] == '\0' && lc_ctr_navailable(c) == 0)
        summarize(c, c->reason, sizeof c->reason);
    if (alloc_snaps(c) < 0) {
        lc_counters_close(c);
        snprintf(err, errlen, "counters: out of memory");
        return -ENOMEM;
    }
    *out = c;
    return 0;
}

static void snap_now(struct lc_counters *c, struct lc_ctr_snap *s)
{
    memset(s, 0, ((size_t)c->nsockets + 1) * sizeof *s);
    if (c->be->read != NULL && lc_ctr_navailable(c) > 0)
        c->be->read(c, s);
}

int lc_counters_start(struct lc_counters *c)
{
    if (c->be->start != NULL)
        c->be->start(c);
    snap_now(c, c->base);
    c->t_start = lc_ctr_now_ns();
    c->counting = 1;
    c->stopped = 0;
    return 0;
}

int lc_counters_stop(struct lc_counters *c)
{
    if (!c->counting)
        return 0;
    if (c->be->stop != NULL)
        c->be->stop(c);
    snap_now(c, c->end);
    c->t_stop = lc_ctr_now_ns();
    c->counting = 0;
    c->stopped = 1;
    return 0;
}

static uint64_t delta(double now, double base)
{
    double d = now - base;
    return d > 0 ? (uint64_t)llround(d) : 0;
}

int lc_counters_read(struct lc_counters *c, int socket, locus_counters_t *o)
{
    size_t ns = (size_t)c->nsockets + 1;
    struct lc_ctr_snap *now = NULL;

    if (socket >= c->nsockets || socket < -1)
        return -EINVAL;
    memset(o, 0, sizeof *o);
    snprintf(o->backend, sizeof o->backend, "%s", c->backend_name);
    snprintf(o->requested, sizeof o->requested, "%s", c->requested);
    if (c->table != NULL)
        snprintf(o->table, sizeof o->table, "%s: %s", c->table->name, c->table->title);
    o->sockets = c->nsockets;
    o->counting = c->counting;
    o->phase = c->phase;
    snprintf(o->reason, sizeof o->reason, "%s", c->reason);
    if (c->counting) {
        now = calloc(ns, sizeof *now);
        if (now == NULL)
            return -ENOMEM;
        snap_now(c, now);
        o->seconds = (double)(lc_ctr_now_ns() - c->t_start) * 1e-9;
    } else if (c->stopped) {
        now = c->end;
        o->seconds = (double)(c->t_stop - c->t_start) * 1e-9;
    }

    for (int k = 0; k < LC_NCLS; k++) {
        const struct lc_ctr_class *src = &c->cls[k];
        locus_counter_value_t *v = &o->cls[k];
        v->kind = src->kind;
        snprintf(v->unit, sizeof v->unit, "%s", src->unit);
        snprintf(v->source, sizeof v->source, "%s", src->source);
        snprintf(v->reason, sizeof v->reason, "%s", src->reason);
        if (src->kind == LOCUS_COUNTER_UNAVAILABLE)
            continue;
        v->merged = src->merged;
        if (socket >= 0 && src->process) {
            v->kind = LOCUS_COUNTER_UNAVAILABLE;
            v->merged = 0;
            snprintf(v->reason, sizeof v->reason,
                     "counted for the whole process by per-thread events, not per socket");
            continue;
        }
        size_t lo = src->process ? (size_t)c->nsockets : socket >= 0 ? (size_t)socket : 0;
        size_t hi = src->process ? lo + 1 : socket >= 0 ? lo + 1 : (size_t)c->nsockets;
        double tx = 0, rx = 0;
        unsigned scaled = 0, never = 0;
        for (size_t s = lo; s < hi && now != NULL; s++) {
            tx += now[s].v[k][LC_TX] - c->base[s].v[k][LC_TX];
            rx += now[s].v[k][LC_RX] - c->base[s].v[k][LC_RX];
            scaled |= now[s].scaled;
            never |= now[s].never;
        }
        if (never & (1u << k)) {
            v->kind = LOCUS_COUNTER_UNAVAILABLE;
            v->merged = 0;
            snprintf(v->reason, sizeof v->reason, "an event of this class never got a hardware "
                     "counter (used by another program, or more events than counters)");
            continue;
        }
        v->flags = src->dirs;
        if (scaled & (1u << k))
            v->flags |= LOCUS_COUNTER_SCALED;
        if (src->dirs & LOCUS_COUNTER_HAS_TX)
            v->tx = delta(tx, 0);
        if (src->dirs & LOCUS_COUNTER_HAS_RX)
            v->rx = delta(rx, 0);
    }
    if (c->counting)
        free(now);
    return 0;
}

void lc_counters_close(struct lc_counters *c)
{
    if (c == NULL)
        return;
    close_backend(c);
    free(c->base);
    free(c->end);
    free(c);
}
