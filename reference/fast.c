/*
 * The fast evaluator: the plan (plan.c) walked by specialised kernels.
 *
 * The plan leaves n axes.  The two innermost are handed to a kernel as one
 * 2-D block (so a short inner axis, rank 8 with extent 8, still gives the
 * kernel 64 or more elements per call); the outer ones are an odometer.
 * Binary ops take three inner axes per call (a 3-D kernel: rank 8's
 * 8 x 8 x 8), compiled twice on x86-64, portable and AVX2, the AVX2 clone
 * picked at run time (use_avx2).  A
 * kernel's inner loop is specialised for the cases that matter:
 *
 *   all contiguous                   out[i] = a[i] op b[i]
 *   contiguous with a stride-0 b     out[i] = a[i] op y
 *   a stride-0 a with contiguous b   out[i] = x op b[i]
 *   anything else                    byte strides
 *
 * Vector code, whatever the optimisation level.  Every kernel's output is
 * `restrict`: the driver guarantees, once per call, that operand 0 shares no
 * memory with any input (below), so the compiler needs no run-time overlap
 * check, which GCC 12 at -O2 declines to emit (it then leaves the loop
 * scalar).  The hot loops carry `#pragma omp simd` (BC_SIMD), honoured with
 * -fopenmp-simd (reference/CMakeLists.txt: no OpenMP runtime, no threads),
 * which vectorises them under GCC's -O2 cost model as well as at -O3 and
 * under Clang.  tests/kernel_vector_test.sh fails if they lose their packed
 * instructions.  The operations stay scalar.h's functions: the vector code
 * is the compiler's translation of the same IEEE expressions, lane by lane
 * (no -ffast-math, no reassociation), so results stay bit-identical to the
 * naive evaluator's.
 *
 * The driver routes a call's output through a small stack buffer (the
 * kernel writes the buffer, the driver then copies it out) when
 *
 *  - the output is an input (in place, the only overlap the front end
 *    allows): the kernel reads the input from memory and writes the buffer,
 *    so `restrict` holds; a piece is read whole before it is written back,
 *    and in-place views are identical, so each element is read before its
 *    own write, as the naive evaluator does;
 *  - the output is larger than the last-level cache (nt_min_bytes): the
 *    buffer, hot in L1, is written out with non-temporal stores (SSE2
 *    `_mm_stream_si128`, an `sfence` at the end of the call; plain copies
 *    where SSE2 is absent), which skip the read-for-ownership of each line.
 *    Except for binary ops on an AVX2 CPU where every output row starts
 *    32-byte aligned and is a whole number of 32 bytes, and the output is
 *    not an input (nt_rows, run_exec): there the 3-D kernel's streaming
 *    variant (BINARY_NT_KERNEL) stores each 32 bytes of results straight
 *    from registers, non-temporal, no buffer: through the buffer, the
 *    kernel's stores waited behind the previous piece's streaming stores,
 *    and write-only patterns ran at half the non-temporal limit.
 *
 * An input that walks memory across rows rather than along them (a
 * transposed view) makes the driver tile the two inner axes and gather the
 * tile of that input into a contiguous buffer first, reading each memory row
 * of the input as one run: the cache lines are used whole when they are
 * fetched instead of being revisited once per row at a stride that maps them
 * all to one cache set.
 *
 * Values come from scalar.h, the same functions the naive evaluator calls;
 * only the order of visits differs, and nothing here depends on it (sums
 * keep row-major order, see SUM_KERNEL, but where every order gives the
 * same bits: *_sum_any_order).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

#include "engine.h"
#include "scalar.h"

#define BC_SIMD _Pragma("omp simd")
/* Clang warns (-Wpass-failed) where it does not honour an `omp simd`: the
 * streaming kernels' loops of a constant 32 bytes, which it unrolls whole
 * and then vectorises as straight code (k3nt_f32_add: vaddps, vmovntdq),
 * and the any-order sums inlined into sum_rows_*, whose reductions it
 * leaves scalar there (GCC vectorises both).  A plain build must build
 * without a warning (scripts/plain-build.sh); which loops hold vector code
 * is checked on the built objects (tests/kernel_vector_test.sh), not by
 * this hint. */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpass-failed"
#endif

/* x86-64 compilers that take a function's target: the 3-D binary kernels
 * are compiled a second time for AVX2 (256-bit vectors, half the
 * instructions per element), picked at run time where the CPU has it
 * (use_avx2).  AVX2 alone, not FMA: nothing can be contracted, so the
 * clones compute the same IEEE expressions lane by lane as the portable
 * ones. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BC_HAVE_AVX2_CLONES 1
#define BC_AVX2_CLONE(...) __attribute__((target("avx2"))) __VA_ARGS__
#else
#define BC_HAVE_AVX2_CLONES 0
#define BC_AVX2_CLONE(...)
#endif

/* A kernel walks n1 rows of n0 elements; p[j] is operand j's first
 * element, s1[j] and s0[j] its byte strides between rows and elements
 * (operand 0 is the output).  Contract: the memory operand 0 reaches is
 * reached by no input (the driver's buffers see to it).  engine.h names
 * the type for small_binary, which calls one straight. */
typedef bc_fast_block_fn kernel_fn;
/* The same over n3 x n2 planes of n1 x n0 (s3, s2: the byte strides
 * between planes), for the binary ops: high-rank patterns whose two inner
 * axes are short (rank 8's 8 x 8) get 8 x 8 x 8 x 8 elements per call,
 * rank-5 small's 5 x 3 x 6 x 4: the stride case is picked, and the driver
 * steps its odometer, once per four axes instead of once per three. */
typedef void (*kernel3_fn)(int64_t n3, int64_t n2, int64_t n1, int64_t n0, char *const *p,
                           const int64_t *s3, const int64_t *s2, const int64_t *s1,
                           const int64_t *s0);

/* Tile of the two inner axes for transposed inputs: rows x columns, for
 * elements of up to 4 bytes (8-byte elements: half the rows).  128 rows
 * make each gathered memory row a run of 512 bytes (8 lines) rather than
 * 128: measured against 32 x 64 (and 16 x 16, 32 x 8, 8 x 32, 64 x 64,
 * two-level tiles, prefetch, plain stores) in docs/ENGINE.md.  Tiles are
 * taken when both inner extents are at least TILE_MIN_ROWS x TILE_MIN_COLS. */
enum { TILE_ROWS = 128, TILE_COLS = 64, TILE_MIN_ROWS = 64, TILE_MIN_COLS = 128 };
/* The output buffer of a routed call (PIECE_BYTES of it), and the tile
 * buffers: the output's and the gathered tile of each transposed input. */
enum { PIECE_BYTES = 16 << 10, TILE_BYTES = TILE_ROWS * TILE_COLS * 4, MAX_GATHERED = 3 };
/* Outputs below this many bytes never use non-temporal stores (and never
 * ask the environment for the threshold: tiny calls pay nothing). */
enum { NT_FLOOR_BYTES = 16 << 10 };

/* ---- binary kernels -------------------------------------------------- */

/* The loops, one per stride case, always inlined so that each kernel holds
 * its vector code (and kernel_vector_test.sh finds it there). */
#define BINARY_LOOPS(N, T, NAME, OT)                                                   \
    static inline __attribute__((always_inline)) void vv_##N##_##NAME(                 \
        int64_t n, OT *restrict po, const T *restrict pa, const T *restrict pb)        \
    {                                                                                  \
        BC_SIMD for (int64_t i = 0; i < n; i++)                                        \
            po[i] = N##_##NAME(pa[i], pb[i]);                                          \
    }                                                                                  \
    static inline __attribute__((always_inline)) void vs_##N##_##NAME(                 \
        int64_t n, OT *restrict po, const T *restrict pa, const T y)                   \
    {                                                                                  \
        BC_SIMD for (int64_t i = 0; i < n; i++)                                        \
            po[i] = N##_##NAME(pa[i], y);                                              \
    }                                                                                  \
    static inline __attribute__((always_inline)) void sv_##N##_##NAME(                 \
        int64_t n, OT *restrict po, const T x, const T *restrict pb)                   \
    {                                                                                  \
        BC_SIMD for (int64_t i = 0; i < n; i++)                                        \
            po[i] = N##_##NAME(x, pb[i]);                                              \
    }                                                                                  \
    static inline __attribute__((always_inline)) void gs_##N##_##NAME(                 \
        int64_t n, char *restrict o, int64_t so, const char *restrict a, int64_t sa,   \
        const char *restrict b, int64_t sb)                                            \
    {                                                                                  \
        for (int64_t i = 0; i < n; i++)                                                \
            *(OT *)(o + i * so) = N##_##NAME(*(const T *)(a + i * sa),                 \
                                             *(const T *)(b + i * sb));                \
    }

/* The rows of a block of n3 x n2 planes of n1 rows through FN(W, ...),
 * W the row's length.  Rows of 16 or 32 bytes (rank 8's 8 floats, rank
 * 5's 4) get a loop of constant length, which the compiler turns into
 * straight vector code: no trip-count set-up, no remainder test, per row;
 * the length is tested once per block, not per plane.  The planes are
 * rank 8's third and fourth axes: one call does 8 x 8 x 8 x 8 elements
 * instead of one 8 x 8 block per call and an odometer step between blocks. */
/* two rows per iteration of the row loop: short rows (rank 5's 4 floats)
 * pay its counter and branch per pair */
#if defined(__GNUC__) && !defined(__clang__)
#define BC_UNROLL2 _Pragma("GCC unroll 2")
#else
#define BC_UNROLL2
#endif
#define EACH_PLANE(FN, W, ...)                                                         \
    for (int64_t i3 = 0; i3 < n3; i3++)                                                \
        for (int64_t i2 = 0; i2 < n2; i2++) {                                          \
            char *o = p[0] + i3 * o3 + i2 * o2;                                        \
            const char *a = p[1] + i3 * a3 + i2 * a2, *b = p[2] + i3 * b3 + i2 * b2;   \
            BC_UNROLL2 for (int64_t i = 0; i < n1; i++, o += o1, a += a1, b += b1)     \
                FN(W, __VA_ARGS__);                                                    \
        }
/* BC_FAST_LEAN (set for the sanitize and fuzz builds, reference/CMakeLists.txt):
 * one loop of length n0 for rows of every length.  The constant-length
 * copies are faster code for the same source lines, and they are what made
 * this file slow to compile: under ASan + UBSan + libFuzzer's coverage at
 * -O2, 679 s with them and 190 s without (clang 14, one core each). */
#ifndef BC_FAST_LEAN
#define BC_FAST_LEAN 0
#endif
#define EACH_ROW_ANY_LENGTH(FN, ...)                                                   \
    do {                                                                               \
        EACH_PLANE(FN, n0, __VA_ARGS__)                                                \
    } while (0)
#if BC_FAST_LEAN
#define EACH_ROW(FN, ...) EACH_ROW_ANY_LENGTH(FN, __VA_ARGS__)
#else
#define EACH_ROW(FN, ...)                                                              \
    do {                                                                               \
        if (n0 * e == 32) {                                                            \
            EACH_PLANE(FN, 32 / e, __VA_ARGS__)                                        \
        } else if (n0 * e == 16) {                                                     \
            EACH_PLANE(FN, 16 / e, __VA_ARGS__)                                        \
        } else {                                                                       \
            EACH_PLANE(FN, n0, __VA_ARGS__)                                            \
        }                                                                              \
    } while (0)
