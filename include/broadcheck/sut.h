/*
 * broadcheck/sut.h: a system under test, as the property engine sees it.
 *
 * A SUT answers shape questions (the result shape of shapes under a rule)
 * and value questions (compute an operation on tensors of those shapes).
 * Each answer is one of: a result, "rejected: not broadcastable" (with an
 * error kind if the SUT knows one), "unsupported" (the SUT does not
 * implement this rule, profile, operation, dtype or size: never counted as
 * a pass), or "internal error".  Built-in SUTs are the reference and the
 * planted-bug mutants of builtin_suts/; the versioned C ABI for
 * external adapters builds on this.
 */
#ifndef BROADCHECK_SUT_H
#define BROADCHECK_SUT_H

#include "broadcheck/partial.h"
#include "broadcheck/shape.h"
#include "broadcheck/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bc_sut_status {
    BC_SUT_OK,            /* a result */
    BC_SUT_REJECTED,      /* not broadcastable; kind may be BC_OK if unknown */
    BC_SUT_UNSUPPORTED,   /* not implemented by this SUT */
    BC_SUT_INTERNAL_ERROR /* the SUT failed (crash, bad output, exception) */
} bc_sut_status;

/* Why an external SUT gave no answer of its own (the harness made the
 * internal-error answer): what the runner counts to find a SUT that has
 * stopped answering, and what an interrupted question is told by. */
typedef enum bc_sut_fault {
    BC_SUT_FAULT_NONE,        /* the SUT answered (any status) */
    BC_SUT_FAULT_TIMEOUT,     /* no answer within the timeout */
    BC_SUT_FAULT_DIED,        /* the worker crashed, exited, or was killed for memory */
    BC_SUT_FAULT_PROTOCOL,    /* a malformed, oversized, unexpected or surplus frame */
    BC_SUT_FAULT_INTERRUPTED, /* cut short by bc_sut_interrupt: not the SUT's doing */
    BC_SUT_FAULT_NO_WORKER    /* never asked: no worker could be started for it (a start
                                 timed out, died or spoke wrongly).  The SUT's fault, but
                                 not this question's: the check is thrown away, and it
                                 counts towards the SUT being unresponsive */
} bc_sut_fault;

typedef struct bc_sut_answer {
    bc_sut_status status;
    bc_error_kind kind; /* with BC_SUT_REJECTED: the kind, or BC_OK if the SUT has none */
    bc_shape shape;     /* with BC_SUT_OK */
    char message[320];  /* optional, for reports (as long as bc_error's) */
    bc_sut_fault fault; /* with BC_SUT_INTERNAL_ERROR from an external SUT */
    int asked_again;    /* 1: an external SUT's question that got no answer in time and
                           was asked again (BC_SUT_RETRY_TIMEOUT_FACTOR in sut_loader.h):
                           this is the second ask's outcome */
} bc_sut_answer;

typedef struct bc_sut bc_sut;

/* A value question: compute `kind` on `inputs`, broadcasting `shapes` under
 * `params`, into the C-contiguous buffer `out`.
 *
 *   kind                 inputs (each of the matching shape)       result shape
 *   BC_VALUE_ELEMENTWISE n operands, combined with `op`            the rule's result
 *                        (n > 2: folded left, as bc_eval_nary)
 *   BC_VALUE_SELECT      cond (bool), a, b; n == 3                  the rule's result
 *   BC_VALUE_BROADCAST   the input, shapes[0]; shapes[1] the target the rule's result
 *   BC_VALUE_SUM_TO_SHAPE the gradient, of the rule's result shape  shapes[operand]
 *
 * The inputs may have any strides (negative, zero on size-1 axes, gaps)
 * and an offset; they are read only.  Each input's data points at the first
 * element of its memory: an external SUT is sent the elements from data to
 * the last one the view reaches, with the offset as given (wire/PROTOCOL.md).  The SUT stores the shape it computed
 * in answer->shape and, when that shape has at most out_capacity elements,
 * writes them row-major into out (dtype out_dtype).  The harness sizes out
 * for the reference's result, so a SUT that computes another shape is
 * caught by the shape, never by an overrun. */
typedef struct bc_eval_request {
    bc_value_op kind;
    bc_op op;                /* BC_VALUE_ELEMENTWISE only */
    const bc_params *params; /* the rule and its options */
    int n;                   /* the case's shapes, as for infer_shape */
    const bc_shape *shapes;
    int operand;             /* BC_VALUE_SUM_TO_SHAPE: whose shape the result has */
    int ninputs;
    const bc_tensor *inputs;
    bc_dtype out_dtype;
    void *out;
    int64_t out_capacity; /* elements out can hold */
} bc_eval_request;

/* The answer to a partial-shape question (RULES.md §14).  Its symbols are
 * the question's (1 .. syms->count) or the SUT's own, numbered above them
 * (a symbol the SUT made up: equal ones still mean equal values). */
