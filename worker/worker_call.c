/*
 * One question to the adapter: the decoded frame becomes the ABI's views in
 * guarded memory (guard/guard.h), the call is watched for faults there, and
 * the answer is checked before it is encoded.  The ABI's enums have the values of broadcheck's own
 * (checked below), so they pass through unconverted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker.h"

#define SAME(a, b) _Static_assert((int)(a) == (int)(b), #a " == " #b)
SAME(BC_ADAPTER_RULE_NONE, BC_RULE_NONE);
SAME(BC_ADAPTER_RULE_NUMPY, BC_RULE_NUMPY);
SAME(BC_ADAPTER_RULE_ONNX_UNI, BC_RULE_ONNX_UNI);
SAME(BC_ADAPTER_RULE_PDPD, BC_RULE_PDPD);
SAME(BC_ADAPTER_RULE_BROADCAST_TO, BC_RULE_BROADCAST_TO);
SAME(BC_ADAPTER_RULE_BIDIRECTIONAL, BC_RULE_BIDIRECTIONAL);
SAME(BC_ADAPTER_RULE_EXPLICIT, BC_RULE_EXPLICIT);
SAME(BC_ADAPTER_RULE_MATMUL, BC_RULE_MATMUL);
SAME(BC_ADAPTER_PROFILE_OPENVINO_DOC, BC_PROFILE_OPENVINO_DOC);
SAME(BC_ADAPTER_PROFILE_OPENVINO_SHAPE_INFERENCE, BC_PROFILE_OPENVINO_SHAPE_INFERENCE);
SAME(BC_ADAPTER_PROFILE_PADDLE, BC_PROFILE_PADDLE);
SAME(BC_ADAPTER_PROFILE_PYTORCH_EXPAND, BC_PROFILE_PYTORCH_EXPAND);
SAME(BC_ADAPTER_PROFILE_OPENVINO_EXPLICIT, BC_PROFILE_OPENVINO_EXPLICIT);
SAME(BC_ADAPTER_PROFILE_OPENVINO_SELECT, BC_PROFILE_OPENVINO_SELECT);
SAME(BC_ADAPTER_PROFILE_NGRAPH_SELECT, BC_PROFILE_NGRAPH_SELECT);
SAME(BC_ADAPTER_PROFILE_OPENVINO_BROADCAST, BC_PROFILE_OPENVINO_BROADCAST);
SAME(BC_ADAPTER_PROFILE_NGRAPH_EXPLICIT, BC_PROFILE_NGRAPH_EXPLICIT);
SAME(BC_ADAPTER_PROFILE_NUMPY_EMPTY_FOLD, BC_PROFILE_NUMPY_EMPTY_FOLD);
SAME(BC_ADAPTER_OPT_AXIS, BC_OPT_AXIS);
SAME(BC_ADAPTER_OPT_PROFILE, BC_OPT_PROFILE);
SAME(BC_ADAPTER_OPT_AXES, BC_OPT_AXES);
SAME(BC_ADAPTER_OPT_AXES_MAPPING, BC_OPT_AXES_MAPPING);
SAME(BC_ADAPTER_DTYPE_BOOL, BC_BOOL);
SAME(BC_ADAPTER_DTYPE_UINT8, BC_UINT8);
SAME(BC_ADAPTER_DTYPE_INT32, BC_INT32);
SAME(BC_ADAPTER_DTYPE_FLOAT32, BC_FLOAT32);
SAME(BC_ADAPTER_DTYPE_FLOAT16, BC_FLOAT16);
SAME(BC_ADAPTER_OP_ADD, BC_OP_ADD);
SAME(BC_ADAPTER_OP_DIV, BC_OP_DIV);
SAME(BC_ADAPTER_OP_EQUAL, BC_OP_EQUAL);
SAME(BC_ADAPTER_OP_OR, BC_OP_OR);
SAME(BC_ADAPTER_VALUE_ELEMENTWISE, BC_VALUE_ELEMENTWISE);
SAME(BC_ADAPTER_VALUE_SELECT, BC_VALUE_SELECT);
SAME(BC_ADAPTER_VALUE_BROADCAST, BC_VALUE_BROADCAST);
SAME(BC_ADAPTER_VALUE_SUM_TO_SHAPE, BC_VALUE_SUM_TO_SHAPE);
SAME(BC_ADAPTER_VALUE_MATMUL, BC_VALUE_MATMUL);
SAME(BC_ADAPTER_ERR_RANK_MISMATCH, BC_ERR_RANK_MISMATCH);
SAME(BC_ADAPTER_ERR_AXES_COUNT, BC_ERR_AXES_COUNT);
SAME(BC_ADAPTER_ERR_NEGATIVE_DIM, BC_ERR_NEGATIVE_DIM);
SAME(BC_ADAPTER_ERR_OVERFLOW, BC_ERR_OVERFLOW);
SAME(BC_ADAPTER_ERR_OVERFLOW + 1, BC_ERR_KIND_COUNT);
SAME(BC_ADAPTER_OK, BC_SUT_OK);
SAME(BC_ADAPTER_REJECTED, BC_SUT_REJECTED);
SAME(BC_ADAPTER_UNSUPPORTED, BC_SUT_UNSUPPORTED);
SAME(BC_ADAPTER_INTERNAL_ERROR, BC_SUT_INTERNAL_ERROR);
SAME(BC_ADAPTER_MAX_RANK, BC_MAX_RANK);

static void fault(bc_wire_answer *a, const char *message)
{
    a->status = BC_SUT_INTERNAL_ERROR;
    a->kind = BC_OK;
    a->shape.rank = 0;
    a->nbytes = 0;
    a->out = NULL;
    snprintf(a->message, sizeof a->message, "%s", message);
}

/* The adapter's answer, checked, into a. */
static void take_answer(const bc_adapter_answer *r, bc_wire_answer *a)
{
    char text[400];
    if (r->status > BC_ADAPTER_INTERNAL_ERROR) {
        snprintf(text, sizeof text, "the adapter answered status %u (valid: 0 to 3)", r->status);
        fault(a, text);
        return;
    }
    if (r->error_kind > BC_ADAPTER_ERR_OVERFLOW) {
        snprintf(text, sizeof text, "the adapter answered error kind %u (valid: 0 to %d)",
                 r->error_kind, BC_ADAPTER_ERR_OVERFLOW);
        fault(a, text);
        return;
    }
    if (r->status == BC_ADAPTER_OK && (r->rank < 0 || r->rank > BC_ADAPTER_MAX_RANK)) {
        snprintf(text, sizeof text, "the adapter answered a shape of rank %d (valid: 0 to %d)",
                 r->rank, BC_ADAPTER_MAX_RANK);
        fault(a, text);
        return;
    }
    a->status = (bc_sut_status)r->status;
    a->kind = r->status == BC_ADAPTER_REJECTED ? (bc_error_kind)r->error_kind : BC_OK;
    a->shape.rank = r->status == BC_ADAPTER_OK ? r->rank : 0;
    memcpy(a->shape.dims, r->dims, sizeof(int64_t) * (size_t)a->shape.rank);
    /* The message need not be terminated: read at most its size. */
    size_t n = strnlen(r->message, sizeof r->message);
    memcpy(a->message, r->message, n);
    a->message[n] = '\0';
}

