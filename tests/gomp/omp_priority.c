/*
 * omp_priority.c - the priority clause: one thread holds the other in a
 * task (which waits, 10 s at most, until every other task has run), then
 * creates tasks of mixed priorities and runs them itself in its taskwait;
 * prints omp_get_max_task_priority() and whether they started highest
 * priority first.  test_gomp runs it on Locus with OMP_MAX_TASK_PRIORITY
 * set (in order) and unset (priorities ignored: the order of creation's
 * reverse, which is not).  LOCUS_GRAIN_NS=0 keeps the tasks deferred.
 */
#include <omp.h>
#include <stdio.h>

static const int prio[] = { 0, 3, 1, 7, 0, 5, 3, 9, 2, 6, 1, 8, 4 };
#define N ((int)(sizeof prio / sizeof prio[0]))

static int started[N], nstarted, holder_in, timed_out;

static void wait_for(int *flag, int want)
{
    double t0 = omp_get_wtime();
    while (__atomic_load_n(flag, __ATOMIC_SEQ_CST) < want)
        if (omp_get_wtime() - t0 > 10) {
            __atomic_store_n(&timed_out, 1, __ATOMIC_SEQ_CST);
            return;
        }
}

int main(void)
{
    #pragma omp parallel num_threads(2)
    #pragma omp single
    {
        #pragma omp task
        {
            __atomic_store_n(&holder_in, 1, __ATOMIC_SEQ_CST);
            wait_for(&nstarted, N);
        }
        wait_for(&holder_in, 1);
        for (int i = 0; i < N; i++) {
            #pragma omp task firstprivate(i) priority(prio[i])
            started[__atomic_fetch_add(&nstarted, 1, __ATOMIC_SEQ_CST)] = i;
        }
        #pragma omp taskwait
    }
    int ordered = 1;
    for (int k = 1; k < N; k++)
        if (prio[started[k - 1]] < prio[started[k]])
            ordered = 0;
    printf("max priority %d, highest first: %s%s\n", omp_get_max_task_priority(),
           ordered ? "yes" : "no", timed_out ? " (timed out)" : "");
    return 0;
}
