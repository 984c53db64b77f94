/*
 * task.c - explicit tasks of the LLVM OpenMP ABI: the kmp_task_t blocks
 * clang fills (__kmpc_omp_task_alloc), queued with or without depend
 * clauses, undeferred ones the compiler runs itself between
 * __kmpc_omp_task_begin_if0 and __kmpc_omp_task_complete_if0, taskwait
 * (plain and with depend), taskyield, detach (the event handle of
 * __kmpc_task_allow_completion_event) and the task ids.  A proxy task has
 * an event too, from its allocation (proxy.c).
 *
 * A queued task is gomp's (gomp/task.c), so it has the same dependences
 * (Locus dependences: every regime and LOCUS_REPORT see them),
 * priorities, final and cancellation rules as a gcc program's task: a
 * trampoline whose argument is the kmp_task_t block itself
 * (gomp_task_uncopied: the common case; a task without dependences or
 * group then goes queued light), or GOMP_task of a trampoline given a copy
 * of the block's address (final, priority, nested teams).  The trampoline
 * calls the compiler's routine, then the destructors thunk, and frees the
 * block.
 * Taskgroups and task reductions: taskred.c; taskloop: taskloop.c.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "detach.h"
#include "kmp.h"
#include "taskmem.h"
#include "runtime.h"

/* gcc's GOMP_TASK_FLAG_* that GOMP_task takes (gomp-constants.h) */
#define TF_FINAL    (1u << 1)
#define TF_DEPEND   (1u << 3)
#define TF_PRIORITY (1u << 4)

/* The kmp task this thread runs (NULL: an implicit task).  Saved and
 * restored around each task run here, which nest on the thread's stack. */
static __thread struct lc_kmp_task *running __attribute__((tls_model("initial-exec")));

/* Task ids: each thread takes a range of ID_RANGE at a time, so that a
 * spawn writes no process-wide counter. */
#define ID_RANGE 65536
static _Atomic uint64_t next_range = 1;
static __thread uint64_t id_next __attribute__((tls_model("initial-exec")));
static __thread uint64_t id_end __attribute__((tls_model("initial-exec")));

uint64_t lc_kmp_task_new_id(void)
{
    if (__builtin_expect(id_next == id_end, 0)) {
        id_next = atomic_fetch_add_explicit(&next_range, ID_RANGE, memory_order_relaxed);
        id_end = id_next + ID_RANGE;
    }
    return id_next++;
}

KMP_EXPORT kmp_task_t *__kmpc_omp_task_alloc(ident_t *loc, kmp_int32 gtid, kmp_int32 flags,
                                             size_t sizeof_kmp_task_t, size_t sizeof_shareds,
                                             kmp_routine_entry_t task_entry)
{
    (void)loc;
    (void)gtid;
    /* the shareds after the task and its privates, pointer-aligned (the
     * compiler's shareds record needs no more, as in libomp) */
    size_t off = sizeof(struct lc_kmp_task) + sizeof_kmp_task_t;
    off = (off + sizeof(void *) - 1) & ~(sizeof(void *) - 1);
    if (sizeof_kmp_task_t > UINT32_MAX / 2 || sizeof_shareds > UINT32_MAX / 2)
        gomp_unsupported("__kmpc_omp_task_alloc", "a task's data of 2 GiB or more");
    size_t size = (off + sizeof_shareds + sizeof(struct lc_kmp_if0) + 63) & ~(size_t)63;
    struct lc_kmp_cache *home;
    struct lc_kmp_task *h = lc_kmp_block_get(size, &home);
    if (!h)
        gomp_unsupported("__kmpc_omp_task_alloc", "out of memory for a task");
    h->home = home;
    h->ev = NULL;
    h->tg = lc_kmp_cur_tg;
    h->creator = NULL;
    h->id = lc_kmp_task_new_id();
    h->parent_id = running ? running->id : 0;
    h->size = (uint32_t)size;
    h->flags = flags;
    h->resume = 0;
    kmp_task_t *t = lc_kmp_task_body(h);
    t->shareds = sizeof_shareds ? (char *)h + off : NULL;
    t->routine = task_entry;
    t->part_id = 0;
    if (__builtin_expect(flags & KMP_TASK_PROXY, 0))
        lc_kmp_proxy_init(h);
    return t;
}

