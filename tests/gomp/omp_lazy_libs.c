/*
 * omp_lazy_libs.c - the libraries an OpenMP program on liblocus-gomp has
 * loaded once its first parallel region has run, with LOCUS_COUNTERS=none:
 * none of the counter backends' (libpapi, libpfm, liblikwid), which are
 * loaded only when a backend is tried (runtime/counters/papi.c, likwid.c).
 * Linked, they cost every program's start milliseconds.  Exits 1 naming
 * the first one mapped; 2 when the region did not run on Locus (run by
 * tests/test_gomp.c, test_lazy_libs).
 */
#include <omp.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    static const char *const lazy[] = { "/libpapi.so", "/libpfm.so", "/liblikwid.so" };
    char line[4096];
    int n = 0, locus = 0;
#pragma omp parallel
#pragma omp master
    n = omp_get_num_threads();
    FILE *f = fopen("/proc/self/maps", "r");
    if (f == NULL || n < 1)
        return 3;
    while (fgets(line, sizeof line, f) != NULL) {
        locus |= strstr(line, "/liblocus-gomp.so") != NULL || strstr(line, "/gomp/libgomp.so") != NULL;
        for (size_t i = 0; i < sizeof lazy / sizeof lazy[0]; i++)
            if (strstr(line, lazy[i]) != NULL) {
                printf("%s is loaded: %s", lazy[i] + 1, line);
                fclose(f);
                return 1;
            }
    }
    fclose(f);
    printf("threads %d, none of the counter libraries loaded\n", n);
    return locus ? 0 : 2;
}
