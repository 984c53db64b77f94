/*
 * test_robust.c - programs that libgomp runs and Locus once did not, as a
 * hostile user wrote them against locus.h (the gcc -fopenmp forms are in
 * tests/gomp/omp_robust.c, run by test_gomp):
 *  - the throttle: a spawner holding LOCUS_THROTTLE incomplete children
 *    whose progress needs the spawner itself (a task with an event only
 *    the spawner fulfils, and 20000 tasks after it) must not wait for ever;
 *  - a spawner waiting, without a scheduling point, for a task NAFT
 *    queued on the spawner's own node (bound there as first-touch, or
 *    data-bound): another node's idle worker must run it;
 *  - a chain of spawns (each task spawns one child and returns) of 10^7
 *    tasks, on one and two workers, with and without bodies timed short:
 *    no stack may overflow;
 *  - allocation failure, including after a first failure and in workers
 *    whose first allocation comes then: an error code, never a crash
 *    (with the address space really exhausted where no sanitizer is in
 *    the way, with failures injected under one);
 *  - reductions of sizes that cannot be had: refused, not zero-filled into
 *    the OOM killer;
 *  - task references: a stale one (its task complete, its descriptor
 *    carrying another task) and one that never was get -EINVAL and change
 *    nothing;
 *  - locus_finalize waiting for an event nobody fulfils says so;
 *  - a sanitizer build sees a body that writes past its argument copy and
 *    one that reads it after its task completed (checked in the ASan stage).
 * Each scenario that could hang or die runs in a child process with a
 * deadline, so that a failure fails its case and not the suite.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "locus.h"
#include "support.h"

static const char *sanitizer(void)
{
    const char *s = getenv("LOCUS_TEST_SANITIZER");
    return s && strcmp(s, "none") != 0 && s[0] ? s : NULL;
}

/* ---- running a scenario in a child ---- */

struct child {
    int status;          /* as from waitpid; -1: killed at its deadline */
    char err[32768];     /* its stderr */
};

/* Runs fn(arg) in a child with the environment pairs set ("NAME=VALUE",
 * NULL-terminated), which exits with fn's return value; kills it after
 * seconds. */
static void in_child(struct child *c, int (*fn)(void *), void *arg, const char *const *env,
                     int seconds)
{
    char name[] = "/tmp/test_robust_err.XXXXXX";
    int fd = mkstemp(name);
    assert_true(fd >= 0);
    unlink(name);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fd, 2);
        for (; env && *env; env++)
            putenv((char *)*env);
        _exit(fn(arg));
    }
    struct timespec tick = { 0, 10 * 1000 * 1000 };
    long waited = 0;
    c->status = 0;
    while (waitpid(pid, &c->status, WNOHANG) == 0) {
        if (++waited > 100L * seconds) {
            kill(pid, SIGKILL);
            waitpid(pid, &c->status, 0);
            c->status = -1;
            break;
        }
        nanosleep(&tick, NULL);
    }
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, c->err, sizeof c->err - 1);
    c->err[n > 0 ? n : 0] = 0;
    close(fd);
}

static void expect_exit0(const struct child *c, const char *what)
{
    if (c->status == -1)
        fail_msg("%s: still running at its deadline (a hang)\nstderr:\n%s", what, c->err);
    if (!WIFEXITED(c->status) || WEXITSTATUS(c->status) != 0)
        fail_msg("%s: %s %d\nstderr:\n%s", what,
                 WIFSIGNALED(c->status) ? "killed by signal" : "exit status",
                 WIFSIGNALED(c->status) ? WTERMSIG(c->status) : WEXITSTATUS(c->status),
                 c->err);
}

/* ---- the throttle ---- */

static int hold_x;
static _Atomic(locus_task_ref_t) held;
static atomic_long readers_ran;

static void hold(void *arg)
{
    (void)arg;
    locus_task_ref_t me = locus_task_current();
    if (locus_task_events_increase(me, 1) == 0)
        atomic_store(&held, me);
}

static void reader(void *arg)
{
    (void)arg;
    atomic_fetch_add(&readers_ran, 1);
}

/* A task with an event only the spawner fulfils, then n tasks after it:
 * the spawner passes the throttle (8192 by default) long before it gets
 * to the fulfilment. */