/* target tasks on the host are plain tasks */
KMP_EXPORT kmp_task_t *__kmpc_omp_target_task_alloc(ident_t *loc, kmp_int32 gtid,
                                                    kmp_int32 flags, size_t sizeof_kmp_task_t,
                                                    size_t sizeof_shareds,
                                                    kmp_routine_entry_t task_entry,
                                                    kmp_int64 device_id)
{
    (void)device_id;
    return __kmpc_omp_task_alloc(loc, gtid, flags, sizeof_kmp_task_t, sizeof_shareds,
                                 task_entry);
}

void lc_kmp_task_free(kmp_int32 gtid, kmp_task_t *t)
{
    struct lc_kmp_task *h = lc_kmp_task_of(t);
    if (__builtin_expect(h->flags & KMP_TASK_PROXY, 0) && !lc_kmp_proxy_last(h))
        return;   /* its completion (proxy.c) still needs the block */
    if (h->flags & KMP_TASK_DESTRUCTORS)
        t->data1.destructors(gtid, t);
    lc_kmp_block_put(h, h->size, h->home);
}

/* The body: an untied task's routine returns early where it queued itself
 * again (clang's untied parts, __kmpc_omp_task of itself below), and goes
 * on from its part_id when called again, which is done here at once: an
 * untied task may run as a tied one. */
static void run_body(struct lc_kmp_task *h, kmp_int32 gtid)
{
    kmp_task_t *t = lc_kmp_task_body(h);
    if (!t->routine)
        return;   /* taskwait depend(...) nowait: a task without a body */
    do {
        h->resume = 0;
        t->routine(gtid, t);
    } while (h->resume);
}

/* The queued task's function: arg is the kmp_task_t (run_task_direct,
 * given by gomp_task_uncopied) or a copy of its pointer (run_task, given
 * by GOMP_task). */
static void run_kmp_task(kmp_task_t *t)
{
    struct lc_kmp_task *h = lc_kmp_task_of(t);
    kmp_int32 gtid = lc_kmp_gtid();
    /* spawned (a Locus task of its own), or run at once by GOMP_task on
     * the queueing thread (a team of one, a final task): then the running
     * Locus task is still the one that queued it */
    struct lc_worker *w = lc_self;
    int deferred = w && (const void *)w->cur != h->creator;
    struct gomp_event *ev = h->ev;
    if (ev) {
        if (deferred)
            gomp_event_attach(ev);   /* the Locus task completes once fulfilled */
        else
            gomp_event_make_waited(ev);
    }
    struct lc_kmp_task *saved = running;
    struct lc_kmp_tg *saved_tg = lc_kmp_cur_tg;
    running = h;
    lc_kmp_cur_tg = h->tg;
    run_body(h, gtid);
    running = saved;
    lc_kmp_cur_tg = saved_tg;
    lc_kmp_task_free(gtid, t);
    if (ev && !deferred) {
        /* as gomp/task.c does for a task run at once: in a region of one
         * thread a later task may be the one that fulfils it */
        if (!gomp_task_worker() && ev->heap)
            gomp_event_park(ev);
        else
            gomp_event_wait(ev);
    }
}

static void run_task(void *arg)
{
    run_kmp_task(*(kmp_task_t **)arg);
}

static void run_task_direct(void *arg)
{
    run_kmp_task(arg);
}

