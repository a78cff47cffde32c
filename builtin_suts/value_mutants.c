/*
 * Planted-bug SUTs for values.  Each one infers shapes like the reference
 * and computes values with the fast engine, except where its bug bites; the
 * bug is modelled on a real one, cited below and in `broadcheck list suts`.
 * The default run must kill every one of them (tests/test_runner.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"

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

static void out_of_memory(bc_sut_answer *a)
{
    a->status = BC_SUT_INTERNAL_ERROR;
    snprintf(a->message, sizeof a->message, "out of memory");
}

/* Answers req with its inputs (all of them, or only the first) replaced by
 * copies of the result's shape whose element j is the input's row-major
 * element (j mod its size): the input "broadcast" by tiling its buffer.
 * The other inputs keep their shapes and broadcast correctly. */
static void eval_tiled(const bc_eval_request *req, int only_first, bc_sut_answer *a)
{
    int elementwise = req->kind == BC_VALUE_ELEMENTWISE || req->kind == BC_VALUE_SELECT;
    bc_shape result;
    int64_t total = -1;
    if (elementwise &&
        bc_infer(req->params, req->n, req->shapes, &result, NULL) == BC_OK)
        total = numel_of(&result);
    if (total < 0 || total > ((int64_t)1 << 20)) {
        bc_reference_eval(BC_EVAL_FAST, req, a);
        return;
    }
    int n = req->ninputs, all = 1;
    size_t slot = (size_t)(total > 0 ? total : 1) * 8; /* bytes per tiled copy */
    bc_tensor *views = malloc((size_t)n * sizeof *views);
    bc_shape *shapes = malloc((size_t)n * sizeof *shapes);
    char *memory = malloc((size_t)n * slot);
    if (!views || !shapes || !memory) {
        free(views);
        free(shapes);
        free(memory);
        out_of_memory(a);
        return;
    }
    for (int i = 0; i < n; i++) {
        const bc_tensor *in = &req->inputs[i];
        views[i] = *in;
        shapes[i] = req->shapes[i];
        if (only_first && i > 0) {
            all = 0;
            continue;
        }
        size_t esize = bc_dtype_size(in->dtype);
        char *data = memory + (size_t)i * slot;
        bc_shape s = bc_tensor_shape(in);
        int64_t count = numel_of(&s);
        for (int64_t j = 0; j < total && count > 0; j++)
            memcpy(data + (size_t)j * esize,
                   (const char *)in->data + offset_of(in, j % count) * (int64_t)esize, esize);
        shapes[i] = result;
        views[i] = bc_tensor_contiguous(in->dtype, &result, data);
    }
    bc_params none = bc_params_for(BC_RULE_NONE);
    bc_eval_request q = *req;
    if (all)
        q.params = &none; /* everything has the result's shape now */
    q.shapes = shapes;
    q.inputs = views;
    bc_reference_eval(BC_EVAL_FAST, &q, a);
    free(views);
    free(shapes);
    free(memory);
}

/* Broadcasts an operand by reading its row-major element (j mod its size)
 * for output element j, as if the smaller buffer were tiled: right for
 * trailing broadcasts such as (3,4)+(4,), wrong for a stretched middle or
 * leading axis such as (3,1)+(3,4).  ROCm/aiter PR #288 (elementwise
 * broadcast of an (m,1,k) operand gave wrong values). */
static void flat_modulo(const bc_sut *sut, const bc_eval_request *req, bc_sut_answer *a)
{
    (void)sut;
    eval_tiled(req, 0, a);
}

/* where reading its condition at the output's flat index, as if the
 * condition had the output's shape (here wrapped around instead of read
 * out of bounds).  uxlfoundation/oneDNN PR #5531 (a select post-op with a
 * broadcast condition indexed it at the full dst shape). */
static void where_cond_full_shape(const bc_sut *sut, const bc_eval_request *req,
                                  bc_sut_answer *a)
{
    (void)sut;
    if (req->kind != BC_VALUE_SELECT) {
        bc_reference_eval(BC_EVAL_FAST, req, a);
        return;
    }
    eval_tiled(req, 1, a);
}

