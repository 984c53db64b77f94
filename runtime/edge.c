/*
 * edge.c - overflow storage for the edges of tasks with more predecessors
 * than fit inline in the descriptor.
 */
#include "edge.h"

#include "mem.h"

struct lc_edge *lc_edge_slot_slow(struct lc_task *succ)
{
    struct lc_edge_chunk *c = succ->more;
    unsigned cap = sizeof c->e / sizeof c->e[0];

    if (!c || c->used == cap) {
        c = lc_mem_alloc(sizeof *c, 0);
        if (!c)
            return NULL;
        c->used = 0;
        c->next = succ->more;
        succ->more = c;
    }
    return &c->e[c->used];
}

void lc_edge_chunks_free(struct lc_task *t)
{
    struct lc_edge_chunk *c = t->more, *n;
    for (; c; c = n) {
        n = c->next;
        lc_mem_free(c, sizeof *c);
    }
    t->more = NULL;
}
