/* A descriptor from a future ABI version: refused at load, exit 2. */
#include "broadcheck/adapter.h"

static const bc_adapter future = {
    .struct_size = sizeof(bc_adapter),
    .abi_version = 3,
    .name = "future",
    .caps = {.max_operands = 1},
};

BC_ADAPTER_EXPORT const bc_adapter *bc_adapter_entry_v1(void);

const bc_adapter *bc_adapter_entry_v1(void)
{
    return &future;
}
