/*
 * The reference rules on partial shapes, to be read side by side with
 * spec/RULES.md §14.  Each rule is the static rule of rules.c taken one
 * result axis at a time over intervals: two dim operations do all the work,
 * merge_equal ("the dims are equal") and merge_broadcast ("equal or 1, the
 * result is the other"), plus the per-axis test of the one-way rules
 * (onto_possible).  An axis is rejected only when no values of its dims
 * pass the static check (§14.1); constraints that a symbol carries from
 * one axis to another are not followed (§14.5, relaxation R1).
 */
#include "broadcheck/partial.h"

#include <stdio.h>
#include <string.h>

#define LL(x) ((long long)(x))

typedef struct names {
    const bc_psymbols *syms;
    char a[96], b[96];
} names;

/* Two dims as text, for a message. */
static void say(names *nm, const bc_pdim *x, const bc_pdim *y)
{
    bc_pdim_format(x, nm->syms, nm->a, sizeof nm->a);
    if (y)
        bc_pdim_format(y, nm->syms, nm->b, sizeof nm->b);
}

/* ---- the dim operations (§14.3) ------------------------------------------- */

static int is_1(const bc_pdim *d)
{
    return d->lo == 1 && d->hi == 1;
}

/* The dims are equal: their intervals meet.  The result may carry either
 * symbol (both equal it); the first one's is kept.  0 if they cannot be
 * equal. */
static int merge_equal(bc_pdim *out, const bc_pdim *x, const bc_pdim *y)
{
    bc_pdim r;
    r.lo = x->lo > y->lo ? x->lo : y->lo;
    r.hi = x->hi < y->hi ? x->hi : y->hi;
    r.sym = x->sym ? x->sym : y->sym;
    if (r.lo > r.hi)
        return 0;
    *out = r;
    return 1;
}

/* numpy's pair: equal, or one of them 1 and the result the other.  0 if
 * neither can be 1 and they cannot be equal. */
static int merge_broadcast(bc_pdim *out, const bc_pdim *x, const bc_pdim *y)
{
    if (is_1(x)) {
        *out = *y;
    } else if (is_1(y)) {
        *out = *x;
    } else if (bc_pdim_may_be_1(x) && bc_pdim_may_be_1(y)) {
        /* Both may be 1: the result is either one, so their hull (both hold
         * 1, so it has no gap), and a symbol only if both have it. */
        bc_pdim r;
        r.lo = x->lo < y->lo ? x->lo : y->lo;
        r.hi = x->hi > y->hi ? x->hi : y->hi;
        r.sym = x->sym == y->sym ? x->sym : 0;
        *out = r;
    } else if (bc_pdim_may_be_1(x)) {
        *out = *y; /* y is not 1, so it is the result: x is 1 or equal to it */
    } else if (bc_pdim_may_be_1(y)) {
        *out = *x;
    } else {
        return merge_equal(out, x, y);
    }
    return 1;
}

/* The one-way check: `small` is 1 or equal to `big`, for some values. */
static int onto_possible(const bc_pdim *big, const bc_pdim *small)
{
    bc_pdim unused;
    return bc_pdim_may_be_1(small) || merge_equal(&unused, big, small);
}

/* ---- checks before the rule (§14.2) ------------------------------------ */

/* Parameters and the operand count, exactly as the static rule checks
 * them: the static rule is asked about n scalars and only its parameter
 * and count errors are kept. */
static bc_error_kind check_params(const bc_params *p, int n, bc_error *err)
{
    static const bc_shape scalars[BC_MAX_OPERANDS + 8];
    if (n < 0 || n > BC_MAX_OPERANDS + 8)
        return bc_error_set(err, BC_ERR_OPERAND_COUNT, p->rule, -1, -1, -1, n, BC_MAX_OPERANDS,
                            "%s: %d shapes given", bc_rule_name(p->rule), n);
    bc_shape unused;
    bc_error_kind k = bc_infer(p, n, scalars, &unused, err);
    return k == BC_ERR_BAD_PARAMS || k == BC_ERR_OPERAND_COUNT ? k : BC_OK;
}

/* Ranks, negative dims, and the symbols: every occurrence of a symbol gets
 * the intersection of the intervals written for it (they are one value). */
