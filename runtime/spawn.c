/*
 * spawn.c - locus_spawn() and locus_taskwait(): validating a task,
 * building its descriptor (argument copy, task group), registering its
 * dependencies and, once it is ready, handing it to the one decision
 * (ready.h).  Also the descriptor of a light task a worker takes from a
 * queue (lc_item_open).  This is the per-task hot path: one descriptor pop
 * from the worker's pool, one hash lookup per exact-match dependency, one
 * atomic per predecessor edge and one to release the spawn guard.
 *
 * The ways through a spawn, each ending in one decision for the task:
 *   no dependencies, no node, no priority: decided before the descriptor
 *       is made, so that a task to queue with nothing to copy or count
 *       goes as a light task (no descriptor: policy.h);
 *   no dependencies otherwise: the descriptor, its placement, decided;
 *   dependencies, with every conflicting earlier sibling complete and
 *       bodies short: decided without entering the parent's map, and run
 *       at its spawn outside it when so decided (run_unmapped);
 *   dependencies otherwise: registered in the map, decided if ready.
 * A task run at its spawn without dependencies is not counted among its
 * parent's children (LC_TB_UNCOUNTED, run.c): it is complete before the
 * spawn returns, or becomes an ordinary child when it leaves work behind.
 */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>

#include "depmap.h"
#include "futex.h"
#include "mem.h"
#include "policy.h"
#include "ready.h"
#include "runtime.h"
#include "sim.h"
#include "taskpool.h"
#include "team.h"

/* How often (in spawns) the spawner looks at how far its children lag. */
#define LC_THROTTLE_CHECK 64

/* Inlined into every spawn (locus_spawn, lc_spawn_hinted, lc_spawn_copied):
 * with several callers GCC would call them out of line, where it inlined
 * them into the one spawn there was before. */
#define LC_SPAWN_PART static inline __attribute__((always_inline))

int lc_not_worker(const char *fn)
{
    if (!lc_rt)
        return lc_error(-EPERM, "%s: the runtime is not running (call locus_init() first)", fn);
    return lc_error(-ENOTSUP, "%s: called from a thread that is not a Locus worker", fn);
}

LC_SPAWN_PART int check_deps(const locus_dep_t *deps, size_t ndeps, uint64_t *total)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < ndeps; i++) {
        sum += lc_dep_is_data(&deps[i]) ? deps[i].size : 0;
        uintptr_t a = (uintptr_t)deps[i].addr;
        if (!deps[i].addr)
            return lc_error(-EINVAL, "locus_spawn: dependency %zu has a NULL address", i);
        if (deps[i].size == 0)
            return lc_error(-EINVAL, "locus_spawn: dependency %zu (%p) has size 0", i, deps[i].addr);
        if (deps[i].size > UINTPTR_MAX - a)
            return lc_error(-EINVAL, "locus_spawn: dependency %zu (%p + %zu) runs past the end "
                            "of the address space", i, deps[i].addr, deps[i].size);
        switch (deps[i].access) {
        case LOCUS_ACCESS_IN: case LOCUS_ACCESS_OUT:
        case LOCUS_ACCESS_INOUT: case LOCUS_ACCESS_CONCURRENT:
            break;
        default:
            return lc_error(-EINVAL, "locus_spawn: dependency %zu has access mode %d; expected "
                            "LOCUS_ACCESS_IN (1), OUT (2), INOUT (3) or CONCURRENT (4)",
                            i, (int)deps[i].access);
        }
    }
    *total = sum;
    return 0;
}

/* The fields of a new task (its arg and flags are the caller's); state:
 * LC_ST_UNMAPPED for a task without dependencies (it enters no map), 0 for
 * one with (its map lets it go: lc_task_unmapped). */
static inline void init_ready(struct lc_task *t, locus_task_fn fn, struct lc_task *parent,
                              struct lc_taskgroup *tg, uint32_t state)
{
    t->fn = fn;
    t->parent = parent;
    t->tg = tg;
    t->map = NULL;
    t->more = NULL;
    t->maprefs = 0;
    t->nspawned = 0;
    t->node = -1;
    t->prio = 0;
    t->loc = NULL;
    atomic_store_explicit(&t->pending, LC_BIAS, memory_order_relaxed);
    atomic_store_explicit(&t->tw_target, 0, memory_order_relaxed);
    atomic_store_explicit(&t->succ, NULL, memory_order_relaxed);
    lc_task_state_init(t, state);
    atomic_store_explicit(&t->npreds, 0, memory_order_relaxed);
}

