/*
 * report.c - writes the locality report of a run (LOCUS_REPORT) in one of
 * three formats, chosen by the destination:
 *
 *   "stderr" (any case), or a path whose extension is neither .json nor
 *   .csv: a human-readable block (run settings, totals, an aligned per-node
 *   table).  Appended to a file with a blank line between runs.
 *
 *   *.json: JSON Lines - one complete JSON object per run, on one line,
 *   ended by a newline.  A file shared by several runs therefore holds one
 *   object per line (read it line by line, e.g. with jq -s or
 *   [json.loads(l) for l in f]), not one JSON document.  first_touch_tasks
 *   is null where it is not tracked (one node).
 *
 *   *.csv: one row per node plus a row with node=all for the totals, under
 *   a header line written only when the file is new or empty.  The run
 *   settings (regime ... seconds) repeat on every row so that rows of
 *   several runs in one file can be told apart; workers is the row's own
 *   count (the node's workers, or all workers on the node=all row), like
 *   every column after node.  Fields with a comma, quote or line break are
 *   quoted (RFC 4180).  first_touch_tasks is empty where not tracked.
 *
 * A run that ended without locus_finalize (exit.c: exit(), a return from
 * main, SIGTERM or SIGINT) says so: human, an "ended" line with how and
 * the tasks left unfinished; JSON, "ended" ("finalize" for a finalized
 * run) and "unfinished_tasks"; CSV, which keeps its columns, nothing (the
 * runtime says it on stderr).
 *
 * The coherence-traffic counters (info->counters, LOCUS_COUNTERS) follow:
 * human, a table of the classes (tx = leaving the socket, rx = arriving)
 * and one of the sockets; JSON, an object "counters" before "per_node";
 * CSV, 22 more columns (the backend, tx and rx of each class, a note)
 * filled on the node=all row.  A class that was not counted never shows a
 * number: "unavailable" with the reason (human), null (JSON), an empty
 * field (CSV).
 *
 * The whole report is formatted in memory first and handed to the kernel in
 * as few write() calls as possible on an O_APPEND descriptor: runs of several
 * processes sharing one file then do not interleave mid-line, and a failure
 * to format (memory) never leaves half a report behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"

enum fmt { FMT_HUMAN, FMT_JSON, FMT_CSV };

/* ---- a growable text buffer; the first failure sticks ------------------ */

struct sbuf {
    char *p;
    size_t len, cap;
    int err; /* 0 or a negative errno */
};

static void sb_reserve(struct sbuf *b, size_t more)
{
    if (b->err)
        return;
    if (more > SIZE_MAX - b->len - 1) {
        b->err = -ENOMEM;
        return;
    }
    size_t need = b->len + more + 1;
    if (need <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *np = realloc(b->p, cap);
    if (np == NULL) {
        b->err = -ENOMEM;
        return;
    }
    b->p = np;
    b->cap = cap;
}

static void sb_putn(struct sbuf *b, const char *s, size_t n)
{
    sb_reserve(b, n);
    if (b->err)
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
    sb_putn(b, s, strlen(s));
}

static void sb_putc(struct sbuf *b, char c)
{
    sb_putn(b, &c, 1);
}

__attribute__((format(printf, 2, 3)))
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        if (!b->err)
            b->err = -EINVAL;
        return;
    }
    sb_reserve(b, (size_t)n);
    if (b->err)
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* ---- shared helpers ---------------------------------------------------- */

static const char *str_or(const char *s, const char *dflt)
{
    return s != NULL ? s : dflt;
}

/* Percentage of part in whole; 0 for an empty whole (no 0/0 = NaN). */
static double pct(uint64_t part, double whole)
{
    return whole > 0 ? 100.0 * (double)part / whole : 0.0;
}

/* Sum in double: three uint64 byte counts could overflow a uint64 sum. */
static double sum3(uint64_t a, uint64_t b, uint64_t c)
{
    return (double)a + (double)b + (double)c;
}

/* "123 B", "1.5 KiB" ... "2.0 PiB": binary units, one decimal. */
static void human_bytes(char *buf, size_t len, uint64_t v)
{
    static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    if (v < 1024) {
        snprintf(buf, len, "%" PRIu64 " B", v);
        return;
    }
    double d = (double)v / 1024.0;
    size_t u = 0;
    /* Round first so that 1048575 B reads 1.0 MiB, not 1024.0 KiB. */
    while (u + 1 < sizeof unit / sizeof unit[0] && d * 10.0 + 0.5 >= 1024.0 * 10.0) {
        d /= 1024.0;
        u++;
    }
    snprintf(buf, len, "%.1f %s", d, unit[u]);
}

