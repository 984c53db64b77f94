/*
 * omp_worksharing.c - parallel regions, worksharing loops of every
 * schedule (long and unsigned long long, both directions, collapse,
 * nowait), sections, single (with copyprivate), master, barrier, critical (named and not), atomics
 * (including one the hardware cannot do), reductions, locks and the omp_*
 * queries, each checked against a known answer.  Prints one line per
 * check (no thread numbers, so the output is the same on any runtime);
 * exits non-zero on a mismatch.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static int failures;

static void check(const char *what, long got, long want)
{
    printf("%-30s %ld\n", what, got);
    if (got != want) {
        fprintf(stderr, "omp_worksharing: %s: got %ld, expected %ld\n", what, got, want);
        failures++;
    }
}

#define N 1000
static int hits[N];

/* every iteration exactly once */
static long once(void)
{
    long bad = 0;
    for (int i = 0; i < N; i++) {
        bad += hits[i] != 1;
        hits[i] = 0;
    }
    return bad;
}

static void loops(void)
{
    int n = N;
    #pragma omp parallel
    {
        #pragma omp for schedule(static)
        for (int i = 0; i < n; i++) hits[i]++;
        #pragma omp single
        check("static", once(), 0);
        #pragma omp for schedule(static, 7)
        for (int i = 0; i < n; i++) hits[i]++;
        #pragma omp single
        check("static,7", once(), 0);
        #pragma omp for schedule(dynamic, 3)
        for (int i = 0; i < n; i++) hits[i]++;
        #pragma omp single
        check("dynamic,3", once(), 0);
        #pragma omp for schedule(guided, 2)
        for (int i = n - 1; i >= 0; i--) hits[i]++;
        #pragma omp single
        check("guided,2 downwards", once(), 0);
        #pragma omp for schedule(runtime)
        for (int i = 0; i < n; i += 3) { hits[i]++; if (i + 1 < n) hits[i + 1]++; if (i + 2 < n) hits[i + 2]++; }
        #pragma omp single
        check("runtime, step 3", once(), 0);
        #pragma omp for schedule(monotonic: dynamic)
        for (int i = 0; i < n; i++) hits[i]++;
        #pragma omp single
        check("monotonic dynamic", once(), 0);
        #pragma omp for schedule(dynamic) collapse(2)
        for (unsigned long long i = 0; i < 10; i++)
            for (int j = 0; j < n / 10; j++) hits[i * (n / 10) + j]++;
        #pragma omp single
        check("ull collapse(2)", once(), 0);
        #pragma omp for schedule(dynamic, 5)
        for (unsigned long long i = n; i > 0; i--) hits[i - 1]++;
        #pragma omp single
        check("ull downwards", once(), 0);
        /* more nowait loops in a row than the runtime keeps slots for */
        for (int k = 0; k < 20; k++) {
            #pragma omp for schedule(dynamic, 11) nowait
            for (int i = 0; i < n; i++) {
                #pragma omp atomic
                hits[i]++;
            }
        }
        #pragma omp barrier
        #pragma omp single
        {
            long bad = 0;
            for (int i = 0; i < N; i++) { bad += hits[i] != 20; hits[i] = 0; }
            check("20 nowait loops", bad, 0);
        }
    }
    #pragma omp parallel for schedule(dynamic, 4)
    for (int i = 0; i < n; i++) hits[i]++;
    check("parallel for dynamic", once(), 0);
    #pragma omp parallel for schedule(guided)
    for (int i = 0; i < 100; i++) hits[i * 10]++, hits[i * 10 + 1]++, hits[i * 10 + 2]++,
        hits[i * 10 + 3]++, hits[i * 10 + 4]++, hits[i * 10 + 5]++, hits[i * 10 + 6]++,
        hits[i * 10 + 7]++, hits[i * 10 + 8]++, hits[i * 10 + 9]++;
    check("parallel for guided", once(), 0);
    /* constant bounds: gcc may use the combined GOMP_parallel_loop_* calls */
    #pragma omp parallel for schedule(dynamic, 8)
    for (int i = 0; i < N; i++) hits[i]++;
    check("parallel for, constant bounds", once(), 0);
    #pragma omp parallel for schedule(runtime)
    for (int i = 0; i < N; i++) hits[i]++;
    check("parallel for runtime", once(), 0);

    long secs[3] = { 0, 0, 0 }, nowait_sec = 0;
    #pragma omp parallel
    {
        #pragma omp sections
        {
            #pragma omp section
            secs[0]++;
            #pragma omp section
            secs[1]++;
            #pragma omp section
            secs[2]++;
        }
        #pragma omp sections nowait
        {
            #pragma omp section
            nowait_sec++;
        }
    }
    check("sections, each once", secs[0] * 100 + secs[1] * 10 + secs[2], 111);
    check("sections nowait", nowait_sec, 1);
    #pragma omp parallel sections
    {
        #pragma omp section
        secs[0]++;
        #pragma omp section
        secs[1]++;
    }
    check("parallel sections", secs[0] * 10 + secs[1], 22);

    long s = 0;
    #pragma omp parallel for reduction(+: s) schedule(static, 5)
    for (long i = 1; i <= 1000; i++) s += i;
    check("reduction", s, 500500);
}

