/*
 * table.c - the pending requests and the polling service that completes
 * them: MPI_Testsome over the dense array, then each finished group's task
 * is told (an event fulfilled, or the task unblocked).
 *
 * The array stays dense (completed slots are filled from the end) because
 * MPI_Testsome scans every entry it is given; MPI_REQUEST_NULL holes would
 * be scanned for nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lmpi.h"

static int lm_grow(int need)
{
    if (need <= lm_table.cap)
        return 0;
    int cap = lm_table.cap ? lm_table.cap : 64;
    while (cap < need)
        cap *= 2;
    MPI_Request *r = realloc(lm_table.reqs, (size_t)cap * sizeof *r);
    if (r)
        lm_table.reqs = r;
    struct lm_slot *s = realloc(lm_table.slots, (size_t)cap * sizeof *s);
    if (s)
        lm_table.slots = s;
    int *ix = realloc(lm_table.indices, (size_t)cap * sizeof *ix);
    if (ix)
        lm_table.indices = ix;
    MPI_Status *st = realloc(lm_table.st, (size_t)cap * sizeof *st);
    if (st)
        lm_table.st = st;
    if (!r || !s || !ix || !st)
        return -ENOMEM;   /* what did grow is kept; cap still bounds all four */
    lm_table.cap = cap;
    return 0;
}

int lm_table_check_new(const char *fn, const MPI_Request *reqs, int count)
{
    int live = 0;
    for (int i = 0; i < count; i++) {
        if (reqs[i] == MPI_REQUEST_NULL)
            continue;
        live++;
        for (int k = 0; k < lm_table.n; k++)
            if (lm_table.reqs[k] == reqs[i])
                return lm_error(-EBUSY, "%s: request %d of this call was handed to locus-mpi "
                                "before and is still pending (a request is handed over "
                                "once; its variable becomes MPI_REQUEST_NULL)", fn, i);
        for (int k = 0; k < i; k++) {
            int done = 0;
            if (reqs[k] != reqs[i])
                continue;
            /* the same handle twice: an error unless it is complete already
             * (a shared complete request object, see wait.c) */
            if (MPI_Request_get_status(reqs[i], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || !done)
                return lm_error(-EBUSY, "%s: requests %d and %d of this call are the same "
                                "pending request (a request is handed over once)", fn, k, i);
        }
    }
    if (lm_grow(lm_table.n + live) < 0)
        return lm_error(-ENOMEM, "%s: no memory for %d more pending requests", fn, live);
    return 0;
}

void lm_table_add(struct lm_group *g, const MPI_Request *reqs, const int *index, int count)
{
    uint64_t now = lm_now_ns();
    if (lm_table.n == 0)
        lm_table.pending_since = now;
    for (int i = 0; i < count; i++) {
        lm_table.reqs[lm_table.n] = reqs[i];
        lm_table.slots[lm_table.n] = (struct lm_slot){ g, index[i], now };
        lm_table.n++;
    }

}

/* One request of g finished with status st (rc: MPI_Testsome's return). */
static void lm_finish_one(struct lm_group *g, int index, const MPI_Status *st, int rc,
                          struct lm_group **done)
{
    int code = rc == MPI_ERR_IN_STATUS ? st->MPI_ERROR : rc;
    if (g->statuses) {   /* MPI leaves MPI_ERROR unset on success: set it */
        g->statuses[index] = *st;
        g->statuses[index].MPI_ERROR = code;
    }
    if (code != MPI_SUCCESS) {
        lm_table.stats.errors++;
        if (g->first_error < 0) {
            g->first_error = index;
            g->error_code = code;
        }
    }
    lm_table.stats.completed++;
    if (--g->left == 0) {
        g->next = *done;
        *done = g;
    }
}

int lm_poll(void *data)
{
    (void)data;
    struct lm_group *done = NULL;

    pthread_mutex_lock(&lm_table.lock);
    if (lm_table.n == 0) {
        pthread_mutex_unlock(&lm_table.lock);
        return 0;
    }
    int n = lm_table.n, outcount = 0;
    lm_table.stats.polls++;
    int rc = MPI_Testsome(n, lm_table.reqs, &outcount, lm_table.indices, lm_table.st);
    uint64_t now = lm_now_ns();
    if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
        /* MPI could not say which completed: every request is finished
         * with the error, so that no task waits forever for them. */
        for (int k = 0; k < n; k++) {
            MPI_Status st;
            memset(&st, 0, sizeof st);
            st.MPI_SOURCE = MPI_ANY_SOURCE;
            st.MPI_TAG = MPI_ANY_TAG;
            st.MPI_ERROR = rc;
            lm_finish_one(lm_table.slots[k].group, lm_table.slots[k].index, &st, rc, &done);
        }
        lm_table.n = 0;
    } else if (outcount != MPI_UNDEFINED && outcount > 0) {
        for (int c = 0; c < outcount; c++) {
            int k = lm_table.indices[c];
            struct lm_slot *s = &lm_table.slots[k];
            lm_table.stats.request_seconds += (double)(now - s->since_ns) * 1e-9;
            lm_finish_one(s->group, s->index, &lm_table.st[c], rc, &done);
            s->group = NULL;   /* marks the slot for compaction below */
        }
        int w = 0;
        for (int k = 0; k < n; k++)
            if (lm_table.slots[k].group) {
                lm_table.reqs[w] = lm_table.reqs[k];
                lm_table.slots[w] = lm_table.slots[k];
                w++;
            }
        lm_table.n = w;
    }
    if (lm_table.n == 0)
        lm_table.stats.pending_seconds += (double)(now - lm_table.pending_since) * 1e-9;
    pthread_mutex_unlock(&lm_table.lock);

    /* Tell the tasks, without the lock: the last event may complete the task
     * and release successors that hand requests over on this thread. */
    while (done) {
        struct lm_group *g = done;
        done = g->next;
        if (g->blocking) {
            /* 1 before the unblock, 2 after it: a waiter woken by someone
             * else's unblock that sees 1 waits for 2, so that its task
             * cannot complete (ending the reference) under this call.
             * After the store of 2, g belongs to the waiter. */
            atomic_store_explicit(&g->done, 1, memory_order_release);
            locus_task_unblock(g->task);
            atomic_store_explicit(&g->done, 2, memory_order_release);
        } else {
            locus_task_ref_t t = g->task;
            free(g);
            locus_task_events_decrease(t, 1);
        }
    }
    return 0;   /* stays registered until locus_mpi_finalize() */
}
