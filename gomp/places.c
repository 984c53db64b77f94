/*
 * places.c - OpenMP places on liblocus-gomp: OMP_PLACES (an abstract name
 * - threads, cores, sockets, ll_caches, numa_domains, optionally with a
 * count - or an explicit list of CPU sets with intervals, strides and
 * exclusions, parsed as libgomp parses it) and the place queries
 * omp_get_num_places, omp_get_place_num_procs, omp_get_place_proc_ids,
 * omp_get_place_num, omp_get_partition_num_places and
 * omp_get_partition_place_nums.
 *
 * The list is what the program asked for, cut to the CPUs the process may
 * run on (a place left empty is dropped, with libgomp's warning).  Threads
 * are not bound to places: Locus binds its workers itself (LOCUS_BIND), so
 * OMP_PROC_BIND is not honoured (omp_get_proc_bind answers false); a
 * thread's place is the one that holds every CPU it may run on (-1 when
 * none does), and every thread's place partition is the whole list.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gomp.h"

#define MAX_PLACES 65536

static cpu_set_t *places;
static int nplaces;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void skip_space(const char **s)
{
    while (isspace((unsigned char)**s))
        (*s)++;
}

static bool read_ulong(const char **s, unsigned long *out)
{
    char *end;
    skip_space(s);
    if (!isdigit((unsigned char)**s))
        return false;
    errno = 0;
    *out = strtoul(*s, &end, 10);
    if (errno)
        return false;
    *s = end;
    skip_space(s);
    return true;
}

static bool read_long(const char **s, long *out)
{
    char *end;
    skip_space(s);
    errno = 0;
    *out = strtol(*s, &end, 10);
    if (errno || end == *s)
        return false;
    *s = end;
    skip_space(s);
    return true;
}

/* :len[:stride] after a number or a place, if there; false when malformed */
static bool read_interval(const char **s, unsigned long *len, long *stride)
{
    *len = 1;
    *stride = 1;
    if (**s != ':')
        return true;
    (*s)++;
    if (!read_ulong(s, len) || *len == 0 || *len >= MAX_PLACES)
        return false;
    if (**s == ':') {
        (*s)++;
        if (!read_long(s, stride))
            return false;
    }
    return true;
}

static bool add_cpus(cpu_set_t *set, unsigned long first, unsigned long len, long stride)
{
    for (unsigned long i = 0; i < len; i++) {
        long cpu = (long)first + (long)i * stride;
        if (cpu < 0 || cpu >= CPU_SETSIZE)
            return false;
        CPU_SET((int)cpu, set);
    }
    return true;
}

/* One place: a number or {res,res,...} where res is num[:len[:stride]] or
 * !num (removed after every addition); sets *negate for a leading '!'. */
static bool parse_place(const char **s, cpu_set_t *set, bool *negate)
{
    CPU_ZERO(set);
    skip_space(s);
    *negate = **s == '!';
    if (*negate) {
        (*s)++;
        skip_space(s);
    }
    if (**s != '{') {
        unsigned long n;
        return read_ulong(s, &n) && add_cpus(set, n, 1, 1);
    }
    (*s)++;
    cpu_set_t removed;
    CPU_ZERO(&removed);
    for (;;) {
        skip_space(s);
        bool minus = **s == '!';
        unsigned long n, len;
        long stride;
        if (minus)
            (*s)++;
        if (!read_ulong(s, &n))
            return false;
        if (minus) {
            if (**s == ':' || !add_cpus(&removed, n, 1, 1))
                return false;
        } else if (!read_interval(s, &len, &stride) || !add_cpus(set, n, len, stride)) {
            return false;
        }
        if (**s == '}')
            break;
        if (**s != ',')
            return false;
        (*s)++;
    }
    (*s)++;
    skip_space(s);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &removed))
            CPU_CLR(c, set);
    return true;
}

static bool push(cpu_set_t **list, int *n, int *cap, const cpu_set_t *set)
{
    if (*n == *cap) {
        int c = *cap ? *cap * 2 : 16;
        cpu_set_t *l = realloc(*list, (size_t)c * sizeof *l);
        if (!l)
            return false;
        *list = l;
        *cap = c;
    }
    (*list)[(*n)++] = *set;
    return true;
}

