/*
 * deque.h - Chase-Lev work-stealing deque of pointers.
 * Algorithm: D. Chase and Y. Lev, "Dynamic circular work-stealing deque",
 * SPAA'05, with the C11 memory orders of N. M. Le, A. Pop, A. Cohen and
 * F. Zappa Nardelli, "Correct and efficient work-stealing for weak memory
 * models", PPoPP'13.  Signed 64-bit indices.  The owner pushes and pops at
 * the bottom; any thread steals at the top.  Grown buffers are kept on a
 * retired list until lc_deque_destroy(), so a thief never reads freed memory.
 *
 * The owner's push and pop are inline here (they run once per task); growth,
 * steal, init and destroy are out of line in deque.c.  An item is four
 * words (struct lc_qitem) whose first word is not NULL: an item with a NULL
 * first word is the "nothing" answer of pop and steal.  Four words let a
 * task without dependencies travel as (function, argument, parent) alone,
 * with no descriptor whose cache lines would follow it to the thief.
 *
 * ThreadSanitizer does not model standalone atomic_thread_fence, so under
 * TSan (LC_DEQUE_TSAN) each fence is replaced by stronger orders on the index
 * accesses around it: the release fence in push becomes a release store of
 * bottom, and each seq_cst fence becomes seq_cst on the index store/loads it
 * separates.  That is the all-seq_cst Chase-Lev, correct but slower on weak
 * hardware; the normal build keeps the paper's fences.
 */
#ifndef LC_DEQUE_H
#define LC_DEQUE_H

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define LC_CACHELINE 64

#if defined(__SANITIZE_THREAD__)
#define LC_DEQUE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LC_DEQUE_TSAN 1
#endif
#endif
#ifndef LC_DEQUE_TSAN
#define LC_DEQUE_TSAN 0
#endif

struct lc_qitem {
    void *p;            /* never NULL in a queued item */
    void *a, *b;
    uintptr_t c;
};

/* One item's words.  Each is atomic because a thief reads a slot before
 * its CAS on top tells it whether the slot was still its to take; a slot
 * read torn by a wrap-around is thrown away with the failed CAS. */
struct lc_qslot {
    _Atomic(void *) p, a, b;
    _Atomic uintptr_t c;
};

struct lc_deque_buf {
    int64_t mask;                      /* capacity - 1, capacity a power of two */
    struct lc_deque_buf *retired;      /* older buffer kept alive for thieves */
    struct lc_qslot slot[];
};

static inline void lc_qslot_store(struct lc_qslot *s, const struct lc_qitem *it)
{
    /* relaxed: published by the release that follows (push, grow) */
    atomic_store_explicit(&s->p, it->p, memory_order_relaxed);
    atomic_store_explicit(&s->a, it->a, memory_order_relaxed);
    atomic_store_explicit(&s->b, it->b, memory_order_relaxed);
    atomic_store_explicit(&s->c, it->c, memory_order_relaxed);
}

static inline struct lc_qitem lc_qslot_load(struct lc_qslot *s)
{
    /* relaxed: ordered by the acquires before the call */
    struct lc_qitem it = {
        atomic_load_explicit(&s->p, memory_order_relaxed),
        atomic_load_explicit(&s->a, memory_order_relaxed),
        atomic_load_explicit(&s->b, memory_order_relaxed),
        atomic_load_explicit(&s->c, memory_order_relaxed),
    };
    return it;
}

/* top and bottom on their own lines: thieves hammer top with CAS while the
 * owner writes bottom on every push and pop.  buf shares bottom's line; it
 * changes only on growth.  What only the owner reads and writes has a
 * third line: every write there to bottom's line, which polling thieves
 * keep reading, would cost the owner that line again.  The _Alignas also
 * pads the struct to 192 bytes. */
struct lc_deque {
    _Alignas(LC_CACHELINE) _Atomic int64_t top;     /* thieves' end */
    _Alignas(LC_CACHELINE) _Atomic int64_t bottom;  /* owner's end */
    _Atomic(struct lc_deque_buf *) buf;
    _Alignas(LC_CACHELINE) int64_t top_seen;   /* owner only: a top it read earlier
                                                  (top only grows) */
    unsigned stale_ok;   /* owner only: size estimates left before top is read again */
};

/* 0, -ENOMEM, or -EINVAL when log2cap > LC_DEQUE_MAX_LOG2CAP; capacity is
 * 2^log2cap slots to start with (log2cap 0 is allowed).  Not thread-safe.
 * After a failure lc_deque_destroy() may still be called (it does nothing). */
#define LC_DEQUE_MAX_LOG2CAP 40
int lc_deque_init(struct lc_deque *d, unsigned log2cap);
/* Frees the buffer and every retired one; items still inside are the
 * caller's.  No other thread may use d any more. */
