/*
 * task.c - explicit tasks of the libgomp ABI: GOMP_task with its clauses
 * and both depend-array formats, taskloop (its reductions: reduction.c), taskwait
 * (plain and with depend), taskyield and taskgroups, onto locus_spawn()
 * and the runtime's groups.
 *
 * A task's depend addresses become one-byte Locus dependencies: libgomp
 * matches dependencies by address only, and so do one-byte ranges.  Their
 * addresses are also what NAFT places the task by.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "detach.h"
#include "gomp.h"
#include "locus.h"
#include "runtime.h"
#include "task.h"

/* gcc's GOMP_TASK_FLAG_* and GOMP_DEPEND_* (gomp-constants.h) */
#define TF_UNTIED    (1u << 0)
#define TF_FINAL     (1u << 1)
#define TF_MERGEABLE (1u << 2)
#define TF_DEPEND    (1u << 3)
#define TF_PRIORITY  (1u << 4)
#define TF_UP        (1u << 8)    /* taskloop: the loop counts upwards */
#define TF_GRAINSIZE (1u << 9)    /* taskloop: num_tasks is a grainsize */
#define TF_IF        (1u << 10)   /* taskloop: the if clause is true */
#define TF_NOGROUP   (1u << 11)
#define TF_REDUCTION (1u << 12)
#define TF_DETACH    (1u << 13)
#define TF_STRICT    (1u << 14)   /* grainsize(strict:) */
enum { DEP_IN = 1, DEP_OUT = 2, DEP_INOUT = 3, DEP_MUTEXINOUTSET = 4, DEP_INOUTSET = 5 };

#define STACK_DEPS 16

/* libgomp orders tasks on the address alone, NULL included */
static const char null_dep;

static locus_dep_t dep(const void *addr, locus_access_t acc)
{
    return (locus_dep_t){ addr ? addr : &null_dep, 1, acc };
}

/* Number of dependencies in a depend array (either format). */
static size_t depend_count(void **depend)
{
    return (uintptr_t)depend[0] ? (uintptr_t)depend[0] : (uintptr_t)depend[1];
}

/* Converts a depend array into out (depend_count() entries). */
static void depend_convert(void **depend, locus_dep_t *out)
{
    size_t n, nout, nmutex = 0, nin, first;
    if ((uintptr_t)depend[0]) {        /* [n, nout, addr...]: out/inout, then in */
        n = (uintptr_t)depend[0];
        nout = (uintptr_t)depend[1];
        nin = n - nout;
        first = 2;
    } else {                            /* [0, n, nout, nmutex, nin, addr..., depobj...] */
        n = (uintptr_t)depend[1];
        nout = (uintptr_t)depend[2];
        nmutex = (uintptr_t)depend[3];
        nin = (uintptr_t)depend[4];
        first = 5;
    }
    size_t i = 0;
    /* mutexinoutset ordered like inout: stricter than needed, as in libgomp */
    for (; i < nout + nmutex; i++)
        out[i] = dep(depend[first + i], LOCUS_ACCESS_INOUT);
    for (; i < nout + nmutex + nin; i++)
        out[i] = dep(depend[first + i], LOCUS_ACCESS_IN);
    for (; i < n; i++) {               /* depobj: { address, kind } */
        void **d = depend[first + i];
        switch ((uintptr_t)d[1]) {
        case DEP_IN:
            out[i] = dep(d[0], LOCUS_ACCESS_IN);
            break;
        case DEP_OUT: case DEP_INOUT: case DEP_MUTEXINOUTSET:
            out[i] = dep(d[0], LOCUS_ACCESS_INOUT);
            break;
        case DEP_INOUTSET:
            out[i] = dep(d[0], LOCUS_ACCESS_CONCURRENT);
            break;
        case GOMP_DEP_ALL_MEMORY:   /* a range no data is (lc_dep_is_data) */
            out[i] = (locus_dep_t){ (void *)1, UINTPTR_MAX - 1, LOCUS_ACCESS_INOUT };
            break;
        default:
            gomp_unsupported("GOMP_task", "a depend object of unknown kind");
        }
    }
}

/* A task whose data needs more than locus_spawn's byte copy: a copy
 * constructor (cpyfn), an alignment past what the runtime gives, or the
 * final clause.  Owns a heap copy of the data. */
struct boxed {
    void (*fn)(void *);
    void *data;
    void *block;
    int final;
    struct lc_icvs denv;   /* the creating task's ICVs, which the task inherits */
    struct gomp_event *ev;   /* detach clause (detach.c), or NULL */
};