/* A descriptor for a light task (fn, arg, parent) taken by w: from w's
 * pool, or its reserve when memory is exhausted; NULL when both are empty. */
static struct lc_task *light_task(struct lc_worker *w, locus_task_fn fn, void *arg,
                                  struct lc_task *parent)
{
    struct lc_task *t = lc_task_alloc(&w->pool, w->npool);
    if (__builtin_expect(!t, 0) && !(t = lc_taskpool_reserve_take(&w->pool)))
        return NULL;
    t->flags = 0;
    t->bflags = 0;
    t->arg = arg;
    init_ready(t, fn, parent, NULL, LC_ST_UNMAPPED);
    /* traced, only tasks without a parent come this way (independent.c):
     * their identity is given here, not at the spawn */
    lc_instr(w, spawn, t, NULL, NULL, NULL, 0, 0);
    return t;
}

struct lc_task *lc_item_open(struct lc_worker *w, const struct lc_qitem *it)
{
    if (__builtin_expect(!(it->c & LC_QI_LIGHT), 1))
        return it->p;
    struct lc_task *t = light_task(w, (locus_task_fn)it->p, it->a, it->b);
    if (__builtin_expect(t != NULL, 1))
        return t;
    /* No memory, and the reserve spent: the item goes back to the policy
     * for whoever next has a descriptor to spare; only if the policy has
     * no room either, wait here for memory (the task was accepted, so it
     * must run).  Each of the three is rarer than the one before. */
    while (w->rt->sched->push_light(w, it) < 0) {
        lc_yield();
        if ((t = light_task(w, (locus_task_fn)it->p, it->a, it->b)))
            return t;
    }
    return NULL;
}

/*
 * Registration ran out of memory part-way: t may be known for some of its
 * ranges only.  Serialise instead: wait until every earlier sibling is
 * complete, make t ready (whatever the decision, it runs before the next
 * wait returns), and wait until t is complete, so no later sibling can
 * overtake it whatever the map says.  Nothing is lost.
 */
static void serialise_after_oom(struct lc_worker *w, struct lc_task *parent,
                                struct lc_task *t, uint32_t nlinked)
{
    lc_wait_children(w, parent, 1);   /* only t itself remains */
    uint32_t share = LC_GUARD - nlinked;
    if (atomic_fetch_sub_explicit(&t->npreds, share, memory_order_acq_rel) == share)
        lc_task_ready(w, t, LC_READY_SPAWNED);
    lc_wait_children(w, parent, 0);
}

/*
 * Runs t at its spawn without entering the parent's map: lc_depmap_ready
 * found every conflicting earlier sibling complete, and a task complete
 * before the next sibling is spawned orders nothing.  Skipping the map
 * saves most of a spawn's work in a serial chain of short tasks.  A task
 * whose body leaves children running is not complete yet: it enters the
 * map then, exactly as at its spawn, since nothing has been spawned
 * beside it meanwhile (and it links behind nothing: what it conflicts
 * with is complete).  Until then the descriptor is held (state 0, not
 * UNMAPPED: init_ready), so that a completion on another thread cannot
 * free it.
 */
static void run_unmapped(struct lc_worker *w, struct lc_task *parent, struct lc_task *t,
                         const locus_dep_t *deps, size_t ndeps)
{
    parent->nspawned++;
    lc_ready_do(w, t, LC_ACT_RUN_AT_SPAWN);
    if (__builtin_expect(!lc_task_is_complete(t), 0)) {
        uint32_t nlinked = 0;
        if (lc_depmap_register(w, parent->map, t, deps, ndeps, &nlinked) < 0)
            lc_wait_children(w, t, 0);   /* in the map for some ranges only: let it finish */
        if (t->maprefs)
            return;                      /* the map lets it go (lc_task_unmapped) */
    }
    lc_task_unmapped(w, t);
}

/* Gives t its own copy of the argument: arg_size bytes in the descriptor's
 * own lines (LC_INLINE_ARG, 64-byte aligned), or in a block freed at its
 * completion (16-byte aligned); made by cpyfn(copy, arg) when there is one
 * (an OpenMP task's copy constructor), else by memcpy.  0 or -ENOMEM. */
