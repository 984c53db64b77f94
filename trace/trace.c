/*
 * trace.c - recording for LOCUS_TRACE and LOCUS_DAG: each worker appends
 * events to chunks it allocated itself (trace.h says why that is all the
 * hot path pays), and locus_finalize() hands the chunks to the writers
 * (otf2.c, dag.c) once every worker has stopped; a run that ends without
 * it (runtime/exit.c) hands them what each worker had published.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "graph.h"
#include "runtime.h"
#include "symbols.h"
#include "trace.h"

/* An empty chunk, or NULL without memory. */
static struct lc_trace_chunk *chunk_new(void)
{
    struct lc_trace_chunk *c = malloc(sizeof *c);
    if (c) {
        atomic_init(&c->next, NULL);
        atomic_init(&c->n, 0);
    }
    return c;
}

/* A slot for one event, or NULL (counted as lost) without memory; the
 * event becomes readable to an exit's writers (exit.c) at commit(). */
static struct lc_trace_ev *slot(struct lc_trace_buf *b)
{
    struct lc_trace_chunk *c = b->cur;
    uint32_t n = atomic_load_explicit(&c->n, memory_order_relaxed);   /* ours alone */
    if (__builtin_expect(n == LC_TRACE_CHUNK, 0)) {
        struct lc_trace_chunk *nc = chunk_new();
        if (!nc) {
            lc_stat_add(&b->lost, 1);   /* (written by its worker only) */
            return NULL;
        }
        /* release: a reader that finds the link finds the chunk made */
        atomic_store_explicit(&c->next, nc, memory_order_release);
        b->cur = c = nc;
        n = 0;
    }
    struct lc_trace_ev *e = &c->ev[n];
    e->time = lc_ticks();   /* the TSC where there is one: made ns at finalize */
    e->flags = 0;
    e->p = e->q = NULL;
    e->a = e->b = e->c = 0;
    return e;
}

/* Publishes the event slot() gave: release, so that a reader that sees
 * the count sees the event's fields (on x86 a plain store). */
static inline void commit(struct lc_trace_buf *b)
{
    struct lc_trace_chunk *c = b->cur;
    atomic_store_explicit(&c->n, atomic_load_explicit(&c->n, memory_order_relaxed) + 1,
                          memory_order_release);
}

void lc_trace_spawn(struct lc_worker *w, struct lc_task *t, const char *label,
                    locus_task_fn name_fn, const locus_dep_t *deps, size_t ndeps,
                    uint64_t dep_bytes)
{
    struct lc_trace_buf *b = w->trace;
    /* unique without a shared counter: the spawner's id above bit 40 */
    uint64_t seq = atomic_load_explicit(&b->seq, memory_order_relaxed) + 1;
    atomic_store_explicit(&b->seq, seq, memory_order_relaxed);
    t->tr.id = ((uint64_t)(w->id + 1) << 40) | seq;
    t->tr.label = label;
    t->tr.fn = (const void *)(name_fn ? name_fn : t->fn);
    t->tr.bytes = dep_bytes;
    struct lc_trace_ev *e = slot(b);
    if (e) {
        e->kind = LC_EV_SPAWN;
        e->id = t->tr.id;
        e->a = w->cur ? w->cur->tr.id : 0;
        e->p = label;
        e->q = t->tr.fn;
        commit(b);
    }
    /* a trace keeps every dependency (its edges give the critical path);
     * the graph alone is for small runs: past its limit (counted per
     * spawner, so that no counter is shared) they are no longer kept */
    if (b->deps == LC_DEPS_ALL || (b->deps == LC_DEPS_DAG && seq <= LC_DAG_MAX_TASKS))
        for (size_t i = 0; i < ndeps; i++) {
            if (!(e = slot(b)))
                break;
            e->kind = LC_EV_DEP;
            e->id = t->tr.id;
            e->a = (uint64_t)(uintptr_t)deps[i].addr;
            e->b = deps[i].size;
            e->c = (uint64_t)deps[i].access;
            commit(b);
        }
}

void lc_trace_begin(struct lc_worker *w, struct lc_task *t)
{
    struct lc_trace_ev *e = slot(w->trace);
    if (!e)
        return;
    e->kind = LC_EV_BEGIN;
    e->id = t->tr.id;
    e->p = t->tr.label;
    e->q = t->tr.fn;
    if (w->rt->track) {
        /* the bytes are counted while the task runs (locality.c) */
        e->flags = LC_EVF_CUM;
        e->a = atomic_load_explicit(&w->stats.bytes[LC_DIST_LOCAL], memory_order_relaxed);
        e->b = atomic_load_explicit(&w->stats.bytes[LC_DIST_NEAR], memory_order_relaxed);
        e->c = atomic_load_explicit(&w->stats.bytes[LC_DIST_FAR], memory_order_relaxed);
    } else {
        e->a = t->tr.bytes;   /* one node: all local, counted at the spawn */
    }
    commit(w->trace);
}

