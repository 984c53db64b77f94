/*
 * directory.c - the data-location directory (paper section 4, NAFT: the
 * runtime remembers on which NUMA node each first-touched region lives so
 * that later tasks can be scheduled where most of their data is).
 *
 * Built to be queried by every spawner of a large machine (the paper's 288
 * workers) at once: a query writes no shared memory at all.
 *
 * Shards.  The address space is cut into 2 MiB granules (DIR_GRAIN_SHIFT,
 * the huge-page size: placement is not finer than that for most data) and
 * each granule belongs to one of DIR_NSHARDS shards, picked by Fibonacci
 * hashing of the granule number so that neighbouring granules land on
 * different shards.  A range is stored as one entry per granule it covers
 * (a record crossing a granule boundary is split there), so a shard holds
 * whole entries and the shards never need to agree on anything.  Records,
 * forgets and gap bookings lock the shards they touch (a pthread mutex
 * each, taken in shard order when a range spans several); unrelated data
 * is written in parallel.
 *
 * Inside a shard: a treap, R. Seidel and C. R. Aragon, "Randomized Search
 * Trees", Algorithmica 16(4/5):464-497, 1996, keyed by an entry's low
 * address and changed only by split and merge (iterative), beside a
 * chained hash table keyed by the same low address: the common query (a
 * task's tile or block, recorded when first touched, later queried with the
 * same bounds) is one hash lookup.  Adjacent entries on the same node are
 * not merged: merging would turn a row of tiles into one long entry and
 * every later per-tile query would miss the hash and take the tree walk.
 *
 * Readers: a sequence lock per shard (C. Lameter's seqlock; the C11
 * formulation of H.-J. Boehm, "Can seqlocks get along with programming
 * language memory models?", MSPC 2012).  A writer makes the shard's
 * sequence odd, changes the shard, makes it even again; a reader notes the
 * sequence, walks with relaxed atomic loads (pointers with acquire, so an
 * entry's fields are initialised before it can be reached), and keeps its
 * answer only when the sequence did not move.  It stays safe while racing a
 * writer because entries are type-stable: a dropped entry goes to its
 * shard's free list, never back to the allocator before lc_dir_destroy, and
 * a hash table that grows keeps its old bucket array until then (together
 * less than twice the final one), so a stale pointer always points at an
 * entry or a bucket array.  A torn view can still hold a cycle or garbage
 * bounds, so every walk is bounded (descents, entries visited) and checks
 * that it advances; when a bound is hit, after DIR_READ_TRIES retries, or
 * when a writer stays in the shard for DIR_SPINS polls, the reader takes
 * the shard's mutex and walks a quiet shard instead (no long spinning
 * behind a preempted writer).  The walk is iterative (one descent
 * per entry in the range; ranges are short), never recursive, so a torn
 * view cannot overflow the stack.  A query's per-node sums go to a scratch
 * array first and reach the caller's only when the shard's sequence held.
 *
 * Allocation failure: a writer first counts, with the shards locked, how
 * many entries the change needs (0, 1 or 2 per granule piece for a record,
 * one per gap for a gap booking), tops up the shards' free lists, and only
 * then changes anything; so -ENOMEM leaves the directory exactly as it was,
 * however many shards the range spans.
 *
 * Measured figures (cost per query alone and with two threads, before and
 * after this layout) are in benchmarks/README.md.
 */
#define _GNU_SOURCE
#include "directory.h"
#include "directory_impl.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "futex.h"   /* cpu_relax */
#include "mem.h"

/* ThreadSanitizer does not model standalone fences (the deque has the same
 * switch, deque.h): under TSan each fence of the sequence lock becomes a
 * seq_cst read-modify-write of the sequence itself, which TSan follows.
 * Only the TSan build's readers write the sequence's line. */
#if defined(__SANITIZE_THREAD__)
#define DIR_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DIR_TSAN 1
#endif
#endif

