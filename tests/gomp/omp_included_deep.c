/*
 * omp_included_deep.c - tasks created outside any parallel region are
 * included tasks, run at once on the creating thread, so a recursive task
 * program nests one set of runtime frames per level on that thread's
 * stack.  BOTS's concom does this in its serial part 30,000 levels deep;
 * libgomp fits it in an 8 MiB stack, and so must Locus (its frames were
 * three times libgomp's).  Here 9,000 levels in a thread with a 4 MiB stack:
 * about 3 MiB under libgomp.
 */
#include <pthread.h>
#include <stdio.h>

#define DEPTH 9000
/* a sanitizer's frames are several times larger (its build checks the
 * layer's correctness here, the plain build its stack use) */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define STACK (64u << 20)
#else
#define STACK (4u << 20)
#endif

static long count;

static void rec(int d)
{
    count++;
    if (d == 0)
        return;
#pragma omp task untied firstprivate(d)
    rec(d - 1);
}

static void *run(void *arg)
{
    (void)arg;
    rec(DEPTH);
    return NULL;
}

int main(void)
{
    pthread_attr_t a;
    pthread_t t;
    if (pthread_attr_init(&a) || pthread_attr_setstacksize(&a, STACK)
        || pthread_create(&t, &a, run, NULL) || pthread_join(t, NULL)) {
        printf("cannot start a thread\n");
        return 1;
    }
    printf("included tasks run: %ld of %d\n", count, DEPTH + 1);
    return count != DEPTH + 1;
}
