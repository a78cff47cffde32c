/* Reads 8 kB past its first input's offset (past the end of any input the
 * tests give it): an out-of-bounds read, which used to return whatever
 * followed the input in the worker's heap. */
#include <stddef.h>

#include "faulty.h"

static void eval(void *context, const bc_adapter_eval_request *req, bc_adapter_answer *answer)
{
    (void)context;
    example_numpy_shape(req->params, req->nshapes, req->shapes, answer);
    const volatile int32_t *in = req->inputs[0].data;
    int32_t far = in[req->inputs[0].offset + 2048];
    int32_t *out = req->out;
    for (int64_t i = 0; i < req->out_capacity; i++)
        out[i] = far;
}

FAULTY_ADAPTER("overread", faulty_numpy_infer, BC_ADAPTER_FEATURE_SHAPE | BC_ADAPTER_FEATURE_ELEMENTWISE, eval)
