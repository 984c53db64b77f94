/*
 * test_alpi.c - ALPI 1.0 on Locus (include/alpi.h, alpi/alpi.c): every
 * function, with good and bad input; version checks that must fail;
 * block/unblock from other threads and unblock before block; events
 * fulfilled by other threads holding back a task's successors; waiting
 * for a time while the worker runs other tasks; independent tasks spawned
 * from the initial thread, from tasks and from threads that are not
 * workers, with their completion callbacks, which locus_finalize waits
 * for.  Task bodies count failures in g_bad (no cmocka asserts off the
 * test thread).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "alpi.h"
#include "locus.h"

static _Atomic int g_bad;
#define CHECK(cond) do { if (!(cond)) atomic_fetch_add(&g_bad, 1); } while (0)

static void pause_a_little(void)
{
    struct timespec ts = { 0, 200000 };
    nanosleep(&ts, NULL);
}

static void noop(void *arg) { (void)arg; }

static int sanitizer(void)
{
    const char *s = getenv("LOCUS_TEST_SANITIZER");
    return s && *s;
}

/* ---- without a runtime ---- */

static void test_no_runtime(void **state)
{
    (void)state;
    struct alpi_task *t = (struct alpi_task *)&t;
    uint64_t n;
    assert_int_equal(alpi_task_self(&t), ALPI_ERR_NOT_INITIALIZED);
    assert_int_equal(alpi_cpu_count(&n), ALPI_ERR_NOT_INITIALIZED);
    assert_int_equal(alpi_task_block(t), ALPI_ERR_NOT_INITIALIZED);
    assert_int_equal(alpi_task_unblock(t), ALPI_ERR_NOT_INITIALIZED);
    assert_int_equal(alpi_task_events_decrease(t, 1), ALPI_ERR_NOT_INITIALIZED);
    assert_int_equal(alpi_task_spawn(noop, NULL, NULL, NULL, "x", NULL),
                     ALPI_ERR_NOT_INITIALIZED);
    assert_int_equal(alpi_task_waitfor_ns(1, NULL), ALPI_ERR_NOT_INITIALIZED);
}

static void test_versions_and_errors(void **state)
{
    (void)state;
    int major = -1, minor = -1;
    assert_int_equal(alpi_version_get(&major, &minor), ALPI_SUCCESS);
    assert_int_equal(major, ALPI_VERSION_MAJOR);
    assert_int_equal(minor, ALPI_VERSION_MINOR);
    assert_int_equal(alpi_version_get(NULL, &minor), ALPI_ERR_PARAMETER);
    assert_int_equal(alpi_version_get(&major, NULL), ALPI_ERR_PARAMETER);

    assert_int_equal(alpi_version_check(ALPI_VERSION_MAJOR, ALPI_VERSION_MINOR), ALPI_SUCCESS);
    assert_int_equal(alpi_version_check(1, 0), ALPI_SUCCESS);
    /* a newer minor, another major, nonsense: incompatible */
    assert_int_equal(alpi_version_check(1, 1), ALPI_ERR_VERSION);
    assert_int_equal(alpi_version_check(1, 2), ALPI_ERR_VERSION);
    assert_int_equal(alpi_version_check(2, 0), ALPI_ERR_VERSION);
    assert_int_equal(alpi_version_check(0, 9), ALPI_ERR_VERSION);
    assert_int_equal(alpi_version_check(1, -1), ALPI_ERR_VERSION);
    assert_int_equal(alpi_version_check(-1, 0), ALPI_ERR_VERSION);

    const char *seen[ALPI_ERR_MAX];
    for (int e = 0; e < ALPI_ERR_MAX; e++) {
        seen[e] = alpi_error_string(e);
        assert_non_null(seen[e]);
        assert_true(strlen(seen[e]) > 0);
        for (int k = 0; k < e; k++)
            assert_string_not_equal(seen[k], seen[e]);
    }
    assert_string_equal(alpi_error_string(ALPI_ERR_MAX), "Error code not recognized");
    assert_string_equal(alpi_error_string(-1), "Error code not recognized");
}

