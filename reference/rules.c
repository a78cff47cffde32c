/*
 * The reference broadcasting rules, one function per rule, each written to
 * be read side by side with its section of spec/RULES.md.  Clarity wins over
 * speed here: the property engine checks every faster implementation
 * against these functions.
 *
 * The checks of each rule run in the order RULES.md states, and the first
 * one that fails names the error.  Results go to a local shape first so that
 * `out` may alias an input.
 */
#include "broadcheck/shape.h"

#include <stdio.h>
#include <string.h>

#define LL(x) ((long long)(x))

/* RULES.md §1: an operand count the rule does not take is invalid input. */
static bc_error_kind check_count(bc_rule rule, int n, int lo, int hi, bc_error *err)
{
    if (n >= lo && n <= hi)
        return BC_OK;
    if (lo == hi)
        return bc_error_set(err, BC_ERR_OPERAND_COUNT, rule, -1, -1, -1, n, hi,
                            "%s takes exactly %d shape%s, got %d", bc_rule_name(rule), hi,
                            hi == 1 ? "" : "s", n);
    return bc_error_set(err, BC_ERR_OPERAND_COUNT, rule, -1, -1, -1, n, hi,
                        "%s takes %d to %d shapes, got %d", bc_rule_name(rule), lo, hi, n);
}

/* RULES.md §1, §9: a negative dim is invalid input, never "not broadcastable". */
static bc_error_kind check_dims(bc_rule rule, int n, const bc_shape *shapes, bc_error *err)
{
    for (int i = 0; i < n; i++) {
        if (shapes[i].rank < 0 || shapes[i].rank > BC_MAX_RANK)
            return bc_error_set(err, BC_ERR_BAD_PARAMS, rule, i, -1, -1, shapes[i].rank,
                                BC_MAX_RANK, "operand %d has rank %d, outside 0..%d", i,
                                shapes[i].rank, BC_MAX_RANK);
        for (int k = 0; k < shapes[i].rank; k++)
            if (shapes[i].dims[k] < 0)
                return bc_error_set(err, BC_ERR_NEGATIVE_DIM, rule, i, -1, k, shapes[i].dims[k], 0,
                                    "operand %d has dim %lld at axis %d; dims must be >= 0", i,
                                    LL(shapes[i].dims[k]), k);
    }
    return BC_OK;
}

/* ---- §2 NONE -------------------------------------------------------- */

bc_error_kind bc_infer_none(int n, const bc_shape *shapes, bc_shape *out, bc_error *err)
{
    const bc_rule rule = BC_RULE_NONE;
    bc_error_kind k;
    if ((k = check_count(rule, n, 1, BC_MAX_OPERANDS, err)) ||
        (k = check_dims(rule, n, shapes, err)))
        return k;
    for (int i = 1; i < n; i++) {
        if (shapes[i].rank != shapes[0].rank)
            return bc_error_set(
                err, BC_ERR_RANK_MISMATCH, rule, i, 0, -1, shapes[i].rank, shapes[0].rank,
                "operand %d has rank %d, operand 0 has rank %d; none needs equal shapes", i,
                shapes[i].rank, shapes[0].rank);
        for (int a = 0; a < shapes[0].rank; a++)
            if (shapes[i].dims[a] != shapes[0].dims[a])
                return bc_error_set(
                    err, BC_ERR_DIM_MISMATCH, rule, i, 0, a, shapes[i].dims[a], shapes[0].dims[a],
                    "at axis %d operand %d has %lld, operand 0 has %lld; none needs "
                    "equal shapes",
                    a, i, LL(shapes[i].dims[a]), LL(shapes[0].dims[a]));
    }
    *out = shapes[0];
    return BC_OK;
}

/* ---- §3 NUMPY (and §7 BIDIRECTIONAL, which is NUMPY of input and target) - */

static bc_error_kind numpy_core(bc_rule rule, int n, const bc_shape *shapes, bc_shape *out,
                                bc_error *err)
{
    bc_shape result;
    result.rank = 0;
    for (int i = 0; i < n; i++)
        if (shapes[i].rank > result.rank)
            result.rank = shapes[i].rank;
    /* Right-align every operand; an axis it lacks counts as 1. */
    for (int r = 0; r < result.rank; r++) {
        int64_t dim = 1;
        int owner = -1; /* first operand with a dim other than 1 here */
        for (int i = 0; i < n; i++) {
            int k = r - (result.rank - shapes[i].rank);
            if (k < 0 || shapes[i].dims[k] == 1)
                continue;
            if (owner < 0) {
                dim = shapes[i].dims[k];
                owner = i;
            } else if (shapes[i].dims[k] != dim) {
                return bc_error_set(
                    err, BC_ERR_DIM_MISMATCH, rule, i, owner, r, shapes[i].dims[k], dim,
                    "at result axis %d (right-aligned) operand %d has %lld and operand "
                    "%d has %lld; %s needs equal dims or 1",
                    r, owner, LL(dim), i, LL(shapes[i].dims[k]), bc_rule_name(rule));
            }
        }
        result.dims[r] = dim; /* 1 if every operand has 1, else the common dim, 0 included */
    }
    *out = result;
    return BC_OK;
}