static void *box_data(void (*cpyfn)(void *, void *), void *data, long size, long align,
                      void **block)
{
    if (align < (long)sizeof(void *))
        align = sizeof(void *);
    size_t bytes = ((size_t)(size > 0 ? size : 1) + (size_t)align - 1) / (size_t)align
                   * (size_t)align;
    void *b = aligned_alloc((size_t)align, bytes);
    if (!b)
        return NULL;
    if (cpyfn)
        cpyfn(b, data);
    else if (size > 0)
        memcpy(b, data, (size_t)size);
    *block = b;
    return b;
}

static void run_boxed(void *arg)
{
    struct boxed *b = arg;
    int saved = gomp_thr.in_final;
    struct lc_icvs saved_env = lc_task_icvs;
    gomp_thr.in_final = b->final;
    lc_task_icvs = b->denv;
    if (b->ev)
        gomp_event_attach(b->ev);
    b->fn(b->data);
    gomp_thr.in_final = saved;
    lc_task_icvs = saved_env;
    free(b->block);
}

/* An included task: runs now on this thread, with its own copy of data. */
static void run_included(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                         long size, long align, int final)
{
    /* a task of its own: its ICV changes stay in it, its nestable locks
     * are its own */
    int saved = gomp_thr.in_final;
    struct lc_icvs saved_env = lc_task_icvs;
    const void *saved_id = gomp_thr.task_id;
    struct lc_task *saved_cur = gomp_thr.task_cur;
    gomp_task_id_set(&saved_env);   /* an address unique while it runs */
    gomp_thr.in_final = saved || final;
    if (cpyfn) {
        /* gcc gives the copy constructor a block of size bytes at align */
        char buf[size + align];
        void *p = (void *)(((uintptr_t)buf + (uintptr_t)align - 1) & ~((uintptr_t)align - 1));
        cpyfn(p, data);
        fn(p);
    } else {
        fn(data);   /* data is already the task's private block */
    }
    gomp_thr.in_final = saved;
    lc_task_icvs = saved_env;
    gomp_thr.task_id = saved_id;
    gomp_thr.task_cur = saved_cur;
}

static void discard(locus_task_fn fn, void *arg);
static int spawn_prio(void (*fn)(void *), const void *data, size_t size,
                      const locus_dep_t *deps, size_t ndeps, int prio, void (*body)(void *));

/* A wait for dependences (a taskwait with depend, or an undeferred task's
 * before its body: run_undeferred_here): an empty task spawned with them,
 * and the encountering thread runs tasks until it has run.  Its data stays
 * in the encountering frame, which outlives it. */
struct undeferred {
    void (*fn)(void *);
    void *data;
    int final;
    struct lc_icvs denv;   /* the creating task's ICVs */
    _Atomic uint32_t done;
};

static void run_undeferred(void *arg)
{
    struct undeferred *u = arg;
    if (u->fn) {
        int saved = gomp_thr.in_final;
        struct lc_icvs saved_env = lc_task_icvs;
        gomp_thr.in_final = u->final;
        lc_task_icvs = u->denv;
        u->fn(u->data);
        gomp_thr.in_final = saved;
        lc_task_icvs = saved_env;
    }
    struct lc_runtime *rt = lc_rt;
    atomic_fetch_add_explicit(&u->done, 1, memory_order_seq_cst);
    lc_wake_waiters(rt);   /* u may be gone now: only rt is touched */
}

static void wait_all_children(struct lc_worker *w)
{
    lc_wait_children(w, w->cur, 0);
}

static void spawn_undeferred(struct lc_worker *w, void (*fn)(void *), void *data, int final,
                             const locus_dep_t *deps, size_t ndeps)
{
    struct undeferred u = { fn, data, final, lc_task_icvs, 0 };
    if (spawn_prio(run_undeferred, &u, 0, deps, ndeps, 0, fn) != 0) {
        /* out of memory: every earlier sibling complete is a safe order */
        wait_all_children(w);
        run_undeferred(&u);
        return;
    }
    lc_wait_word(w, &u.done, 0);
}

/* The body of an undeferred task run on the encountering thread (below). */
static void run_here(void *arg)
{
    const struct undeferred *u = arg;
    int saved = gomp_thr.in_final;
    struct lc_icvs saved_env = lc_task_icvs;
    gomp_thr.in_final = u->final;
    lc_task_icvs = u->denv;
    u->fn(u->data);
    gomp_thr.in_final = saved;
    lc_task_icvs = saved_env;
}

