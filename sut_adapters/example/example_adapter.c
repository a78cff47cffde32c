/*
 * A complete broadcheck adapter, written to be copied: replace the calls
 * into example_numpy.c and the add loop with calls into the library you
 * test.  It declares exactly what it implements (NumPy shape inference,
 * elementwise add on int32 and float32 with any strides); broadcheck
 * answers every other question "unsupported" without calling it.
 * sut_adapters/README.md walks through it.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "broadcheck/adapter.h"
#include "example_numpy.h"

static void infer_shape(void *context, const bc_adapter_params *p, int32_t n,
                        const bc_adapter_shape *shapes, bc_adapter_answer *answer)
{
    (void)context;
    example_numpy_shape(p, n, shapes, answer);
}

/* Element (idx of the result) of input t: its own axes are the result's
 * last t->rank axes, and an axis of size 1 is read at index 0 (stretched). */
static const char *element(const bc_adapter_tensor *t, int32_t rank, const int64_t *idx,
                           size_t size)
{
    int64_t at = t->offset;
    for (int32_t k = 0; k < t->rank; k++) {
        int64_t i = t->dims[k] == 1 ? 0 : idx[rank - t->rank + k];
        at += i * t->strides[k];
    }
    return (const char *)t->data + at * (int64_t)size;
}

/* acc += x, as the library's add does it: int32 wraps, float32 rounds. */
static void add_into(uint32_t dtype, void *acc, const void *x)
{
    if (dtype == BC_ADAPTER_DTYPE_INT32) {
        int32_t a, b;
        memcpy(&a, acc, 4);
        memcpy(&b, x, 4);
        uint32_t sum = (uint32_t)a + (uint32_t)b; /* unsigned: no overflow UB */
        memcpy(acc, &sum, 4);
    } else {
        float a, b;
        memcpy(&a, acc, 4);
        memcpy(&b, x, 4);
        a += b;
        memcpy(acc, &a, 4);
    }
}

static void eval(void *context, const bc_adapter_eval_request *req, bc_adapter_answer *answer)
{
    (void)context;
    /* The harness only asks what caps declare; checking anyway keeps a copy
     * of this file honest when its caps are edited. */
    if (req->kind != BC_ADAPTER_VALUE_ELEMENTWISE || req->op != BC_ADAPTER_OP_ADD ||
        (req->out_dtype != BC_ADAPTER_DTYPE_INT32 && req->out_dtype != BC_ADAPTER_DTYPE_FLOAT32)) {
        answer->status = BC_ADAPTER_UNSUPPORTED;
        snprintf(answer->message, sizeof answer->message, "only add on int32 and float32");
        return;
    }
    example_numpy_shape(req->params, req->nshapes, req->shapes, answer);
    if (answer->status != BC_ADAPTER_OK)
        return;
    int64_t numel = 1;
    for (int32_t r = 0; r < answer->rank; r++)
        numel = answer->dims[r] == 0 ? 0 : numel * answer->dims[r];
    /* The dims of a valid case multiply within the capacity, so the product
     * above only matters when it fits; a larger result is answered by shape. */
    if (numel > req->out_capacity)
        return;
    int64_t idx[BC_ADAPTER_MAX_RANK] = {0};
    char *out = req->out;
    for (int64_t e = 0; e < numel; e++) {
        memcpy(out, element(&req->inputs[0], answer->rank, idx, 4), 4);
        for (int32_t i = 1; i < req->ninputs; i++)
            add_into(req->out_dtype, out, element(&req->inputs[i], answer->rank, idx, 4));
        out += 4;
        for (int32_t r = answer->rank - 1; r >= 0 && ++idx[r] == answer->dims[r]; r--)
            idx[r] = 0; /* row-major odometer */
    }
}

static const bc_adapter example = {
    .struct_size = sizeof(bc_adapter),
    .abi_version = BC_ADAPTER_ABI_VERSION,
    .name = "example",
    .version = "1.0",
    .description = "the example adapter: NumPy shape inference, add on int32/float32",
    .caps = {
        .features = BC_ADAPTER_FEATURE_SHAPE | BC_ADAPTER_FEATURE_ELEMENTWISE,
        .rules = 1u << BC_ADAPTER_RULE_NUMPY,
        .profiles = 0,
        .ops = 1u << BC_ADAPTER_OP_ADD,
        .dtypes = (1u << BC_ADAPTER_DTYPE_INT32) | (1u << BC_ADAPTER_DTYPE_FLOAT32),
        .max_rank = 64,
        .max_operands = 64,
    },
    .context = NULL,
    .infer_shape = infer_shape,
    .eval = eval,
};

BC_ADAPTER_EXPORT const bc_adapter *bc_adapter_entry_v1(void);

const bc_adapter *bc_adapter_entry_v1(void)
{
    return &example;
}
