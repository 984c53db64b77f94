/*
 * directory.h - the data-location directory: which NUMA node holds each
 * byte range the runtime has seen (paper section 4: the node of the task
 * that first touched a region, or the kernel's answer for data the main
 * program initialised).  Regions are disjoint inside; recording a range
 * overwrites what it overlaps (splitting entries at its ends), and a range
 * is kept as one entry per 2 MiB granule it covers.  Thread-safe: spawners
 * query while completing tasks record; a query writes no shared memory
 * (sharded by address, a sequence lock per shard: see directory.c).
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

/*
 * Books on node only the parts of [addr, addr+size) the directory knows
 * nothing of (the gaps); the known parts keep their home.  Calls fn (may
 * be NULL) on each gap booked, in address order, with a shard's lock held:
 * fn must not call the directory.  0, -EINVAL or -ENOMEM (then the
 * directory is unchanged and fn was not called).
 */
int lc_dir_record_gaps(struct lc_directory *d, uintptr_t addr, size_t size, int node,
                       void (*fn)(uintptr_t addr, size_t size, void *arg), void *arg);

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


/* lc_dir_record, lc_dir_record_gaps and lc_dir_forget also return -EINVAL
 * for a range that wraps past the end of the address space, the first two
 * for a node outside 0..nnodes-1 that is not LC_DIR_SPREAD and -E2BIG for
 * a range over 1 TiB (2^19 entries); size 0 does nothing. */



#endif /* LC_DIRECTORY_H */