/* Writer: the sequence made odd before any change of the shard. */
static inline void seq_begin(uint32_t *seq)
{
#if DIR_TSAN
    __atomic_fetch_add(seq, 1, __ATOMIC_SEQ_CST);
#else
    ST(*seq, LD(*seq) + 1);
    /* orders the odd sequence before the changes (pairs with the reader's
     * acquire fence in seq_again) */
    __atomic_thread_fence(__ATOMIC_RELEASE);
#endif
}

/* Writer: even again, after the changes. */
static inline void seq_end(uint32_t *seq)
{
    __atomic_store_n(seq, LD(*seq) + 1, __ATOMIC_RELEASE);
}

/* Reader: the sequence read again after the loads it guards. */
static inline uint32_t seq_again(uint32_t *seq)
{
#if DIR_TSAN
    return __atomic_fetch_add(seq, 0, __ATOMIC_SEQ_CST);
#else
    /* the relaxed loads before it are done before the sequence is read */
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return LD(*seq);
#endif
}


/* The shards holding entries of [a, b) (b > a): a superset. */
static uint64_t shard_mask(uintptr_t a, uintptr_t b)
{
    uintptr_t g0 = a >> DIR_GRAIN_SHIFT, g1 = (b - 1) >> DIR_GRAIN_SHIFT;
    if (g1 - g0 >= DIR_NSHARDS)
        return ~UINT64_C(0);
    uint64_t m = 0;
    for (uintptr_t g = g0;; g++) {
        m |= UINT64_C(1) << shard_of(g << DIR_GRAIN_SHIFT);
        if (g == g1)
            break;
    }
    return m;
}

/* The end of the granule piece of [a, b) that starts at a. */
static uintptr_t piece_end(uintptr_t a, uintptr_t b)
{
    uintptr_t g = a >> DIR_GRAIN_SHIFT;
    if (g == (b - 1) >> DIR_GRAIN_SHIFT)
        return b;
    return (g + 1) << DIR_GRAIN_SHIFT;
}

/* ------------------------------------------------------------ hash table */




static void hash_insert(struct dir_shard *s, struct lc_dir_entry *e)
{
    struct lc_dir_entry **b = &s->table->b[hash_index(s->table, e->lo)];
    ST(e->hnext, *b);
    STR(*b, e);
}

static void hash_remove(struct dir_shard *s, struct lc_dir_entry *e)
{
    struct lc_dir_entry **p = &s->table->b[hash_index(s->table, e->lo)];
    while (*p != e)
        p = &(*p)->hnext;
    STR(*p, e->hnext);
}

/* Doubles the table when the load passes 1.  Best effort: chains only get
 * longer if the allocation fails, so a failure here is not an error (and
 * happens after the change, which is already complete).  The old array is
 * kept (readers may be in it) until lc_dir_destroy. */
static void hash_maybe_grow(struct dir_shard *s)
{
    struct dir_table *old = s->table;
    size_t n = table_size(old);
    if (s->count <= n || old->shift <= 1)
        return;
    struct dir_table *nt = lc_mem_calloc(1, sizeof *nt + 2 * n * sizeof nt->b[0]);
    if (!nt)
        return;
    nt->shift = old->shift - 1;
    nt->older = old;
    for (size_t i = 0; i < n; i++) {
        struct lc_dir_entry *e = old->b[i], *next;
        for (; e; e = next) {
            next = e->hnext;
            struct lc_dir_entry **b = &nt->b[hash_index(nt, e->lo)];
            ST(e->hnext, *b);
            *b = e;   /* nt is not published yet */
        }
    }
    STR(s->table, nt);
}

/* ------------------------------------------------------------ treap */

static uint32_t next_prio(struct dir_shard *s)
{
    /* xorshift64* (Vigna 2016); the high half is the well-mixed part. */
    uint64_t x = s->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    s->rng = x;
    return (uint32_t)((x * UINT64_C(0x2545F4914F6CDD1D)) >> 32);
}

