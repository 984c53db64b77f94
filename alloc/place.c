/*
 * place.c - explicit placement for programs that know where their data
 * should live (what Nanos6's nanos6_numa_alloc_* and StarPU's
 * starpu_malloc_on_node give): locus_alloc() maps fresh pages, asks the
 * kernel to place them (one node, interleaved, or blocks dealt over the
 * nodes) and books them in the data-location directory, so that the naft
 * scheduler runs the tasks using them where they are; locus_free() unmaps
 * them and forgets them.
 *
 * A node's pages are MPOL_PREFERRED, not MPOL_BIND: under MPOL_BIND a
 * full node makes the kernel fail the page fault (the OOM killer or
 * SIGBUS ends the program), whereas a preferred node only sends the pages
 * that do not fit to other nodes; a program is never killed for asking.
 * Interleaving and blocks use the nodes that have workers, as the di
 * regime does: those are where the tasks run.  Virtual topologies only
 * book, the pages being on the machine's one node.
 *
 * Every block handed out is kept in a small hash table (address -> size),
 * so that locus_free() of anything else is an error instead of an munmap()
 * of the program's own memory.  The table is the process's, not the
 * runtime's: a block may outlive the runtime that allocated it.
 */
#include <errno.h>
#include <numaif.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "directory.h"
#include "mem.h"
#include "runtime.h"

/* ---------------------------------------------------------------- blocks */