static enum fmt format_of(const char *dest)
{
    const char *base = strrchr(dest, '/');
    base = base ? base + 1 : dest;
    const char *dot = strrchr(base, '.');
    if (dot == NULL || dot == base) /* ".json" alone is a hidden file, no extension */
        return FMT_HUMAN;
    if (strcasecmp(dot, ".json") == 0)
        return FMT_JSON;
    if (strcasecmp(dot, ".csv") == 0)
        return FMT_CSV;
    return FMT_HUMAN;
}

/* ---- human format ------------------------------------------------------ */

/* Settings may hold anything (a topology spec from the environment):
 * control characters would break the layout, so they become '?'. */
static void human_str(struct sbuf *b, const char *s)
{
    for (; *s; s++)
        sb_putc(b, (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
}

static void human_setting(struct sbuf *b, const char *label, const char *value)
{
    sb_printf(b, "  %-17s ", label);
    human_str(b, value);
    sb_putc(b, '\n');
}

#define HCOLS 9
#define HCELL 40

static void format_human(struct sbuf *b, const struct lc_report_info *info,
                         const locus_stats_t *t, const locus_node_stats_t *nodes, int nnodes)
{
    char v[64], l[HCELL], n[HCELL], f[HCELL];

    sb_puts(b, "locus report\n");
    human_setting(b, "regime", str_or(info->regime, "?"));
    human_setting(b, "scheduler", str_or(info->sched, "?"));
    human_setting(b, "pages", str_or(info->pages, "?"));
    human_setting(b, "steal policy", str_or(info->steal, "?"));
    sb_printf(b, "  %-17s ", "topology");
    human_str(b, str_or(info->topology, "?"));
    if (info->virtual_topology)
        sb_puts(b, " (virtual: placement is bookkeeping)");
    sb_putc(b, '\n');
    sb_printf(b, "  %-17s %d\n", "nodes", t->nodes);
    sb_printf(b, "  %-17s %d\n", "workers", t->workers);
    sb_printf(b, "  %-17s %.3f\n", "wall seconds", isfinite(t->seconds) ? t->seconds : 0.0);
    sb_printf(b, "  %-17s %" PRIu64 "\n", "tasks run", t->tasks_run);
    if (info->ended)
        sb_printf(b, "  %-17s by %s, without locus_finalize: %" PRIu64 " task%s unfinished\n",
                  "ended", strcmp(info->ended, "exit") == 0 ? "exit() or a return from main"
                  : info->ended, info->unfinished, info->unfinished == 1 ? "" : "s");
    if (info->first_touch_tracked)
        snprintf(v, sizeof v, "%" PRIu64, t->first_touch_tasks);
    else
        snprintf(v, sizeof v, "not tracked (one node)");
    human_setting(b, "first-touch tasks", v);

    double all = sum3(t->bytes_local, t->bytes_near, t->bytes_far);
    human_bytes(l, sizeof l, t->bytes_local);
    human_bytes(n, sizeof n, t->bytes_near);
    human_bytes(f, sizeof f, t->bytes_far);
    sb_printf(b, "  %-17s local %s (%.1f%%), near %s (%.1f%%), far %s (%.1f%%)\n", "bytes",
              l, pct(t->bytes_local, all), n, pct(t->bytes_near, all), f, pct(t->bytes_far, all));
    sb_printf(b, "  %-17s local %" PRIu64 ", near %" PRIu64 ", far %" PRIu64 "\n", "steals",
              t->steals_local, t->steals_near, t->steals_far);
    /* what NAFT's placement promised, and what stalled nodes gave up of it
     * (their wait bound, locus(7)): bytes local reach placed less given up
     * when every other task ran where it was placed */
    human_bytes(l, sizeof l, t->bytes_placed);
    human_bytes(n, sizeof n, t->bytes_given_up);
    sb_printf(b, "  %-17s %s; given up by stalled nodes: %" PRIu64 " tasks, %s\n", "bytes placed",
              l, t->tasks_given_up, n);

    if (nnodes <= 0)
        return;

    /* Cells first, then widths from the widest cell of each column. */
    static const char *const head[HCOLS] = { "node", "workers", "tasks", "first-touch", "local",
                                             "near", "far", "far %", "homed" };
    char (*cell)[HCOLS][HCELL] = calloc((size_t)nnodes, sizeof *cell);
    if (cell == NULL) {
        b->err = -ENOMEM;
        return;
    }
    size_t w[HCOLS];
    for (int c = 0; c < HCOLS; c++)
        w[c] = strlen(head[c]);
    for (int i = 0; i < nnodes; i++) {
        const locus_node_stats_t *s = &nodes[i];
        char (*r)[HCELL] = cell[i];
        snprintf(r[0], HCELL, "%d", i);
        snprintf(r[1], HCELL, "%d", s->workers);
        snprintf(r[2], HCELL, "%" PRIu64, s->tasks_run);
        if (info->first_touch_tracked)
            snprintf(r[3], HCELL, "%" PRIu64, s->first_touch_tasks);
        else
            snprintf(r[3], HCELL, "-");
        human_bytes(r[4], HCELL, s->bytes_local);
        human_bytes(r[5], HCELL, s->bytes_near);
        human_bytes(r[6], HCELL, s->bytes_far);
        snprintf(r[7], HCELL, "%.1f%%",
                 pct(s->bytes_far, sum3(s->bytes_local, s->bytes_near, s->bytes_far)));
        human_bytes(r[8], HCELL, s->bytes_homed);
        for (int c = 0; c < HCOLS; c++) {
            size_t k = strlen(r[c]);
            if (k > w[c])
                w[c] = k;
        }
    }
    sb_putc(b, '\n');
    for (int c = 0; c < HCOLS; c++)
        sb_printf(b, "  %*s", (int)w[c], head[c]);
    sb_putc(b, '\n');
    for (int i = 0; i < nnodes; i++) {
        for (int c = 0; c < HCOLS; c++)
            sb_printf(b, "  %*s", (int)w[c], cell[i][c]);
        sb_putc(b, '\n');
    }
    free(cell);
}

static void format_counters_human(struct sbuf *b, const struct lc_report_info *info);

static void format_human_all(struct sbuf *b, const struct lc_report_info *info,
                             const locus_stats_t *t, const locus_node_stats_t *nodes, int nnodes)
{
    format_human(b, info, t, nodes, nnodes);
    if (info->counters != NULL)
        format_counters_human(b, info);
}

/* ---- counters, human ---------------------------------------------------- */

static int is_bytes(const locus_counter_value_t *v)
{
    return strcmp(v->unit, "bytes") == 0;
}

static void count_cell(char *buf, size_t len, const locus_counter_value_t *v, unsigned dir,
                       uint64_t x)
{
    if (!(v->flags & dir))
        snprintf(buf, len, "-");
    else if (is_bytes(v))
        human_bytes(buf, len, x);
    else
        snprintf(buf, len, "%" PRIu64, x);
}

static const char *scope_of(const locus_counters_t *c)
{
    return c->phase ? "phase (locus_counters_start..stop)" : "whole run (locus_init..finalize)";
}

/* "merged: HRSP+NDR" */
static void merged_names(char *buf, size_t len, unsigned merged)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < LOCUS_COUNTER_NCLASSES; k++) {
        if (!(merged & (1u << k)))
            continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? "+" : "",
                         locus_counter_class_name(k));
        if (n < 0 || (size_t)n >= len - used)
            return;
        used += (size_t)n;
    }
}