/* Splits t into *l (lo < key) and *r (lo >= key). */
static void treap_split(struct lc_dir_entry *t, uintptr_t key,
                        struct lc_dir_entry **l, struct lc_dir_entry **r)
{
    struct lc_dir_entry **lp = l, **rp = r;
    while (t) {
        if (t->lo < key) {
            STR(*lp, t);
            lp = &t->right;
            t = t->right;
        } else {
            STR(*rp, t);
            rp = &t->left;
            t = t->left;
        }
    }
    STR(*lp, NULL);
    STR(*rp, NULL);
}

/* Every key of a is below every key of b. */
static struct lc_dir_entry *treap_merge(struct lc_dir_entry *a, struct lc_dir_entry *b)
{
    struct lc_dir_entry *root = NULL, **p = &root;
    while (a && b) {
        if (a->prio >= b->prio) {
            STR(*p, a);
            p = &a->right;
            a = a->right;
        } else {
            STR(*p, b);
            p = &b->left;
            b = b->left;
        }
    }
    STR(*p, a ? a : b);
    return root;
}

static struct lc_dir_entry *treap_rightmost(struct lc_dir_entry *t)
{
    if (t)
        while (t->right)
            t = t->right;
    return t;
}

/* Writer side: the entry starting last below a, and the first starting at
 * or after a. */
static struct lc_dir_entry *pred_below(const struct dir_shard *s, uintptr_t a)
{
    struct lc_dir_entry *t = s->root, *p = NULL;
    while (t) {
        if (t->lo < a) {
            p = t;
            t = t->right;
        } else {
            t = t->left;
        }
    }
    return p;
}


/* ------------------------------------------------------------ entries */

static void account(struct lc_directory *d, struct dir_shard *s, int node, uint64_t add,
                    uint64_t sub)
{
    int i = node == LC_DIR_SPREAD ? d->nnodes : node;
    ST(s->totals[i], s->totals[i] + add - sub);
}

static void free_push(struct dir_shard *s, struct lc_dir_entry *e)
{
    STR(e->hnext, s->free);
    s->free = e;
    s->nfree++;
}

/* One of the entries reserved before the change: never fails. */
static struct lc_dir_entry *entry_take(struct dir_shard *s)
{
    struct lc_dir_entry *e = s->free;
    s->free = e->hnext;
    s->nfree--;
    return e;
}

/* At least n spare entries in s; -ENOMEM (the spares it got stay) when the
 * allocator fails. */
static int reserve(struct dir_shard *s, size_t n)
{
    while (s->nfree < n) {
        struct lc_dir_entry *e = lc_mem_alloc(sizeof *e, 0);
        if (!e)
            return -ENOMEM;
        memset(e, 0, sizeof *e);
        free_push(s, e);
    }
    return 0;
}

/* Drops every entry of subtree t but keep (which stays out of the hash and
 * the totals, for reuse). */
static void drop_subtree(struct lc_directory *d, struct dir_shard *s, struct lc_dir_entry *t,
                         struct lc_dir_entry *keep)
{
    while (t) {
        drop_subtree(d, s, t->left, keep);
        struct lc_dir_entry *right = t->right;
        hash_remove(s, t);
        account(d, s, t->node, 0, t->hi - t->lo);
        ST(s->count, s->count - 1);
        if (t != keep)
            free_push(s, t);
        t = right;
    }
}

static void entry_set(struct lc_dir_entry *e, uintptr_t lo, uintptr_t hi, int node, uint32_t prio)
{
    ST(e->lo, lo);
    ST(e->hi, hi);
    ST(e->node, node);
    STR(e->left, NULL);
    STR(e->right, NULL);
    e->prio = prio;
}

