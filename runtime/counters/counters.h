/*
 * counters.h - the coherence-traffic counters: one small interface over
 * several backends (perf_event, PAPI, likwid, none), each in its own file.
 * A backend turns the event table of the CPU family (events.c) into counts
 * per class, per socket, outgoing (tx) and incoming (rx); this layer keeps
 * the baselines of start/stop, the per-class availability and its reason.
 * The classes are those of Caheny et al., "Reducing Cache Coherence Traffic
 * with a NUMA-Aware Runtime Approach", section 2 (DTC, DWB, HREQ, SNP, HRSP,
 * NDR), plus link bytes and core-side proxies; see locus(7) for how close
 * each CPU family comes to them.
 *
 * The machine is reached only through struct lc_ctr_env: the sysfs and
 * procfs roots are parameters (tests point them at recorded trees under
 * tests/fixtures/sysfs/) and perf_event_open/read/close are replaceable.
 * Nothing here reads the environment (env.c does).
 */
#ifndef LC_COUNTERS_H
#define LC_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "locus.h"

#define LC_NCLS LOCUS_COUNTER_NCLASSES
#define LC_CTR_MAX_SOCKETS 64
#define LC_CTR_REASON_MAX 192
#define LC_CTR_ERR_MAX 512

enum lc_ctr_dir { LC_TX = 0, LC_RX = 1 };

/* ---- the machine ------------------------------------------------------- */

struct perf_event_attr;

/* Where the machine is; a zeroed struct means the real one. */
struct lc_ctr_env {
    const char *sysfs;      /* NULL: "/sys" */
    const char *procfs;     /* NULL: "/proc" */
    /* NULL: the system calls.  open returns an fd or -1 with errno set. */
    int (*open)(struct perf_event_attr *attr, int pid, int cpu, int group,
                unsigned long flags, void *ctx);
    long (*read)(int fd, void *buf, size_t len, void *ctx);
    int (*close)(int fd, void *ctx);
    void *ctx;
    int likwid_marker;      /* env.c: running under likwid-perfctr -m */
};

#define LC_PARANOID_NONE (-100) /* no /proc/sys/kernel/perf_event_paranoid */

/* What detect.c finds out, for choosing a table and explaining failures. */
struct lc_ctr_machine {
    char vendor[16];        /* "GenuineIntel", "AuthenticAMD", "" unknown */
    int family, model;      /* -1 unknown */
    int hypervisor;         /* "hypervisor" in the cpuinfo flags */
    int paranoid;           /* perf_event_paranoid, LC_PARANOID_NONE without perf_event */
    int privileged;         /* CAP_PERFMON or CAP_SYS_ADMIN effective */
    int cpu_pmu;            /* a "cpu" PMU exists (core events) */
    int uncore_pmus;        /* uncore_upi_*, uncore_qpi_*, amd_df found */
};

int lc_ctr_detect(const struct lc_ctr_env *env, struct lc_ctr_machine *m);
/* perf_event_paranoid alone (procfs of env), LC_PARANOID_NONE without it. */
int lc_ctr_paranoid(const struct lc_ctr_env *env);

/* Why an event cannot be opened, from perf_event_open's errno. */
void lc_ctr_errno_reason(int err, const struct lc_ctr_machine *m, const char *what,
                         char *buf, size_t len);

/* How every reason that a VM causes begins, so that a summary says it once. */
#define LC_CTR_VM "running in a VM (hypervisor flag)"

/* Why uncore (uncore = 1) or core events cannot be used on m, or "" when
 * nothing stands in the way before trying. */
void lc_ctr_blocker(const struct lc_ctr_machine *m, int uncore, int have_pmu,
                    char *buf, size_t len);

/* ---- event tables (events.c) -------------------------------------------- */

struct lc_ctr_event {
    unsigned classes;       /* bit (1u << class) of each class this event feeds */
    int dir;                /* LC_TX or LC_RX */
    const char *pmu;        /* "uncore_upi_" (prefix: every box), "amd_df", "cpu" */
    const char *name;       /* the documented event name */
    const char *fields;     /* terms of the PMU's sysfs format: "event=0x04,umask=0x08" */
    const char *pfm;        /* libpfm4/PAPI name, %d = box; NULL when libpfm4 lacks it */
    double scale;           /* count -> unit */
};

struct lc_ctr_class_map {
    int kind;               /* locus_counter_kind_t */
    unsigned merged;        /* MERGED: the classes sharing the counts */
    const char *unit;
    const char *note;       /* how close to the paper's class; the reason when UNAVAILABLE */
};

struct lc_ctr_table {
    const char *name;       /* "skx", "icx", "spr", "hswep", "zen2" .. "zen5" */
    const char *title;
    const struct lc_ctr_event *ev;
    size_t nev;
    struct lc_ctr_class_map cls[LC_NCLS];
};

