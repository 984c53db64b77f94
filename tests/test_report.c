/*
 * test_report.c - unit tests of runtime/report.c: the human table (settings,
 * totals with percentages, aligned per-node rows), JSON Lines (each line
 * parses - checked with python3 when it is installed - and holds the right
 * numbers and escaped strings), CSV (one header for several runs, quoted
 * fields, 18 fields a row), errors (a missing directory gives -ENOENT and a
 * message naming the path; no descriptor leaks), stderr (written, never
 * closed) and all-zero figures (no division by zero); the coherence-traffic
 * counters section in each format (counted classes with their numbers,
 * unavailable ones with their reason and never a 0, merged and scaled
 * classes, per socket; 40 CSV fields a row) and its absence when no
 * counters are given; a run ended without locus_finalize says how and
 * with how many tasks unfinished (human, JSON).  Every file is written
 * under a fresh mkdtemp directory, removed at the end.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "report.h"

#define MIB (1024u * 1024u)

static char tmpdir[PATH_MAX];

/* ---- helpers ------------------------------------------------------------- */

static void path_in(char *buf, size_t len, const char *name)
{
    int n = snprintf(buf, len, "%s/%s", tmpdir, name);
    assert_true(n > 0 && (size_t)n < len);
}

/* The whole file as a NUL-terminated string (caller frees). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t cap = 4096, len = 0;
    char *p = malloc(cap);
    assert_non_null(p);
    size_t n;
    while ((n = fread(p + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len - 1 == 0) {
            cap *= 2;
            p = realloc(p, cap);
            assert_non_null(p);
        }
    }
    assert_int_equal(ferror(f), 0);
    fclose(f);
    p[len] = '\0';
    return p;
}

static size_t count_char(const char *s, char c)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == c;
    return n;
}

static size_t count_str(const char *s, const char *needle)
{
    size_t n = 0, k = strlen(needle);
    for (const char *p = s; (p = strstr(p, needle)) != NULL; p += k)
        n++;
    return n;
}

static int count_open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static int have_python3(void)
{
    static int cached = -1;
    if (cached < 0)
        cached = system("command -v python3 >/dev/null 2>&1") == 0;
    return cached;
}

/* Runs python3 with a script and the file; 1 ok, 0 failed, -1 no python3. */
static int python_check(const char *script, const char *path, const char *arg)
{
    if (!have_python3())
        return -1;
    char cmd[4 * PATH_MAX];
    int n = snprintf(cmd, sizeof cmd, "python3 -c '%s' '%s' '%s'", script, path, arg ? arg : "");
    assert_true(n > 0 && (size_t)n < sizeof cmd);
    return system(cmd) == 0;
}

/* Every line of the file is a JSON object; argv[2] is the expected count. */
static const char *const py_lines =
        "import json,sys\n"
        "o=[json.loads(l) for l in open(sys.argv[1],encoding=\"utf-8\")]\n"
        "assert all(isinstance(x,dict) for x in o)\n"
        "sys.exit(0 if len(o)==int(sys.argv[2]) else 3)\n";

/* Two nodes, 6 MiB of dependency bytes: 3 local, 1 near, 2 far in total. */
static void sample(locus_stats_t *t, locus_node_stats_t n[2])
{
    memset(t, 0, sizeof *t);
    memset(n, 0, 2 * sizeof *n);
    n[0] = (locus_node_stats_t){ .tasks_run = 70, .first_touch_tasks = 5,
                                 .bytes_local = 2 * MIB, .bytes_near = 0, .bytes_far = 2 * MIB,
                                 .steals_local = 1, .steals_near = 2, .steals_far = 3,
                                 .bytes_homed = 4 * MIB, .workers = 2 };
    n[1] = (locus_node_stats_t){ .tasks_run = 30, .first_touch_tasks = 2,
                                 .bytes_local = 1 * MIB, .bytes_near = 1 * MIB, .bytes_far = 0,
                                 .steals_local = 4, .steals_near = 5, .steals_far = 6,
                                 .bytes_homed = 1536, .workers = 1 };
    t->tasks_run = 100;
    t->first_touch_tasks = 7;
    t->bytes_local = 3 * MIB;
    t->bytes_near = 1 * MIB;
    t->bytes_far = 2 * MIB;
    t->steals_local = 5;
    t->steals_near = 7;
    t->steals_far = 9;
    t->bytes_placed = 4 * MIB;
    t->tasks_given_up = 3;
    t->bytes_given_up = 512 * 1024;
    t->nodes = 2;
    t->workers = 3;
    t->seconds = 1.25;
}

static struct lc_report_info sample_info(void)
{
    return (struct lc_report_info){ .regime = "dft", .sched = "naft", .pages = "firsttouch",
                                     .steal = "near", .topology = "twonode",
                                     .virtual_topology = 1, .first_touch_tracked = 1 };
}

static char *write_and_read(const char *name, const struct lc_report_info *info,
                            const locus_stats_t *t, const locus_node_stats_t *n, int nn)
{
    char path[PATH_MAX], err[256];
    path_in(path, sizeof path, name);
    int r = lc_report_write(path, info, t, n, nn, err, sizeof err);
    if (r != 0)
        print_error("lc_report_write(%s): %d %s\n", path, r, err);
    assert_int_equal(r, 0);
    return slurp(path);
}

