/*
 * kmp_atomic.c - libomp's __kmpc_atomic_* entry points, called as a
 * compiler that does not inline an atomic calls them (Intel's compilers;
 * LLVM's own tests call them by hand): updates of every operator under
 * contention from a team, captures (old and new value), reversed forms,
 * wider right-hand sides, reads, writes, swaps, OpenMP 5.1's compare and
 * swap, and the generic __kmpc_atomic_N with the compiler's function.
 * Each check prints a line whose text is the same on libomp and Locus.
 */
#include <complex.h>
#include <omp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct ident ident_t;
#define F(ret, name, ...) ret __kmpc_atomic_##name(ident_t *, int, __VA_ARGS__)
F(void, fixed1_add, char *, char);
F(void, fixed2_mul, short *, short);
F(void, fixed4_add, int32_t *, int32_t);
F(void, fixed4_xor, int32_t *, int32_t);
F(void, fixed4_max, int32_t *, int32_t);
F(void, fixed8_add, int64_t *, int64_t);
F(void, fixed8_min, int64_t *, int64_t);
F(void, fixed8_orl, int64_t *, int64_t);
F(void, fixed4_eqv, int32_t *, int32_t);
F(void, fixed4u_shr, uint32_t *, uint32_t);
F(void, fixed4_sub_rev, int32_t *, int32_t);
F(void, fixed8u_div_rev, uint64_t *, uint64_t);
F(int32_t, fixed4_add_cpt, int32_t *, int32_t, int);
F(int64_t, fixed8_shl_cpt_rev, int64_t *, int64_t, int);
F(void, fixed2_mul_float8, short *, double);
F(void, fixed8_div_float8, int64_t *, double);
F(int32_t, fixed4_rd, int32_t *);
F(void, fixed4_wr, int32_t *, int32_t);
F(char, fixed1_swp, char *, char);
F(void, float4_add, float *, float);
F(void, float8_add, double *, double);
F(void, float8_max, double *, double);
F(void, float10_add, long double *, long double);
F(void, float4_mul_float8, float *, double);
F(double, float8_sub_cpt_rev, double *, double, int);
F(long double, float10_div_cpt, long double *, long double, int);
F(long double, float10_rd, long double *);
F(double, float8_swp, double *, double);
F(void, cmplx4_add, float _Complex *, float _Complex);
F(void, cmplx8_add, double _Complex *, double _Complex);
F(void, cmplx10_add, long double _Complex *, long double _Complex);
F(void, cmplx8_mul, double _Complex *, double _Complex);
F(void, cmplx4_add_cpt, float _Complex *, float _Complex, float _Complex *, int);
F(void, cmplx4_div_cmplx8, float _Complex *, double _Complex);
F(double _Complex, cmplx8_sub_cpt_rev, double _Complex *, double _Complex, int);
F(float _Complex, cmplx4_rd, float _Complex *);
F(void, cmplx4_swp, float _Complex *, float _Complex, float _Complex *);
F(long double _Complex, cmplx10_swp, long double _Complex *, long double _Complex);
F(bool, bool_4_cas, int32_t *, int32_t, int32_t);
F(int64_t, val_8_cas, int64_t *, int64_t, int64_t);
F(bool, bool_2_cas_cpt, short *, short, short, short *);
F(char, val_1_cas_cpt, char *, char, char, char *);
F(void, 4, void *, void *, void (*)(void *, void *, void *));
F(void, 16, void *, void *, void (*)(void *, void *, void *));
int __kmpc_global_thread_num(ident_t *);

static int failures;

static void check(const char *what, int ok)
{
    printf("%-28s %s\n", what, ok ? "ok" : "FAILED");
    if (!ok)
        failures++;
}

static void add_i32(void *out, void *a, void *b)
{
    *(int32_t *)out = *(int32_t *)a + *(int32_t *)b;
}

static void add_ld(void *out, void *a, void *b)
{
    *(long double *)out = *(long double *)a + *(long double *)b;
}

#define N 4000

