/*
 * test_env.c - unit tests of runtime/env.c: defaults, valid and boundary
 * values, every kind of bad value (each must name the variable and the
 * value), help bits, lc_options_resolve() for every regime and the refused
 * combinations, and unknown-name detection.  All but the last test feed
 * values through a getter over a small table, so they never touch the real
 * environment.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "env.h"
#include "policy.h"

/* ---- a table-backed getter ------------------------------------------- */

#define TMAX 16
struct table {
    int n;
    const char *name[TMAX];
    const char *value[TMAX];
};

static const char *table_get(const char *name, void *ctx)
{
    const struct table *t = ctx;
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->name[i], name) == 0)
            return t->value[i];
    return NULL;
}

static void tset(struct table *t, const char *name, const char *value)
{
    assert_true(t->n < TMAX);
    t->name[t->n] = name;
    t->value[t->n] = value;
    t->n++;
}

/* Parses with one variable set; returns lc_env_parse()'s result. */
static int parse1(struct lc_options *o, const char *name, const char *value,
                  char *err, size_t errlen)
{
    struct table t = { 0 };
    tset(&t, name, value);
    return lc_env_parse(o, table_get, &t, err, errlen);
}

static void expect_ok(struct lc_options *o, const char *name, const char *value)
{
    char err[LC_ENV_ERR_MAX];
    int r = parse1(o, name, value, err, sizeof err);
    if (r != 0)
        fail_msg("%s='%s' refused: %s", name, value, err);
    assert_string_equal(err, "");
}

/* The value must be refused with -EINVAL, a message naming the variable and
 * showing the value (shown, when the value has bytes the message escapes). */
static void expect_bad_shown(const char *name, const char *value, const char *shown)
{
    struct lc_options o, d;
    char err[LC_ENV_ERR_MAX];
    char want[LC_ENV_ERR_MAX];
    int r = parse1(&o, name, value, err, sizeof err);

    if (r != -EINVAL)
        fail_msg("%s='%s' gave %d, expected -EINVAL", name, value, r);
    snprintf(want, sizeof want, "%s='%s'", name, shown);
    if (strstr(err, want) == NULL)
        fail_msg("message for %s='%s' lacks \"%s\": %s", name, value, want, err);
    assert_non_null(strstr(err, "expected"));
    assert_true(strlen(err) < sizeof err - 1); /* not truncated */
    /* a failure leaves the defaults */
    lc_options_defaults(&d);
    assert_memory_equal(&o, &d, sizeof o);
}

static void expect_bad(const char *name, const char *value)
{
    expect_bad_shown(name, value, value);
}

/* ---- defaults ---------------------------------------------------------- */

static void check_defaults(const struct lc_options *o)
{
    assert_int_equal(o->threads, 0);
    assert_int_equal(o->bind, LC_BIND_CORE);
    assert_int_equal(o->spin, 20000);
    assert_int_equal(o->throttle, 8192);
    assert_int_equal(o->grain_ns, 200);
    assert_string_equal(o->regime, "naft");
    assert_string_equal(o->sched, "");
    assert_int_equal(o->pages, LC_PAGES_UNSET);
    assert_string_equal(o->topology, "");
    assert_int_equal(o->steal, LC_STEAL_NEAR);
    assert_int_equal(o->steal_spin, 200);
    assert_int_equal(o->wait_us, 1000);
    assert_string_equal(o->report, "");
    assert_int_equal(o->verbose, 0);
    assert_int_equal(o->counters, LC_COUNTERS_AUTO);
    assert_int_equal(o->likwid_marker, 0);
    assert_int_equal(o->help, 0);
}

static void test_defaults(void **state)
{
    (void)state;
    struct lc_options o;
    struct table t = { 0 };
    char err[LC_ENV_ERR_MAX] = "junk";

    lc_options_defaults(&o);
    check_defaults(&o);

    memset(&o, 0x5a, sizeof o);
    assert_int_equal(lc_env_parse(&o, table_get, &t, err, sizeof err), 0);
    check_defaults(&o);
    assert_string_equal(err, "");

    /* NULL err is allowed */
    assert_int_equal(lc_env_parse(&o, table_get, &t, NULL, 0), 0);
    assert_int_equal(parse1(&o, "LOCUS_THREADS", "x", NULL, 0), -EINVAL);
}

