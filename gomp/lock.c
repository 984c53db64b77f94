/*
 * lock.c - the omp_*_lock routines in libgomp's layout (gcc 12 omp.h,
 * OMP_3.0): a simple lock is one 32-bit futex word, a nestable lock a
 * word, a depth and an owner, 16 bytes.  liblocus-omp has its own
 * (kmp/lock.c: libomp's omp_nest_lock_t is one pointer).
 */
#include <stdatomic.h>
#include <stdint.h>

#include "gomp.h"
#include "runtime.h"

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
    gomp_lockword_lock(lock);
}

GOMP_EXPORT void omp_unset_lock(void *lock)
{
    gomp_lockword_unlock(lock);
}

GOMP_EXPORT int omp_test_lock(void *lock)
{
    return gomp_lockword_trylock(lock);
}

/* ---- omp_nest_lock_t: 16 bytes (word, depth, owner) ---- */

struct nest_lock {
    lockword word;
    int depth;
    _Atomic(const void *) owner;
};

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
    if (atomic_load_explicit(&l->owner, memory_order_relaxed) != gomp_lock_owner_id()) {
        gomp_lockword_lock(&l->word);
        atomic_store_explicit(&l->owner, gomp_lock_owner_id(), memory_order_relaxed);
    }
    l->depth++;
}

GOMP_EXPORT void omp_unset_nest_lock(void *lock)
{
    struct nest_lock *l = lock;
    if (--l->depth == 0) {
        atomic_store_explicit(&l->owner, NULL, memory_order_relaxed);
        gomp_lockword_unlock(&l->word);
    }
}

GOMP_EXPORT int omp_test_nest_lock(void *lock)
{
    struct nest_lock *l = lock;
    if (atomic_load_explicit(&l->owner, memory_order_relaxed) != gomp_lock_owner_id()) {
        if (!gomp_lockword_trylock(&l->word))
            return 0;
        atomic_store_explicit(&l->owner, gomp_lock_owner_id(), memory_order_relaxed);
    }
    return ++l->depth;
}
