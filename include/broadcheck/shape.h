/*
 * broadcheck/shape.h: shapes and the reference broadcasting rules.
 *
 * Every rule of spec/RULES.md is one function here, written to be read
 * against that document: each returns the result shape or a structured error
 * (rule, operand, axis, dims, kind and a human message).  Shapes are plain
 * values; nothing here allocates or keeps state.
 */
#ifndef BROADCHECK_SHAPE_H
#define BROADCHECK_SHAPE_H

#include <stddef.h>
#include <stdint.h>

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest rank and operand count the reference supports (RULES.md §9). */
#define BC_MAX_RANK 64
#define BC_MAX_OPERANDS 128

/* PDPD's default axis: "axis = rank(A) - rank(B)". */
#define BC_AXIS_DEFAULT (-1)

typedef struct bc_shape {
    int rank;                   /* 0 .. BC_MAX_RANK; 0 is the scalar */
    int64_t dims[BC_MAX_RANK];  /* dims[0] is the outermost axis */
} bc_shape;

typedef enum bc_rule {
    BC_RULE_NONE,          /* shapes must be equal */
    BC_RULE_NUMPY,         /* = ONNX multidirectional, n-ary */
    BC_RULE_ONNX_UNI,      /* ONNX unidirectional: B onto A, result A */
    BC_RULE_PDPD,          /* B onto A from an axis */
    BC_RULE_BROADCAST_TO,  /* input to exactly the target (numpy.broadcast_to) */
    BC_RULE_BIDIRECTIONAL, /* OpenVINO Broadcast-3 bidirectional, ONNX Expand */
    BC_RULE_EXPLICIT,      /* nGraph broadcast_axes or OpenVINO axes_mapping */
    BC_RULE_MATMUL,        /* matrix multiply: batch dims broadcast, 1-D promoted (RULES.md §15) */
    BC_RULE_COUNT
} bc_rule;

/* Where real implementations disagree, a profile names which one to follow
 * (RULES.md §10).  BC_PROFILE_DEFAULT picks the rule's own default. */
typedef enum bc_profile {
    BC_PROFILE_DEFAULT,
    BC_PROFILE_OPENVINO_DOC,             /* pdpd: the OpenVINO document */
    BC_PROFILE_OPENVINO_SHAPE_INFERENCE, /* pdpd: OpenVINO's code, no trimming */
    BC_PROFILE_PADDLE,                   /* pdpd: Paddle 2.x elementwise ops */
    BC_PROFILE_PYTORCH_EXPAND,           /* broadcast-to: a target dim of -1 keeps the
                                            input's dim (PyTorch's expand, RULES.md §6.1) */
    BC_PROFILE_OPENVINO_EXPLICIT,        /* explicit axes-mapping: OpenVINO Broadcast-3's shape
                                            inference (repeats, a scalar's entry; §8.3) */
    BC_PROFILE_OPENVINO_SELECT,          /* pdpd, three operands (cond, then, else): OpenVINO
                                            Select, else then cond onto then (§5.4) */
    BC_PROFILE_NGRAPH_SELECT,            /* pdpd, three operands: nGraph 2020 Select, then then
                                            cond onto else, nGraph's PDPD merge (§5.5) */
    BC_PROFILE_OPENVINO_BROADCAST,       /* pdpd as the Broadcast op's mode pdpd: (target, data),
                                            two-way inside the window (§5.6) */
    BC_PROFILE_NGRAPH_EXPLICIT,          /* explicit axes-mapping: nGraph 2020 Broadcast-1
                                            EXPLICIT, input dims equal, no stretch (§8.4) */
    BC_PROFILE_NUMPY_EMPTY_FOLD,         /* numpy: zero operands give [], as NumPy's
                                            broadcast_shapes() (§3.1) */
    BC_PROFILE_COUNT
} bc_profile;

/* Options a caller gave, so that a rule can refuse one it does not take
 * (an axis on numpy, axes on pdpd) and explicit can tell its two forms
 * apart: BC_OPT_AXES is nGraph broadcast_axes (target axes that are new),
 * BC_OPT_AXES_MAPPING is OpenVINO axes_mapping (target axis of each input
 * axis).  explicit takes exactly one of them. */
