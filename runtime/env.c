/*
 * env.c - the one place in Locus that reads the environment (style guide
 * item 4, after jemalloc's conf.c and libgomp's env.c).  lc_env_parse() runs
 * once in locus_init() and turns every LOCUS_* variable into a field of
 * struct lc_options; workers never call getenv.  The regimes and the refused
 * combination follow Caheny et al., "Reducing Cache Coherence Traffic with a
 * NUMA-Aware Runtime Approach", section 4.1.
 *
 * Value rules, the same for every variable (and stated in man/locus.7):
 *  - leading and trailing whitespace is trimmed: values from scripts and
 *    files often carry a stray blank or newline, and strtoul() alone would
 *    take " 4" but refuse "4 ", which is worse than either rule;
 *  - a value that is empty after trimming means unset, as `VAR= prog` is the
 *    usual shell way to switch a variable off for one command;
 *  - keywords are case-insensitive and stored in lower case;
 *  - integers are plain decimal digits (no sign, base prefix or exponent);
 *    a sign is refused before strtoul() sees it because strtoul() silently
 *    wraps "-1" to ULONG_MAX; overflow and out-of-range values are errors.
 * Every error names the variable, shows the value and says what is accepted.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* secure_getenv */
#endif
#include "env.h"
#include "policy.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern char **environ;

/* Every variable lc_env_parse() reads; lc_env_unknown() checks against it. */
static const char *const known_names[] = {
    "LOCUS_THREADS", "LOCUS_BIND",     "LOCUS_SPIN",     "LOCUS_THROTTLE",
    "LOCUS_REGIME",  "LOCUS_SCHED",    "LOCUS_PAGES",    "LOCUS_TOPOLOGY",
    "LOCUS_STEAL",   "LOCUS_STEAL_SPIN", "LOCUS_REPORT", "LOCUS_VERBOSE",
    "LOCUS_COUNTERS", "LOCUS_GRAIN_NS", "LOCUS_POLL_US", "LOCUS_TEST_SANITIZER",
    "LOCUS_TRACE",   "LOCUS_DAG",      "LOCUS_SIM",      "LOCUS_SIM_MACHINE",
    "LOCUS_SIM_MODEL", "LOCUS_SIM_SEED", "LOCUS_SIM_SCHEDULE", "LOCUS_SIGNALS",
    "LOCUS_WAIT_US",
};
#define NKNOWN (sizeof known_names / sizeof known_names[0])

/* Reserved for the test suite; never read by the library. */
#define TEST_PREFIX "LOCUS_TEST_"

/* LOCUS_REGIME and LOCUS_SCHED accept the names in sched/registry.c (the
 * one list of regimes and policies), then "help". */
#define MAX_WORDS 32
static void registry_words(const char **words, int regimes)
{
    int n = 0;
    if (regimes)
        for (int i = 0; lc_regimes[i].name && n < MAX_WORDS - 2; i++)
            words[n++] = lc_regimes[i].name;
    else
        for (int i = 0; lc_sched_registry[i] && n < MAX_WORDS - 2; i++)
            words[n++] = lc_sched_registry[i]->name;
    words[n++] = "help";
    words[n] = NULL;
}

static const char *const bind_words[] = { "core", "none", NULL };
static const char *const pages_words[] = { "firsttouch", "interleave", NULL };
static const char *const steal_words[] = { "near", "all", "none", NULL };
/* enum lc_counters_req order, then help */
static const char *const counters_words[] = { "auto", "perf", "papi", "likwid", "none", "help", NULL };
#define COUNTERS_HELP 5

const char *lc_counters_name(int req)
{
    return req >= 0 && req < COUNTERS_HELP ? counters_words[req] : "?";
}

/* Longest part of a bad value echoed back in a message. */
#define SHOW_MAX 64

