/* Dies slowly on its trigger, as a sanitizer-built worker does on a loaded
 * machine: it starts a crash report on stderr, takes 600 ms (symbolizing),
 * then dies of SIGSEGV.  The harness must report the death, not a timeout,
 * even with a deadline inside those 600 ms. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stddef.h>
#include <time.h>
#include <unistd.h>

#include "faulty.h"

static void infer(void *context, const bc_adapter_params *p, int32_t n,
                  const bc_adapter_shape *shapes, bc_adapter_answer *answer)
{
    (void)context;
    if (faulty_trigger(n, shapes)) {
        static const char report[] = "==1==ERROR: AddressSanitizer: SEGV on unknown address "
                                     "(a faulty test adapter)\n";
        if (write(2, report, sizeof report - 1) < 0)
            _exit(3);
        struct timespec nap = {0, 600000000};
        nanosleep(&nap, NULL);
        signal(SIGSEGV, SIG_DFL);
        raise(SIGSEGV);
    }
    example_numpy_shape(p, n, shapes, answer);
}

FAULTY_ADAPTER("dying", infer, BC_ADAPTER_FEATURE_SHAPE, NULL)
