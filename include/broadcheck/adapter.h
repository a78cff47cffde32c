/*
 * broadcheck/adapter.h: the stable C ABI of an external adapter, version 2.
 *
 * An adapter is a shared library that wraps one tensor library and exports
 *
 *     BC_ADAPTER_EXPORT const bc_adapter *bc_adapter_entry_v1(void);
 *
 * returning a descriptor that lives as long as the library is loaded.
 * broadcheck never calls an adapter inside its own process: a worker
 * process (broadcheck-worker) loads it, and the harness asks that worker one
 * question at a time over a pipe (sut_adapters/README.md, wire/PROTOCOL.md).
 * So an adapter needs to be neither thread-safe nor careful about crashing:
 * a crash, hang or runaway allocation costs only the worker.
 *
 * This header is self-contained on purpose (only <stdint.h> and <stddef.h>): an adapter
 * author copies sut_adapters/example/ and needs nothing else.  Every enum
 * value is fixed; new values and fields are only ever appended.  The struct
 * layouts are those of the platform's C ABI; `struct_size` lets a later
 * version append fields that an older reader skips.
 *
 * Appended since the first version: partial shapes (spec/RULES.md §14), the
 * last two fields of bc_adapter.  An adapter built before them has a
 * smaller struct_size and is read as taking no partial shapes.
 *
 * Version 2 changes no layout: it lets caps.max_operands reach
 * BC_ADAPTER_MAX_OPERANDS (136) where version 1 stopped at
 * BC_ADAPTER_V1_MAX_OPERANDS (72), for none and numpy past 64 operands
 * (spec/RULES.md §9.5).  The entry symbol keeps its name.  A worker accepts
 * both versions and refuses a version-1 descriptor declaring more than 72
 * (an adapter built against version 1 may size arrays by 72); the harness
 * never asks more shapes than an adapter declares.  An older worker refuses
 * a version-2 descriptor as an unknown version.
 */
#ifndef BROADCHECK_ADAPTER_H
#define BROADCHECK_ADAPTER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BC_ADAPTER_ABI_VERSION 2u
#define BC_ADAPTER_ABI_OLDEST 1u
#define BC_ADAPTER_ENTRY_SYMBOL "bc_adapter_entry_v1" /* every version's */
#define BC_ADAPTER_MAX_RANK 64      /* the largest rank broadcheck asks about */
#define BC_ADAPTER_MAX_OPERANDS 136 /* shapes in one question (invalid ones included):
                                       none and numpy take up to 128, 8 more test the count */
#define BC_ADAPTER_V1_MAX_OPERANDS 72 /* the most a version-1 descriptor may declare */
#define BC_ADAPTER_MESSAGE_SIZE 320 /* bytes of bc_adapter_answer.message */

#if defined(__GNUC__)
#define BC_ADAPTER_EXPORT __attribute__((visibility("default")))
#else
#define BC_ADAPTER_EXPORT
#endif

/* ---- fixed enumerations (spec/RULES.md names each rule and profile) ---- */

enum {
    BC_ADAPTER_RULE_NONE = 0,          /* shapes must be equal */
    BC_ADAPTER_RULE_NUMPY = 1,         /* = ONNX multidirectional */
    BC_ADAPTER_RULE_ONNX_UNI = 2,      /* B onto A, result A */
    BC_ADAPTER_RULE_PDPD = 3,          /* B onto A from params.axis */
    BC_ADAPTER_RULE_BROADCAST_TO = 4,  /* input to exactly the target */
    BC_ADAPTER_RULE_BIDIRECTIONAL = 5, /* OpenVINO Broadcast-3 bidirectional, ONNX Expand */
    BC_ADAPTER_RULE_EXPLICIT = 6,      /* broadcast_axes or axes_mapping */
    BC_ADAPTER_RULE_MATMUL = 7         /* matrix multiply's batch broadcast (RULES.md §15);
                                          added in ABI 1 and wire protocol 3: an older
                                          harness refuses the unknown rule bit, an older
                                          adapter never declares it */
};

