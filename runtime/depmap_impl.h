/*
 * depmap_impl.h - the layout of a dependency map (depmap.c), for depmap.c
 * and for the tests that look inside one (tests/support/); nothing else in
 * the runtime includes it.
 */
#ifndef LC_DEPMAP_IMPL_H
#define LC_DEPMAP_IMPL_H

#include <stddef.h>
#include <stdint.h>

struct lc_task;

enum { G_NONE = 0, G_WRITE, G_READ, G_CONC };

struct lc_group {
    uint32_t n, cap;
    struct lc_task **v;          /* inl, or a heap block of cap entries */
    struct lc_task *inl[4];
};

#define LC_GROUP_INLINE 4

struct lc_seg {
    uintptr_t lo, hi;            /* [lo, hi) */
    struct lc_seg *hnext;        /* hash chain; free-list link when recycled */
    struct lc_seg *left, *right; /* treap by lo */
    uint32_t prio;
    uint32_t gen;                /* the map's generation when cur and prev were last valid */
    uint8_t kind;                /* G_* of cur */
    struct lc_group cur, prev;
};

struct lc_depmap {
    struct lc_seg **buckets;
    unsigned shift;              /* 64 - log2(number of buckets) */
    size_t nbuckets;
    size_t nsegs;
    size_t sweep_at;
    struct lc_seg *root;
    struct lc_seg *free_segs;
    uint64_t rng;
    uint32_t gen;                /* bumped by lc_depmap_retire */
};

#endif /* LC_DEPMAP_IMPL_H */
