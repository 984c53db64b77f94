/*
 * prog.c - the program tests/install/run builds against an installed Locus
 * (pkg-config, pkg-config --static, locus-static, CMake): the README's
 * example, plus the versions it was compiled against and runs on, so that
 * the script can check they agree with the package's.
 * Prints "api <header's LOCUS_API_VERSION> <library's> sum <sum>"; exits 1
 * when Locus fails or the sum is wrong.
 */
#include <locus.h>
#include <stdio.h>

#define N (1 << 16)
#define B (1 << 12)                     /* elements per block */
static double x[N], sum;

static void fill(void *arg) { double *b = *(double **)arg; for (int i = 0; i < B; i++) b[i] = 0.5; }
static void add(void *arg)  { double *b = *(double **)arg; for (int i = 0; i < B; i++) sum += b[i]; }

int main(void)
{
    if (locus_init() != 0) {
        fprintf(stderr, "locus_init: %s\n", locus_error_message());
        return 1;
    }
    for (int k = 0; k < N; k += B) {
        double *b = &x[k];
        if (locus_task(fill, &b, sizeof b, LOCUS_OUT(b, B * sizeof *b)) != 0 ||
            locus_task(add, &b, sizeof b, LOCUS_IN(b, B * sizeof *b),
                       LOCUS_INOUT(&sum, sizeof sum)) != 0) {
            fprintf(stderr, "locus_task: %s\n", locus_error_message());
            return 1;
        }
    }
    if (locus_taskwait() != 0) {
        fprintf(stderr, "locus_taskwait: %s\n", locus_error_message());
        return 1;
    }
    printf("api %d %u sum %g\n", LOCUS_API_VERSION, locus_get_api_version(), sum);
    if (locus_finalize() != 0) {
        fprintf(stderr, "locus_finalize: %s\n", locus_error_message());
        return 1;
    }
    return sum == 0.5 * N ? 0 : 1;
}