#endif

/* Outer-product planes (rank-5 small's inner 6 x 4 blocks): every row of a
 * plane reads the same row of one input (its row stride 0) and one element
 * of the other.  That row is copied once per plane into a local the output
 * cannot alias, so it stays in a register: per row the other input's
 * element, the op and the store, not a reload of the row and a step of its
 * pointer by 0.  Taken where the plane's rows follow each other in the
 * output (row stride the row's bytes) and the other input steps by one
 * element a row, as on contiguous views: row i is at o + i * hw elements,
 * the other input's element at i, so one index walks both, no pointer
 * stepped by a runtime stride (12 instructions per two rows of rank-5
 * small instead of 15).  Strided views' planes take EACH_ROW.  HELD: the
 * held input's row; FN's arguments name the local h, the index i and the
 * row's length hw (a constant). */
#define HELD_PLANE(T, FN, W, HELD, ...)                                                \
    for (int64_t i3 = 0; i3 < n3; i3++)                                                \
        for (int64_t i2 = 0; i2 < n2; i2++) {                                          \
            char *o = p[0] + i3 * o3 + i2 * o2;                                        \
            const char *a = p[1] + i3 * a3 + i2 * a2, *b = p[2] + i3 * b3 + i2 * b2;   \
            enum { hw = W };                                                           \
            T h[W];                                                                    \
            memcpy(h, HELD, sizeof h);                                                 \
            BC_UNROLL2 for (int64_t i = 0; i < n1; i++)                                \
                FN(W, __VA_ARGS__);                                                    \
        }
/* EACH_ROW's constant lengths (16 or 32 bytes, HELD_LEN) with a held row. */
#define HELD_LEN (!BC_FAST_LEAN && (n0 * e == 16 || n0 * e == 32))
#define HELD_ROWS(T, FN, HELD, ...)                                                    \
    do {                                                                               \
        if (n0 * e == 16) {                                                            \
            HELD_PLANE(T, FN, 16 / (int)sizeof(T), HELD, __VA_ARGS__)                  \
        } else {                                                                       \
            HELD_PLANE(T, FN, 32 / (int)sizeof(T), HELD, __VA_ARGS__)                  \
        }                                                                              \
    } while (0)

/* The streaming route's kernels (docs/ENGINE.md "Seventh pass"): the AVX2
 * 3-D kernel again, its output written straight to memory by 32-byte
 * non-temporal stores, no buffer in between.  Through the buffer, the
 * kernel's plain stores into it waited behind the previous piece's
 * non-temporal stores (stores commit in order), so computing and streaming
 * took turns: rank8-write-only ran at about half the non-temporal limit.
 * Each 32-byte chunk of a row is W results of the same scalar.h expression
 * (the stride case's loop over a constant W into a local), then one store.
 * The driver calls them only where every output row starts 32-byte aligned
 * and is a whole number of chunks (nt_rows), the output is not an input,
 * and the CPU has AVX2; the rest keeps the buffer.  Not in BC_FAST_LEAN
 * builds (the buffer route there): they are more code to compile. */
#if BC_HAVE_AVX2_CLONES && !BC_FAST_LEAN
#define BC_FAST_NT 1
#define NT_ROWS(OT, ...)                                                               \
    for (int64_t i3 = 0; i3 < n3; i3++)                                                \
        for (int64_t i2 = 0; i2 < n2; i2++) {                                          \
            char *o = p[0] + i3 * o3 + i2 * o2;                                        \
            const char *a = p[1] + i3 * a3 + i2 * a2, *b = p[2] + i3 * b3 + i2 * b2;   \
            if (n0 == W) { /* rank 8's rows: one chunk, no chunk loop */               \
                BC_UNROLL2 for (int64_t i = 0; i < n1; i++, o += o1, a += a1, b += b1) { \
                    const int64_t c = 0;                                               \
                    union { __m256i v; OT t[W]; } u;                                   \
                    __VA_ARGS__;                                                       \
                    _mm256_stream_si256((__m256i *)(void *)o, u.v);                    \
                }                                                                      \
                continue;                                                              \
            }                                                                          \
            for (int64_t i = 0; i < n1; i++, o += o1, a += a1, b += b1)                \
                for (int64_t c = 0; c < n0; c += W) {                                  \
                    union { __m256i v; OT t[W]; } u;                                   \
                    __VA_ARGS__;                                                       \
                    _mm256_stream_si256((__m256i *)(void *)(o + c * (int64_t)sizeof(OT)), \
                                        u.v);                                          \
                }                                                                      \
        }
