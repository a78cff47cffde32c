/*
 * The reference rules: the structured error of every kind of every rule
 * (kind, operand, axis, dims, message), and exhaustive identities between
 * rules over every small shape, so that a mistake in one rule shows up
 * against another written independently.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "broadcheck/shape.h"

static bc_shape S(const char *text)
{
    bc_shape s;
    char why[256];
    if (bc_shape_parse(text, NULL, &s, why, sizeof why) != 0)
        fail_msg("bad shape in test: %s: %s", text, why);
    return s;
}

static void assert_shape(const bc_shape *got, const char *want)
{
    char buf[512];
    bc_shape_format(got, buf, sizeof buf);
    assert_string_equal(buf, want);
}

static void assert_message_has(const bc_error *e, const char *part)
{
    if (!strstr(e->message, part))
        fail_msg("message '%s' lacks '%s'", e->message, part);
}

/* ---- structured errors ---------------------------------------------- */

static void test_none(void **state)
{
    (void)state;
    bc_shape in[3] = {S("[2,3]"), S("[2,3]"), S("[2,3]")}, out;
    bc_error e;
    assert_int_equal(bc_infer_none(3, in, &out, &e), BC_OK);
    assert_shape(&out, "[2,3]");
    in[2] = S("[2,3,1]");
    assert_int_equal(bc_infer_none(3, in, &out, &e), BC_ERR_RANK_MISMATCH);
    assert_int_equal(e.operand, 2);
    assert_int_equal(e.other, 0);
    assert_int_equal(e.dim, 3);
    assert_int_equal(e.other_dim, 2);
    in[2] = S("[2,4]");
    assert_int_equal(bc_infer_none(3, in, &out, &e), BC_ERR_DIM_MISMATCH);
    assert_int_equal(e.axis, 1);
    assert_int_equal(e.dim, 4);
    assert_int_equal(e.other_dim, 3);
    assert_message_has(&e, "at axis 1 operand 2 has 4, operand 0 has 3");
    /* none never stretches, not even a 1 */
    in[1] = S("[1,3]");
    assert_int_equal(bc_infer_none(2, in, &out, &e), BC_ERR_DIM_MISMATCH);
}

static void test_numpy(void **state)
{
    (void)state;
    bc_shape in[3] = {S("[2,1,5]"), S("[4,1]"), S("[]")}, out;
    bc_error e;
    assert_int_equal(bc_infer_numpy(3, in, &out, &e), BC_OK);
    assert_shape(&out, "[2,4,5]");
    /* 1 stretches to 0; 0 against n > 1 is an error */
    in[0] = S("[1,3]");
    in[1] = S("[0,1]");
    assert_int_equal(bc_infer_numpy(2, in, &out, &e), BC_OK);
    assert_shape(&out, "[0,3]");
    in[0] = S("[3,1,5]");
    in[1] = S("[4,4,5]");
    assert_int_equal(bc_infer_numpy(2, in, &out, &e), BC_ERR_DIM_MISMATCH);
    assert_int_equal(e.rule, BC_RULE_NUMPY);
    assert_int_equal(e.axis, 0); /* "mismatch on the leftmost axis" */
    assert_int_equal(e.operand, 1);
    assert_int_equal(e.other, 0);
    assert_int_equal(e.dim, 4);
    assert_int_equal(e.other_dim, 3);
    assert_message_has(&e, "result axis 0");
    /* the axis is in the result frame, not the operand's */
    in[0] = S("[7,2,3]");
    in[1] = S("[4]");
    assert_int_equal(bc_infer_numpy(2, in, &out, &e), BC_ERR_DIM_MISMATCH);
    assert_int_equal(e.axis, 2);
    /* out may alias an input */
    in[0] = S("[1,5]");
    in[1] = S("[3,1]");
    assert_int_equal(bc_infer_numpy(2, in, &in[0], &e), BC_OK);
    assert_shape(&in[0], "[3,5]");
}

