/*
 * otf2.c - writes the workers' recordings (trace.h) as an OTF2 archive,
 * the open trace format of Score-P, Vampir and ViTE, at locus_finalize().
 *
 * Layout: the system tree is the machine, then its NUMA nodes; each node
 * is a location group and each worker a location (a CPU thread) of its
 * node's group, so a viewer shows the workers grouped by node.  A task is
 * an Enter/Leave of the region named by its label (else its function),
 * followed at the Enter by a "task" parameter (its id) and a metric of its
 * local, near and far dependency bytes; idle polling, sleeping and
 * taskwait are regions too.  Spawns, releases and steals are parameters:
 * "spawn" (the new task), "released by" then "ready" (a completion made a
 * task ready), "steal from node" then "steal distance" (0 local, 1 near,
 * 2 far).  locus-trace (tools/) reads all of it.
 *
 * Built only when configure found libotf2 (HAVE_OTF2); elsewhere
 * LOCUS_TRACE fails locus_init (trace.c) and this file says so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "runtime.h"
#include "trace.h"

/* LC_TRACE_NO_OTF2: the build without OTF2, for tests/test_trace_nootf2.c */
#if !defined(HAVE_OTF2) || defined(LC_TRACE_NO_OTF2)

int lc_trace_have_otf2(void)
{
    return 0;
}

int lc_trace_write_otf2(struct lc_runtime *rt, const char *dir, char *err, size_t errlen)
{
    (void)rt;
    snprintf(err, errlen, "LOCUS_TRACE='%s': built without OTF2", dir);
    return -ENOTSUP;
}

#else

#include <otf2/otf2.h>
#include <sys/statvfs.h>

int lc_trace_have_otf2(void)
{
    return 1;
}

/* ---- strings and regions, numbered as the definitions will be */

struct names {
    char **s;
    uint32_t n, cap;
};

static int64_t name_add(struct names *t, const char *s)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (strcmp(t->s[i], s) == 0)
            return i;
    if (t->n == t->cap) {
        uint32_t cap = t->cap ? 2 * t->cap : 64;
        char **ns = realloc(t->s, cap * sizeof *ns);
        if (!ns)
            return -1;
        t->s = ns;
        t->cap = cap;
    }
    if (!(t->s[t->n] = strdup(s)))
        return -1;
    return t->n++;
}

static void names_free(struct names *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        free(t->s[i]);
    free(t->s);
}

/* Regions by (label, fn) pointer pair: a small direct-mapped cache in
 * front of the name search, so that dladdr runs once per function. */
#define RCACHE 1024
struct rcache {
    const void *p[RCACHE], *q[RCACHE];
    int64_t region[RCACHE];
};

struct writer {
    struct names str;       /* OTF2 strings */
    struct names reg;       /* regions: their names (index = region id) */
    struct rcache *rc;
    int64_t r_idle, r_sleep, r_taskwait;
};

static int64_t region_of(struct writer *wr, const void *p, const void *q)
{
    unsigned h = (unsigned)((((uintptr_t)p >> 3) * 31u + ((uintptr_t)q >> 2)) % RCACHE);
    if (wr->rc->region[h] >= 0 && wr->rc->p[h] == p && wr->rc->q[h] == q)
        return wr->rc->region[h];
    char buf[LOCUS_LABEL_MAX + LC_PATH_MAX];
    int64_t r = name_add(&wr->reg, lc_trace_name(p, q, 1, buf, sizeof buf));
    if (r >= 0) {
        wr->rc->p[h] = p;
        wr->rc->q[h] = q;
        wr->rc->region[h] = r;
    }
    return r;
}

/* Per-task bytes: with LC_EVF_CUM a BEGIN holds the worker's counters; a
 * task's own bytes are its END's counters minus its BEGIN's, minus what
 * the tasks nested in it (run by a taskwait in its body) counted.  The
 * records become the task's own bytes. */
struct open_task {
    struct lc_trace_ev *begin;
    uint64_t child[3];
};

