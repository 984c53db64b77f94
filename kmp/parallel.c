/*
 * parallel.c - parallel regions and threads of the LLVM OpenMP ABI:
 * __kmpc_fork_call and the clauses pushed before it (num_threads,
 * proc_bind), serialized regions (parallel if(0)), teams on the host
 * (__kmpc_fork_teams), and the thread numbers the compiler passes back.
 *
 * A region is gomp_parallel's (gomp/parallel.c): the same teams, ICVs,
 * nesting and worker pool as a gcc program's.  Each member calls the
 * microtask with its captured arguments (invoke.c).
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "kmp.h"

__thread struct kmp_push lc_kmp_push;

static _Atomic kmp_int32 next_gtid;
__thread kmp_int32 lc_kmp_my_gtid __attribute__((tls_model("initial-exec"))) = -1;

kmp_int32 lc_kmp_gtid_new(void)
{
    return lc_kmp_my_gtid = atomic_fetch_add_explicit(&next_gtid, 1, memory_order_relaxed);
}

/* The initial thread is gtid 0 (threadprivate data keeps the variable
 * itself for it): it takes its number when the library is loaded, before
 * any worker can. */
__attribute__((constructor)) static void initial_thread_gtid(void)
{
    lc_kmp_gtid();
}

KMP_EXPORT kmp_int32 __kmpc_global_thread_num(ident_t *loc)
{
    (void)loc;
    return lc_kmp_gtid();
}

KMP_EXPORT kmp_int32 __kmpc_global_num_threads(ident_t *loc)
{
    (void)loc;
    return atomic_load_explicit(&next_gtid, memory_order_relaxed);
}

KMP_EXPORT kmp_int32 __kmpc_bound_thread_num(ident_t *loc)
{
    (void)loc;
    return omp_get_thread_num();
}

KMP_EXPORT kmp_int32 __kmpc_bound_num_threads(ident_t *loc)
{
    (void)loc;
    return omp_get_num_threads();
}

KMP_EXPORT kmp_int32 __kmpc_in_parallel(ident_t *loc)
{
    (void)loc;
    return omp_in_parallel();
}

KMP_EXPORT kmp_int32 __kmpc_ok_to_fork(ident_t *loc)
{
    (void)loc;
    return 1;
}

/* A program compiled with -fopenmp's begin/end calls (icc's): the runtime
 * starts with the first region and stops at exit, as for gcc programs. */
KMP_EXPORT void __kmpc_begin(ident_t *loc, kmp_int32 flags)
{
    (void)loc;
    (void)flags;
}

KMP_EXPORT void __kmpc_end(ident_t *loc)
{
    (void)loc;
}

KMP_EXPORT void __kmpc_push_num_threads(ident_t *loc, kmp_int32 gtid, kmp_int32 num_threads)
{
    (void)loc;
    (void)gtid;
    lc_kmp_push.num_threads = num_threads > 0 ? num_threads : 0;
}

/* As in libomp: the next fork takes a pushed num_threads and clears it,
 * so there is nothing left to pop. */
KMP_EXPORT void __kmpc_pop_num_threads(ident_t *loc, kmp_int32 gtid)
{
    (void)loc;
    (void)gtid;
}

/* proc_bind: Locus binds its workers once, by LOCUS_BIND (as a gcc
 * program's proc_bind clause, which gomp/ accepts and leaves alone). */
KMP_EXPORT void __kmpc_push_proc_bind(ident_t *loc, kmp_int32 gtid, int proc_bind)
{
    (void)loc;
    (void)gtid;
    (void)proc_bind;
}

struct fork {
    kmpc_micro fn;
    int argc;
    void **argv;
};

/* A member's implicit task is in no taskgroup (task reductions: taskred.c),
 * whatever the forking thread's task is in. */
static void member(void *arg)
{
    const struct fork *f = arg;
    struct lc_kmp_tg *saved_tg = lc_kmp_cur_tg;
    lc_kmp_cur_tg = NULL;
    lc_kmp_invoke_microtask(f->fn, lc_kmp_gtid(), omp_get_thread_num(), f->argc, f->argv);
    lc_kmp_cur_tg = saved_tg;
}

