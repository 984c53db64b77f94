/*
 * perf.c - the perf_event backend: uncore PMUs programmed from sysfs
 * (type, cpumask, format), one CPU-wide event per box per socket, plus
 * per-thread core proxies (e.g. loads served by remote DRAM) inherited by
 * the workers created after them.  Every event is opened with
 * TOTAL_TIME_ENABLED|RUNNING so that multiplexed counts are scaled and
 * marked, and counts are read cumulatively (counters.c subtracts the
 * baselines).  Uncore PMUs refuse task-bound events, sampling and any
 * exclude_* bit, so those are left clear there; per-thread events exclude
 * the kernel so that perf_event_paranoid=2 allows them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "counters/perf.h"

static const char *sysfs_of(const struct lc_ctr_env *env)
{
    return env->sysfs != NULL && env->sysfs[0] != '\0' ? env->sysfs : "/sys";
}

static int sys_open(struct perf_event_attr *attr, int pid, int cpu, int group,
                    unsigned long flags, void *ctx)
{
    (void)ctx;
    return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

static long sys_read(int fd, void *buf, size_t len, void *ctx)
{
    (void)ctx;
    return (long)read(fd, buf, len);
}

static int sys_close(int fd, void *ctx)
{
    (void)ctx;
    return close(fd);
}

/* A small cache of the PMUs read so far. */
struct pmu_cache {
    struct lc_pmu *p;
    int n, cap;
};

static const struct lc_pmu *cached_pmu(struct pmu_cache *pc, const char *sysfs, const char *name,
                                       char *err, size_t errlen)
{
    for (int i = 0; i < pc->n; i++)
        if (strcmp(pc->p[i].name, name) == 0)
            return &pc->p[i];
    if (pc->n == pc->cap) {
        int cap = pc->cap ? pc->cap * 2 : 8;
        struct lc_pmu *np = realloc(pc->p, (size_t)cap * sizeof *np);
        if (np == NULL) {
            snprintf(err, errlen, "out of memory");
            return NULL;
        }
        pc->p = np;
        pc->cap = cap;
    }
    if (lc_pmu_read(sysfs, name, &pc->p[pc->n], err, errlen) < 0)
        return NULL;
    return &pc->p[pc->n++];
}

/* The slot of the socket cpu belongs to, added on first sight. */
static int socket_slot(struct lc_perf_plan *plan, const char *sysfs, int cpu, int index)
{
    int pkg = lc_cpu_package(sysfs, cpu);
    if (pkg < 0)
        pkg = index; /* no topology files: the cpumask lists one CPU per socket in order */
    for (int i = 0; i < plan->nsockets; i++)
        if (plan->sockets[i] == pkg)
            return i;
    if (plan->nsockets >= LC_CTR_MAX_SOCKETS)
        return -1;
    plan->sockets[plan->nsockets] = pkg;
    return plan->nsockets++;
}

static int push(struct lc_perf_plan *plan, size_t *cap, const struct lc_perf_event *e)
{
    if (plan->nev == *cap) {
        size_t nc = *cap ? *cap * 2 : 32;
        struct lc_perf_event *np = realloc(plan->ev, nc * sizeof *np);
        if (np == NULL)
            return -ENOMEM;
        plan->ev = np;
        *cap = nc;
    }
    plan->ev[plan->nev++] = *e;
    return 0;
}

static void mark(struct lc_counters *c, unsigned classes, const char *why)
{
    for (int k = 0; k < LC_NCLS; k++)
        if ((classes & (1u << k)) && c->cls[k].kind != LOCUS_COUNTER_UNAVAILABLE)
            lc_ctr_set_unavailable(c, k, "%s", why);
}

static void fill_attr(struct perf_event_attr *a, uint32_t type, const uint64_t cfg[3], int core)
{
    memset(a, 0, sizeof *a);
    a->size = sizeof *a;
    a->type = type;
    a->config = cfg[0];
    a->config1 = cfg[1];
    a->config2 = cfg[2];
    a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    if (core) {
        a->inherit = 1;         /* the workers, created after the event */
        a->exclude_kernel = 1;  /* allowed at perf_event_paranoid=2 */
        a->exclude_hv = 1;
    }
}

