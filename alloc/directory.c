/*
 * directory.c - the data-location directory (paper section 4, NAFT: the
 * runtime remembers on which NUMA node each first-touched region lives so
 * that later tasks can be scheduled where most of their data is).
 *
 * Ordered index: a treap, R. Seidel and C. R. Aragon, "Randomized Search
 * Trees", Algorithmica 16(4/5):464-497, 1996, keyed by an entry's low
 * address and manipulated only by split and merge (both iterative here).
 * Given distinct keys and priorities a treap's shape is unique, so a
 * split that is merged back leaves the tree exactly as it was: a record or
 * forget splits first, finds out what it must allocate, and on failure
 * merges back, which is how -ENOMEM leaves the directory unchanged.
 *
 * Beside it, a chained hash table keyed by the same low address: the common
 * case (a task's tile or block, recorded when first touched and queried or
 * re-recorded with the same bounds later) is one lookup.  Adjacent entries
 * on the same node are deliberately not merged: merging would turn a row of
 * tiles into one long entry and every later per-tile query would miss the
 * hash and take the tree walk.
 *
 * Lock: a pthread_rwlock preferring writers (glibc's default prefers
 * readers and can starve the completing tasks that record).  A spinlock was
 * measured too (2-core KVM guest, 1024 tiles, exact-match query): alone,
 * 18-29 ns against the rwlock's 21-36 ns; two threads querying at once,
 * 77-98 ns against 52-78 ns per query, since readers do not exclude each
 * other; one reader and one writer, about the same.  The few ns saved
 * alone do not pay for serialising the spawners, nor for spinning behind
 * a preempted writer when workers outnumber cores, so: the rwlock.
 * Readers never write to the directory (no move-to-front in the hash, no
 * statistics), so concurrent queries share its lines read-only.
 */
#define _GNU_SOURCE /* pthread_rwlockattr_setkind_np */
#include "directory.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "mem.h"

struct lc_dir_entry {
    uintptr_t lo, hi;              /* [lo, hi), lo < hi */
    struct lc_dir_entry *left;     /* treap children */
    struct lc_dir_entry *right;
    struct lc_dir_entry *hnext;    /* hash chain */
    uint32_t prio;                 /* treap heap key: parent's >= child's */
    int node;                      /* 0..nnodes-1 or LC_DIR_SPREAD */
};

struct lc_directory {
    pthread_rwlock_t lock;
    struct lc_dir_entry *root;
    struct lc_dir_entry **buckets;
    unsigned hash_shift;           /* 64 - log2(number of buckets) */
    size_t count;
    uint64_t rng;                  /* treap priorities; written under the write lock */
    uint64_t spread_total;
    int nnodes;
    uint64_t totals[];             /* nnodes running per-node byte totals */
};

#define DIR_INITIAL_LOG2 6

static size_t nbuckets(const struct lc_directory *d)
{
    return (size_t)1 << (64 - d->hash_shift);
}

/* Fibonacci hashing: tile addresses share their low bits, so take the
 * product's high bits. */
static size_t hash_index(const struct lc_directory *d, uintptr_t lo)
{
    return (size_t)(((uint64_t)lo * UINT64_C(0x9E3779B97F4A7C15)) >> d->hash_shift);
}

static struct lc_dir_entry *hash_find(const struct lc_directory *d, uintptr_t lo)
{
    struct lc_dir_entry *e = d->buckets[hash_index(d, lo)];
    while (e && e->lo != lo)
        e = e->hnext;
    return e;
}

static void hash_insert(struct lc_directory *d, struct lc_dir_entry *e)
{
    struct lc_dir_entry **b = &d->buckets[hash_index(d, e->lo)];
    e->hnext = *b;
    *b = e;
}

static void hash_remove(struct lc_directory *d, struct lc_dir_entry *e)
{
    struct lc_dir_entry **p = &d->buckets[hash_index(d, e->lo)];
    while (*p != e)
        p = &(*p)->hnext;
    *p = e->hnext;
}

/* Doubles the table when the load passes 1.  Best effort: chains only get
 * longer if the allocation fails, so a failure here is not an error (and
 * happens after the change, which is already complete). */
static void hash_maybe_grow(struct lc_directory *d)
{
    size_t n = nbuckets(d);
    if (d->count <= n || d->hash_shift <= 1)
        return;
    struct lc_dir_entry **nb = lc_mem_calloc(2 * n, sizeof *nb);
    if (!nb)
        return;
    struct lc_dir_entry **old = d->buckets;
    d->buckets = nb;
    d->hash_shift--;
    for (size_t i = 0; i < n; i++) {
        struct lc_dir_entry *e = old[i], *next;
        for (; e; e = next) {
            next = e->hnext;
            hash_insert(d, e);
        }
    }
    lc_mem_free(old, n * sizeof *old);
}

