/*
 * The compute engine pinned on hand-computed values: every operation under
 * every rule it takes, each answer worked out on paper and checked against
 * BOTH evaluators, so that they cannot share a mistake unnoticed.  Plus the
 * exact value semantics (integer wrap, division by zero, NaN, signed zero),
 * layouts, aliasing and the errors.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "broadcheck/tensor.h"

#include "test_shapes.h"

/* ---- helpers --------------------------------------------------------- */

static int64_t numel(const bc_shape *s)
{
    int64_t n;
    assert_int_equal(bc_shape_numel(s, &n), BC_OK);
    return n;
}

static bc_params P(bc_rule r)
{
    return bc_params_for(r);
}

static bc_params pdpd(int64_t axis, bc_profile prof)
{
    bc_params p = bc_params_for(BC_RULE_PDPD);
    p.options = BC_OPT_AXIS | BC_OPT_PROFILE;
    p.axis = axis;
    p.profile = prof;
    return p;
}

static bc_params explicit_(unsigned form, int n, const int64_t *axes)
{
    bc_params p = bc_params_for(BC_RULE_EXPLICIT);
    p.options = form;
    p.naxes = n;
    for (int i = 0; i < n; i++)
        p.axes[i] = axes[i];
    return p;
}

static void *out_buffer(bc_dtype t, const bc_shape *s)
{
    size_t n = (size_t)numel(s) * bc_dtype_size(t) + 8;
    void *p = malloc(n);
    memset(p, 0xA5, n);
    return p;
}

static void describe(bc_dtype t, const void *v, int64_t i, char *buf, size_t cap)
{
    const char *c = (const char *)v + i * (int64_t)bc_dtype_size(t);
    switch (t) {
    case BC_BOOL: case BC_UINT8: snprintf(buf, cap, "%u", *(const uint8_t *)c); break;
    case BC_INT8: snprintf(buf, cap, "%d", *(const int8_t *)c); break;
    case BC_INT32: snprintf(buf, cap, "%d", *(const int32_t *)c); break;
    case BC_INT64: snprintf(buf, cap, "%lld", (long long)*(const int64_t *)c); break;
    case BC_FLOAT32: snprintf(buf, cap, "%a", (double)*(const float *)c); break;
    case BC_FLOAT64: snprintf(buf, cap, "%a", *(const double *)c); break;
    default: snprintf(buf, cap, "(%s)", bc_dtype_name(t)); break;
    }
}

/* Bit-exact comparison: signed zeros and NaN payloads included. */
static void expect_values(const char *what, bc_evaluator ev, bc_dtype t, const void *got,
                          const void *want, int64_t n)
{
    size_t sz = bc_dtype_size(t);
    for (int64_t i = 0; i < n; i++)
        if (memcmp((const char *)got + i * (int64_t)sz, (const char *)want + i * (int64_t)sz, sz)) {
            char g[64], w[64];
            describe(t, got, i, g, sizeof g);
            describe(t, want, i, w, sizeof w);
            fail_msg("%s (%s): element %lld is %s, expected %s", what, bc_evaluator_name(ev),
                     (long long)i, g, w);
        }
}

static void expect_binary(bc_op op, bc_params p, bc_dtype t, const char *as, const void *a,
                          const char *bs, const void *b, const char *rs, const void *want)
{
    bc_shape sa = sh(as), sb = sh(bs), sr = sh(rs);
    bc_dtype rt = bc_op_result_dtype(op, t);
    for (int ev = 0; ev < BC_EVAL_COUNT; ev++) {
        void *o = out_buffer(rt, &sr);
        bc_tensor A = bc_tensor_contiguous(t, &sa, (void *)a);
        bc_tensor B = bc_tensor_contiguous(t, &sb, (void *)b);
        bc_tensor O = bc_tensor_contiguous(rt, &sr, o);
        bc_error err;
        if (bc_eval_binary((bc_evaluator)ev, op, &p, &A, &B, &O, &err))
            fail_msg("%s %s %s %s: %s", bc_op_name(op), bc_rule_name(p.rule), as, bs, err.message);
        char what[160];
        snprintf(what, sizeof what, "%s %s %s %s %s", bc_op_name(op), bc_dtype_name(t),
                 bc_rule_name(p.rule), as, bs);
        expect_values(what, (bc_evaluator)ev, rt, o, want, numel(&sr));
        free(o);
    }
}

static void expect_binary_error(bc_op op, bc_params p, bc_dtype t, const char *as,
                                const char *bs, const char *rs, bc_error_kind kind,
                                const char *msg_part)
{
    bc_shape sa = sh(as), sb = sh(bs), sr = sh(rs);
    static char buf[4096];
    for (int ev = 0; ev < BC_EVAL_COUNT; ev++) {
        bc_tensor A = bc_tensor_contiguous(t, &sa, buf);
        bc_tensor B = bc_tensor_contiguous(t, &sb, buf + 1024);
        bc_tensor O = bc_tensor_contiguous(bc_op_result_dtype(op, t), &sr, buf + 2048);
        bc_error err;
        bc_error_kind k = bc_eval_binary((bc_evaluator)ev, op, &p, &A, &B, &O, &err);
        if (k != kind)
            fail_msg("%s %s %s: got %s, expected %s", bc_op_name(op), as, bs,
                     bc_error_kind_name(k), bc_error_kind_name(kind));
        if (msg_part && !strstr(err.message, msg_part))
            fail_msg("message '%s' lacks '%s'", err.message, msg_part);
    }
}

/* ---- every op, float32, numpy [2,3] op [3] ---------------------------- */

static void test_float_ops_numpy(void **state)
{
    (void)state;
    const float a[] = {1, 2, 3, -4, 5, 6}, b[] = {2, -2, 3};
    const bc_params np = P(BC_RULE_NUMPY);
    expect_binary(BC_OP_ADD, np, BC_FLOAT32, "[2,3]", a, "[3]", b, "[2,3]",
                  (float[]){3, 0, 6, -2, 3, 9});
    expect_binary(BC_OP_SUB, np, BC_FLOAT32, "[2,3]", a, "[3]", b, "[2,3]",
                  (float[]){-1, 4, 0, -6, 7, 3});
    expect_binary(BC_OP_MUL, np, BC_FLOAT32, "[2,3]", a, "[3]", b, "[2,3]",
                  (float[]){2, -4, 9, -8, -10, 18});
    expect_binary(BC_OP_DIV, np, BC_FLOAT32, "[2,3]", a, "[3]", b, "[2,3]",
                  (float[]){0.5f, -1, 1, -2, -2.5f, 2});
    expect_binary(BC_OP_MAX, np, BC_FLOAT32, "[2,3]", a, "[3]", b, "[2,3]",
                  (float[]){2, 2, 3, 2, 5, 6});
    expect_binary(BC_OP_MIN, np, BC_FLOAT32, "[2,3]", a, "[3]", b, "[2,3]",
                  (float[]){1, -2, 3, -4, -2, 3});
    expect_binary(BC_OP_EQUAL, np, BC_FLOAT32, "[2,3]", a, "[3]", b, "[2,3]",
                  (uint8_t[]){0, 0, 1, 0, 0, 0});
    expect_binary(BC_OP_LESS, np, BC_FLOAT32, "[2,3]", a, "[3]", b, "[2,3]",
                  (uint8_t[]){1, 0, 0, 1, 0, 0});
    const float z[] = {0, 1, -0.0f, 2, NAN, 0}, w[] = {1, 0, 0};
    expect_binary(BC_OP_AND, np, BC_FLOAT32, "[2,3]", z, "[3]", w, "[2,3]",
                  (uint8_t[]){0, 0, 0, 1, 0, 0});
    expect_binary(BC_OP_OR, np, BC_FLOAT32, "[2,3]", z, "[3]", w, "[2,3]",
                  (uint8_t[]){1, 1, 0, 1, 1, 0});
}

/* ---- float semantics: NaN, signed zero, infinities -------------------- */

