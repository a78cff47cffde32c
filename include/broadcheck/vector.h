/*
 * broadcheck/vector.h: the conformance-vector format of spec/README.md.
 *
 * One case per line: `RULE [KEY=VALUE ...] SHAPE ... -> EXPECTED`.  The
 * same lines are the regression corpus, so the parser is strict and its
 * errors say which column of the line is wrong and why.
 */
#ifndef BROADCHECK_VECTOR_H
#define BROADCHECK_VECTOR_H

#include <stdio.h>

#include "broadcheck/partial.h"
#include "broadcheck/shape.h"
#include "broadcheck/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BC_VECTOR_FORMAT_VERSION 1
/* More shapes than any rule takes, so a vector can state operand-count. */
#define BC_VECTOR_MAX_SHAPES (BC_MAX_OPERANDS + 8)

typedef enum bc_expect {
    BC_EXPECT_SHAPE,     /* -> [..] */
    BC_EXPECT_ANY_ERROR, /* -> error */
    BC_EXPECT_ERROR      /* -> error:KIND */
} bc_expect;

/* The definition a values= seed's random integers are made by
 * (docs/PROPERTIES.md "Value tiers", spec/README.md): version 1 is a line
 * without a marker (`values=SEED`, every line written before versions),
 * version 2 is `values=v2:SEED`.  A line keeps meaning the bytes it
 * meant: a version is never redefined, only a new one added. */
typedef enum bc_values_version {
    BC_VALUES_V1 = 0, /* one xoshiro256** draw per element, rejection then % 19 */
    BC_VALUES_V2 = 1  /* a counter-based hash of (seed, operand, element index) */
} bc_values_version;

/* A value case: the line also names an operation (op=) to compute on
 * tensors of its shapes, their dtype and how their memory is laid out and
 * filled (spec/README.md, "Value cases").  Its expectation is still the
 * rule's result shape; the values are checked against the naive oracle. */
typedef struct bc_value_case {
    int present;      /* the line names op= */
    bc_value_op kind; /* op=add ... op=or: elementwise; where; broadcast; sum-to-shape */
    bc_op op;         /* with BC_VALUE_ELEMENTWISE */
    bc_dtype dtype;   /* dtype=, default int32: the data inputs (where's cond is bool) */
    int operand;      /* operand=, with sum-to-shape: whose shape the result has */
    uint64_t layout;  /* layout=, 0 (default): inputs C-contiguous; else the seed of
                         their axis order, strides, gaps and offsets */
    uint64_t values;  /* values=, 0 (default): distinct small integers in row-major
                         order; else the seed of random small integers */
    bc_values_version values_version; /* how a nonzero values= seed makes them:
                         BC_VALUES_V1 whenever values is 0 */
} bc_value_case;

typedef struct bc_vector {
    bc_params params;
    bc_value_case value;
    int nshapes;
    bc_shape shapes[BC_VECTOR_MAX_SHAPES];
    bc_expect expect;
    bc_error_kind expect_kind; /* with BC_EXPECT_ERROR */
    bc_shape expect_shape;     /* with BC_EXPECT_SHAPE */
} bc_vector;

/* Parses one line (a trailing newline is fine).  Returns 1 for a case,
 * 0 for a blank or comment-only line, -1 on a syntax error with the reason
 * (starting "column N:") in why[cap]. */
int bc_vector_parse(const char *line, bc_vector *v, char *why, size_t cap);

/* Writes the case in canonical form (no comment, no newline); returns the
 * length it needed, like snprintf. */
int bc_vector_format(const bc_vector *v, char *buf, size_t cap);

/* The rule and its options as a line starts ("pdpd axis=1"); returns the
 * length it needed, like snprintf. */
int bc_params_format(const bc_params *p, char *buf, size_t cap);

/* Sets one KEY=VALUE option (axis, profile, axes, axes-mapping) on params,
 * as the CLI's --axis etc. do too.  Returns 0, or -1 with why. */
int bc_params_set_option(bc_params *p, const char *key, const char *value, char *why,
                         size_t cap);