enum {
    BC_ADAPTER_PROFILE_DEFAULT = 0, /* the rule's own default */
    BC_ADAPTER_PROFILE_OPENVINO_DOC = 1,
    BC_ADAPTER_PROFILE_OPENVINO_SHAPE_INFERENCE = 2,
    BC_ADAPTER_PROFILE_PADDLE = 3,
    BC_ADAPTER_PROFILE_PYTORCH_EXPAND = 4, /* broadcast-to: a -1 target dim keeps the input's */
    BC_ADAPTER_PROFILE_OPENVINO_EXPLICIT = 5, /* explicit axes-mapping: OpenVINO's inference */
    BC_ADAPTER_PROFILE_OPENVINO_SELECT = 6,    /* pdpd, 3 shapes (cond, then, else): OpenVINO Select */
    BC_ADAPTER_PROFILE_NGRAPH_SELECT = 7,      /* pdpd, 3 shapes: nGraph 2020 Select */
    BC_ADAPTER_PROFILE_OPENVINO_BROADCAST = 8, /* pdpd, (target, data): Broadcast mode pdpd */
    BC_ADAPTER_PROFILE_NGRAPH_EXPLICIT = 9,    /* explicit axes-mapping: nGraph 2020 Broadcast-1 */
    BC_ADAPTER_PROFILE_NUMPY_EMPTY_FOLD = 10   /* numpy: zero shapes give [] (RULES.md §3.1);
                                                  shape questions only */
};

/* params.options: which options the question gives. */
enum {
    BC_ADAPTER_OPT_AXIS = 1u << 0,
    BC_ADAPTER_OPT_PROFILE = 1u << 1,
    BC_ADAPTER_OPT_AXES = 1u << 2,         /* nGraph broadcast_axes */
    BC_ADAPTER_OPT_AXES_MAPPING = 1u << 3, /* OpenVINO axes_mapping */
    /* with _AXES_MAPPING, in partial questions only, to an adapter declaring
     * BC_ADAPTER_PARTIAL_AXES_UNKNOWN: the mapping's values are unknown
     * (spec/RULES.md §14.9); naxes is its length, or -1 if that is unknown
     * too, and axes is not to be read */
    BC_ADAPTER_OPT_AXES_UNKNOWN = 1u << 4
};

enum {
    BC_ADAPTER_DTYPE_BOOL = 0, /* one byte, 0 or 1 */
    BC_ADAPTER_DTYPE_INT8 = 1,
    BC_ADAPTER_DTYPE_UINT8 = 2,
    BC_ADAPTER_DTYPE_INT32 = 3,
    BC_ADAPTER_DTYPE_INT64 = 4,
    BC_ADAPTER_DTYPE_FLOAT32 = 5,
    BC_ADAPTER_DTYPE_FLOAT64 = 6,
    BC_ADAPTER_DTYPE_FLOAT16 = 7 /* IEEE binary16 */
};

enum {
    BC_ADAPTER_OP_ADD = 0,
    BC_ADAPTER_OP_SUB = 1,
    BC_ADAPTER_OP_MUL = 2,
    BC_ADAPTER_OP_DIV = 3,
    BC_ADAPTER_OP_MAX = 4,
    BC_ADAPTER_OP_MIN = 5,
    BC_ADAPTER_OP_EQUAL = 6, /* -> bool */
    BC_ADAPTER_OP_LESS = 7,  /* -> bool */
    BC_ADAPTER_OP_AND = 8,   /* -> bool */
    BC_ADAPTER_OP_OR = 9     /* -> bool */
};

/* The kinds of value question (bc_adapter_eval_request.kind). */
enum {
    BC_ADAPTER_VALUE_ELEMENTWISE = 0,  /* inputs[0..n-1] combined with op, folded left */
    BC_ADAPTER_VALUE_SELECT = 1,       /* cond ? a : b */
    BC_ADAPTER_VALUE_BROADCAST = 2,    /* inputs[0] broadcast to shapes[1] */
    BC_ADAPTER_VALUE_SUM_TO_SHAPE = 3, /* the gradient summed to shapes[operand] */
    BC_ADAPTER_VALUE_MATMUL = 4        /* inputs[0] @ inputs[1] under rule matmul (RULES.md
                                          §15.5); appended in ABI 1 and wire protocol 3 */
};

/* What an adapter implements (bc_adapter_capabilities.features). */
enum {
    BC_ADAPTER_FEATURE_SHAPE = 1u << 0,        /* infer_shape */
    BC_ADAPTER_FEATURE_ELEMENTWISE = 1u << 1,  /* eval, BC_ADAPTER_VALUE_ELEMENTWISE */
    BC_ADAPTER_FEATURE_SELECT = 1u << 2,
    BC_ADAPTER_FEATURE_BROADCAST = 1u << 3,
    BC_ADAPTER_FEATURE_SUM_TO_SHAPE = 1u << 4,
    BC_ADAPTER_FEATURE_MATMUL = 1u << 5 /* eval, BC_ADAPTER_VALUE_MATMUL; appended: an older
                                           harness refuses the unknown bit, an older
                                           adapter never sets it */
};

