/*
 * matmul values (spec/RULES.md §15.5) pinned on hand-computed cases, each
 * checked with both evaluators: batch broadcast, 1-D promotion, k = 0,
 * size-0 batches, strided views, integer wrap, the long double sum, the
 * errors; and the planted mutant matmul-batch-modulo told apart on the
 * one case that shows its bug.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "broadcheck/sut.h"
#include "broadcheck/tensor.h"

#include "test_shapes.h"

static const bc_params MM = {.rule = BC_RULE_MATMUL};

/* out = a @ b with evaluator ev into a buffer pre-filled with 0x5A bytes. */
static bc_error_kind mm(bc_evaluator ev, bc_dtype t, const char *as, const void *a,
                        const char *bs, const void *b, const char *os, void *out, size_t out_bytes)
{
    bc_shape sa = sh(as), sb = sh(bs), so = sh(os);
    memset(out, 0x5A, out_bytes);
    bc_tensor ta = bc_tensor_contiguous(t, &sa, (void *)a);
    bc_tensor tb = bc_tensor_contiguous(t, &sb, (void *)b);
    bc_tensor to = bc_tensor_contiguous(t, &so, out);
    bc_error err;
    return bc_eval_matmul(ev, &MM, &ta, &tb, &to, &err);
}

#define EACH_EV for (bc_evaluator ev = BC_EVAL_NAIVE; ev < BC_EVAL_COUNT; ev++)

static void matrix_times_matrix(void **state)
{
    (void)state;
    const int32_t a[] = {1, 2, 3, 4, 5, 6}, b[] = {7, 8, 9, 10, 11, 12};
    const int32_t want[] = {58, 64, 139, 154}; /* 1*7+2*9+3*11, 1*8+2*10+3*12, ... */
    EACH_EV {
        int32_t out[4];
        assert_int_equal(mm(ev, BC_INT32, "[2,3]", a, "[3,2]", b, "[2,2]", out, sizeof out), BC_OK);
        assert_memory_equal(out, want, sizeof want);
    }
}

static void one_d_promotions(void **state)
{
    (void)state;
    const int64_t v[] = {1, 2, 3}, w[] = {4, 5, 6};
    const int64_t m23[] = {1, 2, 3, 4, 5, 6}, m22[] = {1, 2, 3, 4}, u[] = {5, 6}, r[] = {1, 2};
    EACH_EV {
        int64_t dot, row[3], col[2];
        assert_int_equal(mm(ev, BC_INT64, "[3]", v, "[3]", w, "[]", &dot, sizeof dot), BC_OK);
        assert_int_equal(dot, 32); /* 4 + 10 + 18 */
        /* [1,2] @ [[1,2,3],[4,5,6]] = [9,12,15]: the prepended 1 removed */
        assert_int_equal(mm(ev, BC_INT64, "[2]", r,
                            "[2,3]", m23, "[3]", row, sizeof row), BC_OK);
        assert_int_equal(row[0], 9);
        assert_int_equal(row[1], 12);
        assert_int_equal(row[2], 15);
        /* [[1,2],[3,4]] @ [5,6] = [17,39]: the appended 1 removed */
        assert_int_equal(mm(ev, BC_INT64, "[2,2]", m22, "[2]", u, "[2]", col, sizeof col), BC_OK);
        assert_int_equal(col[0], 17);
        assert_int_equal(col[1], 39);
    }
}

/* A [2,1,1,2] (batch [2,1]) with B [3,2,1] (batch [3]): result [2,3,1,1],
 * element (i,j) = A_i . B_j with A_0 = [1,2], A_1 = [3,4], B_j = [j+1, 10]. */
static const int32_t bcast_a[] = {1, 2, 3, 4}, bcast_b[] = {1, 10, 2, 10, 3, 10};
static const int32_t bcast_want[] = {21, 22, 23, 43, 46, 49};

static void batch_broadcast(void **state)
{
    (void)state;
    EACH_EV {
        int32_t out[6];
        assert_int_equal(mm(ev, BC_INT32, "[2,1,1,2]", bcast_a, "[3,2,1]", bcast_b, "[2,3,1,1]",
                            out, sizeof out), BC_OK);
        assert_memory_equal(out, bcast_want, sizeof bcast_want);
    }
}

static void k_zero_gives_zeros_and_empty_batch(void **state)
{
    (void)state;
    const float none[1] = {0};
    EACH_EV {
        float out[6];
        assert_int_equal(mm(ev, BC_FLOAT32, "[2,0]", none, "[0,3]", none, "[2,3]", out, sizeof out),
                         BC_OK);
        for (int i = 0; i < 6; i++)
            assert_true(out[i] == 0.0f);
        int32_t untouched[2];
        const int32_t x[4] = {1, 2, 3, 4};
        /* batch 1 stretches to 0: nothing to write, and nothing written */
        assert_int_equal(mm(ev, BC_INT32, "[0,2,2]", x, "[1,2,2]", x, "[0,2,2]", untouched,
                            sizeof untouched), BC_OK);
        assert_int_equal(untouched[0], 0x5A5A5A5A);
    }
}