#define BINARY_NT_KERNEL(OPE, N, T, NAME, OT)                                          \
    BC_AVX2_CLONE(static void k3nt_##N##_##NAME(                                       \
        int64_t n3, int64_t n2, int64_t n1, int64_t n0, char *const *p,                \
        const int64_t *s3, const int64_t *s2, const int64_t *s1, const int64_t *s0)    \
    {                                                                                  \
        enum { W = 32 / (int)sizeof(OT) };                                             \
        const int64_t sa = s0[1], sb = s0[2], e = (int64_t)sizeof(T);                  \
        const int64_t o1 = s1[0], a1 = s1[1], b1 = s1[2];                              \
        const int64_t o2 = s2[0], a2 = s2[1], b2 = s2[2];                              \
        const int64_t o3 = s3[0], a3 = s3[1], b3 = s3[2];                              \
        if (sa == e && sb == e)                                                        \
            NT_ROWS(OT, vv_##N##_##NAME(W, u.t, (const T *)a + c, (const T *)b + c))   \
        else if (sa == e && sb == 0)                                                   \
            NT_ROWS(OT, vs_##N##_##NAME(W, u.t, (const T *)a + c, *(const T *)b))      \
        else if (sa == 0 && sb == e)                                                   \
            NT_ROWS(OT, sv_##N##_##NAME(W, u.t, *(const T *)a, (const T *)b + c))      \
        else                                                                           \
            NT_ROWS(OT, gs_##N##_##NAME(W, (char *)u.t, (int64_t)sizeof(OT), a + c * sa, \
                                        sa, b + c * sb, sb))                           \
    })
#else
#define BC_FAST_NT 0
#define BINARY_NT_KERNEL(OPE, N, T, NAME, OT)
#endif

/* row_: one row, its stride case picked for the row (the n-ary fold's
 * chunks); k_: a 2-D block, its stride case picked once for all its rows
 * (short rows, rank 8's 8 x 8 blocks, pay the dispatch once per block). */
#define BINARY_KERNEL(OPE, N, T, NAME, OT)                                             \
    BINARY_LOOPS(N, T, NAME, OT)                                                       \
    static void row_##N##_##NAME(int64_t n, char *restrict o, int64_t so,              \
                                 const char *restrict a, int64_t sa,                   \
                                 const char *restrict b, int64_t sb)                   \
    {                                                                                  \
        const int64_t e = (int64_t)sizeof(T);                                          \
        if (so == (int64_t)sizeof(OT) && sa == e && sb == e)                           \
            vv_##N##_##NAME(n, (OT *)o, (const T *)a, (const T *)b);                   \
        else if (so == (int64_t)sizeof(OT) && sa == e && sb == 0)                      \
            vs_##N##_##NAME(n, (OT *)o, (const T *)a, *(const T *)b);                  \
        else if (so == (int64_t)sizeof(OT) && sa == 0 && sb == e)                      \
            sv_##N##_##NAME(n, (OT *)o, *(const T *)a, (const T *)b);                  \
        else                                                                           \
            gs_##N##_##NAME(n, o, so, a, sa, b, sb);                                   \
    }                                                                                  \
    static inline __attribute__((always_inline)) void b3_##N##_##NAME(              \
        int64_t n3, int64_t n2, int64_t n1, int64_t n0, char *const *p,                \
        const int64_t *s3, const int64_t *s2, const int64_t *s1, const int64_t *s0)    \
    {                                                                                  \
        const int64_t so = s0[0], sa = s0[1], sb = s0[2], e = (int64_t)sizeof(T);      \
        const int64_t o1 = s1[0], a1 = s1[1], b1 = s1[2];                              \
        const int64_t o2 = s2[0], a2 = s2[1], b2 = s2[2];                              \
        const int64_t o3 = s3[0], a3 = s3[1], b3 = s3[2];                              \
        if (so == (int64_t)sizeof(OT) && sa == e && sb == e)                           \
            EACH_ROW(vv_##N##_##NAME, (OT *)o, (const T *)a, (const T *)b);            \
        else if (so == (int64_t)sizeof(OT) && sa == e && sb == 0 && a1 == 0 && HELD_LEN && \
                 o1 == n0 * (int64_t)sizeof(OT) && b1 == e)                            \
            HELD_ROWS(T, vs_##N##_##NAME, a, (OT *)o + i * hw, h, ((const T *)b)[i]);  \
        else if (so == (int64_t)sizeof(OT) && sa == 0 && sb == e && b1 == 0 && HELD_LEN && \
                 o1 == n0 * (int64_t)sizeof(OT) && a1 == e)                            \
            HELD_ROWS(T, sv_##N##_##NAME, b, (OT *)o + i * hw, ((const T *)a)[i], h);  \
        else if (so == (int64_t)sizeof(OT) && sa == e && sb == 0)                      \
            EACH_ROW(vs_##N##_##NAME, (OT *)o, (const T *)a, *(const T *)b);           \
        else if (so == (int64_t)sizeof(OT) && sa == 0 && sb == e)                      \
            EACH_ROW(sv_##N##_##NAME, (OT *)o, *(const T *)a, (const T *)b);           \
        else /* no constant-length rows: a strided row is not vector code */      \
            EACH_ROW_ANY_LENGTH(gs_##N##_##NAME, o, so, a, sa, b, sb);                 \
    }                                                                                  \
    static void k3_##N##_##NAME(int64_t n3, int64_t n2, int64_t n1, int64_t n0,       \
                                char *const *p, const int64_t *s3, const int64_t *s2,  \
                                const int64_t *s1, const int64_t *s0)                  \
    {                                                                                  \
        b3_##N##_##NAME(n3, n2, n1, n0, p, s3, s2, s1, s0);                            \
    }                                                                                  \
    BC_AVX2_CLONE(static void k3avx2_##N##_##NAME(                                     \
        int64_t n3, int64_t n2, int64_t n1, int64_t n0, char *const *p,                \
        const int64_t *s3, const int64_t *s2, const int64_t *s1, const int64_t *s0)    \
    {                                                                                  \
        b3_##N##_##NAME(n3, n2, n1, n0, p, s3, s2, s1, s0);                            \
    })                                                                                 \
    static void k_##N##_##NAME(int64_t n1, int64_t n0, char *const *p, const int64_t *s1, \
                               const int64_t *s0, const void *aux)                     \
    {                                                                                  \
        (void)aux;                                                                     \
        /* its own copy of the loops with one plane (the plane loop folds           \
         * away): tiny calls do not pay a second call and the plane set-up */         \
        b3_##N##_##NAME(1, 1, n1, n0, p, s1, s1, s1, s0);                              \
    }                                                                                       \
    BINARY_NT_KERNEL(OPE, N, T, NAME, OT)
#define BINARY_KERNELS(DT, N, T) BC_FOR_EACH_OP(BINARY_KERNEL, N, T)
BC_FOR_EACH_DTYPE(BINARY_KERNELS)

#define ROW_ENTRY(OPE, N, T, NAME, OT) [OPE] = row_##N##_##NAME,
#define KERNEL_ENTRY(OPE, N, T, NAME, OT) [OPE] = k_##N##_##NAME,
#define ROW_TABLE(DT, N, T) [DT] = {BC_FOR_EACH_OP(ROW_ENTRY, N, T)},
#define KERNEL_TABLE(DT, N, T) [DT] = {BC_FOR_EACH_OP(KERNEL_ENTRY, N, T)},
#define KERNEL3_ENTRY(OPE, N, T, NAME, OT) [OPE] = k3_##N##_##NAME,
#define KERNEL3_TABLE(DT, N, T) [DT] = {BC_FOR_EACH_OP(KERNEL3_ENTRY, N, T)},

/* One row of a binary op; o must not overlap a or b. */
typedef void (*row_fn)(int64_t n, char *restrict o, int64_t so, const char *restrict a,
                       int64_t sa, const char *restrict b, int64_t sb);
static const row_fn binary_rows[BC_DTYPE_COUNT][BC_OP_ENGINE_COUNT] = {
    BC_FOR_EACH_DTYPE(ROW_TABLE)};
static const kernel_fn binary_kernels[BC_DTYPE_COUNT][BC_OP_ENGINE_COUNT] = {
    BC_FOR_EACH_DTYPE(KERNEL_TABLE)};
static const kernel3_fn binary_kernels3[BC_DTYPE_COUNT][BC_OP_ENGINE_COUNT] = {
    BC_FOR_EACH_DTYPE(KERNEL3_TABLE)};
#if BC_HAVE_AVX2_CLONES
#define KERNEL3_AVX2_ENTRY(OPE, N, T, NAME, OT) [OPE] = k3avx2_##N##_##NAME,
#define KERNEL3_AVX2_TABLE(DT, N, T) [DT] = {BC_FOR_EACH_OP(KERNEL3_AVX2_ENTRY, N, T)},
static const kernel3_fn binary_kernels3_avx2[BC_DTYPE_COUNT][BC_OP_ENGINE_COUNT] = {
    BC_FOR_EACH_DTYPE(KERNEL3_AVX2_TABLE)};
#endif
#if BC_FAST_NT
#define KERNEL3_NT_ENTRY(OPE, N, T, NAME, OT) [OPE] = k3nt_##N##_##NAME,
#define KERNEL3_NT_TABLE(DT, N, T) [DT] = {BC_FOR_EACH_OP(KERNEL3_NT_ENTRY, N, T)},
static const kernel3_fn binary_kernels3_nt[BC_DTYPE_COUNT][BC_OP_ENGINE_COUNT] = {
    BC_FOR_EACH_DTYPE(KERNEL3_NT_TABLE)};
#endif

/* Outputs below this many bytes never use the AVX2 clones (a small call
 * asks neither the CPU nor the environment). */
enum { AVX2_FLOOR_BYTES = 4 << 10 };

/* 1 if the CPU has AVX2 and BROADCHECK_FAST_PORTABLE is not set to 1
 * (tests/test_engine_random.c sets it for a third of its cases: the
 * portable kernels and the SSE2 streaming copy stay checked on an AVX2
 * machine). */
static int use_avx2(void)
{
#if BC_HAVE_AVX2_CLONES
    const char *env = getenv("BROADCHECK_FAST_PORTABLE");
    return !(env && strcmp(env, "1") == 0) && __builtin_cpu_supports("avx2");
#else
    return 0;
#endif
}

/* The 3-D kernel of a binary job: the AVX2 clone where use_avx2() and the
 * output is at least AVX2_FLOOR_BYTES. */
static kernel3_fn binary_kernel3(bc_dtype dtype, bc_op op, int64_t out_bytes)
{
#if BC_HAVE_AVX2_CLONES
    if (out_bytes >= AVX2_FLOOR_BYTES && use_avx2())
        return binary_kernels3_avx2[dtype][op];
#else
    (void)out_bytes;
#endif
    return binary_kernels3[dtype][op];
}

/* ---- copy (broadcast materialisation), by element size ---------------- */

#define COPY_KERNEL(BITS)                                                              \
    static void copy##BITS(int64_t n1, int64_t n0, char *const *p, const int64_t *s1,  \
                           const int64_t *s0, const void *aux)                         \
    {                                                                                  \
        (void)aux;                                                                     \
        typedef uint##BITS##_t E;                                                      \
        char *o = p[0];                                                                \
        const char *a = p[1];                                                          \
        const int64_t so = s0[0], sa = s0[1];                                          \
        for (int64_t i = 0; i < n1; i++, o += s1[0], a += s1[1]) {                     \
            if (so == (int64_t)sizeof(E) && sa == (int64_t)sizeof(E)) {                \
                memcpy(o, a, (size_t)n0 * sizeof(E));                                  \
            } else if (so == (int64_t)sizeof(E) && sa == 0) {                          \
                E v = *(const E *)a, *restrict po = (E *)o;                            \
                BC_SIMD for (int64_t j = 0; j < n0; j++)                               \
                    po[j] = v;                                                         \
            } else {                                                                   \
                for (int64_t j = 0; j < n0; j++)                                       \
                    *(E *)(o + j * so) = *(const E *)(a + j * sa);                     \
            }                                                                          \
        }                                                                              \
    }
COPY_KERNEL(8)
COPY_KERNEL(16)
COPY_KERNEL(32)
COPY_KERNEL(64)

static kernel_fn copy_kernel(size_t size)
{
    return size == 1 ? copy8 : size == 2 ? copy16 : size == 4 ? copy32 : copy64;
}

/* ---- select, by element size ------------------------------------------ */

#define SELECT_KERNEL(BITS)                                                            \
    static void select##BITS(int64_t n1, int64_t n0, char *const *p, const int64_t *s1, \
                             const int64_t *s0, const void *aux)                       \
    {                                                                                  \
        (void)aux;                                                                     \
        typedef uint##BITS##_t E;                                                      \
        char *o = p[0];                                                                \
        const char *c = p[1], *a = p[2], *b = p[3];                                    \
        const int64_t so = s0[0], sc = s0[1], sa = s0[2], sb = s0[3];                  \
        for (int64_t i = 0; i < n1; i++, o += s1[0], c += s1[1], a += s1[2], b += s1[3]) { \
            if (so == (int64_t)sizeof(E) && sc == 1 && sa == (int64_t)sizeof(E) &&     \
                sb == (int64_t)sizeof(E)) {                                            \
                E *restrict po = (E *)o;                                               \
                const uint8_t *restrict pc = (const uint8_t *)c;                       \
                const E *restrict pa = (const E *)a, *restrict pb = (const E *)b;      \
                /* a mask rather than a branch: both rows are read whole */            \
                BC_SIMD for (int64_t j = 0; j < n0; j++) {                             \
                    const E m = (E)(0 - (E)(pc[j] != 0));                              \
                    po[j] = (E)((pa[j] & m) | (pb[j] & (E)~m));                        \
                }                                                                      \
            } else {                                                                   \
                for (int64_t j = 0; j < n0; j++)                                       \
                    *(E *)(o + j * so) = *(const uint8_t *)(c + j * sc)                \
                                             ? *(const E *)(a + j * sa)                \
                                             : *(const E *)(b + j * sb);               \
            }                                                                          \
        }                                                                              \
    }
SELECT_KERNEL(8)
SELECT_KERNEL(16)
SELECT_KERNEL(32)
SELECT_KERNEL(64)

static kernel_fn select_kernel(size_t size)
{
    return size == 1 ? select8 : size == 2 ? select16 : size == 4 ? select32 : select64;
}

/* ---- sum to shape ------------------------------------------------------ */

/* A row sum (the output's stride 0) that every order gives the same bits,
 * added by vector lanes: *acc plus the n terms at g (stride sg, one
 * element either way).  Integers wrap, so their sum modulo 2^w is the same
 * in any order.  Floats whose terms and *acc are integers with magnitudes
 * adding up to less than 2^24 (float32; float64 2^53) make every partial
 * sum of every order exact, and a zero sum is -0 in every order exactly
 * when every term and *acc are -0 (the lanes start at -0): the medium tier's long sums of -9 .. 9 (docs/PROPERTIES.md) are such
 * rows, up to 2^20 terms a latency-bound chain of adds before.  1 when done,
 * 0 (nothing touched) for any other row: short, strided, or with a term
 * that is not such an integer (a NaN, an infinity, a fraction). */
#define SUM_RUN(T)                                                                     \
    if (n < 64 || (sg != (int64_t)sizeof(T) && sg != -(int64_t)sizeof(T)))             \
        return 0;                                                                      \
    const T *restrict p = (const T *)(const void *)(sg < 0 ? g + (n - 1) * sg : g)
#define SUM_WRAPS(N, T)                                                                \
    static inline int N##_sum_any_order(T *acc, const char *g, int64_t n, int64_t sg)  \
    {                                                                                  \
        SUM_RUN(T);                                                                    \
        uint64_t s = (uint64_t)(int64_t)*acc;                                          \
        _Pragma("omp simd reduction(+:s)") for (int64_t j = 0; j < n; j++)             \
            s += (uint64_t)(int64_t)p[j];                                              \
        *acc = (T)s; /* modulo 2^w, as every wrapped add */                            \
        return 1;                                                                      \
    }                                                                                  \
    enum { N##_sum_chains_only = 0 };
SUM_WRAPS(i8, int8_t)
SUM_WRAPS(u8, uint8_t)
SUM_WRAPS(i32, int32_t)
SUM_WRAPS(i64, int64_t)
#define SUM_EXACT(N, T, LIMIT, ROUNDER)                                                \
    static inline int N##_sum_any_order(T *acc, const char *g, int64_t n, int64_t sg)  \
    {                                                                                  \
        SUM_RUN(T);                                                                    \
        /* (x + 2^(p-1)) - 2^(p-1) is x for an integer 0 <= x < 2^(p-1) and not     \
         * for a fraction or a NaN: no conversion, defined for every x */            \
        const T r = (T)(ROUNDER), a = *acc < 0 ? -*acc : *acc;                         \
        T big = a;                                                                     \
        int odd = (a + r) - r != a;                                                    \
        _Pragma("omp simd reduction(max:big) reduction(|:odd)")                       \
        for (int64_t j = 0; j < n; j++) {                                              \
            const T x = p[j] < 0 ? -p[j] : p[j];                                       \
            big = x > big ? x : big;                                                   \
            odd |= (x + r) - r != x;                                                   \
        }                                                                              \
        /* every partial sum of every order is at most n big + a: strictly           \
         * below LIMIT in double (rounding is monotone), below it exactly */           \
        if (odd || !(big < r) || !((double)big * (double)(n + 1) < (LIMIT)))          \
            return 0;                                                                  \
        T lane[8] = {(T)-0.0, (T)-0.0, (T)-0.0, (T)-0.0,                               \
                     (T)-0.0, (T)-0.0, (T)-0.0, (T)-0.0};                              \
        int64_t j = 0;                                                                 \
        for (; j + 8 <= n; j += 8)                                                     \
            BC_SIMD for (int k = 0; k < 8; k++)                                        \
                lane[k] += p[j + k];                                                   \
        T s = *acc;                                                                    \
        for (int k = 0; k < 8; k++)                                                    \
            s += lane[k];                                                              \
        for (; j < n; j++)                                                             \
            s += p[j];                                                                 \
        *acc = s;                                                                      \
        return 1;                                                                      \
    }                                                                                  \
    enum { N##_sum_chains_only = 0 };
SUM_EXACT(f32, float, 16777216.0, 8388608.0)
SUM_EXACT(f64, double, 9007199254740992.0, 4503599627370496.0)
/* bool has no sums; float16's partial sums of such terms pass 2048, where
 * binary16 rounds integers: its rows keep the chain */
#define SUM_CHAIN(N, T)                                                                \
    static inline int N##_sum_any_order(T *acc, const char *g, int64_t n, int64_t sg)  \
    {                                                                                  \
        (void)acc, (void)g, (void)n, (void)sg;                                         \
        return 0;                                                                      \
    }                                                                                  \
    enum { N##_sum_chains_only = 1 };
SUM_CHAIN(bool, uint8_t)
#if BC_HAVE_FLOAT16
SUM_CHAIN(f16, _Float16)
SUM_CHAIN(f16c, _Float16)
#endif
#undef SUM_CHAIN
#undef SUM_EXACT
#undef SUM_WRAPS

/* Rows summed side by side: a chain's step waits for the one before it
 * (float16: convert, add, convert, round to binary16 every term), so one
 * row at a time runs at that latency.  Rows of one kernel call that write
 * different output elements are independent chains; up to SUM_LANES of them
 * run interleaved, each still adding its own terms left to right.  Fewer
 * rows fill the spare lanes with copies of the first row, whose sums are
 * dropped. */
enum { SUM_LANES = 8 };

#define SUM_CHAINS(N, T, K)                                                            \
    static inline __attribute__((always_inline)) void N##_chains##K(                   \
        T *acc, const char *const *g, int64_t n, int64_t sg)                           \
    {                                                                                  \
        T a[K];                                                                        \
        _Pragma("GCC unroll 8") for (int r = 0; r < K; r++) a[r] = acc[r];             \
        for (int64_t j = 0; j < n; j++)                                                \
            _Pragma("GCC unroll 8") for (int r = 0; r < K; r++)                        \
                a[r] = N##_add(a[r], *(const T *)(g[r] + j * sg));                     \
        _Pragma("GCC unroll 8") for (int r = 0; r < K; r++) acc[r] = a[r];             \
    }

/* out[i] = out[i] + g[i], rows in order: with out's inner stride 0 the row
 * is one running sum, added left to right (no reassociation, no simd: the
 * same order as the naive evaluator's) unless N##_sum_any_order shows every
 * order gives the same bits.  Rows with distinct outputs (s1[0] != 0) run
 * their chains interleaved (SUM_CHAINS); rows into one output element
 * (s1[0] == 0: a strided gradient whose axes did not merge) are one chain
 * and run one after another.  out never overlaps g (the front end refuses
 * it). */
#define SUM_KERNEL(DT, N, T)                                                           \
    SUM_CHAINS(N, T, 2)                                                                \
    SUM_CHAINS(N, T, 4)                                                                \
    SUM_CHAINS(N, T, 8)                                                                \
    static void sum_rows_##N(int64_t n1, int64_t n0, char *o, const char *g,           \
                             int64_t so1, int64_t sg1, int64_t sg)                     \
    {                                                                                  \
        for (int64_t i = 0; i < n1;) {                                                 \
            T acc[SUM_LANES];                                                          \
            T *out[SUM_LANES];                                                         \
            const char *rows[SUM_LANES];                                               \
            int k = 0;                                                                 \
            for (; i < n1 && k < (so1 != 0 ? SUM_LANES : 1); i++) {                    \
                T *po = (T *)(o + i * so1);                                            \
                const char *pg = g + i * sg1;                                          \
                T a = *po;                                                             \
                if (N##_sum_any_order(&a, pg, n0, sg)) {                               \
                    *po = a;                                                           \
                    continue;                                                          \
                }                                                                      \
                acc[k] = a, out[k] = po, rows[k] = pg, k++;                            \
            }                                                                          \
            if (k == 1) {                                                              \
                T a = acc[0];                                                          \
                for (int64_t j = 0; j < n0; j++)                                       \
                    a = N##_add(a, *(const T *)(rows[0] + j * sg));                    \
                acc[0] = a;                                                            \
            } else if (k > 1) {                                                        \
                for (int r = k; r < SUM_LANES; r++)                                    \
                    acc[r] = acc[0], rows[r] = rows[0];                                \
                if (k <= 2)                                                            \
                    N##_chains2(acc, rows, n0, sg);                                    \
                else if (k <= 4)                                                       \
                    N##_chains4(acc, rows, n0, sg);                                    \
                else                                                                   \
                    N##_chains8(acc, rows, n0, sg);                                    \
            }                                                                          \
            for (int r = 0; r < k; r++)                                                \
                *out[r] = acc[r];                                                      \
        }                                                                              \
    }                                                                                  \
    static void sum_##N(int64_t n1, int64_t n0, char *const *p, const int64_t *s1,     \
                        const int64_t *s0, const void *aux)                            \
    {                                                                                  \
        (void)aux;                                                                     \
        char *o = p[0];                                                                \
        const char *g = p[1];                                                          \
        const int64_t so = s0[0], sg = s0[1];                                          \
        if (so == 0) {                                                                 \
            sum_rows_##N(n1, n0, o, g, s1[0], s1[1], sg);                              \
            return;                                                                    \
        }                                                                              \
        if (N##_sum_chains_only && s1[0] == 0 && n0 <= SUM_LANES) {                    \
            /* a few outputs, each summing one term of every row ([L, m] ->        \
             * [m]): column j's chain takes rows 0, 1, ... in order, as the rows   \
             * loop below adds them, but in a register, not through memory */     \
            sum_rows_##N(n0, n1, o, g, so, sg, s1[1]);                                 \
            return;                                                                    \
        }                                                                              \
        for (int64_t i = 0; i < n1; i++, o += s1[0], g += s1[1]) {                     \
            if (so == (int64_t)sizeof(T) && sg == (int64_t)sizeof(T)) {                \
                T *restrict po = (T *)o;                                               \
                const T *restrict pg = (const T *)g;                                   \
                BC_SIMD for (int64_t j = 0; j < n0; j++)                               \
                    po[j] = N##_add(po[j], pg[j]);                                     \
            } else {                                                                   \
                for (int64_t j = 0; j < n0; j++)                                       \
                    *(T *)(o + j * so) = N##_add(*(T *)(o + j * so),                   \
                                                 *(const T *)(g + j * sg));            \
            }                                                                          \
        }                                                                              \
    }                                                                                  \
    static void sum_init_##N(char *v) { T x = N##_sum_init(); memcpy(v, &x, sizeof x); }
