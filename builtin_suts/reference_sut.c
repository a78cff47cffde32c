/*
 * The built-in "reference" SUT: the reference rules and the fast compute
 * engine, so that a run without --sut checks the fast engine against the
 * naive oracle and every metamorphic property on the reference.
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"

/* snprintf "%s" without the formatter: the shape properties ask this SUT
 * about a million times a second. */
static void copy_message(char *to, size_t cap, const char *from)
{
    size_t n = strnlen(from, cap - 1);
    memcpy(to, from, n);
    to[n] = '\0';
}

void bc_answer_from_reference(const bc_params *p, int n, const bc_shape *shapes,
                              bc_sut_answer *answer)
{
    bc_error err;
    bc_error_kind kind = bc_infer(p, n, shapes, &answer->shape, &err);
    if (kind == BC_OK) {
        answer->status = BC_SUT_OK;
        return;
    }
    answer->status = BC_SUT_REJECTED;
    answer->kind = kind;
    copy_message(answer->message, sizeof answer->message, err.message);
}

void bc_panswer_from_reference(const bc_params *p, int n, const bc_pshape *shapes,
                               const bc_psymbols *syms, bc_sut_panswer *answer)
{
    bc_error err;
    bc_error_kind kind = bc_pinfer(p, n, shapes, syms, &answer->shape, &err);
    if (kind == BC_OK) {
        answer->status = BC_SUT_OK;
        return;
    }
    answer->status = BC_SUT_REJECTED;
    answer->kind = kind;
    copy_message(answer->message, sizeof answer->message, err.message);
}

static void reference_partial(const bc_sut *sut, const bc_params *p, int n,
                              const bc_pshape *shapes, const bc_psymbols *syms,
                              bc_sut_panswer *answer)
{
    (void)sut;
    bc_panswer_from_reference(p, n, shapes, syms, answer);
}

static void reference_infer(const bc_sut *sut, const bc_params *p, int n, const bc_shape *shapes,
                            bc_sut_answer *answer)
{
    (void)sut;
    bc_answer_from_reference(p, n, shapes, answer);
}

/* The inputs a request of this kind must carry. */
static int inputs_wanted(const bc_eval_request *req)
{
    switch (req->kind) {
    case BC_VALUE_ELEMENTWISE: return req->n;
    case BC_VALUE_SELECT: return 3;
    case BC_VALUE_MATMUL: return 2;
    default: return 1;
    }
}

static void unsupported(bc_sut_answer *answer, const char *why)
{
    answer->status = BC_SUT_UNSUPPORTED;
    snprintf(answer->message, sizeof answer->message, "%s", why);
}

void bc_reference_eval(bc_evaluator ev, const bc_eval_request *req, bc_sut_answer *answer)
{
    if ((unsigned)req->kind >= BC_VALUE_OP_COUNT || req->ninputs != inputs_wanted(req) ||
        (req->kind == BC_VALUE_SELECT && req->n != 3) ||
        (req->kind == BC_VALUE_MATMUL && req->n != 2)) {
        unsupported(answer, "malformed value request (kind, or its number of inputs)");
        return;
    }
    bc_answer_from_reference(req->params, req->n, req->shapes, answer);
    if (answer->status != BC_SUT_OK)
        return;
    if (req->kind == BC_VALUE_SUM_TO_SHAPE) {
        if (req->operand < 0 || req->operand >= req->n) {
            unsupported(answer, "sum-to-shape of an operand the case does not have");
            return;
        }
        answer->shape = req->shapes[req->operand];
    }
    int64_t numel;
    if (bc_shape_numel(&answer->shape, &numel) != BC_OK || numel > req->out_capacity)
        return; /* the shape is the answer; the harness had no room for more */
    const bc_tensor *in = req->inputs;
    bc_tensor out = bc_tensor_contiguous(req->out_dtype, &answer->shape, req->out);
    bc_error err;
    bc_error_kind kind;
    switch (req->kind) {
    case BC_VALUE_ELEMENTWISE:
        kind = req->n == 2 ? bc_eval_binary(ev, req->op, req->params, &in[0], &in[1], &out, &err)
                           : bc_eval_nary(ev, req->op, req->params, req->n, in, &out, &err);
        break;
    case BC_VALUE_SELECT:
        kind = bc_eval_select(ev, req->params, &in[0], &in[1], &in[2], &out, &err);
        break;
    case BC_VALUE_BROADCAST:
        kind = bc_eval_broadcast(ev, req->params, &in[0], &req->shapes[1], &out, &err);
        break;
    case BC_VALUE_MATMUL:
        kind = bc_eval_matmul(ev, req->params, &in[0], &in[1], &out, &err);
        break;
    default:
        kind = bc_eval_sum_to_shape(ev, req->params, req->n, req->shapes, req->operand, &in[0],
                                    &out, &err);
        break;
    }
    if (kind == BC_ERR_BAD_PARAMS) {
        unsupported(answer, err.message); /* an op, dtype or rule the engine does not take */
    } else if (kind != BC_OK) {
        answer->status = BC_SUT_REJECTED;
        answer->kind = kind;
        snprintf(answer->message, sizeof answer->message, "%s", err.message);
    }
}

static void reference_eval(const bc_sut *sut, const bc_eval_request *req, bc_sut_answer *answer)
{
    (void)sut;
    bc_reference_eval(BC_EVAL_FAST, req, answer);
}

static const bc_sut_ops reference_ops = {reference_infer, reference_eval, reference_partial};

const bc_sut bc_reference_sut = {
    "reference", "broadcheck " BC_VERSION_STRING,
    "the reference rules and fast engine of spec/RULES.md and docs/ENGINE.md (the default SUT)",
    NULL, &reference_ops,
};