static int own_bytes(struct lc_trace_buf *b)
{
    size_t cap = 64, depth = 0;
    struct open_task *st = malloc(cap * sizeof *st);
    if (!st)
        return -ENOMEM;
    struct lc_trace_iter it = lc_trace_iter_start(b);
    const struct lc_trace_ev *ce;
    while ((ce = lc_trace_next(&it))) {
        struct lc_trace_ev *e = (struct lc_trace_ev *)ce;   /* our own records */
        if (e->kind == LC_EV_BEGIN) {
            if (depth == cap) {
                struct open_task *ns = realloc(st, 2 * cap * sizeof *st);
                if (!ns) {
                    free(st);
                    return -ENOMEM;
                }
                st = ns;
                cap *= 2;
            }
            st[depth].begin = e;
            memset(st[depth].child, 0, sizeof st[depth].child);
            depth++;
        } else if (e->kind == LC_EV_END && depth > 0) {
            struct open_task *o = &st[--depth];
            uint64_t tot[3] = { e->a, e->b, e->c };
            if (o->begin->flags & LC_EVF_CUM) {
                tot[0] -= o->begin->a;
                tot[1] -= o->begin->b;
                tot[2] -= o->begin->c;
                o->begin->a = tot[0] - o->child[0];
                o->begin->b = tot[1] - o->child[1];
                o->begin->c = tot[2] - o->child[2];
                o->begin->flags &= ~LC_EVF_CUM;
            } else {
                tot[0] = tot[1] = tot[2] = 0;   /* counted at the spawn, not here */
            }
            if (depth > 0)
                for (int k = 0; k < 3; k++)
                    st[depth - 1].child[k] += tot[k];
        }
    }
    /* still running at an exit's cut (exit.c): their bytes are not known */
    while (depth > 0) {
        struct lc_trace_ev *b0 = st[--depth].begin;
        if (b0->flags & LC_EVF_CUM) {
            b0->a = b0->b = b0->c = 0;
            b0->flags &= ~LC_EVF_CUM;
        }
    }
    free(st);
    return 0;
}

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc,
                                void *cb, bool final)
{
    (void)ud; (void)ft; (void)loc; (void)cb; (void)final;
    return OTF2_FLUSH;
}

/* No post-flush callback: OTF2 would record a BufferFlush event per flush,
 * which is no event of the run (and would spoil verify's counts). */
static const OTF2_FlushCallbacks flush_cb = { pre_flush, NULL };

/* OTF2's own messages go to stderr by default; the first is kept for
 * locus_error_message() instead, with its code.  The code matters: OTF2
 * reports a failed write or close of its files (a full disk, a file size
 * limit) here and nowhere else, since the closing calls that meet it
 * return success. */
static __thread char otf2_msg[256];
static __thread OTF2_ErrorCode otf2_first;
static OTF2_ErrorCode on_error(void *ud, const char *file, uint64_t line, const char *fn,
                               OTF2_ErrorCode code, const char *fmt, va_list va)
{
    (void)ud; (void)file; (void)line; (void)fn;
    if (otf2_first == OTF2_SUCCESS && code != OTF2_SUCCESS) {
        otf2_first = code;
        vsnprintf(otf2_msg, sizeof otf2_msg, fmt ? fmt : "", va);
    }
    return code;
}

/* Parameters and the metric. */
enum { P_TASK, P_SPAWN, P_RELEASED_BY, P_READY, P_STEAL, P_STEAL_DIST, NPARAM };
static const char *const param_name[NPARAM] = {
    "task", "spawn", "released by", "ready", "steal from node",
    "steal distance",   /* 0 local, 1 near, 2 far: as locus_stats_t's steals */
};

#define CHECK(call)                                                       \
    do {                                                                  \
        OTF2_ErrorCode c_ = (call);                                       \
        if (c_ != OTF2_SUCCESS) {                                         \
            code = c_;                                                    \
            goto out;                                                     \
        }                                                                 \
    } while (0)

/* A string's number; *nomem set when it cannot be had. */
static OTF2_StringRef str(struct writer *wr, const char *s, int *nomem)
{
    int64_t r = name_add(&wr->str, s);
    if (r < 0)
        *nomem = 1;
    return r < 0 ? 0 : (OTF2_StringRef)r;
}
/* in write_defs: a definition written (counted for verify) or return */
#define CHECK_RET(call)                                                   \
    do {                                                                  \
        if ((code = (call)) != OTF2_SUCCESS)                              \
            return code;                                                  \
        (*ndefs)++;                                                       \
    } while (0)

#define STR(s) str(wr, (s), nomem)