static void format_counters_human(struct sbuf *b, const struct lc_report_info *info)
{
    const locus_counters_t *c = info->counters;
    char tx[HCELL], rx[HCELL], m[64];

    sb_putc(b, '\n');
    sb_puts(b, "coherence traffic (hardware counters; tx = leaving a socket, rx = arriving)\n");
    human_setting(b, "backend", c->backend);
    human_setting(b, "requested", c->requested);
    human_setting(b, "event table", c->table[0] ? c->table : "none");
    sb_printf(b, "  %-17s %d\n", "sockets", c->sockets);
    human_setting(b, "counted", scope_of(c));
    sb_printf(b, "  %-17s %.3f\n", "seconds", isfinite(c->seconds) ? c->seconds : 0.0);
    if (c->reason[0]) {
        sb_printf(b, "  %-17s ", "why nothing");
        human_str(b, c->reason);
        sb_putc(b, '\n');
    }
    sb_printf(b, "\n  %-12s  %14s  %14s  %-8s  %s\n", "class", "tx (out)", "rx (in)", "unit",
              "kind");
    for (int k = 0; k < LOCUS_COUNTER_NCLASSES; k++) {
        const locus_counter_value_t *v = &c->cls[k];
        const locus_counter_value_t *prev = k > 0 ? &c->cls[k - 1] : NULL;
        sb_printf(b, "  %-12s  ", locus_counter_class_name(k));
        if (v->kind == LOCUS_COUNTER_UNAVAILABLE) {
            /* a reason shared by the row above is said once */
            if (prev != NULL && prev->kind == LOCUS_COUNTER_UNAVAILABLE &&
                strcmp(prev->reason, v->reason) == 0) {
                sb_puts(b, "unavailable: as above\n");
                continue;
            }
            sb_puts(b, "unavailable: ");
            human_str(b, v->reason[0] ? v->reason : "no reason recorded");
            sb_putc(b, '\n');
            continue;
        }
        count_cell(tx, sizeof tx, v, LOCUS_COUNTER_HAS_TX, v->tx);
        count_cell(rx, sizeof rx, v, LOCUS_COUNTER_HAS_RX, v->rx);
        sb_printf(b, "%14s  %14s  %-8s  %s", tx, rx, v->unit, locus_counter_kind_name(v->kind));
        if (v->kind == LOCUS_COUNTER_MERGED) {
            merged_names(m, sizeof m, v->merged);
            sb_printf(b, " (%s)", m);
        }
        if (v->flags & LOCUS_COUNTER_SCALED)
            sb_puts(b, ", scaled");
        sb_putc(b, '\n');
    }

    /* per socket: rows are classes, cells tx/rx */
    if (info->socket_counters == NULL || info->nsockets <= 0)
        return;
    int any = 0;
    for (int k = 0; k < LOCUS_COUNTER_NCLASSES && !any; k++)
        for (int s = 0; s < info->nsockets; s++)
            any |= info->socket_counters[s].cls[k].kind != LOCUS_COUNTER_UNAVAILABLE;
    if (!any)
        return;
    sb_printf(b, "\n  %-12s", "tx/rx");
    for (int s = 0; s < info->nsockets; s++) {
        char h[32];
        snprintf(h, sizeof h, "socket %d", s);
        sb_printf(b, "  %21s", h);
    }
    sb_putc(b, '\n');
    for (int k = 0; k < LOCUS_COUNTER_NCLASSES; k++) {
        int avail = 0;
        for (int s = 0; s < info->nsockets; s++)
            avail |= info->socket_counters[s].cls[k].kind != LOCUS_COUNTER_UNAVAILABLE;
        if (!avail)
            continue;
        sb_printf(b, "  %-12s", locus_counter_class_name(k));
        for (int s = 0; s < info->nsockets; s++) {
            const locus_counter_value_t *v = &info->socket_counters[s].cls[k];
            char cell[2 * HCELL + 2];
            if (v->kind == LOCUS_COUNTER_UNAVAILABLE) {
                snprintf(cell, sizeof cell, "n/a");
            } else {
                count_cell(tx, sizeof tx, v, LOCUS_COUNTER_HAS_TX, v->tx);
                count_cell(rx, sizeof rx, v, LOCUS_COUNTER_HAS_RX, v->rx);
                snprintf(cell, sizeof cell, "%s/%s", tx, rx);
            }
            sb_printf(b, "  %21s", cell);
        }
        sb_putc(b, '\n');
    }
}

