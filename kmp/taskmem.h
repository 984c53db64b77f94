/*
 * taskmem.h - the kmp task blocks' caches (taskmem.c says how they work):
 * their layout, and the fast paths of a block's allocation and release
 * inlined into the task entry points (task.c, taskloop.c), where a call
 * into taskmem.c for each was a measurable share of a fine-grained task.
 * Everything but popping from and pushing onto the thread's own list stays
 * in taskmem.c.
 */
#ifndef LC_KMP_TASKMEM_H
#define LC_KMP_TASKMEM_H

#include <stdatomic.h>
#include <stddef.h>

#define LC_KMP_BLOCK 64          /* alignment, and the size classes' step */
#define LC_KMP_NCLASSES 16       /* cached sizes: up to 16 blocks (1 KiB) */
#define LC_KMP_CACHE_MAX 256     /* a class's own list at most */

struct lc_kmp_free_block {
    struct lc_kmp_free_block *next;
};

struct lc_kmp_cache {
    struct lc_kmp_free_block *head[LC_KMP_NCLASSES];   /* the owner's own list */
    unsigned n[LC_KMP_NCLASSES];       /* blocks the owner freed onto it (at most) */
    _Atomic(struct lc_kmp_free_block *) back[LC_KMP_NCLASSES];   /* returned by others */
    _Atomic int gone;                  /* no thread owns it now */
    struct lc_kmp_cache *next;         /* on the list of every cache */
};

/* the calling thread's cache, NULL until its first block */
extern __thread struct lc_kmp_cache *lc_kmp_mine __attribute__((tls_model("initial-exec")));

/* A task block of size bytes (a multiple of 64), 64-byte aligned, or NULL,
 * and the cache it goes back to (*home, which the caller keeps with the
 * block); and its return, from any thread.  The whole of each. */
void *lc_kmp_block_alloc(size_t size, struct lc_kmp_cache **home);
void lc_kmp_block_free(void *p, size_t size, struct lc_kmp_cache *home);

/* The first block of c's own list of class k (not empty), taken off. */
static inline void *lc_kmp_own_pop(struct lc_kmp_cache *c, size_t k)
{
    struct lc_kmp_free_block *b = c->head[k];
    c->head[k] = b->next;
    if (c->n[k])
        c->n[k]--;
    if (b->next) {
        /* the next block may have been returned by the core that ran its
         * task: ask for its first lines now, for the next spawn */
        __builtin_prefetch(b->next, 1, 3);
        __builtin_prefetch((char *)b->next + LC_KMP_BLOCK, 1, 3);
    }
    return b;
}

/* p onto c's own list of class k (which has room). */
static inline void lc_kmp_own_push(struct lc_kmp_cache *c, size_t k, void *p)
{
    struct lc_kmp_free_block *b = p;
    b->next = c->head[k];
    c->head[k] = b;
    c->n[k]++;
}

/* lc_kmp_block_alloc, the block popped from the thread's own list here */
static inline void *lc_kmp_block_get(size_t size, struct lc_kmp_cache **home)
{
    size_t k = size / LC_KMP_BLOCK - 1;
    struct lc_kmp_cache *c = lc_kmp_mine;
    if (__builtin_expect(!c || k >= LC_KMP_NCLASSES || !c->head[k], 0))
        return lc_kmp_block_alloc(size, home);
    *home = c;
    return lc_kmp_own_pop(c, k);
}

/* lc_kmp_block_free, a block of this thread's pushed onto its list here */
static inline void lc_kmp_block_put(void *p, size_t size, struct lc_kmp_cache *home)
{
    size_t k = size / LC_KMP_BLOCK - 1;
    if (__builtin_expect(!home || home != lc_kmp_mine || home->n[k] >= LC_KMP_CACHE_MAX, 0)) {
        lc_kmp_block_free(p, size, home);
        return;
    }
    lc_kmp_own_push(home, k, p);
}

#endif /* LC_KMP_TASKMEM_H */
