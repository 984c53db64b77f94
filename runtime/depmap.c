/*
 * depmap.c - a parent's dependency map (see depmap.h for the model).
 * Ordering rules applied to each segment, for a new access by task t:
 *   writer (OUT/INOUT): waits for the current group; becomes the group.
 *   reader (IN) / concurrent (CONCURRENT): if the current group is of the
 *     same kind, t joins it and waits for the group before it; otherwise t
 *     waits for the current group and starts a new group of its kind.
 * Completed tasks impose nothing (lc_edge_link skips them), and groups drop
 * them when they fill up, so memory follows the tasks still in flight.
 * A taskwait retires the whole map at once (lc_depmap_retire): it starts a
 * new generation, and a segment of an older one drops its groups when it is
 * next used or swept.  Segments outlive the taskwait, so a program that
 * uses the same objects window after window finds them by one hash lookup
 * instead of building hash and treap entries again after every taskwait.
 * The ordered index is a treap: C. R. Aragon and R. Seidel, "Randomized
 * search trees", FOCS 1989.
 */
#include "depmap.h"
#include "depmap_impl.h"

#include <errno.h>
#include <string.h>

#include "edge.h"
#include "mem.h"
#include "rng.h"
#include "runtime.h"
#include "task.h"

#define LC_MAP_INIT_BITS 6
#define LC_MAP_SWEEP_MIN 4096

/* ---- task references held by the map ---------------------------------- */

static inline void map_ref(struct lc_task *t)
{
    t->maprefs++;
}

static inline void map_unref(struct lc_worker *w, struct lc_task *t)
{
    if (--t->maprefs == 0)
        lc_task_unmapped(w, t);
}

/* ---- groups ------------------------------------------------------------ */

static inline void group_init(struct lc_group *g)
{
    g->n = 0;
    g->cap = LC_GROUP_INLINE;
    g->v = g->inl;
}

static inline void group_free_block(struct lc_group *g)
{
    if (__builtin_expect(g->v != g->inl, 0))
        lc_mem_free(g->v, g->cap * sizeof *g->v);
}

static inline void group_release(struct lc_worker *w, struct lc_group *g)
{
    for (uint32_t i = 0; i < g->n; i++)
        map_unref(w, g->v[i]);
    group_free_block(g);
    group_init(g);
}

/* Moves src into dst (dst must be empty); src becomes empty. */
static inline void group_move(struct lc_group *dst, struct lc_group *src)
{
    *dst = *src;
    if (src->v == src->inl)
        dst->v = dst->inl;
    group_init(src);
}

/* Drops completed members: they order nothing any more. */
static void group_compact(struct lc_worker *w, struct lc_group *g)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        if (lc_task_is_complete(g->v[i]))
            map_unref(w, g->v[i]);
        else
            g->v[k++] = g->v[i];
    }
    g->n = k;
}

/* Makes room for one more member in a full group; 0 or -ENOMEM (group
 * unchanged).  Out of line: a group fills rarely. */
static __attribute__((noinline)) int group_make_room(struct lc_worker *w, struct lc_group *g)
{
    group_compact(w, g);
    if (g->n <= g->cap / 2)
        return 0;   /* grow otherwise, or a nearly full group compacts at every join */
    uint32_t ncap = g->cap * 2;
    struct lc_task **nv = lc_mem_alloc(ncap * sizeof *nv, 0);
    if (!nv)
        return -ENOMEM;
    memcpy(nv, g->v, g->n * sizeof *nv);
    group_free_block(g);
    g->v = nv;
    g->cap = ncap;
    return 0;
}

/* dst (empty) gets its own references to src's members; 0 or -ENOMEM. */
static int group_copy(struct lc_group *dst, const struct lc_group *src)
{
    group_init(dst);
    if (src->n > dst->cap) {
        dst->v = lc_mem_alloc(src->n * sizeof *dst->v, 0);
        if (!dst->v) {
            group_init(dst);
            return -ENOMEM;
        }
        dst->cap = src->n;
    }
    for (uint32_t i = 0; i < src->n; i++) {
        dst->v[i] = src->v[i];
        map_ref(src->v[i]);
    }
    dst->n = src->n;
    return 0;
}

static int group_all_complete(const struct lc_group *g)
{
    for (uint32_t i = 0; i < g->n; i++)
        if (!lc_task_is_complete(g->v[i]))
            return 0;
    return 1;
}

