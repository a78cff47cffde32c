/*
 * How the operands of a case line up (spec/RULES.md): the frame every
 * operand's axes are placed in, and which frame axis each axis lands on.
 * The frame is the axes of the result the rule gives when it accepts: the
 * largest rank for the right-aligned rules, A (or the larger operand, for
 * profile paddle) for pdpd, the target for explicit, the batch then A's rows
 * and B's columns for matmul (and one axis past them, its contracted dims').
 * Coverage reads it to find stretches, the shrinker to drop or lower one frame axis in every
 * operand at once; neither needs the case to be accepted.
 */
#include "internal.h"

/* The operand pdpd places from its axis, and where its axis 0 lands. */
static void pdpd_window(const bc_vector *c, int *small, int64_t *start)
{
    const bc_params *p = &c->params;
    const bc_shape *a = &c->shapes[0], *b = &c->shapes[1];
    int paddle = bc_params_profile(p) == BC_PROFILE_PADDLE;
    /* paddle places the operand of smaller rank in the other (the second on a tie) */
    *small = paddle && a->rank <= b->rank ? 0 : 1;
    const bc_shape *large = &c->shapes[1 - *small], *placed = &c->shapes[*small];
    *start = (p->options & BC_OPT_AXIS) && p->axis != BC_AXIS_DEFAULT
                 ? p->axis
                 : (int64_t)large->rank - placed->rank;
}

/* matmul (RULES.md §15): the batch parts right-aligned in the batch frame,
 * then A's rows and B's columns; the two contracted axes share one more
 * axis past the result's, so that the shrinker lowers or drops them
 * together (one alone only turns a case into a contraction mismatch). */
static int matmul_align(const bc_vector *c, int i, int axis_of[BC_MAX_RANK])
{
    const bc_shape *a = &c->shapes[0], *b = &c->shapes[1], *s = &c->shapes[i];
    const int batch_a = a->rank >= 2 ? a->rank - 2 : 0, batch_b = b->rank >= 2 ? b->rank - 2 : 0;
    const int batch = batch_a > batch_b ? batch_a : batch_b;
    const int result = batch + (a->rank >= 2) + (b->rank >= 2);
    const int own = i == 0 ? batch_a : batch_b;
    for (int k = 0; k < own; k++)
        axis_of[k] = batch - own + k;
    if (s->rank == 0)
        return result + 1;
    if (i == 0) {
        if (s->rank >= 2)
            axis_of[s->rank - 2] = batch; /* A's rows */
        axis_of[s->rank - 1] = result;    /* contracted */
    } else {
        if (s->rank >= 2)
            axis_of[s->rank - 1] = result - 1; /* B's columns */
        axis_of[s->rank >= 2 ? s->rank - 2 : 0] = result; /* contracted */
    }
    return result + 1;
}

int bc_align(const bc_vector *c, int i, int axis_of[BC_MAX_RANK])
{
    const bc_params *p = &c->params;
    const bc_shape *s = &c->shapes[i];
    const bc_profile prof = bc_params_profile(p);
    if (p->rule == BC_RULE_PDPD && c->nshapes == 3 &&
        (prof == BC_PROFILE_OPENVINO_SELECT || prof == BC_PROFILE_NGRAPH_SELECT)) {
        /* Select (RULES.md §5.4, §5.5): then (OpenVINO) or else (nGraph) is
         * the frame; the two others are placed from the axis */
        int f = prof == BC_PROFILE_OPENVINO_SELECT ? 1 : 2;
        int frame = c->shapes[f].rank;
        int64_t start = p->axis != BC_AXIS_DEFAULT ? p->axis : (int64_t)frame - s->rank;
        for (int k = 0; k < s->rank; k++) {
            int64_t t = i == f ? k : start + k;
            axis_of[k] = t >= 0 && t < frame ? (int)t : -1;
        }
        return frame;
    }
    if (p->rule == BC_RULE_MATMUL && c->nshapes == 2)
        return matmul_align(c, i, axis_of);
    if (p->rule == BC_RULE_PDPD && c->nshapes == 2) {
        int small;
        int64_t start;
        pdpd_window(c, &small, &start);
        int frame = c->shapes[1 - small].rank;
        for (int k = 0; k < s->rank; k++) {
            int64_t t = i == small ? start + k : k;
            axis_of[k] = t >= 0 && t < frame ? (int)t : -1;
        }
        return frame;
    }
    if (p->rule == BC_RULE_EXPLICIT && c->nshapes == 2) {
        int frame = c->shapes[1].rank;
        for (int k = 0; k < s->rank; k++)
            axis_of[k] = i == 1 ? k : -1;
        if (i == 1 || (p->options & BC_OPT_AXES_UNKNOWN))
            return frame; /* an unknown mapping (partial cases) lines the input up nowhere */
        if (p->options & BC_OPT_AXES_MAPPING) {
            for (int k = 0; k < s->rank && k < p->naxes; k++)
                axis_of[k] = p->axes[k] >= 0 && p->axes[k] < frame ? (int)p->axes[k] : -1;
        } else {
            /* broadcast_axes: the input's axes are the target's other axes, in order */
            int is_new[BC_MAX_RANK] = {0};
            for (int j = 0; j < p->naxes; j++)
                if (p->axes[j] >= 0 && p->axes[j] < frame)
                    is_new[p->axes[j]] = 1;
            for (int t = 0, k = 0; t < frame && k < s->rank; t++)
                if (!is_new[t])
                    axis_of[k++] = t;
        }
        return frame;
    }
    int frame = 0; /* right-aligned: the largest rank */
    for (int j = 0; j < c->nshapes; j++)
        frame = c->shapes[j].rank > frame ? c->shapes[j].rank : frame;
    for (int k = 0; k < s->rank; k++)
        axis_of[k] = frame - s->rank + k;
    return frame;
}
