/*
 * omp_schedule.c - the run-sched ICV with its modifiers (issue 29):
 * OMP_SCHEDULE's monotonic: prefix reaches omp_get_schedule() as
 * omp_sched_monotonic, as in libgomp (static is monotonic without it,
 * nonmonotonic: clears it), and omp_set_schedule() keeps the bit too.
 * A schedule(runtime) loop then runs each iteration once, and under a
 * monotonic schedule each thread's iterations come in increasing order.
 * Prints what it saw, which must be libgomp's (tests/test_gomp.c runs it
 * under several OMP_SCHEDULE values).
 */
#include <omp.h>
#include <stdio.h>

#define N 1000

static void show(const char *what)
{
    omp_sched_t kind;
    int chunk;
    omp_get_schedule(&kind, &chunk);
    printf("%s: kind %d%s, chunk %d\n", what, (int)(kind & ~omp_sched_monotonic),
           kind & omp_sched_monotonic ? " monotonic" : "", chunk);
}

static void run_loop(void)
{
    static int hits[N];
    int increasing = 1;
#pragma omp parallel shared(increasing)
    {
        int last = -1;
#pragma omp for schedule(runtime)
        for (int i = 0; i < N; i++) {
#pragma omp atomic
            hits[i]++;
            if (i < last) {
#pragma omp atomic write
                increasing = 0;
            }
            last = i;
        }
    }
    int once = 1;
    for (int i = 0; i < N; i++) {
        once &= hits[i] == 1;
        hits[i] = 0;
    }
    omp_sched_t kind;
    int chunk;
    omp_get_schedule(&kind, &chunk);
    printf("  loop: each iteration once: %s", once ? "yes" : "no");
    if (kind & omp_sched_monotonic)
        printf(", increasing on each thread: %s", increasing ? "yes" : "no");
    printf("\n");
}

int main(void)
{
    show("OMP_SCHEDULE");
    run_loop();
    omp_set_schedule(omp_sched_dynamic | omp_sched_monotonic, 3);
    show("set monotonic dynamic 3");
    run_loop();
    omp_set_schedule(omp_sched_guided | omp_sched_monotonic, 0);
    show("set monotonic guided 0");
    run_loop();
    omp_set_schedule(omp_sched_static | omp_sched_monotonic, 7);
    show("set monotonic static 7");
    run_loop();
    omp_set_schedule(omp_sched_static, 0);
    show("set static 0");
    run_loop();
    omp_set_schedule(omp_sched_dynamic, -2);
    show("set dynamic -2");
    run_loop();
    return 0;
}
