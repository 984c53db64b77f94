/*
 * omp.c - an OpenMP program that tests/install/run builds with clang and
 * locus-omp.pc: it must run on the installed liblocus-omp
 * (lib/locus/libomp.so.5), not on LLVM's libomp.  Prints the file that
 * libomp.so.5 was loaded from (from /proc/self/maps) and the result of a
 * few dependent tasks; exits 1 when the result is wrong.
 */
#include <stdio.h>
#include <string.h>

static void print_libomp(void)
{
    char line[4096];
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        char *path = strchr(line, '/');
        if (path && (strstr(path, "libomp") || strstr(path, "liblocus-omp"))) {
            printf("libomp %s", path);
            break;
        }
    }
    fclose(f);
}

int main(void)
{
    int a = 0, b = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp task depend(out: a)
        a = 20;
#pragma omp task depend(in: a) depend(out: b)
        b = a + 1;
#pragma omp task depend(inout: b)
        b *= 2;
    }
    print_libomp();
    printf("result %d\n", b);
    return b == 42 ? 0 : 1;
}