BC_FOR_EACH_DTYPE(SUM_KERNEL)

#define SUM_ENTRY(DT, N, T) [DT] = sum_##N,
#define SUM_INIT_ENTRY(DT, N, T) [DT] = sum_init_##N,
static const kernel_fn sum_kernels[BC_DTYPE_COUNT] = {BC_FOR_EACH_DTYPE(SUM_ENTRY)};
static void (*const sum_inits[BC_DTYPE_COUNT])(char *) = {BC_FOR_EACH_DTYPE(SUM_INIT_ENTRY)};

/* ---- float16 through F16C ---------------------------------------------- */

/* The float16 kernels again, compiled for F16C: the default build targets
 * plain x86-64, where GCC converts every _Float16 operand and result
 * through libgcc (__extendhfsf2, __truncsfhf2), a call each, most of a
 * float16 operation's time.  With F16C the same scalar.h expressions
 * convert by vcvtph2ps / vcvtps2ph (rounding as MXCSR says: to nearest,
 * ties to even, as libgcc reads it too), so the values are the same bits;
 * tests/test_half_engine.c compares both paths with the naive evaluator on
 * every binary16 value.  Picked at run time (half_kernels), only for
 * float16 jobs, on a CPU whose F16C the OS enables. */
#if BC_HAVE_FLOAT16 && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__F16C__)
#define BC_FAST_F16C 1
#pragma GCC push_options
#pragma GCC target("f16c")
BC_SCALAR_FLOAT(f16c, _Float16, float, BC_NAN_BY_BITS, BC_ZERO_BY_BITS)
BINARY_KERNELS(BC_FLOAT16, f16c, _Float16)
SUM_KERNEL(BC_FLOAT16, f16c, _Float16)
#pragma GCC pop_options
static const row_fn f16c_rows[BC_OP_ENGINE_COUNT] = {BC_FOR_EACH_OP(ROW_ENTRY, f16c, _Float16)};
static const kernel_fn f16c_kernels[BC_OP_ENGINE_COUNT] = {
    BC_FOR_EACH_OP(KERNEL_ENTRY, f16c, _Float16)};
/* [0] portable (F16C alone), [1] the AVX2 clones (every AVX2 CPU has F16C) */
static const kernel3_fn f16c_kernels3[2][BC_OP_ENGINE_COUNT] = {
    {BC_FOR_EACH_OP(KERNEL3_ENTRY, f16c, _Float16)},
    {BC_FOR_EACH_OP(KERNEL3_AVX2_ENTRY, f16c, _Float16)}};
#if BC_FAST_NT
static const kernel3_fn f16c_kernels3_nt[BC_OP_ENGINE_COUNT] = {
    BC_FOR_EACH_OP(KERNEL3_NT_ENTRY, f16c, _Float16)};
#endif
#else
#define BC_FAST_F16C 0
#endif

/* 1 when a float16 job may take the F16C kernels: the CPU has F16C and AVX
 * (its VEX encoding needs the OS to save the AVX state; libgcc's
 * __builtin_cpu_supports asked CPUID once, at start-up), and
 * BROADCHECK_F16C is not "0" (the tests' way to run the portable kernels
 * on such a CPU).  Asked per float16 job only. */
#if BC_FAST_F16C
static int half_kernels(bc_dtype dtype)
{
    if (dtype != BC_FLOAT16 || !__builtin_cpu_supports("avx") || !__builtin_cpu_supports("f16c"))
        return 0;
    const char *env = getenv("BROADCHECK_F16C");
    return !env || strcmp(env, "0") != 0;
}
#endif

/* The kernels of a job of this dtype and op (a sum's op is add). */
typedef struct dtype_kernels {
    kernel_fn binary, sum;
    kernel3_fn binary3; /* three inner axes per call (binary_kernel3) */
    kernel3_fn binary3nt; /* its streaming variant (BINARY_NT_KERNEL), or NULL */
    row_fn row;         /* the n-ary fold's */
    void (*sum_init)(char *);
} dtype_kernels;

