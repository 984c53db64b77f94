/*
 * omp_robust.c - OpenMP programs that libgomp runs and Locus once did not
 * (tests/test_robust.c has the locus.h forms):
 *  - a task with detach(ev), 20000 tasks that depend on it, then
 *    omp_fulfill_event(ev) from the thread that created them all: the
 *    spawner is past any throttle long before it fulfils;
 *  - a chain of tasks, each creating one child and returning (no
 *    taskwait), 10^6 deep (10^5 under a sanitizer): no stack may overflow.
 * Prints the counts, which must be libgomp's.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long depth;
static long chain_count;

static void link_task(long d)
{
#pragma omp atomic
    chain_count++;
    if (d + 1 < depth) {
#pragma omp task firstprivate(d)
        link_task(d + 1);
    }
}

int main(void)
{
    const char *san = getenv("LOCUS_TEST_SANITIZER");
    int sanitized = san && san[0] && strcmp(san, "none") != 0;
    long n = 20000, ran = 0;
    int x = 0;
    omp_event_handle_t ev;
#pragma omp parallel
#pragma omp single
    {
#pragma omp task detach(ev) depend(out: x) shared(x)
        x = 1;
        for (long i = 0; i < n; i++) {
#pragma omp task depend(in: x) shared(ran)
            {
#pragma omp atomic
                ran++;
            }
        }
        omp_fulfill_event(ev);
    }
    printf("detached: %ld of %ld dependent tasks ran, x = %d\n", ran, n, x);

    depth = sanitized ? 100000 : 1000000;
#pragma omp parallel
#pragma omp single
    link_task(0);
    printf("chain: %ld of %ld tasks ran\n", chain_count, depth);
    return ran != n || chain_count != depth;
}
