/*
 * test_exit.c - LOCUS_REPORT, LOCUS_TRACE and LOCUS_DAG of runs that end
 * without locus_finalize (runtime/exit.c), each in a child (this program
 * started anew with --child MODE) whose workers are still running tasks:
 *   exit() from main, a return from main, exit() from a task: the child's
 *     own exit status; SIGTERM (and SIGINT) sent by the test while tasks
 *     run: the child dies of that signal;
 *   in each, the report (JSON Lines) is one complete line that says how
 *     the run ended ("ended") and how many tasks were unfinished (the
 *     tasks that never end, exactly), the DAG is a whole digraph, and the
 *     OTF2 trace reads with otf2-print (every task region entered is left:
 *     the ones still running end at the cut) and with tools/locus-trace;
 *   a forked child's exit() writes nothing (the report has one line);
 *   a cut taken while a worker spawns and runs tasks: whole outputs, every
 *     region entered in the trace left;
 *   LOCUS_SIGNALS=0: SIGTERM is left alone (death by it, an empty report
 *     file, no trace), a program's own SIGTERM handler is kept (it runs;
 *     the outputs are then written at its exit()), and so is a SIGINT it
 *     ignores (SIGINT does nothing, a SIGTERM then ends it);
 *   without any output to write, no handler at all (in this process).
 * The trace checks are left out, saying so, without OTF2 or otf2-print.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "config.h"
#include "locus.h"

#ifdef HAVE_OTF2
#define HAVE_TRACE 1
#else
#define HAVE_TRACE 0
#endif

extern char **environ;

#define NQUICK 8   /* tasks that end */
#define NSPIN 3    /* tasks that never do (LOCUS_THREADS=2: one runs, two wait) */

static char tmpdir[PATH_MAX];

/* ---- the child ------------------------------------------------------------ */

static atomic_int spinning;
static volatile sig_atomic_t got_term;

static void quick(void *arg)
{
    (void)arg;
    volatile unsigned x = 0;
    for (unsigned i = 0; i < 20000; i++)
        x += i;
}

static void spin(void *arg)
{
    (void)arg;
    atomic_fetch_add(&spinning, 1);
    for (;;) {   /* never ends: the process ends around it */
        struct timespec ts = { 0, 2000000 };
        nanosleep(&ts, NULL);
    }
}

/* Spawns and runs small tasks for ever: the exit's cut falls while its
 * worker records. */
static void churn(void *arg)
{
    (void)arg;
    atomic_fetch_add(&spinning, 1);
    locus_task_attr_t a = LOCUS_TASK_ATTR_INIT;
    a.label = "leaf";
    for (;;) {
        for (int i = 0; i < 32; i++)
            locus_spawn_attr(quick, NULL, 0, NULL, 0, &a);
        locus_taskwait();
    }
}

static void exiter(void *arg)
{
    (void)arg;
    exit(5);
}

static void on_term(int sig)
{
    (void)sig;
    got_term = 1;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
    nanosleep(&ts, NULL);
}

