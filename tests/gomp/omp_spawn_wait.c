/*
 * omp_spawn_wait.c - a deferred task that waits for a flag its creator
 * sets only after creating it (issue 29).  Legal OpenMP, and libgomp runs
 * it: it queues the task, and an idle thread of the team takes it.
 * Locus's short-task rule (runtime/grain.h) once ran such a task at its
 * creation, on its creator, when the tasks before it had been short: the
 * creator then waited in the task for itself.  Now a task is not run at
 * its creation while teammates are idle (man locus-gomp(7) says exactly
 * when it may be): here, after a taskwait, nothing else is queued for the
 * other threads, which wait at the end of the single construct.
 * Runs the pattern a few times after bursts of tiny tasks, which put the
 * rule in its short mode.  Needs two threads or more (with one, libgomp
 * runs the task at once too, and waits for ever).  Prints what ran, which
 * must be libgomp's; a hang is stopped by alarm().
 */
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

#define ROUNDS 20
#define TINY 5000

int main(void)
{
    alarm(60);   /* a hang fails the run */
    int ran = 0;
    long tiny = 0;
#pragma omp parallel shared(ran, tiny)
#pragma omp single
    {
        for (int r = 0; r < ROUNDS; r++) {
            for (int i = 0; i < TINY; i++) {
#pragma omp task shared(tiny)
                {
#pragma omp atomic
                    tiny++;
                }
            }
#pragma omp taskwait
            int flag = 0;
#pragma omp task shared(flag, ran)
            {
                int f;
                do {
#pragma omp atomic read
                    f = flag;
                } while (!f);
                ran++;
            }
#pragma omp atomic write
            flag = 1;
#pragma omp taskwait
        }
    }
    printf("tiny tasks: %ld; waiting tasks: %d of %d ran\n", tiny, ran, ROUNDS);
    return 0;
}
