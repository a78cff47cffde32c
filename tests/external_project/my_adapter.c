/*
 * An outside project's own adapter, built against the installed
 * <broadcheck/adapter.h> alone: "mylib" broadcasts two shapes the NumPy way
 * and rejects negative dims.  It declares exactly that (shape inference,
 * rule numpy, two operands), so broadcheck answers everything else
 * "unsupported" for it.
 */
#include <stdio.h>

#include <broadcheck/adapter.h>

/* mylib's own broadcasting, as its authors wrote it. */
static void mylib_broadcast(void *context, const bc_adapter_params *p, int32_t n,
                            const bc_adapter_shape *s, bc_adapter_answer *answer)
{
    (void)context;
    (void)p;
    int32_t rank = 0;
    for (int32_t i = 0; i < n; i++)
        rank = s[i].rank > rank ? s[i].rank : rank;
    answer->rank = rank;
    for (int32_t r = 0; r < rank; r++) {
        int64_t dim = 1;
        for (int32_t i = 0; i < n; i++) {
            int32_t k = r - (rank - s[i].rank);
            if (k < 0)
                continue;
            int64_t d = s[i].dims[k];
            if (d < 0) {
                answer->status = BC_ADAPTER_REJECTED;
                answer->error_kind = BC_ADAPTER_ERR_NEGATIVE_DIM;
                snprintf(answer->message, sizeof answer->message, "negative dim %lld",
                         (long long)d);
                return;
            }
            if (d == 1)
                continue;
            if (dim != 1 && d != dim) {
                answer->status = BC_ADAPTER_REJECTED;
                answer->error_kind = BC_ADAPTER_ERR_DIM_MISMATCH;
                snprintf(answer->message, sizeof answer->message, "%lld vs %lld at axis %d",
                         (long long)dim, (long long)d, (int)r);
                return;
            }
            dim = d;
        }
        answer->dims[r] = dim;
    }
    answer->status = BC_ADAPTER_OK;
}

static const bc_adapter mylib_adapter = {
    sizeof(bc_adapter), BC_ADAPTER_ABI_VERSION, "mylib", "1.0",
    "an outside project's adapter: numpy shape inference",
    {BC_ADAPTER_FEATURE_SHAPE, 1u << BC_ADAPTER_RULE_NUMPY, 0, 0, 0, BC_ADAPTER_MAX_RANK, 2},
    NULL, mylib_broadcast, NULL, 0, NULL,
};

BC_ADAPTER_EXPORT const bc_adapter *bc_adapter_entry_v1(void)
{
    return &mylib_adapter;
}
