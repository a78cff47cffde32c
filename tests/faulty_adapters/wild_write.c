/* Writes one element 4 kB past the end of its output buffer (a wild write
 * that guard bytes alone never saw); answers add correctly otherwise. */
#include <stddef.h>

#include "faulty.h"

static void eval(void *context, const bc_adapter_eval_request *req, bc_adapter_answer *answer)
{
    (void)context;
    example_numpy_shape(req->params, req->nshapes, req->shapes, answer);
    volatile int32_t *out = req->out;
    out[req->out_capacity + 1024] = 7;
}

FAULTY_ADAPTER("wild_write", faulty_numpy_infer, BC_ADAPTER_FEATURE_SHAPE | BC_ADAPTER_FEATURE_ELEMENTWISE, eval)