static void integers_wrap(void **state)
{
    (void)state;
    const int8_t a8[] = {100, 100}, b8[] = {2, 1};
    const uint8_t au[] = {200}, bu[] = {2};
    const int64_t a64[] = {INT64_MAX}, b64[] = {2};
    EACH_EV {
        int8_t o8;
        uint8_t ou;
        int64_t o64;
        assert_int_equal(mm(ev, BC_INT8, "[1,2]", a8, "[2,1]", b8, "[1,1]", &o8, 1), BC_OK);
        assert_int_equal(o8, 44); /* 300 mod 256 */
        assert_int_equal(mm(ev, BC_UINT8, "[1]", au, "[1]", bu, "[]", &ou, 1), BC_OK);
        assert_int_equal(ou, 144); /* 400 mod 256 */
        assert_int_equal(mm(ev, BC_INT64, "[1]", a64, "[1]", b64, "[]", &o64, 8), BC_OK);
        assert_int_equal(o64, -2); /* 2^64 - 2 */
    }
}

static void float_sum_is_long_double(void **state)
{
    (void)state;
    /* 1e8 + 1 - 1e8 in float32 left to right is 0 (1e8 + 1 rounds to
     * 1e8); in long double it is 1, rounded once. */
    const float a[] = {1e8f, 1.0f, -1e8f}, b[] = {1, 1, 1};
    EACH_EV {
        float out;
        assert_int_equal(mm(ev, BC_FLOAT32, "[3]", a, "[3]", b, "[]", &out, sizeof out), BC_OK);
        assert_true(out == 1.0f);
    }
    /* the bound's scale: |1*3| + |-2*4| */
    const double x[] = {1, -2}, y[] = {3, 4};
    bc_shape s = sh("[2]");
    bc_tensor tx = bc_tensor_contiguous(BC_FLOAT64, &s, (void *)x),
              ty = bc_tensor_contiguous(BC_FLOAT64, &s, (void *)y);
    double sum = -1;
    assert_int_equal(bc_matmul_abs_sums(&MM, &tx, &ty, &sum, NULL), BC_OK);
    assert_true(sum == 11.0);
}

/* An MMX instruction with no EMMS after it (GCC 12 at -O3 emitted one in
 * fast.c; any library in the process could) leaves the x87 stack full: every
 * long double load then gives -nan, which the sums must not see (the
 * wrong verdict it caused: docs/ENGINE.md "The x87 stack"). */
#if defined(__x86_64__) || defined(__i386__)
static void leave_mmx_state(void)
{
    __asm__ volatile("movd %0, %%mm0" ::"r"(1) : "memory");
}
#endif

static void float_sums_survive_a_left_mmx_state(void **state)
{
    (void)state;
#if defined(__x86_64__) || defined(__i386__)
    const float a[] = {1, 2}, b[] = {3, 4};
    const double x[] = {1, -2}, y[] = {3, 4};
    EACH_EV {
        float out = 0;
        leave_mmx_state();
        assert_int_equal(mm(ev, BC_FLOAT32, "[2]", a, "[2]", b, "[]", &out, sizeof out), BC_OK);
        assert_true(out == 11.0f);
        double d = 0;
        leave_mmx_state();
        assert_int_equal(mm(ev, BC_FLOAT64, "[2]", x, "[2]", y, "[]", &d, sizeof d), BC_OK);
        assert_true(d == -5.0);
    }
    bc_shape s = sh("[2]");
    bc_tensor tx = bc_tensor_contiguous(BC_FLOAT64, &s, (void *)x),
              ty = bc_tensor_contiguous(BC_FLOAT64, &s, (void *)y);
    double sum = -1;
    leave_mmx_state();
    assert_int_equal(bc_matmul_abs_sums(&MM, &tx, &ty, &sum, NULL), BC_OK);
    assert_true(sum == 11.0);
    __asm__ volatile("emms" ::: "memory");
#else
    skip();
#endif
}

static void strided_views(void **state)
{
    (void)state;
    /* A = [[1,2],[3,4]] stored column-major, at offset 1 past a poison 99;
     * B = [[5,6],[7,8]] read backwards through negative strides. */
    int32_t abuf[] = {99, 1, 3, 2, 4}, bbuf[] = {8, 7, 6, 5};
    bc_tensor a = {BC_INT32, 2, {2, 2}, {1, 2}, abuf, 1};
    bc_tensor b = {BC_INT32, 2, {2, 2}, {-2, -1}, bbuf, 3};
    const int32_t want[] = {19, 22, 43, 50};
    EACH_EV {
        int32_t out[4];
        bc_shape so = sh("[2,2]");
        bc_tensor to = bc_tensor_contiguous(BC_INT32, &so, out);
        bc_error err;
        assert_int_equal(bc_eval_matmul(ev, &MM, &a, &b, &to, &err), BC_OK);
        assert_memory_equal(out, want, sizeof want);
    }
}

