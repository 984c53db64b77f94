/*
 * ompt.c - ompt_start_tool, the one OMPT symbol libomp exports.
 *
 * A tool (or a program) defines its own ompt_start_tool to be found by the
 * runtime; libomp exports a weak default that answers "no tool".  Locus
 * has no OMPT interface and looks for no tool, so this is only that
 * default: a program or tool that calls it gets NULL, never a stop.  It is
 * weak so that a tool's definition linked into the program wins, as with
 * libomp.
 */
#include <stddef.h>

#include "kmp.h"

KMP_EXPORT __attribute__((weak)) void *ompt_start_tool(unsigned int omp_version,
                                                       const char *runtime_version)
{
    (void)omp_version;
    (void)runtime_version;
    return NULL;
}