static void test_float_semantics(void **state)
{
    (void)state;
    const bc_params none = P(BC_RULE_NONE);
    float qnan;
    uint32_t bits = 0x7fc00123u; /* a NaN with a payload: max/min return it untouched */
    memcpy(&qnan, &bits, 4);
    const float a[] = {qnan, 1, -0.0f, 0.0f, -0.0f, 3, -INFINITY};
    const float b[] = {1, qnan, 0.0f, -0.0f, -0.0f, 3, 2};
    expect_binary(BC_OP_MAX, none, BC_FLOAT32, "[7]", a, "[7]", b, "[7]",
                  (float[]){qnan, qnan, 0.0f, 0.0f, -0.0f, 3, 2});
    expect_binary(BC_OP_MIN, none, BC_FLOAT32, "[7]", a, "[7]", b, "[7]",
                  (float[]){qnan, qnan, -0.0f, -0.0f, -0.0f, 3, -INFINITY});
    expect_binary(BC_OP_EQUAL, none, BC_FLOAT32, "[7]", a, "[7]", b, "[7]",
                  (uint8_t[]){0, 0, 1, 1, 1, 1, 0});
    expect_binary(BC_OP_LESS, none, BC_FLOAT32, "[7]", a, "[7]", b, "[7]",
                  (uint8_t[]){0, 0, 0, 0, 0, 0, 1});
    /* signed zero through arithmetic */
    const double x[] = {-0.0, -0.0, 0.0, 1, -1}, y[] = {-0.0, 0.0, -0.0, 0.0, 0.0};
    expect_binary(BC_OP_ADD, none, BC_FLOAT64, "[5]", x, "[5]", y, "[5]",
                  (double[]){-0.0, 0.0, 0.0, 1, -1});
    expect_binary(BC_OP_MUL, none, BC_FLOAT64, "[5]", x, "[5]", y, "[5]",
                  (double[]){0.0, -0.0, -0.0, 0.0, -0.0});
    expect_binary(BC_OP_DIV, none, BC_FLOAT64, "[2]", (double[]){1, -1}, "[2]",
                  (double[]){0.0, 0.0}, "[2]", (double[]){INFINITY, -INFINITY});
    /* 0/0 is a NaN (which one is the hardware's): check by class */
    for (int ev = 0; ev < BC_EVAL_COUNT; ev++) {
        double zero = 0, o = 1;
        bc_shape s = sh("[]");
        bc_tensor A = bc_tensor_contiguous(BC_FLOAT64, &s, &zero);
        bc_tensor O = bc_tensor_contiguous(BC_FLOAT64, &s, &o);
        assert_int_equal(bc_eval_binary((bc_evaluator)ev, BC_OP_DIV, &none, &A, &A, &O, NULL),
                         BC_OK);
        assert_true(isnan(o));
    }
}

/* ---- integer semantics: wrap, division ---------------------------------- */

static void test_integer_semantics(void **state)
{
    (void)state;
    const bc_params none = P(BC_RULE_NONE);
    const int8_t a8[] = {127, -128, 100, -7, 7, -128, 5, 0};
    const int8_t b8[] = {1, -1, 3, 2, -2, -1, 0, 0};
    expect_binary(BC_OP_ADD, none, BC_INT8, "[8]", a8, "[8]", b8, "[8]",
                  (int8_t[]){-128, 127, 103, -5, 5, 127, 5, 0});
    expect_binary(BC_OP_SUB, none, BC_INT8, "[8]", a8, "[8]", b8, "[8]",
                  (int8_t[]){126, -127, 97, -9, 9, -127, 5, 0});
    expect_binary(BC_OP_MUL, none, BC_INT8, "[8]", a8, "[8]", b8, "[8]",
                  (int8_t[]){127, -128, 44, -14, -14, -128, 0, 0}); /* 300 wraps to 44 */
    expect_binary(BC_OP_DIV, none, BC_INT8, "[8]", a8, "[8]", b8, "[8]",
                  (int8_t[]){127, -128, 33, -3, -3, -128, 0, 0}); /* truncation; MIN/-1; x/0 */
    expect_binary(BC_OP_MAX, none, BC_INT8, "[8]", a8, "[8]", b8, "[8]",
                  (int8_t[]){127, -1, 100, 2, 7, -1, 5, 0});
    expect_binary(BC_OP_MIN, none, BC_INT8, "[8]", a8, "[8]", b8, "[8]",
                  (int8_t[]){1, -128, 3, -7, -2, -128, 0, 0});
    expect_binary(BC_OP_AND, none, BC_INT8, "[8]", a8, "[8]", b8, "[8]",
                  (uint8_t[]){1, 1, 1, 1, 1, 1, 0, 0});
    expect_binary(BC_OP_OR, none, BC_INT8, "[8]", a8, "[8]", b8, "[8]",
                  (uint8_t[]){1, 1, 1, 1, 1, 1, 1, 0});

    const int32_t a32[] = {INT32_MAX, INT32_MIN, INT32_MIN, 65536, -9, 9};
    const int32_t b32[] = {1, -1, 0, 65536, 4, -4};
    expect_binary(BC_OP_ADD, none, BC_INT32, "[6]", a32, "[6]", b32, "[6]",
                  (int32_t[]){INT32_MIN, INT32_MAX, INT32_MIN, 131072, -5, 5});
    expect_binary(BC_OP_MUL, none, BC_INT32, "[6]", a32, "[6]", b32, "[6]",
                  (int32_t[]){INT32_MAX, INT32_MIN, 0, 0, -36, -36});
    expect_binary(BC_OP_DIV, none, BC_INT32, "[6]", a32, "[6]", b32, "[6]",
                  (int32_t[]){INT32_MAX, INT32_MIN, 0, 1, -2, -2});
    expect_binary(BC_OP_LESS, none, BC_INT32, "[6]", a32, "[6]", b32, "[6]",
                  (uint8_t[]){0, 1, 1, 0, 1, 0});
    expect_binary(BC_OP_EQUAL, none, BC_INT32, "[6]", a32, "[6]", b32, "[6]",
                  (uint8_t[]){0, 0, 0, 1, 0, 0});

    const int64_t a64[] = {INT64_MAX, INT64_MIN, INT64_MIN, 3}, b64[] = {1, -1, 0, 3};
    expect_binary(BC_OP_ADD, none, BC_INT64, "[4]", a64, "[4]", b64, "[4]",
                  (int64_t[]){INT64_MIN, INT64_MAX, INT64_MIN, 6});
    expect_binary(BC_OP_SUB, none, BC_INT64, "[4]", a64, "[4]", b64, "[4]",
                  (int64_t[]){INT64_MAX - 1, INT64_MIN + 1, INT64_MIN, 0});
    expect_binary(BC_OP_MUL, none, BC_INT64, "[4]", a64, "[4]", b64, "[4]",
                  (int64_t[]){INT64_MAX, INT64_MIN, 0, 9});
    expect_binary(BC_OP_DIV, none, BC_INT64, "[4]", a64, "[4]", b64, "[4]",
                  (int64_t[]){INT64_MAX, INT64_MIN, 0, 1});

    const uint8_t au[] = {0, 255, 200, 7}, bu[] = {1, 1, 2, 0};
    expect_binary(BC_OP_SUB, none, BC_UINT8, "[4]", au, "[4]", bu, "[4]",
                  (uint8_t[]){255, 254, 198, 7});
    expect_binary(BC_OP_ADD, none, BC_UINT8, "[4]", au, "[4]", bu, "[4]",
                  (uint8_t[]){1, 0, 202, 7});
    expect_binary(BC_OP_MUL, none, BC_UINT8, "[4]", au, "[4]", bu, "[4]",
                  (uint8_t[]){0, 255, 144, 0});
    expect_binary(BC_OP_DIV, none, BC_UINT8, "[4]", au, "[4]", bu, "[4]",
                  (uint8_t[]){0, 255, 100, 0});
}

/* The semantic variants (bc_op_under, docs/ENGINE.md "Value semantics"),
 * each worked out by hand, on both evaluators, through the mapping a
 * manifest's "semantics" makes. */
