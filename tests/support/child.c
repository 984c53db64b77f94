/*
 * child.c - running an OpenMP program in a child process for the tests of
 * the OpenMP layers (child.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"

static char san[PATH_MAX];
static int san_tsan, san_looked;

static int find_san(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    const char *n = info->dlpi_name;
    if (n && (strstr(n, "libasan.so") || strstr(n, "libtsan.so"))) {
        snprintf(san, sizeof san, "%s", n);
        san_tsan = strstr(n, "libtsan.so") != NULL;
        return 1;
    }
    return 0;
}

const char *child_san_runtime(int *tsan)
{
    if (!san_looked) {
        dl_iterate_phdr(find_san, NULL);
        san_looked = 1;
    }
    if (tsan)
        *tsan = san_tsan;
    return san;
}

static void slurp(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    ssize_t r;
    lseek(fd, 0, SEEK_SET);
    while (n + 1 < cap && (r = read(fd, buf + n, cap - 1 - n)) > 0)
        n += (size_t)r;
    buf[n] = 0;
    close(fd);
}

void child_run(struct child_result *r, const char *path, const char *preload,
               const char *const *env, int limit_s)
{
    char outname[] = "/tmp/test_child_out.XXXXXX", errname[] = "/tmp/test_child_err.XXXXXX";
    char pre[2 * PATH_MAX + 64];
    const char *sr = child_san_runtime(NULL);
    int on = preload && preload[0];
    snprintf(pre, sizeof pre, "%s%s%s", sr, sr[0] && on ? " " : "", on ? preload : "");
    int out = mkstemp(outname), err = mkstemp(errname);
    memset(r, 0, sizeof *r);
    r->status = -1;
    if (out < 0 || err < 0) {
        snprintf(r->err, sizeof r->err, "mkstemp: %s", strerror(errno));
        return;
    }
    unlink(outname);
    unlink(errname);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(r->err, sizeof r->err, "fork: %s", strerror(errno));
        close(out);
        close(err);
        return;
    }
    if (pid == 0) {
        dup2(out, 1);
        dup2(err, 2);
        /* a clean slate: only what the case asks for */
        unsetenv("LOCUS_REGIME");
        unsetenv("LOCUS_TOPOLOGY");
        unsetenv("LOCUS_THREADS");
        unsetenv("LOCUS_VERBOSE");
        unsetenv("LD_LIBRARY_PATH");
        setenv("OMP_NUM_THREADS", "4", 1);
        if (pre[0])
            setenv("LD_PRELOAD", pre, 1);
        else
            unsetenv("LD_PRELOAD");
        if (!on && sr[0])
            setenv("ASAN_OPTIONS", "detect_leaks=0", 1);   /* the other runtime keeps its threads */
        for (; env && *env; env++) {
            char kv[PATH_MAX + 64];
            snprintf(kv, sizeof kv, "%s", *env);
            char *eq = strchr(kv, '=');
            if (!eq)
                continue;
            *eq = 0;
            if (eq[1])
                setenv(kv, eq + 1, 1);
            else
                unsetenv(kv);
        }
        execl(path, path, (char *)NULL);
        fprintf(stderr, "exec %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    struct timespec ms = { 0, 10 * 1000 * 1000 };
    long waited = 0;
    while (waitpid(pid, &r->status, WNOHANG) == 0) {
        if (++waited > 100L * limit_s) {
            kill(pid, SIGKILL);
            waitpid(pid, &r->status, 0);
            break;
        }
        nanosleep(&ms, NULL);
    }
    slurp(out, r->out, sizeof r->out);
    slurp(err, r->err, sizeof r->err);
}

const char *child_fork_sanitizer_options(int on)
{
    static char *saved;
    int tsan = 0;
    child_san_runtime(&tsan);
    if (on && tsan)
        /* "not supported. Dying", then "dup thread with used id" with
         * die_after_fork=0: plain and ASan runs check these programs */
        return "TSan cannot start threads in the child of a multithreaded fork";
    if (on) {
        const char *v = getenv("ASAN_OPTIONS");
        free(saved);
        saved = v ? strdup(v) : NULL;
        char buf[1024];
        snprintf(buf, sizeof buf, "%s%sdetect_leaks=0", v ? v : "", v && v[0] ? " " : "");
        setenv("ASAN_OPTIONS", buf, 1);
    } else {
        if (saved)
            setenv("ASAN_OPTIONS", saved, 1);
        else
            unsetenv("ASAN_OPTIONS");
        free(saved);
        saved = NULL;
    }
    return NULL;
}

void child_sorted_lines(const char *s, const char *prefix, char *out, size_t size)
{
    char *lines[256];
    char buf[8192];
    size_t n = 0, len = 0;
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save, *l = strtok_r(buf, "\n", &save); l && n < 256; l = strtok_r(NULL, "\n", &save))
        if (!strncmp(l, prefix, strlen(prefix)))
            lines[n++] = l;
    for (size_t i = 1; i < n; i++)   /* insertion sort: a few lines */
        for (size_t j = i; j > 0 && strcmp(lines[j - 1], lines[j]) > 0; j--) {
            char *t = lines[j];
            lines[j] = lines[j - 1];
            lines[j - 1] = t;
        }
    out[0] = '\0';
    for (size_t i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(out + len, size - len, "%s\n", lines[i]);
}

int child_strip_alpi(char *exports)
{
    int n = 0;
    for (char *l = exports, *next; *l; l = next) {
        next = strchr(l, '\n');
        next = next ? next + 1 : l + strlen(l);
        if (!strncmp(l, "LOCUS_ALPI_1 alpi_", 18)) {
            memmove(l, next, strlen(next) + 1);
            next = l;
            n++;
        }
    }
    return n;
}

size_t child_first_difference(const char *a, const char *b)
{
    size_t i = 0;
    while (a[i] && a[i] == b[i])
        i++;
    if (!a[i] && !b[i])
        return i;
    while (i > 0 && a[i - 1] != '\n')
        i--;
    return i;
}

int child_ok(const struct child_result *r)
{
    return WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0;
}