/* The line of the per-node table whose first field is the node number. */
static const char *node_row(const char *text, int node, char *line, size_t len)
{
    const char *table = strstr(text, "far %");
    assert_non_null(table);
    for (const char *p = strchr(table, '\n'); p != NULL && p[1]; p = strchr(p + 1, '\n')) {
        const char *s = p + 1, *e = strchr(s, '\n');
        size_t k = e ? (size_t)(e - s) : strlen(s);
        int id;
        if (sscanf(s, "%d", &id) == 1 && id == node) {
            assert_true(k < len);
            memcpy(line, s, k);
            line[k] = '\0';
            return line;
        }
    }
    return NULL;
}

/* Number of fields of one CSV line (quotes honoured); *end is the next line. */
static int csv_fields(const char *s, const char **end)
{
    int n = 1, q = 0;
    for (; *s && (q || *s != '\n'); s++) {
        if (*s == '"')
            q = !q;
        else if (*s == ',' && !q)
            n++;
    }
    *end = *s ? s + 1 : s;
    return n;
}

/* ---- tests --------------------------------------------------------------- */

static void test_human(void **state)
{
    (void)state;
    locus_stats_t t;
    locus_node_stats_t n[2];
    sample(&t, n);
    struct lc_report_info info = sample_info();
    char *s = write_and_read("run.txt", &info, &t, n, 2);

    assert_non_null(strstr(s, "regime"));
    assert_non_null(strstr(s, "dft"));
    assert_non_null(strstr(s, "naft"));
    assert_non_null(strstr(s, "firsttouch"));
    assert_non_null(strstr(s, "twonode (virtual: placement is bookkeeping)"));
    assert_non_null(strstr(s, "1.250"));
    assert_non_null(strstr(s, "local 3.0 MiB (50.0%)"));
    assert_non_null(strstr(s, "near 1.0 MiB (16.7%)"));
    assert_non_null(strstr(s, "far 2.0 MiB (33.3%)"));
    assert_non_null(strstr(s, "local 5, near 7, far 9"));
    assert_non_null(strstr(s, "4.0 MiB; given up by stalled nodes: 3 tasks, 512.0 KiB"));

    char l0[256], l1[256];
    assert_non_null(node_row(s, 0, l0, sizeof l0));
    assert_non_null(node_row(s, 1, l1, sizeof l1));
    assert_non_null(strstr(l0, "70"));
    assert_non_null(strstr(l0, "2.0 MiB"));
    assert_non_null(strstr(l0, "50.0%"));
    assert_non_null(strstr(l0, "4.0 MiB"));
    assert_non_null(strstr(l1, " 0.0%"));
    assert_non_null(strstr(l1, "1.5 KiB"));

    /* Aligned: every column right-aligned, so header and rows are as long. */
    const char *h = strstr(s, "far %");
    while (h > s && h[-1] != '\n')
        h--;
    size_t hl = (size_t)(strchr(h, '\n') - h);
    assert_int_equal(strlen(l0), hl);
    assert_int_equal(strlen(l1), hl);
    free(s);

    info.first_touch_tracked = 0;
    info.virtual_topology = 0;
    info.topology = "machine";
    t.nodes = 1;
    s = write_and_read("one.log", &info, &t, n, 1);
    assert_non_null(strstr(s, "not tracked (one node)"));
    assert_null(strstr(s, "virtual"));
    assert_non_null(node_row(s, 0, l0, sizeof l0));
    assert_null(node_row(s, 1, l1, sizeof l1));
    free(s);
}

static void test_json(void **state)
{
    (void)state;
    locus_stats_t t;
    locus_node_stats_t n[2];
    sample(&t, n);
    struct lc_report_info info = sample_info();
    /* Quote, backslash, control character and an invalid UTF-8 byte. */
    info.topology = "sp\"ec\\x\n\x01\xff,é";
    char path[PATH_MAX];
    path_in(path, sizeof path, "run.json");
    char *s = write_and_read("run.json", &info, &t, n, 2);

    assert_int_equal(count_char(s, '\n'), 1);
    assert_int_equal(s[strlen(s) - 1], '\n');
    assert_non_null(strstr(s, "\"regime\":\"dft\""));
    assert_non_null(strstr(s, "\"virtual\":true"));
    assert_non_null(strstr(s, "\"tasks_run\":100,"));
    assert_non_null(strstr(s, "\"first_touch_tasks\":7,"));
    assert_non_null(strstr(s, "\"bytes\":{\"local\":3145728,\"near\":1048576,\"far\":2097152}"));
    assert_non_null(strstr(s, "\"steals\":{\"local\":5,\"near\":7,\"far\":9}"));
    assert_non_null(strstr(s, "\"bytes_placed\":4194304,\"given_up\":{\"tasks\":3,\"bytes\":524288},"));
    assert_non_null(strstr(s, "\"node\":1,\"workers\":1,\"tasks_run\":30,"));
    assert_non_null(strstr(s, "\"bytes_homed\":1536}"));
    assert_non_null(strstr(s, "\"topology\":\"sp\\\"ec\\\\x\\n\\u0001\\ufffd,é\""));
    free(s);

    int ok = python_check(py_lines, path, "1");
    if (ok < 0) {
        print_message("JSON parse check skipped: python3 not found\n");
    } else {
        assert_int_equal(ok, 1);
        static const char *const py_values =
                "import json,sys\n"
                "o=json.loads(open(sys.argv[1],encoding=\"utf-8\").read())\n"
                "assert o[\"topology\"]==\"sp\\\"ec\\\\x\\n\\x01\\ufffd,\\u00e9\"\n"
                "assert o[\"seconds\"]==1.25 and o[\"nodes\"]==2 and o[\"workers\"]==3\n"
                "assert o[\"bytes\"]=={\"local\":3<<20,\"near\":1<<20,\"far\":2<<20}\n"
                "p=o[\"per_node\"]\n"
                "assert len(p)==2 and p[0][\"bytes_far\"]==2<<20 and p[1][\"steals_far\"]==6\n"
                "assert p[0][\"first_touch_tasks\"]==5 and p[0][\"bytes_homed\"]==4<<20\n";
        assert_int_equal(python_check(py_values, path, NULL), 1);
    }

    /* Not tracked: null, in the totals and on every node. */
    info.first_touch_tracked = 0;
    s = write_and_read("untracked.json", &info, &t, n, 2);
    assert_int_equal(count_str(s, "\"first_touch_tasks\":null"), 3);
    assert_non_null(strstr(s, "\"virtual\":true"));
    free(s);
}

