/*
 * init.c - locus_init() and locus_finalize(): options, topology, workers
 * and scheduler brought up in that order and torn down in reverse, plus
 * the small queries of the public API.  A failing init leaves nothing
 * behind, so the program may fix its environment and call it again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/counters.h"
#include "depmap.h"
#include "env.h"
#include "mem.h"
#include "events.h"
#include "futex.h"
#include "runtime.h"
#include "sim.h"
#include "spin.h"
#include "team.h"
#include "thread.h"
#include "policy.h"
#include "taskpool.h"
#include "topology.h"

struct lc_runtime *lc_rt;
void (*lc_autostart)(void);
__thread struct lc_worker *lc_self __attribute__((tls_model("initial-exec")));
__thread struct lc_icvs lc_task_icvs __attribute__((tls_model("initial-exec")));

static pthread_mutex_t lc_init_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t lc_init_thread;
static struct lc_thread initial_thread;   /* the record of the thread that called locus_init */

/*
 * Starts w's thread already on its CPU when workers are bound.  The
 * initial thread is bound to worker 0's CPU by now, and a thread inherits
 * its creator's mask: created plainly, a worker could run nowhere but on
 * worker 0's CPU until it bound itself, so it waited for the initial
 * thread to block or be preempted (milliseconds; for ever under SCHED_FIFO)
 * before taking its first task.  Where the CPU cannot be set (no such CPU
 * in the mask the kernel allows) it starts as before and binds itself in
 * lc_thread_main.  The thread gets its turn to serve w once every worker
 * is set up (init_runtime).
 */
static int start_worker(struct lc_runtime *rt, struct lc_worker *w)
{
    struct lc_thread *t = lc_thread_new(w);
    if (!t)
        return ENOMEM;
    int r = EINVAL;
    if (rt->opt.bind == LC_BIND_CORE && w->cpu >= 0 && w->cpu < CPU_SETSIZE) {
        pthread_attr_t a;
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(w->cpu, &set);
        if (pthread_attr_init(&a) == 0) {
            r = pthread_attr_setaffinity_np(&a, sizeof set, &set);
            t->prebound = r == 0;   /* before it runs: the thread reads it */
            if (r == 0)
                r = lc_thread_spawn(t, &a);
            pthread_attr_destroy(&a);
        }
    }
    if (r == EINVAL) {
        t->prebound = 0;
        r = lc_thread_spawn(t, NULL);
    }
    if (r != 0) {
        lc_thread_free(t);
        return r;
    }
    w->thread = t->pt;
    lc_thread_register(rt, t);
    return 0;
}

static void print_help(const struct lc_options *o)
{
    if (o->help & (LC_HELP_REGIME | LC_HELP_SCHED)) {
        fprintf(stderr, "locus: regimes (LOCUS_REGIME):\n");
        for (int i = 0; lc_regimes[i].name; i++)
            fprintf(stderr, "  %-10s %s (scheduler %s)%s\n", lc_regimes[i].name,
                    lc_regimes[i].description, lc_regimes[i].sched,
                    lc_regimes[i].is_default ? " (default)" : "");
        fprintf(stderr, "locus: schedulers (LOCUS_SCHED):\n");
        for (int i = 0; lc_sched_registry[i]; i++)
            fprintf(stderr, "  %-10s %s\n", lc_sched_registry[i]->name,
                    lc_sched_registry[i]->description);
    }
    if (o->help & LC_HELP_TOPOLOGY) {
        fprintf(stderr, "locus: virtual topologies (LOCUS_TOPOLOGY):\n");
        lc_topology_print_presets(stderr);
    }
    if (o->help & LC_HELP_COUNTERS) {
        struct lc_ctr_env env = { .likwid_marker = o->likwid_marker };
        lc_counters_print_help(&env, stderr);
    }
}

/* Fails init: keeps the message for locus_error_message() and prints it,
 * since a bad environment is usually found by a person reading stderr. */
static int init_fail(int err, const char *msg)
{
    lc_error(err, "%s", msg);
    fprintf(stderr, "locus: %s\n", msg);
    return err;
}