static bc_error_kind check_pdims(bc_rule rule, int n, bc_pshape *s, names *nm, bc_error *err)
{
    int64_t lo[BC_MAX_SYMBOLS + 1], hi[BC_MAX_SYMBOLS + 1];
    int seen[BC_MAX_SYMBOLS + 1] = {0};
    for (int i = 0; i < n; i++) {
        if (s[i].rank < BC_RANK_DYNAMIC || s[i].rank > BC_MAX_RANK)
            return bc_error_set(err, BC_ERR_BAD_PARAMS, rule, i, -1, -1, s[i].rank, BC_MAX_RANK,
                                "operand %d has rank %d, outside 0..%d (or unknown)", i, s[i].rank,
                                BC_MAX_RANK);
        for (int k = 0; k < s[i].rank; k++) {
            const bc_pdim *d = &s[i].dims[k];
            if (d->lo < 0)
                return bc_error_set(err, BC_ERR_NEGATIVE_DIM, rule, i, -1, k, d->lo, 0,
                                    "operand %d has dim %lld at axis %d; dims must be >= 0", i,
                                    LL(d->lo), k);
            if (d->lo > d->hi || d->sym < 0 || d->sym > BC_MAX_SYMBOLS)
                return bc_error_set(err, BC_ERR_BAD_PARAMS, rule, i, -1, k, d->lo, d->hi,
                                    "operand %d: the dim at axis %d is malformed", i, k);
        }
    }
    for (int i = 0; i < n; i++)
        for (int k = 0; k < s[i].rank; k++) {
            const bc_pdim *d = &s[i].dims[k];
            if (!d->sym)
                continue;
            if (!seen[d->sym]) {
                seen[d->sym] = 1;
                lo[d->sym] = d->lo;
                hi[d->sym] = d->hi;
                continue;
            }
            int64_t l = d->lo > lo[d->sym] ? d->lo : lo[d->sym];
            int64_t h = d->hi < hi[d->sym] ? d->hi : hi[d->sym];
            if (l > h) {
                bc_pdim before = {lo[d->sym], hi[d->sym], d->sym};
                say(nm, d, &before);
                return bc_error_set(err, BC_ERR_BAD_PARAMS, rule, i, -1, k, d->lo, lo[d->sym],
                                    "operand %d axis %d: %s contradicts %s before it: a symbol "
                                    "is one value",
                                    i, k, nm->a, nm->b);
            }
            lo[d->sym] = l;
            hi[d->sym] = h;
        }
    for (int i = 0; i < n; i++)
        for (int k = 0; k < s[i].rank; k++)
            if (s[i].dims[k].sym) {
                s[i].dims[k].lo = lo[s[i].dims[k].sym];
                s[i].dims[k].hi = hi[s[i].dims[k].sym];
            }
    return BC_OK;
}

static bc_error_kind dim_mismatch(bc_rule rule, int operand, int other, int axis, const bc_pdim *x,
                                  const bc_pdim *y, const char *need, names *nm, bc_error *err)
{
    say(nm, x, y);
    return bc_error_set(err, BC_ERR_DIM_MISMATCH, rule, operand, other, axis, x->lo, y->lo,
                        "at axis %d operand %d has %s and operand %d has %s; %s", axis, operand,
                        nm->a, other, nm->b, need);
}

static void dynamic_rank(bc_pshape *out)
{
    out->rank = BC_RANK_DYNAMIC;
}

/* ---- §14.4 the rules ------------------------------------------------------ */

static bc_error_kind p_none(int n, const bc_pshape *s, names *nm, bc_pshape *out, bc_error *err)
{
    int base = -1; /* the first operand of known rank: the others must match it */
    bc_pshape r;
    for (int i = 0; i < n; i++) {
        if (s[i].rank == BC_RANK_DYNAMIC)
            continue;
        if (base < 0) {
            base = i;
            r = s[i];
            continue;
        }
        if (s[i].rank != r.rank)
            return bc_error_set(err, BC_ERR_RANK_MISMATCH, BC_RULE_NONE, i, base, -1, s[i].rank,
                                r.rank,
                                "operand %d has rank %d, operand %d has rank %d; none "
                                "needs equal shapes",
                                i, s[i].rank, base, r.rank);
        for (int a = 0; a < r.rank; a++)
            if (!merge_equal(&r.dims[a], &r.dims[a], &s[i].dims[a]))
                return dim_mismatch(BC_RULE_NONE, i, base, a, &s[i].dims[a], &r.dims[a],
                                    "none needs equal dims", nm, err);
    }
    if (base < 0)
        dynamic_rank(&r);
    *out = r;
    return BC_OK;
}