/* Adds the new entry [a, b) to s, whose entries do not overlap it. */
static void insert_fresh(struct lc_directory *d, struct dir_shard *s, struct lc_dir_entry *e,
                         uintptr_t a, uintptr_t b, int node)
{
    struct lc_dir_entry *l, *r;
    entry_set(e, a, b, node, next_prio(s));
    hash_insert(s, e);
    ST(s->count, s->count + 1);
    account(d, s, node, b - a, 0);
    treap_split(s->root, a, &l, &r);
    STR(s->root, treap_merge(treap_merge(l, e), r));
}

/* ------------------------------------------------------------ changes */

/* Entries change(s, a, b, set_node) will need (the shard is locked). */
static size_t change_need(const struct dir_shard *s, uintptr_t a, uintptr_t b, bool set_node)
{
    if (set_node) {
        const struct lc_dir_entry *hit = hash_find(s, a);
        if (hit && hit->hi == b)
            return 0;
    }
    const struct lc_dir_entry *pl = pred_below(s, a);
    size_t need = pl && pl->hi > b;   /* the part of pl beyond b */
    if (set_node) {
        /* an entry starting inside [a, b) and ending in it can be reused */
        const struct lc_dir_entry *e = first_from(s, a);
        need += !(e && e->lo < b && e->hi <= b);
    }
    return need;
}

/*
 * Removes [a, b) from shard s and, when set_node is true, records it as
 * node (then [a, b) is inside one granule of s).  The entries it needs are
 * reserved.  The shard is locked and its sequence odd.
 */
static void change(struct lc_directory *d, struct dir_shard *s, uintptr_t a, uintptr_t b,
                   bool set_node, int node)
{
    struct lc_dir_entry *l, *m, *r;

    /* The tile case: same bounds as an entry, no structure changes. */
    struct lc_dir_entry *hit = hash_find(s, a);
    if (hit && hit->hi == b && set_node) {
        account(d, s, hit->node, 0, b - a);
        account(d, s, node, b - a, 0);
        ST(hit->node, node);
        return;
    }

    /* l: entries starting below a, m: starting inside, r: at or after b.
     * Only l's last entry may reach into [a, b) (and beyond b), and only
     * m's last entry may reach beyond b. */
    treap_split(s->root, a, &l, &m);
    treap_split(m, b, &m, &r);
    struct lc_dir_entry *pl = treap_rightmost(l);
    struct lc_dir_entry *qm = treap_rightmost(m);
    bool need_rem = pl && pl->hi > b;             /* pl covers all of [a, b) and more */
    bool q_crosses = qm && qm->hi > b;
    bool m_reusable = m && !(q_crosses && !m->left && !m->right);

    if (pl && pl->hi > a) {
        if (need_rem) {
            struct lc_dir_entry *rem = entry_take(s);
            entry_set(rem, b, pl->hi, pl->node, next_prio(s));
            hash_insert(s, rem);
            ST(s->count, s->count + 1);
            r = treap_merge(rem, r);
            account(d, s, pl->node, 0, b - a);
        } else {
            account(d, s, pl->node, 0, pl->hi - a);
        }
        ST(pl->hi, a);   /* key unchanged: stays where it is in l */
    }
    if (q_crosses) {
        /* Detach m's last entry (no right child: its left subtree takes its
         * place) and move its start to b, which puts it first in r. */
        struct lc_dir_entry **pp = &m;
        while ((*pp)->right)
            pp = &(*pp)->right;
        STR(*pp, qm->left);
        account(d, s, qm->node, 0, b - qm->lo);
        hash_remove(s, qm);
        ST(qm->lo, b);
        STR(qm->left, NULL);
        STR(qm->right, NULL);
        hash_insert(s, qm);
        r = treap_merge(qm, r);
    }
    struct lc_dir_entry *fresh = NULL;
    if (set_node)
        fresh = m_reusable ? m : entry_take(s);   /* m is non-empty after the detach */
    drop_subtree(d, s, m, fresh);
    if (set_node) {
        entry_set(fresh, a, b, node, next_prio(s));
        hash_insert(s, fresh);
        ST(s->count, s->count + 1);
        account(d, s, node, b - a, 0);
        l = treap_merge(l, fresh);
    }
    STR(s->root, treap_merge(l, r));
}