/* The table for the machine's CPU, or NULL (then why in buf). */
const struct lc_ctr_table *lc_ctr_table_for(const struct lc_ctr_machine *m, char *buf, size_t len);
/* A table by name (tests, tools), or NULL. */
const struct lc_ctr_table *lc_ctr_table_find(const char *name);
/* NULL-terminated list of every table. */
extern const struct lc_ctr_table *const lc_ctr_tables[];

/* An event on a per-thread core PMU rather than a per-socket uncore one. */
int lc_ctr_event_is_core(const struct lc_ctr_event *e);

/* ---- sysfs PMUs (sysfs.c) ------------------------------------------------ */

#define LC_PMU_NAME_MAX 64
#define LC_PMU_MAX_FORMATS 32

struct lc_pmu_field {
    char name[32];
    int reg;                /* 0 config, 1 config1, 2 config2 */
    uint64_t bits;          /* the register bits, low to high, the value fills */
};

struct lc_pmu {
    char name[LC_PMU_NAME_MAX];
    int box;                /* the number after the prefix, 0 when none */
    uint32_t type;
    int ncpus;              /* cpumask: one CPU per socket for uncore PMUs */
    int cpus[LC_CTR_MAX_SOCKETS];
    int nfields;
    struct lc_pmu_field field[LC_PMU_MAX_FORMATS];
};

/* Reads devices/<name> under sysfs/bus/event_source.  0, -ENOENT (no such
 * PMU), -EINVAL (unreadable format; message in err). */
int lc_pmu_read(const char *sysfs, const char *name, struct lc_pmu *p, char *err, size_t errlen);
/* Every PMU whose name is prefix followed by digits (or prefix itself when
 * it does not end in '_'), sorted by box.  Returns the count (at most max). */
int lc_pmu_list(const char *sysfs, const char *prefix, char names[][LC_PMU_NAME_MAX], int max);
/* The names under sysfs/bus/event_source/devices, read once for a caller
 * that looks up many prefixes (perf.c's plan: one directory scan instead
 * of one per event; each costs tens of microseconds of a program's first
 * parallel region).  lc_pmu_dir_read: 0, or -ENOMEM, after which d still
 * answers, by one scan per lookup (n 0 when the directory cannot be read:
 * no PMU); lc_pmu_dir_list filters it as lc_pmu_list does;
 * lc_pmu_dir_free releases it. */
struct lc_pmu_dir {
    char (*names)[LC_PMU_NAME_MAX];
    int n;
    const char *scan;       /* no memory for the names: the sysfs root to scan */
};
int lc_pmu_dir_read(const char *sysfs, struct lc_pmu_dir *d);
int lc_pmu_dir_list(const struct lc_pmu_dir *d, const char *prefix,
                    char names[][LC_PMU_NAME_MAX], int max);
void lc_pmu_dir_free(struct lc_pmu_dir *d);
/* Parses one format file's text, "config:0-7,21" or "config1:0-31". */
int lc_pmu_parse_format(const char *text, struct lc_pmu_field *f);
/* Encodes "event=0x04,umask=0x08" through p's format into config[0..2].
 * 0 or -EINVAL (unknown field, value too wide; message in err). */
int lc_pmu_encode(const struct lc_pmu *p, const char *terms, uint64_t config[3],
                  char *err, size_t errlen);
/* Parses a cpu list "0,28" or "0-3,8"; returns the count or -EINVAL. */
int lc_parse_cpulist(const char *s, int *cpus, int max);
/* Reads a small file (a sysfs attribute) into buf, the trailing newline
 * and blanks removed.  0, or -errno (-EIO on a read error). */
int lc_read_small(const char *path, char *buf, size_t len);
/* dl.c: loads soname (RTLD_GLOBAL) and stores the address of each of its n
 * entry points names[i] into *slots[i].  0, or -ENODEV with the reason in
 * why ("cannot load ...", "... has no ..."). */
int lc_ctr_dl_load(const char *soname, const char *const *names, void **const *slots, int n,
                   char *why, size_t len);
/* The socket (physical package) of a CPU, or -1. */
int lc_cpu_package(const char *sysfs, int cpu);

/* ---- counting ------------------------------------------------------------- */

/* Cumulative counts of one socket (or, in the last slot, of the process),
 * already scaled to the class unit. */
struct lc_ctr_snap {
    double v[LC_NCLS][2];
    unsigned scaled;        /* classes extrapolated from multiplexed time */
    unsigned never;         /* classes with an event that never got a counter */
};

struct lc_counters;

struct lc_ctr_backend {
    const char *name;
    const char *description;
    /* Whether the backend can count anything here: 0, or -ENODEV/-EACCES...
     * with the reason in buf. */
    int (*probe)(const struct lc_ctr_env *env, char *buf, size_t len);
    /* Programs the counters, sets c->cls[] kinds and reasons and c->nsockets.
     * 0 or a negative errno (message in err). */
    int (*open)(struct lc_counters *c, char *err, size_t errlen);
    /* Cumulative counts since open into snaps[0..nsockets] (the last: process). */
    int (*read)(struct lc_counters *c, struct lc_ctr_snap *snaps);
    /* Optional: called at start and stop (likwid regions). */
    int (*start)(struct lc_counters *c);
    int (*stop)(struct lc_counters *c);
    void (*close)(struct lc_counters *c);
};