bc_error_kind bc_infer_numpy(int n, const bc_shape *shapes, bc_shape *out, bc_error *err)
{
    const bc_rule rule = BC_RULE_NUMPY;
    bc_error_kind k;
    if ((k = check_count(rule, n, 1, BC_MAX_OPERANDS, err)) ||
        (k = check_dims(rule, n, shapes, err)))
        return k;
    return numpy_core(rule, n, shapes, out, err);
}

bc_error_kind bc_infer_bidirectional(const bc_shape *input, const bc_shape *target, bc_shape *out,
                                     bc_error *err)
{
    const bc_rule rule = BC_RULE_BIDIRECTIONAL;
    bc_shape pair[2] = {*input, *target};
    bc_error_kind k = check_dims(rule, 2, pair, err);
    return k ? k : numpy_core(rule, 2, pair, out, err);
}

/* ---- §4 ONNX unidirectional and §6 broadcast-to ------------------------ */

/* `small` (operand small_op) broadcasts onto `big` (operand big_op); the
 * result is `big` exactly.  Shared by onnx-uni (B onto A) and broadcast-to
 * (input onto target): the two rules are the same check. */
static bc_error_kind onto(bc_rule rule, const bc_shape *big, int big_op, const bc_shape *small,
                          int small_op, bc_shape *out, bc_error *err)
{
    const char *big_name = rule == BC_RULE_ONNX_UNI ? "A" : "the target";
    const char *small_name = rule == BC_RULE_ONNX_UNI ? "B" : "the input";
    if (small->rank > big->rank)
        return bc_error_set(err, BC_ERR_RANK_TOO_LARGE, rule, small_op, big_op, -1, small->rank,
                            big->rank, "%s has rank %d, more than %s's %d", small_name, small->rank,
                            big_name, big->rank);
    int offset = big->rank - small->rank;
    for (int k = 0; k < small->rank; k++) {
        int64_t s = small->dims[k], b = big->dims[offset + k];
        if (s != b && s != 1)
            return bc_error_set(err, BC_ERR_DIM_MISMATCH, rule, small_op, big_op, offset + k, s, b,
                                "at axis %d (right-aligned) %s has %lld and %s has %lld; %s must "
                                "equal it or be 1",
                                offset + k, small_name, LL(s), big_name, LL(b), small_name);
    }
    *out = *big;
    return BC_OK;
}

bc_error_kind bc_infer_onnx_uni(const bc_shape *a, const bc_shape *b, bc_shape *out, bc_error *err)
{
    bc_shape pair[2] = {*a, *b};
    bc_error_kind k = check_dims(BC_RULE_ONNX_UNI, 2, pair, err);
    return k ? k : onto(BC_RULE_ONNX_UNI, &pair[0], 0, &pair[1], 1, out, err);
}

bc_error_kind bc_infer_broadcast_to(const bc_shape *input, const bc_shape *target, bc_shape *out,
                                    bc_error *err)
{
    bc_shape pair[2] = {*input, *target};
    bc_error_kind k = check_dims(BC_RULE_BROADCAST_TO, 2, pair, err);
    return k ? k : onto(BC_RULE_BROADCAST_TO, &pair[1], 1, &pair[0], 0, out, err);
}

/* §6.1 profile pytorch-expand: the target with each -1 replaced by the dim
 * of the input axis aligned with it (right-aligned).  A -1 with no input
 * axis (a new leading one) or any other negative dim is negative-dim, as a
 * negative input dim is; everything else is left to broadcast-to. */
static bc_error_kind keep_minus_ones(const bc_shape *input, const bc_shape *target,
                                     bc_shape *resolved, bc_error *err)
{
    const bc_rule rule = BC_RULE_BROADCAST_TO;
    bc_error_kind k = check_dims(rule, 1, input, err);
    if (k)
        return k;
    if (target->rank < 0 || target->rank > BC_MAX_RANK)
        return check_dims(rule, 2, (bc_shape[]){*input, *target}, err);
    *resolved = *target;
    const int lead = target->rank - input->rank; /* target axes with no input axis */
    for (int t = 0; t < target->rank; t++) {
        int64_t d = target->dims[t];
        if (d == -1 && t >= lead)
            resolved->dims[t] = input->dims[t - lead];
        else if (d == -1)
            return bc_error_set(err, BC_ERR_NEGATIVE_DIM, rule, 1, -1, t, d, 0,
                                "operand 1 has dim -1 at axis %d, a new leading axis: -1 keeps "
                                "the input's dim, and the input has none there",
                                t);
        else if (d < 0)
            return bc_error_set(err, BC_ERR_NEGATIVE_DIM, rule, 1, -1, t, d, 0,
                                "operand 1 has dim %lld at axis %d; dims must be >= 0, or -1 "
                                "to keep the input's",
                                LL(d), t);
    }
    return BC_OK;
}

/* ---- §5 PDPD -------------------------------------------------------- */