/* ---- JSON -------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if it is not one:
 * JSON text must be UTF-8, and an environment string need not be. */
static size_t utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    size_t n;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, min = 0x10000;
    else
        return 0;
    unsigned cp = c & (0x3f >> (n - 1));
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) /* also stops at the terminating NUL */
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

static void json_str(struct sbuf *b, const char *s)
{
    if (s == NULL) {
        sb_puts(b, "null");
        return;
    }
    const unsigned char *p = (const unsigned char *)s;
    sb_putc(b, '"');
    while (*p) {
        unsigned char c = *p;
        if (c == '"' || c == '\\') {
            sb_putc(b, '\\');
            sb_putc(b, (char)c);
            p++;
        } else if (c < 0x20 || c == 0x7f) {
            switch (c) {
            case '\n': sb_puts(b, "\\n"); break;
            case '\r': sb_puts(b, "\\r"); break;
            case '\t': sb_puts(b, "\\t"); break;
            case '\b': sb_puts(b, "\\b"); break;
            case '\f': sb_puts(b, "\\f"); break;
            default: sb_printf(b, "\\u%04x", c); break;
            }
            p++;
        } else {
            size_t k = utf8_len(p);
            if (k == 0) {
                sb_puts(b, "\\ufffd"); /* invalid byte: the replacement character */
                p++;
            } else {
                sb_putn(b, (const char *)p, k);
                p += k;
            }
        }
    }
    sb_putc(b, '"');
}

