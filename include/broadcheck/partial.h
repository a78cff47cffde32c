/*
 * broadcheck/partial.h: partial shapes and the reference rules on them
 * (spec/RULES.md §14).
 *
 * A partial shape is what shape inference sees before run time: its rank
 * may be unknown, and each dim is an interval [lo, hi] (hi may be
 * unbounded; a static dim is lo == hi) that may carry a symbol, a name that
 * stands for the same value wherever it appears in one question.  The
 * rules here answer, for partial inputs, a partial result that contains the
 * concrete result of every concretization the static rule accepts, and
 * reject only when no concretization is accepted (RULES.md §14.1).  The
 * static rules of shape.h are untouched: these functions sit beside them.
 */
#ifndef BROADCHECK_PARTIAL_H
#define BROADCHECK_PARTIAL_H

#include <stddef.h>
#include <stdint.h>

#include "broadcheck/shape.h"

#ifdef __cplusplus
extern "C" {
#endif

/* hi of a dim with no upper bound.  No dim is larger than INT64_MAX, so
 * [lo, INT64_MAX] is exactly "lo or more". */
#define BC_DIM_UNBOUNDED INT64_MAX
/* bc_pshape.rank of a shape whose rank is unknown (written [...]). */
#define BC_RANK_DYNAMIC (-1)
/* Symbols in one question, and the length of a symbol's name. */
#define BC_MAX_SYMBOLS 64
#define BC_SYMBOL_NAME_MAX 31

typedef struct bc_pdim {
    int64_t lo, hi; /* lo <= hi; hi == BC_DIM_UNBOUNDED: no upper bound */
    int sym;        /* 0: no symbol; k >= 1: symbol k of the question */
} bc_pdim;

typedef struct bc_pshape {
    int rank;                  /* BC_RANK_DYNAMIC, or 0 .. BC_MAX_RANK */
    bc_pdim dims[BC_MAX_RANK]; /* with a static rank */
} bc_pshape;

/* The names of a question's symbols: symbol k is names[k - 1]. */
typedef struct bc_psymbols {
    int count;
    char names[BC_MAX_SYMBOLS][BC_SYMBOL_NAME_MAX + 1];
} bc_psymbols;

/* ---- dims and shapes --------------------------------------------------- */

bc_pdim bc_pdim_static(int64_t d);
bc_pdim bc_pdim_dynamic(void);           /* ?: [0, unbounded], no symbol */
int bc_pdim_is_static(const bc_pdim *d); /* lo == hi (a symbol may be attached) */
int bc_pdim_may_be_1(const bc_pdim *d);  /* lo <= 1 <= hi */
int bc_pdim_contains(const bc_pdim *d, int64_t v);

/* A partial shape with every dim static and no symbol: what a static shape is. */
bc_pshape bc_pshape_from_shape(const bc_shape *s);
/* 1 and *out filled if p has a static rank and every dim is static (its
 * symbols are dropped); else 0. */
int bc_pshape_to_shape(const bc_pshape *p, bc_shape *out);
/* 1 if p has a dynamic rank, a non-static dim or a symbol. */
int bc_pshape_is_partial(const bc_pshape *p);
int bc_pshape_equal(const bc_pshape *a, const bc_pshape *b);

/* ---- text --------------------------------------------------------------- */

/* Parses one partial shape (spec/README.md, "Partial shapes"): "[...]" or
 * "[d0,d1,...]" where a dim is N, ?, LO..HI, LO.., ..HI, or a symbol NAME
 * optionally bounded as NAME:N, NAME:LO..HI and so on.  Symbols are looked
 * up in, or added to, syms.  Returns 0, or -1 with why (naming the column
 * and the axis) and *end at the offending character. */
int bc_pshape_parse(const char *text, const char **end, bc_pshape *out, bc_psymbols *syms,
                    char *why, size_t cap);
/* Writes the canonical text ("[2,?,3..,N,M:2..5]"); syms may be NULL
 * (symbols are then written $1, $2, ...).  Returns the length it needed. */
int bc_pshape_format(const bc_pshape *s, const bc_psymbols *syms, char *buf, size_t cap);
int bc_pdim_format(const bc_pdim *d, const bc_psymbols *syms, char *buf, size_t cap);
/* 1 if text (one shape word) is in the partial syntax: it has a ?, a
 * .., a letter or a '...' between its brackets. */
int bc_pshape_text_is_partial(const char *text);
/* The id of symbol `name` in syms, added if new; -1 if the table is full
 * or the name is not [A-Za-z_][A-Za-z0-9_]* of at most BC_SYMBOL_NAME_MAX. */
int bc_psymbols_intern(bc_psymbols *syms, const char *name, size_t len);

/* ---- the rules ---------------------------------------------------------- */

/* The partial result of n partial shapes under p (the same arguments as
 * bc_infer), RULES.md §14.  Returns BC_OK and fills *out (its symbols are
 * those of the inputs), or the error kind with *err filled (if not NULL);
 * syms (may be NULL) only names symbols in messages. */
bc_error_kind bc_pinfer(const bc_params *p, int n, const bc_pshape *shapes, const bc_psymbols *syms,
                        bc_pshape *out, bc_error *err);

#ifdef __cplusplus
}
#endif
#endif