/* Empty and blank values mean unset for every variable. */
static void test_empty_is_unset(void **state)
{
    (void)state;
    static const char *const names[] = {
        "LOCUS_THREADS", "LOCUS_BIND", "LOCUS_SPIN", "LOCUS_THROTTLE",
        "LOCUS_REGIME", "LOCUS_SCHED", "LOCUS_PAGES", "LOCUS_TOPOLOGY",
        "LOCUS_STEAL", "LOCUS_STEAL_SPIN", "LOCUS_REPORT", "LOCUS_VERBOSE",
        "LOCUS_COUNTERS",
    };
    struct lc_options o;

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        expect_ok(&o, names[i], "");
        check_defaults(&o);
        expect_ok(&o, names[i], " \t\n ");
        check_defaults(&o);
    }
}

/* ---- integers ---------------------------------------------------------- */

static void test_threads(void **state)
{
    (void)state;
    struct lc_options o;

    expect_ok(&o, "LOCUS_THREADS", "1");
    assert_int_equal(o.threads, 1);
    expect_ok(&o, "LOCUS_THREADS", "4096");
    assert_int_equal(o.threads, LC_MAX_WORKERS);
    expect_ok(&o, "LOCUS_THREADS", "16");
    assert_int_equal(o.threads, 16);
    expect_ok(&o, "LOCUS_THREADS", "007");           /* decimal, not octal */
    assert_int_equal(o.threads, 7);
    expect_ok(&o, "LOCUS_THREADS", "  8\n");         /* trimmed */
    assert_int_equal(o.threads, 8);
    expect_ok(&o, "LOCUS_THREADS", "\t\r\v\f 9 \t");
    assert_int_equal(o.threads, 9);
    expect_ok(&o, "LOCUS_THREADS", "0000000000000000000000000000000000000000004");
    assert_int_equal(o.threads, 4);

    expect_bad("LOCUS_THREADS", "abc");
    expect_bad("LOCUS_THREADS", "4x");
    expect_bad("LOCUS_THREADS", "4 4");
    expect_bad("LOCUS_THREADS", "4\xc2\xa0");     /* no-break space is not trimmed */
    expect_bad("LOCUS_THREADS", "\xd9\xa4");       /* ARABIC-INDIC DIGIT FOUR */
    expect_bad("LOCUS_THREADS", "-1");
    expect_bad("LOCUS_THREADS", "+4");
    expect_bad("LOCUS_THREADS", "0x10");
    expect_bad("LOCUS_THREADS", "1e3");
    expect_bad("LOCUS_THREADS", "0");
    expect_bad("LOCUS_THREADS", "4097");
    expect_bad("LOCUS_THREADS", "18446744073709551616");        /* 2^64 */
    expect_bad("LOCUS_THREADS", "99999999999999999999999999999999999999");

    char err[LC_ENV_ERR_MAX];
    assert_int_equal(parse1(&o, "LOCUS_THREADS", "abc", err, sizeof err), -EINVAL);
    assert_string_equal(err, "LOCUS_THREADS='abc': expected an integer in 1..4096 "
                             "(unset = all CPUs of the affinity mask)");
}

static void check_uint(const char *name, unsigned min, unsigned max,
                       size_t off, int is_int)
{
    struct lc_options o;
    char buf[32];
    unsigned vals[3] = { min, max, min + (max - min) / 2 };

    for (int i = 0; i < 3; i++) {
        snprintf(buf, sizeof buf, "%u", vals[i]);
        expect_ok(&o, name, buf);
        unsigned got = is_int ? (unsigned)*(int *)((char *)&o + off)
                              : *(unsigned *)((char *)&o + off);
        assert_int_equal(got, vals[i]);
    }
    if (min > 0) {
        snprintf(buf, sizeof buf, "%u", min - 1);
        expect_bad(name, buf);
    }
    snprintf(buf, sizeof buf, "%lu", (unsigned long)max + 1);
    expect_bad(name, buf);
    expect_bad(name, "4294967296");              /* 2^32: wraps an unsigned */
    expect_bad(name, "18446744073709551615");    /* ULONG_MAX */
    expect_bad(name, "18446744073709551616");    /* overflows strtoul */
    expect_bad(name, "-1");
    expect_bad(name, "-0");
    expect_bad(name, "junk");
    expect_bad(name, "12abc");
    expect_bad(name, "1.5");
}

static void test_spin(void **state)
{
    (void)state;
    check_uint("LOCUS_SPIN", 0, 1000000000, offsetof(struct lc_options, spin), 0);
}

static void test_throttle(void **state)
{
    (void)state;
    check_uint("LOCUS_THROTTLE", 16, 100000000, offsetof(struct lc_options, throttle), 0);
    expect_bad("LOCUS_THROTTLE", "0");
}

static void test_grain_ns(void **state)
{
    (void)state;
    check_uint("LOCUS_GRAIN_NS", 0, 1000000, offsetof(struct lc_options, grain_ns), 0);
}