/* Profiles openvino-doc and openvino-shape-inference: only B broadcasts. */
static bc_error_kind pdpd_openvino(const bc_shape *a, const bc_shape *b, int64_t axis,
                                   bc_profile profile, bc_shape *out, bc_error *err)
{
    const bc_rule rule = BC_RULE_PDPD;
    if (axis < -1)
        return bc_error_set(err, BC_ERR_AXIS_OUT_OF_RANGE, rule, 1, 0, -1, axis, a->rank,
                            "axis %lld is negative; only -1 (the default) is allowed", LL(axis));
    if (b->rank > a->rank)
        return bc_error_set(err, BC_ERR_RANK_TOO_LARGE, rule, 1, 0, -1, b->rank, a->rank,
                            "B has rank %d, more than A's %d", b->rank, a->rank);
    /* The default axis uses B's rank as given, before trailing 1s are dropped. */
    if (axis == -1)
        axis = a->rank - b->rank;
    if (axis > a->rank)
        return bc_error_set(err, BC_ERR_AXIS_OUT_OF_RANGE, rule, 1, 0, -1, axis, a->rank,
                            "axis %lld is past A's rank %d", LL(axis), a->rank);
    int len = b->rank;
    if (profile == BC_PROFILE_OPENVINO_DOC)
        while (len > 0 && b->dims[len - 1] == 1)
            len--; /* "trailing dimensions of size 1 for input B will be ignored" */
    if (axis + len > a->rank)
        return bc_error_set(err, BC_ERR_WINDOW_OUT_OF_RANGE, rule, 1, 0, -1, axis + len, a->rank,
                            "B's %d axes%s from axis %lld run past A's rank %d", len,
                            profile == BC_PROFILE_OPENVINO_DOC ? " (trailing 1s dropped)" : "",
                            LL(axis), a->rank);
    for (int i = 0; i < len; i++) {
        int64_t bd = b->dims[i], ad = a->dims[axis + i];
        int ok = bd == ad || bd == 1;
        if (profile == BC_PROFILE_OPENVINO_SHAPE_INFERENCE)
            ok = bd == ad || (bd == 1 && ad >= 1); /* a B dim larger than A's is refused */
        if (!ok)
            return bc_error_set(
                err, BC_ERR_DIM_MISMATCH, rule, 1, 0, (int)axis + i, bd, ad,
                "at A's axis %lld B has %lld (its axis %d) and A has %lld; B must equal "
                "it or be 1%s",
                LL(axis + i), LL(bd), i, LL(ad),
                profile == BC_PROFILE_OPENVINO_SHAPE_INFERENCE ? " and not exceed it" : "");
    }
    *out = *a;
    return BC_OK;
}

/* Profile paddle: the smaller-rank operand goes at axis; both may stretch. */
static bc_error_kind pdpd_paddle(const bc_shape *a, const bc_shape *b, int64_t axis, bc_shape *out,
                                 bc_error *err)
{
    const bc_rule rule = BC_RULE_PDPD;
    /* Paddle places Y inside X only when X has the larger rank, else X in Y. */
    const bc_shape *large = a->rank > b->rank ? a : b, *small = a->rank > b->rank ? b : a;
    int large_op = large == a ? 0 : 1, small_op = 1 - large_op;
    if (axis < -1)
        return bc_error_set(err, BC_ERR_AXIS_OUT_OF_RANGE, rule, small_op, large_op, -1, axis,
                            large->rank, "axis %lld is negative; only -1 (the default) is allowed",
                            LL(axis));
    if (axis == -1)
        axis = large->rank - small->rank; /* |rank(X) - rank(Y)| */
    if (axis > large->rank)
        return bc_error_set(err, BC_ERR_AXIS_OUT_OF_RANGE, rule, small_op, large_op, -1, axis,
                            large->rank, "axis %lld is past the larger rank %d", LL(axis),
                            large->rank);
    if (axis + small->rank > large->rank)
        return bc_error_set(err, BC_ERR_WINDOW_OUT_OF_RANGE, rule, small_op, large_op, -1,
                            axis + small->rank, large->rank,
                            "operand %d's %d axes from axis %lld run past operand %d's rank %d",
                            small_op, small->rank, LL(axis), large_op, large->rank);
    bc_shape result;
    result.rank = large->rank;
    for (int r = 0; r < large->rank; r++) {
        int64_t l = large->dims[r];
        int64_t s = (r >= axis && r < axis + small->rank) ? small->dims[r - axis] : 1;
        if (l != s && l != 1 && s != 1)
            return bc_error_set(
                err, BC_ERR_DIM_MISMATCH, rule, small_op, large_op, r, s, l,
                "at axis %d operand %d has %lld (placed from axis %lld) and operand %d "
                "has %lld; dims must be equal or 1",
                r, small_op, LL(s), LL(axis), large_op, LL(l));
        result.dims[r] = l == 1 ? s : l;
    }
    *out = result;
    return BC_OK;
}

static bc_error_kind broadcast_pdpd_openvino(const bc_shape *a, const bc_shape *b, int64_t axis,
                                             bc_shape *out, bc_error *err);

