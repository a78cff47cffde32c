/*
 * Shrinking: greedy descent over a fixed list of simplifications, each of
 * which makes the case strictly simpler (fewer operands, axes or options,
 * smaller dims, a negative dim closer to -1), so it always ends.  After a
 * simplification that still fails, the list starts again from the top, so
 * the big steps (dropping whole operands and axes) come first.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void remove_dim(bc_shape *s, int k)
{
    memmove(&s->dims[k], &s->dims[k + 1], (size_t)(s->rank - k - 1) * sizeof s->dims[0]);
    s->rank--;
}

/* How many candidate values lower_dim has for one dim. */
#define LOWER_DIM_CANDIDATES 66

/* The candidate values a dim may be lowered to, simplest first: 0, 1, 2,
 * half, then d - 2^k for k from 61 down to 0.  The last ones bisect toward
 * a threshold: a case failing from some huge T on (an element count past
 * 2^63) reaches T in O(log^2 d) calls, where "one less" alone would take
 * d - T calls. */
static int lower_dim(int64_t d, int which, int64_t *out)
{
    if (d < 0) {
        static const int64_t from_negative[] = {0, 1, 2, -1};
        if (which >= 4 || (which == 3 && d == -1))
            return 0;
        *out = from_negative[which];
        return 1;
    }
    if (which >= LOWER_DIM_CANDIDATES)
        return 0;
    int64_t v;
    if (which < 3) {
        v = which;
    } else if (which == 3) {
        v = d / 2;
    } else {
        v = d - ((int64_t)1 << (LOWER_DIM_CANDIDATES - 1 - which));
        if (v == d / 2)
            return 0; /* already a candidate */
    }
    if (v >= d || v < 0 || (which >= 3 && v <= 2))
        return 0;
    *out = v;
    return 1;
}

int bc_shrink_candidate(const bc_vector *c, long idx, bc_vector *out)
{
    const int n = c->nshapes;
    const bc_rule rule = c->params.rule;
    /* 1. drop an operand (n-ary rules keep at least one) */
    if (idx < n) {
        if (!(rule == BC_RULE_NONE || rule == BC_RULE_NUMPY) || n <= 1)
            return 0;
        *out = *c;
        memmove(&out->shapes[idx], &out->shapes[idx + 1],
                (size_t)(n - idx - 1) * sizeof out->shapes[0]);
        out->nshapes--;
        if (out->value.operand > idx) /* sum-to-shape: still the same operand */
            out->value.operand--;
        return 1;
    }
    idx -= n;
    /* 2. simplify a value case: contiguous inputs, counting values, int32,
     * add, an earlier operand */
    if (idx < 5) {
        const bc_value_case *v = &c->value;
        if (!v->present)
            return 0;
        *out = *c;
        bc_value_case *w = &out->value;
        switch (idx) {
        case 0: w->layout = 0; return v->layout != 0;
        case 1: w->values = 0; return v->values != 0;
        case 2:
            w->dtype = BC_INT32;
            return v->dtype != BC_INT32 &&
                   (v->kind != BC_VALUE_ELEMENTWISE || bc_op_takes_dtype(v->op, BC_INT32));
        case 3:
            w->op = BC_OP_ADD;
            return v->kind == BC_VALUE_ELEMENTWISE && v->op != BC_OP_ADD &&
                   bc_op_takes_dtype(BC_OP_ADD, v->dtype);
        default:
            w->operand = v->operand - 1;
            return v->kind == BC_VALUE_SUM_TO_SHAPE && v->operand > 0;
        }
    }
    idx -= 5;
    /* 3. drop an option */
    static const unsigned droppable[] = {BC_OPT_PROFILE, BC_OPT_AXIS};
    if (idx < 2) {
        if (!(c->params.options & droppable[idx]))
            return 0;
        *out = *c;
        out->params.options &= ~droppable[idx];
        if (droppable[idx] == BC_OPT_AXIS)
            out->params.axis = BC_AXIS_DEFAULT;
        else
            out->params.profile = BC_PROFILE_DEFAULT;
        return 1;
    }
    idx -= 2;
    /* 4. drop an explicit axes entry */
    if (idx < BC_MAX_RANK) {
        if (idx >= c->params.naxes)
            return 0;
        *out = *c;
        memmove(&out->params.axes[idx], &out->params.axes[idx + 1],
                (size_t)(c->params.naxes - idx - 1) * sizeof out->params.axes[0]);
        out->params.naxes--;
        return 1;
    }
    idx -= BC_MAX_RANK;
    /* 5. drop the j-th axis from the right of every operand that has it */
    if (idx < BC_MAX_RANK) {
        int changed = 0;
        *out = *c;
        for (int i = 0; i < n; i++)
            if (out->shapes[i].rank > idx) {
                remove_dim(&out->shapes[i], out->shapes[i].rank - 1 - (int)idx);
                changed = 1;
            }
        return changed;
    }
    idx -= BC_MAX_RANK;
    /* 6. drop one axis of one operand */
    if (idx < (long)n * BC_MAX_RANK) {
        int i = (int)(idx / BC_MAX_RANK), k = (int)(idx % BC_MAX_RANK);
        if (k >= c->shapes[i].rank)
            return 0;
        *out = *c;
        remove_dim(&out->shapes[i], k);
        return 1;
    }
    idx -= (long)n * BC_MAX_RANK;
    /* 7. lower an axis-like option value toward 0 */
    if (idx < 2) {
        if (!(c->params.options & BC_OPT_AXIS) || c->params.axis <= 0)
            return 0;
        *out = *c;
        out->params.axis = idx == 0 ? 0 : c->params.axis - 1;
        return out->params.axis != c->params.axis;
    }
    idx -= 2;
    /* 8. lower an explicit axes entry toward 0 */
    if (idx < BC_MAX_RANK) {
        if (idx >= c->params.naxes || c->params.axes[idx] <= 0)
            return 0;
        *out = *c;
        out->params.axes[idx] = c->params.axes[idx] - 1;
        return 1;
    }
    idx -= BC_MAX_RANK;
    /* 9. lower the j-th dim from the right in every operand where it has
     * the first operand's value, when two or more do: equal shapes (rule
     * none, an elementwise pair) stay equal while they shrink */
    if (idx < (long)BC_MAX_RANK * LOWER_DIM_CANDIDATES) {
        int j = (int)(idx / LOWER_DIM_CANDIDATES), which = (int)(idx % LOWER_DIM_CANDIDATES);
        int64_t d = 0, value;
        int holders = 0; /* operands whose j-th dim from the right is d */
        for (int i = 0; i < n; i++) {
            if (c->shapes[i].rank <= j)
                continue;
            int64_t di = c->shapes[i].dims[c->shapes[i].rank - 1 - j];
            if (holders == 0)
                d = di;
            holders += di == d;
        }
        if (holders < 2 || !lower_dim(d, which, &value))
            return 0;
        *out = *c;
        for (int i = 0; i < n; i++) {
            bc_shape *s = &out->shapes[i];
            if (s->rank > j && s->dims[s->rank - 1 - j] == d)
                s->dims[s->rank - 1 - j] = value;
        }
        return 1;
    }
    idx -= (long)BC_MAX_RANK * LOWER_DIM_CANDIDATES;
    /* 10. lower one dim */
    if (idx < (long)n * BC_MAX_RANK * LOWER_DIM_CANDIDATES) {
        int which = (int)(idx % LOWER_DIM_CANDIDATES);
        long pos = idx / LOWER_DIM_CANDIDATES;
        int i = (int)(pos / BC_MAX_RANK), k = (int)(pos % BC_MAX_RANK);
        int64_t value;
        if (k >= c->shapes[i].rank || !lower_dim(c->shapes[i].dims[k], which, &value))
            return 0;
        *out = *c;
        out->shapes[i].dims[k] = value;
        return 1;
    }
    return -1;
}

