/*
 * policy.h - the scheduler interface: one table of hooks per policy, one
 * policy per file in sched/, all listed in lc_sched_registry (registry.c).
 * Locking contract: every hook is called by a worker thread on its own
 * behalf (w is the calling worker) and may run concurrently with any hook
 * on other workers; policies synchronise their own queues.
 */
#ifndef LC_POLICY_H
#define LC_POLICY_H

#include <stddef.h>

#include "locus.h"

struct lc_runtime;
struct lc_worker;
struct lc_task;

struct lc_sched_ops {
    const char *name;
    const char *description;
    /* After the workers are laid out, before any of them runs.  0 or negative errno
     * with a message in err. */
    int (*init)(struct lc_runtime *rt, char *err, size_t errlen);
    /* After every worker has stopped. */
    void (*fini)(struct lc_runtime *rt);
    /* A task is being spawned by w with these dependencies (before it is
     * registered): the policy may choose t->node.  May be NULL. */
    void (*place)(struct lc_worker *w, struct lc_task *t, const locus_dep_t *deps, size_t ndeps);
    /* t is ready: queue it. */
    void (*push)(struct lc_worker *w, struct lc_task *t);
    /* The next task for w (its own queue first, then stealing as the policy
     * allows), or NULL. */
    struct lc_task *(*pop)(struct lc_worker *w);
    /* Nonzero when t, just made ready by a completion on w, may run next on
     * w without being queued (immediate successor).  May be NULL (= yes). */
    int (*run_here)(struct lc_worker *w, struct lc_task *t);
    /* Nonzero when w has so much queued work that a new task without
     * dependencies is better run at once by its spawner. */
    int (*backlog)(struct lc_worker *w);
    /* t completed on w (after its successors were released).  May be NULL. */
    void (*task_done)(struct lc_worker *w, struct lc_task *t);
};

extern const struct lc_sched_ops *const lc_sched_registry[];   /* NULL-terminated */

/* The policy called name, or NULL. */
const struct lc_sched_ops *lc_sched_find(const char *name);

#endif /* LC_POLICY_H */