static inline int copy_arg(struct lc_task *t, const void *arg, size_t arg_size,
                           lc_copy_fn cpyfn)
{
    t->flags = 0;
    t->bflags = 0;
    void *copy;
    if (arg_size == 0) {
        t->arg = (void *)arg;
        LC_POISON(t->argbuf, sizeof t->argbuf);
        return 0;
    } else if (arg_size <= LC_INLINE_ARG) {
        copy = t->argbuf;
        /* a sanitizer build sees a body that runs past its argument */
        LC_POISON(t->argbuf + (arg_size + 7) / 8 * 8, sizeof t->argbuf - (arg_size + 7) / 8 * 8);
    } else {
        copy = lc_mem_alloc(arg_size, 16);
        if (!copy)
            return lc_error(-ENOMEM, "locus_spawn: out of memory copying a %zu-byte argument",
                            arg_size);
        t->flags = LC_TF_HEAPARG;
        LC_POISON(t->argbuf, sizeof t->argbuf);
    }
    if (cpyfn)
        cpyfn(copy, (void *)arg);
    else
        memcpy(copy, arg, arg_size);
    t->arg = copy;
    return 0;
}

/* Whether a task that is ready at its spawn could be run there: what
 * lc_ready_decide would look at first, without its side effects, so that
 * a spawn asks the dependency map whether the task is ready only when the
 * answer could matter. */
static inline int could_run_at_spawn(struct lc_worker *w, int node)
{
    const struct lc_grain *g = &w->rt->grain;
    return (node < 0 || node == w->node) && !w->at_spawn
           && (g->always || lc_grain_short(g, atomic_load_explicit(&w->grain.est,
                                                                   memory_order_relaxed)));
}

/*
 * Creates the task (arguments already checked) and hands it, once ready,
 * to the one decision (ready.h).  Whatever it decides, the task has been
 * given the same things first: its own copy of the argument, its parent's
 * innermost open task group, a count in its parent's children (unless it
 * runs at its spawn without dependencies) and, with dependencies, its
 * place in the parent's map (or the proof that it needs none:
 * run_unmapped).
 * hint: the node a placing scheduler should queue the task on
 * (locus_spawn_attr, attr.c), or -1; prio: its priority (sched/prio.h), 0
 * none; label: its name in traces, NULL none, and name_fn the function
 * it is named by without one, NULL for fn (both read only while tracing);
 * here: an undeferred task (lc_spawn_here: no dependencies, hint or
 * priority), run at its spawn whatever the decision would say.
 * Every test of them folds away in locus_spawn.
 */
