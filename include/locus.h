/*
 * locus.h - the public interface of Locus, a NUMA-aware dependency-tracking
 * task runtime.  This is the only header a program needs.
 *
 * Error rule (for every function below unless its comment says otherwise):
 * functions return 0 (or a non-negative value) on success and a negative errno
 * value on failure; locus_strerror() turns such a value into text and
 * locus_error_message() gives the detailed message of the calling thread's
 * last failure.  The library never exits or aborts the process on a user
 * error.
 */
#ifndef LOCUS_H
#define LOCUS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define LOCUS_API __attribute__((visibility("default")))
#else
#define LOCUS_API
#endif

/** API version: major * 10000 + minor * 100 + patch. */
#define LOCUS_API_VERSION 600  /* 0.6.0: tasks_given_up, bytes_given_up (NAFT's wait bound);
                                  0.5.0: locus_wtime (simulated time under LOCUS_SIM);
                                  0.4.0: task labels (locus_task_attr_t.label, LOCUS_LABEL_MAX);
                                  0.3.0: events, block/unblock, polling services, task
                                   reductions (locus_reduction_*, locus_task_attr_t.reduction);
                                  0.2.0: locus_alloc, locus_free, locus_spawn_attr (node, priority), bytes_placed */
/** Defined when locus_counters_start() and friends are declared. */
#define LOCUS_HAVE_COUNTERS 1

/** How a task accesses a dependency's bytes. */
typedef enum locus_access {
    LOCUS_ACCESS_IN = 1,        /**< reads the bytes */
    LOCUS_ACCESS_OUT = 2,       /**< writes the bytes (treated as in-out for ordering) */
    LOCUS_ACCESS_INOUT = 3,     /**< reads and writes the bytes */
    LOCUS_ACCESS_CONCURRENT = 4 /**< writes that commute with each other (OpenMP inoutset) */
} locus_access_t;

/** One dependency: the byte range [addr, addr + size) and how it is accessed. */
typedef struct locus_dep {
    const void *addr;
    size_t size;
    locus_access_t access;
} locus_dep_t;

#define LOCUS_IN(ptr, bytes)         ((locus_dep_t){ (const void *)(ptr), (size_t)(bytes), LOCUS_ACCESS_IN })
#define LOCUS_OUT(ptr, bytes)        ((locus_dep_t){ (const void *)(ptr), (size_t)(bytes), LOCUS_ACCESS_OUT })
#define LOCUS_INOUT(ptr, bytes)      ((locus_dep_t){ (const void *)(ptr), (size_t)(bytes), LOCUS_ACCESS_INOUT })
#define LOCUS_CONCURRENT(ptr, bytes) ((locus_dep_t){ (const void *)(ptr), (size_t)(bytes), LOCUS_ACCESS_CONCURRENT })

/** The body of a task. */
typedef void (*locus_task_fn)(void *arg);

/** Returns LOCUS_API_VERSION of the library actually linked. */
LOCUS_API unsigned locus_get_api_version(void);

/**
 * Starts the runtime: reads every LOCUS_* environment variable, discovers the
 * topology, starts the workers.  The calling thread becomes worker 0.
 * Returns 0, -EINVAL for a bad LOCUS_* value (the message names the variable,
 * the value and what is accepted; it is also printed on stderr), -EALREADY if
 * already initialised, -ENOMEM, or another negative errno.
 */
LOCUS_API int locus_init(void);

/**
 * Waits for every task, joins the workers and frees everything.  Must be
 * called by the thread that called locus_init(), outside any task
 * (-EDEADLK from inside a task).  Afterwards locus_init() may be called again.
 */
LOCUS_API int locus_finalize(void);

