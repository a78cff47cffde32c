/*
 * The example adapter's "wrapped library": NumPy-style broadcasting of
 * shapes (spec/RULES.md §3), as a real library would implement it.
 */
#ifndef EXAMPLE_NUMPY_H
#define EXAMPLE_NUMPY_H

#include "broadcheck/adapter.h"

/* The result shape of shapes[0..n-1] under p (rule numpy) into answer:
 * BC_ADAPTER_OK with rank and dims, or BC_ADAPTER_REJECTED with the error
 * kind of the first failing check (RULES.md §1.4) and a message. */
void example_numpy_shape(const bc_adapter_params *p, int32_t n, const bc_adapter_shape *shapes,
                         bc_adapter_answer *answer);

#endif