enum {
    BC_OPT_AXIS = 1u << 0,
    BC_OPT_PROFILE = 1u << 1,
    BC_OPT_AXES = 1u << 2,
    BC_OPT_AXES_MAPPING = 1u << 3,
    /* with BC_OPT_AXES_MAPPING, partial shapes only (RULES.md §14.9): the
     * mapping's values are unknown, naxes is its length, or -1 if that is
     * unknown too; axes[] is unused */
    BC_OPT_AXES_UNKNOWN = 1u << 4
};

typedef struct bc_params {
    bc_rule rule;
    unsigned options;           /* BC_OPT_* given */
    bc_profile profile;         /* with BC_OPT_PROFILE */
    int64_t axis;               /* with BC_OPT_AXIS (pdpd); else BC_AXIS_DEFAULT */
    int naxes;                  /* with BC_OPT_AXES or BC_OPT_AXES_MAPPING */
    int64_t axes[BC_MAX_RANK];  /* as given, not sorted */
} bc_params;

typedef enum bc_error_kind {
    BC_OK = 0,
    /* Not broadcastable: the inputs are well formed, the rule rejects them. */
    BC_ERR_RANK_MISMATCH,     /* none: ranks differ */
    BC_ERR_DIM_MISMATCH,      /* dims at one axis are incompatible */
    BC_ERR_RANK_TOO_LARGE,    /* the operand that broadcasts has more axes than allowed */
    BC_ERR_AXIS_OUT_OF_RANGE, /* pdpd axis < -1 or past A; explicit axis outside the target */
    BC_ERR_WINDOW_OUT_OF_RANGE, /* pdpd: B, from axis, runs past A's last axis */
    BC_ERR_AXES_DUPLICATE,    /* explicit: an axis named twice */
    BC_ERR_AXES_UNSORTED,     /* explicit axes_mapping: not strictly increasing */
    BC_ERR_AXES_COUNT,        /* explicit: number of axes does not fit the ranks */
    /* Invalid input: no rule applies to it at all. */
    BC_ERR_NEGATIVE_DIM,      /* a dim below 0 */
    BC_ERR_OPERAND_COUNT,     /* wrong number of shapes for the rule */
    BC_ERR_BAD_PARAMS,        /* a profile or parameter the rule does not take */
    /* Value operations only: shapes are pure and never report it. */
    BC_ERR_OVERFLOW,          /* an element count or byte size past INT64_MAX */
    BC_ERR_KIND_COUNT
} bc_error_kind;

typedef struct bc_error {
    bc_error_kind kind;
    bc_rule rule;
    int operand;       /* offending operand, -1 if none */
    int other;         /* operand it conflicts with, -1 if none */
    int axis;          /* axis in the result (or target) frame; -1 if none */
    int64_t dim;       /* the offending operand's dim (or axis value) */
    int64_t other_dim; /* the dim it conflicts with */
    char message[320]; /* one line, no trailing newline */
} bc_error;

/* ---- shapes ---------------------------------------------------------- */

/* Parses "[2,1,5]" ("[]" is the scalar; blanks allowed around numbers).
 * Negative dims parse (rules reject them as BC_ERR_NEGATIVE_DIM) so that
 * vectors can state that.  On failure returns -1 and writes why, with the
 * column, into why[cap]; *end (if not NULL) gets the first unread char. */
int bc_shape_parse(const char *text, const char **end, bc_shape *out,
                   char *why, size_t cap);

/* Writes "[2,1,5]"; returns the length it needed (like snprintf). */
int bc_shape_format(const bc_shape *s, char *buf, size_t cap);

int bc_shape_equal(const bc_shape *a, const bc_shape *b);

/* Product of the dims; 0 if any dim is 0 (however large the others).
 * Returns BC_ERR_OVERFLOW past INT64_MAX, BC_ERR_NEGATIVE_DIM on a dim < 0. */
bc_error_kind bc_shape_numel(const bc_shape *s, int64_t *numel);

/* ---- names ----------------------------------------------------------- */

