/* Never answers its trigger: sleeps until killed. */
#include <unistd.h>

#include "faulty.h"

static void infer(void *context, const bc_adapter_params *p, int32_t n,
                  const bc_adapter_shape *shapes, bc_adapter_answer *answer)
{
    (void)context;
    while (faulty_trigger(n, shapes))
        sleep(1000);
    example_numpy_shape(p, n, shapes, answer);
}

FAULTY_ADAPTER("hang", infer, BC_ADAPTER_FEATURE_SHAPE, NULL)
