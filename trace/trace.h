/*
 * trace.h - what the runtime records for LOCUS_TRACE (an OTF2 trace) and
 * LOCUS_DAG (the task graph in Graphviz dot): events appended to the
 * recording worker's own buffer, never to a shared one, and written out at
 * locus_finalize() once every worker has stopped.
 *
 * The cost with tracing off is the test of w->trace (NULL) at each place
 * that records: one branch the predictor learns at once.  Each hook below
 * is called only behind `if (__builtin_expect(w->trace != NULL, 0))`.
 * With tracing on, an event is a clock read and a 64-byte store into a
 * chunk the worker allocated itself (no lock, no line another thread
 * writes); a task's identity is its spawner's worker id and a count of that
 * worker's spawns, so no shared counter either.
 */
#ifndef LC_TRACE_H
#define LC_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "locus.h"

struct lc_runtime;
struct lc_worker;
struct lc_task;

/* Event kinds. */
enum lc_ev_kind {
    LC_EV_SPAWN = 1,   /* id: the new task; a: its parent's id; p: label, q: fn */
    LC_EV_DEP,         /* id: the task; a: addr, b: size, c: access (LC_DEPS_*) */
    LC_EV_BEGIN,       /* id: the task; p: label, q: fn; a..c: see LC_EVF_CUM */
    LC_EV_END,         /* id: the task; a..c: the worker's byte counters (LC_EVF_CUM) */
    LC_EV_READY,       /* id: the task a completion released; a: that completed task */
    LC_EV_STEAL,       /* id: the node stolen from */
    LC_EV_IDLE,        /* found nothing to run: polling starts */
    LC_EV_IDLE_END,
    LC_EV_SLEEP,       /* the worker sleeps on its node's futex */
    LC_EV_WAKE,
    LC_EV_TASKWAIT,    /* locus_taskwait() begins */
    LC_EV_TASKWAIT_END,
};

/* BEGIN flags: a..c hold the worker's cumulative local/near/far byte
 * counters (several nodes: the task's own bytes are the END's minus these,
 * minus the nested tasks'), or, without LC_EVF_CUM, the task's bytes as
 * counted at its spawn (one node: all local, in a). */
#define LC_EVF_CUM 0x1u

struct lc_trace_ev {
    uint64_t time;      /* lc_ticks() while recording, CLOCK_MONOTONIC ns once
                           lc_trace_finish has converted it */
    uint64_t id;
    uint64_t a, b, c;
    const void *p, *q;
    uint32_t kind;
    uint32_t flags;
};

#define LC_TRACE_CHUNK 4096   /* events per chunk */

struct lc_trace_chunk {
    struct lc_trace_chunk *next;
    uint32_t n;
    struct lc_trace_ev ev[LC_TRACE_CHUNK];
};

/* A worker's recording: written by its worker only, read at finalize. */
struct lc_trace_buf {
    _Alignas(64) struct lc_trace_chunk *head, *cur;
    uint64_t seq;            /* tasks this worker spawned (the low bits of their ids) */
    uint64_t lost;           /* events not recorded: no memory for a chunk */
    int deps;                /* which dependencies are recorded (LC_DEPS_*) */
    int worker;
    uint64_t ticks0, ns0;    /* (first buffer only) the clocks at init, for the conversion */
};

/* lc_trace_buf.deps: LOCUS_TRACE records every task's dependencies (the
 * trace's edges, graph.h); LOCUS_DAG alone those of its first tasks. */
#define LC_DEPS_DAG 1
#define LC_DEPS_ALL 2

/* The largest graph LOCUS_DAG writes (documented in locus(7)). */
#define LC_DAG_MAX_TASKS 5000

/* The part of a task descriptor only tracing uses (task.h, its own line). */
struct lc_task_trace {
    uint64_t id;             /* 0: the root or an implicit task */
    const char *label;       /* locus_task_attr_t.label or NULL */
    const void *fn;          /* the function the task is named by without a label:
                                its body's, or the program's behind a wrapper (gomp/) */
    uint64_t bytes;          /* one node: dependency bytes counted at the spawn */
};

/* init.c: checks LOCUS_TRACE and LOCUS_DAG and sets every worker's trace
 * buffer; 0, or a negative errno with a message in err (LOCUS_TRACE in a
 * build without OTF2: -ENOTSUP).  Nothing to free on failure. */
int lc_trace_init(struct lc_runtime *rt, char *err, size_t errlen);
/* init.c: after the workers stopped: writes the trace and the graph and
 * frees the buffers.  0, or a negative errno with a message in err; the
 * buffers are freed whatever happens. */
int lc_trace_finish(struct lc_runtime *rt, char *err, size_t errlen);
/* init.c teardown: frees the buffers without writing (a failed init). */
void lc_trace_free(struct lc_runtime *rt);

/* The hooks (trace.c). */
void lc_trace_spawn(struct lc_worker *w, struct lc_task *t, const char *label,
                    locus_task_fn name_fn, const locus_dep_t *deps, size_t ndeps,
                    uint64_t dep_bytes);
void lc_trace_begin(struct lc_worker *w, struct lc_task *t);
void lc_trace_end(struct lc_worker *w, struct lc_task *t);
void lc_trace_ready(struct lc_worker *w, struct lc_task *t, struct lc_task *by);
void lc_trace_mark(struct lc_worker *w, enum lc_ev_kind kind, uint64_t id);

/* Records of one worker, in order, for the writers. */
struct lc_trace_iter {
    struct lc_trace_chunk *c;
    uint32_t i;
};
static inline const struct lc_trace_ev *lc_trace_next(struct lc_trace_iter *it)
{
    while (it->c && it->i >= it->c->n) {
        it->c = it->c->next;
        it->i = 0;
    }
    return it->c ? &it->c->ev[it->i++] : NULL;
}

/* The name a task is shown with: its label, else its function's symbol
 * (dladdr), else object+offset (the object's full path when full, which
 * locus-trace hands to addr2line; its base name otherwise); written into
 * buf (otf2.c, dag.c). */
const char *lc_trace_name(const void *label, const void *fn, int full, char *buf, size_t len);

/* otf2.c: the OTF2 archive; -ENOTSUP in a build without OTF2. */
int lc_trace_write_otf2(struct lc_runtime *rt, const char *dir, char *err, size_t errlen);
/* otf2.c: 1 when this build writes OTF2. */
int lc_trace_have_otf2(void);
/* dag.c: the Graphviz dot file of g, or a note when the run spawned more
 * than LC_DAG_MAX_TASKS tasks (ntasks; g may then be empty). */
struct lc_graph;
int lc_trace_write_dag(struct lc_runtime *rt, uint64_t ntasks, const struct lc_graph *g,
                       const char *path, char *err, size_t errlen);

#endif /* LC_TRACE_H */
