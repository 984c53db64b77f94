/*
 * omp_exit.c - an OpenMP program that does not end its run the usual way,
 * for test_gomp's test_exit_outputs (runtime/exit.c on liblocus-gomp):
 * EXIT_MODE=exit calls exit(3) inside the parallel region while a task
 * still runs; EXIT_MODE=term sends itself SIGTERM from a task while
 * another runs; any other value ends normally (the layer's destructor
 * finalizes).  Prints nothing.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void nap(void)
{
    usleep(1000);
}

int main(void)
{
    const char *m = getenv("EXIT_MODE");
    int mode = !m ? 0 : !strcmp(m, "exit") ? 1 : !strcmp(m, "term") ? 2 : 0;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
        for (int i = 0; i < 4; i++) {
#pragma omp task
            nap();
        }
#pragma omp taskwait
        if (mode) {
            int started = 0;
#pragma omp task shared(started)
            {
                __atomic_store_n(&started, 1, __ATOMIC_RELEASE);
                for (;;)   /* never ends: the process ends around it */
                    nap();
            }
            while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE))
                nap();
            if (mode == 1)
                exit(3);
            kill(getpid(), SIGTERM);
            for (;;)
                nap();
        }
    }
    return 0;
}
