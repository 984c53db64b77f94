/*
 * omp_alpi.c - ALPI inside an OpenMP program, as TAMPI uses it there: the
 * program is built against libgomp like any other, and finds ALPI at run
 * time with dlsym (TAMPI's way), which on liblocus-gomp binds to Locus.
 *  - before the first parallel region, main is a task (alpi_task_self),
 *    and a task without a parent (alpi_task_spawn) polls and sleeps with
 *    alpi_task_waitfor_ns, as TAMPI's polling tasks do, while main sleeps
 *    and while the regions run;
 *  - in a region, tasks that block (alpi_task_block) are unblocked by
 *    others, whatever ran on their threads meanwhile, and every task sees
 *    its team (omp_get_num_threads, omp_get_thread_num) on whichever
 *    thread runs it, a thread that serves in place of a blocked one too;
 *  - an OpenMP task with an ALPI event holds its dependent task until a
 *    thread the program made fulfils it.
 * Prints what it checked; "no ALPI" where the OpenMP runtime has none
 * (libgomp).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "alpi.h"

static int (*task_self)(struct alpi_task **);
static int (*task_block)(struct alpi_task *);
static int (*task_unblock)(struct alpi_task *);
static int (*waitfor_ns)(uint64_t, uint64_t *);
static int (*events_increase)(struct alpi_task *, uint64_t);
static int (*events_decrease)(struct alpi_task *, uint64_t);
static int (*task_spawn)(void (*)(void *), void *, void (*)(void *), void *, const char *,
                         const struct alpi_attr *);

#define LOAD(var, name) (var = (__typeof__(var))dlsym(RTLD_DEFAULT, name))

static atomic_int bad;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "omp_alpi: %s:%d: %s\n", __FILE__, \
                                          __LINE__, #c); atomic_fetch_add(&bad, 1); } } while (0)

/* ---- the polling task ---- */
static atomic_int poll_stop, poll_done;
static atomic_long polls;

static void poller(void *arg)
{
    (void)arg;
    while (!atomic_load(&poll_stop)) {
        atomic_fetch_add(&polls, 1);
        CHECK(waitfor_ns(50000, NULL) == ALPI_SUCCESS);
    }
}

static void poller_completed(void *arg)
{
    (void)arg;
    atomic_store(&poll_done, 1);
}

/* ---- blocking tasks ---- */
enum { PAIRS = 16 };
static _Atomic(struct alpi_task *) blocked[PAIRS];
static atomic_int resumed;

static struct alpi_task *await(_Atomic(struct alpi_task *) *h)
{
    struct alpi_task *t;
    while (!(t = atomic_load(h)))
        CHECK(waitfor_ns(10000, NULL) == ALPI_SUCCESS);
    return t;
}

static void sees_its_team(int size)
{
    CHECK(omp_get_num_threads() == size);
    CHECK(omp_get_thread_num() >= 0 && omp_get_thread_num() < size);
    CHECK(omp_in_parallel() == (size > 1));
}

/* ---- events ---- */
static int x;

static void *fulfil_later(void *arg)
{
    struct timespec ms = { 0, 20 * 1000 * 1000 };
    nanosleep(&ms, NULL);
    x = 42;
    CHECK(events_decrease(arg, 1) == ALPI_SUCCESS);
    return NULL;
}

int main(void)
{
    if (!LOAD(task_self, "alpi_task_self") || !LOAD(task_block, "alpi_task_block")
        || !LOAD(task_unblock, "alpi_task_unblock") || !LOAD(waitfor_ns, "alpi_task_waitfor_ns")
        || !LOAD(events_increase, "alpi_task_events_increase")
        || !LOAD(events_decrease, "alpi_task_events_decrease")
        || !LOAD(task_spawn, "alpi_task_spawn")) {
        printf("no ALPI\n");
        return 0;
    }

    /* before any region: main is a task, and a polling task runs while
     * main sleeps */
    struct alpi_task *me = NULL;
    CHECK(task_self(&me) == ALPI_SUCCESS && me != NULL);
    CHECK(task_spawn(poller, NULL, poller_completed, NULL, "poller", NULL) == ALPI_SUCCESS);
    uint64_t slept = 0;
    CHECK(waitfor_ns(5000000, &slept) == ALPI_SUCCESS && slept >= 5000000);
    /* 5 ms is plenty on an idle machine; under a sanitizer on a loaded one
     * the thread that serves main's worker meanwhile may start later: main
     * goes on sleeping, up to 10 s, until the poller has run */
    for (int naps = 0; naps < 10000 && atomic_load(&polls) == 0; naps++)
        CHECK(waitfor_ns(1000000, NULL) == ALPI_SUCCESS);
    long before = atomic_load(&polls);
    CHECK(before > 0);
    printf("main is a task; the polling task ran while main slept\n");

    int size = 0;
#pragma omp parallel
#pragma omp single
    {
        size = omp_get_num_threads();
        for (int i = 0; i < PAIRS; i++) {
#pragma omp task firstprivate(i)
            {
                struct alpi_task *self = NULL;
                CHECK(task_self(&self) == ALPI_SUCCESS && self != NULL);
                sees_its_team(size);
                int tid = omp_get_thread_num();
                atomic_store(&blocked[i], self);
                CHECK(task_block(self) == ALPI_SUCCESS);
                CHECK(omp_get_thread_num() == tid);   /* resumed on its own thread */
                sees_its_team(size);
                atomic_fetch_add(&resumed, 1);
            }
#pragma omp task firstprivate(i)
            {
                sees_its_team(size);
                CHECK(task_unblock(await(&blocked[i])) == ALPI_SUCCESS);
            }
            /* short tasks in between, run by whichever thread serves */
            for (int k = 0; k < 8; k++) {
#pragma omp task
                sees_its_team(size);
            }
        }
#pragma omp taskwait
        CHECK(atomic_load(&resumed) == PAIRS);

#pragma omp task depend(out: x)
        {
            struct alpi_task *self = NULL;
            CHECK(task_self(&self) == ALPI_SUCCESS);
            CHECK(events_increase(self, 1) == ALPI_SUCCESS);
            pthread_t th;
            CHECK(pthread_create(&th, NULL, fulfil_later, self) == 0);
            pthread_detach(th);
        }
#pragma omp task depend(in: x)
        CHECK(x == 42);
#pragma omp taskwait
    }
    printf("%d tasks blocked and resumed; every task saw its team\n", PAIRS);
    printf("an event held the dependent task until fulfilled\n");

    /* the polling task went on through the region; now it is told to stop */
    CHECK(atomic_load(&polls) > before);
    atomic_store(&poll_stop, 1);
    while (!atomic_load(&poll_done))
        CHECK(waitfor_ns(100000, NULL) == ALPI_SUCCESS);
    printf("the polling task ran through the region and stopped\n");
    return atomic_load(&bad) ? 1 : 0;
}