void lc_kmp_task_queue(kmp_task_t *t, void **depend, bool if_clause)
{
    struct lc_kmp_task *h = lc_kmp_task_of(t);
    if (h == running) {
        h->resume = 1;   /* an untied task's next part: run_body goes on */
        return;
    }
    if (gomp_icv.cancellation && gomp_task_creation_cancelled()) {
        lc_kmp_task_free(lc_kmp_gtid(), t);   /* no task is created (cancel.c) */
        return;
    }
    unsigned f = depend ? TF_DEPEND : 0;
    int prio = 0;
    if (h->flags & KMP_TASK_FINAL)
        f |= TF_FINAL;
    if (h->flags & KMP_TASK_PRIORITY) {
        f |= TF_PRIORITY;
        prio = t->data2.priority;
    }
    h->creator = lc_self ? (const void *)lc_self->cur : NULL;
    /* the block lives until the task has run: its pointer is the task's
     * argument where the common case allows, a copy of it otherwise */
    if (!if_clause || gomp_task_uncopied(run_task_direct, t, f, depend) != 0)
        GOMP_task(run_task, &t, NULL, sizeof t, sizeof t, if_clause, f, depend, prio, NULL);
}

KMP_EXPORT kmp_int32 __kmpc_omp_task(ident_t *loc, kmp_int32 gtid, kmp_task_t *t)
{
    (void)loc;
    (void)gtid;
    struct lc_kmp_task *h = lc_kmp_task_of(t);
    /* lc_kmp_task_queue's common case, without its layers: a plain task
     * in a team (the granularity of the finest tasks is this path's) */
    struct lc_worker *w = lc_self;
    if (__builtin_expect(w && h != running && !gomp_icv.cancellation
                         && !(h->flags & (KMP_TASK_FINAL | KMP_TASK_PRIORITY))
                         && gomp_task_plain(), 1)) {
        h->creator = w->cur;
        if (lc_spawn_ref(run_task_direct, t) == 0)
            return 0;
    }
    lc_kmp_task_queue(t, NULL, true);
    return 0;   /* TASK_CURRENT_NOT_QUEUED: the compiler ignores it */
}

KMP_EXPORT kmp_int32 __kmpc_omp_task_parts(ident_t *loc, kmp_int32 gtid, kmp_task_t *t)
{
    return __kmpc_omp_task(loc, gtid, t);
}

/* --- dependences: kmp_depend_info arrays as gomp's depend array (gcc 9's
 * form: [0, n, out/inout count, mutexinoutset count, in count, addresses
 * in that order, then depend objects { address, kind } for inoutset]) --- */

#define STACK_DEPS 16
enum { DEPOBJ_INOUTSET = 5 };   /* gomp/task.c's DEP_INOUTSET */

struct depend_buf {
    void **a;
    void *stack[5 + STACK_DEPS];
    struct { void *addr; uintptr_t kind; } obj_stack[STACK_DEPS], *obj;
};

/* omp_all_memory: libomp's flag, or the address -1 with out or inout */
static int dep_all(const kmp_depend_info_t *e)
{
    return (e->flags & KMP_DEP_ALL) || (e->base_addr == -1 && (e->flags & KMP_DEP_OUT));
}

/* the gomp array's class: 0 out/inout, 1 mutexinoutset, 2 in, 3 a depend
 * object (inoutset, omp_all_memory) */
static int dep_class(const kmp_depend_info_t *e)
{
    uint8_t f = e->flags;
    if (dep_all(e))
        return 3;
    if (f & KMP_DEP_MTX)
        return 1;
    if (f & KMP_DEP_SET)
        return 3;
    if (f & KMP_DEP_OUT)
        return 0;
    if (f & KMP_DEP_IN)
        return 2;
    return 0;   /* unknown: ordered like inout, which is always safe */
}

