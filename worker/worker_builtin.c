/*
 * broadcheck-worker --builtin NAME: a built-in SUT (the reference or a
 * mutant) behind the adapter ABI, served like any adapter library.  So
 * `--sut 'exec:broadcheck-worker --builtin mutant:offset-ignored'` runs the
 * very code of the in-process SUT through the wire protocol, the worker's
 * guarded buffers and its fault handling: what an external adapter sees,
 * checked against a SUT whose verdicts are known.  The ABI's enums have
 * broadcheck's values (worker_call.c asserts it), so they convert by cast.
 */
#include <stdio.h>
#include <string.h>

#include "worker.h"

static bc_params from_params(const bc_adapter_params *p)
{
    bc_params q = bc_params_for((bc_rule)p->rule);
    q.rule = (bc_rule)p->rule;
    q.options = p->options;
    q.profile = (bc_profile)p->profile;
    q.axis = p->axis;
    q.naxes = p->naxes;
    for (int i = 0; i < p->naxes && i < BC_MAX_RANK; i++)
        q.axes[i] = p->axes[i];
    return q;
}

static void from_shapes(int32_t n, const bc_adapter_shape *in, bc_shape *out)
{
    for (int32_t i = 0; i < n; i++) {
        out[i].rank = in[i].rank;
        memcpy(out[i].dims, in[i].dims, sizeof(int64_t) * (size_t)in[i].rank);
    }
}

static void to_answer(const bc_sut_answer *a, bc_adapter_answer *out)
{
    out->status = (uint32_t)a->status;
    out->error_kind = a->status == BC_SUT_REJECTED ? (uint32_t)a->kind : 0;
    out->rank = a->status == BC_SUT_OK ? a->shape.rank : 0;
    memcpy(out->dims, a->shape.dims, sizeof(int64_t) * (size_t)out->rank);
    snprintf(out->message, sizeof out->message, "%s", a->message);
}

static void builtin_infer(void *context, const bc_adapter_params *p, int32_t n,
                          const bc_adapter_shape *shapes, bc_adapter_answer *answer)
{
    const bc_sut *sut = context;
    bc_params params = from_params(p);
    static bc_shape s[BC_ADAPTER_MAX_OPERANDS]; /* one question at a time */
    from_shapes(n, shapes, s);
    bc_sut_answer a;
    memset(&a, 0, sizeof a);
    sut->ops->infer_shape(sut, &params, n, s, &a);
    to_answer(&a, answer);
}

static void builtin_eval(void *context, const bc_adapter_eval_request *req,
                         bc_adapter_answer *answer)
{
    const bc_sut *sut = context;
    bc_params params = from_params(req->params);
    static bc_shape s[BC_ADAPTER_MAX_OPERANDS];
    static bc_tensor in[BC_ADAPTER_MAX_OPERANDS];
    from_shapes(req->nshapes, req->shapes, s);
    for (int32_t i = 0; i < req->ninputs; i++) {
        const bc_adapter_tensor *t = &req->inputs[i];
        memset(&in[i], 0, sizeof in[i]);
        in[i].dtype = (bc_dtype)t->dtype;
        in[i].rank = t->rank;
        memcpy(in[i].dims, t->dims, sizeof(int64_t) * (size_t)t->rank);
        memcpy(in[i].strides, t->strides, sizeof(int64_t) * (size_t)t->rank);
        in[i].data = (void *)(uintptr_t)t->data; /* read only: the SUTs never write inputs */
        in[i].offset = t->offset;
    }
    bc_eval_request q = {(bc_value_op)req->kind, (bc_op)req->op, &params, req->nshapes, s,
                         req->operand, req->ninputs, in, (bc_dtype)req->out_dtype, req->out,
                         req->out_capacity};
    bc_sut_answer a;
    memset(&a, 0, sizeof a);
    sut->ops->eval(sut, &q, &a);
    to_answer(&a, answer);
}

int bc_worker_builtin(const char *name, bc_worker_adapter *ad, char *why, size_t cap)
{
    static bc_adapter desc;
    const bc_sut *sut = bc_builtin_sut(name);
    memset(ad, 0, sizeof *ad);
    if (!sut) {
        snprintf(why, cap, "--builtin: unknown built-in SUT '%s' (see 'broadcheck list suts')",
                 name);
        return -1;
    }
    uint32_t dtypes = 0;
    for (int t = 0; t < BC_DTYPE_COUNT; t++)
        dtypes |= bc_dtype_available((bc_dtype)t) ? 1u << t : 0;
    /* everything, as in process: the harness then asks it every question */
    desc = (bc_adapter){sizeof desc, BC_ADAPTER_ABI_VERSION, sut->name, sut->version,
                        sut->description,
                        {(1u << (1 + BC_VALUE_OP_COUNT)) - 1, (1u << BC_RULE_COUNT) - 1,
                         ((1u << BC_PROFILE_COUNT) - 1) & ~1u, (1u << BC_OP_COUNT) - 1, dtypes,
                         BC_ADAPTER_MAX_RANK, BC_ADAPTER_MAX_OPERANDS},
                        (void *)(uintptr_t)sut, builtin_infer, builtin_eval,
                        0, NULL}; /* partial shapes: not served here */
    ad->desc = &desc;
    return 0;
}
