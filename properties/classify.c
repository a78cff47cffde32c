/*
 * Coverage classes of a case, judged by the reference: what a run actually
 * exercised, whatever the generators aimed at.
 */
#include "internal.h"

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
    coverage[BC_COV_PAST_64_OPERANDS] += c->nshapes > 64;
    coverage[BC_COV_NO_OPERANDS] += c->nshapes == 0;
    if (c->value.present) {
        const bc_value_case *v = &c->value;
        coverage[BC_COV_VALUE]++;
        coverage[BC_COV_VALUE_SIZE_0] += any_zero;
        coverage[BC_COV_VALUE_STRIDED] += v->layout != 0;
        coverage[BC_COV_VALUE_NARY] += v->kind == BC_VALUE_ELEMENTWISE && c->nshapes > 2;
        coverage[BC_COV_VALUE_SELECT] += v->kind == BC_VALUE_SELECT;
        coverage[BC_COV_VALUE_BROADCAST] += v->kind == BC_VALUE_BROADCAST;
        coverage[BC_COV_VALUE_SUM_TO_SHAPE] += v->kind == BC_VALUE_SUM_TO_SHAPE;
        coverage[BC_COV_VALUE_HIGH_RANK] += max_rank >= 7;
        coverage[BC_COV_VALUE_MANY_OPERANDS] += v->kind == BC_VALUE_ELEMENTWISE && c->nshapes >= 5;
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
    /* matmul stretches only batch axes: its rows and columns are one
     * operand's each, not a stretch of the other (RULES.md §15) */
    int stretchable = result.rank;
    if (c->params.rule == BC_RULE_MATMUL)
        stretchable -= (c->shapes[0].rank >= 2) + (c->shapes[1].rank >= 2);
    for (int i = 0; i < c->nshapes; i++) {
        int axis_of[BC_MAX_RANK];
        bc_align(c, i, axis_of); /* the frame is the result */
        for (int r = 0; r < result.rank; r++)
            covered[r] = 0;
        for (int k = 0; k < c->shapes[i].rank; k++) {
            int r = axis_of[k];
            if (r < 0 || r >= result.rank) /* in no frame, or past the result's */
                continue;
            covered[r] = 1;
            if (r < stretchable && c->shapes[i].dims[k] == 1 && result.dims[r] != 1) {
                stretched[r] = 1;
                to_zero |= result.dims[r] == 0;
            }
        }
        for (int r = 0; r < stretchable; r++)
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