/**
 * Creates a child task of the calling task (or of the program's implicit
 * root task on the initial thread).  fn(arg) runs once every earlier sibling
 * whose dependencies conflict with deps has completed; a task is complete when
 * its body has returned and all its children are complete.
 * arg_size > 0: arg_size bytes at arg are copied now and fn gets the copy
 * (also when the task runs before locus_spawn() returns);
 * arg_size == 0: fn gets arg as it is.
 * Returns 0; -EINVAL for NULL fn, NULL arg with arg_size > 0, NULL deps with
 * ndeps > 0, a dependency with
 * NULL address, size 0, a range past the end of the address space or an
 * unknown access mode; -EPERM before locus_init() or after locus_finalize();
 * -ENOTSUP from a thread that is not a Locus worker; -ENOMEM.  On error
 * nothing was created and nothing changed.
 */
LOCUS_API int locus_spawn(locus_task_fn fn, const void *arg, size_t arg_size,
                          const locus_dep_t *deps, size_t ndeps);

/**
 * locus_task(fn, arg, arg_size, dep, dep, ...): locus_spawn() with the
 * dependencies written inline, e.g.
 *   locus_task(scale, &a, sizeof a, LOCUS_IN(x, n), LOCUS_INOUT(y, n));
 */
#define locus_task(fn, arg, arg_size, ...)                                          \
    locus_spawn((fn), (arg), (arg_size),                                            \
                (const locus_dep_t[]){ { 0, 0, LOCUS_ACCESS_IN }, __VA_ARGS__ } + 1, \
                sizeof((const locus_dep_t[]){ { 0, 0, LOCUS_ACCESS_IN }, __VA_ARGS__ }) \
                        / sizeof(locus_dep_t) - 1)

/** A node argument meaning "no node in particular". */
#define LOCUS_NODE_ANY (-1)

/**
 * Per-task options of locus_spawn_attr().  Set size to sizeof as the caller
 * was compiled with (LOCUS_TASK_ATTR_INIT does), so that later versions can
 * append options: fields are only ever appended after this structure's
 * current end (never in its tail padding), and every appended field has 0
 * as its "not asked for" value.  A library older than the caller's header
 * accepts a larger size only when the bytes it does not know are all 0.
 */
typedef struct locus_task_attr {
    size_t size;   /**< sizeof(locus_task_attr_t) as compiled */
    int node;      /**< LOCUS_NODE_ANY, or run on node 0..locus_num_nodes()-1 (a hint,
                        see locus_spawn_attr(3); ignored by NUMA-oblivious regimes) */
    int pad0_;     /**< the tail padding of the first version: never read */
    int priority;  /**< 0 (default) .. LOCUS_PRIORITY_MAX: larger runs sooner among
                        ready tasks (see locus_spawn_attr(3)); negative is an error */
    int pad1_;     /**< the tail padding of the second version: never read */
    struct locus_reduction *reduction;   /**< NULL (default), or a reduction the task
                        takes part in (locus_reduction_create(3)): locus_reduction_finish()
                        waits for it */
    /* ---- task labels (traces: LOCUS_TRACE, LOCUS_DAG) ---- */
    const char *label; /**< NULL (none), or the task's name in traces and task graphs
                            (e.g. "gemm"); the string must stay valid until
                            locus_finalize() (a literal); at most LOCUS_LABEL_MAX bytes */
    /* ---- end of task labels ---- */
} locus_task_attr_t;

/* ---- task labels ---- */
/** The longest task label (locus_task_attr_t.label) in bytes, without its NUL. */
#define LOCUS_LABEL_MAX 63
/* ---- end of task labels ---- */

/** The largest task priority (locus_task_attr_t.priority). */
#define LOCUS_PRIORITY_MAX 65535

/** Every option at its default: locus_task_attr_t a = LOCUS_TASK_ATTR_INIT; */
#define LOCUS_TASK_ATTR_INIT { sizeof(locus_task_attr_t), LOCUS_NODE_ANY, 0, 0, 0, 0, 0 }

