/*
 * policy.h - the scheduler interface: one table of hooks per policy, one
 * policy per file in sched/, all listed in lc_sched_registry (registry.c)
 * with its name, description and capabilities (LC_SCHED_*); the regimes
 * (a policy and a page placement each) are listed there too.  Nothing else
 * names a policy or a regime: env.c and init.c read the registry.
 *
 * Who owns what:
 *  - The policy owns its queues: where a ready task is queued (push,
 *    push_light), what a worker takes next (pop), which node a task with
 *    data belongs to (place).  Its data hangs off rt->sched_data.
 *  - The core owns what a ready task is and where it runs (runtime/ready.h:
 *    queue it, or run it on the worker that made it ready); the policy is
 *    asked only through backlog and run_here, and is handed only tasks
 *    that are ready, with their argument copy, task group and dependencies
 *    already dealt with.  A policy never runs a task: a push that cannot
 *    queue answers LC_PUSH_FULL and the core runs it.
 *  - The core owns sleeping and waking (runtime/wait.c): a push answers
 *    which workers may take what it queued (LC_WAKE_ANY or a node) and the
 *    core wakes one of them; when that node has no sleeper the core asks
 *    wake_other which other node should help.  A policy never touches the
 *    futex words or the sleeper counts; it may read lc_sleepers() as a
 *    hint (e.g. to take the tasks of a node whose workers all sleep).
 * Locking contract: every hook is called by a worker thread on its own
 * behalf (w is the calling worker) and may run concurrently with any hook
 * on other workers; policies synchronise their own queues.  init and fini
 * run alone (before the workers start, after they stop).  No hook may
 * block, sleep or wait for another worker.
 */
#ifndef LC_POLICY_H
#define LC_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "env.h"
#include "locus.h"

struct lc_runtime;
struct lc_worker;
struct lc_task;

/* What the runtime knows of a task's data when it is spawned (only on
 * machines or virtual topologies of more than one node). */
struct lc_placement {
    int first_touch;           /* it writes a region nobody has touched yet */
    uint64_t fresh;            /* the bytes of such regions */
    const uint64_t *bytes;     /* its dependency bytes on each node (nnodes entries) */
    uint64_t spread;           /* its bytes interleaved over every node in use */
    int hint;                  /* the node the spawner asked for (locus_spawn_attr), -1 none */
};

/* Capabilities and needs of a policy (lc_sched_ops.caps), read by env.c and
 * init.c instead of names. */
#define LC_SCHED_NUMA_AWARE  0x1u   /* chooses a node for a task by where its data is */
#define LC_SCHED_FIRST_TOUCH 0x2u   /* needs pages placed by first touch: refused with
                                       interleaved pages (Caheny et al., section 4.1) */

struct lc_sched_ops {
    const char *name;               /* LOCUS_SCHED's word (lower case) */
    const char *description;        /* one line, for LOCUS_REGIME=help */
    unsigned caps;                  /* LC_SCHED_* */
    /* After the workers are laid out, before any of them runs.  0 or negative errno
     * with a message in err. */
    int (*init)(struct lc_runtime *rt, char *err, size_t errlen);
    /* After every worker has stopped. */
    void (*fini)(struct lc_runtime *rt);
    /* A task with dependencies, or with a node hint, is being spawned by w
     * on a machine of several nodes: the policy may choose t->node (a node
     * with workers), which is also where a first-touch task's regions are
     * booked.  May be NULL (then hints are ignored). */
    void (*place)(struct lc_worker *w, struct lc_task *t, const struct lc_placement *pl);
    /* t is ready: queue it.  Returns who may take it, for the core to wake:
     * LC_WAKE_ANY (any node's workers) or a node; or LC_PUSH_FULL when no
     * queue could take it (no memory to grow one): the core then runs it
     * at once on w. */
    int (*push)(struct lc_worker *w, struct lc_task *t);
    /* A ready task without dependencies and without a descriptor (fn, arg,
     * parent; see lc_push_light): queue it where any node's workers may take
     * it.  0, or -ENOMEM when it could not be queued (the spawner then makes
     * it an ordinary task). */
    int (*push_light)(struct lc_worker *w, locus_task_fn fn, void *arg, struct lc_task *parent);
    /* A task was queued for node, and some workers sleep but none of that
     * node's: the node whose sleeper the core should wake to help, or -1.
     * May be NULL (= -1).  Reads hints only (lc_sleepers, queue sizes). */
    int (*wake_other)(struct lc_worker *w, int node);
    /* The next task for w (its own queue first, then stealing as the policy
     * allows), or NULL. */
    struct lc_task *(*pop)(struct lc_worker *w);
    /* Nonzero when a task placed on node (-1: none), just made ready by a
     * completion on w, may run next on w without being queued (immediate
     * successor).  May be NULL (= yes). */
    int (*run_here)(struct lc_worker *w, int node);
    /* Nonzero when w has so much queued work that a new task without
     * dependencies is better run at once by its spawner. */
    int (*backlog)(struct lc_worker *w);
    /* Nonzero when w has too few tasks queued for idle workers: a new task
     * without dependencies that w would run at once because bodies are
     * short is queued instead (sched/steal.h, LC_STOCK).  May be
     * NULL (= never). */
    int (*stock_low)(struct lc_worker *w);
    /* t completed on w (after its successors were released).  May be NULL. */
    void (*task_done)(struct lc_worker *w, struct lc_task *t);
};

/* push: no queue could take the task (the core runs it). */
#define LC_PUSH_FULL (-3)

extern const struct lc_sched_ops *const lc_sched_registry[];   /* NULL-terminated */

/* The policy called name (any case), or NULL. */
const struct lc_sched_ops *lc_sched_find(const char *name);

/* A regime of Caheny et al., section 4.1: a policy and a page placement
 * under one name (LOCUS_REGIME). */
struct lc_regime {
    const char *name;               /* LOCUS_REGIME's word (lower case) */
    const char *description;        /* one line, for LOCUS_REGIME=help */
    const char *sched;              /* the name of its policy in lc_sched_registry */
    enum lc_pages pages;            /* LC_PAGES_FIRSTTOUCH or LC_PAGES_INTERLEAVE */
    int is_default;                 /* the regime with LOCUS_REGIME unset (exactly one) */
};

extern const struct lc_regime lc_regimes[];   /* ended by an entry whose name is NULL */

/* The regime called name (any case), or NULL. */
const struct lc_regime *lc_regime_find(const char *name);
/* The regime used when LOCUS_REGIME is unset. */
const struct lc_regime *lc_regime_default(void);
/* A regime with interleaved pages whose policy accepts them (what to
 * suggest instead of a refused combination), or NULL. */
const struct lc_regime *lc_regime_interleaving(void);

#endif /* LC_POLICY_H */