static uint32_t next_prio(struct lc_directory *d)
{
    /* xorshift64* (Vigna 2016); the high half is the well-mixed part. */
    uint64_t x = d->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    d->rng = x;
    return (uint32_t)((x * UINT64_C(0x2545F4914F6CDD1D)) >> 32);
}

/* Splits t into *l (lo < key) and *r (lo >= key). */
static void treap_split(struct lc_dir_entry *t, uintptr_t key,
                        struct lc_dir_entry **l, struct lc_dir_entry **r)
{
    struct lc_dir_entry **lp = l, **rp = r;
    while (t) {
        if (t->lo < key) {
            *lp = t;
            lp = &t->right;
            t = t->right;
        } else {
            *rp = t;
            rp = &t->left;
            t = t->left;
        }
    }
    *lp = NULL;
    *rp = NULL;
}

/* Every key of a is below every key of b. */
static struct lc_dir_entry *treap_merge(struct lc_dir_entry *a, struct lc_dir_entry *b)
{
    struct lc_dir_entry *root, **p = &root;
    while (a && b) {
        if (a->prio >= b->prio) {
            *p = a;
            p = &a->right;
            a = a->right;
        } else {
            *p = b;
            p = &b->left;
            b = b->left;
        }
    }
    *p = a ? a : b;
    return root;
}

static struct lc_dir_entry *treap_rightmost(struct lc_dir_entry *t)
{
    if (t)
        while (t->right)
            t = t->right;
    return t;
}

static void account(struct lc_directory *d, int node, uint64_t add, uint64_t sub)
{
    if (node == LC_DIR_SPREAD)
        d->spread_total = d->spread_total + add - sub;
    else
        d->totals[node] = d->totals[node] + add - sub;
}

/* Drops every entry of subtree t but keep (which stays allocated, out of
 * the hash and the totals). */
static void drop_subtree(struct lc_directory *d, struct lc_dir_entry *t,
                         struct lc_dir_entry *keep)
{
    while (t) {
        drop_subtree(d, t->left, keep);
        struct lc_dir_entry *right = t->right;
        hash_remove(d, t);
        account(d, t->node, 0, t->hi - t->lo);
        d->count--;
        if (t != keep)
            lc_mem_free(t, sizeof *t);
        t = right;
    }
}

static struct lc_dir_entry *entry_new(void)
{
    return lc_mem_alloc(sizeof(struct lc_dir_entry), 0);
}

struct lc_directory *lc_dir_create(int nnodes)
{
    if (nnodes < 0)
        return NULL;
    size_t sz = sizeof(struct lc_directory) + (size_t)nnodes * sizeof(uint64_t);
    struct lc_directory *d = lc_mem_calloc(1, sz);
    if (!d)
        return NULL;
    d->nnodes = nnodes;
    d->hash_shift = 64 - DIR_INITIAL_LOG2;
    d->buckets = lc_mem_calloc(nbuckets(d), sizeof *d->buckets);
    if (!d->buckets) {
        lc_mem_free(d, sz);
        return NULL;
    }
    d->rng = (uint64_t)(uintptr_t)d ^ UINT64_C(0x853C49E6748FEA9B);
    if (!d->rng)
        d->rng = 1;
    pthread_rwlockattr_t attr;
    int rc = pthread_rwlockattr_init(&attr);
    if (rc == 0) {
        pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
        rc = pthread_rwlock_init(&d->lock, &attr);
        pthread_rwlockattr_destroy(&attr);
    }
    if (rc != 0) {
        lc_mem_free(d->buckets, nbuckets(d) * sizeof *d->buckets);
        lc_mem_free(d, sz);
        return NULL;
    }
    return d;
}

void lc_dir_destroy(struct lc_directory *d)
{
    if (!d)
        return;
    for (size_t i = 0, n = nbuckets(d); i < n; i++) {
        struct lc_dir_entry *e = d->buckets[i], *next;
        for (; e; e = next) {
            next = e->hnext;
            lc_mem_free(e, sizeof *e);
        }
    }
    lc_mem_free(d->buckets, nbuckets(d) * sizeof *d->buckets);
    pthread_rwlock_destroy(&d->lock);
    lc_mem_free(d, sizeof *d + (size_t)d->nnodes * sizeof(uint64_t));
}

/*
 * Removes [a, b) from the directory and, when set_node is true, records it
 * as node.  Called with the write lock held.
 */