bc_error_kind bc_infer_pdpd(const bc_shape *a, const bc_shape *b, int64_t axis, bc_profile profile,
                            bc_shape *out, bc_error *err)
{
    const bc_rule rule = BC_RULE_PDPD;
    if (profile == BC_PROFILE_DEFAULT)
        profile = bc_rule_default_profile(rule);
    if (!bc_rule_takes_profile(rule, profile))
        return bc_error_set(err, BC_ERR_BAD_PARAMS, rule, -1, -1, -1, profile, 0,
                            "pdpd has no profile '%s'", bc_profile_name(profile));
    bc_shape pair[2] = {*a, *b};
    bc_error_kind k = check_dims(rule, 2, pair, err);
    if (k)
        return k;
    if (profile == BC_PROFILE_OPENVINO_SELECT || profile == BC_PROFILE_NGRAPH_SELECT)
        return bc_error_set(err, BC_ERR_BAD_PARAMS, rule, -1, -1, -1, profile, 0,
                            "profile %s takes three shapes (cond, then, else): ask bc_infer",
                            bc_profile_name(profile));
    if (profile == BC_PROFILE_PADDLE)
        return pdpd_paddle(&pair[0], &pair[1], axis, out, err);
    if (profile == BC_PROFILE_OPENVINO_BROADCAST)
        return broadcast_pdpd_openvino(&pair[0], &pair[1], axis, out, err);
    return pdpd_openvino(&pair[0], &pair[1], axis, profile, out, err);
}

/* ---- §8 EXPLICIT ----------------------------------------------------- */

bc_error_kind bc_infer_explicit_axes(const bc_shape *input, const bc_shape *target, int naxes,
                                     const int64_t *axes, bc_shape *out, bc_error *err)
{
    const bc_rule rule = BC_RULE_EXPLICIT;
    bc_shape pair[2] = {*input, *target};
    bc_error_kind k = check_dims(rule, 2, pair, err);
    if (k)
        return k;
    const bc_shape *in = &pair[0], *tg = &pair[1];
    if (in->rank > tg->rank)
        return bc_error_set(err, BC_ERR_RANK_TOO_LARGE, rule, 0, 1, -1, in->rank, tg->rank,
                            "the input has rank %d, more than the target's %d", in->rank, tg->rank);
    for (int j = 0; j < naxes; j++)
        if (axes[j] < 0 || axes[j] >= tg->rank)
            return bc_error_set(err, BC_ERR_AXIS_OUT_OF_RANGE, rule, -1, -1, -1, axes[j], tg->rank,
                                "broadcast axis %lld (entry %d) is outside the target's axes 0..%d",
                                LL(axes[j]), j, tg->rank - 1);
    int is_broadcast[BC_MAX_RANK] = {0};
    for (int j = 0; j < naxes; j++) {
        if (is_broadcast[axes[j]])
            return bc_error_set(err, BC_ERR_AXES_DUPLICATE, rule, -1, -1, (int)axes[j], axes[j], 0,
                                "broadcast axis %lld is named twice (entry %d)", LL(axes[j]), j);
        is_broadcast[axes[j]] = 1;
    }
    if (in->rank != tg->rank - naxes)
        return bc_error_set(err, BC_ERR_AXES_COUNT, rule, 0, 1, -1, in->rank, tg->rank - naxes,
                            "the input has rank %d but the target's rank %d less %d broadcast axes "
                            "is %d",
                            in->rank, tg->rank, naxes, tg->rank - naxes);
    /* The input must be the target with the broadcast axes removed: p(C). */
    for (int t = 0, i = 0; t < tg->rank; t++) {
        if (is_broadcast[t])
            continue;
        if (in->dims[i] != tg->dims[t])
            return bc_error_set(
                err, BC_ERR_DIM_MISMATCH, rule, 0, 1, t, in->dims[i], tg->dims[t],
                "input axis %d has %lld but target axis %d (not a broadcast axis) has "
                "%lld; they must be equal",
                i, LL(in->dims[i]), t, LL(tg->dims[t]));
        i++;
    }
    *out = *tg;
    return BC_OK;
}

/* §8.3 openvino-explicit and §8.4 ngraph-explicit: the explicit shape
 * inference of OpenVINO's Broadcast-3 and of nGraph 2020's Broadcast-1, in
 * their order.  Both: one entry per input axis; the mapping sorted as their
 * unsigned AxisVector is (so a negative entry sorts last, then is out of
 * range); repeats pass; each entry in range; no rank check.  OpenVINO: a
 * scalar with one entry counts as rank 1 and its entry must name a target
 * dim of 1; an input dim must equal its target dim or be 1.  nGraph 2020: an
 * input dim must equal its target dim (a 1 does not stretch). */
