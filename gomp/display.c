/*
 * display.c - OpenMP's reports on itself: omp_display_env (and
 * OMP_DISPLAY_ENV at start-up), and the affinity format routines
 * omp_set_affinity_format, omp_get_affinity_format, omp_capture_affinity
 * and omp_display_affinity with the affinity-format-var ICV
 * (OMP_AFFINITY_FORMAT).
 *
 * Both print in libgomp's layout, so that tools reading it keep working;
 * the values are the ones this layer acts on.  OMP_PLACES is the list
 * places.c parsed; threads are not bound to places (Locus binds its
 * workers with LOCUS_BIND), so %A (thread_affinity) is the thread's CPU
 * mask.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "gomp.h"

int omp_get_thread_num(void);
int omp_get_num_procs(void);
int omp_get_num_threads(void);
int omp_get_ancestor_thread_num(int level);
int omp_get_num_teams(void);
int omp_get_team_num(void);
int omp_get_default_device(void);
int omp_get_thread_limit(void);
uintptr_t omp_get_default_allocator(void);

/* each runtime's default affinity format: libgomp's, or libomp's */
static const char gomp_default_format[] = "level %L thread %i affinity %A";
static const char kmp_default_format[] = "OMP: pid %P tid %i thread %n bound to OS proc set {%A}";
static char *format_var;                   /* NULL: the layer's default format */

/* 1 under libomp's ABI (liblocus-omp), 0 under libgomp's */
static int kmp_layer(void)
{
    return strcmp(gomp_layer_native, "libgomp") != 0;
}
static pthread_mutex_t format_lock = PTHREAD_MUTEX_INITIALIZER;

/* A copy of the affinity format (free it); NULL when out of memory. */
static char *affinity_format(void)
{
    pthread_mutex_lock(&format_lock);
    char *f = strdup(format_var ? format_var : kmp_layer() ? kmp_default_format : gomp_default_format);
    pthread_mutex_unlock(&format_lock);
    return f;
}

GOMP_EXPORT void omp_set_affinity_format(const char *format)
{
    char *copy = strdup(format ? format : "");
    if (!copy)
        return;   /* out of memory: the format stays what it was */
    pthread_mutex_lock(&format_lock);
    char *old = format_var;
    format_var = copy;
    pthread_mutex_unlock(&format_lock);
    free(old);
}

GOMP_EXPORT size_t omp_get_affinity_format(char *buffer, size_t size)
{
    char *f = affinity_format();
    if (!f)
        return 0;
    size_t len = strlen(f);
    if (size && buffer) {
        size_t n = len < size ? len : size - 1;
        memcpy(buffer, f, n);
        buffer[n] = '\0';
    }
    free(f);
    return len;
}

/* Output into buffer (size bytes, may be 0) at *pos, counting past it. */
struct out {
    char *buf;
    size_t size, pos;
};

static void put(struct out *o, const char *s, size_t len)
{
    if (o->pos < o->size) {
        size_t n = o->size - o->pos < len ? o->size - o->pos : len;
        memcpy(o->buf + o->pos, s, n);
    }
    o->pos += len;
}

static void repeat(struct out *o, char c, size_t n)
{
    while (n--)
        put(o, &c, 1);
}

/* A field: right- or left-justified to width (0: as long as it is);
 * right-justified ones zero-padded (after any sign or 0x) when asked.
 * Both runtimes pad a left-justified field with spaces, 0 or not ("%05n":
 * libomp prints it so, libgomp refuses the format). */
static void field(struct out *o, const char *s, int zero, int right, size_t width)
{
    size_t len = strlen(s);
    if (!width || len >= width) {
        put(o, s, len);
    } else if (zero && right) {
        size_t skip = s[0] == '-' ? 1 : (s[0] == '0' && s[1] == 'x') ? 2 : 0;
        put(o, s, skip);
        repeat(o, '0', width - len);
        put(o, s + skip, len - skip);
    } else if (right) {
        repeat(o, ' ', width - len);
        put(o, s, len);
    } else {
        put(o, s, len);
        repeat(o, ' ', width - len);
    }
}

/* The calling thread's CPU mask as a list of ranges ("0-3,8"); under
 * libomp's ABI as libomp lists it, with ranges of three CPUs or more only
 * ("0-3,8,9"). */
