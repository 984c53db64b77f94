/*
 * atomic.c - libomp's __kmpc_atomic_* entry points: the atomic updates,
 * captures, reads, writes, swaps and compare-and-swaps that a compiler
 * calls instead of inlining them (Intel's compilers for most atomics,
 * clang for some, and hand-written codegen such as LLVM's own tests).
 *
 * Names and signatures are libomp's (kmp_atomic.h): TYPE_OP updates
 * *lhs = *lhs OP rhs, _rev *lhs = rhs OP *lhs, _cpt and _cpt_rev return the
 * new value when flag is nonzero and the old one when it is zero, TYPE_OP_
 * RTYPE takes a wider right-hand side, rd/wr/swp read, write and exchange,
 * val_N_cas/bool_N_cas are OpenMP 5.1's compare forms, and __kmpc_atomic_N
 * applies the compiler's function f(out, old, rhs) to an N-byte object.
 *
 * Every typed entry is one compare-and-swap loop over the object (the
 * compiler's __atomic builtins: lock-free up to 8 bytes, libatomic for the
 * 16- and 32-byte long double and complex objects, which is also what
 * clang's own atomics on those types call, so both stay atomic with each
 * other).  A loop on a floating-point object compares its bytes, not its
 * value: a NaN or -0.0 does not make it spin.
 */
#include <complex.h>
#include <stdbool.h>
#include <string.h>

#include "kmp.h"

void GOMP_atomic_start(void);
void GOMP_atomic_end(void);

typedef unsigned char kmp_uint8;
typedef float _Complex kmp_cmplx32;
typedef double _Complex kmp_cmplx64;
typedef long double _Complex kmp_cmplx80;

#define SEQ __ATOMIC_SEQ_CST

/* n = EXPR(o, r) until *lhs is swapped from o to n; o and n stay in scope */
#define CAS_LOOP(T, lhs, EXPR)                                                          \
    T o, n;                                                                             \
    __atomic_load(lhs, &o, SEQ);                                                        \
    do {                                                                                \
        n = (T)(EXPR);                                                                  \
    } while (!__atomic_compare_exchange(lhs, &o, &n, false, SEQ, SEQ))

/* TYPE_OP, and its capture (flag: the new value, else the old one) */
#define UPDATE(NAME, T, EXPR)                                                           \
    KMP_EXPORT void __kmpc_atomic_##NAME(ident_t *loc, kmp_int32 gtid, T *lhs, T r)     \
    {                                                                                   \
        (void)loc;                                                                      \
        (void)gtid;                                                                     \
        CAS_LOOP(T, lhs, EXPR);                                                         \
    }
#define CAPTURE(NAME, T, EXPR)                                                          \
    KMP_EXPORT T __kmpc_atomic_##NAME(ident_t *loc, kmp_int32 gtid, T *lhs, T r,        \
                                      int flag)                                         \
    {                                                                                   \
        (void)loc;                                                                      \
        (void)gtid;                                                                     \
        CAS_LOOP(T, lhs, EXPR);                                                         \
        return flag ? n : o;                                                            \
    }
/* libomp's float _Complex captures and swap return through out (kmp_atomic.h:
 * "workaround for cmplx4") */
#define CAPTURE_OUT(NAME, T, EXPR)                                                      \
    KMP_EXPORT void __kmpc_atomic_##NAME(ident_t *loc, kmp_int32 gtid, T *lhs, T r,     \
                                         T *out, int flag)                              \
    {                                                                                   \
        (void)loc;                                                                      \
        (void)gtid;                                                                     \
        CAS_LOOP(T, lhs, EXPR);                                                         \
        *out = flag ? n : o;                                                            \
    }
/* TYPE_OP_RTYPE: a right-hand side of a wider type, the result converted */
#define MIXED(NAME, T, RT, EXPR)                                                        \
    KMP_EXPORT void __kmpc_atomic_##NAME(ident_t *loc, kmp_int32 gtid, T *lhs, RT r)    \
    {                                                                                   \
        (void)loc;                                                                      \
        (void)gtid;                                                                     \
        CAS_LOOP(T, lhs, EXPR);                                                         \
    }

