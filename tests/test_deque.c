/*
 * test_deque.c - unit and stress tests of the Chase-Lev deque (runtime/deque.c):
 * LIFO pop and FIFO steal order, empty answers, growth, size estimate, and a
 * concurrent owner-versus-thieves run checking each item is taken exactly once
 * and whole (all four words of it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deque.h"

/* Items are 1-based indices cast to pointers: NULL means "nothing".  The
 * other three words of an item are derived from the same index, so an item
 * whose words do not belong together (a torn read) is noticed. */
#define ITEM(i) ((void *)(uintptr_t)((i) + 1))
#define INDEX(p) ((int64_t)(uintptr_t)(p) - 1)

static int push(struct lc_deque *d, int64_t i)
{
    struct lc_qitem it = { ITEM(i), (void *)(uintptr_t)(3 * i + 1), (void *)(uintptr_t)(5 * i + 2),
                           (uintptr_t)(7 * i + 3) };
    return lc_deque_push_owner(d, &it);
}

/* The item's first word, after checking the other three match it. */
static void *whole(struct lc_qitem it)
{
    if (it.p == NULL)
        return NULL;
    int64_t i = INDEX(it.p);
    if (it.a != (void *)(uintptr_t)(3 * i + 1) || it.b != (void *)(uintptr_t)(5 * i + 2)
        || it.c != (uintptr_t)(7 * i + 3)) {
        fprintf(stderr, "item %lld came back torn\n", (long long)i);
        abort();  /* a test, not library code; also called from thief threads */
    }
    return it.p;
}

static void *pop(struct lc_deque *d)
{
    return whole(lc_deque_pop_owner(d));
}

static void *steal(struct lc_deque *d)
{
    return whole(lc_deque_steal(d));
}

static void test_empty(void **state)
{
    (void)state;
    struct lc_deque d;
    assert_int_equal(lc_deque_init(&d, 4), 0);
    assert_null(pop(&d));
    assert_null(steal(&d));
    assert_int_equal(lc_deque_size(&d), 0);
    /* Emptied by pop, then by steal: both still answer NULL. */
    assert_int_equal(push(&d, 0), 0);
    assert_ptr_equal(pop(&d), ITEM(0));
    assert_null(pop(&d));
    assert_null(steal(&d));
    assert_int_equal(push(&d, 1), 0);
    assert_ptr_equal(steal(&d), ITEM(1));
    assert_null(steal(&d));
    assert_null(pop(&d));
    assert_int_equal(lc_deque_size(&d), 0);
    lc_deque_destroy(&d);
}

static void test_init_bounds(void **state)
{
    (void)state;
    struct lc_deque d;
    assert_int_equal(lc_deque_init(&d, LC_DEQUE_MAX_LOG2CAP + 1), -EINVAL);
    lc_deque_destroy(&d);  /* allowed after a failed init */
    /* One slot to start with: every second push grows. */
    assert_int_equal(lc_deque_init(&d, 0), 0);
    for (int i = 0; i < 5; i++)
        assert_int_equal(push(&d, i), 0);
    for (int i = 4; i >= 0; i--)
        assert_ptr_equal(pop(&d), ITEM(i));
    assert_null(pop(&d));
    lc_deque_destroy(&d);
}

static void test_lifo_pop(void **state)
{
    (void)state;
    struct lc_deque d;
    assert_int_equal(lc_deque_init(&d, 4), 0);
    for (int i = 0; i < 10; i++)
        assert_int_equal(push(&d, i), 0);
    for (int i = 9; i >= 0; i--)
        assert_ptr_equal(pop(&d), ITEM(i));
    assert_null(pop(&d));
    lc_deque_destroy(&d);
}

