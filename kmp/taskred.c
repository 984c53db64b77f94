/*
 * taskred.c - taskgroups and task reductions of the LLVM OpenMP ABI:
 * __kmpc_taskgroup / __kmpc_end_taskgroup, taskgroup task_reduction and
 * taskloop reduction (__kmpc_taskred_init, the older
 * __kmpc_task_reduction_init), in_reduction (__kmpc_task_reduction_get_th_data)
 * and reduction(task, ...) on parallel and worksharing constructs
 * (__kmpc_taskred_modifier_init, __kmpc_task_reduction_modifier_init/fini).
 *
 * The group itself is gomp's (GOMP_taskgroup_start/end: Locus groups,
 * cancellation); beside it each thread keeps the chain of its running
 * task's groups (lc_kmp_cur_tg), as libomp's td_taskgroup, because clang's
 * reductions are the runtime's work, not the compiler's as in gcc's
 * layout (gomp/reduction.c): libomp's semantics, self-contained here.
 * A registration makes one private copy of each item per thread of the
 * team, initialized with the compiler's init routine; a task asks for the
 * copy of the thread running it; the group's end combines every copy into
 * the item with the comb routine (then the fini routine).  In a team of
 * one thread the items themselves are used.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "kmp.h"
#include "runtime.h"

__thread struct lc_kmp_tg *lc_kmp_cur_tg __attribute__((tls_model("initial-exec")));

/* The compiler's item descriptions: __kmpc_taskred_init's (with omp_orig)
 * and __kmpc_task_reduction_init's.  flags bit 0: lazy private copies. */
struct taskred_input {
    void *shar, *orig;
    size_t size;
    void *init, *fini, *comb;
    uint32_t flags;
};
struct task_red_input {
    void *shar;
    size_t size;
    void *init, *fini, *comb;
    uint32_t flags;
};

struct red_item {
    void *shar, *orig;
    size_t size;                  /* of one copy, rounded to a cache line */
    void *init;
    int init_orig;                /* init(copy, orig), else init(copy) */
    void (*fini)(void *);
    void (*comb)(void *, void *);
    int lazy;
    char *priv, *pend;            /* nth copies; lazy: nth pointers to copies */
};

struct modred;

struct lc_kmp_tg {
    struct lc_kmp_tg *parent;
    int num, nth;
    struct red_item *items;       /* NULL: no reduction */
    struct modred *shared;        /* reduction(task, ...): the team's copies */
};

static int team_nth(void)
{
    return gomp_thr.team ? gomp_thr.team->nthreads : 1;
}

/* The copy of the running thread: in the outermost team a task may run on
 * any worker; elsewhere tasks run on their creating member. */
static int my_tid(void)
{
    struct lc_worker *w = gomp_task_worker();
    return w ? w->id : gomp_thr.team ? gomp_thr.id : 0;
}

_Noreturn static void no_memory(const char *who)
{
    gomp_unsupported(who, "out of memory for a task reduction");
}

static struct red_item *items_new(int num, const void *data, int newer, const char *who)
{
    struct red_item *it = calloc((size_t)num, sizeof *it);
    if (!it)
        no_memory(who);
    for (int i = 0; i < num; i++) {
        size_t size;
        if (newer) {
            const struct taskred_input *d = (const struct taskred_input *)data + i;
            it[i] = (struct red_item){ d->shar, d->orig ? d->orig : d->shar, d->size, d->init,
                                       1, d->fini, d->comb, d->flags & 1, NULL, NULL };
        } else {
            const struct task_red_input *d = (const struct task_red_input *)data + i;
            it[i] = (struct red_item){ d->shar, NULL, d->size, d->init, 0, d->fini, d->comb,
                                       d->flags & 1, NULL, NULL };
        }
        size = it[i].size ? it[i].size : 1;
        it[i].size = (size + 63) & ~(size_t)63;   /* no false sharing between copies */
        if (!it[i].comb)
            gomp_unsupported(who, "a task reduction without a combiner");
    }
    return it;
}

static void init_copy(const struct red_item *it, void *p)
{
    if (!it->init)
        return;   /* zeroed */
    if (it->init_orig)
        ((void (*)(void *, void *))it->init)(p, it->orig);
    else
        ((void (*)(void *))it->init)(p);
}

static void privs_new(struct red_item *it, int num, int nth, const char *who)
{
    for (int i = 0; i < num; i++) {
        size_t bytes = it[i].lazy ? sizeof(void *) * (size_t)nth : it[i].size * (size_t)nth;
        bytes = (bytes + 63) & ~(size_t)63;
        if (!(it[i].priv = aligned_alloc(64, bytes)))
            no_memory(who);
        memset(it[i].priv, 0, bytes);
        it[i].pend = it[i].priv + (it[i].lazy ? 0 : it[i].size * (size_t)nth);
        if (!it[i].lazy)
            for (int j = 0; j < nth; j++)
                init_copy(&it[i], it[i].priv + it[i].size * (size_t)j);
    }
}

