/*
 * error.c - the error directive (OpenMP 5.1) at run time: GOMP_warning
 * for severity(warning), GOMP_error for severity(fatal).
 *
 * The text is libgomp's, "libgomp:" prefix included, because programs and
 * their tests read it (gcc's testsuite matches it); a fatal error directive
 * ends the program with EXIT_FAILURE, which is what the program asked for.
 * msglen (size_t)-1 means msg is NUL-terminated; else it is msglen bytes.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gomp.h"

static void say(const char *what, const char *msg, size_t msglen)
{
    fprintf(stderr, "\nlibgomp: %serror directive encountered", what);
    if (msg) {
        fputs(": ", stderr);
        if (msglen == (size_t)-1)
            fputs(msg, stderr);
        else
            fwrite(msg, 1, msglen, stderr);
    }
    fputc('\n', stderr);
}

GOMP_EXPORT void GOMP_warning(const char *msg, size_t msglen)
{
    say("", msg, msglen);
}

GOMP_EXPORT void GOMP_error(const char *msg, size_t msglen)
{
    say("fatal error: ", msg, msglen);
    exit(EXIT_FAILURE);
}