/* The 3-D kernel of a binary op alone (the small calls'), as kernels_for
 * picks it. */
static inline __attribute__((always_inline)) kernel3_fn kernel3_for(bc_dtype dtype, bc_op op,
                                                                  int64_t out_bytes)
{
#if BC_FAST_F16C
    if (half_kernels(dtype))
        return f16c_kernels3[out_bytes >= AVX2_FLOOR_BYTES && use_avx2()][op];
#endif
    return binary_kernel3(dtype, op, out_bytes);
}

/* out_bytes: the output's size, which picks the 3-D kernel's clone. */
static dtype_kernels kernels_for(bc_dtype dtype, bc_op op, int64_t out_bytes)
{
#if BC_FAST_F16C
    if (half_kernels(dtype))
        return (dtype_kernels){f16c_kernels[op], sum_f16c, kernel3_for(dtype, op, out_bytes),
#if BC_FAST_NT
                               f16c_kernels3_nt[op],
#else
                               NULL,
#endif
                               f16c_rows[op], sum_init_f16c};
#endif
    return (dtype_kernels){binary_kernels[dtype][op], sum_kernels[dtype],
                           kernel3_for(dtype, op, out_bytes),
#if BC_FAST_NT
                           binary_kernels3_nt[dtype][op],
#else
                           NULL,
#endif
                           binary_rows[dtype][op], sum_inits[dtype]};
}

/* ---- n-ary: a left fold, a chunk of a row at a time ------------------- */

enum { CHUNK = 512 };

typedef struct nary_aux {
    row_fn row;
    size_t size;
    int nin;
} nary_aux;

/* The fold alternates between two chunk buffers, so that no row call
 * writes memory it reads (the rows are `restrict`). */
static void nary_kernel(int64_t n1, int64_t n0, char *const *p, const int64_t *s1,
                        const int64_t *s0, const void *aux_)
{
    const nary_aux *aux = aux_;
    const int nin = aux->nin;
    union { int64_t i; double d; char c[CHUNK * 8]; } tmp[2];
    const int64_t sz = (int64_t)aux->size;
    for (int64_t i = 0; i < n1; i++) {
        for (int64_t j0 = 0; j0 < n0; j0 += CHUNK) {
            int64_t n = n0 - j0 < CHUNK ? n0 - j0 : CHUNK;
            const char *in0 = p[1] + i * s1[1] + j0 * s0[1];
            const char *in1 = p[2] + i * s1[2] + j0 * s0[2];
            int cur = 0;
            aux->row(n, tmp[cur].c, sz, in0, s0[1], in1, s0[2]);
            for (int k = 3; k <= nin; k++, cur = 1 - cur)
                aux->row(n, tmp[1 - cur].c, sz, tmp[cur].c, sz, p[k] + i * s1[k] + j0 * s0[k],
                         s0[k]);
            char *o = p[0] + i * s1[0] + j0 * s0[0];
            for (int64_t j = 0; j < n; j++)
                memcpy(o + j * s0[0], tmp[cur].c + j * sz, (size_t)sz);
        }
    }
}

/* ---- moving a piece out of the output buffer ---------------------------- */

/* Four vectors of type V from src to dst, the stores non-temporal. */
#define STREAM_FOUR(V, LOAD, STREAM, dst, src)                                         \
    do {                                                                               \
        const V *s_ = (const V *)(const void *)(src);                                  \
        V *d_ = (V *)(void *)(dst);                                                    \
        V v0 = LOAD(s_), v1 = LOAD(s_ + 1), v2 = LOAD(s_ + 2), v3 = LOAD(s_ + 3);      \
        STREAM(d_, v0);                                                                \
        STREAM(d_ + 1, v1);                                                            \
        STREAM(d_ + 2, v2);                                                            \
        STREAM(d_ + 3, v3);                                                            \
    } while (0)

#if BC_HAVE_AVX2_CLONES
/* Whole 128-byte pieces of `bytes` from src to a 32-byte aligned dst with
 * 32-byte non-temporal stores (AVX); returns the bytes moved. */
__attribute__((target("avx"))) static size_t stream_avx(char *dst, const char *src, size_t bytes)
{
    size_t done = 0;
    for (; bytes - done >= 128; done += 128)
        STREAM_FOUR(__m256i, _mm256_loadu_si256, _mm256_stream_si256, dst + done, src + done);
    return done;
}
#endif

/* bytes from src to dst (element-aligned, a multiple of the element size)
 * with non-temporal stores where SSE2 has them; `avx`: 32 bytes a store
 * (the CPU has AVX2, use_avx2: exec's avx). */
static void stream_bytes(char *dst, const char *src, size_t bytes, int avx)
{
#if BC_HAVE_AVX2_CLONES
    if (avx && bytes >= 256) {
        size_t head = (32 - ((uintptr_t)dst & 31)) & 31;
        memcpy(dst, src, head);
        size_t done = head + stream_avx(dst + head, src + head, bytes - head);
        dst += done;
        src += done;
        bytes -= done;
    }
#else
    (void)avx;
#endif
#ifdef __SSE2__
    size_t head = (16 - ((uintptr_t)dst & 15)) & 15;
    if (head > bytes)
        head = bytes;
    if (head) {
        memcpy(dst, src, head);
        dst += head;
        src += head;
        bytes -= head;
    }
    /* a cache line per iteration: the loop's own instructions were a third
     * of rank 8's streaming cost at 16 bytes per iteration */
    for (; bytes >= 64; bytes -= 64, dst += 64, src += 64)
        STREAM_FOUR(__m128i, _mm_loadu_si128, _mm_stream_si128, dst, src);
    for (; bytes >= 16; bytes -= 16, dst += 16, src += 16)
        _mm_stream_si128((__m128i *)(void *)dst, _mm_loadu_si128((const __m128i *)(const void *)src));
#endif
    if (bytes)
        memcpy(dst, src, bytes);
}

/* Rows of `cols` elements from the packed buffer to the output view. */
static void write_piece(char *o, int64_t so1, int64_t so0, const char *buf, int64_t rows,
                        int64_t cols, int64_t size, int stream, int avx)
{
    if (so0 == size && so1 == cols * size) { /* one run of memory: one call */
        cols *= rows;
        rows = 1;
    }
    for (int64_t i = 0; i < rows; i++, o += so1, buf += cols * size) {
        if (so0 == size) {
            if (stream)
                stream_bytes(o, buf, (size_t)(cols * size), avx);
            else
                memcpy(o, buf, (size_t)(cols * size));
        } else {
            for (int64_t j = 0; j < cols; j++)
                memcpy(o + j * so0, buf + j * size, (size_t)size);
        }
    }
}

#if BC_HAVE_AVX2_CLONES
/* gather_piece's 4-byte transposed case in 8 x 8 blocks, AVX shuffles (bits
 * untouched): the eight memory rows of a block (8 floats each) become the
 * eight rows of the buffer.  rows and cols are multiples of 8. */
__attribute__((target("avx"))) static void gather_avx(char *buf, const char *a, int64_t sa0,
                                                      int64_t rows, int64_t cols)
{
    for (int64_t j = 0; j < cols; j += 8) {
        const float *c = (const float *)(const void *)(a + j * sa0);
        const int64_t w = sa0 / 4; /* a's memory rows, in floats (sa0 is 4 x it) */
        float *d = (float *)(void *)buf + j;
        for (int64_t i = 0; i < rows; i += 8) {
            __m256 r0 = _mm256_loadu_ps(c + i), r1 = _mm256_loadu_ps(c + w + i);
            __m256 r2 = _mm256_loadu_ps(c + 2 * w + i), r3 = _mm256_loadu_ps(c + 3 * w + i);
            __m256 r4 = _mm256_loadu_ps(c + 4 * w + i), r5 = _mm256_loadu_ps(c + 5 * w + i);
            __m256 r6 = _mm256_loadu_ps(c + 6 * w + i), r7 = _mm256_loadu_ps(c + 7 * w + i);
            /* pairs of rows interleaved, then pairs of pairs: each 128-bit
             * lane holds one column of four rows (lane 0 columns 0-3, lane 1
             * columns 4-7) */
            __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
            __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
            __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
            __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
            __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xee);
            __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xee);
            __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xee);
            __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xee);
            /* rows 0-3 of a column from u0..u3, rows 4-7 from u4..u7 */
            _mm256_storeu_ps(d + i * cols, _mm256_permute2f128_ps(u0, u4, 0x20));
            _mm256_storeu_ps(d + (i + 1) * cols, _mm256_permute2f128_ps(u1, u5, 0x20));
            _mm256_storeu_ps(d + (i + 2) * cols, _mm256_permute2f128_ps(u2, u6, 0x20));
            _mm256_storeu_ps(d + (i + 3) * cols, _mm256_permute2f128_ps(u3, u7, 0x20));
            _mm256_storeu_ps(d + (i + 4) * cols, _mm256_permute2f128_ps(u0, u4, 0x31));
            _mm256_storeu_ps(d + (i + 5) * cols, _mm256_permute2f128_ps(u1, u5, 0x31));
            _mm256_storeu_ps(d + (i + 6) * cols, _mm256_permute2f128_ps(u2, u6, 0x31));
            _mm256_storeu_ps(d + (i + 7) * cols, _mm256_permute2f128_ps(u3, u7, 0x31));
        }
    }
}
#endif

/* Packs rows x cols elements of an input into buf (row stride cols);
 * `avx`: the CPU has AVX2 (use_avx2). */
static void gather_piece(char *buf, const char *a, int64_t sa1, int64_t sa0, int64_t rows,
                         int64_t cols, int64_t size, int avx)
{
    /* Column by column: for a transposed input each column is one run of
     * memory (sa1 small), read whole while its lines are fetched. */
#define GATHER(E)                                                                      \
    for (int64_t j = 0; j < cols; j++) {                                               \
        const char *src = a + j * sa0;                                                 \
        E *dst = (E *)(void *)buf + j;                                                 \
        for (int64_t i = 0; i < rows; i++)                                             \
            memcpy(&dst[i * cols], src + i * sa1, sizeof(E));                          \
    }
#if BC_HAVE_AVX2_CLONES
    if (avx && size == 4 && sa1 == 4 && sa0 % 4 == 0 && rows % 8 == 0 && cols % 8 == 0) {
        gather_avx(buf, a, sa0, rows, cols);
        return;
    }
#else
    (void)avx;
#endif
#ifdef __SSE2__
    /* 4-byte elements whose memory rows are contiguous (a transposed
     * matrix): 4 x 4 blocks moved with SSE shuffles, bits untouched */
    if (size == 4 && sa1 == 4 && rows % 4 == 0 && cols % 4 == 0) {
        for (int64_t j = 0; j < cols; j += 4) {
            const float *c0 = (const float *)(const void *)(a + j * sa0);
            const float *c1 = (const float *)(const void *)(a + (j + 1) * sa0);
            const float *c2 = (const float *)(const void *)(a + (j + 2) * sa0);
            const float *c3 = (const float *)(const void *)(a + (j + 3) * sa0);
            float *d = (float *)(void *)buf + j;
            for (int64_t i = 0; i < rows; i += 4) {
                __m128 r0 = _mm_loadu_ps(c0 + i), r1 = _mm_loadu_ps(c1 + i);
                __m128 r2 = _mm_loadu_ps(c2 + i), r3 = _mm_loadu_ps(c3 + i);
                _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
                _mm_storeu_ps(d + i * cols, r0);
                _mm_storeu_ps(d + (i + 1) * cols, r1);
                _mm_storeu_ps(d + (i + 2) * cols, r2);
                _mm_storeu_ps(d + (i + 3) * cols, r3);
            }
        }
        return;
    }
#endif
    switch (size) {
    case 1: GATHER(uint8_t) break;
    case 2: GATHER(uint16_t) break;
    case 4: GATHER(uint32_t) break;
    default: GATHER(uint64_t) break;
    }
#undef GATHER
}