/*
 * Links c->t behind every member of g, which stays the group it is.  A
 * member found complete is dropped as it is seen: it orders nothing, and
 * the next task linked behind the group (the next reader of a segment,
 * after the writer before them) need not read that finished task's line
 * again, a line another core wrote when it completed the task.
 */
static inline int group_link(struct lc_link *c, struct lc_group *g)
{
    struct lc_task **v = g->v;
    uint32_t n = g->n, k = 0, i;
    int r = 0;
    for (i = 0; i < n; i++) {
        struct lc_task *p = v[i];
        if ((r = lc_edge_link(c, p)) < 0)
            break;
        if (r == 0 && lc_task_is_complete(p))
            map_unref(c->w, p);
        else
            v[k++] = p;
    }
    for (; i < n; i++)   /* after a failure: keep the members not looked at */
        v[k++] = v[i];
    g->n = k;
    return r < 0 ? r : 0;
}

/*
 * Links c->t behind every member of g and drops them all: a writer waits
 * for the group before it, which nothing needs afterwards.  A member that
 * the group's newest member is known to run after needs no edge of its
 * own: t runs after the newest, so after it too (kept[] in task.h).
 * After a failure g keeps the members not linked yet, the newest among
 * them, so that it still orders whatever comes next behind them (the
 * members dropped are linked to t or run before the newest, and spawn.c
 * runs t to completion before anything else is spawned).
 */
static inline __attribute__((always_inline)) int group_link_drop(struct lc_link *c, struct lc_group *g)
{
    struct lc_task **v = g->v;
    uint32_t n = g->n, i;
    struct lc_task *newest = n > 1 && v[n - 1] != c->t ? v[n - 1] : NULL;
    for (i = 0; i < n; i++) {
        struct lc_task *p = v[i];
        int r = 1;
        if (!newest || i == n - 1 || !lc_task_runs_after(newest, p)) {
            if (__builtin_expect((r = lc_edge_link(c, p)) < 0, 0)) {
                memmove(v, v + i, (n - i) * sizeof *v);
                g->n = n - i;
                return -ENOMEM;
            }
        }
        /* what the next writer of a range this task reads will look for:
         * the members of the group it is placed behind, not those found
         * complete or already linked */
        if (r > 0)
            lc_link_keep(c, p);
        map_unref(c->w, p);
    }
    group_free_block(g);
    group_init(g);
    return 0;
}

/* ---- ordered index (treap keyed by lo) --------------------------------- */

static struct lc_seg *rot_right(struct lc_seg *r)
{
    struct lc_seg *l = r->left;
    r->left = l->right;
    l->right = r;
    return l;
}

static struct lc_seg *rot_left(struct lc_seg *r)
{
    struct lc_seg *x = r->right;
    r->right = x->left;
    x->left = r;
    return x;
}

static struct lc_seg *treap_insert(struct lc_seg *root, struct lc_seg *n)
{
    if (!root)
        return n;
    if (n->lo < root->lo) {
        root->left = treap_insert(root->left, n);
        if (root->left->prio > root->prio)
            root = rot_right(root);
    } else {
        root->right = treap_insert(root->right, n);
        if (root->right->prio > root->prio)
            root = rot_left(root);
    }
    return root;
}

static struct lc_seg *treap_merge(struct lc_seg *a, struct lc_seg *b)
{
    if (!a)
        return b;
    if (!b)
        return a;
    if (a->prio > b->prio) {
        a->right = treap_merge(a->right, b);
        return a;
    }
    b->left = treap_merge(a, b->left);
    return b;
}

static struct lc_seg *treap_erase(struct lc_seg *root, uintptr_t lo)
{
    if (!root)
        return NULL;
    if (lo < root->lo)
        root->left = treap_erase(root->left, lo);
    else if (lo > root->lo)
        root->right = treap_erase(root->right, lo);
    else
        return treap_merge(root->left, root->right);
    return root;
}

/* The segment with the largest lo <= x. */
static struct lc_seg *treap_floor(struct lc_seg *n, uintptr_t x)
{
    struct lc_seg *best = NULL;
    while (n) {
        if (n->lo <= x) {
            best = n;
            n = n->right;
        } else {
            n = n->left;
        }
    }
    return best;
}

/* The segment with the smallest lo >= x. */
static struct lc_seg *treap_ceil(struct lc_seg *n, uintptr_t x)
{
    struct lc_seg *best = NULL;
    while (n) {
        if (n->lo >= x) {
            best = n;
            n = n->left;
        } else {
            n = n->right;
        }
    }
    return best;
}

