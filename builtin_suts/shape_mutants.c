/*
 * Planted-bug SUTs for shape rules.  Each one is a realistic bug modelled on
 * a real one, cited below and in docs/MUTANTS.md; the default run must kill
 * every one of them (tests/test_runner.c).  They answer exactly like the
 * reference except where their bug bites.
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"

/* NUMPY with the result dim taken as max(a, b): 0 against 1 gives 1.
 * microsoft/onnxruntime#1670; openvinotoolkit/openvino#31049 (fixed by PR #31156: a
 * std::max in the bidirectional result shape). */
static void max_dim(const bc_sut *sut, const bc_params *p, int n, const bc_shape *s,
                    bc_sut_answer *a)
{
    (void)sut;
    bc_answer_from_reference(p, n, s, a);
    if (a->status != BC_SUT_OK || (p->rule != BC_RULE_NUMPY && p->rule != BC_RULE_BIDIRECTIONAL))
        return;
    for (int r = 0; r < a->shape.rank; r++)
        for (int i = 0; i < n; i++) {
            int k = r - (a->shape.rank - s[i].rank);
            if (k >= 0 && s[i].dims[k] > a->shape.dims[r])
                a->shape.dims[r] = s[i].dims[k];
        }
}

/* NUMPY aligning ranks on the left (padding 1s at the end).
 * A classic hand-written broadcast bug; see RULES.md §3 ("right-aligned"). */
static void left_aligned(const bc_sut *sut, const bc_params *p, int n, const bc_shape *s,
                         bc_sut_answer *a)
{
    (void)sut;
    if (p->rule != BC_RULE_NUMPY || n > BC_MAX_OPERANDS) {
        bc_answer_from_reference(p, n, s, a);
        return;
    }
    bc_shape padded[BC_MAX_OPERANDS];
    int rank = 0;
    for (int i = 0; i < n; i++)
        rank = s[i].rank > rank ? s[i].rank : rank;
    for (int i = 0; i < n; i++) {
        padded[i] = s[i];
        while (padded[i].rank < rank)
            padded[i].dims[padded[i].rank++] = 1;
    }
    bc_answer_from_reference(p, n, padded, a);
}

/* ONNX unidirectional / broadcast-to whose rank check is an unsigned
 * subtraction that always passes: a B of larger rank is accepted and the
 * result is A.  openvinotoolkit/openvino PR #13849. */
static void uni_rank_unchecked(const bc_sut *sut, const bc_params *p, int n, const bc_shape *s,
                               bc_sut_answer *a)
{
    (void)sut;
    bc_answer_from_reference(p, n, s, a);
    if (n != 2 || a->kind != BC_ERR_RANK_TOO_LARGE)
        return;
    int big = p->rule == BC_RULE_ONNX_UNI ? 0 : 1;
    if (p->rule == BC_RULE_ONNX_UNI || p->rule == BC_RULE_BROADCAST_TO) {
        a->status = BC_SUT_OK;
        a->kind = BC_OK;
        a->shape = s[big];
    }
}

/* PDPD (openvino-doc) without dropping B's trailing 1s.
 * openvinotoolkit/openvino: shape inference vs the reference kernel, RULES.md §5.2;
 * PaddlePaddle/Paddle PR #8505 made elementwise ops tolerate trailing 1s. */
static void pdpd_no_trim(const bc_sut *sut, const bc_params *p, int n, const bc_shape *s,
                         bc_sut_answer *a)
{
    (void)sut;
    bc_answer_from_reference(p, n, s, a);
    int doc = bc_params_resolved_profile(p) == BC_PROFILE_OPENVINO_DOC;
    if (p->rule != BC_RULE_PDPD || !doc || n != 2 ||
        (a->status == BC_SUT_REJECTED && a->kind != BC_ERR_DIM_MISMATCH &&
         a->kind != BC_ERR_WINDOW_OUT_OF_RANGE))
        return; /* only the window and dim checks change */
    const bc_shape *A = &s[0], *B = &s[1];
    int64_t axis = p->axis == -1 ? A->rank - B->rank : p->axis;
    a->status = BC_SUT_REJECTED;
    a->kind = BC_ERR_WINDOW_OUT_OF_RANGE;
    if (axis + B->rank > A->rank)
        return;
    a->kind = BC_ERR_DIM_MISMATCH;
    for (int i = 0; i < B->rank; i++)
        if (B->dims[i] != A->dims[axis + i] && B->dims[i] != 1)
            return;
    a->status = BC_SUT_OK;
    a->kind = BC_OK;
    a->shape = *A;
}

/* Negative dims accepted as if they were 1 (a "-1 means infer" shortcut).
 * pytorch/pytorch#68957. */