static bc_error_kind explicit_axis_vector(const bc_shape *in, const bc_shape *tg, int nmapping,
                                          const int64_t *mapping, bc_profile profile,
                                          bc_shape *out, bc_error *err)
{
    const bc_rule rule = BC_RULE_EXPLICIT;
    const int ov = profile == BC_PROFILE_OPENVINO_EXPLICIT, scalar = ov && in->rank == 0;
    const int rank = scalar && nmapping > 0 ? 1 : in->rank;
    if (nmapping != rank)
        return bc_error_set(err, BC_ERR_AXES_COUNT, rule, 0, 1, -1, nmapping, rank,
                            "axes_mapping has %d entries but the input has rank %d; one entry per "
                            "input axis%s",
                            nmapping, rank, ov ? " (a scalar counts as rank 1)" : "");
    for (int i = 1; i < nmapping; i++)
        if ((uint64_t)mapping[i] < (uint64_t)mapping[i - 1])
            return bc_error_set(err, BC_ERR_AXES_UNSORTED, rule, 0, 1, -1, mapping[i],
                                mapping[i - 1],
                                "axes_mapping entry %d (%lld) is below entry %d (%lld), as "
                                "unsigned numbers; it must not decrease",
                                i, LL(mapping[i]), i - 1, LL(mapping[i - 1]));
    for (int i = 0; i < nmapping; i++) {
        if (mapping[i] < 0 || mapping[i] >= tg->rank)
            return bc_error_set(err, BC_ERR_AXIS_OUT_OF_RANGE, rule, 0, 1, -1, mapping[i], tg->rank,
                                "axes_mapping entry %d is %lld, outside the target's axes 0..%d", i,
                                LL(mapping[i]), tg->rank - 1);
        /* OpenVINO: a scalar's one entry must name a 1 (checked first there,
         * unguarded: an entry out of range is refused above instead) */
        int64_t d = scalar ? 1 : in->dims[i], t = tg->dims[mapping[i]];
        if (scalar ? t != 1 : d != t && (d != 1 || !ov))
            return bc_error_set(err, BC_ERR_DIM_MISMATCH, rule, 0, 1, (int)mapping[i], d, t,
                                "%s axis %d has %lld but target axis %lld has %lld; %s",
                                scalar ? "the scalar's" : "input", i, LL(d), LL(mapping[i]), LL(t),
                                scalar ? "a scalar's entry must name a 1"
                                : ov   ? "it must equal it or be 1"
                                       : "nGraph 2020 wants them equal (a 1 does not stretch)");
    }
    *out = *tg;
    return BC_OK;
}

bc_error_kind bc_infer_explicit_mapping(const bc_shape *input, const bc_shape *target, int nmapping,
                                        const int64_t *mapping, bc_shape *out, bc_error *err)
{
    const bc_rule rule = BC_RULE_EXPLICIT;
    bc_shape pair[2] = {*input, *target};
    bc_error_kind k = check_dims(rule, 2, pair, err);
    if (k)
        return k;
    const bc_shape *in = &pair[0], *tg = &pair[1];
    if (in->rank > tg->rank)
        return bc_error_set(err, BC_ERR_RANK_TOO_LARGE, rule, 0, 1, -1, in->rank, tg->rank,
                            "the input has rank %d, more than the target's %d", in->rank, tg->rank);
    if (nmapping != in->rank)
        return bc_error_set(err, BC_ERR_AXES_COUNT, rule, 0, 1, -1, nmapping, in->rank,
                            "axes_mapping has %d entries but the input has rank %d; one entry per "
                            "input axis",
                            nmapping, in->rank);
    for (int i = 0; i < nmapping; i++)
        if (mapping[i] < 0 || mapping[i] >= tg->rank)
            return bc_error_set(err, BC_ERR_AXIS_OUT_OF_RANGE, rule, 0, 1, -1, mapping[i], tg->rank,
                                "axes_mapping entry %d is %lld, outside the target's axes 0..%d", i,
                                LL(mapping[i]), tg->rank - 1);
    for (int i = 1; i < nmapping; i++) {
        if (mapping[i] == mapping[i - 1])
            return bc_error_set(err, BC_ERR_AXES_DUPLICATE, rule, 0, 1, (int)mapping[i], mapping[i],
                                0, "axes_mapping names target axis %lld twice (entries %d and %d)",
                                LL(mapping[i]), i - 1, i);
        if (mapping[i] < mapping[i - 1])
            return bc_error_set(err, BC_ERR_AXES_UNSORTED, rule, 0, 1, (int)mapping[i], mapping[i],
                                mapping[i - 1],
                                "axes_mapping entry %d (%lld) is below entry %d (%lld); it must "
                                "strictly increase",
                                i, LL(mapping[i]), i - 1, LL(mapping[i - 1]));
    }
    for (int i = 0; i < nmapping; i++) {
        int64_t d = in->dims[i], t = tg->dims[mapping[i]];
        if (d != t && d != 1)
            return bc_error_set(
                err, BC_ERR_DIM_MISMATCH, rule, 0, 1, (int)mapping[i], d, t,
                "input axis %d has %lld but target axis %lld has %lld; it must equal "
                "it or be 1",
                i, LL(d), LL(mapping[i]), LL(t));
    }
    *out = *tg;
    return BC_OK;
}

/* ---- §5.4 to §5.6, §8.4: the modes of OpenVINO's and nGraph's ops ---- */

/* An error of a pdpd step, told in the operands of the whole case: the
 * step's B is operand `placed`, its A operand `frame`. */