static int change(struct lc_directory *d, uintptr_t a, uintptr_t b, bool set_node, int node)
{
    struct lc_dir_entry *l, *m, *r;

    /* The tile case: same bounds as an entry, no structure changes. */
    struct lc_dir_entry *hit = hash_find(d, a);
    if (hit && hit->hi == b && set_node) {
        account(d, hit->node, 0, b - a);
        account(d, node, b - a, 0);
        hit->node = node;
        return 0;
    }

    /* l: entries starting below a, m: starting inside, r: at or after b.
     * Only l's last entry may reach into [a, b) (and beyond b), and only
     * m's last entry may reach beyond b. */
    treap_split(d->root, a, &l, &m);
    treap_split(m, b, &m, &r);
    struct lc_dir_entry *pl = treap_rightmost(l);
    struct lc_dir_entry *qm = treap_rightmost(m);
    bool need_rem = pl && pl->hi > b;             /* pl covers all of [a, b) and more */
    bool q_crosses = qm && qm->hi > b;
    bool m_reusable = m && !(q_crosses && !m->left && !m->right);

    /* Allocate everything before changing anything. */
    struct lc_dir_entry *rem = NULL, *fresh = NULL;
    if (need_rem && !(rem = entry_new()))
        goto nomem;
    if (set_node && !m_reusable && !(fresh = entry_new()))
        goto nomem;

    if (pl && pl->hi > a) {
        if (need_rem) {
            rem->lo = b;
            rem->hi = pl->hi;
            rem->node = pl->node;
            rem->left = rem->right = NULL;
            rem->prio = next_prio(d);
            hash_insert(d, rem);
            d->count++;
            r = treap_merge(rem, r);
            account(d, pl->node, 0, b - a);
        } else {
            account(d, pl->node, 0, pl->hi - a);
        }
        pl->hi = a;   /* key unchanged: stays where it is in l */
    }
    if (q_crosses) {
        /* Detach m's last entry (no right child: its left subtree takes its
         * place) and move its start to b, which puts it first in r. */
        struct lc_dir_entry **pp = &m;
        while ((*pp)->right)
            pp = &(*pp)->right;
        *pp = qm->left;
        account(d, qm->node, 0, b - qm->lo);
        hash_remove(d, qm);
        qm->lo = b;
        qm->left = qm->right = NULL;
        hash_insert(d, qm);
        r = treap_merge(qm, r);
    }
    if (set_node && !fresh)
        fresh = m;    /* m_reusable: m is non-empty after the detach */
    drop_subtree(d, m, fresh);
    if (set_node) {
        fresh->lo = a;
        fresh->hi = b;
        fresh->node = node;
        fresh->left = fresh->right = NULL;
        fresh->prio = next_prio(d);
        hash_insert(d, fresh);
        d->count++;
        account(d, node, b - a, 0);
        l = treap_merge(l, fresh);
    }
    d->root = treap_merge(l, r);
    hash_maybe_grow(d);
    return 0;

nomem:
    lc_mem_free(rem, sizeof *rem);
    d->root = treap_merge(l, treap_merge(m, r));
    return -ENOMEM;
}

/* [addr, addr+size) must not wrap. */
static int range_ok(uintptr_t addr, size_t size)
{
    return size <= UINTPTR_MAX - addr;
}

int lc_dir_record(struct lc_directory *d, uintptr_t addr, size_t size, int node)
{
    if (node != LC_DIR_SPREAD && (node < 0 || node >= d->nnodes))
        return -EINVAL;
    if (!range_ok(addr, size))
        return -EINVAL;
    if (size == 0)
        return 0;
    pthread_rwlock_wrlock(&d->lock);
    int rc = change(d, addr, addr + size, true, node);
    pthread_rwlock_unlock(&d->lock);
    return rc;
}

int lc_dir_forget(struct lc_directory *d, uintptr_t addr, size_t size)
{
    if (!range_ok(addr, size))
        return -EINVAL;
    if (size == 0)
        return 0;
    pthread_rwlock_wrlock(&d->lock);
    int rc = change(d, addr, addr + size, false, 0);
    pthread_rwlock_unlock(&d->lock);
    return rc;
}

static void add_bytes(uint64_t *bytes, uint64_t *spread, int node, uint64_t n)
{
    if (node == LC_DIR_SPREAD) {
        if (spread)
            *spread += n;
    } else if (bytes) {
        bytes[node] += n;
    }
}

/* Adds the overlap with [a, b) of every entry of t starting in [a, b). */
static uint64_t query_walk(const struct lc_dir_entry *t, uintptr_t a, uintptr_t b,
                           uint64_t *bytes, uint64_t *spread)
{
    uint64_t known = 0;
    while (t) {
        if (t->lo < a) {
            t = t->right;
            continue;
        }
        if (t->lo >= b) {
            t = t->left;
            continue;
        }
        known += query_walk(t->left, a, b, bytes, spread);
        uint64_t n = (t->hi < b ? t->hi : b) - t->lo;
        add_bytes(bytes, spread, t->node, n);
        known += n;
        t = t->right;
    }
    return known;
}