/* The child's run; returns only in mode "return". */
static int child(const char *mode)
{
    if (strcmp(mode, "own-handler") == 0)
        signal(SIGTERM, on_term);
    if (strcmp(mode, "ignore-int") == 0)
        signal(SIGINT, SIG_IGN);
    if (locus_init() != 0) {
        fprintf(stderr, "child: locus_init: %s\n", locus_error_message());
        _exit(20);
    }
    locus_task_attr_t a = LOCUS_TASK_ATTR_INIT;
    a.label = "quick";
    for (int i = 0; i < NQUICK; i++)
        if (locus_spawn_attr(quick, NULL, 0, NULL, 0, &a) != 0)
            _exit(21);
    if (locus_taskwait() != 0)
        _exit(22);
    if (strcmp(mode, "exit-task") == 0) {
        a.label = "exiter";
        locus_spawn_attr(exiter, NULL, 0, NULL, 0, &a);
        locus_taskwait();   /* where exiter ends the process */
        _exit(23);
    }
    int churning = strcmp(mode, "churn") == 0;
    a.label = churning ? "churn" : "spin";
    for (int i = 0; i < (churning ? 1 : NSPIN); i++)
        if (locus_spawn_attr(churning ? churn : spin, NULL, 0, NULL, 0, &a) != 0)
            _exit(24);
    /* one is running on worker 1 (main does not wait, so never runs one) */
    for (int i = 0; i < 60000 && atomic_load(&spinning) == 0; i++)
        sleep_ms(1);
    if (atomic_load(&spinning) == 0)
        _exit(25);
    if (churning)
        sleep_ms(100);   /* its buffers grow meanwhile */
    if (strcmp(mode, "fork") == 0) {
        /* a child of this process (no exec): its exit() is not the run's
         * end, so it writes nothing; the parent's exit writes once */
        pid_t pid = fork();
        if (pid == 0)
            exit(0);
        int st;
        if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
            _exit(27);
        exit(0);
    }
    if (strcmp(mode, "exit") == 0 || churning)
        exit(0);
    if (strcmp(mode, "return") == 0)
        return 0;
    /* signals: the test waits for this line, then sends SIGTERM */
    printf("ready\n");
    fflush(stdout);
    for (int i = 0; i < 60000 && !got_term; i++)
        sleep_ms(1);
    exit(got_term ? 7 : 26);
}

/* ---- the test's side --------------------------------------------------------- */

struct outputs {
    char report[PATH_MAX + 32], trace[PATH_MAX + 32], dag[PATH_MAX + 32];
};

/* Runs --child mode with fresh outputs (signals: LOCUS_SIGNALS's value,
 * or NULL), sending it signal first (0: none), then 100 ms later signal
 * term (0: none) once it is ready; its wait
 * status. */
