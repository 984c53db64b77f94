/*
 * reduction.c - task reductions of the libgomp ABI: taskgroup
 * task_reduction (GOMP_taskgroup_reduction_register/unregister), tasks and
 * taskloops with in_reduction (GOMP_task_reduction_remap), parallel
 * regions with reduction(task, ...) (GOMP_parallel_reductions, through
 * parallel.c), taskloop reduction (task.c calls gomp_taskloop_reductions),
 * and the worksharing form (reduction(task, ...) on a loop or sections:
 * the helpers gomp_ws_reductions_* and GOMP_workshare_task_reduction_unregister).
 *
 * gcc emits the layout and most of the work (libgomp's task.c describes
 * it): an array per construct,
 *   d[0] cnt, d[1] bytes of one thread's chunk, d[2] alignment (in) then
 *   the base of the chunks (out), d[3] allocator, d[4] next array (in) then
 *   the enclosing construct's arrays (out), d[5], d[6] ours (d[6]: end of
 *   the chunks), then cnt entries { original address, offset in a chunk,
 *   ours }, sorted by offset.
 * The runtime allocates nthreads chunks back to back (gcc's code walks them
 * from d[2] to d[6] to combine them, so they are one block: with the team
 * being the Locus worker pool, chunk i is worker i's, and a worker touches
 * only its own chunk) zeroed, as gcc's code initializes a chunk on its
 * first use by the flag it keeps in the chunk.  A task remaps an original
 * address (or an address already remapped) to the same item in the chunk
 * of the thread running it.
 *
 * Which arrays a task sees: those of its innermost taskgroup, which
 * inherits the enclosing ones (d[4] chains them).  In a team the group is
 * the open group of the running Locus task, else the group the task (or,
 * going up, its nearest ancestor in a group) was spawned in, else the
 * parallel region's (GOMP_parallel_reductions).  Elsewhere (a region of one
 * thread, or a nested team: tasks run at once on their encountering
 * thread) the thread keeps the arrays itself, each tagged in d[5] with the
 * depth of the serial taskgroup that registered it, dropped at that
 * group's end; a task uses the chunk of its member number.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gomp.h"
#include "locus.h"
#include "runtime.h"
#include "task.h"

/* d[5]: 0 inside a chain, else the head of one registration: TAG_TEAM for
 * one kept by a group or a region, TAG_SERIAL + depth for the serial ones */
#define TAG_TEAM 1u
#define TAG_SERIAL 2u

static struct gomp_taskgroup *group_of(struct lc_taskgroup *g)
{
    return (struct gomp_taskgroup *)((char *)g - offsetof(struct gomp_taskgroup, g));
}

/* Set by the program's first registration: until then every taskgroup's
 * start (which asks gomp_reductions) skips the walk.  A task that could
 * see a registration was created after it, which orders the flag. */
static _Atomic int registered_any;

uintptr_t *gomp_reductions(void)
{
    if (!atomic_load_explicit(&registered_any, memory_order_relaxed))
        return NULL;
    struct gomp_thread *thr = &gomp_thr;
    struct lc_worker *w = gomp_task_worker();
    if (!w)
        return thr->serial_red ? thr->serial_red : thr->par_red;
    struct lc_task *t = w->cur;
    struct lc_taskgroup *g = lc_task_open_group(t);
    if (g)
        return group_of(g)->reductions;
    /* the group t was spawned in, or its parent's, up to the implicit task */
    for (; t && !(t->flags & LC_TF_ROOT); t = t->parent)
        if (t->tg)
            return group_of(t->tg)->reductions;
    return thr->par_red;
}

/* The chunks of the arrays chained from data (up to old, exclusive), for
 * nthreads threads, or (orig) those of the first thread of a worksharing
 * construct; data's last array then links to old.  tag marks data. */