static void json_key_str(struct sbuf *b, const char *key, const char *val)
{
    sb_printf(b, "\"%s\":", key);
    json_str(b, val);
    sb_putc(b, ',');
}

/* ---- counters, JSON ------------------------------------------------------ */

static void json_classes(struct sbuf *b, const locus_counters_t *c)
{
    sb_puts(b, "\"classes\":{");
    for (int k = 0; k < LOCUS_COUNTER_NCLASSES; k++) {
        const locus_counter_value_t *v = &c->cls[k];
        char name[32];
        snprintf(name, sizeof name, "%s", locus_counter_class_name(k));
        for (char *p = name; *p; p++)
            *p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
        sb_printf(b, "%s\"%s\":{", k ? "," : "", name);
        json_key_str(b, "kind", locus_counter_kind_name(v->kind));
        if (v->kind == LOCUS_COUNTER_UNAVAILABLE) {
            sb_puts(b, "\"tx\":null,\"rx\":null,");
            sb_puts(b, "\"reason\":");
            json_str(b, v->reason);
            sb_putc(b, '}');
            continue;
        }
        if (v->flags & LOCUS_COUNTER_HAS_TX)
            sb_printf(b, "\"tx\":%" PRIu64 ",", v->tx);
        else
            sb_puts(b, "\"tx\":null,");
        if (v->flags & LOCUS_COUNTER_HAS_RX)
            sb_printf(b, "\"rx\":%" PRIu64 ",", v->rx);
        else
            sb_puts(b, "\"rx\":null,");
        json_key_str(b, "unit", v->unit);
        sb_printf(b, "\"scaled\":%s,", v->flags & LOCUS_COUNTER_SCALED ? "true" : "false");
        if (v->kind == LOCUS_COUNTER_MERGED) {
            sb_puts(b, "\"merged\":[");
            int first = 1;
            for (int j = 0; j < LOCUS_COUNTER_NCLASSES; j++)
                if (v->merged & (1u << j)) {
                    sb_printf(b, "%s\"%s\"", first ? "" : ",", locus_counter_class_name(j));
                    first = 0;
                }
            sb_puts(b, "],");
        }
        json_key_str(b, "source", v->source);
        sb_puts(b, "\"note\":");
        json_str(b, v->reason);
        sb_putc(b, '}');
    }
    sb_putc(b, '}');
}

static void format_counters_json(struct sbuf *b, const struct lc_report_info *info)
{
    const locus_counters_t *c = info->counters;
    sb_puts(b, "\"counters\":{");
    json_key_str(b, "backend", c->backend);
    json_key_str(b, "requested", c->requested);
    json_key_str(b, "table", c->table[0] ? c->table : NULL);
    sb_printf(b, "\"sockets\":%d,", c->sockets);
    json_key_str(b, "scope", c->phase ? "phase" : "run");
    if (isfinite(c->seconds))
        sb_printf(b, "\"seconds\":%.6f,", c->seconds);
    else
        sb_puts(b, "\"seconds\":null,");
    json_key_str(b, "reason", c->reason[0] ? c->reason : NULL);
    json_classes(b, c);
    sb_puts(b, ",\"per_socket\":[");
    for (int s = 0; info->socket_counters != NULL && s < info->nsockets; s++) {
        sb_printf(b, "%s{\"socket\":%d,", s ? "," : "", s);
        json_classes(b, &info->socket_counters[s]);
        sb_putc(b, '}');
    }
    sb_puts(b, "]},");
}

