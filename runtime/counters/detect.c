/*
 * detect.c - finds out whether this machine can count coherence traffic
 * and, when it cannot, says why in words a person can act on: no PMU in a
 * virtual machine, perf_event_paranoid too high, an unknown CPU, or the
 * errno perf_event_open gave.  Everything is read under the env's sysfs and
 * procfs roots, so that tests can replay recorded machines; without a
 * procfs root the CPU's vendor, family and model come from CPUID.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "counters/counters.h"

#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38

static const char *root_or(const char *s, const char *dflt)
{
    return s != NULL && s[0] != '\0' ? s : dflt;
}

/* "key\t: value" lines of cpuinfo; the first CPU is enough. */
static void parse_cpuinfo(FILE *f, struct lc_ctr_machine *m)
{
    char line[8192];
    int seen_flags = 0;

    while (fgets(line, sizeof line, f) != NULL) {
        char *colon = strchr(line, ':');
        if (colon == NULL) {
            if (seen_flags)
                break; /* end of the first CPU's block */
            continue;
        }
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        v[strcspn(v, "\n")] = '\0';
        if (strncmp(line, "vendor_id", 9) == 0) {
            snprintf(m->vendor, sizeof m->vendor, "%s", v);
        } else if (strncmp(line, "cpu family", 10) == 0) {
            m->family = atoi(v);
        } else if (strncmp(line, "model", 5) == 0 && line + 5 + strspn(line + 5, " \t") == colon) {
            m->model = atoi(v); /* "model", not "model name" */
        } else if (strncmp(line, "flags", 5) == 0) {
            seen_flags = 1;
            char *save = NULL;
            for (char *t = strtok_r(v, " ", &save); t != NULL; t = strtok_r(NULL, " ", &save))
                if (strcmp(t, "hypervisor") == 0)
                    m->hypervisor = 1;
        }
    }
}

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
/* What parse_cpuinfo reads of this machine's first CPU, from the CPUID
 * instruction, as the kernel derives it for cpuinfo (x86_family,
 * x86_model): reading /proc/cpuinfo had the kernel sample every CPU's
 * clock, most of a first parallel region's counter detection. */
static int cpuid_machine(struct lc_ctr_machine *m)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d))
        return -1;
    memcpy(m->vendor, &b, 4);
    memcpy(m->vendor + 4, &d, 4);
    memcpy(m->vendor + 8, &c, 4);
    m->vendor[12] = '\0';
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    int fam = (int)(a >> 8 & 0xf), model = (int)(a >> 4 & 0xf);
    if (fam == 0xf)
        fam += (int)(a >> 20 & 0xff);
    if (fam >= 6)
        model += (int)(a >> 16 & 0xf) << 4;
    m->family = fam;
    m->model = model;
    m->hypervisor = (int)(c >> 31 & 1);
    return 0;
}
#else
static int cpuid_machine(struct lc_ctr_machine *m)
{
    (void)m;
    return -1;
}
#endif

/* CAP_SYS_ADMIN or CAP_PERFMON effective, from capget (this process);
 * -1 when capget fails. */
static int privileged_now(void)
{
    struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &hdr, data) != 0)
        return -1;
    uint64_t caps = (uint64_t)data[1].effective << 32 | data[0].effective;
    return (caps >> CAP_SYS_ADMIN_BIT & 1) || (caps >> CAP_PERFMON_BIT & 1);
}

/* CapEff from <procfs>/self/status. */
static int privileged(const char *procfs)
{
    char path[4096], line[256];
    snprintf(path, sizeof path, "%s/self/status", procfs);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return 0;
    int r = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "CapEff:", 7) == 0) {
            unsigned long long caps = strtoull(line + 7, NULL, 16);
            r = (caps >> CAP_SYS_ADMIN_BIT & 1) || (caps >> CAP_PERFMON_BIT & 1);
            break;
        }
    }
    fclose(f);
    return r;
}