void lc_options_defaults(struct lc_options *o)
{
    memset(o, 0, sizeof *o);
    o->threads = 0;
    o->bind = LC_BIND_CORE;
    o->spin = 20000;
    o->spin_adapt = 1;
    o->throttle = 8192;
    o->grain_ns = 200;
    snprintf(o->regime, sizeof o->regime, "%s", lc_regime_default()->name);
    o->sched[0] = '\0';
    o->pages = LC_PAGES_UNSET;
    o->topology[0] = '\0';
    o->steal = LC_STEAL_NEAR;
    o->steal_spin = 200;
    o->poll_us = 50;
    o->wait_us = 1000;
    o->report[0] = '\0';
    o->trace[0] = '\0';
    o->dag[0] = '\0';
    o->signals = 1;
    o->verbose = 0;
    o->counters = LC_COUNTERS_AUTO;
    o->likwid_marker = 0;
    o->help = 0;
}

struct penv {
    lc_env_getter get;
    void *ctx;
    char *err;
    size_t errlen;
};

/* ASCII only: the <ctype.h> classes follow the program's locale, and the
 * rules must not change with setlocale(). */
static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int ascii_upper(char c)
{
    return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c;
}

static const char *get_secure(const char *name, void *ctx)
{
    (void)ctx;
    return secure_getenv(name);
}

/* Appends raw to buf as shown in messages: control bytes as \xNN (a newline
 * in a value must not split the message), at most SHOW_MAX bytes. */
static void show_value(char *buf, size_t len, const char *raw)
{
    size_t o = 0, i;

    if (len == 0)
        return;
    for (i = 0; raw[i] != '\0' && i < SHOW_MAX; i++) {
        unsigned char c = (unsigned char)raw[i];
        if (c < 0x20 || c == 0x7f) {
            if (o + 4 >= len)
                break;
            snprintf(buf + o, len - o, "\\x%02x", c);
            o += 4;
        } else {
            if (o + 1 >= len)
                break;
            buf[o++] = (char)c;
        }
    }
    if (raw[i] != '\0' && o + 3 < len) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = '\0';
}