extern const struct lc_ctr_backend lc_ctr_perf, lc_ctr_papi, lc_ctr_likwid, lc_ctr_none;
/* perf, papi, likwid, none, NULL */
extern const struct lc_ctr_backend *const lc_ctr_backends[];

/* Per-class state a backend fills at open. */
struct lc_ctr_class {
    int kind;
    unsigned merged;
    unsigned dirs;          /* LOCUS_COUNTER_HAS_TX | _HAS_RX */
    int process;            /* counted for the process, not per socket */
    char unit[16];
    char source[96];
    char reason[LC_CTR_REASON_MAX];
};

struct lc_counters {
    const struct lc_ctr_backend *be;
    struct lc_ctr_env env;
    struct lc_ctr_machine mach;
    const struct lc_ctr_table *table;
    char backend_name[16];  /* be->name, or "none" when auto found nothing */
    char requested[16];
    int nsockets;
    int sockets[LC_CTR_MAX_SOCKETS];   /* package id of each slot */
    struct lc_ctr_class cls[LC_NCLS];
    char reason[LC_CTR_ERR_MAX];       /* why nothing counts, or "" */
    struct lc_ctr_snap *base, *end;    /* nsockets + 1 each */
    int counting, stopped, phase;
    uint64_t t_start, t_stop;          /* ns */
    void *priv;
};

/*
 * Opens counters with a backend: "auto" (perf if it counts anything here,
 * else likwid under likwid-perfctr -m, else papi, else none with every
 * backend's reason), or "perf", "papi", "likwid", "none".  An explicit
 * backend that can count nothing here fails with -ENODEV and the reason in
 * err; "auto" and "none" always succeed (unless out of memory).
 */
int lc_counters_open(const char *backend, const struct lc_ctr_env *env,
                     struct lc_counters **out, char *err, size_t errlen);
int lc_counters_start(struct lc_counters *c);   /* new baseline */
int lc_counters_stop(struct lc_counters *c);
/* socket -1: the totals; else one socket slot 0..nsockets-1. */
int lc_counters_read(struct lc_counters *c, int socket, locus_counters_t *out);
void lc_counters_close(struct lc_counters *c);

/* Helpers for backends. */
void lc_ctr_set_unavailable(struct lc_counters *c, int cls, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
void lc_ctr_all_unavailable(struct lc_counters *c, const char *reason);
/* Fills c->cls[] from the table's class map (kinds, units, notes). */
void lc_ctr_apply_table(struct lc_counters *c, const struct lc_ctr_table *t);
/* Number of classes not UNAVAILABLE. */
int lc_ctr_navailable(const struct lc_counters *c);
uint64_t lc_ctr_now_ns(void);

/* ---- the runtime's counters (api.c), between locus_init and finalize ------ */

struct lc_options;
/* Opens the counters LOCUS_COUNTERS asks for.  0, -EINVAL (an explicit
 * backend counts nothing here; message in err), -ENOMEM. */
int lc_counters_rt_open(const struct lc_options *o, char *err, size_t errlen);
/* Whether the counters lc_counters_rt_open would open may include
 * per-thread events, which a thread inherits only if it is created after
 * them: LOCUS_COUNTERS not none and a core PMU here (the perf backend's
 * per-thread proxies are its events; the other backends count CPUs or
 * sockets).  Where not, locus_init starts the workers first. */
int lc_counters_rt_per_thread(const struct lc_options *o);
void lc_counters_rt_begin(void);   /* end of locus_init(): the run's bracket opens */
void lc_counters_rt_end(void);     /* locus_finalize(): stops counting if it still is */
/* Totals into *total and up to max sockets into per[]; returns the sockets
 * written, or -1 when no counters are open. */
int lc_counters_rt_fill(locus_counters_t *total, locus_counters_t *per, int max);
void lc_counters_rt_close(void);
/* LOCUS_COUNTERS=help: every backend, whether it can count here and why. */
void lc_counters_print_help(const struct lc_ctr_env *env, void *file);

/* ---- PAPI software-defined events (sde.c) --------------------------------- */

struct lc_runtime;
/* Registers the runtime's figures as sde:::locus::NAME (HAVE_PAPI builds
 * with libsde at run time); never fails the run.  Returns 1 when
 * registered, 0 when not (reason in buf). */
int lc_sde_init(struct lc_runtime *rt, char *buf, size_t len);
/* Loads libsde early (locus_init, before any PAPI_library_init Locus may
 * do), so that PAPI's sde component finds it. */
void lc_sde_preload(void);
void lc_sde_fini(struct lc_runtime *rt);

#endif /* LC_COUNTERS_H */
