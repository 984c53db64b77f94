/*
 * run.c - the one way a ready task runs (lc_run) and the one completion
 * routine every way of running ends in (lc_complete): the body, its end
 * (events, children), the completion itself, the release of successors
 * (each decided by ready.h), the completion of ancestors it was the last
 * child of, and the recycling of descriptors.
 *
 *   lc_run(w, t, ctx) --> body --> body_end: events outstanding or children
 *        ^                         running? -- yes --> the last of them calls
 *        |                              | no           lc_complete (events.c,
 *        |                              v              or a child's completion)
 *        +-- next (ctx TAKEN) <--- lc_complete(w, t): successors released,
 *                                  decided one by one (ready.h); parent's
 *                                  count dropped, and so up the chain
 *
 * A task run at its spawn without dependencies (LC_TB_UNCOUNTED) is not
 * counted among its parent's children until its body ends: if it ends with
 * nothing outstanding it completes at once, with none of the atomics a
 * completion otherwise needs (nothing can depend on it, nobody else can
 * wait for it); if it leaves children running or events outstanding, it
 * becomes an ordinary child of its spawner there and then, and the spawner
 * goes on.  So nothing ever waits on a spawner's stack for a task run on
 * it, and a chain of spawns is never deeper than lc_stack_room allows.
 */
#include <stdatomic.h>

#include "depmap.h"
#include "edge.h"
#include "events.h"
#include "mem.h"
#include "policy.h"
#include "ready.h"
#include "runtime.h"
#include "taskpool.h"
#include "run.h"
#include "team.h"

static inline void task_free(struct lc_worker *w, struct lc_task *t)
{
    if (t->more)
        lc_edge_chunks_free(w, t);
    lc_task_release(&w->pool, w->npool, t);
}

void lc_task_unmapped(struct lc_worker *w, struct lc_task *t)
{
    /* The second of {complete, unmapped} frees the descriptor.  Once
     * COMPLETE is set the completing thread never touches the task again,
     * so seeing it lets us free without the read-modify-write (and the
     * exclusive cache line it would need). */
    if (atomic_load_explicit(&t->state, memory_order_acquire) & LC_ST_COMPLETE
        || atomic_fetch_or_explicit(&t->state, LC_ST_UNMAPPED, memory_order_acq_rel) & LC_ST_COMPLETE)
        task_free(w, t);
}

/* A parent's sleeping taskwait may wait for the pending value v its child
 * just left (wait.c).  The parent may have completed and its descriptor
 * been recycled since the decrement (another child took it to 0): the read
 * of tw_target is then of a recycled descriptor, which is harmless (it is
 * type-stable memory, task.h) but which a sanitizer build must not flag. */
__attribute__((no_sanitize_address))
static uint32_t tw_target_of(struct lc_task *parent)
{
    return atomic_load_explicit(&parent->tw_target, memory_order_relaxed);
}

/*
 * The successors one completion released, in the order released: each is
 * decided once all are known (ready.h), so that the one run next is the
 * best of them and the others are queued first.  The first few are kept
 * on the completing worker's stack, the rest linked through qnext: writing
 * a successor's qnext pulls a line its spawner wrote (its kept[] entries,
 * task.h) to this core, a miss a completion that releases one or two
 * tasks need not pay.
 */
#define RELEASED_INLINE 8
struct released {
    unsigned n;
    struct lc_task *v[RELEASED_INLINE];
    struct lc_task *head, *tail;   /* the ones past RELEASED_INLINE */
};

static inline void released_add(struct released *r, struct lc_task *s)
{
    if (r->n < RELEASED_INLINE) {
        r->v[r->n++] = s;
        return;
    }
    s->qnext = NULL;
    if (r->tail)
        r->tail->qnext = s;
    else
        r->head = s;
    r->tail = s;
}

/* Decides each released task: one (the first, or with priorities the
 * highest) may run next on w when may_run_next; the others are queued
 * first, so that the decision about that one sees them. */