static bool parse_list(const char *s, cpu_set_t **list, int *n)
{
    int cap = 0;
    for (;;) {
        cpu_set_t set;
        bool negate;
        unsigned long len;
        long stride;
        if (!parse_place(&s, &set, &negate))
            return false;
        if (negate) {
            if (*s == ':')
                return false;
            int i = 0;
            while (i < *n && !CPU_EQUAL(&(*list)[i], &set))
                i++;
            if (i == *n)
                return false;   /* removing a place that is not there */
            memmove(&(*list)[i], &(*list)[i + 1], (size_t)(*n - i - 1) * sizeof set);
            (*n)--;
        } else {
            if (!read_interval(&s, &len, &stride))
                return false;
            /* len places, each the previous one moved by stride CPUs */
            for (unsigned long k = 0; k < len; k++) {
                if (*n >= MAX_PLACES || !push(list, n, &cap, &set))
                    return false;
                if (k + 1 == len)
                    break;
                cpu_set_t next;
                CPU_ZERO(&next);
                for (int c = 0; c < CPU_SETSIZE; c++) {
                    if (!CPU_ISSET(c, &set))
                        continue;
                    long d = c + stride;
                    if (d < 0 || d >= CPU_SETSIZE)
                        return false;
                    CPU_SET((int)d, &next);
                }
                set = next;
            }
        }
        skip_space(&s);
        if (!*s)
            return true;
        if (*s != ',')
            return false;
        s++;
    }
}

/* Adds the CPUs of a sysfs list ("0-3,8") to set; false if no file. */
static bool read_cpulist(const char *path, cpu_set_t *set)
{
    char buf[4096];
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    const char *p = fgets(buf, sizeof buf, f) ? buf : "";
    fclose(f);
    while (*p && *p != '\n') {
        unsigned long a, b;
        if (!read_ulong(&p, &a))
            break;
        b = a;
        if (*p == '-') {
            p++;
            if (!read_ulong(&p, &b))
                break;
        }
        for (unsigned long c = a; c <= b && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, set);
        if (*p == ',')
            p++;
    }
    return true;
}

/* The CPUs sharing a level (1 threads, 2 cores, 3 sockets, 4 last-level
 * caches, 5 NUMA domains) with cpu, from sysfs; cpu alone when sysfs does
 * not say. */
static void level_cpus(int level, int cpu, cpu_set_t *set)
{
    char path[128];
    CPU_ZERO(set);
    if (level == 2 || level == 3) {
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/%s", cpu,
                 level == 2 ? "thread_siblings_list" : "core_siblings_list");
        read_cpulist(path, set);
    } else if (level == 4) {
        /* the highest cache index is the last level */
        for (int idx = 9; idx >= 0 && !CPU_COUNT(set); idx--) {
            snprintf(path, sizeof path,
                     "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", cpu, idx);
            read_cpulist(path, set);
        }
    } else if (level == 5) {
        for (int node = 0; node < 1024 && !CPU_ISSET(cpu, set); node++) {
            CPU_ZERO(set);
            snprintf(path, sizeof path, "/sys/devices/system/node/node%d/cpulist", node);
            if (!read_cpulist(path, set) && node > 0)
                break;
        }
        if (!CPU_ISSET(cpu, set))
            CPU_ZERO(set);
    }
    CPU_SET(cpu, set);
}

/* threads, cores, ...: the process's CPUs grouped by level, count at most */
static bool level_list(int level, unsigned long count, const cpu_set_t *mask,
                       cpu_set_t **list, int *n)
{
    int cap = 0;
    cpu_set_t done;
    CPU_ZERO(&done);
    for (int c = 0; c < CPU_SETSIZE && (unsigned long)*n < count; c++) {
        if (!CPU_ISSET(c, mask) || CPU_ISSET(c, &done))
            continue;
        cpu_set_t set;
        level_cpus(level, c, &set);
        CPU_AND(&set, &set, mask);
        CPU_SET(c, &set);
        CPU_OR(&done, &done, &set);
        if (!push(list, n, &cap, &set))
            return false;
    }
    return true;
}

