/*
 * test_ready.c - a ready task means the same thing on every path that
 * runtime/ready.h decides between: queued, run at once for a backlog, run
 * at its spawn for short bodies (with and without dependencies, in the
 * parent's map or not) and serialised after an allocation failure.  On
 * each path, under each scheduler, a task spawned with arg_size > 0 gets
 * its own copy of the argument (as it was at the spawn; the body's writes
 * never reach the caller), belongs to the innermost open task group, and
 * runs after the tasks its dependencies name.  Each case also checks that
 * it took the path it is about (a task run before its spawn returns, or
 * not), so that a change of policy cannot make it test nothing.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "locus.h"
#include "mem.h"
#include "runtime.h"
#include "steal.h"
#include "team.h"
#include "support.h"

/* The argument: small fits the descriptor's inline buffer, big does not.
 * small is larger than one line, as arguments of real tasks often are (a
 * few pointers, sizes and indices): the inline buffer takes two. */
struct arg_small {
    int id;
    int value;
    unsigned char pad[88];
};
struct arg_big {
    int id;
    int value;
    unsigned char pad[200];
};
_Static_assert(sizeof(struct arg_small) > 64 && sizeof(struct arg_small) <= LC_INLINE_ARG,
               "arg_small: more than a line, inline");
_Static_assert(sizeof(struct arg_big) > LC_INLINE_ARG, "arg_big: not inline");

enum { MAXP = 64 };

/* What each probe task saw, by id. */
static struct seen {
    atomic_int ran;
    int value;              /* arg->value when it ran */
    int pad_ok;             /* arg->pad as spawned */
    int64_t group_pending;  /* the open group's count while it ran, -1 none */
    int64_t pending_before; /* and just before its spawn */
    int order;              /* position among the probes that ran */
    int in_descriptor;      /* its argument was in its descriptor's inline buffer */
    int big;                /* spawned with arg_big */
} seen[MAXP];
static atomic_int g_order;
static struct lc_taskgroup *g_group;

static void scribble(const void *arg, int id, int *value, unsigned char *pad, size_t padlen)
{
    struct seen *s = &seen[id];
    s->in_descriptor = arg == (const void *)lc_self->cur->argbuf;
    s->value = *value;
    s->pad_ok = 1;
    for (size_t i = 0; i < padlen; i++)
        if (pad[i] != (unsigned char)(id + i))
            s->pad_ok = 0;
    s->group_pending = g_group ? atomic_load(&g_group->pending) : -1;
    s->order = atomic_fetch_add(&g_order, 1);
    /* the body writes its argument: only its own copy may change */
    *value = -1;
    memset(pad, 0xEE, padlen);
    atomic_store(&s->ran, 1);
}

static void small_body(void *arg)
{
    struct arg_small *a = arg;
    scribble(a, a->id, &a->value, a->pad, sizeof a->pad);
}

static void big_body(void *arg)
{
    struct arg_big *a = arg;
    scribble(a, a->id, &a->value, a->pad, sizeof a->pad);
}

static void nop(void *arg)
{
    (void)arg;
}

static void fill_pad(unsigned char *pad, size_t n, int id)
{
    for (size_t i = 0; i < n; i++)
        pad[i] = (unsigned char)(id + i);
}

static int g_cell;   /* the probes' common dependency, when they have one */

/*
 * Spawns probe id (big or small argument, with the dependency inout
 * g_cell or none) and checks what can be checked at once: the spawn
 * succeeded, the caller's argument is untouched, and the task ran before
 * the spawn returned exactly when ran_at_once says so (-1: either).  The
 * caller's argument is then changed, as a program reuses its variables.
 */
