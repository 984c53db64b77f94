/*
 * reduction.c - native task reductions (locus_reduction_*, and the
 * reduction option of locus_spawn_attr): a target, one private copy per
 * worker, and a count of the tasks spawned to take part.
 *
 * A worker's copy is made by that worker on its first
 * locus_reduction_local() call, from the runtime's allocator, whose arena
 * is the worker's node (alloc/mem.h), and set (init) there, so its pages
 * are first touched on that node; no other worker writes it.  A taking-part
 * task is spawned as a wrapper whose argument block holds the user's
 * function and argument (attr.c hands it here): the body's end counts the
 * task out.  Descendants of such a task are counted only when spawned with
 * the reduction too; since they are spawned before their parent's body
 * ends, the count cannot reach 0 while a counted task may still spawn one.
 * locus_reduction_finish() waits for the count to reach 0 (running tasks
 * meanwhile), which orders every copy's last update before it, then
 * combines the copies into the target in worker order.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "mem.h"
#include "runtime.h"

#define RED_MAGIC 0x52454455u   /* an open reduction (cleared when it is finished) */

struct locus_reduction {
    uint32_t magic;
    int nworkers;
    struct lc_runtime *rt;
    void *target;
    size_t size;
    locus_reduce_init_fn init;
    locus_reduce_combine_fn combine;
    void **priv;                              /* per worker, written by that worker only */
    _Alignas(LC_CACHELINE) _Atomic uint32_t active;   /* taking-part tasks not done (futex-like
                                                         word for lc_wait_word) */
};

/* The argument block of a taking-part task: the wrapper's header, then the
 * user's bytes (16-byte aligned, as the runtime aligns any heap block). */
struct red_hdr {
    locus_task_fn fn;
    struct locus_reduction *red;
    void *ptr;          /* the user's arg when it passed no bytes */
    size_t size;        /* bytes that follow */
};
#define HDR_SIZE ((sizeof(struct red_hdr) + 15) / 16 * 16)

/* A reduction the calling worker may use: open, of this runtime. */
static int red_check(const struct locus_reduction *red, const char *fn)
{
    if (!red)
        return lc_error(-EINVAL, "%s: the reduction is NULL", fn);
    /* a pointer of the wrong alignment cannot be one of ours, and reading
     * its fields would be undefined: refused before they are read */
    if ((uintptr_t)red % _Alignof(struct locus_reduction) || red->magic != RED_MAGIC)
        return lc_error(-EINVAL, "%s: %p is not an open reduction (finished already, or not "
                        "from locus_reduction_create)", fn, (const void *)red);
    if (red->rt != lc_rt)
        return lc_error(-EINVAL, "%s: the reduction belongs to an earlier runtime "
                        "(locus_finalize() came between)", fn);
    return 0;
}

/* The memory a process may have: the machine's, or less when the address
 * space is limited (ulimit -v).  0 when neither can be read. */
static uint64_t memory_limit(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    uint64_t lim = pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize : 0;
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
        && (lim == 0 || (uint64_t)rl.rlim_cur < lim))
        lim = (uint64_t)rl.rlim_cur;
    return lim;
}

LOCUS_API int locus_reduction_create(locus_reduction_t **out, void *target, size_t size,
                                     locus_reduce_init_fn init, locus_reduce_combine_fn combine)
{
    struct lc_worker *w = lc_self;
    if (!w)
        return lc_not_worker("locus_reduction_create");
    if (!out || !target || !size || !combine)
        return lc_error(-EINVAL, "locus_reduction_create: %s", !out ? "red is NULL"
                        : !target ? "target is NULL" : !size ? "size is 0" : "combine is NULL");
    /* every worker may make a copy: refused now what could never be had,
     * rather than have a copy's first touch end the process later */
    int n = w->rt->nworkers;
    if (size > PTRDIFF_MAX || size > SIZE_MAX / (size_t)n)
        return lc_error(-EINVAL, "locus_reduction_create: size %zu is too large (one copy per "
                        "worker, %d workers, would not fit in the address space)", size, n);
    uint64_t lim = memory_limit();
    if (lim && (uint64_t)size * (uint64_t)n > lim)
        return lc_error(-ENOMEM, "locus_reduction_create: %d copies of %zu bytes (one per "
                        "worker) are more than this process can have (%llu bytes: memory, or "
                        "the address-space limit)", n, size, (unsigned long long)lim);
    struct locus_reduction *red = lc_mem_alloc(sizeof *red, LC_CACHELINE);
    void **priv = red ? lc_mem_calloc((size_t)w->rt->nworkers, sizeof *priv) : NULL;
    if (!priv) {
        if (red)
            lc_mem_free(red, sizeof *red);
        return lc_error(-ENOMEM, "locus_reduction_create: out of memory");
    }
    memset(red, 0, sizeof *red);
    red->magic = RED_MAGIC;
    red->nworkers = w->rt->nworkers;
    red->rt = w->rt;
    red->target = target;
    red->size = size;
    red->init = init;
    red->combine = combine;
    red->priv = priv;
    *out = red;
    return 0;
}