/* A run ended without locus_finalize (runtime/exit.c) says so: how, and
 * the tasks left unfinished; a finalized one says "finalize" in JSON and
 * nothing in the table.  CSV keeps its columns. */
static void test_ended(void **state)
{
    (void)state;
    locus_stats_t t;
    locus_node_stats_t n[2];
    sample(&t, n);
    struct lc_report_info info = sample_info();
    char *s = write_and_read("fin.txt", &info, &t, n, 2);
    assert_null(strstr(s, "ended"));
    free(s);
    s = write_and_read("fin.json", &info, &t, n, 2);
    assert_non_null(strstr(s, "\"ended\":\"finalize\",\"unfinished_tasks\":0,"));
    free(s);

    info.ended = "SIGTERM";
    info.unfinished = 12;
    s = write_and_read("term.txt", &info, &t, n, 2);
    assert_non_null(strstr(s, "  ended             by SIGTERM, without locus_finalize: "
                              "12 tasks unfinished\n"));
    free(s);
    s = write_and_read("term.json", &info, &t, n, 2);
    assert_non_null(strstr(s, "\"ended\":\"SIGTERM\",\"unfinished_tasks\":12,"));
    free(s);
    info.ended = "exit";
    info.unfinished = 1;
    s = write_and_read("exit.txt", &info, &t, n, 2);
    assert_non_null(strstr(s, "by exit() or a return from main, without locus_finalize: "
                              "1 task unfinished\n"));
    free(s);
    s = write_and_read("exit.csv", &info, &t, n, 2);
    const char *end;
    assert_int_equal(csv_fields(s, &end), 18);
    free(s);
}

static void test_append(void **state)
{
    (void)state;
    locus_stats_t t;
    locus_node_stats_t n[2];
    sample(&t, n);
    struct lc_report_info info = sample_info();
    char path[PATH_MAX], err[256];

    /* JSON Lines: a second run is a second line. */
    path_in(path, sizeof path, "runs.json");
    assert_int_equal(lc_report_write(path, &info, &t, n, 2, err, sizeof err), 0);
    info.regime = "naft";
    assert_int_equal(lc_report_write(path, &info, &t, n, 2, err, sizeof err), 0);
    char *s = slurp(path);
    assert_int_equal(count_char(s, '\n'), 2);
    assert_int_equal(count_str(s, "\"regime\":\"dft\""), 1);
    assert_int_equal(count_str(s, "\"regime\":\"naft\""), 1);
    free(s);
    int ok = python_check(py_lines, path, "2");
    if (ok < 0)
        print_message("JSON parse check skipped: python3 not found\n");
    else
        assert_int_equal(ok, 1);

    /* A file left without a final newline still gets one object a line. */
    path_in(path, sizeof path, "partial.json");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"old\":1}", f);
    fclose(f);
    assert_int_equal(lc_report_write(path, &info, &t, n, 2, err, sizeof err), 0);
    s = slurp(path);
    assert_int_equal(count_char(s, '\n'), 2);
    assert_int_equal(strncmp(s, "{\"old\":1}\n{", 11), 0);
    free(s);
    ok = python_check(py_lines, path, "2");
    if (ok >= 0)
        assert_int_equal(ok, 1);

    /* CSV: one header, nnodes + 1 rows a run. */
    path_in(path, sizeof path, "runs.csv");
    assert_int_equal(lc_report_write(path, &info, &t, n, 2, err, sizeof err), 0);
    assert_int_equal(lc_report_write(path, &info, &t, n, 2, err, sizeof err), 0);
    s = slurp(path);
    assert_int_equal(count_str(s, "regime,sched,"), 1);
    assert_int_equal(strncmp(s, "regime,sched,pages,steal,topology,nodes,workers,seconds,node,"
                                "tasks_run,first_touch_tasks,bytes_local,bytes_near,bytes_far,"
                                "steals_local,steals_near,steals_far,bytes_homed\n",
                             strlen("regime,sched,pages,steal,topology,nodes,workers,seconds,node,"
                                    "tasks_run,first_touch_tasks,bytes_local,bytes_near,bytes_far,"
                                    "steals_local,steals_near,steals_far,bytes_homed\n")),
                     0);
    assert_int_equal(count_char(s, '\n'), 1 + 2 * (2 + 1));
    assert_int_equal(count_str(s, ",all,"), 2);
    assert_non_null(strstr(s, "naft,naft,firsttouch,near,twonode,2,2,1.250000,0,70,5,2097152,0,"
                              "2097152,1,2,3,4194304\n"));
    /* The totals row: bytes_homed is the nodes' sum. */
    assert_non_null(strstr(s, ",2,3,1.250000,all,100,7,3145728,1048576,2097152,5,7,9,4195840\n"));
    free(s);

    /* Human: appended after a blank line. */
    path_in(path, sizeof path, "runs.txt");
    assert_int_equal(lc_report_write(path, &info, &t, n, 2, err, sizeof err), 0);
    assert_int_equal(lc_report_write(path, &info, &t, n, 2, err, sizeof err), 0);
    s = slurp(path);
    assert_int_equal(count_str(s, "locus report\n"), 2);
    assert_non_null(strstr(s, "\n\nlocus report\n"));
    free(s);
}