static void test_fifo_steal(void **state)
{
    (void)state;
    struct lc_deque d;
    assert_int_equal(lc_deque_init(&d, 4), 0);
    for (int i = 0; i < 10; i++)
        assert_int_equal(push(&d, i), 0);
    for (int i = 0; i < 10; i++)
        assert_ptr_equal(steal(&d), ITEM(i));
    assert_null(steal(&d));
    /* Mixed: steal takes the oldest, pop the newest. */
    for (int i = 0; i < 6; i++)
        assert_int_equal(push(&d, i), 0);
    assert_ptr_equal(steal(&d), ITEM(0));
    assert_ptr_equal(pop(&d), ITEM(5));
    assert_ptr_equal(steal(&d), ITEM(1));
    assert_ptr_equal(pop(&d), ITEM(4));
    assert_ptr_equal(pop(&d), ITEM(3));
    assert_ptr_equal(steal(&d), ITEM(2));
    assert_null(steal(&d));
    assert_null(pop(&d));
    lc_deque_destroy(&d);
}

static void test_growth(void **state)
{
    (void)state;
    enum { N = 5000 };
    struct lc_deque d;
    assert_int_equal(lc_deque_init(&d, 2), 0);
    /* Advance top first so the live range wraps around the initial buffer
     * when it grows. */
    for (int i = 0; i < 3; i++)
        assert_int_equal(push(&d, 1000000 + i), 0);
    for (int i = 0; i < 3; i++)
        assert_ptr_equal(steal(&d), ITEM(1000000 + i));
    for (int i = 0; i < N; i++)
        assert_int_equal(push(&d, i), 0);
    assert_int_equal(lc_deque_size(&d), N);
    struct lc_deque_buf *a = atomic_load_explicit(&d.buf, memory_order_relaxed);
    assert_true(a->mask + 1 >= N);
    assert_non_null(a->retired);
    /* Oldest half by steal in order, newest half by pop in reverse. */
    for (int i = 0; i < N / 2; i++)
        assert_ptr_equal(steal(&d), ITEM(i));
    assert_int_equal(lc_deque_size(&d), N - N / 2);
    for (int i = N - 1; i >= N / 2; i--)
        assert_ptr_equal(pop(&d), ITEM(i));
    assert_null(pop(&d));
    assert_null(steal(&d));
    lc_deque_destroy(&d);
}

static void test_size(void **state)
{
    (void)state;
    struct lc_deque d;
    assert_int_equal(lc_deque_init(&d, 3), 0);
    assert_int_equal(lc_deque_size(&d), 0);
    for (int i = 0; i < 20; i++) {
        assert_int_equal(push(&d, i), 0);
        assert_int_equal(lc_deque_size(&d), i + 1);
    }
    assert_non_null(steal(&d));
    assert_int_equal(lc_deque_size(&d), 19);
    assert_non_null(pop(&d));
    assert_int_equal(lc_deque_size(&d), 18);
    while (pop(&d) != NULL)
        ;
    assert_int_equal(lc_deque_size(&d), 0);
    assert_null(pop(&d));  /* pop on empty leaves size at 0 */
    assert_int_equal(lc_deque_size(&d), 0);
    lc_deque_destroy(&d);
}

/* ---- concurrent stress ---- */

enum { THIEVES = 3 };

struct stress {
    struct lc_deque d;
    int64_t n;
    _Atomic unsigned char *taken;   /* per item: how many times it was taken */
    _Atomic int done;               /* owner has pushed and drained everything */
    _Atomic int64_t stolen[THIEVES];
};

struct thief_arg {
    struct stress *s;
    int id;
};

static void take(struct stress *s, void *x)
{
    int64_t i = INDEX(x);
    if (i < 0 || i >= s->n) {
        fprintf(stderr, "bogus item %p\n", x);
        abort();  /* a test, not library code */
    }
    atomic_fetch_add_explicit(&s->taken[i], 1, memory_order_relaxed);
}