/* Workers 1.. each on a thread of its own, waiting for its first turn;
 * *nstarted counts them.  0, or init_fail's value (err its room). */
static int start_workers(struct lc_runtime *rt, int *nstarted, char *err, size_t errlen)
{
    for (int i = 1; i < rt->nworkers; i++) {
        int r = start_worker(rt, &rt->workers[i]);
        if (r != 0) {
            snprintf(err, errlen, "locus_init: cannot start worker %d of %d: %s", i,
                     rt->nworkers, strerror(r));
            return init_fail(-r, err);
        }
        *nstarted = i;
    }
    return 0;
}

static void teardown(struct lc_runtime *rt, int nstarted)
{
    if (nstarted > 0) {
        /* none was given a turn (init fails only before lc_threads_go):
         * lc_threads_stop gives each its last; the wake-ups are for safety,
         * where their words exist yet */
        atomic_store_explicit(&rt->stop, 1, memory_order_release);
        if (rt->nsync) {
            lc_wake_all(rt);
            lc_team_stop(rt);
        }
        lc_threads_stop(rt);
    }
    if (rt->workers)
        for (int i = 0; i < rt->nworkers; i++)
            pthread_mutex_destroy(&rt->workers[i].rlock);
    pthread_mutex_destroy(&rt->threads_lock);
    if (rt->root && rt->root->map)
        lc_depmap_destroy(&rt->workers[0], rt->root->map);
    if (rt->sched_inited)
        rt->sched->fini(rt);
    lc_trace_free(rt);
    lc_counters_rt_close();
    lc_locality_fini(rt);
    lc_mem_free(rt->nsync, 0);
    free(rt->job_implicit);
    if (rt->saved_affinity_valid)
        sched_setaffinity(0, sizeof(cpu_set_t), rt->saved_affinity);
    free(rt->saved_affinity);
    if (rt->npools) {
        lc_taskpool_nodes_fini(rt->npools, rt->topo.nnodes);
        lc_mem_free(rt->npools, 0);
    }
    lc_mem_free(rt->workers, 0);
    lc_topology_free(&rt->topo);
    free(rt);
}

/* locus_init(), or lc_init_teams() with team_mode set: workers then serve
 * team jobs (team.c) instead of taking tasks while idle, and team_threads
 * (> 0: the region's num_threads clause, omp_set_num_threads() or
 * OMP_NUM_THREADS) overrides LOCUS_THREADS, as locus-gomp(7) documents. */