static void negative_accepted(const bc_sut *sut, const bc_params *p, int n, const bc_shape *s,
                              bc_sut_answer *a)
{
    (void)sut;
    if (n > BC_MAX_OPERANDS + 8) {
        bc_answer_from_reference(p, n, s, a);
        return;
    }
    bc_shape fixed[BC_MAX_OPERANDS + 8];
    for (int i = 0; i < n; i++) {
        fixed[i] = s[i];
        for (int k = 0; k < fixed[i].rank; k++)
            if (fixed[i].dims[k] < 0)
                fixed[i].dims[k] = 1;
    }
    bc_answer_from_reference(p, n, fixed, a);
}

/* ONNX Expand (bidirectional) implemented as broadcast_to: the output is
 * always the target.  microsoft/onnxruntime PR #21163. */
static void expand_as_broadcast_to(const bc_sut *sut, const bc_params *p, int n,
                                   const bc_shape *s, bc_sut_answer *a)
{
    (void)sut;
    bc_params q = *p;
    if (p->rule == BC_RULE_BIDIRECTIONAL)
        q.rule = BC_RULE_BROADCAST_TO;
    bc_answer_from_reference(&q, n, s, a);
}

/* broadcast_to implemented as Expand: a target smaller than the input is
 * accepted and the output differs from the target.
 * microsoft/onnxruntime PR #21163 (the reverse confusion). */
static void broadcast_to_as_expand(const bc_sut *sut, const bc_params *p, int n,
                                   const bc_shape *s, bc_sut_answer *a)
{
    (void)sut;
    bc_params q = *p;
    if (p->rule == BC_RULE_BROADCAST_TO) {
        q.rule = BC_RULE_BIDIRECTIONAL;
        q.options &= ~BC_OPT_PROFILE; /* Expand has no profile: pytorch-expand's is broadcast-to's */
    }
    bc_answer_from_reference(&q, n, s, a);
}

/* Binary NUMPY where the first operand cannot broadcast: it must already
 * have the result's shape.  oneapi-src/oneDNN#985. */
static void operand0_cannot_broadcast(const bc_sut *sut, const bc_params *p, int n,
                                      const bc_shape *s, bc_sut_answer *a)
{
    (void)sut;
    bc_answer_from_reference(p, n, s, a);
    if (p->rule != BC_RULE_NUMPY || a->status != BC_SUT_OK || n < 2)
        return;
    if (!bc_shape_equal(&s[0], &a->shape)) {
        a->status = BC_SUT_REJECTED;
        a->kind = BC_OK; /* "unsupported broadcast" with no kind */
        snprintf(a->message, sizeof a->message, "src0 must not be broadcast");
    }
}

/* A 0 dim treated as a wildcard that pairs with anything (0 against n gives
 * n).  Paddle up to 2.6, PaddlePaddle/Paddle#37077 (RULES.md §10.2). */
static void zero_wildcard(const bc_sut *sut, const bc_params *p, int n, const bc_shape *s,
                          bc_sut_answer *a)
{
    (void)sut;
    bc_answer_from_reference(p, n, s, a);
    if (p->rule != BC_RULE_NUMPY || a->status != BC_SUT_REJECTED || n != 2)
        return;
    bc_shape out;
    out.rank = s[0].rank > s[1].rank ? s[0].rank : s[1].rank;
    for (int r = 0; r < out.rank; r++) {
        int k0 = r - (out.rank - s[0].rank), k1 = r - (out.rank - s[1].rank);
        int64_t x = k0 >= 0 ? s[0].dims[k0] : 1, y = k1 >= 0 ? s[1].dims[k1] : 1;
        if (x < 0 || y < 0)
            return;
        if (x != y && x > 1 && y > 1)
            return; /* a real mismatch stays one */
        out.dims[r] = x > y ? x : y;
    }
    a->status = BC_SUT_OK;
    a->kind = BC_OK;
    a->shape = out;
}

/* PDPD whose default axis is computed from B's rank after trailing 1s are
 * dropped.  OpenVINO's 2021 code path (RULES.md §5, §10.2); PaddlePaddle/Paddle
 * PR #23913 fixed elementwise_add's default axis disagreeing with x + y. */
static void pdpd_axis_after_trim(const bc_sut *sut, const bc_params *p, int n, const bc_shape *s,
                                 bc_sut_answer *a)
{
    (void)sut;
    bc_params q = *p;
    if (p->rule == BC_RULE_PDPD && n == 2 && p->axis == -1 &&
        bc_params_profile(p) != BC_PROFILE_PADDLE) {
        int len = s[1].rank;
        while (len > 0 && s[1].dims[len - 1] == 1)
            len--;
        if (s[1].rank <= s[0].rank) {
            q.options |= BC_OPT_AXIS;
            q.axis = s[0].rank - len;
        }
    }
    bc_answer_from_reference(&q, n, s, a);
}

