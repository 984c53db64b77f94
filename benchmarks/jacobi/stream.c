/*
 * stream.c - the STREAM triad (McCalpin, "Memory bandwidth and machine
 * balance in current high performance computers", IEEE TCCA newsletter,
 * 1995): a[i] = b[i] + s * c[i] on T pthreads, the memory bandwidth
 * reference the Jacobi benchmark is compared with (both stream their data
 * with a trivial kernel).  No Locus: plain threads, each bound to a CPU,
 * first-touching and then processing its own contiguous part of the three
 * arrays, so that its pages are local to it.
 *
 * Metric, as STREAM counts it: 24 bytes per element and iteration (b and c
 * read, a written; the write-allocate read of a is not counted), best of
 * --reps iterations, GB = 1e9 bytes.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../common/bench.h"

#define ST_SCALAR 3.0

struct st_shared {
    double *a, *b, *c;
    long n;
    int nthreads;
    int reps;
    bool bind;
    int cpus[CPU_SETSIZE];  /* the CPUs of the process's affinity mask */
    int ncpus;
    pthread_barrier_t bar;  /* nthreads workers + the timing main thread */
    long bad;               /* wrong elements found by the check (under lock) */
    pthread_mutex_t lock;
};

struct st_thread {
    struct st_shared *sh;
    int id;
    pthread_t tid;
};

/*
 * The kernel, with explicit 4-double vectors (gcc vector extensions) and a
 * scalar tail: gcc -O2 leaves the plain loop scalar (unknown trip count),
 * and the scalar loop does not reach one core's bandwidth (measured 10.2
 * against 14.5 GB/s on the development machine), which would make this
 * reference too low.  jacobi_kernels.h's stencil is written the same way.
 */
typedef double st_v4 __attribute__((vector_size(4 * sizeof(double))));

__attribute__((noinline)) static void triad(double *restrict a, const double *restrict b,
                                            const double *restrict c, long lo, long hi)
{
    const st_v4 s = { ST_SCALAR, ST_SCALAR, ST_SCALAR, ST_SCALAR };
    long i = lo;
    for (; i + 4 <= hi; i += 4) {
        st_v4 x, y;
        memcpy(&x, b + i, sizeof x);
        memcpy(&y, c + i, sizeof y);
        x = x + s * y;
        memcpy(a + i, &x, sizeof x);
    }
    for (; i < hi; i++)
        a[i] = b[i] + ST_SCALAR * c[i];
}

static void *worker(void *p)
{
    struct st_thread *t = p;
    struct st_shared *sh = t->sh;
    long lo = sh->n * t->id / sh->nthreads, hi = sh->n * (t->id + 1) / sh->nthreads;

    if (sh->bind) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(sh->cpus[t->id % sh->ncpus], &set);
        pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    }
    for (long i = lo; i < hi; i++) {   /* first touch: the pages become this thread's */
        sh->a[i] = 0.0;
        sh->b[i] = 2.0 + (double)(i & 7);
        sh->c[i] = 1.0 + (double)(i & 3);
    }
    for (int r = 0; r < sh->reps; r++) {
        pthread_barrier_wait(&sh->bar);
        triad(sh->a, sh->b, sh->c, lo, hi);
        pthread_barrier_wait(&sh->bar);
    }
    long bad = 0;
    for (long i = lo; i < hi; i++)
        bad += sh->a[i] != sh->b[i] + ST_SCALAR * sh->c[i];
    pthread_mutex_lock(&sh->lock);
    sh->bad += bad;
    pthread_mutex_unlock(&sh->lock);
    return NULL;
}

static void usage(FILE *f, const char *prog)
{
    fprintf(f,
            "usage: %s [options]\n"
            "STREAM triad a[i] = b[i] + %g * c[i] on T threads, each on its own part.\n"
            "  --threads T  threads (default 2), bound to the CPUs of the affinity mask\n"
            "  --mb M       MiB per array (default 256: 768 MiB in all)\n"
            "  --reps R     iterations, the best reported (default 5)\n"
            "  --no-bind    leave the threads unbound\n"
            "  --help       this text\n"
            "Metric: GB/s = 24 bytes * elements / seconds (STREAM's count).\n",
            prog, ST_SCALAR);
}