/* ---- the driver -------------------------------------------------------- */

/* How a call walks its blocks (set once per plan: bc_fast_run's, or a
 * prepared call's, bc_fast_prepare). */
typedef struct exec {
    kernel_fn fn;
    kernel3_fn fn3;   /* or NULL: with it, the plan's three inner axes are one call
                         (a direct call, or a batched one), and the pieces of
                         run_pieces are its calls with one plane */
    const void *aux;
    int nops;
    const int64_t *size; /* [nops] element sizes */
    int route;        /* 0 direct; ROUTE_COPY or ROUTE_STREAM: output through the buffer */
    unsigned gathered;/* bit j: input j is transposed and gathered per tile */
    struct buffers *buf; /* with route or gathered: the call's buffers */
    int avx;          /* ROUTE_STREAM or gathered: the CPU has AVX2 (use_avx2: 32-byte
                         streaming stores, 8 x 8 float gathers) */
    int flat;         /* batched with fn3 but 2-D blocks (a 3-D one would not fit the
                         buffer): fn3 is called with one plane */
    int batched;      /* ROUTE_STREAM of an output written in memory order, block
                         after block, each smaller than the buffer: blocks are
                         packed into the buffer and streamed out a buffer at a time */
    kernel3_fn fn3nt; /* ROUTE_STREAM, binary, AVX2: fn3's streaming variant, taken
                         per call where nt_rows holds (run_exec) */
    int nt;           /* this call runs fn3nt on the direct route: fn3 is it, and
                         2-D blocks are its calls with one plane */
    int tile_nt;      /* gathered, and this call's tiles run fn3nt straight into the
                         output (no output buffer, no copy): run_exec, per call */
} exec;

/* The output piece and the gathered tiles, one set per call. */
typedef struct buffers {
    union { double d; int64_t i; char c[TILE_BYTES]; } out, gathered[MAX_GATHERED];
} buffers;

enum { ROUTE_DIRECT, ROUTE_COPY, ROUTE_STREAM };

/* An input that reads across rows rather than along them: its inner
 * stride is neither 0 nor one element and the stride between rows smaller
 * (a transposed view).  Only worth tiling when both inner extents are
 * large. */
static unsigned transposed_inputs(const bc_plan *pl, const int64_t *size)
{
    const int R = pl->rank;
    if (R < 2 || pl->dims[R - 1] < TILE_MIN_COLS || pl->dims[R - 2] < TILE_MIN_ROWS)
        return 0;
    unsigned mask = 0;
    for (int j = 1; j < pl->nops; j++) {
        int64_t s0 = pl->strides[j][R - 1], s1 = pl->strides[j][R - 2];
        s0 = s0 < 0 ? -s0 : s0;
        s1 = s1 < 0 ? -s1 : s1;
        if (s0 != 0 && s0 != size[j] && s1 < s0)
            mask |= 1u << j;
    }
    return mask;
}

/* One n1 x n0 block in pieces through the call's buffers. */
static void run_pieces(const exec *x, int64_t n1, int64_t n0, char *const *p, const int64_t *s1,
                       const int64_t *s0)
{
    buffers *const bufs = x->buf;
    const int64_t osize = x->size[0];
    int64_t rows, cols;
    if (x->gathered) {
        int64_t widest = 4;
        for (int j = 0; j < x->nops; j++)
            widest = x->size[j] > widest ? x->size[j] : widest;
        rows = TILE_ROWS * 4 / widest;
        cols = TILE_COLS;
    } else if (n0 * osize <= PIECE_BYTES) {
        cols = n0;
        rows = PIECE_BYTES / (n0 * osize);
    } else {
        rows = 1;
        cols = PIECE_BYTES / osize;
    }
    char *q[BC_PLAN_MAX_OPS];
    int64_t t1[BC_PLAN_MAX_OPS], t0[BC_PLAN_MAX_OPS];
    for (int64_t i0 = 0; i0 < n1; i0 += rows) {
        const int64_t r = n1 - i0 < rows ? n1 - i0 : rows;
        for (int64_t j0 = 0; j0 < n0; j0 += cols) {
            const int64_t c = n0 - j0 < cols ? n0 - j0 : cols;
            for (int j = 0, g = 0; j < x->nops; j++) {
                q[j] = p[j] + i0 * s1[j] + j0 * s0[j];
                t1[j] = s1[j];
                t0[j] = s0[j];
                if (x->gathered & (1u << j)) {
                    gather_piece(bufs->gathered[g].c, q[j], s1[j], s0[j], r, c, x->size[j], x->avx);
                    q[j] = bufs->gathered[g++].c;
                    t1[j] = c * x->size[j];
                    t0[j] = x->size[j];
                }
            }
            const int buffered = x->route != ROUTE_DIRECT && !x->tile_nt;
            if (buffered) {
                q[0] = bufs->out.c;
                t1[0] = c * osize;
                t0[0] = osize;
            }
            /* one plane: its strides are never used */
            if (x->tile_nt)
                x->fn3nt(1, 1, r, c, q, t0, t0, t1, t0);
            else if (x->fn3)
                x->fn3(1, 1, r, c, q, t0, t0, t1, t0);
            else
                x->fn(r, c, q, t1, t0, x->aux);
            if (buffered)
                write_piece(p[0] + i0 * s1[0] + j0 * s0[0], s1[0], s0[0], bufs->out.c, r, c, osize,
                            x->route == ROUTE_STREAM, x->avx);
        }
    }
}

/* One n1 x n0 block, directly or in pieces through the buffers. */
static inline void run_block(const exec *x, int64_t n1, int64_t n0, char *const *p,
                             const int64_t *s1, const int64_t *s0)
{
    if (x->nt)
        x->fn3(1, 1, n1, n0, p, s1, s1, s1, s0); /* one plane: its strides are never used */
    else if (x->route == ROUTE_DIRECT && !x->gathered)
        x->fn(n1, n0, p, s1, s0, x->aux);
    else
        run_pieces(x, n1, n0, p, s1, s0);
}

/* The plan's blocks, the outer axes an odometer; `nops` a constant where
 * run_plan specialises it, so that the per-operand loops unroll. */
enum { CARRY_OPS = 4 }; /* operands up to which the odometer uses carries */

static inline __attribute__((always_inline)) void walk_plan(const bc_plan *pl, char *const *base,
                                                            const exec *x, const int nops,
                                                            const int batched)
{
    const int R = pl->rank;
    /* three inner axes per call with a 3-D kernel, unless the output goes
     * through the buffer in 2-D pieces (in place: ROUTE_COPY) */
    const int three = x->fn3 && !x->flat && R >= 3 &&
                      (batched || (x->route == ROUTE_DIRECT && !x->gathered));
    /* and a fourth, the kernel's outer plane loop, on the direct route */
    const int four = three && !batched && R >= 4;
    const int outer = R - 2 - three - four; /* the odometer's axes: 0 .. outer-1 */
    int64_t s3[BC_PLAN_MAX_OPS], s2[BC_PLAN_MAX_OPS], s1[BC_PLAN_MAX_OPS], s0[BC_PLAN_MAX_OPS];
    int64_t idx[BC_MAX_RANK];
    char *p[BC_PLAN_MAX_OPS];
    int64_t n3 = 1, n2 = 1, n1 = 1, n0 = 1;
    for (int j = 0; j < nops; j++) {
        p[j] = base[j];
        s0[j] = R >= 1 ? pl->strides[j][R - 1] : 0;
        s1[j] = R >= 2 ? pl->strides[j][R - 2] : 0;
        s2[j] = three ? pl->strides[j][R - 3] : 0;
        s3[j] = four ? pl->strides[j][R - 4] : 0;
    }
    for (int k = 0; k < outer; k++)
        idx[k] = 0;
    /* carry[k][j]: how far operand j moves when outer axis k steps and the
     * outer axes after it wrap to 0, so a step is one add per operand.
     * Computed modulo 2^64: the true value, a distance within the
     * operand's memory, fits. */
    int64_t carry[BC_MAX_RANK][CARRY_OPS];
    if (nops <= CARRY_OPS) {
        uint64_t back[CARRY_OPS] = {0};
        for (int k = outer - 1; k >= 0; k--)
            for (int j = 0; j < nops; j++) {
                carry[k][j] = (int64_t)((uint64_t)pl->strides[j][k] - back[j]);
                back[j] += (uint64_t)pl->strides[j][k] * (uint64_t)(pl->dims[k] - 1);
            }
    }
    if (R >= 1)
        n0 = pl->dims[R - 1];
    if (R >= 2)
        n1 = pl->dims[R - 2];
    if (three)
        n2 = pl->dims[R - 3];
    if (four)
        n3 = pl->dims[R - 4];
    /* batched: the kernel writes block after block into the buffer, which
     * goes out whole (the output's blocks follow each other in memory) */
    char *dst = p[0];
    int64_t fill = 0, t2[BC_PLAN_MAX_OPS], t1[BC_PLAN_MAX_OPS], t0[BC_PLAN_MAX_OPS];
    const int64_t block = n2 * n1 * n0 * x->size[0];
    if (batched) {
        memcpy(t2, s2, sizeof t2[0] * (size_t)nops);
        memcpy(t1, s1, sizeof t1[0] * (size_t)nops);
        memcpy(t0, s0, sizeof t0[0] * (size_t)nops);
        t2[0] = n1 * n0 * x->size[0];
        t1[0] = n0 * x->size[0];
        t0[0] = x->size[0];
    }
    for (;;) {
        if (batched) {
            if (fill + block > (int64_t)PIECE_BYTES) {
                stream_bytes(dst, x->buf->out.c, (size_t)fill, x->avx);
                dst += fill;
                fill = 0;
            }
            char *o = p[0];
            p[0] = x->buf->out.c + fill;
            if (three)
                x->fn3(1, n2, n1, n0, p, t2, t2, t1, t0);
            else if (x->fn3) /* one plane: the 3-D kernel's AVX2 clone where picked */
                x->fn3(1, 1, n1, n0, p, t1, t1, t1, t0);
            else
                x->fn(n1, n0, p, t1, t0, x->aux);
            p[0] = o;
            fill += block;
        } else if (three) {
            x->fn3(n3, n2, n1, n0, p, s3, s2, s1, s0);
        } else {
            run_block(x, n1, n0, p, s1, s0);
        }
        /* the odometer over the outer axes */
        int k = outer - 1;
        if (nops <= CARRY_OPS) {
            while (k >= 0 && ++idx[k] == pl->dims[k])
                idx[k--] = 0;
            if (k < 0)
                break;
            for (int j = 0; j < nops; j++)
                p[j] += carry[k][j];
            continue;
        }
        for (; k >= 0; k--) {
            if (++idx[k] < pl->dims[k]) {
                for (int j = 0; j < nops; j++)
                    p[j] += pl->strides[j][k];
                break;
            }
            idx[k] = 0;
            for (int j = 0; j < nops; j++)
                p[j] -= pl->strides[j][k] * (pl->dims[k] - 1);
        }
        if (k < 0)
            break;
    }
    if (batched)
        stream_bytes(dst, x->buf->out.c, (size_t)fill, x->avx);
}

