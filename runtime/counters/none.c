/*
 * none.c - the backend that counts nothing (LOCUS_COUNTERS=none, or what
 * auto falls back to): every class is unavailable with the reason, so that
 * a report never shows a zero that was not measured.
 */
#include <stdio.h>

#include "counters/counters.h"

static int none_probe(const struct lc_ctr_env *env, char *buf, size_t len)
{
    (void)env;
    if (len > 0)
        buf[0] = '\0';
    return 0;
}

static int none_open(struct lc_counters *c, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    lc_ctr_all_unavailable(c, "LOCUS_COUNTERS=none: counting is switched off");
    return 0;
}

const struct lc_ctr_backend lc_ctr_none = {
    .name = "none",
    .description = "counts nothing; every class reads unavailable",
    .probe = none_probe,
    .open = none_open,
};