const char *bc_rule_name(bc_rule r);             /* "numpy", "onnx-uni", ... */
int bc_rule_from_name(const char *name, bc_rule *out);         /* 0 ok, -1 unknown */
const char *bc_profile_name(bc_profile p);       /* "openvino-doc", ... */
int bc_profile_from_name(const char *name, bc_profile *out);
const char *bc_error_kind_name(bc_error_kind k); /* "dim-mismatch", ... */
int bc_error_kind_from_name(const char *name, bc_error_kind *out);
/* 1 for the kinds that mean "the input is invalid", 0 for "not broadcastable". */
int bc_error_kind_is_invalid_input(bc_error_kind k);
/* The profile a rule uses when given BC_PROFILE_DEFAULT. */
bc_profile bc_rule_default_profile(bc_rule r);
/* The profile p names: p->profile with BC_OPT_PROFILE, else BC_PROFILE_DEFAULT. */
bc_profile bc_params_profile(const bc_params *p);
/* The profile p is answered under: the one it names, or its rule's default
 * when it names none (or BC_PROFILE_DEFAULT). */
bc_profile bc_params_resolved_profile(const bc_params *p);
/* 1 if the rule accepts the profile (BC_PROFILE_DEFAULT always). */
int bc_rule_takes_profile(bc_rule r, bc_profile p);

/* 0 for the profiles that state shape inference only (the op modes of
 * OpenVINO and nGraph, RULES.md §5.4 to §5.6, §8.4): no value is computed
 * under them.  1 for every other profile. */
int bc_profile_has_values(bc_profile p);

/* Parameters for a rule with no option given. */
bc_params bc_params_for(bc_rule r);

/* Fills *err (if not NULL): the fields, and a message "KIND: " followed by
 * the printf-style text.  Returns kind, so a check can `return bc_error_set(...)`. */
bc_error_kind bc_error_set(bc_error *err, bc_error_kind kind, bc_rule rule, int operand,
                           int other, int axis, int64_t dim, int64_t other_dim,
                           const char *fmt, ...);
bc_error_kind bc_error_vset(bc_error *err, bc_error_kind kind, bc_rule rule, int operand,
                            int other, int axis, int64_t dim, int64_t other_dim,
                            const char *fmt, va_list ap);

/* ---- the rules ------------------------------------------------------- */

/* Result shape of n operands under p->rule.  The binary rules take n == 2
 * (onnx-uni and pdpd: A then B; broadcast-to rules: input then target); none
 * and numpy take 1 .. BC_MAX_OPERANDS (numpy under numpy-empty-fold 0 ..).  Returns BC_OK and fills *out, or the
 * error kind and fills *err (if not NULL). */
bc_error_kind bc_infer(const bc_params *p, int n, const bc_shape *shapes,
                       bc_shape *out, bc_error *err);

bc_error_kind bc_infer_none(int n, const bc_shape *shapes, bc_shape *out, bc_error *err);
bc_error_kind bc_infer_numpy(int n, const bc_shape *shapes, bc_shape *out, bc_error *err);
bc_error_kind bc_infer_onnx_uni(const bc_shape *a, const bc_shape *b, bc_shape *out, bc_error *err);
bc_error_kind bc_infer_pdpd(const bc_shape *a, const bc_shape *b, int64_t axis,
                            bc_profile profile, bc_shape *out, bc_error *err);
bc_error_kind bc_infer_broadcast_to(const bc_shape *input, const bc_shape *target,
                                    bc_shape *out, bc_error *err);
bc_error_kind bc_infer_bidirectional(const bc_shape *input, const bc_shape *target,
                                     bc_shape *out, bc_error *err);
bc_error_kind bc_infer_explicit_axes(const bc_shape *input, const bc_shape *target,
                                     int naxes, const int64_t *axes,
                                     bc_shape *out, bc_error *err);
bc_error_kind bc_infer_explicit_mapping(const bc_shape *input, const bc_shape *target,
                                        int nmapping, const int64_t *mapping,
                                        bc_shape *out, bc_error *err);
/* RULES.md §15: the result shape of matmul(a, b) (NumPy matmul, ONNX MatMul,
 * OpenVINO MatMul without transposes, torch.matmul). */
bc_error_kind bc_infer_matmul(const bc_shape *a, const bc_shape *b, bc_shape *out, bc_error *err);

#ifdef __cplusplus
}
#endif
#endif