static struct lc_task *released_decide(struct lc_worker *w, struct released *r,
                                       int may_run_next)
{
    if (!r->n)
        return NULL;
    if (may_run_next == LC_COMPLETE_EVENT) {   /* all queued, in the order released */
        for (unsigned i = 0; i < r->n; i++)
            lc_task_ready(w, r->v[i], LC_READY_EVENT);
        for (struct lc_task *s = r->head, *n; s; s = n) {
            n = s->qnext;
            lc_task_ready(w, s, LC_READY_EVENT);
        }
        return NULL;
    }
    struct lc_task *cand = r->v[0];
    if (__builtin_expect(atomic_load_explicit(&w->rt->prio_on, memory_order_relaxed), 0)) {
        for (unsigned i = 1; i < r->n; i++)
            if (r->v[i]->prio > cand->prio)
                cand = r->v[i];
        for (struct lc_task *s = r->head; s; s = s->qnext)
            if (s->prio > cand->prio)
                cand = s;
    }
    for (unsigned i = 0; i < r->n; i++)
        if (r->v[i] != cand)
            lc_task_ready(w, r->v[i], LC_READY_RELEASED_BUSY);
    for (struct lc_task *s = r->head, *n; s; s = n) {
        n = s->qnext;   /* s may run elsewhere once queued */
        if (s != cand)
            lc_task_ready(w, s, LC_READY_RELEASED_BUSY);
    }
    return lc_task_ready(w, cand, may_run_next == LC_COMPLETE_NEXT ? LC_READY_RELEASED
                                                                   : LC_READY_RELEASED_BUSY);
}

struct lc_task *lc_complete_chain(struct lc_worker *w, struct lc_task *t, int may_run_next)
{
    struct lc_runtime *rt = w->rt;
    struct released rel;
    rel.n = 0;
    rel.head = rel.tail = NULL;

    for (;;) {
        struct lc_task *parent = t->parent;

        if (t->map) {
            lc_depmap_destroy(w, t->map);
            t->map = NULL;
        }
        if (t->flags & LC_TF_HEAPARG)
            lc_mem_free(t->arg, 0);

        /* acq_rel: successors must see everything t (and its children) wrote,
         * and we must see the edges their spawners published */
        struct lc_edge *e = atomic_exchange_explicit(&t->succ, LC_SUCC_CLOSED, memory_order_acq_rel);
        while (e) {
            struct lc_edge *en = e->next;   /* e lives in s: read before s may run */
            struct lc_task *s = e->succ;
            if (atomic_fetch_sub_explicit(&s->npreds, 1, memory_order_acq_rel) == 1) {
                lc_instr(w, ready, s, t);
                released_add(&rel, s);
            }
            e = en;
        }
        if (t->tg)
            lc_taskgroup_done(rt, t->tg);   /* after this, the group may be gone */

        /* The mirror of lc_task_unmapped: once UNMAPPED is set the map side
         * never touches t again, so a task in no map (every task without
         * dependencies) is freed without a read-modify-write. */
        if (atomic_load_explicit(&t->state, memory_order_acquire) & LC_ST_UNMAPPED
            || atomic_fetch_or_explicit(&t->state, LC_ST_COMPLETE, memory_order_acq_rel) & LC_ST_UNMAPPED)
            task_free(w, t);
        if (!parent)
            break;
        /* seq_cst: pairs with a sleeping taskwait's announcement (wait.c) */
        int64_t v = atomic_fetch_sub_explicit(&parent->pending, 1, memory_order_seq_cst) - 1;
        if (v == 0) {
            t = parent;         /* its body had ended: it completes now */
            continue;
        }
        if (atomic_load_explicit(&rt->ntw_sleepers, memory_order_seq_cst) > 0
            && lc_tw_key(v) == tw_target_of(parent))
            lc_wake_all(rt);
        break;
    }
    return released_decide(w, &rel, may_run_next);
}

/* The body between a task's begin and end events: out of line, so that
 * without tracing a run pays only the test of w->trace (run.h). */
__attribute__((noinline, cold)) void lc_call_body_traced(struct lc_worker *w, struct lc_task *t)
{
    lc_trace_begin(w, t);
    lc_call_body(w, t);
    lc_trace_end(w, t);
}
