/*
 * Helpers shared by the native-library adapters of sut_adapters/libraries/
 * (oneDNN, XNNPACK, xtensor, Eigen).  Nothing here decides a broadcasting
 * question: the helpers count elements, copy strided views, format
 * messages, and narrow a descriptor's capabilities for triage runs.  Each
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

/* Triage only (docs/certifications/README.md): narrows caps to the
 * intersection with the environment variables BC_ADAPTER_ONLY_OPS
 * (e.g. "add,mul"), BC_ADAPTER_ONLY_DTYPES ("float32,int32"),
 * BC_ADAPTER_ONLY_RULES ("numpy") and BC_ADAPTER_ONLY_FEATURES
 * ("shape,elementwise,select,broadcast,sum-to-shape").  Unset variables
 * change nothing; a certification is run with none of them set.  Returns 1
 * if anything was narrowed. */
int bcu_narrow_caps(bc_adapter_capabilities *caps);

/* Triage only: 1 when BC_ADAPTER_TRIAGE_NO_SCALARS is set and one of the
 * n shapes has rank 0, or BC_ADAPTER_TRIAGE_NO_EMPTY is set and one has a
 * 0 dim; the adapter then answers "unsupported", so that a known
 * divergence does not hide the next one from 'run' (which shrinks only the
 * first failure of a cell).  Never set in a certification. */
int bcu_triage_decline(int32_t n, const bc_adapter_shape *shapes);

#ifdef __cplusplus
}
#endif
#endif
