/*
 * lmpi.h - what the files of liblocus-mpi share (internal, never
 * installed): the table of pending requests, the polling service that
 * tests them, the library's error message and statistics.
 *
 * A call that hands requests over makes one group: the task it belongs to,
 * how the task is told (an event to fulfil, or a task to unblock) and how
 * many of its requests are still pending.  Each pending request has a slot
 * in one dense array (what MPI_Testsome takes) with its group beside it.
 * One mutex guards the table; the task is told after the mutex is released,
 * since fulfilling its last event may complete it and run code that hands
 * new requests over.
 */
#ifndef LMPI_H
#define LMPI_H

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "locus.h"
#include "locus_mpi.h"

struct lm_group {
    locus_task_ref_t task;
    int blocking;           /* 1: unblock task; 0: fulfil one event of task */
    int left;               /* requests not yet complete (under the table lock) */
    int first_error;        /* index of the first request that failed, or -1 */
    int error_code;         /* its MPI error code */
    MPI_Status *statuses;   /* the caller's, or NULL (ignored) */
    atomic_int done;        /* blocking: 0 pending, 1 unblock in progress, 2 unblocked */
    struct lm_group *next;  /* the list of groups finished by one poll */
};

struct lm_slot {
    struct lm_group *group;
    int index;              /* the request's position in its group's call */
    uint64_t since_ns;      /* when it was handed over */
};

struct lm_table {
    pthread_mutex_t lock;
    int initialised;
    int n, cap;
    MPI_Request *reqs;      /* n pending requests, dense */
    struct lm_slot *slots;  /* beside them */
    int *indices;           /* MPI_Testsome's output, cap entries */
    MPI_Status *st;         /* likewise */
    uint64_t pending_since; /* when n last went from 0 to more */
    locus_mpi_stats_t stats;
};

extern struct lm_table lm_table;

/* Sets the calling thread's message and returns err. */
int lm_error(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
uint64_t lm_now_ns(void);

/* Checks a call's requests (table lock held): -EBUSY with the message when
 * one is pending already or listed twice while not complete, -ENOMEM when
 * the table cannot take them all; then lm_table_add cannot fail. */
int lm_table_check_new(const char *fn, const MPI_Request *reqs, int count);
/* Adds count pending requests of group g (table lock held, room made). */
void lm_table_add(struct lm_group *g, const MPI_Request *reqs, const int *index, int count);

/* The polling service (locus_poll_fn): tests the pending requests. */
int lm_poll(void *data);

#endif /* LMPI_H */