/* The gaps of [a, b) (inside one granule of s): calls fn on each, books it
 * on node when book is true; returns how many there are. */
static size_t gaps(struct lc_directory *d, struct dir_shard *s, uintptr_t a, uintptr_t b,
                   bool book, int node, void (*fn)(uintptr_t, size_t, void *), void *arg)
{
    size_t n = 0;
    uintptr_t x = a;
    const struct lc_dir_entry *pl = pred_below(s, a);
    if (pl && pl->hi > a)
        x = pl->hi < b ? pl->hi : b;
    while (x < b) {
        const struct lc_dir_entry *e = first_from(s, x);
        uintptr_t end = e && e->lo < b ? e->lo : b;
        if (end > x) {
            n++;
            if (book) {
                insert_fresh(d, s, entry_take(s), x, end, node);
                if (fn)
                    fn(x, end - x, arg);
            }
        }
        if (end == b)
            break;
        x = e->hi < b ? e->hi : b;
    }
    return n;
}

enum dir_op { OP_RECORD, OP_FORGET, OP_GAPS };

static void lock_mask(struct lc_directory *d, uint64_t mask)
{
    for (unsigned i = 0; i < DIR_NSHARDS; i++)
        if (mask >> i & 1)
            pthread_mutex_lock(&d->shards[i].lock);
}

static void unlock_mask(struct lc_directory *d, uint64_t mask)
{
    for (unsigned i = DIR_NSHARDS; i-- > 0;)
        if (mask >> i & 1)
            pthread_mutex_unlock(&d->shards[i].lock);
}

/*
 * Every change goes through here: locks the shards of [a, b) in order,
 * counts and reserves the entries needed, then (with each shard's sequence
 * odd) changes them; -ENOMEM before anything changed.
 */
static int dir_write(struct lc_directory *d, uintptr_t a, uintptr_t b, enum dir_op op,
                     int node, void (*fn)(uintptr_t, size_t, void *), void *arg)
{
    uint64_t mask = shard_mask(a, b);
    size_t need[DIR_NSHARDS] = { 0 };
    int rc = 0;

    lock_mask(d, mask);
    if (op == OP_FORGET) {
        for (unsigned i = 0; i < DIR_NSHARDS; i++)
            if (mask >> i & 1)
                need[i] = change_need(&d->shards[i], a, b, false);
    } else {
        for (uintptr_t x = a, e; x < b; x = e) {
            e = piece_end(x, b);
            struct dir_shard *s = &d->shards[shard_of(x)];
            need[s - d->shards] += op == OP_RECORD ? change_need(s, x, e, true)
                                                   : gaps(d, s, x, e, false, 0, NULL, NULL);
        }
    }
    for (unsigned i = 0; i < DIR_NSHARDS && rc == 0; i++)
        if (mask >> i & 1)
            rc = reserve(&d->shards[i], need[i]);
    if (rc == 0) {
        for (unsigned i = 0; i < DIR_NSHARDS; i++)
            if (mask >> i & 1)
                seq_begin(&d->shards[i].seq);
        if (op == OP_FORGET) {
            for (unsigned i = 0; i < DIR_NSHARDS; i++)
                if (mask >> i & 1)
                    change(d, &d->shards[i], a, b, false, 0);
        } else {
            for (uintptr_t x = a, e; x < b; x = e) {
                e = piece_end(x, b);
                struct dir_shard *s = &d->shards[shard_of(x)];
                if (op == OP_RECORD)
                    change(d, s, x, e, true, node);
                else
                    gaps(d, s, x, e, true, node, fn, arg);
            }
        }
        for (unsigned i = 0; i < DIR_NSHARDS; i++)
            if (mask >> i & 1) {
                struct dir_shard *s = &d->shards[i];
                hash_maybe_grow(s);
                seq_end(&s->seq);   /* release: the changes before the even sequence */
            }
    }
    unlock_mask(d, mask);
    return rc;
}