static bc_error_kind step_operands(bc_error_kind k, bc_error *err, int placed, int frame)
{
    if (k && err && k != BC_ERR_NEGATIVE_DIM) {
        err->operand = placed;
        err->other = frame;
    }
    return k;
}

/* §5.4 openvino-select: OpenVINO Select with auto_broadcast pdpd.  The result
 * starts as `then`; `else`, then `cond`, are each merged into it one way,
 * with the same axis, by the PDPD branch of broadcast_merge_into (§5.2). */
static bc_error_kind select_openvino(const bc_shape *s, int64_t axis, bc_shape *out, bc_error *err)
{
    const bc_profile step = BC_PROFILE_OPENVINO_SHAPE_INFERENCE;
    bc_shape r;
    bc_error_kind k = step_operands(pdpd_openvino(&s[1], &s[2], axis, step, &r, err), err, 2, 1);
    if (!k)
        k = step_operands(pdpd_openvino(&r, &s[0], axis, step, &r, err), err, 0, 1);
    if (!k)
        *out = r;
    return k;
}

/* §5.5: one step of nGraph 2020's PDPD broadcast_merge_into, B (operand
 * `placed`) into A (operand `frame`).  A is never changed.  Equal shapes
 * pass whatever the axis; B's trailing 1s are dropped; the other dims must
 * be equal (nGraph's Dimension::compatible on static dims).  Its loop runs
 * over unsigned indices, so a default axis below 0 (B of larger rank)
 * checks nothing unless the window is non-empty and shorter than the rank
 * gap, when it indexes A out of range (std::out_of_range). */
static bc_error_kind pdpd_ngraph_step(const bc_shape *a, int frame, const bc_shape *b, int placed,
                                      int64_t axis, bc_error *err)
{
    const bc_rule rule = BC_RULE_PDPD;
    if (a->rank == b->rank && bc_shape_equal(a, b))
        return BC_OK;
    if (axis < -1)
        return bc_error_set(err, BC_ERR_AXIS_OUT_OF_RANGE, rule, placed, frame, -1, axis, a->rank,
                            "axis %lld is negative; only -1 (the default) is allowed", LL(axis));
    int len = b->rank;
    while (len > 0 && b->dims[len - 1] == 1)
        len--;
    if (axis == -1)
        axis = a->rank - b->rank;
    if (axis < 0) {
        int64_t gap = -axis;
        if (len > 0 && len < gap)
            return bc_error_set(err, BC_ERR_RANK_TOO_LARGE, rule, placed, frame, -1, b->rank,
                                a->rank,
                                "operand %d has rank %d, more than operand %d's %d, and its %d "
                                "axes (trailing 1s dropped) are fewer than the gap: nGraph "
                                "indexes past the frame",
                                placed, b->rank, frame, a->rank, len);
        return BC_OK; /* nGraph's unsigned loop runs no step */
    }
    for (int i = 0; i < len; i++) {
        int64_t t = axis + i;
        if (t >= a->rank)
            return bc_error_set(err, i == 0 && axis > a->rank ? BC_ERR_AXIS_OUT_OF_RANGE
                                                              : BC_ERR_WINDOW_OUT_OF_RANGE,
                                rule, placed, frame, -1, i == 0 && axis > a->rank ? axis : axis + len,
                                a->rank,
                                "operand %d's %d axes (trailing 1s dropped) from axis %lld run "
                                "past operand %d's rank %d",
                                placed, len, LL(axis), frame, a->rank);
        if (b->dims[i] != a->dims[t])
            return bc_error_set(err, BC_ERR_DIM_MISMATCH, rule, placed, frame, (int)t, b->dims[i],
                                a->dims[t],
                                "at operand %d's axis %lld operand %d has %lld (its axis %d) and "
                                "operand %d has %lld; nGraph 2020 wants them equal (no 1 stretches "
                                "but a trailing one)",
                                frame, LL(t), placed, LL(b->dims[i]), i, frame, LL(a->dims[t]));
    }
    return BC_OK;
}

/* §5.5 ngraph-select: nGraph 2020 v1::Select.  The result starts as `else`;
 * `then`, then `cond`, are each checked against it; it never changes. */
static bc_error_kind select_ngraph(const bc_shape *s, int64_t axis, bc_shape *out, bc_error *err)
{
    bc_error_kind k = pdpd_ngraph_step(&s[2], 2, &s[1], 1, axis, err);
    if (!k)
        k = pdpd_ngraph_step(&s[2], 2, &s[0], 0, axis, err);
    if (!k)
        *out = s[2];
    return k;
}

/* §5.6 openvino-broadcast: OpenVINO Broadcast (v1 and v3) mode pdpd,
 * set_result_shape_pdpd.  A is the target, B the data; axis -1 is
 * rank(A) - rank(B).  The result starts as the target; each target axis
 * from `axis` to the last reads B's dim there: B's 1 keeps the target's,
 * the target's 1 takes B's, else they must be equal.  B's axes past the
 * target's last are not read. */