static OTF2_ErrorCode write_events(OTF2_Archive *ar, struct lc_runtime *rt, struct writer *wr,
                                   uint64_t *nevents, uint64_t *tmin, uint64_t *tmax,
                                   const OTF2_ParameterRef *par, int *nomem)
{
    OTF2_ErrorCode code = OTF2_SUCCESS;
    static const OTF2_Type types[3] = { OTF2_TYPE_UINT64, OTF2_TYPE_UINT64, OTF2_TYPE_UINT64 };
    size_t cap = 64;
    int64_t *stack = malloc(cap * sizeof *stack);
    if (!stack) {
        *nomem = 1;
        return OTF2_SUCCESS;
    }
    for (int i = 0; i < rt->nworkers; i++) {
        struct lc_trace_buf *b = &rt->trace_bufs[i];
        OTF2_EvtWriter *ew = OTF2_Archive_GetEvtWriter(ar, (OTF2_LocationRef)i);
        if (!ew) {
            code = OTF2_ERROR_MEM_ALLOC_FAILED;
            break;
        }
        size_t depth = 0;
        uint64_t n = 0;
        struct lc_trace_iter it = lc_trace_iter_start(b);
        const struct lc_trace_ev *e;
        while ((e = lc_trace_next(&it)) && code == OTF2_SUCCESS) {
            OTF2_TimeStamp t = e->time;
            if (t < *tmin)
                *tmin = t;
            if (t > *tmax)
                *tmax = t;
            int64_t enter = -1;
            switch (e->kind) {
            case LC_EV_SPAWN:
                code = OTF2_EvtWriter_ParameterUnsignedInt(ew, NULL, t, par[P_SPAWN], e->id);
                n++;
                break;
            case LC_EV_BEGIN:
                enter = region_of(wr, e->p, e->q);
                break;
            case LC_EV_IDLE:
                enter = wr->r_idle;
                break;
            case LC_EV_SLEEP:
                enter = wr->r_sleep;
                break;
            case LC_EV_TASKWAIT:
                enter = wr->r_taskwait;
                break;
            case LC_EV_END: case LC_EV_IDLE_END: case LC_EV_WAKE: case LC_EV_TASKWAIT_END:
                if (depth > 0) {
                    code = OTF2_EvtWriter_Leave(ew, NULL, t, (OTF2_RegionRef)stack[--depth]);
                    n++;
                }
                break;
            case LC_EV_READY:
                code = OTF2_EvtWriter_ParameterUnsignedInt(ew, NULL, t, par[P_RELEASED_BY], e->a);
                if (code == OTF2_SUCCESS)
                    code = OTF2_EvtWriter_ParameterUnsignedInt(ew, NULL, t, par[P_READY], e->id);
                n += 2;
                break;
            case LC_EV_STEAL:
                code = OTF2_EvtWriter_ParameterInt(ew, NULL, t, par[P_STEAL], (int64_t)e->id);
                if (code == OTF2_SUCCESS)
                    code = OTF2_EvtWriter_ParameterUnsignedInt(
                        ew, NULL, t, par[P_STEAL_DIST],
                        rt->topo.nnodes == 1 ? 0
                        : (uint64_t)lc_topology_class(&rt->topo, rt->workers[i].node, (int)e->id));
                n += 2;
                break;
            default:
                break;
            }
            if (e->kind == LC_EV_BEGIN || e->kind == LC_EV_IDLE || e->kind == LC_EV_SLEEP
                || e->kind == LC_EV_TASKWAIT) {
                if (enter < 0) {
                    *nomem = 1;
                    break;
                }
                if (depth == cap) {
                    int64_t *ns = realloc(stack, 2 * cap * sizeof *ns);
                    if (!ns) {
                        *nomem = 1;
                        break;
                    }
                    stack = ns;
                    cap *= 2;
                }
                stack[depth++] = enter;
                code = OTF2_EvtWriter_Enter(ew, NULL, t, (OTF2_RegionRef)enter);
                n++;
                if (code == OTF2_SUCCESS && e->kind == LC_EV_BEGIN) {
                    OTF2_MetricValue v[3];
                    v[0].unsigned_int = e->a;
                    v[1].unsigned_int = e->b;
                    v[2].unsigned_int = e->c;
                    code = OTF2_EvtWriter_ParameterUnsignedInt(ew, NULL, t, par[P_TASK], e->id);
                    if (code == OTF2_SUCCESS)
                        code = OTF2_EvtWriter_Metric(ew, NULL, t, 0, 3, types, v);
                    n += 2;
                }
            }
        }
        /* regions still open at an exit's cut (exit.c) end there, so that
         * every Enter has its Leave */
        uint64_t cut = rt->trace_bufs[0].cut_ns;
        while (depth > 0 && code == OTF2_SUCCESS && !*nomem) {
            OTF2_TimeStamp t = cut > *tmax ? cut : *tmax;
            code = OTF2_EvtWriter_Leave(ew, NULL, t, (OTF2_RegionRef)stack[--depth]);
            if (t > *tmax)
                *tmax = t;
            n++;
        }
        nevents[i] = n;
        OTF2_ErrorCode c2 = OTF2_Archive_CloseEvtWriter(ar, ew);
        if (code == OTF2_SUCCESS)
            code = c2;
        if (code != OTF2_SUCCESS || *nomem)
            break;
    }
    free(stack);
    return code;
}

