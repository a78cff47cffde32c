/* Helpers shared by the native-library adapters: see adapter_util.h. */
#include "adapter_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t bcu_dtype_size(uint32_t dtype)
{
    switch (dtype) {
    case BC_ADAPTER_DTYPE_BOOL:
    case BC_ADAPTER_DTYPE_INT8:
    case BC_ADAPTER_DTYPE_UINT8: return 1;
    case BC_ADAPTER_DTYPE_FLOAT16: return 2;
    case BC_ADAPTER_DTYPE_INT32:
    case BC_ADAPTER_DTYPE_FLOAT32: return 4;
    default: return 8;
    }
}

int64_t bcu_numel(int32_t rank, const int64_t *dims)
{
    for (int32_t k = 0; k < rank; k++) {
        if (dims[k] < 0)
            return -1;
        if (dims[k] == 0)
            return 0;
    }
    int64_t n = 1;
    for (int32_t k = 0; k < rank; k++) {
        if (n > INT64_MAX / dims[k])
            return -1;
        n *= dims[k];
    }
    return n;
}

void bcu_gather(const bc_adapter_tensor *t, void *dst)
{
    int64_t numel = bcu_numel(t->rank, t->dims);
    size_t size = bcu_dtype_size(t->dtype);
    int64_t idx[BC_ADAPTER_MAX_RANK] = {0};
    char *out = dst;
    for (int64_t e = 0; e < numel; e++) {
        int64_t at = t->offset;
        for (int32_t k = 0; k < t->rank; k++)
            at += idx[k] * t->strides[k];
        memcpy(out, (const char *)t->data + at * (int64_t)size, size);
        out += size;
        for (int32_t k = t->rank - 1; k >= 0 && ++idx[k] == t->dims[k]; k--)
            idx[k] = 0; /* row-major odometer */
    }
}

void bcu_answer(bc_adapter_answer *a, uint32_t status, const char *fmt, ...)
{
    a->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->message, sizeof a->message, fmt, ap);
    va_end(ap);
}
