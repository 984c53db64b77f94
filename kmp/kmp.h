/*
 * kmp.h - internals of liblocus-omp, the LLVM OpenMP runtime's ABI (the
 * __kmpc_* entry points that clang, icx and AOCC emit, libomp.so.5's
 * soname and symbol version) over the same OpenMP layer as liblocus-gomp.
 *
 * What is OpenMP semantics (teams, ICVs, worksharing state, tasks, the
 * omp_* API) lives in gomp/ and is shared: a kmp entry point converts its
 * arguments (inclusive loop bounds, kmp_task_t blocks, kmp_depend_info
 * arrays, microtasks with their arguments) and calls the layer.  Only the
 * ABI is here.  The types below are the ones of LLVM's kmp.h that the
 * compiler lays out in the program; their layout is the ABI.
 */
#ifndef LC_KMP_H
#define LC_KMP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gomp.h"

#define KMP_EXPORT GOMP_EXPORT

typedef int32_t kmp_int32;
typedef uint32_t kmp_uint32;
typedef int64_t kmp_int64;
typedef uint64_t kmp_uint64;

/* A construct's source location; psource is ";file;function;line;col;;". */
typedef struct ident {
    kmp_int32 reserved_1;
    kmp_int32 flags;
    kmp_int32 reserved_2;
    kmp_int32 reserved_3;
    const char *psource;
} ident_t;

/* The outlined body of a parallel region: (gtid, bound tid, captures...). */
typedef void (*kmpc_micro)(kmp_int32 *gtid, kmp_int32 *btid, ...);

/* A critical section's name: 32 bytes of zeroed storage the program owns. */
typedef kmp_int32 kmp_critical_name[8];

/* Schedules of __kmpc_for_static_init_* and __kmpc_dispatch_init_* (the
 * values of LLVM's enum sched_type that a compiler passes). */
enum kmp_sched {
    KMP_SCH_STATIC_CHUNKED = 33,
    KMP_SCH_STATIC = 34,
    KMP_SCH_DYNAMIC_CHUNKED = 35,
    KMP_SCH_GUIDED_CHUNKED = 36,
    KMP_SCH_RUNTIME = 37,
    KMP_SCH_AUTO = 38,
    KMP_SCH_TRAPEZOIDAL = 39,
    KMP_SCH_STATIC_GREEDY = 40,
    KMP_SCH_STATIC_BALANCED = 41,
    KMP_SCH_GUIDED_ITERATIVE = 42,
    KMP_SCH_GUIDED_ANALYTICAL = 43,
    KMP_SCH_STATIC_STEAL = 44,
    KMP_SCH_STATIC_BALANCED_CHUNKED = 45,
    KMP_SCH_GUIDED_SIMD = 46,
    KMP_SCH_RUNTIME_SIMD = 47,
    KMP_ORD_LOWER = 64,           /* ordered forms: the above + 32 */
    KMP_ORD_UPPER = 72,
    KMP_DISTRIBUTE_STATIC_CHUNKED = 91,
    KMP_DISTRIBUTE_STATIC = 92,
    KMP_NM_LOWER = 160,           /* "nomerge" forms: the above + 128 */
    KMP_NM_UPPER = 200,
};
#define KMP_SCH_MODIFIER_MONOTONIC (1 << 29)
#define KMP_SCH_MODIFIER_NONMONOTONIC (1 << 30)

/* Reduction methods __kmpc_reduce* returns (the caller's switch) */
#define KMP_REDUCE_NONE 0        /* nothing to do here: another thread combines */
#define KMP_REDUCE_CRITICAL 1    /* combine with reduce_func, then __kmpc_end_reduce* */
#define KMP_REDUCE_ATOMIC 2      /* combine with atomics, then __kmpc_end_reduce* */

/* --- tasks --- */
struct kmp_task;
typedef kmp_int32 (*kmp_routine_entry_t)(kmp_int32 gtid, void *task);
typedef union kmp_cmplrdata {
    kmp_int32 priority;
    kmp_routine_entry_t destructors;
} kmp_cmplrdata_t;

/* What __kmpc_omp_task_alloc returns: the compiler's view of a task.
 * Its private copies follow it; shareds points into the same block. */
typedef struct kmp_task {
    void *shareds;
    kmp_routine_entry_t routine;
    kmp_int32 part_id;
    kmp_cmplrdata_t data1;        /* destructors (flags.destructors_thunk) */
    kmp_cmplrdata_t data2;        /* priority (flags.priority_specified) */
} kmp_task_t;

/* The compiler's half of kmp_tasking_flags_t (the flags argument of
 * __kmpc_omp_task_alloc) */
#define KMP_TASK_TIED 0x01
#define KMP_TASK_FINAL 0x02
#define KMP_TASK_MERGED_IF0 0x04
#define KMP_TASK_DESTRUCTORS 0x08
#define KMP_TASK_PROXY 0x10
#define KMP_TASK_PRIORITY 0x20
#define KMP_TASK_DETACHABLE 0x40