/**
 * locus_spawn() with per-task options (attr NULL: exactly locus_spawn()).
 * Under the naft scheduler on several nodes, attr->node >= 0 queues the
 * task on that node (or, when the node has no workers, on the nearest node
 * that has some) whatever its data says, dependencies or not, with the
 * stealing rules of a task whose data lives there; a first-touch task is
 * booked on that node and runs only there.  Other schedulers accept the
 * node and ignore it.  attr->priority > 0 makes the task run before every
 * ready task of lower priority, under every scheduler: a worker never
 * starts a task while one of higher priority waits on its node's queue,
 * and an idle worker takes other nodes' waiting priority tasks before
 * their other tasks (ties: oldest first).  Priority 0 tasks keep their
 * usual order (the spawner's newest first, thieves the oldest).
 * Returns what locus_spawn() returns, and -EINVAL for attr->size too
 * small or over 4096 (uninitialised), unknown options set, a node that is
 * neither LOCUS_NODE_ANY nor 0..locus_num_nodes()-1, a priority below
 * 0 or above LOCUS_PRIORITY_MAX, or a reduction that is not open (see
 * locus_reduction_create()).
 */
LOCUS_API int locus_spawn_attr(locus_task_fn fn, const void *arg, size_t arg_size,
                               const locus_dep_t *deps, size_t ndeps,
                               const locus_task_attr_t *attr);

/**
 * Task reductions.  A reduction has a target of size bytes, a private copy
 * of it per worker (made on the worker's first locus_reduction_local()
 * call, on its own NUMA node, set by init, or zeroed when init is NULL),
 * and a combine function, which must be associative and commutative.
 * Tasks that update it are spawned with locus_task_attr_t.reduction set to
 * it, and update locus_reduction_local()'s copy only.
 * locus_reduction_finish() waits for every such task (running others
 * meanwhile), combines each worker's copy into target, and frees the
 * reduction: target then equals the serial result.
 */
typedef struct locus_reduction locus_reduction_t;
typedef void (*locus_reduce_init_fn)(void *priv);
typedef void (*locus_reduce_combine_fn)(void *into, const void *from);

/** Opens a reduction into *red.  0; -EINVAL for red, target or combine
 * NULL or size 0; -ENOMEM; -EPERM/-ENOTSUP as locus_spawn(). */
LOCUS_API int locus_reduction_create(locus_reduction_t **red, void *target, size_t size,
                                     locus_reduce_init_fn init,
                                     locus_reduce_combine_fn combine);
/** The calling worker's private copy of red, or NULL (with the reason in
 * locus_error_message()) when red is not open or this is not a worker, or
 * out of memory. */
LOCUS_API void *locus_reduction_local(locus_reduction_t *red);
/** Waits for red's tasks, combines into its target, frees red.  0; -EINVAL
 * when red is not open; -EPERM/-ENOTSUP as locus_spawn(). */
LOCUS_API int locus_reduction_finish(locus_reduction_t *red);

/**
 * Waits until every child of the calling task is complete; the calling
 * thread runs other tasks meanwhile.  Returns 0 or -EPERM/-ENOTSUP as
 * locus_spawn().
 */
LOCUS_API int locus_taskwait(void);

/*
 * External events, blocking and polling services (see locus(3), "EVENTS"):
 * what asynchronous work (I/O, MPI requests, OpenMP detach) needs to make a
 * task's completion wait for something other than its body and children.
 */

/** Defined when the events, block/unblock and polling functions are declared. */
#define LOCUS_HAVE_EVENTS 1

/** An opaque reference to a task, valid until the task completes. */
typedef struct locus_task_ref *locus_task_ref_t;

/** The most events a task may have outstanding at once. */
#define LOCUS_EVENTS_MAX 16777215u

/**
 * The task the calling thread is running now, or NULL (a thread that is not
 * a worker, or the initial thread outside any task).
 */
LOCUS_API locus_task_ref_t locus_task_current(void);

/**
 * Adds n (> 0) events to task.  Only from inside task's own body, or from a
 * thread that holds one of its unfulfilled events.  While the count is above
 * 0 the task does not complete: its dependencies are not released and
 * taskwait or a task group waiting for it keeps waiting, even after its
 * body has returned.  0; -EINVAL for NULL task, n == 0, more than
 * LOCUS_EVENTS_MAX outstanding, the initial or an implicit task, a call
 * from neither the body nor an event holder, or a task already complete
 * (detected where possible); -EPERM when the runtime is not running.
 */
