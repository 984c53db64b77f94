/*
 * directory.h - the data-location directory: which NUMA node holds each
 * byte range the runtime has seen (paper section 4: the node of the task
 * that first touched a region, or the kernel's answer for data the main
 * program initialised).  Regions are disjoint inside; recording a range
 * overwrites what it overlaps (splitting entries at its ends).  Thread-safe:
 * spawners query while completing tasks record.
 */
#ifndef LC_DIRECTORY_H
#define LC_DIRECTORY_H

#include <stddef.h>
#include <stdint.h>

#define LC_DIR_SPREAD (-2)   /* pages interleaved over every node in use */

struct lc_directory;

/* nnodes logical nodes (0..nnodes-1).  NULL when out of memory. */
struct lc_directory *lc_dir_create(int nnodes);
void lc_dir_destroy(struct lc_directory *d);

/* [addr, addr+size) lives on node (0..nnodes-1, or LC_DIR_SPREAD).  0 or -ENOMEM
 * (then the directory is unchanged). */
int lc_dir_record(struct lc_directory *d, uintptr_t addr, size_t size, int node);

/* Forgets [addr, addr+size) (e.g. freed memory).  0 or -ENOMEM (only when an
 * entry had to be split and could not). */
int lc_dir_forget(struct lc_directory *d, uintptr_t addr, size_t size);

/*
 * Adds the bytes of [addr, addr+size) known to be on each node to
 * bytes[node] (nnodes entries) and those recorded as LC_DIR_SPREAD to
 * *spread.  Returns the number of bytes the directory knows nothing of.
 */
size_t lc_dir_query(struct lc_directory *d, uintptr_t addr, size_t size,
                    uint64_t *bytes, uint64_t *spread);

/* Total bytes recorded per node (bytes[nnodes]) and as spread; for reports. */
void lc_dir_totals(struct lc_directory *d, uint64_t *bytes, uint64_t *spread);

/* Number of disjoint entries; for tests. */
size_t lc_dir_entries(struct lc_directory *d);

/* lc_dir_record and lc_dir_forget also return -EINVAL for a range that
 * wraps past the end of the address space, lc_dir_record for a node
 * outside 0..nnodes-1 that is not LC_DIR_SPREAD; size 0 does nothing. */

/*
 * Calls fn on every entry in address order, under the read lock (fn must
 * not change the directory); stops at and returns fn's first non-zero
 * answer, else 0.  For reports and tests.
 */
int lc_dir_foreach(struct lc_directory *d,
                   int (*fn)(uintptr_t addr, size_t size, int node, void *arg), void *arg);

/* Checks the internal invariants (order, disjointness, treap heap order,
 * hash, entry count, running totals); 0 or -EFAULT.  Allocates nothing.
 * For tests. */
int lc_dir_check(struct lc_directory *d);

#endif /* LC_DIRECTORY_H */