/*
 * An undeferred task (if(0)) runs on the encountering thread, as in libgomp
 * and libomp: its body sees that thread's threadprivate data and
 * omp_get_thread_num().  With dependences, the thread first waits (running
 * other tasks meanwhile) for the earlier siblings they name: an empty
 * task with them, as taskwait depend does.  Once that one is complete the
 * body may run outside the dependence graph: the siblings it orders come
 * later, and this thread spawns them only after the body.  The body is a
 * Locus task of its own (lc_spawn_here), so that the tasks it creates
 * and waits for are its own.
 */
static void run_undeferred_here(struct lc_worker *w, void (*fn)(void *), void *data, int final,
                                const locus_dep_t *deps, size_t ndeps)
{
    if (ndeps)
        spawn_undeferred(w, NULL, NULL, 0, deps, ndeps);
    struct undeferred u = { fn, data, final, lc_task_icvs, 0 };
    if (lc_spawn_here(run_here, &u, fn) != 0)
        run_here(&u);   /* out of memory for a descriptor: included, in order all the same */
}

/*
 * The priority clause's value as Locus takes it: 0 without the clause
 * (TF_PRIORITY clear), else clamped to omp_get_max_task_priority() (as
 * libgomp does: with OMP_MAX_TASK_PRIORITY unset that is 0, and the clause
 * has no effect) and to LOCUS_PRIORITY_MAX; a negative value (which the
 * standard forbids) is 0.
 */
static inline int task_priority(unsigned flags, int priority)
{
    if (!(flags & TF_PRIORITY) || priority <= 0)
        return 0;
    int max = gomp_icv.max_task_priority;
    if (max > LOCUS_PRIORITY_MAX)
        max = LOCUS_PRIORITY_MAX;
    return priority < max ? priority : max;
}

/* locus_spawn, with priority prio when above 0; body is the program's
 * function, which a trace (LOCUS_TRACE, LOCUS_DAG) names the task by when
 * fn is a wrapper of this file (run_boxed, run_undeferred).  Priorities
 * are clamped to LOCUS_PRIORITY_MAX already (task_priority). */
static int spawn_prio(void (*fn)(void *), const void *data, size_t size,
                      const locus_dep_t *deps, size_t ndeps, int prio, void (*body)(void *))
{
    if (!prio && fn == body)
        return locus_spawn(fn, data, size, deps, ndeps);
    return lc_spawn_hinted(fn, data, size, deps, ndeps, -1, prio, NULL, body);
}

/* A team of one thread, or inside a final task: an included task, and its
 * dependences are met, as every earlier sibling has run (and every parked
 * detached one is fulfilled).  A function of its own, with a small frame:
 * included tasks nest on the thread's stack one frame set per level (a
 * recursive program run outside any parallel region, tens of thousands
 * deep, must fit in a stack where it fits under libgomp). */
static __attribute__((noinline)) void
task_included(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
              long arg_align, unsigned flags, void *detach, int has_worker)
{
    struct gomp_event ev_local, *ev = NULL;
    if (flags & TF_DETACH)
        ev = gomp_event_new(detach, data, 1, &ev_local);
    if (flags & TF_DEPEND)
        gomp_detach_wait_parked();
    run_included(fn, data, cpyfn, arg_size, arg_align, (flags & TF_FINAL) != 0);
    if (ev && !has_worker && ev->heap)
        gomp_event_park(ev);
    else if (ev)
        gomp_event_wait(ev);
}

static void task_deferred(struct lc_worker *w, void (*fn)(void *), void *data,
                          void (*cpyfn)(void *, void *), long arg_size, long arg_align,
                          bool if_clause, unsigned flags, void **depend, int prio, void *detach);

/* Every case but the common one (GOMP_task below); prio as task_priority's. */
static __attribute__((noinline)) void
task_general(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
             long arg_align, bool if_clause, unsigned flags, void **depend, int prio,
             void *detach)
{
    struct lc_worker *w = gomp_task_worker();
    if (!w || gomp_thr.in_final)
        task_included(fn, data, cpyfn, arg_size, arg_align, flags, detach, w != NULL);
    else
        task_deferred(w, fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, prio,
                      detach);
}

/* A task in a team, outside a final task: queued, or run here when its if
 * clause is false. */