static void test_numpy_operand_limits(void **state)
{
    (void)state;
    bc_shape in[BC_MAX_OPERANDS + 1], out;
    bc_error e;
    for (int i = 0; i <= BC_MAX_OPERANDS; i++) {
        in[i].rank = 1 + i % 3;
        for (int k = 0; k < in[i].rank; k++)
            in[i].dims[k] = 1;
    }
    in[17].dims[0] = 9; /* rank 3 operand: result axis 0 */
    assert_int_equal(bc_infer_numpy(BC_MAX_OPERANDS, in, &out, &e), BC_OK);
    assert_shape(&out, "[9,1,1]");
    assert_int_equal(bc_infer_numpy(BC_MAX_OPERANDS + 1, in, &out, &e), BC_ERR_OPERAND_COUNT);
    assert_int_equal(bc_infer_numpy(0, in, &out, &e), BC_ERR_OPERAND_COUNT);
    assert_true(bc_error_kind_is_invalid_input(e.kind));
    in[40] = S("[2,1,1]");
    assert_int_equal(bc_infer_numpy(BC_MAX_OPERANDS, in, &out, &e), BC_ERR_DIM_MISMATCH);
    assert_int_equal(e.operand, 40);
    assert_int_equal(e.other, 17);
}

static void test_negative_dims_are_invalid_input(void **state)
{
    (void)state;
    bc_shape in[2] = {S("[2,3]"), S("[3,-1]")}, out;
    bc_error e;
    for (int r = 0; r < BC_RULE_COUNT; r++) {
        bc_params p = bc_params_for((bc_rule)r);
        if (r == BC_RULE_EXPLICIT) {
            p.options |= BC_OPT_AXES_MAPPING;
            p.naxes = 2;
            p.axes[0] = 0;
            p.axes[1] = 1;
        }
        assert_int_equal(bc_infer(&p, 2, in, &out, &e), BC_ERR_NEGATIVE_DIM);
        assert_int_equal(e.operand, 1);
        assert_int_equal(e.axis, 1);
        assert_int_equal(e.dim, -1);
        assert_message_has(&e, "operand 1 has dim -1 at axis 1");
    }
}

static void test_onnx_uni_and_broadcast_to(void **state)
{
    (void)state;
    bc_shape a = S("[2,3,4,5]"), b = S("[1,3,1,5]"), out;
    bc_error e;
    assert_int_equal(bc_infer_onnx_uni(&a, &b, &out, &e), BC_OK);
    assert_shape(&out, "[2,3,4,5]");
    /* A's 1 never stretches: the result is A */
    a = S("[1,5]");
    b = S("[3,5]");
    assert_int_equal(bc_infer_onnx_uni(&a, &b, &out, &e), BC_ERR_DIM_MISMATCH);
    assert_int_equal(e.operand, 1);
    assert_int_equal(e.axis, 0);
    assert_int_equal(e.dim, 3);
    assert_int_equal(e.other_dim, 1);
    b = S("[2,1,5]");
    assert_int_equal(bc_infer_onnx_uni(&a, &b, &out, &e), BC_ERR_RANK_TOO_LARGE);
    assert_int_equal(e.dim, 3);
    assert_int_equal(e.other_dim, 2);
    /* broadcast-to: input first, target second; output is exactly the target */
    bc_shape in = S("[3,1]"), target = S("[2,3,0]");
    assert_int_equal(bc_infer_broadcast_to(&in, &target, &out, &e), BC_OK);
    assert_shape(&out, "[2,3,0]");
    target = S("[3,2,4]");
    assert_int_equal(bc_infer_broadcast_to(&in, &target, &out, &e), BC_ERR_DIM_MISMATCH);
    assert_int_equal(e.operand, 0);
    assert_int_equal(e.other, 1);
    assert_int_equal(e.axis, 1);
    target = S("[1]");
    in = S("[2]");
    assert_int_equal(bc_infer_broadcast_to(&in, &target, &out, &e), BC_ERR_DIM_MISMATCH);
    in = S("[1,1]");
    assert_int_equal(bc_infer_broadcast_to(&in, &target, &out, &e), BC_ERR_RANK_TOO_LARGE);
    assert_message_has(&e, "the input has rank 2, more than the target's 1");
}