/* Every copy into its item, then the copies go. */
static void combine(struct red_item *it, int num, int nth)
{
    for (int i = 0; i < num; i++) {
        for (int j = 0; j < nth; j++) {
            void *p = it[i].lazy ? ((void **)it[i].priv)[j]
                                 : it[i].priv + it[i].size * (size_t)j;
            if (!p)
                continue;   /* a lazy copy never asked for */
            it[i].comb(it[i].shar, p);
            if (it[i].fini)
                it[i].fini(p);
            if (it[i].lazy)
                free(p);
        }
        free(it[i].priv);
    }
}

KMP_EXPORT void __kmpc_taskgroup(ident_t *loc, int gtid)
{
    (void)loc;
    (void)gtid;
    struct lc_kmp_tg *tg = calloc(1, sizeof *tg);
    if (!tg)
        gomp_unsupported("__kmpc_taskgroup", "out of memory for a taskgroup");
    tg->parent = lc_kmp_cur_tg;
    lc_kmp_cur_tg = tg;
    GOMP_taskgroup_start();
}

static void modred_end(struct lc_kmp_tg *tg);

KMP_EXPORT void __kmpc_end_taskgroup(ident_t *loc, int gtid)
{
    (void)loc;
    (void)gtid;
    GOMP_taskgroup_end();   /* every task of the group, descendants included, is done */
    struct lc_kmp_tg *tg = lc_kmp_cur_tg;
    if (!tg)
        return;
    lc_kmp_cur_tg = tg->parent;
    if (tg->shared)
        modred_end(tg);
    else if (tg->items)
        combine(tg->items, tg->num, tg->nth);
    free(tg->items);
    free(tg);
}

/* taskgroup task_reduction(...), taskloop reduction(...): in the group
 * the compiler just opened.  Returns the group, which clang hands back to
 * __kmpc_task_reduction_get_th_data. */
static void *reduction_init(int num, const void *data, int newer, const char *who)
{
    struct lc_kmp_tg *tg = lc_kmp_cur_tg;
    if (!tg)
        gomp_unsupported(who, "a task reduction outside a taskgroup");
    int nth = team_nth();
    if (nth == 1 || num <= 0)
        return tg;   /* the items themselves serve */
    if (tg->items)
        gomp_unsupported(who, "a second task reduction in one taskgroup");
    tg->items = items_new(num, data, newer, who);
    tg->num = num;
    tg->nth = nth;
    privs_new(tg->items, num, nth, who);
    return tg;
}

KMP_EXPORT void *__kmpc_taskred_init(int gtid, int num, void *data)
{
    (void)gtid;
    return reduction_init(num, data, 1, "__kmpc_taskred_init");
}

KMP_EXPORT void *__kmpc_task_reduction_init(int gtid, int num, void *data)
{
    (void)gtid;
    return reduction_init(num, data, 0, "__kmpc_task_reduction_init");
}

/* data: an item (its original), or a copy of it (an address the task got
 * here before); the running thread's copy.  Searched from the group given
 * (NULL: the running task's innermost) outwards. */
KMP_EXPORT void *__kmpc_task_reduction_get_th_data(int gtid, void *tskgrp, void *data)
{
    (void)gtid;
    if (team_nth() == 1)
        return data;
    struct lc_kmp_tg *tg = tskgrp ? tskgrp : lc_kmp_cur_tg;
    int tid = my_tid();
    for (; tg; tg = tg->parent) {
        for (int i = 0; i < tg->num && tg->items; i++) {
            struct red_item *it = &tg->items[i];
            if (tid >= tg->nth)
                gomp_unsupported("__kmpc_task_reduction_get_th_data",
                                 "a task reduction used by a thread of another team");
            if (!it->lazy) {
                if (data == it->shar || ((char *)data >= it->priv && (char *)data < it->pend))
                    return it->priv + it->size * (size_t)tid;
                continue;
            }
            /* each thread writes its own slot once; the others read it
             * only to recognise a copy handed to them, so atomically */
            void **copies = (void **)it->priv;
            int hit = data == it->shar;
            for (int j = 0; j < tg->nth && !hit; j++)
                hit = data == __atomic_load_n(&copies[j], __ATOMIC_ACQUIRE);
            if (!hit)
                continue;
            void *mine = __atomic_load_n(&copies[tid], __ATOMIC_RELAXED);
            if (!mine) {
                mine = aligned_alloc(64, it->size);
                if (!mine)
                    no_memory("__kmpc_task_reduction_get_th_data");
                memset(mine, 0, it->size);
                init_copy(it, mine);
                __atomic_store_n(&copies[tid], mine, __ATOMIC_RELEASE);
            }
            return mine;
        }
    }
    gomp_unsupported("__kmpc_task_reduction_get_th_data",
                     "no task_reduction or reduction with task modifier matches the item");
}

