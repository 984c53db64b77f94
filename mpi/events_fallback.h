/*
 * events_fallback.h - TEMPORARY, removed when wip-events (the native events,
 * block/unblock and polling API of locus.h) is merged: the agreed
 * declarations, so that liblocus-mpi builds before it.
 */
#ifndef LM_EVENTS_FALLBACK_H
#define LM_EVENTS_FALLBACK_H
#define LM_EVENTS_FALLBACK 1
typedef struct locus_task_ref *locus_task_ref_t;
locus_task_ref_t locus_task_current(void);
int locus_task_events_increase(locus_task_ref_t task, unsigned n);
int locus_task_events_decrease(locus_task_ref_t task, unsigned n);
int locus_task_block(void);
int locus_task_unblock(locus_task_ref_t task);
typedef int (*locus_poll_fn)(void *data);
int locus_poll_register(const char *name, locus_poll_fn fn, void *data);
int locus_poll_unregister(locus_poll_fn fn, void *data);
/* Under the fallback the task's body waits for its events itself. */
void lm_fallback_hold(locus_task_ref_t task);
#endif