/* bc_adapter_answer.status */
enum {
    BC_ADAPTER_OK = 0,            /* a result shape (and values, for eval) */
    BC_ADAPTER_REJECTED = 1,      /* not broadcastable; error_kind if known */
    BC_ADAPTER_UNSUPPORTED = 2,   /* the wrapped library cannot answer this */
    BC_ADAPTER_INTERNAL_ERROR = 3 /* the wrapped library failed (an exception, ...) */
};

/* bc_adapter_answer.error_kind, with BC_ADAPTER_REJECTED: 0 when the
 * library does not say which (spec/RULES.md §12 defines each kind). */
enum {
    BC_ADAPTER_ERR_UNKNOWN = 0,
    BC_ADAPTER_ERR_RANK_MISMATCH = 1,
    BC_ADAPTER_ERR_DIM_MISMATCH = 2,
    BC_ADAPTER_ERR_RANK_TOO_LARGE = 3,
    BC_ADAPTER_ERR_AXIS_OUT_OF_RANGE = 4,
    BC_ADAPTER_ERR_WINDOW_OUT_OF_RANGE = 5,
    BC_ADAPTER_ERR_AXES_DUPLICATE = 6,
    BC_ADAPTER_ERR_AXES_UNSORTED = 7,
    BC_ADAPTER_ERR_AXES_COUNT = 8,
    BC_ADAPTER_ERR_NEGATIVE_DIM = 9,
    BC_ADAPTER_ERR_OPERAND_COUNT = 10,
    BC_ADAPTER_ERR_BAD_PARAMS = 11,
    BC_ADAPTER_ERR_OVERFLOW = 12
};

/* ---- what the adapter is asked -------------------------------------- */

typedef struct bc_adapter_shape {
    int32_t rank;         /* 0 .. BC_ADAPTER_MAX_RANK; 0 is the scalar */
    const int64_t *dims;  /* rank dims, outermost first; may be negative (invalid input) */
} bc_adapter_shape;

/* The rule and its options, as the case gives them (invalid ones included,
 * for shape questions: the adapter should reject those).  For pdpd the
 * profile is always given: the harness resolves the default
 * (BC_ADAPTER_OPT_PROFILE set, profile never BC_ADAPTER_PROFILE_DEFAULT). */
typedef struct bc_adapter_params {
    uint32_t rule;        /* BC_ADAPTER_RULE_* */
    uint32_t options;     /* BC_ADAPTER_OPT_* given */
    uint32_t profile;     /* BC_ADAPTER_PROFILE_*, with BC_ADAPTER_OPT_PROFILE */
    int32_t naxes;        /* with BC_ADAPTER_OPT_AXES or _AXES_MAPPING */
    int64_t axis;         /* pdpd, with BC_ADAPTER_OPT_AXIS; else -1 */
    const int64_t *axes;  /* naxes entries, as given */
} bc_adapter_params;

/* A read-only strided view.  Element (i0, ..., i{rank-1}) is at
 *   (const char *)data + (offset + sum_k i_k * strides[k]) * element size.
 * The layout is the one broadcheck generated, unchanged: the offset may be
 * nonzero for any view (one element, or none, included), strides may be
 * negative, 0 on a size-1 axis, or leave gaps.  data points at the first
 * element of the input's memory, which runs to the last element the view
 * reaches and then 64 bytes of poison (0xA5); the gaps hold poison values
 * too, and past that memory is unmapped.  So an adapter that reads outside
 * the view reads poison (a wrong value the properties see) or faults ("out-
 * of-bounds read", reported with the input's number), the same way in every
 * run.  data is aligned to the element size.  Read-only means it: an
 * adapter that writes anywhere in that memory (an input taken for scratch
 * or for the result) gets its answer replaced by an internal error naming
 * the input ("the adapter wrote into input 0 ..."), checked after every
 * call; copy an input a library wants to write. */
typedef struct bc_adapter_tensor {
    uint32_t dtype;          /* BC_ADAPTER_DTYPE_* */
    int32_t rank;
    const int64_t *dims;
    const int64_t *strides;  /* in elements */
    const void *data;
    int64_t offset;          /* in elements */
} bc_adapter_tensor;

