/*
 * support.h - what the tests need besides the library's own interfaces:
 * allocation failures on demand, and looks inside the runtime's data
 * structures.  Linked into every test binary (the .c files beside it), never
 * into the library: the library carries no test hook.
 */
#ifndef LC_TEST_SUPPORT_H
#define LC_TEST_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

struct lc_depmap;
struct lc_directory;

/* memfault.c: the n-th allocation the runtime makes from now on fails
 * (n >= 1), and none after it; 0 disables.  The test binaries are linked
 * with the allocator's entry points wrapped (-Wl,--wrap: mallocx and
 * rallocx in a normal build, posix_memalign in a sanitizer build, which is
 * where alloc/mem.c goes), so every allocation of alloc/mem.c counts. */
void lc_mem_fail_after(long n);
/* memfault.c: while on, every allocation of the runtime fails. */
void lc_mem_fail_all(int on);
/* memfault.c: on, jemalloc's "arenas.create" fails (as if it refused). */
void lc_mem_refuse_arenas(int on);
/* memfault.c: the jemalloc arena p was allocated from, -1 if unknown (or
 * a sanitizer build, which has no arenas). */
int lc_mem_arena_of(const void *p);

/* depmap_look.c: the number of segments in a dependency map. */
size_t lc_depmap_segments(const struct lc_depmap *m);

/* directory_check.c: the number of disjoint entries; every entry in
 * address order with every shard locked (fn must not call the directory;
 * stops at and returns fn's first non-zero answer); the internal
 * invariants of every shard (order, disjointness, entries inside one
 * granule of their own shard, treap heap order, hash, entry count, free
 * list, running totals): 0 or -EFAULT, allocating nothing. */
size_t lc_dir_entries(struct lc_directory *d);
int lc_dir_foreach(struct lc_directory *d,
                   int (*fn)(uintptr_t addr, size_t size, int node, void *arg), void *arg);
int lc_dir_check(struct lc_directory *d);

#endif /* LC_TEST_SUPPORT_H */
