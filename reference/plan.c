/*
 * The fast engine's plan: the index space the kernels walk, made as small
 * and as regular as the operands allow.
 *
 *  1. Every operand gets strides over the result's axes (bc_plan_frame):
 *     0 where it is broadcast.
 *  2. Axes of extent 1 are dropped: they move nothing.
 *  3. With reordering allowed (elementwise work, where the order of visits
 *     does not matter), axes the output walks backwards are flipped and the
 *     axes are sorted by the output's stride, largest outermost, so the
 *     output is written in memory order.
 *  4. Neighbouring axes r, r+1 merge when every operand's stride on r is
 *     its stride on r+1 times the extent of r+1: one longer axis.
 */
#include <string.h>

#include "engine.h"

void bc_plan_begin(bc_plan *pl, const bc_shape *result)
{
    pl->rank = result->rank;
    pl->nops = 0;
    memcpy(pl->dims, result->dims, sizeof pl->dims[0] * (size_t)result->rank);
}

void bc_plan_add(bc_plan *pl, const bc_tensor *view, const int64_t *frame)
{
    const int64_t size = (int64_t)bc_dtype_size(view->dtype);
    int j = pl->nops++;
    pl->base[j] = (char *)view->data + view->offset * size;
    for (int r = 0; r < pl->rank; r++)
        pl->strides[j][r] = frame[r] * size;
}

/* Result axis of each axis of rule operand `operand` (RULES.md). */
static void axis_map(const bc_params *p, const bc_shape *shapes, int operand, int R, int *map)
{
    const int rank = shapes[operand].rank;
    int first = R - rank; /* right alignment: numpy, onnx-uni, broadcast-to, bidirectional */
    if (p->rule == BC_RULE_NONE) {
        first = 0;
    } else if (p->rule == BC_RULE_PDPD) {
        int other = shapes[1 - operand].rank;
        int inside = p->profile == BC_PROFILE_PADDLE ? rank < other || (rank == other && operand == 0)
                                                     : operand == 1;
        first = 0;
        if (inside)
            first = p->axis == BC_AXIS_DEFAULT ? other - rank : (int)p->axis;
    } else if (p->rule == BC_RULE_EXPLICIT) {
        if (p->options & BC_OPT_AXES_MAPPING) {
            for (int i = 0; i < rank; i++)
                map[i] = (int)p->axes[i];
            return;
        }
        unsigned char named[BC_MAX_RANK] = {0};
        for (int j = 0; j < p->naxes; j++)
            named[p->axes[j]] = 1;
        for (int r = 0, i = 0; r < R; r++)
            if (!named[r])
                map[i++] = r;
        return;
    }
    for (int i = 0; i < rank; i++)
        map[i] = first + i;
}

void bc_plan_frame(const bc_params *p, const bc_shape *shapes, int operand, const bc_tensor *view,
                   int result_rank, int64_t *frame)
{
    int map[BC_MAX_RANK];
    axis_map(p, shapes, operand, result_rank, map);
    for (int r = 0; r < result_rank; r++)
        frame[r] = 0;
    for (int i = 0; i < view->rank; i++)
        if (view->dims[i] != 1) /* a size-1 axis stays at index 0 */
            frame[map[i]] = view->strides[i];
}

/* Moves axis `from` of every operand to position `to` (from > to). */
static void move_axis(bc_plan *pl, int from, int to)
{
    int64_t d = pl->dims[from];
    memmove(&pl->dims[to + 1], &pl->dims[to], sizeof d * (size_t)(from - to));
    pl->dims[to] = d;
    for (int j = 0; j < pl->nops; j++) {
        int64_t s = pl->strides[j][from];
        memmove(&pl->strides[j][to + 1], &pl->strides[j][to], sizeof s * (size_t)(from - to));
        pl->strides[j][to] = s;
    }
}

void bc_plan_finish(bc_plan *pl, int reorder)
{
    const int nops = pl->nops;
    /* 2. drop extent-1 axes */
    int n = 0;
    for (int r = 0; r < pl->rank; r++) {
        if (pl->dims[r] == 1)
            continue;
        pl->dims[n] = pl->dims[r];
        for (int j = 0; j < nops; j++)
            pl->strides[j][n] = pl->strides[j][r];
        n++;
    }
    pl->rank = n;
    if (reorder) {
        /* 3. flip backward output axes, then sort by |output stride| (stable) */
        for (int r = 0; r < n; r++) {
            if (pl->strides[0][r] >= 0)
                continue;
            for (int j = 0; j < nops; j++) {
                pl->base[j] += (pl->dims[r] - 1) * pl->strides[j][r];
                pl->strides[j][r] = -pl->strides[j][r];
            }
        }
        for (int r = 1; r < n; r++) {
            int to = r;
            while (to > 0 && pl->strides[0][to - 1] < pl->strides[0][r])
                to--;
            if (to != r)
                move_axis(pl, r, to);
        }
    }
    /* 4. merge: axis r folds into the kept axis before it when all agree */
    int m = 0;
    for (int r = 0; r < n; r++) {
        int merge = m > 0;
        for (int j = 0; j < nops && merge; j++)
            merge = pl->strides[j][m - 1] == pl->strides[j][r] * pl->dims[r];
        if (merge) {
            pl->dims[m - 1] *= pl->dims[r];
            for (int j = 0; j < nops; j++)
                pl->strides[j][m - 1] = pl->strides[j][r];
        } else {
            pl->dims[m] = pl->dims[r];
            for (int j = 0; j < nops; j++)
                pl->strides[j][m] = pl->strides[j][r];
            m++;
        }
    }
    pl->rank = m;
}
