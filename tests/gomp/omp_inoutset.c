/*
 * omp_inoutset.c - depend(inoutset) as a later gcc passes it (a depend
 * object of kind 5 in the new depend-array format), built by hand since
 * gcc 12 does not accept the clause: a writer, four inoutset tasks that run
 * after the writer and may run together (the first waits, 10 s at most,
 * for the second to start: with two threads or more they must overlap),
 * then a reader after all four.  Locus
 * maps inoutset to a CONCURRENT access; gcc 12's libgomp stops on kind 5,
 * so test_gomp runs this program on Locus only.
 */
#include <omp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
               long arg_align, bool if_clause, unsigned flags, void **depend, int priority,
               void *detach);

#define FLAG_DEPEND 8
#define DEPEND_INOUTSET 5

static long z, seen = -1;

static void writer(void *arg)
{
    (void)arg;
    z = 1;
}

static int second_started, waited_in_vain;

static void add(void *arg)
{
    long i = *(long *)arg;
    if (i == 2)
        __atomic_store_n(&second_started, 1, __ATOMIC_SEQ_CST);
    if (i == 1) {
        double t0 = omp_get_wtime();
        while (!__atomic_load_n(&second_started, __ATOMIC_SEQ_CST))
            if (omp_get_wtime() - t0 > 10) {
                waited_in_vain = 1;
                break;
            }
    }
    __atomic_fetch_add(&z, i, __ATOMIC_SEQ_CST);
}

static void reader(void *arg)
{
    (void)arg;
    seen = z;
}

int main(void)
{
    #pragma omp parallel
    #pragma omp single
    {
        void *obj[2] = { &z, (void *)(uintptr_t)DEPEND_INOUTSET };
        void *out[3] = { (void *)1, (void *)1, &z };          /* [n, nout, addr] */
        void *set[6] = { 0, (void *)1, 0, 0, 0, obj };         /* [0, n, nout, nmutex, nin, depobj] */
        void *in[3] = { (void *)1, (void *)0, &z };
        GOMP_task(writer, NULL, NULL, 0, 1, true, FLAG_DEPEND, out, 0, NULL);
        for (long i = 1; i <= 4; i++)
            GOMP_task(add, &i, NULL, sizeof i, sizeof i, true, FLAG_DEPEND, set, 0, NULL);
        GOMP_task(reader, NULL, NULL, 0, 1, true, FLAG_DEPEND, in, 0, NULL);
        #pragma omp taskwait
    }
    printf("inoutset: reader saw %ld, members ran together: %s\n", seen,
           waited_in_vain ? "no" : "yes");
    return seen == 11 && !waited_in_vain ? 0 : 1;
}