static void cpu_list(char *s, size_t size)
{
    int min_range = kmp_layer() ? 2 : 1;   /* last - first, at least */
    cpu_set_t set;
    size_t n = 0;
    s[0] = '\0';
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set))
            last++;
        if (last - c < min_range)
            last = c;   /* listed one by one */
        int k = last > c ? snprintf(s + n, size - n, "%s%d-%d", n ? "," : "", c, last)
                         : snprintf(s + n, size - n, "%s%d", n ? "," : "", c);
        if (k < 0 || (size_t)k >= size - n)
            return;
        n += (size_t)k;
        c = last;
    }
}

static const struct { const char *name; char c; } long_names[] = {
    { "team_num", 't' }, { "num_teams", 'T' }, { "nesting_level", 'L' },
    { "thread_num", 'n' }, { "num_threads", 'N' }, { "ancestor_tnum", 'a' },
    { "host", 'H' }, { "process_id", 'P' }, { "native_thread_id", 'i' },
    { "thread_affinity", 'A' },
};

/* Formats format for the calling thread; returns the full length. */
static size_t format_affinity(char *buffer, size_t size, const char *format)
{
    struct out o = { buffer, size, 0 };
    const char *p = format;
    char num[1024];
    while (*p) {
        const char *pct = strchr(p, '%');
        if (!pct) {
            put(&o, p, strlen(p));
            break;
        }
        put(&o, p, (size_t)(pct - p));
        const char *q = pct + 1;
        if (*q == '%') {
            put(&o, "%", 1);
            p = q + 1;
            continue;
        }
        int zero = 0, right = 0;
        size_t width = 0;
        if (*q == '0') {
            zero = 1;
            q++;
        }
        if (*q == '.') {
            right = 1;
            q++;
        }
        while (*q >= '0' && *q <= '9')
            width = width * 10 + (size_t)(*q++ - '0');
        char c = *q;
        if (c == '{') {
            c = 0;
            for (size_t i = 0; i < sizeof long_names / sizeof long_names[0]; i++) {
                size_t len = strlen(long_names[i].name);
                if (!strncmp(q + 1, long_names[i].name, len) && q[len + 1] == '}') {
                    c = long_names[i].c;
                    q += len + 1;
                    break;
                }
            }
        }
        int level = (int)gomp_thr.level;
        switch (c) {
        case 't': snprintf(num, sizeof num, "%d", omp_get_team_num()); break;
        case 'T': snprintf(num, sizeof num, "%d", omp_get_num_teams()); break;
        case 'L': snprintf(num, sizeof num, "%d", level); break;
        case 'n': snprintf(num, sizeof num, "%d", omp_get_thread_num()); break;
        case 'N': snprintf(num, sizeof num, "%d", omp_get_num_threads()); break;
        case 'a':
            snprintf(num, sizeof num, "%d", level ? omp_get_ancestor_thread_num(level - 1) : -1);
            break;
        case 'H':
            if (gethostname(num, sizeof num - 1) != 0)
                strcpy(num, "node");
            num[sizeof num - 1] = '\0';
            break;
        case 'P': snprintf(num, sizeof num, "%d", (int)getpid()); break;
        case 'i':   /* libomp shows the kernel's thread id, libgomp pthread_self */
            if (kmp_layer())
                snprintf(num, sizeof num, "%ld", (long)syscall(SYS_gettid));
            else
                snprintf(num, sizeof num, "0x%lx", (unsigned long)pthread_self());
            break;
        case 'A': cpu_list(num, sizeof num); break;
        default:
            if (kmp_layer() && *q) {
                /* as libomp shows an unknown field, a long name included */
                const char *end = *q == '{' ? strchr(q, '}') : q;
                if (end) {
                    q = end;
                    strcpy(num, "undefined");
                    break;
                }
            }
            /* not a field: kept as written, so the mistake shows */
            if (!*q)
                q--;
            put(&o, pct, (size_t)(q + 1 - pct));
            p = q + 1;
            continue;
        }
        field(&o, num, zero, right, width);
        p = q + 1;
    }
    return o.pos;
}

