/*
 * env.h - every LOCUS_* environment variable, parsed once at locus_init()
 * into one typed options struct.  Only env.c reads the environment; the rest
 * of the runtime reads struct lc_options.  Each variable is documented in
 * man/locus.7 (type, default, range).
 */
#ifndef LC_ENV_H
#define LC_ENV_H

#include <stddef.h>

#define LC_MAX_WORKERS 4096
#define LC_NAME_MAX 32
#define LC_PATH_MAX 4096

enum lc_bind { LC_BIND_CORE = 0, LC_BIND_NONE };
enum lc_steal { LC_STEAL_NEAR = 0, LC_STEAL_ALL, LC_STEAL_NONE };
enum lc_pages { LC_PAGES_UNSET = 0, LC_PAGES_FIRSTTOUCH, LC_PAGES_INTERLEAVE };
/* LOCUS_COUNTERS, in the order of lc_counters_name() */
enum lc_counters_req { LC_COUNTERS_AUTO = 0, LC_COUNTERS_PERF, LC_COUNTERS_PAPI,
                       LC_COUNTERS_LIKWID, LC_COUNTERS_NONE };

struct lc_options {
    int threads;                    /* LOCUS_THREADS: 1..LC_MAX_WORKERS, 0 = CPUs in the affinity mask */
    enum lc_bind bind;              /* LOCUS_BIND: core (default) | none */
    unsigned spin;                  /* LOCUS_SPIN: idle polls before sleeping, 0..1e9, default 20000 */
    int spin_adapt;                 /* LOCUS_SPIN unset: fewer polls where CPUs are shared (spin.h) */
    unsigned throttle;              /* LOCUS_THROTTLE: incomplete children per task before the
                                       spawner helps run tasks, 16..1e8, default 8192 */
    unsigned grain_ns;              /* LOCUS_GRAIN_NS: bodies shorter than this (sampled mean) make
                                       a task ready at spawn run there, 0..1e6, default 200, 0 off */
    char regime[LC_NAME_MAX];       /* LOCUS_REGIME: dft | di | naft (default naft) */
    char sched[LC_NAME_MAX];        /* LOCUS_SCHED: scheduler name overriding the regime's, "" = unset */
    enum lc_pages pages;            /* LOCUS_PAGES: firsttouch | interleave, UNSET = the regime's */
    char topology[LC_PATH_MAX];     /* LOCUS_TOPOLOGY: "" = real machine, else preset name,
                                       hwloc synthetic description or XML file path */
    enum lc_steal steal;            /* LOCUS_STEAL: near (default) | all | none */
    unsigned steal_spin;            /* LOCUS_STEAL_SPIN: idle polls of the own node before
                                       stealing, 0..1e9, default 200 */
    unsigned wait_us;               /* LOCUS_WAIT_US: NAFT's wait bound, at least (sched/naft.c),
                                       0..1e6 microseconds, default 1000, 0 off */
    unsigned poll_us;               /* LOCUS_POLL_US: the longest a polling service waits to be
                                       called, 1..1e6 microseconds, default 50 (poll.c) */
    char report[LC_PATH_MAX];       /* LOCUS_REPORT: "" = none, "stderr", or a file path */
    char trace[LC_PATH_MAX];        /* LOCUS_TRACE: "" = none, else the OTF2 archive's directory */
    char dag[LC_PATH_MAX];          /* LOCUS_DAG: "" = none, else the Graphviz dot file */
    int signals;                    /* LOCUS_SIGNALS: 1 (default) = SIGTERM and SIGINT write
                                       the outputs above first (exit.c), 0 = left alone */
    char sim[LC_PATH_MAX];          /* LOCUS_SIM: "" = run for real, else the topology simulated
                                       (what LOCUS_TOPOLOGY accepts; locus-sim(7)) */
    char sim_machine[LC_PATH_MAX];  /* LOCUS_SIM_MACHINE: "" = the topology's own model, else a
                                       machine model file (sim/machine.c) */
    char sim_model[LC_PATH_MAX];    /* LOCUS_SIM_MODEL: "" = none, else a task model file */
    char sim_schedule[LC_PATH_MAX]; /* LOCUS_SIM_SCHEDULE: "" = none, else a file for the
                                       simulated schedule (a line per body) */
    unsigned long sim_seed;         /* LOCUS_SIM_SEED: perturbs the workers' choices, default 0 */
    int verbose;                    /* LOCUS_VERBOSE: 0..3, default 0 */
    enum lc_counters_req counters;  /* LOCUS_COUNTERS: auto (default) | perf | papi | likwid | none */
    int likwid_marker;              /* LIKWID_EVENTS and LIKWID_FILEPATH set (non-empty): the
                                       program runs under likwid-perfctr -m (likwid's own
                                       variables, read here so that env.c stays the one reader) */
    /* which help listings were asked for (value "help"); the caller prints them */
    unsigned help;                  /* bit set of LC_HELP_* */
};