/* n-ary Sum/Max/Min (3 or more operands) that folds with a same-shape
 * kernel, so it refuses what two-operand broadcasting accepts.
 * ooples/AiDotNet.Tensors PR #193 (Min/Max translators "fold with
 * shape-matched engine ops only"). */
static void nary_no_broadcast(const bc_sut *sut, const bc_eval_request *req, bc_sut_answer *a)
{
    (void)sut;
    if (req->kind == BC_VALUE_ELEMENTWISE && req->n > 2)
        for (int i = 1; i < req->n; i++)
            if (!bc_shape_equal(&req->shapes[i], &req->shapes[0])) {
                a->status = BC_SUT_REJECTED;
                a->kind = BC_ERR_DIM_MISMATCH;
                snprintf(a->message, sizeof a->message, "n-ary inputs must have one shape");
                return;
            }
    bc_reference_eval(BC_EVAL_FAST, req, a);
}

/* Frees the copies a mutant made of its n inputs (any of them NULL). */
static void free_copies(char **buffers, int n, bc_tensor *views, bc_shape *shapes)
{
    for (int i = 0; buffers && i < n; i++)
        free(buffers[i]);
    free(buffers);
    free(views);
    free(shapes);
}

/* The row-major strides of shape s, in elements. */
static void contiguous_strides(const bc_shape *s, int64_t *strides)
{
    int64_t st = 1;
    for (int k = s->rank - 1; k >= 0; k--) {
        strides[k] = st;
        st *= s->dims[k] > 0 ? s->dims[k] : 1;
    }
}

/* Stretches a size-1 axis with the stride it has in a contiguous copy of
 * the operand instead of 0 (the leading, missing axes correctly get 0), so
 * it walks into the memory after the operand, here zero padding.
 * cupy/cupy#913 (a new size-1 axis keeps a nonzero stride, and a kernel
 * that skips broadcasting reads with it).  Right-aligned rules only. */
static void stretched_stride_kept(const bc_sut *sut, const bc_eval_request *req,
                                  bc_sut_answer *a)
{
    (void)sut;
    bc_rule rule = req->params->rule;
    int elementwise = req->kind == BC_VALUE_ELEMENTWISE || req->kind == BC_VALUE_SELECT;
    int aligned = (elementwise && rule != BC_RULE_PDPD) ||
                  (req->kind == BC_VALUE_BROADCAST &&
                   (rule == BC_RULE_BROADCAST_TO || rule == BC_RULE_BIDIRECTIONAL));
    bc_shape result;
    int64_t total = -1;
    if (aligned &&
        bc_infer(req->params, req->n, req->shapes, &result, NULL) == BC_OK)
        total = numel_of(&result);
    if (total <= 0 || total > ((int64_t)1 << 20)) {
        bc_reference_eval(BC_EVAL_FAST, req, a);
        return;
    }
    int n = req->ninputs, nshapes = req->n > n ? req->n : n; /* broadcast: input, target */
    bc_tensor *views = malloc((size_t)n * sizeof *views);
    bc_shape *shapes = malloc((size_t)nshapes * sizeof *shapes);
    char **buffers = calloc((size_t)n, sizeof *buffers);
    int ok = views && shapes && buffers;
    for (int i = 0; ok && i < nshapes; i++)
        shapes[i] = result; /* every view has the result's shape */
    for (int i = 0; i < n && ok; i++) {
        const bc_tensor *in = &req->inputs[i];
        bc_shape s = bc_tensor_shape(in);
        int64_t count = numel_of(&s), cs[BC_MAX_RANK], extent = 0;
        contiguous_strides(&s, cs);
        bc_tensor *v = &views[i];
        memset(v, 0, sizeof *v);
        v->dtype = in->dtype;
        v->rank = result.rank;
        int gap = result.rank - s.rank;
        for (int t = 0; t < result.rank; t++) {
            v->dims[t] = result.dims[t];
            v->strides[t] = t < gap ? 0 : cs[t - gap]; /* the bug: no 0 for a stretch */
            extent += (result.dims[t] - 1) * v->strides[t];
        }
        size_t esize = bc_dtype_size(in->dtype);
        int64_t room = (extent + 1 > count ? extent + 1 : count);
        buffers[i] = calloc((size_t)room, esize);
        ok = buffers[i] != NULL && count >= 0;
        for (int64_t j = 0; ok && j < count; j++)
            memcpy(buffers[i] + (size_t)j * esize,
                   (const char *)in->data + offset_of(in, j) * (int64_t)esize, esize);
        v->data = buffers[i];
    }
    if (ok) {
        bc_params none = bc_params_for(BC_RULE_NONE), to = bc_params_for(BC_RULE_BROADCAST_TO);
        bc_eval_request q = *req;
        q.inputs = views;
        q.shapes = shapes;
        q.params = req->kind == BC_VALUE_BROADCAST ? &to : &none;
        bc_reference_eval(BC_EVAL_FAST, &q, a); /* broadcast: a copy of the view */
        if (a->status == BC_SUT_OK)
            a->shape = result;
    } else {
        out_of_memory(a);
    }
    free_copies(buffers, n, views, shapes);
}

