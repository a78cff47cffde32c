/*
 * The fast engine's float16 kernels against the naive evaluator on every
 * binary16 value (docs/ENGINE.md, "float16 through F16C").  The fast
 * engine takes its F16C kernels on a CPU that has F16C, unless
 * BROADCHECK_F16C=0, when it takes the portable ones; the naive evaluator
 * always converts in software.  CTest runs this twice, once each way, so
 * both paths of the fast engine are compared with the oracle on all 65,536
 * halves: every op against a set of second operands chosen for their
 * rounding (ties to even, the overflow edge at 65504 + 16, subnormals,
 * signed zeros, infinities, NaN), every op on all 65,536 x a permutation
 * of them, the n-ary fold, and both sum-to-shape loops; and sums of several
 * running sums at once, which the fast engine adds side by side.
 *
 * Each answer is also checked against float32 arithmetic on the converted
 * operands, rounded once (model_check), so that a mistake in scalar.h's
 * float16 definitions, which both evaluators share, fails too.
 *
 * Bit for bit, with one exception the engine documents (docs/ENGINE.md,
 * "NaN payloads"): when both operands of + - * / are NaNs, which payload
 * comes out depends on the hardware's operand order, so such a pair only
 * has to give a NaN in both evaluators.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "broadcheck/tensor.h"

#define ALL 65536

static int is_nan16(uint16_t h)
{
    return (h & 0x7c00u) == 0x7c00u && (h & 0x03ffu) != 0;
}

static int arithmetic(bc_op op)
{
    return op == BC_OP_ADD || op == BC_OP_SUB || op == BC_OP_MUL || op == BC_OP_DIV;
}

static bc_tensor view(bc_dtype t, int rank, const int64_t *dims, void *data)
{
    bc_shape s;
    s.rank = rank;
    for (int k = 0; k < rank; k++)
        s.dims[k] = dims[k];
    return bc_tensor_contiguous(t, &s, data);
}

/* got (fast) against want (naive), n results of op on a[i] and b[i]. */
static void compare(bc_op op, const uint16_t *a, const uint16_t *b, const void *got,
                    const void *want, int64_t n, const char *what)
{
    const int bool_out = bc_op_result_dtype(op, BC_FLOAT16) == BC_BOOL;
    for (int64_t i = 0; i < n; i++) {
        if (bool_out) {
            uint8_t g = ((const uint8_t *)got)[i], w = ((const uint8_t *)want)[i];
            if (g != w)
                fail_msg("%s %s: element %lld (0x%04x, 0x%04x): fast %u, naive %u", what,
                         bc_op_name(op), (long long)i, a[i], b[i], g, w);
            continue;
        }
        uint16_t g = ((const uint16_t *)got)[i], w = ((const uint16_t *)want)[i];
        if (g == w || (arithmetic(op) && is_nan16(a[i]) && is_nan16(b[i]) && is_nan16(g) &&
                       is_nan16(w)))
            continue;
        fail_msg("%s %s: element %lld (0x%04x, 0x%04x): fast 0x%04x, naive 0x%04x", what,
                 bc_op_name(op), (long long)i, a[i], b[i], g, w);
    }
}

#if BC_HAVE_FLOAT16
/* The definition itself, apart from float16's code in scalar.h (which both
 * evaluators share): a float16 op is the float32 op on the operands
 * converted exactly, rounded once to binary16 (docs/ENGINE.md: float has
 * more than 2 x 11 + 2 bits); comparisons and logical ops are the float32
 * ones.  NaNs by NaN-ness only (a conversion quiets a signalling one). */