LC_SPAWN_PART int spawn_task(struct lc_worker *w, locus_task_fn fn, const void *arg,
                             size_t arg_size, lc_copy_fn cpyfn, const locus_dep_t *deps,
                             size_t ndeps, uint64_t dep_bytes, int hint, int prio,
                             const char *label, locus_task_fn name_fn, int here)
{
    struct lc_runtime *rt = w->rt;
    struct lc_task *parent = w->cur;
    struct lc_taskgroup *tg = lc_task_open_group(parent);
    int act = -1;   /* enum lc_ready_act, once decided */
    int r;

    if (ndeps == 0 && hint < 0 && prio == 0) {
        /* ready, nothing to place: decided now, before a descriptor exists */
        act = here ? LC_ACT_RUN_AT_SPAWN : lc_ready_decide(w, -1, 0, LC_READY_SPAWNED_FREE);
        if (act == LC_ACT_QUEUE && arg_size == 0 && !tg && !w->trace
            && !(lc_sim && label)) {
            /* nothing to copy, no group: queued light, as (fn, arg,
             * parent), and its taker makes the descriptor (policy.h); a
             * traced task needs its descriptor for its identity, and a
             * simulated one with a label for its model (sim.h) */
            parent->nspawned++;
            if (__builtin_expect(lc_ready_queue_light(w, fn, (void *)arg, parent) == 0, 1))
                goto spawned;
            parent->nspawned--;   /* no room in the queue: the ordinary way */
        }
    }
    struct lc_task *t = lc_task_alloc(&w->pool, w->npool);
    if (__builtin_expect(!t, 0))
        return lc_error(-ENOMEM, "locus_spawn: out of memory for a task descriptor");
    if (__builtin_expect((r = copy_arg(t, arg, arg_size, cpyfn)) < 0, 0)) {
        lc_task_release(&w->pool, w->npool, t);
        return r;
    }
    init_ready(t, fn, parent, tg, ndeps ? 0 : LC_ST_UNMAPPED);
    lc_instr(w, spawn, t, label, name_fn, deps, ndeps, dep_bytes);
    if (__builtin_expect(lc_sim != NULL, 0))
        lc_sim->named(t, fn, label, name_fn);
    if (tg)
        lc_taskgroup_add(tg);
    if (prio) {
        t->prio = (uint16_t)prio;
        if (!atomic_load_explicit(&rt->prio_on, memory_order_relaxed))
            atomic_store_explicit(&rt->prio_on, 1, memory_order_relaxed);   /* once */
    }
    if (ndeps || hint >= 0) {
        if (rt->track)
            lc_locality_spawn(w, t, deps, ndeps, hint);
        else   /* one node: every byte is local */
            lc_stat_add(&w->stats.bytes[LC_DIST_LOCAL], dep_bytes);
    }

    if (ndeps == 0) {
        if (act < 0)
            act = lc_ready_decide(w, t->node, (unsigned)prio, LC_READY_SPAWNED_FREE);
        if (__builtin_expect(act == LC_ACT_RUN_AT_SPAWN, 1)) {
            t->bflags |= LC_TB_UNCOUNTED;
            lc_ready_do(w, t, LC_ACT_RUN_AT_SPAWN);
            lc_stat_add(&w->stats.spawned, 1);
            return 0;   /* complete, or counted by now (run.c): nothing to throttle */
        }
        parent->nspawned++;
        lc_ready_do(w, t, (enum lc_ready_act)act);
        goto spawned;
    }
    if (parent->map && could_run_at_spawn(w, t->node)
        && lc_depmap_ready(parent->map, deps, ndeps)) {
        /* ready without entering the map: decided now, and run outside it
         * if it runs here */
        act = lc_ready_decide(w, t->node, (unsigned)prio, LC_READY_SPAWNED);
        if (act == LC_ACT_RUN_AT_SPAWN) {
            run_unmapped(w, parent, t, deps, ndeps);
            goto spawned;
        }
    }
    uint32_t nlinked = 0;
    atomic_store_explicit(&t->npreds, LC_GUARD, memory_order_relaxed);
    if (!parent->map && !(parent->map = lc_depmap_create()))
        r = -ENOMEM;
    else
        r = lc_depmap_register(w, parent->map, t, deps, ndeps, &nlinked);
    parent->nspawned++;
    if (__builtin_expect(r < 0, 0)) {
        if (t->maprefs == 0)
            atomic_fetch_or_explicit(&t->state, LC_ST_UNMAPPED, memory_order_relaxed);
        serialise_after_oom(w, parent, t, nlinked);
        lc_stat_add(&w->stats.spawned, 1);
        return 0;
    }
    /* acq_rel: if we release the last guard share, we must see every
     * predecessor's writes before the task can run */
    uint32_t share = LC_GUARD - nlinked;
    if (atomic_fetch_sub_explicit(&t->npreds, share, memory_order_acq_rel) == share)
        lc_ready_do(w, t, act >= 0 ? (enum lc_ready_act)act
                          : lc_ready_decide(w, t->node, (unsigned)prio, LC_READY_SPAWNED));

spawned:
    lc_stat_add(&w->stats.spawned, 1);
    w->grain.stale++;   /* spawns since w last timed a body (grain.h) */
    if (__builtin_expect((parent->nspawned & (LC_THROTTLE_CHECK - 1)) == 0, 0)
        && lc_task_outstanding(parent) > (int64_t)rt->opt.throttle)
        lc_throttle(w, parent);
    return 0;
}

/* A spawn under simulation (sim.h): the simulator charges the spawn's cost
 * once it is done, outside every lock (spawn_task tells it the task's name,
 * by which it picks the task's model, before the task may run). */
static __attribute__((noinline, cold))
int lc_sim_spawn(struct lc_worker *w, locus_task_fn fn, const void *arg, size_t arg_size,
                 lc_copy_fn cpyfn, const locus_dep_t *deps, size_t ndeps, uint64_t dep_bytes,
                 int hint, int prio, const char *label, locus_task_fn name_fn, int here)
{
    int r = spawn_task(w, fn, arg, arg_size, cpyfn, deps, ndeps, dep_bytes, hint, prio, label,
                       name_fn, here);
    lc_sim->spawned();
    return r;
}

/* Validates a spawn's arguments, then spawns (cpyfn, hint, prio, label,
 * name_fn, here as spawn_task's). */