static int init_runtime(int team_mode, int team_threads)
{
    char err[LC_ENV_ERR_MAX > 512 ? LC_ENV_ERR_MAX : 512];
    struct lc_runtime *rt;
    int r, nstarted = 0;

    pthread_mutex_lock(&lc_init_lock);
    if (lc_rt) {
        pthread_mutex_unlock(&lc_init_lock);
        return lc_error(-EALREADY, "locus_init: the runtime is already running");
    }
    lc_error_clear();
    lc_grain_clock_mark();   /* the clock's rate is measured across what follows */
    /* aligned: the runtime keeps its often-written fields on lines of their own */
    rt = aligned_alloc(LC_CACHELINE, (sizeof *rt + LC_CACHELINE - 1) / LC_CACHELINE * LC_CACHELINE);
    if (rt)
        memset(rt, 0, sizeof *rt);
    if (!rt) {
        pthread_mutex_unlock(&lc_init_lock);
        return lc_error(-ENOMEM, "locus_init: out of memory");
    }
    rt->team_mode = team_mode;
    pthread_mutex_init(&rt->threads_lock, NULL);
    if ((r = lc_env_parse(&rt->opt, NULL, NULL, err, sizeof err)) < 0) {
        init_fail(r, err);
        goto fail;
    }
    if (team_threads > 0)
        rt->opt.threads = team_threads;
    if ((r = lc_options_resolve(&rt->opt, err, sizeof err)) < 0) {
        init_fail(r, err);
        goto fail;
    }
    char unknown[128];
    if (lc_env_unknown(unknown, sizeof unknown)) {
        const char *near = lc_env_suggest(unknown);
        fprintf(stderr, "locus: warning: %s is not a Locus variable%s%s%s (see locus(7))\n",
                unknown, near ? "; did you mean " : "", near ? near : "", near ? "?" : "");
    }
    if (rt->opt.help)
        print_help(&rt->opt);

    if (rt->opt.report[0] && (r = lc_stats_check_report(rt->opt.report, err, sizeof err)) < 0) {
        init_fail(r, err);
        goto fail;
    }
    rt->sched = lc_sched_find(rt->opt.sched);
    if (!rt->sched) {
        snprintf(err, sizeof err, "LOCUS_SCHED/LOCUS_REGIME: scheduler '%s' is not available "
                 "in this build (LOCUS_REGIME=help lists what is)", rt->opt.sched);
        r = init_fail(-EINVAL, err);
        goto fail;
    }
    if ((r = lc_topology_load(&rt->topo, rt->opt.topology[0] ? rt->opt.topology : NULL,
                              err, sizeof err)) < 0) {
        char msg[sizeof err + 64];
        if (rt->opt.topology[0])
            snprintf(msg, sizeof msg, "LOCUS_TOPOLOGY: %s", err);
        else
            snprintf(msg, sizeof msg, "cannot read the machine's topology: %s", err);
        init_fail(r, msg);
        goto fail;
    }

    int ncpus = lc_affinity_cpus();
    if (rt->opt.sim[0]) {
        /* simulated: a worker per simulated core by default, and no thread
         * is bound to this machine's CPUs */
        ncpus = rt->topo.ncpus;
        rt->opt.bind = LC_BIND_NONE;
        /* an idle worker polls NAFT's patience (LOCUS_STEAL_SPIN) and
         * LC_SPIN_FLOOR more, then sleeps, in polls that stand for
         * LC_SIM_POLLS each (sim.h).  That was a real worker's floor on a
         * shared CPU until 2026-11-29 (spin.h has less now); the
         * simulator's validation against the paper (locus-sim(7)) was
         * measured with it, so it stays. */
        if (rt->opt.spin_adapt) {
            uint64_t f = (uint64_t)rt->opt.steal_spin + LC_SPIN_FLOOR;
            rt->opt.spin = f < rt->opt.spin ? (unsigned)f : rt->opt.spin;
        }
        rt->opt.spin = (rt->opt.spin + LC_SIM_POLLS - 1) / LC_SIM_POLLS;
        rt->opt.steal_spin = (rt->opt.steal_spin + LC_SIM_POLLS - 1) / LC_SIM_POLLS;
    }
    rt->nworkers = rt->opt.threads > 0 ? rt->opt.threads : ncpus;
    rt->oversubscribed = rt->nworkers > ncpus;
    rt->workers = lc_mem_alloc((size_t)rt->nworkers * sizeof *rt->workers, LC_CACHELINE);
    int *node = calloc((size_t)rt->nworkers, sizeof *node);
    int *cpu = calloc((size_t)rt->nworkers, sizeof *cpu);
    if (!rt->workers || !node || !cpu) {
        free(node);
        free(cpu);
        r = init_fail(-ENOMEM, "locus_init: out of memory for the workers");
        goto fail;
    }
    memset(rt->workers, 0, (size_t)rt->nworkers * sizeof *rt->workers);
    for (int i = 0; i < rt->nworkers; i++)
        pthread_mutex_init(&rt->workers[i].rlock, NULL);
    if ((r = lc_topology_place_workers(&rt->topo, rt->nworkers, node, cpu)) < 0) {
        free(node);
        free(cpu);
        r = init_fail(r, "locus_init: cannot place the workers on the topology");
        goto fail;
    }
    for (int i = 0; i < rt->nworkers; i++) {
        struct lc_worker *w = &rt->workers[i];
        w->rt = rt;
        w->id = i;
        w->node = node[i];
        w->cpu = cpu[i];
        w->rng = 0x9E3779B97F4A7C15ull * ((uint64_t)(i + 1) + ((uint64_t)rt->opt.sim_seed << 32)) | 1;
        lc_grain_state_init(&w->grain);
        lc_spin_init(w);
    }
    lc_grain_init(&rt->grain, rt->opt.grain_ns, rt->nworkers);
    free(node);
    free(cpu);

    /* the initial thread is worker 0: from here on it allocates from its
     * node's arena, as the workers will (mem.c) */
    lc_mem_arenas_init(rt->topo.nnodes, rt->opt.verbose);
    if (lc_mem_thread_bind(rt->workers[0].node) < 0) {
        r = init_fail(-ENOMEM, "locus_init: out of memory");
        goto fail;
    }
    lc_stack_setup(&rt->workers[0]);

    rt->nsync = lc_mem_alloc((size_t)rt->topo.nnodes * sizeof *rt->nsync, LC_CACHELINE);
    if (!rt->nsync) {
        r = init_fail(-ENOMEM, "locus_init: out of memory for the node wake-up words");
        goto fail;
    }
    memset(rt->nsync, 0, (size_t)rt->topo.nnodes * sizeof *rt->nsync);
    if ((r = lc_locality_init(rt, err, sizeof err)) < 0) {
        init_fail(r, err);
        goto fail;
    }
    /* The workers start as early as they may, and wait for their first
     * turn (thread.c), which comes once everything below is set up: a
     * thread's start (its CPU woken, its binding, its first allocation)
     * overlaps the rest of this function instead of following it.  Not
     * before what they inherit from their creator: the interleaved memory
     * policy of LOCUS_PAGES=interleave (lc_locality_init), and the
     * counters' per-thread events where there may be any; where there may
     * not (no core PMU, as in most VMs), the counters are opened while the
     * workers start.  Under LOCUS_SIM they are the simulator's actors,
     * started once it runs (below). */
    int counters_first = lc_counters_rt_per_thread(&rt->opt);
    if (!rt->opt.sim[0] && !counters_first
        && (r = start_workers(rt, &nstarted, err, sizeof err)) < 0)
        goto fail;
    /* An explicitly requested backend that counts nothing here fails the
     * init (-EINVAL); auto never does. */
    if ((r = lc_counters_rt_open(&rt->opt, err, sizeof err)) < 0) {
        init_fail(r, err);
        goto fail;
    }
    if (!rt->opt.sim[0] && counters_first
        && (r = start_workers(rt, &nstarted, err, sizeof err)) < 0)
        goto fail;
    rt->npools = lc_mem_alloc((size_t)rt->topo.nnodes * sizeof *rt->npools, LC_CACHELINE);
    if (!rt->npools) {
        r = init_fail(-ENOMEM, "locus_init: out of memory for the task pools");
        goto fail;
    }
    if ((r = lc_taskpool_nodes_init(rt->npools, rt->topo.nnodes)) < 0) {
        lc_mem_free(rt->npools, 0);
        rt->npools = NULL;
        r = init_fail(r, "locus_init: cannot initialise the task pools");
        goto fail;
    }
    for (int i = 0; i < rt->nworkers; i++)
        rt->workers[i].npool = &rt->npools[rt->workers[i].node];
    if ((r = rt->sched->init(rt, err, sizeof err)) < 0) {
        init_fail(r, err);
        goto fail;
    }
    rt->sched_inited = 1;
    for (int i = 0; i < rt->nworkers; i++)
        if (lc_taskpool_reserve_fill(&rt->workers[i].pool, rt->workers[i].npool) < 0) {
            r = init_fail(-ENOMEM, "locus_init: out of memory for the workers' reserves");
            goto fail;
        }
    /* LOCUS_TRACE, LOCUS_DAG: before the workers start, which record */
    if ((r = lc_trace_init(rt, err, sizeof err)) < 0) {
        init_fail(r, err);
        goto fail;
    }

    struct lc_task *root = lc_task_alloc(&rt->workers[0].pool, rt->workers[0].npool);
    if (!root) {
        r = init_fail(-ENOMEM, "locus_init: out of memory for the root task");
        goto fail;
    }
    lc_task_clear(root, LC_ST_UNMAPPED);
    root->flags = LC_TF_ROOT;
    root->node = -1;
    atomic_store_explicit(&root->pending, LC_BIAS, memory_order_relaxed);
    rt->root = root;
    rt->workers[0].cur = root;

    if (rt->opt.bind == LC_BIND_CORE && rt->workers[0].cpu >= 0) {
        rt->saved_affinity = malloc(sizeof(cpu_set_t));
        if (rt->saved_affinity
            && sched_getaffinity(0, sizeof(cpu_set_t), rt->saved_affinity) == 0)
            rt->saved_affinity_valid = 1;
        lc_topology_bind_self(&rt->topo, rt->workers[0].cpu);
    }

    /* LOCUS_SIM: from here on this thread and every worker's run in
     * simulated time (sim.h) */
    if (rt->opt.sim[0] && (r = lc_sim_start(rt, err, sizeof err)) < 0) {
        init_fail(r, err);
        goto fail;
    }

    lc_self = &rt->workers[0];
    lc_thread_init_initial(&initial_thread, &rt->workers[0]);
    lc_rt = rt;
    /* after publishing rt: a note made meanwhile sets one or the other */
    if (atomic_load_explicit(&lc_blocking_wanted, memory_order_seq_cst))
        atomic_store_explicit(&rt->blocking, 1, memory_order_relaxed);
    if (rt->opt.sim[0] && (r = start_workers(rt, &nstarted, err, sizeof err)) < 0) {
        lc_rt = NULL;
        lc_self = NULL;
        lc_thr = NULL;
        goto fail;
    }
    /* Every worker has made its first allocations (hwloc's binding, its
     * allocator's set-up) before locus_init returns: the program may use
     * up memory as soon as it does, and a thread's first allocation then
     * would crash inside jemalloc (mem.h).  Then each gets its turn. */
    uint32_t up;
    while ((up = atomic_load_explicit(&rt->started, memory_order_seq_cst))
           < (uint32_t)rt->nworkers - 1)
        futex_wait_polled(&rt->started, up, lc_start_poll_ns(rt));
    if (!lc_threads_ok(rt)) {
        r = init_fail(-ENOMEM, "locus_init: out of memory for a worker's first allocation");
        lc_rt = NULL;
        lc_self = NULL;
        lc_thr = NULL;
        goto fail;
    }
    lc_threads_go(rt);
    lc_init_thread = pthread_self();
    if (rt->opt.verbose >= 1)
        fprintf(stderr, "locus: regime %s (scheduler %s, pages %s, steal %s), %s: %d node%s, "
                "%d worker%s%s\n", rt->opt.regime, rt->sched->name,
                rt->opt.pages == LC_PAGES_INTERLEAVE ? "interleave" : "firsttouch",
                rt->opt.steal == LC_STEAL_NEAR ? "near" : rt->opt.steal == LC_STEAL_ALL ? "all" : "none",
                rt->topo.is_virtual ? rt->opt.topology : "machine", rt->topo.nnodes,
                rt->topo.nnodes == 1 ? "" : "s", rt->nworkers, rt->nworkers == 1 ? "" : "s",
                rt->opt.bind == LC_BIND_CORE ? " bound to cores" : " not bound");
    if (rt->opt.verbose >= 2 && lc_mem_node_arena(0) >= 0) {
        fprintf(stderr, "locus: per-node allocator arenas (jemalloc):");
        for (int n = 0; n < rt->topo.nnodes; n++)
            fprintf(stderr, " node %d: %d%s", n, lc_mem_node_arena(n),
                    n + 1 < rt->topo.nnodes ? "," : "\n");
    }
    if (rt->opt.verbose >= 2) {
        int *wn = malloc((size_t)rt->nworkers * sizeof *wn);
        if (wn) {
            for (int i = 0; i < rt->nworkers; i++)
                wn[i] = rt->workers[i].node;
            lc_topology_print(&rt->topo, rt->nworkers, wn, stderr);
            free(wn);
        }
    }
    {
        char why[160];
        if (!lc_sde_init(rt, why, sizeof why) && rt->opt.verbose >= 2)
            fprintf(stderr, "locus: no PAPI software-defined events: %s\n", why);
    }
    lc_counters_rt_begin();
    rt->t0_ns = lc_now_ns();
    lc_exit_arm(rt);   /* the outputs of a run that ends without locus_finalize */
    pthread_mutex_unlock(&lc_init_lock);
    return 0;

fail:
    teardown(rt, nstarted);
    lc_mem_thread_unbind();
    pthread_mutex_unlock(&lc_init_lock);
    return r;
}