static bc_error_kind p_numpy(bc_rule rule, int n, const bc_pshape *s, names *nm, bc_pshape *out,
                             bc_error *err)
{
    bc_pshape r;
    int unknown_rank = 0;
    r.rank = 0;
    for (int i = 0; i < n; i++) {
        if (s[i].rank == BC_RANK_DYNAMIC)
            unknown_rank = 1;
        else if (s[i].rank > r.rank)
            r.rank = s[i].rank;
    }
    for (int a = 0; a < r.rank; a++) {
        bc_pdim acc = bc_pdim_static(1);
        int owner = -1; /* first operand whose dim here cannot be 1 */
        for (int i = 0; i < n; i++) {
            int k = a - (r.rank - s[i].rank);
            if (s[i].rank == BC_RANK_DYNAMIC || k < 0)
                continue;
            const bc_pdim *d = &s[i].dims[k];
            if (!merge_broadcast(&acc, &acc, d))
                return dim_mismatch(rule, i, owner, a, d, &acc,
                                    "they cannot be equal and neither can be 1", nm, err);
            if (owner < 0 && !bc_pdim_may_be_1(d))
                owner = i;
        }
        r.dims[a] = acc;
    }
    /* An operand of unknown rank may have more axes: only [...] holds every result. */
    if (unknown_rank)
        dynamic_rank(&r);
    *out = r;
    return BC_OK;
}

/* onnx-uni (B onto A) and broadcast-to (input onto target): the result is
 * the big operand as given (§14.4, relaxation R2). */
static bc_error_kind p_onto(bc_rule rule, const bc_pshape *big, int big_op, const bc_pshape *small,
                            int small_op, names *nm, bc_pshape *out, bc_error *err)
{
    if (big->rank != BC_RANK_DYNAMIC && small->rank != BC_RANK_DYNAMIC) {
        if (small->rank > big->rank)
            return bc_error_set(err, BC_ERR_RANK_TOO_LARGE, rule, small_op, big_op, -1, small->rank,
                                big->rank,
                                "operand %d has rank %d, more than "
                                "operand %d's %d",
                                small_op, small->rank, big_op, big->rank);
        int offset = big->rank - small->rank;
        for (int k = 0; k < small->rank; k++)
            if (!onto_possible(&big->dims[offset + k], &small->dims[k]))
                return dim_mismatch(rule, small_op, big_op, offset + k, &small->dims[k],
                                    &big->dims[offset + k], "it must equal it or be 1", nm, err);
    }
    *out = *big;
    return BC_OK;
}

/* pdpd: the number of B's axes that stay after its trailing 1s are dropped.
 * openvino-doc drops every trailing dim that may be 1: the concretizations
 * where they are 1 check a subset of the others' axes (§14.4). */
static int pdpd_window(const bc_pshape *b, bc_profile profile)
{
    int len = b->rank;
    if (profile == BC_PROFILE_OPENVINO_DOC)
        while (len > 0 && bc_pdim_may_be_1(&b->dims[len - 1]))
            len--;
    return len;
}

/* B (operand b_op) onto A (operand a_op); the Select profile (§5.4) runs
 * it twice, on its own operands. */