/* Binary ops (3 operands) and copies (2) get their own walk: short blocks
 * (rank 5's 6 x 4, rank 8's 8 x 8) make the odometer's per-operand loops a
 * large part of a call. */
static void run_plan(const bc_plan *pl, char *const *base, const exec *x)
{
    if (pl->nops == 3 && !x->batched)
        walk_plan(pl, base, x, 3, 0);
    else if (pl->nops == 3)
        walk_plan(pl, base, x, 3, 1);
    else if (pl->nops == 2)
        walk_plan(pl, base, x, 2, x->batched);
    else
        walk_plan(pl, base, x, pl->nops, x->batched);
}

/* The plan with the call's buffers on the stack (out of line: a direct
 * call does not set up, or probe page by page under
 * -fstack-clash-protection, their 64 KiB). */
static __attribute__((noinline)) void run_routed(const bc_plan *pl, char *const *base, exec *x)
{
    buffers bufs;
    x->buf = &bufs;
    run_plan(pl, base, x);
}

/* Byte range [*lo, *hi) operand j of the plan reaches from base. */
static void plan_range(const bc_plan *pl, const char *base, int j, int64_t size, uintptr_t *lo,
                       uintptr_t *hi)
{
    int64_t l = 0, h = 0;
    for (int r = 0; r < pl->rank; r++) {
        int64_t span = (pl->dims[r] - 1) * pl->strides[j][r];
        if (span < 0)
            l += span;
        else
            h += span;
    }
    *lo = (uintptr_t)base + (uintptr_t)l;
    *hi = (uintptr_t)base + (uintptr_t)(h + size);
}

/* 1 if the output shares memory with an input: in place (the front end
 * allows no other overlap).  Checked once per call. */
static int output_overlaps(const bc_plan *pl, char *const *base, const int64_t *size)
{
    uintptr_t olo, ohi, lo, hi;
    plan_range(pl, base[0], 0, size[0], &olo, &ohi);
    for (int j = 1; j < pl->nops; j++) {
        plan_range(pl, base[j], j, size[j], &lo, &hi);
        if (lo < ohi && olo < hi)
            return 1;
    }
    return 0;
}

/* 1 if the plan walks the output in memory order without gaps (row-major
 * strides) and a 2-D block fits the buffer: the blocks can be batched. */
static int in_memory_order(const bc_plan *pl, int64_t size, int inner)
{
    const int R = pl->rank;
    int64_t want = size;
    for (int r = R - 1; r >= 0; r--) {
        if (pl->strides[0][r] != want)
            return 0;
        want *= pl->dims[r];
    }
    int64_t block = size;
    for (int r = R - 1; r >= 0 && r >= R - inner; r--)
        block *= pl->dims[r];
    return block <= PIECE_BYTES;
}

/* Outputs of at least this many bytes are written with non-temporal
 * stores: the last-level cache as the C library reports it, at most
 * 32 MiB (a VM reports its host's whole L3, 300 MiB on the development
 * machine, shared with other tenants), 32 MiB when unknown.
 * BROADCHECK_NT_MIN_BYTES overrides it (the tests lower it to reach the
 * streaming path with small outputs); it is read only for outputs of at
 * least NT_FLOOR_BYTES. */
static int64_t nt_min_bytes(void)
{
    const char *env = getenv("BROADCHECK_NT_MIN_BYTES");
    if (env && *env) {
        char *end;
        long long v = strtoll(env, &end, 10);
        if (*end == '\0' && v >= 0)
            return v;
    }
    int64_t llc = 32 << 20;
#ifdef _SC_LEVEL3_CACHE_SIZE
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (l3 > 0 && l3 < llc)
        llc = l3;
#endif
    return llc;
}

/* The decisions of a call that depend on the layouts alone: routes the
 * output through the buffer when it is large enough to stream, gathers
 * transposed inputs when `tiles`.  Whether the output is an input (in
 * place) depends on the addresses: run_exec decides it per call. */
static void setup_exec(exec *x, const bc_plan *pl, kernel_fn fn, kernel3_fn fn3,
                       const void *aux, const int64_t *size, int64_t out_bytes, int tiles)
{
    x->fn = fn;
    x->fn3 = fn3;
    x->aux = aux;
    x->nops = pl->nops;
    x->size = size;
    x->route = ROUTE_DIRECT;
    x->gathered = 0;
    x->buf = NULL;
    x->batched = 0;
    x->flat = 0;
    x->avx = 0;
    x->fn3nt = NULL;
    x->nt = 0;
    x->tile_nt = 0;
    if (tiles && pl->nops - 1 <= MAX_GATHERED) {
        x->gathered = transposed_inputs(pl, size);
        if (x->gathered && __builtin_popcount(x->gathered) > MAX_GATHERED)
            x->gathered = 0;
    }
    if (x->gathered)
        x->avx = use_avx2();
    const int contiguous_out = pl->rank >= 1 && pl->strides[0][pl->rank - 1] == size[0];
    if (contiguous_out && out_bytes >= NT_FLOOR_BYTES && out_bytes >= nt_min_bytes()) {
        x->route = ROUTE_STREAM;
        x->avx = use_avx2();
        x->batched = !x->gathered && in_memory_order(pl, size[0], x->fn3 ? 3 : 2);
        if (!x->batched && x->fn3 && !x->gathered && in_memory_order(pl, size[0], 2)) {
            /* a 3-D block is larger than the buffer: 2-D ones, each still
             * one call of the 3-D kernel (its AVX2 clone: rank5-outer's
             * 64 x 64 blocks took the portable SSE2 2-D kernel) */
            x->batched = 1;
            x->flat = 1;
        }
    }
}

/* 1 if every row of the output (its inner axis, contiguous) starts 32-byte
 * aligned and is a whole number of 32 bytes: fn3nt's stores need both. */
static int nt_rows(const bc_plan *pl, const char *base, int64_t size)
{
    const int R = pl->rank;
    if (R < 1 || pl->strides[0][R - 1] != size || (pl->dims[R - 1] * size) % 32 != 0 ||
        (uintptr_t)base % 32 != 0)
        return 0;
    for (int r = 0; r < R - 1; r++)
        if (pl->dims[r] > 1 && pl->strides[0][r] % 32 != 0)
            return 0;
    return 1;
}

/* Runs the plan from `base` (operand j's first element), routing the
 * output through the buffer when it shares memory with an input
 * (`overlaps`: 1 or 0 if the caller knows, -1 to find out). */
static void run_exec(const bc_plan *pl, char *const *base, const exec *x0, int overlaps)
{
    exec x = *x0;
    const int stream = x.route == ROUTE_STREAM;
    if (x.route == ROUTE_DIRECT && (overlaps < 0 ? output_overlaps(pl, base, x.size) : overlaps))
        x.route = ROUTE_COPY;
    if (x.fn3nt && nt_rows(pl, base[0], x.size[0]) &&
        !(overlaps < 0 ? output_overlaps(pl, base, x.size) : overlaps)) {
        if (x.gathered) {
            /* the tiles' kernel streams each tile's rows (whole 32 bytes,
             * as the tile's columns start at multiples of 64 elements) from
             * the gathered inputs to the output: one pass over L1 fewer
             * than kernel-into-buffer, then copy */
            x.tile_nt = 1;
        } else {
            /* the kernel streams the output itself: the direct route's walk
             * (three inner axes per call, and a fourth) with its variant */
            x.route = ROUTE_DIRECT;
            x.fn3 = x.fn3nt;
            x.nt = 1;
            x.batched = 0;
            x.flat = 0;
        }
    }
    if (x.route == ROUTE_DIRECT && !x.gathered)
        run_plan(pl, base, &x);
    else
        run_routed(pl, base, &x);
#ifdef __SSE2__
    if (stream)
        _mm_sfence(); /* streamed lines reach memory before anyone reads the output */
#endif
}

static void run_kernel(const bc_plan *pl, kernel_fn fn, const void *aux, const int64_t *size,
                       int64_t out_bytes, int tiles)
{
    exec x;
    setup_exec(&x, pl, fn, NULL, aux, size, out_bytes, tiles);
    run_exec(pl, pl->base, &x, -1);
}

/* Fills every element of `out` with the bytes at `value`. */
static void fill(const bc_tensor *out, const char *value)
{
    bc_plan pl;
    bc_shape s = bc_tensor_shape(out);
    int64_t zero[BC_MAX_RANK] = {0}, size[2], n;
    if (bc_shape_numel(&s, &n) != BC_OK || n == 0)
        return; /* nothing to fill (the front end checked the count) */
    bc_tensor src = *out;
    src.data = (void *)value;
    src.offset = 0;
    size[0] = size[1] = (int64_t)bc_dtype_size(out->dtype);
    bc_plan_begin(&pl, &s);
    bc_plan_add(&pl, out, out->strides);
    bc_plan_add(&pl, &src, zero);
    bc_plan_finish(&pl, 1);
    /* sum-to-shape's starting values: read back at once, never streamed */
    run_kernel(&pl, copy_kernel((size_t)size[0]), NULL, size, 0, 0);
}

/* A direct binary call of 3 to 5 axes (after merging), the small calls'
 * shape: the 3-D kernel over the four inner axes, called once per step of
 * the fifth (rank-5 small: 2 calls of 5 x 3 x 6 x 4), without the plan
 * walk's set-up (strides gathered per operand, carries, the odometer), the
 * blocks walk_plan's direct route would call.  Byte strides, operand 0
 * the output. */
typedef struct direct5 {
    kernel3_fn fn3;
    int64_t n[5];    /* n[0] the innermost axis */
    int64_t s[5][3]; /* s[k][j]: operand j's byte stride on axis k */
} direct5;

static void direct5_axis(direct5 *d, int k, int64_t n, int64_t so, int64_t sa, int64_t sb)
{
    d->n[k] = n;
    d->s[k][0] = so;
    d->s[k][1] = sa;
    d->s[k][2] = sb;
}

/* Orders axes 2 to 4 (those outside the kernel's plane) by extent, the
 * longest innermost: the fifth's steps are kernel calls and the fourth's
 * the kernel's outer loop, each dearer than a plane of the third (rank-5
 * small: 2 x 3 x 5 planes rather than 2 x 5 x 3, 64 instructions fewer).
 * An elementwise call whose output meets no input and not itself (the
 * direct route's calls) gives the same bytes in any order. */