static void test_csv_quoting(void **state)
{
    (void)state;
    locus_stats_t t;
    locus_node_stats_t n[2];
    sample(&t, n);
    struct lc_report_info info = sample_info();
    info.topology = "nodes=2,distances=10,21";
    info.sched = "say \"hi\"";
    info.first_touch_tracked = 0;
    char *s = write_and_read("quoted.CSV", &info, &t, n, 2);

    assert_non_null(strstr(s, ",\"nodes=2,distances=10,21\","));
    assert_non_null(strstr(s, ",\"say \"\"hi\"\"\","));
    /* Untracked first-touch counts are empty fields. */
    assert_non_null(strstr(s, ",0,70,,2097152,"));
    int rows = 0;
    for (const char *p = s; *p;) {
        assert_int_equal(csv_fields(p, &p), 18);
        rows++;
    }
    assert_int_equal(rows, 1 + 2 + 1);
    free(s);
}

static void test_errors(void **state)
{
    (void)state;
    locus_stats_t t;
    locus_node_stats_t n[2];
    sample(&t, n);
    struct lc_report_info info = sample_info();
    char path[PATH_MAX], err[PATH_MAX + 128];
    int fds = count_open_fds();

    const char *names[] = { "missing/r.json", "missing/r.csv", "missing/r.txt" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        path_in(path, sizeof path, names[i]);
        memset(err, 0, sizeof err);
        assert_int_equal(lc_report_write(path, &info, &t, n, 2, err, sizeof err), -ENOENT);
        assert_non_null(strstr(err, path));
        assert_non_null(strstr(err, strerror(ENOENT)));
    }

    /* A directory is not a file to append to. */
    memset(err, 0, sizeof err);
    int r = lc_report_write(tmpdir, &info, &t, n, 2, err, sizeof err);
    assert_true(r < 0);
    assert_non_null(strstr(err, tmpdir));

    /* A short message buffer is truncated, not overrun; NULL is fine. */
    path_in(path, sizeof path, "missing/x.json");
    char tiny[8];
    assert_int_equal(lc_report_write(path, &info, &t, n, 2, tiny, sizeof tiny), -ENOENT);
    assert_true(strlen(tiny) < sizeof tiny);
    assert_int_equal(lc_report_write(path, &info, &t, n, 2, NULL, 0), -ENOENT);

    /* Bad arguments. */
    path_in(path, sizeof path, "never.json");
    assert_int_equal(lc_report_write(NULL, &info, &t, n, 2, err, sizeof err), -EINVAL);
    assert_int_equal(lc_report_write("", &info, &t, n, 2, err, sizeof err), -EINVAL);
    assert_int_equal(lc_report_write(path, NULL, &t, n, 2, err, sizeof err), -EINVAL);
    assert_int_equal(lc_report_write(path, &info, NULL, n, 2, err, sizeof err), -EINVAL);
    assert_int_equal(lc_report_write(path, &info, &t, NULL, 2, err, sizeof err), -EINVAL);
    assert_int_equal(lc_report_write(path, &info, &t, n, -1, err, sizeof err), -EINVAL);
    assert_int_equal(access(path, F_OK), -1);

    /* A successful write leaves no descriptor open either. */
    path_in(path, sizeof path, "fds.csv");
    assert_int_equal(lc_report_write(path, &info, &t, n, 2, err, sizeof err), 0);
    assert_string_equal(err, "");
    if (fds >= 0)
        assert_int_equal(count_open_fds(), fds);
}