static void test_semantic_variants(void **state)
{
    (void)state;
    const bc_params none = P(BC_RULE_NONE);
    bc_semantics sem = {0};
    assert_int_equal(bc_semantics_set(&sem, "int_div", "floor"), 0);
    bc_op floor_div = bc_op_under(BC_OP_DIV, BC_INT8, &sem);
    assert_int_equal(floor_div, BC_OP_DIV_FLOOR);
    assert_int_equal(bc_op_under(BC_OP_DIV, BC_FLOAT32, &sem), BC_OP_DIV); /* integers only */
    assert_int_equal(bc_op_under(BC_OP_ADD, BC_INT8, &sem), BC_OP_ADD);
    /* 7/2, -7/2, 7/-2, -7/-2, -6/3, -1/9, MIN/-1, x/0 */
    const int8_t a8[] = {7, -7, 7, -7, -6, -1, -128, 5};
    const int8_t b8[] = {2, 2, -2, -2, 3, 9, -1, 0};
    expect_binary(floor_div, none, BC_INT8, "[8]", a8, "[8]", b8, "[8]",
                  (int8_t[]){3, -4, -4, 3, -2, -1, -128, 0});
    const int64_t a64[] = {INT64_MIN, INT64_MIN + 1, -5}, b64[] = {3, 2, INT64_MAX};
    expect_binary(BC_OP_DIV_FLOOR, none, BC_INT64, "[3]", a64, "[3]", b64, "[3]",
                  (int64_t[]){-3074457345618258603, -4611686018427387904, -1});
    const uint8_t au[] = {7, 255, 0}, bu[] = {2, 255, 9};
    expect_binary(BC_OP_DIV_FLOOR, none, BC_UINT8, "[3]", au, "[3]", bu, "[3]",
                  (uint8_t[]){3, 1, 0});

    assert_int_equal(bc_semantics_set(&sem, "int_div", "nearest-f32"), 0);
    assert_int_equal(bc_op_under(BC_OP_DIV, BC_INT32, &sem), BC_OP_DIV_NEAREST_F32);
    /* 5/2 = 2.5 -> 2 and 7/2 = 3.5 -> 4 (half to even), -5/2 -> -2, 5/9 -> 1,
     * 2/3 -> 1, -128/-1 = 128 saturates to 127, 1/3 -> 0, x/0 = 0 */
    const int8_t n8a[] = {5, 7, -5, 5, 2, -128, 1, 3}, n8b[] = {2, 2, 2, 9, 3, -1, 3, 0};
    expect_binary(BC_OP_DIV_NEAREST_F32, none, BC_INT8, "[8]", n8a, "[8]", n8b, "[8]",
                  (int8_t[]){2, 4, -2, 1, 1, 127, 0, 0});
    /* in float32: 16777217 is 16777216, so 16777217 / 1 is 16777216 */
    const int32_t n32a[] = {16777217, INT32_MIN, -3}, n32b[] = {1, -1, 2};
    expect_binary(BC_OP_DIV_NEAREST_F32, none, BC_INT32, "[3]", n32a, "[3]", n32b, "[3]",
                  (int32_t[]){16777216, INT32_MAX, -2});

    assert_int_equal(bc_semantics_set(&sem, "int_div", "nearest"), 0);
    assert_int_equal(bc_op_under(BC_OP_DIV, BC_INT8, &sem), BC_OP_DIV_NEAREST);
    /* half away from 0: 7/2 -> 4, 5/2 -> 3, -5/2 -> -3, -7/2 -> -4, 5/3 -> 2,
     * 4/3 -> 1, -128/-1 = 128 saturates to 127, x/0 = 0 */
    const int8_t r8a[] = {7, 5, -5, -7, 5, 4, -128, 3}, r8b[] = {2, 2, 2, 2, 3, 3, -1, 0};
    expect_binary(BC_OP_DIV_NEAREST, none, BC_INT8, "[8]", r8a, "[8]", r8b, "[8]",
                  (int8_t[]){4, 3, -3, -4, 2, 1, 127, 0});
    const uint8_t r_ua[] = {255, 7, 1}, r_ub[] = {2, 2, 3};
    expect_binary(BC_OP_DIV_NEAREST, none, BC_UINT8, "[3]", r_ua, "[3]", r_ub, "[3]",
                  (uint8_t[]){128, 4, 0});
    /* exact in 64 bits: INT64_MIN / 3 = -3074457345618258602.67 -> ...603 */
    const int64_t r64a[] = {INT64_MIN, INT64_MIN, INT64_MAX}, r64b[] = {3, -1, 2};
    expect_binary(BC_OP_DIV_NEAREST, none, BC_INT64, "[3]", r64a, "[3]", r64b, "[3]",
                  (int64_t[]){-3074457345618258603, INT64_MAX, 4611686018427387904});

    assert_int_equal(bc_semantics_set(&sem, "int_overflow", "saturate"), 0);
    assert_int_equal(bc_op_under(BC_OP_ADD, BC_UINT8, &sem), BC_OP_ADD_SATURATE);
    assert_int_equal(bc_op_under(BC_OP_SUB, BC_INT8, &sem), BC_OP_SUB_SATURATE);
    assert_int_equal(bc_op_under(BC_OP_MUL, BC_INT64, &sem), BC_OP_MUL_SATURATE);
    assert_int_equal(bc_op_under(BC_OP_MAX, BC_INT8, &sem), BC_OP_MAX);
    assert_int_equal(bc_op_under(BC_OP_ADD, BC_FLOAT16, &sem), BC_OP_ADD);
    const int8_t s8a[] = {127, -128, 100, -100, 16, -7}, s8b[] = {1, -1, 100, 100, 113, 2};
    expect_binary(BC_OP_ADD_SATURATE, none, BC_INT8, "[6]", s8a, "[6]", s8b, "[6]",
                  (int8_t[]){127, -128, 127, 0, 127, -5});
    expect_binary(BC_OP_SUB_SATURATE, none, BC_INT8, "[6]", s8a, "[6]", s8b, "[6]",
                  (int8_t[]){126, -127, 0, -128, -97, -9});
    expect_binary(BC_OP_MUL_SATURATE, none, BC_INT8, "[6]", s8a, "[6]", s8b, "[6]",
                  (int8_t[]){127, 127, 127, -128, 127, -14});
    const uint8_t s_ua[] = {1, 200, 16, 3}, s_ub[] = {98, 100, 16, 2};
    expect_binary(BC_OP_ADD_SATURATE, none, BC_UINT8, "[4]", s_ua, "[4]", s_ub, "[4]",
                  (uint8_t[]){99, 255, 32, 5});
    expect_binary(BC_OP_SUB_SATURATE, none, BC_UINT8, "[4]", s_ua, "[4]", s_ub, "[4]",
                  (uint8_t[]){0, 100, 0, 1});
    expect_binary(BC_OP_MUL_SATURATE, none, BC_UINT8, "[4]", s_ua, "[4]", s_ub, "[4]",
                  (uint8_t[]){98, 255, 255, 6});
    const int64_t s64a[] = {INT64_MAX, INT64_MIN}, s64b[] = {2, 2};
    expect_binary(BC_OP_MUL_SATURATE, none, BC_INT64, "[2]", s64a, "[2]", s64b, "[2]",
                  (int64_t[]){INT64_MAX, INT64_MIN});
    expect_binary(BC_OP_SUB_SATURATE, none, BC_INT64, "[2]", s64a, "[2]", s64b, "[2]",
                  (int64_t[]){INT64_MAX - 2, INT64_MIN});

    /* bool_sub=xor: sub on bool is a - b converted back to bool (xor);
     * refused without it, and on other dtypes sub(xor) is sub */
    assert_int_equal(bc_op_under(BC_OP_SUB, BC_BOOL, &sem), BC_OP_SUB);
    assert_int_equal(bc_op_takes_dtype_under(BC_OP_SUB, BC_BOOL, &sem), 0);
    assert_int_equal(bc_semantics_set(&sem, "bool_sub", "xor"), 0);
    assert_int_equal(bc_op_under(BC_OP_SUB, BC_BOOL, &sem), BC_OP_SUB_XOR);
    assert_int_equal(bc_op_under(BC_OP_SUB, BC_INT8, &sem), BC_OP_SUB_SATURATE);
    assert_int_equal(bc_op_takes_dtype_under(BC_OP_SUB, BC_BOOL, &sem), 1);
    assert_int_equal(bc_op_takes_dtype_under(BC_OP_DIV, BC_BOOL, &sem), 0);
    assert_int_equal(bc_op_takes_dtype(BC_OP_SUB, BC_BOOL), 0);
    const uint8_t xa[] = {1, 1, 0, 0}, xb[] = {1, 0, 1, 0};
    expect_binary(BC_OP_SUB_XOR, none, BC_BOOL, "[4]", xa, "[4]", xb, "[4]",
                  (uint8_t[]){0, 1, 1, 0});
    const int8_t xi[] = {-128, 5}, xj[] = {1, 7};
    expect_binary(BC_OP_SUB_XOR, none, BC_INT8, "[2]", xi, "[2]", xj, "[2]",
                  (int8_t[]){127, -2});

    char text[128];
    bc_semantics_format(&sem, text, sizeof text);
    assert_string_equal(text, "int_div=nearest,int_overflow=saturate,bool_sub=xor");
    assert_int_equal(bc_semantics_set(&sem, "bool_sub", "or"), -2);
    bc_semantics limited = {0};
    assert_int_equal(bc_semantics_set(&limited, "max_elements", "int64"), 0);
    limited.max_elements_rules = (1u << BC_RULE_ONNX_UNI) | (1u << BC_RULE_BROADCAST_TO);
    bc_semantics_format(&limited, text, sizeof text);
    assert_string_equal(text, "max_elements=int64 on onnx-uni/broadcast-to");
    assert_int_equal(bc_semantics_set(&sem, "int_div", "round"), -2);
    assert_int_equal(bc_semantics_set(&sem, "intdiv", "floor"), -1);
    bc_semantics none_chosen = {0};
    bc_semantics_format(&none_chosen, text, sizeof text);
    assert_string_equal(text, "");
    assert_string_equal(bc_op_name(BC_OP_DIV_FLOOR), "div(floor)");
    bc_op back;
    assert_int_equal(bc_op_from_name("div(floor)", &back), -1); /* never in a vector line */
}

