/* Dies of SIGSEGV on its trigger: a null pointer the compiler cannot see. */
#include <stddef.h>

#include "faulty.h"

static void infer(void *context, const bc_adapter_params *p, int32_t n,
                  const bc_adapter_shape *shapes, bc_adapter_answer *answer)
{
    (void)context;
    if (faulty_trigger(n, shapes)) {
        volatile int *volatile nowhere = NULL; /* both volatile: the store stays */
        *nowhere = 42;
    }
    example_numpy_shape(p, n, shapes, answer);
}

FAULTY_ADAPTER("crash", infer, BC_ADAPTER_FEATURE_SHAPE, NULL)
