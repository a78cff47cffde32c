/*
 * Coverage classes of a case, judged by the reference: what a run actually
 * exercised, whatever the generators aimed at.
 */
#include "internal.h"

/* For operand i of an accepted case, the result axis of each of its axes
 * (-1 if the operand's axis has no place in the result frame). */
static void place(const bc_vector *c, const bc_shape *result, int i, int *axis_of)
{
    const bc_params *p = &c->params;
    const bc_shape *s = &c->shapes[i];
    for (int k = 0; k < s->rank; k++)
        axis_of[k] = result->rank - s->rank + k; /* right-aligned */
    if (p->rule == BC_RULE_PDPD && c->nshapes == 2) {
        const bc_shape *a = &c->shapes[0], *b = &c->shapes[1];
        int small = (p->options & BC_OPT_PROFILE) && p->profile == BC_PROFILE_PADDLE &&
                            a->rank <= b->rank ? 0 : 1;
        if (i == small) {
            int64_t axis = p->axis == -1 ? result->rank - s->rank : p->axis;
            for (int k = 0; k < s->rank; k++)
                axis_of[k] = axis + k < result->rank ? (int)axis + k : -1;
        }
    } else if (p->rule == BC_RULE_EXPLICIT && i == 0) {
        if (p->options & BC_OPT_AXES_MAPPING) {
            for (int k = 0; k < s->rank; k++)
                axis_of[k] = (int)p->axes[k];
        } else {
            int is_new[BC_MAX_RANK] = {0};
            for (int j = 0; j < p->naxes; j++)
                is_new[p->axes[j]] = 1;
            for (int t = 0, k = 0; t < result->rank; t++)
                if (!is_new[t])
                    axis_of[k++] = t;
        }
    }
}

void bc_classify(const bc_vector *c, int64_t coverage[BC_COV_COUNT],
                 int64_t rejects[BC_ERR_KIND_COUNT])
{
    int min_rank = BC_MAX_RANK, max_rank = 0, any_zero = 0, any_huge = 0, any_scalar = 0;
    for (int i = 0; i < c->nshapes; i++) {
        const bc_shape *s = &c->shapes[i];
        min_rank = s->rank < min_rank ? s->rank : min_rank;
        max_rank = s->rank > max_rank ? s->rank : max_rank;
        any_scalar |= s->rank == 0;
        for (int k = 0; k < s->rank; k++) {
            any_zero |= s->dims[k] == 0;
            any_huge |= s->dims[k] > ((int64_t)1 << 32);
        }
    }
    coverage[BC_COV_SIZE_0] += any_zero;
    coverage[BC_COV_RANK_0] += any_scalar;
    coverage[BC_COV_HUGE_DIM] += any_huge;
    coverage[BC_COV_RANK_GAP] += c->nshapes > 1 && min_rank != max_rank;
    coverage[BC_COV_MAX_RANK] += max_rank == BC_MAX_RANK;
    coverage[BC_COV_MANY_OPERANDS] += c->nshapes > 2;
    coverage[BC_COV_MAX_OPERANDS] += c->nshapes == BC_MAX_OPERANDS;
    if (c->value.present) {
        const bc_value_case *v = &c->value;
        coverage[BC_COV_VALUE]++;
        coverage[BC_COV_VALUE_SIZE_0] += any_zero;
        coverage[BC_COV_VALUE_STRIDED] += v->layout != 0;
        coverage[BC_COV_VALUE_NARY] += v->kind == BC_VALUE_ELEMENTWISE && c->nshapes > 2;
        coverage[BC_COV_VALUE_SELECT] += v->kind == BC_VALUE_SELECT;
        coverage[BC_COV_VALUE_BROADCAST] += v->kind == BC_VALUE_BROADCAST;
        coverage[BC_COV_VALUE_SUM_TO_SHAPE] += v->kind == BC_VALUE_SUM_TO_SHAPE;
    }

    bc_shape result;
    bc_error_kind kind = bc_infer(&c->params, c->nshapes, c->shapes, &result, NULL);
    if (kind != BC_OK) {
        coverage[BC_COV_REJECT]++;
        rejects[kind]++;
        return;
    }
    coverage[BC_COV_ACCEPT]++;
    /* A stretch: a result axis whose dim is not 1 where some operand has a
     * 1 or no axis at all. */
    int covered[BC_MAX_RANK];
    int stretched[BC_MAX_RANK] = {0}, to_zero = 0;
    for (int i = 0; i < c->nshapes; i++) {
        int axis_of[BC_MAX_RANK];
        place(c, &result, i, axis_of);
        for (int r = 0; r < result.rank; r++)
            covered[r] = 0;
        for (int k = 0; k < c->shapes[i].rank; k++) {
            int r = axis_of[k];
            if (r < 0)
                continue;
            covered[r] = 1;
            if (c->shapes[i].dims[k] == 1 && result.dims[r] != 1) {
                stretched[r] = 1;
                to_zero |= result.dims[r] == 0;
            }
        }
        for (int r = 0; r < result.rank; r++)
            if (!covered[r] && result.dims[r] != 1) {
                stretched[r] = 1;
                to_zero |= result.dims[r] == 0;
            }
    }
    int any = 0, first = 0, middle = 0, last = 0;
    for (int r = 0; r < result.rank; r++) {
        if (!stretched[r])
            continue;
        any = 1;
        first |= r == 0;
        last |= r == result.rank - 1;
        middle |= r > 0 && r < result.rank - 1;
    }
    coverage[BC_COV_STRETCH] += any;
    coverage[BC_COV_STRETCH_FIRST] += first;
    coverage[BC_COV_STRETCH_MIDDLE] += middle;
    coverage[BC_COV_STRETCH_LAST] += last;
    coverage[BC_COV_STRETCH_TO_0] += to_zero;
}
