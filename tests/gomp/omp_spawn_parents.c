/*
 * omp_spawn_parents.c - tasks run at their spawn whose children outlive
 * their bodies, while those children look up through them (a regression
 * test for TSan, run by test_gomp).
 *
 * Many in_reduction tasks are spawned in a row from one thread: once its
 * queue is long, Locus runs them at their spawn on that thread (ready.h).
 * Each spawns an in_reduction child and returns without waiting for it,
 * so when its body returns it becomes an ordinary child of its spawner
 * (run.h, lc_run: its bookkeeping bit cleared on its own thread), while
 * its child, taken by another thread, finds the reduction's copy by
 * walking up its ancestors to the implicit task, reading each one's
 * flags (gomp/reduction.c).  That bit once shared a word with the flags
 * the walk reads: a data race TSan reported.  The parent waits a bounded
 * while for its child to begin, through a relaxed flag that orders
 * nothing, so that the two accesses are close and not ordered by the
 * program.  Prints the sum, which must be the serial one.
 */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>

#define ROUNDS 3000
#define PATIENCE 20000   /* polls of the child's flag, at most */

static atomic_int begun[ROUNDS];

int main(void)
{
    long long sum = 0;
    #pragma omp parallel
    #pragma omp single
    #pragma omp taskgroup task_reduction(+: sum)
    for (int r = 0; r < ROUNDS; r++) {
        #pragma omp task in_reduction(+: sum) firstprivate(r)
        {
            sum += 1;
            #pragma omp task in_reduction(+: sum) firstprivate(r)
            {
                sum += 2;   /* the lookup is done: the parent may return */
                atomic_store_explicit(&begun[r], 1, memory_order_relaxed);
            }
            for (int k = 0; k < PATIENCE
                 && !atomic_load_explicit(&begun[r], memory_order_relaxed); k++)
                ;
        }
    }
    printf("sum %lld (expected %lld)\n", sum, 3LL * ROUNDS);
    return sum != 3LL * ROUNDS;
}