static void test_bool_ops(void **state)
{
    (void)state;
    const bc_params none = P(BC_RULE_NONE);
    const uint8_t a[] = {0, 0, 1, 1}, b[] = {0, 1, 0, 1};
    expect_binary(BC_OP_ADD, none, BC_BOOL, "[4]", a, "[4]", b, "[4]", (uint8_t[]){0, 1, 1, 1});
    expect_binary(BC_OP_MUL, none, BC_BOOL, "[4]", a, "[4]", b, "[4]", (uint8_t[]){0, 0, 0, 1});
    expect_binary(BC_OP_MAX, none, BC_BOOL, "[4]", a, "[4]", b, "[4]", (uint8_t[]){0, 1, 1, 1});
    expect_binary(BC_OP_MIN, none, BC_BOOL, "[4]", a, "[4]", b, "[4]", (uint8_t[]){0, 0, 0, 1});
    expect_binary(BC_OP_EQUAL, none, BC_BOOL, "[4]", a, "[4]", b, "[4]", (uint8_t[]){1, 0, 0, 1});
    expect_binary(BC_OP_LESS, none, BC_BOOL, "[4]", a, "[4]", b, "[4]", (uint8_t[]){0, 1, 0, 0});
    expect_binary(BC_OP_AND, none, BC_BOOL, "[4]", a, "[4]", b, "[4]", (uint8_t[]){0, 0, 0, 1});
    expect_binary(BC_OP_OR, none, BC_BOOL, "[4]", a, "[4]", b, "[4]", (uint8_t[]){0, 1, 1, 1});
    expect_binary_error(BC_OP_SUB, none, BC_BOOL, "[4]", "[4]", "[4]", BC_ERR_BAD_PARAMS,
                        "not defined on bool");
    expect_binary_error(BC_OP_DIV, none, BC_BOOL, "[4]", "[4]", "[4]", BC_ERR_BAD_PARAMS, NULL);
}

static void test_float16(void **state)
{
    (void)state;
#if BC_HAVE_FLOAT16
    const bc_params np = P(BC_RULE_NUMPY);
    const _Float16 a[] = {1, 2048, (_Float16)0.5f, -0.0f}, b[] = {2};
    /* 2048 + 2 = 2050 is exact in binary16 (11 bits), 2048 * 2 = 4096 */
    expect_binary(BC_OP_ADD, np, BC_FLOAT16, "[4]", a, "[]", b, "[4]",
                  (_Float16[]){3, 2050, (_Float16)2.5f, 2});
    expect_binary(BC_OP_MUL, np, BC_FLOAT16, "[4]", a, "[]", b, "[4]",
                  (_Float16[]){2, 4096, 1, -0.0f});
    const _Float16 one[] = {1}, big[] = {2048};
    /* 2048 + 1 = 2049 rounds to 2048 (ties to even) in binary16 */
    expect_binary(BC_OP_ADD, np, BC_FLOAT16, "[1]", big, "[1]", one, "[1]", (_Float16[]){2048});
    expect_binary(BC_OP_MIN, np, BC_FLOAT16, "[4]", a, "[]", (_Float16[]){0.0f}, "[4]",
                  (_Float16[]){0, 0, 0, -0.0f});
#else
    skip();
#endif
}

/* ---- every elementwise rule, values ----------------------------------- */

static void test_rules_binary(void **state)
{
    (void)state;
    const int32_t a6[] = {1, 2, 3, 4, 5, 6};
    /* none: equal shapes, and a mismatch refused */
    expect_binary(BC_OP_ADD, P(BC_RULE_NONE), BC_INT32, "[2,3]", a6, "[2,3]", a6, "[2,3]",
                  (int32_t[]){2, 4, 6, 8, 10, 12});
    expect_binary_error(BC_OP_ADD, P(BC_RULE_NONE), BC_INT32, "[2,3]", "[3]", "[2,3]",
                        BC_ERR_RANK_MISMATCH, NULL);
    /* numpy, both stretch: [2,1] + [1,3] */
    expect_binary(BC_OP_SUB, P(BC_RULE_NUMPY), BC_INT32, "[2,1]", (int32_t[]){10, 20}, "[1,3]",
                  (int32_t[]){1, 2, 3}, "[2,3]", (int32_t[]){9, 8, 7, 19, 18, 17});
    /* numpy, B first: [3] - [2,1] keeps operand order */
    expect_binary(BC_OP_SUB, P(BC_RULE_NUMPY), BC_INT32, "[3]", (int32_t[]){1, 2, 3}, "[2,1]",
                  (int32_t[]){10, 20}, "[2,3]", (int32_t[]){-9, -8, -7, -19, -18, -17});
    /* numpy with a 0 dim: [0,3] + [3] -> [0,3], nothing computed */
    expect_binary(BC_OP_ADD, P(BC_RULE_NUMPY), BC_INT32, "[0,3]", a6, "[3]", a6, "[0,3]", a6);
    /* onnx-uni: B [2,1] onto A [2,3]; B [3] onto A */
    expect_binary(BC_OP_MUL, P(BC_RULE_ONNX_UNI), BC_INT32, "[2,3]", a6, "[2,1]",
                  (int32_t[]){10, -1}, "[2,3]", (int32_t[]){10, 20, 30, -4, -5, -6});
    expect_binary(BC_OP_MAX, P(BC_RULE_ONNX_UNI), BC_INT32, "[2,3]", a6, "[3]",
                  (int32_t[]){3, 3, 3}, "[2,3]", (int32_t[]){3, 3, 3, 4, 5, 6});
    expect_binary_error(BC_OP_ADD, P(BC_RULE_ONNX_UNI), BC_INT32, "[3]", "[2,3]", "[2,3]",
                        BC_ERR_RANK_TOO_LARGE, NULL);
    /* pdpd axis 1, A [2,3,2], B [3]: B[j] added along A's axis 1 */
    const int32_t a12[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    const int32_t b3[] = {100, 200, 300};
    const int32_t want12[] = {100, 101, 202, 203, 304, 305, 106, 107, 208, 209, 310, 311};
    for (bc_profile pr = BC_PROFILE_OPENVINO_DOC; pr <= BC_PROFILE_PADDLE; pr++)
        expect_binary(BC_OP_ADD, pdpd(1, pr), BC_INT32, "[2,3,2]", a12, "[3]", b3, "[2,3,2]",
                      want12);
    /* openvino-doc drops B's trailing 1s: B [3,1] at axis 1 of A [2,3] */
    expect_binary(BC_OP_ADD, pdpd(1, BC_PROFILE_OPENVINO_DOC), BC_INT32, "[2,3,2]", a12,
                  "[3,1]", b3, "[2,3,2]", want12);
    /* default axis = rank(A) - rank(B): B [2] at axis 2 */
    expect_binary(BC_OP_SUB, pdpd(BC_AXIS_DEFAULT, BC_PROFILE_OPENVINO_SHAPE_INFERENCE),
                  BC_INT32, "[2,1,2]", (int32_t[]){5, 6, 7, 8}, "[2]", (int32_t[]){1, 2},
                  "[2,1,2]", (int32_t[]){4, 4, 6, 6});
    /* B [1] stretched inside the window: pdpd axis 0, A [2,2], B [1,2] */
    expect_binary(BC_OP_MUL, pdpd(0, BC_PROFILE_OPENVINO_DOC), BC_INT32, "[2,2]",
                  (int32_t[]){1, 2, 3, 4}, "[1,2]", (int32_t[]){10, 100}, "[2,2]",
                  (int32_t[]){10, 200, 30, 400});
    /* paddle: both stretch.  A [2,1,4], B [3,1] at the default axis 1:
     * result [2,3,4], r[i][j][k] = A[i][0][k] - B[j][0] */
    int32_t want24[24];
    const int32_t a8[] = {1, 2, 3, 4, 5, 6, 7, 8}, bp[] = {10, 20, 30};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 4; k++)
                want24[(i * 3 + j) * 4 + k] = a8[i * 4 + k] - bp[j];
    expect_binary(BC_OP_SUB, pdpd(BC_AXIS_DEFAULT, BC_PROFILE_PADDLE), BC_INT32, "[2,1,4]", a8,
                  "[3,1]", bp, "[2,3,4]", want24);
    /* paddle with the smaller operand first: A [3] placed in B [2,3] at axis 1 */
    expect_binary(BC_OP_SUB, pdpd(1, BC_PROFILE_PADDLE), BC_INT32, "[3]", (int32_t[]){1, 2, 3},
                  "[2,3]", a6, "[2,3]", (int32_t[]){0, 0, 0, -3, -3, -3});
    /* paddle, smaller operand at axis 0: A [2] in B [2,3]: r[i][j] = A[i] + B[i][j] */
    expect_binary(BC_OP_ADD, pdpd(0, BC_PROFILE_PADDLE), BC_INT32, "[2]", (int32_t[]){100, 200},
                  "[2,3]", a6, "[2,3]", (int32_t[]){101, 102, 103, 204, 205, 206});
    expect_binary_error(BC_OP_ADD, pdpd(2, BC_PROFILE_OPENVINO_DOC), BC_INT32, "[2,3]", "[3]",
                        "[2,3]", BC_ERR_WINDOW_OUT_OF_RANGE, NULL);
    /* rules that are not elementwise are refused */
    expect_binary_error(BC_OP_ADD, P(BC_RULE_BROADCAST_TO), BC_INT32, "[3]", "[3]", "[3]",
                        BC_ERR_BAD_PARAMS, "elementwise rules");
}

