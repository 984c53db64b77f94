/*
 * test_api_errors.c - every error locus.h documents, through the public API
 * only: bad spawn arguments (-EINVAL, nothing created), calls before init or
 * after finalize (-EPERM), init twice (-EALREADY), finalize inside a task
 * (-EDEADLK), calls from a foreign pthread (-ENOTSUP), locus_strerror and
 * locus_error_message, and bad LOCUS_* values (-EINVAL naming the variable
 * and the value, with nothing left half-initialised).
 * Each test starts and ends with the runtime stopped.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "locus.h"

static _Atomic int g_ran;

static void count_body(void *arg)
{
    (void)arg;
    atomic_fetch_add(&g_ran, 1);
}

/* rc must be err, and the thread's message must say something */
static void expect_err(int rc, int err, const char *what)
{
    if (rc != err)
        print_error("%s: got %d (%s), want %d (%s)\n", what, rc, locus_strerror(rc), err,
                    locus_strerror(err));
    assert_int_equal(rc, err);
    const char *m = locus_error_message();
    assert_non_null(m);
    if (m[0] == '\0')
        print_error("%s: empty locus_error_message() after %d\n", what, rc);
    assert_true(m[0] != '\0');
}

static void init_ok(void)
{
    int rc = locus_init();
    if (rc != 0)
        print_error("locus_init: %s (%s)\n", locus_strerror(rc), locus_error_message());
    assert_int_equal(rc, 0);
}

/* A running runtime can take a task and wait for it. */
static void check_usable(void)
{
    atomic_store(&g_ran, 0);
    assert_int_equal(locus_spawn(count_body, NULL, 0, NULL, 0), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(atomic_load(&g_ran), 1);
}

static void test_api_version(void **state)
{
    (void)state;
    assert_int_equal(locus_get_api_version(), LOCUS_API_VERSION);
}

static void test_not_running(void **state)
{
    (void)state;
    for (int round = 0; round < 2; round++) {
        /* round 0: never initialised; round 1: after a finalize */
        expect_err(locus_spawn(count_body, NULL, 0, NULL, 0), -EPERM, "spawn");
        expect_err(locus_taskwait(), -EPERM, "taskwait");
        expect_err(locus_finalize(), -EPERM, "finalize");
        expect_err(locus_num_workers(), -EPERM, "num_workers");
        expect_err(locus_num_nodes(), -EPERM, "num_nodes");
        if (round == 0) {
            init_ok();
            check_usable();
            assert_int_equal(locus_finalize(), 0);
        }
    }
    assert_int_equal(atomic_load(&g_ran), 1);
}

static void test_init_twice(void **state)
{
    (void)state;
    init_ok();
    int n = locus_num_workers();
    expect_err(locus_init(), -EALREADY, "second init");
    assert_int_equal(locus_num_workers(), n);
    check_usable();
    assert_int_equal(locus_finalize(), 0);
    expect_err(locus_finalize(), -EPERM, "second finalize");
}

static int g_x;

static void test_bad_spawn_args(void **state)
{
    (void)state;
    const void *top = (const void *)(UINTPTR_MAX - 10);
    const locus_dep_t good = LOCUS_OUT(&g_x, sizeof g_x);
    const locus_dep_t bad[] = {
        { NULL, 4, LOCUS_ACCESS_IN },                  /* NULL address */
        { &g_x, 0, LOCUS_ACCESS_INOUT },               /* size 0 */
        { top, 100, LOCUS_ACCESS_IN },                 /* wraps past the end */
        { (const void *)1, SIZE_MAX, LOCUS_ACCESS_OUT },
        { (const void *)UINTPTR_MAX, 2, LOCUS_ACCESS_CONCURRENT },
        { &g_x, sizeof g_x, (locus_access_t)0 },       /* unknown access modes */
        { &g_x, sizeof g_x, (locus_access_t)5 },
        { &g_x, sizeof g_x, (locus_access_t)7 },
        { &g_x, sizeof g_x, (locus_access_t)8 },
        { &g_x, sizeof g_x, (locus_access_t)-1 },
    };
    init_ok();
    atomic_store(&g_ran, 0);
    expect_err(locus_spawn(NULL, NULL, 0, NULL, 0), -EINVAL, "NULL fn");
    expect_err(locus_spawn(NULL, &g_x, sizeof g_x, &good, 1), -EINVAL, "NULL fn with deps");
    expect_err(locus_spawn(count_body, NULL, 0, NULL, 1), -EINVAL, "NULL deps, ndeps 1");
    expect_err(locus_spawn(count_body, &g_x, sizeof g_x, NULL, 3), -EINVAL, "NULL deps, ndeps 3");
    /* nothing to copy arg_size bytes from: refused, with or without deps */
    expect_err(locus_spawn(count_body, NULL, 8, NULL, 0), -EINVAL, "NULL arg, arg_size 8");
    assert_non_null(strstr(locus_error_message(), "arg is NULL but arg_size is 8"));
    expect_err(locus_spawn(count_body, NULL, 1, &good, 1), -EINVAL, "NULL arg, arg_size 1, deps");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "bad dep #%zu alone", i);
        expect_err(locus_spawn(count_body, NULL, 0, &bad[i], 1), -EINVAL, what);
        /* a good dependency first: still nothing may be created */
        locus_dep_t two[3] = { good, LOCUS_IN((char *)&g_x + 1, 1), bad[i] };
        snprintf(what, sizeof what, "bad dep #%zu after good ones", i);
        expect_err(locus_spawn(count_body, &g_x, sizeof g_x, two, 3), -EINVAL, what);
    }
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(atomic_load(&g_ran), 0);

    /* valid edge cases: no deps with or without a pointer, and g_x is not
     * held by a ghost of the failed spawns */
    assert_int_equal(locus_spawn(count_body, NULL, 0, &good, 0), 0);
    assert_int_equal(locus_spawn(count_body, NULL, 0, NULL, 0), 0);
    assert_int_equal(locus_spawn(count_body, NULL, 0, &good, 1), 0);
    assert_int_equal(locus_task(count_body, NULL, 0, LOCUS_IN(&g_x, 1), LOCUS_INOUT(&g_x, 4)), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(atomic_load(&g_ran), 4);
    assert_int_equal(locus_finalize(), 0);
}

