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
    bc_params known = *p;
    if (known.options & BC_OPT_AXES_UNKNOWN) {
        /* the static rule takes only known entries: ask it about none */
        if (!(known.options & BC_OPT_AXES_MAPPING) || known.naxes < -1 || known.naxes > BC_MAX_RANK)
            return bc_error_set(err, BC_ERR_BAD_PARAMS, p->rule, -1, -1, -1, known.naxes, 0,
                                "unknown entries are for axes-mapping only, at most %d of them",
                                BC_MAX_RANK);
        known.options &= ~(unsigned)BC_OPT_AXES_UNKNOWN;
        known.naxes = 0;
    }
    bc_shape unused;
    bc_error_kind k = bc_infer(&known, n, scalars, &unused, err);
    return k == BC_ERR_BAD_PARAMS || k == BC_ERR_OPERAND_COUNT ? k : BC_OK;
}

/* Ranks, negative dims, and the symbols: every occurrence of a symbol gets
 * the intersection of the intervals written for it (they are one value). */
/* pytorch-expand's "keep this dim" (§6.1): a static -1, with no symbol, in the target. */
static int is_keep(const bc_pdim *d)
{
    return d->lo == -1 && d->hi == -1 && !d->sym;
}

/* keep_target: operand 1's static negative dims are left to the rule
 * (pytorch-expand: a -1 keeps the input's dim, another is negative-dim
 * there, in the static order). */
