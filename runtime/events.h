/*
 * events.h - the runtime's side of external events and polling services
 * (events.c, poll.c): what the body's end, the worker loop and the sleep
 * path ask, each a load of a word that is written only when somebody uses
 * the feature, so that programs that never do pay nothing else.
 *
 * A task's outstanding events live in the upper bits of its state word
 * (task.h).  The body's end and the last fulfilment meet there: the body's
 * end sets LC_ST_BODYDONE with a read-modify-write only when it finds
 * events outstanding, and exactly one of the two sees both "body done"
 * and "count 0" in the one order of read-modify-writes of the word: that
 * one drops the body's share of pending (task.h), which may complete it.
 */
#ifndef LC_EVENTS_H
#define LC_EVENTS_H

#include <stdatomic.h>
#include <stdint.h>

#include "task.h"

struct lc_worker;
struct lc_runtime;

/* Services registered (poll.c); read by every worker's loop. */
extern _Atomic int lc_poll_count;

/* Tasks whose body has returned and whose events are not all fulfilled,
 * and tasks blocked in locus_task_block: written only by those paths, read
 * by locus_finalize when it has waited long (wait.c). */
extern _Atomic long lc_events_waiting, lc_tasks_blocked;

/* events.c: locus_finalize waits until no event counted on the initial
 * thread's task (main is a task: locus_task_current) is outstanding. */
void lc_root_events_wait(struct lc_worker *w);

/* events.c: the task a user's reference names, checked: its descriptor,
 * with *gen the generation to compare with its state (lc_ref_current); or
 * NULL with -EINVAL and a message naming fn in *err. */
struct lc_task *lc_ref_check(locus_task_ref_t ref, uint32_t *gen, const char *fn, int *err);

/* events.c: the calling task's reference, or NULL (locus_task_current
 * without its note that tasks may block: for the library's own uses). */
locus_task_ref_t lc_task_current_ref(void);

/* events.c: the body of t ended with events outstanding (slow half of
 * lc_events_body_end). */
int lc_events_body_end_slow(struct lc_task *t);

/* After the body of t returned (on its thread): 1 when t may complete as
 * usual, 0 when the last locus_task_events_decrease() will complete it.
 * acquire: a fulfilment seen here happens before t's successors run. */
static inline int lc_events_body_end(struct lc_task *t)
{
    if (__builtin_expect(LC_ST_LOW(atomic_load_explicit(&t->state, memory_order_acquire))
                         < LC_ST_EV_ONE, 1))
        return 1;
    return lc_events_body_end_slow(t);
}

/* Whether t has events outstanding now (its own thread asks). */
static inline int lc_events_held(struct lc_task *t)
{
    return LC_ST_LOW(atomic_load_explicit(&t->state, memory_order_relaxed)) >= LC_ST_EV_ONE;
}

/* events.c: completes the tasks whose last event a thread that is not a
 * worker fulfilled, queues the tasks such threads spawned, and calls the polling services when due (idle: every
 * call; busy: every LOCUS_POLL_US).  Returns 1 when it completed a task or
 * a service finished. */
int lc_async_run(struct lc_worker *w, int idle);

/* The tasks left for a worker to complete, or NULL (events.c). */
extern _Atomic(struct lc_task *) lc_ext_head;

/* independent.c: tasks without a parent that threads which are not
 * workers spawned, for a worker to queue; lc_inject_drain queues them
 * (1 when there were some). */
struct lc_indep;
extern _Atomic(struct lc_indep *) lc_inject_head;
int lc_inject_drain(struct lc_worker *w);
/* A task without parent running fn(arg), from any thread: 0, -EPERM, -ENOMEM. */
int lc_spawn_independent(locus_task_fn fn, void *arg);
/* Independent tasks spawned and not yet returned from (independent.c). */
extern _Atomic uint32_t lc_indep_live;
/* Runs tasks on w until every independent task has returned (locus_finalize). */
void lc_independent_wait(struct lc_worker *w);

/* Whether lc_async_run has anything to look at: loads of lines that only
 * registrations, foreign fulfilments and foreign spawns write. */
static inline int lc_async_due(void)
{
    return atomic_load_explicit(&lc_ext_head, memory_order_relaxed) != NULL
           || atomic_load_explicit(&lc_poll_count, memory_order_relaxed) > 0
           || atomic_load_explicit(&lc_inject_head, memory_order_relaxed) != NULL;
}

/* poll.c: calls every service once, unless another thread is doing so;
 * 1 when a service said it is done (a service that is not done does not
 * count as progress: idle workers go on towards sleeping). */
int lc_poll_services(void);

/* The sleep path (wait.c): whether this worker should sleep with a timeout
 * (services exist and no other sleeper keeps them polled); release with
 * lc_poll_sleeper_done when awake again. */
int lc_poll_sleeper_claim(void);
void lc_poll_sleeper_done(void);

#endif /* LC_EVENTS_H */
