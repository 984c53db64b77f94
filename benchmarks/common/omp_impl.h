/*
 * omp_impl.h - which OpenMP runtime an OpenMP peer benchmark runs on, for
 * its result lines: a gcc binary runs on libgomp or, preloaded, on Locus's
 * libgomp layer; a clang one on libomp or on Locus's libomp layer.
 */
#ifndef LOCUS_BENCH_OMP_IMPL_H
#define LOCUS_BENCH_OMP_IMPL_H

#include <stdio.h>
#include <string.h>

/* The OpenMP runtime this peer really runs on, from the files mapped
 * (the kernel names the real file even when it was found as libgomp.so.1
 * or libomp.so.5): liblocus-gomp.so, liblocus-omp.so, LLVM's libomp, else
 * libgomp. */
static inline const char *bench_omp_impl(void)
{
    static const char *impl;
    if (!impl) {
        char line[4096];
        FILE *f = fopen("/proc/self/maps", "r");
        impl = "libgomp";
        while (f && fgets(line, sizeof line, f)) {
            if (strstr(line, "liblocus-gomp")) {
                impl = "locus-gomp";
                break;
            }
            if (strstr(line, "liblocus-omp")) {
                impl = "locus-omp";
                break;
            }
            if (strstr(line, "/libomp.so") || strstr(line, "/libomp-"))
                impl = "libomp";
        }
        if (f)
            fclose(f);
    }
    return impl;
}

#endif /* LOCUS_BENCH_OMP_IMPL_H */
