/*
 * cholesky_tasks.h - the Locus side shared by cholesky.c and smi.c (SMI's
 * first stage is the Cholesky factorisation): the task argument, the
 * first-touch initialisation tasks and the four Cholesky tile task bodies.
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
static void spawn_init(struct chol_tiles *m)
{
    const size_t tb = m->tile_bytes;
    for (int i = 0; i < m->nt; i++)
        for (int j = 0; j <= i; j++) {
            double *aij = CHOL_TILE(m, i, j);
            struct targ a = { .c = aij, .ti = i, .tj = j, .n = m->n, .nb = m->b };
            check("locus_task", locus_task(t_init, &a, sizeof a, LOCUS_OUT(aij, tb)));
        }
}

#endif /* CHOLESKY_TASKS_H */