static double *alloc_array(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "stream: cannot map %zu bytes\n", bytes);
        exit(1);
    }
    return p;
}

int main(int argc, char **argv)
{
    const char *prog = argv[0];
    static struct st_shared sh;
    long threads = 2, mb = 0, reps = 5;

    sh.bind = true;
    for (int i = 1; i < argc; i++) {
        static const char *const with_value[] = {
            "--threads", "--mb", "--reps", NULL,
        };
        char name[32];
        const char *val = bench_next_opt(prog, argc, argv, &i, name, sizeof name, with_value);
        if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
            usage(stdout, prog);
            return 0;
        } else if (!strcmp(name, "--threads")) {
            threads = bench_parse_long(prog, name, val, 1, 4096);
        } else if (!strcmp(name, "--mb")) {
            mb = bench_parse_long(prog, name, val, 1, 1L << 24);
        } else if (!strcmp(name, "--reps")) {
            reps = bench_parse_long(prog, name, val, 1, 1000);
        } else if (!strcmp(name, "--no-bind")) {
            sh.bind = false;
        } else {
            bench_die(prog, "unknown option '%s' (try --help)", argv[i]);
        }
    }

    const char *size = mb ? "custom" : "default";
    if (!mb)
        mb = 256;
    size_t bytes = (size_t)mb << 20;
    double have = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    if (have > 0 && 3.0 * (double)bytes > 0.9 * have) {
        fprintf(stderr, "%s: 3 x %ld MiB is more than this machine's memory (%.1f GiB)\n", prog,
                mb, have / (1 << 30));
        return 1;
    }
    if ((long)(bytes / sizeof(double)) < threads)
        bench_die(prog, "--mb %ld gives fewer elements than the %ld threads", mb, threads);
    sh.n = (long)(bytes / sizeof(double));
    sh.nthreads = (int)threads;
    sh.reps = (int)reps;
    sh.a = alloc_array(bytes);
    sh.b = alloc_array(bytes);
    sh.c = alloc_array(bytes);

    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof mask, &mask) == 0)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &mask))
                sh.cpus[sh.ncpus++] = c;
    if (sh.ncpus == 0)
        sh.bind = false;

    pthread_barrier_init(&sh.bar, NULL, (unsigned)threads + 1);
    pthread_mutex_init(&sh.lock, NULL);
    struct st_thread *t = calloc((size_t)threads, sizeof *t);
    if (!t) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return 1;
    }
    for (int i = 0; i < threads; i++) {
        t[i].sh = &sh;
        t[i].id = i;
        int err = pthread_create(&t[i].tid, NULL, worker, &t[i]);
        if (err) {
            fprintf(stderr, "%s: pthread_create: %s\n", prog, strerror(err));
            return 1;
        }
    }
    double best = 0;
    for (int r = 0; r < sh.reps; r++) {
        pthread_barrier_wait(&sh.bar);   /* every thread has touched its part */
        double t0 = bench_now();
        pthread_barrier_wait(&sh.bar);
        double s = bench_now() - t0;
        if (r == 0 || s < best)
            best = s;
    }
    for (int i = 0; i < threads; i++)
        pthread_join(t[i].tid, NULL);
    if (sh.bad)
        fprintf(stderr, "%s: %ld elements of a are wrong\n", prog, sh.bad);

    char params[96];
    snprintf(params, sizeof params, "threads=%ld,mb=%ld,reps=%ld%s", threads, mb, reps,
             sh.bind ? "" : ",unbound");
    struct bench_result res = {
        .benchmark = "stream", .size = size, .params = params, .seconds = best,
        .metric = 24.0 * (double)sh.n / best / 1e9, .metric_unit = "GB/s",
        .verified = sh.bad == 0, .blas = "none", .impl = "stream-triad",
    };
    bench_print(&res);

    free(t);
    munmap(sh.a, bytes);
    munmap(sh.b, bytes);
    munmap(sh.c, bytes);
    return sh.bad ? 1 : 0;
}