/* [addr, addr+size) must not wrap. */
static int range_ok(uintptr_t addr, size_t size)
{
    return size <= UINTPTR_MAX - addr;
}

static int node_ok(const struct lc_directory *d, int node)
{
    return node == LC_DIR_SPREAD || (node >= 0 && node < d->nnodes);
}

int lc_dir_record(struct lc_directory *d, uintptr_t addr, size_t size, int node)
{
    if (!node_ok(d, node) || !range_ok(addr, size))
        return -EINVAL;
    if (size > DIR_MAX_RECORD)
        return -E2BIG;
    if (size == 0)
        return 0;
    return dir_write(d, addr, addr + size, OP_RECORD, node, NULL, NULL);
}

int lc_dir_record_gaps(struct lc_directory *d, uintptr_t addr, size_t size, int node,
                       void (*fn)(uintptr_t addr, size_t size, void *arg), void *arg)
{
    if (!node_ok(d, node) || !range_ok(addr, size))
        return -EINVAL;
    if (size > DIR_MAX_RECORD)
        return -E2BIG;
    if (size == 0)
        return 0;
    return dir_write(d, addr, addr + size, OP_GAPS, node, fn, arg);
}

int lc_dir_forget(struct lc_directory *d, uintptr_t addr, size_t size)
{
    if (!range_ok(addr, size))
        return -EINVAL;
    if (size == 0)
        return 0;
    return dir_write(d, addr, addr + size, OP_FORGET, 0, NULL, NULL);
}

/* ------------------------------------------------------------ queries */

static int add_node(uint64_t *acc, int nnodes, int node, uint64_t n)
{
    if (node == LC_DIR_SPREAD)
        node = nnodes;
    else if (node < 0 || node >= nnodes)
        return -1;   /* a torn read */
    acc[node] += n;
    return 0;
}

/* The entry starting at a, found through the hash, or NULL; -1 in *torn
 * when the chain was longer than the shard has entries. */
static const struct lc_dir_entry *hash_lookup(const struct dir_shard *s, uintptr_t a,
                                              size_t cap, int *torn)
{
    const struct dir_table *tb = LDA(s->table);
    const struct lc_dir_entry *e = LDA(tb->b[hash_index(tb, a)]);
    for (size_t n = 0; e && LD(e->lo) != a; e = LDA(e->hnext))
        if (++n > cap) {
            *torn = 1;
            return NULL;
        }
    return e;
}

/*
 * Sums into acc (nnodes+1, spread last) the overlap of s's entries with
 * [a, b) and sets *known.  at is the entry starting at a, when the caller
 * found one.  Each next entry is looked for in the hash first (tiles are
 * usually contiguous), else by a descent.  cap bounds the descents' depth
 * and the hash chains; entry_cap the entries visited; -1 when a bound is
 * hit or the view is torn (only possible without the lock).
 */
static int walk(const struct dir_shard *s, int nnodes, uintptr_t a, uintptr_t b,
                const struct lc_dir_entry *at, uint64_t *acc, uint64_t *known,
                size_t depth_cap, size_t entry_cap)
{
    uint64_t k = 0;
    size_t depth = 0, visited = 0;
    const struct lc_dir_entry *root = LDA(s->root), *t, *e = at;
    uintptr_t x = a;
    int torn = 0;
    if (!e) {
        /* the entry starting last below a may reach into [a, b) */
        const struct lc_dir_entry *pl = NULL;
        for (t = root; t;) {
            if (++depth > depth_cap)
                return -1;
            if (LD(t->lo) < a) {
                pl = t;
                t = LDA(t->right);
            } else {
                t = LDA(t->left);
            }
        }
        if (pl) {
            uintptr_t hi = LD(pl->hi);
            if (hi > a) {
                uintptr_t end = hi < b ? hi : b;
                if (add_node(acc, nnodes, LD(pl->node), end - a) < 0)
                    return -1;
                k += end - a;
                x = end;
            }
        }
    }
    while (x < b) {
        uintptr_t elo = x;
        if (!e)
            e = hash_lookup(s, x, entry_cap, &torn);
        if (torn)
            return -1;
        if (!e) {   /* not at x: the first entry starting after it */
            depth = 0;
            for (t = root; t;) {
                if (++depth > depth_cap)
                    return -1;
                uintptr_t lo = LD(t->lo);
                if (lo >= x) {
                    e = t;
                    elo = lo;
                    t = LDA(t->left);
                } else {
                    t = LDA(t->right);
                }
            }
            if (!e || elo >= b)
                break;
        }
        uintptr_t hi = LD(e->hi);
        if (hi <= elo || elo < x || ++visited > entry_cap)
            return -1;
        uintptr_t end = hi < b ? hi : b;
        if (add_node(acc, nnodes, LD(e->node), end - elo) < 0)
            return -1;
        k += end - elo;
        x = end;
        e = NULL;
    }
    *known = k;
    return 0;
}