static void to_params(const bc_params *p, bc_adapter_params *out)
{
    out->rule = (uint32_t)p->rule;
    out->options = p->options;
    out->profile = (uint32_t)p->profile;
    out->naxes = p->naxes;
    out->axis = p->axis;
    out->axes = p->axes;
}

static void to_shapes(const bc_wire_question *q, bc_adapter_shape *out)
{
    for (int i = 0; i < q->n; i++) {
        out[i].rank = q->shapes[i].rank;
        out[i].dims = q->shapes[i].dims;
    }
}

/* The inputs, copied out of the frame into guarded memory, each flush
 * against its gap (the frame brought each one's margin of poison), and the
 * output, poisoned (guard.h): the same memory as in the harness's own
 * process, so an adapter reads and leaves the same bytes in both. */
static int prepare_eval(bc_guard_pool *pool, const bc_wire_question *q, bc_adapter_tensor *in,
                        unsigned char **out, size_t *out_bytes)
{
    size_t osize = bc_dtype_size(q->out_dtype);
    if ((uint64_t)q->out_capacity > (SIZE_MAX / 2) / osize)
        return -1;
    *out_bytes = (size_t)q->out_capacity * osize;
    if (q->shm) {
        /* in the shared file, where the harness put them (worker_shm.c): a
         * huge question is not copied; its margins and guard are poison */
        for (int i = 0; i < q->ninputs; i++) {
            const bc_wire_tensor *t = &q->inputs[i];
            in[i] = (bc_adapter_tensor){(uint32_t)t->dtype, t->rank, t->dims, t->strides,
                                        (void *)t->bytes, t->offset};
        }
        *out = q->shm_map + q->shm_out_offset;
        return 0;
    }
    for (int i = 0; i < q->ninputs; i++) {
        const bc_wire_tensor *t = &q->inputs[i];
        size_t bytes = (size_t)t->nelem * bc_dtype_size(t->dtype);
        unsigned char *at = bc_guard_alloc(pool, bytes, 0, i);
        if (!at)
            return -1;
        memcpy(at, t->bytes, bytes);
        in[i] = (bc_adapter_tensor){(uint32_t)t->dtype, t->rank, t->dims, t->strides, at, t->offset};
    }
    *out = bc_guard_alloc(pool, *out_bytes, BC_GUARD_OUTPUT_MARGIN, -1);
    return *out ? 0 : -1;
}