static void model_check(bc_op op, const uint16_t *a, const uint16_t *b, const void *got,
                        int64_t n, const char *what)
{
    float *fa = malloc((size_t)n * 4), *fb = malloc((size_t)n * 4), *fo = malloc((size_t)n * 4);
    assert_non_null(fa);
    assert_non_null(fb);
    assert_non_null(fo);
    for (int64_t i = 0; i < n; i++) {
        _Float16 x, y;
        memcpy(&x, &a[i], 2);
        memcpy(&y, &b[i], 2);
        fa[i] = (float)x;
        fb[i] = (float)y;
    }
    const bc_params p = bc_params_for(BC_RULE_NUMPY);
    const int64_t dims[1] = {n};
    const bc_dtype od = bc_op_result_dtype(op, BC_FLOAT32);
    bc_tensor ta = view(BC_FLOAT32, 1, dims, fa), tb = view(BC_FLOAT32, 1, dims, fb);
    bc_tensor to = view(od, 1, dims, fo);
    bc_error err;
    assert_int_equal(bc_eval_binary(BC_EVAL_NAIVE, op, &p, &ta, &tb, &to, &err), BC_OK);
    for (int64_t i = 0; i < n; i++) {
        if (od == BC_BOOL) {
            if (((const uint8_t *)got)[i] != ((const uint8_t *)fo)[i])
                fail_msg("%s %s: element %lld (0x%04x, 0x%04x): %u, float32 gives %u", what,
                         bc_op_name(op), (long long)i, a[i], b[i], ((const uint8_t *)got)[i],
                         ((const uint8_t *)fo)[i]);
            continue;
        }
        _Float16 h = (_Float16)fo[i];
        uint16_t want, g = ((const uint16_t *)got)[i];
        memcpy(&want, &h, 2);
        if (g != want && !(is_nan16(g) && is_nan16(want)))
            fail_msg("%s %s: element %lld (0x%04x, 0x%04x): 0x%04x, float32 rounded gives 0x%04x",
                     what, bc_op_name(op), (long long)i, a[i], b[i], g, want);
    }
    free(fa);
    free(fb);
    free(fo);
}
#else
static void model_check(bc_op op, const uint16_t *a, const uint16_t *b, const void *got,
                        int64_t n, const char *what)
{
    (void)op, (void)a, (void)b, (void)got, (void)n, (void)what;
}
#endif

/* Second operands that sit on rounding edges: 1 and its neighbours, ties
 * (1 + 2^-11 rounds to even), 2048 (above it halves step by 2), 65504 and
 * the tie to infinity, the smallest subnormal and normal, zeros,
 * infinities, the default NaN and a NaN with a payload. */
static const uint16_t edges[] = {0x3c00, 0x3c01, 0xbc00, 0x1000, 0x6801, 0x7bff, 0x0001,
                                 0x0400, 0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7d55};

static void every_half(void **state)
{
    (void)state;
    uint16_t *a = malloc(ALL * 2), *b = malloc(ALL * 2), *bs = malloc(ALL * 2);
    uint16_t *got = malloc(ALL * 2), *want = malloc(ALL * 2);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(bs);
    assert_non_null(got);
    assert_non_null(want);
    for (uint32_t i = 0; i < ALL; i++) {
        a[i] = (uint16_t)i;
        b[i] = (uint16_t)(i * 40503u + 12345u); /* odd multiplier: a permutation */
    }
    const bc_params p = bc_params_for(BC_RULE_NUMPY);
    const int64_t n[1] = {ALL};
    bc_error err;
    for (int op = 0; op < BC_OP_COUNT; op++) {
        if (!bc_op_takes_dtype((bc_op)op, BC_FLOAT16))
            continue;
        const bc_dtype od = bc_op_result_dtype((bc_op)op, BC_FLOAT16);
        bc_tensor ta = view(BC_FLOAT16, 1, n, a), tb = view(BC_FLOAT16, 1, n, b);
        bc_tensor tg = view(od, 1, n, got), tw = view(od, 1, n, want);
        /* all contiguous: every half against a permutation of them */
        assert_int_equal(bc_eval_binary(BC_EVAL_FAST, (bc_op)op, &p, &ta, &tb, &tg, &err), BC_OK);
        assert_int_equal(bc_eval_binary(BC_EVAL_NAIVE, (bc_op)op, &p, &ta, &tb, &tw, &err), BC_OK);
        compare((bc_op)op, a, b, got, want, ALL, "a[i] op b[i]");
        model_check((bc_op)op, a, b, got, ALL, "a[i] op b[i]");
        /* a scalar on either side (the kernels' stride-0 loops) */
        for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++) {
            uint16_t y = edges[e];
            bc_tensor ty = view(BC_FLOAT16, 0, n, &y);
            for (uint32_t i = 0; i < ALL; i++)
                bs[i] = y;
            assert_int_equal(bc_eval_binary(BC_EVAL_FAST, (bc_op)op, &p, &ta, &ty, &tg, &err),
                             BC_OK);
            assert_int_equal(bc_eval_binary(BC_EVAL_NAIVE, (bc_op)op, &p, &ta, &ty, &tw, &err),
                             BC_OK);
            compare((bc_op)op, a, bs, got, want, ALL, "a[i] op y");
            model_check((bc_op)op, a, bs, got, ALL, "a[i] op y");
            assert_int_equal(bc_eval_binary(BC_EVAL_FAST, (bc_op)op, &p, &ty, &ta, &tg, &err),
                             BC_OK);
            assert_int_equal(bc_eval_binary(BC_EVAL_NAIVE, (bc_op)op, &p, &ty, &ta, &tw, &err),
                             BC_OK);
            compare((bc_op)op, bs, a, got, want, ALL, "y op a[i]");
            model_check((bc_op)op, bs, a, got, ALL, "y op a[i]");
        }
    }
    free(a);
    free(b);
    free(bs);
    free(got);
    free(want);
}