static void test_bidirectional_may_differ_from_target(void **state)
{
    (void)state;
    bc_shape in = S("[3,1]"), target = S("[2,1,6]"), out;
    bc_error e;
    assert_int_equal(bc_infer_bidirectional(&in, &target, &out, &e), BC_OK);
    assert_shape(&out, "[2,3,6]");
    in = S("[2,3]");
    target = S("[1]");
    assert_int_equal(bc_infer_bidirectional(&in, &target, &out, &e), BC_OK);
    assert_shape(&out, "[2,3]");
    target = S("[4]");
    assert_int_equal(bc_infer_bidirectional(&in, &target, &out, &e), BC_ERR_DIM_MISMATCH);
    assert_int_equal(e.rule, BC_RULE_BIDIRECTIONAL);
}

static void test_pdpd_openvino_doc(void **state)
{
    (void)state;
    bc_shape a = S("[2,3,4,5]"), b = S("[3,1]"), out;
    bc_error e;
    const bc_profile doc = BC_PROFILE_OPENVINO_DOC;
    assert_int_equal(bc_infer_pdpd(&a, &b, 1, doc, &out, &e), BC_OK);
    assert_shape(&out, "[2,3,4,5]");
    /* default axis uses B's rank before trimming: 4 - 2 = 2, then (3) vs 4 */
    assert_int_equal(bc_infer_pdpd(&a, &b, -1, doc, &out, &e), BC_ERR_DIM_MISMATCH);
    assert_int_equal(e.axis, 2);
    assert_int_equal(e.dim, 3);
    assert_int_equal(e.other_dim, 4);
    assert_int_equal(bc_infer_pdpd(&a, &b, -2, doc, &out, &e), BC_ERR_AXIS_OUT_OF_RANGE);
    assert_int_equal(e.dim, -2);
    assert_int_equal(bc_infer_pdpd(&a, &b, 5, doc, &out, &e), BC_ERR_AXIS_OUT_OF_RANGE);
    b = S("[4,5]");
    assert_int_equal(bc_infer_pdpd(&a, &b, 3, doc, &out, &e), BC_ERR_WINDOW_OUT_OF_RANGE);
    assert_int_equal(e.dim, 5);
    assert_int_equal(e.other_dim, 4);
    /* trailing 1s are dropped before the window is checked */
    b = S("[5,1,1]");
    assert_int_equal(bc_infer_pdpd(&a, &b, 3, doc, &out, &e), BC_OK);
    /* an all-ones B (and the scalar) fits even at axis = rank(A) */
    b = S("[1,1]");
    assert_int_equal(bc_infer_pdpd(&a, &b, 4, doc, &out, &e), BC_OK);
    b = S("[1,1,1,1,1]");
    assert_int_equal(bc_infer_pdpd(&a, &b, -1, doc, &out, &e), BC_ERR_RANK_TOO_LARGE);
    /* 1 onto 0 is fine in the document */
    a = S("[0,3]");
    b = S("[1,3]");
    assert_int_equal(bc_infer_pdpd(&a, &b, -1, doc, &out, &e), BC_OK);
    assert_shape(&out, "[0,3]");
}

static void test_pdpd_openvino_shape_inference(void **state)
{
    (void)state;
    bc_shape a = S("[2,3,4,5]"), b = S("[5,1,1]"), out;
    bc_error e;
    const bc_profile si = BC_PROFILE_OPENVINO_SHAPE_INFERENCE;
    assert_int_equal(bc_infer_pdpd(&a, &b, 3, si, &out, &e), BC_ERR_WINDOW_OUT_OF_RANGE);
    b = S("[3,1]");
    assert_int_equal(bc_infer_pdpd(&a, &b, 1, si, &out, &e), BC_OK);
    a = S("[0,3]");
    b = S("[1,3]");
    assert_int_equal(bc_infer_pdpd(&a, &b, -1, si, &out, &e), BC_ERR_DIM_MISMATCH);
    assert_int_equal(e.axis, 0);
    assert_int_equal(e.dim, 1);
    assert_int_equal(e.other_dim, 0);
    assert_message_has(&e, "not exceed it");
}

