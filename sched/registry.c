/*
 * registry.c - the one list of the scheduling policies LOCUS_SCHED can name
 * and of the regimes LOCUS_REGIME can name (each a policy and a page
 * placement).  Everything that lists, accepts, describes or refuses a
 * policy or a regime reads these tables (env.c, init.c): a new policy is a
 * file in sched/ and a line here.
 */
#include "policy.h"

#include <stddef.h>
#include <strings.h>

extern const struct lc_sched_ops lc_sched_oblivious;
extern const struct lc_sched_ops lc_sched_naft;

const struct lc_sched_ops *const lc_sched_registry[] = {
    &lc_sched_oblivious,
    &lc_sched_naft,
    NULL,
};

/* Caheny et al., "Reducing cache coherence traffic with a NUMA-aware
 * runtime approach", IEEE TPDS 29(5), 2018, section 4.1. */
const struct lc_regime lc_regimes[] = {
    { "dft", "NUMA-oblivious scheduling, pages placed by first touch",
      "oblivious", LC_PAGES_FIRSTTOUCH, 0 },
    { "di", "NUMA-oblivious scheduling, pages interleaved over the nodes",
      "oblivious", LC_PAGES_INTERLEAVE, 0 },
    { "naft", "NUMA-aware scheduling, pages placed by first touch",
      "naft", LC_PAGES_FIRSTTOUCH, 1 },
    { NULL, NULL, NULL, LC_PAGES_UNSET, 0 },
};

const struct lc_sched_ops *lc_sched_find(const char *name)
{
    for (int i = 0; lc_sched_registry[i]; i++)
        if (strcasecmp(lc_sched_registry[i]->name, name) == 0)
            return lc_sched_registry[i];
    return NULL;
}

const struct lc_regime *lc_regime_find(const char *name)
{
    for (int i = 0; lc_regimes[i].name; i++)
        if (strcasecmp(lc_regimes[i].name, name) == 0)
            return &lc_regimes[i];
    return NULL;
}

const struct lc_regime *lc_regime_default(void)
{
    for (int i = 0; lc_regimes[i].name; i++)
        if (lc_regimes[i].is_default)
            return &lc_regimes[i];
    return &lc_regimes[0];
}

const struct lc_regime *lc_regime_interleaving(void)
{
    for (int i = 0; lc_regimes[i].name; i++) {
        const struct lc_sched_ops *s = lc_sched_find(lc_regimes[i].sched);
        if (lc_regimes[i].pages == LC_PAGES_INTERLEAVE && s && !(s->caps & LC_SCHED_FIRST_TOUCH))
            return &lc_regimes[i];
    }
    return NULL;
}
