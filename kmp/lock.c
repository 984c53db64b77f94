/*
 * lock.c - the omp_*_lock routines in libomp's layout, and the
 * __kmpc_*_lock forms of them the compiler may call.
 *
 * libomp's omp_lock_t and omp_nest_lock_t are one pointer each (LLVM's
 * omp.h): a simple lock fits a futex word (gomp/sync.c's, as a gcc
 * program's), a nestable lock does not (word, depth, owner), so it is
 * made at omp_init_nest_lock and its address kept in the program's
 * pointer.  A gcc program bound to these (libomp's secondary versions,
 * OMP_1.0...) has a 4-byte omp_lock_t and a 16-byte omp_nest_lock_t:
 * nothing here writes more than 4 bytes of a simple lock or 8 of a
 * nestable one, as libomp's own locks do not.  Hints (contended, speculative, ...) are accepted and change
 * nothing: every lock spins a little, then sleeps.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "kmp.h"

_Static_assert(sizeof(lockword) <= 4, "a gcc program's omp_lock_t is 4 bytes");

KMP_EXPORT void omp_init_lock(void *lock)
{
    atomic_init((lockword *)lock, 0);   /* the word only: a gcc program's lock is 4 bytes */
}

KMP_EXPORT void omp_init_lock_with_hint(void *lock, int hint)
{
    (void)hint;
    omp_init_lock(lock);
}

KMP_EXPORT void omp_destroy_lock(void *lock)
{
    (void)lock;
}

KMP_EXPORT void omp_set_lock(void *lock)
{
    gomp_lockword_lock(lock);
}

KMP_EXPORT void omp_unset_lock(void *lock)
{
    gomp_lockword_unlock(lock);
}

KMP_EXPORT int omp_test_lock(void *lock)
{
    return gomp_lockword_trylock(lock);
}

struct nest_lock {
    lockword word;
    int depth;
    _Atomic(const void *) owner;
};

static struct nest_lock *nest(void *lock)
{
    struct nest_lock *l = *(struct nest_lock **)lock;
    if (!l)
        gomp_unsupported("omp_set_nest_lock", "the lock was not initialized "
                         "(omp_init_nest_lock) or was destroyed");
    return l;
}

KMP_EXPORT void omp_init_nest_lock(void *lock)
{
    struct nest_lock *l = calloc(1, sizeof *l);
    if (!l)
        gomp_unsupported("omp_init_nest_lock", "out of memory for a lock");
    *(struct nest_lock **)lock = l;
}

KMP_EXPORT void omp_init_nest_lock_with_hint(void *lock, int hint)
{
    (void)hint;
    omp_init_nest_lock(lock);
}

KMP_EXPORT void omp_destroy_nest_lock(void *lock)
{
    free(*(struct nest_lock **)lock);
    *(struct nest_lock **)lock = NULL;
}

KMP_EXPORT void omp_set_nest_lock(void *lock)
{
    struct nest_lock *l = nest(lock);
    const void *me = gomp_lock_owner_id();
    if (atomic_load_explicit(&l->owner, memory_order_relaxed) != me) {
        gomp_lockword_lock(&l->word);
        atomic_store_explicit(&l->owner, me, memory_order_relaxed);
    }
    l->depth++;
}

KMP_EXPORT void omp_unset_nest_lock(void *lock)
{
    struct nest_lock *l = nest(lock);
    if (--l->depth == 0) {
        atomic_store_explicit(&l->owner, NULL, memory_order_relaxed);
        gomp_lockword_unlock(&l->word);
    }
}

KMP_EXPORT int omp_test_nest_lock(void *lock)
{
    struct nest_lock *l = nest(lock);
    const void *me = gomp_lock_owner_id();
    if (atomic_load_explicit(&l->owner, memory_order_relaxed) != me) {
        if (!gomp_lockword_trylock(&l->word))
            return 0;
        atomic_store_explicit(&l->owner, me, memory_order_relaxed);
    }
    return ++l->depth;
}

/* the compiler's forms: (loc, gtid, the program's lock) */
#define KMPC_LOCK(op, call)                                                           \
    KMP_EXPORT void __kmpc_##op(ident_t *loc, kmp_int32 gtid, void **user_lock)       \
    {                                                                                 \
        (void)loc;                                                                    \
        (void)gtid;                                                                   \
        call(user_lock);                                                              \
    }
#define KMPC_TEST(op, call)                                                           \
    KMP_EXPORT int __kmpc_##op(ident_t *loc, kmp_int32 gtid, void **user_lock)        \
    {                                                                                 \
        (void)loc;                                                                    \
        (void)gtid;                                                                   \
        return call(user_lock);                                                       \
    }
KMPC_LOCK(init_lock, omp_init_lock)
KMPC_LOCK(destroy_lock, omp_destroy_lock)
KMPC_LOCK(set_lock, omp_set_lock)
KMPC_LOCK(unset_lock, omp_unset_lock)
KMPC_TEST(test_lock, omp_test_lock)
KMPC_LOCK(init_nest_lock, omp_init_nest_lock)
KMPC_LOCK(destroy_nest_lock, omp_destroy_nest_lock)
KMPC_LOCK(set_nest_lock, omp_set_nest_lock)
KMPC_LOCK(unset_nest_lock, omp_unset_nest_lock)
KMPC_TEST(test_nest_lock, omp_test_nest_lock)

KMP_EXPORT void __kmpc_init_lock_with_hint(ident_t *loc, kmp_int32 gtid, void **user_lock,
                                           uintptr_t hint)
{
    (void)loc;
    (void)gtid;
    (void)hint;
    omp_init_lock(user_lock);
}

KMP_EXPORT void __kmpc_init_nest_lock_with_hint(ident_t *loc, kmp_int32 gtid, void **user_lock,
                                                uintptr_t hint)
{
    (void)loc;
    (void)gtid;
    (void)hint;
    omp_init_nest_lock(user_lock);
}
