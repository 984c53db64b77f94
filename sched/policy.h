/*
 * policy.h - the scheduler interface: one table of operations per policy,
 * one policy per file in sched/, all listed in lc_sched_registry
 * (registry.c) with its name, description and capabilities (LC_SCHED_*);
 * the regimes (a policy and a page placement each) are listed there too.
 * Nothing else names a policy or a regime: env.c and init.c read the
 * registry.  doc/design.md has the drawing; StarPU's sched_policy and
 * Nanos6's Scheduler interface are the models.
 *
 * Who owns what:
 *  - The policy owns its queues: it allocates them in init (every worker's
 *    deques, its node queues, its priority queues: prio.h), frees them in
 *    fini, and is the only code that reads or writes them.  Its state hangs
 *    off rt->sched_data, and each worker's part off w->sched_local, two
 *    pointers the core stores and never follows.  It decides where a ready
 *    task waits (push, push_light), what a worker takes next (pop), which
 *    node a task with data belongs to (place).
 *  - The core owns what a ready task is and whether it is queued at all
 *    (runtime/ready.h); it asks the policy only through the counts below
 *    (backlog, stock_low, top_prio, run_here), and hands it only tasks that
 *    are ready, with their argument copy, task group and dependencies dealt
 *    with.  A policy never runs, completes or frees a task.
 *  - The core owns the workers, sleeping and waking (runtime/wait.c): a
 *    push answers which workers may take what it queued (LC_WAKE_ANY or a
 *    node) and the core wakes one of them; when that node has no sleeper
 *    the core asks wake_other which other node should help; a pop that
 *    leaves work behind for others says so in *wake; a worker about to
 *    sleep asks idle_nap whether it must look again after a while.  A
 *    policy never touches the futex words or sleeper counts; it may read
 *    lc_sleepers(), lc_node_asleep(), lc_node_waking() and lc_tasks_run()
 *    (runtime.h) as hints.
 *  - The core owns the accounting: a policy that takes a task queued for
 *    another node calls lc_note_steal() (runtime.h), which counts it and
 *    tells the instrumentation.
 * So the same policy code can be driven by the worker threads or by
 * anything else that provides workers (struct lc_worker: id, node, rng,
 * idle_polls, last_look) and calls these operations in their place.
 *
 * Locking contract: every operation is called on behalf of worker w (the
 * calling worker thread, or whatever drives the policy in its place) and
 * may run concurrently with any operation on behalf of other workers;
 * policies synchronise their own queues.  init and fini run alone (before
 * the workers start, after they stop).  No operation may block, sleep or
 * wait for another worker, and none may fail to queue a ready task.
 */
#ifndef LC_POLICY_H
#define LC_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "deque.h"
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

/* Who may take a task just queued (push's answer), or whom a pop's leftover
 * work is for: any node's workers, or node n's (n >= 0). */
#define LC_WAKE_ANY (-1)
#define LC_WAKE_NONE (-2)     /* pop: nobody to wake */

/*
 * Queue items.  A task descriptor (p = the task), or a light task: a ready
 * task without dependencies, argument copy or task group, queued as
 * (fn, arg, parent) with no descriptor, which the worker that takes it
 * makes from its own pool (runtime/spawn.c, lc_item_open), so that a thief
 * moves one queue slot instead of a descriptor's lines there and back.
 */
#define LC_QI_LIGHT 1u
/* A task its queuing worker will not run next (LC_TF_HANDOFF): a thief may
 * take it even when it is alone in the deque (steal.h). */
#define LC_QI_HANDOFF 2u

struct lc_sched_ops {
    const char *name;               /* LOCUS_SCHED's word (lower case) */
    const char *description;        /* one line, for LOCUS_REGIME=help */
    unsigned caps;                  /* LC_SCHED_* */
    /* After the workers are laid out (rt->workers: id, node), before any
     * of them runs: allocates every queue, sets rt->sched_data and each
     * worker's w->sched_local.  0, or a negative errno with a message in
     * err and nothing left allocated. */
    int (*init)(struct lc_runtime *rt, char *err, size_t errlen);
    /* After every worker has stopped: frees what init allocated (tasks
     * still queued are the caller's: there are none at finalize). */
    void (*fini)(struct lc_runtime *rt);
    /* A task with dependencies, or with a node hint, is being spawned by w
     * on a machine of several nodes: the policy may choose t->node (a node
     * with workers), which is also where a first-touch task's regions are
     * booked.  May be NULL (then hints are ignored). */
    void (*place)(struct lc_worker *w, struct lc_task *t, const struct lc_placement *pl);
    /* t is ready: queue it.  Returns who may take it (LC_WAKE_ANY or a
     * node), for the core to wake.  Never fails: a queue that cannot grow
     * keeps the task on a list linked through t->qnext (steal.h).  A task
     * with LC_TF_FIFO (released by an event's fulfilment, ready.h) goes
     * where tasks are taken first in, first out, not on a deque. */
    int (*push)(struct lc_worker *w, struct lc_task *t);
    /* A light task (it->c has LC_QI_LIGHT): queue it where any node's
     * workers may take it.  0, or -ENOMEM when it could not be queued (the
     * core then makes it a descriptor and pushes that). */
    int (*push_light)(struct lc_worker *w, const struct lc_qitem *it);
    /* The next item for w (its own queues first, then stealing as the
     * policy allows), p NULL for none.  *wake: LC_WAKE_NONE, or whom the
     * core should wake because this take left work behind. */
    struct lc_qitem (*pop)(struct lc_worker *w, int *wake);
    /* A task was queued for node, and some workers sleep but none of that
     * node's: the node whose sleeper the core should wake to help, or -1.
     * May be NULL (= -1).  Reads hints only (lc_sleepers, queue sizes). */
    int (*wake_other)(struct lc_worker *w, int node);
    /* w found nothing it may take at its last look before sleeping: how
     * long it may sleep before it looks again, in ns (0: until a push
     * wakes it).  A policy whose queues hold tasks that w may take only
     * after they waited a while (naft.c: a node that runs none of its
     * tasks) bounds w's sleep by that while.  May be NULL (= 0). */
    uint64_t (*idle_nap)(struct lc_worker *w);
    /* Nonzero when a task placed on node (-1: none), just made ready by a
     * completion on w, may run next on w without being queued (immediate
     * successor).  May be NULL (= yes). */
    int (*run_here)(struct lc_worker *w, int node);
    /* The counts the core decides by, from w's own queues (estimates: the
     * owner's view): nonzero when w has so much queued that a new task is
     * better run at once by its spawner (backlog: more than LC_BACKLOG,
     * steal.h), and when it has too few queued for idle workers (stock_low:
     * fewer than LC_STOCK; NULL = never). */
    int (*backlog)(struct lc_worker *w);
    int (*stock_low)(struct lc_worker *w);
    /* Nonzero when w has nothing queued that another worker could take
     * (looked at again when the owner's last look saw a few items:
     * lc_deque_bare_owner), and other workers exist.  The core then
     * queues a task it is spawning rather than run it at its spawn
     * (ready.h).  May be NULL (= never). */
    int (*bare)(struct lc_worker *w);
    /* The highest priority queued where w looks first (its node's priority
     * queue), 0 none: a hint, asked only once a task with a priority was
     * spawned (ready.h). */
    unsigned (*top_prio)(struct lc_worker *w);
    /* w waited for its children (a taskwait, a barrier), during which
     * others may have taken what it had queued: the owner's estimates of
     * its queues (backlog, stock_low) are stale.  May be NULL. */
    void (*waited)(struct lc_worker *w);
};

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