static void test_pdpd_paddle(void **state)
{
    (void)state;
    bc_shape a = S("[2,1,4]"), b = S("[3]"), out;
    bc_error e;
    const bc_profile pd = BC_PROFILE_PADDLE;
    assert_int_equal(bc_infer_pdpd(&a, &b, 1, pd, &out, &e), BC_OK);
    assert_shape(&out, "[2,3,4]"); /* both stretch: the result is not A */
    assert_int_equal(bc_infer_pdpd(&a, &b, -1, pd, &out, &e), BC_ERR_DIM_MISMATCH);
    assert_int_equal(e.axis, 2);
    assert_int_equal(e.operand, 1);
    /* either operand may be the larger */
    a = S("[3]");
    b = S("[2,3]");
    assert_int_equal(bc_infer_pdpd(&a, &b, -1, pd, &out, &e), BC_OK);
    assert_shape(&out, "[2,3]");
    assert_int_equal(bc_infer_pdpd(&a, &b, 0, pd, &out, &e), BC_ERR_DIM_MISMATCH);
    assert_int_equal(e.operand, 0); /* the smaller operand is named */
    assert_int_equal(bc_infer_pdpd(&a, &b, 2, pd, &out, &e), BC_ERR_WINDOW_OUT_OF_RANGE);
    assert_int_equal(bc_infer_pdpd(&a, &b, 3, pd, &out, &e), BC_ERR_AXIS_OUT_OF_RANGE);
    assert_int_equal(bc_infer_pdpd(&a, &b, -3, pd, &out, &e), BC_ERR_AXIS_OUT_OF_RANGE);
    /* no trailing-1 trimming: (4,5,1) does not fit at axis 2 of rank 4 */
    a = S("[2,3,4,5]");
    b = S("[4,5,1]");
    assert_int_equal(bc_infer_pdpd(&a, &b, 2, pd, &out, &e), BC_ERR_WINDOW_OUT_OF_RANGE);
    assert_int_equal(bc_infer_pdpd(&a, &b, 2, BC_PROFILE_OPENVINO_DOC, &out, &e), BC_OK);
}

static void test_explicit_axes(void **state)
{
    (void)state;
    bc_shape in = S("[3]"), target = S("[2,3]"), out;
    bc_error e;
    int64_t axes[4] = {0};
    assert_int_equal(bc_infer_explicit_axes(&in, &target, 1, axes, &out, &e), BC_OK);
    assert_shape(&out, "[2,3]");
    axes[0] = 1;
    assert_int_equal(bc_infer_explicit_axes(&in, &target, 1, axes, &out, &e), BC_ERR_DIM_MISMATCH);
    assert_int_equal(e.axis, 0); /* target axis 0 is kept and must equal input axis 0 */
    assert_int_equal(e.dim, 3);
    assert_int_equal(e.other_dim, 2);
    /* no 1-stretching in the axes form */
    in = S("[1]");
    axes[0] = 0;
    assert_int_equal(bc_infer_explicit_axes(&in, &target, 1, axes, &out, &e), BC_ERR_DIM_MISMATCH);
    axes[0] = 2;
    assert_int_equal(bc_infer_explicit_axes(&in, &target, 1, axes, &out, &e),
                     BC_ERR_AXIS_OUT_OF_RANGE);
    assert_int_equal(e.dim, 2);
    axes[0] = -1;
    assert_int_equal(bc_infer_explicit_axes(&in, &target, 1, axes, &out, &e),
                     BC_ERR_AXIS_OUT_OF_RANGE);
    axes[0] = 0;
    axes[1] = 0;
    assert_int_equal(bc_infer_explicit_axes(&in, &target, 2, axes, &out, &e), BC_ERR_AXES_DUPLICATE);
    assert_int_equal(bc_infer_explicit_axes(&in, &target, 0, axes, &out, &e), BC_ERR_AXES_COUNT);
    in = S("[2,3,4]");
    assert_int_equal(bc_infer_explicit_axes(&in, &target, 0, axes, &out, &e), BC_ERR_RANK_TOO_LARGE);
    /* nGraph's example: broadcast_axes {1,3} of a rank-5 target */
    in = S("[2,4,6]");
    target = S("[2,3,4,5,6]");
    axes[0] = 3;
    axes[1] = 1;
    assert_int_equal(bc_infer_explicit_axes(&in, &target, 2, axes, &out, &e), BC_OK);
    /* scalar input, every target axis broadcast */
    in = S("[]");
    axes[0] = 0;
    axes[1] = 1;
    target = S("[2,3]");
    assert_int_equal(bc_infer_explicit_axes(&in, &target, 2, axes, &out, &e), BC_OK);
}

