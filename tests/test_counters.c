/*
 * test_counters.c - unit and API tests of runtime/counters/: detection on
 * this machine (every backend gives its real reason, never a 0 count),
 * sysfs format parsing and event encoding, the exact perf_event attr.type
 * and attr.config planned for every event against the trees under
 * tests/fixtures/sysfs/, every machine path there (each CPU family's table,
 * no table, VMs with and without a virtual PMU, no perf_event) detected,
 * opened and counted on any host, the reasons for blocked machines
 * (VM, perf_event_paranoid, unknown CPU, no perf_event), errno-to-reason
 * mapping, counting through a fake perf_event_open (per socket, Tx/Rx,
 * flit scaling, merged classes, multiplexing, phases), the public API and
 * LOCUS_COUNTERS handling in locus_init, and the PAPI software-defined
 * events read through PAPI against locus_get_stats() (HAVE_PAPI builds).
 */
#if defined(__has_include)
#if __has_include("config.h")
#include "config.h"
#endif
#endif

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

#include "counters/counters.h"
#include "counters/perf.h"
#include "locus.h"

#ifdef HAVE_PAPI
#include <papi.h>
#endif

/* PAPI keeps its tables until PAPI_shutdown(), which a library must not
 * call for the program; libsde's registry lives as long as the process. */
__attribute__((visibility("default"))) const char *__lsan_default_suppressions(void);
__attribute__((visibility("default"))) const char *__lsan_default_suppressions(void)
{
    return "leak:libpapi.so\nleak:libsde.so\nleak:libpfm.so\n";
}

#ifndef FIXTURES
#define FIXTURES "tests/fixtures/sysfs"
#endif

static char tmpdir[1024];

/* ---- helpers ---------------------------------------------------------------- */

static void fixture(struct lc_ctr_env *env, const char *machine, char *sys, char *proc)
{
    snprintf(sys, PATH_MAX, "%s/%s/sys", FIXTURES, machine);
    snprintf(proc, PATH_MAX, "%s/%s/proc", FIXTURES, machine);
    memset(env, 0, sizeof *env);
    env->sysfs = sys;
    env->procfs = proc;
}

static void write_file(const char *path, const char *text)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0755);
            *p = '/';
        }
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* A procfs tree under tmpdir/name: cpuinfo, paranoid (or none), CapEff. */
static void make_procfs(char *out, const char *name, const char *vendor, int family, int model,
                        int hypervisor, int paranoid, const char *capeff)
{
    char path[PATH_MAX + 64], text[512];
    snprintf(out, PATH_MAX, "%s/%s", tmpdir, name);
    snprintf(path, sizeof path, "%s/cpuinfo", out);
    snprintf(text, sizeof text, "processor\t: 0\nvendor_id\t: %s\ncpu family\t: %d\nmodel\t\t: %d\n"
             "model name\t: Test CPU 9000\nflags\t\t: fpu tsc msr%s lm\n\n", vendor, family, model,
             hypervisor ? " hypervisor" : "");
    write_file(path, text);
    if (paranoid != LC_PARANOID_NONE) {
        snprintf(path, sizeof path, "%s/sys/kernel/perf_event_paranoid", out);
        snprintf(text, sizeof text, "%d\n", paranoid);
        write_file(path, text);
    }
    snprintf(path, sizeof path, "%s/self/status", out);
    snprintf(text, sizeof text, "Name:\tt\nCapEff:\t%s\n", capeff);
    write_file(path, text);
}

/* ---- a fake perf_event_open ------------------------------------------------ */

#define FAKE_MAX 512

struct fake {
    int n;
    struct perf_event_attr attr[FAKE_MAX];
    int cpu[FAKE_MAX], pid[FAKE_MAX], open[FAKE_MAX];
    uint64_t value[FAKE_MAX], enabled[FAKE_MAX], running[FAKE_MAX];
    /* per fd: how much a tick adds, and which share of the time it runs */
    uint64_t step[FAKE_MAX];
    int half[FAKE_MAX];     /* multiplexed: runs half the time */
    int never[FAKE_MAX];    /* never scheduled */
    /* refuse opens: config == fail_config (and cpu == fail_cpu unless -2) */
    uint64_t fail_config;
    int fail_cpu, fail_errno;
    int opens, closes;
};

static struct fake fk;

static int fake_open(struct perf_event_attr *attr, int pid, int cpu, int group,
                     unsigned long flags, void *ctx)
{
    struct fake *f = ctx;
    (void)group;
    (void)flags;
    if (f->fail_errno && attr->config == f->fail_config && (f->fail_cpu == -2 || cpu == f->fail_cpu)) {
        errno = f->fail_errno;
        return -1;
    }
    assert_true(f->n < FAKE_MAX);
    int i = f->n++;
    f->attr[i] = *attr;
    f->cpu[i] = cpu;
    f->pid[i] = pid;
    f->open[i] = 1;
    f->step[i] = 10;
    f->opens++;
    return 1000 + i;
}

static long fake_read(int fd, void *buf, size_t len, void *ctx)
{
    struct fake *f = ctx;
    int i = fd - 1000;
    assert_true(i >= 0 && i < f->n && f->open[i]);
    assert_int_equal(len, 3 * sizeof(uint64_t));
    uint64_t v[3] = { f->value[i], f->enabled[i], f->running[i] };
    memcpy(buf, v, sizeof v);
    return (long)sizeof v;
}

static int fake_close(int fd, void *ctx)
{
    struct fake *f = ctx;
    int i = fd - 1000;
    assert_true(i >= 0 && i < f->n && f->open[i]);
    f->open[i] = 0;
    f->closes++;
    return 0;
}

/* Time passes: every counter counts its step (half of it when multiplexed,
 * then scaled back by enabled/running). */
static void tick(struct fake *f)
{
    for (int i = 0; i < f->n; i++) {
        f->enabled[i] += 1000;
        if (f->never[i])
            continue;
        f->running[i] += f->half[i] ? 500 : 1000;
        f->value[i] += f->half[i] ? f->step[i] / 2 : f->step[i];
    }
}

static void fake_env(struct lc_ctr_env *env)
{
    memset(&fk, 0, sizeof fk);
    fk.fail_cpu = -2;
    env->open = fake_open;
    env->read = fake_read;
    env->close = fake_close;
    env->ctx = &fk;
}

static int fake_find(uint64_t config, int cpu)
{
    for (int i = 0; i < fk.n; i++)
        if (fk.attr[i].config == config && fk.cpu[i] == cpu)
            return i;
    return -1;
}

/* ---- reasons, on any machine ---------------------------------------------------- */