#define LC_HELP_REGIME   0x1u
#define LC_HELP_SCHED    0x2u
#define LC_HELP_TOPOLOGY 0x4u
#define LC_HELP_COUNTERS 0x8u

/* "auto", "perf", "papi", "likwid", "none" for an enum lc_counters_req; "?" else. */
const char *lc_counters_name(int req);

/* Returns the value of a variable or NULL; lets tests parse without setenv. */
typedef const char *(*lc_env_getter)(const char *name, void *ctx);

/* Fills o with defaults. */
void lc_options_defaults(struct lc_options *o);

/*
 * Parses every LOCUS_* variable through get (getenv when get is NULL).
 * Returns 0, or -EINVAL with a message in err such as
 * "LOCUS_THREADS='abc': expected an integer in 1..4096 (or unset for all CPUs)".
 * Unknown LOCUS_* names are not errors here (see lc_env_unknown()).
 */
int lc_env_parse(struct lc_options *o, lc_env_getter get, void *ctx,
                 char *err, size_t errlen);

/*
 * Scans environ for LOCUS_* names that no option uses (a likely typo).
 * Writes the first such name into name (up to len bytes) and returns 1, else 0.
 */
int lc_env_unknown(char *name, size_t len);

/*
 * Additions (env.c documents the value rules in full):
 *  - lc_env_parse() first sets o to lc_options_defaults(), so unset variables
 *    keep their defaults; on failure o is left at the defaults.  Values are
 *    trimmed of leading/trailing whitespace, an empty value means unset,
 *    keywords are case-insensitive and stored in lower case.  With get NULL
 *    the environment is read with secure_getenv(), so set-user-ID programs
 *    ignore LOCUS_* variables.
 *  - LOCUS_TEST_* names are reserved for the test suite (LOCUS_TEST_SANITIZER):
 *    the library never reads them and lc_env_unknown() does not report them.
 */

/* A buffer this long holds every message of this module untruncated. */
#define LC_ENV_ERR_MAX 512

/*
 * Completes o after lc_env_parse(): fills o->sched and o->pages from
 * o->regime where they are unset (dft -> oblivious + firsttouch,
 * di -> oblivious + interleave, naft -> naft + firsttouch) and refuses the
 * naft scheduler with interleaved pages (paper section 4.1), however the two
 * were chosen.  Returns 0, or -EINVAL with a message in err naming the
 * variables and why; on failure o is unchanged.
 */
int lc_options_resolve(struct lc_options *o, char *err, size_t errlen);

/* 1 when name is a LOCUS_* variable that Locus reads (or LOCUS_TEST_*), else 0. */
int lc_env_is_known(const char *name);

/* The known variable closest to a misspelt name (e.g. LOCUS_THREAD ->
 * LOCUS_THREADS), or NULL when none is close; for warnings. */
const char *lc_env_suggest(const char *name);

#endif /* LC_ENV_H */