static void test_explicit_mapping(void **state)
{
    (void)state;
    bc_shape in = S("[3]"), target = S("[2,3]"), out;
    bc_error e;
    int64_t m[4] = {1};
    assert_int_equal(bc_infer_explicit_mapping(&in, &target, 1, m, &out, &e), BC_OK);
    m[0] = 0;
    assert_int_equal(bc_infer_explicit_mapping(&in, &target, 1, m, &out, &e), BC_ERR_DIM_MISMATCH);
    assert_int_equal(e.axis, 0);
    in = S("[1]");
    assert_int_equal(bc_infer_explicit_mapping(&in, &target, 1, m, &out, &e), BC_OK);
    in = S("[2,3]");
    m[0] = 0;
    m[1] = 0;
    assert_int_equal(bc_infer_explicit_mapping(&in, &target, 2, m, &out, &e), BC_ERR_AXES_DUPLICATE);
    m[0] = 1;
    assert_int_equal(bc_infer_explicit_mapping(&in, &target, 2, m, &out, &e), BC_ERR_AXES_UNSORTED);
    assert_int_equal(e.dim, 0);
    assert_int_equal(e.other_dim, 1);
    assert_int_equal(bc_infer_explicit_mapping(&in, &target, 1, m, &out, &e), BC_ERR_AXES_COUNT);
    m[0] = 0;
    m[1] = 2;
    assert_int_equal(bc_infer_explicit_mapping(&in, &target, 2, m, &out, &e),
                     BC_ERR_AXIS_OUT_OF_RANGE);
    in = S("[1,1,1]");
    assert_int_equal(bc_infer_explicit_mapping(&in, &target, 3, m, &out, &e),
                     BC_ERR_RANK_TOO_LARGE);
}

static void test_dispatch_checks_params(void **state)
{
    (void)state;
    bc_shape in[2] = {S("[2]"), S("[2]")}, out;
    bc_error e;
    bc_params p = bc_params_for(BC_RULE_NUMPY);
    p.options |= BC_OPT_AXIS;
    p.axis = 0;
    assert_int_equal(bc_infer(&p, 2, in, &out, &e), BC_ERR_BAD_PARAMS);
    assert_message_has(&e, "numpy takes no axis option");
    p = bc_params_for(BC_RULE_NUMPY);
    p.options |= BC_OPT_PROFILE;
    p.profile = BC_PROFILE_PADDLE;
    assert_int_equal(bc_infer(&p, 2, in, &out, &e), BC_ERR_BAD_PARAMS);
    p.profile = BC_PROFILE_DEFAULT;
    assert_int_equal(bc_infer(&p, 2, in, &out, &e), BC_OK);
    p = bc_params_for(BC_RULE_EXPLICIT);
    assert_int_equal(bc_infer(&p, 2, in, &out, &e), BC_ERR_BAD_PARAMS);
    p.options |= BC_OPT_AXES | BC_OPT_AXES_MAPPING;
    assert_int_equal(bc_infer(&p, 2, in, &out, &e), BC_ERR_BAD_PARAMS);
    p = bc_params_for(BC_RULE_PDPD);
    assert_int_equal(bc_infer(&p, 1, in, &out, &e), BC_ERR_OPERAND_COUNT);
    assert_int_equal(bc_infer(&p, 3, in, &out, &e), BC_ERR_OPERAND_COUNT);
    p.options |= BC_OPT_AXES;
    assert_int_equal(bc_infer(&p, 2, in, &out, &e), BC_ERR_BAD_PARAMS);
    /* the null error pointer is allowed */
    assert_int_equal(bc_infer(&p, 2, in, &out, NULL), BC_ERR_BAD_PARAMS);
}