static void test_attrs(void **state)
{
    (void)state;
    struct alpi_attr *a = NULL;
    uint64_t size = 0;
    assert_int_equal(alpi_attr_create(NULL), ALPI_ERR_PARAMETER);
    assert_int_equal(alpi_attr_create(&a), ALPI_SUCCESS);
    assert_non_null(a);
    assert_int_equal(alpi_attr_init(a), ALPI_SUCCESS);
    assert_int_equal(alpi_attr_init(NULL), ALPI_ERR_PARAMETER);
    assert_int_equal(alpi_attr_destroy(a), ALPI_SUCCESS);
    assert_int_equal(alpi_attr_destroy(NULL), ALPI_ERR_PARAMETER);
    assert_int_equal(alpi_attr_size(NULL), ALPI_ERR_PARAMETER);
    assert_int_equal(alpi_attr_size(&size), ALPI_SUCCESS);
    assert_true(size > 0 && size <= 4096);
    /* the caller's own memory, initialised, is a valid attributes block */
    void *mine = calloc(1, size);
    assert_non_null(mine);
    assert_int_equal(alpi_attr_destroy(mine), ALPI_ERR_PARAMETER);   /* never initialised */
    assert_int_equal(alpi_attr_init(mine), ALPI_SUCCESS);
    free(mine);
}

/* ---- with a runtime ---- */

/* On a thread that is not a worker there is no task. */
static void *outside_checks(void *arg)
{
    int *bad = arg;
    struct alpi_task *t = (struct alpi_task *)&t;
    uint64_t v;
    struct alpi_task *some = (struct alpi_task *)&v;
    *bad += alpi_task_self(&t) != ALPI_SUCCESS || t != NULL;
    *bad += alpi_task_block(some) != ALPI_ERR_OUTSIDE_TASK;
    *bad += alpi_task_events_increase(some, 1) != ALPI_ERR_OUTSIDE_TASK;
    *bad += alpi_task_events_test(some, &v) != ALPI_ERR_OUTSIDE_TASK;
    *bad += alpi_task_waitfor_ns(1000, &v) != ALPI_ERR_OUTSIDE_TASK;
    *bad += alpi_cpu_logical_id(&v) != ALPI_ERR_OUTSIDE_TASK;
    *bad += alpi_cpu_system_id(&v) != ALPI_ERR_OUTSIDE_TASK;
    return NULL;
}

static void test_outside_task(void **state)
{
    (void)state;
    struct alpi_task *t = (struct alpi_task *)&t;
    uint64_t v;
    assert_int_equal(alpi_task_self(NULL), ALPI_ERR_PARAMETER);
    /* main is a task after locus_init (as under OmpSs-2): its handle, its
     * worker, and it may wait */
    assert_int_equal(alpi_task_self(&t), ALPI_SUCCESS);
    assert_non_null(t);
    assert_ptr_equal((void *)t, (void *)locus_task_current());
    assert_int_equal(alpi_cpu_logical_id(&v), ALPI_SUCCESS);
    assert_int_equal((int)v, 0);
    assert_int_equal(alpi_cpu_system_id(&v), ALPI_SUCCESS);
    assert_int_equal(alpi_task_waitfor_ns(1000, &v), ALPI_SUCCESS);
    assert_true(v >= 1000);
    struct alpi_task *some = (struct alpi_task *)&v;
    assert_int_equal(alpi_task_block(some), ALPI_ERR_PARAMETER);   /* not its own handle */
    assert_int_equal(alpi_task_events_increase(some, 1), ALPI_ERR_PARAMETER);
    int outside_bad = 0;
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, outside_checks, &outside_bad), 0);
    pthread_join(th, NULL);
    assert_int_equal(outside_bad, 0);
    assert_int_equal(alpi_task_unblock(NULL), ALPI_ERR_PARAMETER);
    assert_int_equal(alpi_task_events_decrease(NULL, 1), ALPI_ERR_PARAMETER);
    assert_int_equal(alpi_cpu_count(NULL), ALPI_ERR_PARAMETER);
    assert_int_equal(alpi_cpu_count(&v), ALPI_SUCCESS);
    assert_int_equal((int)v, locus_num_workers());
    assert_int_equal(alpi_task_spawn(NULL, NULL, NULL, NULL, NULL, NULL), ALPI_ERR_PARAMETER);
    uint64_t size = 0;
    assert_int_equal(alpi_attr_size(&size), ALPI_SUCCESS);
    void *bad = calloc(1, size);   /* never initialised */
    assert_non_null(bad);
    assert_int_equal(alpi_task_spawn(noop, NULL, NULL, NULL, NULL, bad),
                     ALPI_ERR_PARAMETER);
    free(bad);
}

