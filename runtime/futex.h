/*
 * futex.h - the few primitives a waiting thread needs: a pause between
 * polls and a private futex word to sleep on (wait.c for tasks, team.c for
 * team jobs).
 */
#ifndef LC_FUTEX_H
#define LC_FUTEX_H

#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sim.h"

/* Gives the processor to another thread (another simulated one under
 * LOCUS_SIM). */
static inline void lc_yield(void)
{
    if (__builtin_expect(lc_sim != NULL, 0))
        lc_sim->yield();
    else
        sched_yield();
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

/* Sleeps while *addr == val (returns at once otherwise, or on a wake-up). */
static inline void futex_wait(_Atomic uint32_t *addr, uint32_t val)
{
    if (__builtin_expect(lc_sim != NULL, 0)) {   /* simulated time (sim.h) */
        lc_sim->wait(addr, val, 0);
        return;
    }
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

/* futex_wait for at most ns nanoseconds. */
static inline void futex_wait_ns(_Atomic uint32_t *addr, uint32_t val, uint64_t ns)
{
    if (__builtin_expect(lc_sim != NULL, 0)) {
        lc_sim->wait(addr, val, ns ? ns : 1);
        return;
    }
    struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

uint64_t lc_now_ns(void);   /* stats.c */

/* futex_wait, after polling *addr for up to poll_ns nanoseconds (0: no
 * polling): for a wait known to be short and on the way of a program's
 * first parallel region (a worker thread starting), where a futex
 * wake-up's tens of microseconds would be most of it.  Only where the
 * waiter has a CPU to itself: a poller holds the CPU the awaited thread
 * may need. */
static inline void futex_wait_polled(_Atomic uint32_t *addr, uint32_t val, uint64_t poll_ns)
{
    if (poll_ns && __builtin_expect(lc_sim == NULL, 1)) {
        uint64_t until = lc_now_ns() + poll_ns;
        do {
            for (int i = 0; i < 64; i++) {
                if (atomic_load_explicit(addr, memory_order_acquire) != val)
                    return;
                cpu_relax();
            }
        } while (lc_now_ns() < until);
    }
    futex_wait(addr, val);
}

static inline void futex_wake(_Atomic uint32_t *addr, int n)
{
    if (__builtin_expect(lc_sim != NULL, 0)) {
        lc_sim->wake(addr, n);
        return;
    }
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

#endif /* LC_FUTEX_H */
