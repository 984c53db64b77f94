/*
 * icv_per_task.h - the data-environment ICVs (run-sched-var, dyn-var,
 * nthreads-var) each task's own, as OpenMP has them: set by one thread,
 * unseen by its teammates and by the task around the region, inherited by
 * the deferred tasks it creates.  One check, printing deterministic lines,
 * built by gcc (tests/gomp/omp_icv.c, against libgomp) and by clang
 * (tests/kmp/kmp_icv.c, against libomp).
 */
#ifndef ICV_PER_TASK_H
#define ICV_PER_TASK_H

#include <omp.h>
#include <stdio.h>

/* libgomp (gomp_task_icv) and libomp (td_icvs) keep these ICVs per task;
 * Locus wrote
 * run-sched-var and dyn-var process-wide, and its deferred tasks took the
 * nthreads-var of whichever thread ran them. */
static void icv_per_task(void)
{
    int size = 0, other_kind = -1, other_chunk = -1, other_dyn = -1;
    int task_kind = -1, task_chunk = -1, task_dyn = -1, task_threads = -1;
    omp_sched_t k0;
    int c0;
    omp_get_schedule(&k0, &c0);
    int dyn0 = omp_get_dynamic();
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            size = omp_get_num_threads();
            omp_set_schedule(omp_sched_static, 7);
            omp_set_dynamic(!dyn0);
            omp_set_num_threads(5);
        }
#pragma omp barrier
        if (omp_get_thread_num() == 1) {
            omp_sched_t k;
            omp_get_schedule(&k, &other_chunk);
            other_kind = (int)k;
            other_dyn = omp_get_dynamic();
        }
#pragma omp barrier
        if (omp_get_thread_num() == 0) {
            /* deferred: with two threads the other may run it */
#pragma omp task shared(task_kind, task_chunk, task_dyn, task_threads)
            {
                omp_sched_t k;
                omp_get_schedule(&k, &task_chunk);
                task_kind = (int)k;
                task_dyn = omp_get_dynamic();
                task_threads = omp_get_max_threads();
            }
#pragma omp taskwait
        }
    }
    omp_sched_t k1;
    int c1;
    omp_get_schedule(&k1, &c1);
    printf("per-task ICVs (team of %d): teammate sees schedule %s and dynamic %s\n", size,
           size < 2 ? "-" : (other_kind == (int)k0 && other_chunk == c0) ? "unchanged" : "CHANGED",
           size < 2 ? "-" : other_dyn == dyn0 ? "unchanged" : "CHANGED");
    printf("per-task ICVs: a task inherits schedule %d,%d, dynamic %s, %d threads\n", task_kind,
           task_chunk, task_dyn == !dyn0 ? "as set" : "NOT as set", task_threads);
    printf("per-task ICVs: after the region schedule %s, dynamic %s\n",
           (k1 == k0 && c1 == c0) ? "unchanged" : "CHANGED",
           omp_get_dynamic() == dyn0 ? "unchanged" : "CHANGED");
}

/*
 * Tasks whose creator set no ICV, run by a teammate whose own task set
 * one while it waits at a barrier: each sees its creator's nthreads-var,
 * not the teammate's, and what it sets for itself is gone when it ends
 * (the next task does not see it, nor the teammate after the barrier).
 * Locus ran such tasks with the running thread's ICVs and left theirs
 * behind.  The creator waits without running tasks until all have run,
 * so that the teammate runs those not run at their spawn.  Run it before
 * anything sets an ICV outside a region: the creator must have set none.
 */
#define ICV_COMMON_TASKS 16

static void icv_common_path(void)
{
    int creator = -1, mate_after = -1, wrong = 0, leaked = 0;
    int seen[ICV_COMMON_TASKS], by_mate[ICV_COMMON_TASKS], mate_ran = 0;
    int done = 0;
#pragma omp parallel num_threads(2) shared(seen, by_mate, done, wrong, leaked)
    {
        if (omp_get_thread_num() == 1)
            omp_set_num_threads(5);
#pragma omp barrier
        if (omp_get_thread_num() == 0) {
            creator = omp_get_max_threads();
            for (int i = 0; i < ICV_COMMON_TASKS; i++) {
#pragma omp task firstprivate(i) shared(seen, by_mate, done)
                {
                    /* long enough not to be run at its spawn (a short
                     * task may be, on the creator, whose ICVs it has) */
                    double t0 = omp_get_wtime();
                    while (omp_get_wtime() - t0 < 2e-4)
                        ;
                    seen[i] = omp_get_max_threads();
                    by_mate[i] = omp_get_thread_num() == 1;
                    omp_set_num_threads(9);   /* this task's own */
#pragma omp atomic
                    done++;
                }
            }
            /* no scheduling point: the teammate runs what is queued */
            for (long spin = 0; spin < 4000000000L; spin++) {
                int d;
#pragma omp atomic read
                d = done;
                if (d == ICV_COMMON_TASKS)
                    break;
            }
        }
#pragma omp barrier
        if (omp_get_thread_num() == 1)
            mate_after = omp_get_max_threads();
    }
    for (int i = 0; i < ICV_COMMON_TASKS; i++) {
        mate_ran += by_mate[i];
        if (seen[i] == 9)
            leaked++;
        else if (seen[i] != creator)
            wrong++;
    }
    printf("per-task ICVs: %d tasks of a creator that set none, %s run by the teammate, see "
           "its nthreads-var: %s\n", done, mate_ran ? "some" : "none", wrong ? "NO" : "yes");
    printf("per-task ICVs: what such a task sets stays in it: %s, the teammate keeps its own: %s\n",
           leaked ? "NO" : "yes", mate_after == 5 ? "yes" : "NO");
}

#endif /* ICV_PER_TASK_H */
