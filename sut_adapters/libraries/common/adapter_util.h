/*
 * Helpers shared by the native-library adapters of sut_adapters/libraries/
 * (oneDNN, XNNPACK, xtensor, Eigen).  Nothing here decides a broadcasting
 * question: the helpers count elements, copy strided views, format
 * messages.  Each
 * adapter's README (docs/certifications/NAME.md) says which of them it uses
 * and why.
 */
#ifndef BC_ADAPTER_UTIL_H
#define BC_ADAPTER_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "broadcheck/adapter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of one element of a BC_ADAPTER_DTYPE_* (bool is one byte). */
size_t bcu_dtype_size(uint32_t dtype);

/* The element count of dims[0..rank), 0 if any dim is 0; -1 if a dim is
 * negative or the count does not fit in int64_t. */
int64_t bcu_numel(int32_t rank, const int64_t *dims);

/* Copies view t into dst, C-contiguous (row-major), element by element. */
void bcu_gather(const bc_adapter_tensor *t, void *dst);

/* Sets answer->status and a printf-formatted message. */
void bcu_answer(bc_adapter_answer *a, uint32_t status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