static bc_error_kind check_pdims(bc_rule rule, int n, bc_pshape *s, int keep_target, names *nm,
                                 bc_error *err)
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
            if (keep_target && i == 1 && d->lo < 0 && d->lo == d->hi && !d->sym)
                continue;
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
        return bc_error_set(err, BC_ERR_WINDOW_OUT_OF_RANGE, rule, b_op, a_op, -1, axis + len,
                            a->rank, "B's %d axes%s from axis %lld run past A's rank %d", len,
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

static bc_error_kind select_openvino_joint(const bc_pshape *s, int64_t axis, names *nm,
                                           bc_error *err);

/* §5.4 openvino-select on partial shapes: else, then cond, onto then with
 * the §5.2 check, in the static order; then each axis of `then` jointly
 * (a then dim that else and cond each fit alone, but not both at once, is
 * rejected).  The result is then as given (R2). */
static bc_error_kind p_select_openvino(const bc_pshape *s, int64_t axis, names *nm, bc_pshape *out,
                                       bc_error *err)
{
    const bc_profile step = BC_PROFILE_OPENVINO_SHAPE_INFERENCE;
    bc_error_kind k = p_pdpd_openvino(&s[1], 1, &s[2], 2, axis, step, nm, out, err);
    if (!k)
        k = p_pdpd_openvino(&s[1], 1, &s[0], 0, axis, step, nm, out, err);
    if (!k)
        k = select_openvino_joint(s, axis, nm, err);
    return k;
}

/* §5.4 jointly: at each axis of `then`, the values of then's dim that let
 * every operand placed there (else, cond) be equal to it or be 1 with it
 * >= 1.  B's dim d allows d, and also every value >= 1 when d may be 1. */
static bc_error_kind select_openvino_joint(const bc_pshape *s, int64_t axis, names *nm,
                                           bc_error *err)
{
    const bc_pshape *then = &s[1];
    if (then->rank == BC_RANK_DYNAMIC || s[0].rank == BC_RANK_DYNAMIC ||
        s[2].rank == BC_RANK_DYNAMIC)
        return BC_OK;
    bc_pdim allowed[BC_MAX_RANK];
    memcpy(allowed, then->dims, (size_t)then->rank * sizeof allowed[0]);
    static const int order[2] = {2, 0}; /* else, then cond: the static order */
    for (int j = 0; j < 2; j++) {
        const bc_pshape *b = &s[order[j]];
        int64_t start = axis == -1 ? then->rank - b->rank : axis;
        for (int i = 0; i < b->rank; i++) {
            int t = (int)start + i;
            const bc_pdim *d = &b->dims[i];
            bc_pdim need = *d;
            if (bc_pdim_may_be_1(d))
                need.hi = BC_DIM_UNBOUNDED; /* d itself, or 1 onto anything >= 1 */
            if (!merge_equal(&allowed[t], &allowed[t], &need))
                return dim_mismatch(BC_RULE_PDPD, order[j], 1, t, d, &then->dims[t],
                                    "then's dim cannot fit else and cond at once", nm, err);
        }
    }
    return BC_OK;
}

/* §5.5, one step on partial shapes: B (operand b_op) onto A (a_op), nGraph
 * 2020.  A step passes if some concretization passes it: equal shapes (the
 * shortcut), or the window of some length L.  L is B's rank less its
 * trailing 1s, so it may be any L whose dims L.. may all be 1 and whose
 * dim L-1 may be other than 1; for each the static checks run with
 * `equal`.  The error is the one of the shortest L (the concretization
 * that drops every dim that may be 1). */
static int ngraph_can_equal(const bc_pshape *a, const bc_pshape *b)
{
    if (a->rank != b->rank)
        return 0;
    bc_pdim unused;
    for (int k = 0; k < a->rank; k++)
        if (!merge_equal(&unused, &a->dims[k], &b->dims[k]))
            return 0;
    return 1;
}

/* The static checks of one step with window length len; BC_OK or the error. */
static bc_error_kind ngraph_window(const bc_pshape *a, int a_op, const bc_pshape *b, int b_op,
                                   int64_t axis, int len, names *nm, bc_error *err)
{
    const bc_rule rule = BC_RULE_PDPD;
    if (axis == -1)
        axis = a->rank - b->rank;
    if (axis < 0) {
        int64_t gap = -axis;
        if (len > 0 && len < gap)
            return bc_error_set(err, BC_ERR_RANK_TOO_LARGE, rule, b_op, a_op, -1, b->rank, a->rank,
                                "operand %d has rank %d, more than operand %d's %d, and its %d "
                                "axes (trailing dims that may be 1 dropped) are fewer than the "
                                "gap: nGraph indexes past the frame",
                                b_op, b->rank, a_op, a->rank, len);
        return BC_OK;
    }
    for (int i = 0; i < len; i++) {
        int64_t t = axis + i;
        if (t >= a->rank)
            return bc_error_set(
                err,
                i == 0 && axis > a->rank ? BC_ERR_AXIS_OUT_OF_RANGE : BC_ERR_WINDOW_OUT_OF_RANGE,
                rule, b_op, a_op, -1, i == 0 && axis > a->rank ? axis : axis + len, a->rank,
                "operand %d's %d axes from axis %lld run past operand %d's rank %d", b_op, len,
                LL(axis), a_op, a->rank);
        bc_pdim m;
        /* the last dim of the window is not 1 (else it would be dropped) */
        if (!merge_equal(&m, &b->dims[i], &a->dims[t]) || (i == len - 1 && is_1(&m)))
            return dim_mismatch(rule, b_op, a_op, (int)t, &b->dims[i], &a->dims[t],
                                "nGraph 2020 wants them equal (no 1 stretches but a trailing one)",
                                nm, err);
    }
    return BC_OK;
}

static bc_error_kind p_ngraph_step(const bc_pshape *a, int a_op, const bc_pshape *b, int b_op,
                                   int64_t axis, names *nm, bc_error *err)
{
    if (a->rank == BC_RANK_DYNAMIC || b->rank == BC_RANK_DYNAMIC)
        return BC_OK; /* B may equal A: the shortcut passes whatever the axis */
    if (ngraph_can_equal(a, b))
        return BC_OK;
    if (axis < -1)
        return bc_error_set(err, BC_ERR_AXIS_OUT_OF_RANGE, BC_RULE_PDPD, b_op, a_op, -1, axis,
                            a->rank, "axis %lld is negative; only -1 (the default) is allowed",
                            LL(axis));
    bc_error first = {0};
    bc_error_kind first_kind = BC_OK;
    /* L from the shortest: lengths whose dims L.. may all be 1 */
    int shortest = b->rank;
    while (shortest > 0 && bc_pdim_may_be_1(&b->dims[shortest - 1]))
        shortest--;
    for (int len = shortest; len <= b->rank; len++) {
        if (len > shortest && is_1(&b->dims[len - 1]))
            continue; /* a static 1 there is always dropped: no window ends on it */
        bc_error e;
        bc_error_kind k = ngraph_window(a, a_op, b, b_op, axis, len, nm, &e);
        if (k == BC_OK)
            return BC_OK;
        if (first_kind == BC_OK) {
            first_kind = k;
            first = e;
        }
    }
    if (err)
        *err = first;
    return first_kind;
}

/* §5.5 ngraph-select: then, then cond, onto else, each step on its own
 * (relaxation R3); the result is else as given (R2). */
static bc_error_kind p_select_ngraph(const bc_pshape *s, int64_t axis, names *nm, bc_pshape *out,
                                     bc_error *err)
{
    bc_error_kind k = p_ngraph_step(&s[2], 2, &s[1], 1, axis, nm, err);
    if (!k)
        k = p_ngraph_step(&s[2], 2, &s[0], 0, axis, nm, err);
    if (!k)
        *out = s[2];
    return k;
}

/* §5.6 openvino-broadcast: target A, data B from the start axis; each
 * target axis from there is numpy's pair (B's 1 keeps A's, A's 1 takes B's,
 * else equal), so its result is `broadcast` of the two dims, not A as
 * given. */
static bc_error_kind p_broadcast_openvino(const bc_pshape *a, const bc_pshape *b, int64_t axis,
                                          names *nm, bc_pshape *out, bc_error *err)
{
    const bc_rule rule = BC_RULE_PDPD;
    if (axis < -1 || (axis == -1 && a->rank != BC_RANK_DYNAMIC && b->rank != BC_RANK_DYNAMIC &&
                      a->rank < b->rank))
        return bc_error_set(err, BC_ERR_AXIS_OUT_OF_RANGE, rule, 1, 0, -1,
                            axis == -1 ? (int64_t)a->rank - b->rank : axis, a->rank,
                            "the start axis is %lld; Broadcast's mode pdpd needs one >= 0",
                            LL(axis == -1 ? (int64_t)a->rank - b->rank : axis));
    *out = *a;
    if (a->rank == BC_RANK_DYNAMIC)
        return BC_OK;
    bc_pdim unknown = bc_pdim_dynamic();
    if (b->rank == BC_RANK_DYNAMIC) {
        /* the data's dims (and, with -1, the start axis) unknown: every target
         * axis from the start may take any data dim where it may be 1 */
        for (int t = axis == -1 ? 0 : (int)(axis < a->rank ? axis : a->rank); t < a->rank; t++)
            merge_broadcast(&out->dims[t], &a->dims[t], &unknown);
        return BC_OK;
    }
    if (axis == -1)
        axis = a->rank - b->rank;
    if (axis < a->rank && b->rank < a->rank - axis)
        return bc_error_set(err, BC_ERR_WINDOW_OUT_OF_RANGE, rule, 1, 0, -1, axis + b->rank,
                            a->rank,
                            "the data's %d axes from axis %lld stop before the target's last "
                            "axis %d",
                            b->rank, LL(axis), a->rank - 1);
    for (int64_t t = axis; t < a->rank; t++)
        if (!merge_broadcast(&out->dims[t], &a->dims[t], &b->dims[t - axis]))
            return dim_mismatch(rule, 1, 0, (int)t, &b->dims[t - axis], &a->dims[t],
                                "one must be 1 or they must be equal", nm, err);
    return BC_OK;
}

/* The values of a target dim that input dim d allows there: d's own, or
 * any when d may be 1 and 1s stretch. */
static bc_pdim allowed_by(const bc_pdim *d, int stretch)
{
    bc_pdim a = *d;
    if (stretch && bc_pdim_may_be_1(d)) {
        a.lo = 0;
        a.hi = BC_DIM_UNBOUNDED;
        a.sym = 0;
    }
    return a;
}

/* §8.3 openvino-explicit and §8.4 ngraph-explicit on partial shapes, in
 * their order: the entries that name one target axis jointly (its dim must
 * take a value every input dim mapped there allows: equal to it, or, under
 * OpenVINO, anything where it may be 1; a scalar's one entry allows only
 * 1); the target as given (R2). */
static bc_error_kind p_explicit_axis_vector(const bc_pshape *in, const bc_pshape *tg, int nmap,
                                            const int64_t *map, int ov, names *nm, bc_pshape *out,
                                            bc_error *err)
{
    const bc_rule rule = BC_RULE_EXPLICIT;
    const int known = in->rank != BC_RANK_DYNAMIC, scalar = ov && in->rank == 0;
    *out = *tg;
    const int rank = scalar && nmap > 0 ? 1 : in->rank;
    if (known && nmap != rank)
        return bc_error_set(err, BC_ERR_AXES_COUNT, rule, 0, 1, -1, nmap, rank,
                            "axes_mapping has %d entries but the input has rank %d; one entry "
                            "per input axis%s",
                            nmap, rank, ov ? " (a scalar counts as rank 1)" : "");
    for (int i = 1; i < nmap; i++)
        if ((uint64_t)map[i] < (uint64_t)map[i - 1])
            return bc_error_set(err, BC_ERR_AXES_UNSORTED, rule, 0, 1, -1, map[i], map[i - 1],
                                "axes_mapping entry %d (%lld) is below entry %d (%lld), as "
                                "unsigned numbers; it must not decrease",
                                i, LL(map[i]), i - 1, LL(map[i - 1]));
    bc_pdim joint[BC_MAX_RANK];
    if (tg->rank != BC_RANK_DYNAMIC)
        memcpy(joint, tg->dims, (size_t)tg->rank * sizeof joint[0]);
    const bc_pdim one = bc_pdim_static(1);
    for (int i = 0; i < nmap; i++) {
        if (map[i] < 0 || (tg->rank != BC_RANK_DYNAMIC && map[i] >= tg->rank))
            return bc_error_set(err, BC_ERR_AXIS_OUT_OF_RANGE, rule, 0, 1, -1, map[i], tg->rank,
                                "axes_mapping entry %d is %lld, outside the target's axes", i,
                                LL(map[i]));
        if (!known || tg->rank == BC_RANK_DYNAMIC)
            continue;
        const bc_pdim *d = scalar ? &one : &in->dims[i];
        const bc_pdim need = allowed_by(d, ov && !scalar);
        if (!merge_equal(&joint[map[i]], &joint[map[i]], &need))
            return dim_mismatch(rule, 0, 1, (int)map[i], d, &tg->dims[map[i]],
                                scalar ? "a scalar's entry must name a 1"
                                : ov   ? "it must equal it or be 1 (with every input dim mapped "
                                         "there)"
                                       : "nGraph 2020 wants them equal (a 1 does not stretch)",
                                nm, err);
    }
    return BC_OK;
}

/* §15 matmul on partial shapes (§14.4): an unknown rank leaves unknown
 * which axis is contracted, so the result is [...]; else the static order
 * with `equal` for the contracted dims and `broadcast` for the batch; rows
 * and columns as given (they are the operands' own, unconstrained). */
static bc_error_kind p_matmul(const bc_pshape *a, const bc_pshape *b, names *nm, bc_pshape *out,
                              bc_error *err)
{
    const bc_rule rule = BC_RULE_MATMUL;
    const bc_pshape *s[2] = {a, b};
    for (int i = 0; i < 2; i++)
        if (s[i]->rank == 0)
            return bc_error_set(err, BC_ERR_RANK_MISMATCH, rule, i, 1 - i, -1, 0, 1,
                                "operand %d is a scalar; matmul needs rank >= 1 in both", i);
    if (a->rank == BC_RANK_DYNAMIC || b->rank == BC_RANK_DYNAMIC) {
        dynamic_rank(out);
        return BC_OK;
    }
    const bc_pdim *ka = &a->dims[a->rank - 1], *kb = &b->dims[b->rank >= 2 ? b->rank - 2 : 0];
    bc_pdim unused;
    if (!merge_equal(&unused, ka, kb))
        return dim_mismatch(rule, 1, 0, -1, kb, ka, "the contracted dims cannot be equal", nm, err);
    bc_pshape batch[2], r;
    for (int i = 0; i < 2; i++) {
        batch[i].rank = s[i]->rank >= 2 ? s[i]->rank - 2 : 0;
        memcpy(batch[i].dims, s[i]->dims, (size_t)batch[i].rank * sizeof batch[i].dims[0]);
    }
    bc_error_kind k = p_numpy(rule, 2, batch, nm, &r, err);
    if (k)
        return k;
    if (a->rank >= 2)
        r.dims[r.rank++] = a->dims[a->rank - 2];
    if (b->rank >= 2)
        r.dims[r.rank++] = b->dims[b->rank - 1];
    *out = r;
    return BC_OK;
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

/* §6.1 pytorch-expand on partial shapes (§14.4): each target -1 at an axis
 * aligned with the input's becomes the input's dim there, symbol and all
 * (with an input of unknown rank: ?, since it may be aligned or not); a -1
 * on a new leading axis, or any other negative dim, is negative-dim; then
 * broadcast-to on the resolved target, whose result it is. */
static bc_error_kind p_expand(const bc_pshape *in, const bc_pshape *tg, names *nm, bc_pshape *out,
                              bc_error *err)
{
    const bc_rule rule = BC_RULE_BROADCAST_TO;
    bc_pshape resolved = *tg;
    const int lead = in->rank == BC_RANK_DYNAMIC ? 0 : tg->rank - in->rank;
    for (int t = 0; t < tg->rank; t++) {
        const bc_pdim *d = &tg->dims[t];
        if (is_keep(d) && in->rank == BC_RANK_DYNAMIC)
            resolved.dims[t] = bc_pdim_dynamic();
        else if (is_keep(d) && t >= lead)
            resolved.dims[t] = in->dims[t - lead];
        else if (is_keep(d))
            return bc_error_set(err, BC_ERR_NEGATIVE_DIM, rule, 1, -1, t, -1, 0,
                                "operand 1 has dim -1 at axis %d, a new leading axis: -1 keeps "
                                "the input's dim, and the input has none there",
                                t);
        else if (d->lo < 0)
            return bc_error_set(err, BC_ERR_NEGATIVE_DIM, rule, 1, -1, t, d->lo, 0,
                                "operand 1 has dim %lld at axis %d; dims must be >= 0, or -1 "
                                "to keep the input's",
                                LL(d->lo), t);
    }
    return p_onto(rule, &resolved, 1, in, 0, nm, out, err);
}

/* An axes_mapping of unknown values (§14.9): whether some mapping of the
 * input's axes onto the target's passes the dim checks, entries strictly
 * increasing (`strict`) or not decreasing (the dims of repeated entries
 * then meet at one target dim).  Each input axis in turn takes the first
 * target axis it fits, from where the last one went (or the next, if
 * strict): a later choice leaves the next axes no more room, so this finds
 * a mapping whenever one exists.  -1 if one does, else the input axis that
 * fits nowhere. */
static int unmappable_axis(const bc_pshape *in, const bc_pshape *tg, int strict, int stretch)
{
    int j = 0, fresh = 1;
    bc_pdim at = bc_pdim_dynamic();
    for (int i = 0; i < in->rank; i++) {
        const bc_pdim need = allowed_by(&in->dims[i], stretch);
        for (;;) {
            if (j >= tg->rank)
                return i;
            if (fresh)
                at = tg->dims[j];
            if (merge_equal(&at, &at, &need))
                break;
            j++;
            fresh = 1;
        }
        fresh = 0;
        if (strict) {
            j++;
            fresh = 1;
        }
    }
    return -1;
}

/* §14.9 explicit axes-mapping whose values are unknown (naxes: its length,
 * -1 if unknown too), under the default (§8.2) or openvino-explicit /
 * ngraph-explicit: rejected only when no mapping of that length passes;
 * the target as given (R2). */
static bc_error_kind p_explicit_unknown(const bc_pshape *in, const bc_pshape *tg, int naxes,
                                        bc_profile profile, names *nm, bc_pshape *out,
                                        bc_error *err)
{
    const bc_rule rule = BC_RULE_EXPLICIT;
    const int ov = profile == BC_PROFILE_OPENVINO_EXPLICIT,
              ng = profile == BC_PROFILE_NGRAPH_EXPLICIT, strict = !ov && !ng;
    const int in_known = in->rank != BC_RANK_DYNAMIC, tg_known = tg->rank != BC_RANK_DYNAMIC;
    *out = *tg;
    if (strict && in_known && tg_known && in->rank > tg->rank)
        return bc_error_set(err, BC_ERR_RANK_TOO_LARGE, rule, 0, 1, -1, in->rank, tg->rank,
                            "the input has rank %d, more than the target's %d", in->rank, tg->rank);
    if (in_known && naxes >= 0) {
        const int rank = ov && in->rank == 0 && naxes > 0 ? 1 : in->rank;
        if (naxes != rank)
            return bc_error_set(err, BC_ERR_AXES_COUNT, rule, 0, 1, -1, naxes, rank,
                                "axes_mapping has %d entries but the input has rank %d; one "
                                "entry per input axis%s",
                                naxes, rank, ov ? " (a scalar counts as rank 1)" : "");
    }
    if (!tg_known)
        return BC_OK; /* any mapping fits some target */
    if (!in_known) {
        /* the input's rank is the mapping's length (if known), its dims free */
        if (naxes > 0 && (strict ? naxes > tg->rank : tg->rank == 0))
            return bc_error_set(err, strict ? BC_ERR_RANK_TOO_LARGE : BC_ERR_AXIS_OUT_OF_RANGE,
                                rule, 0, 1, -1, naxes, tg->rank,
                                "axes_mapping has %d entries, one per input axis, and the "
                                "target's %d axes take no such mapping",
                                naxes, tg->rank);
        return BC_OK;
    }
    bc_pshape mapped = *in;
    if (in->rank == 0) {
        /* openvino-explicit: a scalar with its one entry (a length of 0 passes) */
        if (!ov || naxes == 0 || naxes == -1)
            return BC_OK;
        mapped.rank = 1;
        mapped.dims[0] = bc_pdim_static(1);
    }
    int i = unmappable_axis(&mapped, tg, strict, !ng && in->rank > 0);
    if (i < 0)
        return BC_OK;
    say(nm, &mapped.dims[i], NULL);
    return bc_error_set(err, BC_ERR_DIM_MISMATCH, rule, 0, 1, -1, mapped.dims[i].lo, tg->rank,
                        "no axes_mapping of the input's %d axes onto the target's %d fits: "
                        "input axis %d (%s) finds no target axis %s after those before it",
                        mapped.rank, tg->rank, i, nm->a,
                        ng ? "equal to it" : "equal to it, or it 1,");
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
    bc_pshape r;
    bc_profile profile = bc_params_resolved_profile(p);
    const int expand = p->rule == BC_RULE_BROADCAST_TO && profile == BC_PROFILE_PYTORCH_EXPAND;
    if ((k = check_pdims(p->rule, n, s, expand, &nm, err)))
        return k;
    switch (p->rule) {
    case BC_RULE_MATMUL: k = p_matmul(&s[0], &s[1], &nm, &r, err); break;
    case BC_RULE_NONE: k = p_none(n, s, &nm, &r, err); break;
    case BC_RULE_NUMPY: k = p_numpy(BC_RULE_NUMPY, n, s, &nm, &r, err); break;
    case BC_RULE_BIDIRECTIONAL: k = p_numpy(BC_RULE_BIDIRECTIONAL, 2, s, &nm, &r, err); break;
    case BC_RULE_ONNX_UNI: k = p_onto(BC_RULE_ONNX_UNI, &s[0], 0, &s[1], 1, &nm, &r, err); break;
    case BC_RULE_BROADCAST_TO:
        k = expand ? p_expand(&s[0], &s[1], &nm, &r, err)
                   : p_onto(BC_RULE_BROADCAST_TO, &s[1], 1, &s[0], 0, &nm, &r, err);
        break;
    case BC_RULE_PDPD:
        k = profile == BC_PROFILE_PADDLE ? p_pdpd_paddle(&s[0], &s[1], p->axis, &nm, &r, err)
            : profile == BC_PROFILE_OPENVINO_SELECT ? p_select_openvino(s, p->axis, &nm, &r, err)
            : profile == BC_PROFILE_NGRAPH_SELECT   ? p_select_ngraph(s, p->axis, &nm, &r, err)
            : profile == BC_PROFILE_OPENVINO_BROADCAST
                ? p_broadcast_openvino(&s[0], &s[1], p->axis, &nm, &r, err)
                : p_pdpd_openvino(&s[0], 0, &s[1], 1, p->axis, profile, &nm, &r, err);
        break;
    default:
        k = (p->options & BC_OPT_AXES)
                ? p_explicit_axes(&s[0], &s[1], p->naxes, p->axes, &nm, &r, err)
            : (p->options & BC_OPT_AXES_UNKNOWN)
                ? p_explicit_unknown(&s[0], &s[1], p->naxes, profile, &nm, &r, err)
            : profile == BC_PROFILE_OPENVINO_EXPLICIT || profile == BC_PROFILE_NGRAPH_EXPLICIT
                ? p_explicit_axis_vector(&s[0], &s[1], p->naxes, p->axes,
                                         profile == BC_PROFILE_OPENVINO_EXPLICIT, &nm, &r, err)
                : p_explicit_mapping(&s[0], &s[1], p->naxes, p->axes, &nm, &r, err);
        break;
    }
    if (k == BC_OK)
        *out = r;
    return k;
}
