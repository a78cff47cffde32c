/*
 * Private to the reference: the value of every operation on one element.
 *
 * This is the definition docs/ENGINE.md states, written once.  The naive
 * evaluator and the fast kernels both call these functions, so that a
 * float operation is the same IEEE expression, rounded to the dtype at the
 * same points, in both (bit-identical results); what the two evaluators do
 * differently is which elements they combine, which is what they check.
 * tests/test_tensor_ops.c pins the values themselves by hand.
 *
 * Names are <dtype>_<op>: bool, i8, u8, i32, i64, f32, f64, f16.
 */
#ifndef BC_REFERENCE_SCALAR_H
#define BC_REFERENCE_SCALAR_H

#include <stdint.h>

#include "broadcheck/tensor.h"

/* Integers: add, sub and mul wrap (two's complement), computed in the
 * unsigned type so that no signed overflow happens; the conversion back
 * is GCC/Clang's documented modulo conversion.  div truncates toward 0,
 * x / 0 is 0 and MIN / -1 is MIN (the wrapped quotient). */
/* The variants of docs/ENGINE.md "Value semantics" (bc_op_under).  Every
 * division keeps the reference's x / 0 = 0 (no generated case divides by
 * 0); floor keeps MIN / -1 = MIN, the rounding ones saturate it to MAX.
 * Saturating arithmetic clamps the exact result to [MINV, MAXV], found with
 * the overflow builtins of GCC and Clang. */
#define BC_SCALAR_INT(N, T, U, MINV, MAXV)                                             \
    static inline T N##_add(T a, T b) { return (T)((U)a + (U)b); }                     \
    static inline T N##_sub(T a, T b) { return (T)((U)a - (U)b); }                     \
    static inline T N##_mul(T a, T b) { return (T)((U)a * (U)b); }                     \
    static inline T N##_div(T a, T b)                                                  \
    {                                                                                  \
        return b == 0 ? (T)0 : (a == (MINV) && b == (T)-1) ? a : (T)(a / b);           \
    }                                                                                  \
    static inline T N##_max(T a, T b) { return a > b ? a : b; }                        \
    static inline T N##_min(T a, T b) { return a < b ? a : b; }                        \
    static inline uint8_t N##_equal(T a, T b) { return (uint8_t)(a == b); }            \
    static inline uint8_t N##_less(T a, T b) { return (uint8_t)(a < b); }              \
    static inline uint8_t N##_and(T a, T b) { return (uint8_t)((a != 0) & (b != 0)); } \
    static inline uint8_t N##_or(T a, T b) { return (uint8_t)((a != 0) | (b != 0)); }  \
    static inline T N##_sum_init(void) { return 0; }                                  \
    static inline T N##_div_floor(T a, T b)                                            \
    {                                                                                  \
        if (b == 0 || (a == (MINV) && b == (T)-1))                                     \
            return N##_div(a, b);                                                      \
        T q = (T)(a / b);                                                              \
        return (T)(a % b != 0 && bc_neg(a) != bc_neg(b) ? q - 1 : q);                   \
    }                                                                                  \
    static inline T N##_div_nearest_f32(T a, T b)                                      \
    {                                                                                  \
        if (b == 0)                                                                    \
            return 0;                                                                  \
        float q = bc_round_half_even_f32((float)a / (float)b);                        \
        return q >= (float)(MAXV) ? (MAXV) : q <= (float)(MINV) ? (MINV) : (T)q;       \
    }                                                                                  \
    static inline T N##_div_nearest(T a, T b)                                          \
    {                                                                                  \
        if (b == 0)                                                                    \
            return 0;                                                                  \
        if (a == (MINV) && b == (T)-1) /* the quotient MAXV + 1 saturates */           \
            return bc_neg((T)-1) ? (MAXV) : (T)(a / b);                                \
        T q = (T)(a / b), r = (T)(a % b);                                              \
        /* |r| >= |b| - |r|: half or more of |b| left, away from 0 (unsigned: no  \
         * overflow at INT64_MIN) */                                                    \
        uint64_t ur = bc_neg(r) ? 0 - (uint64_t)r : (uint64_t)r;                       \
        uint64_t ub = bc_neg(b) ? 0 - (uint64_t)b : (uint64_t)b;                       \
        if (ur != 0 && ur >= ub - ur)                                                  \
            q = (T)(bc_neg(a) != bc_neg(b) ? q - 1 : q + 1);                           \
        return q;                                                                      \
    }                                                                                  \
    static inline T N##_add_saturate(T a, T b)                                         \
    {                                                                                  \
        T r;                                                                           \
        return __builtin_add_overflow(a, b, &r) ? (b > 0 ? (MAXV) : (MINV)) : r;       \
    }                                                                                  \
    static inline T N##_sub_saturate(T a, T b)                                         \
    {                                                                                  \
        T r;                                                                           \
        return __builtin_sub_overflow(a, b, &r) ? (bc_neg(b) ? (MAXV) : (MINV)) : r;       \
    }                                                                                  \
    static inline T N##_mul_saturate(T a, T b)                                         \
    {                                                                                  \
        T r;                                                                           \
        return __builtin_mul_overflow(a, b, &r) ? (bc_neg(a) != bc_neg(b) ? (MINV) : (MAXV)) \
                                                : r;                                   \
    }                                                                                  \
    static inline T N##_sub_xor(T a, T b) { return N##_sub(a, b); }

