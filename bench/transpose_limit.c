/*
 * The bench's transpose limit: plain transpose copies, out[i][j] =
 * mem[j][i] with nothing added, over an n x n float matrix.  What a
 * transposed read costs on this machine whatever the engine does: the
 * `transposed` pattern's engine rate is compared with the best of these
 * in the same round (bench.c).  Written for the bench, independent of the
 * engine's tile code, so that a slow tile path cannot slow its own limit.
 */
#include "transpose_limit.h"

#include <stddef.h>
#include <stdlib.h>
#if defined(__x86_64__) && defined(__GNUC__) /* GCC and Clang: target("avx") */
#include <immintrin.h>
#define TLIMIT_AVX 1
#else
#define TLIMIT_AVX 0
#endif

const char *const bc_tlimit_names[BC_TLIMITS] = {"scalar", "tiles", "tiles-nt", "rows-nt"};

/* 32 x 32 blocks: a block's 32 memory rows (32 lines each of 128 bytes
 * read, 4 KiB) and its 32 output rows stay in L1 while it is copied. */
enum { SCALAR_BLOCK = 32 };

static void transpose_scalar(float *out, const float *mem, int64_t n)
{
    for (int64_t i0 = 0; i0 < n; i0 += SCALAR_BLOCK)
        for (int64_t j0 = 0; j0 < n; j0 += SCALAR_BLOCK) {
            const int64_t ie = i0 + SCALAR_BLOCK < n ? i0 + SCALAR_BLOCK : n;
            const int64_t je = j0 + SCALAR_BLOCK < n ? j0 + SCALAR_BLOCK : n;
            for (int64_t i = i0; i < ie; i++)
                for (int64_t j = j0; j < je; j++)
                    out[i * n + j] = mem[j * n + i];
        }
}

#if TLIMIT_AVX
/* One 8 x 8 block: rows r[0..7] (8 floats each) in, their columns out.
 * Unpack pairs, shuffle pairs of pairs, then swap 128-bit halves. */
__attribute__((target("avx"))) static inline void tr8(__m256 r[8])
{
    __m256 t[8], u[8];
    for (int k = 0; k < 8; k += 2) {
        t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
        t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
    }
    for (int k = 0; k < 8; k += 4) {
        u[k] = _mm256_shuffle_ps(t[k], t[k + 2], 0x44);
        u[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], 0xee);
        u[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0x44);
        u[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0xee);
    }
    for (int k = 0; k < 4; k++) {
        r[k] = _mm256_permute2f128_ps(u[k], u[k + 4], 0x20);
        r[k + 4] = _mm256_permute2f128_ps(u[k], u[k + 4], 0x31);
    }
}

/* 8 output rows x 16 columns from 16 memory rows, 8 floats each (m: the
 * first, row stride msrc): two 8 x 8 blocks, stored as whole 64-byte
 * lines of the 8 output rows (o: the first, row stride n; 64-byte
 * aligned).  Storing one half of every line and then the
 * other ran at half the rate with non-temporal stores (lines left partial
 * in the write-combining buffers). */
__attribute__((target("avx"))) static inline void tr16x8(float *o, const float *m, int64_t n,
                                                       int64_t msrc, int nt)
{
    __m256 r[8], q[8];
    for (int k = 0; k < 8; k++) {
        r[k] = _mm256_loadu_ps(m + k * msrc);
        q[k] = _mm256_loadu_ps(m + (k + 8) * msrc);
    }
    tr8(r);
    tr8(q);
    for (int k = 0; k < 8; k++) {
        if (nt) {
            _mm256_stream_ps(o + k * n, r[k]);
            _mm256_stream_ps(o + k * n + 8, q[k]);
        } else {
            _mm256_storeu_ps(o + k * n, r[k]);
            _mm256_storeu_ps(o + k * n + 8, q[k]);
        }
    }
}

/* Tiles of TR output rows x TC output columns (TC memory rows read in runs
 * of TR floats, 512 bytes), walked along the memory rows, so each row's
 * reads continue where the last tile left them. */
enum { TR = 128, TC = 64 };

__attribute__((target("avx"))) static void transpose_tiles(float *out, const float *mem,
                                                           int64_t n, int nt)
{
    for (int64_t j0 = 0; j0 < n; j0 += TC)
        for (int64_t i0 = 0; i0 < n; i0 += TR)
            for (int64_t i = i0; i < i0 + TR; i += 8)
                for (int64_t j = j0; j < j0 + TC; j += 16)
                    tr16x8(out + i * n + j, mem + j * n + i, n, n, nt);
    if (nt)
        _mm_sfence();
}

/* Two passes per 16 memory rows: copied whole into buf (16 sequential
 * reads of n floats: what a transposed read can get closest to an
 * in-order read), then transposed from there into one 64-byte line of
 * each output row, non-temporal.  buf holds 16 x n floats, 32-byte
 * aligned. */
__attribute__((target("avx"))) static void transpose_rows(float *out, const float *mem,
                                                          int64_t n, float *buf)
{
    for (int64_t j0 = 0; j0 < n; j0 += 16) {
        for (int64_t k = 0; k < 16; k++)
            for (int64_t i = 0; i < n; i += 8)
                _mm256_store_ps(buf + k * n + i, _mm256_loadu_ps(mem + (j0 + k) * n + i));
        for (int64_t i = 0; i < n; i += 8)
            tr16x8(out + i * n + j0, buf + i, n, n, 1);
    }
    _mm_sfence();
}
#endif

int bc_tlimit_run(int way, float *out, const float *mem, int64_t n)
{
#if TLIMIT_AVX
    if (way != BC_TLIMIT_SCALAR) {
        if (!__builtin_cpu_supports("avx") || n % TR != 0 || (uintptr_t)out % 64 != 0)
            return 0;
        if (way != BC_TLIMIT_ROWS_NT) {
            transpose_tiles(out, mem, n, way == BC_TLIMIT_TILES_NT);
            return 1;
        }
        float *buf = aligned_alloc(64, (size_t)n * 16 * sizeof *buf);
        if (!buf)
            return 0;
        transpose_rows(out, mem, n, buf);
        free(buf);
        return 1;
    }
#else
    if (way != BC_TLIMIT_SCALAR)
        return 0;
#endif
    transpose_scalar(out, mem, n);
    return 1;
}

int bc_tlimit_check(const float *out, const float *mem, int64_t n)
{
    for (int64_t i = 0; i < n; i += 7)
        for (int64_t j = 0; j < n; j += 13)
            if (out[i * n + j] != mem[j * n + i])
                return 0;
    return 1;
}
