/* Dies of SIGSEGV on the first trigger of all its workers, then answers
 * every question right: a flaky SUT.  Its workers share the memory of that
 * first time through a file, $BC_FLAKY_MARKER, made with O_EXCL. */
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include "faulty.h"

static void infer(void *context, const bc_adapter_params *p, int32_t n,
                  const bc_adapter_shape *shapes, bc_adapter_answer *answer)
{
    (void)context;
    const char *marker = getenv("BC_FLAKY_MARKER");
    if (faulty_trigger(n, shapes) && marker) {
        int fd = open(marker, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd >= 0) {
            close(fd);
            volatile int *volatile nowhere = NULL; /* both volatile: the store stays */
            *nowhere = 42;
        }
    }
    example_numpy_shape(p, n, shapes, answer);
}

FAULTY_ADAPTER("flaky", infer, BC_ADAPTER_FEATURE_SHAPE, NULL)