static __attribute__((noinline)) void
task_deferred(struct lc_worker *w, void (*fn)(void *), void *data,
              void (*cpyfn)(void *, void *), long arg_size, long arg_align, bool if_clause,
              unsigned flags, void **depend, int prio, void *detach)
{
    int final = (flags & TF_FINAL) != 0;
    /* detach clause (detach.c): deferred tasks carry the handle into their
     * body; a task run here is waited for */
    struct gomp_event ev_local, *ev = NULL;
    if (flags & TF_DETACH)
        ev = gomp_event_new(detach, data, !if_clause, &ev_local);

    locus_dep_t stack_deps[STACK_DEPS], *deps = stack_deps;
    size_t ndeps = 0;
    if ((flags & TF_DEPEND) && depend) {
        ndeps = depend_count(depend);
        if (ndeps > STACK_DEPS && !(deps = malloc(ndeps * sizeof *deps))) {
            wait_all_children(w);   /* out of memory: run it in order, now */
            run_included(fn, data, cpyfn, arg_size, arg_align, final);
            return;
        }
        depend_convert(depend, deps);
    }

    if (!if_clause) {
        if (cpyfn) {
            char buf[arg_size + arg_align];
            void *p = (void *)(((uintptr_t)buf + (uintptr_t)arg_align - 1)
                               & ~((uintptr_t)arg_align - 1));
            cpyfn(p, data);
            run_undeferred_here(w, fn, p, final, deps, ndeps);
        } else {
            run_undeferred_here(w, fn, data, final, deps, ndeps);
        }
        if (ev)
            gomp_event_wait(ev);
    } else if (!ev && !cpyfn && !final && !gomp_denv_set(&lc_task_icvs)
               && (arg_align <= 16 || (arg_size <= LC_INLINE_ARG && arg_align <= 64))) {
        /* the common case: the runtime copies the block (inline up to
         * LC_INLINE_ARG bytes, 64-byte aligned; else 16-byte aligned).
         * A creator that set an ICV (omp_set_num_threads, _schedule,
         * _dynamic) boxes its tasks instead, which carry the ICVs */
        if (spawn_prio(fn, data, (size_t)arg_size, deps, ndeps, prio, fn) != 0) {
            wait_all_children(w);
            run_included(fn, data, NULL, arg_size, arg_align, 0);
        }
    } else {
        struct boxed b = { fn, NULL, NULL, final, lc_task_icvs, ev };
        if (!(b.data = box_data(cpyfn, data, arg_size, arg_align, &b.block))
            || spawn_prio(run_boxed, &b, sizeof b, deps, ndeps, prio, fn) != 0) {
            free(b.block);
            wait_all_children(w);
            if (ev)
                gomp_event_make_waited(ev);
            run_included(fn, data, cpyfn, arg_size, arg_align, final);
            if (ev)
                gomp_event_wait(ev);
        }
    }
    if (deps != stack_deps)
        free(deps);
}

/* The common case stays short: a deferred task in a team, its block
 * copied by value or by gcc's copy function (cpyfn: what gcc emits when a
 * firstprivate block holds more than plain copies) into the task's own
 * argument at an alignment the runtime gives, a few dependences, no
 * priority clause (a priority goes the general way, through
 * locus_spawn_attr). */
#define FAST_DEPS 8
GOMP_EXPORT void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                           long arg_size, long arg_align, bool if_clause, unsigned flags,
                           void **depend, int priority, void *detach)
{
    if (__builtin_expect(gomp_icv.cancellation, 0) && gomp_task_creation_cancelled())
        return;   /* in a cancelled region or taskgroup no task is created (cancel.c) */
    if (__builtin_expect(gomp_task_plain() && if_clause
                         && !(flags & (TF_FINAL | TF_DETACH | TF_PRIORITY))
                         && (arg_align <= 16 || (arg_size <= LC_INLINE_ARG && arg_align <= 64)), 1)) {
        size_t n = (flags & TF_DEPEND) && depend ? depend_count(depend) : 0;
        if (n <= FAST_DEPS) {
            locus_dep_t deps[FAST_DEPS];
            if (n)
                depend_convert(depend, deps);
            /* cpyfn NULL: copied by value */
            if (lc_spawn_copied(fn, data, (size_t)arg_size, cpyfn, deps, n) == 0)
                return;
            /* out of memory: nothing was created; the general path copes */
        }
    }
    task_general(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend,
                 task_priority(flags, priority), detach);
}

/* kmp/task.c: GOMP_task's common case for a task whose data its caller
 * keeps until the task has run (a kmp_task_t block): the task's argument
 * is data itself, not a copy.  A task without dependences or task group
 * is then queued light (runtime/policy.h: no descriptor until a worker
 * takes it), and the block's lines are the only ones its thief pulls.  0,
 * or -1 where the common case does not apply (the caller goes through
 * GOMP_task, copying the pointer). */