/* The global definitions: strings, the system tree (machine, nodes), a
 * location group per node and a location per worker, the regions, the
 * metric and the parameters. */
static OTF2_ErrorCode write_defs(OTF2_Archive *ar, struct lc_runtime *rt, struct writer *wr,
                                 const uint64_t *nevents, uint64_t tmin, uint64_t tmax,
                                 const OTF2_ParameterRef *par, int *nomem, uint64_t *ndefs)
{
    OTF2_ErrorCode code;
    int nn = rt->topo.nnodes, nw = rt->nworkers;
    OTF2_GlobalDefWriter *gw = OTF2_Archive_GetGlobalDefWriter(ar);
    if (!gw)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    if (tmin > tmax)
        tmin = tmax = lc_now_ns();
    CHECK_RET(OTF2_GlobalDefWriter_WriteClockProperties(gw, 1000000000u, tmin, tmax - tmin + 1,
                                                    OTF2_UNDEFINED_TIMESTAMP));
    /* strings first get their numbers; all are written below */
    OTF2_StringRef s_empty = STR(""), s_machine = STR("machine"), s_mclass = STR("machine");
    OTF2_StringRef s_nclass = STR("numa node"), s_bytes = STR("bytes");
    OTF2_StringRef s_regions[wr->reg.n], s_nodes[nn], s_workers[nw];
    OTF2_StringRef s_metric[3] = { STR("local bytes"), STR("near bytes"), STR("far bytes") };
    OTF2_StringRef s_param[NPARAM];
    char buf[64];
    for (int i = 0; i < NPARAM; i++)
        s_param[i] = STR(param_name[i]);
    for (uint32_t i = 0; i < wr->reg.n; i++)
        s_regions[i] = STR(wr->reg.s[i]);
    for (int i = 0; i < nn; i++) {
        snprintf(buf, sizeof buf, "node %d", i);
        s_nodes[i] = STR(buf);
    }
    for (int i = 0; i < nw; i++) {
        snprintf(buf, sizeof buf, "worker %d", i);
        s_workers[i] = STR(buf);
    }
    if (*nomem)
        return OTF2_SUCCESS;
    for (uint32_t i = 0; i < wr->str.n; i++)
        CHECK_RET(OTF2_GlobalDefWriter_WriteString(gw, i, wr->str.s[i]));
    (void)s_empty;
    CHECK_RET(OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, s_machine, s_mclass,
                                                   OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    for (int i = 0; i < nn; i++) {
        CHECK_RET(OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, (OTF2_SystemTreeNodeRef)(i + 1),
                                                       s_nodes[i], s_nclass, 0));
        CHECK_RET(OTF2_GlobalDefWriter_WriteLocationGroup(gw, (OTF2_LocationGroupRef)i, s_nodes[i],
                                                      OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                      (OTF2_SystemTreeNodeRef)(i + 1),
                                                      OTF2_UNDEFINED_LOCATION_GROUP));
    }
    for (int i = 0; i < nw; i++)
        CHECK_RET(OTF2_GlobalDefWriter_WriteLocation(gw, (OTF2_LocationRef)i, s_workers[i],
                                                 OTF2_LOCATION_TYPE_CPU_THREAD, nevents[i],
                                                 (OTF2_LocationGroupRef)rt->workers[i].node));
    for (uint32_t i = 0; i < wr->reg.n; i++) {
        int task = (int64_t)i != wr->r_idle && (int64_t)i != wr->r_sleep
                   && (int64_t)i != wr->r_taskwait;
        CHECK_RET(OTF2_GlobalDefWriter_WriteRegion(gw, i, s_regions[i], s_regions[i], s_empty,
                                               task ? OTF2_REGION_ROLE_TASK
                                                    : OTF2_REGION_ROLE_ARTIFICIAL,
                                               OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE,
                                               s_empty, 0, 0));
    }
    OTF2_MetricMemberRef members[3] = { 0, 1, 2 };
    for (int k = 0; k < 3; k++)
        CHECK_RET(OTF2_GlobalDefWriter_WriteMetricMember(gw, members[k], s_metric[k], s_empty,
                                                     OTF2_METRIC_TYPE_USER,
                                                     OTF2_METRIC_ABSOLUTE_POINT,
                                                     OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0,
                                                     s_bytes));
    CHECK_RET(OTF2_GlobalDefWriter_WriteMetricClass(gw, 0, 3, members, OTF2_METRIC_SYNCHRONOUS,
                                                OTF2_RECORDER_KIND_ABSTRACT));
    for (int i = 0; i < NPARAM; i++)
        CHECK_RET(OTF2_GlobalDefWriter_WriteParameter(gw, par[i], s_param[i],
                                                  i == P_STEAL ? OTF2_PARAMETER_TYPE_INT64
                                                               : OTF2_PARAMETER_TYPE_UINT64));
    return code;
}