/* An axes-mapping of unknown values (RULES.md §14.9): "?,?,..." (its
 * length known) or "..." (unknown too).  Returns 1 and sets axes-mapping
 * with BC_OPT_AXES_UNKNOWN (naxes: the length, -1 if unknown); 0 if value
 * has no '?' nor '.' (a known mapping: bc_params_set_option reads it); -1
 * with why, naming the entry, if it is neither form. */
int bc_params_set_unknown_mapping(bc_params *p, const char *value, char *why, size_t cap);

/* Sets one value-case KEY=VALUE (op, dtype, operand, layout, values).
 * Returns 1 if key is one of those and value is good, 0 if key is not a
 * value key, -1 with why on a bad value. */
int bc_value_set_option(bc_value_case *v, const char *key, const char *value, char *why,
                        size_t cap);
/* Whether a parsed line's value case is one broadcheck computes (spec/
 * README.md, "Value cases"): the operation under its rule, the number of
 * shapes it takes (where 3, broadcast 2, elementwise 1 to 128 under none and
 * numpy but 2 for ops other than add, mul, max and min, 2 under onnx-uni
 * and pdpd), sum-to-shape's operand, a dtype the op is defined on, no
 * negative dim and options the rule takes.  Shape-only lines are always
 * valid.  Returns 0, or -1 with why.  bc_vector_parse refuses a line that
 * fails it, and every value case the property engine makes passes it. */
int bc_value_case_check(const bc_vector *v, char *why, size_t cap);
/* The op= name of a value case ("add", ..., "where", "broadcast", "sum-to-shape"). */
const char *bc_value_case_op_name(const bc_value_case *v);

/* Runs a vector through the reference.  Returns 1 if the reference agrees
 * with the expectation, 0 if not; got/err receive what it computed. */
int bc_vector_check(const bc_vector *v, bc_error_kind *got, bc_shape *got_shape, bc_error *err);

/* Checks every vector of a file.  Prints each disagreement and each syntax
 * error as "FILE:LINE: ..." to `report`.  Counts into *passed / *failed
 * (a syntax error counts as failed).  Returns -1 if the file cannot be
 * read (reason printed), else 0. */
int bc_vector_check_file(const char *path, FILE *report, long *passed, long *failed);
/* The same on an open stream read once (a pipe, /dev/stdin), `name` in the
 * messages; *malformed (if not NULL) counts the lines that are not vectors
 * (a syntax error or a NUL byte), which are among *failed. */
int bc_vector_check_stream(FILE *f, const char *name, FILE *report, long *passed, long *failed,
                           long *malformed);


/* ---- partial cases (spec/README.md, "Partial shapes") -------------------- */

/* A line whose shapes (or expected shape) use the partial syntax: ?,
 * LO..HI, symbols, [...].  Its answer is the partial reference's
 * (bc_pinfer, RULES.md §14).  Value keys (op= ...) take static shapes only. */
typedef struct bc_pvector {
    bc_params params;
    int nshapes;
    bc_pshape shapes[BC_VECTOR_MAX_SHAPES];
    bc_psymbols syms; /* the names of the line's symbols */
    bc_expect expect;
    bc_error_kind expect_kind; /* with BC_EXPECT_ERROR */
    bc_pshape expect_shape;    /* with BC_EXPECT_SHAPE */
} bc_pvector;

/* 1 if some shape word of the line (before its comment) is partial. */
int bc_vector_line_is_partial(const char *line);
/* Parses a line in either syntax into a partial case (a static line gives
 * static partial shapes).  Returns 1, 0 (blank or comment) or -1 with why,
 * as bc_vector_parse does. */
int bc_pvector_parse(const char *line, bc_pvector *v, char *why, size_t cap);
/* The canonical line; returns the length it needed. */
int bc_pvector_format(const bc_pvector *v, char *buf, size_t cap);
/* Runs the case through bc_pinfer: 1 if it answers as expected, else 0. */
int bc_pvector_check(const bc_pvector *v, bc_error_kind *got, bc_pshape *got_shape,
                     bc_error *err);
/* Parses and checks one partial line: 1 pass, 0 fail, -1 syntax error;
 * what went wrong is written to detail. */
int bc_pvector_check_line(const char *line, char *detail, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
