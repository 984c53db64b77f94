/*
 * events_fallback.c - TEMPORARY, removed when wip-events is merged: the
 * agreed events/block/poll API emulated on the public API only, holding
 * the worker (block and iwait poll the services themselves).  Only so that
 * liblocus-mpi can be exercised before the real API lands.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "lmpi.h"

struct locus_task_ref {
    atomic_int events, token;
};

static __thread struct locus_task_ref lf_self;
static pthread_mutex_t lf_poll_lock = PTHREAD_MUTEX_INITIALIZER;
static locus_poll_fn lf_fn;
static void *lf_data;

locus_task_ref_t locus_task_current(void)
{
    return locus_worker_id() >= 0 ? &lf_self : NULL;
}

int locus_task_events_increase(locus_task_ref_t t, unsigned n)
{
    atomic_fetch_add(&t->events, (int)n);
    return 0;
}

int locus_task_events_decrease(locus_task_ref_t t, unsigned n)
{
    atomic_fetch_sub(&t->events, (int)n);
    return 0;
}

static void lf_poll(void)
{
    if (pthread_mutex_trylock(&lf_poll_lock) == 0) {
        if (lf_fn)
            lf_fn(lf_data);
        pthread_mutex_unlock(&lf_poll_lock);
    }
    sched_yield();
}

int locus_task_block(void)
{
    while (!atomic_exchange(&lf_self.token, 0))
        lf_poll();
    return 0;
}

int locus_task_unblock(locus_task_ref_t t)
{
    atomic_store(&t->token, 1);
    return 0;
}

int locus_poll_register(const char *name, locus_poll_fn fn, void *data)
{
    (void)name;
    pthread_mutex_lock(&lf_poll_lock);
    lf_fn = fn;
    lf_data = data;
    pthread_mutex_unlock(&lf_poll_lock);
    return 0;
}

int locus_poll_unregister(locus_poll_fn fn, void *data)
{
    (void)fn;
    (void)data;
    pthread_mutex_lock(&lf_poll_lock);
    lf_fn = NULL;
    pthread_mutex_unlock(&lf_poll_lock);
    return 0;
}

void lm_fallback_hold(locus_task_ref_t t)
{
    while (atomic_load(&t->events) > 0)
        lf_poll();
}