static void test_zero(void **state)
{
    (void)state;
    locus_stats_t t = { .nodes = 2, .workers = 2 };
    locus_node_stats_t n[2] = { { .workers = 1 }, { .workers = 1 } };
    struct lc_report_info info = sample_info();

    char *s = write_and_read("zero.txt", &info, &t, n, 2);
    assert_null(strstr(s, "nan"));
    assert_null(strstr(s, "inf"));
    assert_non_null(strstr(s, "local 0 B (0.0%), near 0 B (0.0%), far 0 B (0.0%)"));
    char l[256];
    assert_non_null(node_row(s, 1, l, sizeof l));
    assert_non_null(strstr(l, " 0.0%"));
    free(s);

    s = write_and_read("zero.json", &info, &t, n, 2);
    assert_null(strstr(s, "nan"));
    assert_non_null(strstr(s, "\"bytes\":{\"local\":0,\"near\":0,\"far\":0}"));
    free(s);
    char path[PATH_MAX];
    path_in(path, sizeof path, "zero.json");
    int ok = python_check(py_lines, path, "1");
    if (ok >= 0)
        assert_int_equal(ok, 1);

    s = write_and_read("zero.csv", &info, &t, n, 2);
    assert_null(strstr(s, "nan"));
    free(s);

    /* No nodes at all, and a NaN clock: still valid output. */
    t.seconds = NAN;
    s = write_and_read("empty.json", &info, &t, NULL, 0);
    assert_non_null(strstr(s, "\"seconds\":null"));
    assert_non_null(strstr(s, "\"per_node\":[]}"));
    free(s);
    s = write_and_read("empty.txt", &info, &t, NULL, 0);
    assert_null(strstr(s, "nan"));
    free(s);
}

static void test_stderr(void **state)
{
    (void)state;
    locus_stats_t t;
    locus_node_stats_t n[2];
    sample(&t, n);
    struct lc_report_info info = sample_info();
    char path[PATH_MAX], err[256];
    path_in(path, sizeof path, "stderr.out");

    /* Catch fd 2 in a file for the duration of the call. */
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    assert_true(saved >= 0);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
    close(fd);
    int r1 = lc_report_write("stderr", &info, &t, n, 2, err, sizeof err);
    int r2 = lc_report_write("StdErr", &info, &t, n, 2, err, sizeof err);
    int open_after = fcntl(STDERR_FILENO, F_GETFD) != -1;
    fflush(stderr);
    assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
    close(saved);

    assert_int_equal(r1, 0);
    assert_int_equal(r2, 0);
    assert_true(open_after);
    char *s = slurp(path);
    assert_int_equal(count_str(s, "locus report\n"), 2);
    assert_non_null(strstr(s, "far 2.0 MiB (33.3%)"));
    free(s);
    /* "./stderr" is a file, in the human format. */
    char cwd_path[PATH_MAX];
    path_in(cwd_path, sizeof cwd_path, "stderr");
    assert_int_equal(lc_report_write(cwd_path, &info, &t, n, 2, err, sizeof err), 0);
    s = slurp(cwd_path);
    assert_non_null(strstr(s, "locus report\n"));
    free(s);
}

/* ---- coherence-traffic counters ---------------------------------------------- */

static void set_class(locus_counter_value_t *v, int kind, const char *unit, unsigned flags,
                      uint64_t tx, uint64_t rx, const char *reason)
{
    memset(v, 0, sizeof *v);
    v->kind = kind;
    v->flags = flags;
    v->tx = tx;
    v->rx = rx;
    snprintf(v->unit, sizeof v->unit, "%s", unit);
    snprintf(v->source, sizeof v->source, "EVENT.%d", kind);
    snprintf(v->reason, sizeof v->reason, "%s", reason);
}

#define TXRX (LOCUS_COUNTER_HAS_TX | LOCUS_COUNTER_HAS_RX)

