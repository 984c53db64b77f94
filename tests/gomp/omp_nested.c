/*
 * omp_nested.c - nested parallel regions (gomp/nest.c): with nesting on,
 * a region nested in an active one gets its own team of the size asked
 * for, at every level allowed by max-active-levels, with per-level
 * thread numbers and team sizes; past max-active-levels a region has one
 * thread; worksharing, single, barriers, tasks (depend, taskwait,
 * taskgroup task_reduction) and parallel reduction(task) work inside
 * nested teams.  Prints what it found, which test_gomp compares with
 * libgomp's output (only counts and sums: no thread-order-dependent text).
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int bad = 0, members = 0, inner_members = 0, deep_one = 0;
    long loop_sum = 0, task_sum = 0, red_sum = 0;

    omp_set_dynamic(0);
    omp_set_max_active_levels(2);
    printf("nested %d max %d supported>1 %d\n", omp_get_nested(),
           omp_get_max_active_levels(), omp_get_supported_active_levels() > 1);

    #pragma omp parallel num_threads(2) reduction(+: bad, members, inner_members)
    {
        int outer = omp_get_thread_num();
        members++;
        #pragma omp parallel num_threads(3) reduction(+: bad, inner_members)
        {
            inner_members++;
            if (omp_get_level() != 2 || omp_get_active_level() != 2
                || omp_get_num_threads() != 3 || omp_get_team_size(2) != 3
                || omp_get_team_size(1) != 2 || omp_get_team_size(0) != 1
                || omp_get_ancestor_thread_num(1) != outer
                || omp_get_ancestor_thread_num(2) != omp_get_thread_num()
                || omp_get_ancestor_thread_num(3) != -1)
                bad++;

            /* worksharing and a barrier inside the nested team */
            long part = 0;
            #pragma omp for
            for (int i = 0; i < 300; i++)
                part += i;
            #pragma omp atomic
            loop_sum += part;
            #pragma omp barrier
            #pragma omp single
            {
                /* tasks with dependencies inside a nested team */
                int x = 0;
                #pragma omp task depend(out: x) shared(x)
                x = 5;
                #pragma omp task depend(inout: x) shared(x)
                x *= 3;
                #pragma omp taskwait
                #pragma omp atomic
                task_sum += x;

                long r = 0;
                #pragma omp taskgroup task_reduction(+: r)
                for (int i = 1; i <= 50; i++) {
                    #pragma omp task in_reduction(+: r) firstprivate(i)
                    r += i;
                }
                #pragma omp atomic
                red_sum += r;
            }

            /* past max-active-levels: one thread */
            #pragma omp parallel num_threads(4)
            {
                if (omp_get_num_threads() != 1 || omp_get_level() != 3
                    || omp_get_active_level() != 2)
                    bad++;
                #pragma omp atomic
                deep_one++;
            }
        }
    }

    long ptr = 0;
    #pragma omp parallel num_threads(2)
    #pragma omp single
    {
        #pragma omp parallel num_threads(2) reduction(task, +: ptr)
        {
            #pragma omp task in_reduction(+: ptr)
            ptr += 10;
        }
    }

    printf("outer members %d inner members %d deep %d\n", members, inner_members, deep_one);
    printf("loop %ld tasks %ld reduction %ld parallel-task %ld\n", loop_sum, task_sum, red_sum,
           ptr);
    printf("errors %d\n", bad);
    omp_set_nested(0);
    printf("after set_nested(0): nested %d max %d\n", omp_get_nested(),
           omp_get_max_active_levels());
    return 0;
}
