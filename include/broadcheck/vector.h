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

#include "broadcheck/shape.h"

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

typedef struct bc_vector {
    bc_params params;
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

/* Sets one KEY=VALUE option (axis, profile, axes, axes-mapping) on params,
 * as the CLI's --axis etc. do too.  Returns 0, or -1 with why. */
int bc_params_set_option(bc_params *p, const char *key, const char *value, char *why,
                         size_t cap);

/* Runs a vector through the reference.  Returns 1 if the reference agrees
 * with the expectation, 0 if not; got/err receive what it computed. */
int bc_vector_check(const bc_vector *v, bc_error_kind *got, bc_shape *got_shape, bc_error *err);

/* Checks every vector of a file.  Prints each disagreement and each syntax
 * error as "FILE:LINE: ..." to `report`.  Counts into *passed / *failed
 * (a syntax error counts as failed).  Returns -1 if the file cannot be
 * read (reason printed), else 0. */
int bc_vector_check_file(const char *path, FILE *report, long *passed, long *failed);

#ifdef __cplusplus
}
#endif
#endif