static void sync_constructs(void)
{
    long crit = 0, named = 0, atom = 0, singles = 0, masters = 0, teamsum = 0;
    long double ld = 1;
    omp_lock_t lock;
    omp_nest_lock_t nest;
    long locked = 0, nested = 0;
    omp_init_lock(&lock);
    omp_init_nest_lock(&nest);
    int nthreads = 0;
    #pragma omp parallel
    {
        #pragma omp single
        nthreads = omp_get_num_threads();
        for (int i = 0; i < 100; i++) {
            #pragma omp critical
            crit++;
            #pragma omp critical(other)
            named += 2;
            #pragma omp atomic
            atom += 3;
        }
        #pragma omp atomic
        ld *= 2;          /* no hardware atomic multiply of a long double */
        for (int i = 0; i < 5; i++) {
            #pragma omp single
            singles++;
        }
        #pragma omp master
        masters++;
        #pragma omp barrier
        #pragma omp atomic
        teamsum += omp_get_thread_num();
        for (int i = 0; i < 50; i++) {
            omp_set_lock(&lock);
            locked++;
            omp_unset_lock(&lock);
            omp_set_nest_lock(&nest);
            omp_set_nest_lock(&nest);
            nested++;
            omp_unset_nest_lock(&nest);
            omp_unset_nest_lock(&nest);
        }
        while (!omp_test_lock(&lock))
            ;
        locked++;
        omp_unset_lock(&lock);
    }
    omp_destroy_lock(&lock);
    omp_destroy_nest_lock(&nest);
    long copied = 0;
    #pragma omp parallel reduction(+: copied)
    {
        int x = -1;
        double y = 0;
        #pragma omp single copyprivate(x, y)
        {
            x = 42;
            y = 2.5;
        }
        copied += x == 42 && y == 2.5;
    }
    long t = nthreads;
    check("critical", crit, 100 * t);
    check("named critical", named, 200 * t);
    check("atomic", atom, 300 * t);
    check("long double atomic", (long)ld, 1L << t);
    check("single", singles, 5);
    check("master", masters, 1);
    check("thread numbers", teamsum, t * (t - 1) / 2);
    check("locks", locked, 51 * t);
    check("nest locks", nested, 50 * t);
    check("single copyprivate", copied, t);
}

static void queries(void)
{
    int in_par = -1, level = -1, nested_threads = -1, nested_level = -1, team = 0;
    check("in parallel (outside)", omp_in_parallel(), 0);
    check("level (outside)", omp_get_level(), 0);
    #pragma omp parallel
    {
        #pragma omp single
        {
            in_par = omp_in_parallel();
            team = omp_get_num_threads();
            level = omp_get_level();
            #pragma omp parallel
            {
                nested_threads = omp_get_num_threads();
                nested_level = omp_get_level();
            }
        }
    }
    check("in parallel (team > 1)", in_par, team > 1);
    check("level", level, 1);
    check("nested region threads", nested_threads, 1);
    check("nested level", nested_level, 2);
    int three = 0;
    #pragma omp parallel num_threads(3)
    #pragma omp single
    three = omp_get_num_threads();
    check("num_threads(3)", three, 3);
    omp_set_num_threads(2);
    int two = 0;
    #pragma omp parallel
    #pragma omp single
    two = omp_get_num_threads();
    check("omp_set_num_threads(2)", two, 2);
    check("max threads after set", omp_get_max_threads(), 2);
    double t0 = omp_get_wtime();
    check("wtime advances", omp_get_wtime() >= t0, 1);
    check("num procs positive", omp_get_num_procs() > 0, 1);
}

/* The pre-4.0 ABI that gcc no longer emits but old objects still call:
 * the caller runs the region's function itself between start and end. */
void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads);
void GOMP_parallel_end(void);

static void legacy_body(void *arg)
{
    long *seen = arg;
    #pragma omp atomic
    seen[0] += 1;
    #pragma omp barrier
    #pragma omp single
    seen[1] = omp_get_num_threads();
}

static void legacy(void)
{
    long seen[2] = { 0, 0 };
    GOMP_parallel_start(legacy_body, seen, 0);
    legacy_body(seen);
    GOMP_parallel_end();
    check("GOMP_parallel_start/end", seen[0], seen[1]);
}

int main(void)
{
    loops();
    sync_constructs();
    queries();
    legacy();
    return failures ? 1 : 0;
}
