/*
 * stack.c - what the runtime knows of a worker's stack: where the bound on
 * running tasks at their spawn lies (lc_stack_room in runtime.h), and, for
 * the initial thread, a reserve of stack pages made present at locus_init.
 *
 * Why the reserve: the initial thread's stack is the one stack that grows
 * on demand, and growing it needs address space.  A program that has used
 * up its address space (ulimit -v, or a 32-bit-sized budget) gets -ENOMEM
 * from locus_spawn, and goes on; the next call that reaches a page of the
 * stack never touched before would be killed with SIGSEGV instead.  With
 * LC_STACK_RESERVE bytes below locus_init's frame present from the start,
 * the runtime's own calls from the initial thread (spawns, taskwaits,
 * completions: a few kilobytes deep) never grow the stack.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "runtime.h"

/* A few times the runtime's own depth (its calls are a few kilobytes
 * deep): each page is a fault at locus_init, about 2 us each in a VM. */
#define LC_STACK_RESERVE (64u << 10)
#define LC_STACK_DEFAULT (8u << 20)   /* when the system cannot say */

/* Touches one byte per page of n bytes below the caller's frame. */
static __attribute__((noinline)) void touch_below(size_t n)
{
    volatile char *p = __builtin_alloca(n);
    for (size_t i = 0; i < n; i += 4096)
        p[i] = 0;
    p[n - 1] = 0;
}

/* The top of the process's initial stack (ld.so's, exported by glibc). */
extern void *__libc_stack_end;

/* The main thread's stack, [*lo, *lo + *size), from its top and
 * RLIMIT_STACK: the kernel keeps at least that much address space free
 * below the stack's top.  What pthread_getattr_np finds by reading
 * /proc/self/maps, which took 100-150 us of locus_init.  0, or -1 when
 * the limit is unlimited or unknown. */
static int main_stack(void **lo, size_t *size)
{
    struct rlimit rl;
    uintptr_t top = (uintptr_t)__libc_stack_end;
    long page = sysconf(_SC_PAGESIZE);
    if (top == 0 || page <= 0 || getrlimit(RLIMIT_STACK, &rl) != 0
        || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= top)
        return -1;
    top = (top + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    *lo = (void *)(top - rl.rlim_cur);
    *size = rl.rlim_cur;
    return 0;
}

/* This thread's stack, once found: a thread's stack never moves, and
 * finding it costs pthread_getattr_np's malloc (for a thread's first,
 * a C library arena) and a system call, which a thread serving workers
 * in turn would pay at every turn. */
static __thread struct {
    void *lo;
    size_t size;   /* 0: unknown */
    int found;
} self_stack __attribute__((tls_model("initial-exec")));

void lc_stack_find(void)
{
    pthread_attr_t a;
    if (self_stack.found)
        return;
    self_stack.size = 0;
    if (getpid() == gettid() && main_stack(&self_stack.lo, &self_stack.size) == 0) {
        /* the main thread: known without reading /proc/self/maps */
    } else if (pthread_getattr_np(pthread_self(), &a) == 0) {
        if (pthread_attr_getstack(&a, &self_stack.lo, &self_stack.size) != 0)
            self_stack.size = 0;
        pthread_attr_destroy(&a);
    }
    self_stack.found = 1;
}

void lc_stack_setup(struct lc_worker *w)
{
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    lc_stack_find();
    size_t size = self_stack.size;
    void *lo = self_stack.lo;
    uintptr_t base;
    if (size && (uintptr_t)lo < here && here - (uintptr_t)lo <= size)
        base = (uintptr_t)lo;                        /* the stack's lowest address */
    else
        base = here > LC_STACK_DEFAULT ? here - LC_STACK_DEFAULT : 0;   /* a guess */
    /* half of what lies below this frame: the rest is the bodies' own */
    w->stack_floor = base + (here - base) / 2;
    if (w->id == 0 && here - w->stack_floor > LC_STACK_RESERVE)
        touch_below(LC_STACK_RESERVE);
}
