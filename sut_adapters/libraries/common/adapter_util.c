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

/* The bits of the comma-separated names in env variable `var` among
 * names[0..count); all bits if the variable is unset. */
static uint32_t mask_of(const char *var, const char *const *names, int count)
{
    const char *v = getenv(var);
    if (!v)
        return ~0u;
    uint32_t mask = 0;
    for (int i = 0; i < count; i++) {
        size_t len = strlen(names[i]);
        for (const char *p = v; (p = strstr(p, names[i])) != NULL; p += len)
            if ((p == v || p[-1] == ',') && (p[len] == '\0' || p[len] == ','))
                mask |= 1u << i;
    }
    return mask;
}

int bcu_narrow_caps(bc_adapter_capabilities *caps)
{
    static const char *const ops[] = {"add", "sub", "mul", "div", "max",
                                      "min", "equal", "less", "and", "or"};
    static const char *const dtypes[] = {"bool",  "int8",    "uint8",   "int32",
                                         "int64", "float32", "float64", "float16"};
    static const char *const rules[] = {"none",         "numpy",         "onnx-uni", "pdpd",
                                        "broadcast-to", "bidirectional", "explicit"};
    static const char *const features[] = {"shape", "elementwise", "select", "broadcast",
                                           "sum-to-shape"};
    bc_adapter_capabilities before = *caps;
    caps->ops &= mask_of("BC_ADAPTER_ONLY_OPS", ops, 10);
    caps->dtypes &= mask_of("BC_ADAPTER_ONLY_DTYPES", dtypes, 8);
    caps->rules &= mask_of("BC_ADAPTER_ONLY_RULES", rules, 7);
    caps->features &= mask_of("BC_ADAPTER_ONLY_FEATURES", features, 5);
    return memcmp(&before, caps, sizeof before) != 0;
}

int bcu_triage_decline(int32_t n, const bc_adapter_shape *shapes)
{
    static int scalars = -1, empty = -1;
    if (scalars < 0) {
        scalars = getenv("BC_ADAPTER_TRIAGE_NO_SCALARS") != NULL;
        empty = getenv("BC_ADAPTER_TRIAGE_NO_EMPTY") != NULL;
    }
    for (int32_t i = 0; i < n; i++) {
        if (scalars && shapes[i].rank == 0)
            return 1;
        for (int32_t k = 0; empty && k < shapes[i].rank; k++)
            if (shapes[i].dims[k] == 0)
                return 1;
    }
    return 0;
}