GOMP_EXPORT size_t omp_capture_affinity(char *buffer, size_t size, const char *format)
{
    char *f = format && *format ? NULL : affinity_format();
    if (!(format && *format) && !f)
        return 0;   /* out of memory for a copy of the format */
    size_t len = format_affinity(buffer, buffer ? size : 0, f ? f : format);
    free(f);
    if (buffer && size)
        buffer[len < size ? len : size - 1] = '\0';
    return len;
}

GOMP_EXPORT void omp_display_affinity(const char *format)
{
    size_t len = omp_capture_affinity(NULL, 0, format);
    char *s = malloc(len + 2);
    if (!s)
        return;
    omp_capture_affinity(s, len + 1, format);
    s[len] = '\n';
    fwrite(s, 1, len + 1, kmp_layer() ? stdout : stderr);   /* where each runtime writes */
    free(s);
}

/* OMP_DISPLAY_AFFINITY: each thread's place in its last displayed team
 * (NULL: none yet): its level, league team, thread number, team size, CPUs
 * and the thread numbers above it.  A thread displays again when that
 * changes, as libgomp and libomp display again when a thread's team or
 * binding changes, and not when only the format changed (neither runtime
 * does).  One write per line, so that threads' lines do not interleave; on
 * stdout under libomp's ABI, on stderr under libgomp's (where each runtime
 * prints them). */
static pthread_key_t last_key_key;
static pthread_once_t last_key_once = PTHREAD_ONCE_INIT;

static void last_key_key_make(void)
{
    pthread_key_create(&last_key_key, free);   /* frees a thread's key at its exit */
}

void gomp_display_affinity_region(int serialized)
{
    /* libgomp displays nothing for a region of one thread, libomp does */
    if (!gomp_icv.display_affinity || (serialized && !kmp_layer()))
        return;
    pthread_once(&last_key_once, last_key_key_make);
    char key[1400];
    size_t klen = format_affinity(key, 1100, "%L %t %n %N %A");
    klen = klen < 1100 ? klen : 1099;
    /* and which team: the thread numbers and sizes of every level above,
     * so that two teams at one level (under different ancestors) differ */
    for (const struct gomp_level *l = gomp_thr.lv; l && klen < sizeof key - 24; l = l->up)
        klen += (size_t)snprintf(key + klen, sizeof key - klen, " %d/%d", l->id, l->size);
    key[klen < sizeof key - 1 ? klen : sizeof key - 1] = '\0';
    char *last = pthread_getspecific(last_key_key);
    if (last && !strcmp(last, key))
        return;
    char *copy = strdup(key);
    if (copy && pthread_setspecific(last_key_key, copy) == 0)
        free(last);
    else
        free(copy);
    char buf[512], *s = buf;
    size_t len = omp_capture_affinity(buf, sizeof buf - 1, NULL);
    if (len + 2 > sizeof buf) {
        if (!(s = malloc(len + 2)))
            return;
        omp_capture_affinity(s, len + 1, NULL);
    }
    s[len] = '\n';
    ssize_t w = write(kmp_layer() ? 1 : 2, s, len + 1);
    (void)w;   /* nothing to do when the display cannot be written */
    if (s != buf)
        free(s);
}

static const char *sched_name(int kind)
{
    switch (kind) {
    case GS_STATIC: return "STATIC";
    case GS_DYNAMIC: return "DYNAMIC";
    case GS_GUIDED: return "GUIDED";
    default: return "AUTO";
    }
}

static const char *const allocator_names[] = {
    "", "omp_default_mem_alloc", "omp_large_cap_mem_alloc", "omp_const_mem_alloc",
    "omp_high_bw_mem_alloc", "omp_low_lat_mem_alloc", "omp_cgroup_mem_alloc",
    "omp_pteam_mem_alloc", "omp_thread_mem_alloc",
};

