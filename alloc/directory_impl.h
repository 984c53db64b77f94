/*
 * directory_impl.h - the layout of the data-location directory
 * (directory.c says how it works), for directory.c and for the tests'
 * consistency checker (tests/support/directory_check.c); nothing else in
 * the runtime includes it.
 */
#ifndef LC_DIRECTORY_IMPL_H
#define LC_DIRECTORY_IMPL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "directory.h"

#define DIR_GRAIN_SHIFT 21            /* 2 MiB granules */
#define DIR_SHARD_LOG2 6
#define DIR_NSHARDS (1 << DIR_SHARD_LOG2)
#define DIR_INITIAL_LOG2 4            /* buckets per shard at first */
#define DIR_READ_TRIES 8              /* optimistic reads before taking the mutex */
#define DIR_SPINS 256                 /* polls of a busy shard before taking the mutex */
#define DIR_DEPTH_CAP 256             /* a descent deeper than this: retry under the mutex */
/* a record or gap booking longer than this is refused (one entry per 2 MiB) */
#define DIR_MAX_RECORD ((size_t)1 << 40)

/* Relaxed loads and stores of fields a reader may read while a writer
 * changes them; pointers are published with release and read with acquire
 * (see the top of the file). */
#define LD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define LDA(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define ST(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define STR(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

struct lc_dir_entry {
    uintptr_t lo, hi;              /* [lo, hi), lo < hi, inside one granule */
    struct lc_dir_entry *left;     /* treap children */
    struct lc_dir_entry *right;
    struct lc_dir_entry *hnext;    /* hash chain; free-list link when free */
    uint32_t prio;                 /* treap heap key: parent's >= child's */
    int node;                      /* 0..nnodes-1 or LC_DIR_SPREAD */
};

struct dir_table {
    struct dir_table *older;       /* the arrays it replaced, freed at destroy */
    unsigned shift;                /* 64 - log2(number of buckets) */
    unsigned embedded;             /* the initial array, inside the directory's block */
    struct lc_dir_entry *b[];
};

struct dir_shard {
    /* What a query reads; written only by the shard's writers. */
    uint32_t seq;                  /* odd while a writer changes the shard */
    struct lc_dir_entry *root;
    struct dir_table *table;
    size_t count;                  /* live entries */
    /* Writers only (the reader's fallback takes the lock too). */
    pthread_mutex_t lock __attribute__((aligned(64)));
    struct lc_dir_entry *free;     /* type-stable spare entries */
    size_t nfree;
    uint64_t rng;                  /* treap priorities */
    uint64_t *totals;              /* nnodes bytes per node, then spread */
} __attribute__((aligned(64)));

struct lc_directory {
    struct dir_shard shards[DIR_NSHARDS];
    int nnodes;
    size_t bytes;                  /* size of this block */
};

static inline unsigned shard_of(uintptr_t addr)
{
    uint64_t g = (uint64_t)(addr >> DIR_GRAIN_SHIFT);
    return (unsigned)((g * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - DIR_SHARD_LOG2));
}

static inline size_t table_size(const struct dir_table *t)
{
    return (size_t)1 << (64 - t->shift);
}

/* Fibonacci hashing: tile addresses share their low bits, so take the
 * product's high bits. */
static inline size_t hash_index(const struct dir_table *t, uintptr_t lo)
{
    return (size_t)(((uint64_t)lo * UINT64_C(0x9E3779B97F4A7C15)) >> t->shift);
}

/* Writer side (the shard is locked). */
static inline struct lc_dir_entry *hash_find(const struct dir_shard *s, uintptr_t lo)
{
    struct lc_dir_entry *e = s->table->b[hash_index(s->table, lo)];
    while (e && e->lo != lo)
        e = e->hnext;
    return e;
}

/* The first entry starting at or after a (the shard is locked). */
static inline struct lc_dir_entry *first_from(const struct dir_shard *s, uintptr_t a)
{
    struct lc_dir_entry *t = s->root, *e = NULL;
    while (t) {
        if (t->lo >= a) {
            e = t;
            t = t->left;
        } else {
            t = t->right;
        }
    }
    return e;
}

#endif /* LC_DIRECTORY_IMPL_H */