static void format_json(struct sbuf *b, const struct lc_report_info *info,
                        const locus_stats_t *t, const locus_node_stats_t *nodes, int nnodes)
{
    sb_putc(b, '{');
    json_key_str(b, "regime", info->regime);
    json_key_str(b, "sched", info->sched);
    json_key_str(b, "pages", info->pages);
    json_key_str(b, "steal", info->steal);
    json_key_str(b, "topology", info->topology);
    sb_printf(b, "\"virtual\":%s,", info->virtual_topology ? "true" : "false");
    sb_printf(b, "\"nodes\":%d,\"workers\":%d,", t->nodes, t->workers);
    if (isfinite(t->seconds)) /* NaN and infinities are not JSON */
        sb_printf(b, "\"seconds\":%.6f,", t->seconds);
    else
        sb_puts(b, "\"seconds\":null,");
    sb_printf(b, "\"tasks_run\":%" PRIu64 ",", t->tasks_run);
    json_key_str(b, "ended", info->ended ? info->ended : "finalize");
    sb_printf(b, "\"unfinished_tasks\":%" PRIu64 ",", info->unfinished);
    if (info->first_touch_tracked)
        sb_printf(b, "\"first_touch_tasks\":%" PRIu64 ",", t->first_touch_tasks);
    else
        sb_puts(b, "\"first_touch_tasks\":null,");
    sb_printf(b, "\"bytes\":{\"local\":%" PRIu64 ",\"near\":%" PRIu64 ",\"far\":%" PRIu64 "},",
              t->bytes_local, t->bytes_near, t->bytes_far);
    sb_printf(b, "\"steals\":{\"local\":%" PRIu64 ",\"near\":%" PRIu64 ",\"far\":%" PRIu64 "},",
              t->steals_local, t->steals_near, t->steals_far);
    sb_printf(b, "\"bytes_placed\":%" PRIu64 ",\"given_up\":{\"tasks\":%" PRIu64
              ",\"bytes\":%" PRIu64 "},", t->bytes_placed, t->tasks_given_up, t->bytes_given_up);
    if (info->counters != NULL)
        format_counters_json(b, info);
    sb_puts(b, "\"per_node\":[");
    for (int i = 0; i < nnodes; i++) {
        const locus_node_stats_t *s = &nodes[i];
        sb_printf(b, "%s{\"node\":%d,\"workers\":%d,\"tasks_run\":%" PRIu64 ",", i ? "," : "", i,
                  s->workers, s->tasks_run);
        if (info->first_touch_tracked)
            sb_printf(b, "\"first_touch_tasks\":%" PRIu64 ",", s->first_touch_tasks);
        else
            sb_puts(b, "\"first_touch_tasks\":null,");
        sb_printf(b,
                  "\"bytes_local\":%" PRIu64 ",\"bytes_near\":%" PRIu64 ",\"bytes_far\":%" PRIu64
                  ",\"steals_local\":%" PRIu64 ",\"steals_near\":%" PRIu64
                  ",\"steals_far\":%" PRIu64 ",\"bytes_homed\":%" PRIu64 "}",
                  s->bytes_local, s->bytes_near, s->bytes_far, s->steals_local, s->steals_near,
                  s->steals_far, s->bytes_homed);
    }
    sb_puts(b, "]}\n");
}

/* ---- CSV --------------------------------------------------------------- */

static void csv_field(struct sbuf *b, const char *s)
{
    s = str_or(s, "");
    if (strpbrk(s, ",\"\r\n") == NULL) {
        sb_puts(b, s);
        return;
    }
    sb_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"')
            sb_putc(b, '"');
        sb_putc(b, *s);
    }
    sb_putc(b, '"');
}

/* The columns after node, for one row. */
static void csv_tail(struct sbuf *b, int tracked, uint64_t tasks, uint64_t ft, uint64_t bl,
                     uint64_t bn, uint64_t bf, uint64_t sl, uint64_t sn, uint64_t sf,
                     uint64_t homed)
{
    sb_printf(b, ",%" PRIu64 ",", tasks);
    if (tracked)
        sb_printf(b, "%" PRIu64, ft);
    sb_printf(b, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                 ",%" PRIu64,
              bl, bn, bf, sl, sn, sf, homed);
}

/* ---- counters, CSV ------------------------------------------------------- */

