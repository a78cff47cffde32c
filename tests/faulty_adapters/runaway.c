/* Allocates (and fills) memory without bound on its trigger, and aborts
 * when there is no more, as a C++ library would on std::bad_alloc. */
#include <stdlib.h>
#include <string.h>

#include "faulty.h"

static void infer(void *context, const bc_adapter_params *p, int32_t n,
                  const bc_adapter_shape *shapes, bc_adapter_answer *answer)
{
    (void)context;
    if (faulty_trigger(n, shapes)) {
        void *volatile head = NULL; /* volatile: the chain is not optimised away */
        for (;;) {
            void **block = malloc(1u << 20);
            if (!block)
                abort();
            memset(block, 1, 1u << 20);
            *block = head;
            head = block;
        }
    }
    example_numpy_shape(p, n, shapes, answer);
}

FAULTY_ADAPTER("runaway", infer, BC_ADAPTER_FEATURE_SHAPE, NULL)
