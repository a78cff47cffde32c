/* Installs a SIGSEGV handler of its own on its first call (as a runtime it
 * embedded, or a crash reporter, would) that exits with status 3; from the
 * second call on it also writes 4 kB past its output, into the guard gap.
 * The worker must still name that write, not die by the adapter's hand.
 * Its answers are a correct int32 add otherwise. */
#define _POSIX_C_SOURCE 200809L /* sigaction */
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "faulty.h"

static int calls;

static void exit_three(int sig)
{
    (void)sig;
    _exit(3);
}

static void eval(void *context, const bc_adapter_eval_request *req, bc_adapter_answer *answer)
{
    (void)context;
    example_numpy_shape(req->params, req->nshapes, req->shapes, answer);
    faulty_int32_add(req, 0);
    if (calls++ == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = exit_three;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGSEGV, &sa, NULL);
    } else {
        volatile int32_t *out = req->out;
        out[req->out_capacity + 1024] = 7;
    }
}

FAULTY_ADAPTER("own_handler", faulty_numpy_infer, BC_ADAPTER_FEATURE_SHAPE | BC_ADAPTER_FEATURE_ELEMENTWISE, eval)