/* Totals and two sockets, as a Skylake-SP run with one class refused. */
static void sample_counters(locus_counters_t *t, locus_counters_t s[2])
{
    memset(t, 0, sizeof *t);
    snprintf(t->backend, sizeof t->backend, "perf");
    snprintf(t->requested, sizeof t->requested, "auto");
    snprintf(t->table, sizeof t->table, "skx: Skylake-SP/Cascade Lake (UPI)");
    t->sockets = 2;
    t->phase = 1;
    t->seconds = 2.5;
    unsigned hn = 1u << LOCUS_COUNTER_HRSP | 1u << LOCUS_COUNTER_NDR;
    set_class(&t->cls[LOCUS_COUNTER_DTC], LOCUS_COUNTER_EXACT, "messages", TXRX, 100, 200, "UPI RSP_DATA");
    set_class(&t->cls[LOCUS_COUNTER_DWB], LOCUS_COUNTER_UNAVAILABLE, "messages", 0, 0, 0,
              "an event of this class never got a hardware counter");
    set_class(&t->cls[LOCUS_COUNTER_HREQ], LOCUS_COUNTER_EXACT, "messages", TXRX, 300, 400, "UPI REQ");
    set_class(&t->cls[LOCUS_COUNTER_SNP], LOCUS_COUNTER_EXACT, "messages", TXRX, 5, 6, "UPI SNP");
    set_class(&t->cls[LOCUS_COUNTER_HRSP], LOCUS_COUNTER_MERGED, "messages", TXRX, 50, 60, "RSP_NODATA");
    t->cls[LOCUS_COUNTER_HRSP].merged = hn;
    t->cls[LOCUS_COUNTER_NDR] = t->cls[LOCUS_COUNTER_HRSP];
    set_class(&t->cls[LOCUS_COUNTER_LINK_BYTES], LOCUS_COUNTER_FLITS, "bytes",
              TXRX | LOCUS_COUNTER_SCALED, 3 * MIB, 1024, "UPI data flits x 64/9");
    set_class(&t->cls[LOCUS_COUNTER_LOCAL_DRAM], LOCUS_COUNTER_PROXY, "loads",
              LOCUS_COUNTER_HAS_RX, 0, 7, "local DRAM loads");
    set_class(&t->cls[LOCUS_COUNTER_REMOTE_DRAM], LOCUS_COUNTER_UNAVAILABLE, "", 0, 0, 0,
              "MEM_LOAD_L3_MISS_RETIRED.REMOTE_DRAM: permission denied, \"quoted\"");
    set_class(&t->cls[LOCUS_COUNTER_REMOTE_CACHE], LOCUS_COUNTER_PROXY, "loads",
              LOCUS_COUNTER_HAS_RX, 0, 9, "remote cache loads");
    for (int i = 0; i < 2; i++) {
        s[i] = *t;
        for (int k = 0; k < LOCUS_COUNTER_NCLASSES; k++) {
            s[i].cls[k].tx /= 2;
            s[i].cls[k].rx /= 2;
        }
        for (int k = LOCUS_COUNTER_LOCAL_DRAM; k < LOCUS_COUNTER_NCLASSES; k++)
            set_class(&s[i].cls[k], LOCUS_COUNTER_UNAVAILABLE, "", 0, 0, 0, "not per socket");
    }
    s[1].cls[LOCUS_COUNTER_DTC].tx = 77;
    set_class(&s[0].cls[LOCUS_COUNTER_DWB], LOCUS_COUNTER_EXACT, "messages", TXRX, 3, 4, "UPI WB");
}

/* The line of the counters table that starts with the class name. */
static const char *class_row(const char *text, const char *cls, char *line, size_t len)
{
    const char *sec = strstr(text, "coherence traffic");
    assert_non_null(sec);
    char key[40];
    snprintf(key, sizeof key, "\n  %s ", cls);
    const char *p = strstr(sec, key);
    if (p == NULL)
        return NULL;
    p += 1;
    const char *e = strchr(p, '\n');
    size_t k = e ? (size_t)(e - p) : strlen(p);
    assert_true(k < len);
    memcpy(line, p, k);
    line[k] = '\0';
    return line;
}

