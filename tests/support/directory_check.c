/*
 * directory_check.c - the tests' looks inside the data-location directory
 * (support.h): its entries, in order, and a check of every invariant its
 * shards keep, through its layout (alloc/directory_impl.h).
 */
#include <errno.h>
#include <pthread.h>

#include "directory_impl.h"
#include "support.h"

size_t lc_dir_entries(struct lc_directory *d)
{
    size_t n = 0;
    for (unsigned i = 0; i < DIR_NSHARDS; i++)
        n += LD(d->shards[i].count);
    return n;
}

/* Every shard locked: calls fn on the entries in address order, taking
 * the lowest next entry of all shards each time (for reports and tests). */
int lc_dir_foreach(struct lc_directory *d,
                   int (*fn)(uintptr_t addr, size_t size, int node, void *arg), void *arg)
{
    int rc = 0;
    for (unsigned i = 0; i < DIR_NSHARDS; i++)
        pthread_mutex_lock(&d->shards[i].lock);
    uintptr_t x = 0;
    for (;;) {
        const struct lc_dir_entry *best = NULL;
        for (unsigned i = 0; i < DIR_NSHARDS; i++) {
            const struct lc_dir_entry *e = first_from(&d->shards[i], x);
            if (e && (!best || e->lo < best->lo))
                best = e;
        }
        if (!best || (rc = fn(best->lo, best->hi - best->lo, best->node, arg)) != 0)
            break;
        x = best->hi;
        if (x == UINTPTR_MAX)
            break;
    }
    for (unsigned i = DIR_NSHARDS; i-- > 0;)
        pthread_mutex_unlock(&d->shards[i].lock);
    return rc;
}

/* Sums per node in [base, base+CHECK_CHUNK) on a stack array: the check
 * allocates nothing, so it can run while a test's fault countdown is set. */
#define CHECK_CHUNK 64

struct check_state {
    const struct lc_directory *d;
    const struct dir_shard *s;
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
    if (t->lo >> DIR_GRAIN_SHIFT != (t->hi - 1) >> DIR_GRAIN_SHIFT
        || &s->d->shards[shard_of(t->lo)] != s->s)
        return -EFAULT;   /* crosses a granule, or in the wrong shard */
    if (s->prev && s->prev->hi > t->lo)
        return -EFAULT;   /* out of order or overlapping */
    if (t->node == LC_DIR_SPREAD)
        s->spread += t->hi - t->lo;
    else if (t->node < 0 || t->node >= s->d->nnodes)
        return -EFAULT;
    else if (t->node >= s->base && t->node - s->base < CHECK_CHUNK)
        s->totals[t->node - s->base] += t->hi - t->lo;
    if (hash_find(s->s, t->lo) != t)
        return -EFAULT;
    s->prev = t;
    s->seen++;
    return check_walk(t->right, s);
}

static int check_shard(const struct lc_directory *d, const struct dir_shard *sh)
{
    int rc = 0, nn = d->nnodes;
    if (LD(sh->seq) & 1)
        return -EFAULT;
    for (int base = 0; rc == 0 && (base == 0 || base < nn); base += CHECK_CHUNK) {
        struct check_state s = { .d = d, .s = sh, .base = base };
        rc = check_walk(sh->root, &s);
        if (rc == 0 && (s.seen != sh->count || s.spread != sh->totals[nn]))
            rc = -EFAULT;
        for (int i = base; rc == 0 && i < nn && i - base < CHECK_CHUNK; i++)
            if (s.totals[i - base] != sh->totals[i])
                rc = -EFAULT;
    }
    size_t hashed = 0, nfree = 0;
    for (size_t i = 0, n = table_size(sh->table); rc == 0 && i < n; i++)
        for (const struct lc_dir_entry *e = sh->table->b[i]; e; e = e->hnext)
            if (++hashed > sh->count)
                return -EFAULT;
    if (rc == 0 && hashed != sh->count)
        rc = -EFAULT;
    for (const struct lc_dir_entry *e = sh->free; rc == 0 && e; e = e->hnext)
        if (++nfree > sh->nfree)
            return -EFAULT;
    if (rc == 0 && nfree != sh->nfree)
        rc = -EFAULT;
    return rc;
}

int lc_dir_check(struct lc_directory *d)
{
    int rc = 0;
    for (unsigned i = 0; rc == 0 && i < DIR_NSHARDS; i++) {
        pthread_mutex_lock(&d->shards[i].lock);
        rc = check_shard(d, &d->shards[i]);
        pthread_mutex_unlock(&d->shards[i].lock);
    }
    return rc;
}