static void **depend_build(struct depend_buf *b, kmp_int32 nd, const kmp_depend_info_t *d,
                           kmp_int32 nna, const kmp_depend_info_t *na)
{
    size_t n = (size_t)(nd > 0 ? nd : 0) + (size_t)(nna > 0 ? nna : 0);
    b->a = b->stack;
    b->obj = b->obj_stack;
    if (n > STACK_DEPS) {
        b->a = malloc((5 + n) * sizeof(void *) + n * sizeof *b->obj);
        if (!b->a)
            gomp_unsupported("__kmpc_omp_task_with_deps", "out of memory for dependences");
        b->obj = (void *)(b->a + 5 + n);
    }
    size_t cnt[4] = { 0 }, pos[4];
    for (kmp_int32 i = 0; i < nd; i++)
        cnt[dep_class(&d[i])]++;
    for (kmp_int32 i = 0; i < nna; i++)
        cnt[dep_class(&na[i])]++;
    pos[0] = 5;
    for (int k = 1; k < 4; k++)
        pos[k] = pos[k - 1] + cnt[k - 1];
    b->a[0] = NULL;
    b->a[1] = (void *)(uintptr_t)n;
    b->a[2] = (void *)(uintptr_t)cnt[0];
    b->a[3] = (void *)(uintptr_t)cnt[1];
    b->a[4] = (void *)(uintptr_t)cnt[2];
    size_t nobj = 0;
    for (kmp_int32 i = 0; i < nd + nna; i++) {
        const kmp_depend_info_t *e = i < nd ? &d[i] : &na[i - nd];
        int k = dep_class(e);
        void *addr = (void *)e->base_addr;
        if (k == 3) {
            b->obj[nobj].addr = addr;
            b->obj[nobj].kind = dep_all(e) ? GOMP_DEP_ALL_MEMORY : DEPOBJ_INOUTSET;
            addr = &b->obj[nobj++];
        }
        b->a[pos[k]++] = addr;
    }
    return b->a;
}

static void depend_done(struct depend_buf *b)
{
    if (b->a != b->stack)
        free(b->a);
}

KMP_EXPORT kmp_int32 __kmpc_omp_task_with_deps(ident_t *loc, kmp_int32 gtid, kmp_task_t *t,
                                               kmp_int32 ndeps, kmp_depend_info_t *dep_list,
                                               kmp_int32 ndeps_noalias,
                                               kmp_depend_info_t *noalias_dep_list)
{
    (void)loc;
    (void)gtid;
    if (ndeps + ndeps_noalias <= 0) {
        lc_kmp_task_queue(t, NULL, true);
        return 0;
    }
    struct depend_buf b;
    lc_kmp_task_queue(t, depend_build(&b, ndeps, dep_list, ndeps_noalias, noalias_dep_list),
                      true);
    depend_done(&b);
    return 0;
}

/* An undeferred task with depend clauses: clang waits for them here, then
 * runs the task between begin_if0 and complete_if0.  And taskwait
 * depend(...), which is the same wait. */
KMP_EXPORT void __kmpc_omp_wait_deps(ident_t *loc, kmp_int32 gtid, kmp_int32 ndeps,
                                     kmp_depend_info_t *dep_list, kmp_int32 ndeps_noalias,
                                     kmp_depend_info_t *noalias_dep_list)
{
    (void)loc;
    (void)gtid;
    if (ndeps + ndeps_noalias <= 0)
        return;
    struct depend_buf b;
    GOMP_taskwait_depend(depend_build(&b, ndeps, dep_list, ndeps_noalias, noalias_dep_list));
    depend_done(&b);
}

/* --- undeferred tasks: an included task of the encountering thread, with
 * its own identity (nestable locks), ICVs and final state --- */

KMP_EXPORT void __kmpc_omp_task_begin_if0(ident_t *loc, kmp_int32 gtid, kmp_task_t *t)
{
    (void)loc;
    (void)gtid;
    struct lc_kmp_task *h = lc_kmp_task_of(t);
    struct gomp_thread *thr = &gomp_thr;
    struct lc_kmp_if0 *s = lc_kmp_task_if0(h);
    s->saved_final = thr->in_final;
    s->saved_env = lc_task_icvs;
    s->saved_id = thr->task_id;
    s->saved_cur = thr->task_cur;
    s->saved_running = running;
    s->saved_tg = lc_kmp_cur_tg;
    gomp_task_id_set(h);   /* an address unique while it runs */
    if (h->flags & KMP_TASK_FINAL)
        thr->in_final = 1;
    running = h;
    lc_kmp_cur_tg = h->tg;
    if (h->ev)
        gomp_event_make_waited(h->ev);
}

