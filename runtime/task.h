/*
 * task.h - the task descriptor and the counters that drive a task's life:
 * spawn -> (predecessors resolved) ready -> run -> body done -> (children
 * complete) complete -> (no longer in the parent's dependency map) freed.
 *
 * Two handshakes keep the hot path to one atomic read-modify-write per
 * event and keep the spawning thread off the cache lines that completing
 * threads write:
 *  - npreds starts at LC_GUARD; the spawner publishes k edges, then subtracts
 *    LC_GUARD - k once.  Each predecessor subtracts 1 when it completes.
 *    Whoever brings it to 0 makes the task ready.
 *  - pending starts at LC_BIAS; each completed child subtracts 1; the body's
 *    end subtracts LC_BIAS - nspawned (nspawned is a plain field, written
 *    only by the thread running the task).  Whoever brings it to 0 completes
 *    the task.  Until the body ends, B - pending is the number of completed
 *    children, which taskwait compares with nspawned.
 * Memory for descriptors is type-stable (recycled through task pools, only
 * returned to the allocator at locus_finalize), which makes a late read of
 * a completed parent's tw_target harmless (see wait.c), and lets a task
 * reference handed to a user (events.c) be checked against the
 * descriptor's generation however late it comes: the generation lives in
 * the state word's upper half, so that the check and the change it guards
 * are one compare-and-swap.
 */
#ifndef LC_TASK_H
#define LC_TASK_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "instrument.h"
#include "locus.h"

/* Argument copies up to this size live in the descriptor (lines 4-5),
 * larger ones in a block of their own, allocated at the spawn and freed at
 * the completion, often on another core.  Two lines, because arguments of
 * real tasks (a few pointers, sizes and indices, an OpenMP task's
 * firstprivate block) are often larger than one; only the lines an
 * argument fills are touched. */
#define LC_INLINE_ARG 128
#define LC_INLINE_EDGES 8   /* with the fields around them, lines 1-3 exactly */
#define LC_KEPT_PREDS 4     /* at most this many entries in kept[] (below) */
#define LC_GUARD (1u << 30)
#define LC_BIAS ((int64_t)1 << 60)

struct lc_task;
struct lc_thread;
struct lc_depmap;
struct lc_task_loc;
struct lc_taskgroup;

/* An edge "succ waits for the task whose successor list holds me".  Edges
 * live in the successor, so they are valid until it runs. */
struct lc_edge {
    struct lc_edge *next;
    struct lc_task *succ;
};

/* Marks a completed task's successor list: no more edges may be added. */
#define LC_SUCC_CLOSED ((struct lc_edge *)(uintptr_t)1)

/* state bits: the two events that must both happen before a task is freed */
#define LC_ST_COMPLETE 0x1u   /* completed (successors released) */
#define LC_ST_UNMAPPED 0x2u   /* no longer referenced by the parent's dependency map */
/* The rest of the low half serves external events and blocking (events.h):
 * the word is written only at the ends of a task's life otherwise, so the
 * count and its handshake with the body's end cost no line of their own. */
#define LC_ST_BODYDONE 0x4u   /* the body ended with events outstanding */
#define LC_ST_TOKEN    0x8u   /* locus_task_unblock() came, no block took it yet */
#define LC_ST_PARKED   0x10u  /* blocked, its thread asleep (t->parked): the unblock
                                 that clears this bit resumes that thread (thread.h) */
#define LC_ST_EV_SHIFT 8
#define LC_ST_EV_ONE   (1u << LC_ST_EV_SHIFT)   /* one outstanding event */
/* The upper half is the descriptor's generation: one more each time the
 * descriptor is released (lc_task_state_retire), never reset. */
#define LC_ST_GEN_SHIFT 32
#define LC_ST_LOW(s) ((uint32_t)(s))
#define LC_ST_GEN(s) ((uint32_t)((s) >> LC_ST_GEN_SHIFT))

/* Overflow edges; a chunk lives in a recycled task descriptor (edge.c),
 * past its line 0, so that the state word and its generation (which a
 * stale task reference may still read) are never overwritten. */
struct lc_edge_chunk {
    unsigned char line0[64];
    struct lc_edge_chunk *next;
    unsigned used;
    struct lc_edge e[15];
};

/*
 * Field order is cache-line order.  A task's descriptor crosses cores: its
 * spawner writes it, the worker completing its last predecessor reads an
 * edge and decrements npreds, and that worker usually runs it at once.
 * Line 0 holds everything the run and the completion need, line 1 the
 * first edges and what the run reads besides, the rest the spawner's
 * bookkeeping, so a hand-over costs two line transfers, not five.
 */
