/*
 * smi.c - symmetric matrix inversion on Locus, the second benchmark of
 * section 5 of Caheny et al. (the OmpSs "symmatinv" of BSC): inv(A) of an
 * SPD matrix in three tiled stages,
 *   1. Cholesky A = L L^T              (POTRF, TRSM, SYRK, GEMM)
 *   2. W = inv(L)                      (TRSM, GEMM, TRSM, TRTRI)
 *   3. inv(A) = W^T W                  (SYRK, GEMM, TRMM, LAUUM)
 * all in place on the lower tiles (Agullo et al., VECPAR 2010; the kernels
 * and their order are in cholesky_kernels.h).  The three stages are spawned
 * one after the other with no taskwait between them: the tile dependencies
 * alone order them, so a tile's stage-2 work starts as soon as its stage-1
 * work is done (the OmpSs code gets the same overlap by fusing the three
 * k loops into one).  Same generator, first-touch initialisation tasks,
 * options and output as cholesky.c; flops counted as n^3 (n^3/3 per stage).
 */

#define CHOL_PROGRAM "smi"
#include "../cholesky/cholesky_tasks.h"

#define SMI_FULL_CHECK_MAX_N 2048  /* above: the O(n^2) random-vector check */

/* stage 2 */
static void t_trsm_right(void *p)
{
    struct targ *t = p;
    smi_trsm_right(t->a, t->c, t->nb);
}

static void t_gemm_nn(void *p)
{
    struct targ *t = p;
    smi_gemm_nn(t->a, t->b, t->c, t->nb);
}

static void t_trsm_left(void *p)
{
    struct targ *t = p;
    smi_trsm_left(t->a, t->c, t->nb);
}

static void t_trtri(void *p)
{
    struct targ *t = p;
    if (smi_trtri(t->c, t->nb) != 0)
        chol_failed();
}

/* stage 3 */
static void t_syrk_t(void *p)
{
    struct targ *t = p;
    smi_syrk_t(t->a, t->c, t->nb);
}

static void t_gemm_tn(void *p)
{
    struct targ *t = p;
    smi_gemm_tn(t->a, t->b, t->c, t->nb);
}

static void t_trmm(void *p)
{
    struct targ *t = p;
    smi_trmm(t->a, t->c, t->nb);
}

static void t_lauum(void *p)
{
    struct targ *t = p;
    if (smi_lauum(t->c, t->nb) != 0)
        chol_failed();
}

/* c = fn(a, b, c) at priority prio (chol_spawn), labelled with the
 * kernel's name (traces, and the simulator's task models: locus-sim(7)):
 * the task's dependencies are in a, in b, inout c. */
static void spawn3p(int prio, const char *label, locus_task_fn fn, double *a, double *b,
                    double *c, int nb, size_t tb)
{
    struct targ t = { .a = a, .b = b, .c = c, .nb = nb };
    locus_dep_t d[] = { LOCUS_IN(a, tb), LOCUS_IN(b, tb), LOCUS_INOUT(c, tb) };
    check("locus_task", chol_spawn(prio, label, fn, &t, sizeof t, d, 3));
}

/* c = fn(a, c) */
static void spawn2p(int prio, const char *label, locus_task_fn fn, double *a, double *c, int nb,
                    size_t tb)
{
    struct targ t = { .a = a, .c = c, .nb = nb };
    locus_dep_t d[] = { LOCUS_IN(a, tb), LOCUS_INOUT(c, tb) };
    check("locus_task", chol_spawn(prio, label, fn, &t, sizeof t, d, 2));
}

/* c = fn(c) */
static void spawn1p(int prio, const char *label, locus_task_fn fn, double *c, int nb, size_t tb)
{
    struct targ t = { .c = c, .nb = nb };
    locus_dep_t d[] = { LOCUS_INOUT(c, tb) };
    check("locus_task", chol_spawn(prio, label, fn, &t, sizeof t, d, 1));
}

#define spawn3(...) spawn3p(0, __VA_ARGS__)
#define spawn2(...) spawn2p(0, __VA_ARGS__)
#define spawn1(...) spawn1p(0, __VA_ARGS__)

#define A(i, j) CHOL_TILE(m, i, j)

static void spawn_smi(struct chol_tiles *m)
{
    const int nt = m->nt, b = m->b;
    const size_t tb = m->tile_bytes;

    /* stage 1: A = L L^T, as in cholesky.c, with its priorities (the
     * later stages have none) */
    for (int k = 0; k < nt; k++) {
        spawn1p(CHOL_P_POTRF, "potrf", t_potrf, A(k, k), b, tb);
        for (int i = k + 1; i < nt; i++)
            spawn2p(CHOL_P_TRSM, "trsm", t_trsm, A(k, k), A(i, k), b, tb);
        for (int i = k + 1; i < nt; i++) {
            for (int j = k + 1; j < i; j++)
                spawn3p(chol_p_update(j, k), "gemm", t_gemm, A(i, k), A(j, k), A(i, j), b, tb);
            spawn2p(chol_p_update(i, k), "syrk", t_syrk, A(i, k), A(i, i), b, tb);
        }
    }

    /* stage 2: L -> W = inv(L) */
    for (int k = 0; k < nt; k++) {
        for (int i = k + 1; i < nt; i++)
            spawn2("trsm_right", t_trsm_right, A(k, k), A(i, k), b, tb);
        for (int i = k + 1; i < nt; i++)
            for (int j = 0; j < k; j++)
                spawn3("gemm_nn", t_gemm_nn, A(i, k), A(k, j), A(i, j), b, tb);
        for (int j = 0; j < k; j++)
            spawn2("trsm_left", t_trsm_left, A(k, k), A(k, j), b, tb);
        spawn1("trtri", t_trtri, A(k, k), b, tb);
    }

    /* stage 3: W -> W^T W = inv(A) */
    for (int k = 0; k < nt; k++) {
        for (int j = 0; j < k; j++) {
            spawn2("syrk_t", t_syrk_t, A(k, j), A(j, j), b, tb);
            for (int i = j + 1; i < k; i++)
                spawn3("gemm_tn", t_gemm_tn, A(k, i), A(k, j), A(i, j), b, tb);
        }
        for (int j = 0; j < k; j++)
            spawn2("trmm", t_trmm, A(k, k), A(k, j), b, tb);
        spawn1("lauum", t_lauum, A(k, k), b, tb);
    }
}

#undef A

int main(int argc, char **argv)
{
    static const struct chol_program p = {
        .name = "smi",
        .about = "Tiled symmetric matrix inversion (Cholesky, TRTRI, LAUUM) on Locus tasks.",
        .spawn = spawn_smi,
        .verify = chol_check_inverse,
        .full_check_max_n = SMI_FULL_CHECK_MAX_N,
        .flops_per_n3 = 1.0,
        .tile_failed = "a POTRF or TRTRI tile failed (not positive definite or singular)",
        .residual = "||A inv(A) - I|| / (||A|| ||inv(A)|| n eps)",
    };
    return chol_tasks_main(argc, argv, &p);
}
