/*
 * The naive evaluator: the oracle the fast engine is checked against.
 *
 * It visits the result one coordinate at a time, in row-major order, and
 * maps that coordinate to each input's coordinate straight from the rule's
 * definition in spec/RULES.md: which input axis lines up with which result
 * axis, and an input axis of size 1 is read at index 0.  Nothing is
 * dropped, merged, reordered or specialised; speed is no concern here.
 */
#include <string.h>

#include "engine.h"
#include "scalar.h"

/* ---- the rules, as coordinate maps ---------------------------------- */

/* rc is a coordinate of the result; ic gets the coordinate, in rule operand
 * `operand` (of shape job->shapes[operand]), of the element it reads. */
static void input_coord(const bc_job *job, int operand, const int64_t *rc, int64_t *ic)
{
    const bc_params *p = &job->params;
    const bc_shape *s = &job->shapes[operand];
    const int R = job->result.rank;
    int from = 0; /* result axis of the operand's axis 0, for the aligned rules */
    switch (p->rule) {
    case BC_RULE_NONE: /* §2: the shapes are equal */
        break;
    case BC_RULE_NUMPY: /* §3, §4, §6, §7: right alignment */
    case BC_RULE_ONNX_UNI:
    case BC_RULE_BROADCAST_TO:
    case BC_RULE_BIDIRECTIONAL:
        from = R - s->rank;
        break;
    case BC_RULE_PDPD: { /* §5: one operand placed at axis inside the other */
        int rank_a = job->shapes[0].rank, rank_b = job->shapes[1].rank;
        int placed = 1; /* openvino profiles: B is placed inside A */
        if (p->profile == BC_PROFILE_PADDLE)
            placed = rank_a > rank_b ? 1 : 0; /* the smaller rank; A when equal */
        if (operand == placed) {
            int64_t axis = p->axis;
            if (axis == BC_AXIS_DEFAULT)
                axis = job->shapes[1 - placed].rank - s->rank;
            from = (int)axis;
        }
        break;
    }
    case BC_RULE_EXPLICIT:
        if (p->options & BC_OPT_AXES) { /* input axes are the target's non-broadcast axes */
            for (int t = 0, i = 0; t < R; t++) {
                int broadcast = 0;
                for (int j = 0; j < p->naxes; j++)
                    broadcast |= p->axes[j] == t;
                if (!broadcast)
                    ic[i++] = rc[t];
            }
        } else { /* axes_mapping: input axis i is target axis mapping[i] */
            for (int i = 0; i < s->rank; i++)
                ic[i] = s->dims[i] == 1 ? 0 : rc[p->axes[i]];
        }
        return;
    default:
        return;
    }
    for (int i = 0; i < s->rank; i++)
        ic[i] = s->dims[i] == 1 ? 0 : rc[from + i];
}

static char *address(const bc_tensor *t, const int64_t *c)
{
    int64_t e = t->offset;
    for (int k = 0; k < t->rank; k++)
        e += c[k] * t->strides[k];
    return (char *)t->data + e * (int64_t)bc_dtype_size(t->dtype);
}

/* Next coordinate in row-major order; 0 after the last. */
static int next(int rank, const int64_t *dims, int64_t *c)
{
    for (int k = rank - 1; k >= 0; k--) {
        if (++c[k] < dims[k])
            return 1;
        c[k] = 0;
    }
    return 0;
}

/* ---- one element ----------------------------------------------------- */

/* *o = *a op *b for dtype t (o may be a or b). */
static void apply(bc_op op, bc_dtype t, void *o, const void *a, const void *b)
{
#define CASE_OP(OPE, N, T, NAME, OT)                                 \
    case OPE: {                                                      \
        OT r = N##_##NAME(*(const T *)a, *(const T *)b);             \
        memcpy(o, &r, sizeof r);                                     \
        return;                                                      \
    }
#define CASE_DTYPE(DT, N, T)                                         \
    case DT:                                                         \
        switch ((int)op) {                                              \
            BC_FOR_EACH_OP(CASE_OP, N, T)                            \
        default:                                                     \
            return;                                                  \
        }
    switch (t) {
        BC_FOR_EACH_DTYPE(CASE_DTYPE)
    default:
        return;
    }
#undef CASE_OP
#undef CASE_DTYPE
}

static void sum_init(bc_dtype t, void *o)
{
#define CASE_DTYPE(DT, N, T)                                         \
    case DT: {                                                       \
        T v = N##_sum_init();                                        \
        memcpy(o, &v, sizeof v);                                     \
        return;                                                      \
    }
    switch (t) {
        BC_FOR_EACH_DTYPE(CASE_DTYPE)
    default:
        return;
    }
#undef CASE_DTYPE
}

/* ---- the operations -------------------------------------------------- */

void bc_naive_run(const bc_job *job)
{
    const bc_tensor *out = job->out;
    const size_t size = bc_dtype_size(job->dtype);
    int64_t rc[BC_MAX_RANK] = {0}, ic[BC_MAX_RANK];

    if (job->kind == BC_JOB_SUM) {
        /* Every element of out starts as the empty sum ... */
        const bc_tensor *g = job->in[0];
        int64_t oc[BC_MAX_RANK] = {0}, onumel = 1;
        for (int k = 0; k < out->rank; k++)
            onumel *= out->dims[k];
        for (int64_t i = 0; i < onumel; i++, next(out->rank, out->dims, oc)) {
            if (job->numel == 0)
                memset(address(out, oc), 0, size); /* no terms: +0 */
            else
                sum_init(job->dtype, address(out, oc)); /* -0.0 */
        }
        /* ... then each gradient element, in row-major order, is added to the
         * element of the operand its forward value came from. */
        for (int64_t i = 0; i < job->numel; i++, next(job->result.rank, job->result.dims, rc)) {
            input_coord(job, job->operand[0], rc, ic);
            char *o = address(out, ic);
            apply(BC_OP_ADD, job->dtype, o, o, address(g, rc));
        }
        return;
    }

    /* A size-0 result reads nothing: the loop below runs zero times. */
    for (int64_t i = 0; i < job->numel; i++, next(job->result.rank, job->result.dims, rc)) {
        const char *src[BC_MAX_OPERANDS];
        for (int j = 0; j < job->nin; j++) {
            input_coord(job, job->operand[j], rc, ic);
            src[j] = address(job->in[j], ic);
        }
        char *o = address(out, rc);
        switch (job->kind) {
        case BC_JOB_ELEMENTWISE: {
            if (job->nin == 1) {
                memmove(o, src[0], size); /* o may be src[0]: in place */
                break;
            }
            /* A left fold, each step rounded to the dtype. */
            union { int64_t i; double d; char c[8]; } acc;
            apply(job->op, job->dtype, acc.c, src[0], src[1]);
            for (int j = 2; j < job->nin; j++)
                apply(job->op, job->dtype, acc.c, acc.c, src[j]);
            memcpy(o, acc.c, bc_dtype_size(out->dtype));
            break;
        }
        case BC_JOB_SELECT:
            memmove(o, *(const uint8_t *)src[0] ? src[1] : src[2], size);
            break;
        default: /* BC_JOB_BROADCAST */
            memmove(o, src[0], size);
            break;
        }
    }
}