static bc_error_kind broadcast_pdpd_openvino(const bc_shape *a, const bc_shape *b, int64_t axis,
                                             bc_shape *out, bc_error *err)
{
    const bc_rule rule = BC_RULE_PDPD;
    const int64_t given = axis;
    if (axis == -1)
        axis = (int64_t)a->rank - b->rank;
    if (axis < 0)
        return bc_error_set(err, BC_ERR_AXIS_OUT_OF_RANGE, rule, 1, 0, -1, axis, a->rank,
                            "the start axis is %lld%s; Broadcast's mode pdpd needs one >= 0",
                            LL(axis),
                            given == -1 ? " (-1: the target's rank less the data's)" : "");
    bc_shape r = *a;
    if (axis < a->rank && b->rank < a->rank - axis)
        return bc_error_set(err, BC_ERR_WINDOW_OUT_OF_RANGE, rule, 1, 0, -1, axis + b->rank,
                            a->rank,
                            "the data's %d axes from axis %lld stop before the target's last "
                            "axis %d; every target axis from the start axis reads a data dim",
                            b->rank, LL(axis), a->rank - 1);
    for (int64_t t = axis; t < a->rank; t++) {
        int64_t bd = b->dims[t - axis], ad = a->dims[t];
        if (bd == 1)
            continue;
        if (ad == 1)
            r.dims[t] = bd;
        else if (bd != ad)
            return bc_error_set(err, BC_ERR_DIM_MISMATCH, rule, 1, 0, (int)t, bd, ad,
                                "at target axis %lld the data has %lld (its axis %lld) and the "
                                "target %lld; one must be 1 or they must be equal",
                                LL(t), LL(bd), LL(t - axis), LL(ad));
    }
    *out = r;
    return BC_OK;
}

/* ---- §15 MATMUL ----------------------------------------------------- */

/* The batch part of a matmul operand: every axis but its matrix axes (the
 * last two; a 1-D operand has none, a 1 being put in for the promoted axis). */
static void batch_part(const bc_shape *s, bc_shape *batch)
{
    batch->rank = s->rank >= 2 ? s->rank - 2 : 0;
    memcpy(batch->dims, s->dims, (size_t)batch->rank * sizeof s->dims[0]);
}

bc_error_kind bc_infer_matmul(const bc_shape *a, const bc_shape *b, bc_shape *out, bc_error *err)
{
    const bc_rule rule = BC_RULE_MATMUL;
    bc_shape pair[2] = {*a, *b};
    bc_error_kind k;
    if ((k = check_dims(rule, 2, pair, err)))
        return k;
    /* 1. No scalar: a matrix product needs a contraction axis in each. */
    for (int i = 0; i < 2; i++)
        if (pair[i].rank == 0)
            return bc_error_set(err, BC_ERR_RANK_MISMATCH, rule, i, 1 - i, -1, 0, 1,
                                "operand %d is a scalar; matmul needs rank >= 1 in both", i);
    /* 2. The contraction dims: A's last against B's second to last (its
     * only one when 1-D, which matmul reads as a column [k,1]). */
    int64_t ka = a->dims[a->rank - 1];
    int64_t kb = b->dims[b->rank >= 2 ? b->rank - 2 : 0];
    if (ka != kb)
        return bc_error_set(err, BC_ERR_DIM_MISMATCH, rule, 1, 0, -1, kb, ka,
                            "the contracted dims differ: operand 0's last axis has %lld, "
                            "operand 1's %s has %lld",
                            LL(ka), b->rank >= 2 ? "second to last axis" : "only axis", LL(kb));
    /* 3. The batch parts broadcast as numpy does (§3), in the result's frame. */
    bc_shape batch[2], result;
    batch_part(a, &batch[0]);
    batch_part(b, &batch[1]);
    if ((k = numpy_core(rule, 2, batch, &result, err)))
        return k;
    /* 4. Then A's rows and B's columns; a promoted 1-D operand adds none. */
    if (a->rank >= 2)
        result.dims[result.rank++] = a->dims[a->rank - 2];
    if (b->rank >= 2)
        result.dims[result.rank++] = b->dims[b->rank - 1];
    *out = result;
    return BC_OK;
}

/* ---- dispatch ------------------------------------------------------- */

/* Which options each rule takes (RULES.md §1). */
static unsigned options_taken(bc_rule r)
{
    switch (r) {
    case BC_RULE_PDPD: return BC_OPT_AXIS | BC_OPT_PROFILE;
    case BC_RULE_EXPLICIT: return BC_OPT_AXES | BC_OPT_AXES_MAPPING | BC_OPT_PROFILE;
    default: return BC_OPT_PROFILE;
    }
}

static const char *option_name(unsigned opt)
{
    switch (opt) {
    case BC_OPT_AXIS: return "axis";
    case BC_OPT_PROFILE: return "profile";
    case BC_OPT_AXES: return "axes";
    case BC_OPT_AXES_UNKNOWN: return "axes-mapping of unknown values (partial shapes only)";
    default: return "axes-mapping";
    }
}