/* Adds acc (nnodes+1) to the caller's arrays. */
static void flush(int nnodes, const uint64_t *acc, uint64_t *bytes, uint64_t *spread)
{
    if (bytes)
        for (int i = 0; i < nnodes; i++)
            bytes[i] += acc[i];
    if (spread)
        *spread += acc[nnodes];
}

/* Shard s's share of a query of [a, b); returns the bytes it knows. */
static uint64_t shard_query(struct lc_directory *d, struct dir_shard *s, uintptr_t a, uintptr_t b,
                            uint64_t *bytes, uint64_t *spread)
{
    int nn = d->nnodes;
    uint64_t acc[nn + 1], known = 0;

    for (int tries = 0, spins = 0; tries < DIR_READ_TRIES;) {
        uint32_t seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
        if (seq & 1) {   /* a writer is in the shard: a short wait, then the mutex */
            if (++spins > DIR_SPINS)
                break;
            cpu_relax();
            continue;
        }
        tries++;
        size_t cap = LD(s->count) + 1;
        int torn = 0;
        const struct lc_dir_entry *hit = hash_lookup(s, a, cap, &torn);
        if (torn)
            continue;
        if (hit) {
            uintptr_t hi = LD(hit->hi);
            int node = LD(hit->node);
            if (seq_again(&s->seq) != seq)
                continue;
            if (hi >= b) {
                if (node == LC_DIR_SPREAD) {
                    if (spread)
                        *spread += b - a;
                } else if (bytes) {
                    bytes[node] += b - a;
                }
                return b - a;
            }
        }
        memset(acc, 0, sizeof acc);
        if (walk(s, nn, a, b, hit, acc, &known, DIR_DEPTH_CAP, cap) < 0)
            continue;
        if (seq_again(&s->seq) != seq)
            continue;
        flush(nn, acc, bytes, spread);
        return known;
    }
    /* A writer keeps the shard busy (or the tree is deeper than the cap):
     * wait for it on the mutex and walk the quiet shard. */
    pthread_mutex_lock(&s->lock);
    memset(acc, 0, sizeof acc);
    walk(s, nn, a, b, NULL, acc, &known, SIZE_MAX, SIZE_MAX);
    pthread_mutex_unlock(&s->lock);
    flush(nn, acc, bytes, spread);
    return known;
}

size_t lc_dir_query(struct lc_directory *d, uintptr_t addr, size_t size,
                    uint64_t *bytes, uint64_t *spread)
{
    if (size == 0)
        return 0;
    uintptr_t a = addr, b = range_ok(addr, size) ? addr + size : UINTPTR_MAX;
    if (a == b)
        return size;
    uint64_t known = 0;
    if (a >> DIR_GRAIN_SHIFT == (b - 1) >> DIR_GRAIN_SHIFT) {
        known = shard_query(d, &d->shards[shard_of(a)], a, b, bytes, spread);
    } else {
        uint64_t mask = shard_mask(a, b);
        for (unsigned i = 0; i < DIR_NSHARDS; i++)
            if (mask >> i & 1)
                known += shard_query(d, &d->shards[i], a, b, bytes, spread);
    }
    return size - (size_t)known;
}