LOCUS_API int locus_init(void)
{
    return init_runtime(0, 0);
}

int lc_init_teams(int threads)
{
    return init_runtime(1, threads);
}

LOCUS_API int locus_finalize(void)
{
    struct lc_worker *w = lc_self;
    struct lc_runtime *rt = lc_rt;

    if (!rt)
        return lc_error(-EPERM, "locus_finalize: the runtime is not running");
    if (!w || !pthread_equal(pthread_self(), lc_init_thread))
        return lc_error(w ? -EDEADLK : -ENOTSUP,
                        "locus_finalize: must be called by the thread that called locus_init()%s",
                        w ? ", outside any task" : "");
    if (w->cur != rt->root)
        return lc_error(-EDEADLK, "locus_finalize: called from inside a task");

    pthread_mutex_lock(&lc_init_lock);
    lc_wait_children_final(w, rt->root);
    lc_independent_wait(w);   /* tasks without parent (independent.c) */
    lc_root_events_wait(w);   /* events the program counted on main's task (events.c) */
    atomic_store_explicit(&rt->stop, 1, memory_order_release);
    lc_wake_all(rt);
    lc_team_stop(rt);
    lc_threads_stop(rt);
    lc_counters_rt_end();
    /* the report reads the counters of workers that have all stopped;
     * unless a signal's thread has written the outputs (exit.c) */
    int mine = lc_exit_claim(rt);
    int r = mine && rt->opt.report[0] ? lc_stats_report(rt, NULL, 0) : 0;
    if (mine && rt->trace_bufs) {   /* so do the trace writers their buffers */
        char err[LC_PATH_MAX + 512];
        int tr = lc_trace_finish(rt, 0, err, sizeof err);
        if (tr < 0) {
            lc_error(tr, "%s", err);
            fprintf(stderr, "locus: %s\n", err);
            if (r == 0)
                r = tr;
        }
    }
    lc_sde_fini(rt);
    char regime[LC_NAME_MAX + LC_NAME_MAX + 4];
    snprintf(regime, sizeof regime, "%s", rt->opt.regime);
    lc_exit_disarm(rt);   /* lc_rt = NULL */
    lc_self = NULL;
    lc_thr = NULL;
    teardown(rt, 0);
    if (lc_sim) {   /* the simulation ends with the runtime (sim.h) */
        lc_sim_last_ns = lc_sim->now_ns();
        lc_sim->finish(regime);
        lc_sim = NULL;
    }
    lc_mem_thread_unbind();
    pthread_mutex_unlock(&lc_init_lock);
    return r;
}