int gomp_task_uncopied(void (*fn)(void *), void *data, unsigned flags, void **depend)
{
    if (!gomp_task_plain() || (flags & (TF_FINAL | TF_DETACH | TF_PRIORITY)))
        return -1;
    size_t n = (flags & TF_DEPEND) && depend ? depend_count(depend) : 0;
    if (n > FAST_DEPS)
        return -1;
    locus_dep_t deps[FAST_DEPS];
    if (n)
        depend_convert(depend, deps);
    return lc_spawn_copied(fn, data, 0, NULL, deps, n) == 0 ? 0 : -1;
}

GOMP_EXPORT void GOMP_taskwait(void)
{
    if (gomp_task_worker())
        locus_taskwait();
    else
        gomp_detach_wait_parked();   /* tasks ran at once: their events remain */
}

/* taskwait depend(...): waits for the earlier siblings those dependences
 * name, which is what an empty undeferred task with them does. */
GOMP_EXPORT void GOMP_taskwait_depend(void **depend)
{
    struct lc_worker *w = gomp_task_worker();
    if (!w || gomp_thr.in_final)
        return;
    size_t n = depend_count(depend);
    locus_dep_t stack_deps[STACK_DEPS], *deps = stack_deps;
    if (n > STACK_DEPS && !(deps = malloc(n * sizeof *deps))) {
        wait_all_children(w);
        return;
    }
    depend_convert(depend, deps);
    spawn_undeferred(w, NULL, NULL, 0, deps, n);
    if (deps != stack_deps)
        free(deps);
}

GOMP_EXPORT void GOMP_taskyield(void)
{
    /* a scheduling point that may do nothing */
}

GOMP_EXPORT void GOMP_taskgroup_start(void)
{
    struct lc_worker *w = gomp_task_worker();
    if (!w) {
        /* tasks here run at once: nothing to wait for; the depth tells
         * the group's task reductions apart (reduction.c), and the group
         * is kept for cancel taskgroup (cancel.c) */
        gomp_serial_taskgroup(1);   /* serial_tg_depth++ */
        return;
    }
    /* without memory for a group, its end waits for every child; groups
     * nested in such a group do the same, which keeps begin/end paired */
    lc_task_groups_init(w->cur);
    struct gomp_taskgroup *g = w->cur->tg_nomem ? NULL : malloc(sizeof *g);
    if (!g) {
        w->cur->tg_nomem++;
        return;
    }
    g->reductions = gomp_reductions();   /* a group inherits the enclosing ones */
    g->workshare = 0;
    lc_taskgroup_begin(w, &g->g);
    g->g.discard = discard;
}

GOMP_EXPORT void GOMP_taskgroup_end(void)
{
    struct lc_worker *w = gomp_task_worker();
    if (!w) {
        gomp_detach_wait_parked();   /* tasks ran at once: their events remain */
        if (gomp_thr.serial_tg_depth)
            gomp_serial_reductions_pop(gomp_thr.serial_tg_depth);
        gomp_serial_taskgroup(0);   /* serial_tg_depth-- */
        return;
    }
    if (w->cur->tg_nomem) {
        w->cur->tg_nomem--;
        wait_all_children(w);
        return;
    }
    struct lc_taskgroup *g = w->cur->tg_open;
    lc_taskgroup_end(w, g);
    free((char *)g - offsetof(struct gomp_taskgroup, g));
}

/* A task of a cancelled taskgroup discarded before it began (cancel.c,
 * runtime/team.h): what its wrapper would have done besides the body. */
static void discard(locus_task_fn fn, void *arg)
{
    if (fn == run_boxed) {
        free(((struct boxed *)arg)->block);
    } else if (fn == run_undeferred) {
        ((struct undeferred *)arg)->fn = NULL;   /* its creator waits for it to be done */
        run_undeferred(arg);
    }
}


/* ---- taskloop: the iterations cut into tasks, each given its bounds in
 * the first two words of its copy of the data block (gcc's layout) ---- */

typedef unsigned long long ull;

static void set_bounds(void *block, int is_ull, ull lo, ull hi)
{
    if (is_ull) {
        ((ull *)block)[0] = lo;
        ((ull *)block)[1] = hi;
    } else {
        ((long *)block)[0] = (long)lo;
        ((long *)block)[1] = (long)hi;
    }
}

