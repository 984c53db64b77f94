/*
 * placement.c - asks the kernel where Locus's pages really are, for
 * benchmarks/node-check: a site adopting Locus wants to see first touch and
 * locus_alloc() place pages where the runtime says, on its own machine.
 *
 * Two checks, both answered by move_pages(2) (libnuma's numa_move_pages with
 * no target nodes only queries):
 *   first touch  one task per block of fresh malloc'd memory, each writing
 *                its block (an out dependency, so the regime spreads them
 *                over the nodes); the CPU a task ran on is read in the task
 *                (sched_getcpu), and each page must be on that CPU's node.
 *   locus_alloc  a block placed on each of Locus's nodes in turn
 *                (LOCUS_PLACE_ON_NODE(k)); every page of it must be on one
 *                node, and different k on different nodes.
 * Prints one line per check and a RESULT line; exit 0 when both hold (or
 * the machine has one node, where they hold trivially: it says so), 1 when
 * the kernel contradicts the runtime, 2 on bad options.
 *
 * Usage: placement [--mib M]   (M: MiB per worker for the first-touch
 * check, default 16).
 */
#define _GNU_SOURCE
#include <locus.h>
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_NODES 1024

struct block {
    char *p;
    size_t bytes;
    int cpu;        /* where the task that first wrote it ran */
};

static void touch(void *arg)
{
    struct block *b = *(struct block **)arg;
    b->cpu = sched_getcpu();
    memset(b->p, 1, b->bytes);
}

static void die(int err, const char *what)
{
    fprintf(stderr, "placement: %s: %s (%s)\n", what, locus_strerror(err), locus_error_message());
    exit(1);
}

/* Pages of [p, p+bytes) found on each OS node (counts[MAX_NODES]); returns
 * how many pages the kernel could not place (not present, or an error). */