/* An archive OTF2 wrote without reporting an error is read back and each
 * worker's events counted, so that a trace short of what the run recorded
 * is an error, not a surprise in the viewer.  Only such an archive: OTF2's
 * reader trusts each file to hold a whole chunk, and on a truncated file
 * it reads whatever its buffer held before, which can send it round a
 * loop for ever.  OTF2 error or a short count: -ENOSPC when the file
 * system is full, else -EIO. */
static int verify(const char *dir, const uint64_t *nevents, int nw, uint64_t ndefs,
                  char *why, size_t len)
{
    char anchor[LC_PATH_MAX + 32];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    int bad = -1;
    uint64_t got = 0;
    if (!rd) {
        snprintf(why, len, "its anchor file cannot be read back");
        goto fail;
    }
    if (OTF2_Reader_SetSerialCollectiveCallbacks(rd) != OTF2_SUCCESS
        || OTF2_Reader_OpenDefFiles(rd) != OTF2_SUCCESS
        || OTF2_Reader_OpenEvtFiles(rd) != OTF2_SUCCESS) {
        snprintf(why, len, "its files cannot be read back");
        goto fail;
    }
    {
        uint64_t n = 0;
        OTF2_GlobalDefReader *gr = OTF2_Reader_GetGlobalDefReader(rd);
        if (!gr || OTF2_Reader_ReadAllGlobalDefinitions(rd, gr, &n) != OTF2_SUCCESS
            || n != ndefs) {
            snprintf(why, len, "its definitions read back %llu of %llu",
                     (unsigned long long)n, (unsigned long long)ndefs);
            goto fail;
        }
        OTF2_Reader_CloseGlobalDefReader(rd, gr);
    }
    for (int i = 0; i < nw; i++) {
        uint64_t n = 0;
        OTF2_Reader_SelectLocation(rd, (OTF2_LocationRef)i);
        OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, (OTF2_LocationRef)i);
        if (dr) {
            OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
            OTF2_Reader_CloseDefReader(rd, dr);
        }
        OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, (OTF2_LocationRef)i);
        got = 0;
        if (!er || OTF2_Reader_ReadLocalEvents(rd, er, OTF2_UNDEFINED_UINT64, &got) != OTF2_SUCCESS
            || got != nevents[i]) {
            bad = i;
            if (er)
                OTF2_Reader_CloseEvtReader(rd, er);
            snprintf(why, len, "worker %d's events read back %llu of %llu", i,
                     (unsigned long long)got, (unsigned long long)nevents[i]);
            goto fail;
        }
        OTF2_Reader_CloseEvtReader(rd, er);
    }
    OTF2_Reader_CloseEvtFiles(rd);
    OTF2_Reader_CloseDefFiles(rd);
    OTF2_Reader_Close(rd);
    return 0;
fail:
    (void)bad;
    if (rd)
        OTF2_Reader_Close(rd);
    struct statvfs sv;
    if (statvfs(dir, &sv) == 0 && sv.f_bavail == 0)
        return -ENOSPC;
    return -EIO;
}

