/* Writes into its first input (the in-place bug: an input's buffer taken
 * for scratch or for the result).  Where, the input's first element says:
 * 1 its elements (its second one), 2 the byte before its data pointer,
 * 3 the byte after its last element; on any other value it writes nothing.
 * Its output is a correct add of two int32 vectors of the same length
 * (computed before the write), so nothing but the write can fail it. */
#include <stddef.h>

#include "faulty.h"

static void eval(void *context, const bc_adapter_eval_request *req, bc_adapter_answer *answer)
{
    (void)context;
    example_numpy_shape(req->params, req->nshapes, req->shapes, answer);
    faulty_int32_add(req, 0);
    /* the bug: the input's memory is the caller's, and const */
    const bc_adapter_tensor *a = &req->inputs[0];
    const int32_t *x = (const int32_t *)a->data + a->offset;
    volatile unsigned char *bytes = (volatile unsigned char *)(uintptr_t)x;
    int64_t last = (a->dims[0] - 1) * a->strides[0];
    if (x[0] == 1)
        ((volatile int32_t *)(uintptr_t)x)[a->strides[0]] = 1000;
    else if (x[0] == 2)
        bytes[-1] = 0;
    else if (x[0] == 3)
        bytes[(last + 1) * 4] = 0;
}

FAULTY_ADAPTER("input_write", faulty_numpy_infer, BC_ADAPTER_FEATURE_SHAPE | BC_ADAPTER_FEATURE_ELEMENTWISE, eval)
