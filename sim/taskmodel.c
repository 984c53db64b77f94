/*
 * taskmodel.c - how long a task's body takes in simulation: a model per
 * kernel, read from a file (LOCUS_SIM_MODEL), chosen by the task's name
 * (its label, else its function's symbol, else "object+0xoffset", as
 * LOCUS_DAG names it).  A model gives the compute time with the data in
 * cache, at one or more sizes (the task's dependency bytes); the memory
 * traffic is the simulator's (charge.c).  Between two sizes the time is
 * interpolated on a power law (a tile kernel of n^3 work over n^2 bytes
 * gives exponent 1.5), past the ends extrapolated with the nearest
 * segment's; one size alone scales linearly with the bytes, or is a
 * constant when its size is 0.
 *
 *   # name          bytes      compute_ns   [overlap]
 *   cholesky_gemm   14155776   21800000
 *
 * overlap (0 to 1, default 0, the last one given for a name counts): how
 * much of the compute hides the memory traffic.  0: a body takes its
 * traffic's time, then its compute (tile kernels, whose misses stall their
 * arithmetic); 1: the longer of the two (streaming kernels, whose
 * prefetched loads run under their arithmetic); between, in proportion.
 *
 * A task without a model runs its body and is charged the processor time
 * it took (sim_models_compute answers < 0 for it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define NAME_MAX_LEN 96

struct point {
    double bytes, ns;
};

struct model {
    char name[NAME_MAX_LEN + 1];
    struct point *p;
    int n, cap;
    double overlap;
};

static struct model *models;
static int nmodels, capmodels;

/* fn -> its name and model, resolved once per function */
struct fnent {
    locus_task_fn fn;
    char name[NAME_MAX_LEN];
    const struct model *m;   /* NULL: none */
    int resolved;
    struct fnent *next;
};
#define NBUCKETS 1024
static struct fnent *buckets[NBUCKETS];
/* The actors run one at a time, but a real thread (a program's own) may
 * spawn too: the table is locked. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

uint64_t sim_modelled, sim_run;

static struct model *find_model(const char *name)
{
    for (int i = 0; i < nmodels; i++)
        if (strcmp(models[i].name, name) == 0)
            return &models[i];
    return NULL;
}

static int by_bytes(const void *a, const void *b)
{
    double x = ((const struct point *)a)->bytes, y = ((const struct point *)b)->bytes;
    return x < y ? -1 : x > y;
}

int sim_models_load(const char *path, char *err, size_t errlen)
{
    if (!path || !path[0])
        return 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "LOCUS_SIM_MODEL='%s': cannot open it: %s", path, strerror(errno));
        return -1;
    }
    char line[512];
    int ln = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char name[NAME_MAX_LEN + 1], extra[8];
        name[0] = 0;
        double bytes, ns, overlap = -1;
        int k = sscanf(line, "%96s %lf %lf %lf %7s", name, &bytes, &ns, &overlap, extra);
        if (k <= 0)
            continue;   /* blank */
        if ((k != 3 && k != 4) || !(bytes >= 0) || !(ns >= 0) || bytes > 1e18 || ns > 1e15
            || (k == 4 && !(overlap >= 0 && overlap <= 1))) {
            snprintf(err, errlen, "LOCUS_SIM_MODEL='%s', line %d: expected 'name bytes "
                     "compute_ns [overlap]' (two non-negative numbers, then one of 0 to 1)",
                     path, ln);
            fclose(f);
            return -1;
        }
        struct model *m = find_model(name);
        if (!m) {
            if (nmodels == capmodels) {
                int c = capmodels ? 2 * capmodels : 16;
                struct model *nm = realloc(models, (size_t)c * sizeof *nm);
                if (!nm)
                    goto oom;
                models = nm;
                capmodels = c;
            }
            m = &models[nmodels++];
            memset(m, 0, sizeof *m);
            snprintf(m->name, sizeof m->name, "%s", name);
        }
        if (m->n == m->cap) {
            int c = m->cap ? 2 * m->cap : 4;
            struct point *np = realloc(m->p, (size_t)c * sizeof *np);
            if (!np)
                goto oom;
            m->p = np;
            m->cap = c;
        }
        if (k == 4)
            m->overlap = overlap;
        m->p[m->n].bytes = bytes;
        m->p[m->n].ns = ns;
        m->n++;
    }
    fclose(f);
    for (int i = 0; i < nmodels; i++)
        qsort(models[i].p, (size_t)models[i].n, sizeof *models[i].p, by_bytes);
    return 0;
