/* A version-1 descriptor declaring more than version 1's 72 operands: its
 * adapter may size arrays by 72, so it is refused at load, exit 2. */
#include "broadcheck/adapter.h"

static const bc_adapter v1_many = {
    .struct_size = sizeof(bc_adapter),
    .abi_version = 1,
    .name = "v1-many",
    .caps = {.features = 0, .max_operands = BC_ADAPTER_V1_MAX_OPERANDS + 1},
};

BC_ADAPTER_EXPORT const bc_adapter *bc_adapter_entry_v1(void);

const bc_adapter *bc_adapter_entry_v1(void)
{
    return &v1_many;
}