/* every thread of a team updates the same objects */
static void contended(void)
{
    char c1 = 0;
    short s2 = 1;
    int32_t i4 = 0, x4 = 0, m4 = -1, g4 = 0;
    int64_t i8 = 0, n8 = 1 << 30, l8 = 0;
    float f4 = 0;
    double f8 = 0, mx = -1;
    long double f10 = 0, g16 = 0;
    float _Complex c4 = 0;
    double _Complex c8 = 0;
    long double _Complex c10 = 0;
#pragma omp parallel for
    for (int i = 0; i < N; i++) {
        /* libomp's locked forms find the caller by its gtid */
        int g = __kmpc_global_thread_num(NULL);
        __kmpc_atomic_fixed1_add(NULL, g, &c1, 1);
        if (i % 1000 == 0)
            __kmpc_atomic_fixed2_mul(NULL, g, &s2, 2);
        __kmpc_atomic_fixed4_add(NULL, g, &i4, 3);
        __kmpc_atomic_fixed4_xor(NULL, g, &x4, i);
        __kmpc_atomic_fixed4_max(NULL, g, &m4, i);
        __kmpc_atomic_fixed8_add(NULL, g, &i8, (int64_t)1 << 33);
        __kmpc_atomic_fixed8_min(NULL, g, &n8, i + 7);
        __kmpc_atomic_fixed8_orl(NULL, g, &l8, i == N / 2);
        __kmpc_atomic_float4_add(NULL, g, &f4, 0.5f);
        __kmpc_atomic_float8_add(NULL, g, &f8, 0.25);
        __kmpc_atomic_float8_max(NULL, g, &mx, (double)i);
        __kmpc_atomic_float10_add(NULL, g, &f10, 0.125L);
        __kmpc_atomic_cmplx4_add(NULL, g, &c4, 1.0f + 2.0f * I);
        __kmpc_atomic_cmplx8_add(NULL, g, &c8, 0.5 - 1.0 * I);
        __kmpc_atomic_cmplx10_add(NULL, g, &c10, 1.0L * I);
        int32_t one = 1;
        __kmpc_atomic_4(NULL, g, &g4, &one, add_i32);
        long double half = 0.5L;
        __kmpc_atomic_16(NULL, g, &g16, &half, add_ld);
    }
    int32_t xor_all = 0;
    for (int i = 0; i < N; i++)
        xor_all ^= i;
    check("fixed1..8 updates", c1 == (char)N && s2 == 16 && i4 == 3 * N && x4 == xor_all
                                   && m4 == N - 1 && i8 == (int64_t)N << 33 && n8 == 7
                                   && l8 == 1);
    check("float4..10 updates", f4 == N / 2 && f8 == N / 4.0 && mx == N - 1 && f10 == N / 8.0L);
    check("cmplx4..10 updates", c4 == N + 2.0f * N * I && c8 == N / 2.0 - 1.0 * N * I
                                    && c10 == 1.0L * N * I);
    check("generic 4 and 16 bytes", g4 == N && g16 == N / 2.0L);
}