LOCUS_API int locus_task_events_increase(locus_task_ref_t task, unsigned n);

/**
 * Fulfils n events of task, from any thread (also one that is not a
 * worker).  When the body has returned and the count reaches 0 the task
 * completes: on the calling thread when it is a worker, else on the next
 * worker that looks (an idle one is woken).  0; -EINVAL for NULL task,
 * n == 0 or more than are outstanding; -EPERM when not running.
 */
LOCUS_API int locus_task_events_decrease(locus_task_ref_t task, unsigned n);

/**
 * The calling task waits until locus_task_unblock() is called on it; its
 * worker runs other ready tasks meanwhile (a task it starts so must return
 * before this one can go on).  An unblock that came first makes the block
 * return at once: one token, as a binary semaphore.  0; -ENOTSUP outside a
 * task; -EPERM when not running.
 */
LOCUS_API int locus_task_block(void);

/** Gives task its token (see locus_task_block()), from any thread.
 * 0; -EINVAL for NULL or a complete task; -EPERM when not running. */
LOCUS_API int locus_task_unblock(locus_task_ref_t task);

/** A polling service: returns nonzero when it is done (then it is removed). */
typedef int (*locus_poll_fn)(void *data);

/**
 * Registers fn(data), called by idle workers (one of them wakes up every
 * LOCUS_POLL_US microseconds while the others sleep) and by busy workers
 * between tasks at least every LOCUS_POLL_US, until it returns nonzero or
 * is unregistered.  Never called concurrently with itself (nor with any
 * other service).  Callable before locus_init(); services are only called
 * while the runtime runs, and survive locus_finalize().  name (for
 * messages; up to 31 bytes kept) may be NULL.  0; -EINVAL for NULL fn;
 * -EEXIST when (fn, data) is registered already; -ENOMEM.
 */
LOCUS_API int locus_poll_register(const char *name, locus_poll_fn fn, void *data);

/**
 * Removes the service (fn, data); once it returns the service is not
 * running and is never called again (also from inside a service, for
 * itself or another).  0; -ENOENT when it is not registered.
 */
LOCUS_API int locus_poll_unregister(locus_poll_fn fn, void *data);

/** Number of workers (the initial thread included); -EPERM if not running. */
LOCUS_API int locus_num_workers(void);

/**
 * Seconds on the runtime's clock, from an arbitrary origin: the simulated
 * clock while a simulation runs (LOCUS_SIM, locus-sim(7)), else
 * CLOCK_MONOTONIC.  Time a program's phases with it and they read the same
 * for real and in simulation.
 */
LOCUS_API double locus_wtime(void);

/** 0..n-1 on workers and on the initial thread, -1 on any other thread. */
LOCUS_API int locus_worker_id(void);

/** Number of NUMA nodes the runtime schedules over; -EPERM if not running. */
LOCUS_API int locus_num_nodes(void);

/** NUMA node of the calling worker; -1 on a thread that is not a worker. */
LOCUS_API int locus_worker_node(void);

/** Text for a negative errno value returned by Locus (never NULL). */
LOCUS_API const char *locus_strerror(int err);

/**
 * The detailed message of the last failure of a Locus call on this thread
 * (e.g. "LOCUS_THREADS='abc': expected an integer in 1..4096"), or "" if none.
 */
LOCUS_API const char *locus_error_message(void);

/**
 * Locality figures: where tasks ran and how far their dependency bytes were
 * from them (the runtime's estimate of coherence movement, available on
 * every machine).  Distance classes follow the node distance matrix: local
 * (same node), near (the nearest remote distance), far (the rest).  A
 * dependency's bytes count once per task that declares it; data interleaved
 * over nodes is split over them.  Steals count tasks a worker took from
 * another worker or node, by the distance between the two.
 */