static int throttle_scenario(void *arg)
{
    long n = *(long *)arg;
    if (locus_init() != 0)
        return 10;
    atomic_store(&held, NULL);
    atomic_store(&readers_ran, 0);
    if (locus_task(hold, NULL, 0, LOCUS_OUT(&hold_x, sizeof hold_x)) != 0)
        return 11;
    for (long i = 0; i < n; i++)
        if (locus_task(reader, NULL, 0, LOCUS_IN(&hold_x, sizeof hold_x)) != 0)
            return 12;
    locus_task_ref_t h;
    while (!(h = atomic_load(&held)))
        sched_yield();
    if (locus_task_events_decrease(h, 1) != 0)
        return 13;
    if (locus_taskwait() != 0 || atomic_load(&readers_ran) != n)
        return 14;
    return locus_finalize() != 0 ? 15 : 0;
}

static void test_throttle_never_waits_for_its_spawner(void **state)
{
    (void)state;
    static const char *const envs[][4] = {
        { "LOCUS_THREADS=2", "LOCUS_REGIME=naft", NULL },
        { "LOCUS_THREADS=2", "LOCUS_REGIME=dft", NULL },
        { "LOCUS_THREADS=1", NULL },
        { "LOCUS_THREADS=3", "LOCUS_TOPOLOGY=4s", "LOCUS_REGIME=naft", NULL },
        { "LOCUS_THREADS=2", "LOCUS_THROTTLE=16", NULL },
    };
    long n = 20000;
    for (size_t i = 0; i < sizeof envs / sizeof envs[0]; i++) {
        struct child c;
        in_child(&c, throttle_scenario, &n, envs[i], sanitizer() ? 240 : 60);
        char what[128];
        snprintf(what, sizeof what, "20000 tasks behind an event the spawner fulfils (%s %s)",
                 envs[i][0], envs[i][1] ? envs[i][1] : "");
        expect_exit0(&c, what);
    }
}

/* ---- a spawner that waits for a task queued on its own node ---- */

/* Each task sets its flag; the spawner waits for the flags without a
 * scheduling point (legal OpenMP: tasking/taskdep_if0_2.c of LLVM's
 * testsuite waits so, and libomp and libgomp run it).  Under NAFT on two
 * nodes of one worker each, first-touch tasks are dealt over both nodes,
 * so one of each pair is bound to the spawner's own node, and of two
 * tasks reading pages written on each node one is queued on the
 * spawner's: only the other node's idle worker can run them. */
#define HELD_PAIRS 3
static char held_data[2 * HELD_PAIRS][4096] __attribute__((aligned(4096)));
static atomic_int held_flag[2 * HELD_PAIRS];

static void set_held_flag(void *arg)
{
    atomic_store(&held_flag[*(int *)arg], 1);
}

/* 0 once the flags of pair p are set, -1 after seconds */
static int spin_for_pair(int p, int seconds)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 2 * p; i < 2 * p + 2; i++)
        while (!atomic_load(&held_flag[i])) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            if (t.tv_sec - t0.tv_sec > seconds) {
                fprintf(stderr, "task %d did not run in %d s\n", i, seconds);
                return -1;
            }
            sched_yield();
        }
    return 0;
}

static int held_node_scenario(void *arg)
{
    (void)arg;
    if (locus_init() != 0)
        return 10;
    /* pair 0: first-touch tasks, waited for by a taskwait: a page written
     * on each node */
    for (int i = 0; i < 2; i++)
        if (locus_task(set_held_flag, &i, sizeof i, LOCUS_OUT(held_data[i], 4096)) != 0)
            return 11;
    if (locus_taskwait() != 0)
        return 12;
    /* pair 1: first-touch tasks, one bound to the spawner's node */
    for (int i = 2; i < 4; i++)
        if (locus_task(set_held_flag, &i, sizeof i, LOCUS_OUT(held_data[i], 4096)) != 0)
            return 13;
    if (spin_for_pair(1, 20) != 0 || locus_taskwait() != 0)
        return 14;
    /* pair 2: each reads a page of pair 0, one of them on the spawner's node */
    for (int i = 4; i < 6; i++)
        if (locus_task(set_held_flag, &i, sizeof i, LOCUS_IN(held_data[i - 4], 4096)) != 0)
            return 15;
    if (spin_for_pair(2, 20) != 0)
        return 16;
    return locus_taskwait() != 0 || locus_finalize() != 0 ? 17 : 0;
}