static void test_steal_spin(void **state)
{
    (void)state;
    check_uint("LOCUS_STEAL_SPIN", 0, 1000000000, offsetof(struct lc_options, steal_spin), 0);
    check_uint("LOCUS_POLL_US", 1, 1000000, offsetof(struct lc_options, poll_us), 0);
    check_uint("LOCUS_WAIT_US", 0, 1000000, offsetof(struct lc_options, wait_us), 0);
}

static void test_verbose(void **state)
{
    (void)state;
    check_uint("LOCUS_VERBOSE", 0, 3, offsetof(struct lc_options, verbose), 1);
    expect_bad("LOCUS_VERBOSE", "4");
    expect_bad("LOCUS_VERBOSE", "yes");
}

/* ---- keywords ---------------------------------------------------------- */

static void test_bind(void **state)
{
    (void)state;
    struct lc_options o;

    expect_ok(&o, "LOCUS_BIND", "none");
    assert_int_equal(o.bind, LC_BIND_NONE);
    expect_ok(&o, "LOCUS_BIND", "core");
    assert_int_equal(o.bind, LC_BIND_CORE);
    expect_ok(&o, "LOCUS_BIND", "NoNe");
    assert_int_equal(o.bind, LC_BIND_NONE);
    expect_ok(&o, "LOCUS_BIND", " CORE ");
    assert_int_equal(o.bind, LC_BIND_CORE);
    expect_bad("LOCUS_BIND", "cores");
    expect_bad("LOCUS_BIND", "cor");
    expect_bad("LOCUS_BIND", "1");
    expect_bad("LOCUS_BIND", "none,core");
}

static void test_regime(void **state)
{
    (void)state;
    struct lc_options o;
    char err[LC_ENV_ERR_MAX];

    expect_ok(&o, "LOCUS_REGIME", "dft");
    assert_string_equal(o.regime, "dft");
    expect_ok(&o, "LOCUS_REGIME", "DI");
    assert_string_equal(o.regime, "di");
    expect_ok(&o, "LOCUS_REGIME", "Naft");
    assert_string_equal(o.regime, "naft");
    assert_int_equal(o.help, 0);

    expect_ok(&o, "LOCUS_REGIME", "HELP");
    assert_int_equal(o.help, LC_HELP_REGIME);
    assert_string_equal(o.regime, "naft");       /* goes on with the default */

    expect_bad("LOCUS_REGIME", "fast");
    expect_bad("LOCUS_REGIME", "naftx");
    expect_bad("LOCUS_REGIME", "d");
    expect_bad("LOCUS_REGIME", "oblivious");
    assert_int_equal(parse1(&o, "LOCUS_REGIME", "fast", err, sizeof err), -EINVAL);
    assert_string_equal(err, "LOCUS_REGIME='fast': expected one of dft, di, naft, help");
}

static void test_sched(void **state)
{
    (void)state;
    struct lc_options o;
    char err[LC_ENV_ERR_MAX];

    expect_ok(&o, "LOCUS_SCHED", "oblivious");
    assert_string_equal(o.sched, "oblivious");
    expect_ok(&o, "LOCUS_SCHED", "NAFT");
    assert_string_equal(o.sched, "naft");
    expect_ok(&o, "LOCUS_SCHED", "help");
    assert_int_equal(o.help, LC_HELP_SCHED);
    assert_string_equal(o.sched, "");

    expect_bad("LOCUS_SCHED", "dft");
    expect_bad("LOCUS_SCHED", "random");
    assert_int_equal(parse1(&o, "LOCUS_SCHED", "eager", err, sizeof err), -EINVAL);
    assert_string_equal(err, "LOCUS_SCHED='eager': expected one of oblivious, naft, help");
}

static void test_pages(void **state)
{
    (void)state;
    struct lc_options o;

    expect_ok(&o, "LOCUS_PAGES", "firsttouch");
    assert_int_equal(o.pages, LC_PAGES_FIRSTTOUCH);
    expect_ok(&o, "LOCUS_PAGES", "Interleave");
    assert_int_equal(o.pages, LC_PAGES_INTERLEAVE);
    expect_bad("LOCUS_PAGES", "first-touch");
    expect_bad("LOCUS_PAGES", "interleaved");
    expect_bad("LOCUS_PAGES", "help");
}

static void test_steal(void **state)
{
    (void)state;
    struct lc_options o;

    expect_ok(&o, "LOCUS_STEAL", "all");
    assert_int_equal(o.steal, LC_STEAL_ALL);
    expect_ok(&o, "LOCUS_STEAL", "NONE");
    assert_int_equal(o.steal, LC_STEAL_NONE);
    expect_ok(&o, "LOCUS_STEAL", "near");
    assert_int_equal(o.steal, LC_STEAL_NEAR);
    expect_bad("LOCUS_STEAL", "far");
    expect_bad("LOCUS_STEAL", "0");
}

