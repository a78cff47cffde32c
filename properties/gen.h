/* Private to properties/: case generators. */
#ifndef BROADCHECK_GEN_H
#define BROADCHECK_GEN_H

#include "broadcheck/vector.h"
#include "prng.h"

/* The most operands drawn for a SUT that declares no more: the limit before
 * RULES.md §9.5 raised it, so that such a SUT's cases stay as they were. */
#define BC_GEN_OPERANDS_BEFORE 64

/* What a property needs from its cases. */
typedef struct bc_gen_request {
    bc_rule rule;
    int min_operands, max_operands; /* for none and numpy; 0 = the defaults */
    int reject_percent;             /* how often to mutate into a likely reject */
    int max_dim;                    /* 0: any size up to INT64_MAX; else dims <= this */
    int value_sized;                /* small tensors for value cases: at most 64 elements
                                       per shape, >= 10 % with a 0 dim, no negative dims;
                                       rank mostly <= 6, a share at 7 .. max_rank */
    int max_rank;                   /* with value_sized: the SUT's largest rank (0: 64) */
    int expand_percent;             /* broadcast-to: how often under profile pytorch-expand
                                       (its -1s); 0 for properties it breaks, as
                                       prepend-ones (a leading 1 makes a -1 valid) */
    int opmodes_percent;            /* pdpd and explicit: how often under the profiles of
                                       OpenVINO's and nGraph's op modes (openvino-select,
                                       ngraph-select, openvino-broadcast, ngraph-explicit);
                                       0 where they have no meaning (values, partial shapes) */
    int sut_max_operands;           /* none and numpy: the SUT's most shapes; above
                                       BC_GEN_OPERANDS_BEFORE a share of cases has more
                                       (0: BC_GEN_OPERANDS_BEFORE) */
    int empty_fold_percent;         /* numpy: how often under profile numpy-empty-fold, half
                                       of those with no shape (RULES.md §3.1); 0 unless the
                                       SUT declares the profile */
    int value_tier;                 /* with value_sized: bc_value_tier (properties.h): 0 the
                                       above; 1 medium, 10^3 to 2^20 elements per result, no
                                       0 dims; 2 huge, past 2^31 elements, rank 2 or 3 */
} bc_gen_request;

/* Fills c (params, shapes; the expectation is left unset) from r. */
void bc_gen_case(bc_prng *r, const bc_gen_request *req, bc_vector *c);

#endif
