/*
 * broadcheck/tensor.h: strided tensor views and the reference compute engine.
 *
 * A view (bc_tensor) describes memory the caller owns: nothing here
 * allocates or keeps state.  Every operation takes its broadcasting rule as
 * a bc_params (shape.h) and gets its result shape from bc_infer, the single
 * source of truth for shapes; the caller passes an output view of exactly
 * that shape.  Two evaluators compute every operation:
 *
 *   BC_EVAL_NAIVE  the oracle: one output coordinate at a time, each input
 *                  coordinate mapped from it by the rule's definition;
 *   BC_EVAL_FAST   the strided engine: drops size-1 axes, merges axes,
 *                  specialises and tiles the inner loops.
 *
 * Both give bit-identical results for every valid call (docs/ENGINE.md states
 * every operation's exact semantics and the aliasing rules).  Errors reuse
 * bc_error from shape.h: shape errors come from the rule, BC_ERR_OVERFLOW
 * for element counts or byte sizes past INT64_MAX, BC_ERR_BAD_PARAMS for a
 * dtype, alignment, aliasing or operation the call does not allow.
 */
#ifndef BROADCHECK_TENSOR_H
#define BROADCHECK_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#include "broadcheck/shape.h"

#ifdef __cplusplus
extern "C" {
#endif

/* float16 exists where the compiler has _Float16 (GCC >= 12 and Clang on
 * x86-64 and AArch64); elsewhere BC_HAVE_FLOAT16 is 0 and BC_FLOAT16 is
 * refused with BC_ERR_BAD_PARAMS. */
#if defined(__FLT16_MAX__)
#define BC_HAVE_FLOAT16 1
#else
#define BC_HAVE_FLOAT16 0
#endif

typedef enum bc_dtype {
    BC_BOOL,    /* one byte holding 0 or 1 */
    BC_INT8,
    BC_UINT8,
    BC_INT32,
    BC_INT64,
    BC_FLOAT32,
    BC_FLOAT64,
    BC_FLOAT16, /* IEEE binary16, only with BC_HAVE_FLOAT16 */
    BC_DTYPE_COUNT
} bc_dtype;

size_t bc_dtype_size(bc_dtype t);            /* bytes per element; 0 if unknown */
const char *bc_dtype_name(bc_dtype t);       /* "bool", "int8", ..., "float16" */
int bc_dtype_from_name(const char *name, bc_dtype *out); /* 0 ok, -1 unknown */
int bc_dtype_available(bc_dtype t);          /* 1 if this build computes with it */

/* A strided view.  Element (i0, ..., i{rank-1}) lives at
 *   (char *)data + (offset + sum_k i_k * strides[k]) * bc_dtype_size(dtype).
 * Strides are in elements and may be negative or 0.  Every address a view
 * can reach must lie inside the caller's allocation and be aligned to the
 * element size. */
typedef struct bc_tensor {
    bc_dtype dtype;
    int rank;                      /* 0 .. BC_MAX_RANK; 0 is a scalar */
    int64_t dims[BC_MAX_RANK];
    int64_t strides[BC_MAX_RANK];  /* in elements */
    void *data;
    int64_t offset;                /* in elements, added to every address */
} bc_tensor;

/* A row-major (C-contiguous) view of `shape` at `data`.  The dims and
 * strides past its rank are 0, so a caller who raises the rank afterwards
 * reads defined values. */
bc_tensor bc_tensor_contiguous(bc_dtype t, const bc_shape *shape, void *data);
/* The shape of a view. */
bc_shape bc_tensor_shape(const bc_tensor *t);
/* Checks a view: dtype known and available, rank and dims in range, and every
 * element count, element offset and byte offset representable in int64.
 * On success stores the number of elements (if numel is not NULL). */
bc_error_kind bc_tensor_check(const bc_tensor *t, int64_t *numel, bc_error *err);
/* Smallest and largest element offset (relative to data) the view reaches;
 * both 0 when it has no elements (returns 0), 1 otherwise.  Call only on a
 * view bc_tensor_check accepted. */
int bc_tensor_extent(const bc_tensor *t, int64_t *lo, int64_t *hi);

/* ---- operations ------------------------------------------------------ */

typedef enum bc_evaluator {
    BC_EVAL_NAIVE, /* the oracle */
    BC_EVAL_FAST,  /* the strided engine */
    BC_EVAL_COUNT
} bc_evaluator;

/* Elementwise binary operations.  Arithmetic ones give the inputs' dtype,
 * comparisons and logical ones give BC_BOOL. */
typedef enum bc_op {
    BC_OP_ADD,
    BC_OP_SUB,
    BC_OP_MUL,
    BC_OP_DIV,   /* integers: truncating; x / 0 = 0; MIN / -1 = MIN */
    BC_OP_MAX,   /* floats: NaN if either is NaN; max(-0, +0) = +0 */
    BC_OP_MIN,   /* floats: NaN if either is NaN; min(-0, +0) = -0 */
    BC_OP_EQUAL, /* -> bool */
    BC_OP_LESS,  /* -> bool */
    BC_OP_AND,   /* logical, nonzero is true -> bool */
    BC_OP_OR,    /* logical, nonzero is true -> bool */
    BC_OP_COUNT, /* the ops a SUT is asked; below, the reference's variants */
    /* The semantic variants (bc_op_under): computed by the evaluators for
     * the oracle of a SUT that declares the semantics, never asked of a
     * SUT, no name a vector line takes. */
    BC_OP_DIV_FLOOR = BC_OP_COUNT,
    BC_OP_DIV_NEAREST_F32,
    BC_OP_DIV_NEAREST,
    BC_OP_ADD_SATURATE,
    BC_OP_SUB_SATURATE,
    BC_OP_MUL_SATURATE,
    BC_OP_SUB_XOR, /* sub on bool as xor (bool_sub=xor); other dtypes: sub */
    BC_OP_ENGINE_COUNT /* every op the evaluators compute */
} bc_op;

/* Value semantics (docs/ENGINE.md "Value semantics"): the choices real
 * libraries make differently on purpose, each one a variant the reference
 * computes exactly, so that a SUT declaring it (its manifest's "semantics")
 * is checked against it rather than excused.  All zero is the reference's
 * own choice, the one ENGINE.md states for each operation. */
typedef enum bc_int_div {
    BC_INT_DIV_TRUNCATE,    /* toward 0 (C, PyTorch's rounding_mode='trunc') */
    BC_INT_DIV_FLOOR,       /* toward -inf (NumPy's //, TF.js div on int32) */
    BC_INT_DIV_NEAREST_F32, /* a / b in float32, rounded half to even, saturated
                               (oneDNN: integer binary ops compute in f32) */
    BC_INT_DIV_NEAREST,     /* the exact quotient rounded half away from 0, saturated
                               (GNU Octave's integer division) */
    BC_INT_DIV_COUNT
} bc_int_div;
typedef enum bc_int_overflow {
    BC_INT_OVERFLOW_WRAP,     /* two's complement, modulo 2^bits */
    BC_INT_OVERFLOW_SATURATE, /* clamped to the dtype's range (oneDNN, XNNPACK int8) */
    BC_INT_OVERFLOW_COUNT
} bc_int_overflow;
typedef enum bc_float16_sum {
    BC_FLOAT16_SUM_EACH, /* each addition rounded to binary16 */
    BC_FLOAT16_SUM_WIDE, /* accumulated in float32 or wider in any order, rounded
                            once (NumPy, PyTorch); checked within the bound of
                            docs/ENGINE.md */
    BC_FLOAT16_SUM_COUNT
} bc_float16_sum;
/* The largest element count a shape may have (spec/RULES.md §9.4): a shape
 * question's answer, not a value's.  Under a limit the SUT must refuse
 * (error:overflow, or no kind) a case whose result has more elements, must
 * accept the rest as the rule does, and may refuse an empty shape whose
 * nonzero dims multiply past the limit (libraries multiply before they see
 * the 0). */
typedef enum bc_max_elements {
    BC_MAX_ELEMENTS_NONE,  /* no limit: any count of dims up to INT64_MAX */
    BC_MAX_ELEMENTS_INT64, /* INT64_MAX elements (NumPy's npy_intp, PyTorch's numel,
                              Octave's index type) */
    BC_MAX_ELEMENTS_COUNT
} bc_max_elements;
/* Subtraction on bool (docs/ENGINE.md "Value semantics"): NumPy and
 * PyTorch refuse it, so by default it is never asked; a library whose bool
 * arithmetic is integer arithmetic converted back to bool (true - true is
 * false, false - true is true: C++'s bool, TF.js's wasm backend) declares
 * xor, and is asked and checked. */
typedef enum bc_bool_sub {
    BC_BOOL_SUB_NONE, /* not defined: never asked (NumPy, PyTorch raise) */
    BC_BOOL_SUB_XOR,  /* a - b converted to bool: a xor b */
    BC_BOOL_SUB_COUNT
} bc_bool_sub;
typedef struct bc_semantics {
    bc_int_div int_div;
    bc_int_overflow int_overflow;
    bc_float16_sum float16_sum;
    bc_max_elements max_elements;
    unsigned max_elements_rules; /* 1u << bc_rule: the rules whose questions the limit
                                    holds on (a library's shape-only functions may have
                                    none); 0: every rule */
    bc_bool_sub bool_sub;
} bc_semantics;

/* Sets the choice named key ("int_div", "int_overflow", "float16_sum",
 * "max_elements", "bool_sub") to value ("truncate", "floor", "nearest-f32",
 * "nearest"; "wrap", "saturate"; "each", "wide"; "none", "int64"; "none",
 * "xor"): 0, or -1 for an unknown key, -2 for a value the key does not take. */
int bc_semantics_set(bc_semantics *s, const char *key, const char *value);
/* "int_div=floor,float16_sum=wide": the choices other than the reference's
 * own, comma-separated; "" when there are none (a limit held on some rules
 * only names them: "max_elements=int64 on onnx-uni/broadcast-to").  Returns
 * what snprintf does. */
int bc_semantics_format(const bc_semantics *s, char *buf, size_t cap);

const char *bc_op_name(bc_op op);            /* "add", ..., "or" */
int bc_op_from_name(const char *name, bc_op *out);
const char *bc_evaluator_name(bc_evaluator ev); /* "naive", "fast" */
/* The operation the reference computes for op on dtype t under semantics
 * s (NULL: the reference's own): op itself, or one of the variants (whose
 * bc_op_name is "div(floor)" etc.). */
bc_op bc_op_under(bc_op op, bc_dtype t, const bc_semantics *s);
/* The dtype op gives for inputs of dtype t. */
bc_dtype bc_op_result_dtype(bc_op op, bc_dtype t);
/* 1 if op is defined on dtype t (sub and div refuse bool; add and mul on bool are or and and;
 * the variant sub(xor) takes bool). */
int bc_op_takes_dtype(bc_op op, bc_dtype t);
/* 1 if op is defined on t under semantics s (NULL: the reference's own):
 * as bc_op_takes_dtype, and sub on bool under bool_sub=xor. */
int bc_op_takes_dtype_under(bc_op op, bc_dtype t, const bc_semantics *s);

/* The kinds of value operation a property asks a SUT to compute
 * (sut.h's bc_eval_request). */
typedef enum bc_value_op {
    BC_VALUE_ELEMENTWISE,  /* bc_eval_binary, bc_eval_nary */
    BC_VALUE_SELECT,       /* bc_eval_select */
    BC_VALUE_BROADCAST,    /* bc_eval_broadcast */
    BC_VALUE_SUM_TO_SHAPE, /* bc_eval_sum_to_shape */
    BC_VALUE_MATMUL,       /* bc_eval_matmul (appended: rule matmul, RULES.md §15.5) */
    BC_VALUE_OP_COUNT
} bc_value_op;

/* out = a op b.  Rules: none, numpy, onnx-uni, pdpd (every profile).
 * a and b have the same dtype; out has the result shape and dtype. */
bc_error_kind bc_eval_binary(bc_evaluator ev, bc_op op, const bc_params *p,
                             const bc_tensor *a, const bc_tensor *b,
                             const bc_tensor *out, bc_error *err);

/* out = ((in[0] op in[1]) op in[2]) ... , n >= 1, each step rounded to the
 * dtype (so n == 2 is bc_eval_binary).  Ops add, mul, max, min (ONNX Sum,
 * Max, Min); rules none and numpy. */
bc_error_kind bc_eval_nary(bc_evaluator ev, bc_op op, const bc_params *p, int n,
                           const bc_tensor *in, const bc_tensor *out, bc_error *err);

/* out = cond ? a : b elementwise, the three broadcast together (numpy.where,
 * OpenVINO Select).  Rules none and numpy; cond is BC_BOOL (nonzero true);
 * a, b and out share a dtype. */
bc_error_kind bc_eval_select(bc_evaluator ev, const bc_params *p, const bc_tensor *cond,
                             const bc_tensor *a, const bc_tensor *b,
                             const bc_tensor *out, bc_error *err);

/* Materialises `in` broadcast to `target`: rules broadcast-to
 * (unidirectional), bidirectional, explicit (broadcast_axes or
 * axes_mapping).  out has the rule's result shape and in's dtype. */
bc_error_kind bc_eval_broadcast(bc_evaluator ev, const bc_params *p, const bc_tensor *in,
                                const bc_shape *target, const bc_tensor *out, bc_error *err);

/* The backprop of broadcasting.  A forward operation broadcast the n shapes
 * under p to a result shape R; grad has shape R, out has shapes[operand].
 * Each element of out becomes the sum of the grad elements its forward
 * value was copied to: a sum over the axes of R the operand lacks (leading,
 * pdpd's outside the window, explicit's broadcast_axes) and over those it
 * stretched from 1.  Rules: every rule; for broadcast-to, bidirectional and
 * explicit, operand 0 (the input).  numpy-style "reduce a gradient to an
 * input's shape" is rule broadcast-to with shapes {input, R}; nGraph's Sum
 * is explicit with the broadcast_axes.
 * Order (floats): each sum starts from -0.0 and adds its terms in row-major
 * order of R's coordinates; a sum of no terms (a stretched axis of R is 0)
 * is +0.  Integers wrap.  Not for bool. */
bc_error_kind bc_eval_sum_to_shape(bc_evaluator ev, const bc_params *p, int n,
                                   const bc_shape *shapes, int operand,
                                   const bc_tensor *grad, const bc_tensor *out,
                                   bc_error *err);

/* ---- prepared calls: check and plan once, run many times ---------------
 *
 * A bc_eval_plan is one bc_eval_binary or bc_eval_nary call with everything
 * that depends on the views' layouts (dtypes, dims, strides, offsets) done
 * once: the checks, the rule's result shape and the fast engine's plan.
 * bc_eval_plan_run then computes the same call on other memory: each view
 * as it was prepared with only its data pointer replaced.  Its result is
 * bit for bit what the one-shot call on those views gives, and so is its
 * refusal: the checks that depend on the addresses (data present and
 * aligned when a view has elements; the output overlapping an input other
 * than as that very view, in place) run on every call.
 * A plan is immutable once made: it may be run from several threads at
 * once (on outputs that do not overlap).  The environment
 * (BROADCHECK_NT_MIN_BYTES) is read when the plan is made. */
typedef struct bc_eval_plan bc_eval_plan;

/* Checks the call as bc_eval_binary(ev, op, p, a, b, out) would and, if it
 * is valid, stores a new plan in *plan (NULL otherwise).  BC_ERR_BAD_PARAMS
 * also when out of memory.  The views' data pointers are checked here too. */
bc_error_kind bc_eval_plan_binary(bc_evaluator ev, bc_op op, const bc_params *p,
                                  const bc_tensor *a, const bc_tensor *b, const bc_tensor *out,
                                  bc_eval_plan **plan, bc_error *err);
/* The same for bc_eval_nary(ev, op, p, n, in, out). */
bc_error_kind bc_eval_plan_nary(bc_evaluator ev, bc_op op, const bc_params *p, int n,
                                const bc_tensor *in, const bc_tensor *out, bc_eval_plan **plan,
                                bc_error *err);
/* Runs the plan with out's data at `out` and input i's at in[i] (the n
 * inputs in the order they were given: a, b for binary). */
bc_error_kind bc_eval_plan_run(const bc_eval_plan *plan, void *out, const void *const *in,
                               bc_error *err);
/* The number of inputs the plan takes (2 for binary). */
int bc_eval_plan_inputs(const bc_eval_plan *plan);
void bc_eval_plan_free(bc_eval_plan *plan);

/* out = matmul(a, b) (spec/RULES.md §15.5): rule matmul only; a, b and
 * out share a dtype (not bool); out has bc_infer_matmul's shape and must
 * not overlap a or b.  Each element is the dot product over the contracted
 * axis of A's row and B's column at the batch coordinate the numpy rule
 * maps it to (a 1-D operand is promoted, its axis dropped from the result;
 * a contracted dim of 0 gives zeros).  Integers: the exact sum modulo
 * 2^bits (two's complement).  Floats: the sum of the products in long
 * double, in increasing k, rounded once to the dtype: a SUT summing in
 * another order is compared within a bound (docs/PROPERTIES.md
 * "matmul-values").  Both evaluators run the same naive loop. */
bc_error_kind bc_eval_matmul(bc_evaluator ev, const bc_params *p, const bc_tensor *a,
                             const bc_tensor *b, const bc_tensor *out, bc_error *err);
/* For float a and b: sums[e] = sum_k |a_k * b_k| of each result element e
 * (row-major), the scale of the rounding bound of matmul-values. */
bc_error_kind bc_matmul_abs_sums(const bc_params *p, const bc_tensor *a, const bc_tensor *b,
                                 double *sums, bc_error *err);

#ifdef __cplusplus
}
#endif
#endif