oom:
    fclose(f);
    snprintf(err, errlen, "LOCUS_SIM_MODEL='%s': out of memory", path);
    return -1;
}

static struct fnent *entry(locus_task_fn fn)
{
    uintptr_t h = ((uintptr_t)fn >> 4) % NBUCKETS;
    for (struct fnent *e = buckets[h]; e; e = e->next)
        if (e->fn == fn)
            return e;
    struct fnent *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->fn = fn;
    e->next = buckets[h];
    buckets[h] = e;
    return e;
}

const char *(*sim_symbol_name)(const void *fn, int full, char *buf, size_t len);

/* by the runtime's lookup (runtime/symbols.h): a static function by its
 * name, as the trace and the graph show it */
static void symbol_name(locus_task_fn fn, char *buf, size_t len)
{
    if (sim_symbol_name)
        sim_symbol_name((const void *)fn, 0, buf, len);
    else
        snprintf(buf, len, "%p", (void *)fn);
}

/* What a spawned task is, until its body: by descriptor. */
struct taskent {
    const void *task;
    const struct model *m;
    const char *name;
    struct taskent *next;
};
#define NTB 65536
static struct taskent *tbuckets[NTB], *tfree;

static struct fnent *resolved(locus_task_fn fn)
{
    struct fnent *e = entry(fn);
    if (e && !e->resolved) {
        symbol_name(fn, e->name, sizeof e->name);
        e->m = find_model(e->name);
        e->resolved = 1;
    }
    return e;
}

void sim_models_task(const void *task, locus_task_fn fn, const char *label, locus_task_fn name_fn)
{
    pthread_mutex_lock(&lock);
    struct taskent *t = tfree;
    if (t)
        tfree = t->next;
    else
        t = malloc(sizeof *t);
    if (t) {
        t->task = task;
        if (label) {   /* labels live until locus_finalize (locus_spawn_attr(3)) */
            t->name = label;
            t->m = find_model(label);
        } else {
            struct fnent *e = resolved(name_fn ? name_fn : fn);
            t->name = e ? e->name : "?";
            t->m = e ? e->m : NULL;
        }
        unsigned h = (unsigned)(((uintptr_t)task >> 6) % NTB);
        t->next = tbuckets[h];
        tbuckets[h] = t;
    }
    pthread_mutex_unlock(&lock);
}

const struct model *sim_models_take(const void *task, locus_task_fn fn, const char **name)
{
    const struct model *m = NULL;
    *name = "?";
    pthread_mutex_lock(&lock);
    unsigned h = (unsigned)(((uintptr_t)task >> 6) % NTB);
    struct taskent **pp = &tbuckets[h], *t;
    while ((t = *pp) && t->task != task)
        pp = &t->next;
    if (t) {   /* its body runs once: the descriptor may serve another task next */
        *pp = t->next;
        m = t->m;
        *name = t->name;
        t->next = tfree;
        tfree = t;
    } else {   /* a task spawned without a descriptor (a light one): by its function */
        struct fnent *e = resolved(fn);
        if (e) {
            m = e->m;
            *name = e->name;
        }
    }
    pthread_mutex_unlock(&lock);
    return m;
}

static double power_law(const struct point *a, const struct point *b, double x)
{
    if (a->bytes <= 0 || b->bytes <= a->bytes || a->ns <= 0 || b->ns <= 0)
        return a->ns + (b->ns - a->ns) * (b->bytes > a->bytes ? (x - a->bytes) / (b->bytes - a->bytes) : 0);
    double e = log(b->ns / a->ns) / log(b->bytes / a->bytes);
    return a->ns * pow(x / a->bytes, e);
}

double sim_models_overlap(const struct model *m)
{
    return m ? m->overlap : 0;
}

double sim_models_time(const struct model *m, uint64_t bytes)
{
    if (!m || m->n == 0)
        return -1;
    double x = (double)bytes, ns;
    if (m->n == 1)
        ns = m->p[0].bytes > 0 ? m->p[0].ns * x / m->p[0].bytes : m->p[0].ns;
    else {
        int i = 0;
        while (i < m->n - 2 && x > m->p[i + 1].bytes)
            i++;
        ns = x > 0 ? power_law(&m->p[i], &m->p[i + 1], x) : m->p[0].ns;
    }
    return ns > 0 ? ns * 1e-9 : 0;
}