static bc_error_kind p_pdpd_openvino(const bc_pshape *a, int a_op, const bc_pshape *b, int b_op,
                                     int64_t axis, bc_profile profile, names *nm, bc_pshape *out,
                                     bc_error *err)
{
    const bc_rule rule = BC_RULE_PDPD;
    if (axis < -1)
        return bc_error_set(err, BC_ERR_AXIS_OUT_OF_RANGE, rule, b_op, a_op, -1, axis, a->rank,
                            "axis %lld is negative; only -1 (the default) is allowed", LL(axis));
    *out = *a;
    if (a->rank == BC_RANK_DYNAMIC)
        return BC_OK;
    if (b->rank != BC_RANK_DYNAMIC && b->rank > a->rank)
        return bc_error_set(err, BC_ERR_RANK_TOO_LARGE, rule, b_op, a_op, -1, b->rank, a->rank,
                            "B has rank %d, more than A's %d", b->rank, a->rank);
    if (axis == -1 && b->rank == BC_RANK_DYNAMIC)
        return BC_OK; /* B may be [], which fits */
    if (axis == -1)
        axis = a->rank - b->rank;
    if (axis > a->rank)
        return bc_error_set(err, BC_ERR_AXIS_OUT_OF_RANGE, rule, b_op, a_op, -1, axis, a->rank,
                            "axis %lld is past A's rank %d", LL(axis), a->rank);
    if (b->rank == BC_RANK_DYNAMIC)
        return BC_OK;
    int len = pdpd_window(b, profile);
    if (axis + len > a->rank)
        return bc_error_set(err, BC_ERR_WINDOW_OUT_OF_RANGE, rule, b_op, a_op, -1, axis + len, a->rank,
                            "B's %d axes%s from axis %lld run past A's rank %d", len,
                            profile == BC_PROFILE_OPENVINO_DOC ? " (trailing dims that may be 1 "
                                                                 "dropped)"
                                                               : "",
                            LL(axis), a->rank);
    for (int i = 0; i < len; i++) {
        const bc_pdim *ad = &a->dims[axis + i], *bd = &b->dims[i];
        int ok = onto_possible(ad, bd);
        if (profile == BC_PROFILE_OPENVINO_SHAPE_INFERENCE) {
            /* B == A, or B == 1 with A >= 1 */
            bc_pdim unused;
            ok = merge_equal(&unused, ad, bd) || (bc_pdim_may_be_1(bd) && ad->hi >= 1);
        }
        if (!ok)
            return dim_mismatch(rule, b_op, a_op, (int)axis + i, bd, ad,
                                profile == BC_PROFILE_OPENVINO_SHAPE_INFERENCE
                                    ? "B must equal A's dim or be 1 and not exceed it"
                                    : "B must equal A's dim or be 1",
                                nm, err);
    }
    return BC_OK;
}

/* §5.4 openvino-select on partial shapes: else, then cond, onto then with
 * the §5.2 check; the result is then as given (R2).  Each step's check is
 * necessary for every concretization, so a rejection is sound; the two
 * steps are not checked jointly (a then dim that each fits alone but not
 * both at once is accepted). */
static bc_error_kind p_select_openvino(const bc_pshape *s, int64_t axis, names *nm, bc_pshape *out,
                                       bc_error *err)
{
    const bc_profile step = BC_PROFILE_OPENVINO_SHAPE_INFERENCE;
    bc_error_kind k = p_pdpd_openvino(&s[1], 1, &s[2], 2, axis, step, nm, out, err);
    if (!k)
        k = p_pdpd_openvino(&s[1], 1, &s[0], 0, axis, step, nm, out, err);
    return k;
}

static bc_error_kind p_pdpd_paddle(const bc_pshape *a, const bc_pshape *b, int64_t axis, names *nm,
                                   bc_pshape *out, bc_error *err)
{
    const bc_rule rule = BC_RULE_PDPD;
    if (a->rank == BC_RANK_DYNAMIC || b->rank == BC_RANK_DYNAMIC) {
        if (axis < -1)
            return bc_error_set(err, BC_ERR_AXIS_OUT_OF_RANGE, rule, 1, 0, -1, axis, -1,
                                "axis %lld is negative; only -1 (the default) is allowed",
                                LL(axis));
        dynamic_rank(out); /* which operand is the larger is not known */
        return BC_OK;
    }
    const bc_pshape *large = a->rank > b->rank ? a : b, *small = a->rank > b->rank ? b : a;
    int large_op = large == a ? 0 : 1, small_op = 1 - large_op;
    if (axis < -1)
        return bc_error_set(err, BC_ERR_AXIS_OUT_OF_RANGE, rule, small_op, large_op, -1, axis,
                            large->rank,
                            "axis %lld is negative; only -1 (the default) is "
                            "allowed",
                            LL(axis));
    if (axis == -1)
        axis = large->rank - small->rank;
    if (axis > large->rank)
        return bc_error_set(err, BC_ERR_AXIS_OUT_OF_RANGE, rule, small_op, large_op, -1, axis,
                            large->rank, "axis %lld is past the larger rank %d", LL(axis),
                            large->rank);
    if (axis + small->rank > large->rank)
        return bc_error_set(err, BC_ERR_WINDOW_OUT_OF_RANGE, rule, small_op, large_op, -1,
                            axis + small->rank, large->rank,
                            "operand %d's %d axes from axis %lld run past operand %d's rank %d",
                            small_op, small->rank, LL(axis), large_op, large->rank);
    bc_pshape r = *large;
    for (int k = 0; k < small->rank; k++) {
        int at = (int)axis + k;
        if (!merge_broadcast(&r.dims[at], &large->dims[at], &small->dims[k]))
            return dim_mismatch(rule, small_op, large_op, at, &small->dims[k], &large->dims[at],
                                "they cannot be equal and neither can be 1", nm, err);
    }
    *out = r;
    return BC_OK;
}

