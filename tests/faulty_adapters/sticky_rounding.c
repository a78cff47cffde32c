/* Leaves the rounding mode at upward after each call (an adapter that
 * sets the floating-point environment for its own kernels and does not
 * restore it; a -ffast-math build does the same with flush-to-zero).  Its
 * answer is a correct int32 add unless the call starts in a rounding mode
 * other than to-nearest, when every element is 1000 too large: so it is
 * right on every call only if each starts in the environment of the first. */
#include <fenv.h>
#include <stddef.h>

#include "faulty.h"

static void eval(void *context, const bc_adapter_eval_request *req, bc_adapter_answer *answer)
{
    (void)context;
    example_numpy_shape(req->params, req->nshapes, req->shapes, answer);
    volatile float one = 1.0f, tiny = 1e-10f;
    faulty_int32_add(req, one + tiny != 1.0f ? 1000 : 0);
    fesetround(FE_UPWARD);
}

FAULTY_ADAPTER("sticky_rounding", faulty_numpy_infer, BC_ADAPTER_FEATURE_SHAPE | BC_ADAPTER_FEATURE_ELEMENTWISE, eval)
