/*
 * engine.c - the simulator plug-in's engine (liblocus-sim.so): starts
 * SimGrid with the machine's platform, makes the thread that called
 * locus_init its first actor and every runtime thread an actor on its
 * worker's core, and serves the runtime's seams (runtime/sim.h) in
 * simulated time.  As StarPU's SimGrid mode does (Stanisic et al. 2015):
 * the runtime runs unchanged, only time is simulated.
 *
 * Actors are threads (SimGrid's thread contexts), run one at a time, so
 * the runtime's thread-local state and its atomics work as they do for
 * real.  SimGrid may switch actors at any of its calls, so this file makes
 * them only where the runtime holds no lock (sim.h): a wake records whom
 * to wake, and the waker's next waiting seam (settle) notifies them and
 * pays the spawns it owes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/semaphore.h>

#include "sim.h"

static struct sim_machine machine;
static int nworkers, nnodes, n_ft;
static int *worker_node, *node_workers;
static sg_host_t *whost, *mhost;
static char topology[256];
static unsigned long seed;
static FILE *schedule;   /* LOCUS_SIM_SCHEDULE */


void *sim_host_worker(int worker) { return whost[worker]; }
void *sim_host_memory(int node) { return mhost[node]; }
int sim_nnodes(void) { return nnodes; }
int sim_n_ft_nodes(void) { return n_ft; }
int sim_host_worker_count(int node) { return node_workers[node]; }

/* ------------------------------------------------------------ futex words */

/* Each actor's sleeping record, and the notifications it owes. */
struct actor {
    sg_sem_t sem;              /* released once per wake-up owed to it */
    _Atomic uint32_t *addr;    /* the word it sleeps on, NULL when awake */
    int woken;
    struct actor *next, *prev; /* in its word's bucket */
    struct actor **owed;       /* the actors this one woke, not notified yet */
    int nowed, capowed;
    double debt;               /* spawns' cost not charged yet */
};

#define NWB 4096
static struct actor *wbucket[NWB];
static __thread struct actor *me;
static __thread int my_node = -1;   /* the node of this actor's worker */

/* The machine's stalled node (stall_node, stall_at_ms, stall_ms): an actor
 * of it that reaches a seam inside the window sleeps to its end, as a
 * thread whose core another program took would, and runs on from there.
 * Callers have settled (no lock held). */
static void stall_here(void)
{
    if (machine.stall_s <= 0 || my_node != (int)machine.stall_node)
        return;
    double now = simgrid_get_clock(), end = machine.stall_at_s + machine.stall_s;
    if (now >= machine.stall_at_s && now < end)
        sg_actor_sleep_for(end - now);
}

static inline unsigned bucket_of(_Atomic uint32_t *addr)
{
    return (unsigned)(((uintptr_t)addr >> 2) % NWB);
}

static struct actor *self(void)
{
    if (!me) {
        me = calloc(1, sizeof *me);
        if (!me)
            return NULL;
        me->sem = sg_sem_init(0);
    }
    return me;
}

static void unlink_waiter(struct actor *a)
{
    unsigned b = bucket_of(a->addr);
    if (a->prev)
        a->prev->next = a->next;
    else
        wbucket[b] = a->next;
    if (a->next)
        a->next->prev = a->prev;
    a->next = a->prev = NULL;
    a->addr = NULL;
}

/* Notifies whom this actor woke and charges the spawns it owes: the only
 * place besides the waits themselves where it may lose the processor. */
static void settle(void)
{
    struct actor *a = self();
    if (!a)
        return;
    if (a->nowed) {
        for (int i = 0; i < a->nowed; i++)
            sg_sem_release(a->owed[i]->sem);
        a->nowed = 0;
    }
    if (a->debt > 0) {
        double d = a->debt;
        a->debt = 0;
        sg_actor_sleep_for(d);
    }
}

static void sim_wake(_Atomic uint32_t *addr, int n)
{
    struct actor *a = self();
    unsigned b = bucket_of(addr);
    for (struct actor *w = wbucket[b], *nx; w && n > 0; w = nx) {
        nx = w->next;
        if (w->addr != addr)
            continue;
        unlink_waiter(w);
        w->woken = 1;
        n--;
        if (a && a->nowed == a->capowed) {
            int c = a->capowed ? 2 * a->capowed : 16;
            struct actor **no = realloc(a->owed, (size_t)c * sizeof *no);
            if (no) {
                a->owed = no;
                a->capowed = c;
            }
        }
        if (a && a->nowed < a->capowed)
            a->owed[a->nowed++] = w;
        else   /* no record to defer it on (no memory): notify now */
            sg_sem_release(w->sem);
    }
}