static int run_child(const char *mode, const char *signals, int first, int term,
                     struct outputs *o)
{
    static int seq;
    seq++;
    snprintf(o->report, sizeof o->report, "%s/r%d.json", tmpdir, seq);
    snprintf(o->trace, sizeof o->trace, "%s/t%d", tmpdir, seq);
    snprintf(o->dag, sizeof o->dag, "%s/g%d.dot", tmpdir, seq);
    setenv("LOCUS_THREADS", "2", 1);
    setenv("LOCUS_REPORT", o->report, 1);
    setenv("LOCUS_DAG", o->dag, 1);
    if (HAVE_TRACE)
        setenv("LOCUS_TRACE", o->trace, 1);
    if (signals)
        setenv("LOCUS_SIGNALS", signals, 1);
    /* the child ends with its workers running: what they hold is no leak */
    const char *env_asan = getenv("ASAN_OPTIONS");
    char asan_buf[400], opts[512];
    const char *asan = env_asan ? strncpy(asan_buf, env_asan, sizeof asan_buf - 1) : NULL;
    asan_buf[sizeof asan_buf - 1] = '\0';
    snprintf(opts, sizeof opts, "%s%sdetect_leaks=0", asan ? asan : "", asan && *asan ? ":" : "");
    setenv("ASAN_OPTIONS", opts, 1);

    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(n > 0);
    self[n] = '\0';
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    char *argv[] = { self, (char *)"--child", (char *)mode, NULL };
    /* the child starts with both signals at their default (a shell starts
     * a background job with SIGINT ignored, which Locus would keep) */
    posix_spawnattr_t sa;
    sigset_t dfl;
    sigemptyset(&dfl);
    sigaddset(&dfl, SIGTERM);
    sigaddset(&dfl, SIGINT);
    posix_spawnattr_init(&sa);
    posix_spawnattr_setsigdefault(&sa, &dfl);
    posix_spawnattr_setflags(&sa, POSIX_SPAWN_SETSIGDEF);
    pid_t pid;
    int e = posix_spawn(&pid, self, &fa, &sa, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&sa);
    close(fds[1]);
    unsetenv("LOCUS_REPORT");
    unsetenv("LOCUS_DAG");
    unsetenv("LOCUS_TRACE");
    unsetenv("LOCUS_SIGNALS");
    if (asan)
        setenv("ASAN_OPTIONS", asan, 1);
    else
        unsetenv("ASAN_OPTIONS");
    assert_int_equal(e, 0);
    if (term) {
        char line[64] = "";
        FILE *f = fdopen(fds[0], "r");
        assert_non_null(f);
        assert_non_null(fgets(line, sizeof line, f));
        assert_string_equal(line, "ready\n");
        if (first) {
            assert_int_equal(kill(pid, first), 0);
            sleep_ms(100);
        }
        assert_int_equal(kill(pid, term), 0);
        fclose(f);
    } else {
        close(fds[0]);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        assert_int_equal(errno, EINTR);
    return status;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t cap = 1 << 16, n;
    char *p = malloc(cap);
    assert_non_null(p);
    *len = 0;
    while ((n = fread(p + *len, 1, cap - 1 - *len, f)) > 0) {
        *len += n;
        if (*len == cap - 1) {
            cap *= 2;
            p = realloc(p, cap);
            assert_non_null(p);
        }
    }
    p[*len] = '\0';
    fclose(f);
    return p;
}

static unsigned long long json_num(const char *s, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *p = strstr(s, k);
    assert_non_null(p);
    return strtoull(p + strlen(k), NULL, 10);
}

static int have(const char *cmd)
{
    char buf[256];
    snprintf(buf, sizeof buf, "command -v %s >/dev/null 2>&1", cmd);
    return system(buf) == 0;
}

/* The outputs of a run that ended by `ended` with `unfinished` tasks left. */
static void check_outputs(const struct outputs *o, const char *ended, unsigned long long unfinished,
                          unsigned long long spins_begun_min)
{
    size_t len;
    char *r = slurp(o->report, &len);
    /* one complete JSON line */
    assert_true(len > 2);
    assert_int_equal(r[0], '{');
    assert_int_equal(r[len - 1], '\n');
    assert_int_equal(r[len - 2], '}');
    assert_null(memchr(r, '\n', len - 1));
    char want[64];
    snprintf(want, sizeof want, "\"ended\":\"%s\"", ended);
    assert_non_null(strstr(r, want));
    assert_int_equal(json_num(r, "unfinished_tasks"), unfinished);
    assert_int_equal(json_num(r, "tasks_run"), NQUICK);
    assert_non_null(strstr(r, "\"per_node\":["));
    if (have("python3")) {
        char cmd[PATH_MAX + 128];
        snprintf(cmd, sizeof cmd, "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '%s'",
                 o->report);
        assert_int_equal(system(cmd), 0);
    }
    free(r);

    char *d = slurp(o->dag, &len);
    assert_non_null(strstr(d, "digraph"));
    assert_true(len > 2 && d[len - 2] == '}');
    assert_non_null(strstr(d, "quick"));
    free(d);

    if (!HAVE_TRACE || !have("otf2-print")) {
        print_message("trace not checked: a build without OTF2, or no otf2-print\n");
        return;
    }
    char cmd[PATH_MAX + 64], line[512];
    snprintf(cmd, sizeof cmd, "otf2-print '%s/traces.otf2' 2>&1", o->trace);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    int enter_q = 0, leave_q = 0, enter_s = 0, leave_s = 0;
    while (fgets(line, sizeof line, p)) {
        int en = strncmp(line, "ENTER ", 6) == 0, le = strncmp(line, "LEAVE ", 6) == 0;
        if (strstr(line, "Region: \"quick\"")) {
            enter_q += en;
            leave_q += le;
        }
        if (strstr(line, "Region: \"spin\"")) {
            enter_s += en;
            leave_s += le;
        }
    }
    assert_int_equal(pclose(p), 0);
    assert_int_equal(enter_q, NQUICK);
    assert_int_equal(leave_q, NQUICK);
    assert_true((unsigned long long)enter_s >= spins_begun_min);
    assert_int_equal(leave_s, enter_s);   /* still running: ended at the cut */

    if (system("/usr/bin/python3 -c 'import otf2' >/dev/null 2>&1") != 0) {
        print_message("locus-trace not run: python3-otf2 missing\n");
        return;
    }
    snprintf(cmd, sizeof cmd, "tools/locus-trace tasks '%s'", o->trace);
    p = popen(cmd, "r");
    assert_non_null(p);
    int nq = 0;
    while (fgets(line, sizeof line, p))
        nq += strncmp(line, "quick ", 6) == 0;
    assert_int_equal(pclose(p), 0);
    assert_int_equal(nq, NQUICK);
}

static void test_exit_from_main(void **state)
{
    (void)state;
    struct outputs o;
    int st = run_child("exit", NULL, 0, 0, &o);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    check_outputs(&o, "exit", NSPIN, 1);
}

static void test_return_from_main(void **state)
{
    (void)state;
    struct outputs o;
    int st = run_child("return", NULL, 0, 0, &o);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    check_outputs(&o, "exit", NSPIN, 1);
}

static void test_exit_from_task(void **state)
{
    (void)state;
    struct outputs o;
    int st = run_child("exit-task", NULL, 0, 0, &o);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 5);
    check_outputs(&o, "exit", 1, 0);   /* the task that called exit() */
}

