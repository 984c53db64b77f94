/*
 * attr.c - per-task options: locus_spawn_attr() checks a locus_task_attr_t
 * and turns it into what the spawn needs (spawn.c), so that options added
 * later (a label, a priority, events) extend one structure and one call
 * instead of adding spawn variants.  Also the check every versioned
 * options structure of the API gets (locus_task_attr_t, locus_place_t):
 * a leading size, as the caller compiled it, and fields only appended,
 * each with 0 as its "not asked for" value - the rule of Linux's clone3()
 * and perf_event_open(), so that a caller built against a newer header
 * either gets what it asked for or a clear error, never silently less.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "policy.h"
#include "runtime.h"

#define LC_STRUCT_MAX 4096   /* the largest size an options structure may claim */

int lc_struct_check(const void *p, size_t size, size_t min, size_t known,
                    const char *fn, const char *type)
{
    if (size < min)
        return lc_error(-EINVAL, "%s: %s.size is %zu, expected at least %zu: set it to "
                        "sizeof(%s) (its _INIT macro does)", fn, type, size, min, type);
    /* no options structure will grow this large: an uninitialised size,
     * whose bytes past the structure must not be read */
    if (size > LC_STRUCT_MAX)
        return lc_error(-EINVAL, "%s: %s.size is %zu, not sizeof(%s) (%zu): is it "
                        "initialised? (its _INIT macro does it)", fn, type, size, type, known);
    const unsigned char *b = p;
    for (size_t i = known; i < size; i++)
        if (b[i])
            return lc_error(-EINVAL, "%s: %s.size is %zu and byte %zu is set, but this "
                            "library (API version %u) knows only its first %zu bytes: an "
                            "option it does not have was asked for", fn, type, size, i,
                            (unsigned)LOCUS_API_VERSION, known);
    return 0;
}

/* The size of the first locus_task_attr_t; a caller's may only be larger. */
#define ATTR_MIN_SIZE (offsetof(locus_task_attr_t, node) + sizeof(int))

LOCUS_API int locus_spawn_attr(locus_task_fn fn, const void *arg, size_t arg_size,
                               const locus_dep_t *deps, size_t ndeps,
                               const locus_task_attr_t *attr)
{
    if (!attr)
        return locus_spawn(fn, arg, arg_size, deps, ndeps);
    struct lc_worker *w = lc_self;
    if (!w)
        return lc_not_worker("locus_spawn_attr");
    int r = lc_struct_check(attr, attr->size, ATTR_MIN_SIZE, sizeof *attr,
                            "locus_spawn_attr", "locus_task_attr_t");
    if (r < 0)
        return r;
    struct lc_runtime *rt = w->rt;
    int node = attr->node;
    if (node < LOCUS_NODE_ANY || node >= rt->topo.nnodes)
        return lc_error(-EINVAL, "locus_spawn_attr: attr->node is %d; expected LOCUS_NODE_ANY "
                        "(-1) or a node 0..%d", node, rt->topo.nnodes - 1);
    /* a caller compiled before the priority was added has no such field */
    int prio = 0;
    if (attr->size >= offsetof(locus_task_attr_t, priority) + sizeof(int))
        prio = attr->priority;
    if (prio < 0 || prio > LOCUS_PRIORITY_MAX)
        return lc_error(-EINVAL, "locus_spawn_attr: attr->priority is %d; expected 0 (default) "
                        "to LOCUS_PRIORITY_MAX (%d)", prio, LOCUS_PRIORITY_MAX);
    /* the label: checked whether or not a trace is recorded, so that a
     * program's error does not wait for the day it is traced */
    const char *label = NULL;
    if (attr->size >= offsetof(locus_task_attr_t, label) + sizeof(const char *))
        label = attr->label;
    if (label && (!label[0] || strnlen(label, LOCUS_LABEL_MAX + 1) > LOCUS_LABEL_MAX))
        return lc_error(-EINVAL, "locus_spawn_attr: attr->label is %s; expected NULL or a "
                        "name of 1 to LOCUS_LABEL_MAX (%d) bytes", label[0] ? "too long" : "empty",
                        LOCUS_LABEL_MAX);
    /* a node means something only to a scheduler that places tasks, and
     * only on several nodes; elsewhere it is accepted and ignored */
    int hint = rt->track && rt->sched->place ? node : -1;
    if (attr->size >= offsetof(locus_task_attr_t, reduction) + sizeof(void *)
        && attr->reduction)
        return lc_reduction_spawn(fn, arg, arg_size, deps, ndeps, hint, prio, label,
                                  attr->reduction);
    return lc_spawn_hinted(fn, arg, arg_size, deps, ndeps, hint, prio, label, NULL);
}