/* rank 0, and rank 7 with both sides stretched */
static void test_rank_extremes(void **state)
{
    (void)state;
    expect_binary(BC_OP_ADD, P(BC_RULE_NUMPY), BC_FLOAT32, "[]", (float[]){1.5f}, "[]",
                  (float[]){2}, "[]", (float[]){3.5f});
    expect_binary(BC_OP_ADD, P(BC_RULE_NUMPY), BC_FLOAT32, "[]", (float[]){1}, "[2]",
                  (float[]){2, 3}, "[2]", (float[]){3, 4});
    expect_binary(BC_OP_SUB, P(BC_RULE_NUMPY), BC_INT64, "[1,1,1,1,1,1,2]",
                  (int64_t[]){1, 2}, "[2,1,1,1,1,1,1]", (int64_t[]){10, 20},
                  "[2,1,1,1,1,1,2]", (int64_t[]){-9, -8, -19, -18});
    /* [2,1,2,1,2,1,2,1] + [1,2,1,2,1,2,1,2]: rank 8, 256 elements; element
     * (i0,..,i7) = A[i0,i2,i4,i6] + B[i1,i3,i5,i7] with A = 100 * index, B = index */
    int64_t a16[16], b16[16];
    for (int i = 0; i < 16; i++) {
        a16[i] = i * 100;
        b16[i] = i;
    }
    int64_t want256[256];
    for (int e = 0; e < 256; e++) {
        int ai = 0, bi = 0;
        for (int k = 0; k < 8; k++) {
            int bit = (e >> (7 - k)) & 1;
            if (k % 2 == 0)
                ai = ai * 2 + bit;
            else
                bi = bi * 2 + bit;
        }
        want256[e] = ai * 100 + bi;
    }
    expect_binary(BC_OP_ADD, P(BC_RULE_NUMPY), BC_INT64, "[2,1,2,1,2,1,2,1]", a16,
                  "[1,2,1,2,1,2,1,2]", b16, "[2,2,2,2,2,2,2,2]", want256);
}

/* ---- layouts: the same values through strided views --------------------- */

static void test_layouts(void **state)
{
    (void)state;
    /* mem holds 0..11 as a [3,4] matrix */
    float mem[12];
    for (int i = 0; i < 12; i++)
        mem[i] = (float)i;
    for (int ev = 0; ev < BC_EVAL_COUNT; ev++) {
        const bc_params np = P(BC_RULE_NUMPY);
        /* transposed: A = mem^T [4,3] (strides 1,4); B = column [4,1] from a
         * stepped slice of mem's row 1 walked backwards: 7,6,5,4 */
        bc_tensor A = {.dtype = BC_FLOAT32, .rank = 2, .dims = {4, 3}, .strides = {1, 4},
                       .data = mem};
        bc_tensor B = {.dtype = BC_FLOAT32, .rank = 2, .dims = {4, 1}, .strides = {-1, 99},
                       .data = mem, .offset = 7};
        float o[12] = {0};
        /* the output itself written transposed: O[i][j] at o[j*4 + i] */
        bc_tensor O = {.dtype = BC_FLOAT32, .rank = 2, .dims = {4, 3}, .strides = {1, 4},
                       .data = o};
        assert_int_equal(bc_eval_binary((bc_evaluator)ev, BC_OP_SUB, &np, &A, &B, &O, NULL),
                         BC_OK);
        /* O[i][j] = mem[j*4+i] - (7 - i) */
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 3; j++)
                assert_true(o[j * 4 + i] == (float)(j * 4 + i - (7 - i)));
        /* a stride-0 view as input: every element is mem[5]; stepped slice
         * mem[0::2] as the other */
        bc_tensor Z = {.dtype = BC_FLOAT32, .rank = 2, .dims = {2, 3}, .strides = {0, 0},
                       .data = mem, .offset = 5};
        bc_tensor S = {.dtype = BC_FLOAT32, .rank = 1, .dims = {3}, .strides = {2},
                       .data = mem};
        float o6[6];
        bc_shape s23 = sh("[2,3]");
        bc_tensor O6 = bc_tensor_contiguous(BC_FLOAT32, &s23, o6);
        assert_int_equal(bc_eval_binary((bc_evaluator)ev, BC_OP_MUL, &np, &Z, &S, &O6, NULL),
                         BC_OK);
        const float want[] = {0, 10, 20, 0, 10, 20};
        expect_values("stride-0 times stepped", (bc_evaluator)ev, BC_FLOAT32, o6, want, 6);
    }
}

/* ---- n-ary, select, broadcast -------------------------------------------- */

static void test_nary(void **state)
{
    (void)state;
    for (int ev = 0; ev < BC_EVAL_COUNT; ev++) {
        bc_shape s21 = sh("[2,1]"), s3 = sh("[3]"), s0 = sh("[]"), s23 = sh("[2,3]");
        int32_t x[] = {10, 20}, y[] = {1, 2, 3}, z[] = {-100}, o[6];
        bc_tensor in[3] = {bc_tensor_contiguous(BC_INT32, &s21, x),
                           bc_tensor_contiguous(BC_INT32, &s3, y),
                           bc_tensor_contiguous(BC_INT32, &s0, z)};
        bc_tensor O = bc_tensor_contiguous(BC_INT32, &s23, o);
        bc_params np = P(BC_RULE_NUMPY);
        assert_int_equal(bc_eval_nary((bc_evaluator)ev, BC_OP_ADD, &np, 3, in, &O, NULL), BC_OK);
        expect_values("nary add", (bc_evaluator)ev, BC_INT32, o,
                      (int32_t[]){-89, -88, -87, -79, -78, -77}, 6);
        assert_int_equal(bc_eval_nary((bc_evaluator)ev, BC_OP_MAX, &np, 3, in, &O, NULL), BC_OK);
        expect_values("nary max", (bc_evaluator)ev, BC_INT32, o,
                      (int32_t[]){10, 10, 10, 20, 20, 20}, 6);
        assert_int_equal(bc_eval_nary((bc_evaluator)ev, BC_OP_MIN, &np, 3, in, &O, NULL), BC_OK);
        expect_values("nary min", (bc_evaluator)ev, BC_INT32, o,
                      (int32_t[]){-100, -100, -100, -100, -100, -100}, 6);
        assert_int_equal(bc_eval_nary((bc_evaluator)ev, BC_OP_MUL, &np, 2, in, &O, NULL), BC_OK);
        expect_values("nary mul", (bc_evaluator)ev, BC_INT32, o,
                      (int32_t[]){10, 20, 30, 20, 40, 60}, 6);
        /* n = 1 copies; rule none needs equal shapes */
        bc_params none = P(BC_RULE_NONE);
        int32_t o2[3];
        bc_tensor O2 = bc_tensor_contiguous(BC_INT32, &s3, o2);
        assert_int_equal(bc_eval_nary((bc_evaluator)ev, BC_OP_ADD, &none, 1, &in[1], &O2, NULL),
                         BC_OK);
        expect_values("nary 1", (bc_evaluator)ev, BC_INT32, o2, y, 3);
        assert_int_equal(bc_eval_nary((bc_evaluator)ev, BC_OP_ADD, &none, 3, in, &O, NULL),
                         BC_ERR_RANK_MISMATCH);
        assert_int_equal(bc_eval_nary((bc_evaluator)ev, BC_OP_SUB, &np, 3, in, &O, NULL),
                         BC_ERR_BAD_PARAMS);
        /* float rounding: a left fold, each step rounded: (1e8 + 1) - 1e8 ... as
         * add of {1e8, 1, -1e8} gives 0 in float32, not 1 */
        float f[] = {1e8f, 1, -1e8f}, fo = 7;
        bc_tensor fin[3] = {bc_tensor_contiguous(BC_FLOAT32, &s0, &f[0]),
                            bc_tensor_contiguous(BC_FLOAT32, &s0, &f[1]),
                            bc_tensor_contiguous(BC_FLOAT32, &s0, &f[2])};
        bc_tensor FO = bc_tensor_contiguous(BC_FLOAT32, &s0, &fo);
        assert_int_equal(bc_eval_nary((bc_evaluator)ev, BC_OP_ADD, &np, 3, fin, &FO, NULL), BC_OK);
        assert_true(fo == 0.0f && !signbit(fo));
    }
}

