/*
 * kmp_task_abi.c - entry points of the LLVM OpenMP tasking ABI that
 * clang 14 does not emit for any directive but newer compilers (and
 * libomp's own tests) call: __kmpc_taskloop_5 (grainsize strict), the
 * older task reduction layout (__kmpc_task_reduction_init) and lazy
 * private copies, inoutset dependences, omp_all_memory, taskwait
 * depend nowait (a task without a routine), task ids, affinity and scope.
 * Called here by hand with the structures the compiler would build; each
 * check prints one line whose text is the same on libomp and Locus.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kmp_abi.h"

void __kmpc_taskgroup(ident_t *, kmp_int32);
void __kmpc_end_taskgroup(ident_t *, kmp_int32);
void __kmpc_taskloop_5(ident_t *, kmp_int32, kmp_task_t *, int, kmp_uint64 *, kmp_uint64 *,
                       kmp_int64, int, int, kmp_uint64, int, void *);
void __kmpc_taskloop(ident_t *, kmp_int32, kmp_task_t *, int, kmp_uint64 *, kmp_uint64 *,
                     kmp_int64, int, int, kmp_uint64, void *);
void *__kmpc_task_reduction_init(int, int, void *);
void *__kmpc_taskred_init(int, int, void *);
void *__kmpc_task_reduction_get_th_data(int, void *, void *);
kmp_uint64 __kmpc_get_taskid(void);
kmp_uint64 __kmpc_get_parent_taskid(void);
kmp_int32 __kmpc_omp_reg_task_with_affinity(ident_t *, kmp_int32, kmp_task_t *, kmp_int32,
                                            void *);
void __kmpc_scope(ident_t *, kmp_int32, void *);
void __kmpc_end_scope(ident_t *, kmp_int32, void *);

static int failures;

static void check(const char *what, int ok)
{
    printf("%-28s %s\n", what, ok ? "ok" : "FAILED");
    if (!ok)
        failures++;
}

/* ---- taskloop: the pattern task's privates hold the bounds ---- */
struct loop_task {
    kmp_task_t t;
    kmp_uint64 lb, ub;
    kmp_int64 st;
    kmp_int32 last;
};
static int sizes[64], lasts[64];

static kmp_int32 loop_body(kmp_int32 gtid, void *p)
{
    (void)gtid;
    struct loop_task *lt = p;
    int n = 0;
    for (kmp_uint64 i = lt->lb; i <= lt->ub; i += (kmp_uint64)lt->st)
        n++;
    sizes[lt->lb / 10] = n;   /* the loop runs 0, 10, 20, ...: lb / 10 is the iteration */
    lasts[lt->lb / 10] = lt->last;
    return 0;
}

static void loop_dup(kmp_task_t *dst, kmp_task_t *src, kmp_int32 lastpriv)
{
    (void)src;
    ((struct loop_task *)dst)->last = lastpriv;
}

/* the sizes of the tasks in the order of their iterations, and whether
 * only the last one was told it is */
static void run_loop(int version5, int sched, kmp_uint64 grain, int modifier, char *out,
                     size_t len)
{
    memset(sizes, 0, sizeof sizes);
    memset(lasts, 0, sizeof lasts);
    kmp_int32 gtid = __kmpc_global_thread_num(NULL);
    struct loop_task *lt = (struct loop_task *)__kmpc_omp_task_alloc(
        NULL, gtid, 1, sizeof(struct loop_task), 0, loop_body);
    lt->lb = 0;
    lt->ub = 90;   /* 0, 10, ..., 90: ten iterations */
    lt->st = 10;
    lt->last = 0;
    if (version5)
        __kmpc_taskloop_5(NULL, gtid, &lt->t, 1, &lt->lb, &lt->ub, lt->st, 0, sched, grain,
                          modifier, (void *)loop_dup);
    else
        __kmpc_taskloop(NULL, gtid, &lt->t, 1, &lt->lb, &lt->ub, lt->st, 0, sched, grain,
                        (void *)loop_dup);
    size_t o = 0;
    int nlast = 0, lastok = 1;
    out[0] = '\0';
    for (int i = 0; i < 10; i++) {
        if (sizes[i])
            o += (size_t)snprintf(out + o, len - o, "%d ", sizes[i]);
        nlast += lasts[i];
        if (lasts[i] && i + sizes[i] != 10)
            lastok = 0;
    }
    if (!(nlast == 1 && lastok))
        snprintf(out + o, len - o, "(lastprivate flag wrong)");
}

static void taskloops(void)
{
    char a[128], b[128], c[128];
#pragma omp parallel
#pragma omp single
    {
        run_loop(1, 1, 3, 1, a, sizeof a);   /* grainsize(strict: 3) */
        run_loop(0, 1, 3, 0, b, sizeof b);   /* grainsize(3) */
        run_loop(0, 2, 4, 0, c, sizeof c);   /* num_tasks(4) */
    }
    printf("taskloop strict grainsize 3: %s\n", a);
    printf("taskloop grainsize 3:        %s\n", b);
    printf("taskloop num_tasks 4:        %s\n", c);
    check("taskloop sizes", !strcmp(a, "3 3 3 1 ") && !strcmp(b, "4 3 3 ")
                                && !strcmp(c, "3 3 2 2 "));
}