/* ---- strings ----------------------------------------------------------- */

static void test_topology(void **state)
{
    (void)state;
    struct lc_options o;
    static char big[LC_PATH_MAX + 1];

    expect_ok(&o, "LOCUS_TOPOLOGY", "bullion-s16");
    assert_string_equal(o.topology, "bullion-s16");
    expect_ok(&o, "LOCUS_TOPOLOGY", " synthetic:NUMANode:2 Core:2 PU:1 \n");
    assert_string_equal(o.topology, "synthetic:NUMANode:2 Core:2 PU:1");
    assert_int_equal(o.help, 0);
    expect_ok(&o, "LOCUS_TOPOLOGY", "Help");
    assert_int_equal(o.help, LC_HELP_TOPOLOGY);
    assert_string_equal(o.topology, "");

    memset(big, 'a', LC_PATH_MAX - 1);           /* longest accepted */
    big[LC_PATH_MAX - 1] = '\0';
    expect_ok(&o, "LOCUS_TOPOLOGY", big);
    assert_int_equal(strlen(o.topology), LC_PATH_MAX - 1);
    big[LC_PATH_MAX - 1] = 'a';                  /* one byte too long */
    big[LC_PATH_MAX] = '\0';
    /* the message shows the first 64 bytes of a long value */
    char shown[80];
    memset(shown, 'a', 64);
    strcpy(shown + 64, "...");
    expect_bad_shown("LOCUS_TOPOLOGY", big, shown);
}

