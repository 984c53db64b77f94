/*
 * omp_undeferred.c - undeferred tasks (if(0)) run on the encountering
 * thread, as in libgomp and libomp (issue 29: Locus queued them, and some
 * ran on another worker, where a threadprivate variable is another
 * thread's copy):
 *  - every thread of the team creates if(0) tasks that read a
 *    threadprivate variable and omp_get_thread_num();
 *  - the same with depend(in:) on a deferred sibling that writes the
 *    variable it reads: the body runs after it, on the encountering thread;
 *  - an if(0) task that creates a task and waits for it (its own child).
 * Prints counts, which must be libgomp's.
 */
#include <omp.h>
#include <stdio.h>

#define PER_THREAD 200

static int tp;
#pragma omp threadprivate(tp)

static unsigned long sink;

/* A few microseconds of work the compiler cannot drop. */
static void work(void)
{
    unsigned long x = 0;
    for (int i = 0; i < 2000; i++)
        x = x * 6364136223846793005ul + (unsigned long)i;
#pragma omp atomic write
    sink = x;
}

int main(void)
{
    int total = 0, moved = 0, dep_total = 0, dep_moved = 0, dep_early = 0, children = 0;
#pragma omp parallel reduction(+: total, moved, dep_total, dep_moved, dep_early, children)
    {
        int me = omp_get_thread_num();
        tp = me;
        for (int i = 0; i < PER_THREAD; i++) {
#pragma omp task if(0) shared(total, moved) firstprivate(me)
            {
                work();
                total++;
                moved += tp != me || omp_get_thread_num() != me;
            }
        }
        int x = 0;
        for (int i = 0; i < PER_THREAD / 4; i++) {
#pragma omp task depend(out: x) shared(x) firstprivate(i)
            {
                work();
                x = i + 1;
            }
#pragma omp task if(0) depend(in: x) shared(x, dep_total, dep_moved, dep_early) firstprivate(me, i)
            {
                dep_total++;
                dep_early += x != i + 1;
                dep_moved += tp != me || omp_get_thread_num() != me;
            }
        }
#pragma omp task if(0) shared(children)
        {
            int done = 0;
#pragma omp task shared(done)
            {
                work();
                done = 1;
            }
#pragma omp taskwait
            children += done;
        }
#pragma omp taskwait
    }
    int n = omp_get_max_threads();
    printf("if(0): %d tasks, %d ran away from their encountering thread\n",
           total / n, moved);
    printf("if(0) depend(in:): %d tasks, %d ran before their predecessor, %d ran away\n",
           dep_total / n, dep_early, dep_moved);
    printf("if(0) with a child: its taskwait saw %d of %d\n", children / n, 1);
    return 0;
}