/* ---- task reductions through the runtime's entry points ---- */
struct red_old {   /* kmp_task_red_input_t */
    void *shar;
    size_t size;
    void *init, *fini, *comb;
    unsigned flags;
};
struct red_new {   /* kmp_taskred_input_t */
    void *shar, *orig;
    size_t size;
    void *init, *fini, *comb;
    unsigned flags;
};

static void init_sum(void *p)
{
    *(long *)p = 0;
}
static void init_max(void *p, void *orig)
{
    *(long *)p = *(long *)orig;   /* omp_orig: the original's value */
}
static void comb_sum(void *a, void *b)
{
    *(long *)a += *(long *)b;
}
static void comb_max(void *a, void *b)
{
    if (*(long *)b > *(long *)a)
        *(long *)a = *(long *)b;
}

struct red_task {
    kmp_task_t t;
    void *tg_old, *tg_new;
    long *sum, *max;
    int i;
};

static kmp_int32 red_body(kmp_int32 gtid, void *p)
{
    struct red_task *rt = p;
    long *s = __kmpc_task_reduction_get_th_data(gtid, rt->tg_old, rt->sum);
    *s += rt->i;
    /* NULL: the running task's innermost taskgroup, searched outwards */
    long *m = __kmpc_task_reduction_get_th_data(gtid, NULL, rt->max);
    if (rt->i > *m)
        *m = rt->i;
    return 0;
}

static void reductions(void)
{
    long sum = 0, max = 7;
#pragma omp parallel
#pragma omp single
    {
        kmp_int32 gtid = __kmpc_global_thread_num(NULL);
        __kmpc_taskgroup(NULL, gtid);
        struct red_old o = { &sum, sizeof sum, (void *)init_sum, NULL, (void *)comb_sum, 0 };
        void *tg_old = __kmpc_task_reduction_init(gtid, 1, &o);
        __kmpc_taskgroup(NULL, gtid);
        struct red_new n = { &max, &max, sizeof max, (void *)init_max, NULL, (void *)comb_max,
                             1 /* lazy private copies */ };
        void *tg_new = __kmpc_taskred_init(gtid, 1, &n);
        for (int i = 1; i <= 200; i++) {
            struct red_task *rt = (struct red_task *)__kmpc_omp_task_alloc(
                NULL, gtid, 1, sizeof(struct red_task), 0, red_body);
            rt->tg_old = tg_old;
            rt->tg_new = tg_new;
            rt->sum = &sum;
            rt->max = &max;
            rt->i = i;
            __kmpc_omp_task(NULL, gtid, &rt->t);
        }
        __kmpc_end_taskgroup(NULL, gtid);
        __kmpc_end_taskgroup(NULL, gtid);
    }
    printf("reductions: sum %ld max %ld\n", sum, max);
    check("old layout, lazy copies", sum == 20100 && max == 200);
}

/* ---- inoutset: the set's tasks after the out, before the in ---- */
struct dep_task {
    kmp_task_t t;
    int *x, *seen, k;
};
static kmp_int32 dep_body(kmp_int32 gtid, void *p)
{
    (void)gtid;
    struct dep_task *d = p;
    if (d->k == 0)
        *d->x = 1;
    else if (d->k < 0)
        *d->seen = __atomic_load_n(d->x, __ATOMIC_SEQ_CST);
    else
        __atomic_fetch_add(d->x, d->k, __ATOMIC_SEQ_CST);
    return 0;
}

static void inoutset(void)
{
    int x = 0, seen = -1;
#pragma omp parallel
#pragma omp single
    {
        kmp_int32 gtid = __kmpc_global_thread_num(NULL);
        int kinds[] = { 0, 10, 100, -1 };
        uint8_t flags[] = { 3, 8, 8, 1 };   /* inout, inoutset, inoutset, in */
        for (int j = 0; j < 4; j++) {
            struct dep_task *d = (struct dep_task *)__kmpc_omp_task_alloc(
                NULL, gtid, 1, sizeof(struct dep_task), 0, dep_body);
            d->x = &x;
            d->seen = &seen;
            d->k = kinds[j];
            kmp_depend_info_t di = { (intptr_t)&x, sizeof x, flags[j] };
            __kmpc_omp_task_with_deps(NULL, gtid, &d->t, 1, &di, 0, NULL);
        }
        __kmpc_omp_taskwait(NULL, gtid);
    }
    check("inoutset", seen == 111);
}

/* ---- omp_all_memory (libomp's flag 0x80, or the address -1 with out),
 * and taskwait depend(...) nowait: a task without a routine ---- */
