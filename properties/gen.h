/* Private to properties/: case generators. */
#ifndef BROADCHECK_GEN_H
#define BROADCHECK_GEN_H

#include "broadcheck/vector.h"
#include "prng.h"

/* What a property needs from its cases. */
typedef struct bc_gen_request {
    bc_rule rule;
    int min_operands, max_operands; /* for none and numpy; 0 = the defaults */
    int reject_percent;             /* how often to mutate into a likely reject */
    int max_dim;                    /* 0: any size up to INT64_MAX; else dims <= this */
    int value_sized;                /* small tensors for value cases: rank <= 6, at most
                                       64 elements per shape, >= 10 % with a 0 dim, no
                                       negative dims */
} bc_gen_request;

/* Fills c (params, shapes; the expectation is left unset) from r. */
void bc_gen_case(bc_prng *r, const bc_gen_request *req, bc_vector *c);

#endif
