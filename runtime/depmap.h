/*
 * depmap.h - the dependency map of one parent task: which of its children
 * last accessed each byte range, and how.  Only the thread running the
 * parent touches the map (children are spawned by their parent), so it
 * takes no locks; completing tasks never look at it.
 *
 * The map holds disjoint segments.  A dependency whose range is exactly a
 * segment (the common case: tiles, blocks, objects) is found by one hash
 * lookup; any other range goes through an ordered index (a treap), splits
 * the segments it partially covers and fills the gaps, so that every byte
 * has exactly one segment.  Each segment keeps its current access group
 * (one writer, a set of readers, or a set of concurrent writers) and the
 * group before it, which is what a joining reader or concurrent writer
 * must wait for.
 */
#ifndef LC_DEPMAP_H
#define LC_DEPMAP_H

#include <stddef.h>
#include <stdint.h>

#include "locus.h"

struct lc_depmap;
struct lc_task;
struct lc_worker;

struct lc_depmap *lc_depmap_create(void);
/* Drops every reference and frees the map. */
void lc_depmap_destroy(struct lc_worker *w, struct lc_depmap *m);
/* Drops every segment; for when every child of the parent is complete. */
void lc_depmap_clear(struct lc_worker *w, struct lc_depmap *m);
/* For when every child of the parent is complete, in O(1): the segments
 * stay (the same ranges are usually used again) and drop their task
 * references when next used or swept. */
void lc_depmap_retire(struct lc_depmap *m);

/*
 * Registers t's accesses and links t behind every conflicting earlier
 * sibling still incomplete.  *nlinked gets the number of edges made (also
 * on failure).  Returns 0 or -ENOMEM; after -ENOMEM t may be registered for
 * some ranges only (spawn.c then serialises t, see there).
 */
int lc_depmap_register(struct lc_worker *w, struct lc_depmap *m, struct lc_task *t,
                       const locus_dep_t *deps, size_t ndeps, uint32_t *nlinked);

/*
 * 1 when every earlier sibling that an access in deps conflicts with is
 * complete, found without changing the map: each range is exactly a
 * segment, and the groups it would be linked behind are complete.  0 when
 * not, or not known so cheaply.  A task found ready and run to completion
 * before the next sibling is spawned need not enter the map: nothing
 * spawned later can have to wait for it (spawn.c, run_unmapped).
 */
int lc_depmap_ready(const struct lc_depmap *m, const locus_dep_t *deps, size_t ndeps);

#endif /* LC_DEPMAP_H */