/* x < 0 for any integer type (a function: uint8_t's x < 0 would warn). */
static inline int bc_neg(int64_t x) { return x < 0; }

/* Round half to even without fenv: x is finite; |x| >= 2^23 is an integer. */
static inline float bc_round_half_even_f32(float x)
{
    float a = x < 0 ? -x : x;
    if (!(a < 8388608.0f))
        return x;
    float f = (float)(int32_t)a, d = a - f; /* a < 2^23: exact */
    float r = d > 0.5f ? f + 1 : d < 0.5f ? f : ((int32_t)f % 2 ? f + 1 : f);
    return x < 0 ? -r : r;
}

/* Semantics name integer choices: on floats and bool each variant is the op
 * itself (bc_op_under never picks one there; the kernel tables need them). */
#define BC_SCALAR_SAME_VARIANTS(N, T)                                                  \
    static inline T N##_div_floor(T a, T b) { return N##_div(a, b); }                  \
    static inline T N##_div_nearest_f32(T a, T b) { return N##_div(a, b); }            \
    static inline T N##_div_nearest(T a, T b) { return N##_div(a, b); }                \
    static inline T N##_add_saturate(T a, T b) { return N##_add(a, b); }               \
    static inline T N##_sub_saturate(T a, T b) { return N##_sub(a, b); }               \
    static inline T N##_mul_saturate(T a, T b) { return N##_mul(a, b); }              \
    static inline T N##_sub_xor(T a, T b) { return N##_sub(a, b); }

/* Floats: IEEE arithmetic, each result rounded to T (the cast; for
 * _Float16 the arithmetic happens in float, which rounds binary16 + - * /
 * correctly).  max and min: NaN if either operand is NaN (a's if a is,
 * else b's); otherwise the larger (smaller), with max(-0, +0) = +0 and
 * min(-0, +0) = -0 whatever the order (IEEE 754-2019 maximum/minimum).
 * Comparisons are IEEE: NaN equals nothing, -0 == +0.  Logical ops: x is
 * true when x != 0, so NaN is true and -0 is false.  C is the type the
 * comparisons are made in: T itself, or float for _Float16, whose values
 * float holds exactly (NaNs stay NaNs, zeros keep their sign): GCC 12 has
 * no binary16 comparison and calls libgcc's (__nehf2 ...) for one, where
 * a conversion to float is one instruction on a CPU with F16C (fast.c). */