void lc_dir_totals(struct lc_directory *d, uint64_t *bytes, uint64_t *spread)
{
    int nn = d->nnodes;
    uint64_t acc[nn + 1], sum[nn + 1];
    memset(sum, 0, sizeof sum);
    for (unsigned i = 0; i < DIR_NSHARDS; i++) {
        struct dir_shard *s = &d->shards[i];
        int ok = 0;
        for (int tries = 0; !ok && tries < DIR_READ_TRIES; tries++) {
            uint32_t seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
            if (seq & 1)
                continue;
            for (int k = 0; k <= nn; k++)
                acc[k] = LD(s->totals[k]);
            ok = seq_again(&s->seq) == seq;
        }
        if (!ok) {
            pthread_mutex_lock(&s->lock);
            memcpy(acc, s->totals, sizeof acc);
            pthread_mutex_unlock(&s->lock);
        }
        for (int k = 0; k <= nn; k++)
            sum[k] += acc[k];
    }
    if (bytes)
        memcpy(bytes, sum, (size_t)nn * sizeof *bytes);
    if (spread)
        *spread = sum[nn];
}



/* ------------------------------------------------------------ life */

struct lc_directory *lc_dir_create(int nnodes)
{
    if (nnodes < 0)
        return NULL;
    /* One block: the directory, every shard's totals and first bucket
     * array (one allocation, so that init under memory pressure fails or
     * succeeds early). */
    size_t stride = ((size_t)nnodes + 1 + 7) / 8 * 8;   /* whole cache lines */
    size_t tsize = sizeof(struct dir_table) + ((size_t)1 << DIR_INITIAL_LOG2) * sizeof(void *);
    tsize = (tsize + 63) / 64 * 64;
    size_t sz = sizeof(struct lc_directory) + DIR_NSHARDS * (stride * sizeof(uint64_t) + tsize);
    struct lc_directory *d = lc_mem_alloc(sz, 64);
    if (!d)
        return NULL;
    memset(d, 0, sz);
    d->nnodes = nnodes;
    d->bytes = sz;
    char *p = (char *)(d + 1);
    for (unsigned i = 0; i < DIR_NSHARDS; i++) {
        struct dir_shard *s = &d->shards[i];
        s->totals = (uint64_t *)p;
        p += stride * sizeof(uint64_t);
        s->table = (struct dir_table *)p;
        p += tsize;
        s->table->shift = 64 - DIR_INITIAL_LOG2;
        s->table->embedded = 1;
        s->rng = ((uint64_t)(uintptr_t)s ^ UINT64_C(0x853C49E6748FEA9B)) | 1;
        pthread_mutex_init(&s->lock, NULL);   /* default attributes: cannot fail */
    }
    return d;
}

void lc_dir_destroy(struct lc_directory *d)
{
    if (!d)
        return;
    for (unsigned i = 0; i < DIR_NSHARDS; i++) {
        struct dir_shard *s = &d->shards[i];
        for (size_t k = 0, n = table_size(s->table); k < n; k++) {
            struct lc_dir_entry *e = s->table->b[k], *next;
            for (; e; e = next) {
                next = e->hnext;
                lc_mem_free(e, sizeof *e);
            }
        }
        for (struct lc_dir_entry *e = s->free, *next; e; e = next) {
            next = e->hnext;
            lc_mem_free(e, sizeof *e);
        }
        for (struct dir_table *t = s->table, *older; t && !t->embedded; t = older) {
            older = t->older;
            lc_mem_free(t, sizeof *t + table_size(t) * sizeof t->b[0]);
        }
        pthread_mutex_destroy(&s->lock);
    }
    lc_mem_free(d, d->bytes);
}