int bc_shrink(int property, bc_check_ctx *ctx, bc_vector *c, int64_t max_calls, char *detail,
              size_t cap)
{
    ctx->stopped = BC_SHRINK_MINIMAL;
    bc_vector *cand = malloc(sizeof *cand);
    if (!cand)
        return 0;
    char cand_detail[1024];
    int steps = 0;
    int64_t start_calls = ctx->sut_calls;
    long idx = 0;
    for (;;) {
        if (ctx->sut_calls - start_calls >= max_calls) {
            ctx->stopped = BC_SHRINK_CALL_LIMIT;
            break;
        }
        int k = bc_shrink_candidate(c, idx, cand);
        if (k < 0)
            break; /* a full pass with no simplification that still fails */
        idx++;
        if (k == 0)
            continue;
        bc_check verdict = bc_property_check(property, ctx, cand, cand_detail, sizeof cand_detail);
        /* A check cut short (an interrupt, a SUT given up on) tells nothing. */
        if (ctx->stop && (ctx->stopped = ctx->stop(ctx->hook)) != BC_SHRINK_MINIMAL)
            break;
        if (verdict == BC_CHECK_FAIL) {
            memcpy(c, cand, sizeof *c);
            snprintf(detail, cap, "%s", cand_detail);
            steps++;
            idx = 0;
        }
    }
    free(cand);
    if (ctx->stopped != BC_SHRINK_MINIMAL && ctx->stopped != BC_SHRINK_CALL_LIMIT)
        return steps; /* no time or SUT left for a last check: the last detail seen */
    /* The detail of the case we ended with, checked again (unless the run
     * stops meanwhile: then the last detail seen stands). */
    char *seen = strdup(detail);
    bc_shrink_stop before = ctx->stopped;
    bc_check again = bc_property_check(property, ctx, c, detail, cap);
    if (ctx->stopped != before && seen)
        snprintf(detail, cap, "%s", seen);
    else if (again != BC_CHECK_FAIL)
        detail[0] = '\0'; /* a flaky SUT: the caller reports that */
    free(seen);
    return steps;
}