static void csv_counters_header(struct sbuf *b)
{
    sb_puts(b, ",counters_backend");
    for (int k = 0; k < LOCUS_COUNTER_NCLASSES; k++) {
        char name[32];
        snprintf(name, sizeof name, "%s", locus_counter_class_name(k));
        for (char *p = name; *p; p++)
            *p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
        sb_printf(b, ",%s_tx,%s_rx", name, name);
    }
    sb_puts(b, ",counters_note");
}

/* The counter columns of one row; values only on the totals row. */
static void csv_counters(struct sbuf *b, const locus_counters_t *c, int totals)
{
    char note[1024];
    size_t used = 0;

    sb_putc(b, ',');
    if (totals)
        csv_field(b, c->backend);
    note[0] = '\0';
    for (int k = 0; k < LOCUS_COUNTER_NCLASSES; k++) {
        const locus_counter_value_t *v = &c->cls[k];
        if (!totals || v->kind == LOCUS_COUNTER_UNAVAILABLE) {
            sb_puts(b, ",,");
        } else {
            sb_putc(b, ',');
            if (v->flags & LOCUS_COUNTER_HAS_TX)
                sb_printf(b, "%" PRIu64, v->tx);
            sb_putc(b, ',');
            if (v->flags & LOCUS_COUNTER_HAS_RX)
                sb_printf(b, "%" PRIu64, v->rx);
        }
        if (!totals)
            continue;
        const char *what = v->kind == LOCUS_COUNTER_UNAVAILABLE ? v->reason
                           : v->flags & LOCUS_COUNTER_SCALED ? "scaled (multiplexed)" : NULL;
        if (what == NULL || (c->reason[0] && v->kind == LOCUS_COUNTER_UNAVAILABLE &&
                             strstr(c->reason, what)))
            continue;
        int n = snprintf(note + used, sizeof note - used, "%s%s: %s", used ? "; " : "",
                         locus_counter_class_name(k), what);
        if (n > 0 && (size_t)n < sizeof note - used)
            used += (size_t)n;
    }
    sb_putc(b, ',');
    if (totals) {
        if (c->reason[0]) {
            char all[LOCUS_COUNTER_NCLASSES * 200 + 256];
            snprintf(all, sizeof all, "%s%s%s", c->reason, note[0] ? "; " : "", note);
            csv_field(b, all);
        } else {
            csv_field(b, note);
        }
    }
}

static void csv_prefix(struct sbuf *b, const struct lc_report_info *info,
                       const locus_stats_t *t, int workers)
{
    csv_field(b, info->regime);
    sb_putc(b, ',');
    csv_field(b, info->sched);
    sb_putc(b, ',');
    csv_field(b, info->pages);
    sb_putc(b, ',');
    csv_field(b, info->steal);
    sb_putc(b, ',');
    csv_field(b, info->topology);
    sb_printf(b, ",%d,%d,%.6f,", t->nodes, workers, isfinite(t->seconds) ? t->seconds : 0.0);
}

static void format_csv(struct sbuf *b, int header, const struct lc_report_info *info,
                       const locus_stats_t *t, const locus_node_stats_t *nodes, int nnodes)
{
    if (header) {
        sb_puts(b, "regime,sched,pages,steal,topology,nodes,workers,seconds,node,tasks_run,"
                   "first_touch_tasks,bytes_local,bytes_near,bytes_far,steals_local,"
                   "steals_near,steals_far,bytes_homed");
        if (info->counters != NULL)
            csv_counters_header(b);
        sb_putc(b, '\n');
    }
    uint64_t homed = 0;
    for (int i = 0; i < nnodes; i++) {
        const locus_node_stats_t *s = &nodes[i];
        homed += s->bytes_homed;
        csv_prefix(b, info, t, s->workers);
        sb_printf(b, "%d", i);
        csv_tail(b, info->first_touch_tracked, s->tasks_run, s->first_touch_tasks, s->bytes_local,
                 s->bytes_near, s->bytes_far, s->steals_local, s->steals_near, s->steals_far,
                 s->bytes_homed);
        if (info->counters != NULL)
            csv_counters(b, info->counters, 0);
        sb_putc(b, '\n');
    }
    csv_prefix(b, info, t, t->workers);
    sb_puts(b, "all");
    csv_tail(b, info->first_touch_tracked, t->tasks_run, t->first_touch_tasks, t->bytes_local,
             t->bytes_near, t->bytes_far, t->steals_local, t->steals_near, t->steals_far, homed);
    if (info->counters != NULL)
        csv_counters(b, info->counters, 1);
    sb_putc(b, '\n');
}