static void test_select(void **state)
{
    (void)state;
    for (int ev = 0; ev < BC_EVAL_COUNT; ev++) {
        bc_shape s21 = sh("[2,1]"), s3 = sh("[3]"), s0 = sh("[]"), s23 = sh("[2,3]");
        uint8_t c[] = {1, 0};
        double a[] = {1, 2, 3}, b[] = {-0.0}, o[6];
        bc_tensor C = bc_tensor_contiguous(BC_BOOL, &s21, c);
        bc_tensor A = bc_tensor_contiguous(BC_FLOAT64, &s3, a);
        bc_tensor B = bc_tensor_contiguous(BC_FLOAT64, &s0, b);
        bc_tensor O = bc_tensor_contiguous(BC_FLOAT64, &s23, o);
        bc_params np = P(BC_RULE_NUMPY), none = P(BC_RULE_NONE);
        assert_int_equal(bc_eval_select((bc_evaluator)ev, &np, &C, &A, &B, &O, NULL), BC_OK);
        expect_values("select", (bc_evaluator)ev, BC_FLOAT64, o,
                      (double[]){1, 2, 3, -0.0, -0.0, -0.0}, 6);
        /* condition along the last axis */
        uint8_t c3[] = {0, 1, 0};
        bc_tensor C3 = bc_tensor_contiguous(BC_BOOL, &s3, c3);
        double col[] = {7, 8};
        bc_tensor Bc = bc_tensor_contiguous(BC_FLOAT64, &s21, col);
        assert_int_equal(bc_eval_select((bc_evaluator)ev, &np, &C3, &A, &Bc, &O, NULL), BC_OK);
        expect_values("select 2", (bc_evaluator)ev, BC_FLOAT64, o,
                      (double[]){7, 2, 7, 8, 2, 8}, 6);
        /* none: equal shapes; a float condition refused */
        double o3[3];
        bc_tensor O3 = bc_tensor_contiguous(BC_FLOAT64, &s3, o3);
        assert_int_equal(bc_eval_select((bc_evaluator)ev, &none, &C3, &A, &A, &O3, NULL), BC_OK);
        expect_values("select none", (bc_evaluator)ev, BC_FLOAT64, o3, a, 3);
        assert_int_equal(bc_eval_select((bc_evaluator)ev, &none, &C, &A, &A, &O3, NULL),
                         BC_ERR_RANK_MISMATCH);
        assert_int_equal(bc_eval_select((bc_evaluator)ev, &np, &A, &A, &A, &O3, NULL),
                         BC_ERR_BAD_PARAMS);
    }
}

static void expect_bcast(bc_params p, const char *ins, const int32_t *in, const char *ts,
                         const char *rs, const int32_t *want)
{
    bc_shape si = sh(ins), st = sh(ts), sr = sh(rs);
    for (int ev = 0; ev < BC_EVAL_COUNT; ev++) {
        int32_t *o = out_buffer(BC_INT32, &sr);
        bc_tensor I = bc_tensor_contiguous(BC_INT32, &si, (void *)in);
        bc_tensor O = bc_tensor_contiguous(BC_INT32, &sr, o);
        bc_error err;
        if (bc_eval_broadcast((bc_evaluator)ev, &p, &I, &st, &O, &err))
            fail_msg("broadcast %s %s: %s", ins, ts, err.message);
        expect_values("broadcast", (bc_evaluator)ev, BC_INT32, o, want, numel(&sr));
        free(o);
    }
}

static void test_broadcast(void **state)
{
    (void)state;
    const int32_t v3[] = {1, 2, 3}, v2[] = {7, 8};
    expect_bcast(P(BC_RULE_BROADCAST_TO), "[3]", v3, "[2,3]", "[2,3]",
                 (int32_t[]){1, 2, 3, 1, 2, 3});
    expect_bcast(P(BC_RULE_BROADCAST_TO), "[2,1]", v2, "[2,3]", "[2,3]",
                 (int32_t[]){7, 7, 7, 8, 8, 8});
    expect_bcast(P(BC_RULE_BROADCAST_TO), "[]", v2, "[2,2]", "[2,2]", (int32_t[]){7, 7, 7, 7});
    /* bidirectional: the result may be larger than the target */
    expect_bcast(P(BC_RULE_BIDIRECTIONAL), "[2,1]", v2, "[3]", "[2,3]",
                 (int32_t[]){7, 7, 7, 8, 8, 8});
    expect_bcast(P(BC_RULE_BIDIRECTIONAL), "[3]", v3, "[2,1]", "[2,3]",
                 (int32_t[]){1, 2, 3, 1, 2, 3});
    /* explicit broadcast_axes: [2] with axes {1} into [2,3]: the input is axis 0 */
    expect_bcast(explicit_(BC_OPT_AXES, 1, (int64_t[]){1}), "[2]", v2, "[2,3]", "[2,3]",
                 (int32_t[]){7, 7, 7, 8, 8, 8});
    expect_bcast(explicit_(BC_OPT_AXES, 1, (int64_t[]){0}), "[3]", v3, "[2,3]", "[2,3]",
                 (int32_t[]){1, 2, 3, 1, 2, 3});
    /* axes {0,2}: [3] into [2,3,2] along axis 1 */
    expect_bcast(explicit_(BC_OPT_AXES, 2, (int64_t[]){2, 0}), "[3]", v3, "[2,3,2]", "[2,3,2]",
                 (int32_t[]){1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3});
    /* axes_mapping: input axis 0 -> target axis 0 ([2] into [2,3]); and a 1 stretched */
    expect_bcast(explicit_(BC_OPT_AXES_MAPPING, 1, (int64_t[]){0}), "[2]", v2, "[2,3]", "[2,3]",
                 (int32_t[]){7, 7, 7, 8, 8, 8});
    expect_bcast(explicit_(BC_OPT_AXES_MAPPING, 2, (int64_t[]){0, 2}), "[2,1]", v2, "[2,3,2]",
                 "[2,3,2]", (int32_t[]){7, 7, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8});
    expect_bcast(explicit_(BC_OPT_AXES_MAPPING, 1, (int64_t[]){1}), "[3]", v3, "[2,3,2]",
                 "[2,3,2]", (int32_t[]){1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3});
    /* refused rules */
    bc_shape s3 = sh("[3]");
    int32_t o[3];
    bc_tensor I = bc_tensor_contiguous(BC_INT32, &s3, (void *)v3);
    bc_tensor O = bc_tensor_contiguous(BC_INT32, &s3, o);
    bc_params np = P(BC_RULE_NUMPY);
    assert_int_equal(bc_eval_broadcast(BC_EVAL_FAST, &np, &I, &s3, &O, NULL), BC_ERR_BAD_PARAMS);
}

/* ---- sum to shape --------------------------------------------------------- */

static void expect_sum(bc_params p, bc_dtype t, int n, const char *const *forward, int operand,
                       const void *grad, const void *want)
{
    bc_shape shapes[4], r;
    for (int i = 0; i < n; i++)
        shapes[i] = sh(forward[i]);
    assert_int_equal(bc_infer(&p, n, shapes, &r, NULL), BC_OK);
    for (int ev = 0; ev < BC_EVAL_COUNT; ev++) {
        void *o = out_buffer(t, &shapes[operand]);
        bc_tensor G = bc_tensor_contiguous(t, &r, (void *)grad);
        bc_tensor O = bc_tensor_contiguous(t, &shapes[operand], o);
        bc_error err;
        if (bc_eval_sum_to_shape((bc_evaluator)ev, &p, n, shapes, operand, &G, &O, &err))
            fail_msg("sum-to-shape %s operand %d: %s", bc_rule_name(p.rule), operand,
                     err.message);
        char what[96];
        snprintf(what, sizeof what, "sum-to-shape %s %s operand %d", bc_rule_name(p.rule),
                 forward[operand], operand);
        expect_values(what, (bc_evaluator)ev, t, o, want, numel(&shapes[operand]));
        free(o);
    }
}

