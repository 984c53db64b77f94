/*
 * omp_icv.c - OpenMP semantics that liblocus-gomp once got silently wrong,
 * each printing a deterministic line (test_gomp compares them with
 * libgomp's): taskloop num_tasks(strict:) running every iteration, ICVs
 * set in an undeferred task staying in it, the num_threads clause and
 * omp_set_num_threads() winning over LOCUS_THREADS, nestable locks owned
 * by tasks, cancel constructs as no-ops when OMP_CANCELLATION is off, and
 * the data-environment ICVs (run-sched-var, dyn-var, nthreads-var) each
 * task's own: set by one thread, unseen by its teammates and by the task
 * around the region, inherited by the deferred tasks it creates.
 */
#include <omp.h>
#include <stdio.h>

#include "icv_per_task.h"

static void taskloop_strict(void)
{
    int count = 0, sum = 0;
#pragma omp parallel
#pragma omp single
#pragma omp taskloop num_tasks(strict: 7) shared(count, sum)
    for (int i = 0; i < 100; i++) {
#pragma omp atomic
        count++;
#pragma omp atomic
        sum += i;
    }
    printf("taskloop num_tasks(strict: 7): %d iterations, sum %d\n", count, sum);
}

static void icv_in_tasks(void)
{
    int in_task = 0, after = 0, in_team = 0;
    omp_set_num_threads(3);
#pragma omp parallel num_threads(1)
    {
        omp_set_num_threads(6);
#pragma omp task if (0)
        {
            omp_set_num_threads(5);
            in_task = omp_get_max_threads();
        }
        after = omp_get_max_threads();
    }
#pragma omp parallel num_threads(2)
#pragma omp master
    in_team = omp_get_max_threads();
    printf("max threads: in the task %d, after it %d, outside %d, in a team %d\n",
           in_task, after, omp_get_max_threads(), in_team);
    omp_set_num_threads(2);
}

static void thread_counts(void)
{
    int clause = 0, set = 0;
#pragma omp parallel num_threads(3)
#pragma omp single
    clause = omp_get_num_threads();
    omp_set_num_threads(2);
#pragma omp parallel
#pragma omp single
    set = omp_get_num_threads();
    printf("num_threads(3): %d threads; omp_set_num_threads(2): %d threads\n", clause, set);
}

static void nest_lock_owners(void)
{
    omp_nest_lock_t l;
    int inner = -1, again;
    omp_init_nest_lock(&l);
    int first = omp_test_nest_lock(&l);
#pragma omp parallel if (0)
    inner = omp_test_nest_lock(&l);   /* another task: the lock is held */
    again = omp_test_nest_lock(&l);
    omp_unset_nest_lock(&l);
    omp_unset_nest_lock(&l);
    omp_destroy_nest_lock(&l);
    printf("nest lock: owner %d, another task %d, owner again %d\n", first, inner, again);
}

static void cancel_off(void)
{
    int n = 0;
#pragma omp parallel reduction(+: n)
    {
#pragma omp for
        for (int i = 0; i < 64; i++) {
            n++;
#pragma omp cancel for if (i == 3)
        }
#pragma omp cancellation point parallel
    }
    printf("cancellation %s: %d iterations ran\n", omp_get_cancellation() ? "on" : "off", n);
}

int main(void)
{
    /* first: the ones below set ICVs outside any region, which every task
     * after them inherits */
    icv_common_path();
    taskloop_strict();
    icv_in_tasks();
    thread_counts();
    nest_lock_owners();
    cancel_off();
    icv_per_task();
    return 0;
}
