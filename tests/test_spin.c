/*
 * test_spin.c - the idle worker's polling limit (runtime/spin.h): with
 * LOCUS_SPIN unset, a worker that finds itself descheduled while polling
 * (a gap of more than LC_SPIN_PREEMPTED_NS between two looks at the clock)
 * polls only its floor (LC_SPIN_FLOOR, or LOCUS_SPIN where that is less)
 * and sleeps, and stays at the floor for LC_SPIN_HOLD_NS after the last
 * gap it saw; after that each idle period that ends in work doubles the
 * limit back up to LOCUS_SPIN; an explicit LOCUS_SPIN is obeyed as it is.
 * With more workers than CPUs (oversubscribed; each poll yields) an idle
 * period ends after LC_SPIN_OVERSUB_NS of the clock, whatever the count,
 * and within LOCUS_SPIN polls (unless LOCUS_SPIN is given: then the count
 * alone), and a wait at a barrier after LC_SPIN_FLOOR polls that do not
 * yield.  spin.h reads a clock of this test's own (fake_ns), which moves
 * only when a test moves it, so nothing here depends on how fast this
 * machine is or how the test thread is scheduled (with the real clock, a
 * test descheduled for a millisecond between two lines saw a gap it had
 * not made).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

static uint64_t fake_ns = 1000000000u;
#define LC_SPIN_NOW() fake_ns
#include "spin.h"

static struct lc_runtime rt;
static struct lc_worker w;

static void setup_worker_over(unsigned spin, unsigned steal_spin, int adapt, int over)
{
    memset(&rt, 0, sizeof rt);
    memset(&w, 0, sizeof w);
    rt.oversubscribed = over;
    rt.opt.spin = spin;
    rt.opt.steal_spin = steal_spin;
    rt.opt.spin_adapt = adapt;
    w.rt = &rt;
    lc_spin_init(&w);
    lc_spin_begin(&w);
}

static void setup_worker(unsigned spin, unsigned steal_spin, int adapt)
{
    setup_worker_over(spin, steal_spin, adapt, 0);
}

/* Polls from spins+1 on until lc_spin_give_up says stop; returns that poll. */
static unsigned poll_until_give_up(unsigned from)
{
    unsigned s = from;
    while (!lc_spin_give_up(&w, ++s, 0))
        if (s > 10000000u)
            fail_msg("never gives up");
    return s;
}

static void test_full_limit_on_an_own_cpu(void **state)
{
    (void)state;
    setup_worker(20000, 200, 1);
    /* looks at the clock every LC_SPIN_CHECK polls, no gap: all 20000 */
    for (unsigned s = 1; s < 20000; s++) {
        /* the clock does not move: as if polling took no time */
        assert_false(lc_spin_give_up(&w, s, 0));
    }
    assert_true(lc_spin_give_up(&w, 20000, 0));
    assert_int_equal(w.spin.limit, 20000);
}

static void test_descheduled_polls_only_the_floor(void **state)
{
    (void)state;
    setup_worker(20000, 200, 1);
    unsigned floor = LC_SPIN_FLOOR;
    assert_int_equal(lc_spin_floor(&rt.opt), floor);
    /* descheduled before the floor: goes on to the floor, then sleeps */
    fake_ns += 2 * (uint64_t)LC_SPIN_PREEMPTED_NS;   /* descheduled meanwhile */
    assert_false(lc_spin_give_up(&w, LC_SPIN_CHECK, 0));
    assert_int_equal(w.spin.limit, floor);
    assert_int_equal(poll_until_give_up(LC_SPIN_CHECK), floor);
    /* descheduled past the floor: sleeps at once */
    setup_worker(20000, 200, 1);
    for (unsigned s = 1; s < 1024; s++) {
        assert_false(lc_spin_give_up(&w, s, 0));
    }
    fake_ns += 2 * (uint64_t)LC_SPIN_PREEMPTED_NS;   /* descheduled meanwhile */
    assert_true(lc_spin_give_up(&w, 1024, 0));
    assert_int_equal(w.spin.limit, floor);
}

/* After a gap the floor holds for LC_SPIN_HOLD_NS, however often work
 * comes; then each idle period that ends in work doubles the limit, and a
 * gap seen on the way up brings it back to the floor for as long again. */
static void test_floor_held_after_a_gap(void **state)
{
    (void)state;
    setup_worker(20000, 200, 1);
    fake_ns += 2 * (uint64_t)LC_SPIN_PREEMPTED_NS;
    assert_false(lc_spin_give_up(&w, LC_SPIN_CHECK, 0));
    assert_int_equal(w.spin.limit, LC_SPIN_FLOOR);
    uint64_t gap_at = fake_ns;
    /* rounds of a fork-join program, each ending in work: held */
    for (int i = 0; i < 100; i++) {
        fake_ns += LC_SPIN_HOLD_NS / 200;
        lc_spin_begin(&w);
        assert_int_equal(poll_until_give_up(0), LC_SPIN_FLOOR);
        lc_spin_found(&w, LC_SPIN_FLOOR);
        assert_int_equal(w.spin.limit, LC_SPIN_FLOOR);
    }
    /* the hold over: doubling again */
    fake_ns = gap_at + LC_SPIN_HOLD_NS;
    lc_spin_found(&w, 3);
    assert_int_equal(w.spin.limit, 2 * LC_SPIN_FLOOR);
    lc_spin_found(&w, 3);
    assert_int_equal(w.spin.limit, 4 * LC_SPIN_FLOOR);
    /* a gap on the way up: the floor, held from this gap on */
    lc_spin_begin(&w);
    fake_ns += 2 * (uint64_t)LC_SPIN_PREEMPTED_NS;
    assert_true(lc_spin_give_up(&w, 2 * LC_SPIN_CHECK * 4, 0));
    assert_int_equal(w.spin.limit, LC_SPIN_FLOOR);
    gap_at = fake_ns;
    fake_ns = gap_at + LC_SPIN_HOLD_NS - 1;
    lc_spin_found(&w, 3);
    assert_int_equal(w.spin.limit, LC_SPIN_FLOOR);
    fake_ns = gap_at + LC_SPIN_HOLD_NS;
    lc_spin_found(&w, 3);
    assert_int_equal(w.spin.limit, 2 * LC_SPIN_FLOOR);
}