size_t lc_dir_query(struct lc_directory *d, uintptr_t addr, size_t size,
                    uint64_t *bytes, uint64_t *spread)
{
    if (size == 0)
        return 0;
    uintptr_t a = addr, b = range_ok(addr, size) ? addr + size : UINTPTR_MAX;
    uint64_t known = 0;

    pthread_rwlock_rdlock(&d->lock);
    const struct lc_dir_entry *hit = hash_find(d, a);
    if (hit && hit->hi >= b) {
        add_bytes(bytes, spread, hit->node, b - a);
        known = b - a;
    } else {
        /* The entry starting last below a may reach into the range. */
        const struct lc_dir_entry *t = d->root, *pl = NULL;
        while (t) {
            if (t->lo < a) {
                pl = t;
                t = t->right;
            } else {
                t = t->left;
            }
        }
        if (pl && pl->hi > a) {
            uint64_t n = (pl->hi < b ? pl->hi : b) - a;
            add_bytes(bytes, spread, pl->node, n);
            known = n;
        }
        known += query_walk(d->root, a, b, bytes, spread);
    }
    pthread_rwlock_unlock(&d->lock);
    return size - (size_t)known;
}

void lc_dir_totals(struct lc_directory *d, uint64_t *bytes, uint64_t *spread)
{
    pthread_rwlock_rdlock(&d->lock);
    if (bytes)
        memcpy(bytes, d->totals, (size_t)d->nnodes * sizeof *bytes);
    if (spread)
        *spread = d->spread_total;
    pthread_rwlock_unlock(&d->lock);
}

size_t lc_dir_entries(struct lc_directory *d)
{
    pthread_rwlock_rdlock(&d->lock);
    size_t n = d->count;
    pthread_rwlock_unlock(&d->lock);
    return n;
}

static int foreach_walk(const struct lc_dir_entry *t,
                        int (*fn)(uintptr_t, size_t, int, void *), void *arg)
{
    while (t) {
        int rc = foreach_walk(t->left, fn, arg);
        if (rc)
            return rc;
        if ((rc = fn(t->lo, t->hi - t->lo, t->node, arg)) != 0)
            return rc;
        t = t->right;
    }
    return 0;
}

int lc_dir_foreach(struct lc_directory *d,
                   int (*fn)(uintptr_t addr, size_t size, int node, void *arg), void *arg)
{
    pthread_rwlock_rdlock(&d->lock);
    int rc = foreach_walk(d->root, fn, arg);
    pthread_rwlock_unlock(&d->lock);
    return rc;
}

/* Sums per node in [base, base+CHECK_CHUNK) on a stack array: the check
 * allocates nothing, so it can run while a test's fault countdown is set. */
#define CHECK_CHUNK 64

struct check_state {
    const struct lc_directory *d;
    const struct lc_dir_entry *prev;
    size_t seen;
    int base;
    uint64_t totals[CHECK_CHUNK];
    uint64_t spread;
};

static int check_walk(const struct lc_dir_entry *t, struct check_state *s)
{
    if (!t)
        return 0;
    if ((t->left && t->left->prio > t->prio) || (t->right && t->right->prio > t->prio))
        return -EFAULT;   /* heap order */
    int rc = check_walk(t->left, s);
    if (rc)
        return rc;
    if (t->lo >= t->hi)
        return -EFAULT;
    if (s->prev && s->prev->hi > t->lo)
        return -EFAULT;   /* out of order or overlapping */
    if (t->node == LC_DIR_SPREAD)
        s->spread += t->hi - t->lo;
    else if (t->node < 0 || t->node >= s->d->nnodes)
        return -EFAULT;
    else if (t->node >= s->base && t->node - s->base < CHECK_CHUNK)
        s->totals[t->node - s->base] += t->hi - t->lo;
    if (hash_find(s->d, t->lo) != t)
        return -EFAULT;
    s->prev = t;
    s->seen++;
    return check_walk(t->right, s);
}

int lc_dir_check(struct lc_directory *d)
{
    int rc = 0;
    pthread_rwlock_rdlock(&d->lock);
    for (int base = 0; rc == 0 && (base == 0 || base < d->nnodes); base += CHECK_CHUNK) {
        struct check_state s = { .d = d, .base = base };
        rc = check_walk(d->root, &s);
        if (rc == 0 && (s.seen != d->count || s.spread != d->spread_total))
            rc = -EFAULT;
        for (int i = base; rc == 0 && i < d->nnodes && i - base < CHECK_CHUNK; i++)
            if (s.totals[i - base] != d->totals[i])
                rc = -EFAULT;
    }
    size_t hashed = 0;
    for (size_t i = 0, n = nbuckets(d); rc == 0 && i < n; i++)
        for (const struct lc_dir_entry *e = d->buckets[i]; e; e = e->hnext)
            hashed++;
    if (rc == 0 && hashed != d->count)
        rc = -EFAULT;
    pthread_rwlock_unlock(&d->lock);
    return rc;
}