static inline __attribute__((always_inline)) void direct5_order(int64_t *n, int64_t (*s)[3])
{
    static const int pairs[3][2] = {{2, 3}, {3, 4}, {2, 3}};
    for (int i = 0; i < 3; i++) {
        const int k = pairs[i][0], l = pairs[i][1];
        if (n[k] < n[l]) {
            const int64_t t = n[k], t0 = s[k][0], t1 = s[k][1], t2 = s[k][2];
            n[k] = n[l];
            s[k][0] = s[l][0];
            s[k][1] = s[l][1];
            s[k][2] = s[l][2];
            n[l] = t;
            s[l][0] = t0;
            s[l][1] = t1;
            s[l][2] = t2;
        }
    }
}

/* n[k] and s[k] as direct5's (bc_small_axes' dims and strides too).
 * Inlined in bc_fast_run_small (its call sets up no second frame); out of
 * line for the prepared call, whose bc_fast_exec stays small. */
static inline __attribute__((always_inline)) void direct5_calls(kernel3_fn fn3, const int64_t *n,
                                                                const int64_t (*s)[3],
                                                                char *const *base)
{
    char *p[3] = {base[0], base[1], base[2]};
    for (int64_t i = 0; i < n[4]; i++) {
        fn3(n[3], n[2], n[1], n[0], p, s[3], s[2], s[1], s[0]);
        p[0] += s[4][0];
        p[1] += s[4][1];
        p[2] += s[4][2];
    }
}

static __attribute__((noinline)) void run_direct5(kernel3_fn fn3, const int64_t *n,
                                                  const int64_t (*s)[3], char *const *base)
{
    direct5_calls(fn3, n, s, base);
}

/* A plan, its kernel and the decisions that depend on the layouts alone:
 * what bc_fast_run computes per call and a prepared call keeps. */
struct bc_fast_prep {
    exec x;
    nary_aux nary;
    int empty; /* a size-0 result: reads and writes nothing */
    int direct; /* one block, no buffers: the kernel is called straight */
    int deep;   /* a binary plan of 3 to 5 axes, no buffers: run_direct5 */
    direct5 d5; /* with deep */
    int64_t n1, n0, s1[BC_PLAN_MAX_OPS], s0[BC_PLAN_MAX_OPS]; /* with direct: the block */
    int64_t size[BC_PLAN_MAX_OPS];
    intptr_t rel[BC_PLAN_MAX_OPS]; /* prepared: plan base minus the view's data, bytes */
    bc_plan pl;
};

/* The plan of an elementwise, select or broadcast job (not a sum). */
static void prepare(const bc_job *job, bc_fast_prep *fp)
{
    bc_plan *pl = &fp->pl;
    int64_t frame[BC_MAX_RANK], *size = fp->size;
    const int R = job->result.rank;
    fp->empty = job->numel == 0; /* a size-0 output reads nothing */
    fp->direct = 0;
    if (fp->empty)
        return;
    bc_plan_begin(pl, &job->result);
    bc_plan_add(pl, job->out, job->out->strides);
    size[0] = (int64_t)bc_dtype_size(job->out->dtype);
    for (int i = 0; i < job->nin; i++) {
        bc_plan_frame(&job->params, job->shapes, job->operand[i], job->in[i], R, frame);
        bc_plan_add(pl, job->in[i], frame);
        size[i + 1] = (int64_t)bc_dtype_size(job->in[i]->dtype);
    }
    bc_plan_finish(pl, 1);
    const int64_t out_bytes = job->numel * size[0]; /* the front end checked it fits */

    switch (job->kind) {
    case BC_JOB_ELEMENTWISE:
        if (job->nin == 1) {
            setup_exec(&fp->x, pl, copy_kernel((size_t)size[0]), NULL, NULL, size, out_bytes, 1);
        } else if (job->nin == 2) {
            const dtype_kernels k = kernels_for(job->dtype, job->op, out_bytes);
            setup_exec(&fp->x, pl, k.binary, k.binary3, NULL, size, out_bytes, 1);
            if (fp->x.route == ROUTE_STREAM && fp->x.avx)
                fp->x.fn3nt = k.binary3nt;
        } else {
            fp->nary = (nary_aux){kernels_for(job->dtype, job->op, out_bytes).row, (size_t)size[1],
                                  job->nin};
            setup_exec(&fp->x, pl, nary_kernel, NULL, &fp->nary, size, out_bytes, 0);
        }
        return;
    case BC_JOB_SELECT:
        setup_exec(&fp->x, pl, select_kernel((size_t)size[0]), NULL, NULL, size, out_bytes, 1);
        return;
    default: /* BC_JOB_BROADCAST */
        setup_exec(&fp->x, pl, copy_kernel((size_t)size[0]), NULL, NULL, size, out_bytes, 1);
        return;
    }
}

void bc_fast_run(const bc_job *job)
{
    bc_plan pl;
    int64_t frame[BC_MAX_RANK], size[BC_PLAN_MAX_OPS];
    const bc_tensor *out = job->out;
    const int R = job->result.rank;

    if (job->kind == BC_JOB_SUM) {
        union { int64_t i; double d; char c[8]; } v = {0};
        if (job->numel == 0) { /* no terms: +0 (v is all zero bits) */
            fill(out, v.c);
            return;
        }
        const dtype_kernels k = kernels_for(job->dtype, job->op, 0);
        k.sum_init(v.c);
        fill(out, v.c);
        /* Over the gradient's index space, in row-major order (no reordering,
         * no tiles): out, with stride 0 on the summed axes, then grad.  The
         * output is read and written in place by the kernel: never routed. */
        bc_plan_begin(&pl, &job->result);
        bc_plan_frame(&job->params, job->shapes, job->operand[0], out, R, frame);
        bc_plan_add(&pl, out, frame);
        bc_plan_add(&pl, job->in[0], job->in[0]->strides);
        bc_plan_finish(&pl, 0);
        size[0] = size[1] = (int64_t)bc_dtype_size(job->dtype);
        exec x = {k.sum, NULL, NULL, 2, size, ROUTE_DIRECT, 0, NULL, 0, 0, 0, NULL, 0, 0};
        run_plan(&pl, pl.base, &x);
        return;
    }
    bc_fast_prep fp;
    prepare(job, &fp);
    if (!fp.empty)
        run_exec(&fp.pl, fp.pl.base, &fp.x, -1);
}

/* More than five axes: a plan, walked as bc_fast_run walks it (out of
 * line: the plan's 5 KiB of stack are not set up for the others). */
static __attribute__((noinline)) void run_small_plan(const bc_small_axes *ax, bc_dtype dtype,
                                                     bc_op op, int64_t out_bytes)
{
    bc_plan pl;
    const int R = ax->rank;
    const int64_t isz = (int64_t)bc_dtype_size(dtype);
    const int64_t size[3] = {bc_op_result_dtype(op, dtype) == dtype ? isz : 1, isz, isz};
    pl.rank = R;
    pl.nops = 3;
    for (int r = 0; r < R; r++) {
        pl.dims[r] = ax->dims[R - 1 - r];
        for (int j = 0; j < 3; j++)
            pl.strides[j][r] = ax->strides[R - 1 - r][j];
    }
    for (int j = 0; j < 3; j++)
        pl.base[j] = ax->base[j];
    const dtype_kernels k = kernels_for(dtype, op, out_bytes);
    exec x = {k.binary, k.binary3, NULL, 3, size, ROUTE_DIRECT, 0, NULL, 0, 0, 0, NULL, 0, 0};
    run_plan(&pl, pl.base, &x);
}

bc_fast_block_fn bc_fast_block_kernel(bc_dtype dtype, bc_op op)
{
#if BC_FAST_F16C
    if (half_kernels(dtype))
        return f16c_kernels[op];
#endif
    return binary_kernels[dtype][op];
}

void bc_fast_run_small(bc_small_axes *ax, bc_dtype dtype, bc_op op, int64_t out_bytes)
{
    if (ax->rank > 5) {
        run_small_plan(ax, dtype, op, out_bytes);
        return;
    }
    for (int k = ax->rank; k < 5; k++) {
        ax->dims[k] = 1;
        ax->strides[k][0] = ax->strides[k][1] = ax->strides[k][2] = 0;
    }
    if (ax->rank > 2) {
        const kernel3_fn fn3 = kernel3_for(dtype, op, out_bytes);
        direct5_order(ax->dims, ax->strides);
        direct5_calls(fn3, ax->dims, ax->strides, ax->base);
    } else { /* one block: the kernel straight, as a prepared direct call */
        bc_fast_block_kernel(dtype, op)(ax->dims[1], ax->dims[0], ax->base, ax->strides[1],
                                        ax->strides[0], NULL);
    }
}

bc_fast_prep *bc_fast_prepare(const bc_job *job)
{
    bc_fast_prep *fp = malloc(sizeof *fp);
    if (!fp)
        return NULL;
    prepare(job, fp);
    const bc_plan *pl = &fp->pl;
    const int R = pl->rank;
    fp->direct = !fp->empty && R <= 2 && fp->x.route == ROUTE_DIRECT && !fp->x.gathered;
    fp->deep = !fp->empty && R >= 3 && R <= 5 && pl->nops == 3 && fp->x.fn3 &&
               fp->x.route == ROUTE_DIRECT && !fp->x.gathered;
    if (fp->deep) {
        fp->d5.fn3 = fp->x.fn3;
        for (int k = 0; k < 5; k++)
            if (k < R)
                direct5_axis(&fp->d5, k, pl->dims[R - 1 - k], pl->strides[0][R - 1 - k],
                             pl->strides[1][R - 1 - k], pl->strides[2][R - 1 - k]);
            else
                direct5_axis(&fp->d5, k, 1, 0, 0, 0);
        direct5_order(fp->d5.n, fp->d5.s);
    }
    if (fp->direct) {
        fp->n0 = R >= 1 ? pl->dims[R - 1] : 1;
        fp->n1 = R >= 2 ? pl->dims[R - 2] : 1;
        for (int j = 0; j < pl->nops; j++) {
            fp->s0[j] = R >= 1 ? pl->strides[j][R - 1] : 0;
            fp->s1[j] = R >= 2 ? pl->strides[j][R - 2] : 0;
        }
    }
    /* each operand's first element as a distance from its view's data, so
     * that the plan runs on other memory laid out alike */
    for (int j = 0; !fp->empty && j < fp->pl.nops; j++) {
        const bc_tensor *t = j ? job->in[j - 1] : job->out;
        fp->rel[j] = (intptr_t)((uintptr_t)fp->pl.base[j] - (uintptr_t)t->data);
    }
    return fp;
}

void bc_fast_exec(const bc_fast_prep *fp, char *const *data, int overlaps)
{
    if (fp->empty)
        return;
    char *base[BC_PLAN_MAX_OPS];
    for (int j = 0; j < fp->pl.nops; j++)
        base[j] = (char *)((uintptr_t)data[j] + (uintptr_t)fp->rel[j]);
    if (fp->direct && !overlaps)
        fp->x.fn(fp->n1, fp->n0, base, fp->s1, fp->s0, fp->x.aux);
    else if (fp->deep && !overlaps)
        run_direct5(fp->d5.fn3, fp->d5.n, fp->d5.s, base);
    else
        run_exec(&fp->pl, base, &fp->x, overlaps);
}