int lc_perf_plan(struct lc_counters *c, const struct lc_ctr_table *t, struct lc_perf_plan *plan)
{
    const char *sysfs = sysfs_of(&c->env);
    struct pmu_cache pc = { 0 };
    size_t cap = 0;
    char core_block[LC_CTR_REASON_MAX], uncore_block[LC_CTR_REASON_MAX];
    char err[LC_CTR_ERR_MAX], why[LC_CTR_REASON_MAX];
    char names[LC_CTR_MAX_SOCKETS][LC_PMU_NAME_MAX];
    int r = 0;

    memset(plan, 0, sizeof *plan);
    lc_ctr_blocker(&c->mach, 0, c->mach.cpu_pmu, core_block, sizeof core_block);
    struct lc_pmu_dir dir;
    (void)lc_pmu_dir_read(sysfs, &dir);   /* without memory it scans per event, as before */

    for (size_t i = 0; i < t->nev && r == 0; i++) {
        const struct lc_ctr_event *e = &t->ev[i];
        int core = lc_ctr_event_is_core(e);
        int n = lc_pmu_dir_list(&dir, e->pmu, names, LC_CTR_MAX_SOCKETS);

        if (core && core_block[0] != '\0') {
            mark(c, e->classes, core_block);
            continue;
        }
        if (!core) {
            lc_ctr_blocker(&c->mach, 1, n > 0, uncore_block, sizeof uncore_block);
            if (uncore_block[0] != '\0') {
                mark(c, e->classes, uncore_block);
                continue;
            }
        }
        for (int b = 0; b < n && r == 0; b++) {
            uint64_t cfg[3];
            err[0] = '\0';
            const struct lc_pmu *p = cached_pmu(&pc, sysfs, names[b], err, sizeof err);
            if (p == NULL || lc_pmu_encode(p, e->fields, cfg, err, sizeof err) < 0) {
                snprintf(why, sizeof why, "cannot program %.60s: %.110s", e->name, err);
                mark(c, e->classes, why);
                break;
            }
            struct lc_perf_event pe;
            memset(&pe, 0, sizeof pe);
            fill_attr(&pe.attr, p->type, cfg, core);
            pe.classes = e->classes;
            pe.dir = e->dir;
            pe.scale = e->scale;
            pe.name = e->name;
            pe.fd = -1;
            snprintf(pe.pmu, sizeof pe.pmu, "%s", p->name);
            if (core) {
                pe.pid = 0;
                pe.cpu = -1;
                pe.slot = LC_PERF_PROCESS;
                r = push(plan, &cap, &pe);
                continue;
            }
            if (p->ncpus == 0) {
                snprintf(why, sizeof why, "%s has an empty cpumask", p->name);
                mark(c, e->classes, why);
                break;
            }
            for (int k = 0; k < p->ncpus && r == 0; k++) {
                pe.pid = -1;
                pe.cpu = p->cpus[k];
                pe.slot = socket_slot(plan, sysfs, p->cpus[k], k);
                if (pe.slot < 0) {
                    mark(c, e->classes, "more sockets than Locus counts (64)");
                    break;
                }
                r = push(plan, &cap, &pe);
            }
        }
    }
    free(pc.p);
    lc_pmu_dir_free(&dir);
    if (r < 0)
        lc_perf_plan_free(plan);
    return r;
}

void lc_perf_plan_free(struct lc_perf_plan *plan)
{
    free(plan->ev);
    plan->ev = NULL;
    plan->nev = 0;
}

/* ---- the backend --------------------------------------------------------- */

/* Nothing to probe: perf_open rules perf out from the machine detection
 * already read (a kernel without perf_event), which a probe read again. */
static int perf_probe(const struct lc_ctr_env *env, char *buf, size_t len)
{
    (void)env;
    (void)len;
    buf[0] = '\0';
    return 0;
}