static void reg(uintptr_t *data, uintptr_t *old, const uintptr_t *orig, unsigned nthreads,
                uintptr_t tag, const char *who)
{
    atomic_store_explicit(&registered_any, 1, memory_order_relaxed);
    for (uintptr_t *d = data;; d = (uintptr_t *)d[4]) {
        if (orig) {
            d[2] = orig[2];
            d[6] = orig[6];
            orig = (const uintptr_t *)orig[4];
        } else {
            size_t align = d[2] < sizeof(void *) ? sizeof(void *) : d[2];
            size_t sz = d[1] * nthreads;
            size_t bytes = (sz ? sz : 1) + align - 1;
            void *p = aligned_alloc(align, bytes - bytes % align);
            if (!p)
                gomp_unsupported(who, "out of memory for the private copies of a reduction");
            memset(p, 0, sz);
            d[2] = (uintptr_t)p;
            d[6] = d[2] + sz;
        }
        d[5] = 0;
        if (!d[4]) {
            d[4] = (uintptr_t)old;
            break;
        }
    }
    data[5] = tag;
}

GOMP_EXPORT void GOMP_taskgroup_reduction_register(uintptr_t *data)
{
    struct gomp_thread *thr = &gomp_thr;
    struct lc_worker *w = gomp_task_worker();
    uintptr_t *old = gomp_reductions();
    if (w) {
        struct lc_taskgroup *g = lc_task_open_group(w->cur);
        if (!g || w->cur->tg_nomem)
            gomp_unsupported("GOMP_taskgroup_reduction_register",
                             "a task reduction outside a taskgroup, or out of memory for the group");
        reg(data, old, NULL, (unsigned)thr->team->nthreads, TAG_TEAM,
            "GOMP_taskgroup_reduction_register");
        group_of(g)->reductions = data;
    } else {
        /* gcc starts a taskgroup first; an orphaned one counts as depth 1.
         * In a nested team a chunk per member, as remap indexes by member */
        reg(data, old, NULL, thr->team ? (unsigned)thr->team->nthreads : 1,
            TAG_SERIAL + (thr->serial_tg_depth ? thr->serial_tg_depth : 1),
            "GOMP_taskgroup_reduction_register");
        thr->serial_red = data;
    }
}

/* The serial taskgroup of this depth ends: its registrations go. */
void gomp_serial_reductions_pop(unsigned depth)
{
    struct gomp_thread *thr = &gomp_thr;
    while (thr->serial_red && thr->serial_red[5] == TAG_SERIAL + depth) {
        uintptr_t *d = thr->serial_red;
        do
            d = (uintptr_t *)d[4];
        while (d && !d[5]);
        thr->serial_red = d;
    }
}

GOMP_EXPORT void GOMP_taskgroup_reduction_unregister(uintptr_t *data)
{
    /* the chunks of this registration: up to the next head */
    uintptr_t *d = data;
    do {
        free((void *)d[2]);
        d = (uintptr_t *)d[4];
    } while (d && !d[5]);
}

/* The entry of data's chain whose original address is addr (its array in
 * *arr), or NULL.  Only read: members remap at once. */
static const uintptr_t *find_orig(const uintptr_t *data, const void *addr,
                                  const uintptr_t **arr)
{
    for (const uintptr_t *d = data; d; d = (const uintptr_t *)d[4])
        for (size_t j = 0; j < d[0]; j++)
            if (d[7 + 3 * j] == (uintptr_t)addr) {
                *arr = d;
                return d + 7 + 3 * j;
            }
    return NULL;
}

_Noreturn static void no_match(const void *p)
{
    char why[128];
    snprintf(why, sizeof why, "no task_reduction or reduction with task modifier matches %p",
             p);
    gomp_unsupported("GOMP_task_reduction_remap", why);
}

/* ptrs[i] for i < cnt: an original item's address, or one already
 * remapped; it becomes the item in the running thread's chunk.  For
 * i < cntorig, ptrs[cnt + i] becomes the original's address. */