static void test_work_found_doubles_back(void **state)
{
    (void)state;
    setup_worker(20000, 200, 1);
    w.spin.limit = lc_spin_floor(&rt.opt);
    unsigned expect = w.spin.limit;
    lc_spin_found(&w, 0);            /* no idle poll before the work: no change */
    assert_int_equal(w.spin.limit, expect);
    for (int i = 0; i < 10; i++) {
        lc_spin_found(&w, 5);
        expect = 2 * expect < 20000 ? 2 * expect : 20000;
        assert_int_equal(w.spin.limit, expect);
    }
    assert_int_equal(w.spin.limit, 20000);
}

static void test_explicit_spin_obeyed(void **state)
{
    (void)state;
    setup_worker(5000, 200, 0);      /* LOCUS_SPIN=5000 given */
    fake_ns += 2 * (uint64_t)LC_SPIN_PREEMPTED_NS;   /* descheduled meanwhile */
    assert_false(lc_spin_give_up(&w, LC_SPIN_CHECK, 0));
    assert_int_equal(w.spin.limit, 5000);
    assert_int_equal(poll_until_give_up(LC_SPIN_CHECK), 5000);
    /* a LOCUS_SPIN below the floor caps it; 0 sleeps at the first failed poll */
    setup_worker(100, 200, 1);
    assert_int_equal(lc_spin_floor(&rt.opt), LC_SPIN_FLOOR);
    setup_worker(LC_SPIN_FLOOR / 2, 200, 1);
    assert_int_equal(lc_spin_floor(&rt.opt), LC_SPIN_FLOOR / 2);
    setup_worker(0, 200, 1);
    assert_true(lc_spin_give_up(&w, 1, 0));
}

static void test_oversubscribed_polls_for_a_while(void **state)
{
    (void)state;
    setup_worker_over(20000, 200, 1, 1);
    assert_int_equal(w.spin.limit, 20000);
    /* the clock standing still: polls go on, each yielding, up to the count */
    for (unsigned s = 1; s < 1000; s++)
        assert_false(lc_spin_give_up(&w, s, 0));
    /* once the idle period is longer than LC_SPIN_OVERSUB_NS: sleep, at
     * any poll (not only every LC_SPIN_CHECK-th) */
    fake_ns += LC_SPIN_OVERSUB_NS;
    assert_false(lc_spin_give_up(&w, 1001, 0));
    fake_ns += 1;
    assert_true(lc_spin_give_up(&w, 1001, 0));
    /* the count still bounds it */
    setup_worker_over(20000, 200, 1, 1);
    assert_int_equal(poll_until_give_up(0), 20000);
    /* the limit is not lowered by the long gap (yields make such gaps) */
    setup_worker_over(20000, 200, 1, 1);
    fake_ns += 2 * (uint64_t)LC_SPIN_PREEMPTED_NS;
    assert_true(lc_spin_give_up(&w, LC_SPIN_CHECK, 0));
    assert_int_equal(w.spin.limit, 20000);
    /* waiting at a barrier (a condition word): LC_SPIN_FLOOR polls, then sleep */
    setup_worker_over(20000, 200, 1, 1);
    for (unsigned s = 1; s < LC_SPIN_FLOOR; s++)
        assert_false(lc_spin_give_up(&w, s, 1));
    assert_true(lc_spin_give_up(&w, LC_SPIN_FLOOR, 1));
    assert_true(lc_spin_yields(&rt, 0));
    assert_false(lc_spin_yields(&rt, 1));
    rt.oversubscribed = 0;
    assert_false(lc_spin_yields(&rt, 0));
    /* an explicit LOCUS_SPIN is obeyed oversubscribed too: the count alone */
    setup_worker_over(5000, 200, 0, 1);
    assert_int_equal(w.spin.limit, 5000);
    fake_ns += 10 * (uint64_t)LC_SPIN_OVERSUB_NS;
    assert_int_equal(poll_until_give_up(0), 5000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_limit_on_an_own_cpu),
        cmocka_unit_test(test_descheduled_polls_only_the_floor),
        cmocka_unit_test(test_floor_held_after_a_gap),
        cmocka_unit_test(test_work_found_doubles_back),
        cmocka_unit_test(test_explicit_spin_obeyed),
        cmocka_unit_test(test_oversubscribed_polls_for_a_while),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