/* Explicit axes_mapping checked as non-decreasing, so a repeated entry
 * passes.  OpenVINO Broadcast-3 explicit shape inference (RULES.md §8.2). */
static void mapping_allows_repeats(const bc_sut *sut, const bc_params *p, int n,
                                   const bc_shape *s, bc_sut_answer *a)
{
    (void)sut;
    bc_answer_from_reference(p, n, s, a);
    if (p->rule != BC_RULE_EXPLICIT || a->kind != BC_ERR_AXES_DUPLICATE ||
        !(p->options & BC_OPT_AXES_MAPPING) || n != 2)
        return;
    for (int i = 0; i < p->naxes; i++) {
        if (i > 0 && p->axes[i] < p->axes[i - 1])
            return;
        int64_t d = s[0].dims[i], t = s[1].dims[p->axes[i]];
        if (d != t && d != 1)
            return;
    }
    a->status = BC_SUT_OK;
    a->kind = BC_OK;
    a->shape = s[1];
}

/* numpy and bidirectional whose output dim is taken from operand 0 when
 * that is 1 (an assignment meant for the other operand), so a stretch of
 * operand 0 collapses to 1.  google/XNNPACK PR #10650. */
static void broadcast_swapped_assign(const bc_sut *sut, const bc_params *p, int n,
                                     const bc_shape *s, bc_sut_answer *a)
{
    (void)sut;
    bc_answer_from_reference(p, n, s, a);
    if (a->status != BC_SUT_OK || n != 2 ||
        (p->rule != BC_RULE_NUMPY && p->rule != BC_RULE_BIDIRECTIONAL))
        return;
    int gap = a->shape.rank - s[0].rank;
    for (int k = 0; k < s[0].rank; k++)
        if (s[0].dims[k] == 1)
            a->shape.dims[gap + k] = 1;
}

/* PDPD Select with nGraph 2020's operand roles under current OpenVINO's
 * profile: `else` is the frame and `then`, then `cond`, are merged into it
 * (the §5.2 check), where OpenVINO merges `else` and `cond` into `then`.
 * openvinotoolkit/openvino select_shape_inference.hpp ("Broadcast-merging
 * 'else' into 'then' one way") against NervanaSystems/ngraph select.cpp
 * (result_shape = else); RULES.md §5.4, §5.5. */
static void select_roles_swapped(const bc_sut *sut, const bc_params *p, int n, const bc_shape *s,
                                 bc_sut_answer *a)
{
    (void)sut;
    bc_answer_from_reference(p, n, s, a);
    if (p->rule != BC_RULE_PDPD || bc_params_profile(p) != BC_PROFILE_OPENVINO_SELECT || n != 3 ||
        bc_error_kind_is_invalid_input(a->kind))
        return;
    bc_params step = *p;
    step.profile = BC_PROFILE_OPENVINO_SHAPE_INFERENCE;
    bc_shape pair[2] = {s[2], s[1]};
    bc_answer_from_reference(&step, 2, pair, a);
    if (a->status == BC_SUT_OK) {
        pair[1] = s[0];
        bc_answer_from_reference(&step, 2, pair, a);
    }
}