/* The n-ary fold (its row kernels) and sum-to-shape (the running sum and
 * the row-by-row loop) on every half. */
static void folds_and_sums(void **state)
{
    (void)state;
    uint16_t *in = malloc(3 * ALL * 2), *got = malloc(ALL * 2), *want = malloc(ALL * 2);
    assert_non_null(in);
    assert_non_null(got);
    assert_non_null(want);
    for (uint32_t i = 0; i < ALL; i++) {
        in[i] = (uint16_t)i;
        in[ALL + i] = (uint16_t)(i * 40503u + 12345u);
        in[2 * ALL + i] = (uint16_t)(i * 9u + 7u);
    }
    const bc_params p = bc_params_for(BC_RULE_NUMPY);
    const int64_t n[1] = {ALL};
    bc_error err;
    static const bc_op nary[] = {BC_OP_ADD, BC_OP_MUL, BC_OP_MAX, BC_OP_MIN};
    bc_tensor three[3];
    for (int k = 0; k < 3; k++)
        three[k] = view(BC_FLOAT16, 1, n, in + k * ALL);
    bc_tensor tg = view(BC_FLOAT16, 1, n, got), tw = view(BC_FLOAT16, 1, n, want);
    for (size_t o = 0; o < sizeof nary / sizeof nary[0]; o++) {
        assert_int_equal(bc_eval_nary(BC_EVAL_FAST, nary[o], &p, 3, three, &tg, &err), BC_OK);
        assert_int_equal(bc_eval_nary(BC_EVAL_NAIVE, nary[o], &p, 3, three, &tw, &err), BC_OK);
        for (uint32_t i = 0; i < ALL; i++) {
            const int nans = is_nan16(in[i]) + is_nan16(in[ALL + i]) + is_nan16(in[2 * ALL + i]);
            if (got[i] != want[i] && !(nary[o] != BC_OP_MAX && nary[o] != BC_OP_MIN &&
                                       nans >= 2 && is_nan16(got[i]) && is_nan16(want[i])))
                fail_msg("n-ary %s: element %u: fast 0x%04x, naive 0x%04x",
                         bc_op_name(nary[o]), i, got[i], want[i]);
        }
    }
    /* [256, 256] summed to [256] (a row per output: out[i] += g[i]) and to
     * [256, 1] (each output one running sum) */
    const int64_t g2[2] = {256, 256}, to_row[1] = {256}, to_col[2] = {256, 1};
    bc_tensor grad = view(BC_FLOAT16, 2, g2, in + ALL);
    bc_shape shapes[2];
    shapes[1].rank = 2;
    shapes[1].dims[0] = shapes[1].dims[1] = 256;
    for (int form = 0; form < 2; form++) {
        const int64_t *dims = form ? to_col : to_row;
        const int rank = form ? 2 : 1;
        shapes[0].rank = rank;
        for (int k = 0; k < rank; k++)
            shapes[0].dims[k] = dims[k];
        bc_tensor og = view(BC_FLOAT16, rank, dims, got), ow = view(BC_FLOAT16, rank, dims, want);
        assert_int_equal(bc_eval_sum_to_shape(BC_EVAL_FAST, &p, 2, shapes, 0, &grad, &og, &err),
                         BC_OK);
        assert_int_equal(bc_eval_sum_to_shape(BC_EVAL_NAIVE, &p, 2, shapes, 0, &grad, &ow, &err),
                         BC_OK);
        for (int i = 0; i < 256; i++)
            if (got[i] != want[i] && !(is_nan16(got[i]) && is_nan16(want[i])))
                fail_msg("sum-to-shape %s: element %d: fast 0x%04x, naive 0x%04x",
                         form ? "[256,1]" : "[256]", i, got[i], want[i]);
    }
    free(in);
    free(got);
    free(want);
}

/* Row r's terms for the chains below: a large first term (2048 + 8r, where
 * binary16's spacing is 2), then ones and halves, each lost to rounding (a
 * tie to the even 2048 + 8r, or below half the spacing) after it and kept
 * before it: a row added in any other order, or from another row's running
 * sum, gives other bits. */
static uint16_t chain_term(int r, int64_t j)
{
    static const uint16_t small[] = {0x3c00, 0x3800, 0x3c00};
    if (j == 0)
        return (uint16_t)(0x6800 + 4 * r);
    return small[(uint64_t)(j * 7 + r * 3) % (sizeof small / sizeof small[0])];
}

