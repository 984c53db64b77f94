/*
 * corelat.c - the round-trip time of one cache line between two CPUs: one
 * thread writes a word, the other waits for it and answers, many times
 * over.  Every hand-over of a task from one core to another costs at least
 * one such transfer, so this is the floor under any cross-core task
 * hand-over, and on a virtual machine it is not a constant: the host may
 * move the two virtual CPUs closer together or further apart while a
 * benchmark runs (on the development VM it swings between about 100 and
 * 500 ns).  compare.sh prints it beside each pattern so that a table says
 * which of those machines it was measured on.
 *
 * Usage: corelat [--cpus A,B] [--trips N] [--reps R]
 *   --cpus A,B  the two CPUs (default: the first two of the affinity mask)
 *   --trips N   round trips per repetition (default 100000)
 *   --reps R    repetitions; the median is printed (default 5)
 * Output: one line "corelat cpus=A,B median_ns=M min_ns=m".  Exit 2 on a bad
 * option, 1 when the two CPUs cannot be used.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_REPS 101

/* the line that travels, alone on its line so nothing else rides along */
static _Alignas(64) _Atomic long ball;
static long trips = 100000;

static int pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    return pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

#define READY (-1L)    /* the answerer runs on its CPU */
#define FAILED (-2L)   /* the answerer could not be moved to its CPU */

/* The answering side: says whether it runs where asked, then waits for
 * each odd value and answers with the next. */
static void *answer(void *arg)
{
    if (pin(*(int *)arg) != 0) {
        atomic_store_explicit(&ball, FAILED, memory_order_release);
        return NULL;
    }
    atomic_store_explicit(&ball, READY, memory_order_release);
    for (long i = 0; i < trips; i++) {
        while (atomic_load_explicit(&ball, memory_order_acquire) != 2 * i + 1)
            __builtin_ia32_pause();
        atomic_store_explicit(&ball, 2 * i + 2, memory_order_release);
    }
    return NULL;
}

/* One repetition: ns per round trip, or a negative errno. */
static double one_rep(int a, int b)
{
    pthread_t th;
    long v;
    int err;

    if ((err = pin(a)) != 0)
        return -err;
    atomic_store(&ball, 0);
    if ((err = pthread_create(&th, NULL, answer, &b)) != 0)
        return -err;
    while ((v = atomic_load_explicit(&ball, memory_order_acquire)) == 0)
        __builtin_ia32_pause();
    if (v == FAILED) {
        pthread_join(th, NULL);
        return -EINVAL;
    }
    double t0 = now_ns();
    for (long i = 0; i < trips; i++) {
        atomic_store_explicit(&ball, 2 * i + 1, memory_order_release);
        while (atomic_load_explicit(&ball, memory_order_acquire) != 2 * i + 2)
            __builtin_ia32_pause();
    }
    double t1 = now_ns();
    pthread_join(th, NULL);
    return (t1 - t0) / (double)trips;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static __attribute__((noreturn)) void usage_error(const char *what)
{
    fprintf(stderr, "corelat: %s\nusage: corelat [--cpus A,B] [--trips N] [--reps R]\n", what);
    exit(2);
}

static long parse_positive(const char *s, long max, const char *opt)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v <= 0 || v > max) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s '%s': expected an integer from 1 to %ld", opt, s, max);
        usage_error(msg);
    }
    return v;
}

int main(int argc, char **argv)
{
    int a = -1, b = -1, reps = 5;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            puts("usage: corelat [--cpus A,B] [--trips N] [--reps R]\n"
                 "Round-trip time of one cache line between two CPUs (median of R runs).");
            return 0;
        }
        if (i + 1 >= argc)
            usage_error("every option takes a value");
        if (!strcmp(argv[i], "--cpus")) {
            if (sscanf(argv[++i], "%d,%d", &a, &b) != 2 || a < 0 || b < 0 || a == b
                || a >= CPU_SETSIZE || b >= CPU_SETSIZE)
                usage_error("--cpus: expected two different CPU numbers, A,B");
        } else if (!strcmp(argv[i], "--trips")) {
            trips = parse_positive(argv[++i], 100000000L, "--trips");
        } else if (!strcmp(argv[i], "--reps")) {
            reps = (int)parse_positive(argv[++i], MAX_REPS, "--reps");
        } else {
            usage_error("unknown option");
        }
    }
    if (a < 0) {
        cpu_set_t s;
        if (sched_getaffinity(0, sizeof s, &s) != 0) {
            perror("corelat: sched_getaffinity");
            return 1;
        }
        for (int c = 0; c < CPU_SETSIZE && b < 0; c++)
            if (CPU_ISSET(c, &s)) {
                if (a < 0)
                    a = c;
                else
                    b = c;
            }
        if (b < 0) {
            fprintf(stderr, "corelat: the affinity mask holds one CPU; two are needed\n");
            return 1;
        }
    }

    double v[MAX_REPS];
    for (int r = 0; r < reps; r++) {
        v[r] = one_rep(a, b);
        if (v[r] < 0) {
            fprintf(stderr, "corelat: cannot run on CPUs %d and %d: %s\n", a, b,
                    strerror((int)-v[r]));
            return 1;
        }
    }
    qsort(v, (size_t)reps, sizeof v[0], cmp_double);
    printf("corelat cpus=%d,%d median_ns=%.1f min_ns=%.1f\n", a, b, v[reps / 2], v[0]);
    return 0;
}