static int count_str(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

static void check_classes(const locus_counters_t *c)
{
    for (int k = 0; k < LOCUS_COUNTER_NCLASSES; k++) {
        const locus_counter_value_t *v = &c->cls[k];
        if (v->kind == LOCUS_COUNTER_UNAVAILABLE) {
            if (v->reason[0] == '\0')
                fail_msg("class %s unavailable without a reason", locus_counter_class_name(k));
            assert_int_equal(v->flags, 0);
            assert_true(v->tx == 0 && v->rx == 0);
        } else {
            assert_true(v->unit[0] != '\0');
            assert_true(v->flags & (LOCUS_COUNTER_HAS_TX | LOCUS_COUNTER_HAS_RX));
        }
    }
}

static void want_in(const char *what, int k, const char *reason, const char *needle)
{
    if (strstr(reason, needle) == NULL)
        fail_msg("%s, class %s: reason '%s' lacks '%s'", what, locus_counter_class_name(k),
                 reason, needle);
}

/*
 * What the reasons must say, from what detection found on machine m and
 * nothing else, so that it holds on every host and every fixture: a class
 * the CPU's table cannot count carries the table's note; without
 * perf_event, that is the reason; in a VM that exposes no PMU of the
 * class's kind, the VM is named; never a VM on bare metal; and when
 * nothing counts, the summary names the VM once.
 */
static void check_reasons(const char *what, const struct lc_ctr_machine *m,
                          const locus_counters_t *out)
{
    const struct lc_ctr_table *t = lc_ctr_table_for(m, NULL, 0);
    int vm_said = 0;

    check_classes(out);
    for (int k = 0; k < LOCUS_COUNTER_NCLASSES; k++) {
        const locus_counter_value_t *v = &out->cls[k];
        int uncore = k <= LOCUS_COUNTER_LINK_BYTES;
        if (!m->hypervisor && strstr(v->reason, LC_CTR_VM) != NULL)
            fail_msg("%s, class %s: a VM is named on bare metal: %s", what,
                     locus_counter_class_name(k), v->reason);
        if (uncore && !m->uncore_pmus)
            assert_int_equal(v->kind, LOCUS_COUNTER_UNAVAILABLE);
        if (v->kind != LOCUS_COUNTER_UNAVAILABLE)
            continue;
        vm_said |= strstr(v->reason, LC_CTR_VM) != NULL;
        if (t != NULL && t->cls[k].kind == LOCUS_COUNTER_UNAVAILABLE)
            want_in(what, k, v->reason, t->cls[k].note);
        else if (m->paranoid == LC_PARANOID_NONE)
            want_in(what, k, v->reason, "no perf_event support");
        else if (m->hypervisor && !(uncore ? m->uncore_pmus : m->cpu_pmu))
            want_in(what, k, v->reason, LC_CTR_VM);
    }
    if (vm_said && strcmp(out->backend, "none") == 0 && count_str(out->reason, LC_CTR_VM) != 1)
        fail_msg("%s: the summary should name the VM once: %s", what, out->reason);
}

/* ---- detection on this machine ----------------------------------------------- */

/* Without a procfs root, the CPU comes from CPUID and the privilege from
 * capget; both must say what this machine's /proc says (a root of "/proc"
 * reads the files). */
static void test_detect_cpuid_as_proc(void **state)
{
    (void)state;
    struct lc_ctr_machine fast, files;
    struct lc_ctr_env none = { 0 }, proc = { 0 };
    proc.procfs = "/proc";
    lc_ctr_detect(&none, &fast);
    lc_ctr_detect(&proc, &files);
    if (files.family < 0)
        skip();   /* no cpuinfo fields to compare with (not x86) */
    assert_string_equal(fast.vendor, files.vendor);
    assert_int_equal(fast.family, files.family);
    assert_int_equal(fast.model, files.model);
    assert_int_equal(fast.hypervisor, files.hypervisor);
    assert_int_equal(fast.privileged, files.privileged);
    assert_int_equal(fast.paranoid, files.paranoid);
}

static void test_detect_here(void **state)
{
    (void)state;
    struct lc_ctr_machine m;
    struct lc_ctr_env env = { 0 };
    char err[LC_CTR_ERR_MAX];

    lc_ctr_detect(&env, &m);
    print_message("this machine: %s family %d model %d, hypervisor %d, perf_event_paranoid %d, "
                  "privileged %d, cpu PMU %d, uncore PMUs %d\n", m.vendor, m.family, m.model,
                  m.hypervisor, m.paranoid, m.privileged, m.cpu_pmu, m.uncore_pmus);
    for (int i = 0; lc_ctr_backends[i] != NULL; i++) {
        const char *name = lc_ctr_backends[i]->name;
        struct lc_counters *c = NULL;
        int r = lc_counters_open(name, &env, &c, err, sizeof err);
        if (r < 0) {
            assert_int_equal(r, -ENODEV);
            char want[64];
            snprintf(want, sizeof want, "LOCUS_COUNTERS=%s", name);
            assert_non_null(strstr(err, want));
            assert_true(strlen(err) > strlen(want) + 20); /* a reason follows */
            print_message("  %-6s unavailable: %s\n", name, err);
            continue;
        }
        locus_counters_t out;
        assert_int_equal(lc_counters_start(c), 0);
        assert_int_equal(lc_counters_stop(c), 0);
        assert_int_equal(lc_counters_read(c, -1, &out), 0);
        check_classes(&out);
        print_message("  %-6s opens: %d classes counted; e.g. DTC: %s\n", name,
                      lc_ctr_navailable(c), out.cls[0].kind ? "counted" : out.cls[0].reason);
        if (strcmp(name, "none") == 0)
            assert_non_null(strstr(out.cls[0].reason, "LOCUS_COUNTERS=none"));
        lc_counters_close(c);
    }

    /* auto always opens; every unavailable class says why, in the terms
     * detection found (table, perf_event, VM) */
    struct lc_counters *c;
    assert_int_equal(lc_counters_open("auto", &env, &c, err, sizeof err), 0);
    locus_counters_t out;
    assert_int_equal(lc_counters_start(c), 0);
    assert_int_equal(lc_counters_read(c, -1, &out), 0);
    check_reasons("this machine", &m, &out);
    if (lc_ctr_navailable(c) == 0) {
        assert_string_equal(out.backend, "none");
        assert_true(out.reason[0] != '\0');
        print_message("  auto: %s\n", out.reason);
    }
    lc_counters_close(c);

    assert_int_equal(lc_counters_open("bogus", &env, &c, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "LOCUS_COUNTERS='bogus'"));
}

/* ---- sysfs parsing and encoding ------------------------------------------------ */

static void test_format_parse(void **state)
{
    (void)state;
    struct lc_pmu_field f;
    assert_int_equal(lc_pmu_parse_format("config:0-7", &f), 0);
    assert_int_equal(f.reg, 0);
    assert_true(f.bits == 0xffull);
    assert_int_equal(lc_pmu_parse_format("config:0-7,21", &f), 0);
    assert_true(f.bits == 0x2000ffull);
    assert_int_equal(lc_pmu_parse_format("config1:0-31\n", &f), 0);
    assert_int_equal(f.reg, 1);
    assert_true(f.bits == 0xffffffffull);
    assert_int_equal(lc_pmu_parse_format("config2:63", &f), 0);
    assert_true(f.reg == 2 && f.bits == 1ull << 63);
    assert_int_equal(lc_pmu_parse_format("config:8-15,32-43,45-55", &f), 0);
    assert_true(f.bits == (0xff00ull | 0xfffull << 32 | 0x7ffull << 45));
    assert_int_equal(lc_pmu_parse_format("conf:1", &f), -EINVAL);
    assert_int_equal(lc_pmu_parse_format("config:64", &f), -EINVAL);
    assert_int_equal(lc_pmu_parse_format("config:5-3", &f), -EINVAL);
    assert_int_equal(lc_pmu_parse_format("config:1,", &f), -EINVAL);
    assert_int_equal(lc_pmu_parse_format("config:x", &f), -EINVAL);

    int cpus[8];
    assert_int_equal(lc_parse_cpulist("0,28", cpus, 8), 2);
    assert_true(cpus[0] == 0 && cpus[1] == 28);
    assert_int_equal(lc_parse_cpulist("0-3,8\n", cpus, 8), 5);
    assert_true(cpus[3] == 3 && cpus[4] == 8);
    assert_int_equal(lc_parse_cpulist("", cpus, 8), 0);
    assert_int_equal(lc_parse_cpulist("0-9", cpus, 8), -EINVAL); /* more than max */
    assert_int_equal(lc_parse_cpulist("a", cpus, 8), -EINVAL);
    assert_int_equal(lc_parse_cpulist("3-1", cpus, 8), -EINVAL);
}

static uint64_t encode(const char *machine, const char *pmu, const char *terms)
{
    char sys[PATH_MAX], proc[PATH_MAX], err[LC_CTR_ERR_MAX];
    struct lc_ctr_env env;
    struct lc_pmu p;
    uint64_t cfg[3];
    fixture(&env, machine, sys, proc);
    if (lc_pmu_read(sys, pmu, &p, err, sizeof err) != 0)
        fail_msg("reading %s/%s: %s", machine, pmu, err);
    if (lc_pmu_encode(&p, terms, cfg, err, sizeof err) != 0)
        fail_msg("encoding %s on %s: %s", terms, pmu, err);
    return cfg[0];
}

static void test_encode(void **state)
{
    (void)state;
    char sys[PATH_MAX], proc[PATH_MAX], err[LC_CTR_ERR_MAX];
    struct lc_ctr_env env;
    struct lc_pmu p;
    uint64_t cfg[3];

    fixture(&env, "skx-2s", sys, proc);
    assert_int_equal(lc_pmu_read(sys, "uncore_upi_1", &p, err, sizeof err), 0);
    assert_int_equal(p.type, 25);
    assert_int_equal(p.box, 1);
    assert_int_equal(p.ncpus, 2);
    assert_true(p.cpus[0] == 0 && p.cpus[1] == 28);
    assert_int_equal(lc_pmu_read(sys, "uncore_upi_9", &p, err, sizeof err), -ENOENT);

    /* design/counters.md's raw values */
    assert_true(encode("skx-2s", "uncore_upi_0", "event=0x04,umask=0x08") == 0x0804);
    assert_true(encode("skx-2s", "uncore_upi_0", "event=0x04,umask=0x0d") == 0x0d04);
    /* opcode matches: umask bit 8 lands in config bit 32 (umask_ext) */
    assert_true(encode("skx-2s", "uncore_upi_0", "event=0x04,umask=0x12a") == 0x100002a04ull);
    assert_true(encode("skx-2s", "uncore_upi_0", "event=0x04,umask=0x1aa") == 0x10000aa04ull);
    /* Haswell-EP QPI: ExtSel through event=config:0-7,21 */
    assert_true(encode("hswep", "uncore_qpi_0", "event=0x100,umask=0x01") == 0x200100);
    assert_true(encode("hswep", "uncore_qpi_0", "event=0x101,umask=0x02") == 0x200201);
    assert_true(encode("hswep", "uncore_qpi_0", "event=0x00,umask=0x02") == 0x0200);
    /* Zen 5 data fabric: event config:0-7,32-37, umask config:8-15,24-27 */
    assert_true(encode("zen5-2s", "amd_df", "event=0x41e,umask=0xbfe") == 0x40b00fe1eull);
    assert_true(encode("zen5-2s", "cpu", "event=0x44,umask=0x40") == 0x4044);
    assert_true(encode("zen5-2s", "cpu", "event=0x1d3") == 0x1000000d3ull); /* AMD event bits 32-35 */

    /* config1 fields, flags, and refusals */
    fixture(&env, "hswep", sys, proc);
    assert_int_equal(lc_pmu_read(sys, "uncore_qpi_1", &p, err, sizeof err), 0);
    assert_int_equal(lc_pmu_encode(&p, "event=0x1,match0=0xabc,mask0=0x7,edge", cfg, err,
                                   sizeof err), 0);
    assert_true(cfg[0] == (0x1 | 1u << 18) && cfg[1] == 0xabc && cfg[2] == 0x7);
    assert_int_equal(lc_pmu_encode(&p, "event=0x1,foo=1", cfg, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "uncore_qpi_1 has no format field 'foo'"));
    assert_int_equal(lc_pmu_encode(&p, "event=0x200", cfg, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "does not fit"));
    assert_int_equal(lc_pmu_encode(&p, "umask=zz", cfg, err, sizeof err), -EINVAL);

    char names[8][LC_PMU_NAME_MAX];
    fixture(&env, "skx-2s", sys, proc);
    assert_int_equal(lc_pmu_list(sys, "uncore_upi_", names, 8), 3);
    assert_string_equal(names[2], "uncore_upi_2");
    assert_int_equal(lc_pmu_list(sys, "cpu", names, 8), 1);
    assert_int_equal(lc_pmu_list(sys, "uncore_qpi_", names, 8), 0);
    /* the same names from one read of the directory (perf.c's plan) */
    struct lc_pmu_dir dir;
    assert_int_equal(lc_pmu_dir_read(sys, &dir), 0);
    assert_true(dir.n >= 4);
    assert_int_equal(lc_pmu_dir_list(&dir, "uncore_upi_", names, 8), 3);
    assert_string_equal(names[0], "uncore_upi_0");
    assert_string_equal(names[2], "uncore_upi_2");
    assert_int_equal(lc_pmu_dir_list(&dir, "cpu", names, 8), 1);
    assert_string_equal(names[0], "cpu");
    assert_int_equal(lc_pmu_dir_list(&dir, "uncore_qpi_", names, 8), 0);
    assert_int_equal(lc_pmu_dir_list(&dir, "uncore_upi_", names, 2), 2);   /* at most max */
    lc_pmu_dir_free(&dir);
    assert_null(dir.names);
    char none[PATH_MAX + 16];
    snprintf(none, sizeof none, "%s/no-such-tree", sys);
    assert_int_equal(lc_pmu_dir_read(none, &dir), 0);   /* no directory: no PMU */
    assert_int_equal(dir.n, 0);
    assert_int_equal(lc_pmu_dir_list(&dir, "cpu", names, 8), 0);
    lc_pmu_dir_free(&dir);
    assert_int_equal(lc_cpu_package(sys, 28), 1);
    assert_int_equal(lc_cpu_package(sys, 5), -1);
}

/* ---- planning against the recorded machines ------------------------------------ */

struct want {
    const char *name;
    uint64_t config;
};

/* Plans the machine's own table; checks every planned event. */
static void plan_machine(const char *machine, const char *table, struct lc_counters *c,
                         struct lc_perf_plan *plan, char *sys, char *proc)
{
    fixture(&c->env, machine, sys, proc);
    lc_ctr_detect(&c->env, &c->mach);
    const struct lc_ctr_table *t = lc_ctr_table_for(&c->mach, NULL, 0);
    assert_non_null(t);
    assert_string_equal(t->name, table);
    lc_ctr_apply_table(c, t);
    assert_int_equal(lc_perf_plan(c, t, plan), 0);
    for (size_t i = 0; i < plan->nev; i++) {
        const struct lc_perf_event *e = &plan->ev[i];
        int core = e->slot == LC_PERF_PROCESS;
        assert_int_equal(e->attr.size, sizeof e->attr);
        assert_true(e->attr.read_format ==
                    (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING));
        assert_int_equal(e->attr.sample_period, 0);
        assert_int_equal(e->attr.disabled, 0);
        if (core) {
            /* per thread, inherited by the workers, user space only */
            assert_int_equal(e->attr.type, 4);
            assert_true(e->pid == 0 && e->cpu == -1);
            assert_true(e->attr.inherit && e->attr.exclude_kernel && e->attr.exclude_hv);
        } else {
            /* uncore: CPU-wide on the cpumask CPU, no exclude bits */
            assert_int_equal(e->pid, -1);
            assert_true(e->cpu >= 0);
            assert_true(!e->attr.inherit && !e->attr.exclude_kernel && !e->attr.exclude_hv &&
                        !e->attr.exclude_user);
        }
    }
}

static const struct lc_perf_event *planned(const struct lc_perf_plan *p, const char *name,
                                           const char *pmu, int cpu)
{
    for (size_t i = 0; i < p->nev; i++)
        if (strcmp(p->ev[i].name, name) == 0 && strcmp(p->ev[i].pmu, pmu) == 0 &&
            p->ev[i].cpu == cpu)
            return &p->ev[i];
    fail_msg("%s on %s cpu %d was not planned", name, pmu, cpu);
    return NULL;
}

static void test_plan_skx(void **state)
{
    (void)state;
    static const struct want w[] = {
        { "UNC_UPI_TxL_BASIC_HDR_MATCH.REQ", 0x0804 }, { "UNC_UPI_RxL_BASIC_HDR_MATCH.REQ", 0x0805 },
        { "UNC_UPI_TxL_BASIC_HDR_MATCH.SNP", 0x0904 }, { "UNC_UPI_RxL_BASIC_HDR_MATCH.SNP", 0x0905 },
        { "UNC_UPI_TxL_BASIC_HDR_MATCH.RSP_NODATA", 0x0a04 },
        { "UNC_UPI_RxL_BASIC_HDR_MATCH.RSP_NODATA", 0x0a05 },
        { "UNC_UPI_TxL_BASIC_HDR_MATCH.RSP_DATA", 0x0c04 },
        { "UNC_UPI_RxL_BASIC_HDR_MATCH.RSP_DATA", 0x0c05 },
        { "UNC_UPI_TxL_BASIC_HDR_MATCH.WB", 0x0d04 }, { "UNC_UPI_RxL_BASIC_HDR_MATCH.WB", 0x0d05 },
        { "UNC_UPI_TxL_FLITS.ALL_DATA", 0x0f02 }, { "UNC_UPI_RxL_FLITS.ALL_DATA", 0x0f03 },
    };
    static const struct want core[] = {
        { "MEM_LOAD_L3_MISS_RETIRED.LOCAL_DRAM", 0x01d3 },
        { "MEM_LOAD_L3_MISS_RETIRED.REMOTE_DRAM", 0x02d3 },
        { "MEM_LOAD_L3_MISS_RETIRED.REMOTE_HITM", 0x04d3 },
        { "MEM_LOAD_L3_MISS_RETIRED.REMOTE_FWD", 0x08d3 },
    };
    struct lc_counters *c = calloc(1, sizeof *c);
    struct lc_perf_plan plan;
    char sys[PATH_MAX], proc[PATH_MAX];
    assert_non_null(c);
    plan_machine("skx-2s", "skx", c, &plan, sys, proc);

    assert_int_equal(plan.nsockets, 2);
    assert_true(plan.sockets[0] == 0 && plan.sockets[1] == 1);
    /* 12 link events x 3 UPI boxes x 2 sockets, and 4 per-thread proxies */
    assert_int_equal(plan.nev, 12 * 3 * 2 + 4);
    static const char *const box[] = { "uncore_upi_0", "uncore_upi_1", "uncore_upi_2" };
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        for (int b = 0; b < 3; b++)
            for (int s = 0; s < 2; s++) {
                const struct lc_perf_event *e = planned(&plan, w[i].name, box[b], s ? 28 : 0);
                assert_int_equal(e->attr.type, 24 + b);
                if (e->attr.config != w[i].config)
                    fail_msg("%s: config 0x%llx, expected 0x%llx", w[i].name,
                             (unsigned long long)e->attr.config, (unsigned long long)w[i].config);
                assert_true(e->attr.config1 == 0 && e->attr.config2 == 0);
                assert_int_equal(e->slot, s);
                assert_int_equal(e->dir, strstr(w[i].name, "_Tx") ? LC_TX : LC_RX);
            }
    for (size_t i = 0; i < sizeof core / sizeof core[0]; i++)
        assert_true(planned(&plan, core[i].name, "cpu", -1)->attr.config == core[i].config);
    const struct lc_perf_event *f = planned(&plan, "UNC_UPI_TxL_FLITS.ALL_DATA", "uncore_upi_0", 0);
    assert_true(fabs(f->scale - 64.0 / 9.0) < 1e-12);

    /* the class map: every class counted, HRSP and NDR merged */
    for (int k = 0; k < LOCUS_COUNTER_NCLASSES; k++)
        assert_int_not_equal(c->cls[k].kind, LOCUS_COUNTER_UNAVAILABLE);
    assert_int_equal(c->cls[LOCUS_COUNTER_DTC].kind, LOCUS_COUNTER_EXACT);
    assert_int_equal(c->cls[LOCUS_COUNTER_HRSP].kind, LOCUS_COUNTER_MERGED);
    assert_int_equal(c->cls[LOCUS_COUNTER_NDR].merged,
                     1u << LOCUS_COUNTER_HRSP | 1u << LOCUS_COUNTER_NDR);
    assert_int_equal(c->cls[LOCUS_COUNTER_LINK_BYTES].kind, LOCUS_COUNTER_FLITS);
    assert_string_equal(c->cls[LOCUS_COUNTER_LINK_BYTES].unit, "bytes");
    assert_int_equal(c->cls[LOCUS_COUNTER_REMOTE_DRAM].kind, LOCUS_COUNTER_PROXY);
    assert_true(c->cls[LOCUS_COUNTER_REMOTE_DRAM].process);
    assert_int_equal(c->cls[LOCUS_COUNTER_REMOTE_DRAM].dirs, LOCUS_COUNTER_HAS_RX);
    assert_int_equal(c->cls[LOCUS_COUNTER_SNP].dirs, LOCUS_COUNTER_HAS_TX | LOCUS_COUNTER_HAS_RX);
    assert_non_null(strstr(c->cls[LOCUS_COUNTER_HREQ].source, "UNC_UPI_TxL_BASIC_HDR_MATCH.REQ"));
    assert_non_null(strstr(c->cls[LOCUS_COUNTER_REMOTE_CACHE].source, "REMOTE_FWD"));
    lc_perf_plan_free(&plan);
    free(c);
}

static void test_plan_hswep(void **state)
{
    (void)state;
    static const struct want w[] = {
        { "UNC_Q_TxL_FLITS_G1.HOM_REQ", 0x200200 }, { "UNC_Q_RxL_FLITS_G1.HOM_REQ", 0x200202 },
        { "UNC_Q_TxL_FLITS_G1.SNP", 0x200100 }, { "UNC_Q_RxL_FLITS_G1.SNP", 0x200102 },
        { "UNC_Q_TxL_FLITS_G1.HOM_NONREQ", 0x200400 }, { "UNC_Q_RxL_FLITS_G1.HOM_NONREQ", 0x200402 },
        { "UNC_Q_TxL_FLITS_G2.NDR_AD", 0x200101 }, { "UNC_Q_TxL_FLITS_G2.NDR_AK", 0x200201 },
        { "UNC_Q_RxL_FLITS_G2.NDR_AD", 0x200103 }, { "UNC_Q_RxL_FLITS_G2.NDR_AK", 0x200203 },
        { "UNC_Q_TxL_FLITS_G1.DRS_DATA", 0x200800 }, { "UNC_Q_RxL_FLITS_G1.DRS_DATA", 0x200802 },
        { "UNC_Q_TxL_FLITS_G0.DATA", 0x0200 }, { "UNC_Q_RxL_FLITS_G0.DATA", 0x0201 },
    };
    struct lc_counters *c = calloc(1, sizeof *c);
    struct lc_perf_plan plan;
    char sys[PATH_MAX], proc[PATH_MAX];
    assert_non_null(c);
    plan_machine("hswep", "hswep", c, &plan, sys, proc);
    assert_int_equal(plan.nsockets, 2);
    assert_int_equal(plan.nev, 14 * 2 * 2 + 4);
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        for (int b = 0; b < 2; b++)
            for (int s = 0; s < 2; s++) {
                const struct lc_perf_event *e =
                    planned(&plan, w[i].name, b ? "uncore_qpi_1" : "uncore_qpi_0", s ? 18 : 0);
                assert_int_equal(e->attr.type, 18 + b);
                if (e->attr.config != w[i].config)
                    fail_msg("%s: config 0x%llx, expected 0x%llx", w[i].name,
                             (unsigned long long)e->attr.config, (unsigned long long)w[i].config);
            }
    assert_true(planned(&plan, "MEM_LOAD_UOPS_L3_MISS_RETIRED.REMOTE_DRAM", "cpu", -1)->attr.config
                == 0x04d3);
    assert_true(fabs(planned(&plan, "UNC_Q_TxL_FLITS_G0.DATA", "uncore_qpi_0", 0)->scale - 8.0)
                < 1e-12);
    /* DTC and DWB share the DRS channel; control classes count flits */
    assert_int_equal(c->cls[LOCUS_COUNTER_DWB].kind, LOCUS_COUNTER_MERGED);
    assert_int_equal(c->cls[LOCUS_COUNTER_DTC].merged,
                     1u << LOCUS_COUNTER_DTC | 1u << LOCUS_COUNTER_DWB);
    assert_int_equal(c->cls[LOCUS_COUNTER_HREQ].kind, LOCUS_COUNTER_FLITS);
    assert_string_equal(c->cls[LOCUS_COUNTER_NDR].unit, "flits");
    assert_string_equal(c->cls[LOCUS_COUNTER_DTC].unit, "bytes");
    lc_perf_plan_free(&plan);
    free(c);
}

static void test_plan_zen(void **state)
{
    (void)state;
    struct lc_counters *c = calloc(1, sizeof *c);
    struct lc_perf_plan plan;
    char sys[PATH_MAX], proc[PATH_MAX];
    assert_non_null(c);
    plan_machine("zen5-2s", "zen5", c, &plan, sys, proc);
    assert_int_equal(plan.nsockets, 2);
    assert_true(plan.sockets[0] == 0 && plan.sockets[1] == 1);
    assert_int_equal(plan.nev, 32 * 2 + 3);
    const struct lc_perf_event *e = planned(&plan, "remote_socket_inbound_data_beats_cfi_0",
                                            "amd_df", 128);
    assert_int_equal(e->attr.type, 11);
    assert_true(e->attr.config == 0x40b00fe1eull);
    assert_int_equal(e->slot, 1);
    assert_int_equal(e->dir, LC_RX);
    assert_true(fabs(e->scale - 32.0) < 1e-12);
    e = planned(&plan, "remote_socket_outbound_data_beats_cfi_0", "amd_df", 0);
    assert_true(e->attr.config == 0x40b00ff1eull);
    assert_true(fabs(e->scale - 64.0) < 1e-12);
    assert_true(planned(&plan, "remote_socket_inbound_data_beats_cfi_8", "amd_df", 0)->attr.config
                == 0x40b00fe1full);
    assert_true(planned(&plan, "remote_socket_outbound_data_beats_cfi_15", "amd_df", 0)->attr.config
                == 0x50b00ffdfull);
    assert_true(planned(&plan, "ls_any_fills_from_sys.dram_io_far", "cpu", -1)->attr.config == 0x4044);
    assert_true(planned(&plan, "ls_any_fills_from_sys.far_cache", "cpu", -1)->attr.config == 0x1044);
    /* no message classes on the data fabric: said, not zero */
    for (int k = LOCUS_COUNTER_DTC; k <= LOCUS_COUNTER_NDR; k++) {
        assert_int_equal(c->cls[k].kind, LOCUS_COUNTER_UNAVAILABLE);
        assert_non_null(strstr(c->cls[k].reason, "data fabric"));
    }
    assert_int_equal(c->cls[LOCUS_COUNTER_LINK_BYTES].kind, LOCUS_COUNTER_FLITS);
    assert_non_null(strstr(c->cls[LOCUS_COUNTER_LINK_BYTES].source, "+ 14 more"));
    lc_perf_plan_free(&plan);
    free(c);
}

/* ---- every machine path, on every host ------------------------------------------ */

/* What a class comes out as: counted, or unavailable with words in its reason. */
enum { CNT = 1, NA = 2 };
struct cls_want {
    int state;
    const char *words;      /* NA: a substring of the reason */
};

struct machine_want {
    const char *dir;        /* under tests/fixtures/sysfs */
    const char *vendor;
    int family, model, hypervisor, cpu_pmu, uncore;
    const char *table;      /* lc_ctr_table_for, or NULL */
    /* "perf" where auto would try PAPI, which probes the real host */
    const char *backend;
    const char *opened_as;  /* the backend that counts, or NULL when open fails */
    int nsockets;
    struct cls_want link, bytes, proxy;   /* DTC..NDR, LINK_BYTES, the proxies */
};

#define VM_UNCORE LC_CTR_VM ": no uncore PMU"
#define VM_CORE LC_CTR_VM ": no core PMU (software events only)"

static const struct machine_want machines[] = {
    { "skx-2s", "GenuineIntel", 6, 0x55, 0, 1, 1, "skx", "auto", "perf", 2,
      { CNT, NULL }, { CNT, NULL }, { CNT, NULL } },
    { "icx-2s", "GenuineIntel", 6, 0x6a, 0, 1, 1, "icx", "auto", "perf", 2,
      { CNT, NULL }, { CNT, NULL }, { CNT, NULL } },
    { "spr-2s", "GenuineIntel", 6, 0x8f, 0, 1, 1, "spr", "auto", "perf", 2,
      { NA, "no UPI header-match event" }, { CNT, NULL }, { CNT, NULL } },
    { "gnr-2s", "GenuineIntel", 6, 0xad, 0, 1, 1, NULL, "perf", NULL, 0,
      { NA, "no event table for GenuineIntel family 0x6 model 0xad" },
      { NA, "no event table" }, { NA, "no event table" } },
    { "hswep", "GenuineIntel", 6, 0x3f, 0, 1, 1, "hswep", "auto", "perf", 2,
      { CNT, NULL }, { CNT, NULL }, { CNT, NULL } },
    { "zen2-2s", "AuthenticAMD", 0x17, 0x31, 0, 1, 1, "zen2", "auto", "perf", 0,
      { NA, "no remote-socket data fabric event" }, { NA, "Zen 2/3/4" }, { CNT, NULL } },
    { "zen3-2s", "AuthenticAMD", 0x19, 0x01, 0, 1, 1, "zen3", "auto", "perf", 0,
      { NA, "no remote-socket data fabric event" }, { NA, "Zen 2/3/4" }, { CNT, NULL } },
    { "zen4-2s", "AuthenticAMD", 0x19, 0x11, 0, 1, 1, "zen4", "auto", "perf", 0,
      { NA, "no remote-socket data fabric event" }, { NA, "Zen 2/3/4" }, { CNT, NULL } },
    { "zen5-2s", "AuthenticAMD", 0x1a, 0x02, 0, 1, 1, "zen5", "auto", "perf", 2,
      { NA, "data fabric counts data beats" }, { CNT, NULL }, { CNT, NULL } },
    /* the KVM guest this issue was found on, recorded */
    { "zen4-kvm", "AuthenticAMD", 0x19, 0x11, 1, 0, 0, "zen4", "auto", "none", 0,
      { NA, "no remote-socket data fabric event" }, { NA, "Zen 2/3/4" }, { NA, VM_CORE } },
    { "skx-kvm", "GenuineIntel", 6, 0x55, 1, 0, 0, "skx", "auto", "none", 0,
      { NA, VM_UNCORE }, { NA, VM_UNCORE }, { NA, VM_CORE } },
    { "icx-kvm-vpmu", "GenuineIntel", 6, 0x6a, 1, 1, 0, "icx", "auto", "perf", 0,
      { NA, VM_UNCORE }, { NA, VM_UNCORE }, { CNT, NULL } },
    { "noperf", "GenuineIntel", 6, 0x55, 0, 0, 0, "skx", "auto", "none", 0,
      { NA, "no perf_event support" }, { NA, "no perf_event support" },
      { NA, "no perf_event support" } },
};

static void check_class(const struct machine_want *w, const locus_counters_t *out, int k,
                        const struct cls_want *cw)
{
    const locus_counter_value_t *v = &out->cls[k];
    if (cw->state == CNT) {
        if (v->kind == LOCUS_COUNTER_UNAVAILABLE)
            fail_msg("%s: class %s unavailable: %s", w->dir, locus_counter_class_name(k),
                     v->reason);
        if (v->tx == 0 && v->rx == 0)
            fail_msg("%s: class %s counted nothing", w->dir, locus_counter_class_name(k));
    } else {
        if (v->kind != LOCUS_COUNTER_UNAVAILABLE)
            fail_msg("%s: class %s counted", w->dir, locus_counter_class_name(k));
        want_in(w->dir, k, v->reason, cw->words);
    }
}

static void test_machines(void **state)
{
    (void)state;
    char sys[PATH_MAX], proc[PATH_MAX], err[LC_CTR_ERR_MAX];

    for (size_t i = 0; i < sizeof machines / sizeof machines[0]; i++) {
        const struct machine_want *w = &machines[i];
        struct lc_ctr_env env;
        struct lc_ctr_machine m;
        print_message("%s\n", w->dir);
        fixture(&env, w->dir, sys, proc);
        fake_env(&env);
        lc_ctr_detect(&env, &m);
        assert_string_equal(m.vendor, w->vendor);
        assert_int_equal(m.family, w->family);
        assert_int_equal(m.model, w->model);
        assert_int_equal(m.hypervisor, w->hypervisor);
        assert_int_equal(m.cpu_pmu, w->cpu_pmu);
        assert_int_equal(m.uncore_pmus > 0, w->uncore);
        const struct lc_ctr_table *t = lc_ctr_table_for(&m, NULL, 0);
        if (w->table == NULL)
            assert_null(t);
        else
            assert_string_equal(t ? t->name : "(none)", w->table);

        struct lc_counters *c;
        int r = lc_counters_open(w->backend, &env, &c, err, sizeof err);
        if (w->opened_as == NULL) {
            /* an explicit backend that counts nothing: the reason in err */
            assert_int_equal(r, -ENODEV);
            want_in(w->dir, 0, err, w->link.words);
            continue;
        }
        if (r != 0)
            fail_msg("%s: %s did not open: %s", w->dir, w->backend, err);
        assert_int_equal(c->nsockets, w->nsockets);
        locus_counters_t out;
        assert_int_equal(lc_counters_start(c), 0);
        tick(&fk);
        assert_int_equal(lc_counters_stop(c), 0);
        assert_int_equal(lc_counters_read(c, -1, &out), 0);
        assert_string_equal(out.backend, w->opened_as);
        for (int k = LOCUS_COUNTER_DTC; k <= LOCUS_COUNTER_NDR; k++)
            check_class(w, &out, k, &w->link);
        check_class(w, &out, LOCUS_COUNTER_LINK_BYTES, &w->bytes);
        for (int k = LOCUS_COUNTER_LOCAL_DRAM; k < LOCUS_COUNTER_NCLASSES; k++)
            check_class(w, &out, k, &w->proxy);
        check_reasons(w->dir, &m, &out);
        lc_counters_close(c);
        assert_int_equal(fk.closes, fk.opens);
    }
}

static void test_tables(void **state)
{
    (void)state;
    struct lc_ctr_machine m;
    char why[LC_CTR_REASON_MAX];
    static const struct {
        const char *vendor;
        int family, model;
        const char *table;
    } cases[] = {
        { "GenuineIntel", 6, 0x55, "skx" }, { "GenuineIntel", 6, 0x6a, "icx" },
        { "GenuineIntel", 6, 0x3f, "hswep" }, { "GenuineIntel", 6, 0x4f, "hswep" },
        { "GenuineIntel", 6, 0x8f, "spr" }, { "GenuineIntel", 6, 0xcf, "spr" },
        { "GenuineIntel", 6, 0xad, NULL },
        { "AuthenticAMD", 0x1a, 0x02, "zen5" }, { "AuthenticAMD", 0x19, 0x11, "zen4" },
        { "AuthenticAMD", 0x19, 0x61, "zen4" }, { "AuthenticAMD", 0x19, 0xa0, "zen4" },
        { "AuthenticAMD", 0x19, 0x01, "zen3" }, { "AuthenticAMD", 0x19, 0x21, "zen3" },
        { "AuthenticAMD", 0x19, 0x50, "zen3" }, { "AuthenticAMD", 0x17, 0x31, "zen2" },
        { "AuthenticAMD", 0x17, 0x71, "zen2" }, { "AuthenticAMD", 0x17, 0x01, NULL },
        { "HygonGenuine", 0x18, 0x01, NULL }, { "GenuineIntel", 6, 0x99, NULL },
        { "", -1, -1, NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memset(&m, 0, sizeof m);
        snprintf(m.vendor, sizeof m.vendor, "%s", cases[i].vendor);
        m.family = cases[i].family;
        m.model = cases[i].model;
        why[0] = '\0';
        const struct lc_ctr_table *t = lc_ctr_table_for(&m, why, sizeof why);
        if (cases[i].table == NULL) {
            assert_null(t);
            assert_true(why[0] != '\0');
        } else {
            assert_non_null(t);
            assert_string_equal(t->name, cases[i].table);
        }
    }
    memset(&m, 0, sizeof m);
    snprintf(m.vendor, sizeof m.vendor, "GenuineIntel");
    m.family = 6;
    m.model = 0x99;
    lc_ctr_table_for(&m, why, sizeof why);
    assert_non_null(strstr(why, "no event table for GenuineIntel family 0x6 model 0x99"));

    /* every table: every class either mapped to events or unavailable with a note */
    for (int i = 0; lc_ctr_tables[i] != NULL; i++) {
        const struct lc_ctr_table *t = lc_ctr_tables[i];
        for (int k = 0; k < LOCUS_COUNTER_NCLASSES; k++) {
            unsigned fed = 0;
            for (size_t e = 0; e < t->nev; e++)
                fed |= t->ev[e].classes;
            assert_true(t->cls[k].note != NULL && t->cls[k].note[0] != '\0');
            if (t->cls[k].kind == LOCUS_COUNTER_UNAVAILABLE)
                assert_false(fed & (1u << k));
            else
                assert_true(fed & (1u << k));
        }
        assert_ptr_equal(lc_ctr_table_find(t->name), t);
    }
    assert_null(lc_ctr_table_find("nosuch"));
}

/* ---- blocked machines ------------------------------------------------------------ */

static void open_perf(struct lc_ctr_env *env, struct lc_counters **c)
{
    char err[LC_CTR_ERR_MAX];
    int r = lc_counters_open("perf", env, c, err, sizeof err);
    if (r != 0)
        fail_msg("perf did not open: %s", err);
}

static void test_blocked(void **state)
{
    (void)state;
    struct lc_ctr_env env;
    struct lc_counters *c;
    char sys[PATH_MAX], proc[PATH_MAX], p2[PATH_MAX], err[LC_CTR_ERR_MAX];

    /* perf_event_paranoid=2, no capability: uncore refused, per-thread fine */
    fixture(&env, "skx-2s", sys, proc);
    fake_env(&env);
    make_procfs(p2, "paranoid2", "GenuineIntel", 6, 85, 0, 2, "0000000000000000");
    env.procfs = p2;
    open_perf(&env, &c);
    for (int k = 0; k <= LOCUS_COUNTER_LINK_BYTES; k++) {
        assert_int_equal(c->cls[k].kind, LOCUS_COUNTER_UNAVAILABLE);
        assert_string_equal(c->cls[k].reason, "perf_event_paranoid=2: needs <= 0 or CAP_PERFMON");
    }
    for (int k = LOCUS_COUNTER_LOCAL_DRAM; k < LOCUS_COUNTER_NCLASSES; k++)
        assert_int_equal(c->cls[k].kind, LOCUS_COUNTER_PROXY);
    assert_int_equal(fk.opens, 4); /* only the per-thread events were tried */
    lc_counters_close(c);
    assert_int_equal(fk.closes, 4);

    /* CAP_PERFMON (bit 38) lifts it */
    make_procfs(p2, "perfmon", "GenuineIntel", 6, 85, 0, 3, "0000004000000000");
    env.procfs = p2;
    fake_env(&env);
    open_perf(&env, &c);
    assert_int_equal(lc_ctr_navailable(c), LOCUS_COUNTER_NCLASSES);
    assert_int_equal(fk.opens, 12 * 3 * 2 + 4);
    lc_counters_close(c);
    assert_int_equal(fk.closes, fk.opens);

    /* Debian's perf_event_paranoid=3: nothing for an unprivileged user */
    make_procfs(p2, "paranoid3", "GenuineIntel", 6, 85, 0, 3, "0000000000000000");
    env.procfs = p2;
    fake_env(&env);
    assert_int_equal(lc_counters_open("perf", &env, &c, err, sizeof err), -ENODEV);
    assert_non_null(strstr(err, "perf_event_paranoid=3: needs <= 0 or CAP_PERFMON"));
    assert_non_null(strstr(err, "perf_event_paranoid=3: per-thread events need <= 2"));
    assert_int_equal(fk.opens, 0);

    /* a VM of a CPU without a table (Zen 1): only software PMUs, hypervisor flag */
    char vmsys[2048], path[PATH_MAX];
    snprintf(vmsys, sizeof vmsys, "%s/vm-sys", tmpdir);
    snprintf(path, sizeof path, "%s/bus/event_source/devices/software/type", vmsys);
    write_file(path, "1\n");
    snprintf(path, sizeof path, "%s/bus/event_source/devices/msr/type", vmsys);
    write_file(path, "9\n");
    make_procfs(p2, "vm", "AuthenticAMD", 0x17, 1, 1, 2, "000001ffffffffff");
    env.sysfs = vmsys;
    env.procfs = p2;
    fake_env(&env);
    assert_int_equal(lc_counters_open("perf", &env, &c, err, sizeof err), -ENODEV);
    /* both PMUs missing: the VM named once, its effects after it */
    assert_non_null(strstr(err, LC_CTR_VM ": no uncore PMU, no core PMU (software events only)"));
    assert_int_equal(count_str(err, LC_CTR_VM), 1);
    assert_int_equal(lc_counters_open("auto", &env, &c, err, sizeof err), 0);
    locus_counters_t out;
    lc_counters_start(c);
    assert_int_equal(lc_counters_read(c, -1, &out), 0);
    assert_string_equal(out.backend, "none");
    for (int k = 0; k < LOCUS_COUNTER_NCLASSES; k++) {
        assert_int_equal(out.cls[k].kind, LOCUS_COUNTER_UNAVAILABLE);
        assert_non_null(strstr(out.cls[k].reason, LC_CTR_VM));
        assert_true(out.cls[k].tx == 0 && out.cls[k].rx == 0 && out.cls[k].flags == 0);
    }
    assert_int_equal(lc_counters_read(c, 0, &out), -EINVAL); /* no sockets */
    lc_counters_close(c);

    /* no perf_event at all */
    make_procfs(p2, "noperf", "GenuineIntel", 6, 85, 0, LC_PARANOID_NONE, "0");
    env.sysfs = sys;
    env.procfs = p2;
    assert_int_equal(lc_counters_open("perf", &env, &c, err, sizeof err), -ENODEV);
    assert_non_null(strstr(err, "no perf_event support"));

    /* an unknown CPU with uncore PMUs */
    make_procfs(p2, "unknown", "GenuineIntel", 6, 0x99, 0, 0, "0");
    env.procfs = p2;
    assert_int_equal(lc_counters_open("perf", &env, &c, err, sizeof err), -ENODEV);
    assert_non_null(strstr(err, "no event table for GenuineIntel family 0x6 model 0x99"));
}

static void test_errno_reasons(void **state)
{
    (void)state;
    struct lc_ctr_machine m = { .paranoid = 2 };
    char buf[LC_CTR_REASON_MAX];
    static const struct {
        int err;
        const char *want;
    } cases[] = {
        { EACCES, "perf_event_paranoid=2: needs <= 0 or CAP_PERFMON" },
        { EPERM, "permission denied" },
        { ENOENT, "no such PMU or event" },
        { ENODEV, "unknown CPU model" },
        { EINVAL, "encoding or CPU (EINVAL)" },
        { ENXIO, "typical in a VM" },
        { EBUSY, "in use by another user" },
        { EMFILE, "ulimit -n" },
        { ENFILE, "too many open files" },
        { EOPNOTSUPP, "exclude bits" },
        { ENOSYS, "ENOSYS" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lc_ctr_errno_reason(cases[i].err, &m, "X.Y on uncore_upi_0 cpu 28", buf, sizeof buf);
        if (strstr(buf, cases[i].want) == NULL)
            fail_msg("errno %d: '%s' lacks '%s'", cases[i].err, buf, cases[i].want);
        assert_int_equal(strncmp(buf, "X.Y on uncore_upi_0 cpu 28: ", 28), 0);
        lc_ctr_errno_reason(-cases[i].err, &m, NULL, buf, sizeof buf); /* negative too */
        assert_non_null(strstr(buf, cases[i].want));
    }
    m.privileged = 1;
    lc_ctr_errno_reason(EACCES, &m, "", buf, sizeof buf);
    assert_non_null(strstr(buf, "CAP_PERFMON"));
    assert_null(strstr(buf, "paranoid=2"));
    lc_ctr_errno_reason(12345, NULL, "e", buf, sizeof buf);
    assert_non_null(strstr(buf, "errno 12345"));
    char tiny[8];
    lc_ctr_errno_reason(EBUSY, &m, "a long event name", tiny, sizeof tiny);
    assert_true(strlen(tiny) < sizeof tiny);

    /* through open: the refused event's classes say so, the rest count */
    struct lc_ctr_env env;
    struct lc_counters *c;
    char sys[PATH_MAX], proc[PATH_MAX];
    fixture(&env, "skx-2s", sys, proc);
    fake_env(&env);
    fk.fail_config = 0x0c05; /* RxL RSP_DATA */
    fk.fail_cpu = 28;
    fk.fail_errno = EBUSY;
    open_perf(&env, &c);
    assert_int_equal(c->cls[LOCUS_COUNTER_DTC].kind, LOCUS_COUNTER_UNAVAILABLE);
    assert_non_null(strstr(c->cls[LOCUS_COUNTER_DTC].reason,
                           "UNC_UPI_RxL_BASIC_HDR_MATCH.RSP_DATA on uncore_upi_0 cpu 28: "
                           "the counter is in use by another user (EBUSY)"));
    assert_int_equal(lc_ctr_navailable(c), LOCUS_COUNTER_NCLASSES - 1);
    lc_counters_close(c);
    assert_int_equal(fk.closes, fk.opens);

    fake_env(&env);
    fk.fail_config = 0x02d3; /* REMOTE_DRAM, per thread */
    fk.fail_errno = EACCES;
    open_perf(&env, &c);
    assert_int_equal(c->cls[LOCUS_COUNTER_REMOTE_DRAM].kind, LOCUS_COUNTER_UNAVAILABLE);
    assert_non_null(strstr(c->cls[LOCUS_COUNTER_REMOTE_DRAM].reason,
                           "MEM_LOAD_L3_MISS_RETIRED.REMOTE_DRAM: permission denied"));
    lc_counters_close(c);
}

/* ---- counting through the fake ------------------------------------------------------ */

static void test_counting(void **state)
{
    (void)state;
    struct lc_ctr_env env;
    struct lc_counters *c;
    char sys[PATH_MAX], proc[PATH_MAX];
    locus_counters_t out, s0, s1;

    fixture(&env, "skx-2s", sys, proc);
    fake_env(&env);
    open_perf(&env, &c);
    assert_int_equal(c->nsockets, 2);
    /* REMOTE_DRAM multiplexed (half the time), one UPI box's Rx WB on socket 1
     * never scheduled, REMOTE_HITM counts 3 a tick */
    fk.half[fake_find(0x02d3, -1)] = 1;
    fk.never[fake_find(0x0d05, 28)] = 1;
    fk.step[fake_find(0x04d3, -1)] = 3;

    /* before any start: nothing counted yet, but still "available" */
    assert_int_equal(lc_counters_read(c, -1, &out), 0);
    assert_int_equal(out.counting, 0);
    assert_true(out.cls[LOCUS_COUNTER_HREQ].tx == 0);

    tick(&fk); /* before the start: not counted */
    assert_int_equal(lc_counters_start(c), 0);
    tick(&fk);
    tick(&fk);
    /* live read while counting */
    assert_int_equal(lc_counters_read(c, -1, &out), 0);
    assert_int_equal(out.counting, 1);
    assert_true(out.cls[LOCUS_COUNTER_HREQ].tx == 2 * 10 * 3 * 2);
    assert_int_equal(lc_counters_stop(c), 0);
    tick(&fk); /* after the stop: not counted */

    assert_int_equal(lc_counters_read(c, -1, &out), 0);
    assert_int_equal(out.counting, 0);
    assert_string_equal(out.backend, "perf");
    assert_string_equal(out.table, "skx: Skylake-SP/Cascade Lake (UPI)");
    assert_int_equal(out.sockets, 2);
    assert_true(out.seconds >= 0);
    /* 2 ticks x 10 x 3 boxes x 2 sockets, each direction */
    const locus_counter_value_t *v = &out.cls[LOCUS_COUNTER_HREQ];
    assert_int_equal(v->kind, LOCUS_COUNTER_EXACT);
    assert_true(v->tx == 120 && v->rx == 120);
    assert_int_equal(v->flags, LOCUS_COUNTER_HAS_TX | LOCUS_COUNTER_HAS_RX);
    assert_string_equal(v->unit, "messages");
    /* merged: both classes carry the one count */
    assert_true(out.cls[LOCUS_COUNTER_HRSP].tx == 120 && out.cls[LOCUS_COUNTER_NDR].tx == 120);
    assert_int_equal(out.cls[LOCUS_COUNTER_NDR].kind, LOCUS_COUNTER_MERGED);
    /* flits: 120 x 64/9 = 853.3 bytes */
    assert_true(out.cls[LOCUS_COUNTER_LINK_BYTES].tx == 853);
    /* a never-scheduled event: the class is unavailable, never 0 */
    assert_int_equal(out.cls[LOCUS_COUNTER_DWB].kind, LOCUS_COUNTER_UNAVAILABLE);
    assert_non_null(strstr(out.cls[LOCUS_COUNTER_DWB].reason, "never got a hardware counter"));
    assert_true(out.cls[LOCUS_COUNTER_DWB].tx == 0 && out.cls[LOCUS_COUNTER_DWB].flags == 0);
    /* proxies: process-wide, rx only; multiplexed ones scaled back and marked */
    v = &out.cls[LOCUS_COUNTER_REMOTE_DRAM];
    assert_int_equal(v->kind, LOCUS_COUNTER_PROXY);
    assert_true(v->rx == 20 && v->tx == 0);
    assert_int_equal(v->flags, LOCUS_COUNTER_HAS_RX | LOCUS_COUNTER_SCALED);
    assert_true(out.cls[LOCUS_COUNTER_LOCAL_DRAM].rx == 20);
    assert_int_equal(out.cls[LOCUS_COUNTER_LOCAL_DRAM].flags, LOCUS_COUNTER_HAS_RX);
    assert_true(out.cls[LOCUS_COUNTER_REMOTE_CACHE].rx == 2 * 3 + 2 * 10); /* HITM + FWD */

    /* per socket */
    assert_int_equal(lc_counters_read(c, 0, &s0), 0);
    assert_int_equal(lc_counters_read(c, 1, &s1), 0);
    assert_true(s0.cls[LOCUS_COUNTER_SNP].tx == 60 && s1.cls[LOCUS_COUNTER_SNP].rx == 60);
    assert_int_equal(s0.cls[LOCUS_COUNTER_DWB].kind, LOCUS_COUNTER_EXACT); /* socket 0 is fine */
    assert_int_equal(s1.cls[LOCUS_COUNTER_DWB].kind, LOCUS_COUNTER_UNAVAILABLE);
    assert_int_equal(s0.cls[LOCUS_COUNTER_REMOTE_DRAM].kind, LOCUS_COUNTER_UNAVAILABLE);
    assert_non_null(strstr(s0.cls[LOCUS_COUNTER_REMOTE_DRAM].reason, "not per socket"));
    assert_int_equal(lc_counters_read(c, 2, &s0), -EINVAL);
    assert_int_equal(lc_counters_read(c, -2, &s0), -EINVAL);

    /* a second phase starts from its own baseline; stop twice is fine */
    assert_int_equal(lc_counters_start(c), 0);
    tick(&fk);
    assert_int_equal(lc_counters_stop(c), 0);
    assert_int_equal(lc_counters_stop(c), 0);
    assert_int_equal(lc_counters_read(c, -1, &out), 0);
    assert_true(out.cls[LOCUS_COUNTER_HREQ].tx == 60);
    lc_counters_close(c);
    assert_int_equal(fk.closes, fk.opens);
}

/* ---- the public API and locus_init ------------------------------------------------- */

static void body(void *arg)
{
    volatile double *x = arg;
    *x += 1.0;
}

/* locus_init() with its error message (printed on stderr) kept out of the log. */
static int quiet_init(void)
{
    int saved = dup(STDERR_FILENO), devnull = open("/dev/null", O_WRONLY);
    assert_true(saved >= 0 && devnull >= 0);
    fflush(stderr);
    dup2(devnull, STDERR_FILENO);
    int r = locus_init();
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    close(devnull);
    return r;
}

static void test_runtime_api(void **state)
{
    (void)state;
    locus_counters_t c;
    char err[LC_CTR_ERR_MAX];

    unsetenv("LOCUS_COUNTERS");
    assert_int_equal(locus_counters_start(), -EPERM);
    assert_int_equal(locus_counters_stop(), -EPERM);
    assert_int_equal(locus_get_counters(&c, sizeof c), -EPERM);
    assert_int_equal(locus_get_socket_counters(0, &c, sizeof c), -EPERM);
    assert_string_equal(locus_counter_class_name(LOCUS_COUNTER_HRSP), "HRSP");
    assert_string_equal(locus_counter_class_name(LOCUS_COUNTER_REMOTE_CACHE), "REMOTE_CACHE");
    assert_string_equal(locus_counter_class_name(99), "?");
    assert_string_equal(locus_counter_kind_name(LOCUS_COUNTER_MERGED), "merged");
    assert_string_equal(locus_counter_kind_name(-1), "?");

    /* auto: init succeeds whatever the machine can count */
    assert_int_equal(locus_init(), 0);
    assert_int_equal(locus_get_counters(NULL, sizeof c), -EINVAL);
    assert_int_equal(locus_get_counters(&c, 0), -EINVAL);
    assert_int_equal(locus_get_counters(&c, sizeof c), 0);
    assert_string_equal(c.requested, "auto");
    assert_int_equal(c.counting, 1);
    assert_int_equal(c.phase, 0);
    check_classes(&c);
    assert_int_equal(locus_get_socket_counters(-1, &c, sizeof c), -EINVAL);
    assert_int_equal(locus_get_socket_counters(c.sockets, &c, sizeof c), -EINVAL);
    assert_non_null(strstr(locus_error_message(), "socket"));

    double x[64] = { 0 };
    assert_int_equal(locus_counters_start(), 0);
    for (int i = 0; i < 64; i++)
        assert_int_equal(locus_task(body, &x[i], 0, LOCUS_INOUT(&x[i], sizeof x[i])), 0);
    assert_int_equal(locus_taskwait(), 0);
    assert_int_equal(locus_counters_stop(), 0);
    assert_int_equal(locus_get_counters(&c, sizeof c), 0);
    assert_int_equal(c.counting, 0);
    assert_int_equal(c.phase, 1);
    check_classes(&c);
    /* an older, shorter struct gets the fields it knows */
    locus_counters_t small;
    memset(&small, 0x5a, sizeof small);
    assert_int_equal(locus_get_counters(&small, offsetof(locus_counters_t, cls)), 0);
    assert_int_equal(small.phase, 1);
    assert_int_equal(small.cls[0].kind, 0x5a5a5a5a);
    for (int s = 0; s < c.sockets; s++) {
        assert_int_equal(locus_get_socket_counters(s, &small, sizeof small), 0);
        check_classes(&small);
    }
    assert_int_equal(locus_finalize(), 0);
    assert_int_equal(locus_get_counters(&c, sizeof c), -EPERM);

    /* none: every class unavailable, saying so */
    setenv("LOCUS_COUNTERS", "none", 1);
    assert_int_equal(locus_init(), 0);
    assert_int_equal(locus_get_counters(&c, sizeof c), 0);
    assert_string_equal(c.backend, "none");
    for (int k = 0; k < LOCUS_COUNTER_NCLASSES; k++)
        assert_non_null(strstr(c.cls[k].reason, "switched off"));
    assert_int_equal(locus_finalize(), 0);

    /* perf asked for by name: init fails where perf counts nothing, with the reason */
    struct lc_counters *probe;
    struct lc_ctr_env env = { 0 };
    int perf_ok = lc_counters_open("perf", &env, &probe, err, sizeof err) == 0;
    if (perf_ok)
        lc_counters_close(probe);
    setenv("LOCUS_COUNTERS", "perf", 1);
    int r = quiet_init();
    if (perf_ok) {
        assert_int_equal(r, 0);
        assert_int_equal(locus_finalize(), 0);
    } else {
        assert_int_equal(r, -EINVAL);
        assert_non_null(strstr(locus_error_message(), "LOCUS_COUNTERS=perf: this machine cannot "
                                                      "count with perf: "));
        print_message("LOCUS_COUNTERS=perf here: %s\n", locus_error_message());
        assert_int_equal(locus_get_counters(&c, sizeof c), -EPERM);
    }
    setenv("LOCUS_COUNTERS", "PeRf ", 1); /* keywords: any case, trimmed */
    r = quiet_init();
    if (r == 0)
        locus_finalize();
    assert_int_equal(r, perf_ok ? 0 : -EINVAL);
    unsetenv("LOCUS_COUNTERS");
    assert_int_equal(locus_init(), 0); /* nothing was left behind */
    assert_int_equal(locus_finalize(), 0);
}

/* The report the runtime writes carries the counters. */
static void test_runtime_report(void **state)
{
    (void)state;
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/run.json", tmpdir);
    setenv("LOCUS_REPORT", path, 1);
    assert_int_equal(locus_init(), 0);
    assert_int_equal(locus_finalize(), 0);
    unsetenv("LOCUS_REPORT");
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *line = NULL;
    size_t cap = 0;
    assert_true(getline(&line, &cap, f) > 0);
    fclose(f);
    assert_non_null(strstr(line, "\"counters\":{\"backend\":"));
    assert_non_null(strstr(line, "\"requested\":\"auto\""));
    assert_non_null(strstr(line, "\"dtc\":{\"kind\":"));
    assert_non_null(strstr(line, "\"per_node\":["));
    /* an unavailable class has null counts and a reason, never a 0 */
    if (strstr(line, "\"kind\":\"unavailable\"") != NULL)
        assert_non_null(strstr(line, "\"kind\":\"unavailable\",\"tx\":null,\"rx\":null,\"reason\":\""));
    free(line);
    unlink(path);
}

/* ---- PAPI software-defined events ---------------------------------------------------- */

#ifdef HAVE_PAPI
static void test_sde(void **state)
{
    (void)state;
    unsetenv("LOCUS_COUNTERS");
    assert_int_equal(locus_init(), 0); /* loads libsde before PAPI starts */
    int v = PAPI_library_init(PAPI_VER_CURRENT);
    if (v != PAPI_VER_CURRENT) {
        locus_finalize();
        print_message("skipped: PAPI_library_init: %s\n", v < 0 ? PAPI_strerror(v) : "version");
        skip();
    }
    int cidx = PAPI_get_component_index("sde");
    const PAPI_component_info_t *info = cidx >= 0 ? PAPI_get_component_info(cidx) : NULL;
    if (info == NULL || info->disabled) {
        print_message("skipped: PAPI's sde component is unavailable: %s\n",
                      info ? info->disabled_reason : "no sde component in this PAPI");
        locus_finalize();
        skip();
    }
    static const char *const names[] = {
        "sde:::locus::TASKS_RUN", "sde:::locus::FIRST_TOUCH_TASKS", "sde:::locus::BYTES_LOCAL",
        "sde:::locus::BYTES_NEAR", "sde:::locus::BYTES_FAR", "sde:::locus::STEALS_LOCAL",
        "sde:::locus::STEALS_NEAR", "sde:::locus::STEALS_FAR", "sde:::locus::TASKS_RUN_NODE0",
    };
    enum { N = sizeof names / sizeof names[0] };
    int es = PAPI_NULL;
    assert_int_equal(PAPI_create_eventset(&es), PAPI_OK);
    for (int i = 0; i < N; i++) {
        int r = PAPI_add_named_event(es, names[i]);
        if (r != PAPI_OK)
            fail_msg("PAPI_add_named_event(%s): %s", names[i], PAPI_strerror(r));
    }
    long long val[N];
    assert_int_equal(PAPI_start(es), PAPI_OK);

    double x[200] = { 0 };
    for (int rep = 0; rep < 3; rep++)
        for (int i = 0; i < 200; i++)
            assert_int_equal(locus_task(body, &x[i], 0, LOCUS_INOUT(&x[i], sizeof x[i])), 0);
    assert_int_equal(locus_taskwait(), 0);

    assert_int_equal(PAPI_stop(es, val), PAPI_OK);
    locus_stats_t st;
    locus_node_stats_t n0;
    assert_int_equal(locus_get_stats(&st, sizeof st), 0);
    assert_int_equal(locus_get_node_stats(0, &n0, sizeof n0), 0);
    assert_true(st.tasks_run == 600);
    assert_true((uint64_t)val[0] == st.tasks_run);
    assert_true((uint64_t)val[1] == st.first_touch_tasks);
    assert_true((uint64_t)val[2] == st.bytes_local);
    assert_true((uint64_t)val[3] == st.bytes_near);
    assert_true((uint64_t)val[4] == st.bytes_far);
    assert_true((uint64_t)val[5] == st.steals_local);
    assert_true((uint64_t)val[6] == st.steals_near);
    assert_true((uint64_t)val[7] == st.steals_far);
    assert_true((uint64_t)val[8] == n0.tasks_run);
    print_message("sde:::locus::TASKS_RUN = %lld, BYTES_LOCAL = %lld (locus_get_stats: %llu, %llu)\n",
                  val[0], val[2], (unsigned long long)st.tasks_run,
                  (unsigned long long)st.bytes_local);
    PAPI_cleanup_eventset(es);
    PAPI_destroy_eventset(&es);
    assert_int_equal(locus_finalize(), 0);
}
#endif

/* ---- setup ------------------------------------------------------------------------ */

static int rm_tree(const char *path)
{
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    return system(cmd);
}

static int group_setup(void **state)
{
    (void)state;
    const char *base = getenv("TMPDIR");
    struct stat st;
    if (base == NULL || base[0] == '\0')
        base = "/tmp";
    snprintf(tmpdir, sizeof tmpdir, "%s/test_counters.XXXXXX", base);
    if (mkdtemp(tmpdir) == NULL) {
        fprintf(stderr, "mkdtemp(%s): %s\n", tmpdir, strerror(errno));
        return -1;
    }
    /* the fixtures are found from the source tree's root (make check's cwd) */
    if (stat(FIXTURES "/skx-2s/sys", &st) != 0) {
        fprintf(stderr, "test_counters: %s not found: run from the source tree's root\n",
                FIXTURES "/skx-2s/sys");
        return -1;
    }
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    rm_tree(tmpdir);
    return 0;
}

/* The likwid backend loads liblikwid only for a run under likwid-perfctr
 * -m: a program's start does not pay for the library otherwise. */
static int likwid_mapped(void)
{
    char line[4096];
    int found = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    assert_non_null(f);
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, "/liblikwid") != NULL;
    fclose(f);
    return found;
}

static void test_likwid_loaded_on_demand(void **state)
{
    (void)state;
    struct lc_ctr_env env = { 0 };
    char why[256];

    assert_false(likwid_mapped());   /* not at the library's load */
    env.likwid_marker = 0;
    assert_int_equal(lc_ctr_likwid.probe(&env, why, sizeof why), -ENODEV);
    assert_non_null(strstr(why, "likwid-perfctr -m"));
    assert_false(likwid_mapped());
#ifdef HAVE_LIKWID
    env.likwid_marker = 1;
    int r = lc_ctr_likwid.probe(&env, why, sizeof why);
    if (r == 0) {
        assert_true(likwid_mapped());
    } else {
        /* built with likwid, run where it is not installed (the QEMU
         * guests): unavailable, with the reason, and nothing loaded */
        assert_int_equal(r, -ENODEV);
        assert_non_null(strstr(why, "cannot load"));
        assert_false(likwid_mapped());
        print_message("liblikwid not loadable here: %s\n", why);
    }
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_detect_here),
        cmocka_unit_test(test_detect_cpuid_as_proc),
        cmocka_unit_test(test_format_parse),
        cmocka_unit_test(test_encode),
        cmocka_unit_test(test_plan_skx),
        cmocka_unit_test(test_plan_hswep),
        cmocka_unit_test(test_plan_zen),
        cmocka_unit_test(test_machines),
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_blocked),
        cmocka_unit_test(test_errno_reasons),
        cmocka_unit_test(test_counting),
        cmocka_unit_test(test_runtime_api),
        cmocka_unit_test(test_runtime_report),
#ifdef HAVE_PAPI
        cmocka_unit_test(test_sde),
        cmocka_unit_test(test_likwid_loaded_on_demand),
#endif
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