/* The NaN and zero tests of max and min, on the comparison type C.  For
 * float16 (C float) they look at the converted float's bits: GCC 12 turns
 * `x != x` and `x == 0` on a float converted from a _Float16 back into
 * binary16 comparisons, each a libgcc call (__nehf2, __eqhf2), which the
 * F16C kernels (fast.c) would otherwise still make. */
#define BC_NAN_BY_VALUE(x) ((x) != (x))
#define BC_ZERO_BY_VALUE(x) ((x) == 0)
static inline uint32_t bc_float_bits(float x)
{
    union { float f; uint32_t u; } v = {x};
    return v.u;
}
#define BC_NAN_BY_BITS(x) ((bc_float_bits(x) & 0x7fffffffu) > 0x7f800000u)
#define BC_ZERO_BY_BITS(x) ((bc_float_bits(x) & 0x7fffffffu) == 0)

#define BC_SCALAR_FLOAT(N, T, C, ISNAN, ISZERO)                                        \
    static inline T N##_add(T a, T b) { return (T)(a + b); }                           \
    static inline T N##_sub(T a, T b) { return (T)(a - b); }                           \
    static inline T N##_mul(T a, T b) { return (T)(a * b); }                           \
    static inline T N##_div(T a, T b) { return (T)(a / b); }                           \
    static inline T N##_max(T a, T b)                                                  \
    {                                                                                  \
        const C x = (C)a, y = (C)b;                                                    \
        return ISNAN(x) ? a : ISNAN(y) ? b : x > y ? a : y > x ? b : ISZERO(x) ? (T)(a + b) : a; \
    }                                                                                  \
    static inline T N##_min(T a, T b)                                                  \
    {                                                                                  \
        const C x = (C)a, y = (C)b;                                                    \
        return ISNAN(x) ? a : ISNAN(y) ? b : x < y ? a : y < x ? b                     \
             : ISZERO(x) ? (T)-(T)(-a + -b) : a;                                       \
    }                                                                                  \
    static inline uint8_t N##_equal(T a, T b) { return (uint8_t)((C)a == (C)b); }      \
    static inline uint8_t N##_less(T a, T b) { return (uint8_t)((C)a < (C)b); }        \
    static inline uint8_t N##_and(T a, T b) { return (uint8_t)(((C)a != 0) & ((C)b != 0)); } \
    static inline uint8_t N##_or(T a, T b) { return (uint8_t)(((C)a != 0) | ((C)b != 0)); } \
    /* -0.0 + x == x for every x, signed zeros included */                           \
    static inline T N##_sum_init(void) { return (T)-0.0; }                             \
    BC_SCALAR_SAME_VARIANTS(N, T)

/* Bool (bytes 0/1; nonzero reads as true): add is or and mul is and (as
 * numpy); max is or, min is and; sub and div are refused before any
 * kernel runs (bc_op_takes_dtype), except sub as the variant sub(xor)
 * (semantics bool_sub=xor: bool_sub_xor is bool_sub, true - true is
 * false); bool_div is never called. */
static inline uint8_t bool_add(uint8_t a, uint8_t b) { return (uint8_t)((a != 0) | (b != 0)); }
static inline uint8_t bool_sub(uint8_t a, uint8_t b) { return (uint8_t)((a != 0) ^ (b != 0)); }
static inline uint8_t bool_mul(uint8_t a, uint8_t b) { return (uint8_t)((a != 0) & (b != 0)); }
static inline uint8_t bool_div(uint8_t a, uint8_t b) { (void)b; return (uint8_t)(a != 0); }
static inline uint8_t bool_max(uint8_t a, uint8_t b) { return (uint8_t)((a != 0) | (b != 0)); }
static inline uint8_t bool_min(uint8_t a, uint8_t b) { return (uint8_t)((a != 0) & (b != 0)); }
static inline uint8_t bool_equal(uint8_t a, uint8_t b) { return (uint8_t)((a != 0) == (b != 0)); }
static inline uint8_t bool_less(uint8_t a, uint8_t b) { return (uint8_t)((a == 0) & (b != 0)); }
static inline uint8_t bool_and(uint8_t a, uint8_t b) { return (uint8_t)((a != 0) & (b != 0)); }
static inline uint8_t bool_or(uint8_t a, uint8_t b) { return (uint8_t)((a != 0) | (b != 0)); }
static inline uint8_t bool_sum_init(void) { return 0; }
BC_SCALAR_SAME_VARIANTS(bool, uint8_t)

