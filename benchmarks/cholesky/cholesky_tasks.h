/*
 * cholesky_tasks.h - the Locus side shared by cholesky.c and smi.c (SMI's
 * first stage is the Cholesky factorisation): the task argument, the
 * first-touch initialisation tasks, the four Cholesky tile task bodies and
 * the program around them (chol_tasks_main).
 * A tile kernel that fails (POTRF on a tile that is not positive definite,
 * TRTRI on a singular one) sets chol_tile_failed; the run then reports
 * verification failed.
 */
#ifndef CHOLESKY_TASKS_H
#define CHOLESKY_TASKS_H

#include <stdatomic.h>

#include "cholesky_common.h"

struct targ {
    double *a, *b, *c;  /* inputs a, b; c read and written */
    long ti, tj, n;     /* init tasks: which tile */
    int nb;
};

static atomic_int chol_tile_failed;

/* locus_spawn at priority prio (0, or --priorities off: none), labelled
 * with its kernel's name for traces (LOCUS_TRACE, LOCUS_DAG). */
static inline int chol_spawn(int prio, const char *label, locus_task_fn fn, const void *arg,
                             size_t size, const locus_dep_t *deps, size_t ndeps)
{
    locus_task_attr_t a = LOCUS_TASK_ATTR_INIT;
    a.priority = chol_prio ? prio : 0;
    a.label = label;
    return locus_spawn_attr(fn, arg, size, deps, ndeps, &a);
}

static void chol_failed(void)
{
    atomic_store_explicit(&chol_tile_failed, 1, memory_order_relaxed);
}

__attribute__((noinline, cold, noreturn)) static void chol_die(const char *what, int err)
{
    fprintf(stderr, "%s: %s: %s (%s)\n", CHOL_PROGRAM, what, locus_strerror(err),
            locus_error_message());
    exit(1);
}

static inline void check(const char *what, int err)
{
    if (__builtin_expect(err < 0, 0))
        chol_die(what, err);
}

static void t_init(void *p)
{
    struct targ *t = p;
    chol_gen_tile(t->c, t->ti, t->tj, t->nb, t->n);
}

static void t_potrf(void *p)
{
    struct targ *t = p;
    if (chol_potrf(t->c, t->nb) != 0)
        chol_failed();
}

static void t_trsm(void *p)
{
    struct targ *t = p;
    chol_trsm(t->a, t->c, t->nb);
}

static void t_syrk(void *p)
{
    struct targ *t = p;
    chol_syrk(t->a, t->c, t->nb);
}

static void t_gemm(void *p)
{
    struct targ *t = p;
    chol_gemm(t->a, t->b, t->c, t->nb);
}

/* One first-touch task per lower tile: under NAFT the tiles are dealt over
 * the nodes, and each is written where its task runs. */
static inline void spawn_init(struct chol_tiles *m)
{
    const size_t tb = m->tile_bytes;
    for (int i = 0; i < m->nt; i++)
        for (int j = 0; j <= i; j++) {
            double *aij = CHOL_TILE(m, i, j);
            struct targ a = { .c = aij, .ti = i, .tj = j, .n = m->n, .nb = m->b };
            check("locus_task", chol_spawn(0, "init", t_init, &a, sizeof a,
                                           &LOCUS_OUT(aij, tb), 1));
        }
}

/* What the two programs built on this file differ in. */
struct chol_program {
    const char *name;                   /* result lines */
    const char *about;                  /* --help */
    void (*spawn)(struct chol_tiles *m);                       /* the timed tasks */
    struct chol_check (*verify)(const struct chol_tiles *m, int full);
    long full_check_max_n;              /* above: the O(n^2) random-vector check */
    double flops_per_n3;                /* flop count / n^3 */
    const char *tile_failed;            /* said when a tile kernel failed */
    const char *residual;               /* what verify measures */
};

/* Parses options, then per repetition: initialise the tiles in first-touch
 * tasks, time p->spawn's tasks, verify, report.  Inlined into each main,
 * where p is a constant, so p->spawn and p->verify become direct calls. */
static inline __attribute__((always_inline)) int
chol_tasks_main(int argc, char **argv, const struct chol_program *p)
{
    struct chol_opts o;
    struct chol_tiles m;
    char blas[64];

    chol_parse(argc, argv, p->about, &o);
    bench_blas(blas, sizeof blas, 1);
    chol_warmup(o.b);
    check("locus_init", locus_init());
    /* after locus_init: under DI the pages of the tiles are interleaved */
    chol_tiles_alloc(&m, o.n, o.b);

    for (int rep = 0; rep < o.reps; rep++) {
        spawn_init(&m);
        check("locus_taskwait", locus_taskwait());
        check("locus_reset_stats", locus_reset_stats());
        atomic_store_explicit(&chol_tile_failed, 0, memory_order_relaxed);

        double t0 = bench_now();
        p->spawn(&m);
        check("locus_taskwait", locus_taskwait());
        double secs = bench_now() - t0;

        /* simulated (LOCUS_SIM): the modelled bodies did not run */
        struct chol_check c = { 0, "simulated", -1 };
        if (!bench_simulated())
            c = p->verify(&m, o.n <= p->full_check_max_n);
        if (atomic_load_explicit(&chol_tile_failed, memory_order_relaxed)) {
            printf("  %s\n", p->tile_failed);
            c.ok = 0;
        }
        chol_report(p->name, &o, "locus", blas, secs, p->flops_per_n3 * o.n * o.n * o.n,
                    p->residual, &c);
    }

    /* the directory must not keep the tiles' placement for reused memory */
    for (int i = 0; i < m.nt; i++)
        for (int j = 0; j <= i; j++)
            check("locus_forget", locus_forget(CHOL_TILE(&m, i, j), m.tile_bytes));
    chol_tiles_free(&m);
    check("locus_finalize", locus_finalize());
    return 0;
}

#endif /* CHOLESKY_TASKS_H */