typedef struct locus_stats {
    uint64_t tasks_run;          /**< tasks executed */
    uint64_t first_touch_tasks;  /**< tasks that first wrote a region the runtime had never seen */
    uint64_t bytes_local;        /**< dependency bytes on the node of the worker that ran the task */
    uint64_t bytes_near;
    uint64_t bytes_far;
    uint64_t steals_local;       /**< from another worker of the same node */
    uint64_t steals_near;
    uint64_t steals_far;
    int nodes;                   /**< NUMA nodes scheduled over */
    int workers;
    double seconds;              /**< wall time since locus_init() or the last reset */
    uint64_t bytes_placed;       /**< dependency bytes on the node each task was placed on
                                      (NAFT's choice; first-touched bytes count there too):
                                      bytes_local reaches it when every task runs where it
                                      was placed; 0 under the oblivious scheduler, which
                                      places nothing (since 0.2.0) */
    uint64_t tasks_given_up;     /**< tasks that NAFT placed on a node which then ran none of
                                      its tasks for its wait bound (LOCUS_WAIT_US, locus(7)),
                                      run by another node (since 0.6.0) */
    uint64_t bytes_given_up;     /**< their share of bytes_placed: bytes_local reaches
                                      bytes_placed - bytes_given_up when every other task
                                      ran where it was placed (since 0.6.0) */
} locus_stats_t;

/** The same figures for the tasks run by the workers of one node. */
typedef struct locus_node_stats {
    uint64_t tasks_run;
    uint64_t first_touch_tasks;
    uint64_t bytes_local;
    uint64_t bytes_near;
    uint64_t bytes_far;
    uint64_t steals_local;
    uint64_t steals_near;
    uint64_t steals_far;
    uint64_t bytes_homed;        /**< bytes the data-location directory places on this node */
    int workers;                 /**< workers bound to this node */
    uint64_t bytes_placed;       /**< as locus_stats_t's, for the tasks run here (since 0.2.0) */
    uint64_t tasks_given_up;     /**< as locus_stats_t's, for the tasks run here (since 0.6.0) */
    uint64_t bytes_given_up;     /**< as locus_stats_t's, for the tasks run here (since 0.6.0) */
} locus_node_stats_t;

/**
 * Fills *st (size = sizeof *st as the caller was compiled with, so that a
 * newer library can add fields).  Figures are exact once the tasks counted
 * are complete (e.g. after locus_taskwait()).  0, -EINVAL, -EPERM.
 */
LOCUS_API int locus_get_stats(locus_stats_t *st, size_t size);

/** Per-node figures for node 0..locus_num_nodes()-1.  0, -EINVAL, -EPERM. */
LOCUS_API int locus_get_node_stats(int node, locus_node_stats_t *st, size_t size);

/** Sets every counter to zero and restarts the clock.  0 or -EPERM. */
LOCUS_API int locus_reset_stats(void);

/**
 * Forgets what the data-location directory knows of [addr, addr + size),
 * e.g. before the memory is freed and reused for other data.  0, -EINVAL,
 * -EPERM.
 */
LOCUS_API int locus_forget(const void *addr, size_t size);

/** Defined when locus_alloc() and locus_free() are declared. */
#define LOCUS_HAVE_PLACE 1

/** Where locus_alloc() puts pages (locus_place_t.kind). */
typedef enum locus_place_kind {
    LOCUS_PLACE_NODE = 1,       /**< every page on node (preferred: other nodes when it is full) */
    LOCUS_PLACE_INTERLEAVE = 2, /**< pages interleaved over the nodes that have workers */
    LOCUS_PLACE_BLOCKS = 3      /**< block bytes per node, dealt round-robin over the
                                     nodes that have workers, starting with the lowest */
} locus_place_kind_t;

/**
 * A placement for locus_alloc().  size: sizeof as the caller was compiled
 * with (the macros below set it; same rule as locus_task_attr_t).  Fields
 * the kind does not use are ignored.
 */
typedef struct locus_place {
    size_t size;   /**< sizeof(locus_place_t) as compiled */
    int kind;      /**< locus_place_kind_t */
    int node;      /**< LOCUS_PLACE_NODE: 0..locus_num_nodes()-1 */
    size_t block;  /**< LOCUS_PLACE_BLOCKS: bytes per block, a multiple of the page size */
} locus_place_t;