static void in_task_checks(void *arg)
{
    (void)arg;
    struct alpi_task *me = NULL, *other = (struct alpi_task *)&me;
    uint64_t v = 7, count = 0;
    CHECK(alpi_task_self(&me) == ALPI_SUCCESS && me != NULL);
    CHECK((void *)me == (void *)locus_task_current());
    /* ALPI's "own handle" rule: another handle is a bad parameter */
    CHECK(alpi_task_block(other) == ALPI_ERR_PARAMETER);
    CHECK(alpi_task_block(NULL) == ALPI_ERR_PARAMETER);
    CHECK(alpi_task_events_increase(other, 1) == ALPI_ERR_PARAMETER);
    CHECK(alpi_task_events_test(other, &v) == ALPI_ERR_PARAMETER);
    CHECK(alpi_task_events_test(me, NULL) == ALPI_ERR_PARAMETER);
    CHECK(alpi_task_events_increase(me, (uint64_t)1 << 40) == ALPI_ERR_PARAMETER);
    CHECK(alpi_task_events_decrease(me, 1) == ALPI_ERR_PARAMETER);   /* none outstanding */
    /* increase, test, decrease on itself */
    CHECK(alpi_task_events_test(me, &v) == ALPI_SUCCESS && v == 0);
    CHECK(alpi_task_events_increase(me, 0) == ALPI_SUCCESS);
    CHECK(alpi_task_events_test(me, &v) == ALPI_SUCCESS && v == 0);
    CHECK(alpi_task_events_increase(me, 2) == ALPI_SUCCESS);
    CHECK(alpi_task_events_test(me, &v) == ALPI_SUCCESS && v == 1);
    CHECK(alpi_task_events_decrease(me, 3) == ALPI_ERR_PARAMETER);   /* more than outstanding */
    CHECK(alpi_task_events_decrease(me, 0) == ALPI_SUCCESS);
    CHECK(alpi_task_events_decrease(me, 2) == ALPI_SUCCESS);
    CHECK(alpi_task_events_test(me, &v) == ALPI_SUCCESS && v == 0);
    /* CPUs */
    CHECK(alpi_cpu_count(&count) == ALPI_SUCCESS);
    CHECK(alpi_cpu_logical_id(&v) == ALPI_SUCCESS && v < count
          && (int)v == locus_worker_id());
    CHECK(alpi_cpu_logical_id(NULL) == ALPI_ERR_PARAMETER);
    CHECK(alpi_cpu_system_id(&v) == ALPI_SUCCESS && v < CPU_SETSIZE);
    CHECK(alpi_cpu_system_id(NULL) == ALPI_ERR_PARAMETER);
    /* unblock before block: returns at once */
    CHECK(alpi_task_unblock(me) == ALPI_SUCCESS);
    CHECK(alpi_task_block(me) == ALPI_SUCCESS);
}

static void test_in_task(void **state)
{
    (void)state;
    for (int i = 0; i < 8; i++)
        assert_int_equal(locus_spawn(in_task_checks, NULL, 0, NULL, 0), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(atomic_load(&g_bad), 0);
}

/* Block/unblock from a thread that is not a worker. */
#define NB 24
static _Atomic(struct alpi_task *) blocked[NB];
static _Atomic int unblocked[NB], resumed[NB];

static void block_body(void *arg)
{
    int i = *(int *)arg;
    struct alpi_task *me = NULL;
    CHECK(alpi_task_self(&me) == ALPI_SUCCESS);
    atomic_store(&blocked[i], me);
    CHECK(alpi_task_block(me) == ALPI_SUCCESS);
    CHECK(atomic_load(&unblocked[i]));
    atomic_store(&resumed[i], 1);
}

static void *unblock_thread(void *arg)
{
    (void)arg;
    for (int left = NB; left > 0;) {
        for (int i = 0; i < NB; i++) {
            struct alpi_task *t = atomic_load(&blocked[i]);
            if (!t || atomic_load(&unblocked[i]))
                continue;
            if (i % 2)
                pause_a_little();   /* after the block, mostly; before it, sometimes */
            atomic_store(&unblocked[i], 1);
            CHECK(alpi_task_unblock(t) == ALPI_SUCCESS);
            left--;
        }
        sched_yield();
    }
    return NULL;
}

static void test_block_unblock(void **state)
{
    (void)state;
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, unblock_thread, NULL), 0);
    for (int i = 0; i < NB; i++)
        assert_int_equal(locus_spawn(block_body, &i, sizeof i, NULL, 0), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    for (int i = 0; i < NB; i++)
        assert_int_equal(atomic_load(&resumed[i]), 1);
    assert_int_equal(atomic_load(&g_bad), 0);
}

