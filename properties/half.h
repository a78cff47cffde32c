/*
 * Private to properties/: float <-> IEEE binary16 conversions of arrays,
 * with the CPU's F16C instructions when it has them (checked at run time:
 * the default build targets plain x86-64, which has none) and the
 * compiler's own _Float16 conversions otherwise.  Both give the same bits
 * for every input, NaN payloads, subnormals and ties included
 * (tests/test_half.c compares them on all 65,536 halves and on floats at
 * and around every rounding boundary); the software conversions raise
 * floating-point exceptions through libgcc's slow path, which made them a
 * sixth of a medium-tier run.
 */
#ifndef BROADCHECK_HALF_H
#define BROADCHECK_HALF_H

#include <stddef.h>
#include <stdint.h>

#include "broadcheck/tensor.h"

/* 1 when this CPU (and its OS) runs F16C (0 without float16, or off
 * x86).  Ask once and keep the answer (the arena does): it executes CPUID,
 * which traps to the hypervisor in a virtual machine, and asked per row it
 * took most of a run. */
int bc_half_hardware(void);

#if BC_HAVE_FLOAT16

/* dst[i] = src[i] rounded to binary16 (the current rounding mode: to
 * nearest, ties to even, unless the caller changed it), as bits; by F16C
 * when `hardware` (bc_half_hardware()'s answer), else in software. */
void bc_half_from_float(uint16_t *dst, const float *src, size_t n, int hardware);
/* dst[i] = the binary16 of bits src[i], exactly. */
void bc_half_to_float(float *dst, const uint16_t *src, size_t n, int hardware);

/* The same by the compiler's software conversions alone (the tests'
 * reference, and the path of a CPU without F16C). */
void bc_half_from_float_soft(uint16_t *dst, const float *src, size_t n);
void bc_half_to_float_soft(float *dst, const uint16_t *src, size_t n);
#endif

#endif