/* One depend clause item as clang lays it out. */
typedef struct kmp_depend_info {
    intptr_t base_addr;
    size_t len;
    uint8_t flags;                /* KMP_DEP_* */
} kmp_depend_info_t;
#define KMP_DEP_IN 0x01
#define KMP_DEP_OUT 0x02          /* out and inout: 0x03 */
#define KMP_DEP_MTX 0x04          /* mutexinoutset */
#define KMP_DEP_SET 0x08          /* inoutset */
#define KMP_DEP_ALL 0x80          /* omp_all_memory (also: base_addr -1 with out) */

/* What liblocus-omp keeps before each kmp_task_t it allocates (task.c):
 * the block is this header, the kmp_task_t with the privates the compiler
 * lays out after it, the shareds, and last the if0 record.  A taskloop's
 * tasks are copies of the whole block (taskloop.c).  The header is one
 * line, and holds only what a queued task's run reads: the block crosses
 * from its creator's core to its runner's, and every line of it that the
 * run touches is a line transfer. */
struct lc_kmp_tg;
struct gomp_event;
struct lc_kmp_cache;
struct lc_task;
struct lc_kmp_task {
    struct lc_kmp_cache *home;    /* where the block goes back (taskmem.c) */
    struct gomp_event *ev;        /* detach: the handle, or NULL */
    struct lc_kmp_tg *tg;         /* the taskgroup it was created in (taskred.c) */
    const void *creator;          /* Locus task that queued it (deferred or included?) */
    uint64_t id;                  /* __kmpc_get_taskid */
    uint64_t parent_id;
    uint32_t size;                /* of the whole block */
    kmp_int32 flags;              /* KMP_TASK_* */
    int resume;                   /* untied: the body queued itself again to go on */
    _Atomic uint32_t proxy_left;  /* proxy: its body's end, its completion, still to come */
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct lc_kmp_task) == 64, "the kmp task header is one line");
/* An undeferred task's encountering state, saved at
 * __kmpc_omp_task_begin_if0 and restored at its completion: at the end of
 * the block, which a queued task never touches. */
struct lc_kmp_if0 {
    int saved_final;
    struct lc_icvs saved_env;
    const void *saved_id;
    struct lc_task *saved_cur;
    struct lc_kmp_task *saved_running;
    struct lc_kmp_tg *saved_tg;
};
static inline struct lc_kmp_if0 *lc_kmp_task_if0(struct lc_kmp_task *h)
{
    return (struct lc_kmp_if0 *)((char *)h + h->size - sizeof(struct lc_kmp_if0));
}
static inline struct lc_kmp_task *lc_kmp_task_of(kmp_task_t *t)
{
    return (struct lc_kmp_task *)t - 1;
}
static inline kmp_task_t *lc_kmp_task_body(struct lc_kmp_task *h)
{
    return (kmp_task_t *)(h + 1);
}
/* Queues a task as __kmpc_omp_task does, with gomp's depend array (or
 * NULL); if_clause false runs it now on this thread (task.c). */
void lc_kmp_task_queue(kmp_task_t *t, void **depend, bool if_clause);
/* Runs it now on this thread, as an undeferred task (taskloop if(0)). */
void lc_kmp_task_run_now(kmp_task_t *t);
/* A new id for a task (copies of a taskloop's pattern). */
uint64_t lc_kmp_task_new_id(void);
/* Runs the destructors thunk if the task has one, and frees its block. */
void lc_kmp_task_free(kmp_int32 gtid, kmp_task_t *t);
/* proxy.c: a proxy task (KMP_TASK_PROXY) just allocated gets its event;
 * and whether this release of its block (its body's end, or its
 * completion) is the last, which frees it. */
void lc_kmp_proxy_init(struct lc_kmp_task *h);
bool lc_kmp_proxy_last(struct lc_kmp_task *h);

void __kmpc_taskgroup(ident_t *loc, int gtid);
void __kmpc_end_taskgroup(ident_t *loc, int gtid);

/* taskred.c: the innermost taskgroup of the running task, where task
 * reductions are found (NULL: none).  A task starts in the group it was
 * created in (lc_kmp_task.tg). */
extern __thread struct lc_kmp_tg *lc_kmp_cur_tg __attribute__((tls_model("initial-exec")));

/* the omp_* routines the layer calls (gomp/icv.c) */
int omp_get_thread_num(void);
int omp_get_num_threads(void);
int omp_in_parallel(void);

/* --- threads --- */
/* The calling thread's global thread number (the gtid the compiler passes
 * back to every entry point): given on first use (lc_kmp_gtid_new,
 * parallel.c), never reused.  Inline: every task run asks for it. */
extern __thread kmp_int32 lc_kmp_my_gtid __attribute__((tls_model("initial-exec")));
kmp_int32 lc_kmp_gtid_new(void);
static inline kmp_int32 lc_kmp_gtid(void)
{
    kmp_int32 g = lc_kmp_my_gtid;
    return __builtin_expect(g >= 0, 1) ? g : lc_kmp_gtid_new();
}

/* num_threads and proc_bind clauses pushed for the next region the thread
 * forks (parallel.c); 0 none. */
struct kmp_push {
    int num_threads;
    int teams, teams_limit;
};
extern __thread struct kmp_push lc_kmp_push;

/* A region's body as gomp_parallel runs it: the microtask and its
 * captured arguments (parallel.c). */
void lc_kmp_invoke_microtask(kmpc_micro fn, kmp_int32 gtid, kmp_int32 tid, int argc, void **argv);

#endif /* LC_KMP_H */