typedef struct eval_call {
    const bc_adapter *desc;
    const bc_adapter_eval_request *req;
    bc_adapter_answer *r;
} eval_call;

static void call_eval(void *arg)
{
    eval_call *c = arg;
    c->desc->eval(c->desc->context, c->req, c->r);
}

/* What the fault's buffer is, for its description. */
static void buffer_words(const bc_wire_question *q, int label, char *buf, size_t cap)
{
    if (label < 0) {
        snprintf(buf, cap, "%lld %s elements", (long long)q->out_capacity,
                 bc_dtype_name(q->out_dtype));
        return;
    }
    const bc_wire_tensor *t = &q->inputs[label];
    snprintf(buf, cap, "%s, %lld elements from its data pointer to its last one and %d bytes "
             "of poison after", bc_dtype_name(t->dtype),
             (long long)(t->nelem - (int64_t)(BC_GUARD_MARGIN / bc_dtype_size(t->dtype))),
             BC_GUARD_MARGIN);
}

/* 1, text saying what, if the adapter changed an input's guarded copy:
 * its elements or the poison between them and after (the frame's own
 * bytes are what the copy was made from), or the poison before it.  The
 * harness keeps its own copy, so such a write changes no answer and was
 * seen by nobody; an EVAL_SHM question's inputs the harness checks itself
 * (isolation/shm.c). */
static int wrote_input(bc_guard_pool *pool, const bc_wire_question *q, const bc_adapter_tensor *in,
                       char *text, size_t cap)
{
    for (int i = 0; i < q->ninputs; i++) {
        const bc_wire_tensor *t = &q->inputs[i];
        /* the frame brings each input's margin of poison after its
         * elements (this worker's protocol, wire/PROTOCOL.md) */
        const size_t size = bc_dtype_size(t->dtype), bytes = (size_t)t->nelem * size,
                     poison_at = bytes > BC_GUARD_MARGIN ? bytes - BC_GUARD_MARGIN : 0;
        const unsigned char *copy = in[i].data, *sent = t->bytes;
        if (memcmp(copy, sent, bytes) != 0) {
            size_t k = 0;
            while (copy[k] == sent[k])
                k++;
            if (k < poison_at)
                snprintf(text, cap, "the adapter wrote into input %d (%s): byte %zu of its "
                         "buffer changed (element %zu from its data pointer, or the poison "
                         "between its elements)", i, bc_dtype_name(t->dtype), k, k / size);
            else
                snprintf(text, cap, "the adapter wrote past the end of input %d (%s), at byte "
                         "%zu after its last element", i, bc_dtype_name(t->dtype),
                         k - poison_at + 1);
            return 1;
        }
        if (bc_guard_check(pool, in[i].data) != BC_GUARD_INTACT) {
            snprintf(text, cap, "the adapter wrote before the start of input %d (%s)", i,
                     bc_dtype_name(t->dtype));
            return 1;
        }
    }
    return 0;
}