static void test_spawner_waiting_for_its_node_task(void **state)
{
    (void)state;
    static const char *const envs[][4] = {
        { "LOCUS_THREADS=2", "LOCUS_TOPOLOGY=2s", "LOCUS_REGIME=naft", NULL },
        { "LOCUS_THREADS=2", "LOCUS_TOPOLOGY=2s", "LOCUS_REGIME=naft", "LOCUS_STEAL=none" },
        { "LOCUS_THREADS=2", "LOCUS_TOPOLOGY=2s", "LOCUS_REGIME=dft", NULL },
    };
    for (size_t i = 0; i < sizeof envs / sizeof envs[0]; i++) {
        const char *env[5] = { envs[i][0], envs[i][1], envs[i][2], envs[i][3], NULL };
        struct child c;
        in_child(&c, held_node_scenario, NULL, env, sanitizer() ? 120 : 60);
        char what[160];
        snprintf(what, sizeof what, "a spawner spinning until its tasks ran (%s %s %s)",
                 envs[i][1], envs[i][2], envs[i][3] ? envs[i][3] : "");
        expect_exit0(&c, what);
    }
}

/* ---- a chain of spawns ---- */

static long chain_depth;
static atomic_long chain_ran;

static void link_body(void *arg)
{
    long d = *(long *)arg + 1;
    atomic_fetch_add_explicit(&chain_ran, 1, memory_order_relaxed);
    if (d < chain_depth && locus_spawn(link_body, &d, sizeof d, NULL, 0) != 0)
        abort();
}

static int chain_scenario(void *arg)
{
    chain_depth = *(long *)arg;
    atomic_store(&chain_ran, 0);
    if (locus_init() != 0)
        return 10;
    long zero = 0;
    if (locus_spawn(link_body, &zero, sizeof zero, NULL, 0) != 0)
        return 11;
    if (locus_taskwait() != 0)
        return 12;
    if (atomic_load(&chain_ran) != chain_depth) {
        fprintf(stderr, "ran %ld of %ld\n", atomic_load(&chain_ran), chain_depth);
        return 13;
    }
    return locus_finalize() != 0 ? 14 : 0;
}

static void test_long_spawn_chains(void **state)
{
    (void)state;
    static const char *const envs[][3] = {
        { "LOCUS_THREADS=2", NULL },
        { "LOCUS_THREADS=1", NULL },
        { "LOCUS_THREADS=2", "LOCUS_GRAIN_NS=0", NULL },
    };
    /* every task stays incomplete until its child is: a chain of 10^7
     * holds 10^7 descriptors (4.5 GB); a sanitizer build makes each far
     * dearer */
    long depth = sanitizer() ? 100000 : 10000000;
    for (size_t i = 0; i < sizeof envs / sizeof envs[0]; i++) {
        if (depth > 1000000 && i > 0)
            depth = 1000000;   /* one chain of 10^7 is enough of the suite's time */
        struct child c;
        in_child(&c, chain_scenario, &depth, envs[i], sanitizer() ? 600 : 240);
        char what[128];
        snprintf(what, sizeof what, "a chain of %ld spawns (%s %s)", depth, envs[i][0],
                 envs[i][1] ? envs[i][1] : "");
        expect_exit0(&c, what);
    }
}

/* ---- memory exhausted ---- */

static char big_arg[65536];
static atomic_long light_ran;

static void light_body(void *arg)
{
    (void)arg;
    for (volatile int i = 0; i < 200; i++)
        ;
    atomic_fetch_add(&light_ran, 1);
}

static void big_body(void *arg)
{
    (void)arg;
    atomic_fetch_add(&light_ran, 1);
}

/* Takes every page of address space the process may still have, in
 * chunks; returns them in *chunks (NULL-terminated) */