static bc_error_kind p_explicit_axes(const bc_pshape *in, const bc_pshape *tg, int naxes,
                                     const int64_t *axes, names *nm, bc_pshape *out, bc_error *err)
{
    const bc_rule rule = BC_RULE_EXPLICIT;
    *out = *tg;
    int known = in->rank != BC_RANK_DYNAMIC && tg->rank != BC_RANK_DYNAMIC;
    if (known && in->rank > tg->rank)
        return bc_error_set(err, BC_ERR_RANK_TOO_LARGE, rule, 0, 1, -1, in->rank, tg->rank,
                            "the input has rank %d, more than the target's %d", in->rank, tg->rank);
    if (tg->rank == BC_RANK_DYNAMIC)
        return BC_OK; /* the entries cannot be checked against an unknown rank */
    int is_broadcast[BC_MAX_RANK] = {0};
    for (int j = 0; j < naxes; j++)
        if (axes[j] < 0 || axes[j] >= tg->rank)
            return bc_error_set(err, BC_ERR_AXIS_OUT_OF_RANGE, rule, -1, -1, -1, axes[j], tg->rank,
                                "broadcast axis %lld (entry %d) is outside the "
                                "target's axes 0..%d",
                                LL(axes[j]), j, tg->rank - 1);
    for (int j = 0; j < naxes; j++) {
        if (is_broadcast[axes[j]])
            return bc_error_set(err, BC_ERR_AXES_DUPLICATE, rule, -1, -1, (int)axes[j], axes[j], 0,
                                "broadcast axis %lld is named twice (entry %d)", LL(axes[j]), j);
        is_broadcast[axes[j]] = 1;
    }
    if (in->rank == BC_RANK_DYNAMIC)
        return BC_OK;
    if (in->rank != tg->rank - naxes)
        return bc_error_set(err, BC_ERR_AXES_COUNT, rule, 0, 1, -1, in->rank, tg->rank - naxes,
                            "the input has rank %d but the target's rank %d less %d broadcast "
                            "axes is %d",
                            in->rank, tg->rank, naxes, tg->rank - naxes);
    for (int t = 0, i = 0; t < tg->rank; t++) {
        if (is_broadcast[t])
            continue;
        bc_pdim unused;
        if (!merge_equal(&unused, &in->dims[i], &tg->dims[t]))
            return dim_mismatch(rule, 0, 1, t, &in->dims[i], &tg->dims[t], "they must be equal", nm,
                                err);
        i++;
    }
    return BC_OK;
}

static bc_error_kind p_explicit_mapping(const bc_pshape *in, const bc_pshape *tg, int nmap,
                                        const int64_t *map, names *nm, bc_pshape *out,
                                        bc_error *err)
{
    const bc_rule rule = BC_RULE_EXPLICIT;
    *out = *tg;
    if (in->rank != BC_RANK_DYNAMIC && tg->rank != BC_RANK_DYNAMIC && in->rank > tg->rank)
        return bc_error_set(err, BC_ERR_RANK_TOO_LARGE, rule, 0, 1, -1, in->rank, tg->rank,
                            "the input has rank %d, more than the target's %d", in->rank, tg->rank);
    if (in->rank != BC_RANK_DYNAMIC && nmap != in->rank)
        return bc_error_set(err, BC_ERR_AXES_COUNT, rule, 0, 1, -1, nmap, in->rank,
                            "axes_mapping has %d entries but the input has rank %d; one entry "
                            "per input axis",
                            nmap, in->rank);
    for (int i = 0; i < nmap && tg->rank != BC_RANK_DYNAMIC; i++)
        if (map[i] < 0 || map[i] >= tg->rank)
            return bc_error_set(err, BC_ERR_AXIS_OUT_OF_RANGE, rule, 0, 1, -1, map[i], tg->rank,
                                "axes_mapping entry %d is %lld, outside the target's axes 0..%d", i,
                                LL(map[i]), tg->rank - 1);
    for (int i = 1; i < nmap; i++) {
        if (map[i] == map[i - 1])
            return bc_error_set(err, BC_ERR_AXES_DUPLICATE, rule, 0, 1, (int)map[i], map[i], 0,
                                "axes_mapping names target axis %lld twice (entries %d and %d)",
                                LL(map[i]), i - 1, i);
        if (map[i] < map[i - 1])
            return bc_error_set(err, BC_ERR_AXES_UNSORTED, rule, 0, 1, (int)map[i], map[i],
                                map[i - 1],
                                "axes_mapping entry %d (%lld) is below entry %d "
                                "(%lld); it must strictly increase",
                                i, LL(map[i]), i - 1, LL(map[i - 1]));
    }
    if (in->rank == BC_RANK_DYNAMIC || tg->rank == BC_RANK_DYNAMIC)
        return BC_OK;
    for (int i = 0; i < nmap; i++)
        if (!onto_possible(&tg->dims[map[i]], &in->dims[i]))
            return dim_mismatch(rule, 0, 1, (int)map[i], &in->dims[i], &tg->dims[map[i]],
                                "it must equal it or be 1", nm, err);
    return BC_OK;
}

