/*
 * sysfs.c - reads perf_event PMUs as the kernel describes them under
 * /sys/bus/event_source/devices/<pmu>/: `type` (perf_event_attr.type),
 * `cpumask` (for uncore PMUs one CPU per socket) and `format/<field>` (which bits
 * of config, config1, config2 each event field occupies).  Encoding events
 * through the format files, rather than shifting by hand, keeps the tables
 * right where the layout differs: Haswell-EP QPI's event field is
 * "config:0-7,21" (ExtSel in bit 21), Skylake UPI's umask spills into
 * config bits 32-55, AMD's data fabric event into 32-37.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/counters.h"

/* Reads a small file into buf, trailing newline removed.  0 or -errno
 * (also read by machine.c). */
int lc_read_small(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return -errno;
    size_t n = fread(buf, 1, len - 1, f);
    int bad = ferror(f);
    fclose(f);
    if (bad)
        return -EIO;
    buf[n] = '\0';
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    return 0;
}

int lc_parse_cpulist(const char *s, int *cpus, int max)
{
    int n = 0;
    const char *p = s;

    while (*p == ' ')
        p++;
    if (*p == '\0')
        return 0;
    for (;;) {
        char *end;
        long a = strtol(p, &end, 10), b;
        if (end == p || a < 0 || a > 1 << 20)
            return -EINVAL;
        b = a;
        p = end;
        if (*p == '-') {
            p++;
            b = strtol(p, &end, 10);
            if (end == p || b < a || b > 1 << 20)
                return -EINVAL;
            p = end;
        }
        for (long c = a; c <= b; c++) {
            if (n >= max)
                return -EINVAL;
            cpus[n++] = (int)c;
        }
        if (*p == '\0' || *p == '\n')
            return n;
        if (*p != ',')
            return -EINVAL;
        p++;
    }
}

int lc_pmu_parse_format(const char *text, struct lc_pmu_field *f)
{
    const char *p = text;

    f->bits = 0;
    if (strncmp(p, "config2:", 8) == 0) {
        f->reg = 2;
        p += 8;
    } else if (strncmp(p, "config1:", 8) == 0) {
        f->reg = 1;
        p += 8;
    } else if (strncmp(p, "config:", 7) == 0) {
        f->reg = 0;
        p += 7;
    } else {
        return -EINVAL;
    }
    for (;;) {
        char *end;
        long a = strtol(p, &end, 10), b;
        if (end == p || a < 0 || a > 63)
            return -EINVAL;
        b = a;
        p = end;
        if (*p == '-') {
            p++;
            b = strtol(p, &end, 10);
            if (end == p || b < a || b > 63)
                return -EINVAL;
            p = end;
        }
        for (long i = a; i <= b; i++)
            f->bits |= 1ull << i;
        if (*p == '\0' || *p == '\n')
            return 0;
        if (*p != ',')
            return -EINVAL;
        p++;
    }
}

static int box_number(const char *name)
{
    size_t n = strlen(name);
    size_t i = n;
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
        i--;
    return i < n ? atoi(name + i) : 0;
}

int lc_pmu_read(const char *sysfs, const char *name, struct lc_pmu *p, char *err, size_t errlen)
{
    char dir[4096], path[4400], buf[4096];
    int r;

    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->box = box_number(name);
    snprintf(dir, sizeof dir, "%s/bus/event_source/devices/%s", sysfs, name);
    snprintf(path, sizeof path, "%s/type", dir);
    if ((r = lc_read_small(path, buf, sizeof buf)) < 0)
        return r == -ENOENT || r == -ENOTDIR ? -ENOENT : r;
    char *end;
    unsigned long t = strtoul(buf, &end, 10);
    if (end == buf || *end != '\0' || t > UINT32_MAX) {
        snprintf(err, errlen, "%s: type '%s' is not a number", path, buf);
        return -EINVAL;
    }
    p->type = (uint32_t)t;

    /* Core PMUs have no cpumask: they count on any CPU. */
    snprintf(path, sizeof path, "%s/cpumask", dir);
    if (lc_read_small(path, buf, sizeof buf) == 0) {
        int n = lc_parse_cpulist(buf, p->cpus, LC_CTR_MAX_SOCKETS);
        if (n < 0) {
            snprintf(err, errlen, "%s: cannot parse '%s'", path, buf);
            return -EINVAL;
        }
        p->ncpus = n;
    }

    snprintf(path, sizeof path, "%s/format", dir);
    DIR *d = opendir(path);
    if (d == NULL) {
        snprintf(err, errlen, "%s: %s (a PMU without its format files)", path, strerror(errno));
        return -EINVAL;
    }
    struct dirent *e;
    r = 0;
    while ((e = readdir(d)) != NULL && r == 0) {
        if (e->d_name[0] == '.')
            continue;
        if (p->nfields >= LC_PMU_MAX_FORMATS || strlen(e->d_name) >= sizeof p->field[0].name)
            continue; /* fields we never use */
        char fpath[4600];
        snprintf(fpath, sizeof fpath, "%s/%.31s", path, e->d_name);
        struct lc_pmu_field *f = &p->field[p->nfields];
        if (lc_read_small(fpath, buf, sizeof buf) < 0 || lc_pmu_parse_format(buf, f) < 0) {
            snprintf(err, errlen, "%s: cannot parse '%s' (expected e.g. config:0-7,21)",
                     fpath, buf);
            r = -EINVAL;
            break;
        }
        memcpy(f->name, e->d_name, strlen(e->d_name) + 1); /* length checked above */
        p->nfields++;
    }
    closedir(d);
    return r;
}

static int cmp_box(const void *a, const void *b)
{
    int x = box_number(a), y = box_number(b);
    return x < y ? -1 : x > y;
}

