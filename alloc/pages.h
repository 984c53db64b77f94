/*
 * pages.h - where the kernel put the pages of a byte range, and how the
 * data-location directory should book it: on one node, as interleaved
 * (LC_DIR_SPREAD), or as a few runs each on its node.  Used for data the
 * runtime did not see being first touched (the main program initialised
 * it) and, under interleaved pages, for first-touch ranges once their task
 * has run (runtime/locality.c).
 */
#ifndef LC_PAGES_H
#define LC_PAGES_H

#include <stddef.h>
#include <stdint.h>

/* Pages asked about per range: one move_pages call, a bounded cost per
 * lookup.  32 rather than 16 so that a range interleaved over two nodes
 * is told from one in a few blocks with a negligible error rate (see
 * lc_pages_plan). */
#define LC_PAGES_SAMPLES 32

/* A part of a range and its node: a sample (lc_pages_sample) or, once
 * planned, a run to book (lc_pages_plan). */
struct lc_page_run {
    uintptr_t lo, hi;   /* [lo, hi): the bytes of the range this stands for */
    uintptr_t page;     /* sample: the page the kernel was asked about */
    int node;           /* sample: OS node, -1 not present; run: logical node or LC_DIR_SPREAD */
};

/*
 * Asks the kernel (move_pages with no target nodes: nothing moves and an
 * untouched page is not faulted in) where at most max pages of
 * [addr, addr+size) are.  Every page when the range has at most max pages;
 * otherwise the range is cut into max slices of whole pages and one page of
 * each is asked about, at a pseudo-random place in its slice derived from
 * the address: a fixed place (the middle) aliases with interleaving, e.g.
 * a 1 MiB range interleaved page by page over 2 or 4 nodes has all its
 * slice middles on one node.  s[i] (max entries) gets slice i in address
 * order: together they cover the range exactly.  Returns the number of
 * samples, or a negative errno when the kernel cannot tell (-ENOSYS) or
 * the range wraps (-EINVAL); 0 for size 0 or max 0.
 */
long lc_pages_sample(uintptr_t addr, size_t size, unsigned max, struct lc_page_run *s);

/*
 * Decides how to book a range from its samples (in address order,
 * covering the range, node a logical node or -1 for a page not present)
 * and rewrites s in place as the runs to book; returns their number, 0
 * when no sampled page is present (nothing is known).  spread_nodes[nspread]
 * are the nodes that LC_DIR_SPREAD stands for (the nodes with workers),
 * page the page size, unit the interleave unit (page, or the transparent
 * huge page size when THP may be in use) on whose grid run boundaries are
 * put when a grid line falls between the two samples that differ.
 *   - every present sample on one node: one run, the whole range there;
 *   - every page sampled: SPREAD (one run) when the bytes are equal on
 *     every spread node and the pages alternate (then SPREAD is exact and
 *     costs one directory entry), else one run per stretch of pages on the
 *     same node (exact);
 *   - sampled: SPREAD when the samples look interleaved: none outside the
 *     spread nodes, more than half of the spread nodes seen, and at least
 *     max(distinct nodes seen, 3) changes of node between neighbouring
 *     samples (blocks on d nodes change at most d-1 times; 32 samples of
 *     pages interleaved over 2 nodes change fewer than 3 times with
 *     probability 2e-7); else one run per stretch of samples on the same
 *     node, the boundary between two stretches between their samples.
 * A sample not present joins the run before it (the first ones the run
 * after): whoever touches it later decides, the booking covers the range.
 */
unsigned lc_pages_plan(struct lc_page_run *s, unsigned n, const int *spread_nodes, int nspread,
                       size_t page, size_t unit);

/* The interleave unit of anonymous memory here: the transparent huge page
 * size (/sys/kernel/mm/transparent_hugepage/hpage_pmd_size) unless
 * /sys/kernel/mm/transparent_hugepage/enabled says [never] or cannot be
 * read, else the page size.  Read once per process. */
size_t lc_pages_unit(void);

#endif /* LC_PAGES_H */
