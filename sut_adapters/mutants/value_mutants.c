/*
 * Planted-bug SUTs for values.  Each one infers shapes like the reference
 * and computes values with the fast engine, except where its bug bites; the
 * bug is modelled on a real one, cited below and in `broadcheck list suts`.
 * The default run must kill every one of them (tests/test_runner.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../builtin.h"

static void reference_infer(const bc_sut *sut, const bc_params *p, int n, const bc_shape *s,
                            bc_sut_answer *a)
{
    (void)sut;
    bc_answer_from_reference(p, n, s, a);
}

static int64_t numel_of(const bc_shape *s)
{
    int64_t n;
    return bc_shape_numel(s, &n) == BC_OK ? n : -1;
}

/* The element offset of row-major element `flat` of a view. */
static int64_t offset_of(const bc_tensor *t, int64_t flat)
{
    int64_t off = t->offset;
    for (int k = t->rank - 1; k >= 0; k--) {
        off += (flat % t->dims[k]) * t->strides[k];
        flat /= t->dims[k];
    }
    return off;
}

/* Reads every input as if it were C-contiguous from its data pointer: the
 * strides and the offset of a view are ignored.  csarofeen/pytorch#1741
 * (non-contiguous inputs with broadcast give wrong values),
 * InfiniTensor/InfiniCore#450 (the same for strided elementwise). */
static void contiguous_assumed(const bc_sut *sut, const bc_eval_request *req, bc_sut_answer *a)
{
    (void)sut;
    bc_eval_request q = *req;
    bc_tensor *views = malloc((size_t)(req->ninputs > 0 ? req->ninputs : 1) * sizeof *views);
    if (!views) {
        a->status = BC_SUT_INTERNAL_ERROR;
        snprintf(a->message, sizeof a->message, "out of memory");
        return;
    }
    for (int i = 0; i < req->ninputs; i++) {
        bc_shape s = bc_tensor_shape(&req->inputs[i]);
        views[i] = bc_tensor_contiguous(req->inputs[i].dtype, &s, req->inputs[i].data);
    }
    q.inputs = views;
    bc_reference_eval(BC_EVAL_FAST, &q, a);
    free(views);
}

/* Broadcasts an operand by reading its row-major element (j mod its size)
 * for output element j, as if the smaller buffer were tiled: right for
 * trailing broadcasts such as (3,4)+(4,), wrong for a stretched middle or
 * leading axis such as (3,1)+(3,4).  ROCm/aiter PR #288 (elementwise
 * broadcast of an (m,1,k) operand gave wrong values). */
static void flat_modulo(const bc_sut *sut, const bc_eval_request *req, bc_sut_answer *a)
{
    (void)sut;
    int tiled_kinds = req->kind == BC_VALUE_ELEMENTWISE || req->kind == BC_VALUE_SELECT;
    bc_shape result;
    int64_t total = -1;
    if (tiled_kinds && bc_infer(req->params, req->n, req->shapes, &result, NULL) == BC_OK)
        total = numel_of(&result);
    if (total < 0 || total > ((int64_t)1 << 20)) {
        bc_reference_eval(BC_EVAL_FAST, req, a);
        return;
    }
    int n = req->ninputs;
    bc_tensor *tiles = malloc((size_t)n * sizeof *tiles);
    bc_shape *shapes = malloc((size_t)n * sizeof *shapes);
    char *memory = malloc((size_t)n * (size_t)(total > 0 ? total : 1) * 8);
    if (!tiles || !shapes || !memory) {
        free(tiles);
        free(shapes);
        free(memory);
        a->status = BC_SUT_INTERNAL_ERROR;
        snprintf(a->message, sizeof a->message, "out of memory");
        return;
    }
    for (int i = 0; i < n; i++) {
        const bc_tensor *in = &req->inputs[i];
        size_t esize = bc_dtype_size(in->dtype);
        char *data = memory + (size_t)i * (size_t)(total > 0 ? total : 1) * 8;
        bc_shape s = bc_tensor_shape(in);
        int64_t count = numel_of(&s);
        for (int64_t j = 0; j < total && count > 0; j++)
            memcpy(data + (size_t)j * esize,
                   (const char *)in->data + offset_of(in, j % count) * (int64_t)esize, esize);
        shapes[i] = result;
        tiles[i] = bc_tensor_contiguous(in->dtype, &result, data);
    }
    bc_params none = bc_params_for(BC_RULE_NONE);
    bc_eval_request q = *req;
    q.params = &none;
    q.shapes = shapes;
    q.inputs = tiles;
    bc_reference_eval(BC_EVAL_FAST, &q, a);
    free(tiles);
    free(shapes);
    free(memory);
}

/* sum-to-shape that sums over the axes the operand lacks but not over its
 * stretched size-1 axes, where it keeps the first slice of the gradient.
 * deeplearning4j/nd4j#2424 (the gradient of a broadcast add not summed over
 * the broadcast axis).  Right-aligned rules only (numpy, onnx-uni,
 * broadcast-to, bidirectional). */
static void sum_skips_stretched(const bc_sut *sut, const bc_eval_request *req, bc_sut_answer *a)
{
    (void)sut;
    bc_rule rule = req->params->rule;
    int aligned = rule == BC_RULE_NUMPY || rule == BC_RULE_ONNX_UNI ||
                  rule == BC_RULE_BROADCAST_TO || rule == BC_RULE_BIDIRECTIONAL;
    bc_shape result;
    if (req->kind != BC_VALUE_SUM_TO_SHAPE || !aligned || req->operand >= req->n ||
        bc_infer(req->params, req->n, req->shapes, &result, NULL) != BC_OK) {
        bc_reference_eval(BC_EVAL_FAST, req, a);
        return;
    }
    const bc_shape *target = &req->shapes[req->operand];
    bc_tensor grad = req->inputs[0];
    int gap = result.rank - target->rank;
    for (int t = gap; t < result.rank; t++)
        if (target->dims[t - gap] == 1 && result.dims[t] > 1)
            grad.dims[t] = 1; /* the first slice only: no sum over this axis */
    bc_shape pair[2] = {*target, bc_tensor_shape(&grad)};
    bc_params to = bc_params_for(BC_RULE_BROADCAST_TO);
    bc_eval_request q = *req;
    q.params = &to;
    q.n = 2;
    q.shapes = pair;
    q.operand = 0;
    q.inputs = &grad;
    bc_reference_eval(BC_EVAL_FAST, &q, a);
}

#define VALUE_MUTANT(ident, fn, name, what, cite)                  \
    static const bc_sut_ops ident##_ops = {reference_infer, fn}; \
    const bc_sut ident = {name, "mutant", what, cite, &ident##_ops}

VALUE_MUTANT(bc_mutant_contiguous_assumed, contiguous_assumed, "mutant:contiguous-assumed",
             "reads every input as C-contiguous, ignoring strides and offset",
             "csarofeen/pytorch#1741; InfiniTensor/InfiniCore#450");
VALUE_MUTANT(bc_mutant_flat_modulo, flat_modulo, "mutant:flat-modulo",
             "broadcasts by reading element (j mod size): wrong for a stretched middle axis",
             "ROCm/aiter PR #288");
VALUE_MUTANT(bc_mutant_sum_skips_stretched, sum_skips_stretched, "mutant:sum-skips-stretched",
             "sum-to-shape does not sum over stretched size-1 axes",
             "deeplearning4j/nd4j#2424");