typedef struct bc_adapter_eval_request {
    uint32_t struct_size;   /* sizeof(bc_adapter_eval_request) of the harness */
    uint32_t kind;          /* BC_ADAPTER_VALUE_* */
    uint32_t op;            /* BC_ADAPTER_OP_*, with BC_ADAPTER_VALUE_ELEMENTWISE */
    int32_t operand;        /* with BC_ADAPTER_VALUE_SUM_TO_SHAPE: whose shape the result has */
    const bc_adapter_params *params;
    int32_t nshapes;        /* the question's shapes, as for infer_shape */
    const bc_adapter_shape *shapes;
    int32_t ninputs;        /* elementwise: nshapes; select: 3 (cond, a, b); else 1 */
    const bc_adapter_tensor *inputs;
    uint32_t out_dtype;     /* BC_ADAPTER_DTYPE_* of the result */
    void *out;              /* C-contiguous result, out_capacity elements, filled with
                               poison bytes (0xA5) beforehand: an element the adapter
                               does not write shows as wrong, in every run */
    int64_t out_capacity;
} bc_adapter_eval_request;

/* The answer, zeroed by the caller.  With BC_ADAPTER_OK set rank and dims
 * to the result shape; for eval, also write that shape's elements
 * row-major into req->out when they number at most out_capacity (the
 * harness sizes out for the reference's result, so a different shape is
 * caught by the shape, never by an overrun; writing past out_capacity is
 * reported as a fault: into the 256 poison bytes after it, "wrote past the
 * end of its output buffer"; further, into unmapped memory, "wild write").
 * message: optional, NUL-terminated, for reports. */
typedef struct bc_adapter_answer {
    uint32_t status;       /* BC_ADAPTER_OK ... */
    uint32_t error_kind;   /* BC_ADAPTER_ERR_*, with BC_ADAPTER_REJECTED */
    int32_t rank;
    int64_t dims[BC_ADAPTER_MAX_RANK];
    char message[BC_ADAPTER_MESSAGE_SIZE];
} bc_adapter_answer;

/* ---- partial shapes (spec/RULES.md §14) --------------------------------- */

/* bc_adapter.partial: what partial shapes the adapter takes.  A question
 * with anything else is answered "unsupported" by the harness. */
enum {
    BC_ADAPTER_PARTIAL_DYNAMIC = 1u << 0,      /* ?: a dim of any value */
    BC_ADAPTER_PARTIAL_INTERVAL = 1u << 1,     /* LO..HI other than ?, on a dim or a symbol */
    BC_ADAPTER_PARTIAL_SYMBOL = 1u << 2,       /* named dims (symbols) */
    BC_ADAPTER_PARTIAL_DYNAMIC_RANK = 1u << 3, /* shapes of unknown rank */
    BC_ADAPTER_PARTIAL_AXES_UNKNOWN = 1u << 4  /* explicit's axes_mapping of unknown values
                                                  (BC_ADAPTER_OPT_AXES_UNKNOWN; wire protocol 5) */
};

#define BC_ADAPTER_DIM_UNBOUNDED INT64_MAX /* hi of a dim with no upper bound */
#define BC_ADAPTER_RANK_DYNAMIC (-1)       /* rank of a shape of unknown rank */

/* A dim: any value in [lo, hi] (lo == hi: static).  symbol 0: none; k >= 1:
 * the question's symbol k, one value wherever it appears. */
typedef struct bc_adapter_pdim {
    int64_t lo, hi;
    uint32_t symbol;
    uint32_t reserved; /* 0 */
} bc_adapter_pdim;

typedef struct bc_adapter_pshape {
    int32_t rank; /* BC_ADAPTER_RANK_DYNAMIC, or 0 .. BC_ADAPTER_MAX_RANK */
    const bc_adapter_pdim *dims;
} bc_adapter_pshape;

typedef struct bc_adapter_pquestion {
    uint32_t struct_size; /* sizeof(bc_adapter_pquestion) of the harness */
    const bc_adapter_params *params;
    int32_t nshapes;
    const bc_adapter_pshape *shapes;
    int32_t nsymbols;             /* symbol k is named symbols[k - 1] */
    const char *const *symbols;
} bc_adapter_pquestion;

/* The answer, zeroed by the caller.  With BC_ADAPTER_OK, rank (may be
 * BC_ADAPTER_RANK_DYNAMIC) and dims are the partial result; a dim's symbol
 * is one of the question's, or a number above nsymbols for a symbol the
 * library made up (equal numbers: equal values). */
