/* Declares shape inference without an infer_shape function. */
#include "broadcheck/adapter.h"

static const bc_adapter liar = {
    .struct_size = sizeof(bc_adapter),
    .abi_version = BC_ADAPTER_ABI_VERSION,
    .name = "liar",
    .caps = {.features = BC_ADAPTER_FEATURE_SHAPE, .rules = 1u << BC_ADAPTER_RULE_NUMPY,
             .max_rank = 64, .max_operands = 64},
};

BC_ADAPTER_EXPORT const bc_adapter *bc_adapter_entry_v1(void);

const bc_adapter *bc_adapter_entry_v1(void)
{
    return &liar;
}
