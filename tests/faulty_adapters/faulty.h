/*
 * The faulty test adapters: each answers like the example adapter (NumPy
 * shapes) except on its trigger, a question whose first shape has rank 3,
 * where it misbehaves in its own way.  tests/test_faulty.c checks that
 * every fault becomes a report naming it, never a harness crash.
 */
#ifndef FAULTY_H
#define FAULTY_H

#include "broadcheck/adapter.h"
#include "example_numpy.h"

static inline int faulty_trigger(int32_t n, const bc_adapter_shape *shapes)
{
    return n >= 1 && shapes[0].rank == 3;
}

/* NumPy shape inference as the example adapter does it, for the adapters
 * whose fault is in eval. */
static inline void faulty_numpy_infer(void *context, const bc_adapter_params *p, int32_t n,
                                      const bc_adapter_shape *shapes, bc_adapter_answer *answer)
{
    (void)context;
    example_numpy_shape(p, n, shapes, answer);
}

/* out = a + b (+ skew) on two int32 vectors of one length, views as the
 * harness sends them: the right answer of the adapters whose fault is
 * elsewhere (or skewed by a state they left behind). */
static inline void faulty_int32_add(const bc_adapter_eval_request *req, int32_t skew)
{
    const bc_adapter_tensor *a = &req->inputs[0], *b = &req->inputs[1];
    const int32_t *x = (const int32_t *)a->data + a->offset, *y = (const int32_t *)b->data + b->offset;
    int32_t *out = req->out;
    for (int64_t i = 0; i < req->out_capacity; i++)
        out[i] = x[i * a->strides[0]] + y[i * b->strides[0]] + skew;
}

/* A descriptor with NumPy shape inference and `infer`.  Its struct_size is
 * that of a descriptor built before partial shapes were appended, so every
 * faulty adapter is also an old adapter, which must keep working. */
#define FAULTY_ADAPTER(NAME, INFER, FEATURES, EVAL)                                     \
    static const bc_adapter faulty = {                                                  \
        BC_ADAPTER_V1_SIZE, BC_ADAPTER_ABI_VERSION, NAME, "0", "a faulty test adapter", \
        {(FEATURES), 1u << BC_ADAPTER_RULE_NUMPY, 0, 1u << BC_ADAPTER_OP_ADD,           \
         1u << BC_ADAPTER_DTYPE_INT32, 64, 64},                                         \
        NULL, INFER, EVAL, 0, NULL};                                                    \
    BC_ADAPTER_EXPORT const bc_adapter *bc_adapter_entry_v1(void);                      \
    const bc_adapter *bc_adapter_entry_v1(void) { return &faulty; }

#endif
