/* Private to isolation/: an external SUT behind worker
 * processes, and what it declares. */
#ifndef BROADCHECK_ISOLATED_H
#define BROADCHECK_ISOLATED_H

#include <stddef.h>

#include "broadcheck/sut_loader.h"
#include "proc.h"

/* Starts the first worker of a SUT named `name` launched by `launch` (argv
 * copied) and reads its HELLO.  Returns NULL with why. */
const bc_sut *bc_isolated_open(const char *name, const bc_proc_launch *launch,
                               const bc_sut_options *opts, char *why, size_t cap);
/* 1 if sut came from bc_isolated_open. */
int bc_isolated_is(const bc_sut *sut);
void bc_isolated_close(const bc_sut *sut);
/* bc_sut_interrupt for an isolated SUT (async-signal-safe). */
void bc_isolated_interrupt(const bc_sut *sut);
/* bc_sut_set_deadline for an isolated SUT. */
void bc_isolated_set_deadline(const bc_sut *sut, double monotonic_seconds);
/* Its declared capabilities (NULL for any other SUT). */
const bc_adapter_capabilities *bc_isolated_caps(const bc_sut *sut);
/* How many value questions went to it by a shared file (EVAL_SHM). */
long bc_isolated_shm_questions(const bc_sut *sut);
/* The BC_PARTIAL_* it declared (0 for a worker of protocol 1). */
unsigned bc_isolated_partial_caps(const bc_sut *sut);

/* Why a question is outside caps ("" and 0 if it is inside). */
int bc_caps_refuse_shape(const bc_adapter_capabilities *caps, const bc_params *p, int n,
                         const bc_shape *shapes, char *why, size_t cap);
int bc_caps_refuse_eval(const bc_adapter_capabilities *caps, const bc_eval_request *req,
                        char *why, size_t cap);
/* "shape, elementwise; rules numpy; ...", into buf[cap]. */
void bc_caps_format(const bc_adapter_capabilities *caps, char *buf, size_t cap);
/* Why a partial-shape question is outside caps and the BC_PARTIAL_* declared. */
int bc_caps_refuse_partial(const bc_adapter_capabilities *caps, unsigned partial,
                           const bc_params *p, int n, const bc_pshape *shapes, char *why,
                           size_t cap);

#endif