static inline __attribute__((always_inline))
int spawn(locus_task_fn fn, const void *arg, size_t arg_size, lc_copy_fn cpyfn,
          const locus_dep_t *deps, size_t ndeps, int hint, int prio, const char *label,
          locus_task_fn name_fn, int here)
{
    struct lc_worker *w = lc_self;
    if (__builtin_expect(!w, 0))
        return lc_not_worker("locus_spawn");
    if (__builtin_expect(!fn, 0))
        return lc_error(-EINVAL, "locus_spawn: fn is NULL");
    if (__builtin_expect(arg_size && !arg, 0))
        return lc_error(-EINVAL, "locus_spawn: arg is NULL but arg_size is %zu (pass arg_size 0 "
                        "to hand the task a NULL pointer)", arg_size);
    if (__builtin_expect(ndeps && !deps, 0))
        return lc_error(-EINVAL, "locus_spawn: deps is NULL but ndeps is %zu", ndeps);
    uint64_t dep_bytes = 0;
    int r = check_deps(deps, ndeps, &dep_bytes);
    if (__builtin_expect(r < 0, 0))
        return r;
    if (__builtin_expect(lc_sim != NULL, 0))
        return lc_sim_spawn(w, fn, arg, arg_size, cpyfn, deps, ndeps, dep_bytes, hint, prio,
                            label, name_fn, here);
    return spawn_task(w, fn, arg, arg_size, cpyfn, deps, ndeps, dep_bytes, hint, prio, label,
                      name_fn, here);
}

LOCUS_API int locus_spawn(locus_task_fn fn, const void *arg, size_t arg_size,
                          const locus_dep_t *deps, size_t ndeps)
{
    return spawn(fn, arg, arg_size, NULL, deps, ndeps, -1, 0, NULL, NULL, 0);
}

/* locus_spawn_attr() (attr.c) once its options are checked. */
int lc_spawn_hinted(locus_task_fn fn, const void *arg, size_t arg_size,
                    const locus_dep_t *deps, size_t ndeps, int hint, int prio,
                    const char *label, locus_task_fn name_fn)
{
    return spawn(fn, arg, arg_size, NULL, deps, ndeps, hint, prio, label, name_fn, 0);
}

/* gomp/task.c: locus_spawn() whose argument copy cpyfn makes. */
int lc_spawn_copied(locus_task_fn fn, const void *arg, size_t arg_size, lc_copy_fn cpyfn,
                    const locus_dep_t *deps, size_t ndeps)
{
    return spawn(fn, arg, arg_size, cpyfn, deps, ndeps, -1, 0, NULL, NULL, 0);
}

/* kmp/task.c: a task without dependencies whose argument is arg itself
 * (the caller's block outlives the task).  lc_spawn_copied with arg_size
 * 0 and no dependencies, compiled for that case alone, without the
 * general spawn's copying and dependency paths: a clang program's every
 * plain task comes this way. */
int lc_spawn_ref(locus_task_fn fn, void *arg)
{
    return spawn(fn, arg, 0, NULL, NULL, 0, -1, 0, NULL, NULL, 0);
}

/* gomp/task.c: an undeferred task (OpenMP's if(0)), run now on the calling
 * worker as a child of its current task, which is how libgomp and libomp
 * run it: the body sees the encountering thread's threadprivate data, and
 * the task still has a descriptor of its own, so that its children and
 * taskwaits are its own.  Its argument is arg itself (the caller's frame
 * outlives the task).  What the body leaves running completes it later,
 * as for any task run at its spawn (run.h). */
int lc_spawn_here(locus_task_fn fn, void *arg, locus_task_fn name_fn)
{
    return spawn(fn, arg, 0, NULL, NULL, 0, -1, 0, NULL, name_fn, 1);
}

/* The descriptor for a task without a parent (independent.c): queued as
 * decided for LC_READY_DETACHED.  0, or -ENOMEM. */
int lc_spawn_detached(struct lc_worker *w, locus_task_fn fn, void *arg)
{
    lc_stat_add(&w->stats.spawned, 1);
    if (lc_ready_queue_light(w, fn, arg, NULL) == 0)
        return 0;
    struct lc_task *t = light_task(w, fn, arg, NULL);
    if (!t) {
        lc_stat_add(&w->stats.spawned, (uint64_t)-1);
        return -ENOMEM;
    }
    lc_ready_do(w, t, lc_ready_decide(w, -1, 0, LC_READY_DETACHED));
    return 0;
}

LOCUS_API int locus_taskwait(void)
{
    struct lc_worker *w = lc_self;
    if (!w)
        return lc_not_worker("locus_taskwait");
    struct lc_task *t = w->cur;
    lc_instr(w, mark, LC_EV_TASKWAIT, t->tr.id);
    lc_wait_children(w, t, 0);
    lc_instr(w, mark, LC_EV_TASKWAIT_END, t->tr.id);
    if (t->map)
        lc_depmap_retire(t->map);   /* every child is complete: nothing to order */
    return 0;
}