static void **exhaust(void)
{
    size_t cap = 1 << 16, n = 0;
    void **v = calloc(cap, sizeof *v);
    for (size_t sz = 1 << 24; v && sz >= 4096;) {
        void *p = n + 1 < cap ? mmap(NULL, sz, PROT_READ | PROT_WRITE,
                                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
                              : MAP_FAILED;
        if (p == MAP_FAILED) {
            sz /= 2;
            continue;
        }
        v[n++] = p;
        v[n++] = (void *)sz;
    }
    return v;
}

static void give_back(void **v)
{
    for (size_t i = 0; v && v[i]; i += 2)
        munmap(v[i], (size_t)v[i + 1]);
    free(v);
}

/*
 * Memory runs out while tasks are spawned and workers take them: spawns
 * get -ENOMEM or succeed, nothing crashes, and once memory is back every
 * task that was accepted runs and the runtime goes on.  Where no
 * sanitizer is in the way the address space is really exhausted
 * (RLIMIT_AS, then mmap of what is left), so that the workers' own first
 * allocations (jemalloc's, then) and the initial thread's stack meet it;
 * under a sanitizer every allocation of the runtime fails instead.
 */
static int oom_scenario(void *arg)
{
    int real = *(int *)arg;
    if (locus_init() != 0)
        return 10;
    atomic_store(&light_ran, 0);
    /* the big tasks wait behind an event, so that their argument copies
     * add up (20000 x 64 KiB) whatever the allocator keeps in reserve; the
     * task holding it is spawned while memory is there (a spawn that
     * cannot register its dependencies waits until it completes) */
    atomic_store(&held, NULL);
    if (locus_task(hold, NULL, 0, LOCUS_OUT(&hold_x, sizeof hold_x)) != 0)
        return 28;
    locus_task_ref_t h;
    while (!(h = atomic_load(&held)))
        sched_yield();
    void **ballast = NULL;
    if (real) {
        struct rlimit rl;
        /* the current mappings plus a little: the limit is what mmap sees */
        FILE *f = fopen("/proc/self/statm", "r");
        unsigned long pages = 0;
        if (!f || fscanf(f, "%lu", &pages) != 1)
            return 20;
        fclose(f);
        rl.rlim_cur = rl.rlim_max = pages * (unsigned long)sysconf(_SC_PAGESIZE) + (64ul << 20);
        if (setrlimit(RLIMIT_AS, &rl) != 0)
            return 21;
        ballast = exhaust();
    } else {
        lc_mem_fail_all(1);
    }
    long accepted = 0, refused = 0;
    for (int i = 0; i < 20000; i++) {
        int r = locus_spawn(light_body, NULL, 0, NULL, 0);   /* light: taken by workers */
        int b = locus_task(big_body, big_arg, sizeof big_arg, LOCUS_IN(&hold_x, sizeof hold_x));
        accepted += (r == 0) + (b == 0);
        refused += (r == -ENOMEM) + (b == -ENOMEM);
        if ((r != 0 && r != -ENOMEM) || (b != 0 && b != -ENOMEM))
            return 22;
    }
    if (real)
        give_back(ballast);
    else
        lc_mem_fail_all(0);
    if (locus_task_events_decrease(h, 1) != 0)
        return 29;
    if (refused == 0)
        return 23;   /* memory never ran out: the scenario did not happen */
    /* memory is back: the runtime works as before */
    for (int i = 0; i < 1000; i++)
        if (locus_spawn(big_body, big_arg, sizeof big_arg, NULL, 0) != 0)
            return 24;
    if (locus_taskwait() != 0)
        return 25;
    if (atomic_load(&light_ran) != accepted + 1000) {
        fprintf(stderr, "ran %ld, accepted %ld + 1000\n", atomic_load(&light_ran), accepted);
        return 26;
    }
    return locus_finalize() != 0 ? 27 : 0;
}

static void test_out_of_memory_is_an_error_not_a_crash(void **state)
{
    (void)state;
    /* four nodes: an allocator arena and cache per node (alloc/mem.c); dft,
     * because under naft the task holding the event could be bound to the
     * initial thread's node, whose only worker is the initial thread, busy
     * waiting for it in the program */
    static const char *const envs[][4] = {
        { "LOCUS_THREADS=2", NULL },
        { "LOCUS_THREADS=3", NULL },
        { "LOCUS_THREADS=3", "LOCUS_TOPOLOGY=4s", "LOCUS_REGIME=dft", NULL },
    };
    int real = !sanitizer();
    if (!real)
        print_message("%s build: allocation failures injected, not the address space "
                      "exhausted (the sanitizer needs more of it than a limit leaves)\n",
                      sanitizer());
    for (int rep = 0; rep < (real ? 4 : 1); rep++)
        for (size_t i = 0; i < sizeof envs / sizeof envs[0]; i++) {
            struct child c;
            in_child(&c, oom_scenario, &real, envs[i], sanitizer() ? 300 : 60);
            char what[160];
            snprintf(what, sizeof what, "spawning while memory is exhausted (%s %s, run %d)",
                     envs[i][0], envs[i][1] ? envs[i][1] : "", rep + 1);
            expect_exit0(&c, what);
        }
}

/* ---- reductions of sizes that cannot be had ---- */

static char red_target[64];

static void red_combine(void *into, const void *from)
{
    (void)into;
    (void)from;
}

static void test_reduction_sizes_that_cannot_be_had(void **state)
{
    (void)state;
    setenv("LOCUS_THREADS", "2", 1);
    assert_int_equal(locus_init(), 0);
    locus_reduction_t *r = NULL;
    assert_int_equal(locus_reduction_create(&r, red_target, (size_t)1 << 40, NULL, red_combine),
                     -ENOMEM);
    assert_non_null(strstr(locus_error_message(), "copies"));
    assert_int_equal(locus_reduction_create(&r, red_target, SIZE_MAX, NULL, red_combine),
                     -EINVAL);
    assert_non_null(strstr(locus_error_message(), "too large"));
    assert_int_equal(locus_reduction_create(&r, red_target, SIZE_MAX / 2 + 1, NULL,
                                            red_combine), -EINVAL);
    /* a size that can be had still works */
    assert_int_equal(locus_reduction_create(&r, red_target, sizeof red_target, NULL,
                                            red_combine), 0);
    assert_non_null(locus_reduction_local(r));
    assert_int_equal(locus_reduction_finish(r), 0);
    assert_int_equal(locus_finalize(), 0);
    unsetenv("LOCUS_THREADS");
}

/* ---- stale references ---- */

static _Atomic(locus_task_ref_t) old_ref, blocked_ref;
static atomic_int blocked_resumed;

static void remember(void *arg)
{
    (void)arg;
    atomic_store(&old_ref, locus_task_current());
}

static void blocker(void *arg)
{
    (void)arg;
    atomic_store(&blocked_ref, locus_task_current());
    locus_task_block();
    atomic_store(&blocked_resumed, 1);
}

static void nop(void *arg)
{
    (void)arg;
}

static void test_stale_references_are_refused(void **state)
{
    (void)state;
    /* one worker besides the initial thread: descriptors are reused at
     * once; no task runs at its spawn, so that the blocker blocks the other
     * worker and this thread goes on */
    setenv("LOCUS_THREADS", "2", 1);
    setenv("LOCUS_GRAIN_NS", "0", 1);
    assert_int_equal(locus_init(), 0);
    for (int round = 0; round < 50; round++) {
        atomic_store(&old_ref, NULL);
        atomic_store(&blocked_ref, NULL);
        atomic_store(&blocked_resumed, 0);
        assert_int_equal(locus_spawn(remember, NULL, 0, NULL, 0), 0);
        assert_int_equal(locus_taskwait(), 0);
        locus_task_ref_t stale = atomic_load(&old_ref);
        assert_non_null(stale);
        /* descriptors go round: some of these reuse the stale one's */
        for (int i = 0; i < 300; i++)
            assert_int_equal(locus_spawn(nop, NULL, 0, NULL, 0), 0);
        assert_int_equal(locus_taskwait(), 0);
        assert_int_equal(locus_spawn(blocker, NULL, 0, NULL, 0), 0);
        locus_task_ref_t b;
        while (!(b = atomic_load(&blocked_ref)))
            sched_yield();
        /* the stale reference reaches nobody, whoever its descriptor is now */
        assert_int_equal(locus_task_unblock(stale), -EINVAL);
        assert_non_null(strstr(locus_error_message(), "stale"));
        assert_int_equal(locus_task_events_decrease(stale, 1), -EINVAL);
        assert_int_equal(locus_task_events_increase(stale, 1), -EINVAL);
        struct timespec ms = { 0, 2 * 1000 * 1000 };
        nanosleep(&ms, NULL);
        assert_int_equal(atomic_load(&blocked_resumed), 0);
        assert_int_equal(locus_task_unblock(b), 0);
        assert_int_equal(locus_taskwait(), 0);
        assert_int_equal(atomic_load(&blocked_resumed), 1);
        assert_int_equal(locus_task_unblock(b), -EINVAL);   /* stale in its turn */
    }
    /* pointers that were never references: refused without being read */
    static long not_a_task[64];
    assert_int_equal(locus_task_unblock((locus_task_ref_t)(void *)not_a_task), -EINVAL);
    assert_non_null(strstr(locus_error_message(), "not a task reference"));
    assert_int_equal(locus_task_events_decrease((locus_task_ref_t)(void *)&not_a_task[8], 1),
                     -EINVAL);
    assert_int_equal(locus_task_unblock((locus_task_ref_t)(uintptr_t)0x1000), -EINVAL);
    assert_int_equal(locus_task_unblock(NULL), -EINVAL);
    assert_int_equal(locus_finalize(), 0);
    unsetenv("LOCUS_THREADS");
    unsetenv("LOCUS_GRAIN_NS");
}

/* ---- finalize waiting for an event nobody fulfils ---- */

static void holds_one(void *arg)
{
    (void)arg;
    atomic_store(&held, locus_task_current());
    locus_task_events_increase(locus_task_current(), 1);
}

static void *fulfil_late(void *arg)
{
    (void)arg;
    sleep(7);   /* past the first notice (5 s, wait.c) */
    locus_task_events_decrease(atomic_load(&held), 1);
    return NULL;
}

static int unfulfilled_scenario(void *arg)
{
    (void)arg;
    if (locus_init() != 0)
        return 10;
    atomic_store(&held, NULL);
    if (locus_spawn(holds_one, NULL, 0, NULL, 0) != 0)
        return 11;
    while (!atomic_load(&held))
        sched_yield();
    pthread_t t;
    if (pthread_create(&t, NULL, fulfil_late, NULL) != 0)
        return 12;
    int r = locus_finalize();   /* waits; says so at 5 s; returns once fulfilled */
    pthread_join(t, NULL);
    return r != 0 ? 13 : 0;
}

static void test_finalize_says_what_it_waits_for(void **state)
{
    (void)state;
    struct child c;
    in_child(&c, unfulfilled_scenario, NULL, NULL, 60);
    expect_exit0(&c, "locus_finalize with an event fulfilled after 7 s");
    if (!strstr(c.err, "locus_finalize has waited") || !strstr(c.err, "1 waits for events"))
        fail_msg("no notice of the unfulfilled event on stderr:\n%s", c.err);
}

/* ---- a sanitizer sees the runtime's heap ---- */

static void overflow_body(void *arg)
{
    char *p = arg;
    memset(p + 4096, 1, 64);   /* 64 bytes past a 4096-byte argument copy */
}

static void overflow_inline_body(void *arg)
{
    char *p = arg;
    memset(p + 96, 1, 16);     /* past a 96-byte copy, inside the descriptor */
}

static char *kept_copy;

static void keep_body(void *arg)
{
    kept_copy = arg;           /* the copy is freed when the task completes */
}

static int misuse_scenario(void *arg)
{
    int which = *(int *)arg;
    static char buf[4096];
    if (locus_init() != 0)
        return 10;
    if (which == 0)
        locus_spawn(overflow_body, buf, 4096, NULL, 0);
    else if (which == 1)
        locus_spawn(overflow_inline_body, buf, 96, NULL, 0);
    else {
        locus_spawn(keep_body, buf, 4096, NULL, 0);
        locus_taskwait();
        volatile char c = kept_copy[10];   /* after its task completed */
        (void)c;
    }
    locus_taskwait();
    locus_finalize();
    return 0;
}

static void test_sanitizer_sees_argument_copies(void **state)
{
    (void)state;
    const char *san = sanitizer();
    if (!san || strcmp(san, "asan") != 0) {
        print_message("skipped: needs the ASan build (the ASan stage runs it)\n");
        skip();
    }
    static const struct { int which; const char *report; } cases[] = {
        { 0, "heap-buffer-overflow" },
        { 1, "use-after-poison" },
        { 2, "heap-use-after-free" },
    };
    static const char *const env[] = { "LOCUS_THREADS=2", "ASAN_OPTIONS=detect_leaks=0", NULL };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct child c;
        int which = cases[i].which;
        in_child(&c, misuse_scenario, &which, env, 120);
        if (c.status != -1 && WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0)
            fail_msg("case %d: the misuse went unreported\nstderr:\n%s", which, c.err);
        if (!strstr(c.err, cases[i].report))
            fail_msg("case %d: no '%s' report\nstderr:\n%s", which, cases[i].report, c.err);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_throttle_never_waits_for_its_spawner),
        cmocka_unit_test(test_spawner_waiting_for_its_node_task),
        cmocka_unit_test(test_long_spawn_chains),
        cmocka_unit_test(test_out_of_memory_is_an_error_not_a_crash),
        cmocka_unit_test(test_reduction_sizes_that_cannot_be_had),
        cmocka_unit_test(test_stale_references_are_refused),
        cmocka_unit_test(test_finalize_says_what_it_waits_for),
        cmocka_unit_test(test_sanitizer_sees_argument_copies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
