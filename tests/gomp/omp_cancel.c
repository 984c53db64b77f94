/*
 * omp_cancel.c - cancellation with OMP_CANCELLATION=true (test_gomp sets
 * it): a cancelled taskgroup runs none of its tasks that had not started
 * (discarded, their dependences still released, or never created); a cancelled
 * parallel region's members all leave at their next cancellable barrier.
 * Prints what happened; the answers are the same on libgomp.  A watchdog
 * (alarm) makes a hang fail.
 */
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

#define N 100

int main(void)
{
    alarm(60);
    int x = 0;   /* only named by depend clauses */
    (void)x;
    int ran = 0, after = 0, late = 0, gate = 0, passed = 0;
    if (!omp_get_cancellation()) {
        printf("cancellation off\n");
        return 0;
    }
    #pragma omp parallel
    #pragma omp single
    {
        #pragma omp taskgroup
        {
            /* the first writer of x cancels the group.  If it runs before
             * the readers are created, they are not created; if after,
             * they wait for it and are discarded when it completes.  It
             * gives the creator a moment (bounded: a team of one thread
             * may run it at once) so that the second case is the usual
             * one.  Either way no reader runs. */
            #pragma omp task depend(out: x) shared(gate)
            {
                for (int i = 0; i < 1000; i++) {
                    int g;
                    #pragma omp atomic read
                    g = gate;
                    if (g)
                        break;
                    usleep(100);
                }
                #pragma omp cancel taskgroup
            }
            for (int i = 0; i < N; i++) {
                #pragma omp task depend(in: x) shared(ran)
                {
                    #pragma omp atomic
                    ran++;
                }
            }
            #pragma omp atomic write
            gate = 1;
            #pragma omp taskwait
            /* the group is cancelled: this task is not created */
            #pragma omp task shared(late)
            late = 1;
        }
        /* the readers, run or not, released x: this writer runs */
        #pragma omp task depend(out: x) shared(after)
        after = 1;
        #pragma omp taskwait
    }
    printf("taskgroup: %d of %d waiting tasks ran, later task created: %s, "
           "successor ran: %s\n", ran, N, late ? "yes" : "no", after ? "yes" : "no");

    #pragma omp parallel num_threads(4) shared(passed)
    {
        if (omp_get_thread_num() == 0) {
            #pragma omp cancel parallel
        }
        #pragma omp barrier
        #pragma omp atomic
        passed++;   /* never reached: the barrier above answers "cancelled" */
    }
    printf("parallel: %d members went past the cancelled barrier\n", passed);
    return 0;
}