static void sim_wait(_Atomic uint32_t *addr, uint32_t val, uint64_t ns)
{
    settle();
    struct actor *a = self();
    if (!a) {
        sg_actor_sleep_for(ns ? ns * 1e-9 : 1e-6);
        return;
    }
    if (atomic_load_explicit(addr, memory_order_seq_cst) != val)
        return;
    unsigned b = bucket_of(addr);
    a->addr = addr;
    a->woken = 0;
    a->prev = NULL;
    a->next = wbucket[b];
    if (wbucket[b])
        wbucket[b]->prev = a;
    wbucket[b] = a;
    /* a release left over from an earlier wake-up that came after that
     * wait had timed out only makes this loop look again */
    double until = ns ? simgrid_get_clock() + ns * 1e-9 : 0;
    while (!a->woken) {
        if (!ns) {
            sg_sem_acquire(a->sem);
            continue;
        }
        double left = until - simgrid_get_clock();
        if (left <= 0 || sg_sem_acquire_timeout(a->sem, left))
            break;   /* timed out */
    }
    if (!a->woken) {
        unlink_waiter(a);
        return;
    }
    if (machine.wake_s > 0)   /* a woken thread runs some microseconds later */
        sg_actor_sleep_for(machine.wake_s);
    stall_here();
}

/* ------------------------------------------------------------ time, polls */

static uint64_t sim_now_ns(void)
{
    return (uint64_t)(simgrid_get_clock() * 1e9 + 0.5);
}

static void sim_poll(unsigned pauses)
{
    settle();
    stall_here();
    if (pauses && machine.poll_s > 0)   /* one poll for LC_SIM_POLLS (runtime/sim.h) */
        sg_actor_sleep_for(pauses * machine.poll_s * LC_SIM_POLLS);
    else
        sg_actor_yield();
}

static void sim_yield(void)
{
    settle();
    stall_here();
    sg_actor_yield();
}

/* ------------------------------------------------------------ threads */

struct start {
    void *(*fn)(void *);
    void *arg;
    int node;
};

static void actor_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct start *s = sg_actor_self_get_data();
    void *(*fn)(void *) = s->fn;
    void *arg = s->arg;
    my_node = s->node;
    free(s);
    fn(arg);
    settle();   /* its last wakes */
}

static int sim_thread_start(void *(*fn)(void *), void *arg, int worker, void **handle)
{
    struct start *s = malloc(sizeof *s);
    if (!s)
        return ENOMEM;
    s->fn = fn;
    s->arg = arg;
    s->node = worker < nworkers ? worker_node[worker] : -1;
    char name[32];
    snprintf(name, sizeof name, "worker%d", worker);
    sg_actor_t a = sg_actor_init(name, whost[worker < nworkers ? worker : 0]);
    if (!a) {
        free(s);
        return EAGAIN;
    }
    sg_actor_ref(a);   /* kept for the join */
    sg_actor_set_data(a, s);
    char *argv[] = { name, NULL };
    sg_actor_start_(a, actor_main, 1, (const char *const *)argv);
    *handle = a;
    return 0;
}

static void sim_thread_join(void *handle)
{
    settle();
    sg_actor_join(handle, -1);
    sg_actor_unref(handle);
}

/* ------------------------------------------------------------ bodies */

static void sim_named(const void *task, locus_task_fn fn, const char *label,
                      locus_task_fn name_fn)
{
    sim_models_task(task, fn, label, name_fn);
}

static void sim_spawned(void)
{
    struct actor *a = self();
    if (!a)
        return;
    a->debt += machine.spawn_s;
    /* charged a microsecond at a time: the workers see the spawner's pace
     * without an event per spawn */
    if (a->debt >= 1e-6)
        settle();
}

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sim_body(const struct lc_sim_task *t, void (*run)(void *), void *ctx)
{
    settle();
    stall_here();
    double start = simgrid_get_clock();
    const char *name;
    const struct model *m = sim_models_take(t->task, t->fn, &name);
    double c = sim_models_time(m, t->dep_bytes);
    if (c < 0) {   /* no model: it runs, and is charged the processor time it took */
        double c0 = thread_cpu();
        run(ctx);
        c = thread_cpu() - c0;
        sim_run++;
    } else {
        sim_modelled++;
    }
    sim_charge(&machine, t, c, sim_models_overlap(m));
    if (schedule)
        fprintf(schedule, "%.9f %.9f %d %d %s %llu\n", start, simgrid_get_clock(), t->worker,
                t->node, name, (unsigned long long)t->dep_bytes);
    settle();
}

/* ------------------------------------------------------------ start, end */

static pthread_t maestro_thread;

static void maestro(void *arg)
{
    (void)arg;
    maestro_thread = pthread_self();
    simgrid_run();
}

static void sim_finish(const char *regime)
{
    settle();
    double t = simgrid_get_clock();
    fprintf(stderr, "locus-sim: simulated %.6f s: topology %s, %d workers on %d node%s, "
            "regime %s, seed %lu; ", t, topology, nworkers, nnodes, nnodes == 1 ? "" : "s",
            regime, seed);
    sim_machine_print(stderr, &machine);
    fprintf(stderr, "; %llu bodies by their model, %llu run and charged their processor time\n",
            (unsigned long long)sim_modelled, (unsigned long long)sim_run);
    if (schedule && fclose(schedule) != 0)
        fprintf(stderr, "locus-sim: LOCUS_SIM_SCHEDULE: cannot write the schedule\n");
    schedule = NULL;
    sg_actor_detach();   /* the last actor: the engine ends */
}

