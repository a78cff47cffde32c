/* Answers garbage: a result shape of rank 65 on its trigger, and for add it
 * writes four elements past the end of its output buffer. */
#include <string.h>

#include "faulty.h"

static void infer(void *context, const bc_adapter_params *p, int32_t n,
                  const bc_adapter_shape *shapes, bc_adapter_answer *answer)
{
    (void)context;
    example_numpy_shape(p, n, shapes, answer);
    if (faulty_trigger(n, shapes)) {
        answer->status = BC_ADAPTER_OK;
        answer->rank = 65;
        memset(answer->message, 'x', sizeof answer->message); /* and no terminator */
    }
}

static void eval(void *context, const bc_adapter_eval_request *req, bc_adapter_answer *answer)
{
    (void)context;
    example_numpy_shape(req->params, req->nshapes, req->shapes, answer);
    int32_t *out = req->out;
    for (int64_t i = 0; i < req->out_capacity + 4; i++)
        out[i] = 7;
}

FAULTY_ADAPTER("garbage", infer, BC_ADAPTER_FEATURE_SHAPE | BC_ADAPTER_FEATURE_ELEMENTWISE, eval)