typedef struct bc_adapter_panswer {
    uint32_t status;     /* BC_ADAPTER_OK ... */
    uint32_t error_kind; /* with BC_ADAPTER_REJECTED */
    int32_t rank;
    bc_adapter_pdim dims[BC_ADAPTER_MAX_RANK];
    char message[BC_ADAPTER_MESSAGE_SIZE];
} bc_adapter_panswer;

/* ---- what the adapter declares -------------------------------------- */

/* Questions outside these are answered "unsupported" by the harness
 * without calling the adapter; so declare only what the library does.
 *
 * What is asked (sut_adapters/README.md, "What an adapter is asked"):
 *   infer_shape  any rule declared, its options as given (valid or not),
 *                1 to max_operands shapes (invalid counts too; 0 under numpy's
 *                profile numpy-empty-fold, when declared), ranks up to
 *                max_rank, dims from 0 to INT64_MAX and negative ones;
 *   eval         ELEMENTWISE: rules none and numpy with 1 to max_operands
 *                shapes (more than 2: add, mul, max or min only, folded
 *                left), onnx-uni and pdpd with 2; SELECT: none and numpy,
 *                3 shapes (cond bool, a, b); BROADCAST: broadcast-to,
 *                bidirectional and explicit, 2 shapes (input, target), one
 *                input; SUM_TO_SHAPE: every rule, the gradient as the one
 *                input, operand < nshapes (0 for the broadcast rules); MATMUL:
 *                rule matmul, 2 shapes (A, B), 2 inputs, no bool.  The
 *                shapes may be rejected by the rule: answer
 *                BC_ADAPTER_REJECTED then, as for infer_shape.  Dtypes are
 *                those the op is defined on (no sub or div on bool, no sums
 *                on bool); every input of one question has one dtype, but
 *                SELECT's cond, which is bool.  Ranks reach max_rank (at
 *                most 64 elements an operand), layouts are arbitrary (above).
 * To decline one question inside the declaration (a dtype the library has
 * for some ops only, a stride it cannot take), answer
 * BC_ADAPTER_UNSUPPORTED with a message: never a pass, never a failure. */
typedef struct bc_adapter_capabilities {
    uint32_t features;     /* BC_ADAPTER_FEATURE_* */
    uint32_t rules;        /* bit (1u << BC_ADAPTER_RULE_*) per rule */
    uint32_t profiles;     /* bit (1u << BC_ADAPTER_PROFILE_*) per non-default profile
                              followed (pdpd, broadcast-to, explicit, numpy) */
    uint32_t ops;          /* bit (1u << BC_ADAPTER_OP_*), for elementwise */
    uint32_t dtypes;       /* bit (1u << BC_ADAPTER_DTYPE_*), for values */
    int32_t max_rank;      /* largest rank of any shape asked, 0 .. 64 */
    int32_t max_operands;  /* largest number of shapes in one question, 1 .. 136
                              (1 .. 72 in a version-1 descriptor) */
} bc_adapter_capabilities;

typedef struct bc_adapter {
    uint32_t struct_size;  /* sizeof(bc_adapter) */
    uint32_t abi_version;  /* BC_ADAPTER_ABI_VERSION */
    const char *name;      /* short, e.g. "example" */
    const char *version;   /* of the library it wraps */
    const char *description; /* one line */
    bc_adapter_capabilities caps;
    void *context;         /* handed back to every call */
    /* Result shape of shapes[0..n-1] under p.  NULL without FEATURE_SHAPE. */
    void (*infer_shape)(void *context, const bc_adapter_params *p, int32_t n,
                        const bc_adapter_shape *shapes, bc_adapter_answer *answer);
    /* A value question.  NULL if no value feature is declared. */
    void (*eval)(void *context, const bc_adapter_eval_request *req, bc_adapter_answer *answer);
    /* ---- appended: partial shapes (spec/RULES.md §14) ---- */
    uint32_t partial;      /* BC_ADAPTER_PARTIAL_* taken; 0: no partial shapes */
    /* The partial result of q.  NULL when partial is 0. */
    void (*infer_partial)(void *context, const bc_adapter_pquestion *q,
                          bc_adapter_panswer *answer);
} bc_adapter;

typedef const bc_adapter *(*bc_adapter_entry_fn)(void);

/* The size of a descriptor without the appended partial-shape fields: the
 * smallest struct_size a worker accepts. */
#define BC_ADAPTER_V1_SIZE offsetof(bc_adapter, partial)

#ifdef __cplusplus
}
#endif
#endif