static _Atomic int g_inner_rc = 1;
static char g_inner_msg[256];

static void finalize_inside_body(void *arg)
{
    (void)arg;
    int rc = locus_finalize();
    snprintf(g_inner_msg, sizeof g_inner_msg, "%s", locus_error_message());
    atomic_store(&g_inner_rc, rc);
}

static void test_finalize_inside_task(void **state)
{
    (void)state;
    init_ok();
    for (int i = 0; i < 3; i++) {
        atomic_store(&g_inner_rc, 1);
        g_inner_msg[0] = '\0';
        assert_int_equal(locus_spawn(finalize_inside_body, NULL, 0, NULL, 0), 0);
        assert_int_equal(locus_taskwait(), 0);
        assert_int_equal(atomic_load(&g_inner_rc), -EDEADLK);
        assert_true(g_inner_msg[0] != '\0');
    }
    check_usable();
    assert_int_equal(locus_finalize(), 0);
}

struct foreign_result {
    int msg_before_empty;
    int spawn_rc, taskwait_rc, nworkers;
    int msg_after_nonempty;
};

static void *foreign_thread(void *arg)
{
    struct foreign_result *r = arg;
    r->msg_before_empty = locus_error_message() != NULL && locus_error_message()[0] == '\0';
    r->spawn_rc = locus_spawn(count_body, NULL, 0, NULL, 0);
    r->msg_after_nonempty = locus_error_message() != NULL && locus_error_message()[0] != '\0';
    r->taskwait_rc = locus_taskwait();
    r->nworkers = locus_num_workers();
    return NULL;
}

static void test_foreign_thread(void **state)
{
    (void)state;
    init_ok();
    atomic_store(&g_ran, 0);
    struct foreign_result r;
    memset(&r, 0, sizeof r);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, foreign_thread, &r), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_true(r.msg_before_empty);
    assert_int_equal(r.spawn_rc, -ENOTSUP);
    assert_true(r.msg_after_nonempty);
    assert_int_equal(r.taskwait_rc, -ENOTSUP);
    assert_int_equal(r.nworkers, locus_num_workers());
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(atomic_load(&g_ran), 0);
    check_usable();
    assert_int_equal(locus_finalize(), 0);
}

static void test_strerror(void **state)
{
    (void)state;
    /* every code the library returns itself (a34be7c called -EAGAIN and
     * -EISDIR "unknown") */
    static const int known[] = { -EINVAL, -EPERM, -EALREADY, -EDEADLK, -ENOTSUP, -ENOMEM, -ENOENT,
                                 -EACCES, -ENOTDIR, -EEXIST, -ENOSPC, -EIO, -ENAMETOOLONG,
                                 -EAGAIN, -EISDIR, -E2BIG, -ENOSYS, -ENODEV };
    static const int unknown[] = { -9999, -100000, INT_MIN, 12345 };
    enum { NK = sizeof known / sizeof known[0], NU = sizeof unknown / sizeof unknown[0] };
    char text[NK + NU][256];
    for (int i = 0; i < NK + NU; i++) {
        int code = i < NK ? known[i] : unknown[i - NK];
        const char *s = locus_strerror(code);
        assert_non_null(s);
        assert_true(s[0] != '\0');
        /* copy: the text may live in a buffer a later call reuses */
        snprintf(text[i], sizeof text[i], "%s", s);
    }
    for (int i = 0; i < NK + NU; i++)
        for (int j = 0; j < NK; j++)
            if (i != j && strcmp(text[i], text[j]) == 0) {
                print_error("locus_strerror gives the same text for codes #%d and #%d: '%s'\n",
                            i, j, text[i]);
                fail();
            }
    assert_non_null(locus_strerror(0));
    for (int i = 0; i < NK; i++)
        if (strstr(text[i], "unknown"))
            fail_msg("locus_strerror(%d): '%s'", known[i], text[i]);
    /* an errno value from a system call the library made: the system's words */
    assert_string_equal(locus_strerror(-EROFS), strerror(EROFS));
    assert_non_null(strstr(locus_strerror(-9999), "unknown"));
}