static void test_report(void **state)
{
    (void)state;
    struct lc_options o;
    static char big[LC_PATH_MAX + 8];

    expect_ok(&o, "LOCUS_REPORT", "STDERR");
    assert_string_equal(o.report, "stderr");
    expect_ok(&o, "LOCUS_REPORT", "/tmp/locus-report.txt");
    assert_string_equal(o.report, "/tmp/locus-report.txt");
    expect_ok(&o, "LOCUS_REPORT", "./stderr");
    assert_string_equal(o.report, "./stderr");

    memset(big, '/', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    char shown[80];
    memset(shown, '/', 64);
    strcpy(shown + 64, "...");
    expect_bad_shown("LOCUS_REPORT", big, shown);
}

/* LOCUS_COUNTERS: a backend name or help; LIKWID_* only detected. */
static void test_counters(void **state)
{
    (void)state;
    struct lc_options o;
    static const struct {
        const char *value;
        enum lc_counters_req req;
    } ok[] = {
        { "auto", LC_COUNTERS_AUTO }, { "perf", LC_COUNTERS_PERF }, { "papi", LC_COUNTERS_PAPI },
        { "likwid", LC_COUNTERS_LIKWID }, { "none", LC_COUNTERS_NONE },
        { " PERF\n", LC_COUNTERS_PERF }, { "LikWid", LC_COUNTERS_LIKWID },
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        expect_ok(&o, "LOCUS_COUNTERS", ok[i].value);
        assert_int_equal(o.counters, ok[i].req);
        assert_int_equal(o.help, 0);
    }
    /* help lists the backends and runs on with auto */
    expect_ok(&o, "LOCUS_COUNTERS", "help");
    assert_int_equal(o.help, LC_HELP_COUNTERS);
    assert_int_equal(o.counters, LC_COUNTERS_AUTO);

    expect_bad("LOCUS_COUNTERS", "pref");
    expect_bad("LOCUS_COUNTERS", "perf,papi");
    expect_bad("LOCUS_COUNTERS", "1");
    char err[LC_ENV_ERR_MAX];
    assert_int_equal(parse1(&o, "LOCUS_COUNTERS", "uncore", err, sizeof err), -EINVAL);
    assert_string_equal(err, "LOCUS_COUNTERS='uncore': expected one of auto, perf, papi, likwid, "
                             "none, help");

    assert_string_equal(lc_counters_name(LC_COUNTERS_AUTO), "auto");
    assert_string_equal(lc_counters_name(LC_COUNTERS_NONE), "none");
    assert_string_equal(lc_counters_name(LC_COUNTERS_LIKWID), "likwid");
    assert_string_equal(lc_counters_name(-1), "?");
    assert_string_equal(lc_counters_name(5), "?");

    /* likwid-perfctr -m sets both variables; one alone, or empty, is not it */
    struct table t = { 0 };
    tset(&t, "LIKWID_EVENTS", "UPI");
    assert_int_equal(lc_env_parse(&o, table_get, &t, err, sizeof err), 0);
    assert_int_equal(o.likwid_marker, 0);
    tset(&t, "LIKWID_FILEPATH", "/tmp/likwid_marker.txt");
    assert_int_equal(lc_env_parse(&o, table_get, &t, err, sizeof err), 0);
    assert_int_equal(o.likwid_marker, 1);
    t.value[0] = " ";
    assert_int_equal(lc_env_parse(&o, table_get, &t, err, sizeof err), 0);
    assert_int_equal(o.likwid_marker, 0);
}

/* Control bytes in a bad value are escaped so the message stays one line. */
static void test_message_escapes(void **state)
{
    (void)state;
    expect_bad_shown("LOCUS_THREADS", "4\x01" "2", "4\\x012");
    expect_bad_shown("LOCUS_REGIME", "na\nft", "na\\x0aft");
}

/* The first bad variable is reported; the others are not looked at. */
static void test_first_error(void **state)
{
    (void)state;
    struct lc_options o;
    struct table t = { 0 };
    char err[LC_ENV_ERR_MAX];

    tset(&t, "LOCUS_VERBOSE", "9");
    tset(&t, "LOCUS_THREADS", "x");
    assert_int_equal(lc_env_parse(&o, table_get, &t, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "LOCUS_THREADS='x'"));

    /* several good values at once */
    struct table u = { 0 };
    tset(&u, "LOCUS_THREADS", "3");
    tset(&u, "LOCUS_BIND", "none");
    tset(&u, "LOCUS_REGIME", "dft");
    tset(&u, "LOCUS_STEAL", "all");
    tset(&u, "LOCUS_VERBOSE", "2");
    tset(&u, "LOCUS_SCHED", "help");
    assert_int_equal(lc_env_parse(&o, table_get, &u, err, sizeof err), 0);
    assert_int_equal(o.threads, 3);
    assert_int_equal(o.bind, LC_BIND_NONE);
    assert_string_equal(o.regime, "dft");
    assert_int_equal(o.steal, LC_STEAL_ALL);
    assert_int_equal(o.verbose, 2);
    assert_int_equal(o.help, LC_HELP_SCHED);
}

/* A tiny error buffer truncates but stays terminated. */
static void test_small_err(void **state)
{
    (void)state;
    struct lc_options o;
    char err[8];

    memset(err, 'z', sizeof err);
    assert_int_equal(parse1(&o, "LOCUS_THREADS", "abc", err, sizeof err), -EINVAL);
    assert_string_equal(err, "LOCUS_T");
    memset(err, 'z', sizeof err);
    assert_int_equal(parse1(&o, "LOCUS_THREADS", "abc", err, 1), -EINVAL);
    assert_int_equal(err[0], '\0');
    assert_int_equal(err[1], 'z');
}

/* ---- resolve ----------------------------------------------------------- */

struct resolve_case {
    const char *regime, *sched, *pages;  /* NULL = unset */
    int ok;
    const char *want_sched;
    enum lc_pages want_pages;
    const char *who1, *who2;             /* when refused: both named in the message */
};

static void run_resolve(const struct resolve_case *c)
{
    struct lc_options o, before;
    struct table t = { 0 };
    char err[LC_ENV_ERR_MAX];

    if (c->regime)
        tset(&t, "LOCUS_REGIME", c->regime);
    if (c->sched)
        tset(&t, "LOCUS_SCHED", c->sched);
    if (c->pages)
        tset(&t, "LOCUS_PAGES", c->pages);
    assert_int_equal(lc_env_parse(&o, table_get, &t, err, sizeof err), 0);
    before = o;
    int r = lc_options_resolve(&o, err, sizeof err);
    if (c->ok) {
        if (r != 0)
            fail_msg("regime=%s sched=%s pages=%s refused: %s", c->regime, c->sched,
                     c->pages, err);
        assert_string_equal(o.sched, c->want_sched);
        assert_int_equal(o.pages, c->want_pages);
        assert_string_equal(err, "");
        /* idempotent */
        assert_int_equal(lc_options_resolve(&o, err, sizeof err), 0);
        assert_string_equal(o.sched, c->want_sched);
        assert_int_equal(o.pages, c->want_pages);
    } else {
        assert_int_equal(r, -EINVAL);
        assert_memory_equal(&o, &before, sizeof o);     /* unchanged */
        if (strstr(err, c->who1) == NULL || strstr(err, c->who2) == NULL)
            fail_msg("message lacks %s / %s: %s", c->who1, c->who2, err);
        assert_non_null(strstr(err, "interleaved"));
        assert_non_null(strstr(err, "section 4.1"));
        assert_true(strlen(err) < sizeof err - 1);
    }
}

static void test_resolve(void **state)
{
    (void)state;
    static const struct resolve_case cases[] = {
        /* each regime alone, the default included */
        { NULL, NULL, NULL, 1, "naft", LC_PAGES_FIRSTTOUCH, 0, 0 },
        { "dft", NULL, NULL, 1, "oblivious", LC_PAGES_FIRSTTOUCH, 0, 0 },
        { "di", NULL, NULL, 1, "oblivious", LC_PAGES_INTERLEAVE, 0, 0 },
        { "naft", NULL, NULL, 1, "naft", LC_PAGES_FIRSTTOUCH, 0, 0 },
        /* overrides that stay valid */
        { "dft", NULL, "interleave", 1, "oblivious", LC_PAGES_INTERLEAVE, 0, 0 },
        { "di", NULL, "firsttouch", 1, "oblivious", LC_PAGES_FIRSTTOUCH, 0, 0 },
        { "naft", "oblivious", NULL, 1, "oblivious", LC_PAGES_FIRSTTOUCH, 0, 0 },
        { "naft", "oblivious", "interleave", 1, "oblivious", LC_PAGES_INTERLEAVE, 0, 0 },
        { "dft", "naft", NULL, 1, "naft", LC_PAGES_FIRSTTOUCH, 0, 0 },
        { "di", "naft", "firsttouch", 1, "naft", LC_PAGES_FIRSTTOUCH, 0, 0 },
        { NULL, "oblivious", "interleave", 1, "oblivious", LC_PAGES_INTERLEAVE, 0, 0 },
        /* refused: naft scheduler with interleaved pages, however chosen */
        { "naft", NULL, "interleave", 0, 0, 0, "LOCUS_REGIME=naft", "LOCUS_PAGES=interleave" },
        { NULL, NULL, "interleave", 0, 0, 0, "LOCUS_REGIME=naft", "LOCUS_PAGES=interleave" },
        { "dft", "naft", "interleave", 0, 0, 0, "LOCUS_SCHED=naft", "LOCUS_PAGES=interleave" },
        { NULL, "naft", "interleave", 0, 0, 0, "LOCUS_SCHED=naft", "LOCUS_PAGES=interleave" },
        { "di", "naft", NULL, 0, 0, 0, "LOCUS_SCHED=naft", "LOCUS_REGIME=di" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_resolve(&cases[i]);
}

/* ---- the registry (sched/registry.c) is what env.c accepts and refuses --- */

/* "a, b, ..., help" from the registry's names. */
static void registry_list(char *buf, size_t len, int regimes)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; regimes ? lc_regimes[i].name != NULL : lc_sched_registry[i] != NULL; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s, ",
                              regimes ? lc_regimes[i].name : lc_sched_registry[i]->name);
    snprintf(buf + o, len - o, "help");
}

static void test_registry_words(void **state)
{
    (void)state;
    struct lc_options o;
    char err[LC_ENV_ERR_MAX], want[LC_ENV_ERR_MAX], list[256];
    int ndefault = 0;

    /* every regime word, as its table line says */
    for (int i = 0; lc_regimes[i].name; i++) {
        expect_ok(&o, "LOCUS_REGIME", lc_regimes[i].name);
        assert_string_equal(o.regime, lc_regimes[i].name);
        assert_int_equal(lc_options_resolve(&o, err, sizeof err), 0);
        assert_string_equal(o.sched, lc_regimes[i].sched);
        assert_int_equal(o.pages, lc_regimes[i].pages);
        assert_non_null(lc_sched_find(lc_regimes[i].sched));
        ndefault += lc_regimes[i].is_default;
        if (lc_regimes[i].is_default) {
            lc_options_defaults(&o);
            assert_string_equal(o.regime, lc_regimes[i].name);
        }
    }
    assert_int_equal(ndefault, 1);
    /* every policy word */
    for (int i = 0; lc_sched_registry[i]; i++) {
        expect_ok(&o, "LOCUS_SCHED", lc_sched_registry[i]->name);
        assert_string_equal(o.sched, lc_sched_registry[i]->name);
        assert_ptr_equal(lc_sched_find(lc_sched_registry[i]->name), lc_sched_registry[i]);
        assert_non_null(lc_sched_registry[i]->description);
    }
    /* a bad word's message lists the registry's names, from the parser
     * and from resolve alike */
    registry_list(list, sizeof list, 1);
    snprintf(want, sizeof want, "LOCUS_REGIME='fast': expected one of %s", list);
    assert_int_equal(parse1(&o, "LOCUS_REGIME", "fast", err, sizeof err), -EINVAL);
    assert_string_equal(err, want);
    lc_options_defaults(&o);
    strcpy(o.regime, "fast");
    assert_int_equal(lc_options_resolve(&o, err, sizeof err), -EINVAL);
    assert_string_equal(err, want);
    registry_list(list, sizeof list, 0);
    snprintf(want, sizeof want, "LOCUS_SCHED='eager': expected one of %s", list);
    assert_int_equal(parse1(&o, "LOCUS_SCHED", "eager", err, sizeof err), -EINVAL);
    assert_string_equal(err, want);
    lc_options_defaults(&o);
    strcpy(o.sched, "eager");
    assert_int_equal(lc_options_resolve(&o, err, sizeof err), -EINVAL);
    assert_string_equal(err, want);
}

/* Interleaved pages are refused exactly with the policies whose registry
 * entry says they need first-touch pages, with a message naming them. */
static void test_registry_refusal(void **state)
{
    (void)state;
    struct lc_options o;
    char err[LC_ENV_ERR_MAX], who[64];
    int refused = 0;

    for (int i = 0; lc_sched_registry[i]; i++) {
        const struct lc_sched_ops *s = lc_sched_registry[i];
        lc_options_defaults(&o);
        snprintf(o.sched, sizeof o.sched, "%s", s->name);
        o.pages = LC_PAGES_INTERLEAVE;
        int r = lc_options_resolve(&o, err, sizeof err);
        if (!(s->caps & LC_SCHED_FIRST_TOUCH)) {
            assert_int_equal(r, 0);
            continue;
        }
        refused++;
        assert_int_equal(r, -EINVAL);
        snprintf(who, sizeof who, "LOCUS_SCHED=%s with LOCUS_PAGES=interleave is refused", s->name);
        assert_non_null(strstr(err, who));
        snprintf(who, sizeof who, "the %s scheduler places each task", s->name);
        assert_non_null(strstr(err, who));
        assert_non_null(strstr(err, "section 4.1"));
        /* the suggested regime interleaves with a policy that accepts it */
        const struct lc_regime *alt = lc_regime_interleaving();
        assert_non_null(alt);
        assert_int_equal(alt->pages, LC_PAGES_INTERLEAVE);
        assert_false(lc_sched_find(alt->sched)->caps & LC_SCHED_FIRST_TOUCH);
        snprintf(who, sizeof who, "LOCUS_REGIME=%s", alt->name);
        assert_non_null(strstr(err, who));
    }
    assert_true(refused > 0);   /* the NUMA-aware policy is in the registry */
    /* and through a regime whose own pages are interleaved */
    for (int i = 0; lc_regimes[i].name; i++) {
        if (lc_regimes[i].pages != LC_PAGES_INTERLEAVE)
            continue;
        for (int k = 0; lc_sched_registry[k]; k++) {
            lc_options_defaults(&o);
            snprintf(o.regime, sizeof o.regime, "%s", lc_regimes[i].name);
            snprintf(o.sched, sizeof o.sched, "%s", lc_sched_registry[k]->name);
            int r = lc_options_resolve(&o, err, sizeof err);
            assert_int_equal(r, lc_sched_registry[k]->caps & LC_SCHED_FIRST_TOUCH ? -EINVAL : 0);
        }
    }
}

/* resolve() checks what it is given even when not from lc_env_parse(). */
static void test_resolve_bad_fields(void **state)
{
    (void)state;
    struct lc_options o;
    char err[LC_ENV_ERR_MAX];

    lc_options_defaults(&o);
    strcpy(o.regime, "fast");
    assert_int_equal(lc_options_resolve(&o, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "LOCUS_REGIME='fast'"));

    lc_options_defaults(&o);
    strcpy(o.sched, "eager");
    assert_int_equal(lc_options_resolve(&o, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "LOCUS_SCHED='eager'"));

    lc_options_defaults(&o);
    o.pages = (enum lc_pages)7;
    assert_int_equal(lc_options_resolve(&o, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "LOCUS_PAGES"));

    lc_options_defaults(&o);
    assert_int_equal(lc_options_resolve(&o, NULL, 0), 0);
}

/* ---- unknown names (the one test that uses the real environment) -------- */

static void test_unknown(void **state)
{
    (void)state;
    char name[64];
    char tiny[6];

    /* start from a clean slate: drop any LOCUS_* the runner may have set,
     * except the reserved test names */
    static const char *const known[] = {
        "LOCUS_THREADS", "LOCUS_BIND", "LOCUS_SPIN", "LOCUS_THROTTLE",
        "LOCUS_REGIME", "LOCUS_SCHED", "LOCUS_PAGES", "LOCUS_TOPOLOGY",
        "LOCUS_STEAL", "LOCUS_STEAL_SPIN", "LOCUS_REPORT", "LOCUS_VERBOSE",
        "LOCUS_COUNTERS",
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        assert_int_equal(unsetenv(known[i]), 0);
    for (;;) {
        if (!lc_env_unknown(name, sizeof name))
            break;
        assert_int_equal(unsetenv(name), 0);
    }
    assert_int_equal(lc_env_unknown(name, sizeof name), 0);

    assert_int_equal(setenv("LOCUS_THREADS", "2", 1), 0);
    assert_int_equal(setenv("LOCUS_TEST_SANITIZER", "asan", 1), 0);
    assert_int_equal(setenv("LOCUS_TEST_ANYTHING", "1", 1), 0);
    assert_int_equal(setenv("locus_threads", "2", 1), 0);   /* not LOCUS_ */
    assert_int_equal(lc_env_unknown(name, sizeof name), 0);

    assert_int_equal(setenv("LOCUS_THREAD", "4", 1), 0);
    memset(name, 0, sizeof name);
    assert_int_equal(lc_env_unknown(name, sizeof name), 1);
    assert_string_equal(name, "LOCUS_THREAD");
    assert_string_equal(lc_env_suggest(name), "LOCUS_THREADS");
    assert_int_equal(lc_env_unknown(tiny, sizeof tiny), 1);   /* truncated */
    assert_string_equal(tiny, "LOCUS");
    assert_int_equal(lc_env_unknown(NULL, 0), 1);
    assert_int_equal(unsetenv("LOCUS_THREAD"), 0);

    assert_int_equal(setenv("LOCUS_", "", 1), 0);
    assert_int_equal(lc_env_unknown(name, sizeof name), 1);
    assert_string_equal(name, "LOCUS_");
    assert_int_equal(unsetenv("LOCUS_"), 0);

    assert_int_equal(lc_env_unknown(name, sizeof name), 0);

    /* the real environment through the default getter */
    struct lc_options o;
    char err[LC_ENV_ERR_MAX];
    assert_int_equal(lc_env_parse(&o, NULL, NULL, err, sizeof err), 0);
    assert_int_equal(o.threads, 2);
    assert_int_equal(setenv("LOCUS_THREADS", "two", 1), 0);
    assert_int_equal(lc_env_parse(&o, NULL, NULL, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "LOCUS_THREADS='two'"));

    unsetenv("LOCUS_THREADS");
    unsetenv("LOCUS_TEST_ANYTHING");
    unsetenv("locus_threads");
}

static void test_known_and_suggest(void **state)
{
    (void)state;
    assert_true(lc_env_is_known("LOCUS_STEAL_SPIN"));
    assert_true(lc_env_is_known("LOCUS_TEST_SANITIZER"));
    assert_true(lc_env_is_known("LOCUS_TEST_TIMEOUT"));
    assert_false(lc_env_is_known("LOCUS_STEALSPIN"));
    assert_false(lc_env_is_known("locus_threads"));
    assert_false(lc_env_is_known(NULL));

    assert_string_equal(lc_env_suggest("LOCUS_STEALSPIN"), "LOCUS_STEAL_SPIN");
    assert_string_equal(lc_env_suggest("LOCUS_REGMIE"), "LOCUS_REGIME");
    assert_string_equal(lc_env_suggest("locus_threads"), "LOCUS_THREADS");
    assert_string_equal(lc_env_suggest("LOCUS_TOPOLGY"), "LOCUS_TOPOLOGY");
    assert_string_equal(lc_env_suggest("LOCUS_COUNTER"), "LOCUS_COUNTERS");
    assert_true(lc_env_is_known("LOCUS_COUNTERS"));
    assert_false(lc_env_is_known("LIKWID_EVENTS")); /* likwid's, not a Locus variable */
    assert_null(lc_env_suggest("LOCUS_FOO"));
    assert_null(lc_env_suggest(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_empty_is_unset),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_spin),
        cmocka_unit_test(test_throttle),
        cmocka_unit_test(test_grain_ns),
        cmocka_unit_test(test_steal_spin),
        cmocka_unit_test(test_verbose),
        cmocka_unit_test(test_bind),
        cmocka_unit_test(test_regime),
        cmocka_unit_test(test_sched),
        cmocka_unit_test(test_pages),
        cmocka_unit_test(test_steal),
        cmocka_unit_test(test_topology),
        cmocka_unit_test(test_report),
        cmocka_unit_test(test_counters),
        cmocka_unit_test(test_message_escapes),
        cmocka_unit_test(test_first_error),
        cmocka_unit_test(test_small_err),
        cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_resolve_bad_fields),
        cmocka_unit_test(test_registry_words),
        cmocka_unit_test(test_registry_refusal),
        cmocka_unit_test(test_unknown),
        cmocka_unit_test(test_known_and_suggest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