static void *thief(void *p)
{
    struct thief_arg *ta = p;
    struct stress *s = ta->s;
    int64_t got = 0;
    /* acquire on done: not needed for correctness (join orders everything),
     * but keeps the exit condition honest. */
    while (!atomic_load_explicit(&s->done, memory_order_acquire)) {
        void *x = steal(&s->d);
        if (x != NULL) {
            take(s, x);
            got++;
        } else {
            sched_yield();  /* 2 cores, 4 threads: let the owner run */
        }
    }
    atomic_store_explicit(&s->stolen[ta->id], got, memory_order_relaxed);
    return NULL;
}

/* Small deterministic PRNG so runs are reproducible in their op sequence. */
static uint64_t xorshift(uint64_t *st)
{
    uint64_t x = *st;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *st = x;
}

static void test_stress(void **state)
{
    (void)state;
    const char *san = getenv("LOCUS_TEST_SANITIZER");
    int64_t n = 200000;
    if (san != NULL && (strcmp(san, "asan") == 0 || strcmp(san, "tsan") == 0))
        n = 20000;

    struct stress *s = calloc(1, sizeof(*s));
    assert_non_null(s);
    s->n = n;
    s->taken = calloc((size_t)n, sizeof(s->taken[0]));
    assert_non_null(s->taken);
    /* Tiny initial buffer: growth happens while thieves are stealing. */
    assert_int_equal(lc_deque_init(&s->d, 2), 0);

    pthread_t th[THIEVES];
    struct thief_arg ta[THIEVES];
    for (int k = 0; k < THIEVES; k++) {
        ta[k] = (struct thief_arg){ s, k };
        assert_int_equal(pthread_create(&th[k], NULL, thief, &ta[k]), 0);
    }

    /* Bursts of 1..64 pushes, each followed by up to as many pops: short
     * bursts keep the deque near empty, racing the thieves for the last
     * item; long ones make it grow. */
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    int64_t popped = 0;
    for (int64_t i = 0; i < n;) {
        int64_t burst = 1 + (int64_t)(xorshift(&rng) % 64);
        for (int64_t j = 0; j < burst && i < n; j++, i++)
            assert_int_equal(push(&s->d, i), 0);
        int64_t pops = (int64_t)(xorshift(&rng) % (uint64_t)(burst + 1));
        for (int64_t j = 0; j < pops; j++) {
            void *x = pop(&s->d);
            if (x == NULL)
                break;
            take(s, x);
            popped++;
        }
    }
    /* Drain: a NULL pop means empty (a lost last-item race means a thief
     * took it), and only the owner pushes, so it stays empty. */
    for (void *x; (x = pop(&s->d)) != NULL;) {
        take(s, x);
        popped++;
    }
    atomic_store_explicit(&s->done, 1, memory_order_release);
    for (int k = 0; k < THIEVES; k++)
        assert_int_equal(pthread_join(th[k], NULL), 0);

    int64_t stolen = 0;
    for (int k = 0; k < THIEVES; k++)
        stolen += atomic_load_explicit(&s->stolen[k], memory_order_relaxed);
    print_message("stress: %lld items, %lld popped, %lld stolen\n",
                  (long long)n, (long long)popped, (long long)stolen);
    assert_int_equal(popped + stolen, n);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        unsigned c = atomic_load_explicit(&s->taken[i], memory_order_relaxed);
        if (c != 1) {
            if (bad < 10)
                print_error("item %lld taken %u times\n", (long long)i, c);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
    assert_int_equal(lc_deque_size(&s->d), 0);

    lc_deque_destroy(&s->d);
    free(s->taken);
    free(s);
}

int main(void)
{
    /* A hang (lost wakeup, livelock) fails the run instead of blocking it. */
    alarm(60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_init_bounds),
        cmocka_unit_test(test_lifo_pop),
        cmocka_unit_test(test_fifo_steal),
        cmocka_unit_test(test_growth),
        cmocka_unit_test(test_size),
        cmocka_unit_test(test_stress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