static void probe(int id, int big, int with_dep, int ran_at_once)
{
    locus_dep_t d = LOCUS_INOUT(&g_cell, sizeof g_cell);
    atomic_store(&seen[id].ran, 0);
    seen[id].value = 0;
    seen[id].pending_before = g_group ? atomic_load(&g_group->pending) : -1;
    seen[id].big = big;
    if (big) {
        struct arg_big a = { .id = id, .value = 1000 + id };
        fill_pad(a.pad, sizeof a.pad, id);
        assert_int_equal(locus_spawn(big_body, &a, sizeof a, with_dep ? &d : NULL, with_dep), 0);
        if (ran_at_once >= 0)
            assert_int_equal(atomic_load(&seen[id].ran), ran_at_once);
        assert_int_equal(a.value, 1000 + id);
        for (size_t i = 0; i < sizeof a.pad; i++)
            assert_int_equal(a.pad[i], (unsigned char)(id + i));
        a.value = 7;   /* a queued task must not see this */
        memset(a.pad, 0, sizeof a.pad);
    } else {
        struct arg_small a = { .id = id, .value = 1000 + id };
        fill_pad(a.pad, sizeof a.pad, id);
        assert_int_equal(locus_spawn(small_body, &a, sizeof a, with_dep ? &d : NULL, with_dep), 0);
        if (ran_at_once >= 0)
            assert_int_equal(atomic_load(&seen[id].ran), ran_at_once);
        assert_int_equal(a.value, 1000 + id);
        for (size_t i = 0; i < sizeof a.pad; i++)
            assert_int_equal(a.pad[i], (unsigned char)(id + i));
        a.value = 7;
        memset(a.pad, 0, sizeof a.pad);
    }
}

/* After the probes ids first..last-1 are complete: each saw its own
 * argument as spawned, in the group when one was open, and the ones with a
 * dependency ran in spawn order. */
static void check_probes(int first, int last, int in_group, int ran_at_once, int with_dep)
{
    int prev = -1;
    for (int id = first; id < last; id++) {
        assert_int_equal(atomic_load(&seen[id].ran), 1);
        assert_int_equal(seen[id].value, 1000 + id);
        assert_true(seen[id].pad_ok);
        /* a copy that fits (LC_INLINE_ARG) is in the descriptor, on every
         * path; a larger one in a block of its own */
        assert_int_equal(seen[id].in_descriptor, !seen[id].big);
        /* at least this task's count (a queued task may run in the
         * group's end, which gives the owner's reference back first; its
         * ran above says the end waited for it); a task run at once, one
         * more than just before its spawn */
        if (in_group && ran_at_once == 1)   /* run at once: counted since its spawn */
            assert_true(seen[id].group_pending >= seen[id].pending_before + 1);
        else if (in_group)
            assert_true(seen[id].group_pending >= 1);
        if (with_dep) {
            assert_true(seen[id].order > prev);
            prev = seen[id].order;
        }
    }
}

static const char *const regimes[] = { "dft", "naft" };

static void start(const char *regime, const char *threads, const char *grain)
{
    setenv("LOCUS_REGIME", regime, 1);
    setenv("LOCUS_THREADS", threads, 1);
    if (grain)
        setenv("LOCUS_GRAIN_NS", grain, 1);
    else
        unsetenv("LOCUS_GRAIN_NS");
    assert_int_equal(locus_init(), 0);
    atomic_store(&g_order, 0);
}

static void stop(void)
{
    assert_int_equal(locus_finalize(), 0);
    unsetenv("LOCUS_GRAIN_NS");
}

/* Runs the probes of one path: without and with a group open, small and
 * big arguments, without and with a dependency.  fill: tasks queued first
 * (a backlog), queued again before each probe. */
static void run_path(int ran_at_once, int fill)
{
    int id = 0;
    for (int grouped = 0; grouped < 2; grouped++) {
        struct lc_taskgroup g;
        if (grouped) {
            lc_taskgroup_begin(lc_self, &g);
            g_group = &g;
        }
        for (int with_dep = 0; with_dep < 2; with_dep++) {
            int first = id;
            atomic_store(&g_order, 0);
            for (int k = 0; k < 6; k++, id++) {
                for (int f = 0; f < fill; f++)
                    assert_int_equal(locus_spawn(nop, NULL, 0, NULL, 0), 0);
                probe(id, k & 1, with_dep, ran_at_once);
            }
            if (!grouped)
                assert_int_equal(locus_taskwait(), 0);
            else
                lc_taskgroup_end(lc_self, &g), lc_taskgroup_begin(lc_self, &g);
            check_probes(first, id, grouped, ran_at_once, with_dep);
        }
        if (grouped) {
            lc_taskgroup_end(lc_self, &g);
            g_group = NULL;
        }
        assert_int_equal(locus_taskwait(), 0);
    }
}

/* One worker and LOCUS_GRAIN_NS=0: every ready task is queued, and runs
 * at the taskwait (or the group's end). */
static void test_queued(void **state)
{
    (void)state;
    for (size_t r = 0; r < sizeof regimes / sizeof *regimes; r++) {
        start(regimes[r], "1", "0");
        run_path(0, 0);
        stop();
    }
}

/* One worker, LOCUS_GRAIN_NS=0, and more than a backlog queued before
 * each probe: every ready probe runs at once on its spawner. */