LOCUS_API void *locus_reduction_local(locus_reduction_t *red)
{
    struct lc_worker *w = lc_self;
    if (!w) {
        lc_not_worker("locus_reduction_local");
        return NULL;
    }
    if (red_check(red, "locus_reduction_local") < 0)
        return NULL;
    void *p = red->priv[w->id];
    if (__builtin_expect(p != NULL, 1))
        return p;
    if (!(p = lc_mem_alloc(red->size, 64))) {
        lc_error(-ENOMEM, "locus_reduction_local: out of memory for a private copy of %zu "
                 "bytes", red->size);
        return NULL;
    }
    if (red->init)
        red->init(p);
    else
        memset(p, 0, red->size);
    red->priv[w->id] = p;
    return p;
}

/* The wrapper a taking-part task runs. */
static void red_task(void *arg)
{
    struct red_hdr *h = arg;
    struct locus_reduction *red = h->red;
    struct lc_runtime *rt = red->rt;
    h->fn(h->size ? (char *)arg + HDR_SIZE : h->ptr);
    /* seq_cst: lc_wait_word's rule; red may be freed at once, so only rt
     * is touched after */
    atomic_fetch_sub_explicit(&red->active, 1, memory_order_seq_cst);
    lc_wake_waiters(rt);
}

int lc_reduction_spawn(locus_task_fn fn, const void *arg, size_t arg_size,
                       const locus_dep_t *deps, size_t ndeps, int hint, int prio,
                       const char *label, struct locus_reduction *red)
{
    int r = red_check(red, "locus_spawn_attr");
    if (r < 0)
        return r;
    if (!fn)
        return lc_error(-EINVAL, "locus_spawn: fn is NULL");
    if (arg_size && !arg)
        return lc_error(-EINVAL, "locus_spawn: arg is NULL but arg_size is %zu (pass arg_size 0 "
                        "to hand the task a NULL pointer)", arg_size);
    if (arg_size > SIZE_MAX - HDR_SIZE)
        return lc_error(-EINVAL, "locus_spawn: arg_size %zu is too large", arg_size);
    size_t total = HDR_SIZE + arg_size;
    _Alignas(16) unsigned char stack[256];
    unsigned char *buf = total <= sizeof stack ? stack : malloc(total);
    if (!buf)
        return lc_error(-ENOMEM, "locus_spawn_attr: out of memory for a reduction task's argument");
    struct red_hdr h = { fn, red, arg_size ? NULL : (void *)arg, arg_size };
    memcpy(buf, &h, sizeof h);
    if (arg_size)
        memcpy(buf + HDR_SIZE, arg, arg_size);
    atomic_fetch_add_explicit(&red->active, 1, memory_order_relaxed);
    /* traces name the task by the program's function, not by red_task */
    r = lc_spawn_hinted(red_task, buf, total, deps, ndeps, hint, prio, label, fn);
    if (r < 0)
        atomic_fetch_sub_explicit(&red->active, 1, memory_order_relaxed);
    if (buf != stack)
        free(buf);
    return r;
}

LOCUS_API int locus_reduction_finish(locus_reduction_t *red)
{
    struct lc_worker *w = lc_self;
    if (!w)
        return lc_not_worker("locus_reduction_finish");
    int r = red_check(red, "locus_reduction_finish");
    if (r < 0)
        return r;
    /* acquire: the last task's count-out orders every copy's updates */
    uint32_t n;
    while ((n = atomic_load_explicit(&red->active, memory_order_acquire)) != 0)
        lc_wait_word(w, &red->active, n);
    for (int i = 0; i < red->nworkers; i++)
        if (red->priv[i]) {
            red->combine(red->target, red->priv[i]);
            lc_mem_free(red->priv[i], red->size);
        }
    red->magic = 0;
    lc_mem_free(red->priv, 0);
    lc_mem_free(red, sizeof *red);
    return 0;
}