GOMP_EXPORT void GOMP_task_reduction_remap(size_t cnt, size_t cntorig, void **ptrs)
{
    uintptr_t *data = gomp_reductions();
    /* the running thread's chunk: in the outermost team a task may run on
     * any worker; elsewhere tasks run on their creating member */
    struct lc_worker *w = gomp_task_worker();
    uintptr_t id = w ? (uintptr_t)w->id : gomp_thr.team ? (uintptr_t)gomp_thr.id : 0;
    if (!data && cnt)
        no_match(ptrs[0]);
    for (size_t i = 0; i < cnt; i++) {
        const uintptr_t *d;
        const uintptr_t *e = find_orig(data, ptrs[i], &d);
        if (e) {
            ptrs[i] = (void *)(d[2] + id * d[1] + e[1]);
            if (i < cntorig)
                ptrs[cnt + i] = (void *)e[0];
            continue;
        }
        /* an address inside some thread's chunk */
        d = data;
        while (d && !((uintptr_t)ptrs[i] >= d[2] && (uintptr_t)ptrs[i] < d[6]))
            d = (const uintptr_t *)d[4];
        if (!d)
            no_match(ptrs[i]);
        uintptr_t off = ((uintptr_t)ptrs[i] - d[2]) % d[1];
        void *orig_item = ptrs[i];
        ptrs[i] = (void *)(d[2] + id * d[1] + off);
        if (i < cntorig) {
            size_t j = 0;
            while (j < d[0] && d[7 + 3 * j + 1] != off)
                j++;
            if (j == d[0])
                no_match(orig_item);
            ptrs[cnt + i] = (void *)d[7 + 3 * j];
        }
    }
}

/* GOMP_parallel_reductions: the region's arrays, before its members start. */
void gomp_parallel_reductions_register(uintptr_t *data, unsigned nthreads)
{
    reg(data, NULL, NULL, nthreads, TAG_TEAM, "GOMP_parallel_reductions");
}

/* taskloop reduction(...): the loop's taskgroup is open; gcc put the
 * array's address in the third word of the data block. */
void gomp_taskloop_reductions(void *data)
{
    GOMP_taskgroup_reduction_register(((uintptr_t **)data)[2]);
}

/* ---- worksharing constructs with reduction(task, ...): each member opens
 * a taskgroup; the first to reach the construct registers its arrays with
 * new chunks, the others theirs on the first's chunks (orig) ---- */

void gomp_ws_reductions_begin(uintptr_t *data, const uintptr_t *orig)
{
    struct gomp_thread *thr = &gomp_thr;
    GOMP_taskgroup_start();
    gomp_taskgroup_workshare();
    if (!orig || !thr->team) {
        GOMP_taskgroup_reduction_register(data);
        return;
    }
    struct lc_worker *w = gomp_task_worker();
    if (!w) {   /* a nested team: the member's serial group */
        reg(data, gomp_reductions(), orig, (unsigned)thr->team->nthreads,
            TAG_SERIAL + thr->serial_tg_depth, "GOMP_loop_start");
        thr->serial_red = data;
        return;
    }
    struct lc_taskgroup *g = lc_task_open_group(w->cur);
    if (!g || w->cur->tg_nomem)
        gomp_unsupported("GOMP_loop_start", "out of memory for a taskgroup");
    reg(data, gomp_reductions(), orig, (unsigned)thr->team->nthreads, TAG_TEAM,
        "GOMP_loop_start");
    group_of(g)->reductions = data;
}

GOMP_EXPORT void GOMP_workshare_task_reduction_unregister(bool cancelled)
{
    struct gomp_thread *thr = &gomp_thr;
    uintptr_t *data = gomp_reductions();
    GOMP_taskgroup_end();
    /* the chunks are shared: member 0 frees them once every member's group
     * has ended (libgomp frees before its barrier; after is safer) */
    if (!cancelled)
        GOMP_barrier();
    if (!thr->team || thr->id == 0)
        GOMP_taskgroup_reduction_unregister(data);
}
