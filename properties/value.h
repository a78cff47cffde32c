/*
 * Private to properties/: value cases made concrete.  A value case (the
 * op=, dtype=, layout= and values= keys of a vector line) names everything
 * its tensors are made from, so the same line always gives the same bytes:
 * that is what makes a value failure replayable from one line.
 */
#ifndef BROADCHECK_VALUE_H
#define BROADCHECK_VALUE_H

#include "broadcheck/properties.h"
#include "broadcheck/sut.h"
#include "broadcheck/vector.h"
#include "prng.h"

/* Value tensors hold at most this many elements; bigger ones are not
 * value-checked.  The memory budget (bc_value_check_bytes) is what limits
 * a check in practice; this only keeps every byte count far from
 * overflowing. */
#define BC_VALUE_MAX_NUMEL ((int64_t)1 << 36)

/* The medium tier's long sums (docs/PROPERTIES.md "Value tiers"): this
 * share of its sum-to-shape cases sums at least BC_LONG_SUM_TERMS gradient
 * terms into each output element, BC_LONG_SUM_MAX_ELEMENTS terms at most in
 * all, float16 in half of them where the SUT takes it. */
#define BC_LONG_SUM_PERCENT 30
#define BC_LONG_SUM_TERMS ((int64_t)1 << 16)
#define BC_LONG_SUM_MAX_ELEMENTS ((int64_t)1 << 20)

/* The evaluator that computes an expectation of `numel` elements: the
 * naive oracle up to BC_VALUE_NAIVE_MAX_NUMEL (properties.h), the fast
 * engine past it (the naive one would take minutes on the large tiers;
 * the fast one is checked against it in tests/test_engine_random.c). */
bc_evaluator bc_value_oracle(int64_t numel);

/* The bytes the buffers of one check of value case c take, at most:
 * input_sets copies of its inputs (each twice its elements: a layout's
 * gap) and `outputs` outputs of the result's size, plus `extra` bytes per
 * element of the rule's result (scratch); -1 when some count is past
 * BC_VALUE_MAX_NUMEL.  *question gets the bytes of one question to the
 * SUT (its inputs and its output). */
int64_t bc_value_check_bytes(const bc_vector *c, int input_sets, int outputs, int64_t extra,
                             int64_t *question);

/* ---- scratch memory: one per checking thread, reset before each check -- */

typedef struct bc_arena bc_arena;

bc_arena *bc_arena_new(void);
void bc_arena_free(bc_arena *a);
void bc_arena_reset(bc_arena *a);
/* A reset that keeps no large block and no guarded buffer mapping: what a
 * check that took its memory from the run's shared budget (budget.h) ends
 * with, before it gives the bytes back. */
void bc_arena_trim(bc_arena *a);
/* size bytes aligned for any element type; NULL when out of memory.  The
 * tensors of a request are not here but in the arena's guarded pool
 * (guard.h), reset with it. */
void *bc_arena_alloc(bc_arena *a, size_t size);

/* ---- generation ----------------------------------------------------------- */

/* Which value operations a property wants (bit per bc_value_op). */
#define BC_VALUE_KIND(k) (1u << (k))

/* Fills c with a value case for rule: the operation (one of `kinds` that
 * the rule takes and caps allows), dtype and op (among those caps allows,
 * when it allows any), shapes of at most 64 elements per operand (at least
 * 10 % of cases with a 0 dim), and the layout and values seeds.  strided:
 * always a non-contiguous layout (else 60 % of the time). */
void bc_value_gen(bc_prng *r, bc_rule rule, unsigned kinds, const bc_sut_value_caps *caps,
                  const bc_semantics *semantics, int strided, bc_vector *c);
/* The same at a tier (bc_value_tier): small is bc_value_gen; medium makes
 * results of 10^3 to 2^20 elements; huge, results past 2^31 elements of a
 * 1-byte dtype (bool, int8, uint8). */
void bc_value_gen_tier(bc_prng *r, bc_rule rule, unsigned kinds, const bc_sut_value_caps *caps,
                       const bc_semantics *semantics, int strided, int tier, bc_vector *c);
/* The values' definition a case generated at a tier gets for a nonzero
 * values= seed: version 1 on the small tier (its case lines, ids and the
 * certifications' figures stay what they were), version 2 on the medium
 * and huge tiers, whose millions of elements a case made version 1's one
 * xoshiro256** draw per element most of the inputs' cost. */
bc_values_version bc_values_version_of_tier(int tier);

/* Version 2's value of row-major element j of input k under seed `values`
 * (nonzero) for dtype t, before it is stored in t: the definition, one
 * element at a time (make_tensor computes it by blocks). */
int64_t bc_value_v2(uint64_t values, int k, int64_t j, bc_dtype t);
/* row[i] = the same for elements j0 .. j0 + n - 1 of the input whose key
 * is `key` (bc_value_v2_key), by the block: the vector loop make_tensor
 * runs, its AVX2 copy with avx2 (only where bc_value_v2_avx2() is 1). */
