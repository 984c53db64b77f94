/*
 * overhead.c - per-task overhead of Locus: empty tasks spawned by the
 * initial thread in four dependency patterns, with a taskwait every W tasks.
 * overhead_omp.c is the same benchmark on libgomp (#pragma omp task
 * depend); keep the two spawn loops line for line alike.  Options, body,
 * objects, timing and output live in overhead_common.h.
 *
 * Patterns (i = 0..N-1, objects one cache line each):
 *   indep   no dependencies
 *   chain   inout objs[0]
 *   chains  inout objs[i % 64]
 *   fanin   in objs[(i+1..i+4) % 1024], inout objs[i % 1024]
 */
#include <locus.h>

#include "overhead_common.h"

#define OBJ(k) LOCUS_INOUT(&bench_objs[(k)], sizeof bench_objs[0])
#define OBJ_IN(k) LOCUS_IN(&bench_objs[(k)], sizeof bench_objs[0])

__attribute__((noinline, cold, noreturn)) static void die(const char *what, int err)
{
    fprintf(stderr, "overhead: %s: %s (%s)\n", what, locus_strerror(err), locus_error_message());
    exit(1);
}

static inline void check_spawn(int err)
{
    if (__builtin_expect(err < 0, 0))
        die("locus_spawn", err);
}

static inline void wait_all(void)
{
    int err = locus_taskwait();
    if (__builtin_expect(err < 0, 0))
        die("locus_taskwait", err);
}

/* 'left' counts down to the next taskwait: the same window logic, and the
 * same cost, as in overhead_omp.c. */
static void run_pattern(enum bench_pattern p, long n, long w)
{
    long left = w;
    const long m = BENCH_FANIN_OBJS - 1;

    switch (p) {
    case PAT_INDEP:
        for (long i = 0; i < n; i++) {
            check_spawn(locus_spawn(bench_body, NULL, 0, NULL, 0));
            if (--left == 0) {
                wait_all();
                left = w;
            }
        }
        break;
    case PAT_CHAIN:
        for (long i = 0; i < n; i++) {
            check_spawn(locus_task(bench_body, NULL, 0, OBJ(0)));
            if (--left == 0) {
                wait_all();
                left = w;
            }
        }
        break;
    case PAT_CHAINS:
        for (long i = 0; i < n; i++) {
            check_spawn(locus_task(bench_body, NULL, 0, OBJ(i & (BENCH_CHAINS - 1))));
            if (--left == 0) {
                wait_all();
                left = w;
            }
        }
        break;
    case PAT_FANIN:
        for (long i = 0; i < n; i++) {
            check_spawn(locus_task(bench_body, NULL, 0, OBJ_IN((i + 1) & m),
                                   OBJ_IN((i + 2) & m), OBJ_IN((i + 3) & m),
                                   OBJ_IN((i + 4) & m), OBJ(i & m)));
            if (--left == 0) {
                wait_all();
                left = w;
            }
        }
        break;
    case PAT_COUNT:
        break;
    }
    wait_all();
}

int main(int argc, char **argv)
{
    struct bench_opts o;
    bench_parse_options(argc, argv, &o);

    int err = locus_init();
    if (err < 0)
        die("locus_init", err);
    int workers = locus_num_workers();
    if (workers < 0)
        die("locus_num_workers", workers);

    bench_run_all(&o, "locus", workers, run_pattern);

    err = locus_finalize();
    if (err < 0)
        die("locus_finalize", err);
    return 0;
}