struct am_task {
    kmp_task_t t;
    int *dst, *src, *src2, add, delay_us;
};
static kmp_int32 am_body(kmp_int32 gtid, void *p)
{
    (void)gtid;
    struct am_task *a = p;
    if (a->delay_us)
        usleep((useconds_t)a->delay_us);
    __atomic_store_n(a->dst, __atomic_load_n(a->src, __ATOMIC_SEQ_CST)
                             + __atomic_load_n(a->src2, __ATOMIC_SEQ_CST) + a->add,
                     __ATOMIC_SEQ_CST);
    return 0;
}

static void all_memory(void)
{
    int zero = 0, a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, z = 0;
#pragma omp parallel
#pragma omp single
    {
        kmp_int32 gtid = __kmpc_global_thread_num(NULL);
        struct { int *dst, *src, *src2, add, delay_us; intptr_t addr; uint8_t flags; } steps[] = {
            { &a, &zero, &zero, 1, 20000, (intptr_t)&a, 2 },   /* out: a */
            { &b, &zero, &zero, 2, 20000, (intptr_t)&b, 2 },   /* out: b */
            { &c, &a, &b, 0, 0, 0, 0x80 },                     /* omp_all_memory */
            { &d, &c, &zero, 0, 0, (intptr_t)&z, 1 },          /* in: z, after it */
            { &e, &d, &zero, 10, 0, -1, 2 },                   /* out: omp_all_memory */
            { &f, &e, &zero, 0, 0, (intptr_t)&z, 1 },          /* in: z */
        };
        for (size_t j = 0; j < sizeof steps / sizeof steps[0]; j++) {
            struct am_task *t = (struct am_task *)__kmpc_omp_task_alloc(
                NULL, gtid, 1, sizeof(struct am_task), 0, am_body);
            t->dst = steps[j].dst;
            t->src = steps[j].src;
            t->src2 = steps[j].src2;
            t->add = steps[j].add;
            t->delay_us = steps[j].delay_us;
            kmp_depend_info_t di[2] = { { steps[j].addr, sizeof(int), steps[j].flags },
                                        { (intptr_t)&a, sizeof a, 1 } };   /* ignored */
            __kmpc_omp_task_with_deps(NULL, gtid, &t->t, steps[j].flags == 0x80 ? 2 : 1, di,
                                      0, NULL);
        }
        /* taskwait depend(in: z) nowait: clang 14 cannot say it, newer
         * compilers queue a task without a routine */
        kmp_task_t *nw = __kmpc_omp_task_alloc(NULL, gtid, 1, sizeof(kmp_task_t), 0, NULL);
        kmp_depend_info_t dz = { (intptr_t)&z, sizeof z, 1 };
        __kmpc_omp_task_with_deps(NULL, gtid, nw, 1, &dz, 0, NULL);
        __kmpc_omp_taskwait(NULL, gtid);
    }
    check("omp_all_memory", c == 3 && d == 3 && e == 13 && f == 13);
}

/* ---- ids, affinity, scope ---- */
struct id_task {
    kmp_task_t t;
    kmp_uint64 *id, *parent_seen, *child_parent;
    int child;
};
static kmp_int32 id_body(kmp_int32 gtid, void *p)
{
    struct id_task *it = p;
    if (it->child) {
        *it->child_parent = __kmpc_get_parent_taskid();
        return 0;
    }
    *it->id = __kmpc_get_taskid();
    struct id_task *c = (struct id_task *)__kmpc_omp_task_alloc(NULL, gtid, 1,
                                                                 sizeof(struct id_task), 0,
                                                                 id_body);
    *c = *it;
    c->child = 1;
    __kmpc_omp_task(NULL, gtid, &c->t);
    __kmpc_omp_taskwait(NULL, gtid);
    return 0;
}

static void ids(void)
{
    kmp_uint64 id = 0, parent_seen = 0, child_parent = 1;
    int aff = -1;
#pragma omp parallel
#pragma omp single
    {
        kmp_int32 gtid = __kmpc_global_thread_num(NULL);
        __kmpc_scope(NULL, gtid, NULL);
        struct id_task *it = (struct id_task *)__kmpc_omp_task_alloc(
            NULL, gtid, 1, sizeof(struct id_task), 0, id_body);
        it->t.routine = id_body;
        it->id = &id;
        it->parent_seen = &parent_seen;
        it->child_parent = &child_parent;
        it->child = 0;
        aff = __kmpc_omp_reg_task_with_affinity(NULL, gtid, &it->t, 0, NULL);
        __kmpc_omp_task(NULL, gtid, &it->t);
        __kmpc_omp_taskwait(NULL, gtid);
        __kmpc_end_scope(NULL, gtid, NULL);
    }
    check("task ids", id != 0 && child_parent == id);
    check("affinity accepted", aff == 0);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    taskloops();
    reductions();
    inoutset();
    all_memory();
    ids();
    printf("%s\n", failures ? "FAILED" : "all passed");
    return failures != 0;
}