static void test_sum_to_shape(void **state)
{
    (void)state;
    const int32_t g6[] = {1, 2, 3, 4, 5, 6}; /* [2,3] */
    /* numpy-style: reduce a [2,3] gradient to [3], [2,1], [1,3], [] */
    expect_sum(P(BC_RULE_BROADCAST_TO), BC_INT32, 2, (const char *[]){"[3]", "[2,3]"}, 0, g6,
               (int32_t[]){5, 7, 9});
    expect_sum(P(BC_RULE_BROADCAST_TO), BC_INT32, 2, (const char *[]){"[2,1]", "[2,3]"}, 0, g6,
               (int32_t[]){6, 15});
    expect_sum(P(BC_RULE_BROADCAST_TO), BC_INT32, 2, (const char *[]){"[1,3]", "[2,3]"}, 0, g6,
               (int32_t[]){5, 7, 9});
    expect_sum(P(BC_RULE_BROADCAST_TO), BC_INT32, 2, (const char *[]){"[]", "[2,3]"}, 0, g6,
               (int32_t[]){21});
    expect_sum(P(BC_RULE_BROADCAST_TO), BC_INT32, 2, (const char *[]){"[2,3]", "[2,3]"}, 0, g6,
               g6);
    /* numpy binary, each operand: [2,1] + [3] -> [2,3] */
    expect_sum(P(BC_RULE_NUMPY), BC_INT32, 2, (const char *[]){"[2,1]", "[3]"}, 0, g6,
               (int32_t[]){6, 15});
    expect_sum(P(BC_RULE_NUMPY), BC_INT32, 2, (const char *[]){"[2,1]", "[3]"}, 1, g6,
               (int32_t[]){5, 7, 9});
    expect_sum(P(BC_RULE_NONE), BC_INT32, 2, (const char *[]){"[2,3]", "[2,3]"}, 1, g6, g6);
    expect_sum(P(BC_RULE_ONNX_UNI), BC_INT32, 2, (const char *[]){"[2,3]", "[2,1]"}, 1, g6,
               (int32_t[]){6, 15});
    expect_sum(P(BC_RULE_BIDIRECTIONAL), BC_INT32, 2, (const char *[]){"[3]", "[2,1]"}, 0, g6,
               (int32_t[]){5, 7, 9});
    /* pdpd: B [2] at axis 0 of A [2,3] sums over A's axis 1 */
    expect_sum(pdpd(0, BC_PROFILE_OPENVINO_DOC), BC_INT32, 2, (const char *[]){"[2,3]", "[2]"},
               1, g6, (int32_t[]){6, 15});
    expect_sum(pdpd(0, BC_PROFILE_OPENVINO_DOC), BC_INT32, 2, (const char *[]){"[2,3]", "[2]"},
               0, g6, g6);
    /* paddle: A [2,1] and B [3] at axis 1 both stretch */
    expect_sum(pdpd(1, BC_PROFILE_PADDLE), BC_INT32, 2, (const char *[]){"[2,1]", "[3]"}, 0, g6,
               (int32_t[]){6, 15});
    expect_sum(pdpd(1, BC_PROFILE_PADDLE), BC_INT32, 2, (const char *[]){"[2,1]", "[3]"}, 1, g6,
               (int32_t[]){5, 7, 9});
    /* nGraph Sum over broadcast_axes {0}: [3] -> [2,3]; axes_mapping {0} with [2] */
    expect_sum(explicit_(BC_OPT_AXES, 1, (int64_t[]){0}), BC_INT32, 2,
               (const char *[]){"[3]", "[2,3]"}, 0, g6, (int32_t[]){5, 7, 9});
    expect_sum(explicit_(BC_OPT_AXES_MAPPING, 1, (int64_t[]){0}), BC_INT32, 2,
               (const char *[]){"[2]", "[2,3]"}, 0, g6, (int32_t[]){6, 15});
    /* three operands: [3] in numpy([2,1,1],[3],[2,1]) -> [2,2,3] */
    int32_t g12[12];
    for (int i = 0; i < 12; i++)
        g12[i] = i;
    expect_sum(P(BC_RULE_NUMPY), BC_INT32, 3, (const char *[]){"[2,1,1]", "[3]", "[2,1]"}, 1,
               g12, (int32_t[]){18, 22, 26});
    expect_sum(P(BC_RULE_NUMPY), BC_INT32, 3, (const char *[]){"[2,1,1]", "[3]", "[2,1]"}, 2,
               g12, (int32_t[]){0 + 1 + 2 + 6 + 7 + 8, 3 + 4 + 5 + 9 + 10 + 11});
    /* integers wrap */
    expect_sum(P(BC_RULE_BROADCAST_TO), BC_INT8, 2, (const char *[]){"[]", "[3]"}, 0,
               (int8_t[]){100, 100, 1}, (int8_t[]){-55});
    /* float order: row-major, from -0.0: ((-0 + 1e8) + 1) + -1e8 = 0 in float32 */
    expect_sum(P(BC_RULE_BROADCAST_TO), BC_FLOAT32, 2, (const char *[]){"[1]", "[3]"}, 0,
               (float[]){1e8f, 1, -1e8f}, (float[]){0.0f});
    /* ... and 1 + 1e8 - 1e8 = 0 too, but 1e8 - 1e8 + 1 = 1: order pinned */
    expect_sum(P(BC_RULE_BROADCAST_TO), BC_FLOAT32, 2, (const char *[]){"[1]", "[3]"}, 0,
               (float[]){1e8f, -1e8f, 1}, (float[]){1.0f});
    /* a column reduction keeps row-major order per element: [3,1] <- [3,2] */
    expect_sum(P(BC_RULE_BROADCAST_TO), BC_FLOAT32, 2, (const char *[]){"[1,2]", "[3,2]"}, 0,
               (float[]){1e8f, 1, -1e8f, 1e8f, 1, -1e8f}, (float[]){1, 0});
    /* signed zeros: -0 + -0 = -0; a sum of no terms is +0 */
    expect_sum(P(BC_RULE_BROADCAST_TO), BC_FLOAT64, 2, (const char *[]){"[]", "[2]"}, 0,
               (double[]){-0.0, -0.0}, (double[]){-0.0});
    expect_sum(P(BC_RULE_BROADCAST_TO), BC_FLOAT64, 2, (const char *[]){"[1,2]", "[0,2]"}, 0,
               (double[]){0}, (double[]){0.0, 0.0});
    /* bool refused; operand 1 of broadcast-to refused */
    bc_shape shapes[2] = {sh("[3]"), sh("[2,3]")};
    uint8_t g[6] = {0}, o[3];
    bc_tensor G = bc_tensor_contiguous(BC_BOOL, &shapes[1], g);
    bc_tensor O = bc_tensor_contiguous(BC_BOOL, &shapes[0], o);
    bc_params bt = P(BC_RULE_BROADCAST_TO);
    assert_int_equal(bc_eval_sum_to_shape(BC_EVAL_FAST, &bt, 2, shapes, 0, &G, &O, NULL),
                     BC_ERR_BAD_PARAMS);
    assert_int_equal(bc_eval_sum_to_shape(BC_EVAL_FAST, &bt, 2, shapes, 1, &G, &O, NULL),
                     BC_ERR_BAD_PARAMS);
}

/* ---- aliasing -------------------------------------------------------------- */

