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

/* ---- partial shapes (spec/RULES.md §14), numpy only ---------------------- */

static int may_be_1(const bc_adapter_pdim *d)
{
    return d->lo <= 1 && 1 <= d->hi;
}

static void reject(bc_adapter_panswer *answer, uint32_t kind, const char *why)
{
    answer->status = BC_ADAPTER_REJECTED;
    answer->error_kind = kind;
    snprintf(answer->message, sizeof answer->message, "%s", why);
}

/* One result axis at a time: a dim that may be 1 yields to one that cannot;
 * two that may both be 1 give their hull (and a symbol only if both have
 * it); two that cannot must meet. */
static void infer_partial(void *context, const bc_adapter_pquestion *q, bc_adapter_panswer *answer)
{
    (void)context;
    if (q->nshapes < 1 || q->nshapes > 64) {
        reject(answer, BC_ADAPTER_ERR_OPERAND_COUNT, "numpy takes 1 to 64 shapes");
        return;
    }
    /* A symbol is one value: each occurrence gets the bounds of all of them. */
    int64_t lo[65], hi[65];
    for (int s = 0; s <= 64; s++)
        lo[s] = 0, hi[s] = INT64_MAX;
    int32_t rank = 0;
    for (int32_t i = 0; i < q->nshapes; i++) {
        rank = q->shapes[i].rank > rank ? q->shapes[i].rank : rank;
        for (int32_t k = 0; k < q->shapes[i].rank; k++) {
            const bc_adapter_pdim *d = &q->shapes[i].dims[k];
            if (d->lo < 0) {
                reject(answer, BC_ADAPTER_ERR_NEGATIVE_DIM, "a negative dim");
                return;
            }
            if (d->symbol > 64) {
                reject(answer, BC_ADAPTER_ERR_BAD_PARAMS, "too many symbols");
                return;
            }
            lo[d->symbol] = d->lo > lo[d->symbol] ? d->lo : lo[d->symbol];
            hi[d->symbol] = d->hi < hi[d->symbol] ? d->hi : hi[d->symbol];
            if (d->symbol && lo[d->symbol] > hi[d->symbol]) {
                reject(answer, BC_ADAPTER_ERR_BAD_PARAMS, "a symbol with no value");
                return;
            }
        }
    }
    for (int32_t r = 0; r < rank; r++) {
        bc_adapter_pdim acc = {1, 1, 0, 0};
        for (int32_t i = 0; i < q->nshapes; i++) {
            int32_t k = r - (rank - q->shapes[i].rank);
            if (k < 0)
                continue;
            bc_adapter_pdim d = q->shapes[i].dims[k];
            if (d.symbol)
                d.lo = lo[d.symbol], d.hi = hi[d.symbol];
            if (acc.lo == 1 && acc.hi == 1) {
                acc = d;
            } else if (d.lo == 1 && d.hi == 1) {
                continue;
            } else if (may_be_1(&acc) && may_be_1(&d)) {
                acc.lo = d.lo < acc.lo ? d.lo : acc.lo;
                acc.hi = d.hi > acc.hi ? d.hi : acc.hi;
                acc.symbol = acc.symbol == d.symbol ? acc.symbol : 0;
            } else if (may_be_1(&acc)) {
                acc = d;
            } else if (!may_be_1(&d)) {
                acc.lo = d.lo > acc.lo ? d.lo : acc.lo;
                acc.hi = d.hi < acc.hi ? d.hi : acc.hi;
                acc.symbol = acc.symbol ? acc.symbol : d.symbol;
                if (acc.lo > acc.hi) {
                    reject(answer, BC_ADAPTER_ERR_DIM_MISMATCH, "dims that never match");
                    return;
                }
            }
        }
        answer->dims[r] = acc;
    }
    answer->status = BC_ADAPTER_OK;
    answer->rank = rank;
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
    .partial = BC_ADAPTER_PARTIAL_DYNAMIC | BC_ADAPTER_PARTIAL_INTERVAL |
               BC_ADAPTER_PARTIAL_SYMBOL,
    .infer_partial = infer_partial,
};

BC_ADAPTER_EXPORT const bc_adapter *bc_adapter_entry_v1(void);

const bc_adapter *bc_adapter_entry_v1(void)
{
    return &example;
}