BC_SCALAR_INT(i8, int8_t, uint8_t, INT8_MIN, INT8_MAX)
BC_SCALAR_INT(u8, uint8_t, uint8_t, 0, UINT8_MAX)
BC_SCALAR_INT(i32, int32_t, uint32_t, INT32_MIN, INT32_MAX)
BC_SCALAR_INT(i64, int64_t, uint64_t, INT64_MIN, INT64_MAX)
BC_SCALAR_FLOAT(f32, float, float, BC_NAN_BY_VALUE, BC_ZERO_BY_VALUE)
BC_SCALAR_FLOAT(f64, double, double, BC_NAN_BY_VALUE, BC_ZERO_BY_VALUE)
#if BC_HAVE_FLOAT16
BC_SCALAR_FLOAT(f16, _Float16, float, BC_NAN_BY_BITS, BC_ZERO_BY_BITS)
#endif

/* X(dtype enum, short name, C type) for every dtype this build computes with. */
#if BC_HAVE_FLOAT16
#define BC_FOR_F16(X) X(BC_FLOAT16, f16, _Float16)
#else
#define BC_FOR_F16(X)
#endif
#define BC_FOR_EACH_DTYPE(X)                                                           \
    X(BC_BOOL, bool, uint8_t)                                                          \
    X(BC_INT8, i8, int8_t)                                                             \
    X(BC_UINT8, u8, uint8_t)                                                           \
    X(BC_INT32, i32, int32_t)                                                          \
    X(BC_INT64, i64, int64_t)                                                          \
    X(BC_FLOAT32, f32, float)                                                          \
    X(BC_FLOAT64, f64, double)                                                         \
    BC_FOR_F16(X)

/* X(op enum, name, result type): every op the evaluators compute, the
 * semantic variants included. */
#define BC_FOR_EACH_OP(X, N, T)                                                        \
    X(BC_OP_ADD, N, T, add, T)                                                         \
    X(BC_OP_SUB, N, T, sub, T)                                                         \
    X(BC_OP_MUL, N, T, mul, T)                                                         \
    X(BC_OP_DIV, N, T, div, T)                                                         \
    X(BC_OP_MAX, N, T, max, T)                                                         \
    X(BC_OP_MIN, N, T, min, T)                                                         \
    X(BC_OP_EQUAL, N, T, equal, uint8_t)                                               \
    X(BC_OP_LESS, N, T, less, uint8_t)                                                 \
    X(BC_OP_AND, N, T, and, uint8_t)                                                   \
    X(BC_OP_OR, N, T, or, uint8_t)                                                     \
    X(BC_OP_DIV_FLOOR, N, T, div_floor, T)                                             \
    X(BC_OP_DIV_NEAREST_F32, N, T, div_nearest_f32, T)                                 \
    X(BC_OP_DIV_NEAREST, N, T, div_nearest, T)                                         \
    X(BC_OP_ADD_SATURATE, N, T, add_saturate, T)                                       \
    X(BC_OP_SUB_SATURATE, N, T, sub_saturate, T)                                       \
    X(BC_OP_MUL_SATURATE, N, T, mul_saturate, T)                                       \
    X(BC_OP_SUB_XOR, N, T, sub_xor, T)

#endif
