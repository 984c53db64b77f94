/*
 * trace.h - trace/'s own side of runtime/instrument.h: what it records for
 * LOCUS_TRACE (an OTF2 trace) and LOCUS_DAG (the task graph in Graphviz
 * dot), events appended to the recording worker's own buffer, never to a
 * shared one, and written out at locus_finalize() once every worker has
 * stopped (or, by a run that ends without it, as far as each worker had
 * published: runtime/exit.c).  The core sees none of this file.
 *
 * With tracing on, an event is a clock read and a 64-byte store into a
 * chunk the worker allocated itself (no lock, no line another thread
 * writes); a task's identity is its spawner's worker id and a count of that
 * worker's spawns, so no shared counter either.
 */
#ifndef LC_TRACE_H
#define LC_TRACE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "instrument.h"
#include "locus.h"

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

/* n and next are published by the owner with release stores once the
 * events they cover are written, so that a run ending without
 * locus_finalize (exit.c) can take what is complete while the workers
 * still record: every chunk but the last one is full. */
struct lc_trace_chunk {
    _Atomic(struct lc_trace_chunk *) next;
    _Atomic uint32_t n;
    struct lc_trace_ev ev[LC_TRACE_CHUNK];
};

/* A worker's recording: written by its worker only, read at finalize (or,
 * by a run ending without it, up to the writers' cut: trace.c, snapshot). */
struct lc_trace_buf {
    _Alignas(64) struct lc_trace_chunk *head, *cur;   /* head: from lc_trace_init on */
    _Atomic uint64_t seq;    /* tasks this worker spawned (the low bits of their ids) */
    _Atomic uint64_t lost;   /* events not recorded: no memory for a chunk */
    int deps;                /* which dependencies are recorded (LC_DEPS_*) */
    int worker;
    uint64_t ticks0, ns0;    /* (first buffer only) the clocks at init, for the conversion */
    uint64_t cut_ns;         /* (first buffer only) when the writers took the events */
    /* the writers' cut (trace.c, snapshot): the last chunk they read and
     * how many of its events; the writers' alone, on a line of their own
     * (the owner may still be recording beside them) */
    _Alignas(64) struct lc_trace_chunk *snap_last;
    uint32_t snap_n;
};

/* lc_trace_buf.deps: LOCUS_TRACE records every task's dependencies (the
 * trace's edges, graph.h); LOCUS_DAG alone those of its first tasks. */
#define LC_DEPS_DAG 1
#define LC_DEPS_ALL 2

/* The largest graph LOCUS_DAG writes (documented in locus(7)). */
#define LC_DAG_MAX_TASKS 5000


/* Records of one worker, in order, up to the cut, for the writers. */
struct lc_trace_iter {
    struct lc_trace_chunk *c, *last;
    uint32_t i, last_n;
};
static inline struct lc_trace_iter lc_trace_iter_start(const struct lc_trace_buf *b)
{
    return (struct lc_trace_iter){ b->head, b->snap_last, 0, b->snap_n };
}
static inline struct lc_trace_ev *lc_trace_next(struct lc_trace_iter *it)
{
    while (it->c) {
        uint32_t n = it->c == it->last ? it->last_n : LC_TRACE_CHUNK;
        if (it->i < n)
            return &it->c->ev[it->i++];
        /* past the cut nothing is read, not even the link the owner may be
         * writing (relaxed: a full chunk's link was read at the cut) */
        it->c = it->c == it->last ? NULL
                : atomic_load_explicit(&it->c->next, memory_order_relaxed);
        it->i = 0;
    }
    return NULL;
}

/* The name a task is shown with: its label, else its function's name
 * (lc_symbol_name, symbols.h: the dynamic symbol, else the object's
 * .symtab entry, else object+offset, with the object's full path when
 * full, which locus-trace hands to addr2line); written into buf (otf2.c,
 * dag.c). */
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