/* ---- reduction(task, ...) on parallel (is_ws 0) and worksharing (1)
 * constructs: every member opens a taskgroup and registers its own items
 * (its private copies of the construct's reduction); the copies the tasks
 * use are the team's, made by the first member to come; the last member
 * to end its group combines them into its items (then the construct's
 * ordinary reduction combines the members').  As in libomp, one such
 * construct of each kind per team at a time: the barrier after a
 * reduction keeps them apart. ---- */

struct modred {
    const struct gomp_team *team;
    int is_ws, nth;
    struct red_item *items;       /* the first member's, with the copies */
    _Atomic int ready, finished;
    struct modred *next;
};

static pthread_mutex_t modred_lock = PTHREAD_MUTEX_INITIALIZER;
static struct modred *modreds;

static void *modifier_init(int is_ws, int num, const void *data, int newer, const char *who)
{
    __kmpc_taskgroup(NULL, 0);
    struct lc_kmp_tg *tg = lc_kmp_cur_tg;
    int nth = team_nth();
    if (nth == 1 || num <= 0)
        return tg;
    const struct gomp_team *team = gomp_thr.team;
    tg->items = items_new(num, data, newer, who);
    tg->num = num;
    tg->nth = nth;
    pthread_mutex_lock(&modred_lock);
    struct modred *m = modreds;
    while (m && !(m->team == team && m->is_ws == is_ws))
        m = m->next;
    int first = !m;
    if (first) {
        if (!(m = calloc(1, sizeof *m)))
            no_memory(who);
        m->team = team;
        m->is_ws = is_ws;
        m->nth = nth;
        m->next = modreds;
        modreds = m;
    }
    pthread_mutex_unlock(&modred_lock);
    tg->shared = m;
    if (first) {
        privs_new(tg->items, num, nth, who);
        if (!(m->items = malloc(sizeof *m->items * (size_t)num)))
            no_memory(who);
        memcpy(m->items, tg->items, sizeof *m->items * (size_t)num);
        atomic_store_explicit(&m->ready, 1, memory_order_release);
    } else {
        unsigned spins = 0;
        while (!atomic_load_explicit(&m->ready, memory_order_acquire))
            gomp_pause(&spins);
        /* the first member's descriptions, flags and all (as libomp: the
         * compiler's flags may differ between members), with the member's
         * own item */
        for (int i = 0; i < num; i++) {
            void *shar = tg->items[i].shar;
            tg->items[i] = m->items[i];
            tg->items[i].shar = shar;
        }
    }
    return tg;
}

/* The member's group has ended (its tasks are done); the last one
 * combines, when every member's tasks are. */
static void modred_end(struct lc_kmp_tg *tg)
{
    struct modred *m = tg->shared;
    /* read before arriving: once this member has arrived, the last one
     * may free m at any time */
    int nth = m->nth;
    if (atomic_fetch_add_explicit(&m->finished, 1, memory_order_acq_rel) + 1 < nth)
        return;
    combine(tg->items, tg->num, tg->nth);
    pthread_mutex_lock(&modred_lock);
    struct modred **pp = &modreds;
    while (*pp != m)
        pp = &(*pp)->next;
    *pp = m->next;
    pthread_mutex_unlock(&modred_lock);
    free(m->items);
    free(m);
}

KMP_EXPORT void *__kmpc_taskred_modifier_init(ident_t *loc, int gtid, int is_ws, int num,
                                              void *data)
{
    (void)loc;
    (void)gtid;
    return modifier_init(is_ws, num, data, 1, "__kmpc_taskred_modifier_init");
}

KMP_EXPORT void *__kmpc_task_reduction_modifier_init(ident_t *loc, int gtid, int is_ws,
                                                     int num, void *data)
{
    (void)loc;
    (void)gtid;
    return modifier_init(is_ws, num, data, 0, "__kmpc_task_reduction_modifier_init");
}

KMP_EXPORT void __kmpc_task_reduction_modifier_fini(ident_t *loc, int gtid, int is_ws)
{
    (void)is_ws;
    __kmpc_end_taskgroup(loc, gtid);
}