static void test_backlog(void **state)
{
    (void)state;
    for (size_t r = 0; r < sizeof regimes / sizeof *regimes; r++) {
        start(regimes[r], "1", "0");
        run_path(1, 80);
        stop();
    }
}

/* One worker with LOCUS_GRAIN_NS on: no other core to hand over to, so
 * every ready task runs at its spawn (grain.h), dependency-free ones to
 * completion, others by body (first in the map, then beside it). */
static void test_at_spawn(void **state)
{
    (void)state;
    for (size_t r = 0; r < sizeof regimes / sizeof *regimes; r++) {
        start(regimes[r], "1", "1000");
        run_path(1, 0);
        stop();
    }
}

/* Two workers with default grain: whichever path each spawn takes, the
 * same semantics (no claim on which path). */
static void test_two_workers(void **state)
{
    (void)state;
    for (size_t r = 0; r < sizeof regimes / sizeof *regimes; r++) {
        start(regimes[r], "2", NULL);
        run_path(-1, 0);
        stop();
    }
}

/* A task at its spawn that leaves a child running is not complete when
 * its spawn returns: the group must still wait for it (and so for the
 * child), which it does only if the task is a member. */
static atomic_int g_child_ran;
static void child_body(void *arg)
{
    (void)arg;
    atomic_store(&g_child_ran, 1);
}
static atomic_int g_child_rc;
static void spawns_child(void *arg)
{
    (void)arg;
    /* run at its spawn, so this child is queued, not run here */
    atomic_store(&g_child_rc, locus_spawn(child_body, NULL, 0, NULL, 0));
}

static void test_group_waits_for_task_run_at_spawn(void **state)
{
    (void)state;
    for (size_t r = 0; r < sizeof regimes / sizeof *regimes; r++) {
        start(regimes[r], "1", "1000");
        for (int with_dep = 0; with_dep < 2; with_dep++) {
            locus_dep_t d = LOCUS_INOUT(&g_cell, sizeof g_cell);
            int x = 5;
            struct lc_taskgroup g;
            atomic_store(&g_child_ran, 0);
            lc_taskgroup_begin(lc_self, &g);
            assert_int_equal(locus_spawn(spawns_child, &x, sizeof x, with_dep ? &d : NULL,
                                         with_dep), 0);
            lc_taskgroup_end(lc_self, &g);
            assert_int_equal(atomic_load(&g_child_rc), 0);
            assert_int_equal(atomic_load(&g_child_ran), 1);
            assert_int_equal(locus_taskwait(), 0);
        }
        stop();
    }
}

/* Registration of a dependency runs out of memory: the task is run at once
 * on its spawner (serialised), with the same copy and group. */
static void test_serialised_after_oom(void **state)
{
    (void)state;
    for (size_t r = 0; r < sizeof regimes / sizeof *regimes; r++) {
        int hit = 0;
        start(regimes[r], "1", "0");
        for (int k = 1; k <= 8 && !hit; k++) {
            /* in an implicit task of its own, so that its map is new */
            struct lc_task *saved;
            assert_int_equal(lc_implicit_begin(lc_self, &saved), 0);
            struct lc_taskgroup g;
            lc_taskgroup_begin(lc_self, &g);
            g_group = &g;
            lc_mem_fail_after(k);
            struct arg_small a = { .id = 0, .value = 1000 };
            fill_pad(a.pad, sizeof a.pad, 0);
            atomic_store(&seen[0].ran, 0);
            locus_dep_t d = LOCUS_INOUT(&g_cell, sizeof g_cell);
            int rc = locus_spawn(small_body, &a, sizeof a, &d, 1);
            lc_mem_fail_after(0);
            if (rc == 0 && atomic_load(&seen[0].ran)) {
                hit = 1;   /* ran before the spawn returned: serialised */
                assert_int_equal(a.value, 1000);
                assert_int_equal(seen[0].value, 1000);
                assert_true(seen[0].pad_ok);
                assert_true(seen[0].group_pending >= 2);
            } else {
                assert_true(rc == 0 || rc == -ENOMEM);
            }
            lc_taskgroup_end(lc_self, &g);
            g_group = NULL;
            lc_implicit_end(lc_self, saved);
        }
        assert_true(hit);   /* some k failed inside the registration */
        stop();
    }
}

