/*
 * omp_reductions.c - task reductions (reduction.c of liblocus-gomp):
 * taskgroup task_reduction with in_reduction tasks and their own child
 * tasks, a taskgroup nested in another with a second reduction, taskloop
 * reduction, taskloop in_reduction, parallel reduction(task, ...), and
 * the worksharing forms of reduction(task, ...): a loop (GOMP_loop_start),
 * an unsigned long long loop, sections (GOMP_sections2_start), an ordered
 * loop, and scope (GOMP_scope_start), with in_reduction tasks created by
 * every member, several such constructs in a row (the members join the
 * first one's private copies each time), and the same in nested teams.
 * Prints each result, which test_gomp compares with libgomp's: they equal
 * the serial sums only if every private copy was combined exactly once.
 */
#include <omp.h>
#include <stdio.h>

#define N 2000

static long long tree(int depth, long long *s)
{
    /* children of an in_reduction task take part too */
    long long here = 0;
    if (depth == 0)
        return 0;
    for (int c = 0; c < 2; c++) {
        #pragma omp task in_reduction(+: s[0]) firstprivate(depth)
        {
            s[0] += depth;
            tree(depth - 1, s);
        }
        here += depth;
    }
    return here;
}

int main(void)
{
    long long sum = 0, prod_like = 0, nested = 0, tl = 0, tlin = 0, par = 0;
    long long treesum[1] = { 0 };
    int maxv = -1;

    #pragma omp parallel
    #pragma omp single
    {
        #pragma omp taskgroup task_reduction(+: sum) task_reduction(max: maxv)
        {
            for (int i = 0; i < N; i++) {
                #pragma omp task in_reduction(+: sum) in_reduction(max: maxv) firstprivate(i)
                {
                    sum += i;
                    if (i % 977 > maxv)
                        maxv = i % 977;
                }
            }
            #pragma omp taskgroup task_reduction(+: nested)
            for (int i = 0; i < N / 2; i++) {
                #pragma omp task in_reduction(+: sum, nested) firstprivate(i)
                {
                    sum += 1;
                    nested += 2 * i;
                }
            }
            prod_like = nested;
        }
        #pragma omp taskgroup task_reduction(+: treesum[0])
        tree(6, treesum);

        #pragma omp taskloop reduction(+: tl) grainsize(7)
        for (int i = 0; i < N; i++)
            tl += (long long)i * i;

        #pragma omp taskgroup task_reduction(+: tlin)
        {
            #pragma omp taskloop in_reduction(+: tlin) num_tasks(13) nogroup
            for (int i = 0; i < N; i++)
                tlin += 3;
            #pragma omp task in_reduction(+: tlin)
            tlin += 1;
        }
    }

    #pragma omp parallel reduction(task, +: par)
    {
        #pragma omp for
        for (int i = 0; i < 64; i++) {
            #pragma omp task in_reduction(+: par) firstprivate(i)
            par += i;
        }
        par += 1;   /* each thread's own part */
    }
    par -= omp_get_max_threads();   /* the team's size is the max threads here */

    /* worksharing constructs with reduction(task, ...) */
    long long wsf = 0, wsu = 0, wss = 0, wso = 0, wsc = 0;
    #pragma omp parallel
    {
        for (int rep = 0; rep < 3; rep++) {
            #pragma omp for reduction(task, +: wsf) schedule(dynamic, 3)
            for (int i = 0; i < 100; i++) {
                #pragma omp task in_reduction(+: wsf) firstprivate(i)
                wsf += i;
                wsf += 1;
            }
        }
        #pragma omp for reduction(task, +: wsu)
        for (unsigned long long i = 0; i < 50; i++) {
            #pragma omp task in_reduction(+: wsu) firstprivate(i)
            wsu += (long long)(2 * i);
        }
        #pragma omp sections reduction(task, +: wss)
        {
            #pragma omp section
            {
                #pragma omp task in_reduction(+: wss)
                wss += 10;
            }
            #pragma omp section
            {
                #pragma omp task in_reduction(+: wss)
                wss += 20;
            }
            #pragma omp section
            wss += 30;
        }
        #pragma omp for ordered reduction(task, +: wso) schedule(dynamic)
        for (int i = 0; i < 40; i++) {
            #pragma omp task in_reduction(+: wso) firstprivate(i)
            wso += i;
            #pragma omp ordered
            wso += 1;
        }
        #pragma omp scope reduction(task, +: wsc)
        {
            #pragma omp task in_reduction(+: wsc)
            wsc += 5;
            wsc += 1;
        }
    }
    wsc -= 6 * omp_get_max_threads();   /* 6 per member */

    /* in teams nested two deep (nest.c: tasks run at once there) */
    long long nest = 0;
    omp_set_max_active_levels(2);
    #pragma omp parallel num_threads(2) reduction(+: nest)
    {
        long long x = 0;
        #pragma omp parallel num_threads(3)
        {
            #pragma omp for reduction(task, +: x)
            for (int i = 0; i < 30; i++) {
                #pragma omp task in_reduction(+: x) firstprivate(i)
                x += i;
            }
            #pragma omp scope reduction(task, +: x)
            {
                #pragma omp task in_reduction(+: x)
                x += 1;
            }
        }
        nest += x;
    }

    printf("taskgroup sum %lld max %d nested %lld\n", sum, maxv, prod_like);
    printf("tree %lld\n", treesum[0]);
    printf("taskloop %lld in_reduction %lld\n", tl, tlin);
    printf("parallel %lld\n", par);
    printf("worksharing for %lld ull %lld sections %lld ordered %lld scope %lld\n", wsf, wsu,
           wss, wso, wsc);
    printf("nested worksharing %lld\n", nest);
    return 0;
}