static long where(char *p, size_t bytes, long *counts)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t n = bytes / (size_t)page;
    void **pages = malloc(n * sizeof *pages);
    int *status = malloc(n * sizeof *status);
    long unknown = 0;
    if (!pages || !status) {
        fprintf(stderr, "placement: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++)
        pages[i] = p + i * (size_t)page;
    if (numa_move_pages(0, n, pages, NULL, status, 0) != 0) {
        perror("placement: move_pages");
        exit(1);
    }
    for (size_t i = 0; i < n; i++) {
        if (status[i] >= 0 && status[i] < MAX_NODES)
            counts[status[i]]++;
        else
            unknown++;
    }
    free(pages);
    free(status);
    return unknown;
}

int main(int argc, char **argv)
{
    size_t mib = 16;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mib") && i + 1 < argc) {
            char *end;
            unsigned long v = strtoul(argv[++i], &end, 10);
            if (*end || v == 0 || v > 4096) {
                fprintf(stderr, "placement: --mib wants 1..4096\n");
                return 2;
            }
            mib = v;
        } else {
            fprintf(stderr, "usage: placement [--mib M]\n"
                            "Asks the kernel (move_pages) where first-touched and locus_alloc()ed\n"
                            "pages are, against where Locus ran or placed them.\n");
            return !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") ? 0 : 2;
        }
    }
    if (numa_available() < 0) {
        printf("placement: unavailable (libnuma: the kernel has no NUMA support)\n");
        printf("RESULT benchmark=placement verified=-1\n");
        return 0;
    }
    int err = locus_init();
    if (err < 0)
        die(err, "locus_init");
    int workers = locus_num_workers(), nodes = locus_num_nodes();
    long page = sysconf(_SC_PAGESIZE);
    size_t bytes = mib << 20;
    int nblocks = 4 * workers;
    struct block *blocks = calloc((size_t)nblocks, sizeof *blocks);
    if (!blocks)
        die(-ENOMEM, "calloc");
    for (int i = 0; i < nblocks; i++) {
        blocks[i].bytes = bytes / 4 / (size_t)page * (size_t)page;
        if (posix_memalign((void **)&blocks[i].p, (size_t)page, blocks[i].bytes))
            die(-ENOMEM, "posix_memalign");
        blocks[i].cpu = -1;
        struct block *b = &blocks[i];
        err = locus_task(touch, &b, sizeof b, LOCUS_OUT(b->p, b->bytes));
        if (err < 0)
            die(err, "locus_spawn");
    }
    err = locus_taskwait();
    if (err < 0)
        die(err, "locus_taskwait");

    /* First touch: each page on its toucher's node. */
    long on_toucher = 0, elsewhere = 0, unknown = 0;
    static long counts[MAX_NODES];
    static int touched_nodes[MAX_NODES];
    for (int i = 0; i < nblocks; i++) {
        memset(counts, 0, sizeof counts);
        unknown += where(blocks[i].p, blocks[i].bytes, counts);
        int home = blocks[i].cpu >= 0 ? numa_node_of_cpu(blocks[i].cpu) : -1;
        if (home >= 0 && home < MAX_NODES)
            touched_nodes[home] = 1;
        for (int n = 0; n < MAX_NODES; n++)
            *(n == home ? &on_toucher : &elsewhere) += counts[n];
    }
    int spread = 0;
    for (int n = 0; n < MAX_NODES; n++)
        spread += touched_nodes[n];
    long total = on_toucher + elsewhere + unknown;
    double ft_share = total ? 100.0 * on_toucher / total : 0;
    printf("placement: first touch: %d tasks wrote %zu MiB on %d workers, %d Locus node(s); they ran on "
           "CPUs of %d kernel node(s); %.1f%% of %ld pages are on the node of the CPU that wrote them "
           "(%ld elsewhere, %ld unknown)\n",
           nblocks, (size_t)nblocks * blocks[0].bytes >> 20, workers, nodes, spread, ft_share, total,
           elsewhere, unknown);

    /* locus_alloc on each node: one kernel node per Locus node, all pages. */
    /* With fewer kernel nodes than Locus nodes (a virtual topology) the
     * blocks share the machine's nodes: only "wholly on one node" holds. */
    int distinct = numa_num_configured_nodes() >= nodes;
    int alloc_ok = 1, prev_homes[MAX_NODES];
    double worst = 100.0;
    for (int k = 0; k < nodes && k < MAX_NODES; k++) {
        void *p;
        size_t ab = 4u << 20;
        err = locus_alloc(&p, ab, &LOCUS_PLACE_ON_NODE(k));
        if (err < 0)
            die(err, "locus_alloc");
        memset(p, 1, ab);
        memset(counts, 0, sizeof counts);
        long unk = where(p, ab, counts);
        int best = 0;
        for (int n = 1; n < MAX_NODES; n++)
            if (counts[n] > counts[best])
                best = n;
        double share = 100.0 * counts[best] / (double)(ab / (size_t)page);
        if (share < worst)
            worst = share;
        prev_homes[k] = best;
        for (int j = 0; j < k; j++)
            if (distinct && prev_homes[j] == best)
                alloc_ok = 0;
        if (unk || share < 100.0)
            alloc_ok = 0;
        locus_free(p, ab);
    }
    printf("placement: locus_alloc(LOCUS_PLACE_ON_NODE(k)) for k = 0..%d: %s (worst block %.1f%% on "
           "one node)\n",
           nodes - 1,
           alloc_ok ? "every block wholly on its own kernel node"
                    : "blocks NOT each wholly on a node of their own",
           worst);

    int ft_ok = ft_share >= 99.0;
    int kernel_nodes = numa_num_configured_nodes();
    if (kernel_nodes <= 1)
        printf("placement: the kernel has one NUMA node here: both hold trivially; run on a "
               "multi-socket node to see placement\n");
    else if (nodes > 1 && spread < 2)
        printf("placement: first-touch tasks ran on one node only (workers on one node? "
               "LOCUS_THREADS, the affinity mask)\n");
    printf("RESULT benchmark=placement workers=%d nodes=%d kernel_nodes=%d first_touch_local=%.1f "
           "toucher_nodes=%d alloc_on_node=%s verified=%d\n",
           workers, nodes, kernel_nodes, ft_share, spread, alloc_ok ? "yes" : "no",
           ft_ok && alloc_ok);
    for (int i = 0; i < nblocks; i++)
        free(blocks[i].p);
    free(blocks);
    locus_finalize();
    return ft_ok && alloc_ok ? 0 : 1;
}
