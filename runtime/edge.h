/*
 * edge.h - linking a new task behind a predecessor (spawner side).
 * The predecessor's successor list is a lock-free stack that the
 * predecessor closes (exchanges with LC_SUCC_CLOSED) when it completes; a
 * push that finds it closed means the predecessor is already complete and
 * imposes nothing.  Edge storage lives in the successor (inline first, then
 * chunks), so it stays valid until the successor has run.
 */
#ifndef LC_EDGE_H
#define LC_EDGE_H

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>

#include "task.h"

struct lc_worker;
/* A free edge slot past the inline ones, in a chunk from w's task pool;
 * NULL: out of memory.  Chunks go back to a pool with the task. */
struct lc_edge *lc_edge_slot_slow(struct lc_worker *w, struct lc_task *succ);
void lc_edge_chunks_free(struct lc_worker *w, struct lc_task *t);

/*
 * The state of linking one task behind its predecessors, carried from
 * edge to edge while its spawner registers its dependencies.  Callers keep
 * it in a local variable whose address does not escape, so the compiler
 * holds it in registers: every edge is a compare-and-swap, which would
 * otherwise force each field back to memory and reload it.
 */
struct lc_link {
    struct lc_worker *w;
    struct lc_task *t;           /* the task being linked */
    struct lc_task *last_pred;   /* the predecessor of the last edge: the same
                                  * task met again through its next range
                                  * needs no second edge */
    uint32_t nlinked;            /* edges made; the first LC_INLINE_EDGES are
                                  * t's inline ones */
    uint32_t nkept;              /* entries of t->kept[] filled */
};

#define LC_KEPT_WORDS (2 * LC_INLINE_EDGES)

/* Notes in c->t's kept[] that it runs after p, where the edges leave room
 * (task.h). */
static inline void lc_link_keep(struct lc_link *c, struct lc_task *p)
{
    uint32_t used = c->nlinked < LC_INLINE_EDGES ? 2 * c->nlinked : LC_KEPT_WORDS;
    if (c->nkept < LC_KEPT_PREDS && c->nkept < LC_KEPT_WORDS - used) {
        c->t->kept[LC_KEPT_WORDS - 1 - c->nkept] = p;
        c->nkept++;
    }
}

/* Whether x is known to run after p: p is among x's kept[] entries. */
static inline int lc_task_runs_after(const struct lc_task *x, const struct lc_task *p)
{
    for (unsigned j = 0; j < x->nkept; j++)
        if (x->kept[LC_KEPT_WORDS - 1 - j] == p)
            return 1;
    return 0;
}

/* Returns 1 when c->t now waits for p, 0 when no edge is needed, -ENOMEM. */
static inline int lc_edge_link(struct lc_link *c, struct lc_task *p)
{
    struct lc_task *t = c->t;
    struct lc_edge *e, *head;

    if (p == t || p == c->last_pred)
        return 0;
    head = atomic_load_explicit(&p->succ, memory_order_acquire);
    if (head == LC_SUCC_CLOSED)
        return 0;
    if (__builtin_expect(c->nlinked < LC_INLINE_EDGES, 1)) {
        if (__builtin_expect(c->nkept > LC_KEPT_WORDS - 2 * (c->nlinked + 1), 0)) {
            /* the slot holds kept[] entries: the edge takes it back */
            c->nkept = LC_KEPT_WORDS - 2 * (c->nlinked + 1);
            /* and the compiler must not move those entries' stores, made
             * through another type, past this edge's */
            __asm__ volatile("" ::: "memory");
        }
        e = &t->edges[c->nlinked];
    } else if (!(e = lc_edge_slot_slow(c->w, t)))
        return -ENOMEM;
    e->succ = t;
    do {
        e->next = head;
        /* release: the completing predecessor must see e->succ and e->next */
        if (atomic_compare_exchange_weak_explicit(&p->succ, &head, e,
                                                  memory_order_release, memory_order_acquire))
            break;
    } while (head != LC_SUCC_CLOSED);
    if (head == LC_SUCC_CLOSED)
        return 0;     /* completed meanwhile: the slot stays free for the next edge */
    if (c->nlinked >= LC_INLINE_EDGES)
        t->more->used++;
    c->last_pred = p;
    c->nlinked++;
    return 1;
}

#endif /* LC_EDGE_H */
