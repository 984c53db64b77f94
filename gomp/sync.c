/*
 * sync.c - mutual exclusion in the libgomp ABI: critical sections
 * (unnamed and named), the lock gcc uses for atomics the hardware cannot
 * do, the lock word every OpenMP lock is made of, and which task owns a
 * nestable lock (the omp_*_lock routines are per ABI: gomp/lock.c in
 * libgomp's layout, kmp/lock.c in libomp's).
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

void gomp_lockword_lock(lockword *l)
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

void gomp_lockword_unlock(lockword *l)
{
    if (atomic_exchange_explicit(l, 0, memory_order_release) == 2)
        futex_wake(l, 1);
}

int gomp_lockword_trylock(lockword *l)
{
    uint32_t c = 0;
    return atomic_compare_exchange_strong_explicit(l, &c, 1, memory_order_acquire,
                                                   memory_order_relaxed);
}

static lockword critical_lock, atomic_lock;

GOMP_EXPORT void GOMP_critical_start(void)
{
    gomp_lockword_lock(&critical_lock);
}

GOMP_EXPORT void GOMP_critical_end(void)
{
    gomp_lockword_unlock(&critical_lock);
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
    gomp_lockword_lock(named(pptr));
}

GOMP_EXPORT void GOMP_critical_name_end(void **pptr)
{
    gomp_lockword_unlock(named(pptr));
}

GOMP_EXPORT void GOMP_atomic_start(void)
{
    gomp_lockword_lock(&atomic_lock);
}

GOMP_EXPORT void GOMP_atomic_end(void)
{
    gomp_lockword_unlock(&atomic_lock);
}

/* Nestable locks are owned by tasks (OpenMP 3.0 on): an implicit or
 * included task by the identity it was given, an explicit task by its
 * Locus task, the sequential part outside the runtime by its thread. */
const void *gomp_lock_owner_id(void)
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