/* ---- hash by lo ---------------------------------------------------------- */

static inline size_t hash_of(const struct lc_depmap *m, uintptr_t lo)
{
    return (size_t)(((uint64_t)lo * 0x9E3779B97F4A7C15ull) >> m->shift);
}

static inline struct lc_seg *hash_find(const struct lc_depmap *m, uintptr_t lo)
{
    struct lc_seg *s = m->buckets[hash_of(m, lo)];
    while (s && s->lo != lo)
        s = s->hnext;
    return s;
}

static void hash_grow(struct lc_depmap *m)
{
    size_t nb = m->nbuckets * 2;
    struct lc_seg **b = lc_mem_calloc(nb, sizeof *b);
    if (!b)
        return;   /* longer chains, still correct */
    struct lc_seg **old = m->buckets;
    size_t onb = m->nbuckets;
    m->buckets = b;
    m->nbuckets = nb;
    m->shift--;
    for (size_t i = 0; i < onb; i++) {
        struct lc_seg *s = old[i], *n;
        for (; s; s = n) {
            n = s->hnext;
            size_t h = hash_of(m, s->lo);
            s->hnext = b[h];
            b[h] = s;
        }
    }
    lc_mem_free(old, onb * sizeof *old);
}

static void hash_remove(struct lc_depmap *m, struct lc_seg *s)
{
    struct lc_seg **p = &m->buckets[hash_of(m, s->lo)];
    while (*p != s)
        p = &(*p)->hnext;
    *p = s->hnext;
}

/* ---- segments ---------------------------------------------------------- */

static uint32_t next_prio(struct lc_depmap *m)
{
    return (uint32_t)(lc_rng_next(&m->rng) >> 32);
}

static struct lc_seg *seg_alloc(struct lc_depmap *m)
{
    struct lc_seg *s = m->free_segs;
    if (s)
        m->free_segs = s->hnext;
    else if (!(s = lc_mem_alloc(sizeof *s, 0)))
        return NULL;
    return s;
}

/* Links a prepared segment into hash and treap. */
static void seg_insert(struct lc_depmap *m, struct lc_seg *s)
{
    size_t h = hash_of(m, s->lo);
    s->hnext = m->buckets[h];
    m->buckets[h] = s;
    s->left = s->right = NULL;
    s->prio = next_prio(m);
    m->root = treap_insert(m->root, s);
    if (++m->nsegs > 2 * m->nbuckets)
        hash_grow(m);
}

/* A segment of an older generation: every task in its groups completed
 * before the map was retired, so the groups order nothing; drop them. */
static __attribute__((noinline)) void seg_reset(struct lc_worker *w, const struct lc_depmap *m,
                                                struct lc_seg *s)
{
    group_release(w, &s->cur);
    group_release(w, &s->prev);
    s->kind = G_NONE;
    s->gen = m->gen;
}

static inline void seg_refresh(struct lc_worker *w, const struct lc_depmap *m, struct lc_seg *s)
{
    if (__builtin_expect(s->gen != m->gen, 0))
        seg_reset(w, m, s);
}

static struct lc_seg *seg_new(struct lc_depmap *m, uintptr_t lo, uintptr_t hi)
{
    struct lc_seg *s = seg_alloc(m);
    if (!s)
        return NULL;
    s->lo = lo;
    s->hi = hi;
    s->gen = m->gen;
    s->kind = G_NONE;
    group_init(&s->cur);
    group_init(&s->prev);
    seg_insert(m, s);
    return s;
}

static void seg_delete(struct lc_worker *w, struct lc_depmap *m, struct lc_seg *s)
{
    hash_remove(m, s);
    m->root = treap_erase(m->root, s->lo);
    group_release(w, &s->cur);
    group_release(w, &s->prev);
    m->nsegs--;
    s->hnext = m->free_segs;
    m->free_segs = s;
}