/* one thread: the forms' results */
static void forms(void)
{
    int32_t a = 5;
    int32_t r = __kmpc_atomic_fixed4_add_cpt(NULL, 0, &a, 3, 0);
    int32_t r2 = __kmpc_atomic_fixed4_add_cpt(NULL, 0, &a, 3, 1);
    check("capture old, new", r == 5 && r2 == 11 && a == 11);
    __kmpc_atomic_fixed4_sub_rev(NULL, 0, &a, 20);   /* a = 20 - a */
    int32_t e = 0xf0;
    __kmpc_atomic_fixed4_eqv(NULL, 0, &e, 0x0f);
    uint32_t u = 0x80000000u;
    __kmpc_atomic_fixed4u_shr(NULL, 0, &u, 4);
    uint64_t q = 3;
    __kmpc_atomic_fixed8u_div_rev(NULL, 0, &q, 100);   /* q = 100 / q */
    int64_t sh = 3;
    int64_t old = __kmpc_atomic_fixed8_shl_cpt_rev(NULL, 0, &sh, 1, 0);   /* sh = 1 << sh */
    check("reversed and logical forms", a == 9 && e == ~0xff && u == 0x08000000u && q == 33
                                            && old == 3 && sh == 8);
    short s = 7;
    __kmpc_atomic_fixed2_mul_float8(NULL, 0, &s, 1.5);
    int64_t d8 = 10;
    __kmpc_atomic_fixed8_div_float8(NULL, 0, &d8, 4.0);
    float f = 2;
    __kmpc_atomic_float4_mul_float8(NULL, 0, &f, 0.25);
    check("wider right-hand sides", s == 10 && d8 == 2 && f == 0.5f);
    double x = 1;
    double xr = __kmpc_atomic_float8_sub_cpt_rev(NULL, 0, &x, 10, 1);
    long double l = 9;
    long double lr = __kmpc_atomic_float10_div_cpt(NULL, 0, &l, 3, 0);
    check("float captures", xr == 9 && x == 9 && lr == 9 && l == 3);
    float _Complex c4 = 1, out = 0;
    __kmpc_atomic_cmplx4_add_cpt(NULL, 0, &c4, 2.0f * I, &out, 1);
    __kmpc_atomic_cmplx4_div_cmplx8(NULL, 0, &c4, 2.0);
    double _Complex c8 = 1.0 * I;
    double _Complex c8r = __kmpc_atomic_cmplx8_sub_cpt_rev(NULL, 0, &c8, 3, 0);
    __kmpc_atomic_cmplx8_mul(NULL, 0, &c8, 2.0 * I);   /* (3 - i) * 2i = 2 + 6i */
    check("complex forms", out == 1.0f + 2.0f * I && c4 == 0.5f + 1.0f * I && c8r == 1.0 * I
                               && c8 == 2.0 + 6.0 * I);
    int32_t w = 0;
    __kmpc_atomic_fixed4_wr(NULL, 0, &w, 42);
    char ch = 'a';
    char was = __kmpc_atomic_fixed1_swp(NULL, 0, &ch, 'b');
    double dd = 1.5;
    double dwas = __kmpc_atomic_float8_swp(NULL, 0, &dd, 2.5);
    long double ld = 4;
    float _Complex cf = 3.0f * I, cfo = 0;
    __kmpc_atomic_cmplx4_swp(NULL, 0, &cf, 1, &cfo);
    long double _Complex cl = 2, clo = __kmpc_atomic_cmplx10_swp(NULL, 0, &cl, 5.0L * I);
    check("read, write, swap", __kmpc_atomic_fixed4_rd(NULL, 0, &w) == 42 && was == 'a'
                                   && ch == 'b' && dwas == 1.5 && dd == 2.5
                                   && __kmpc_atomic_float10_rd(NULL, 0, &ld) == 4
                                   && cfo == 3.0f * I && cf == 1
                                   && __kmpc_atomic_cmplx4_rd(NULL, 0, &cf) == 1 && clo == 2
                                   && cl == 5.0L * I);
    int32_t v4 = 5;
    bool ok1 = __kmpc_atomic_bool_4_cas(NULL, 0, &v4, 5, 6);
    bool ok2 = __kmpc_atomic_bool_4_cas(NULL, 0, &v4, 5, 7);
    int64_t v8 = 1;
    int64_t o8 = __kmpc_atomic_val_8_cas(NULL, 0, &v8, 2, 3);
    short v2 = 4, pv2 = -1;
    bool ok3 = __kmpc_atomic_bool_2_cas_cpt(NULL, 0, &v2, 3, 9, &pv2);
    char v1 = 'x', pv1 = 0;
    char o1 = __kmpc_atomic_val_1_cas_cpt(NULL, 0, &v1, 'x', 'y', &pv1);
    check("compare and swap", ok1 && !ok2 && v4 == 6 && o8 == 1 && v8 == 1 && !ok3
                                  && pv2 == 4 && v2 == 4 && o1 == 'x' && pv1 == 'y'
                                  && v1 == 'y');
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    contended();
    forms();
    printf("%s\n", failures ? "FAILED" : "all passed");
    return failures != 0;
}
