/*
 * granularity_master.h - the METG benchmark's second shape, --shape master:
 * that of an independent OpenMP task benchmark (Locus issue 28, part 3),
 * whose shape differs from ours in ways that can favour one runtime or
 * another, so both are measured.  Its shape:
 *
 *   t0 = now
 *   #pragma omp parallel          the process's FIRST region: its thread
 *   #pragma omp master            creation and the runtime's start are timed
 *   for each step t: for each x:  spawned step by step, no taskwait
 *       #pragma omp task depend(in: the previous step's cells) depend(out: own)
 *   (closing barrier)             the other threads wait there, running tasks
 *   dt = now - t0
 *
 * ours (granularity_common.h gran_run_all) instead runs every measurement in
 * one process, after an untimed warm-up, with parallel + single and a
 * taskwait a graph.  Since the first region has to be inside the timing,
 * a process makes exactly one (pattern, grain) measurement in this shape:
 * asked for several, the program runs itself once for each
 * (gran_master_fanout), all children sharing the parent's kernel
 * calibration, and exits 1 if any child did.
 *
 * The graph must exist before the timer starts, so its width comes from
 * the worker count the runtime will choose: OMP_NUM_THREADS or
 * LOCUS_THREADS (the first number of a list), else the CPUs this process
 * may run on, which is what libgomp, libomp and Locus default to; a region
 * that comes out with another count is an error (exit 1), never a result
 * for a graph of the wrong width.
 *
 * Graphs and verification are granularity_common.h's, unchanged.
 */
#ifndef GRANULARITY_MASTER_H
#define GRANULARITY_MASTER_H

#include <sched.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "granularity_common.h"

extern char **environ;

/*
 * Provided by each program: starts the timer, enters the runtime's first
 * parallel region (Locus: locus_init), spawns the whole graph step by step
 * from one thread with no wait between steps (gran_task_at's order; skip
 * and dup as gran_spawn_fn's), waits for it at the region's end, stops the
 * timer.  Returns the seconds and the region's thread count in *workers.
 */
typedef double (*gran_region_fn)(const struct gran_graph *g, long skip, long dup, int *workers);

/* The workers the runtime will start: the first number of env_var, else
 * the CPUs of this process's affinity mask. */
static int gran_expected_workers(const char *env_var)
{
    const char *v = getenv(env_var);
    if (v && *v) {
        char *end;
        long n = strtol(v, &end, 10);
        if (end != v && n >= 1 && n <= 4096 && (*end == '\0' || *end == ','))
            return (int)n;
    }
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* Runs this program once for each selected (pattern, grain), with
 * --shape master, its options and the parent's kernel rate; their output
 * goes straight to ours.  Returns the number of children that failed. */
static int gran_master_fanout(const struct gran_opts *o, double iters_per_us)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        fprintf(stderr, "granularity: /proc/self/exe: cannot find this program to run it "
                "again\n");
        return 1;
    }
    exe[n] = '\0';
    char ipu[64], budget[32], max[32], grain[32];
    snprintf(ipu, sizeof ipu, "%.17g", iters_per_us);
    snprintf(budget, sizeof budget, "%ld", o->budget_ms);
    snprintf(max, sizeof max, "%ld", o->max_tasks);
    int failed = 0;
    for (int p = 0; p < GP_COUNT; p++) {
        if (!o->on[p])
            continue;
        for (int i = 0; i < o->ngrains; i++) {
            snprintf(grain, sizeof grain, "%ld", o->grains[i]);
            char *argv[20];
            int k = 0;
            argv[k++] = exe;
            argv[k++] = "--shape";
            argv[k++] = "master";
            argv[k++] = "--pattern";
            argv[k++] = (char *)gran_pattern_name[p];
            argv[k++] = "--grain";
            argv[k++] = grain;
            argv[k++] = "--iters-per-us";
            argv[k++] = ipu;
            argv[k++] = "--budget-ms";
            argv[k++] = budget;
            argv[k++] = "--max-tasks";
            argv[k++] = max;
            if (o->quick)
                argv[k++] = "--quick";   /* the size label of its RESULT line */
            if (o->fault != GF_NONE) {
                argv[k++] = "--fault";
                argv[k++] = o->fault == GF_SKIP ? "skip" : "dup";
            }
            argv[k] = NULL;
            fflush(stdout);   /* the child writes to the same stdout after us */
            fflush(stderr);
            pid_t pid;
            int e = posix_spawn(&pid, exe, NULL, NULL, argv, environ);
            int st = 0;
            if (e != 0) {
                fprintf(stderr, "granularity: cannot run %s: %s\n", exe, strerror(e));
                failed++;
                continue;
            }
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
                ;
            if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
                continue;
            failed++;
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 1)   /* 1: it said what failed */
                fprintf(stderr, "granularity: --shape master --pattern %s --grain %s: %s %d\n",
                        gran_pattern_name[p], grain, WIFEXITED(st) ? "exit" : "signal",
                        WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
        }
    }
    return failed;
}

/*
 * --shape master: one measurement in this process when one pattern and one
 * grain are selected, else one child process each.  env_var names the
 * variable that sets the runtime's workers.  Returns main's exit status.
 */
static int gran_master_main(const struct gran_opts *o, const char *impl, const char *env_var,
                            double iters_per_us, const char *calibrated, gran_region_fn region)
{
    int p = -1, selected = 0;
    for (int i = 0; i < GP_COUNT; i++)
        if (o->on[i]) {
            p = i;
            selected++;
        }
    if (selected * o->ngrains != 1)
        return gran_master_fanout(o, iters_per_us) ? 1 : 0;

    int expected = gran_expected_workers(env_var);
    long grain = o->grains[0];
    struct gran_graph g;
    if (gran_graph_init(&g, p, expected, gran_tasks_for(o, grain, expected),
                        gran_iters(grain, iters_per_us)) != 0)
        bench_die("granularity", "out of memory");
    gran_graph_reset(&g);   /* cells and slots touched before the timer, as in ours */
    printf("# granularity impl=%s workers=%d kernel %.2f iterations/us (%s) shape=master\n",
           impl, expected, iters_per_us, calibrated);
    fflush(stdout);
    long mid = g.tasks / 2;
    int workers = 0;
    double dt = region(&g, o->fault == GF_SKIP ? mid : -1, o->fault == GF_DUP ? mid : -1,
                       &workers);
    if (workers != expected) {
        fprintf(stderr, "granularity: the parallel region had %d threads, the graph was built "
                "for %d (%s or the CPU count): set %s\n", workers, expected, env_var, env_var);
        gran_graph_free(&g);
        return 1;
    }
    int failed = gran_report(o, &g, p, grain, dt, workers, impl, "shape=master");
    gran_graph_free(&g);
    return failed ? 1 : 0;
}

#endif /* GRANULARITY_MASTER_H */
