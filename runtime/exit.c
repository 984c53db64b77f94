/*
 * exit.c - LOCUS_REPORT, LOCUS_TRACE and LOCUS_DAG of a run that ends
 * without locus_finalize(): by exit() (from main or from a task), by a
 * return from main, or by SIGTERM (a batch system's time limit: SLURM
 * sends it, then SIGKILL after KillWait) or SIGINT.  Without this the
 * outputs were written by locus_finalize alone, and such a run left an
 * empty report file and an empty trace directory.
 *
 * The workers are not stopped: at exit they may be running tasks, and a
 * task may never end (it may wait for what main was to do).  The outputs
 * are taken as they stand: the counters are atomics any thread may read,
 * and each trace buffer is read up to what its worker had published
 * (trace.h: release stores of a chunk's count and link), so that a worker
 * still recording writes only past the cut.  The report says the run
 * ended without locus_finalize and how many tasks were unfinished; the
 * trace ends the tasks still running at the cut.
 *
 * exit() and a return from main: an atexit handler, registered at the
 * first locus_init (a forked child's exit writes nothing: the run is its
 * parent's).  A liblocus-gomp pool (team mode) or a simulated run
 * whose initial thread exits outside any task is left to their own
 * handlers, which call locus_finalize (gomp/parallel.c, sim.c).
 *
 * SIGTERM and SIGINT (LOCUS_SIGNALS=1, the default; locus(7)): a handler
 * is installed at locus_init, when there is an output to write, only
 * where the signal's disposition is the default one, so that a program's
 * own handler, or a signal ignored by the shell (SIGINT of a background
 * job), stays as it was.  The handler
 * does what is async-signal-safe only: it writes the signal's number to a
 * pipe.  A thread of ours reading it writes the outputs, then restores the
 * default disposition and raises the signal again, so that the process
 * still ends killed by it (the exit status a batch system reads).  A
 * second signal while the outputs are written ends the process at once.
 * locus_finalize restores the default dispositions where ours still are.
 *
 * One writer at a time, once per runtime: out_lock covers the choice of
 * who writes (rt->outputs_by) and the end of the runtime (lc_rt = NULL),
 * so that a writer here never reads a runtime being freed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime.h"
#include "sim.h"

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

/* The signal side.  sig_fd: the pipe's write end, read by the handler
 * (hence atomic); sig_seen: the first signal caught, 0 before. */
static const int handled[] = { SIGTERM, SIGINT };
#define NHANDLED (sizeof handled / sizeof handled[0])
static _Atomic int sig_fd = -1;
static _Atomic int sig_seen;
static int sig_rfd = -1;
static pid_t sig_pid;            /* the process that installed the handler */
static pid_t arm_pid;            /* the process that started the runtime: a forked
                                    child's exit writes nothing of its parent's */
static int sig_ours[NHANDLED];   /* our handler was installed for handled[i] */
static pthread_t sig_thread;
static int sig_thread_on;

static const char *signame(int sig)
{
    return sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : "a signal";
}

/* Puts sig back to its default action (async-signal-safe: memset,
 * sigemptyset, sigaction). */
static void default_action(int sig)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

static void die_of(int sig)
{
    default_action(sig);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
}

/* async-signal-safe: getpid(), atomics, write(), and where the outputs
 * are not ours to write (a second signal, a forked child, the runtime
 * ending) sigaction() and raise(): pending until the handler returns,
 * then the default action.  seq_cst: with signals_remove's exchange of
 * sig_fd and load of sig_seen, either the handler finds no pipe or the
 * remover finds the signal seen (and keeps the pipe open). */
static void on_signal(int sig)
{
    int saved = errno, fd = -1;
    if (getpid() != sig_pid
        || atomic_exchange_explicit(&sig_seen, sig, memory_order_seq_cst) != 0
        || (fd = atomic_load_explicit(&sig_fd, memory_order_seq_cst)) < 0) {
        default_action(sig);
        raise(sig);
    } else {
        unsigned char c = (unsigned char)sig;
        if (write(fd, &c, 1) < 0) {
            /* nothing to be done in a handler: the signal is lost */
        }
    }
    errno = saved;
}