/* One task of the loop: iterations [lo, hi) in the user's values. */
static void loop_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                      long arg_size, long arg_align, unsigned flags, int priority,
                      int is_ull, ull lo, ull hi)
{
    int final = (flags & TF_FINAL) != 0;
    if (cpyfn) {
        struct boxed b = { fn, NULL, NULL, final, lc_task_icvs, NULL };
        if ((b.data = box_data(cpyfn, data, arg_size, arg_align, &b.block))) {
            set_bounds(b.data, is_ull, lo, hi);
            if (!(gomp_task_worker() && !gomp_thr.in_final && (flags & TF_IF))
                || spawn_prio(run_boxed, &b, sizeof b, NULL, 0,
                              task_priority(flags, priority), fn) != 0)
                run_boxed(&b);   /* included, undeferred, or out of memory: now */
            return;
        }
    }
    /* a block copied by value (and the rare out-of-memory fallback of a
     * copy constructor: then the task runs now, constructed here) */
    if (arg_align < 1)
        arg_align = 1;
    char buf[arg_size + arg_align];
    void *p = (void *)(((uintptr_t)buf + (uintptr_t)arg_align - 1) & ~((uintptr_t)arg_align - 1));
    if (cpyfn) {
        cpyfn(p, data);
        set_bounds(p, is_ull, lo, hi);
        run_included(fn, p, NULL, arg_size, arg_align, final);
        return;
    }
    memcpy(p, data, (size_t)arg_size);
    set_bounds(p, is_ull, lo, hi);
    GOMP_task(fn, p, NULL, arg_size, arg_align, (flags & TF_IF) != 0,
              flags & (TF_FINAL | TF_PRIORITY), NULL, priority, NULL);
}

/* n iterations from start by step (two's complement for the signed loop). */
static void taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                     long arg_size, long arg_align, unsigned flags, unsigned long num_tasks,
                     int priority, int is_ull, ull n, ull start, ull step)
{
    /* reduction(...) (without nogroup): the loop's taskgroup registers
     * gcc's arrays (reduction.c); an empty loop registers none, and says
     * so to gcc's code by a zero in the array's third word */
    int red = (flags & (TF_REDUCTION | TF_NOGROUP)) == TF_REDUCTION;
    if (n == 0) {
        if (red)
            ((uintptr_t **)data)[2][2] = 0;
        return;
    }
    ull ntasks, grain = 0;
    /* TF_STRICT goes with num_tasks(strict:) too, where it changes nothing
     * here: only a strict grainsize fixes each task's size */
    int strict_grain = (flags & TF_GRAINSIZE) && (flags & TF_STRICT);
    if (flags & TF_GRAINSIZE) {
        grain = num_tasks ? num_tasks : 1;
        ntasks = strict_grain ? (n + grain - 1) / grain : n / grain;
        if (ntasks == 0)
            ntasks = 1;
    } else {
        ntasks = num_tasks ? num_tasks
                 : gomp_thr.team ? (ull)gomp_thr.team->nthreads : 1;
        if (ntasks > n)
            ntasks = n;
    }
    if (!(flags & TF_NOGROUP))
        GOMP_taskgroup_start();
    if (red)
        gomp_taskloop_reductions(data);
    ull per = n / ntasks, extra = n % ntasks, first = 0;
    for (ull k = 0; k < ntasks; k++) {
        /* strict grainsize: exactly grain per task, the last takes the rest;
         * otherwise sizes differ by at most one */
        ull len = strict_grain ? (n - first < grain ? n - first : grain)
                                      : per + (k < extra);
        loop_task(fn, data, cpyfn, arg_size, arg_align, flags, priority, is_ull,
                  start + first * step, start + (first + len) * step);
        first += len;
    }
    if (!(flags & TF_NOGROUP))
        GOMP_taskgroup_end();
}

GOMP_EXPORT void GOMP_taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                               long arg_size, long arg_align, unsigned flags,
                               unsigned long num_tasks, int priority, long start, long end,
                               long step)
{
    /* the direction is step's sign, which TF_UP repeats */
    taskloop(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority, 0,
             gomp_count_long(start, end, step), (ull)start, (ull)step);
}

GOMP_EXPORT void GOMP_taskloop_ull(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                                   long arg_size, long arg_align, unsigned flags,
                                   unsigned long num_tasks, int priority, ull start, ull end,
                                   ull step)
{
    taskloop(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority, 1,
             gomp_count_ull((flags & TF_UP) != 0, start, end, step), start, step);
}
