/*
 * poll.c - polling services (locus_poll_register): functions the workers
 * call while they have nothing better to do, and at a bounded interval
 * when they are busy, so that something outside the runtime (MPI requests,
 * asynchronous I/O) can fulfil task events without a thread of its own.
 *
 * One lock guards the list and the calling: a worker calls the services
 * only when it takes the lock without waiting (another worker is already
 * polling: nothing to add), so no service ever runs concurrently with
 * itself or another, and an unregistration that takes the lock knows the
 * service is not running and will not run again.  A service may register
 * and unregister services itself: the thread that holds the lock for the
 * round (poll_owner) changes the list without taking it again.
 *
 * Sleeping workers: while services exist, one sleeper at a time (the one
 * that claims timed_sleeper) sleeps with a timeout of LOCUS_POLL_US and
 * polls when it wakes, so that a pool with nothing to run still polls,
 * and the other sleepers use no CPU.  A registration wakes every sleeper,
 * so that one of them claims the role.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "runtime.h"

struct service {
    char name[32];
    locus_poll_fn fn;
    void *data;
};

static pthread_mutex_t poll_lock = PTHREAD_MUTEX_INITIALIZER;
static struct service *services;        /* under poll_lock */
static int nservices, capacity;
static _Thread_local int poll_owner;    /* this thread holds poll_lock for a round */
_Alignas(64) static _Atomic int timed_sleeper;   /* a sleeper keeps the services polled */
_Alignas(64) _Atomic int lc_poll_count; /* nservices, read without the lock; by every
                                           worker between tasks: a line of its own */

static void lock(void)
{
    if (!poll_owner)
        pthread_mutex_lock(&poll_lock);
}

static void unlock(void)
{
    if (!poll_owner)
        pthread_mutex_unlock(&poll_lock);
}

static int find(locus_poll_fn fn, void *data)
{
    for (int i = 0; i < nservices; i++)
        if (services[i].fn == fn && services[i].data == data)
            return i;
    return -1;
}

/* Removes entry i (under the lock); order is kept so services run in
 * registration order. */
static void remove_at(int i)
{
    memmove(&services[i], &services[i + 1], (size_t)(nservices - i - 1) * sizeof *services);
    nservices--;
    atomic_store_explicit(&lc_poll_count, nservices, memory_order_seq_cst);
}

LOCUS_API int locus_poll_register(const char *name, locus_poll_fn fn, void *data)
{
    if (!fn)
        return lc_error(-EINVAL, "locus_poll_register(%s): fn is NULL", name ? name : "unnamed");
    lock();
    if (find(fn, data) >= 0) {
        unlock();
        return lc_error(-EEXIST, "locus_poll_register(%s): this function and data are "
                        "registered already", name ? name : "unnamed");
    }
    if (nservices == capacity) {
        int cap = capacity ? 2 * capacity : 8;
        struct service *s = realloc(services, (size_t)cap * sizeof *s);
        if (!s) {
            unlock();
            return lc_error(-ENOMEM, "locus_poll_register(%s): out of memory",
                            name ? name : "unnamed");
        }
        services = s;
        capacity = cap;
    }
    struct service *s = &services[nservices++];
    memset(s->name, 0, sizeof s->name);
    strncpy(s->name, name ? name : "unnamed", sizeof s->name - 1);
    s->fn = fn;
    s->data = data;
    /* seq_cst, then bump every epoch: a worker that read the epoch
     * before the bump sleeps not at all, one that read it after sees the
     * count and claims the timed sleep (wait.c) */
    atomic_store_explicit(&lc_poll_count, nservices, memory_order_seq_cst);
    unlock();
    struct lc_runtime *rt = lc_rt;
    if (rt)
        lc_wake_workers(rt);   /* any thread may: the epochs are atomics */
    return 0;
}

LOCUS_API int locus_poll_unregister(locus_poll_fn fn, void *data)
{
    lock();
    int i = find(fn, data);
    if (i < 0) {
        unlock();
        return lc_error(-ENOENT, "locus_poll_unregister: no service with this function and "
                        "data is registered");
    }
    remove_at(i);
    unlock();
    return 0;
}

int lc_poll_services(void)
{
    if (poll_owner || pthread_mutex_trylock(&poll_lock) != 0)
        return 0;   /* somebody is polling already (or this thread, in a service) */
    poll_owner = 1;
    int finished = 0;
    /* by index, reading services again each time: a service may change the
     * list (poll_owner lets it) */
    for (int i = 0; i < nservices;) {
        locus_poll_fn fn = services[i].fn;
        void *data = services[i].data;
        int done = fn(data);
        finished |= done != 0;
        int j = find(fn, data);   /* where it is now: the service may have changed the list */
        if (j < 0)
            continue;             /* it unregistered itself: slot i holds the next one */
        if (done)
            remove_at(j);         /* the next one moves into slot j */
        i = done ? j : j + 1;
    }
    poll_owner = 0;
    pthread_mutex_unlock(&poll_lock);
    return finished;
}

int lc_poll_sleeper_claim(void)
{
    if (atomic_load_explicit(&lc_poll_count, memory_order_seq_cst) == 0)
        return 0;
    int expected = 0;
    return atomic_compare_exchange_strong_explicit(&timed_sleeper, &expected, 1,
                                                   memory_order_relaxed, memory_order_relaxed);
}

void lc_poll_sleeper_done(void)
{
    atomic_store_explicit(&timed_sleeper, 0, memory_order_relaxed);
}

/* The child of a fork: a worker of the parent may have held poll_lock
 * for a round; the services registered stay (the program's, as in the
 * parent). */
void lc_poll_forget_after_fork(void)
{
    pthread_mutex_init(&poll_lock, NULL);
    poll_owner = 0;
    atomic_store_explicit(&timed_sleeper, 0, memory_order_relaxed);
}