/* Whether PMU name s is prefix followed by digits (or prefix itself when
 * prefix does not end in '_'), and short enough to keep. */
static int pmu_matches(const char *s, const char *prefix, size_t pl)
{
    if (strncmp(s, prefix, pl) != 0 || strlen(s) >= LC_PMU_NAME_MAX)
        return 0;
    if (pl > 0 && prefix[pl - 1] == '_') {
        const char *q = s + pl;
        if (*q == '\0')
            return 0;
        while (*q >= '0' && *q <= '9')
            q++;
        return *q == '\0';
    }
    return s[pl] == '\0';
}

int lc_pmu_list(const char *sysfs, const char *prefix, char names[][LC_PMU_NAME_MAX], int max)
{
    char path[4096];
    size_t pl = strlen(prefix);
    int n = 0;

    snprintf(path, sizeof path, "%s/bus/event_source/devices", sysfs);
    DIR *d = opendir(path);
    if (d == NULL)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < max)
        if (pmu_matches(e->d_name, prefix, pl))
            memcpy(names[n++], e->d_name, strlen(e->d_name) + 1); /* length checked */
    closedir(d);
    qsort(names, (size_t)n, LC_PMU_NAME_MAX, cmp_box);
    return n;
}

int lc_pmu_dir_read(const char *sysfs, struct lc_pmu_dir *pd)
{
    char path[4096];
    int cap = 0;

    pd->names = NULL;
    pd->n = 0;
    pd->scan = NULL;
    snprintf(path, sizeof path, "%s/bus/event_source/devices", sysfs);
    DIR *d = opendir(path);
    if (d == NULL)
        return 0;
    struct dirent *e;
    int r = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strlen(e->d_name) >= LC_PMU_NAME_MAX)
            continue;
        if (pd->n == cap) {
            int ncap = cap ? 2 * cap : 32;
            char (*nn)[LC_PMU_NAME_MAX] = realloc(pd->names, (size_t)ncap * LC_PMU_NAME_MAX);
            if (nn == NULL) {
                r = -ENOMEM;
                break;
            }
            pd->names = nn;
            cap = ncap;
        }
        memcpy(pd->names[pd->n++], e->d_name, strlen(e->d_name) + 1);
    }
    closedir(d);
    if (r < 0) {
        lc_pmu_dir_free(pd);
        pd->scan = sysfs;
    }
    return r;
}

int lc_pmu_dir_list(const struct lc_pmu_dir *pd, const char *prefix,
                    char names[][LC_PMU_NAME_MAX], int max)
{
    if (pd->scan)
        return lc_pmu_list(pd->scan, prefix, names, max);
    size_t pl = strlen(prefix);
    int n = 0;
    for (int i = 0; i < pd->n && n < max; i++)
        if (pmu_matches(pd->names[i], prefix, pl))
            memcpy(names[n++], pd->names[i], strlen(pd->names[i]) + 1);
    qsort(names, (size_t)n, LC_PMU_NAME_MAX, cmp_box);
    return n;
}

void lc_pmu_dir_free(struct lc_pmu_dir *pd)
{
    free(pd->names);
    pd->names = NULL;
    pd->n = 0;
    pd->scan = NULL;
}

/* Spreads the low bits of v over the set bits of mask, low to high. */
static int deposit(uint64_t v, uint64_t mask, uint64_t *out)
{
    uint64_t r = 0;
    for (int i = 0; i < 64 && v; i++) {
        if (mask & (1ull << i)) {
            if (v & 1)
                r |= 1ull << i;
            v >>= 1;
        }
    }
    if (v)
        return -1;
    *out = r;
    return 0;
}

int lc_pmu_encode(const struct lc_pmu *p, const char *terms, uint64_t config[3],
                  char *err, size_t errlen)
{
    char buf[256];
    config[0] = config[1] = config[2] = 0;
    if (strlen(terms) >= sizeof buf) {
        snprintf(err, errlen, "event terms too long: %s", terms);
        return -EINVAL;
    }
    strcpy(buf, terms);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        uint64_t v = 1; /* a bare flag, as perf writes "edge" */
        if (eq != NULL) {
            char *end;
            *eq = '\0';
            errno = 0;
            v = strtoull(eq + 1, &end, 0);
            if (errno || end == eq + 1 || *end != '\0') {
                snprintf(err, errlen, "%s: bad value in '%s=%s'", p->name, t, eq + 1);
                return -EINVAL;
            }
        }
        const struct lc_pmu_field *f = NULL;
        for (int i = 0; i < p->nfields; i++)
            if (strcmp(p->field[i].name, t) == 0)
                f = &p->field[i];
        if (f == NULL) {
            snprintf(err, errlen, "%s has no format field '%s' (format/ lists the fields)",
                     p->name, t);
            return -EINVAL;
        }
        uint64_t bits;
        if (deposit(v, f->bits, &bits) < 0) {
            snprintf(err, errlen, "%s: %s=0x%" PRIx64 " does not fit the field's %d bits",
                     p->name, t, v, __builtin_popcountll(f->bits));
            return -EINVAL;
        }
        config[f->reg] |= bits;
    }
    return 0;
}

int lc_cpu_package(const char *sysfs, int cpu)
{
    char path[4096], buf[64];
    snprintf(path, sizeof path, "%s/devices/system/cpu/cpu%d/topology/physical_package_id",
             sysfs, cpu);
    if (lc_read_small(path, buf, sizeof buf) < 0)
        return -1;
    char *end;
    long v = strtol(buf, &end, 10);
    return end != buf && *end == '\0' && v >= 0 && v < 1 << 20 ? (int)v : -1;
}
