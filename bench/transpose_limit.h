/*
 * Private to the bench: the transpose limit's copy strategies
 * (transpose_limit.c).
 */
#ifndef BC_TRANSPOSE_LIMIT_H
#define BC_TRANSPOSE_LIMIT_H

#include <stdint.h>

/* scalar: 32 x 32 blocks, element by element; tiles: 128 x 64 tiles
 * (memory runs of 512 bytes, as the engine's), 8 x 8 AVX register
 * transposes, whole output lines, plain stores; tiles-nt: the same with
 * non-temporal stores; rows-nt: 16 whole memory rows copied to a buffer,
 * then transposed from it, non-temporal. */
enum { BC_TLIMIT_SCALAR, BC_TLIMIT_TILES, BC_TLIMIT_TILES_NT, BC_TLIMIT_ROWS_NT, BC_TLIMITS };
extern const char *const bc_tlimit_names[BC_TLIMITS];

/* out[i][j] = mem[j][i] over an n x n float matrix by strategy `way`;
 * 0 if the strategy cannot run here (no AVX, n not a multiple of 128, out
 * not 64-byte aligned, no memory for rows-nt's buffer), nothing written then. */
int bc_tlimit_run(int way, float *out, const float *mem, int64_t n);
/* 1 if out holds mem transposed at a grid of points (every 7th row, 13th
 * column, so that each strategy's blocks are sampled at every offset): a
 * strategy that copies wrong gives no limit, rather than a false one. */
int bc_tlimit_check(const float *out, const float *mem, int64_t n);

#endif