struct lc_task {
    /* line 0: run and completion.  Children's completions write pending,
     * so nothing the task's own thread reads on every spawn lives here
     * (map, nspawned, flags are on line 1).  The free-list link shares
     * the first word: the worker that frees a task has just written this
     * line (completion), so recycling it pulls no other line. */
    union {
        locus_task_fn fn;           /* while the task lives */
        struct lc_task *pool_next;  /* free-list link while recycled (taskpool.h) */
    };
    void *arg;
    struct lc_task *parent;
    struct lc_taskgroup *tg;        /* group that waits for this task (team.h), or NULL */
    _Atomic(struct lc_edge *) succ;
    _Atomic int64_t pending;
    _Atomic uint64_t state;         /* LC_ST_* below, the generation above */
    _Atomic uint32_t npreds;
    _Atomic uint32_t tw_target;     /* a sleeping taskwait waits for pending to reach a
                                       value whose low bits are these (lc_tw_key), 0 none */

    /* line 1 */
    struct lc_depmap *map;          /* the children's dependency map (lazy) */
    int64_t nspawned;               /* children spawned (this task's thread only) */
    uint8_t flags;                  /* LC_TF_*: set before the task is published, then
                                       read by any thread (a descendant walking up to
                                       its implicit task reads LC_TF_ROOT: gomp/) */
    uint8_t bflags;                 /* LC_TB_*: changed by the task's own thread while
                                       it runs, when descendants on other threads may
                                       read flags: a byte (a memory location) apart */
    uint16_t nkept;                 /* entries of kept[] (spawner only) */
    uint32_t tg_nomem;              /* groups begun without memory: their end waits for all
                                       (valid only with LC_TB_GROUPS) */
    struct lc_edge_chunk *more;     /* overflow edges beyond the inline ones */
    struct lc_task_loc *loc;        /* dependencies kept for locality accounting (locality.c) */
    int16_t node;                   /* scheduler's node for the task, -1 none
                                       (LC_TOPO_MAX_NODES fits) */
    uint16_t prio;                  /* priority, 0 = none (sched/prio.h) */
    uint32_t maprefs;               /* memberships in the parent's map (parent's thread only) */
    /*
     * The inline edges, lines 1-3, used from the first slot up.  The
     * words of the slots no edge uses hold, from the last word down, the
     * task's kept[] entries: earlier siblings it is known to run after
     * (linked behind them, directly or through another sibling).  A later
     * writer linking behind a group of readers needs no edge to a reader
     * that the group's newest member runs after: in a pipeline where each
     * task reads what the previous few wrote, that leaves one edge per
     * task instead of one per reader (depmap.c, group_link_drop).  kept[]
     * is a hint: an edge that needs a slot takes it back (edge.h), and
     * an entry missing only costs an edge.  Entries are only compared,
     * never followed, and only while the task is in the map: an entry's
     * descriptor may be recycled meanwhile, but only for a task spawned
     * after this one, which no group places before it.  Only the spawning
     * thread reads or writes them.
     */
    union {
        struct lc_edge edges[LC_INLINE_EDGES];
        struct lc_task *kept[2 * LC_INLINE_EDGES];   /* entry j: kept[2 * LC_INLINE_EDGES - 1 - j] */
    };

    /* line 3, after the edges */
    union {
        struct lc_task *qnext;      /* a link of whoever holds the task: a completion's
                                       list of released tasks (run.c), a policy's
                                       linked queues while queued there (sched/), and
                                       after the body the list of tasks whose last
                                       event a foreign thread fulfilled (events.c) */
        struct lc_thread *parked;   /* while its body is blocked (LC_ST_PARKED): the
                                       thread that sleeps in it (thread.h) */
    };
    /* valid only with LC_TB_GROUPS, so that a spawn need not write it */
    struct lc_taskgroup *tg_open;   /* innermost taskgroup open in this task's body */

    /* lines 4-5 */
    _Alignas(64) unsigned char argbuf[LC_INLINE_ARG];

    /* line 6: read and written only while tracing (instrument.h), so a
     * run without it never touches this line */
    _Alignas(64) struct lc_task_trace tr;
};

#if UINTPTR_MAX == 0xffffffffffffffffu   /* the layout above is planned for 64-bit pointers */
_Static_assert(__builtin_offsetof(struct lc_task, npreds) < 64, "line 0 overflows");
_Static_assert(__builtin_offsetof(struct lc_task, state) % 8 == 0, "state must be one word");
_Static_assert(__builtin_offsetof(struct lc_edge_chunk, next) >= 64, "a chunk must spare line 0");
_Static_assert(__builtin_offsetof(struct lc_task, map) == 64, "map must leave line 0");
_Static_assert(__builtin_offsetof(struct lc_task, argbuf) == 256, "descriptor grew a line");
#endif

/* t->flags (8 bits) */
#define LC_TF_HEAPARG 0x1u   /* arg points to an lc_mem block of argsize bytes */
#define LC_TF_ROOT    0x2u
#define LC_TF_BOUND   0x8u   /* NAFT: a first-touch task, run only on its node t->node */
#define LC_TF_HANDOFF 0x10u  /* queued by a completion whose worker runs another task
                                first: a thief need not leave it alone (ready.h) */
