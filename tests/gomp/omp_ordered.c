/*
 * omp_ordered.c - the loop forms gcc 9+ emits beyond the plain schedules:
 * ordered loops (every schedule, signed and unsigned iteration variables),
 * a doacross wavefront (ordered(2) with depend(sink)/depend(source)),
 * lastprivate(conditional:) and an inscan prefix sum (GOMP_loop_start with
 * its team-shared block), and sections with lastprivate(conditional:)
 * (GOMP_sections2_start).  Each prints what it computed; test_gomp checks
 * the output is libgomp's in every configuration.
 */
#include <stdio.h>

/* gcc 12 warns about its own private copy of a lastprivate(conditional:)
 * variable of sections, which it sets before use */
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#define N 200

static int order[N];
static int pos;

/* Every iteration records itself in the ordered region: the records must
 * come out 0..N-1 whatever thread ran which chunk. */
static void check_order(const char *what)
{
    int ok = pos == N;
    for (int i = 0; ok && i < N; i++)
        ok = order[i] == i;
    printf("ordered %-8s %s\n", what, ok ? "in order" : "OUT OF ORDER");
    pos = 0;
}

#define ORDERED_LOOP(what, pragma)                                              \
    do {                                                                       \
        _Pragma(pragma)                                                        \
        for (int i = 0; i < N; i++) {                                          \
            _Pragma("omp ordered")                                             \
            order[pos++] = i;                                                  \
        }                                                                      \
        check_order(what);                                                     \
    } while (0)

int main(void)
{
    ORDERED_LOOP("static", "omp parallel for ordered schedule(static)");
    ORDERED_LOOP("static3", "omp parallel for ordered schedule(static, 3)");
    ORDERED_LOOP("dynamic", "omp parallel for ordered schedule(dynamic, 2)");
    ORDERED_LOOP("guided", "omp parallel for ordered schedule(guided)");
    ORDERED_LOOP("runtime", "omp parallel for ordered schedule(runtime)");

    /* unsigned long long iterations, counting down, some skipping ordered */
    #pragma omp parallel for ordered schedule(dynamic, 5)
    for (unsigned long long u = N; u > 0; u--) {
        if (u % 7 == 0)
            continue;   /* an iteration need not meet the ordered region */
        #pragma omp ordered
        order[pos++] = (int)(N - u);
    }
    int ok = 1, k = 0;
    for (int i = 0; i < N; i++)
        if ((N - i) % 7 != 0)
            ok &= order[k++] == i;
    printf("ordered ull      %s (%d records)\n", ok && k == pos ? "in order" : "OUT OF ORDER", pos);
    pos = 0;

    /* doacross: a[i][j] needs a[i-1][j] and a[i][j-1] */
    static long a[64][48];
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < 48; j++)
            a[i][j] = i == 0 || j == 0 ? 1 : 0;
    #pragma omp parallel for ordered(2) schedule(static, 1)
    for (int i = 1; i < 64; i++)
        for (int j = 1; j < 48; j++) {
            #pragma omp ordered depend(sink: i - 1, j) depend(sink: i, j - 1)
            a[i][j] = (a[i - 1][j] + a[i][j - 1]) % 1000003;
            #pragma omp ordered depend(source)
        }
    printf("doacross wavefront a[63][47] = %ld\n", a[63][47]);

    /* lastprivate(conditional:): the value of the last iteration that set it */
    int last = -1;
    #pragma omp parallel for lastprivate(conditional: last) schedule(dynamic, 3)
    for (int i = 0; i < N; i++)
        if (i % 13 == 5)
            last = i;
    printf("conditional lastprivate %d\n", last);

    /* inclusive scan */
    static int in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = i % 9;
    int sum = 0;
    #pragma omp parallel for reduction(inscan, + : sum)
    for (int i = 0; i < N; i++) {
        sum += in[i];
        #pragma omp scan inclusive(sum)
        out[i] = sum;
    }
    int good = 1, s = 0;
    for (int i = 0; i < N; i++)
        good &= out[i] == (s += in[i]);
    printf("scan total %d, prefixes %s\n", sum, good ? "right" : "WRONG");

    /* sections with lastprivate(conditional:) */
    int which = 0;
    #pragma omp parallel sections lastprivate(conditional: which)
    {
        #pragma omp section
        which = 1;
        #pragma omp section
        which = 2;
        #pragma omp section
        { if (N < 0) which = 3; }
    }
    printf("sections conditional lastprivate %d\n", which);
    return 0;
}