/* Events fulfilled by a thread that is not a worker, after the body. */
#define NE 32
static _Atomic(struct alpi_task *) ev_task[NE];
static _Atomic int ev_done[NE], ev_body_done[NE];
static int ev_cell[NE];

static void ev_body(void *arg)
{
    int i = *(int *)arg;
    struct alpi_task *me = NULL;
    CHECK(alpi_task_self(&me) == ALPI_SUCCESS);
    CHECK(alpi_task_events_increase(me, 2) == ALPI_SUCCESS);
    ev_cell[i] = i + 1;
    atomic_store(&ev_task[i], me);
    atomic_store(&ev_body_done[i], 1);
}

static void ev_succ(void *arg)
{
    int i = *(int *)arg;
    CHECK(atomic_load(&ev_done[i]) && ev_cell[i] == i + 1);
}

static void *fulfil_thread(void *arg)
{
    (void)arg;
    for (int left = NE; left > 0;) {
        for (int i = 0; i < NE; i++) {
            struct alpi_task *t = atomic_load(&ev_task[i]);
            if (!t || atomic_load(&ev_done[i]) || !atomic_load(&ev_body_done[i]))
                continue;
            pause_a_little();
            CHECK(alpi_task_events_decrease(t, 1) == ALPI_SUCCESS);
            atomic_store(&ev_done[i], 1);
            CHECK(alpi_task_events_decrease(t, 1) == ALPI_SUCCESS);
            left--;
        }
        sched_yield();
    }
    return NULL;
}

static void test_events(void **state)
{
    (void)state;
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, fulfil_thread, NULL), 0);
    for (int i = 0; i < NE; i++) {
        assert_int_equal(locus_task(ev_body, &i, sizeof i, LOCUS_OUT(&ev_cell[i], sizeof(int))), 0);
        assert_int_equal(locus_task(ev_succ, &i, sizeof i, LOCUS_IN(&ev_cell[i], sizeof(int))), 0);
    }
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    for (int i = 0; i < NE; i++)
        assert_int_equal(atomic_load(&ev_done[i]), 1);
    assert_int_equal(atomic_load(&g_bad), 0);
}

/* waitfor: at least the time asked; the worker runs other tasks meanwhile. */
static _Atomic int side_ran;
static void side_task(void *arg) { (void)arg; atomic_store(&side_ran, 1); }

static void waiting_task(void *arg)
{
    (void)arg;
    uint64_t actual = 0;
    CHECK(locus_spawn(side_task, NULL, 0, NULL, 0) == 0);
    CHECK(alpi_task_waitfor_ns(20000000, &actual) == ALPI_SUCCESS);   /* 20 ms */
    CHECK(actual >= 20000000);
    CHECK(atomic_load(&side_ran) == 1);   /* run by this very worker while it waited */
    /* an unblock that came first is not eaten by the wait */
    struct alpi_task *me = NULL;
    CHECK(alpi_task_self(&me) == ALPI_SUCCESS);
    CHECK(alpi_task_unblock(me) == ALPI_SUCCESS);
    CHECK(alpi_task_waitfor_ns(1000000, &actual) == ALPI_SUCCESS && actual >= 1000000);
    CHECK(alpi_task_block(me) == ALPI_SUCCESS);   /* takes the token given before */
    CHECK(alpi_task_waitfor_ns(0, NULL) == ALPI_SUCCESS);
}

