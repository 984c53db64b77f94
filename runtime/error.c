/*
 * error.c - error codes to text, and the calling thread's last detailed
 * error message (a library must not print and exit; it returns a code and
 * keeps the words for whoever asks).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "locus.h"
#include "runtime.h"

static __thread char lc_errmsg[512];

int lc_error(int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(lc_errmsg, sizeof lc_errmsg, fmt, ap);
    va_end(ap);
    return err;
}

void lc_error_clear(void)
{
    lc_errmsg[0] = '\0';
}

LOCUS_API const char *locus_error_message(void)
{
    return lc_errmsg;
}

/*
 * The text of a code: the library's own words for the codes it returns
 * itself (what they mean for a Locus call), and the system's description
 * for any other errno value that reaches a caller from a system call the
 * library made (a report file's open, a worker thread's creation, a counter
 * the kernel refused); "unknown" only for a value that is neither.
 */
LOCUS_API const char *locus_strerror(int err)
{
    switch (err) {
    case 0:
        return "success";
    case -EINVAL:
        return "invalid argument or environment value (see locus_error_message())";
    case -EPERM:
        return "the Locus runtime is not running (call locus_init() first)";
    case -EALREADY:
        return "the Locus runtime is already running";
    case -ENOTSUP:
        return "not supported here (the message says why: a thread that is not a Locus "
               "worker, a call outside a task, or what this build, MPI or the system lacks)";
    case -EDEADLK:
        return "would deadlock: called from inside a task";
    case -ENOMEM:
        return "out of memory";
    case -ENOENT:
        return "no such file (topology, report, trace or graph path)";
    case -EACCES:
        return "permission denied (report, trace or graph path, or a counter the kernel keeps "
               "to privileged users)";
    case -ENOTDIR:
        return "not a directory (a path's parent, or LOCUS_TRACE)";
    case -EISDIR:
        return "is a directory (LOCUS_REPORT or LOCUS_DAG names a directory, not a file)";
    case -EEXIST:
        return "already exists (LOCUS_TRACE holds a trace)";
    case -ENAMETOOLONG:
        return "path too long (LOCUS_TRACE or LOCUS_DAG once %p is the process id)";
    case -ENOSPC:
        return "no space left on the device (a trace or graph was not written whole)";
    case -EIO:
        return "input/output error (a trace or graph was not written whole)";
    case -ENODEV:
        return "unusable topology";
    case -EAGAIN:
        return "resource temporarily unavailable (a worker thread could not be started: too "
               "many threads for the process's limits)";
    case -E2BIG:
        return "range too large (a locus_alloc or directory range over 1 TiB)";
    case -ENOSYS:
        return "not available on this system (a system call the kernel does not have)";
    default:
        break;
    }
    if (err < 0 && err > -4096) {
        const char *d = strerrordesc_np(-err);   /* static text, thread-safe */
        if (d)
            return d;
    }
    return err < 0 ? "unknown Locus error code" : "not an error code (errors are negative)";
}

LOCUS_API unsigned locus_get_api_version(void)
{
    return LOCUS_API_VERSION;
}