static const char *const g_vars[] = { "LOCUS_THREADS", "LOCUS_BIND", "LOCUS_REGIME",
                                      "LOCUS_SPIN", "LOCUS_TOPOLOGY" };
enum { NVARS = sizeof g_vars / sizeof g_vars[0] };
static char *g_saved[NVARS];

/* Back to the caller's values (e.g. a LOCUS_REGIME chosen for the run). */
static void restore_vars(void)
{
    for (int i = 0; i < NVARS; i++) {
        if (g_saved[i])
            setenv(g_vars[i], g_saved[i], 1);
        else
            unsetenv(g_vars[i]);
    }
}

static void test_bad_environment(void **state)
{
    (void)state;
    static const struct { const char *var, *value; int alt_err; } cases[] = {
        { "LOCUS_THREADS", "abc", 0 },
        { "LOCUS_THREADS", "0", 0 },
        { "LOCUS_THREADS", "99999", 0 },
        { "LOCUS_THREADS", "-2", 0 },
        { "LOCUS_THREADS", "3x", 0 },
        { "LOCUS_BIND", "maybe", 0 },
        { "LOCUS_REGIME", "fast", 0 },
        { "LOCUS_SPIN", "-1", 0 },
        { "LOCUS_SPIN", "lots", 0 },
        { "LOCUS_TOPOLOGY", "no-such-topology-xyz", -ENOENT },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        restore_vars();
        setenv(cases[i].var, cases[i].value, 1);
        int rc = locus_init();
        if (rc != -EINVAL && !(cases[i].alt_err && rc == cases[i].alt_err)) {
            print_error("%s=%s: locus_init gave %d (%s), want -EINVAL\n", cases[i].var,
                        cases[i].value, rc, locus_strerror(rc));
            if (rc == 0)
                locus_finalize();
            fail();
        }
        const char *m = locus_error_message();
        assert_non_null(m);
        if (!strstr(m, cases[i].var) || !strstr(m, cases[i].value)) {
            print_error("%s=%s: message does not name variable and value: '%s'\n",
                        cases[i].var, cases[i].value, m);
            fail();
        }
        /* nothing half-initialised: still stopped, and a good start works */
        expect_err(locus_num_workers(), -EPERM, "num_workers after failed init");
        expect_err(locus_spawn(count_body, NULL, 0, NULL, 0), -EPERM, "spawn after failed init");
        restore_vars();
        setenv("LOCUS_THREADS", "2", 1);
        init_ok();
        assert_int_equal(locus_num_workers(), 2);
        check_usable();
        assert_int_equal(locus_finalize(), 0);
    }
    restore_vars();
}

static int group_setup(void **state)
{
    (void)state;
    for (int i = 0; i < NVARS; i++) {
        const char *v = getenv(g_vars[i]);
        g_saved[i] = v ? strdup(v) : NULL;
    }
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    restore_vars();
    for (int i = 0; i < NVARS; i++)
        free(g_saved[i]);
    return 0;
}

/* After a failed assertion the runtime may still be up: stop it. */
static int teardown_stop(void **state)
{
    (void)state;
    int rc = locus_finalize();
    return rc == 0 || rc == -EPERM ? 0 : -1;
}

static void on_alarm(int sig)
{
    static const char msg[] = "test_api_errors: watchdog expired (deadlock?)\n";
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0) { /* nothing more to do */ }
    _exit(124);
}

#define T(f) cmocka_unit_test_teardown(f, teardown_stop)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_api_version),
        T(test_not_running),
        T(test_init_twice),
        T(test_bad_spawn_args),
        T(test_finalize_inside_task),
        T(test_foreign_thread),
        T(test_strerror),
        T(test_bad_environment),
    };
    const char *san = getenv("LOCUS_TEST_SANITIZER");
    signal(SIGALRM, on_alarm);
    alarm(san && *san ? 600 : 120);
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