GOMP_EXPORT void omp_display_env(int verbose)
{
    gomp_read_env();
    int nteams, teams_limit;
    gomp_teams_icvs(&nteams, &teams_limit);
    uintptr_t alloc = omp_get_default_allocator();
    const char *s;
    fputs("\nOPENMP DISPLAY ENVIRONMENT BEGIN\n", stderr);
    fputs("  _OPENMP = '201511'\n", stderr);
    fprintf(stderr, "  OMP_DYNAMIC = '%s'\n", gomp_icv.dynamic ? "TRUE" : "FALSE");
    fprintf(stderr, "  OMP_NESTED = '%s'\n", gomp_icv.max_active_levels > 1 ? "TRUE" : "FALSE");
    fprintf(stderr, "  OMP_NUM_THREADS = '%d'\n",
            gomp_icv.nthreads ? gomp_icv.nthreads : omp_get_num_procs());
    /* libgomp's spelling: a modifier only where it is not the kind's
     * default (static is monotonic), a chunk only where not the default */
    int kind = gomp_icv.run_sched & ~GOMP_SCHED_MONOTONIC;
    int mono = (gomp_icv.run_sched & GOMP_SCHED_MONOTONIC) != 0;
    fprintf(stderr, "  OMP_SCHEDULE = '%s%s", mono && kind != GS_STATIC ? "MONOTONIC:"
            : !mono && kind == GS_STATIC ? "NONMONOTONIC:" : "", sched_name(kind));
    if (kind != GS_AUTO && gomp_icv.run_chunk != (kind == GS_STATIC ? 0 : 1))
        fprintf(stderr, ",%d", gomp_icv.run_chunk);
    fputs("'\n", stderr);
    fputs("  OMP_PROC_BIND = 'FALSE'\n", stderr);   /* workers are bound by LOCUS_BIND */
    fputs("  OMP_PLACES = '", stderr);
    gomp_places_print(stderr);
    fputs("'\n", stderr);
    fprintf(stderr, "  OMP_STACKSIZE = '%s'\n", (s = getenv("OMP_STACKSIZE")) ? s : "0");
    fputs("  OMP_WAIT_POLICY = 'PASSIVE'\n", stderr);
    fprintf(stderr, "  OMP_THREAD_LIMIT = '%d'\n", omp_get_thread_limit());
    fprintf(stderr, "  OMP_MAX_ACTIVE_LEVELS = '%d'\n", gomp_icv.max_active_levels);
    fprintf(stderr, "  OMP_NUM_TEAMS = '%d'\n", nteams);
    fprintf(stderr, "  OMP_TEAMS_THREAD_LIMIT = '%d'\n", teams_limit);
    fprintf(stderr, "  OMP_CANCELLATION = '%s'\n", gomp_icv.cancellation ? "TRUE" : "FALSE");
    fprintf(stderr, "  OMP_DEFAULT_DEVICE = '%d'\n", omp_get_default_device());
    fprintf(stderr, "  OMP_MAX_TASK_PRIORITY = '%d'\n", gomp_icv.max_task_priority);
    fprintf(stderr, "  OMP_DISPLAY_AFFINITY = '%s'\n", gomp_icv.display_affinity ? "TRUE" : "FALSE");
    char *format = affinity_format();
    fprintf(stderr, "  OMP_AFFINITY_FORMAT = '%s'\n", format ? format : "");
    free(format);
    fprintf(stderr, "  OMP_ALLOCATOR = '%s'\n",
            alloc < sizeof allocator_names / sizeof allocator_names[0] ? allocator_names[alloc]
                                                                       : "");
    fprintf(stderr, "  OMP_TARGET_OFFLOAD = '%s'\n",
            gomp_target_offload_mandatory() ? "MANDATORY" : "DEFAULT");
    if (verbose) {
        fprintf(stderr, "  LOCUS_REGIME = '%s'\n", (s = getenv("LOCUS_REGIME")) ? s : "");
        fprintf(stderr, "  LOCUS_THREADS = '%s'\n", (s = getenv("LOCUS_THREADS")) ? s : "");
    }
    fputs("OPENMP DISPLAY ENVIRONMENT END\n", stderr);
}

__attribute__((constructor)) static void display_env_at_start(void)
{
    const char *s = getenv("OMP_AFFINITY_FORMAT");
    if (s)
        omp_set_affinity_format(s);
    if ((s = getenv("OMP_DISPLAY_ENV")) && *s) {
        if (!strcasecmp(s, "true"))
            omp_display_env(0);
        else if (!strcasecmp(s, "verbose"))
            omp_display_env(1);
    }
}