/* Cuts s at x (s->lo < x < s->hi): s keeps [lo, x), the result is [x, hi). */
static struct lc_seg *seg_split(struct lc_depmap *m, struct lc_seg *s, uintptr_t x)
{
    struct lc_seg *r = seg_alloc(m);
    if (!r)
        return NULL;
    if (group_copy(&r->cur, &s->cur) < 0)
        goto fail;
    if (group_copy(&r->prev, &s->prev) < 0) {
        for (uint32_t i = 0; i < r->cur.n; i++)
            r->cur.v[i]->maprefs--;   /* cannot reach 0: s still holds them */
        if (r->cur.v != r->cur.inl)
            lc_mem_free(r->cur.v, r->cur.cap * sizeof *r->cur.v);
        goto fail;
    }
    r->lo = x;
    r->hi = s->hi;
    r->gen = s->gen;
    r->kind = s->kind;
    s->hi = x;
    seg_insert(m, r);
    return r;
fail:
    r->hnext = m->free_segs;
    m->free_segs = r;
    return NULL;
}

/* The group kind of an access mode (spawn.c has validated the mode). */
static inline int access_kind(locus_access_t mode)
{
    return mode == LOCUS_ACCESS_IN ? G_READ : mode == LOCUS_ACCESS_CONCURRENT ? G_CONC : G_WRITE;
}

/* Applies c->t's access of group kind kind to segment s (rules at the top). */
static inline __attribute__((always_inline)) int seg_access(struct lc_link *c, struct lc_seg *s, int kind)
{
    struct lc_task *t = c->t;
    int r;

    if (kind == G_WRITE) {
        if (s->cur.n == 1 && s->prev.n == 0) {
            /* the common case of a chain of writers: swap the single member */
            struct lc_task *p = s->cur.v[0];
            if ((r = lc_edge_link(c, p)) < 0)
                return r;
            if (r > 0)
                lc_link_keep(c, p);   /* as group_link_drop does */
            map_ref(t);
            s->cur.v[0] = t;
            s->kind = G_WRITE;
            map_unref(c->w, p);
            return 0;
        }
        map_ref(t);   /* before the drops: t may already be a member */
        if ((r = group_link_drop(c, &s->cur)) < 0) {
            t->maprefs--;   /* not a member after all; spawn.c handles 0 */
            return r;
        }
        group_release(c->w, &s->prev);
        s->cur.v[0] = t;
        s->cur.n = 1;
        s->kind = G_WRITE;
        return 0;
    }
    if (s->kind == kind) {   /* t joins the readers (or concurrent writers) */
        if (__builtin_expect(s->cur.n == s->cur.cap, 0)
            && (r = group_make_room(c->w, &s->cur)) < 0)
            return r;
        if (s->prev.n && (r = group_link(c, &s->prev)) < 0)
            return r;
        map_ref(t);
        s->cur.v[s->cur.n++] = t;
        return 0;
    }
    /* t starts a group of its kind after a group of another kind */
    if ((r = group_link(c, &s->cur)) < 0)
        return r;
    map_ref(t);   /* before the release: t may already be a member */
    group_release(c->w, &s->prev);
    group_move(&s->prev, &s->cur);
    s->cur.v[0] = t;
    s->cur.n = 1;
    s->kind = (uint8_t)kind;
    return 0;
}

/* The general path: [lo, hi) is not exactly one segment. */
static __attribute__((noinline)) int access_range(struct lc_link *c, struct lc_depmap *m,
                                                  uintptr_t lo, uintptr_t hi, int kind)
{
    struct lc_worker *w = c->w;
    struct lc_seg *s = treap_floor(m->root, lo);
    uintptr_t pos = lo;
    int r;

    if (s && s->lo < lo && s->hi > lo) {
        seg_refresh(w, m, s);   /* the half split off must not copy stale groups */
        if (!seg_split(m, s, lo))
            return -ENOMEM;
    }
    while (pos < hi) {
        s = hash_find(m, pos);
        if (s) {
            seg_refresh(w, m, s);
            if (s->hi > hi && !seg_split(m, s, hi))
                return -ENOMEM;
        } else {
            struct lc_seg *n = treap_ceil(m->root, pos);
            uintptr_t end = (n && n->lo < hi) ? n->lo : hi;
            if (!(s = seg_new(m, pos, end)))
                return -ENOMEM;
        }
        if ((r = seg_access(c, s, kind)) < 0)
            return r;
        pos = s->hi;
    }
    return 0;
}

/* Drops segments whose every task is complete. */
static void sweep(struct lc_worker *w, struct lc_depmap *m)
{
    for (size_t i = 0; i < m->nbuckets; i++) {
        struct lc_seg *s = m->buckets[i], *n;
        for (; s; s = n) {
            n = s->hnext;
            if (s->gen != m->gen   /* retired: complete, no need to look */
                || (group_all_complete(&s->cur) && group_all_complete(&s->prev)))
                seg_delete(w, m, s);
        }
    }
    m->sweep_at = m->nsegs * 2 > LC_MAP_SWEEP_MIN ? m->nsegs * 2 : LC_MAP_SWEEP_MIN;
}