static void read_places(void)
{
    const char *env = getenv("OMP_PLACES");
    if (!env)
        return;
    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof mask, &mask) != 0)
        return;
    static const char *const names[] = { "threads", "cores", "sockets", "ll_caches",
                                         "numa_domains" };
    const char *s = env;
    skip_space(&s);
    cpu_set_t *list = NULL;
    int n = 0, level = 0;
    bool ok = *s != '\0';
    for (int i = 0; ok && i < 5; i++) {
        size_t len = strlen(names[i]);
        if (!strncasecmp(s, names[i], len)) {
            level = i + 1;
            s += len;
            break;
        }
    }
    if (ok && level) {
        unsigned long count = ULONG_MAX;
        skip_space(&s);
        if (*s) {
            ok = *s++ == '(' && read_ulong(&s, &count) && *s == ')';
            if (ok) {
                s++;
                skip_space(&s);
                ok = !*s;
            }
        }
        ok = ok && level_list(level, count, &mask, &list, &n);
    } else if (ok) {
        ok = parse_list(s, &list, &n);
    }
    if (ok && n == 0) {
        gomp_say("OMP_PLACES='%s': all places have been removed\n", env);
        ok = false;
    }
    if (!ok) {
        free(list);
        gomp_say("ignoring OMP_PLACES='%s': expected threads, cores, "
                "sockets, ll_caches or numa_domains, optionally with (count), or a list "
                "of {cpu,...} places\n", env);
        return;
    }
    int kept = 0;
    for (int i = 0; i < n; i++) {
        CPU_AND(&list[i], &list[i], &mask);
        if (CPU_COUNT(&list[i]))
            list[kept++] = list[i];
    }
    if (kept == 0) {
        gomp_say("ignoring OMP_PLACES='%s': none of the places "
                "contain usable logical CPUs\n", env);
        free(list);
        return;
    }
    if (kept < n)
        gomp_say("Number of places reduced from %d to %d because some "
                "places didn't contain any usable logical CPUs\n", n, kept);
    places = list;
    nplaces = kept;
}

static void init(void)
{
    pthread_once(&once, read_places);
}

/* read at start-up, as libgomp does, so that a bad value is named even in
 * a program that asks nothing about places */
__attribute__((constructor)) static void places_at_start(void)
{
    init();
}

GOMP_EXPORT int omp_get_num_places(void)
{
    init();
    return nplaces;
}

GOMP_EXPORT int omp_get_place_num_procs(int place)
{
    init();
    return place >= 0 && place < nplaces ? CPU_COUNT(&places[place]) : 0;
}

GOMP_EXPORT void omp_get_place_proc_ids(int place, int *ids)
{
    init();
    if (place < 0 || place >= nplaces || !ids)
        return;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &places[place]))
            *ids++ = c;
}

GOMP_EXPORT int omp_get_place_num(void)
{
    init();
    cpu_set_t mine, both;
    if (!nplaces || pthread_getaffinity_np(pthread_self(), sizeof mine, &mine) != 0)
        return -1;
    for (int i = 0; i < nplaces; i++) {
        CPU_AND(&both, &mine, &places[i]);
        if (CPU_EQUAL(&both, &mine))
            return i;
    }
    return -1;
}

GOMP_EXPORT int omp_get_partition_num_places(void)
{
    return omp_get_num_places();
}

GOMP_EXPORT void omp_get_partition_place_nums(int *ids)
{
    init();
    for (int i = 0; ids && i < nplaces; i++)
        ids[i] = i;
}

/* OMP_PLACES as omp_display_env shows it: "{0:2},{2}" ... */
void gomp_places_print(FILE *f)
{
    init();
    for (int i = 0; i < nplaces; i++) {
        fputs(i ? ",{" : "{", f);
        int first = 1;
        for (int c = 0; c < CPU_SETSIZE; c++) {
            if (!CPU_ISSET(c, &places[i]))
                continue;
            int last = c;
            while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &places[i]))
                last++;
            fprintf(f, last > c ? "%s%d:%d" : "%s%d", first ? "" : ",", c, last - c + 1);
            first = 0;
            c = last;
        }
        fputc('}', f);
    }
}

/* proc-bind-var: false, as omp_display_env says: threads are not bound to
 * places (Locus binds its workers itself, by LOCUS_BIND) */
GOMP_EXPORT int omp_get_proc_bind(void)
{
    return 0;   /* omp_proc_bind_false */
}
