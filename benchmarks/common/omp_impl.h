/*
 * omp_impl.h - which OpenMP runtime an OpenMP peer benchmark runs on, for
 * its result lines: one binary runs on libgomp or, preloaded, on Locus's
 * libgomp layer.
 */
#ifndef LOCUS_BENCH_OMP_IMPL_H
#define LOCUS_BENCH_OMP_IMPL_H

#include <stdio.h>
#include <string.h>

/* The OpenMP runtime this peer really runs on: the same binary runs on
 * libgomp or, preloaded, on Locus's libgomp layer (liblocus-gomp.so; the
 * kernel names the real file even when it was found as libgomp.so.1). */
static inline const char *bench_omp_impl(void)
{
    static const char *impl;
    if (!impl) {
        char line[4096];
        FILE *f = fopen("/proc/self/maps", "r");
        impl = "libgomp";
        while (f && fgets(line, sizeof line, f))
            if (strstr(line, "liblocus-gomp")) {
                impl = "locus-gomp";
                break;
            }
        if (f)
            fclose(f);
    }
    return impl;
}

#endif /* LOCUS_BENCH_OMP_IMPL_H */
