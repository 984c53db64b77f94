/*
 * dl.c - loading a counter backend's library when the backend is tried
 * (papi.c, likwid.c), not at the program's start: dlopen of its soname
 * with RTLD_GLOBAL (a program that uses the library itself shares the
 * loaded copy), then every entry point the backend calls, each into the
 * backend's own typed pointer.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>

#include "counters/counters.h"

int lc_ctr_dl_load(const char *soname, const char *const *names, void **const *slots, int n,
                   char *why, size_t len)
{
    void *h = dlopen(soname, RTLD_NOW | RTLD_GLOBAL);
    if (h == NULL) {
        const char *e = dlerror();
        snprintf(why, len, "cannot load %s: %s", soname, e != NULL ? e : "dlopen failed");
        return -ENODEV;
    }
    for (int i = 0; i < n; i++)
        if ((*slots[i] = dlsym(h, names[i])) == NULL) {
            snprintf(why, len, "%s has no %s", soname, names[i]);
            return -ENODEV;
        }
    why[0] = '\0';
    return 0;
}
