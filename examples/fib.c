/*
 * fib.c - recursive Fibonacci with nested tasks and taskwait.
 *
 * Each task for fib(n) spawns two child tasks, fib(n-1) and fib(n-2), waits
 * for them with locus_taskwait() and adds their results.  The children get a
 * copy of their argument (arg_size > 0), so the parent's stack frame only has
 * to hold the two result slots, which stay valid because the parent does not
 * return before its taskwait.  Below the cutoff a task computes its value
 * sequentially: tasks for tiny n would cost more than the work they do.
 *
 * Usage: fib [n [cutoff]]   (n default 25, cutoff default 12)
 * Exit status 0 when the result equals the iterative value.
 */
#include <locus.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#define FIB_MAX_N 60  /* fits in 64 bits; the task tree grows as 1.6^(n-cutoff) */

struct fib_arg {
    int n;
    int cutoff;
    unsigned long long *result;  /* slot in the parent's frame */
};

static unsigned long long fib_seq(int n)
{
    return n < 2 ? (unsigned long long)n : fib_seq(n - 1) + fib_seq(n - 2);
}

static unsigned long long fib_iter(int n)
{
    unsigned long long a = 0, b = 1;
    for (int i = 0; i < n; i++) {
        unsigned long long t = a + b;
        a = b;
        b = t;
    }
    return a;
}

/* A failure deep in the tree is recorded here and reported by main(). */
static int first_error;

static void fib_task(void *p)
{
    const struct fib_arg *a = p;

    if (a->n < 2 || a->n <= a->cutoff) {
        *a->result = fib_seq(a->n);
        return;
    }
    unsigned long long x = 0, y = 0;
    struct fib_arg c1 = { a->n - 1, a->cutoff, &x };
    struct fib_arg c2 = { a->n - 2, a->cutoff, &y };
    int e1 = locus_spawn(fib_task, &c1, sizeof c1, NULL, 0);
    int e2 = locus_spawn(fib_task, &c2, sizeof c2, NULL, 0);
    int e3 = locus_taskwait();  /* x and y are complete after this */
    int err = e1 < 0 ? e1 : e2 < 0 ? e2 : e3;
    if (err < 0)
        __atomic_store_n(&first_error, err, __ATOMIC_RELAXED);
    *a->result = x + y;
}

static int parse_int(const char *s, const char *what, int lo, int hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "fib: %s '%s': expected an integer in %d..%d\n", what, s, lo, hi);
        exit(2);
    }
    return (int)v;
}

int main(int argc, char **argv)
{
    if (argc > 3) {
        fprintf(stderr, "usage: %s [n [cutoff]]\n", argv[0]);
        return 2;
    }
    int n = argc > 1 ? parse_int(argv[1], "n", 0, FIB_MAX_N) : 25;
    int cutoff = argc > 2 ? parse_int(argv[2], "cutoff", 1, FIB_MAX_N) : 12;

    int err = locus_init();
    if (err < 0) {
        fprintf(stderr, "fib: locus_init: %s (%s)\n", locus_strerror(err),
                locus_error_message());
        return 1;
    }

    unsigned long long result = 0;
    struct fib_arg root = { n, cutoff, &result };
    err = locus_spawn(fib_task, &root, sizeof root, NULL, 0);
    int werr = locus_taskwait();
    int ferr = locus_finalize();
    if (err == 0)
        err = werr < 0 ? werr : ferr < 0 ? ferr : __atomic_load_n(&first_error, __ATOMIC_RELAXED);
    if (err < 0) {
        fprintf(stderr, "fib: %s\n", locus_strerror(err));
        return 1;
    }

    unsigned long long expect = fib_iter(n);
    if (result != expect) {
        fprintf(stderr, "fib: FAILED: fib(%d) = %llu, expected %llu\n", n, result, expect);
        return 1;
    }
    printf("fib(%d) = %llu (cutoff %d): verified\n", n, result, cutoff);
    return 0;
}