int lc_ctr_detect(const struct lc_ctr_env *env, struct lc_ctr_machine *m)
{
    const char *sysfs = root_or(env ? env->sysfs : NULL, "/sys");
    const char *procfs = root_or(env ? env->procfs : NULL, "/proc");
    char path[4096];

    memset(m, 0, sizeof *m);
    m->family = m->model = -1;
    /* a recorded machine (a test's procfs root) is read from its files;
     * this one asks its CPU (CPUID) and the kernel (capget) */
    int recorded = env != NULL && env->procfs != NULL && env->procfs[0] != '\0';
    if (recorded || cpuid_machine(m) < 0) {
        snprintf(path, sizeof path, "%s/cpuinfo", procfs);
        FILE *f = fopen(path, "re");
        if (f != NULL) {
            parse_cpuinfo(f, m);
            fclose(f);
        }
    }
    m->paranoid = lc_ctr_paranoid(env);
    int own = recorded ? -1 : privileged_now();
    m->privileged = own >= 0 ? own : privileged(procfs);

    /* one scan of the PMU directory for the four names */
    char names[LC_CTR_MAX_SOCKETS][LC_PMU_NAME_MAX];
    struct lc_pmu_dir dir;
    (void)lc_pmu_dir_read(sysfs, &dir);   /* without memory it scans per lookup */
    m->cpu_pmu = lc_pmu_dir_list(&dir, "cpu", names, 1) > 0;
    m->uncore_pmus = lc_pmu_dir_list(&dir, "uncore_upi_", names, LC_CTR_MAX_SOCKETS)
                   + lc_pmu_dir_list(&dir, "uncore_qpi_", names, LC_CTR_MAX_SOCKETS)
                   + lc_pmu_dir_list(&dir, "amd_df", names, 1);
    lc_pmu_dir_free(&dir);
    return 0;
}

int lc_ctr_paranoid(const struct lc_ctr_env *env)
{
    const char *procfs = root_or(env ? env->procfs : NULL, "/proc");
    char path[4096];
    int v = LC_PARANOID_NONE;
    snprintf(path, sizeof path, "%s/sys/kernel/perf_event_paranoid", procfs);
    FILE *f = fopen(path, "re");
    if (f != NULL) {
        if (fscanf(f, "%d", &v) != 1)
            v = LC_PARANOID_NONE;
        fclose(f);
    }
    return v;
}

void lc_ctr_blocker(const struct lc_ctr_machine *m, int uncore, int have_pmu,
                    char *buf, size_t len)
{
    buf[0] = '\0';
    if (m->paranoid == LC_PARANOID_NONE) {
        snprintf(buf, len, "the kernel has no perf_event support (no perf_event_paranoid)");
    } else if (!have_pmu) {
        /* In a VM the hypervisor is the cause and a bare-metal run the
         * remedy; the VM comes first so that summaries can fold it. */
        if (m->hypervisor)
            snprintf(buf, len, LC_CTR_VM ": no %s PMU%s", uncore ? "uncore" : "core",
                     uncore ? "" : " (software events only)");
        else if (uncore)
            snprintf(buf, len, "no uncore PMU (uncore_upi_*, uncore_qpi_* or amd_df): "
                     "driver not loaded or CPU not supported");
        else
            snprintf(buf, len, "no core PMU (software events only)");
    } else if (!m->privileged && uncore && m->paranoid > 0) {
        /* CPU-wide events (all uncore ones) need paranoid <= 0. */
        snprintf(buf, len, "perf_event_paranoid=%d: needs <= 0 or CAP_PERFMON", m->paranoid);
    } else if (!m->privileged && !uncore && m->paranoid > 2) {
        snprintf(buf, len, "perf_event_paranoid=%d: per-thread events need <= 2 or CAP_PERFMON",
                 m->paranoid);
    }
}

void lc_ctr_errno_reason(int err, const struct lc_ctr_machine *m, const char *what,
                         char *buf, size_t len)
{
    const char *why;
    char tmp[96];

    if (err < 0)
        err = -err;
    switch (err) {
    case EACCES:
    case EPERM:
        if (m != NULL && !m->privileged && m->paranoid != LC_PARANOID_NONE) {
            snprintf(tmp, sizeof tmp, "permission denied (perf_event_paranoid=%d: needs <= 0 "
                     "or CAP_PERFMON)", m->paranoid);
            why = tmp;
        } else {
            why = "permission denied (needs CAP_PERFMON, or a lower perf_event_paranoid)";
        }
        break;
    case ENOENT:
    case ENODEV:
        why = "no such PMU or event (unknown CPU model, or the uncore driver is not loaded)";
        break;
    case EINVAL:
        why = "the kernel refused the event encoding or CPU (EINVAL)";
        break;
    case ENXIO:
        why = "an extra MSR the event needs is not accessible (ENXIO, typical in a VM)";
        break;
    case EBUSY:
        why = "the counter is in use by another user (EBUSY)";
        break;
    case EMFILE:
    case ENFILE:
        why = "too many open files (raise ulimit -n)";
        break;
    case EOPNOTSUPP:
        why = "not supported by this PMU (EOPNOTSUPP: uncore PMUs refuse sampling and exclude bits)";
        break;
    case ENOSYS:
        why = "perf_event_open is not available (ENOSYS)";
        break;
    default:
        snprintf(tmp, sizeof tmp, "%s (errno %d)", strerror(err), err);
        why = tmp;
        break;
    }
    if (what != NULL && what[0] != '\0')
        snprintf(buf, len, "%s: %s", what, why);
    else
        snprintf(buf, len, "%s", why);
}
