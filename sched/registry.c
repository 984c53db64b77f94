/*
 * registry.c - the list of scheduling policies LOCUS_SCHED and
 * LOCUS_REGIME can name.
 */
#include "policy.h"

#include <string.h>

extern const struct lc_sched_ops lc_sched_oblivious;
extern const struct lc_sched_ops lc_sched_naft;

const struct lc_sched_ops *const lc_sched_registry[] = {
    &lc_sched_oblivious,
    &lc_sched_naft,
    NULL,
};

const struct lc_sched_ops *lc_sched_find(const char *name)
{
    for (int i = 0; lc_sched_registry[i]; i++)
        if (strcmp(lc_sched_registry[i]->name, name) == 0)
            return lc_sched_registry[i];
    return NULL;
}
