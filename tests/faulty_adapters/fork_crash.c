/* On its trigger, starts a child that outlives it (sleep, holding every fd
 * that is not close-on-exec), then dies of SIGSEGV.  If the worker's
 * protocol fds leaked into the child, the harness would see no end of the
 * answer pipe and report a timeout instead of the crash. */
#include <stddef.h>
#include <unistd.h>

#include "faulty.h"

static void infer(void *context, const bc_adapter_params *p, int32_t n,
                  const bc_adapter_shape *shapes, bc_adapter_answer *answer)
{
    (void)context;
    if (faulty_trigger(n, shapes)) {
        if (fork() == 0) {
            execl("/bin/sleep", "sleep", "1000", (char *)NULL);
            _exit(127);
        }
        volatile int *volatile nowhere = NULL; /* both volatile: the store stays */
        *nowhere = 42;
    }
    example_numpy_shape(p, n, shapes, answer);
}

FAULTY_ADAPTER("fork-crash", infer, BC_ADAPTER_FEATURE_SHAPE, NULL)
