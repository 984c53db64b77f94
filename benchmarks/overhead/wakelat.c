/*
 * wakelat.c - how long a task pushed while the other workers sleep waits
 * before it starts: the initial thread lets the workers fall asleep
 * (LOCUS_SPIN polls, then the futex), spawns one empty task and, instead of
 * running it itself in a taskwait, spins until a woken worker has stolen
 * and started it.  The time from before locus_spawn() to the start of the
 * body is the cost of one wake-up: the pusher's half of the sleep
 * handshake, FUTEX_WAKE, the sleeper's return from FUTEX_WAIT and its
 * steal.  Each round also makes every other worker go to sleep once, so the
 * sleeper's half (runtime/wait.c) is paid once per round per worker.
 *
 * Usage: wakelat [--rounds N] [--gap-us G] [--csv]
 *   --rounds N   measured wake-ups (default 2000)
 *   --gap-us G   pause before each spawn, long enough for the workers to
 *                fall asleep (default 500; LOCUS_SPIN defaults to 100 here)
 *   --csv        one line in build/bench/overhead's CSV format
 *                (impl,pattern,window,tasks,workers,median_ns,min_ns with
 *                pattern "wake"), so benchmarks/overhead/ab.sh compares two
 *                builds of it
 * Environment: LOCUS_THREADS (default 2 here), LOCUS_SPIN (default 100),
 * LOCUS_GRAIN_NS (default 0 here: the task must be queued, not run at its
 * spawn).  Output: "wakelat workers=W rounds=N median_ns=M p90_ns=P
 * min_ns=m".  Exit 1 on a runtime error, 2 on a bad option.
 */
#define _GNU_SOURCE
#include <locus.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static _Alignas(64) _Atomic long started_ns;

static long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

static void mark(void *arg)
{
    (void)arg;
    atomic_store_explicit(&started_ns, now_ns(), memory_order_release);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static long parse_pos(const char *opt, const char *v)
{
    char *end;
    long x = v ? strtol(v, &end, 10) : 0;
    if (!v || *end || x <= 0) {
        fprintf(stderr, "wakelat: %s '%s': expected a positive integer\n", opt, v ? v : "");
        exit(2);
    }
    return x;
}

int main(int argc, char **argv)
{
    long rounds = 2000, gap_us = 500;
    int csv = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rounds"))
            rounds = parse_pos("--rounds", i + 1 < argc ? argv[++i] : NULL);
        else if (!strcmp(argv[i], "--gap-us"))
            gap_us = parse_pos("--gap-us", i + 1 < argc ? argv[++i] : NULL);
        else if (!strcmp(argv[i], "--csv"))
            csv = 1;
        else {
            fprintf(stderr, "usage: wakelat [--rounds N] [--gap-us G] [--csv]\n");
            return 2;
        }
    }
    setenv("LOCUS_THREADS", "2", 0);
    setenv("LOCUS_SPIN", "100", 0);
    setenv("LOCUS_GRAIN_NS", "0", 0);
    int err = locus_init();
    if (err < 0) {
        fprintf(stderr, "wakelat: locus_init: %s (%s)\n", locus_strerror(err), locus_error_message());
        return 1;
    }
    if (locus_num_workers() < 2) {
        fprintf(stderr, "wakelat: needs at least 2 workers\n");
        locus_finalize();
        return 1;
    }
    long *lat = malloc((size_t)rounds * sizeof *lat);
    if (!lat)
        return 1;
    for (long r = -10; r < rounds; r++) {   /* 10 rounds of warm-up */
        usleep((useconds_t)gap_us);
        atomic_store_explicit(&started_ns, 0, memory_order_relaxed);
        long t0 = now_ns();
        if ((err = locus_spawn(mark, NULL, 0, NULL, 0)) < 0) {
            fprintf(stderr, "wakelat: locus_spawn: %s (%s)\n", locus_strerror(err),
                    locus_error_message());
            return 1;
        }
        long t1;
        while (!(t1 = atomic_load_explicit(&started_ns, memory_order_acquire)))
            ;
        if ((err = locus_taskwait()) < 0) {
            fprintf(stderr, "wakelat: locus_taskwait: %s\n", locus_strerror(err));
            return 1;
        }
        if (r >= 0)
            lat[r] = t1 - t0;
    }
    int workers = locus_num_workers();
    locus_finalize();
    qsort(lat, (size_t)rounds, sizeof *lat, cmp_long);
    long med = lat[rounds / 2], p90 = lat[rounds * 9 / 10], min = lat[0];
    if (csv)
        printf("locus,wake,1,%ld,%d,%ld,%ld\n", rounds, workers, med, min);
    else
        printf("wakelat workers=%d rounds=%ld median_ns=%ld p90_ns=%ld min_ns=%ld\n", workers,
               rounds, med, p90, min);
    free(lat);
    return 0;
}
