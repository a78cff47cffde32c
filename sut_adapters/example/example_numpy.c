/*
 * NumPy broadcasting of shapes, checked in the order spec/RULES.md §1.4
 * prescribes, so that each rejection names the kind broadcheck expects:
 * parameters, operand count, negative dims, then the rule (§3).
 */
#include "example_numpy.h"

#include <stdio.h>

static void reject(bc_adapter_answer *a, uint32_t kind, const char *message)
{
    a->status = BC_ADAPTER_REJECTED;
    a->error_kind = kind;
    snprintf(a->message, sizeof a->message, "%s", message);
}

void example_numpy_shape(const bc_adapter_params *p, int32_t n, const bc_adapter_shape *shapes,
                         bc_adapter_answer *a)
{
    /* numpy takes no axis or axes, and no profile but its default. */
    uint32_t foreign = BC_ADAPTER_OPT_AXIS | BC_ADAPTER_OPT_AXES | BC_ADAPTER_OPT_AXES_MAPPING;
    if ((p->options & foreign) || p->naxes > BC_ADAPTER_MAX_RANK ||
        ((p->options & BC_ADAPTER_OPT_PROFILE) && p->profile != BC_ADAPTER_PROFILE_DEFAULT)) {
        reject(a, BC_ADAPTER_ERR_BAD_PARAMS, "numpy takes no axis, axes or profile");
        return;
    }
    if (n < 1 || n > 64) {
        reject(a, BC_ADAPTER_ERR_OPERAND_COUNT, "numpy takes 1 to 64 shapes");
        return;
    }
    int32_t rank = 0;
    for (int32_t i = 0; i < n; i++) {
        for (int32_t k = 0; k < shapes[i].rank; k++)
            if (shapes[i].dims[k] < 0) {
                reject(a, BC_ADAPTER_ERR_NEGATIVE_DIM, "a negative dim");
                return;
            }
        if (shapes[i].rank > rank)
            rank = shapes[i].rank;
    }
    /* Right-aligned: result axis r is axis r - (rank - rank_i) of operand i. */
    for (int32_t r = 0; r < rank; r++) {
        int64_t dim = 1;
        for (int32_t i = 0; i < n; i++) {
            int32_t k = r - (rank - shapes[i].rank);
            if (k < 0 || shapes[i].dims[k] == 1)
                continue; /* missing, or 1: stretches to anything, 0 included */
            if (dim != 1 && shapes[i].dims[k] != dim) {
                char text[128];
                snprintf(text, sizeof text, "dims %lld and %lld differ at axis %d",
                         (long long)dim, (long long)shapes[i].dims[k], (int)r);
                reject(a, BC_ADAPTER_ERR_DIM_MISMATCH, text);
                return;
            }
            dim = shapes[i].dims[k];
        }
        a->dims[r] = dim;
    }
    a->status = BC_ADAPTER_OK;
    a->rank = rank;
}
