/*
 * foreign.c - says so when a program's OpenMP code runs on another
 * runtime than the Locus layer it was given.
 *
 * A clang (icx, AOCC) program calls LLVM's runtime (libomp.so.5,
 * libiomp5.so) and a gcc program calls libgomp.so.1; preloading the layer
 * of the other ABI changes nothing and the program runs, silently, on the
 * runtime it was linked with.  When this library is loaded, it looks for a
 * loaded OpenMP runtime of the other ABI that is not a Locus layer and
 * prints one line naming it and the Locus library to use instead.
 *
 * Except that liblocus-omp has libomp's second versions of the GOMP_* and
 * omp_* names (GOMP_barrier@GOMP_1.0: for gcc programs given libomp as
 * their libgomp.so.1), so preloaded into a gcc program it takes the calls
 * whose names and versions libomp has, and libgomp.so.1 keeps the others
 * (GOMP_5.1's, OpenACC's): two runtimes in one program, which its line
 * says instead.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "gomp.h"

struct search {
    const char *const *names;     /* file names of the other ABI's runtimes */
    const void *ours;             /* this library's load base */
    char found[PATH_MAX];
};

static int look(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct search *s = data;
    const char *path = info->dlpi_name;
    if (!path || !path[0])
        return 0;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (const char *const *n = s->names; *n; n++) {
        if (strncmp(base, *n, strlen(*n)))
            continue;
        /* a Locus layer under the other ABI's name (build/gomp/libgomp.so.1,
         * build/kmp/libomp.so.5) is no stranger: both layers export ALPI,
         * which neither gcc's nor LLVM's runtime has */
        void *h = dlopen(path, RTLD_NOLOAD | RTLD_LAZY);
        int locus = h && dlsym(h, "alpi_version_get");
        if (h)
            dlclose(h);
        if (!locus && (const void *)info->dlpi_addr != s->ours) {
            snprintf(s->found, sizeof s->found, "%s", path);
            return 1;
        }
    }
    return 0;
}

__attribute__((constructor)) static void foreign_runtime_check(void)
{
    static const char *const llvm[] = { "libomp.so", "libiomp5.so", "libomp5.so", NULL };
    static const char *const gnu[] = { "libgomp.so", NULL };
    int we_are_gomp = !strcmp(gomp_layer_native, "libgomp");
    Dl_info self;
    if (!dladdr((void *)foreign_runtime_check, &self))
        return;
    struct search s = { we_are_gomp ? llvm : gnu, self.dli_fbase, "" };
    if (!dl_iterate_phdr(look, &s))
        return;
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", self.dli_fname);
    Dl_info at;
    void *parallel = we_are_gomp ? NULL : dlvsym(RTLD_DEFAULT, "GOMP_parallel", "GOMP_4.0");
    if (parallel && dladdr(parallel, &at) && at.dli_fbase == self.dli_fbase) {
        gomp_say("this program was compiled for gcc's libgomp and runs on Locus and on %s: "
                 "its calls that libomp also has come here, the others go there; "
                 "run it with LD_PRELOAD=%s/liblocus-gomp.so (see locus-gomp(7))\n",
                 s.found, dirname(dir));
        return;
    }
    gomp_say("this program's OpenMP code runs on %s, not on Locus: it was compiled for %s; "
             "run it with LD_PRELOAD=%s/%s (see %s(7))\n",
             s.found, we_are_gomp ? "LLVM's OpenMP runtime (clang, icx, AOCC)" : "gcc's libgomp",
             dirname(dir), we_are_gomp ? "liblocus-omp.so" : "liblocus-gomp.so",
             we_are_gomp ? "locus-omp" : "locus-gomp");
}