void lc_deque_destroy(struct lc_deque *d);
/* An array of n deques (one per worker), cache-line aligned, each of
 * 2^log2cap slots to start with: the array, or NULL with nothing left
 * allocated.  destroy frees the array and every deque in it. */
struct lc_deque *lc_deques_create(int n, unsigned log2cap);
void lc_deques_destroy(struct lc_deque *d, int n);

/* Owner only, slow path of push: installs a buffer twice the size of a
 * holding the live range [t, b), retires a.  The new buffer, or NULL. */
struct lc_deque_buf *lc_deque_grow(struct lc_deque *d, struct lc_deque_buf *a,
                                   int64_t t, int64_t b);

/* Any thread.  The oldest item, or p NULL when empty or when the race for
 * the last item was lost (the caller simply tries elsewhere). */
struct lc_qitem lc_deque_steal(struct lc_deque *d);

/* Owner only.  item->p must not be NULL.  0, or -ENOMEM when the buffer had
 * to grow and could not (the deque is then unchanged). */
static inline int lc_deque_push_owner(struct lc_deque *d, const struct lc_qitem *item)
{
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    /* relaxed: only the owner (this thread) ever stores buf. */
    struct lc_deque_buf *a = atomic_load_explicit(&d->buf, memory_order_relaxed);

    /* Not in the paper: the owner checks room against a top it read before.
     * top only grows, so that check can only be too cautious; top itself,
     * which thieves write, is read again only when the buffer looks full,
     * so pushing does not pull the thieves' cache line on every task. */
    if (__builtin_expect(b - d->top_seen > a->mask, 0)) {
        /* acquire pairs with the thief's seq_cst CAS on top: a slot below
         * the top we see has been read by its thief before we overwrite it */
        int64_t t = atomic_load_explicit(&d->top, memory_order_acquire);
        d->top_seen = t;
        if (b - t > a->mask) {
            a = lc_deque_grow(d, a, t, b);
            if (a == NULL)
                return -ENOMEM;
        }
    }
    lc_qslot_store(&a->slot[b & a->mask], item);
#if LC_DEQUE_TSAN
    /* Stands for the fence below: publishes the slot (and a grown buf). */
    atomic_store_explicit(&d->bottom, b + 1, memory_order_release);
#else
    /* Release fence: a thief whose acquire load of bottom sees b + 1 also
     * sees the slot written above and any buffer installed by growth. */
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&d->bottom, b + 1, memory_order_relaxed);
#endif
    return 0;
}

/* Owner only.  The newest item, or p NULL when empty. */
static inline struct lc_qitem lc_deque_pop_owner(struct lc_deque *d)
{
    struct lc_qitem x = { NULL, NULL, NULL, 0 };
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    /* Early out, not in the paper: top only grows, so a stale top that
     * already reaches bottom proves the deque empty, and an idle owner
     * polling its own deque skips the full fence below.  acquire (a plain
     * load on x86) because the top read here may become top_seen, which
     * push relies on as lc_deque_push_owner says. */
    int64_t t = atomic_load_explicit(&d->top, memory_order_acquire);
    if (t >= b) {
        /* and refreshes the size estimate: thieves may have emptied the
         * deque since top was last read, and a stale estimate would make
         * the next spawns run inline (a policy's backlog) with nobody behind */
        d->top_seen = t;
        d->stale_ok = 0;
        return x;
    }

    b -= 1;
    struct lc_deque_buf *a = atomic_load_explicit(&d->buf, memory_order_relaxed);
#if LC_DEQUE_TSAN
    /* seq_cst store then seq_cst load stand for the fence below. */
    atomic_store_explicit(&d->bottom, b, memory_order_seq_cst);
    t = atomic_load_explicit(&d->top, memory_order_seq_cst);
#else
    atomic_store_explicit(&d->bottom, b, memory_order_relaxed);
    /* seq_cst fence: the claim on slot b (bottom store) must be ordered
     * before we read top, against the thief's seq_cst fence between its top
     * and bottom loads; otherwise both could take the same last item. */
    atomic_thread_fence(memory_order_seq_cst);
    t = atomic_load_explicit(&d->top, memory_order_relaxed);
#endif
    if (t <= b) {
        x = lc_qslot_load(&a->slot[b & a->mask]);
        if (t == b) {
            /* Last item: race the thieves for it on top.  seq_cst as in the
             * paper; relaxed on failure, since we then return nothing. */
            if (!atomic_compare_exchange_strong_explicit(&d->top, &t, t + 1,
                                                         memory_order_seq_cst,
                                                         memory_order_relaxed))
                x.p = NULL;
            /* relaxed: only the owner writes bottom, thieves see top == b+1. */
            atomic_store_explicit(&d->bottom, b + 1, memory_order_relaxed);
        }
    } else {
        /* Emptied by thieves meanwhile: undo the claim (relaxed as above). */
        atomic_store_explicit(&d->bottom, b + 1, memory_order_relaxed);
    }
    return x;
}