static void test_large_dims_are_pure(void **state)
{
    (void)state;
    bc_shape in[2] = {S("[9223372036854775807,1]"), S("[1,9223372036854775807]")}, out;
    bc_error e;
    assert_int_equal(bc_infer_numpy(2, in, &out, &e), BC_OK);
    assert_shape(&out, "[9223372036854775807,9223372036854775807]");
    in[1] = S("[9223372036854775806,1]");
    assert_int_equal(bc_infer_numpy(2, in, &out, &e), BC_ERR_DIM_MISMATCH);
    assert_message_has(&e, "9223372036854775807");
    assert_message_has(&e, "9223372036854775806");
}

/* ---- exhaustive identities over small shapes ------------------------- */

/* Every shape of rank <= 3 with dims in {0,1,2,3}: 1 + 4 + 16 + 64 = 85. */
static int small_shapes(bc_shape *all)
{
    int n = 0;
    for (int rank = 0; rank <= 3; rank++) {
        int count = 1;
        for (int i = 0; i < rank; i++)
            count *= 4;
        for (int code = 0; code < count; code++) {
            all[n].rank = rank;
            for (int i = 0, c = code; i < rank; i++, c /= 4)
                all[n].dims[i] = c % 4;
            n++;
        }
    }
    return n;
}

/* Independent statement of numpy for two shapes: the result is the
 * elementwise "max unless one is 1" of the right-aligned shapes. */
static int numpy_by_hand(const bc_shape *a, const bc_shape *b, bc_shape *r)
{
    r->rank = a->rank > b->rank ? a->rank : b->rank;
    for (int k = 1; k <= r->rank; k++) {
        int64_t x = k <= a->rank ? a->dims[a->rank - k] : 1;
        int64_t y = k <= b->rank ? b->dims[b->rank - k] : 1;
        if (x == y || y == 1)
            r->dims[r->rank - k] = x;
        else if (x == 1)
            r->dims[r->rank - k] = y;
        else
            return 0;
    }
    return 1;
}

