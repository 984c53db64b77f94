/*
 * scope.c - the scope construct and the error directive of the LLVM
 * OpenMP ABI.
 *
 * scope needs nothing of the runtime (its reductions and barrier are the
 * compiler's calls).  __kmpc_error says where the directive is, from the
 * construct's location (";file;function;line;column;;"), as libomp does;
 * severity 1 warns, 2 (fatal) ends the program with EXIT_FAILURE, as
 * gomp/error.c does for a gcc program.
 */
#include <stdio.h>
#include <stdlib.h>

#include "kmp.h"

KMP_EXPORT void __kmpc_scope(ident_t *loc, kmp_int32 gtid, void *reserved)
{
    (void)loc;
    (void)gtid;
    (void)reserved;
}

KMP_EXPORT void __kmpc_end_scope(ident_t *loc, kmp_int32 gtid, void *reserved)
{
    (void)loc;
    (void)gtid;
    (void)reserved;
}

/* "file:line:column" of psource into buf, or "unknown" */
static const char *where(const ident_t *loc, char *buf, size_t len)
{
    const char *f[5] = { 0 };
    int lens[5] = { 0 };
    const char *p = loc && loc->psource ? loc->psource : NULL;
    if (!p || *p != ';')
        return "unknown";
    for (int i = 0; i < 5 && *p == ';'; i++) {
        f[i] = ++p;
        while (*p && *p != ';')
            p++;
        lens[i] = (int)(p - f[i]);
    }
    if (!f[3] || !f[4])
        return "unknown";
    snprintf(buf, len, "%.*s:%.*s:%.*s", lens[0], f[0], lens[3], f[3], lens[4], f[4]);
    return buf;
}

KMP_EXPORT void __kmpc_error(ident_t *loc, int severity, const char *message)
{
    char buf[512];
    const char *at = where(loc, buf, sizeof buf);
    int fatal = severity == 2;
    gomp_say("%s: Encountered user-directed %s: %s.\n", at, fatal ? "error" : "warning",
             message ? message : "");
    if (fatal)
        exit(EXIT_FAILURE);
}
