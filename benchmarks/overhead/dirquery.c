/*
 * dirquery.c - the cost of one data-location directory lookup
 * (alloc/directory.c, lc_dir_query), the lookup every task spawn does per
 * dependency on a machine or virtual topology of several nodes.  T threads
 * query the same directory at once, as the spawners of several nodes do;
 * with --writer one more thread keeps re-recording tiles meanwhile, as
 * first-touch bookings do.  Prints, per mode, the median and the minimum
 * over the repetitions of the ns per query (wall time of the slowest
 * thread divided by its queries).
 *
 * Modes: exact (a tile with the bounds it was recorded with: the hash),
 * span (two neighbouring half tiles: the tree walk).
 *
 * Usage: dirquery [--threads T] [--tiles N] [--queries Q] [--reps R]
 *                 [--writer] [--csv]
 *   defaults: 1 thread, 1024 tiles of 64 KiB, 2e6 queries per thread, 5 reps.
 * See benchmarks/README.md for figures and the command that compares two
 * builds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "directory.h"

#define NODES 4
#define TILE ((uintptr_t)64 << 10)
#define BASE ((uintptr_t)1 << 32)   /* addresses are only numbers here */

static struct lc_directory *dir;
static long ntiles = 1024, nqueries = 2000000;
static atomic_int go, stop_writer;
static atomic_uint_fast64_t sink;

struct worker {
    pthread_t th;
    int id, span;
    double ns;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void *query_loop(void *arg)
{
    struct worker *w = arg;
    uint64_t bytes[NODES] = { 0 }, spread = 0, unknown = 0;
    uint64_t x = 0x9E3779B97F4A7C15u * (uint64_t)(w->id + 1);
    while (!atomic_load(&go))
        ;
    double t0 = now();
    for (long i = 0; i < nqueries; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uintptr_t t = (uintptr_t)(x % (uint64_t)(ntiles - 1));
        uintptr_t a = BASE + t * TILE + (w->span ? TILE / 2 : 0);
        unknown += lc_dir_query(dir, a, TILE, bytes, &spread);
    }
    w->ns = (now() - t0) / (double)nqueries;
    atomic_fetch_add(&sink, unknown + bytes[0] + spread);
    return NULL;
}

static void *write_loop(void *arg)
{
    (void)arg;
    uint64_t x = 12345;
    while (!atomic_load(&stop_writer)) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uintptr_t t = (uintptr_t)(x % (uint64_t)ntiles);
        lc_dir_record(dir, BASE + t * TILE, TILE, (int)(x >> 32) % NODES);
    }
    return NULL;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static long parse(const char *opt, const char *v, long min)
{
    char *end;
    errno = 0;
    long n = v ? strtol(v, &end, 10) : 0;
    if (!v || errno || *end || n < min) {
        fprintf(stderr, "dirquery: option '%s' needs an integer >= %ld\n", opt, min);
        exit(2);
    }
    return n;
}

int main(int argc, char **argv)
{
    long nthreads = 1, reps = 5;
    int writer = 0, csv = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads"))
            nthreads = parse(argv[i], argv[i + 1], 1), i++;
        else if (!strcmp(argv[i], "--tiles"))
            ntiles = parse(argv[i], argv[i + 1], 2), i++;
        else if (!strcmp(argv[i], "--queries"))
            nqueries = parse(argv[i], argv[i + 1], 1), i++;
        else if (!strcmp(argv[i], "--reps"))
            reps = parse(argv[i], argv[i + 1], 1), i++;
        else if (!strcmp(argv[i], "--writer"))
            writer = 1;
        else if (!strcmp(argv[i], "--csv"))
            csv = 1;
        else {
            fprintf(stderr, "dirquery: unknown option '%s' (see the top of "
                    "benchmarks/overhead/dirquery.c)\n", argv[i]);
            return 2;
        }
    }
    if (!(dir = lc_dir_create(NODES))) {
        fprintf(stderr, "dirquery: out of memory\n");
        return 1;
    }
    for (long t = 0; t < ntiles; t++)
        if (lc_dir_record(dir, BASE + (uintptr_t)t * TILE, TILE, (int)(t % NODES)) != 0) {
            fprintf(stderr, "dirquery: out of memory\n");
            return 1;
        }
    struct worker *w = calloc((size_t)nthreads, sizeof *w);
    double *med = calloc((size_t)reps, sizeof *med);
    if (!w || !med)
        return 1;
    if (csv)
        printf("mode,threads,writer,median_ns,min_ns\n");
    for (int span = 0; span < 2; span++) {
        for (long r = 0; r < reps; r++) {
            pthread_t wt;
            atomic_store(&go, 0);
            atomic_store(&stop_writer, 0);
            if (writer && pthread_create(&wt, NULL, write_loop, NULL) != 0)
                return 1;
            for (long i = 0; i < nthreads; i++) {
                w[i] = (struct worker){ .id = (int)i, .span = span };
                if (pthread_create(&w[i].th, NULL, query_loop, &w[i]) != 0)
                    return 1;
            }
            atomic_store(&go, 1);
            double worst = 0;
            for (long i = 0; i < nthreads; i++) {
                pthread_join(w[i].th, NULL);
                worst = w[i].ns > worst ? w[i].ns : worst;
            }
            if (writer) {
                atomic_store(&stop_writer, 1);
                pthread_join(wt, NULL);
            }
            med[r] = worst;
        }
        qsort(med, (size_t)reps, sizeof *med, cmp);
        const char *mode = span ? "span" : "exact";
        if (csv)
            printf("%s,%ld,%d,%.1f,%.1f\n", mode, nthreads, writer, med[reps / 2], med[0]);
        else
            printf("%-6s threads %ld%s: %.1f ns/query (median of %ld), min %.1f\n", mode,
                   nthreads, writer ? " + writer" : "", med[reps / 2], reps, med[0]);
    }
    lc_dir_destroy(dir);
    free(w);
    free(med);
    return 0;
}