#if BC_HAVE_FLOAT16
/* Row r's chain in a plain loop: each addition rounded to binary16. */
static uint16_t chain_plain(int r, int64_t len, int reversed)
{
    _Float16 acc = (_Float16)-0.0f;
    for (int64_t k = 0; k < len; k++) {
        const uint16_t t = chain_term(r, reversed ? len - 1 - k : k);
        _Float16 x;
        memcpy(&x, &t, 2);
        acc = (_Float16)((float)acc + (float)x);
    }
    uint16_t h;
    memcpy(&h, &acc, 2);
    return h;
}
#endif

/* Sums whose outputs are m independent running sums (m = 1 .. 9), which the
 * fast engine adds side by side: [m, L] -> [m, 1] (each row a chain) and
 * [L, m] -> [m] (each column a chain), and [m, L] with a gap after each row
 * -> [1] (one chain through all rows in turn: not to be split).  Each output
 * must be its own chain in its own order, as the naive evaluator and a plain
 * loop add it. */
static void interleaved_chains(void **state)
{
    (void)state;
    enum { LEN = 37, GAP = 3, MOST = 9 };
    uint16_t *in = malloc(MOST * (LEN + GAP) * 2), got[MOST], want[MOST];
    assert_non_null(in);
    const bc_params p = bc_params_for(BC_RULE_NUMPY);
    bc_error err;
    for (int m = 1; m <= MOST; m++) {
        for (int form = 0; form < 3; form++) {
            bc_shape shapes[2];
            int64_t gd[2], od[2];
            int orank = form == 1 ? 1 : 2, outs = form == 2 ? 1 : m;
            gd[0] = form == 1 ? LEN : m;
            gd[1] = form == 1 ? m : LEN;
            od[0] = form == 1 ? m : form == 2 ? 1 : m;
            od[1] = 1;
            for (int r = 0; r < m; r++)
                for (int64_t j = 0; j < LEN; j++) {
                    const int64_t at = form == 1 ? j * m + r : r * (LEN + GAP) + j;
                    in[at] = form == 2 ? chain_term(0, r * LEN + j) : chain_term(r, j);
                }
            bc_tensor grad = view(BC_FLOAT16, 2, gd, in);
            if (form != 1)
                grad.strides[0] = LEN + GAP;
            shapes[0].rank = orank;
            shapes[0].dims[0] = od[0];
            shapes[0].dims[1] = od[1];
            shapes[1].rank = 2;
            shapes[1].dims[0] = gd[0];
            shapes[1].dims[1] = gd[1];
            bc_tensor og = view(BC_FLOAT16, orank, od, got), ow = view(BC_FLOAT16, orank, od, want);
            assert_int_equal(
                bc_eval_sum_to_shape(BC_EVAL_FAST, &p, 2, shapes, 0, &grad, &og, &err), BC_OK);
            assert_int_equal(
                bc_eval_sum_to_shape(BC_EVAL_NAIVE, &p, 2, shapes, 0, &grad, &ow, &err), BC_OK);
            for (int r = 0; r < outs; r++) {
                if (got[r] != want[r])
                    fail_msg("form %d, m %d: output %d: fast 0x%04x, naive 0x%04x", form, m, r,
                             got[r], want[r]);
#if BC_HAVE_FLOAT16
                const int64_t len = form == 2 ? m * LEN : LEN;
                const int row = form == 2 ? 0 : r;
                /* the terms make order and row visible: else the test sees
                 * nothing */
                assert_int_not_equal(chain_plain(row, len, 0), chain_plain(row, len, 1));
                if (r > 0)
                    assert_int_not_equal(want[r], want[r - 1]);
                if (got[r] != chain_plain(row, len, 0))
                    fail_msg("form %d, m %d: output %d: fast 0x%04x, plain loop 0x%04x", form,
                             m, r, got[r], chain_plain(row, len, 0));
#endif
            }
        }
    }
    free(in);
}

int main(void)
{
    if (!bc_dtype_available(BC_FLOAT16)) {
        printf("float16 is not available in this build: nothing to compare\n");
        return 77;
    }
    const char *env = getenv("BROADCHECK_F16C");
    printf("fast engine float16 kernels: %s\n",
           env && strcmp(env, "0") == 0 ? "portable (BROADCHECK_F16C=0)"
                                        : "F16C where the CPU has it");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_half),
        cmocka_unit_test(folds_and_sums),
        cmocka_unit_test(interleaved_chains),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
