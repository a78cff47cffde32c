/*
 * broadcheck/sut.h: a system under test, as the property engine sees it.
 *
 * A SUT answers shape questions (and, later, value questions) for a rule.
 * Each answer is one of: a result, "rejected: not broadcastable" (with an
 * error kind if the SUT knows one), "unsupported" (the SUT does not
 * implement this rule, profile or size: never counted as a pass), or
 * "internal error".  Built-in SUTs are the reference and the planted-bug
 * mutants of sut_adapters/mutants/; the versioned C ABI for external
 * adapters builds on this.
 */
#ifndef BROADCHECK_SUT_H
#define BROADCHECK_SUT_H

#include "broadcheck/shape.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bc_sut_status {
    BC_SUT_OK,            /* a result */
    BC_SUT_REJECTED,      /* not broadcastable; kind may be BC_OK if unknown */
    BC_SUT_UNSUPPORTED,   /* not implemented by this SUT */
    BC_SUT_INTERNAL_ERROR /* the SUT failed (crash, bad output, exception) */
} bc_sut_status;

typedef struct bc_sut_answer {
    bc_sut_status status;
    bc_error_kind kind; /* with BC_SUT_REJECTED: the kind, or BC_OK if the SUT has none */
    bc_shape shape;     /* with BC_SUT_OK */
    char message[320];  /* optional, for reports (as long as bc_error's) */
} bc_sut_answer;

typedef struct bc_sut bc_sut;

typedef struct bc_sut_ops {
    /* Result shape of shapes under p (the same arguments as bc_infer). */
    void (*infer_shape)(const bc_sut *sut, const bc_params *p, int n, const bc_shape *shapes,
                        bc_sut_answer *answer);
} bc_sut_ops;

struct bc_sut {
    const char *name;        /* as --sut names it */
    const char *version;     /* of the library it wraps */
    const char *description; /* one line */
    const char *citation;    /* for mutants: the real bug it models; else NULL */
    const bc_sut_ops *ops;
};

/* The built-in SUTs: "reference" first, then the mutants.  *count gets
 * their number. */
const bc_sut *const *bc_builtin_suts(int *count);
const bc_sut *bc_builtin_sut(const char *name); /* NULL if unknown */

#ifdef __cplusplus
}
#endif
#endif
