/*
 * sync.c - mutual exclusion in the libgomp ABI: critical sections
 * (unnamed and named), the lock gcc uses for atomics the hardware cannot
 * do, and the omp_*_lock routines (OMP_3.0 layout: a simple lock is one
 * 32-bit futex word, a nestable lock a word, a depth and an owner).
 *
 * Locks are futex words (0 free, 1 held, 2 held with waiters), so that a
 * thread waiting for a lock held by a descheduled thread sleeps.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "futex.h"
#include "gomp.h"
#include "runtime.h"

typedef _Atomic uint32_t lockword;

static void lock_word(lockword *l)
{
    uint32_t c = 0;
    if (atomic_compare_exchange_strong_explicit(l, &c, 1, memory_order_acquire,
                                                memory_order_relaxed))
        return;
    for (int spin = 0; spin < 100; spin++) {
        cpu_relax();
        c = 0;
        if (atomic_load_explicit(l, memory_order_relaxed) == 0
            && atomic_compare_exchange_weak_explicit(l, &c, 1, memory_order_acquire,
                                                     memory_order_relaxed))
            return;
    }
    /* mark contended, sleep until it is free, take it contended */
    while (atomic_exchange_explicit(l, 2, memory_order_acquire) != 0)
        futex_wait(l, 2);
}

static void unlock_word(lockword *l)
{
    if (atomic_exchange_explicit(l, 0, memory_order_release) == 2)
        futex_wake(l, 1);
}

static int trylock_word(lockword *l)
{
    uint32_t c = 0;
    return atomic_compare_exchange_strong_explicit(l, &c, 1, memory_order_acquire,
                                                   memory_order_relaxed);
}

static lockword critical_lock, atomic_lock;

GOMP_EXPORT void GOMP_critical_start(void)
{
    lock_word(&critical_lock);
}

GOMP_EXPORT void GOMP_critical_end(void)
{
    unlock_word(&critical_lock);
}

/* A named critical section: gcc passes a pointer-sized slot per name,
 * zero at first.  The slot itself serves as the lock word: its low 32
 * bits (x86-64 is little-endian, the slot 8-byte aligned). */
static lockword *named(void **pptr)
{
    _Static_assert(sizeof(void *) >= sizeof(lockword), "slot too small for a lock word");
    return (lockword *)(void *)pptr;
}

GOMP_EXPORT void GOMP_critical_name_start(void **pptr)
{
    lock_word(named(pptr));
}

GOMP_EXPORT void GOMP_critical_name_end(void **pptr)
{
    unlock_word(named(pptr));
}

GOMP_EXPORT void GOMP_atomic_start(void)
{
    lock_word(&atomic_lock);
}

GOMP_EXPORT void GOMP_atomic_end(void)
{
    unlock_word(&atomic_lock);
}

/* ---- omp_lock_t: 4 bytes, 4-aligned (gcc 12 omp.h) ---- */

GOMP_EXPORT void omp_init_lock(void *lock)
{
    atomic_store_explicit((lockword *)lock, 0, memory_order_relaxed);
}

GOMP_EXPORT void omp_destroy_lock(void *lock)
{
    (void)lock;
}

GOMP_EXPORT void omp_set_lock(void *lock)
{
    lock_word(lock);
}

GOMP_EXPORT void omp_unset_lock(void *lock)
{
    unlock_word(lock);
}

GOMP_EXPORT int omp_test_lock(void *lock)
{
    return trylock_word(lock);
}

/* ---- omp_nest_lock_t: 16 bytes (word, depth, owner) ---- */

struct nest_lock {
    lockword word;
    int depth;
    _Atomic(const void *) owner;
};

/* Nestable locks are owned by tasks (OpenMP 3.0 on): an implicit or
 * included task by the identity it was given, an explicit task by its
 * Locus task, the sequential part outside the runtime by its thread. */
static const void *self_id(void)
{
    static __thread char me;
    struct lc_task *cur = lc_self ? lc_self->cur : NULL;
    if (gomp_thr.task_id && cur == gomp_thr.task_cur)
        return gomp_thr.task_id;
    return cur ? (const void *)cur : (const void *)&me;
}

void gomp_task_id_set(const void *id)
{
    gomp_thr.task_id = id;
    gomp_thr.task_cur = lc_self ? lc_self->cur : NULL;
}

GOMP_EXPORT void omp_init_nest_lock(void *lock)
{
    struct nest_lock *l = lock;
    _Static_assert(sizeof(struct nest_lock) <= 16, "omp_nest_lock_t is 16 bytes");
    atomic_store_explicit(&l->word, 0, memory_order_relaxed);
    l->depth = 0;
    atomic_store_explicit(&l->owner, NULL, memory_order_relaxed);
}

GOMP_EXPORT void omp_destroy_nest_lock(void *lock)
{
    (void)lock;
}

GOMP_EXPORT void omp_set_nest_lock(void *lock)
{
    struct nest_lock *l = lock;
    if (atomic_load_explicit(&l->owner, memory_order_relaxed) != self_id()) {
        lock_word(&l->word);
        atomic_store_explicit(&l->owner, self_id(), memory_order_relaxed);
    }
    l->depth++;
}

GOMP_EXPORT void omp_unset_nest_lock(void *lock)
{
    struct nest_lock *l = lock;
    if (--l->depth == 0) {
        atomic_store_explicit(&l->owner, NULL, memory_order_relaxed);
        unlock_word(&l->word);
    }
}

GOMP_EXPORT int omp_test_nest_lock(void *lock)
{
    struct nest_lock *l = lock;
    if (atomic_load_explicit(&l->owner, memory_order_relaxed) != self_id()) {
        if (!trylock_word(&l->word))
            return 0;
        atomic_store_explicit(&l->owner, self_id(), memory_order_relaxed);
    }
    return ++l->depth;
}