#define LOCUS_PLACE_ON_NODE(n)  ((locus_place_t){ sizeof(locus_place_t), LOCUS_PLACE_NODE, (n), 0 })
#define LOCUS_PLACE_INTERLEAVED ((locus_place_t){ sizeof(locus_place_t), LOCUS_PLACE_INTERLEAVE, \
                                                  LOCUS_NODE_ANY, 0 })
#define LOCUS_PLACE_IN_BLOCKS(b) ((locus_place_t){ sizeof(locus_place_t), LOCUS_PLACE_BLOCKS, \
                                                   LOCUS_NODE_ANY, (size_t)(b) })

/**
 * Maps bytes (rounded up to whole pages) of zeroed memory placed as *place
 * says and books it in the data-location directory, so that the naft
 * scheduler runs the tasks that use it where it is; e.g.
 *   locus_alloc(&p, n, &LOCUS_PLACE_ON_NODE(1));
 * place NULL: nothing is asked of the kernel or booked; the regime's page
 * policy places the pages as for any other memory.  Virtual topologies
 * (LOCUS_TOPOLOGY) only book: the pages are on the machine's one node.
 * *ptr is page-aligned.  Any thread may call it.  0; -EINVAL for NULL
 * ptr, bytes 0 or too large to round up, place->size too small or over
 * 4096 (uninitialised) or unknown options set, an unknown kind, a node out
 * of range, a block that is 0 or not a multiple of the page size; -EPERM
 * when the runtime is not running; -ENOMEM when the memory or the
 * bookkeeping cannot be had (or the kernel refuses a block's policy).
 * On error *ptr is unchanged and nothing was mapped or booked.
 */
LOCUS_API int locus_alloc(void **ptr, size_t bytes, const locus_place_t *place);

/**
 * Unmaps a block from locus_alloc() (ptr and bytes as allocated) and
 * forgets it in the data-location directory; callable before locus_init()
 * and after locus_finalize() too.  0; -EINVAL (and nothing happens) when
 * ptr is not the start of a live block from locus_alloc() or bytes is not
 * its size; -ENOMEM when the directory could not be updated (the block is
 * then still allocated).
 */
LOCUS_API int locus_free(void *ptr, size_t bytes);

/*
 * Coherence-traffic counters (LOCUS_COUNTERS, see locus(7)): hardware counts
 * of the message classes of Caheny et al., section 2, as close as the CPU's
 * socket-interconnect (QPI/UPI, AMD data fabric) and core counters come, per
 * socket, outgoing (tx) and incoming (rx).  Counting runs from locus_init()
 * to locus_finalize(), or over the phase a program brackets with
 * locus_counters_start() and locus_counters_stop().  A class the machine
 * cannot count is LOCUS_COUNTER_UNAVAILABLE with the reason, never 0.
 */

/** Traffic classes: the paper's six, then link data and core-side proxies. */
typedef enum locus_counter_class {
    LOCUS_COUNTER_DTC = 0,      /**< data to cache (responses carrying a line) */
    LOCUS_COUNTER_DWB,          /**< data write-back to a memory controller */
    LOCUS_COUNTER_HREQ,         /**< home request (cache to memory controller) */
    LOCUS_COUNTER_SNP,          /**< snoop (memory controller to cache) */
    LOCUS_COUNTER_HRSP,         /**< home response (cache answers a snoop) */
    LOCUS_COUNTER_NDR,          /**< non-data response (completion without data) */
    LOCUS_COUNTER_LINK_BYTES,   /**< data bytes over the socket links, all classes */
    LOCUS_COUNTER_LOCAL_DRAM,   /**< core proxy: loads served by local DRAM */
    LOCUS_COUNTER_REMOTE_DRAM,  /**< core proxy: loads served by remote DRAM */
    LOCUS_COUNTER_REMOTE_CACHE, /**< core proxy: loads served by a remote cache */
    LOCUS_COUNTER_NCLASSES
} locus_counter_class_t;

