/*
 * detach.h - the handle of the detach clause (detach.c): what GOMP_task
 * (task.c) creates, attaches at the start of a deferred task's body, or
 * waits for when the task ran on the encountering thread.
 */
#ifndef LC_GOMP_DETACH_H
#define LC_GOMP_DETACH_H

#include <stdatomic.h>
#include <stdint.h>

#include "locus.h"

struct gomp_event {
    _Atomic uint32_t st;          /* EV_ATTACHED, EV_FULFILLED (detach.c) */
    int waited;                   /* the creating thread waits for it: no Locus event */
    int heap;                     /* malloc'd (else the creator's local) */
    locus_task_ref_t task;        /* deferred: the task, once its body began */
    struct gomp_event *next;      /* in the creating thread's parked list */
};

/* Creates the handle and stores it where gcc expects it (*detach and the
 * first word of data); waited: the task runs on this thread.  Without
 * memory it uses *local, waited. */
struct gomp_event *gomp_event_new(void **detach, void *data, int waited,
                                  struct gomp_event *local);
/* The task will run on this thread after all (its spawn failed). */
void gomp_event_make_waited(struct gomp_event *ev);
/* At the start of a deferred task's body (on its thread). */
void gomp_event_attach(struct gomp_event *ev);
/* Waited: returns once fulfilled (and frees a heap handle). */
void gomp_event_wait(struct gomp_event *ev);
/* Waited, later: at this thread's next synchronisation point. */
void gomp_event_park(struct gomp_event *ev);
/* Waits for every parked handle of this thread's innermost region. */
void gomp_detach_wait_parked(void);
/* A parallel region begins on this thread: the handles parked so far are
 * the enclosing region's, which this one's end and barriers do not wait
 * for (the task that fulfils them may come after the region); returns
 * them for gomp_detach_region_end. */
struct gomp_event *gomp_detach_region_begin(void);
/* The region ends: waits for its own parked handles, then the enclosing
 * region's are parked again. */
void gomp_detach_region_end(struct gomp_event *outer);

#endif /* LC_GOMP_DETACH_H */