/*
 * Under TSan a signal's handler runs only when the thread the kernel gave
 * it to next passes one of TSan's interceptors.  There one run in 12 to 20
 * of this file's handled signals did nothing for the child's whole minute
 * (SIGINT and SIGTERM, Locus's handler or the program's own, even with the
 * runtime's threads blocking both so that only the main thread, sleeping
 * in nanosleep, could take them), while plain (40 runs) and ASan (20)
 * builds never failed; the cause inside TSan was not found.  The cases that
 * need a handler to run are therefore left to the plain and ASan stages.
 */
static int handlers_unreliable(void)
{
    const char *san = getenv("LOCUS_TEST_SANITIZER");
    if (san && strcmp(san, "tsan") == 0) {
        print_message("skipped under TSan (it defers signal handlers: see above)\n");
        return 1;
    }
    return 0;
}

static void test_sigterm(void **state)
{
    (void)state;
    if (handlers_unreliable())
        skip();
    struct outputs o;
    int st = run_child("signals", NULL, 0, SIGTERM, &o);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGTERM);
    check_outputs(&o, "SIGTERM", NSPIN, 1);
}

/* SIGINT (a ^C): the same, and the process dies of SIGINT. */
static void test_sigint(void **state)
{
    (void)state;
    if (handlers_unreliable())
        skip();
    struct outputs o;
    int st = run_child("signals", NULL, 0, SIGINT, &o);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGINT);
    check_outputs(&o, "SIGINT", NSPIN, 1);
}

/* The cut taken while a worker records: the report and the graph whole,
 * every region entered left in the trace. */
static void test_exit_while_recording(void **state)
{
    (void)state;
    struct outputs o;
    int st = run_child("churn", NULL, 0, 0, &o);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    size_t len;
    char *r = slurp(o.report, &len);
    assert_true(len > 2 && r[len - 1] == '\n' && r[len - 2] == '}');
    assert_non_null(strstr(r, "\"ended\":\"exit\""));
    assert_true(json_num(r, "unfinished_tasks") >= 1);   /* churn at least */
    assert_true(json_num(r, "tasks_run") >= NQUICK);
    free(r);
    char *d = slurp(o.dag, &len);
    assert_true(len > 2 && d[len - 2] == '}');
    free(d);
    if (!HAVE_TRACE || !have("otf2-print")) {
        print_message("trace not checked: a build without OTF2, or no otf2-print\n");
        return;
    }
    char cmd[PATH_MAX + 128], line[512];
    snprintf(cmd, sizeof cmd, "otf2-print '%s/traces.otf2' 2>&1", o.trace);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    int enter = 0, leave = 0, leaves = 0;
    while (fgets(line, sizeof line, p)) {
        enter += strncmp(line, "ENTER ", 6) == 0;
        leave += strncmp(line, "LEAVE ", 6) == 0;
        leaves += strncmp(line, "ENTER ", 6) == 0 && strstr(line, "Region: \"leaf\"") != NULL;
    }
    assert_int_equal(pclose(p), 0);
    assert_true(leaves > 0);
    assert_int_equal(enter, leave);
    if (system("/usr/bin/python3 -c 'import otf2' >/dev/null 2>&1") == 0) {
        snprintf(cmd, sizeof cmd, "tools/locus-trace summary '%s' >/dev/null", o.trace);
        assert_int_equal(system(cmd), 0);
    }
}