static void eval(const bc_worker_adapter *ad, bc_guard_pool *pool, const bc_wire_question *q,
                 const bc_adapter_params *p, const bc_adapter_shape *shapes, bc_adapter_answer *r,
                 bc_wire_answer *a)
{
    bc_adapter_tensor in[BC_WIRE_MAX_SHAPES];
    unsigned char *out;
    size_t out_bytes;
    if (prepare_eval(pool, q, in, &out, &out_bytes) != 0) {
        fault(a, "the worker cannot allocate the question's buffers");
        return;
    }
    bc_adapter_eval_request req = {
        sizeof req, (uint32_t)q->kind, (uint32_t)q->op, q->operand, p, q->n, shapes,
        q->ninputs, in, (uint32_t)q->out_dtype, out, q->out_capacity,
    };
    eval_call call = {ad->desc, &req, r};
    bc_worker_fault f;
    char text[400], words[160];
    if (bc_worker_guarded_call(pool, call_eval, &call, &f)) {
        buffer_words(q, f.label, words, sizeof words);
        bc_worker_fault_describe(&f, words, text, sizeof text);
        fault(a, text);
        a->flags = BC_WIRE_RETIRE; /* it stopped mid-call: its state is suspect */
        return;
    }
    /* a write into the poison around the output, short of the gaps */
    const int guard = q->shm ? (bc_worker_shm_guard_intact(q) ? BC_GUARD_INTACT
                                                              : BC_GUARD_WROTE_AFTER)
                             : bc_guard_check(pool, out);
    if (guard != BC_GUARD_INTACT || (!q->shm && wrote_input(pool, q, in, text, sizeof text))) {
        if (guard != BC_GUARD_INTACT)
            snprintf(text, sizeof text, "the adapter wrote %s its output buffer (%lld %s "
                     "elements)", guard == BC_GUARD_WROTE_AFTER ? "past the end of"
                                                                : "before the start of",
                     (long long)q->out_capacity, bc_dtype_name(q->out_dtype));
        fault(a, text);
        a->flags = BC_WIRE_RETIRE; /* its heap may be damaged beyond the poison */
        return;
    }
    take_answer(r, a);
    /* EVAL_SHM: the output is already in the shared file */
    a->nbytes = q->shm ? 0 : bc_wire_expected_output(a, q->out_dtype, q->out_capacity);
    a->out = q->shm ? NULL : out;
}

void bc_worker_answer(const bc_worker_adapter *ad, bc_guard_pool *pool, const bc_wire_question *q,
                      bc_wire_answer *a)
{
    memset(a, 0, sizeof *a);
    bc_guard_pool_reset(pool);
    bc_adapter_params p;
    bc_adapter_shape shapes[BC_WIRE_MAX_SHAPES];
    to_params(&q->params, &p);
    to_shapes(q, shapes);
    bc_adapter_answer *r = calloc(1, sizeof *r);
    if (!r) {
        fault(a, "the worker is out of memory");
        return;
    }
    /* The harness asks only what the adapter declares; a missing function
     * is still answered, never called. */
    if (!q->is_eval && ad->desc->infer_shape) {
        ad->desc->infer_shape(ad->desc->context, &p, q->n, shapes, r);
        take_answer(r, a);
    } else if (q->is_eval && ad->desc->eval) {
        eval(ad, pool, q, &p, shapes, r, a);
    } else {
        a->status = BC_SUT_UNSUPPORTED;
        snprintf(a->message, sizeof a->message, "the adapter has no %s function",
                 q->is_eval ? "eval" : "infer_shape");
    }
    free(r);
}

/* ---- partial shapes (protocol 2) -------------------------------------------- */

SAME(BC_ADAPTER_PARTIAL_DYNAMIC, BC_PARTIAL_DYNAMIC);
SAME(BC_ADAPTER_PARTIAL_INTERVAL, BC_PARTIAL_INTERVAL);
SAME(BC_ADAPTER_PARTIAL_SYMBOL, BC_PARTIAL_SYMBOL);
SAME(BC_ADAPTER_PARTIAL_DYNAMIC_RANK, BC_PARTIAL_DYNAMIC_RANK);
SAME(BC_ADAPTER_PARTIAL_AXES_UNKNOWN, BC_PARTIAL_AXES_UNKNOWN);
SAME(BC_ADAPTER_OPT_AXES_UNKNOWN, BC_OPT_AXES_UNKNOWN);
SAME(BC_ADAPTER_RANK_DYNAMIC, BC_RANK_DYNAMIC);