/* Any thread; a racy estimate, for heuristics only (never negative). */
static inline int64_t lc_deque_size(const struct lc_deque *d)
{
    /* relaxed: an estimate needs no ordering. */
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    int64_t t = atomic_load_explicit(&d->top, memory_order_relaxed);
    return b > t ? b - t : 0;
}

/* Any thread; a racy hint for heuristics only: the last word (c) of the
 * oldest item, the one a steal would take, or 0 when the deque looks
 * empty.  The slot may be taken and reused meanwhile (every word of it is
 * atomic, so that is no data race); a caller that acts on the answer
 * still has to win the steal. */
static inline uintptr_t lc_deque_peek_top_c(struct lc_deque *d)
{
    /* relaxed on top: only a hint.  acquire on bottom: pairs with push's
     * release, so the slot below the bottom seen is written. */
    int64_t t = atomic_load_explicit(&d->top, memory_order_relaxed);
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_acquire);
    if (t >= b)
        return 0;
    /* acquire: pairs with the release store in lc_deque_grow */
    struct lc_deque_buf *a = atomic_load_explicit(&d->buf, memory_order_acquire);
    return atomic_load_explicit(&a->slot[t & a->mask].c, memory_order_relaxed);
}

/* Owner only: an estimate of the size for "is it longer than limit?"
 * heuristics, never below the true size at the last read of top.  top, the
 * line thieves write, is read again only when the estimate exceeds limit:
 * below it the answer is right already (top only grows).  Above it the
 * answer makes the caller run a whole task body at its spawn (the backlog
 * rule, ready.h), and one read of top costs less than the shortest body
 * that rule runs, while an answer from an earlier read can be wrong for
 * a whole run of bodies: with a read every 16th call, a spawner ran up to
 * 15 bodies in a row on a deque its thieves had emptied, and 16 workers
 * ran independent tasks at a third of libgomp's rate (test_sim's flood). */
static inline int64_t lc_deque_size_owner(struct lc_deque *d, int64_t limit)
{
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    if (b - d->top_seen <= limit)
        return b - d->top_seen;
    d->top_seen = atomic_load_explicit(&d->top, memory_order_relaxed);
    return b > d->top_seen ? b - d->top_seen : 0;
}

/* Owner only: nothing queued.  An estimate of none is right at once (top
 * only grows).  An estimate of up to recheck items is checked by reading
 * top again: the answer decides whether a task runs at its spawn (ready.h),
 * and a deque its thieves emptied must not read as stocked then, or the
 * spawner runs a task an idle teammate would have taken, one that may wait
 * for what the spawner does next (a flag, a later task).  Past recheck the
 * estimate stands: the reads of lc_deque_below_owner, lc_deque_size_owner
 * and a wait's refresh keep top_seen recent enough there, and a spawner
 * with that many queued is not the one a teammate waits for. */
static inline int lc_deque_bare_owner(struct lc_deque *d, int64_t recheck)
{
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    int64_t n = b - d->top_seen;
    if (n <= 0)
        return 1;
    if (n > recheck)
        return 0;
    d->top_seen = atomic_load_explicit(&d->top, memory_order_relaxed);
    return b - d->top_seen <= 0;
}

/* Owner only: whether fewer than low items are queued, for "should the
 * owner keep a few tasks here for thieves?" heuristics.  An estimate below
 * low is below the true size at the last read of top and answers at once;
 * otherwise top is read again once every 4 calls, so that an owner whose
 * thieves drain the deque sees it within a few calls without missing in its
 * cache on every one. */
static inline int lc_deque_below_owner(struct lc_deque *d, int64_t low)
{
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    if (b - d->top_seen < low)
        return 1;
    if (d->stale_ok) {
        d->stale_ok--;
        return 0;
    }
    d->stale_ok = 3;
    d->top_seen = atomic_load_explicit(&d->top, memory_order_relaxed);
    return b - d->top_seen < low;
}

/* Owner only: forgets the size estimate's history (a fresh top is read at
 * the next estimate).  For points where the owner knows thieves may have
 * emptied the deque, e.g. after a taskwait. */
static inline void lc_deque_refresh_owner(struct lc_deque *d)
{
    d->top_seen = atomic_load_explicit(&d->top, memory_order_acquire);
    d->stale_ok = 0;
}

#endif /* LC_DEQUE_H */
