/*
 * Private to the reference: what the checking front end (eval.c) hands to
 * the two evaluators (naive.c, fast.c), and the fast engine's plan (plan.c).
 *
 * By the time a job reaches an evaluator every view has been checked, the
 * result shape inferred, the output shape, dtypes and aliasing verified, and
 * every byte offset is known to fit in int64: evaluators cannot fail.
 */
#ifndef BC_REFERENCE_ENGINE_H
#define BC_REFERENCE_ENGINE_H

#include "broadcheck/tensor.h"

typedef enum bc_job_kind {
    BC_JOB_ELEMENTWISE, /* binary (nin 2) and n-ary: a left fold of op */
    BC_JOB_SELECT,      /* in[0] cond, in[1] a, in[2] b */
    BC_JOB_BROADCAST,   /* in[0] copied to the result */
    BC_JOB_SUM          /* in[0] is the gradient (result shape), out the operand's */
} bc_job_kind;

typedef struct bc_job {
    bc_job_kind kind;
    bc_op op;
    bc_dtype dtype;          /* of the value inputs (a and b, the input, the gradient) */
    bc_params params;        /* profile resolved (never BC_PROFILE_DEFAULT for pdpd) */
    int nshapes;             /* the rule's operand shapes */
    const bc_shape *shapes;  /* [nshapes] */
    bc_shape result;         /* bc_infer's result */
    int64_t numel;           /* elements of the result */
    int nin;
    const bc_tensor *in[BC_MAX_OPERANDS];
    int operand[BC_MAX_OPERANDS]; /* rule operand (index into shapes) of each input;
                                     for BC_JOB_SUM, of out */
    const bc_tensor *out;
} bc_job;

/* Fills *err like the shape rules do (operand, axis and dims -1/0) and
 * returns kind; message is printf-style. */
bc_error_kind bc_engine_fail(bc_error *err, bc_error_kind kind, bc_rule rule, int operand,
                             const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* bc_op_takes_dtype, bc_op_result_dtype and bc_dtype_size in one call
 * (the small-call front end's): 0 if op is not defined on t, else 1 with
 * the result's dtype and the size of t's elements. */
int bc_op_types(bc_op op, bc_dtype t, bc_dtype *result, int64_t *size);
void bc_naive_run(const bc_job *job);
void bc_fast_run(const bc_job *job);

/* A prepared job (bc_eval_plan, tensor.h): the fast engine's plan and the
 * decisions that depend on the views' layouts, not on their data.  Only
 * for elementwise, select and broadcast jobs.  NULL when out of memory. */
typedef struct bc_fast_prep bc_fast_prep;
bc_fast_prep *bc_fast_prepare(const bc_job *job);
/* Runs it on data[0] (the output) and data[1 + i] (input i), each laid out
 * as the view it was prepared from; the front end has checked them.
 * overlaps: 1 if the output's byte range meets an input's (in place, the
 * only overlap the front end lets through), else 0. */
void bc_fast_exec(const bc_fast_prep *fp, char *const *data, int overlaps);

/* ---- the fast engine's plan ----------------------------------------- */

#define BC_PLAN_MAX_OPS (BC_MAX_OPERANDS + 1)

/* Operands iterated together over one index space: operand 0 is the
 * output.  strides are in bytes; an axis where an operand is broadcast has
 * stride 0 for it. */
typedef struct bc_plan {
    int rank;
    int nops;
    int64_t dims[BC_MAX_RANK];
    char *base[BC_PLAN_MAX_OPS];
    int64_t strides[BC_PLAN_MAX_OPS][BC_MAX_RANK];
} bc_plan;

/* Starts a plan over the result shape `result`. */
void bc_plan_begin(bc_plan *pl, const bc_shape *result);
/* Adds operand pl->nops: the element at data + offset, strides in elements
 * over the result's axes (frame[r]: how far one step along result axis r
 * moves this operand). */
void bc_plan_add(bc_plan *pl, const bc_tensor *view, const int64_t *frame);
/* The strides, over the result's axes, of input `operand` of the rule: its
 * own stride where it has an axis of the same extent, 0 where it lacks the
 * axis or stretches it from 1. */
void bc_plan_frame(const bc_params *p, const bc_shape *shapes, int operand,
                   const bc_tensor *view, int result_rank, int64_t *frame);
/* Drops size-1 axes; with `reorder`, flips axes the output walks backwards
 * and sorts axes by the output's stride (largest outermost); then merges
 * neighbouring axes that every operand walks as one.  Without `reorder` the
 * row-major order of the result is kept (sum-to-shape's summation order). */
void bc_plan_finish(bc_plan *pl, int reorder);

/* The small-call front end (eval.c's small_binary): a one-shot binary call
 * whose output has at most BC_SMALL_NUMEL elements, none of them size 0,
 * and shares no memory with an input.  Below NT_FLOOR_BYTES and too small
 * to tile, such a call takes the direct route of bc_fast_run, so running
 * it here gives the same bytes.  Its axes: size-1 axes dropped and
 * neighbours merged (bc_plan_finish's merge, without its flip and sort),
 * innermost first; strides[k][j] operand j's stride on axis k in bytes,
 * operand 0 the output (the layout the 3-D kernel's calls take, so three
 * to five axes run with no copy).  bc_fast_run_small fills the axes from
 * rank to 4 with extent 1 and strides 0. */
enum { BC_SMALL_NUMEL = 1024 };
typedef struct bc_small_axes {
    int rank;
    int64_t dims[BC_MAX_RANK];
    int64_t strides[BC_MAX_RANK][3];
    char *base[3];
} bc_small_axes;
void bc_fast_run_small(bc_small_axes *ax, bc_dtype dtype, bc_op op, int64_t out_bytes);
/* The kernel bc_fast_run_small calls for one or two axes: n1 rows of n0
 * elements, p[j] operand j's first element (0 the output), s1[j] and
 * s0[j] its byte strides between rows and elements, aux NULL.  For
 * small_binary's contiguous pass, whose call is one such block. */
typedef void (*bc_fast_block_fn)(int64_t n1, int64_t n0, char *const *p, const int64_t *s1,
                                 const int64_t *s0, const void *aux);
bc_fast_block_fn bc_fast_block_kernel(bc_dtype dtype, bc_op op);

#endif