/* Explicit broadcast computed right-aligned (as broadcast_to) whenever the
 * input happens to broadcast that way, ignoring the axes it names.
 * Oneflow-Inc/oneflow#8659 (broadcast_like with broadcast_axes mixed up
 * the dims when the new axes were not the leading ones). */
static void explicit_as_right_aligned(const bc_sut *sut, const bc_eval_request *req,
                                      bc_sut_answer *a)
{
    (void)sut;
    bc_shape ignored;
    if (req->kind == BC_VALUE_BROADCAST && req->params->rule == BC_RULE_EXPLICIT &&
        req->n == 2 && bc_infer(req->params, 2, req->shapes, &ignored, NULL) == BC_OK &&
        bc_infer_broadcast_to(&req->shapes[0], &req->shapes[1], &ignored, NULL) == BC_OK) {
        bc_params to = bc_params_for(BC_RULE_BROADCAST_TO);
        bc_eval_request q = *req;
        q.params = &to;
        bc_reference_eval(BC_EVAL_FAST, &q, a);
        return;
    }
    bc_reference_eval(BC_EVAL_FAST, req, a);
}

/* sum-to-shape that sums the right axes but keeps the leading ones as 1s:
 * the gradient has the result's rank, not the operand's.
 * aesara-devs/aesara#1089 ("grad returned a term with 3 dimensions, but 2
 * are required"). */
