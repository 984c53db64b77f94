/*
 * hello_deps.c - the smallest Locus program with dependencies.
 *
 * Four tasks share one object, the greeting:
 *
 *            producer (OUT greeting)
 *              /                 \
 *   consumer 1 (IN greeting)   consumer 2 (IN greeting)
 *              \                 /
 *             final (INOUT greeting, IN both replies)
 *
 * The two consumers may run at the same time and in either order, so they do
 * not print: each writes its reply into its own buffer and the final task
 * prints the replies in a fixed order.  Every line printed therefore comes out
 * in the same, dependency-respecting order on every run.  Each task also
 * takes a ticket from a shared counter when it starts; the program checks the
 * tickets against the graph and exits 0 only if the order was valid.
 *
 * Build: gcc -std=gnu11 -Iinclude examples/hello_deps.c build/liblocus.a \
 *            -lhwloc -lnuma -ljemalloc -lpthread
 */
#include <locus.h>

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

enum { PRODUCER, CONSUMER1, CONSUMER2, FINAL, NTASKS };

static char greeting[64];
static char reply[2][96];           /* one per consumer: no sharing, no race */
static int ticket[NTASKS];          /* start order of each task */
static atomic_int next_ticket;

static void take_ticket(int who)
{
    ticket[who] = atomic_fetch_add_explicit(&next_ticket, 1, memory_order_relaxed);
}

static void producer(void *arg)
{
    (void)arg;
    take_ticket(PRODUCER);
    snprintf(greeting, sizeof greeting, "hello");
    printf("producer : wrote \"%s\"\n", greeting);
}

/* arg is a copy of the consumer's index (0 or 1), made at spawn time. */
static void consumer(void *arg)
{
    int k = *(const int *)arg;

    take_ticket(CONSUMER1 + k);
    snprintf(reply[k], sizeof reply[k], "%s from consumer %d", greeting, k + 1);
}

static void final_task(void *arg)
{
    (void)arg;
    take_ticket(FINAL);
    printf("consumer1: read  \"%s\"\n", reply[0]);
    printf("consumer2: read  \"%s\"\n", reply[1]);
    strncat(greeting, ", world", sizeof greeting - strlen(greeting) - 1);
    printf("final    : wrote \"%s\"\n", greeting);
}

int main(void)
{
    int err = locus_init();
    if (err < 0) {
        fprintf(stderr, "hello_deps: locus_init: %s (%s)\n", locus_strerror(err),
                locus_error_message());
        return 1;
    }

    /* Spawn order is program order; the runtime orders the tasks from it. */
    err = locus_task(producer, NULL, 0, LOCUS_OUT(greeting, sizeof greeting));
    for (int k = 0; k < 2 && err == 0; k++)
        err = locus_task(consumer, &k, sizeof k, LOCUS_IN(greeting, sizeof greeting),
                         LOCUS_OUT(reply[k], sizeof reply[k]));
    if (err == 0)
        err = locus_task(final_task, NULL, 0, LOCUS_INOUT(greeting, sizeof greeting),
                         LOCUS_IN(reply[0], sizeof reply[0]),
                         LOCUS_IN(reply[1], sizeof reply[1]));
    if (err < 0)
        fprintf(stderr, "hello_deps: spawn: %s (%s)\n", locus_strerror(err),
                locus_error_message());

    int werr = locus_taskwait();
    int ferr = locus_finalize();
    if (err < 0 || werr < 0 || ferr < 0) {
        if (werr < 0 || ferr < 0)
            fprintf(stderr, "hello_deps: taskwait/finalize: %s\n",
                    locus_strerror(werr < 0 ? werr : ferr));
        return 1;
    }

    /* Producer first, final last, the consumers in between in either order. */
    int ok = ticket[PRODUCER] == 0 && ticket[FINAL] == NTASKS - 1 &&
             ticket[CONSUMER1] + ticket[CONSUMER2] == 1 + 2 &&
             strcmp(greeting, "hello, world") == 0 &&
             strcmp(reply[0], "hello from consumer 1") == 0 &&
             strcmp(reply[1], "hello from consumer 2") == 0;
    if (!ok) {
        fprintf(stderr,
                "hello_deps: FAILED: start order producer=%d consumer1=%d consumer2=%d "
                "final=%d (expected 0, 1|2, 2|1, 3), greeting \"%s\"\n",
                ticket[PRODUCER], ticket[CONSUMER1], ticket[CONSUMER2], ticket[FINAL],
                greeting);
        return 1;
    }
    printf("hello_deps: dependency order verified\n");
    return 0;
}