/* ---- dispatch ---------------------------------------------------------- */

bc_error_kind bc_pinfer(const bc_params *p, int n, const bc_pshape *shapes, const bc_psymbols *syms,
                        bc_pshape *out, bc_error *err)
{
    bc_error_kind k = check_params(p, n, err);
    if (k)
        return k;
    bc_pshape s[BC_MAX_OPERANDS];
    memcpy(s, shapes, (size_t)n * sizeof *s);
    names nm = {syms, "", ""};
    if ((k = check_pdims(p->rule, n, s, &nm, err)))
        return k;
    bc_pshape r;
    bc_profile profile = (p->options & BC_OPT_PROFILE) ? p->profile : BC_PROFILE_DEFAULT;
    if (profile == BC_PROFILE_DEFAULT)
        profile = bc_rule_default_profile(p->rule);
    if (profile == BC_PROFILE_PYTORCH_EXPAND || profile == BC_PROFILE_OPENVINO_EXPLICIT ||
        profile == BC_PROFILE_NGRAPH_SELECT || profile == BC_PROFILE_OPENVINO_BROADCAST ||
        profile == BC_PROFILE_NGRAPH_EXPLICIT || profile == BC_PROFILE_NUMPY_EMPTY_FOLD)
        return bc_error_set(err, BC_ERR_BAD_PARAMS, p->rule, -1, -1, -1, profile, 0,
                            "partial shapes take no profile %s (RULES.md §14.4)",
                            bc_profile_name(profile));
    switch (p->rule) {
    case BC_RULE_MATMUL:
        return bc_error_set(err, BC_ERR_BAD_PARAMS, p->rule, -1, -1, -1, 0, 0,
                            "matmul takes static shapes only (RULES.md §15.4)");
    case BC_RULE_NONE: k = p_none(n, s, &nm, &r, err); break;
    case BC_RULE_NUMPY: k = p_numpy(BC_RULE_NUMPY, n, s, &nm, &r, err); break;
    case BC_RULE_BIDIRECTIONAL: k = p_numpy(BC_RULE_BIDIRECTIONAL, 2, s, &nm, &r, err); break;
    case BC_RULE_ONNX_UNI: k = p_onto(BC_RULE_ONNX_UNI, &s[0], 0, &s[1], 1, &nm, &r, err); break;
    case BC_RULE_BROADCAST_TO:
        k = p_onto(BC_RULE_BROADCAST_TO, &s[1], 1, &s[0], 0, &nm, &r, err);
        break;
    case BC_RULE_PDPD:
        k = profile == BC_PROFILE_PADDLE
                ? p_pdpd_paddle(&s[0], &s[1], p->axis, &nm, &r, err)
                : profile == BC_PROFILE_OPENVINO_SELECT ? p_select_openvino(s, p->axis, &nm, &r, err)
                : p_pdpd_openvino(&s[0], 0, &s[1], 1, p->axis, profile, &nm, &r, err);
        break;
    default:
        k = (p->options & BC_OPT_AXES)
                ? p_explicit_axes(&s[0], &s[1], p->naxes, p->axes, &nm, &r, err)
                : p_explicit_mapping(&s[0], &s[1], p->naxes, p->axes, &nm, &r, err);
        break;
    }
    if (k == BC_OK)
        *out = r;
    return k;
}
