/*
 * taskloop.c - the taskloop construct of the LLVM OpenMP ABI
 * (__kmpc_taskloop, and __kmpc_taskloop_5 with grainsize/num_tasks'
 * strict modifier).
 *
 * clang allocates one pattern task whose privates hold the loop's
 * inclusive bounds (lb, ub point into the block) and hands over the
 * stride, the schedule (0 none, 1 grainsize, 2 num_tasks) and task_dup,
 * which makes a copy's firstprivates and tells the last chunk's task it
 * is (lastprivate).  Each task of the loop is a copy of the pattern's
 * block with its own bounds, queued like any task (task.c); the iteration
 * count and the split are libomp's, so a program sees the same tasks on
 * both runtimes.  clang opens the taskgroup itself when the loop has
 * reductions (and passes nogroup); else the runtime does unless nogroup.
 */
#include <stdlib.h>
#include <string.h>

#include "kmp.h"
#include "taskmem.h"

typedef unsigned long long ull;
typedef void (*task_dup_t)(kmp_task_t *dst, kmp_task_t *src, kmp_int32 lastpriv);

/* A copy of the pattern task t with bounds lo..hi (inclusive). */
static kmp_task_t *task_copy(kmp_task_t *t, size_t lb_off, size_t ub_off, ull lo, ull hi)
{
    struct lc_kmp_task *src = lc_kmp_task_of(t);
    struct lc_kmp_cache *home;
    struct lc_kmp_task *h = lc_kmp_block_get(src->size, &home);
    if (!h)
        gomp_unsupported("__kmpc_taskloop", "out of memory for a task");
    memcpy(h, src, src->size);
    h->home = home;
    h->id = lc_kmp_task_new_id();
    h->tg = lc_kmp_cur_tg;   /* inside the loop's taskgroup */
    h->ev = NULL;
    kmp_task_t *c = lc_kmp_task_body(h);
    if (t->shareds)
        c->shareds = (char *)h + ((char *)t->shareds - (char *)src);
    *(ull *)((char *)c + lb_off) = lo;
    *(ull *)((char *)c + ub_off) = hi;
    return c;
}

static void taskloop(kmp_task_t *t, int if_val, ull *lb, ull *ub, kmp_int64 st, int nogroup,
                     int sched, ull grainsize, int strict, void *task_dup)
{
    kmp_int32 gtid = lc_kmp_gtid();
    size_t lb_off = (size_t)((char *)lb - (char *)t), ub_off = (size_t)((char *)ub - (char *)t);
    ull lower = *lb, upper = *ub, ub_glob = upper;
    ull tc;
    if (st == 1)
        tc = upper - lower + 1;
    else if (st < 0)
        tc = (lower - upper) / (0 - (ull)st) + 1;
    else
        tc = (upper - lower) / (ull)st + 1;
    if (tc == 0 || st == 0) {
        lc_kmp_task_free(gtid, t);   /* nothing runs; the pattern goes */
        return;
    }
    if (!nogroup)
        __kmpc_taskgroup(NULL, gtid);
    ull num_tasks, extras = 0;
    long long last_chunk = 0;   /* strict grainsize: the last task's shortfall (<= 0) */
    ull nth = (ull)(gomp_thr.team ? gomp_thr.team->nthreads : 1);
    switch (sched) {
    case 1:   /* grainsize */
        if (grainsize == 0)
            grainsize = 1;
        if (grainsize > tc) {
            num_tasks = 1;
            grainsize = tc;
        } else if (strict) {
            num_tasks = (tc + grainsize - 1) / grainsize;
            last_chunk = (long long)(tc - grainsize * num_tasks);
        } else {
            num_tasks = tc / grainsize;
            grainsize = tc / num_tasks;   /* balanced: sizes differ by one at most */
            extras = tc % num_tasks;
        }
        break;
    case 2:   /* num_tasks */
    default:  /* 0: no clause: libomp's default, ten tasks per thread */
        if (sched != 2 || grainsize == 0)
            grainsize = nth * 10;
        if (grainsize > tc) {
            num_tasks = tc;
            grainsize = 1;
        } else {
            num_tasks = grainsize;
            grainsize = tc / num_tasks;
            extras = tc % num_tasks;
        }
        break;
    }
    ull lo = lower;
    for (ull i = 0; i < num_tasks; i++) {
        ull len = grainsize + (extras ? 1 : 0);
        if (extras)
            extras--;
        if (i == num_tasks - 1 && last_chunk < 0)
            len = grainsize + (ull)last_chunk;
        ull hi = lo + (ull)st * (len - 1);
        /* the task of the last iteration: hi is ub_glob, or within one
         * stride of it */
        int lastpriv = 0;
        if (i == num_tasks - 1) {
            if (st == 1)
                lastpriv = hi == ub_glob;
            else if (st > 0)
                lastpriv = (ull)st > ub_glob - hi;
            else
                lastpriv = hi - ub_glob < 0 - (ull)st;
        }
        kmp_task_t *c = task_copy(t, lb_off, ub_off, lo, hi);
        if (task_dup)
            ((task_dup_t)task_dup)(c, t, lastpriv);
        if (if_val)
            lc_kmp_task_queue(c, NULL, true);
        else
            lc_kmp_task_run_now(c);
        lo = hi + (ull)st;
    }
    lc_kmp_task_free(gtid, t);   /* the pattern is never run itself */
    if (!nogroup)
        __kmpc_end_taskgroup(NULL, gtid);
}

KMP_EXPORT void __kmpc_taskloop(ident_t *loc, int gtid, kmp_task_t *task, int if_val,
                                kmp_uint64 *lb, kmp_uint64 *ub, kmp_int64 st, int nogroup,
                                int sched, kmp_uint64 grainsize, void *task_dup)
{
    (void)loc;
    (void)gtid;
    taskloop(task, if_val, (ull *)lb, (ull *)ub, st, nogroup, sched, grainsize, 0, task_dup);
}

/* modifier: grainsize(strict: n) (num_tasks' strict changes nothing here:
 * the sizes already differ by one at most) */
KMP_EXPORT void __kmpc_taskloop_5(ident_t *loc, int gtid, kmp_task_t *task, int if_val,
                                  kmp_uint64 *lb, kmp_uint64 *ub, kmp_int64 st, int nogroup,
                                  int sched, kmp_uint64 grainsize, int modifier,
                                  void *task_dup)
{
    (void)loc;
    (void)gtid;
    taskloop(task, if_val, (ull *)lb, (ull *)ub, st, nogroup, sched, grainsize, modifier != 0,
             task_dup);
}
