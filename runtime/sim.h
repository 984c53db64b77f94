/*
 * sim.h - the seams where LOCUS_SIM replaces the machine by a simulated one
 * (the simulator: sim/, a plug-in on SimGrid that the runtime loads only
 * when LOCUS_SIM is set; locus-sim(7)).
 *
 * Under simulation the runtime's own code decides everything a regime
 * decides: the program's spawns, dependency release, placement, the
 * directory's bookkeeping, the policy's queues, stealing, waking, the
 * throttle.  Only what takes time is the simulator's, at these seams:
 *  - the clock (lc_now_ns, lc_ticks): simulated time;
 *  - sleeping and waking on a futex word (futex.h), an idle poll's pause
 *    and a yield (wait.c, spawn.c);
 *  - threads: each is a SimGrid actor on its worker's simulated core (the
 *    actors run one at a time, each on a thread of its own, so the
 *    runtime's thread-local state works unchanged);
 *  - a body: its duration from a task model, its memory traffic flows from
 *    the nodes that hold its bytes (as the directory booked them) to its
 *    worker's node, over a machine model whose memories and links share
 *    their bandwidth;
 *  - a spawn's own cost, charged to the spawner.
 * A seam is a test of lc_sim (NULL unless LOCUS_SIM is set), on paths that
 * are slow already (sleeping, waking, polling) and, per task, once at its
 * body: nothing is written.
 *
 * The simulator may give the processor to another actor only inside a
 * seam that can wait (wait, poll, yield, body, spawned), and the runtime
 * calls those with no lock held; wake only records whom to wake, and the
 * waker's next waiting seam does it (a runtime spin lock held across a
 * switch would never be released: the actors run one at a time).
 */
#ifndef LC_SIM_H
#define LC_SIM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "locus.h"

#define LC_SIM_ABI 2   /* the plug-in's interface version: both sides must agree */

/* An idle poll is an event of the simulation, and a thread switch on this
 * machine: each simulated poll stands for this many of the runtime's, whose
 * counts (LOCUS_SPIN, LOCUS_STEAL_SPIN) are divided by it and whose pause
 * the simulator multiplies by it, so that a worker's patience lasts as long
 * in simulated time at a sixteenth of the cost. */
#define LC_SIM_POLLS 16

/* What the runtime tells the simulator of a task it runs. */
struct lc_sim_task {
    const void *task;          /* its descriptor (what named() was told) */
    locus_task_fn fn;
    void *arg;
    const char *label;         /* locus_task_attr_t.label, or NULL */
    int worker;                /* the worker that runs it */
    int node;                  /* that worker's node */
    const uint64_t *bytes;     /* its dependency bytes on each node, as booked (nnodes) */
    uint64_t spread;           /* bytes interleaved over the nodes in use */
    uint64_t touched;          /* bytes it touches first: on its worker's node */
    uint64_t dep_bytes;        /* all of its dependency bytes (the model's size) */
};

/* What the simulator needs of the runtime when it starts. */
struct lc_sim_config {
    int abi;                   /* LC_SIM_ABI */
    const char *topology;      /* LOCUS_SIM's value */
    const char *topo_name;     /* the preset's name, or the description */
    int nnodes;
    const int *dist;           /* nnodes x nnodes distance classes: 0 local, 1 near, 2 far */
    int nworkers;
    const int *worker_node;    /* nworkers */
    int n_ft_nodes;            /* nodes interleaved pages spread over */
    const char *machine;       /* LOCUS_SIM_MACHINE: a machine model file, or "" */
    const char *model;         /* LOCUS_SIM_MODEL: a task model file, or "" */
    const char *schedule;      /* LOCUS_SIM_SCHEDULE: where to write the schedule, or "" */
    unsigned long seed;        /* LOCUS_SIM_SEED */
    int verbose;               /* LOCUS_VERBOSE */
    /* a function's name (runtime/symbols.h): the one lookup the trace and
     * the graph use too, so that a model names a task as they show it */
    const char *(*symbol_name)(const void *fn, int full, char *buf, size_t len);
};

struct lc_sim_ops {
    /* futex.h's three: sleep while *addr == val, at most ns (0: no limit) */
    void (*wait)(_Atomic uint32_t *addr, uint32_t val, uint64_t ns);
    void (*wake)(_Atomic uint32_t *addr, int n);
    uint64_t (*now_ns)(void);
    /* an idle poll's pause (pauses: the backoff's count), and a yield */
    void (*poll)(unsigned pauses);
    void (*yield)(void);
    /* a thread of the runtime serving worker: 0, or an errno */
    int (*thread_start)(void *(*fn)(void *), void *arg, int worker, void **handle);
    void (*thread_join)(void *handle);
    /* t's body: charged by its model, or run (run(ctx)) and charged its
     * processor time where it has none */
    void (*body)(const struct lc_sim_task *t, void (*run)(void *), void *ctx);
    /* task (a descriptor) of fn is being spawned, named label (NULL: none)
     * or, for a wrapper, by name_fn (NULL: fn itself): the simulator picks
     * its model by that name; no processor switch here */
    void (*named)(const void *task, locus_task_fn fn, const char *label, locus_task_fn name_fn);
    /* a spawn has ended on the calling thread: charge its cost */
    void (*spawned)(void);
    /* after every runtime thread has ended: the simulated run's summary,
     * then the simulation ends (the initial thread leaves it) */
    void (*finish)(const char *regime);
};

/* NULL, or the simulator's operations (set at locus_init with LOCUS_SIM). */
extern const struct lc_sim_ops *lc_sim;

/* With LOCUS_SIM set, the runtime's clock (lc_now_ns, locus_wtime) reads
 * simulated time even while no simulation runs: 0 before it starts, its
 * end after, so that a program timing from before its first parallel
 * region or until after finalize reads simulated seconds. */
extern uint64_t lc_sim_last_ns;
int lc_sim_frozen(void);

/* The plug-in's entry point, looked up by name in liblocus-sim.so. */
typedef const struct lc_sim_ops *(*lc_sim_start_fn)(const struct lc_sim_config *cfg,
                                                    char *err, size_t errlen);
#define LC_SIM_START "locus_sim_plugin_start"

struct lc_runtime;
struct lc_worker;
struct lc_task;

/* locus_init with LOCUS_SIM: loads the plug-in and starts the simulation,
 * the calling thread becoming its first actor.  0, or a negative errno
 * with a message in err. */
int lc_sim_start(struct lc_runtime *rt, char *err, size_t errlen);

/* The body of t on w under simulation (run.c): its locality accounting,
 * then the simulator's charge. */
void lc_sim_call_body(struct lc_worker *w, struct lc_task *t);

#endif /* LC_SIM_H */