#define MUTANT(ident, fn, name, what, cite)                        \
    static const bc_sut_ops ident##_ops = {fn, NULL, NULL}; /* shapes only */ \
    const bc_sut ident = {name, "mutant", what, cite, &ident##_ops}

/* matmul without the contraction check: the batch is broadcast and the
 * result built, but A's last dim is never compared with B's contracted
 * dim.  hw-native-sys/pypto#837 (fixed by PR #838). */
static void matmul_k_unchecked(const bc_sut *sut, const bc_params *p, int n, const bc_shape *s,
                               bc_sut_answer *a)
{
    (void)sut;
    bc_answer_from_reference(p, n, s, a);
    if (p->rule != BC_RULE_MATMUL || n != 2 || a->status != BC_SUT_REJECTED ||
        a->kind != BC_ERR_DIM_MISMATCH || s[0].rank == 0 || s[1].rank == 0)
        return;
    /* Ask again with B's contracted dim made A's: what the unchecked code returns. */
    bc_shape b = s[1];
    b.dims[b.rank >= 2 ? b.rank - 2 : 0] = s[0].dims[s[0].rank - 1];
    bc_shape pair[2] = {s[0], b};
    bc_answer_from_reference(p, 2, pair, a);
}

/* matmul that promotes a 1-D operand ([k] to [1,k], [k] to [k,1]) and never
 * removes the promoted axis from the result: [4] @ [4,5] gives [1,5].
 * keras-team/keras#22993 (fixed by PR #22994). */
static void matmul_promoted_kept(const bc_sut *sut, const bc_params *p, int n, const bc_shape *s,
                                 bc_sut_answer *a)
{
    (void)sut;
    bc_answer_from_reference(p, n, s, a);
    if (p->rule != BC_RULE_MATMUL || n != 2 || a->status != BC_SUT_OK)
        return;
    if (s[0].rank == 1) { /* the row axis, in front of B's columns (if any) */
        int at = a->shape.rank - (s[1].rank >= 2 ? 1 : 0);
        memmove(&a->shape.dims[at + 1], &a->shape.dims[at],
                (size_t)(a->shape.rank - at) * sizeof a->shape.dims[0]);
        a->shape.dims[at] = 1;
        a->shape.rank++;
    }
    if (s[1].rank == 1) /* the column axis, last */
        a->shape.dims[a->shape.rank++] = 1;
}

MUTANT(bc_mutant_max_dim, max_dim, "mutant:max-dim",
       "numpy result dim = max(a, b), so 0 against 1 gives 1",
       "microsoft/onnxruntime#1670; openvinotoolkit/openvino#31049 (PR #31156)");
MUTANT(bc_mutant_left_aligned, left_aligned, "mutant:left-aligned",
       "numpy aligns ranks on the left", "RULES.md §3");
MUTANT(bc_mutant_uni_rank_unchecked, uni_rank_unchecked, "mutant:uni-rank-unchecked",
       "onnx-uni and broadcast-to accept a B of larger rank (unsigned rank check)",
       "openvinotoolkit/openvino PR #13849");
MUTANT(bc_mutant_pdpd_no_trim, pdpd_no_trim, "mutant:pdpd-no-trim",
       "pdpd does not drop B's trailing 1s", "PaddlePaddle/Paddle PR #8505; RULES.md §5.2");
MUTANT(bc_mutant_negative_accepted, negative_accepted, "mutant:negative-accepted",
       "negative dims accepted as 1", "pytorch/pytorch#68957");
MUTANT(bc_mutant_expand_as_broadcast_to, expand_as_broadcast_to, "mutant:expand-as-broadcast-to",
       "bidirectional (Expand) computed as broadcast_to", "microsoft/onnxruntime PR #21163");
MUTANT(bc_mutant_broadcast_to_as_expand, broadcast_to_as_expand, "mutant:broadcast-to-as-expand",
       "broadcast_to computed as Expand (bidirectional)", "microsoft/onnxruntime PR #21163");
MUTANT(bc_mutant_operand0_cannot_broadcast, operand0_cannot_broadcast,
       "mutant:operand0-cannot-broadcast", "numpy refuses to stretch the first operand",
       "oneapi-src/oneDNN#985");
MUTANT(bc_mutant_zero_wildcard, zero_wildcard, "mutant:zero-wildcard",
       "a 0 dim pairs with any dim (0 against n gives n)", "PaddlePaddle/Paddle#37077");
MUTANT(bc_mutant_pdpd_axis_after_trim, pdpd_axis_after_trim, "mutant:pdpd-axis-after-trim",
       "pdpd's default axis uses B's rank after trailing 1s are dropped", "PaddlePaddle/Paddle PR #23913; RULES.md §10.2");
MUTANT(bc_mutant_broadcast_swapped_assign, broadcast_swapped_assign,
       "mutant:broadcast-swapped-assign",
       "numpy output dim taken from operand 0 when it is 1: its stretches collapse to 1",
       "google/XNNPACK PR #10650");
MUTANT(bc_mutant_mapping_allows_repeats, mapping_allows_repeats, "mutant:mapping-allows-repeats",
       "explicit axes_mapping accepts a repeated entry", "RULES.md §8.2");
MUTANT(bc_mutant_select_roles_swapped, select_roles_swapped, "mutant:select-roles-swapped",
       "pdpd Select (openvino-select) merges then and cond into else, nGraph 2020's roles",
       "NervanaSystems/ngraph src/ngraph/op/select.cpp; RULES.md §5.4, §5.5");
MUTANT(bc_mutant_matmul_k_unchecked, matmul_k_unchecked, "mutant:matmul-k-unchecked",
       "matmul never compares the contracted dims (A's last with B's second to last)",
       "hw-native-sys/pypto#837 (PR #838)");
MUTANT(bc_mutant_matmul_promoted_kept, matmul_promoted_kept, "mutant:matmul-promoted-kept",
       "matmul keeps the axis a 1-D operand was promoted with: [4] @ [4,5] gives [1,5]",
       "keras-team/keras#22993 (PR #22994)");