LOCUS_API int locus_num_workers(void)
{
    struct lc_runtime *rt = lc_rt;
    return rt ? rt->nworkers : lc_error(-EPERM, "locus_num_workers: the runtime is not running");
}

LOCUS_API int locus_worker_id(void)
{
    struct lc_worker *w = lc_self;
    return w ? w->id : -1;
}

LOCUS_API int locus_num_nodes(void)
{
    struct lc_runtime *rt = lc_rt;
    return rt ? rt->topo.nnodes : lc_error(-EPERM, "locus_num_nodes: the runtime is not running");
}

LOCUS_API int locus_worker_node(void)
{
    struct lc_worker *w = lc_self;
    return w ? w->node : -1;
}

/*
 * A forked child has one thread: the parent's workers, its timer and
 * signal threads do not exist there, and a lock one of them held stays
 * held.  Their memory (the runtime, the workers' deques, the trace
 * buffers) is leaked, not freed: freeing it would read structures that
 * vanished threads left half-written, and joining or waking those threads
 * would wait forever.  A leak of the parent's pool, once per fork, is
 * the lesser harm.
 */
void lc_forget_after_fork(void)
{
    pthread_mutex_init(&lc_init_lock, NULL);
    lc_rt = NULL;
    lc_self = NULL;
    lc_thr = NULL;
    lc_exit_forget_after_fork();
    lc_poll_forget_after_fork();
}
