/*
 * proxy.c - proxy tasks (kmp_tasking_flags_t's proxy bit, KMP_TASK_PROXY):
 * a task whose body runs like any other's but which completes only when
 * __kmpc_proxy_task_completed (from a thread of the team) or
 * __kmpc_proxy_task_completed_ooo (from any thread, one outside OpenMP
 * included) is called with it.  Until then its dependent tasks wait, and
 * so do the taskwait, taskgroup and barrier that wait for it.
 *
 * That is a detached task's life (task detach(ev), omp_fulfill_event), so
 * a proxy task is one: it gets its event (gomp/detach.c) when it is
 * allocated, task.c's runs attach it or wait for it as for detach, and
 * both completion entry points fulfil it (libomp's top and bottom halves
 * are one here: fulfilling the event releases the dependences on the
 * calling thread, whichever it is).
 *
 * The block outlives the body: the completion finds the event through it
 * and may come after the body returned (libomp frees it only at
 * completion too).  The block is freed by the last of the two releases,
 * the body's end (lc_kmp_task_free) and the completion, so a completion
 * that races with the end of the body is safe as well.
 */
#include <stdatomic.h>
#include <stdint.h>

#include "detach.h"
#include "kmp.h"

void omp_fulfill_event(uintptr_t handle);

void lc_kmp_proxy_init(struct lc_kmp_task *h)
{
    static __thread struct gomp_event no_mem;
    void *handle;
    h->ev = gomp_event_new(&handle, NULL, 0, &no_mem);
    if (h->ev == &no_mem)
        gomp_unsupported("__kmpc_omp_task_alloc", "out of memory for a proxy task's event");
    atomic_store_explicit(&h->proxy_left, 2, memory_order_relaxed);   /* published with h */
}

bool lc_kmp_proxy_last(struct lc_kmp_task *h)
{
    /* acq_rel: the last one frees the block after the other's writes
     * (the body's to its privates, which the destructors read) */
    return atomic_fetch_sub_explicit(&h->proxy_left, 1, memory_order_acq_rel) == 1;
}

static void complete(kmp_int32 gtid, kmp_task_t *t, const char *who)
{
    if (!t)
        gomp_unsupported(who, "no task");
    struct lc_kmp_task *h = lc_kmp_task_of(t);
    if (!(h->flags & KMP_TASK_PROXY))
        gomp_unsupported(who, "the task is not a proxy task");
    struct gomp_event *ev = h->ev;
    lc_kmp_task_free(gtid, t);   /* frees the block if the body is done */
    omp_fulfill_event((uintptr_t)ev);   /* the task completes (once its body is done) */
}

KMP_EXPORT void __kmpc_proxy_task_completed(kmp_int32 gtid, kmp_task_t *ptask)
{
    complete(gtid, ptask, "__kmpc_proxy_task_completed");
}

/* out of order: from a thread that need not be OpenMP's (it gets a gtid
 * for the destructors thunk, which may run here) */
KMP_EXPORT void __kmpc_proxy_task_completed_ooo(kmp_task_t *ptask)
{
    complete(lc_kmp_gtid(), ptask, "__kmpc_proxy_task_completed_ooo");
}