void lc_trace_end(struct lc_worker *w, struct lc_task *t)
{
    struct lc_trace_ev *e = slot(w->trace);
    if (!e)
        return;
    e->kind = LC_EV_END;
    e->id = t->tr.id;
    e->flags = LC_EVF_CUM;
    e->a = atomic_load_explicit(&w->stats.bytes[LC_DIST_LOCAL], memory_order_relaxed);
    e->b = atomic_load_explicit(&w->stats.bytes[LC_DIST_NEAR], memory_order_relaxed);
    e->c = atomic_load_explicit(&w->stats.bytes[LC_DIST_FAR], memory_order_relaxed);
    commit(w->trace);
}

void lc_trace_ready(struct lc_worker *w, struct lc_task *t, struct lc_task *by)
{
    struct lc_trace_ev *e = slot(w->trace);
    if (!e)
        return;
    e->kind = LC_EV_READY;
    e->id = t->tr.id;
    e->a = by->tr.id;
    commit(w->trace);
}

void lc_trace_mark(struct lc_worker *w, enum lc_ev_kind kind, uint64_t id)
{
    struct lc_trace_ev *e = slot(w->trace);
    if (!e)
        return;
    e->kind = kind;
    e->id = id;
    commit(w->trace);
}

const char *lc_trace_name(const void *label, const void *fn, int full, char *buf, size_t len)
{
    if (label) {
        snprintf(buf, len, "%.*s", LOCUS_LABEL_MAX, (const char *)label);
        return buf;
    }
    return lc_symbol_name(fn, full, buf, len);
}

/* LOCUS_TRACE names a directory the archive is written into (created if
 * missing, its parent must exist); an archive already there is not
 * overwritten. */
static int check_trace_dir(const char *dir, char *err, size_t errlen)
{
    struct stat st;
    if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
        int e = errno;
        snprintf(err, errlen, "LOCUS_TRACE='%s': cannot create the directory: %s (expected "
                 "a directory path whose parent exists and is writable)", dir, strerror(e));
        return -e;
    }
    if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "LOCUS_TRACE='%s': exists and is not a directory (expected a "
                 "directory for the OTF2 archive)", dir);
        return -ENOTDIR;
    }
    if (access(dir, W_OK | X_OK) < 0) {
        int e = errno;
        snprintf(err, errlen, "LOCUS_TRACE='%s': the directory is not writable: %s", dir,
                 strerror(e));
        return -e;
    }
    char anchor[LC_PATH_MAX + 32];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    if (access(anchor, F_OK) == 0) {
        snprintf(err, errlen, "LOCUS_TRACE='%s': already holds a trace (traces.otf2); remove "
                 "it or name another directory", dir);
        return -EEXIST;
    }
    return 0;
}

/* "%p" in a path becomes the process id, so that the processes of one
 * job (MPI ranks: liblocus-mpi) given one setting each write their own
 * trace and graph; the path is rewritten in place. */
static int expand_pid(char *path, const char *var, char *err, size_t errlen)
{
    if (!strstr(path, "%p"))
        return 0;
    char out[LC_PATH_MAX], pid[24];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    size_t n = 0, lp = strlen(pid);
    for (const char *s = path; *s; s++) {
        const char *add = s[0] == '%' && s[1] == 'p' ? pid : s;
        size_t len = add == pid ? lp : 1;
        if (n + len >= sizeof out) {
            snprintf(err, errlen, "%s: the path is too long once %%p is the process id (at "
                     "most %d bytes); it begins '%.40s'", var, LC_PATH_MAX - 1, path);
            return -ENAMETOOLONG;
        }
        memcpy(out + n, add, len);
        n += len;
        s += add == pid;
    }
    out[n] = '\0';
    memcpy(path, out, n + 1);
    return 0;
}

int lc_trace_init(struct lc_runtime *rt, char *err, size_t errlen)
{
    char *tr = rt->opt.trace, *dag = rt->opt.dag;
    int r;
    if (!tr[0] && !dag[0])
        return 0;
    if ((r = expand_pid(tr, "LOCUS_TRACE", err, errlen)) < 0
        || (r = expand_pid(dag, "LOCUS_DAG", err, errlen)) < 0)
        return r;
    if (tr[0] && !lc_trace_have_otf2()) {
        snprintf(err, errlen, "LOCUS_TRACE='%s': this Locus was built without OTF2 "
                 "(configure found no libotf2: install the Debian package libotf2-trace-dev "
                 "and rebuild); unset LOCUS_TRACE (LOCUS_DAG works without it)", tr);
        return -ENOTSUP;
    }
    if (tr[0] && (r = check_trace_dir(tr, err, errlen)) < 0)
        return r;
    if (dag[0]) {
        FILE *f = fopen(dag, "a");
        if (!f) {
            int e = errno;
            snprintf(err, errlen, "LOCUS_DAG='%s': cannot open the file for writing: %s "
                     "(expected a writable file path)", dag, strerror(e));
            return -e;
        }
        fclose(f);
    }
    struct lc_trace_buf *bufs = aligned_alloc(64, (size_t)rt->nworkers * sizeof *bufs);
    if (!bufs) {
        snprintf(err, errlen, "LOCUS_TRACE/LOCUS_DAG: out of memory for the trace buffers");
        return -ENOMEM;
    }
    memset(bufs, 0, (size_t)rt->nworkers * sizeof *bufs);
    rt->trace_bufs = bufs;
    /* each with its first chunk: a buffer's head never changes once the
     * workers record, so that an exit's writers may start there */
    for (int i = 0; i < rt->nworkers; i++) {
        struct lc_trace_chunk *c = chunk_new();
        if (!c) {
            lc_trace_free(rt);
            snprintf(err, errlen, "LOCUS_TRACE/LOCUS_DAG: out of memory for the trace buffers");
            return -ENOMEM;
        }
        bufs[i].head = bufs[i].cur = c;
        bufs[i].deps = tr[0] ? LC_DEPS_ALL : LC_DEPS_DAG;
        bufs[i].worker = i;
    }
    for (int i = 0; i < rt->nworkers; i++)
        rt->workers[i].trace = &bufs[i];
    bufs[0].ticks0 = lc_ticks();
    bufs[0].ns0 = lc_now_ns();
    return 0;
}