static const struct lc_sim_ops ops = {
    .wait = sim_wait,
    .wake = sim_wake,
    .now_ns = sim_now_ns,
    .poll = sim_poll,
    .yield = sim_yield,
    .thread_start = sim_thread_start,
    .thread_join = sim_thread_join,
    .body = sim_body,
    .named = sim_named,
    .spawned = sim_spawned,
    .finish = sim_finish,
};

__attribute__((visibility("default")))
const struct lc_sim_ops *locus_sim_plugin_start(const struct lc_sim_config *cfg, char *err,
                                                size_t errlen)
{
    if (cfg->abi != LC_SIM_ABI) {
        snprintf(err, errlen, "LOCUS_SIM: liblocus-sim.so speaks interface %d, the runtime %d "
                 "(install them together)", LC_SIM_ABI, cfg->abi);
        return NULL;
    }
    if (sim_machine_load(&machine, cfg, err, errlen) < 0)
        return NULL;
    sim_symbol_name = cfg->symbol_name;
    if (sim_models_load(cfg->model, err, errlen) < 0)
        return NULL;
    if (cfg->schedule && cfg->schedule[0]) {
        if (!(schedule = fopen(cfg->schedule, "w"))) {
            snprintf(err, errlen, "LOCUS_SIM_SCHEDULE='%s': cannot create it: %s", cfg->schedule,
                     strerror(errno));
            return NULL;
        }
        fprintf(schedule, "# start_s end_s worker node task dep_bytes\n");
    }
    seed = cfg->seed;
    nworkers = cfg->nworkers;
    nnodes = cfg->nnodes;
    n_ft = cfg->n_ft_nodes;
    snprintf(topology, sizeof topology, "%s", cfg->topology);
    worker_node = malloc((size_t)nworkers * sizeof *worker_node);
    node_workers = calloc((size_t)nnodes, sizeof *node_workers);
    whost = malloc((size_t)nworkers * sizeof *whost);
    mhost = malloc((size_t)nnodes * sizeof *mhost);
    if (!worker_node || !node_workers || !whost || !mhost) {
        snprintf(err, errlen, "LOCUS_SIM: out of memory");
        return NULL;
    }
    memcpy(worker_node, cfg->worker_node, (size_t)nworkers * sizeof *worker_node);
    for (int i = 0; i < nworkers; i++)
        node_workers[worker_node[i]]++;
    my_node = worker_node[0];   /* this thread, locus_init's, is worker 0 */

    /* the platform, through a file: SimGrid's C interface loads platforms */
    char path[] = "/tmp/locus-sim-platform-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        snprintf(err, errlen, "LOCUS_SIM: cannot write the platform file in /tmp: %s",
                 strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(path);
        }
        return NULL;
    }
    sim_machine_platform(f, &machine, cfg);
    if (fclose(f) != 0) {
        snprintf(err, errlen, "LOCUS_SIM: cannot write the platform file %s: %s", path,
                 strerror(errno));
        unlink(path);
        return NULL;
    }

    /* maestro (SimGrid's scheduler) gets a thread of its own; this thread
     * becomes the first actor, on worker 0's core */
    simgrid_set_maestro(maestro, NULL);
    /* thread contexts: each actor keeps its thread, so the runtime's
     * thread-local state is its own; CM02: max-min sharing of bandwidth
     * without TCP's corrections, and no reverse traffic */
    char a0[] = "locus-sim", a1[] = "--cfg=contexts/factory:thread",
         a2[] = "--cfg=network/model:CM02", a3[] = "--log=root.thres:critical",
         a4[] = "--cfg=contexts/stack-size:8192", a5[] = "--cfg=network/crosstraffic:0";
    char *argv[] = { a0, a1, a2, a3, a4, a5, NULL };
    int argc = 6;
    if (cfg->verbose >= 3)
        argv[3] = (char *)"--log=root.thres:info";
    simgrid_init(&argc, argv);
    simgrid_load_platform(path);
    unlink(path);
    for (int i = 0; i < nworkers; i++) {
        char name[32];
        snprintf(name, sizeof name, "w%d", i);
        whost[i] = sg_host_by_name(name);
    }
    for (int n = 0; n < nnodes; n++) {
        char name[32];
        snprintf(name, sizeof name, "m%d", n);
        mhost[n] = sg_host_by_name(name);
    }
    sg_actor_attach("main", NULL, whost[0], NULL);
    if (cfg->verbose >= 1) {
        fprintf(stderr, "locus-sim: simulating %s, %d workers, ", topology, nworkers);
        sim_machine_print(stderr, &machine);
        fprintf(stderr, "\n");
    }
    return &ops;
}