/* "NAME='value': <what is accepted>"; returns -EINVAL. */
__attribute__((format(printf, 4, 5)))
static int fail(struct penv *p, const char *name, const char *raw, const char *fmt, ...)
{
    char shown[SHOW_MAX * 4 + 4];
    va_list ap;
    int n;

    if (p->err == NULL || p->errlen == 0)
        return -EINVAL;
    show_value(shown, sizeof shown, raw);
    n = snprintf(p->err, p->errlen, "%s='%s': ", name, shown);
    if (n >= 0 && (size_t)n < p->errlen) {
        va_start(ap, fmt);
        vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -EINVAL;
}

/* Looks name up and trims it.  Returns 0 when unset or blank, else 1 with
 * the raw value in *raw and the trimmed span in *v / *n. */
static int lookup(struct penv *p, const char *name, const char **raw,
                  const char **v, size_t *n)
{
    const char *s = p->get(name, p->ctx), *e;

    if (s == NULL)
        return 0;
    *raw = s;
    while (is_blank(*s))
        s++;
    e = s + strlen(s);
    while (e > s && is_blank(e[-1]))
        e--;
    if (e == s)
        return 0;
    *v = s;
    *n = (size_t)(e - s);
    return 1;
}

/* Unsigned decimal in min..max.  Returns 0 unset, 1 set (*out), -EINVAL. */
static int parse_uint(struct penv *p, const char *name, unsigned long min,
                      unsigned long max, const char *note, unsigned long *out)
{
    const char *raw, *v;
    char buf[32], *end;
    unsigned long x;
    size_t n, i;

    if (!lookup(p, name, &raw, &v, &n))
        return 0;
    for (i = 0; i < n; i++)
        if (!is_digit(v[i]))
            break;
    if (i < n)
        goto bad;
    while (n > 1 && v[0] == '0') {       /* leading zeros do not overflow */
        v++;
        n--;
    }
    if (n >= sizeof buf)                 /* more digits than any range here */
        goto bad;
    memcpy(buf, v, n);
    buf[n] = '\0';
    errno = 0;
    x = strtoul(buf, &end, 10);
    if (errno != 0 || end != buf + n || x < min || x > max)
        goto bad;
    *out = x;
    return 1;
bad:
    return fail(p, name, raw, "expected an integer in %lu..%lu (%s)", min, max, note);
}

/* Joins words as "a, b, c" for messages. */
static void list_words(char *buf, size_t len, const char *const *words)
{
    size_t o = 0;

    buf[0] = '\0';
    for (; *words != NULL; words++) {
        int k = snprintf(buf + o, len - o, "%s%s", o ? ", " : "", *words);
        if (k < 0 || (size_t)k >= len - o)
            return;
        o += (size_t)k;
    }
}

/* One of words (case-insensitive).  Returns 0 unset, 1 set (*idx), -EINVAL. */
static int parse_word(struct penv *p, const char *name, const char *const *words,
                      int *idx)
{
    const char *raw, *v;
    char list[128];
    size_t n;
    int i;

    if (!lookup(p, name, &raw, &v, &n))
        return 0;
    for (i = 0; words[i] != NULL; i++) {
        if (strlen(words[i]) == n && strncasecmp(words[i], v, n) == 0) {
            *idx = i;
            return 1;
        }
    }
    list_words(list, sizeof list, words);
    return fail(p, name, raw, "expected one of %s", list);
}

/* Any trimmed string shorter than LC_PATH_MAX, copied into buf (LC_PATH_MAX
 * bytes).  Returns 0 unset, 1 set, -EINVAL. */
static int parse_text(struct penv *p, const char *name, const char *what, char *buf)
{
    const char *raw, *v;
    size_t n;

    if (!lookup(p, name, &raw, &v, &n))
        return 0;
    if (n >= LC_PATH_MAX)
        return fail(p, name, raw, "expected %s of at most %d bytes (this one has %zu)",
                    what, LC_PATH_MAX - 1, n);
    memcpy(buf, v, n);
    buf[n] = '\0';
    return 1;
}

static int parse_all(struct penv *p, struct lc_options *o)
{
    unsigned long x;
    int r, i;

    if ((r = parse_uint(p, "LOCUS_THREADS", 1, LC_MAX_WORKERS,
                        "unset = all CPUs of the affinity mask", &x)) < 0)
        return r;
    if (r)
        o->threads = (int)x;

    if ((r = parse_word(p, "LOCUS_BIND", bind_words, &i)) < 0)
        return r;
    if (r)
        o->bind = i == 0 ? LC_BIND_CORE : LC_BIND_NONE;

    if ((r = parse_uint(p, "LOCUS_SPIN", 0, 1000000000, "default 20000", &x)) < 0)
        return r;
    o->spin_adapt = !r;
    if (r)
        o->spin = (unsigned)x;

    if ((r = parse_uint(p, "LOCUS_THROTTLE", 16, 100000000, "default 8192", &x)) < 0)
        return r;
    if (r)
        o->throttle = (unsigned)x;

    if ((r = parse_uint(p, "LOCUS_GRAIN_NS", 0, 1000000, "default 200, 0 = off", &x)) < 0)
        return r;
    if (r)
        o->grain_ns = (unsigned)x;

    const char *regime_words[MAX_WORDS], *sched_words[MAX_WORDS];
    registry_words(regime_words, 1);
    registry_words(sched_words, 0);
    if ((r = parse_word(p, "LOCUS_REGIME", regime_words, &i)) < 0)
        return r;
    if (r && strcmp(regime_words[i], "help") == 0)
        o->help |= LC_HELP_REGIME;
    else if (r)
        snprintf(o->regime, sizeof o->regime, "%s", regime_words[i]);

    if ((r = parse_word(p, "LOCUS_SCHED", sched_words, &i)) < 0)
        return r;
    if (r && strcmp(sched_words[i], "help") == 0)
        o->help |= LC_HELP_SCHED;
    else if (r)
        snprintf(o->sched, sizeof o->sched, "%s", sched_words[i]);

    if ((r = parse_word(p, "LOCUS_PAGES", pages_words, &i)) < 0)
        return r;
    if (r)
        o->pages = i == 0 ? LC_PAGES_FIRSTTOUCH : LC_PAGES_INTERLEAVE;

    if ((r = parse_text(p, "LOCUS_TOPOLOGY",
                        "help, a preset name, an hwloc synthetic description or an XML file path",
                        o->topology)) < 0)
        return r;
    if (r && strcasecmp(o->topology, "help") == 0) {
        o->help |= LC_HELP_TOPOLOGY;
        o->topology[0] = '\0';
    }

    if ((r = parse_word(p, "LOCUS_STEAL", steal_words, &i)) < 0)
        return r;
    if (r)
        o->steal = i == 0 ? LC_STEAL_NEAR : i == 1 ? LC_STEAL_ALL : LC_STEAL_NONE;

    if ((r = parse_uint(p, "LOCUS_STEAL_SPIN", 0, 1000000000, "default 200", &x)) < 0)
        return r;
    if (r)
        o->steal_spin = (unsigned)x;

    if ((r = parse_uint(p, "LOCUS_WAIT_US", 0, 1000000, "default 1000, 0 = off", &x)) < 0)
        return r;
    if (r)
        o->wait_us = (unsigned)x;

    if ((r = parse_uint(p, "LOCUS_POLL_US", 1, 1000000, "default 50", &x)) < 0)
        return r;
    if (r)
        o->poll_us = (unsigned)x;

    if ((r = parse_text(p, "LOCUS_REPORT", "stderr or a file path", o->report)) < 0)
        return r;
    if (r && strcasecmp(o->report, "stderr") == 0)
        strcpy(o->report, "stderr");

    /* the paths are checked at init, where the trace room says what it
     * can do in this build (trace/trace.c) */
    if ((r = parse_text(p, "LOCUS_TRACE", "a directory path for the OTF2 trace", o->trace)) < 0)
        return r;
    if ((r = parse_text(p, "LOCUS_DAG", "a file path for the Graphviz task graph", o->dag)) < 0)
        return r;

    /* LOCUS_SIM names the topology it simulates, which LOCUS_TOPOLOGY may
     * repeat but not contradict */
    if ((r = parse_uint(p, "LOCUS_SIGNALS", 0, 1, "default 1: outputs written on SIGTERM "
                        "and SIGINT; 0: the signals left alone", &x)) < 0)
        return r;
    if (r)
        o->signals = (int)x;
    if ((r = parse_text(p, "LOCUS_SIM", "the topology to simulate (a preset name, an hwloc "
                        "synthetic description or an XML file path)", o->sim)) < 0)
        return r;
    if (r) {
        if (o->topology[0] && strcmp(o->topology, o->sim) != 0) {
            const char *raw2, *v2;
            size_t n2;
            lookup(p, "LOCUS_SIM", &raw2, &v2, &n2);
            return fail(p, "LOCUS_SIM", raw2, "expected the topology LOCUS_TOPOLOGY names "
                        "('%s'), or LOCUS_TOPOLOGY unset", o->topology);
        }
        snprintf(o->topology, sizeof o->topology, "%s", o->sim);
    }
    if ((r = parse_text(p, "LOCUS_SIM_MACHINE", "a machine model file path", o->sim_machine)) < 0)
        return r;
    if ((r = parse_text(p, "LOCUS_SIM_MODEL", "a task model file path", o->sim_model)) < 0)
        return r;
    if ((r = parse_text(p, "LOCUS_SIM_SCHEDULE", "a file path for the simulated schedule",
                        o->sim_schedule)) < 0)
        return r;
    if ((r = parse_uint(p, "LOCUS_SIM_SEED", 0, 4294967295ul, "default 0", &x)) < 0)
        return r;
    if (r)
        o->sim_seed = x;
    if (!o->sim[0] && (o->sim_machine[0] || o->sim_model[0] || o->sim_schedule[0])) {
        const char *raw2, *v2;
        size_t n2;
        const char *nm = o->sim_machine[0] ? "LOCUS_SIM_MACHINE"
                         : o->sim_model[0] ? "LOCUS_SIM_MODEL" : "LOCUS_SIM_SCHEDULE";
        lookup(p, nm, &raw2, &v2, &n2);
        return fail(p, nm, raw2, "only read under simulation: set LOCUS_SIM as well");
    }

    if ((r = parse_uint(p, "LOCUS_VERBOSE", 0, 3, "default 0", &x)) < 0)
        return r;
    if (r)
        o->verbose = (int)x;

    /* help counts as auto: the listing is printed and the run goes on */
    if ((r = parse_word(p, "LOCUS_COUNTERS", counters_words, &i)) < 0)
        return r;
    if (r && i == COUNTERS_HELP)
        o->help |= LC_HELP_COUNTERS;
    else if (r)
        o->counters = (enum lc_counters_req)i;

    /* likwid-perfctr -m sets both; likwid's marker calls do nothing without
     * them (and say so on stderr), so the likwid backend needs to know. */
    const char *raw, *v;
    size_t n;
    o->likwid_marker = lookup(p, "LIKWID_EVENTS", &raw, &v, &n) &&
                       lookup(p, "LIKWID_FILEPATH", &raw, &v, &n);
    return 0;
}

int lc_env_parse(struct lc_options *o, lc_env_getter get, void *ctx,
                 char *err, size_t errlen)
{
    struct penv p = { get ? get : get_secure, ctx, err, errlen };
    struct lc_options t; /* a failure leaves o at the defaults, not half set */
    int r;

    if (err != NULL && errlen > 0)
        err[0] = '\0';
    lc_options_defaults(o);
    lc_options_defaults(&t);
    r = parse_all(&p, &t);
    if (r == 0)
        *o = t;
    return r;
}

int lc_options_resolve(struct lc_options *o, char *err, size_t errlen)
{
    const struct lc_regime *rg = lc_regime_find(o->regime);
    const struct lc_sched_ops *sched;
    const char *words[MAX_WORDS];
    enum lc_pages pages;
    char who_sched[64], who_pages[64], list[128];

    if (err != NULL && errlen > 0)
        err[0] = '\0';
    if (rg == NULL) {
        registry_words(words, 1);
        list_words(list, sizeof list, words);
        if (err != NULL && errlen > 0)
            snprintf(err, errlen, "LOCUS_REGIME='%.*s': expected one of %s",
                     (int)sizeof o->regime, o->regime, list);
        return -EINVAL;
    }
    if (o->sched[0] != '\0') {
        if ((sched = lc_sched_find(o->sched)) == NULL) {
            registry_words(words, 0);
            list_words(list, sizeof list, words);
            if (err != NULL && errlen > 0)
                snprintf(err, errlen, "LOCUS_SCHED='%.*s': expected one of %s",
                         (int)sizeof o->sched, o->sched, list);
            return -EINVAL;
        }
        snprintf(who_sched, sizeof who_sched, "LOCUS_SCHED=%s", sched->name);
    } else {
        if ((sched = lc_sched_find(rg->sched)) == NULL) {   /* a registry.c mistake */
            if (err != NULL && errlen > 0)
                snprintf(err, errlen, "LOCUS_REGIME=%s: its scheduler '%s' is not in this build",
                         rg->name, rg->sched);
            return -EINVAL;
        }
        snprintf(who_sched, sizeof who_sched, "LOCUS_REGIME=%s", rg->name);
    }
    if (o->pages == LC_PAGES_FIRSTTOUCH || o->pages == LC_PAGES_INTERLEAVE) {
        pages = o->pages;
        snprintf(who_pages, sizeof who_pages, "LOCUS_PAGES=%s",
                 pages == LC_PAGES_INTERLEAVE ? "interleave" : "firsttouch");
    } else if (o->pages == LC_PAGES_UNSET) {
        pages = rg->pages;
        snprintf(who_pages, sizeof who_pages, "LOCUS_REGIME=%s (%s pages)", rg->name,
                 pages == LC_PAGES_INTERLEAVE ? "interleaved" : "first-touch");
    } else {
        if (err != NULL && errlen > 0)
            snprintf(err, errlen, "LOCUS_PAGES: invalid internal value %d: expected firsttouch or interleave",
                     (int)o->pages);
        return -EINVAL;
    }

    /* Section 4.1: NUMA-aware scheduling with interleaved allocation gives
     * the OS and the runtime conflicting responsibility for data placement;
     * the registry says which policies place by data (LC_SCHED_FIRST_TOUCH). */
    if ((sched->caps & LC_SCHED_FIRST_TOUCH) && pages == LC_PAGES_INTERLEAVE) {
        const struct lc_regime *alt = lc_regime_interleaving();
        char instead[96] = "";
        if (alt)
            snprintf(instead, sizeof instead, ", or the %s scheduler (LOCUS_REGIME=%s) for "
                     "interleaved pages", alt->sched, alt->name);
        if (err != NULL && errlen > 0)
            snprintf(err, errlen,
                     "%s with %s is refused: the %s scheduler places each task on the "
                     "NUMA node that holds most of its data, but with pages interleaved over "
                     "all nodes no node holds the data, so the placement would be meaningless "
                     "(Caheny et al., section 4.1; see locus(7)); use LOCUS_PAGES=firsttouch "
                     "with %s%s",
                     who_sched, who_pages, sched->name, sched->name, instead);
        return -EINVAL;
    }
    snprintf(o->regime, sizeof o->regime, "%s", rg->name);
    snprintf(o->sched, sizeof o->sched, "%s", sched->name);
    o->pages = pages;
    return 0;
}

int lc_env_is_known(const char *name)
{
    size_t i;

    if (name == NULL)
        return 0;
    if (strncmp(name, TEST_PREFIX, sizeof TEST_PREFIX - 1) == 0)
        return 1;
    for (i = 0; i < NKNOWN; i++)
        if (strcmp(name, known_names[i]) == 0)
            return 1;
    return 0;
}

int lc_env_unknown(char *name, size_t len)
{
    char buf[256];
    char **e;

    if (environ == NULL)
        return 0;
    for (e = environ; *e != NULL; e++) {
        const char *eq;
        size_t n;

        if (strncmp(*e, "LOCUS_", 6) != 0)
            continue;
        eq = strchr(*e, '=');
        n = eq ? (size_t)(eq - *e) : strlen(*e);
        if (n >= sizeof buf)
            n = sizeof buf - 1; /* a name this long is unknown anyway */
        memcpy(buf, *e, n);
        buf[n] = '\0';
        if (lc_env_is_known(buf))
            continue;
        if (name != NULL && len > 0)
            snprintf(name, len, "%s", buf);
        return 1;
    }
    return 0;
}

/* Optimal string alignment distance, case-insensitive; names are short. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), i, j;
    unsigned char d[65][65]; /* distances <= 64 */

    if (la > 64 || lb > 64)
        return SIZE_MAX;
    for (i = 0; i <= la; i++)
        d[i][0] = (unsigned char)i;
    for (j = 0; j <= lb; j++)
        d[0][j] = (unsigned char)j;
    for (i = 1; i <= la; i++) {
        for (j = 1; j <= lb; j++) {
            int ca = ascii_upper(a[i - 1]), cb = ascii_upper(b[j - 1]);
            unsigned best = d[i - 1][j - 1] + (unsigned)(ca != cb);
            if (d[i - 1][j] + 1u < best)
                best = d[i - 1][j] + 1u;
            if (d[i][j - 1] + 1u < best)
                best = d[i][j - 1] + 1u;
            if (i > 1 && j > 1 && ca == ascii_upper(b[j - 2]) &&
                ascii_upper(a[i - 2]) == cb && d[i - 2][j - 2] + 1u < best)
                best = d[i - 2][j - 2] + 1u;
            d[i][j] = (unsigned char)best;
        }
    }
    return d[la][lb];
}

const char *lc_env_suggest(const char *name)
{
    const char *best = NULL;
    size_t bestd = 3, i; /* at most two edits away */

    if (name == NULL)
        return NULL;
    for (i = 0; i < NKNOWN; i++) {
        size_t dist = edit_distance(name, known_names[i]);
        if (dist < bestd) {
            bestd = dist;
            best = known_names[i];
        }
    }
    return best;
}
