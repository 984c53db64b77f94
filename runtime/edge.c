/*
 * edge.c - overflow storage for the edges of tasks with more predecessors
 * than fit inline in the descriptor.  A chunk is carved from a task
 * descriptor taken from the worker's task pool: a task that needs one (a
 * fan-in of more than LC_INLINE_EDGES predecessors) is common in some
 * programs, and the pool recycles descriptors between workers for a few
 * instructions where jemalloc took hundreds per chunk.
 */
#include "edge.h"

#include "runtime.h"
#include "taskpool.h"

_Static_assert(sizeof(struct lc_edge_chunk) <= sizeof(struct lc_task),
               "an edge chunk must fit in a task descriptor");

struct lc_edge *lc_edge_slot_slow(struct lc_worker *w, struct lc_task *succ)
{
    struct lc_edge_chunk *c = succ->more;
    unsigned cap = sizeof c->e / sizeof c->e[0];

    if (!c || c->used == cap) {
        c = (struct lc_edge_chunk *)(void *)lc_task_alloc(&w->pool, w->npool);
        if (!c)
            return NULL;
        c->used = 0;
        c->next = succ->more;
        succ->more = c;
    }
    return &c->e[c->used];
}

void lc_edge_chunks_free(struct lc_worker *w, struct lc_task *t)
{
    struct lc_edge_chunk *c = t->more, *n;
    for (; c; c = n) {
        n = c->next;
        lc_task_release(&w->pool, w->npool, (struct lc_task *)(void *)c);
    }
    t->more = NULL;
}