static void test_counters_human(void **state)
{
    (void)state;
    locus_stats_t t;
    locus_node_stats_t n[2];
    locus_counters_t ct, cs[2];
    sample(&t, n);
    sample_counters(&ct, cs);
    struct lc_report_info info = sample_info();

    char *s = write_and_read("plain.txt", &info, &t, n, 2);
    assert_null(strstr(s, "coherence"));
    free(s);

    info.counters = &ct;
    info.socket_counters = cs;
    info.nsockets = 2;
    s = write_and_read("ctr.txt", &info, &t, n, 2);
    /* the locality report is unchanged above the new section */
    assert_non_null(strstr(s, "far 2.0 MiB (33.3%)"));
    assert_true(strstr(s, "far %") < strstr(s, "coherence traffic"));
    assert_non_null(strstr(s, "  backend           perf\n"));
    assert_non_null(strstr(s, "  requested         auto\n"));
    assert_non_null(strstr(s, "skx: Skylake-SP/Cascade Lake (UPI)"));
    assert_non_null(strstr(s, "phase (locus_counters_start..stop)"));
    assert_non_null(strstr(s, "2.500"));
    assert_null(strstr(s, "why nothing"));

    char l[512];
    assert_non_null(class_row(s, "DTC", l, sizeof l));
    assert_non_null(strstr(l, "100"));
    assert_non_null(strstr(l, "200"));
    assert_non_null(strstr(l, "messages  exact"));
    assert_non_null(class_row(s, "DWB", l, sizeof l));
    assert_string_equal(l, "  DWB           unavailable: an event of this class never got a "
                           "hardware counter");
    assert_non_null(class_row(s, "NDR", l, sizeof l));
    assert_non_null(strstr(l, "merged (HRSP+NDR)"));
    assert_non_null(class_row(s, "LINK_BYTES", l, sizeof l));
    assert_non_null(strstr(l, "3.0 MiB"));
    assert_non_null(strstr(l, "1.0 KiB"));
    assert_non_null(strstr(l, "flits, scaled"));
    assert_non_null(class_row(s, "LOCAL_DRAM", l, sizeof l));
    assert_non_null(strstr(l, " - ")); /* no tx for a proxy */
    assert_non_null(strstr(l, "7"));
    assert_non_null(class_row(s, "REMOTE_DRAM", l, sizeof l));
    assert_non_null(strstr(l, "unavailable: MEM_LOAD_L3_MISS_RETIRED.REMOTE_DRAM"));
    /* per socket: classes counted on some socket, tx/rx cells */
    assert_non_null(strstr(s, "socket 0"));
    assert_non_null(strstr(s, "socket 1"));
    const char *ps = strstr(s, "tx/rx");
    assert_non_null(ps);
    assert_non_null(strstr(ps, "50/100"));
    assert_non_null(strstr(ps, "77/100"));
    assert_non_null(strstr(ps, "3/4"));                 /* DWB: counted on socket 0 */
    assert_non_null(strstr(ps, "n/a"));                 /* ... not on socket 1 */
    assert_null(strstr(ps, "LOCAL_DRAM"));              /* never per socket: no row */
    free(s);

    /* nothing counted: the reason for all, and per class */
    memset(&ct, 0, sizeof ct);
    snprintf(ct.backend, sizeof ct.backend, "none");
    snprintf(ct.requested, sizeof ct.requested, "auto");
    snprintf(ct.reason, sizeof ct.reason, "perf: running in a VM (hypervisor flag): no uncore PMU");
    for (int k = 0; k < LOCUS_COUNTER_NCLASSES; k++)
        set_class(&ct.cls[k], LOCUS_COUNTER_UNAVAILABLE, "", 0, 0, 0,
                  k < LOCUS_COUNTER_LOCAL_DRAM ? "running in a VM (hypervisor flag): no uncore PMU"
                                               : "running in a VM (hypervisor flag): no core PMU");
    info.socket_counters = NULL;
    info.nsockets = 0;
    s = write_and_read("none.txt", &info, &t, n, 2);
    assert_non_null(strstr(s, "why nothing       perf: running in a VM (hypervisor flag)"));
    assert_non_null(strstr(s, "whole run (locus_init..finalize)"));
    /* each reason once, in the first of the rows that share it */
    assert_non_null(strstr(s, "  DTC           unavailable: running in a VM (hypervisor flag): "
                              "no uncore PMU\n  DWB           unavailable: as above\n"));
    assert_non_null(strstr(s, "  LOCAL_DRAM    unavailable: running in a VM (hypervisor flag): "
                              "no core PMU\n  REMOTE_DRAM   unavailable: as above\n"));
    assert_int_equal(count_str(s, "unavailable: running in a VM (hypervisor flag): no uncore"), 1);
    assert_int_equal(count_str(s, "unavailable: running in a VM (hypervisor flag): no core"), 1);
    assert_int_equal(count_str(s, "unavailable: as above\n"), LOCUS_COUNTER_NCLASSES - 2);
    assert_null(strstr(s, "tx/rx"));
    free(s);
}

static void test_counters_json(void **state)
{
    (void)state;
    locus_stats_t t;
    locus_node_stats_t n[2];
    locus_counters_t ct, cs[2];
    sample(&t, n);
    sample_counters(&ct, cs);
    struct lc_report_info info = sample_info();
    info.counters = &ct;
    info.socket_counters = cs;
    info.nsockets = 2;
    char path[PATH_MAX];
    path_in(path, sizeof path, "ctr.json");
    char *s = write_and_read("ctr.json", &info, &t, n, 2);

    assert_int_equal(count_char(s, '\n'), 1);
    assert_non_null(strstr(s, "\"counters\":{\"backend\":\"perf\",\"requested\":\"auto\","));
    assert_non_null(strstr(s, "\"scope\":\"phase\""));
    assert_non_null(strstr(s, "\"dtc\":{\"kind\":\"exact\",\"tx\":100,\"rx\":200,"
                              "\"unit\":\"messages\",\"scaled\":false,"));
    assert_non_null(strstr(s, "\"dwb\":{\"kind\":\"unavailable\",\"tx\":null,\"rx\":null,"
                              "\"reason\":\"an event of this class never got a hardware counter\"}"));
    assert_non_null(strstr(s, "\"merged\":[\"HRSP\",\"NDR\"]"));
    assert_non_null(strstr(s, "\"local_dram\":{\"kind\":\"proxy\",\"tx\":null,\"rx\":7,"));
    assert_non_null(strstr(s, "permission denied, \\\"quoted\\\""));
    assert_true(strstr(s, "\"counters\":") < strstr(s, "\"per_node\":["));
    assert_non_null(strstr(s, "\"bytes_homed\":1536}]}\n"));
    free(s);

    int ok = python_check(py_lines, path, "1");
    if (ok < 0) {
        print_message("JSON parse check skipped: python3 not found\n");
        return;
    }
    assert_int_equal(ok, 1);
    static const char *const py_ctr =
            "import json,sys\n"
            "o=json.loads(open(sys.argv[1],encoding=\"utf-8\").read())\n"
            "c=o[\"counters\"]\n"
            "assert c[\"sockets\"]==2 and c[\"reason\"] is None and c[\"seconds\"]==2.5\n"
            "k=c[\"classes\"]\n"
            "assert len(k)==10 and list(k)[0]==\"dtc\" and list(k)[-1]==\"remote_cache\"\n"
            "assert k[\"link_bytes\"][\"tx\"]==3<<20 and k[\"link_bytes\"][\"scaled\"] is True\n"
            "for v in k.values():\n"
            "    if v[\"kind\"]==\"unavailable\":\n"
            "        assert v[\"tx\"] is None and v[\"rx\"] is None and v[\"reason\"]\n"
            "p=c[\"per_socket\"]\n"
            "assert len(p)==2 and p[1][\"socket\"]==1 and p[1][\"classes\"][\"dtc\"][\"tx\"]==77\n"
            "assert p[0][\"classes\"][\"remote_cache\"][\"kind\"]==\"unavailable\"\n"
            "assert len(o[\"per_node\"])==2\n";
    assert_int_equal(python_check(py_ctr, path, NULL), 1);
}

