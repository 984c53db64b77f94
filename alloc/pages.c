/*
 * pages.c - asks the kernel where a range's pages are and turns the answer
 * into a booking for the data-location directory (what and why: pages.h).
 * The plan is a pure function of the samples, so that the decision is
 * tested on fabricated placements on a machine of one node.
 */
#define _GNU_SOURCE
#include "pages.h"

#include <errno.h>
#include <numaif.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "directory.h"

#define PAGES_CHUNK 256   /* move_pages batch: stack arrays, no allocation */

static size_t page_size(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    return ps > 0 ? (size_t)ps : 4096;
}

/* splitmix64's finaliser: a well-mixed 64-bit value from any input. */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= UINT64_C(0xBF58476D1CE4E5B9);
    x ^= x >> 27;
    x *= UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

long lc_pages_sample(uintptr_t addr, size_t size, unsigned max, struct lc_page_run *s)
{
    if (size == 0 || max == 0)
        return 0;
    if (size - 1 > UINTPTR_MAX - addr)
        return -EINVAL;
    uintptr_t ps = page_size();
    uintptr_t first = addr & ~(ps - 1), end = addr + (size - 1);
    uint64_t npages = (uint64_t)((end & ~(ps - 1)) - first) / ps + 1;
    uint64_t nsample = npages < max ? npages : max;

    for (uint64_t base = 0; base < nsample; base += PAGES_CHUNK) {
        void *pages[PAGES_CHUNK];
        int status[PAGES_CHUNK];
        unsigned n = (unsigned)(nsample - base < PAGES_CHUNK ? nsample - base : PAGES_CHUNK);
        for (unsigned j = 0; j < n; j++) {
            uint64_t i = base + j;
            /* slice i: pages [p0, p1) */
            uint64_t p0 = (uint64_t)(((unsigned __int128)i * npages) / nsample);
            uint64_t p1 = (uint64_t)(((unsigned __int128)(i + 1) * npages) / nsample);
            uint64_t r = mix((uint64_t)first ^ (i * UINT64_C(0x9E3779B97F4A7C15))) >> 32;
            uint64_t pg = p0 + (uint64_t)(((unsigned __int128)(p1 - p0) * r) >> 32);
            s[i].lo = i == 0 ? addr : first + (uintptr_t)(p0 * ps);
            s[i].hi = i + 1 == nsample ? end + 1 : first + (uintptr_t)(p1 * ps);
            s[i].page = first + (uintptr_t)(pg * ps);
            pages[j] = (void *)s[i].page;
            status[j] = -1;
        }
        if (move_pages(0, n, pages, NULL, status, 0) < 0)
            return errno ? -errno : -EIO;
        /* not placed yet: -ENOENT (not present) or -EFAULT (a hole or the
         * shared zero page); for a page never touched Debian 12's 6.1
         * kernel answers -EFAULT where 6.18 answers -ENOENT */
        for (unsigned j = 0; j < n; j++)
            s[base + j].node = status[j] >= 0 ? status[j] : -1;
    }
    return (long)nsample;
}

static int is_spread_node(int node, const int *spread_nodes, int nspread)
{
    for (int k = 0; k < nspread; k++)
        if (spread_nodes[k] == node)
            return 1;
    return 0;
}

/* Pages of [lo, hi) in address order alternate between nodes as
 * interleaving makes them (see pages.h); present: the present samples,
 * changes: node changes between neighbouring present samples. */
static int looks_spread(const struct lc_page_run *s, unsigned n, int exact, const int *spread_nodes,
                        int nspread, unsigned present, unsigned changes)
{
    if (nspread < 2)
        return 0;
    int seen = 0;
    uint64_t bytes0 = 0;
    for (int k = 0; k < nspread; k++) {
        uint64_t b = 0;
        for (unsigned i = 0; i < n; i++)
            if (s[i].node == spread_nodes[k])
                b += s[i].hi - s[i].lo;
        if (exact && (k ? b != bytes0 : b == 0))
            return 0;   /* SPREAD would not be exact */
        bytes0 = k ? bytes0 : b;
        seen += b > 0;
    }
    for (unsigned i = 0; i < n; i++)
        if (s[i].node >= 0 && !is_spread_node(s[i].node, spread_nodes, nspread))
            return 0;
    if (exact)
        return 2 * changes + 1 >= present;
    unsigned need = (unsigned)seen > 3 ? (unsigned)seen : 3;
    return 2 * seen > nspread && changes >= need;
}

/* Where a run that starts with sample b (after a, a different node) begins:
 * on a unit-grid line between the two sampled pages when there is one
 * (nearest to the slice boundary), else at the slice boundary. */
static uintptr_t boundary(const struct lc_page_run *a, const struct lc_page_run *b, size_t unit)
{
    uintptr_t at = b->lo, u = unit ? unit : 1;
    uintptr_t down = at - at % u, up = down == at ? at : down + u;
    int ok_down = down > a->page, ok_up = up <= b->page && up >= down;
    if (ok_down && ok_up)
        return at - down <= up - at ? down : up;
    return ok_down ? down : ok_up ? up : at;
}

unsigned lc_pages_plan(struct lc_page_run *s, unsigned n, const int *spread_nodes, int nspread,
                       size_t page, size_t unit)
{
    unsigned present = 0, changes = 0;
    int prev = -1, exact = 1;
    for (unsigned i = 0; i < n; i++) {
        if (s[i].lo < s[i].page || s[i].hi > s[i].page + page)
            exact = 0;
        if (s[i].node < 0)
            continue;
        present++;
        changes += prev >= 0 && s[i].node != prev;
        prev = s[i].node;
    }
    if (present == 0)
        return 0;
    uintptr_t lo = s[0].lo, hi = s[n - 1].hi;
    if (changes == 0 || looks_spread(s, n, exact, spread_nodes, nspread, present, changes)) {
        s[0] = (struct lc_page_run){ lo, hi, s[0].page, changes == 0 ? prev : LC_DIR_SPREAD };
        return 1;
    }
    /* Runs, written over the samples (run k <= sample index).  last: the
     * last present sample of the current run, for the boundary. */
    unsigned k = 0;
    struct lc_page_run last = { 0 };
    for (unsigned i = 0; i < n; i++) {
        if (s[i].node < 0)
            continue;
        if (k == 0) {
            last = s[i];
            s[0] = (struct lc_page_run){ lo, s[i].hi, s[i].page, s[i].node };
            k = 1;
        } else if (s[i].node == s[k - 1].node) {
            last = s[i];
        } else {
            uintptr_t at = boundary(&last, &s[i], unit);
            s[k - 1].hi = at;
            last = s[i];
            s[k] = (struct lc_page_run){ at, s[i].hi, s[i].page, s[i].node };
            k++;
        }
    }
    s[k - 1].hi = hi;
    return k;
}

static size_t unit_value;
static pthread_once_t unit_once = PTHREAD_ONCE_INIT;

static void unit_init(void)
{
    unit_value = page_size();
    char buf[128] = "";
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f)
        return;
    int ok = fgets(buf, sizeof buf, f) != NULL;
    fclose(f);
    if (!ok || strstr(buf, "[never]") || !strchr(buf, '['))
        return;
    unsigned long long hp = 2u << 20;
    if ((f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "r"))) {
        if (fscanf(f, "%llu", &hp) != 1)
            hp = 2u << 20;
        fclose(f);
    }
    if (hp > unit_value && hp % unit_value == 0)
        unit_value = (size_t)hp;
}

size_t lc_pages_unit(void)
{
    pthread_once(&unit_once, unit_init);
    return unit_value;
}