void bc_value_v2_block(uint64_t key, bc_dtype t, int64_t j0, int64_t *row, int64_t n, int avx2);
uint64_t bc_value_v2_key(uint64_t values, int k);
int bc_value_v2_avx2(void); /* 1 if the CPU runs the AVX2 copy */

/* ---- a value question from a case ----------------------------------------- */

typedef struct bc_value_request {
    bc_eval_request req;
    bc_tensor inputs[BC_VECTOR_MAX_SHAPES];
} bc_value_request;

/* Builds the request of value case c with its inputs laid out by `layout`
 * (0: C-contiguous) in the arena's guarded memory, each input's data
 * pointing at the first element of its buffer (the offset and the strides
 * as the layout made them, guard.h's margin after the last), and an output
 * buffer sized for the reference's result, poisoned.  Returns 0, or -1 with why when the case cannot be
 * made concrete (a negative dim, too many elements, out of memory). */
int bc_value_request_build(const bc_vector *c, uint64_t layout, bc_arena *a,
                           bc_value_request *vr, char *why, size_t cap);

/* A request for `kind` on tensors the caller already has (the inputs of
 * another request, or outputs of earlier answers), with a fresh output of
 * up to out_capacity elements.  Returns 0, or -1 when out of memory. */
int bc_value_request_make(bc_value_request *vr, bc_value_op kind, bc_op op,
                          const bc_params *p, int n, const bc_shape *shapes, int operand,
                          int ninputs, const bc_tensor *inputs, bc_dtype out_dtype,
                          int64_t out_capacity, bc_arena *a);

/* A request like vr (its kind, inputs and output size) whose output
 * broadcheck itself fills, every element (the oracle's answer, an
 * expected result): the output is not poisoned.  0, or -1 out of memory. */
int bc_value_request_expected(const bc_value_request *vr, bc_value_request *copy, bc_arena *a);

/* 0 if the poison around the output and every input (guard.h) is intact;
 * else the SUT wrote past the end of a buffer (BC_VALUE_WROTE_PAST_END: its
 * margin holds a write) or before its start (BC_VALUE_WROTE_BEFORE), and
 * *buffer says which: -1 the output (looked at first), else the input's
 * index.  An input not in the arena's guarded memory is not looked at. */
enum { BC_VALUE_WROTE_PAST_END = 1, BC_VALUE_WROTE_BEFORE = 2 };
int bc_value_guard_broken(const bc_value_request *vr, const bc_arena *a, int *buffer);

/* The answer's output as a contiguous tensor view (the answer's shape). */
bc_tensor bc_value_output(const bc_value_request *vr, const bc_sut_answer *answer);

/* Compares two contiguous outputs of the same shape and dtype.  Floats
 * compare by value with every NaN equal to every NaN (so -0 == +0); other
 * dtypes by value.  Returns 1 and describes the first difference (its
 * coordinates and both values, and how many differ) in detail, or 0. */
int bc_value_differ(const bc_tensor *got, const char *got_name, const bc_tensor *want,
                    const char *want_name, char *detail, size_t cap);

/* bc_value_differ, with float elements equal when within tol of each other. */
int bc_value_differ_within(const bc_tensor *got, const char *got_name, const bc_tensor *want,
                           const char *want_name, double tol, char *detail, size_t cap);

/* bc_value_differ_within with a tolerance per element: tols[i] for
 * row-major element i when tols is not NULL, else tol for every one. */
int bc_value_differ_bounded(const bc_tensor *got, const char *got_name, const bc_tensor *want,
                            const char *want_name, double tol, const double *tols, char *detail,
                            size_t cap);

/* The tolerance of each element of a float matmul question vr
 * (docs/PROPERTIES.md "matmul-values"): tols[e] gets the bound on how far
 * a sum of the K products of element e, computed in any order with each
 * step rounded to the dtype (or wider), lies from the reference's (long
 * double, rounded once).  0, or -1 out of memory or when a bound could
 * reach the dtype's overflow threshold (no order-free answer). */
int bc_value_matmul_bounds(const bc_value_request *vr, bc_arena *a, double **tols);

/* The oracle of a float16 sum-to-shape question vr under float16_sum=wide
 * (docs/ENGINE.md "Value semantics"): want (contiguous, float16, of the
 * output's shape) gets each exact sum rounded once to float16.  Returns the
 * tolerance an answer accumulated in float32 or wider, in any order, stays
 * within: 0 when every such order is exact; -1 when no bound holds (an
 * infinite term) or memory ran out. */
double bc_value_wide_sum(const bc_value_request *vr, bc_arena *a, const bc_tensor *want);

/* The oracle of an integer sum-to-shape question vr under
 * int_overflow=saturate: want gets each exact sum clamped once to the
 * dtype's range.  0, or -1 when an exact sum could pass int64 (or memory
 * ran out). */
int bc_value_clamped_sum(const bc_value_request *vr, bc_arena *a, const bc_tensor *want);

/* out = x * factor elementwise (x any layout, out contiguous of x's shape
 * and dtype): integers wrap like the engine's sums, or with saturate are
 * clamped to the dtype's range (int_overflow=saturate sums); floats round
 * once. */
void bc_value_scale(const bc_tensor *x, int64_t factor, int saturate, const bc_tensor *out);

#endif