static void test_counters_csv(void **state)
{
    (void)state;
    locus_stats_t t;
    locus_node_stats_t n[2];
    locus_counters_t ct, cs[2];
    sample(&t, n);
    sample_counters(&ct, cs);
    struct lc_report_info info = sample_info();
    info.counters = &ct;
    info.socket_counters = cs;
    info.nsockets = 2;
    char path[PATH_MAX], err[256];
    path_in(path, sizeof path, "ctr.csv");
    assert_int_equal(lc_report_write(path, &info, &t, n, 2, err, sizeof err), 0);
    assert_int_equal(lc_report_write(path, &info, &t, n, 2, err, sizeof err), 0);
    char *s = slurp(path);

    assert_int_equal(count_str(s, "regime,sched,"), 1);
    assert_non_null(strstr(s, ",bytes_homed,counters_backend,dtc_tx,dtc_rx,dwb_tx,dwb_rx,"
                              "hreq_tx,hreq_rx,snp_tx,snp_rx,hrsp_tx,hrsp_rx,ndr_tx,ndr_rx,"
                              "link_bytes_tx,link_bytes_rx,local_dram_tx,local_dram_rx,"
                              "remote_dram_tx,remote_dram_rx,remote_cache_tx,remote_cache_rx,"
                              "counters_note\n"));
    int rows = 0;
    for (const char *p = s; *p;) {
        assert_int_equal(csv_fields(p, &p), 18 + 22);
        rows++;
    }
    assert_int_equal(rows, 1 + 2 * 3);
    /* node rows: no counter values (they are per socket, not per node) */
    assert_non_null(strstr(s, ",2097152,1,2,3,4194304,,,,,,,,,,,,,,,,,,,,,,\n"));
    /* the totals row: values; unavailable ones empty; the note says why */
    assert_non_null(strstr(s, ",4195840,perf,100,200,,,300,400,5,6,50,60,50,60,3145728,1024,,7,,,,9,"
                              "\"DWB: an event of this class never got a hardware counter; "
                              "LINK_BYTES: scaled (multiplexed); REMOTE_DRAM: "
                              "MEM_LOAD_L3_MISS_RETIRED.REMOTE_DRAM: permission denied, "
                              "\"\"quoted\"\"\"\n"));
    free(s);

    /* the whole-backend reason leads the note */
    snprintf(ct.reason, sizeof ct.reason, "backend reason");
    s = write_and_read("reason.csv", &info, &t, n, 2);
    assert_non_null(strstr(s, ",\"backend reason; DWB: an event"));
    free(s);
}

static void test_counters_errors(void **state)
{
    (void)state;
    locus_stats_t t;
    locus_node_stats_t n[2];
    locus_counters_t ct, cs[2];
    sample(&t, n);
    sample_counters(&ct, cs);
    struct lc_report_info info = sample_info();
    char path[PATH_MAX], err[256];
    path_in(path, sizeof path, "bad.json");
    info.counters = &ct;
    info.nsockets = -1;
    assert_int_equal(lc_report_write(path, &info, &t, n, 2, err, sizeof err), -EINVAL);
    info.nsockets = 2;
    info.socket_counters = NULL;
    assert_int_equal(lc_report_write(path, &info, &t, n, 2, err, sizeof err), -EINVAL);
    assert_int_equal(access(path, F_OK), -1);
    /* counters without sockets are fine */
    info.nsockets = 0;
    assert_int_equal(lc_report_write(path, &info, &t, n, 2, err, sizeof err), 0);
    char *s = slurp(path);
    assert_non_null(strstr(s, "\"per_socket\":[]}"));
    free(s);
}

/* ---- setup --------------------------------------------------------------- */

static int group_setup(void **state)
{
    (void)state;
    const char *base = getenv("TMPDIR");
    if (base == NULL || base[0] == '\0')
        base = "/tmp";
    snprintf(tmpdir, sizeof tmpdir, "%s/test_report.XXXXXX", base);
    if (mkdtemp(tmpdir) == NULL) {
        fprintf(stderr, "mkdtemp(%s): %s\n", tmpdir, strerror(errno));
        return -1;
    }
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    DIR *d = opendir(tmpdir);
    if (d != NULL) {
        struct dirent *e;
        char p[PATH_MAX + 256];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(tmpdir);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_human),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_ended),
        cmocka_unit_test(test_append),
        cmocka_unit_test(test_csv_quoting),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_zero),
        cmocka_unit_test(test_stderr),
        cmocka_unit_test(test_counters_human),
        cmocka_unit_test(test_counters_json),
        cmocka_unit_test(test_counters_csv),
        cmocka_unit_test(test_counters_errors),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