static int perf_open(struct lc_counters *c, char *err, size_t errlen)
{
    /* only a kernel without perf_event rules perf out at once: anything
     * else (no PMU, privileges) is said per class below */
    if (c->mach.paranoid == LC_PARANOID_NONE) {
        snprintf(err, errlen, "the kernel has no perf_event support (no perf_event_paranoid)");
        return -ENOSYS;
    }
    struct lc_perf_plan *plan;
    char why[LC_CTR_REASON_MAX];
    const struct lc_ctr_table *t = lc_ctr_table_for(&c->mach, why, sizeof why);

    if (t == NULL) {
        /* a missing PMU or privilege explains more than a missing table */
        char ublock[LC_CTR_REASON_MAX], cblock[LC_CTR_REASON_MAX];
        lc_ctr_blocker(&c->mach, 1, c->mach.uncore_pmus > 0, ublock, sizeof ublock);
        lc_ctr_blocker(&c->mach, 0, c->mach.cpu_pmu, cblock, sizeof cblock);
        for (int k = 0; k < LC_NCLS; k++) {
            const char *b = k >= LOCUS_COUNTER_LOCAL_DRAM ? cblock : ublock;
            lc_ctr_set_unavailable(c, k, "%s", b[0] ? b : why);
        }
        return 0;
    }
    c->table = t;
    lc_ctr_apply_table(c, t);
    plan = calloc(1, sizeof *plan);
    if (plan == NULL) {
        snprintf(err, errlen, "counters: out of memory");
        return -ENOMEM;
    }
    if (lc_perf_plan(c, t, plan) < 0) {
        free(plan);
        snprintf(err, errlen, "counters: out of memory");
        return -ENOMEM;
    }
    c->priv = plan;
    c->nsockets = plan->nsockets;
    memcpy(c->sockets, plan->sockets, sizeof c->sockets);

    int (*op)(struct perf_event_attr *, int, int, int, unsigned long, void *) =
        c->env.open ? c->env.open : sys_open;
    for (size_t i = 0; i < plan->nev; i++) {
        struct lc_perf_event *e = &plan->ev[i];
        int live = 0;
        for (int k = 0; k < LC_NCLS; k++)
            live |= (e->classes & (1u << k)) && c->cls[k].kind != LOCUS_COUNTER_UNAVAILABLE;
        if (!live)
            continue; /* a sibling event already failed for all its classes */
        e->fd = op(&e->attr, e->pid, e->cpu, -1, PERF_FLAG_FD_CLOEXEC, c->env.ctx);
        if (e->fd < 0) {
            int en = errno;
            char what[160];
            e->fd = -1;
            if (e->slot == LC_PERF_PROCESS)
                snprintf(what, sizeof what, "%s", e->name);
            else
                snprintf(what, sizeof what, "%s on %s cpu %d", e->name, e->pmu, e->cpu);
            lc_ctr_errno_reason(en, &c->mach, what, why, sizeof why);
            mark(c, e->classes, why);
        }
    }
    return 0;
}

static int perf_read(struct lc_counters *c, struct lc_ctr_snap *snaps)
{
    struct lc_perf_plan *plan = c->priv;
    long (*rd)(int, void *, size_t, void *) = c->env.read ? c->env.read : sys_read;

    if (plan == NULL)
        return 0;
    for (size_t i = 0; i < plan->nev; i++) {
        const struct lc_perf_event *e = &plan->ev[i];
        uint64_t v[3];
        if (e->fd < 0)
            continue;
        if (rd(e->fd, v, sizeof v, c->env.ctx) != (long)sizeof v)
            continue;
        struct lc_ctr_snap *s = &snaps[e->slot == LC_PERF_PROCESS ? c->nsockets : e->slot];
        double x = (double)v[0];
        unsigned scaled = 0, never = 0;
        if (v[2] == 0 && v[1] > 0)
            never = e->classes;
        else if (v[2] < v[1]) {
            x = x * (double)v[1] / (double)v[2];
            scaled = e->classes;
        }
        x *= e->scale;
        for (int k = 0; k < LC_NCLS; k++)
            if (e->classes & (1u << k))
                s->v[k][e->dir] += x;
        s->scaled |= scaled;
        s->never |= never;
    }
    return 0;
}

static void perf_close(struct lc_counters *c)
{
    struct lc_perf_plan *plan = c->priv;
    int (*cl)(int, void *) = c->env.close ? c->env.close : sys_close;
    if (plan == NULL)
        return;
    for (size_t i = 0; i < plan->nev; i++)
        if (plan->ev[i].fd >= 0)
            cl(plan->ev[i].fd, c->env.ctx);
    lc_perf_plan_free(plan);
    free(plan);
    c->priv = NULL;
}

const struct lc_ctr_backend lc_ctr_perf = {
    .name = "perf",
    .description = "Linux perf_event: uncore PMUs from sysfs, per socket, plus per-thread core proxies",
    .probe = perf_probe,
    .open = perf_open,
    .read = perf_read,
    .close = perf_close,
};
