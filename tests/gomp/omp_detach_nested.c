/*
 * omp_detach_nested.c - a detached task whose event its creator fulfils
 * only after a nested parallel region (issue 29): the nested region's end
 * and barriers wait for the detached tasks of that region, not for the
 * enclosing task's, which liblocus-gomp once waited for there (for ever).
 *  - one thread: a team of one, a detached task, a nested region of one
 *    thread (with a barrier and a detached task of its own), then the
 *    fulfilment;
 *  - the same with the nested region inside the detached task's sibling;
 *  - a nested team of two (max-active-levels 2) whose member 0 creates the
 *    detached task, then a region of one thread, then fulfils.
 * Prints what ran, which must be libgomp's; a hang is stopped by alarm().
 */
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

static int one_thread(int in_task)
{
    int x = 0, y = 0, inner = 0;
    omp_event_handle_t ev;
#pragma omp parallel num_threads(1) shared(x, y, inner, ev)
    {
#pragma omp task detach(ev) shared(x)
        x = 1;
        if (in_task) {
#pragma omp task shared(y, inner)
            {
#pragma omp parallel num_threads(1) shared(y, inner)
                {
                    omp_event_handle_t ev2;
#pragma omp task detach(ev2) shared(y)
                    y = 1;
                    omp_fulfill_event(ev2);
#pragma omp barrier
                    inner = 1;
                }
            }
        } else {
#pragma omp parallel num_threads(1) shared(y, inner)
            {
                omp_event_handle_t ev2;
#pragma omp task detach(ev2) shared(y)
                y = 1;
                omp_fulfill_event(ev2);
#pragma omp barrier
                inner = 1;
            }
        }
        omp_fulfill_event(ev);
    }
    return x + y + inner;
}

static int nested_team(void)
{
    int x = 0, inner = 0, size = 0;
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2) shared(x, inner, size)
#pragma omp single
    {
#pragma omp parallel num_threads(2) shared(x, inner, size)
        {
            if (omp_get_thread_num() == 0) {
                omp_event_handle_t ev;
                size = omp_get_num_threads();
#pragma omp task detach(ev) shared(x)
                x = 1;
#pragma omp parallel num_threads(1) shared(inner)
                {
#pragma omp barrier
                    inner = 1;
                }
                omp_fulfill_event(ev);
            }
        }
    }
    omp_set_max_active_levels(1);
    return x + inner + (size > 0);
}

int main(void)
{
    alarm(60);   /* a hang fails the run */
    printf("region of one thread: %d of 3\n", one_thread(0));
    printf("from a task: %d of 3\n", one_thread(1));
    printf("nested team: %d of 3\n", nested_team());
    return 0;
}