/* ---- output ------------------------------------------------------------ */

static int write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (n == 0)
            return -EIO;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static void format_report(struct sbuf *b, enum fmt fmt, int header,
                          const struct lc_report_info *info, const locus_stats_t *t,
                          const locus_node_stats_t *nodes, int nnodes)
{
    switch (fmt) {
    case FMT_JSON:
        format_json(b, info, t, nodes, nnodes);
        break;
    case FMT_CSV:
        format_csv(b, header, info, t, nodes, nnodes);
        break;
    case FMT_HUMAN:
        format_human_all(b, info, t, nodes, nnodes);
        break;
    }
}

__attribute__((format(printf, 3, 4)))
static void fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err != NULL && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
}

static int write_stderr(const struct lc_report_info *info, const locus_stats_t *t,
                        const locus_node_stats_t *nodes, int nnodes, char *err, size_t errlen)
{
    struct sbuf b = { 0 };
    format_report(&b, FMT_HUMAN, 0, info, t, nodes, nnodes);
    int r = b.err;
    if (r < 0) {
        fail(err, errlen, "report: cannot format the report: %s", strerror(-r));
    } else {
        /* Through the stdio stream, so that a program's freopen() of stderr
         * is honoured; never closed. */
        fflush(stderr);
        errno = 0;
        if (fwrite(b.p, 1, b.len, stderr) != b.len || fflush(stderr) != 0) {
            r = errno ? -errno : -EIO;
            fail(err, errlen, "report: cannot write to stderr: %s", strerror(-r));
        }
    }
    free(b.p);
    return r;
}

int lc_report_write(const char *dest, const struct lc_report_info *info,
                    const locus_stats_t *total, const locus_node_stats_t *nodes, int nnodes,
                    char *err, size_t errlen)
{
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    if (dest == NULL || dest[0] == '\0' || info == NULL || total == NULL || nnodes < 0 ||
        (nnodes > 0 && nodes == NULL) || info->nsockets < 0 ||
        (info->nsockets > 0 && info->socket_counters == NULL)) {
        fail(err, errlen, "report: invalid arguments (no destination, settings or figures)");
        return -EINVAL;
    }

    if (strcasecmp(dest, "stderr") == 0)
        return write_stderr(info, total, nodes, nnodes, err, errlen);
    enum fmt fmt = format_of(dest);

    /* Read access only to look at the last byte of an existing file; a
     * write-only file is still appended to. */
    int fd = open(dest, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0666);
    if (fd < 0 && errno == EACCES)
        fd = open(dest, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0666);
    if (fd < 0) {
        int e = errno;
        fail(err, errlen, "report: cannot open '%s': %s", dest, strerror(e));
        return -e;
    }

    struct stat st;
    int empty = fstat(fd, &st) != 0 || st.st_size == 0;
    struct sbuf b = { 0 };
    if (!empty) {
        /* A previous writer may have left an unterminated last line; start
         * on a fresh line (human: leave a blank line between runs). */
        char last = '\n';
        if (S_ISREG(st.st_mode) && pread(fd, &last, 1, st.st_size - 1) != 1)
            last = '\n';
        if (last != '\n')
            sb_putc(&b, '\n');
        if (fmt == FMT_HUMAN)
            sb_putc(&b, '\n');
    }
    format_report(&b, fmt, empty, info, total, nodes, nnodes);

    int r = b.err;
    if (r < 0)
        fail(err, errlen, "report: cannot format the report for '%s': %s", dest, strerror(-r));
    else if ((r = write_all(fd, b.p, b.len)) < 0)
        fail(err, errlen, "report: cannot write '%s': %s", dest, strerror(-r));
    free(b.p);
    /* close() can report a deferred write error (NFS, quota); never retried
     * on EINTR, as the descriptor is gone on Linux either way. */
    if (close(fd) != 0 && r == 0 && errno != EINTR) {
        r = -errno;
        fail(err, errlen, "report: cannot write '%s': %s", dest, strerror(-r));
    }
    return r;
}