#define LC_TF_FIFO    0x40u  /* released by an event's fulfilment: the policy queues it
                                behind those released so before it (ready.h) */
/* t->bflags (8 bits), the task's own thread's */
#define LC_TB_GROUPS  0x1u   /* the body has begun task groups: tg_open, tg_nomem valid */
#define LC_TB_UNCOUNTED 0x2u /* run at its spawn without dependencies and not (yet)
                                counted among its parent's children (run.c) */

/* The innermost task group open in t's body, or NULL (t's own thread). */
static inline struct lc_taskgroup *lc_task_open_group(const struct lc_task *t)
{
    return t->bflags & LC_TB_GROUPS ? t->tg_open : NULL;
}

/* Makes t's group fields valid before its body begins its first group. */
static inline void lc_task_groups_init(struct lc_task *t)
{
    if (!(t->bflags & LC_TB_GROUPS)) {
        t->tg_open = NULL;
        t->tg_nomem = 0;
        t->bflags |= LC_TB_GROUPS;
    }
}

/* The key of a pending value for tw_target: its low bits, never 0.  Two
 * values with one key only make a completion wake a taskwait whose count
 * is not reached yet, which looks again and sleeps again (wait.c). */
static inline uint32_t lc_tw_key(int64_t pending)
{
    return (uint32_t)pending | 1u;
}

/* Starts t's state for a new task: bits (LC_ST_*), beside the generation
 * (the low half is 0 since the descriptor's release: lc_task_state_retire).
 * Only before t is published (its spawner, or the worker that makes it),
 * so a plain read and write; nothing to write for bits 0. */
static inline void lc_task_state_init(struct lc_task *t, uint32_t bits)
{
    if (bits)
        atomic_store_explicit(&t->state, atomic_load_explicit(&t->state, memory_order_relaxed)
                                         | bits, memory_order_relaxed);
}

/* The descriptor is released: its generation goes up and its low half is
 * cleared for the next task, so that a reference to the task it carried is
 * stale from now on, whatever its state bits said (a task in no map is
 * freed without COMPLETE ever being set).  A stale reference's
 * compare-and-swap racing this store may be lost: its task is over either
 * way. */
static inline void lc_task_state_retire(struct lc_task *t)
{
    uint64_t s = atomic_load_explicit(&t->state, memory_order_relaxed) | UINT32_MAX;
    atomic_store_explicit(&t->state, s + 1, memory_order_relaxed);
}

/* Clears every field of t (an implicit task's descriptor: team.c, init.c)
 * but its generation, and starts its state with bits. */
static inline void lc_task_clear(struct lc_task *t, uint32_t bits)
{
    uint64_t s = atomic_load_explicit(&t->state, memory_order_relaxed);
    memset(t, 0, sizeof *t);
    atomic_store_explicit(&t->state, (s & ~(uint64_t)UINT32_MAX) | bits, memory_order_relaxed);
}

/*
 * Task references handed to users (locus_task_ref_t, ALPI's task handles):
 * the descriptor's address, which is 64-byte aligned and below
 * LC_REF_ADDR_LIMIT (taskpool.c makes sure), with the low LC_REF_GEN_BITS
 * bits of its generation in the bits the address leaves free (6 below, 17
 * above).  A reference whose generation is not the descriptor's is stale:
 * its task is complete and the descriptor carries another (events.c).  It
 * would take 2^23 tasks on one descriptor between the reference being
 * made and used for an old one to pass for new.
 */
#define LC_REF_ADDR_LIMIT ((uintptr_t)1 << 47)
#define LC_REF_GEN_BITS 23
#define LC_REF_GEN_MASK ((1u << LC_REF_GEN_BITS) - 1)

static inline locus_task_ref_t lc_ref_of(const struct lc_task *t)
{
    uint32_t gen = LC_ST_GEN(atomic_load_explicit(&t->state, memory_order_relaxed))
                   & LC_REF_GEN_MASK;
    uintptr_t r = (uintptr_t)t | (gen & 63u) | (uintptr_t)(gen >> 6) << 47;
    return (locus_task_ref_t)(void *)r;
}

/* The descriptor a reference names (not yet checked: events.c), and the
 * generation it was made at. */
static inline struct lc_task *lc_ref_task(locus_task_ref_t ref, uint32_t *gen)
{
    uintptr_t r = (uintptr_t)(void *)ref;
    *gen = (uint32_t)(r & 63u) | (uint32_t)(r >> 47) << 6;
    return (struct lc_task *)(void *)(r & (LC_REF_ADDR_LIMIT - 1) & ~(uintptr_t)63);
}

/* Whether state s is of the task a reference of generation gen names. */
static inline int lc_ref_current(uint64_t s, uint32_t gen)
{
    return (LC_ST_GEN(s) & LC_REF_GEN_MASK) == gen;
}

static inline int lc_task_is_complete(struct lc_task *t)
{
    return atomic_load_explicit(&t->succ, memory_order_acquire) == LC_SUCC_CLOSED;
}

#endif /* LC_TASK_H */