struct blk {
    uintptr_t addr;
    size_t bytes;                  /* as the program asked */
    struct blk *next;
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct blk **reg_buckets;   /* reg_nbuckets chains, NULL while empty */
static size_t reg_nbuckets, reg_count;

static size_t reg_hash(uintptr_t a, size_t nbuckets)
{
    /* Fibonacci hashing of the page number; nbuckets is a power of two */
    return (size_t)(((uint64_t)(a >> 12) * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & (nbuckets - 1);
}

/* With reg_lock held: the block at a, as the link pointing to it, or NULL. */
static struct blk **reg_find(uintptr_t a)
{
    if (!reg_buckets)
        return NULL;
    struct blk **p = &reg_buckets[reg_hash(a, reg_nbuckets)];
    while (*p && (*p)->addr != a)
        p = &(*p)->next;
    return *p ? p : NULL;
}

/* With reg_lock held.  0 or -ENOMEM. */
static int reg_insert(uintptr_t a, size_t bytes)
{
    if (reg_count >= reg_nbuckets) {   /* load 1: double (or make) the table */
        size_t n = reg_nbuckets ? 2 * reg_nbuckets : 64;
        struct blk **nb = lc_mem_calloc(n, sizeof *nb);
        if (!nb && !reg_buckets)
            return -ENOMEM;
        if (nb) {   /* a failed growth only makes chains longer */
            for (size_t i = 0; i < reg_nbuckets; i++)
                for (struct blk *e = reg_buckets[i], *next; e; e = next) {
                    next = e->next;
                    e->next = nb[reg_hash(e->addr, n)];
                    nb[reg_hash(e->addr, n)] = e;
                }
            lc_mem_free(reg_buckets, reg_nbuckets * sizeof *reg_buckets);
            reg_buckets = nb;
            reg_nbuckets = n;
        }
    }
    struct blk *e = lc_mem_alloc(sizeof *e, 0);
    if (!e)
        return -ENOMEM;
    e->addr = a;
    e->bytes = bytes;
    e->next = reg_buckets[reg_hash(a, reg_nbuckets)];
    reg_buckets[reg_hash(a, reg_nbuckets)] = e;
    reg_count++;
    return 0;
}

/* With reg_lock held: unlinks and frees *p (from reg_find). */
static void reg_remove(struct blk **p)
{
    struct blk *e = *p;
    *p = e->next;
    lc_mem_free(e, sizeof *e);
    if (--reg_count == 0) {   /* nothing left: no table either */
        lc_mem_free(reg_buckets, reg_nbuckets * sizeof *reg_buckets);
        reg_buckets = NULL;
        reg_nbuckets = 0;
    }
}

/* ---------------------------------------------------------------- policy */

static size_t page_size(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    return ps > 0 ? (size_t)ps : 4096;
}

/* mbind() of [p, p+len) to the logical nodes in nodes[0..n-1] (mode
 * MPOL_PREFERRED for one node, MPOL_INTERLEAVE for several).  0, or a
 * negative errno with a message. */
static int bind_range(struct lc_runtime *rt, void *p, size_t len, int mode, const int *nodes,
                      int n)
{
    /* one word more than the largest OS node needs: the kernel reads one
     * bit fewer than maxnode says */
    int nos = 1;   /* 1 + the largest OS node number */
    for (int k = 0; k < rt->topo.nnodes; k++)
        if (rt->topo.nodes[k].os_index + 1 > nos)
            nos = rt->topo.nodes[k].os_index + 1;
    size_t words = (size_t)nos / (8 * sizeof(unsigned long)) + 1;
    unsigned long mask[words];
    memset(mask, 0, sizeof mask);
    for (int i = 0; i < n; i++) {
        unsigned os = (unsigned)rt->topo.nodes[nodes[i]].os_index;
        mask[os / (8 * sizeof mask[0])] |= 1ul << (os % (8 * sizeof mask[0]));
    }
    if (mbind(p, len, mode, mask, 8 * sizeof mask, 0) == 0)
        return 0;
    int e = errno;
    if (e == ENOSYS)   /* a kernel without NUMA: one node, nothing to place */
        return 0;
    if (e == ENOMEM)
        return lc_error(-ENOMEM, "locus_alloc: the kernel cannot give [%p, +%zu) its own "
                        "memory policy (mbind: %s; with many blocks, vm.max_map_count "
                        "limits the mappings a process may have)", p, len, strerror(e));
    return lc_error(-e, "locus_alloc: cannot place [%p, +%zu) (mbind: %s)", p, len, strerror(e));
}

/* The pages of [p, p+len) (a fresh mapping of bytes <= len) placed as pl
 * says, on a real machine. */
static int apply_policy(struct lc_runtime *rt, void *p, size_t len, const locus_place_t *pl)
{
    switch (pl->kind) {
    case LOCUS_PLACE_NODE:
        return bind_range(rt, p, len, MPOL_PREFERRED, &pl->node, 1);
    case LOCUS_PLACE_INTERLEAVE:
        return bind_range(rt, p, len, MPOL_INTERLEAVE, rt->ft_nodes, rt->n_ft_nodes);
    default:   /* LOCUS_PLACE_BLOCKS */
        if (rt->n_ft_nodes == 1)   /* every block on one node: one policy */
            return bind_range(rt, p, len, MPOL_PREFERRED, rt->ft_nodes, 1);
        for (size_t lo = 0, i = 0; lo < len; lo += pl->block, i++) {
            size_t n = len - lo < pl->block ? len - lo : pl->block;
            int r = bind_range(rt, (char *)p + lo, n, MPOL_PREFERRED,
                               &rt->ft_nodes[i % (size_t)rt->n_ft_nodes], 1);
            if (r < 0)
                return r;
        }
        return 0;
    }
}

/* Books [p, p+bytes) in the directory as pl says (pl NULL: forgets
 * whatever an earlier mapping at these addresses left there).  0 or
 * -ENOMEM (then nothing of the range is booked). */
static int book(struct lc_runtime *rt, void *p, size_t bytes, size_t len, const locus_place_t *pl)
{
    uintptr_t a = (uintptr_t)p;
    int r;
    if (!pl)
        r = lc_dir_forget(rt->dir, a, len);
    else if (pl->kind == LOCUS_PLACE_NODE)
        r = lc_dir_record(rt->dir, a, bytes, pl->node);
    else if (pl->kind == LOCUS_PLACE_INTERLEAVE)
        r = lc_dir_record(rt->dir, a, bytes, LC_DIR_SPREAD);
    else {
        r = 0;
        for (size_t lo = 0, i = 0; r == 0 && lo < bytes; lo += pl->block, i++)
            r = lc_dir_record(rt->dir, a + lo, bytes - lo < pl->block ? bytes - lo : pl->block,
                              rt->ft_nodes[i % (size_t)rt->n_ft_nodes]);
    }
    if (r < 0 && pl)
        lc_dir_forget(rt->dir, a, len);   /* whole entries of a fresh range: cannot split */
    lc_locality_moved(rt);   /* tasks placed by what was booked there before */
    return r;
}

static int check_place(struct lc_runtime *rt, const locus_place_t *pl, size_t ps)
{
    int r = lc_struct_check(pl, pl->size, sizeof *pl, sizeof *pl, "locus_alloc", "locus_place_t");
    if (r < 0)
        return r;
    switch (pl->kind) {
    case LOCUS_PLACE_NODE:
        if (pl->node < 0 || pl->node >= rt->topo.nnodes)
            return lc_error(-EINVAL, "locus_alloc: place->node is %d; expected a node 0..%d",
                            pl->node, rt->topo.nnodes - 1);
        return 0;
    case LOCUS_PLACE_INTERLEAVE:
        return 0;
    case LOCUS_PLACE_BLOCKS:
        if (pl->block == 0 || pl->block % ps)
            return lc_error(-EINVAL, "locus_alloc: place->block is %zu; expected a positive "
                            "multiple of the page size (%zu bytes)", pl->block, ps);
        return 0;
    default:
        return lc_error(-EINVAL, "locus_alloc: place->kind is %d; expected LOCUS_PLACE_NODE (1), "
                        "LOCUS_PLACE_INTERLEAVE (2) or LOCUS_PLACE_BLOCKS (3)", pl->kind);
    }
}

LOCUS_API int locus_alloc(void **ptr, size_t bytes, const locus_place_t *place)
{
    struct lc_runtime *rt = lc_rt;
    size_t ps = page_size();
    if (!rt)
        return lc_error(-EPERM, "locus_alloc: the runtime is not running (call locus_init() first)");
    if (!ptr)
        return lc_error(-EINVAL, "locus_alloc: ptr is NULL");
    if (bytes == 0)
        return lc_error(-EINVAL, "locus_alloc: bytes is 0");
    if (bytes > SIZE_MAX - (ps - 1))
        return lc_error(-EINVAL, "locus_alloc: %zu bytes cannot be rounded up to whole pages",
                        bytes);
    int r = place ? check_place(rt, place, ps) : 0;
    if (r < 0)
        return r;

    size_t len = (bytes + ps - 1) / ps * ps;
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return lc_error(-ENOMEM, "locus_alloc: cannot map %zu bytes (mmap: %s)", len,
                        strerror(errno));
    if (place && !rt->topo.is_virtual && (r = apply_policy(rt, p, len, place)) < 0)
        goto unmap;
    pthread_mutex_lock(&reg_lock);
    r = reg_insert((uintptr_t)p, bytes);
    pthread_mutex_unlock(&reg_lock);
    if (r < 0) {
        r = lc_error(r, "locus_alloc: out of memory recording the block");
        goto unmap;
    }
    if (rt->dir && (r = book(rt, p, bytes, len, place)) < 0) {
        r = lc_error(r, "locus_alloc: out of memory booking the block in the data-location "
                     "directory");
        pthread_mutex_lock(&reg_lock);
        reg_remove(reg_find((uintptr_t)p));
        pthread_mutex_unlock(&reg_lock);
        goto unmap;
    }
    *ptr = p;
    return 0;

unmap:
    munmap(p, len);
    return r;
}

LOCUS_API int locus_free(void *ptr, size_t bytes)
{
    if (!ptr)
        return 0;
    struct lc_runtime *rt = lc_rt;
    size_t ps = page_size();
    int r = 0;

    pthread_mutex_lock(&reg_lock);
    struct blk **p = reg_find((uintptr_t)ptr);
    if (!p) {
        r = lc_error(-EINVAL, "locus_free: %p is not the start of a block from locus_alloc() "
                     "(or it was freed already)", ptr);
    } else if ((*p)->bytes != bytes) {
        r = lc_error(-EINVAL, "locus_free: the block at %p has %zu bytes, not %zu", ptr,
                     (*p)->bytes, bytes);
    } else {
        size_t len = (bytes + ps - 1) / ps * ps;
        if (rt && rt->dir && (lc_locality_moved(rt), lc_dir_forget(rt->dir, (uintptr_t)ptr, len) < 0)) {
            r = lc_error(-ENOMEM, "locus_free: out of memory updating the data-location "
                         "directory; the block at %p is still allocated", ptr);
        } else {
            reg_remove(p);
            munmap(ptr, len);   /* cannot fail: a page-aligned range of our own mapping */
        }
    }
    pthread_mutex_unlock(&reg_lock);
    return r;
}