static void pfault(bc_wire_panswer *a, const char *message)
{
    a->status = BC_SUT_INTERNAL_ERROR;
    a->kind = BC_OK;
    a->shape.rank = 0;
    snprintf(a->message, sizeof a->message, "%s", message);
}

void bc_worker_panswer(const bc_worker_adapter *ad, const bc_wire_pquestion *q,
                       bc_wire_panswer *a)
{
    memset(a, 0, sizeof *a);
    if (!bc_worker_partial(ad->desc)) {
        a->status = BC_SUT_UNSUPPORTED;
        snprintf(a->message, sizeof a->message, "the adapter takes no partial shapes");
        return;
    }
    if ((q->params.options & BC_OPT_AXES_UNKNOWN) &&
        !(bc_worker_partial(ad->desc) & BC_ADAPTER_PARTIAL_AXES_UNKNOWN)) {
        /* the harness asks it only of an adapter that declares it; a peer that did not */
        a->status = BC_SUT_UNSUPPORTED;
        snprintf(a->message, sizeof a->message,
                 "the adapter takes no axes_mapping of unknown values");
        return;
    }
    bc_adapter_params p;
    to_params(&q->params, &p);
    bc_adapter_pdim (*dims)[BC_MAX_RANK] = malloc(sizeof(bc_adapter_pdim[BC_WIRE_MAX_SHAPES][BC_MAX_RANK]));
    if (!dims) {
        pfault(a, "the worker is out of memory");
        return;
    }
    bc_adapter_pshape shapes[BC_WIRE_MAX_SHAPES];
    const char *names[BC_MAX_SYMBOLS];
    for (int s = 0; s < q->syms.count; s++)
        names[s] = q->syms.names[s];
    for (int i = 0; i < q->n; i++) {
        shapes[i].rank = q->shapes[i].rank;
        shapes[i].dims = dims[i];
        for (int k = 0; k < q->shapes[i].rank; k++)
            dims[i][k] = (bc_adapter_pdim){q->shapes[i].dims[k].lo, q->shapes[i].dims[k].hi,
                                           (uint32_t)q->shapes[i].dims[k].sym, 0};
    }
    bc_adapter_pquestion pq = {sizeof pq, &p, q->n, shapes, q->syms.count, names};
    bc_adapter_panswer *r = calloc(1, sizeof *r);
    if (!r) {
        free(dims);
        pfault(a, "the worker is out of memory");
        return;
    }
    ad->desc->infer_partial(ad->desc->context, &pq, r);
    free(dims);
    char text[400];
    if (r->status > BC_ADAPTER_INTERNAL_ERROR || r->error_kind > BC_ADAPTER_ERR_OVERFLOW) {
        snprintf(text, sizeof text, "the adapter answered status %u, error kind %u", r->status,
                 r->error_kind);
        pfault(a, text);
    } else if (r->status == BC_ADAPTER_OK &&
               (r->rank < BC_ADAPTER_RANK_DYNAMIC || r->rank > BC_ADAPTER_MAX_RANK)) {
        snprintf(text, sizeof text, "the adapter answered a shape of rank %d (valid: -1 to %d)",
                 r->rank, BC_ADAPTER_MAX_RANK);
        pfault(a, text);
    } else {
        a->status = (bc_sut_status)r->status;
        a->kind = r->status == BC_ADAPTER_REJECTED ? (bc_error_kind)r->error_kind : BC_OK;
        a->shape.rank = r->status == BC_ADAPTER_OK ? r->rank : 0;
        for (int k = 0; k < a->shape.rank; k++) {
            const bc_adapter_pdim *d = &r->dims[k];
            if (d->lo < 0 || d->lo > d->hi || d->symbol > INT32_MAX / 2) {
                snprintf(text, sizeof text, "the adapter answered a malformed dim at axis %d "
                         "(%lld..%lld, symbol %u)", k, (long long)d->lo, (long long)d->hi,
                         d->symbol);
                pfault(a, text);
                break;
            }
            a->shape.dims[k] = (bc_pdim){d->lo, d->hi, (int)d->symbol};
        }
        if (a->status != BC_SUT_INTERNAL_ERROR || !a->message[0]) {
            size_t n = strnlen(r->message, sizeof r->message);
            memcpy(a->message, r->message, n);
            a->message[n] = '\0';
        }
    }
    free(r);
}