static void test_aliasing(void **state)
{
    (void)state;
    for (int ev = 0; ev < BC_EVAL_COUNT; ev++) {
        bc_params np = P(BC_RULE_NUMPY);
        bc_shape s23 = sh("[2,3]"), s3 = sh("[3]");
        float x[6] = {1, 2, 3, 4, 5, 6}, y[3] = {10, 20, 30};
        bc_tensor X = bc_tensor_contiguous(BC_FLOAT32, &s23, x);
        bc_tensor Y = bc_tensor_contiguous(BC_FLOAT32, &s3, y);
        /* in place: out is the very view of a */
        assert_int_equal(bc_eval_binary((bc_evaluator)ev, BC_OP_ADD, &np, &X, &Y, &X, NULL),
                         BC_OK);
        expect_values("in place", (bc_evaluator)ev, BC_FLOAT32, x,
                      (float[]){11, 22, 33, 14, 25, 36}, 6);
        /* out the same memory as a but a different view (transposed): refused */
        bc_shape s32 = sh("[3,2]");
        bc_tensor T = bc_tensor_contiguous(BC_FLOAT32, &s32, x);
        bc_tensor Tt = {.dtype = BC_FLOAT32, .rank = 2, .dims = {2, 3}, .strides = {1, 2},
                        .data = x};
        bc_error err;
        assert_int_equal(bc_eval_binary((bc_evaluator)ev, BC_OP_ADD, &np, &Tt, &Y, &X, &err),
                         BC_ERR_BAD_PARAMS);
        assert_non_null(strstr(err.message, "overlaps input 0"));
        (void)T;
        /* out overlapping b (a broadcast input) partially: refused */
        bc_tensor X1 = X;
        X1.rank = 1;
        X1.dims[0] = 3;
        X1.strides[0] = 1;
        bc_tensor Xo = X; /* [2,3] at x; Y2 = x[1..3] */
        bc_tensor Y2 = X1;
        Y2.offset = 1;
        assert_int_equal(bc_eval_binary((bc_evaluator)ev, BC_OP_ADD, &np, &X, &Y2, &Xo, NULL),
                         BC_ERR_BAD_PARAMS);
        /* an output with a stride 0 axis: refused */
        bc_tensor Z = X;
        Z.strides[0] = 0;
        assert_int_equal(bc_eval_binary((bc_evaluator)ev, BC_OP_ADD, &np, &X, &Y, &Z, &err),
                         BC_ERR_BAD_PARAMS);
        assert_non_null(strstr(err.message, "overlaps itself"));
        /* both inputs the output */
        assert_int_equal(bc_eval_binary((bc_evaluator)ev, BC_OP_MUL, &np, &Y, &Y, &Y, NULL),
                         BC_OK);
        expect_values("in place twice", (bc_evaluator)ev, BC_FLOAT32, y,
                      (float[]){100, 400, 900}, 3);
        /* sum-to-shape never in place */
        bc_shape shapes[2] = {s3, s3};
        bc_params bt = P(BC_RULE_BROADCAST_TO);
        assert_int_equal(bc_eval_sum_to_shape((bc_evaluator)ev, &bt, 2, shapes, 0, &Y, &Y, NULL),
                         BC_ERR_BAD_PARAMS);
    }
}

/* ---- errors ------------------------------------------------------------------ */

static void test_errors(void **state)
{
    (void)state;
    float buf[16] = {0};
    bc_params np = P(BC_RULE_NUMPY);
    bc_shape s3 = sh("[3]"), s4 = sh("[4]");
    bc_tensor A = bc_tensor_contiguous(BC_FLOAT32, &s3, buf);
    bc_tensor O4 = bc_tensor_contiguous(BC_FLOAT32, &s4, buf + 8);
    bc_error err;
    /* output shape differs from the rule's result */
    assert_int_equal(bc_eval_binary(BC_EVAL_FAST, BC_OP_ADD, &np, &A, &A, &O4, &err),
                     BC_ERR_BAD_PARAMS);
    assert_non_null(strstr(err.message, "result is [3]"));
    /* wrong output dtype: a comparison gives bool */
    bc_tensor O3 = bc_tensor_contiguous(BC_FLOAT32, &s3, buf + 8);
    assert_int_equal(bc_eval_binary(BC_EVAL_NAIVE, BC_OP_LESS, &np, &A, &A, &O3, &err),
                     BC_ERR_BAD_PARAMS);
    /* inputs of different dtypes */
    bc_tensor I = bc_tensor_contiguous(BC_INT32, &s3, buf + 4);
    assert_int_equal(bc_eval_binary(BC_EVAL_NAIVE, BC_OP_ADD, &np, &A, &I, &O3, &err),
                     BC_ERR_BAD_PARAMS);
    /* element counts past INT64_MAX */
    bc_tensor Big = {.dtype = BC_FLOAT32, .rank = 2, .dims = {INT64_C(1) << 40, INT64_C(1) << 40},
                     .strides = {0, 0}, .data = buf};
    assert_int_equal(bc_eval_binary(BC_EVAL_FAST, BC_OP_ADD, &np, &Big, &A, &O3, &err),
                     BC_ERR_OVERFLOW);
    assert_non_null(strstr(err.message, "INT64_MAX"));
    /* byte size past INT64_MAX though the count fits */
    bc_tensor Big2 = {.dtype = BC_FLOAT64, .rank = 1, .dims = {INT64_C(1) << 61},
                      .strides = {0}, .data = buf};
    assert_int_equal(bc_tensor_check(&Big2, NULL, &err), BC_ERR_OVERFLOW);
    /* offsets past the int64 range */
    bc_tensor Far = {.dtype = BC_FLOAT32, .rank = 1, .dims = {3},
                     .strides = {INT64_MAX / 2 + 1}, .data = buf};
    assert_int_equal(bc_tensor_check(&Far, NULL, &err), BC_ERR_OVERFLOW);
    /* misaligned data, negative dim */
    bc_tensor Mis = bc_tensor_contiguous(BC_FLOAT32, &s3, (char *)buf + 1);
    assert_int_equal(bc_tensor_check(&Mis, NULL, &err), BC_ERR_BAD_PARAMS);
    bc_tensor Neg = A;
    Neg.dims[0] = -1;
    assert_int_equal(bc_eval_binary(BC_EVAL_NAIVE, BC_OP_ADD, &np, &Neg, &A, &O3, &err),
                     BC_ERR_NEGATIVE_DIM);
    /* unknown evaluator, unknown op */
    assert_int_equal(bc_eval_binary((bc_evaluator)7, BC_OP_ADD, &np, &A, &A, &O3, &err),
                     BC_ERR_BAD_PARAMS);
    assert_int_equal(bc_eval_binary(BC_EVAL_FAST, (bc_op)99, &np, &A, &A, &O3, &err),
                     BC_ERR_BAD_PARAMS);
    /* a size-0 output with empty inputs (no data at all) is fine */
    bc_shape s0 = sh("[0,3]");
    bc_tensor E = bc_tensor_contiguous(BC_FLOAT32, &s0, NULL);
    assert_int_equal(bc_eval_binary(BC_EVAL_FAST, BC_OP_ADD, &np, &E, &A, &E, &err), BC_OK);
    assert_int_equal(bc_eval_binary(BC_EVAL_NAIVE, BC_OP_ADD, &np, &E, &A, &E, &err), BC_OK);
}

static void test_names(void **state)
{
    (void)state;
    for (int t = 0; t < BC_DTYPE_COUNT; t++) {
        bc_dtype back;
        assert_int_equal(bc_dtype_from_name(bc_dtype_name((bc_dtype)t), &back), 0);
        assert_int_equal(back, t);
    }
    for (int o = 0; o < BC_OP_COUNT; o++) {
        bc_op back;
        assert_int_equal(bc_op_from_name(bc_op_name((bc_op)o), &back), 0);
        assert_int_equal(back, o);
    }
    assert_int_equal(bc_dtype_size(BC_FLOAT16), 2);
    assert_int_equal(bc_dtype_available(BC_FLOAT16), BC_HAVE_FLOAT16);
    assert_int_equal(bc_op_result_dtype(BC_OP_LESS, BC_FLOAT64), BC_BOOL);
    assert_int_equal(bc_op_result_dtype(BC_OP_DIV, BC_INT8), BC_INT8);
}

/* bc_tensor_contiguous defines the axes past the rank too: a test that
 * raised a view's rank by one read their strides uninitialised (valgrind,
 * scripts/memcheck.sh). */
static void test_contiguous_view(void **state)
{
    (void)state;
    bc_shape s;
    memset(&s, 0x5a, sizeof s); /* dims past the rank: garbage */
    s.rank = 3;
    s.dims[0] = 2;
    s.dims[1] = 0;
    s.dims[2] = 5;
    bc_tensor v = bc_tensor_contiguous(BC_INT32, &s, (void *)&s);
    assert_int_equal(v.rank, 3);
    assert_int_equal(v.offset, 0);
    assert_ptr_equal(v.data, &s);
    assert_int_equal(v.dtype, BC_INT32);
    /* a size-0 axis counts as 1 in the steps (the view is empty anyway) */
    const int64_t strides[3] = {5, 5, 1};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(v.dims[k], s.dims[k]);
        assert_int_equal(v.strides[k], strides[k]);
    }
    for (int k = 3; k < BC_MAX_RANK; k++) {
        assert_int_equal(v.dims[k], 0);
        assert_int_equal(v.strides[k], 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_contiguous_view),
        cmocka_unit_test(test_float_ops_numpy),
        cmocka_unit_test(test_float_semantics),
        cmocka_unit_test(test_integer_semantics),
        cmocka_unit_test(test_semantic_variants),
        cmocka_unit_test(test_bool_ops),
        cmocka_unit_test(test_float16),
        cmocka_unit_test(test_rules_binary),
        cmocka_unit_test(test_rank_extremes),
        cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_nary),
        cmocka_unit_test(test_select),
        cmocka_unit_test(test_broadcast),
        cmocka_unit_test(test_sum_to_shape),
        cmocka_unit_test(test_aliasing),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