static void errors(void **state)
{
    (void)state;
    const int32_t x[9] = {0};
    int32_t out[9];
    const uint8_t flags[4] = {1, 0, 1, 1};
    uint8_t bout[4];
    assert_int_equal(mm(BC_EVAL_NAIVE, BC_INT32, "[]", x, "[3]", x, "[]", out, 4),
                     BC_ERR_RANK_MISMATCH);
    assert_int_equal(mm(BC_EVAL_NAIVE, BC_INT32, "[2,3]", x, "[2,3]", x, "[2,3]", out, sizeof out),
                     BC_ERR_DIM_MISMATCH);
    assert_int_equal(mm(BC_EVAL_NAIVE, BC_INT32, "[2,1,3]", x, "[3,3,1]", x, "[2,1,1]", out, sizeof out),
                     BC_ERR_DIM_MISMATCH); /* batch 2 against 3 */
    assert_int_equal(mm(BC_EVAL_NAIVE, BC_BOOL, "[2,2]", flags, "[2,2]", flags, "[2,2]", bout, 4),
                     BC_ERR_BAD_PARAMS);
    assert_int_equal(mm(BC_EVAL_NAIVE, BC_INT32, "[2,3]", x, "[3,2]", x, "[3,3]", out, sizeof out),
                     BC_ERR_BAD_PARAMS); /* the output's shape */
    bc_params numpy = {.rule = BC_RULE_NUMPY};
    bc_shape s = sh("[2]");
    bc_tensor t = bc_tensor_contiguous(BC_INT32, &s, (void *)x);
    bc_shape so = sh("[]");
    bc_tensor to = bc_tensor_contiguous(BC_INT32, &so, out);
    bc_error err;
    assert_int_equal(bc_eval_matmul(BC_EVAL_NAIVE, &numpy, &t, &t, &to, &err), BC_ERR_BAD_PARAMS);
    /* an output inside an input */
    int32_t shared[4] = {1, 2, 3, 4};
    bc_tensor in = bc_tensor_contiguous(BC_INT32, &s, shared);
    bc_tensor alias = bc_tensor_contiguous(BC_INT32, &so, shared + 1);
    assert_int_equal(bc_eval_matmul(BC_EVAL_NAIVE, &MM, &in, &in, &alias, &err), BC_ERR_BAD_PARAMS);
}

/* The mutant reads A's batch (j mod 2) for result batch j over [2,3]:
 * A_0, A_1, A_0, ... instead of A_0, A_0, A_0, A_1, ...; the reference SUT
 * answers bcast_want, the mutant not. */
static void batch_modulo_mutant_differs(void **state)
{
    (void)state;
    const bc_sut *ref = bc_builtin_sut("reference"),
                 *mut = bc_builtin_sut("mutant:matmul-batch-modulo");
    assert_non_null(ref);
    assert_non_null(mut);
    bc_shape shapes[2] = {sh("[2,1,1,2]"), sh("[3,2,1]")};
    bc_tensor in[2] = {bc_tensor_contiguous(BC_INT32, &shapes[0], (void *)bcast_a),
                       bc_tensor_contiguous(BC_INT32, &shapes[1], (void *)bcast_b)};
    const bc_sut *suts[2] = {ref, mut};
    for (int k = 0; k < 2; k++) {
        int32_t out[6];
        bc_eval_request req = {BC_VALUE_MATMUL, BC_OP_ADD, &MM, 2, shapes, 0, 2, in,
                               BC_INT32, out, 6};
        bc_sut_answer a;
        memset(&a, 0, sizeof a);
        suts[k]->ops->eval(suts[k], &req, &a);
        assert_int_equal(a.status, BC_SUT_OK);
        if (k == 0)
            assert_memory_equal(out, bcast_want, sizeof bcast_want);
        else
            assert_memory_not_equal(out, bcast_want, sizeof bcast_want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matrix_times_matrix),
        cmocka_unit_test(one_d_promotions),
        cmocka_unit_test(batch_broadcast),
        cmocka_unit_test(k_zero_gives_zeros_and_empty_batch),
        cmocka_unit_test(integers_wrap),
        cmocka_unit_test(float_sum_is_long_double),
        cmocka_unit_test(float_sums_survive_a_left_mmx_state),
        cmocka_unit_test(strided_views),
        cmocka_unit_test(errors),
        cmocka_unit_test(batch_modulo_mutant_differs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
