/*
 * sim_probe.c - measures a machine model for the simulator on the machine
 * it runs on (LOCUS_SIM_MACHINE, locus-sim(7)): what one core can read
 * (core_bw), what all the cores of node 0 read from node 0's memory
 * (local_bw, mem_bw) and from each other node's (near_bw and far_bw: the
 * nodes at the smallest remote distance, and the others), and the load
 * latency of a dependent chain of loads over a buffer far larger than the
 * caches, locally and from each class of remote node.  Written as the
 * file's "key = value" lines; classes this machine lacks (one node: no
 * near or far) are left out, with a comment saying so, and the preset's
 * figures stand for them.
 *
 *   build/bench/sim_probe > sim/machines/$(hostname).machine
 */
#define _GNU_SOURCE
#include <errno.h>
#include <numa.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BW_BYTES (256ul << 20)    /* per reading thread */
#define LAT_BYTES (256ul << 20)   /* the chase's buffer */
#define LAT_LOADS 4000000ul

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *alloc_on(size_t bytes, int node)
{
    void *p = numa_available() >= 0 ? numa_alloc_onnode(bytes, node) : malloc(bytes);
    if (!p) {
        fprintf(stderr, "sim_probe: out of memory for %zu bytes on node %d\n", bytes, node);
        exit(1);
    }
    memset(p, 1, bytes);   /* placed (first touch by this thread: numa_alloc_onnode binds) */
    return p;
}

static void release(void *p, size_t bytes)
{
    if (numa_available() >= 0)
        numa_free(p, bytes);
    else
        free(p);
}

struct reader {
    const uint64_t *buf;
    size_t words;
    int cpu;
    pthread_barrier_t *go;
    double secs;
    uint64_t sum;
};

static void *read_all(void *arg)
{
    struct reader *r = arg;
    if (r->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(r->cpu, &set);
        pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    }
    pthread_barrier_wait(r->go);
    double t0 = now();
    uint64_t s = 0;
    for (int rep = 0; rep < 3; rep++)
        for (size_t i = 0; i < r->words; i += 8)   /* one load per 64-byte line */
            s += r->buf[i] + r->buf[i + 4];
    r->secs = now() - t0;
    r->sum = s;
    return NULL;
}

/* GB/s that nthreads readers on cpus draw from buffers on node mem (each
 * its own), counting each line read once. */
static double bandwidth(const int *cpus, int nthreads, int mem)
{
    struct reader r[nthreads];
    pthread_t t[nthreads];
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, (unsigned)nthreads);
    for (int i = 0; i < nthreads; i++) {
        r[i] = (struct reader){ alloc_on(BW_BYTES, mem), BW_BYTES / 8, cpus[i], &go, 0, 0 };
    }
    for (int i = 0; i < nthreads; i++)
        pthread_create(&t[i], NULL, read_all, &r[i]);
    double slowest = 0;
    for (int i = 0; i < nthreads; i++) {
        pthread_join(t[i], NULL);
        slowest = r[i].secs > slowest ? r[i].secs : slowest;
        release((void *)r[i].buf, BW_BYTES);
    }
    pthread_barrier_destroy(&go);
    return slowest > 0 ? 3.0 * BW_BYTES * nthreads / slowest / 1e9 : 0;
}

/* ns per load of a random cyclic chain over a buffer on node mem, read
 * from the calling thread (bound to cpu). */
static double latency(int cpu, int mem)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    size_t n = LAT_BYTES / 64;
    uint64_t *b = alloc_on(LAT_BYTES, mem);
    size_t *perm = malloc(n * sizeof *perm);
    if (!perm) {
        fprintf(stderr, "sim_probe: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = n - 1; i > 0; i--) {   /* Fisher-Yates, xorshift */
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t j = x % (i + 1), k = perm[i];
        perm[i] = perm[j];
        perm[j] = k;
    }
    for (size_t i = 0; i < n; i++)   /* one line per step, the chain through perm */
        b[perm[i] * 8] = perm[(i + 1) % n] * 8;
    free(perm);
    volatile uint64_t p = 0;
    double t0 = now();
    uint64_t q = p;
    for (size_t i = 0; i < LAT_LOADS; i++)
        q = b[q];
    p = q;
    double ns = (now() - t0) * 1e9 / LAT_LOADS;
    release(b, LAT_BYTES);
    return ns;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        fprintf(stderr, "usage: %s > FILE\nMeasures a machine model for LOCUS_SIM_MACHINE "
                "(locus-sim(7)) on this machine, as 'key = value' lines.\n", argv[0]);
        return strcmp(argv[1], "--help") == 0 ? 0 : 2;
    }
    int numa = numa_available() >= 0;
    int nodes = numa ? numa_max_node() + 1 : 1;
    int cpus[CPU_SETSIZE], ncpus = 0;
    struct bitmask *cm = numa ? numa_allocate_cpumask() : NULL;
    if (numa && numa_node_to_cpus(0, cm) == 0) {
        for (unsigned c = 0; c < cm->size && ncpus < CPU_SETSIZE; c++)
            if (numa_bitmask_isbitset(cm, c))
                cpus[ncpus++] = (int)c;
    } else {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        for (long c = 0; c < n && ncpus < CPU_SETSIZE; c++)
            cpus[ncpus++] = (int)c;
    }
    if (ncpus == 0) {
        fprintf(stderr, "sim_probe: node 0 has no CPUs\n");
        return 1;
    }
    char host[64] = "this machine";
    gethostname(host, sizeof host);
    double core = bandwidth(cpus, 1, 0), local = bandwidth(cpus, ncpus, 0);
    printf("# machine model measured by sim_probe on %s: %d NUMA node%s, %d CPUs on node 0\n"
           "name = probe-%s\n", host, nodes, nodes == 1 ? "" : "s", ncpus, host);
    printf("core_bw = %.2f\nlocal_bw = %.2f\nmem_bw = %.2f\n", core, local, local);
    printf("local_lat = %.1f\n", latency(cpus[0], 0));
    if (nodes < 2) {
        printf("# one node: no near or far figures (the preset's stand)\n");
        return 0;
    }
    /* near: the smallest remote distance from node 0; far: the rest */
    int dmin = 1 << 30;
    for (int n = 1; n < nodes; n++)
        if (numa_distance(0, n) < dmin)
            dmin = numa_distance(0, n);
    double sum[2] = { 0, 0 }, lat[2] = { 0, 0 };
    int cnt[2] = { 0, 0 };
    for (int n = 1; n < nodes; n++) {
        int c = numa_distance(0, n) > dmin;
        sum[c] += bandwidth(cpus, ncpus, n);
        lat[c] += latency(cpus[0], n);
        cnt[c]++;
    }
    static const char *const cls[2] = { "near", "far" };
    for (int c = 0; c < 2; c++) {
        if (!cnt[c]) {
            printf("# no %s nodes from node 0 (the preset's figures stand)\n", cls[c]);
            continue;
        }
        printf("%s_bw = %.2f\n%s_lat = %.1f\n", cls[c], sum[c] / cnt[c], cls[c], lat[c] / cnt[c]);
    }
    return 0;
}