static void sum_keeps_leading(const bc_sut *sut, const bc_eval_request *req, bc_sut_answer *a)
{
    (void)sut;
    bc_reference_eval(BC_EVAL_FAST, req, a);
    bc_shape result;
    if (req->kind != BC_VALUE_SUM_TO_SHAPE || a->status != BC_SUT_OK ||
        bc_infer(req->params, req->n, req->shapes, &result, NULL) != BC_OK)
        return;
    while (a->shape.rank < result.rank) { /* the same elements, more axes */
        memmove(&a->shape.dims[1], &a->shape.dims[0], (size_t)a->shape.rank * sizeof(int64_t));
        a->shape.dims[0] = 1;
        a->shape.rank++;
    }
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

/* Reads every one-element input at its data pointer: the offset of a
 * scalar-like view is dropped (the view's other strides do not matter for
 * one element).  huggingface/candle commit 6d1e79d ("Bugfix for to_scalar
 * (use the proper start offset)": it read data[0]) and PR #193 (the offset
 * of a broadcast operand dropped).  Out of process, protocol version 1 sent
 * every one-element view at offset 0, so this bug passed there. */
static void offset_ignored(const bc_sut *sut, const bc_eval_request *req, bc_sut_answer *a)
{
    (void)sut;
    bc_tensor *views = malloc((size_t)(req->ninputs > 0 ? req->ninputs : 1) * sizeof *views);
    if (!views) {
        out_of_memory(a);
        return;
    }
    for (int i = 0; i < req->ninputs; i++) {
        views[i] = req->inputs[i];
        bc_shape s = bc_tensor_shape(&req->inputs[i]);
        if (numel_of(&s) == 1)
            views[i].offset = 0;
    }
    bc_eval_request q = *req;
    q.inputs = views;
    bc_reference_eval(BC_EVAL_FAST, &q, a);
    free(views);
}

/* At rank 7 and more, collapses the result's axes from -6 outward into one
 * counter and reads each input's collapsed block at that counter, as if it
 * spanned them all: an input broadcast inside the collapsed axes (at -6,
 * say) is read at the wrong slice (here wrapped around instead of read past
 * its end).  Elementwise and where, right-aligned rules.
 * tenstorrent/tt-metal#55351 (binary_ng at rank >= 7, an operand broadcast
 * at dim -6: wrong values, reads past the operand's buffer; fix PR #55466). */
static void rank7_collapse(const bc_sut *sut, const bc_eval_request *req, bc_sut_answer *a)
{
    (void)sut;
    bc_rule rule = req->params->rule;
    int elementwise = req->kind == BC_VALUE_ELEMENTWISE || req->kind == BC_VALUE_SELECT;
    int aligned = rule == BC_RULE_NONE || rule == BC_RULE_NUMPY || rule == BC_RULE_ONNX_UNI;
    bc_shape result;
    int64_t total = -1;
    if (elementwise && aligned && bc_infer(req->params, req->n, req->shapes, &result, NULL) == BC_OK &&
        result.rank >= 7)
        total = numel_of(&result);
    if (total <= 0 || total > ((int64_t)1 << 20)) {
        bc_reference_eval(BC_EVAL_FAST, req, a);
        return;
    }
    const int collapsed = result.rank - 5; /* axes 0 .. rank-6 become one */
    int64_t outer = 1;
    for (int t = 0; t < collapsed; t++)
        outer *= result.dims[t];
    int n = req->ninputs;
    bc_tensor *views = calloc((size_t)n, sizeof *views);
    bc_shape *shapes = calloc((size_t)n, sizeof *shapes);
    char **buffers = calloc((size_t)n, sizeof *buffers);
    int ok = views && shapes && buffers;
    for (int i = 0; i < n && ok; i++) {
        const bc_tensor *in = &req->inputs[i];
        bc_shape s = bc_tensor_shape(in), padded;
        padded.rank = result.rank; /* right-aligned, missing axes 1 */
        for (int t = 0; t < result.rank; t++) {
            int k = t - (result.rank - s.rank);
            padded.dims[t] = k >= 0 ? s.dims[k] : 1;
        }
        int64_t block = 1, inner = 1;
        for (int t = 0; t < collapsed; t++)
            block *= padded.dims[t];
        for (int t = collapsed; t < result.rank; t++)
            inner *= padded.dims[t];
        /* the rank-6 view: the collapsed counter first, broadcast only if it is 1 */
        bc_shape six;
        six.rank = 6;
        six.dims[0] = block == 1 ? 1 : outer;
        for (int t = collapsed; t < result.rank; t++)
            six.dims[1 + t - collapsed] = padded.dims[t];
        size_t esize = bc_dtype_size(in->dtype);
        buffers[i] = malloc((size_t)(six.dims[0] * inner > 0 ? six.dims[0] * inner : 1) * esize);
        ok = buffers[i] != NULL;
        for (int64_t c = 0; ok && c < six.dims[0]; c++)
            for (int64_t j = 0; j < inner; j++) /* block c of the input, wrapped */
                memcpy(buffers[i] + (size_t)(c * inner + j) * esize,
                       (const char *)in->data +
                           offset_of(in, (block > 0 ? c % block : 0) * inner + j) *
                               (int64_t)esize,
                       esize);
        shapes[i] = six;
        views[i] = bc_tensor_contiguous(in->dtype, &six, buffers[i]);
    }
    if (ok) {
        bc_params numpy = bc_params_for(BC_RULE_NUMPY);
        bc_eval_request q = *req;
        q.params = &numpy;
        q.n = n;
        q.shapes = shapes;
        q.inputs = views;
        bc_reference_eval(BC_EVAL_FAST, &q, a);
        if (a->status == BC_SUT_OK)
            a->shape = result; /* the same elements in the same order */
    } else {
        out_of_memory(a);
    }
    free_copies(buffers, n, views, shapes);
}

/* A vectorised elementwise kernel, taken past 1,000 elements, whose loop
 * stops at the last full vector of 8: when the element count is not a
 * multiple of 8 the tail is never written (the output keeps whatever it
 * held).  Right on every small tensor, so only the medium value tier can
 * see it.  amd/IRON PR #198 (add.cc bounded its vector loop on size / 32:
 * "tail never written; consumer reads stale"). */
static void simd_tail(const bc_sut *sut, const bc_eval_request *req, bc_sut_answer *a)
{
    (void)sut;
    bc_shape result;
    int64_t numel = -1;
    if ((req->kind == BC_VALUE_ELEMENTWISE || req->kind == BC_VALUE_SELECT) &&
        bc_infer(req->params, req->n, req->shapes, &result, NULL) == BC_OK)
        numel = numel_of(&result);
    if (numel <= 1000 || numel % 8 == 0 || numel > req->out_capacity) {
        bc_reference_eval(BC_EVAL_FAST, req, a);
        return;
    }
    size_t esize = bc_dtype_size(req->out_dtype);
    void *full = malloc((size_t)numel * esize);
    if (!full) {
        out_of_memory(a);
        return;
    }
    bc_eval_request q = *req;
    q.out = full;
    bc_reference_eval(BC_EVAL_FAST, &q, a);
    if (a->status == BC_SUT_OK) /* the whole vectors only */
        memcpy(req->out, full, (size_t)(numel - numel % 8) * esize);
    free(full);
}

/* The matrix of batch index `flat` (row-major over x's own batch axes)
 * of matmul operand x: its last one or two axes. */
static bc_tensor batch_matrix(const bc_tensor *x, int64_t flat)
{
    const int mat = x->rank >= 2 ? 2 : 1, xb = x->rank - mat;
    bc_tensor m = *x;
    for (int t = xb - 1; t >= 0; t--) {
        m.offset += (flat % x->dims[t]) * x->strides[t];
        flat /= x->dims[t];
    }
    m.rank = mat;
    memmove(m.dims, &x->dims[xb], (size_t)mat * sizeof m.dims[0]);
    memmove(m.strides, &x->strides[xb], (size_t)mat * sizeof m.strides[0]);
    return m;
}

/* matmul that broadcasts the batch by reading each operand's batch matrix
 * (j mod its batch count) for the result's batch j: right when an operand
 * lacks leading batch axes, wrong for a stretched 1 with a larger axis
 * after it.  Modelled on huggingface/candle#3744 (fix PR #3960: a CPU
 * matmul with a stride-0 broadcast batch folded into one gemm, silently
 * wrong values). */
static void matmul_batch_modulo(const bc_sut *sut, const bc_eval_request *req, bc_sut_answer *a)
{
    (void)sut;
    bc_reference_eval(BC_EVAL_FAST, req, a);
    int64_t numel;
    if (req->kind != BC_VALUE_MATMUL || a->status != BC_SUT_OK ||
        bc_shape_numel(&a->shape, &numel) != BC_OK || numel == 0 || numel > req->out_capacity)
        return;
    const bc_tensor *x = &req->inputs[0], *y = &req->inputs[1];
    const int mat = (x->rank >= 2) + (y->rank >= 2), rb = a->shape.rank - mat;
    int64_t batches = 1, xn = 1, yn = 1;
    for (int t = 0; t < rb; t++)
        batches *= a->shape.dims[t];
    for (int t = 0; t < x->rank - (x->rank >= 2 ? 2 : 1); t++)
        xn *= x->dims[t];
    for (int t = 0; t < y->rank - (y->rank >= 2 ? 2 : 1); t++)
        yn *= y->dims[t];
    if (batches == 0 || xn == 0 || yn == 0)
        return;
    const int64_t per = numel / batches;
    bc_shape ms;
    ms.rank = mat;
    for (int t = 0; t < mat; t++)
        ms.dims[t] = a->shape.dims[rb + t];
    const size_t es = bc_dtype_size(req->out_dtype);
    for (int64_t j = 0; j < batches; j++) {
        bc_tensor mx = batch_matrix(x, j % xn), my = batch_matrix(y, j % yn);
        bc_tensor out = bc_tensor_contiguous(req->out_dtype, &ms, (char *)req->out + (size_t)(j * per) * es);
        bc_error err;
        if (bc_eval_matmul(BC_EVAL_NAIVE, req->params, &mx, &my, &out, &err) != BC_OK) {
            a->status = BC_SUT_INTERNAL_ERROR;
            snprintf(a->message, sizeof a->message, "%s", err.message);
            return;
        }
    }
}

#define VALUE_MUTANT(ident, fn, name, what, cite)                  \
    static const bc_sut_ops ident##_ops = {reference_infer, fn, NULL}; \
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
VALUE_MUTANT(bc_mutant_where_cond_full_shape, where_cond_full_shape,
             "mutant:where-cond-full-shape",
             "where reads its condition at the output's flat index, without broadcasting it",
             "uxlfoundation/oneDNN PR #5531");
VALUE_MUTANT(bc_mutant_nary_no_broadcast, nary_no_broadcast, "mutant:nary-no-broadcast",
             "n-ary elementwise (3+ operands) refuses to broadcast",
             "ooples/AiDotNet.Tensors PR #193");
VALUE_MUTANT(bc_mutant_stretched_stride_kept, stretched_stride_kept,
             "mutant:stretched-stride-kept",
             "a stretched size-1 axis keeps its contiguous stride instead of 0",
             "cupy/cupy#913");
VALUE_MUTANT(bc_mutant_explicit_as_right_aligned, explicit_as_right_aligned,
             "mutant:explicit-as-right-aligned",
             "explicit broadcast computed right-aligned when the shapes allow it",
             "Oneflow-Inc/oneflow#8659");
VALUE_MUTANT(bc_mutant_sum_keeps_leading, sum_keeps_leading, "mutant:sum-keeps-leading",
             "sum-to-shape keeps the summed leading axes as 1s", "aesara-devs/aesara#1089");
VALUE_MUTANT(bc_mutant_offset_ignored, offset_ignored, "mutant:offset-ignored",
             "reads a one-element input at its data pointer, ignoring its offset",
             "huggingface/candle commit 6d1e79d and PR #193");
VALUE_MUTANT(bc_mutant_rank7_collapse, rank7_collapse, "mutant:rank7-collapse",
             "at rank 7+, collapses axes -6 and outward into one counter that reads every "
             "input unbroadcast",
             "tenstorrent/tt-metal#55351 (fix PR #55466)");
VALUE_MUTANT(bc_mutant_simd_tail, simd_tail, "mutant:simd-tail",
             "past 1,000 elements, a vector loop of 8 leaves the last count mod 8 "
             "elements of an elementwise result unwritten",
             "amd/IRON PR #198");
VALUE_MUTANT(bc_mutant_matmul_batch_modulo, matmul_batch_modulo, "mutant:matmul-batch-modulo",
             "matmul reads each operand's batch matrix (j mod its batch count) for result batch "
             "j: wrong for a stretched 1 before a larger batch axis",
             "huggingface/candle#3744 (fix PR #3960)");