/*
 * Two workers, bodies taken as short: a spawner still keeps some
 * dependency-free tasks queued for the idle worker (sched/steal.h,
 * LC_STOCK) and runs the rest at their spawn.  The other worker
 * is held inside a task meanwhile, so nobody takes the stock and exactly
 * LC_STOCK of the probes are queued, unless the spawner's clock
 * check saw long gaps (a preempted test thread: grain.h's cooldown queues
 * the next ones too), which the test sees and then asks less.  With
 * bodies far shorter than a hand-over, no stock: every probe runs at its
 * spawn.  For that the other worker is held again, so that it does not
 * sleep (ready.h, lc_ready_helper_idle: a sleeping worker gets the task);
 * the holder is queued, the spawner having nothing queued for the other
 * worker after its taskwait, and the spawner counts its queue again only
 * at its next wait.  Every probe keeps its argument copy on both paths.
 */
static atomic_int g_hold, g_held;
static void holder(void *arg)
{
    (void)arg;
    atomic_store(&g_held, 1);
    while (atomic_load(&g_hold))
        ;
}

static void test_stock_for_idle_workers(void **state)
{
    (void)state;
    enum { N = LC_STOCK + 16 };   /* some queued, the rest run at their spawn */
    _Static_assert((int)N <= (int)MAXP, "more probes than seen[]");
    for (size_t r = 0; r < sizeof regimes / sizeof *regimes; r++) {
        start(regimes[r], "2", "1000000");
        atomic_store(&g_hold, 1);
        atomic_store(&g_held, 0);
        /* no body timed yet: not short, so queued, and the other worker
         * takes it (the spawner is not in the runtime while it waits) */
        assert_int_equal(locus_spawn(holder, NULL, 0, NULL, 0), 0);
        while (!atomic_load(&g_held))
            ;
        struct lc_worker *w = lc_self;
        /* bodies here are short, but not so short that a thief could not
         * gain by taking some (grain.h, lc_grain_shareable) */
        atomic_store(&w->grain.est, w->rt->grain.limit / 2);
        w->grain.skip = 0;
        w->grain.gaps = 0;
        w->grain.stale = 0;
        w->grain.last = 0;
        int queued = 0;
        for (int id = 0; id < N; id++) {
            probe(id, id & 1, 0, -1);
            queued += !atomic_load(&seen[id].ran);
        }
        int cooled = w->grain.skip > 0;
        atomic_store(&g_hold, 0);   /* before any assertion can leave */
        assert_int_equal(locus_taskwait(), 0);
        if (cooled)
            assert_true(queued >= LC_STOCK);
        else
            assert_int_equal(queued, LC_STOCK);
        check_probes(0, N, 0, -1, 0);

        /* bodies far shorter than a hand-over: no stock, every probe runs
         * at its spawn but the first (unless the clock check cooled down,
         * as above).  The first is queued: the holder was taken, so the
         * spawner's queue is empty, counted again (lc_deque_bare_owner),
         * and a task run at its spawn then could be one its teammate
         * waits for; behind it, the queue is not empty. */
        atomic_store(&g_hold, 1);
        atomic_store(&g_held, 0);
        assert_int_equal(locus_spawn(holder, NULL, 0, NULL, 0), 0);   /* queued: nothing was */
        while (!atomic_load(&g_held))
            ;
        atomic_store(&w->grain.est, 1);
        w->grain.skip = 0;
        w->grain.gaps = 0;
        w->grain.last = 0;
        queued = 0;
        for (int id = 0; id < N; id++) {
            probe(id, id & 1, 0, -1);
            queued += !atomic_load(&seen[id].ran);
        }
        cooled = w->grain.skip > 0;
        atomic_store(&g_hold, 0);   /* before any assertion can leave */
        assert_int_equal(locus_taskwait(), 0);
        if (!cooled)
            assert_int_equal(queued, 1);
        check_probes(0, N, 0, -1, 0);
        stop();
    }
}

static int group_teardown(void **state)
{
    (void)state;
    g_group = NULL;
    lc_mem_fail_after(0);
    if (locus_num_workers() > 0)   /* a failed test left it running */
        locus_finalize();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_queued, group_teardown),
        cmocka_unit_test_teardown(test_backlog, group_teardown),
        cmocka_unit_test_teardown(test_at_spawn, group_teardown),
        cmocka_unit_test_teardown(test_two_workers, group_teardown),
        cmocka_unit_test_teardown(test_group_waits_for_task_run_at_spawn, group_teardown),
        cmocka_unit_test_teardown(test_serialised_after_oom, group_teardown),
        cmocka_unit_test_teardown(test_stock_for_idle_workers, group_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