KMP_EXPORT void __kmpc_omp_task_complete_if0(ident_t *loc, kmp_int32 gtid, kmp_task_t *t)
{
    (void)loc;
    struct lc_kmp_task *h = lc_kmp_task_of(t);
    struct gomp_thread *thr = &gomp_thr;
    if (h->resume)
        run_body(h, gtid);   /* an untied task's remaining parts */
    const struct lc_kmp_if0 *s = lc_kmp_task_if0(h);
    thr->in_final = s->saved_final;
    lc_task_icvs = s->saved_env;
    thr->task_id = s->saved_id;
    thr->task_cur = s->saved_cur;
    running = s->saved_running;
    lc_kmp_cur_tg = s->saved_tg;
    struct gomp_event *ev = h->ev;
    lc_kmp_task_free(gtid, t);
    if (ev)
        gomp_event_wait(ev);   /* it completes when fulfilled; the encountering task waits */
}

/* The same, for the taskloop's tasks when its if clause is false. */
void lc_kmp_task_run_now(kmp_task_t *t)
{
    kmp_int32 gtid = lc_kmp_gtid();
    struct lc_kmp_task *h = lc_kmp_task_of(t);
    __kmpc_omp_task_begin_if0(NULL, gtid, t);
    run_body(h, gtid);
    __kmpc_omp_task_complete_if0(NULL, gtid, t);
}

void GOMP_taskwait(void);

KMP_EXPORT kmp_int32 __kmpc_omp_taskwait(ident_t *loc, kmp_int32 gtid)
{
    (void)loc;
    (void)gtid;
    GOMP_taskwait();
    return 0;
}

void GOMP_taskyield(void);

KMP_EXPORT kmp_int32 __kmpc_omp_taskyield(ident_t *loc, kmp_int32 gtid, int end_part)
{
    (void)loc;
    (void)gtid;
    (void)end_part;
    GOMP_taskyield();
    return 0;
}

/* --- detach --- */

/* The handle exists from here on (clang stores it in the event variable,
 * then copies it into the task's firstprivate one); whether the task will
 * be waited for on this thread is known when it runs (run_task,
 * __kmpc_omp_task_begin_if0), before its body could fulfil it. */
KMP_EXPORT void *__kmpc_task_allow_completion_event(ident_t *loc, int gtid, kmp_task_t *t)
{
    (void)loc;
    (void)gtid;
    struct lc_kmp_task *h = lc_kmp_task_of(t);
    if (!(h->flags & KMP_TASK_DETACHABLE))
        gomp_unsupported("__kmpc_task_allow_completion_event", "the task is not detachable");
    if (!h->ev) {
        static __thread struct gomp_event no_mem;
        void *handle;
        h->ev = gomp_event_new(&handle, NULL, 0, &no_mem);
        if (h->ev == &no_mem)
            gomp_unsupported("__kmpc_task_allow_completion_event",
                             "out of memory for an event");
    }
    return h->ev;
}

/* --- ids: the running task's, 0 for an implicit task --- */

KMP_EXPORT kmp_uint64 __kmpc_get_taskid(void)
{
    return running ? running->id : 0;
}

KMP_EXPORT kmp_uint64 __kmpc_get_parent_taskid(void)
{
    return running ? running->parent_id : 0;
}

/* affinity(...) clause: a hint that may be ignored (NAFT places tasks by
 * their dependences' data) */
KMP_EXPORT kmp_int32 __kmpc_omp_reg_task_with_affinity(ident_t *loc, kmp_int32 gtid,
                                                       kmp_task_t *t, kmp_int32 naffins,
                                                       void *affin_list)
{
    (void)loc;
    (void)gtid;
    (void)t;
    (void)naffins;
    (void)affin_list;
    return 0;
}