/* ---- interface ----------------------------------------------------------- */

struct lc_depmap *lc_depmap_create(void)
{
    struct lc_depmap *m = lc_mem_calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->nbuckets = (size_t)1 << LC_MAP_INIT_BITS;
    m->shift = 64 - LC_MAP_INIT_BITS;
    m->buckets = lc_mem_calloc(m->nbuckets, sizeof *m->buckets);
    if (!m->buckets) {
        lc_mem_free(m, sizeof *m);
        return NULL;
    }
    m->sweep_at = LC_MAP_SWEEP_MIN;
    m->rng = 0x2545F4914F6CDD1Dull ^ (uintptr_t)m;
    return m;
}

int lc_depmap_register(struct lc_worker *w, struct lc_depmap *m, struct lc_task *t,
                       const locus_dep_t *deps, size_t ndeps, uint32_t *nlinked)
{
    struct lc_link c = { .w = w, .t = t, .last_pred = NULL, .nlinked = 0, .nkept = 0 };
    int r = 0;

    for (size_t i = 0; i < ndeps; i++) {
        uintptr_t lo = (uintptr_t)deps[i].addr, hi = lo + deps[i].size;
        int kind = access_kind(deps[i].access);
        struct lc_seg *s = hash_find(m, lo);
        if (__builtin_expect(s && s->hi == hi, 1)) {
            seg_refresh(w, m, s);
            r = seg_access(&c, s, kind);
        } else {
            /* a copy, so that c's address never escapes and c stays in
             * registers on the exact-match path */
            struct lc_link cc = c;
            r = access_range(&cc, m, lo, hi, kind);
            c = cc;
        }
        if (r < 0)
            break;
    }
    *nlinked = c.nlinked;
    t->nkept = (uint16_t)c.nkept;
    if (r == 0 && m->nsegs > m->sweep_at)
        sweep(w, m);
    return r;
}

int lc_depmap_ready(const struct lc_depmap *m, const locus_dep_t *deps, size_t ndeps)
{
    for (size_t i = 0; i < ndeps; i++) {
        uintptr_t lo = (uintptr_t)deps[i].addr, hi = lo + deps[i].size;
        const struct lc_seg *s = hash_find(m, lo);
        if (!s || s->hi != hi)
            return 0;   /* not exactly one segment: registration decides */
        if (s->gen != m->gen)
            continue;   /* retired by a taskwait: every member is complete */
        int kind = access_kind(deps[i].access);
        /* what seg_access would link behind: a joining reader (or
         * concurrent writer) the group before, anything else the current
         * group, and the one before that costs one more look */
        if (kind != G_WRITE && s->kind == kind) {
            if (!group_all_complete(&s->prev))
                return 0;
        } else if (!group_all_complete(&s->cur) || !group_all_complete(&s->prev)) {
            return 0;
        }
    }
    return 1;
}

void lc_depmap_retire(struct lc_depmap *m)
{
    m->gen++;   /* wraps after 2^32 taskwaits: a segment untouched that long
                 * looks current again, and its groups, all complete, are
                 * merely kept a while longer; nothing is misordered */
}

void lc_depmap_clear(struct lc_worker *w, struct lc_depmap *m)
{
    if (!m->nsegs)
        return;
    for (size_t i = 0; i < m->nbuckets; i++) {
        struct lc_seg *s = m->buckets[i], *n;
        for (; s; s = n) {
            n = s->hnext;
            group_release(w, &s->cur);
            group_release(w, &s->prev);
            s->hnext = m->free_segs;
            m->free_segs = s;
        }
        m->buckets[i] = NULL;
    }
    m->root = NULL;
    m->nsegs = 0;
}

void lc_depmap_destroy(struct lc_worker *w, struct lc_depmap *m)
{
    lc_depmap_clear(w, m);
    struct lc_seg *s = m->free_segs, *n;
    for (; s; s = n) {
        n = s->hnext;
        lc_mem_free(s, sizeof *s);
    }
    lc_mem_free(m->buckets, m->nbuckets * sizeof *m->buckets);
    lc_mem_free(m, sizeof *m);
}
