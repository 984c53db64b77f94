/*
 * deque.c - out-of-line parts of the Chase-Lev work-stealing deque: init,
 * destroy, growth and steal.  The owner's push and pop are inline in deque.h.
 *
 * Algorithm: D. Chase and Y. Lev, "Dynamic circular work-stealing deque",
 * SPAA'05.  Memory orders: N. M. Le, A. Pop, A. Cohen and F. Zappa Nardelli,
 * "Correct and efficient work-stealing for weak memory models", PPoPP'13
 * (Fig. 1), with two deliberate differences:
 *  - buf is published with a release store and read by thieves with acquire
 *    (the paper: consume, which compilers promote to acquire anyway), so a
 *    thief that sees a grown buffer also sees the items copied into it even
 *    if its bottom load predates the growth;
 *  - under ThreadSanitizer the fences become orders on the index accesses
 *    (see deque.h), since TSan does not model atomic_thread_fence.
 *
 * Reclamation: a grown-out buffer may still be read by a thief that loaded
 * buf before the growth, so it is chained on the new buffer's retired list
 * and freed only by lc_deque_destroy().  Growth doubles, so the retired
 * buffers together never exceed the live one in size.
 */
#include "deque.h"

#include <errno.h>
#include <stdlib.h>

static struct lc_deque_buf *buf_alloc(int64_t cap)
{
    if (cap <= 0 || (uint64_t)cap > (SIZE_MAX - sizeof(struct lc_deque_buf)) / sizeof(struct lc_qslot))
        return NULL;
    struct lc_deque_buf *a = malloc(sizeof(*a) + (size_t)cap * sizeof(a->slot[0]));
    if (a == NULL)
        return NULL;
    a->mask = cap - 1;
    a->retired = NULL;
    return a;
}

int lc_deque_init(struct lc_deque *d, unsigned log2cap)
{
    /* buf NULL first, so lc_deque_destroy() is harmless after a failure. */
    atomic_store_explicit(&d->buf, NULL, memory_order_relaxed);
    if (log2cap > LC_DEQUE_MAX_LOG2CAP)
        return -EINVAL;
    struct lc_deque_buf *a = buf_alloc((int64_t)1 << log2cap);
    if (a == NULL)
        return -ENOMEM;
    /* Before any other thread knows d: relaxed; whoever hands d to the
     * thieves (thread creation, a release store) publishes it. */
    atomic_store_explicit(&d->top, 0, memory_order_relaxed);
    atomic_store_explicit(&d->bottom, 0, memory_order_relaxed);
    d->top_seen = 0;
    d->stale_ok = 0;
    atomic_store_explicit(&d->buf, a, memory_order_relaxed);
    return 0;
}

void lc_deque_destroy(struct lc_deque *d)
{
    /* relaxed: the caller guarantees no other thread uses d any more. */
    struct lc_deque_buf *a = atomic_load_explicit(&d->buf, memory_order_relaxed);
    while (a != NULL) {
        struct lc_deque_buf *older = a->retired;
        free(a);
        a = older;
    }
    atomic_store_explicit(&d->buf, NULL, memory_order_relaxed);
}

struct lc_deque_buf *lc_deque_grow(struct lc_deque *d, struct lc_deque_buf *a,
                                   int64_t t, int64_t b)
{
    struct lc_deque_buf *n = buf_alloc(2 * (a->mask + 1));
    if (n == NULL)
        return NULL;
    /* Same logical index in both buffers, so a thief still reading a sees
     * the same item at top as one reading n.  Slots below a concurrently
     * advancing top are copied needlessly but harmlessly.  relaxed: the
     * owner wrote these slots itself, and the release store of buf below
     * publishes the copies. */
    for (int64_t i = t; i < b; i++) {
        struct lc_qitem it = lc_qslot_load(&a->slot[i & a->mask]);
        lc_qslot_store(&n->slot[i & n->mask], &it);
    }
    n->retired = a;
    /* release: pairs with the thief's acquire load of buf, making mask,
     * retired and the copied slots visible to any thief that sees n. */
    atomic_store_explicit(&d->buf, n, memory_order_release);
    return n;
}

struct lc_qitem lc_deque_steal(struct lc_deque *d)
{
    struct lc_qitem none = { NULL, NULL, NULL, 0 };
    int64_t t, b;
#if LC_DEQUE_TSAN
    /* seq_cst loads stand for the fence below. */
    t = atomic_load_explicit(&d->top, memory_order_seq_cst);
    b = atomic_load_explicit(&d->bottom, memory_order_seq_cst);
#else
    /* acquire on top: pairs with the seq_cst CAS of the previous taker. */
    t = atomic_load_explicit(&d->top, memory_order_acquire);
    /* seq_cst fence: top must be read before bottom, against the owner's
     * seq_cst fence between its bottom store and top load in pop; without
     * it thief and owner could both take the last item. */
    atomic_thread_fence(memory_order_seq_cst);
    /* acquire on bottom: pairs with the release fence in push, so the slot
     * at t (and the buffer holding it) are visible. */
    b = atomic_load_explicit(&d->bottom, memory_order_acquire);
#endif
    if (t >= b)
        return none;
    /* acquire: pairs with the release store in lc_deque_grow. */
    struct lc_deque_buf *a = atomic_load_explicit(&d->buf, memory_order_acquire);
    /* relaxed: ordered by the acquires above; the value is only used if the
     * CAS below proves nobody took slot t meanwhile. */
    struct lc_qitem x = lc_qslot_load(&a->slot[t & a->mask]);
    /* seq_cst as in the paper (it also releases our read of slot t to the
     * owner's acquire load of top in push); relaxed on failure, since we
     * then return nothing. */
    if (!atomic_compare_exchange_strong_explicit(&d->top, &t, t + 1,
                                                 memory_order_seq_cst,
                                                 memory_order_relaxed))
        return none;
    return x;
}

struct lc_deque *lc_deques_create(int n, unsigned log2cap)
{
    if (n <= 0)
        return NULL;
    struct lc_deque *d = aligned_alloc(LC_CACHELINE, (size_t)n * sizeof *d);
    if (!d)
        return NULL;
    for (int i = 0; i < n; i++)
        if (lc_deque_init(&d[i], log2cap) < 0) {
            while (i-- > 0)
                lc_deque_destroy(&d[i]);
            free(d);
            return NULL;
        }
    return d;
}

void lc_deques_destroy(struct lc_deque *d, int n)
{
    if (!d)
        return;
    for (int i = 0; i < n; i++)
        lc_deque_destroy(&d[i]);
    free(d);
}