int lc_trace_write_otf2(struct lc_runtime *rt, const char *dir, char *err, size_t errlen)
{
    struct writer wr;
    memset(&wr, 0, sizeof wr);
    OTF2_ErrorCode code = OTF2_SUCCESS;
    int nomem = 0, nw = rt->nworkers;
    uint64_t tmin = UINT64_MAX, tmax = 0;
    uint64_t *nevents = calloc((size_t)nw, sizeof *nevents);
    OTF2_Archive *ar = NULL;

    otf2_msg[0] = '\0';
    otf2_first = OTF2_SUCCESS;
    OTF2_Error_RegisterCallback(on_error, NULL);
    wr.rc = malloc(sizeof *wr.rc);
    if (!nevents || !wr.rc) {
        nomem = 1;
        goto out;
    }
    for (int i = 0; i < RCACHE; i++)
        wr.rc->region[i] = -1;
    for (int i = 0; i < nw; i++)
        if (own_bytes(&rt->trace_bufs[i]) < 0) {
            nomem = 1;
            goto out;
        }
    wr.r_idle = name_add(&wr.reg, "idle");
    wr.r_sleep = name_add(&wr.reg, "sleep");
    wr.r_taskwait = name_add(&wr.reg, "taskwait");
    if (wr.r_idle < 0 || wr.r_sleep < 0 || wr.r_taskwait < 0) {
        nomem = 1;
        goto out;
    }

    ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
                           4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar) {
        code = OTF2_ERROR_FILE_INTERACTION;
        goto out;
    }
    CHECK(OTF2_Archive_SetFlushCallbacks(ar, &flush_cb, NULL));
    CHECK(OTF2_Archive_SetSerialCollectiveCallbacks(ar));
    CHECK(OTF2_Archive_SetCreator(ar, "Locus " LOCUS_VERSION));
    CHECK(OTF2_Archive_OpenEvtFiles(ar));
    OTF2_ParameterRef par[NPARAM];
    for (int i = 0; i < NPARAM; i++)
        par[i] = (OTF2_ParameterRef)i;
    CHECK(write_events(ar, rt, &wr, nevents, &tmin, &tmax, par, &nomem));
    if (nomem)
        goto out;
    CHECK(OTF2_Archive_CloseEvtFiles(ar));

    /* every location needs its (here empty) local definitions */
    CHECK(OTF2_Archive_OpenDefFiles(ar));
    for (int i = 0; i < nw; i++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, (OTF2_LocationRef)i);
        if (!dw) {
            code = OTF2_ERROR_MEM_ALLOC_FAILED;
            goto out;
        }
        CHECK(OTF2_Archive_CloseDefWriter(ar, dw));
    }
    CHECK(OTF2_Archive_CloseDefFiles(ar));

    uint64_t ndefs = 0;
    CHECK(write_defs(ar, rt, &wr, nevents, tmin, tmax, par, &nomem, &ndefs));
    if (nomem)
        goto out;
    {
        OTF2_Archive *a = ar;
        ar = NULL;
        CHECK(OTF2_Archive_Close(a));
    }
    if (otf2_first != OTF2_SUCCESS) {
        /* a write or close failed on the way and OTF2 went on */
        code = otf2_first;
        goto out;
    }
    {
        char why[160];
        int v = verify(dir, nevents, nw, ndefs, why, sizeof why);
        if (v < 0) {
            snprintf(err, errlen, "LOCUS_TRACE='%s': the trace was not written whole (%s)%s; "
                     "it is unusable", dir, why,
                     v == -ENOSPC ? ": the file system is full" : " (a full disk or a file "
                     "size limit?)");
            OTF2_Error_RegisterCallback(NULL, NULL);
            names_free(&wr.str);
            names_free(&wr.reg);
            free(wr.rc);
            free(nevents);
            return v;
        }
    }

out:
    if (ar)
        OTF2_Archive_Close(ar);
    OTF2_Error_RegisterCallback(NULL, NULL);
    names_free(&wr.str);
    names_free(&wr.reg);
    free(wr.rc);
    free(nevents);
    if (nomem) {
        snprintf(err, errlen, "LOCUS_TRACE='%s': out of memory writing the trace", dir);
        return -ENOMEM;
    }
    if (code != OTF2_SUCCESS) {
        int e = code == OTF2_ERROR_ENOSPC || code == OTF2_ERROR_EDQUOT ? ENOSPC
              : code == OTF2_ERROR_EACCES ? EACCES : EIO;
        struct statvfs sv;
        if (e == EIO && statvfs(dir, &sv) == 0 && sv.f_bavail == 0)
            e = ENOSPC;
        snprintf(err, errlen, "LOCUS_TRACE='%s': the OTF2 trace was not written whole: %s%s%s",
                 dir, OTF2_Error_GetDescription(code), otf2_msg[0] ? ": " : "", otf2_msg);
        return -e;
    }
    return 0;
}

#endif /* HAVE_OTF2 */