void lc_trace_free(struct lc_runtime *rt)
{
    struct lc_trace_buf *bufs = rt->trace_bufs;
    if (!bufs)
        return;
    for (int i = 0; i < rt->nworkers; i++) {
        struct lc_trace_chunk *c = bufs[i].head;
        while (c) {
            struct lc_trace_chunk *n = atomic_load_explicit(&c->next, memory_order_relaxed);
            free(c);
            c = n;
        }
        rt->workers[i].trace = NULL;
    }
    free(bufs);
    rt->trace_bufs = NULL;
}

/* The writers' cut: in each buffer, every event committed by now (all of
 * them once the workers have stopped).  The link is read before the count:
 * a chunk with a successor is full. */
static void snapshot(struct lc_runtime *rt)
{
    for (int i = 0; i < rt->nworkers; i++) {
        struct lc_trace_buf *b = &rt->trace_bufs[i];
        struct lc_trace_chunk *c = b->head, *nx;
        while ((nx = atomic_load_explicit(&c->next, memory_order_acquire)))
            c = nx;
        b->snap_last = c;
        b->snap_n = atomic_load_explicit(&c->n, memory_order_acquire);
    }
}

int lc_trace_finish(struct lc_runtime *rt, int live, char *err, size_t errlen)
{
    int r = 0;
    if (!rt->trace_bufs)
        return 0;
    snapshot(rt);
    uint64_t lost = 0;
    for (int i = 0; i < rt->nworkers; i++)
        lost += atomic_load_explicit(&rt->trace_bufs[i].lost, memory_order_relaxed);
    /* ticks to ns: the two clocks' rates over the run (reading the TSC
     * costs a third of a clock_gettime per event) */
    uint64_t t1 = lc_ticks(), n1 = lc_now_ns(), t0 = rt->trace_bufs[0].ticks0;
    uint64_t n0 = rt->trace_bufs[0].ns0;
    double scale = t1 > t0 ? (double)(n1 - n0) / (double)(t1 - t0) : 1.0;
    rt->trace_bufs[0].cut_ns = n1;
    for (int i = 0; i < rt->nworkers; i++) {
        struct lc_trace_iter it = lc_trace_iter_start(&rt->trace_bufs[i]);
        struct lc_trace_ev *e;
        while ((e = lc_trace_next(&it))) {
            uint64_t t = e->time;
            e->time = n0 + (uint64_t)((double)(t > t0 ? t - t0 : 0) * scale);
            if (e->time > n1)   /* (a tick read after t1 by a live worker) */
                e->time = n1;
        }
    }
    /* the declared graph: the trace's edges, the dot file's picture (a
     * graph too large to draw is not built for LOCUS_DAG alone) */
    struct lc_graph g;
    memset(&g, 0, sizeof g);
    uint64_t ntasks = 0;
    for (int i = 0; i < rt->nworkers; i++)
        ntasks += atomic_load_explicit(&rt->trace_bufs[i].seq, memory_order_relaxed);
    if ((rt->opt.trace[0] || ntasks <= LC_DAG_MAX_TASKS) && lc_graph_build(rt, &g) < 0) {
        snprintf(err, errlen, "LOCUS_TRACE/LOCUS_DAG: out of memory for the task graph");
        r = -ENOMEM;
    }
    if (r == 0 && rt->opt.trace[0])
        r = lc_trace_write_otf2(rt, rt->opt.trace, err, errlen);
    if (r == 0 && rt->opt.trace[0])
        r = lc_trace_write_edges(&g, rt->opt.trace, err, errlen);
    if (r == 0 && rt->opt.dag[0])
        r = lc_trace_write_dag(rt, ntasks, &g, rt->opt.dag, err, errlen);
    lc_graph_free(&g);
    if (r == 0 && lost) {
        snprintf(err, errlen, "LOCUS_TRACE/LOCUS_DAG: %llu events were not recorded (out of "
                 "memory for the trace buffers): the trace is incomplete",
                 (unsigned long long)lost);
        r = -ENOMEM;
    }
    /* workers still recording (an exit without locus_finalize) keep their
     * buffers: the process ends with them */
    if (!live)
        lc_trace_free(rt);
    return r;
}