/** How close a value is to its class. */
typedef enum locus_counter_kind {
    LOCUS_COUNTER_UNAVAILABLE = 0, /**< not counted here: see reason; tx, rx are 0 and meaningless */
    LOCUS_COUNTER_EXACT,           /**< counts the messages of this class */
    LOCUS_COUNTER_MERGED,          /**< one event counts this class and those in merged together */
    LOCUS_COUNTER_FLITS,           /**< link flits or beats, converted to bytes or kept as flits */
    LOCUS_COUNTER_PROXY            /**< a related event (core side), not the message class itself */
} locus_counter_kind_t;

#define LOCUS_COUNTER_HAS_TX 0x1u /**< tx holds a count */
#define LOCUS_COUNTER_HAS_RX 0x2u /**< rx holds a count */
#define LOCUS_COUNTER_SCALED 0x4u /**< multiplexed: extrapolated from part of the time */

/** One class: counts, what they are and how close to the class. */
typedef struct locus_counter_value {
    uint64_t tx;          /**< outgoing from the socket(s), in unit (flags & HAS_TX) */
    uint64_t rx;          /**< incoming to the socket(s), in unit (flags & HAS_RX) */
    unsigned flags;       /**< LOCUS_COUNTER_HAS_TX | _HAS_RX | _SCALED */
    int kind;             /**< locus_counter_kind_t */
    unsigned merged;      /**< MERGED: bit (1u << class) of every class sharing these counts */
    char unit[16];        /**< "messages", "flits", "bytes", "loads", "fills" */
    char source[96];      /**< the hardware event(s) counted */
    char reason[192];     /**< UNAVAILABLE: why; otherwise a note on the approximation */
} locus_counter_value_t;

/** All classes, summed over sockets (or for one socket). */
typedef struct locus_counters {
    char backend[16];     /**< perf, papi, likwid or none */
    char requested[16];   /**< the LOCUS_COUNTERS value: auto, perf, papi, likwid, none */
    char table[64];       /**< the event table used, e.g. "skx: Skylake-SP/Cascade Lake (UPI)" */
    int sockets;          /**< sockets counted (0 when nothing is) */
    int counting;         /**< 1 between a start and its stop */
    int phase;            /**< 1: bracketed by locus_counters_start(), 0: since locus_init() */
    double seconds;       /**< time counted */
    char reason[512];     /**< why nothing is counted, or "" */
    locus_counter_value_t cls[LOCUS_COUNTER_NCLASSES];
} locus_counters_t;

/**
 * Starts counting anew (a phase): later reads give the counts from here.
 * Call from the thread that called locus_init() (the likwid backend's
 * regions are per thread).  0 or -EPERM (not running).  Counting nothing
 * (every class unavailable) is not an error.
 */
LOCUS_API int locus_counters_start(void);

/** Stops counting; the counts stay readable.  0 (also when already stopped) or -EPERM. */
LOCUS_API int locus_counters_stop(void);

/**
 * Fills *c with the counts summed over sockets (size = sizeof *c as the
 * caller was compiled with): up to now while counting, else up to the stop.
 * 0, -EINVAL, -EPERM.
 */
LOCUS_API int locus_get_counters(locus_counters_t *c, size_t size);

/** The counts of one socket, 0..c.sockets-1.  Core proxies count the whole
 * process and are UNAVAILABLE per socket.  0, -EINVAL, -EPERM. */
LOCUS_API int locus_get_socket_counters(int socket, locus_counters_t *c, size_t size);

/** "DTC", "DWB", ... "REMOTE_CACHE"; "?" out of range (never NULL). */
LOCUS_API const char *locus_counter_class_name(int cls);

/** "unavailable", "exact", "merged", "flits", "proxy"; "?" out of range. */
LOCUS_API const char *locus_counter_kind_name(int kind);

#ifdef __cplusplus
}
#endif

#endif /* LOCUS_H */