static uint64_t unfinished_tasks(const struct lc_runtime *rt)
{
    uint64_t spawned = 0, run = 0;
    for (int i = 0; i < rt->nworkers; i++) {
        spawned += atomic_load_explicit(&rt->workers[i].stats.spawned, memory_order_relaxed);
        run += atomic_load_explicit(&rt->workers[i].stats.tasks_run, memory_order_relaxed);
    }
    return spawned > run ? spawned - run : 0;
}

/* Whether rt has outputs to write (LOCUS_REPORT; LOCUS_TRACE or
 * LOCUS_DAG, whose buffers the trace holds). */
static int has_outputs(const struct lc_runtime *rt)
{
    return rt->opt.report[0] || rt->trace_bufs;
}

/* Writes the outputs of rt, still running, as they stand (out_lock held). */
static void write_live(struct lc_runtime *rt, const char *ended)
{
    if (!has_outputs(rt))
        return;
    uint64_t left = unfinished_tasks(rt);
    fprintf(stderr, "locus: the program ended by %s without locus_finalize, %llu task%s "
            "unfinished: %s%s%s%s written as they stand\n",
            strcmp(ended, "exit") == 0 ? "exit() or a return from main" : ended,
            (unsigned long long)left,
            left == 1 ? "" : "s", rt->opt.report[0] ? "LOCUS_REPORT" : "",
            rt->opt.report[0] && rt->trace_bufs ? ", " : "",
            rt->opt.trace[0] ? "LOCUS_TRACE" : "",
            rt->opt.dag[0] ? (rt->opt.trace[0] ? ", LOCUS_DAG" : "LOCUS_DAG") : "");
    if (rt->opt.report[0])
        lc_stats_report(rt, ended, left);
    if (rt->trace_bufs) {
        char err[LC_PATH_MAX + 512];
        if (lc_trace_finish(rt, 1, err, sizeof err) < 0)
            fprintf(stderr, "locus: %s\n", err);
    }
}

/* exit(), a return from main: the outputs, unless locus_finalize will
 * still come (see the top of the file) or has written them */
static void at_exit(void)
{
    pthread_mutex_lock(&out_lock);
    struct lc_runtime *rt = lc_rt;
    struct lc_worker *w = lc_self;
    /* a signal came (its thread writes the outputs, or has): its thread
     * raises it again, which is how this process must end, not with
     * exit's status */
    int ours = getpid() == arm_pid;
    int by_signal = ours && ((rt && rt->outputs_by == LC_OUT_SIGNAL)
                             || atomic_load_explicit(&sig_seen, memory_order_seq_cst));
    if (!rt || !ours || rt->outputs_by != LC_OUT_NONE || by_signal
        || ((rt->team_mode || lc_sim) && w == &rt->workers[0] && w->cur == rt->root)) {
        pthread_mutex_unlock(&out_lock);
        while (by_signal)
            pause();
        return;
    }
    if (lc_sim) {   /* SimGrid's clock needs its actor: no outputs here */
        pthread_mutex_unlock(&out_lock);
        return;
    }
    rt->outputs_by = LC_OUT_EXIT;
    write_live(rt, "exit");
    pthread_mutex_unlock(&out_lock);
}

/* The thread that writes the outputs for a signal: a byte 0 ends it. */
static void *signal_main(void *arg)
{
    int rfd = (int)(intptr_t)arg;   /* (not sig_rfd: the remover may clear it) */
    for (;;) {
        unsigned char c;
        ssize_t n = read(rfd, &c, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n != 1 || c == 0)
            return NULL;
        int sig = c;
        pthread_mutex_lock(&out_lock);
        struct lc_runtime *rt = lc_rt;
        if (rt && rt->outputs_by == LC_OUT_NONE) {
            rt->outputs_by = LC_OUT_SIGNAL;
            write_live(rt, signame(sig));
        }
        pthread_mutex_unlock(&out_lock);
        die_of(sig);
        return NULL;   /* (not reached: the default action ends the process) */
    }
}