static void test_identities_between_rules(void **state)
{
    (void)state;
    static bc_shape all[85];
    int n = small_shapes(all);
    assert_int_equal(n, 85);
    long checked = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            const bc_shape *a = &all[i], *b = &all[j];
            bc_shape pair[2] = {*a, *b}, swapped[2] = {*b, *a}, r, r2, hand;
            int ok = numpy_by_hand(a, b, &hand);
            /* numpy agrees with the hand statement and is commutative */
            assert_int_equal(bc_infer_numpy(2, pair, &r, NULL) == BC_OK, ok);
            assert_int_equal(bc_infer_numpy(2, swapped, &r2, NULL) == BC_OK, ok);
            if (ok) {
                assert_true(bc_shape_equal(&r, &hand));
                assert_true(bc_shape_equal(&r2, &hand));
            }
            /* bidirectional is numpy of input and target */
            assert_int_equal(bc_infer_bidirectional(a, b, &r2, NULL) == BC_OK, ok);
            if (ok)
                assert_true(bc_shape_equal(&r2, &hand));
            /* onnx-uni accepts exactly when numpy gives A; broadcast-to when numpy gives the target */
            int uni = bc_infer_onnx_uni(a, b, &r2, NULL) == BC_OK;
            assert_int_equal(uni, ok && bc_shape_equal(&hand, a));
            int to = bc_infer_broadcast_to(a, b, &r2, NULL) == BC_OK;
            assert_int_equal(to, ok && bc_shape_equal(&hand, b));
            /* none accepts exactly equal shapes */
            assert_int_equal(bc_infer_none(2, pair, &r2, NULL) == BC_OK, bc_shape_equal(a, b));
            /* pdpd (openvino-doc) at the default axis, for a B without trailing
             * 1s, is onnx-uni; at any axis it is onnx-uni of A's window */
            for (int64_t axis = -1; axis <= a->rank; axis++) {
                int pd = bc_infer_pdpd(a, b, axis, BC_PROFILE_OPENVINO_DOC, &r2, NULL) == BC_OK;
                bc_shape trimmed = *b;
                while (trimmed.rank > 0 && trimmed.dims[trimmed.rank - 1] == 1)
                    trimmed.rank--;
                int64_t start = axis == -1 ? a->rank - b->rank : axis;
                int want = b->rank <= a->rank && start + trimmed.rank <= a->rank;
                if (want) {
                    bc_shape window;
                    window.rank = trimmed.rank;
                    for (int k = 0; k < trimmed.rank; k++)
                        window.dims[k] = a->dims[start + k];
                    want = bc_infer_onnx_uni(&window, &trimmed, &r, NULL) == BC_OK;
                }
                assert_int_equal(pd, want);
                /* paddle with equal ranks at axis 0 is numpy */
                if (a->rank == b->rank && axis <= 0) {
                    int pp = bc_infer_pdpd(a, b, axis, BC_PROFILE_PADDLE, &r2, NULL) == BC_OK;
                    assert_int_equal(pp, ok);
                    if (ok)
                        assert_true(bc_shape_equal(&r2, &hand));
                }
                checked++;
            }
            /* explicit: mapping onto the last axes is broadcast-to for a B
             * without rank gap trouble; axes of the leading ones are its complement */
            if (a->rank <= b->rank) {
                int64_t map[3], lead[3];
                int gap = b->rank - a->rank;
                for (int k = 0; k < a->rank; k++)
                    map[k] = gap + k;
                for (int k = 0; k < gap; k++)
                    lead[k] = k;
                int em = bc_infer_explicit_mapping(a, b, a->rank, map, &r2, NULL) == BC_OK;
                assert_int_equal(em, to);
                int ea = bc_infer_explicit_axes(a, b, gap, lead, &r2, NULL) == BC_OK;
                bc_shape tail = *b;
                tail.rank = a->rank;
                for (int k = 0; k < a->rank; k++)
                    tail.dims[k] = b->dims[gap + k];
                assert_int_equal(ea, bc_shape_equal(a, &tail));
            }
            checked++;
        }
    }
    assert_true(checked > 85 * 85);
}

/* Independent statement of matmul (RULES.md §15), the way NumPy's
 * documentation says it: promote a 1-D A to [1,k] and a 1-D B to [k,1], pad
 * the shorter with leading 1s to one rank, broadcast every axis but the last
 * two as numpy_by_hand's pair rule, check k, then drop the promoted axes. */
static int matmul_by_hand(const bc_shape *a, const bc_shape *b, bc_shape *r)
{
    if (a->rank == 0 || b->rank == 0)
        return 0;
    bc_shape x = *a, y = *b;
    if (x.rank == 1) {
        x.rank = 2;
        x.dims[1] = x.dims[0];
        x.dims[0] = 1;
    }
    if (y.rank == 1) {
        y.rank = 2;
        y.dims[1] = 1;
    }
    if (x.dims[x.rank - 1] != y.dims[y.rank - 2])
        return 0;
    int rank = x.rank > y.rank ? x.rank : y.rank;
    bc_shape full;
    full.rank = rank;
    for (int k = 0; k < rank - 2; k++) {
        int kx = k - (rank - x.rank), ky = k - (rank - y.rank);
        int64_t dx = kx >= 0 ? x.dims[kx] : 1, dy = ky >= 0 ? y.dims[ky] : 1;
        if (dx != dy && dx != 1 && dy != 1)
            return 0;
        full.dims[k] = dx == 1 ? dy : dx;
    }
    full.dims[rank - 2] = x.dims[x.rank - 2];
    full.dims[rank - 1] = y.dims[y.rank - 1];
    *r = full;
    if (b->rank == 1)
        r->rank--; /* the appended column */
    if (a->rank == 1) {  /* the prepended row, second to last before the column went */
        int row = b->rank == 1 ? r->rank - 1 : r->rank - 2;
        memmove(&r->dims[row], &r->dims[row + 1], (size_t)(r->rank - row - 1) * sizeof r->dims[0]);
        r->rank--;
    }
    return 1;
}