/* A forked child's exit() writes nothing of its parent's run. */
static void test_forked_child(void **state)
{
    (void)state;
    struct outputs o;
    int st = run_child("fork", NULL, 0, 0, &o);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    check_outputs(&o, "exit", NSPIN, 1);   /* one line: the parent's */
}

/* LOCUS_SIGNALS=0: killed as without Locus, nothing written. */
static void test_signals_off(void **state)
{
    (void)state;
    struct outputs o;
    int st = run_child("signals", "0", 0, SIGTERM, &o);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGTERM);
    struct stat sb;
    assert_int_equal(stat(o.report, &sb), 0);   /* made by locus_init's check */
    assert_int_equal(sb.st_size, 0);
    char anchor[PATH_MAX + 64];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", o.trace);
    assert_int_equal(access(anchor, F_OK), -1);
}

/* A signal the program ignores stays ignored: SIGINT does nothing, then
 * SIGTERM ends the run (with the outputs). */
static void test_ignored_kept(void **state)
{
    (void)state;
    if (handlers_unreliable())
        skip();
    struct outputs o;
    int st = run_child("ignore-int", NULL, SIGINT, SIGTERM, &o);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGTERM);
    check_outputs(&o, "SIGTERM", NSPIN, 1);
}

/* The program's own handler stays: it runs, and its exit() writes. */
static void test_own_handler(void **state)
{
    (void)state;
    if (handlers_unreliable())
        skip();
    struct outputs o;
    int st = run_child("own-handler", NULL, 0, SIGTERM, &o);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 7);
    check_outputs(&o, "exit", NSPIN, 1);
}

/* In this process: with no output to write, locus_init installs no
 * handler (a default action is all it would end in); with LOCUS_REPORT it
 * does, and locus_finalize restores the default. */
static int term_is_default(void)
{
    struct sigaction cur;
    assert_int_equal(sigaction(SIGTERM, NULL, &cur), 0);
    return !(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_DFL;
}

static void test_no_outputs_no_handler(void **state)
{
    (void)state;
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    setenv("LOCUS_THREADS", "2", 1);
    assert_int_equal(locus_init(), 0);
    assert_true(term_is_default());
    assert_int_equal(locus_finalize(), 0);

    char report[PATH_MAX + 32];
    snprintf(report, sizeof report, "%s/inproc.json", tmpdir);
    setenv("LOCUS_REPORT", report, 1);
    assert_int_equal(locus_init(), 0);
    unsetenv("LOCUS_REPORT");
    assert_false(term_is_default());
    assert_int_equal(locus_finalize(), 0);
    assert_true(term_is_default());
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "test_exit: watchdog expired (deadlock?)\n";
    if (write(2, msg, sizeof msg - 1) < 0)
        _exit(3);
    _exit(2);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--child") == 0) {
        alarm(300);
        return child(argv[2]);
    }
    const char *san = getenv("LOCUS_TEST_SANITIZER");
    signal(SIGALRM, on_alarm);
    alarm(san && *san && strcmp(san, "none") != 0 ? 600 : 180);
    snprintf(tmpdir, sizeof tmpdir, "%s/locus-exit-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("test_exit: mkdtemp");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_from_main),
        cmocka_unit_test(test_return_from_main),
        cmocka_unit_test(test_exit_from_task),
        cmocka_unit_test(test_exit_while_recording),
        cmocka_unit_test(test_forked_child),
        cmocka_unit_test(test_sigterm),
        cmocka_unit_test(test_sigint),
        cmocka_unit_test(test_signals_off),
        cmocka_unit_test(test_own_handler),
        cmocka_unit_test(test_ignored_kept),
        cmocka_unit_test(test_no_outputs_no_handler),
    };
    int r = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "test_exit: could not remove %s\n", tmpdir);
    return r;
}
