/* float <-> binary16 arrays, F16C when the CPU has it (half.h). */
#include "half.h"

#include <string.h>

#if BC_HAVE_FLOAT16 && (defined(__x86_64__) || defined(__i386__)) && \
    (defined(__GNUC__) || defined(__clang__))
#define BC_HALF_F16C 1
#include <cpuid.h>
#include <immintrin.h>
#else
#define BC_HALF_F16C 0
#endif

#if BC_HAVE_FLOAT16

void bc_half_from_float_soft(uint16_t *dst, const float *src, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        _Float16 h = (_Float16)src[i];
        memcpy(&dst[i], &h, sizeof h);
    }
}

void bc_half_to_float_soft(float *dst, const uint16_t *src, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        _Float16 h;
        memcpy(&h, &src[i], sizeof h);
        dst[i] = (float)h;
    }
}

#if BC_HALF_F16C
int bc_half_hardware(void)
{
    /* F16C instructions are VEX-encoded: they need the OS to keep the AVX
     * state, which __builtin_cpu_supports("avx") checks (XGETBV); F16C
     * itself is CPUID leaf 1, ECX bit 29 (Intel SDM vol. 2A, CPUID, table
     * 3-10).  Clang's __builtin_cpu_supports knows no "f16c". */
    unsigned a, b, c, d;
    return __builtin_cpu_supports("avx") && __get_cpuid(1, &a, &b, &c, &d) && (c >> 29 & 1u);
}

/* _MM_FROUND_CUR_DIRECTION: rounded as MXCSR says, as the software path
 * rounds (libgcc reads the rounding mode from MXCSR). */
__attribute__((target("f16c"))) static void from_float_f16c(uint16_t *dst, const float *src,
                                                            size_t n)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m128i h = _mm_cvtps_ph(_mm_loadu_ps(src + i), _MM_FROUND_CUR_DIRECTION);
        _mm_storel_epi64((__m128i *)(void *)(dst + i), h);
    }
    for (; i < n; i++)
        dst[i] = (uint16_t)_mm_extract_epi16(
            _mm_cvtps_ph(_mm_set_ss(src[i]), _MM_FROUND_CUR_DIRECTION), 0);
}

__attribute__((target("f16c"))) static void to_float_f16c(float *dst, const uint16_t *src,
                                                          size_t n)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        _mm_storeu_ps(dst + i, _mm_cvtph_ps(_mm_loadl_epi64((const __m128i *)(const void *)(src + i))));
    for (; i < n; i++)
        dst[i] = _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(src[i])));
}
#endif

void bc_half_from_float(uint16_t *dst, const float *src, size_t n, int hardware)
{
#if BC_HALF_F16C
    if (hardware) {
        from_float_f16c(dst, src, n);
        return;
    }
#endif
    (void)hardware;
    bc_half_from_float_soft(dst, src, n);
}

void bc_half_to_float(float *dst, const uint16_t *src, size_t n, int hardware)
{
#if BC_HALF_F16C
    if (hardware) {
        to_float_f16c(dst, src, n);
        return;
    }
#endif
    (void)hardware;
    bc_half_to_float_soft(dst, src, n);
}

#endif

#if !BC_HALF_F16C
int bc_half_hardware(void)
{
    return 0;
}
#endif