#define RD(ID, T)                                                                       \
    KMP_EXPORT T __kmpc_atomic_##ID##_rd(ident_t *loc, kmp_int32 gtid, T *p)            \
    {                                                                                   \
        (void)loc;                                                                      \
        (void)gtid;                                                                     \
        T v;                                                                            \
        __atomic_load(p, &v, SEQ);                                                      \
        return v;                                                                       \
    }
#define WR(ID, T)                                                                       \
    KMP_EXPORT void __kmpc_atomic_##ID##_wr(ident_t *loc, kmp_int32 gtid, T *lhs, T r)  \
    {                                                                                   \
        (void)loc;                                                                      \
        (void)gtid;                                                                     \
        __atomic_store(lhs, &r, SEQ);                                                   \
    }
#define SWP(ID, T)                                                                      \
    KMP_EXPORT T __kmpc_atomic_##ID##_swp(ident_t *loc, kmp_int32 gtid, T *lhs, T r)    \
    {                                                                                   \
        (void)loc;                                                                      \
        (void)gtid;                                                                     \
        T old;                                                                          \
        __atomic_exchange(lhs, &r, &old, SEQ);                                          \
        return old;                                                                     \
    }

/* o OP r; with its capture, and the reversed forms where libomp has them */
#define OP2(ID, OPN, T, EXPR)                                                           \
    UPDATE(ID##_##OPN, T, EXPR)                                                         \
    CAPTURE(ID##_##OPN##_cpt, T, EXPR)
#define OP2_REV(ID, OPN, T, EXPR, REXPR)                                                \
    OP2(ID, OPN, T, EXPR)                                                               \
    UPDATE(ID##_##OPN##_rev, T, REXPR)                                                  \
    CAPTURE(ID##_##OPN##_cpt_rev, T, REXPR)

/* The integer types: fixed1 (char), fixed2, fixed4, fixed8, and their
 * unsigned forms for division and right shift. */
#define FIXED(ID, T)                                                                    \
    OP2(ID, add, T, o + r)                                                              \
    OP2_REV(ID, sub, T, o - r, r - o)                                                   \
    OP2(ID, mul, T, o * r)                                                              \
    OP2_REV(ID, div, T, o / r, r / o)                                                   \
    OP2(ID, andb, T, o & r)                                                             \
    OP2(ID, orb, T, o | r)                                                              \
    OP2(ID, xor, T, o ^ r)                                                              \
    OP2(ID, andl, T, o && r)                                                            \
    OP2(ID, orl, T, o || r)                                                             \
    OP2(ID, eqv, T, ~(o ^ r))                                                           \
    OP2(ID, neqv, T, o ^ r)                                                             \
    OP2_REV(ID, shl, T, o << r, r << o)                                                 \
    OP2_REV(ID, shr, T, o >> r, r >> o)                                                 \
    OP2(ID, min, T, o > r ? r : o)                                                      \
    OP2(ID, max, T, o < r ? r : o)                                                      \
    MIXED(ID##_mul_float8, T, double, o * r)                                            \
    MIXED(ID##_div_float8, T, double, o / r)                                            \
    RD(ID, T)                                                                           \
    WR(ID, T)                                                                           \
    SWP(ID, T)
#define FIXED_U(ID, T)                                                                  \
    OP2_REV(ID, div, T, o / r, r / o)                                                   \
    OP2_REV(ID, shr, T, o >> r, r >> o)

FIXED(fixed1, char)
FIXED(fixed2, short)
FIXED(fixed4, kmp_int32)
FIXED(fixed8, kmp_int64)
FIXED_U(fixed1u, kmp_uint8)
FIXED_U(fixed2u, unsigned short)
FIXED_U(fixed4u, kmp_uint32)
FIXED_U(fixed8u, kmp_uint64)

/* float4, float8 and float10 (long double) */
#define FLOAT(ID, T)                                                                    \
    OP2(ID, add, T, o + r)                                                              \
    OP2_REV(ID, sub, T, o - r, r - o)                                                   \
    OP2(ID, mul, T, o * r)                                                              \
    OP2_REV(ID, div, T, o / r, r / o)                                                   \
    OP2(ID, min, T, o > r ? r : o)                                                      \
    OP2(ID, max, T, o < r ? r : o)                                                      \
    RD(ID, T)                                                                           \
    WR(ID, T)                                                                           \
    SWP(ID, T)

FLOAT(float4, float)
FLOAT(float8, double)
FLOAT(float10, long double)
MIXED(float4_add_float8, float, double, o + r)
MIXED(float4_sub_float8, float, double, o - r)
MIXED(float4_mul_float8, float, double, o * r)
MIXED(float4_div_float8, float, double, o / r)

/* cmplx4 (float _Complex), cmplx8, cmplx10 (long double _Complex) */
#define CMPLX_UPDATES(ID, T)                                                            \
    UPDATE(ID##_add, T, o + r)                                                          \
    UPDATE(ID##_sub, T, o - r)                                                          \
    UPDATE(ID##_mul, T, o * r)                                                          \
    UPDATE(ID##_div, T, o / r)                                                          \
    UPDATE(ID##_sub_rev, T, r - o)                                                      \
    UPDATE(ID##_div_rev, T, r / o)                                                      \
    RD(ID, T)                                                                           \
    WR(ID, T)
#define COMPLEX(ID, T)                                                                    \
    CMPLX_UPDATES(ID, T)                                                                \
    CAPTURE(ID##_add_cpt, T, o + r)                                                     \
    CAPTURE(ID##_sub_cpt, T, o - r)                                                     \
    CAPTURE(ID##_mul_cpt, T, o * r)                                                     \
    CAPTURE(ID##_div_cpt, T, o / r)                                                     \
    CAPTURE(ID##_sub_cpt_rev, T, r - o)                                                 \
    CAPTURE(ID##_div_cpt_rev, T, r / o)                                                 \
    SWP(ID, T)

COMPLEX(cmplx8, kmp_cmplx64)
COMPLEX(cmplx10, kmp_cmplx80)
CMPLX_UPDATES(cmplx4, kmp_cmplx32)
CAPTURE_OUT(cmplx4_add_cpt, kmp_cmplx32, o + r)
CAPTURE_OUT(cmplx4_sub_cpt, kmp_cmplx32, o - r)
CAPTURE_OUT(cmplx4_mul_cpt, kmp_cmplx32, o * r)
CAPTURE_OUT(cmplx4_div_cpt, kmp_cmplx32, o / r)
CAPTURE_OUT(cmplx4_sub_cpt_rev, kmp_cmplx32, r - o)
CAPTURE_OUT(cmplx4_div_cpt_rev, kmp_cmplx32, r / o)
MIXED(cmplx4_add_cmplx8, kmp_cmplx32, kmp_cmplx64, o + r)
MIXED(cmplx4_sub_cmplx8, kmp_cmplx32, kmp_cmplx64, o - r)
MIXED(cmplx4_mul_cmplx8, kmp_cmplx32, kmp_cmplx64, o * r)
MIXED(cmplx4_div_cmplx8, kmp_cmplx32, kmp_cmplx64, o / r)

KMP_EXPORT void __kmpc_atomic_cmplx4_swp(ident_t *loc, kmp_int32 gtid, kmp_cmplx32 *lhs,
                                         kmp_cmplx32 r, kmp_cmplx32 *out)
{
    (void)loc;
    (void)gtid;
    __atomic_exchange(lhs, &r, out, SEQ);
}

/* OpenMP 5.1 compare: bool_N_cas { r = x == e; if (r) x = d; } returns r;
 * val_N_cas returns the old value; the _cpt forms also capture into *pv:
 * bool's the old value when the comparison failed, val's the value x
 * holds afterwards. */
#define CAS(N, T)                                                                       \
    KMP_EXPORT bool __kmpc_atomic_bool_##N##_cas(ident_t *loc, int gtid, T *x, T e, T d) \
    {                                                                                   \
        (void)loc;                                                                      \
        (void)gtid;                                                                     \
        return __atomic_compare_exchange_n(x, &e, d, false, SEQ, SEQ);                  \
    }                                                                                   \
    KMP_EXPORT T __kmpc_atomic_val_##N##_cas(ident_t *loc, int gtid, T *x, T e, T d)    \
    {                                                                                   \
        (void)loc;                                                                      \
        (void)gtid;                                                                     \
        __atomic_compare_exchange_n(x, &e, d, false, SEQ, SEQ);                         \
        return e;   /* the old value either way */                                      \
    }                                                                                   \
    KMP_EXPORT bool __kmpc_atomic_bool_##N##_cas_cpt(ident_t *loc, int gtid, T *x, T e, \
                                                     T d, T *pv)                        \
    {                                                                                   \
        (void)loc;                                                                      \
        (void)gtid;                                                                     \
        if (__atomic_compare_exchange_n(x, &e, d, false, SEQ, SEQ))                     \
            return true;                                                                \
        *pv = e;                                                                        \
        return false;                                                                   \
    }                                                                                   \
    KMP_EXPORT T __kmpc_atomic_val_##N##_cas_cpt(ident_t *loc, int gtid, T *x, T e, T d, \
                                                 T *pv)                                 \
    {                                                                                   \
        (void)loc;                                                                      \
        (void)gtid;                                                                     \
        T old = e;                                                                      \
        bool ok = __atomic_compare_exchange_n(x, &old, d, false, SEQ, SEQ);             \
        *pv = ok ? d : old;                                                             \
        return old;                                                                     \
    }

CAS(1, char)
CAS(2, short)
CAS(4, kmp_int32)
CAS(8, kmp_int64)

/* __kmpc_atomic_N: f(out, old, rhs) computes the new value of an N-byte
 * object.  Up to 8 bytes a compare-and-swap loop; larger objects under
 * the lock __kmpc_atomic_start takes (libomp too takes a lock for them). */
#define GENERIC_CAS(N, T)                                                               \
    KMP_EXPORT void __kmpc_atomic_##N(ident_t *loc, kmp_int32 gtid, void *lhs, void *rhs, \
                                      void (*f)(void *, void *, void *))                \
    {                                                                                   \
        (void)loc;                                                                      \
        (void)gtid;                                                                     \
        T *p = lhs, o, n;                                                               \
        __atomic_load(p, &o, SEQ);                                                      \
        do {                                                                            \
            T cur = o;                                                                  \
            f(&n, &cur, rhs);                                                           \
        } while (!__atomic_compare_exchange(p, &o, &n, false, SEQ, SEQ));               \
    }
#define GENERIC_LOCKED(N)                                                               \
    KMP_EXPORT void __kmpc_atomic_##N(ident_t *loc, kmp_int32 gtid, void *lhs, void *rhs, \
                                      void (*f)(void *, void *, void *))                \
    {                                                                                   \
        (void)loc;                                                                      \
        (void)gtid;                                                                     \
        GOMP_atomic_start();                                                            \
        f(lhs, lhs, rhs);                                                               \
        GOMP_atomic_end();                                                              \
    }

GENERIC_CAS(1, kmp_uint8)
GENERIC_CAS(2, unsigned short)
GENERIC_CAS(4, kmp_uint32)
GENERIC_CAS(8, kmp_uint64)
GENERIC_LOCKED(10)
GENERIC_LOCKED(16)
GENERIC_LOCKED(20)
GENERIC_LOCKED(32)
