/*
 * depmap_look.c - a look inside a dependency map for the tests
 * (support.h), through its layout (runtime/depmap_impl.h).
 */
#include "depmap_impl.h"
#include "support.h"

size_t lc_depmap_segments(const struct lc_depmap *m)
{
    return m->nsegs;
}