static void test_waitfor_one_worker(void **state)
{
    (void)state;
    setenv("LOCUS_THREADS", "1", 1);
    setenv("LOCUS_GRAIN_NS", "0", 1);   /* the side task is queued, not run at its spawn */
    assert_int_equal(locus_init(), 0);
    unsetenv("LOCUS_THREADS");
    unsetenv("LOCUS_GRAIN_NS");
    atomic_store(&side_ran, 0);
    assert_int_equal(locus_spawn(waiting_task, NULL, 0, NULL, 0), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(locus_finalize(), 0);
    assert_int_equal(atomic_load(&g_bad), 0);
}

/* Independent tasks and their completion callbacks. */
#define NS 40
static _Atomic int sp_body[NS], sp_fulfilled[NS], sp_callback[NS];
static _Atomic(struct alpi_task *) sp_task[NS];

static void sp_body_fn(void *arg)
{
    int i = (int)(intptr_t)arg;
    struct alpi_task *me = NULL;
    CHECK(alpi_task_self(&me) == ALPI_SUCCESS && me != NULL);
    if (i % 2) {   /* half keep an event a foreign thread fulfils */
        CHECK(alpi_task_events_increase(me, 1) == ALPI_SUCCESS);
        atomic_store(&sp_task[i], me);
    }
    atomic_store(&sp_body[i], 1);
}

static void sp_done_fn(void *arg)
{
    int i = (int)(intptr_t)arg;
    /* complete: the body returned and its event was fulfilled */
    CHECK(atomic_load(&sp_body[i]) && (i % 2 == 0 || atomic_load(&sp_fulfilled[i])));
    CHECK(atomic_fetch_add(&sp_callback[i], 1) == 0);
}

static void *sp_fulfil_thread(void *arg)
{
    (void)arg;
    for (int left = NS / 2; left > 0;) {
        for (int i = 1; i < NS; i += 2) {
            struct alpi_task *t = atomic_exchange(&sp_task[i], NULL);
            if (!t)
                continue;
            pause_a_little();
            if (atomic_load(&sp_callback[i]))
                atomic_fetch_add(&g_bad, 1);   /* completed before its event */
            atomic_store(&sp_fulfilled[i], 1);
            CHECK(alpi_task_events_decrease(t, 1) == ALPI_SUCCESS);
            left--;
        }
        sched_yield();
    }
    return NULL;
}

static void *sp_spawn_thread(void *arg)
{
    (void)arg;
    /* a thread that is not a worker spawns a third of them */
    for (int i = 0; i < NS; i += 3)
        CHECK(alpi_task_spawn(sp_body_fn, (void *)(intptr_t)i, sp_done_fn, (void *)(intptr_t)i,
                              "foreign", NULL) == ALPI_SUCCESS);
    return NULL;
}

static void sp_spawn_task(void *arg)
{
    (void)arg;
    struct alpi_attr *a = NULL;
    CHECK(alpi_attr_create(&a) == ALPI_SUCCESS);
    for (int i = 1; i < NS; i += 3)
        CHECK(alpi_task_spawn(sp_body_fn, (void *)(intptr_t)i, sp_done_fn, (void *)(intptr_t)i,
                              "from a task", a) == ALPI_SUCCESS);
    CHECK(alpi_attr_destroy(a) == ALPI_SUCCESS);
}

static void test_spawn(void **state)
{
    (void)state;
    assert_int_equal(locus_init(), 0);
    pthread_t ful, spw;
    assert_int_equal(pthread_create(&ful, NULL, sp_fulfil_thread, NULL), 0);
    assert_int_equal(pthread_create(&spw, NULL, sp_spawn_thread, NULL), 0);
    assert_int_equal(locus_spawn(sp_spawn_task, NULL, 0, NULL, 0), 0);
    for (int i = 2; i < NS; i += 3)   /* and the initial thread the rest */
        assert_int_equal(alpi_task_spawn(sp_body_fn, (void *)(intptr_t)i, sp_done_fn,
                                         (void *)(intptr_t)i, NULL, NULL), ALPI_SUCCESS);
    assert_int_equal(pthread_join(spw, NULL), 0);
    assert_int_equal(locus_taskwait(), 0);   /* not theirs: independent tasks */
    assert_int_equal(pthread_join(ful, NULL), 0);
    /* locus_finalize waits for every independent task and its callback */
    assert_int_equal(locus_finalize(), 0);
    for (int i = 0; i < NS; i++)
        assert_int_equal(atomic_load(&sp_callback[i]), 1);
    assert_int_equal(atomic_load(&g_bad), 0);
}

static int group_setup(void **state)
{
    (void)state;
    return locus_init() == 0 ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    return locus_finalize() == 0 ? 0 : -1;
}

static void on_alarm(int sig)
{
    static const char msg[] = "test_alpi: watchdog expired (deadlock?)\n";
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0) { /* nothing more to do */ }
    _exit(124);
}

int main(void)
{
    const struct CMUnitTest alone[] = {
        cmocka_unit_test(test_no_runtime),
        cmocka_unit_test(test_versions_and_errors),
        cmocka_unit_test(test_attrs),
        cmocka_unit_test(test_waitfor_one_worker),
        cmocka_unit_test(test_spawn),
    };
    const struct CMUnitTest running[] = {
        cmocka_unit_test(test_outside_task),
        cmocka_unit_test(test_in_task),
        cmocka_unit_test(test_block_unblock),
        cmocka_unit_test(test_events),
    };
    signal(SIGALRM, on_alarm);
    alarm(sanitizer() ? 600 : 120);
    int failed = cmocka_run_group_tests(alone, NULL, NULL);
    failed += cmocka_run_group_tests(running, group_setup, group_teardown);
    return failed;
}