typedef struct bc_sut_panswer {
    bc_sut_status status;
    bc_error_kind kind; /* with BC_SUT_REJECTED: the kind, or BC_OK */
    bc_pshape shape;    /* with BC_SUT_OK */
    char message[320];
    bc_sut_fault fault; /* with BC_SUT_INTERNAL_ERROR from an external SUT */
    int asked_again;    /* as bc_sut_answer's */
} bc_sut_panswer;

/* What partial shapes a SUT takes (bc_sut_partial_caps_of): a question with
 * anything else is answered "unsupported" without asking it.  The values
 * are those of BC_ADAPTER_PARTIAL_* in adapter.h. */
enum {
    BC_PARTIAL_DYNAMIC = 1u << 0,      /* ?: a dim of any value */
    BC_PARTIAL_INTERVAL = 1u << 1,     /* LO..HI other than ?, on a dim or a symbol */
    BC_PARTIAL_SYMBOL = 1u << 2,       /* named dims */
    BC_PARTIAL_DYNAMIC_RANK = 1u << 3, /* [...] */
    BC_PARTIAL_AXES_UNKNOWN = 1u << 4  /* explicit's axes-mapping of unknown values (?,?
                                          or ...; RULES.md §14.9), protocol 5 */
};
#define BC_PARTIAL_ALL 0x1Fu

typedef struct bc_sut_ops {
    /* Result shape of shapes under p (the same arguments as bc_infer). */
    void (*infer_shape)(const bc_sut *sut, const bc_params *p, int n, const bc_shape *shapes,
                        bc_sut_answer *answer);
    /* A value question; NULL if the SUT computes no values (every value
     * property is then "unsupported" for it). */
    void (*eval)(const bc_sut *sut, const bc_eval_request *req, bc_sut_answer *answer);
    /* A partial-shape question (RULES.md §14): the result of partial shapes
     * under p, whose symbols syms names.  NULL if the SUT infers no partial
     * shapes (every partial property is then "unsupported" for it). */
    void (*infer_partial)(const bc_sut *sut, const bc_params *p, int n, const bc_pshape *shapes,
                          const bc_psymbols *syms, bc_sut_panswer *answer);
} bc_sut_ops;

struct bc_sut {
    const char *name;        /* as --sut names it */
    const char *version;     /* of the library it wraps */
    const char *description; /* one line */
    const char *citation;    /* for mutants: the real bug it models; else NULL */
    const bc_sut_ops *ops;
};

/* What a SUT computes, so that value generators ask mostly what it can
 * answer (a question outside it would only come back "unsupported"). */
typedef struct bc_sut_value_caps {
    unsigned kinds;   /* bit (1u << bc_value_op) per kind it computes */
    unsigned ops;     /* bit (1u << bc_op), for BC_VALUE_ELEMENTWISE */
    unsigned dtypes;  /* bit (1u << bc_dtype) */
    int max_rank;     /* the largest rank of a shape it is asked, 0 .. BC_MAX_RANK */
    int max_operands; /* the most shapes in one question, 1 .. BC_MAX_OPERANDS */
    unsigned profiles; /* bit (1u << bc_profile) per non-default profile it follows, so
                          that generators ask a profile's own cases (numpy-empty-fold's
                          zero shapes) only of a SUT that declares it */
} bc_sut_value_caps;

/* The value capabilities sut declares: everything for a built-in SUT,
 * the adapter's declaration for an external one (sut_loader.h). */
bc_sut_value_caps bc_sut_value_caps_of(const bc_sut *sut);
/* The BC_PARTIAL_* a SUT takes: 0 without infer_partial, everything for a
 * built-in SUT, the declaration of an external one. */
unsigned bc_sut_partial_caps_of(const bc_sut *sut);

/* The partial reference's answer (bc_pinfer) as a SUT answer. */
void bc_panswer_from_reference(const bc_params *p, int n, const bc_pshape *shapes,
                               const bc_psymbols *syms, bc_sut_panswer *answer);

/* The reference's answer to a value question, computed by evaluator ev
 * (BC_EVAL_FAST for the reference SUT, BC_EVAL_NAIVE as the oracle of the
 * value properties).  Adapters and mutants build on it. */
void bc_reference_eval(bc_evaluator ev, const bc_eval_request *req, bc_sut_answer *answer);

/* The built-in SUTs: "reference" first, then the mutants.  *count gets
 * their number. */
const bc_sut *const *bc_builtin_suts(int *count);
const bc_sut *bc_builtin_sut(const char *name); /* NULL if unknown */
/* The value tier (properties.h's bc_value_tier: 0 small, 1 medium) whose
 * default run must kill built-in SUT sut: 1 for a mutant whose bug bites
 * only on more elements than the small tier makes; 0 for every other. */
int bc_builtin_sut_tier(const bc_sut *sut);

#ifdef __cplusplus
}
#endif
#endif