/* Up to this many captured arguments live on the forking thread's stack. */
#define FORK_ARGS_ON_STACK 16

/* f: the microtask and its argc captured arguments from ap, in stack (of
 * FORK_ARGS_ON_STACK) or, beyond that, on the heap (the caller frees
 * f->argv when it is not stack); who: the entry point, for the message. */
static void fork_args(struct fork *f, kmpc_micro fn, kmp_int32 argc, va_list ap, void **stack,
                      const char *who)
{
    *f = (struct fork){ fn, argc < 0 ? 0 : argc, stack };
    if (f->argc > FORK_ARGS_ON_STACK) {
        f->argv = malloc(sizeof(void *) * (size_t)f->argc);
        if (!f->argv)
            gomp_unsupported(who, "out of memory for a region's arguments");
    }
    for (int i = 0; i < f->argc; i++)
        f->argv[i] = va_arg(ap, void *);
}

KMP_EXPORT void __kmpc_fork_call(ident_t *loc, kmp_int32 argc, kmpc_micro microtask, ...)
{
    (void)loc;
    void *stack_args[FORK_ARGS_ON_STACK];
    struct fork f;
    va_list ap;
    va_start(ap, microtask);
    fork_args(&f, microtask, argc, ap, stack_args, "__kmpc_fork_call");
    va_end(ap);
    unsigned n = (unsigned)lc_kmp_push.num_threads;
    lc_kmp_push.num_threads = 0;   /* the clause is this region's, not its nested ones' */
    gomp_parallel(member, &f, n, NULL);
    if (f.argv != stack_args)
        free(f.argv);
}

/* parallel if(false): the caller runs the outlined body itself between
 * the two calls, as a region of one thread. */
static void nothing(void *arg)
{
    (void)arg;
}

void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads);
void GOMP_parallel_end(void);

KMP_EXPORT void __kmpc_serialized_parallel(ident_t *loc, kmp_int32 gtid)
{
    (void)loc;
    (void)gtid;
    lc_kmp_push.num_threads = 0;
    GOMP_parallel_start(nothing, NULL, 1);
}

KMP_EXPORT void __kmpc_end_serialized_parallel(ident_t *loc, kmp_int32 gtid)
{
    (void)loc;
    (void)gtid;
    GOMP_parallel_end();
}

/* --- teams on the host: one team after the other on this thread --- */

void GOMP_teams_reg(void (*fn)(void *), void *data, unsigned num_teams,
                    unsigned thread_limit, unsigned flags);

KMP_EXPORT void __kmpc_push_num_teams(ident_t *loc, kmp_int32 gtid, kmp_int32 num_teams,
                                      kmp_int32 num_threads)
{
    (void)loc;
    (void)gtid;
    lc_kmp_push.teams = num_teams > 0 ? num_teams : 0;
    lc_kmp_push.teams_limit = num_threads > 0 ? num_threads : 0;
}

/* OpenMP 5.1's num_teams(lower:upper): the host runs the lower count. */
KMP_EXPORT void __kmpc_push_num_teams_51(ident_t *loc, kmp_int32 gtid, kmp_int32 lb,
                                         kmp_int32 ub, kmp_int32 num_threads)
{
    __kmpc_push_num_teams(loc, gtid, lb > 0 ? lb : ub, num_threads);
}

static void team_member(void *arg)
{
    const struct fork *f = arg;
    lc_kmp_invoke_microtask(f->fn, lc_kmp_gtid(), 0, f->argc, f->argv);
}

KMP_EXPORT void __kmpc_fork_teams(ident_t *loc, kmp_int32 argc, kmpc_micro microtask, ...)
{
    (void)loc;
    void *stack_args[FORK_ARGS_ON_STACK];
    struct fork f;
    va_list ap;
    va_start(ap, microtask);
    fork_args(&f, microtask, argc, ap, stack_args, "__kmpc_fork_teams");
    va_end(ap);
    unsigned teams = (unsigned)lc_kmp_push.teams, limit = (unsigned)lc_kmp_push.teams_limit;
    lc_kmp_push.teams = lc_kmp_push.teams_limit = 0;
    GOMP_teams_reg(team_member, &f, teams, limit, 0);
    if (f.argv != stack_args)
        free(f.argv);
}
