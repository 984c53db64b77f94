/*
 * error.c - liblocus-mpi's own "last error" message per thread (it is a
 * library of its own, so it cannot write liblocus's message), and the clock.
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "lmpi.h"

static __thread char lm_errmsg[512];

int lm_error(int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(lm_errmsg, sizeof lm_errmsg, fmt, ap);
    va_end(ap);
    return err;
}

LOCUS_API const char *locus_mpi_error_message(void)
{
    return lm_errmsg;
}

uint64_t lm_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