static void signals_install(struct lc_runtime *rt)
{
    int fds[2];
    /* without an output to write, a signal's default action is all the
     * handler would end in: no handler, no thread, no pipe (a thread's
     * start was part of every first parallel region) */
    if (!rt->opt.signals || lc_sim || !has_outputs(rt) || pipe2(fds, O_CLOEXEC) < 0)
        return;
    /* the thread takes no signal of the program's */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    sig_rfd = fds[0];
    int r = pthread_create(&sig_thread, NULL, signal_main, (void *)(intptr_t)fds[0]);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (r != 0) {
        close(fds[0]);
        close(fds[1]);
        sig_rfd = -1;
        if (rt->opt.verbose >= 1)
            fprintf(stderr, "locus: SIGTERM and SIGINT left alone: cannot start a thread: %s\n",
                    strerror(r));
        return;
    }
    sig_thread_on = 1;
    sig_pid = getpid();
    atomic_store_explicit(&sig_seen, 0, memory_order_seq_cst);
    atomic_store_explicit(&sig_fd, fds[1], memory_order_seq_cst);
    for (size_t i = 0; i < NHANDLED; i++) {
        struct sigaction cur, sa;
        sig_ours[i] = 0;
        if (sigaction(handled[i], NULL, &cur) < 0 || (cur.sa_flags & SA_SIGINFO)
            || cur.sa_handler != SIG_DFL)
            continue;   /* the program's own handler, or ignored: kept */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        if (sigaction(handled[i], &sa, NULL) == 0)
            sig_ours[i] = 1;
    }
}

static void signals_remove(void)
{
    for (size_t i = 0; i < NHANDLED; i++) {
        struct sigaction cur;
        if (!sig_ours[i])
            continue;
        sig_ours[i] = 0;
        /* where the program has not put its own handler since */
        if (sigaction(handled[i], NULL, &cur) == 0 && !(cur.sa_flags & SA_SIGINFO)
            && cur.sa_handler == on_signal)
            default_action(handled[i]);
    }
    if (!sig_thread_on)
        return;
    int wfd = atomic_exchange_explicit(&sig_fd, -1, memory_order_seq_cst);
    unsigned char zero = 0;
    if (atomic_load_explicit(&sig_seen, memory_order_seq_cst) == 0) {
        /* no signal came (one coming now finds no pipe and is fatal at
         * once): the thread is told to end, and joined */
        if (write(wfd, &zero, 1) == 1)
            pthread_join(sig_thread, NULL);
        else
            pthread_detach(sig_thread);
        close(wfd);
        close(sig_rfd);
    } else {
        /* a signal came: its thread writes what is left to write (nothing,
         * if finalize has) and ends the process by it; not waited for here,
         * and the pipe stays open for it and for the handler */
        pthread_detach(sig_thread);
    }
    sig_rfd = -1;
    sig_thread_on = 0;
}

void lc_exit_arm(struct lc_runtime *rt)
{
    static int registered;   /* under lc_init_lock (init.c) */
    if (!registered && atexit(at_exit) == 0)
        registered = 1;
    pthread_mutex_lock(&out_lock);
    arm_pid = getpid();
    pthread_mutex_unlock(&out_lock);
    signals_install(rt);
}

int lc_exit_claim(struct lc_runtime *rt)
{
    pthread_mutex_lock(&out_lock);
    int mine = rt->outputs_by == LC_OUT_NONE;
    if (mine)
        rt->outputs_by = LC_OUT_FINALIZE;
    pthread_mutex_unlock(&out_lock);
    return mine;
}

void lc_exit_disarm(struct lc_runtime *rt)
{
    (void)rt;
    signals_remove();
    pthread_mutex_lock(&out_lock);
    lc_rt = NULL;
    pthread_mutex_unlock(&out_lock);
}

/* The child of a fork (init.c's lc_forget_after_fork): the signal thread
 * is not there, so the handlers go back to the default action (a signal
 * now kills the child as it would without Locus, and the child's own
 * runtime, if it starts one, installs them afresh).  The pipe's ends are
 * the parent's as well: closed here, the parent keeps its own. */
void lc_exit_forget_after_fork(void)
{
    pthread_mutex_init(&out_lock, NULL);
    for (size_t i = 0; i < NHANDLED; i++) {
        struct sigaction cur;
        if (sig_ours[i] && sigaction(handled[i], NULL, &cur) == 0
            && !(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == on_signal)
            default_action(handled[i]);
        sig_ours[i] = 0;
    }
    int wfd = atomic_exchange_explicit(&sig_fd, -1, memory_order_seq_cst);
    if (sig_thread_on) {
        close(wfd);
        close(sig_rfd);
    }
    sig_rfd = -1;
    sig_thread_on = 0;
    atomic_store_explicit(&sig_seen, 0, memory_order_seq_cst);
}
