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

#include "task.h"

struct lc_worker;
/* A free edge slot past the inline ones, in a chunk from w's task pool;
 * NULL: out of memory.  Chunks go back to a pool with the task. */
struct lc_edge *lc_edge_slot_slow(struct lc_worker *w, struct lc_task *succ);
void lc_edge_chunks_free(struct lc_worker *w, struct lc_task *t);

/* Returns 1 when succ now waits for pred, 0 when no edge is needed, -ENOMEM. */
static inline int lc_edge_link(struct lc_worker *w, struct lc_task *succ, struct lc_task *pred)
{
    struct lc_edge *e, *head;

    if (pred == succ || pred == succ->last_pred)
        return 0;
    head = atomic_load_explicit(&pred->succ, memory_order_acquire);
    if (head == LC_SUCC_CLOSED)
        return 0;
    if (__builtin_expect(succ->nedges < LC_INLINE_EDGES, 1))
        e = &succ->edges[succ->nedges];
    else if (!(e = lc_edge_slot_slow(w, succ)))
        return -ENOMEM;
    e->succ = succ;
    do {
        e->next = head;
        /* release: the completing predecessor must see e->succ and e->next */
        if (atomic_compare_exchange_weak_explicit(&pred->succ, &head, e,
                                                  memory_order_release, memory_order_acquire))
            break;
    } while (head != LC_SUCC_CLOSED);
    if (head == LC_SUCC_CLOSED)
        return 0;     /* completed meanwhile: the slot stays free for the next edge */
    if (succ->nedges < LC_INLINE_EDGES)
        succ->nedges++;
    else
        succ->more->used++;
    succ->last_pred = pred;
    return 1;
}

#endif /* LC_EDGE_H */