static void transpose_last_two(bc_shape *s)
{
    int64_t t = s->dims[s->rank - 2];
    s->dims[s->rank - 2] = s->dims[s->rank - 1];
    s->dims[s->rank - 1] = t;
}

static void test_matmul_identities(void **state)
{
    (void)state;
    static bc_shape all[85];
    int n = small_shapes(all);
    long accepted = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            const bc_shape *a = &all[i], *b = &all[j];
            bc_shape r, hand;
            int ok = matmul_by_hand(a, b, &hand);
            assert_int_equal(bc_infer_matmul(a, b, &r, NULL) == BC_OK, ok);
            if (!ok)
                continue;
            accepted++;
            assert_true(bc_shape_equal(&r, &hand));
            /* (AB)^T = B^T A^T, on shapes, when both are matrices */
            if (a->rank >= 2 && b->rank >= 2) {
                bc_shape at = *a, bt = *b, r2;
                transpose_last_two(&at);
                transpose_last_two(&bt);
                assert_int_equal(bc_infer_matmul(&bt, &at, &r2, NULL), BC_OK);
                transpose_last_two(&r2);
                assert_true(bc_shape_equal(&r, &r2));
            }
        }
    assert_true(accepted > 500);
}

static void assert_fields(const bc_error *e, int operand, int other, int axis, int64_t dim,
                          int64_t other_dim)
{
    assert_int_equal(e->operand, operand);
    assert_int_equal(e->other, other);
    assert_int_equal(e->axis, axis);
    assert_int_equal(e->dim, dim);
    assert_int_equal(e->other_dim, other_dim);
}

static void test_matmul_errors(void **state)
{
    (void)state;
    bc_shape a = S("[2,3,5]"), b = S("[5,4,5]"), out;
    bc_error e;
    bc_params p = bc_params_for(BC_RULE_MATMUL);
    bc_shape pair[3] = {a, b, b};
    assert_int_equal(bc_infer(&p, 3, pair, &out, &e), BC_ERR_OPERAND_COUNT);
    /* both the contraction (5 against 4) and the batch (2 against 5) are
     * wrong: the contraction is reported (RULES.md §15) */
    assert_int_equal(bc_infer(&p, 2, pair, &out, &e), BC_ERR_DIM_MISMATCH);
    assert_fields(&e, 1, 0, -1, 4, 5);
    assert_message_has(&e, "contracted dims differ");
    pair[1] = S("[5,5,6]");
    assert_int_equal(bc_infer(&p, 2, pair, &out, &e), BC_ERR_DIM_MISMATCH);
    assert_fields(&e, 1, 0, 0, 5, 2);
    pair[0] = S("[3]"), pair[1] = S("[]");
    assert_int_equal(bc_infer(&p, 2, pair, &out, &e), BC_ERR_RANK_MISMATCH);
    assert_fields(&e, 1, 0, -1, 0, 1);
    pair[0] = S("[3]"), pair[1] = S("[3]");
    assert_int_equal(bc_infer(&p, 2, pair, &out, &e), BC_OK);
    assert_shape(&out, "[]");
    p.options |= BC_OPT_AXIS;
    assert_int_equal(bc_infer(&p, 2, pair, &out, &e), BC_ERR_BAD_PARAMS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_none),
        cmocka_unit_test(test_numpy),
        cmocka_unit_test(test_numpy_operand_limits),
        cmocka_unit_test(test_negative_dims_are_invalid_input),
        cmocka_unit_test(test_onnx_uni_and_broadcast_to),
        cmocka_unit_test(test_bidirectional_may_differ_from_target),
        cmocka_unit_test(test_pdpd_openvino_doc),
        cmocka_unit_test(test_pdpd_openvino_shape_inference),
        cmocka_unit_test(test_pdpd_paddle),
        cmocka_unit_test(test_explicit_axes),
        cmocka_unit_test(test_explicit_mapping),
        cmocka_unit_test(test_dispatch_checks_params),
        cmocka_unit_test(test_large_dims_are_pure),
        cmocka_unit_test(test_identities_between_rules),
        cmocka_unit_test(test_matmul_identities),
        cmocka_unit_test(test_matmul_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