bc_error_kind bc_infer(const bc_params *p, int n, const bc_shape *shapes, bc_shape *out,
                       bc_error *err)
{
    const bc_rule rule = p->rule;
    if ((unsigned)rule >= BC_RULE_COUNT)
        return bc_error_set(err, BC_ERR_BAD_PARAMS, rule, -1, -1, -1, rule, 0, "unknown rule %d",
                            (int)rule);
    unsigned extra = p->options & ~options_taken(rule);
    for (unsigned opt = 1; extra; opt <<= 1)
        if (extra & opt)
            return bc_error_set(err, BC_ERR_BAD_PARAMS, rule, -1, -1, -1, 0, 0,
                                "%s takes no %s option", bc_rule_name(rule), option_name(opt));
    bc_profile profile = bc_params_profile(p);
    if (!bc_rule_takes_profile(rule, profile))
        return bc_error_set(err, BC_ERR_BAD_PARAMS, rule, -1, -1, -1, profile, 0,
                            "%s has no profile '%s'", bc_rule_name(rule), bc_profile_name(profile));
    if (rule == BC_RULE_EXPLICIT) {
        unsigned form = p->options & (BC_OPT_AXES | BC_OPT_AXES_MAPPING);
        if (form != BC_OPT_AXES && form != BC_OPT_AXES_MAPPING)
            return bc_error_set(
                err, BC_ERR_BAD_PARAMS, rule, -1, -1, -1, 0, 0,
                "explicit takes exactly one of axes (broadcast_axes) and axes-mapping");
        if ((profile == BC_PROFILE_OPENVINO_EXPLICIT || profile == BC_PROFILE_NGRAPH_EXPLICIT) &&
            form != BC_OPT_AXES_MAPPING)
            return bc_error_set(err, BC_ERR_BAD_PARAMS, rule, -1, -1, -1, profile, 0,
                                "profile %s takes the form axes-mapping", bc_profile_name(profile));
        if (p->naxes < 0 || p->naxes > BC_MAX_RANK)
            return bc_error_set(err, BC_ERR_BAD_PARAMS, rule, -1, -1, -1, p->naxes, BC_MAX_RANK,
                                "%d axes given; at most %d", p->naxes, BC_MAX_RANK);
    }
    bc_error_kind k;
    switch (rule) {
    case BC_RULE_NONE: return bc_infer_none(n, shapes, out, err);
    case BC_RULE_NUMPY:
        if (profile == BC_PROFILE_NUMPY_EMPTY_FOLD && n == 0) {
            /* §3.1: the fold of no shape is its identity, the scalar */
            out->rank = 0;
            return BC_OK;
        }
        return bc_infer_numpy(n, shapes, out, err);
    default: break;
    }
    if (rule == BC_RULE_PDPD &&
        (profile == BC_PROFILE_OPENVINO_SELECT || profile == BC_PROFILE_NGRAPH_SELECT)) {
        /* Select: cond, then, else (§5.4, §5.5) */
        if ((k = check_count(rule, n, 3, 3, err)) || (k = check_dims(rule, 3, shapes, err)))
            return k;
        return profile == BC_PROFILE_OPENVINO_SELECT ? select_openvino(shapes, p->axis, out, err)
                                                     : select_ngraph(shapes, p->axis, out, err);
    }
    if ((k = check_count(rule, n, 2, 2, err)))
        return k;
    if (rule == BC_RULE_PDPD && profile == BC_PROFILE_OPENVINO_BROADCAST) {
        if ((k = check_dims(rule, 2, shapes, err)))
            return k;
        return broadcast_pdpd_openvino(&shapes[0], &shapes[1], p->axis, out, err);
    }
    switch (rule) {
    case BC_RULE_ONNX_UNI: return bc_infer_onnx_uni(&shapes[0], &shapes[1], out, err);
    case BC_RULE_PDPD: return bc_infer_pdpd(&shapes[0], &shapes[1], p->axis, profile, out, err);
    case BC_RULE_BROADCAST_TO:
        if (profile == BC_PROFILE_PYTORCH_EXPAND) {
            bc_shape resolved;
            if ((k = keep_minus_ones(&shapes[0], &shapes[1], &resolved, err)))
                return k;
            return bc_infer_broadcast_to(&shapes[0], &resolved, out, err);
        }
        return bc_infer_broadcast_to(&shapes[0], &shapes[1], out, err);
    case BC_RULE_BIDIRECTIONAL: return bc_infer_bidirectional(&shapes[0], &shapes[1], out, err);
    case BC_RULE_MATMUL: return bc_infer_matmul(&shapes[0], &shapes[1], out, err);
    default: /* BC_RULE_EXPLICIT */
        if (p->options & BC_OPT_AXES)
            return bc_infer_explicit_axes(&shapes[0], &shapes[1], p->naxes, p->axes, out, err);
        if (profile == BC_PROFILE_OPENVINO_EXPLICIT || profile == BC_PROFILE_NGRAPH_EXPLICIT) {
            if ((k = check_dims(rule, 2, shapes, err)))
                return k;
            return explicit_axis_vector(&shapes[0], &shapes[1], p->naxes, p->axes, profile, out,
                                        err);
        }
        return bc_infer_explicit_mapping(&shapes[0], &shapes[1], p->naxes, p->axes, out, err);
    }
}
