/*
 * instrument.h - the one interface between the core and trace/: the points
 * at which the core says what happened (a task spawned, began, ended, was
 * released; a worker stole, went idle, slept, woke, waited), and the life
 * of a recording (set up at init, written at finalize).  The core includes
 * this header and nothing of trace/; trace/ implements the functions
 * declared here (trace.c) and keeps its buffers and writers to itself.
 * Nanos6's Instrument interface draws the same line.
 *
 * The cost with tracing off is the test of w->trace (NULL) at each point:
 * one branch the predictor learns at once.  The core calls the points only
 * through lc_instr(), which makes that test; the worker's recording is an
 * opaque struct lc_trace_buf here.
 */
#ifndef LC_INSTRUMENT_H
#define LC_INSTRUMENT_H

#include <stddef.h>
#include <stdint.h>

#include "locus.h"

struct lc_runtime;
struct lc_worker;
struct lc_task;
struct lc_trace_buf;   /* a worker's recording (trace/trace.h) */

/* What happened (the events' kinds). */
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

/* The part of a task descriptor only tracing uses (task.h gives it a line
 * of its own, which a run without tracing never touches). */
struct lc_task_trace {
    uint64_t id;             /* 0: the root or an implicit task */
    const char *label;       /* locus_task_attr_t.label or NULL */
    const void *fn;          /* the function the task is named by without a label:
                                its body's, or the program's behind a wrapper (gomp/) */
    uint64_t bytes;          /* one node: dependency bytes counted at the spawn */
};

/* A recording's life (init.c).  init: checks LOCUS_TRACE and LOCUS_DAG and
 * gives every worker its buffer (w->trace), before the workers start; 0, or
 * a negative errno with a message in err (LOCUS_TRACE in a build without
 * OTF2: -ENOTSUP), nothing to free on failure.  finish: after the workers
 * stopped, writes the trace and the graph and frees the buffers (freed
 * whatever happens); 0 or a negative errno with a message.  With live set
 * (a run ending without locus_finalize: exit.c) the workers may still be
 * recording: what each had committed is written (tasks still running end
 * at the cut) and the buffers are kept.  free: frees without writing (a
 * failed init). */
int lc_trace_init(struct lc_runtime *rt, char *err, size_t errlen);
int lc_trace_finish(struct lc_runtime *rt, int live, char *err, size_t errlen);
void lc_trace_free(struct lc_runtime *rt);

/* The points, called only through lc_instr() (w->trace is not NULL). */
void lc_trace_spawn(struct lc_worker *w, struct lc_task *t, const char *label,
                    locus_task_fn name_fn, const locus_dep_t *deps, size_t ndeps,
                    uint64_t dep_bytes);
void lc_trace_begin(struct lc_worker *w, struct lc_task *t);
void lc_trace_end(struct lc_worker *w, struct lc_task *t);
void lc_trace_ready(struct lc_worker *w, struct lc_task *t, struct lc_task *by);
void lc_trace_mark(struct lc_worker *w, enum lc_ev_kind kind, uint64_t id);

/* Calls point lc_trace_<point>(w, ...) when w records. */
#define lc_instr(w, point, ...)                                         \
    do {                                                                \
        if (__builtin_expect((w)->trace != NULL, 0))                    \
            lc_trace_##point((w), __VA_ARGS__);                         \
    } while (0)

/* Whether w records (for the few points that need more than a call). */
#define lc_instr_on(w) __builtin_expect((w)->trace != NULL, 0)

#endif /* LC_INSTRUMENT_H */
