/*
 * Shapes as values: parsing "[2,1,5]", formatting, element counts, and the
 * names of rules, profiles and error kinds that the CLI, the vectors and the
 * reports share.
 */
#include "broadcheck/shape.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const rule_names[BC_RULE_COUNT] = {
    [BC_RULE_NONE] = "none",
    [BC_RULE_NUMPY] = "numpy",
    [BC_RULE_ONNX_UNI] = "onnx-uni",
    [BC_RULE_PDPD] = "pdpd",
    [BC_RULE_BROADCAST_TO] = "broadcast-to",
    [BC_RULE_BIDIRECTIONAL] = "bidirectional",
    [BC_RULE_EXPLICIT] = "explicit",
    [BC_RULE_MATMUL] = "matmul",
};

static const char *const profile_names[BC_PROFILE_COUNT] = {
    [BC_PROFILE_DEFAULT] = "default",
    [BC_PROFILE_OPENVINO_DOC] = "openvino-doc",
    [BC_PROFILE_OPENVINO_SHAPE_INFERENCE] = "openvino-shape-inference",
    [BC_PROFILE_PADDLE] = "paddle",
    [BC_PROFILE_PYTORCH_EXPAND] = "pytorch-expand",
    [BC_PROFILE_OPENVINO_EXPLICIT] = "openvino-explicit",
    [BC_PROFILE_OPENVINO_SELECT] = "openvino-select",
    [BC_PROFILE_NGRAPH_SELECT] = "ngraph-select",
    [BC_PROFILE_OPENVINO_BROADCAST] = "openvino-broadcast",
    [BC_PROFILE_NGRAPH_EXPLICIT] = "ngraph-explicit",
    [BC_PROFILE_NUMPY_EMPTY_FOLD] = "numpy-empty-fold",
};

static const char *const kind_names[BC_ERR_KIND_COUNT] = {
    [BC_OK] = "ok",
    [BC_ERR_RANK_MISMATCH] = "rank-mismatch",
    [BC_ERR_DIM_MISMATCH] = "dim-mismatch",
    [BC_ERR_RANK_TOO_LARGE] = "rank-too-large",
    [BC_ERR_AXIS_OUT_OF_RANGE] = "axis-out-of-range",
    [BC_ERR_WINDOW_OUT_OF_RANGE] = "window-out-of-range",
    [BC_ERR_AXES_DUPLICATE] = "axes-duplicate",
    [BC_ERR_AXES_UNSORTED] = "axes-unsorted",
    [BC_ERR_AXES_COUNT] = "axes-count",
    [BC_ERR_NEGATIVE_DIM] = "negative-dim",
    [BC_ERR_OPERAND_COUNT] = "operand-count",
    [BC_ERR_BAD_PARAMS] = "bad-params",
    [BC_ERR_OVERFLOW] = "overflow",
};

static int lookup(const char *const *names, int count, const char *name)
{
    for (int i = 0; i < count; i++)
        if (names[i] && strcmp(names[i], name) == 0)
            return i;
    return -1;
}

const char *bc_rule_name(bc_rule r)
{
    return (unsigned)r < BC_RULE_COUNT ? rule_names[r] : "?";
}

int bc_rule_from_name(const char *name, bc_rule *out)
{
    int i = lookup(rule_names, BC_RULE_COUNT, name);
    if (i < 0)
        return -1;
    *out = (bc_rule)i;
    return 0;
}

const char *bc_profile_name(bc_profile p)
{
    return (unsigned)p < BC_PROFILE_COUNT ? profile_names[p] : "?";
}

int bc_profile_from_name(const char *name, bc_profile *out)
{
    int i = lookup(profile_names, BC_PROFILE_COUNT, name);
    if (i < 0)
        return -1;
    *out = (bc_profile)i;
    return 0;
}

const char *bc_error_kind_name(bc_error_kind k)
{
    return (unsigned)k < BC_ERR_KIND_COUNT ? kind_names[k] : "?";
}

int bc_error_kind_from_name(const char *name, bc_error_kind *out)
{
    int i = lookup(kind_names, BC_ERR_KIND_COUNT, name);
    if (i <= 0) /* "ok" is not an error kind */
        return -1;
    *out = (bc_error_kind)i;
    return 0;
}

int bc_error_kind_is_invalid_input(bc_error_kind k)
{
    return k == BC_ERR_NEGATIVE_DIM || k == BC_ERR_OPERAND_COUNT || k == BC_ERR_BAD_PARAMS;
}

bc_profile bc_rule_default_profile(bc_rule r)
{
    return r == BC_RULE_PDPD ? BC_PROFILE_OPENVINO_DOC : BC_PROFILE_DEFAULT;
}

bc_profile bc_params_profile(const bc_params *p)
{
    return (p->options & BC_OPT_PROFILE) ? p->profile : BC_PROFILE_DEFAULT;
}

bc_profile bc_params_resolved_profile(const bc_params *p)
{
    bc_profile named = bc_params_profile(p);
    return named != BC_PROFILE_DEFAULT ? named : bc_rule_default_profile(p->rule);
}

int bc_rule_takes_profile(bc_rule r, bc_profile p)
{
    if (p == BC_PROFILE_DEFAULT)
        return 1;
    if (r == BC_RULE_PDPD)
        return p == BC_PROFILE_OPENVINO_DOC || p == BC_PROFILE_OPENVINO_SHAPE_INFERENCE ||
               p == BC_PROFILE_PADDLE || p == BC_PROFILE_OPENVINO_SELECT ||
               p == BC_PROFILE_NGRAPH_SELECT || p == BC_PROFILE_OPENVINO_BROADCAST;
    if (r == BC_RULE_BROADCAST_TO)
        return p == BC_PROFILE_PYTORCH_EXPAND;
    if (r == BC_RULE_EXPLICIT)
        return p == BC_PROFILE_OPENVINO_EXPLICIT || p == BC_PROFILE_NGRAPH_EXPLICIT;
    if (r == BC_RULE_NUMPY)
        return p == BC_PROFILE_NUMPY_EMPTY_FOLD;
    return 0;
}

int bc_profile_has_values(bc_profile p)
{
    return p != BC_PROFILE_OPENVINO_SELECT && p != BC_PROFILE_NGRAPH_SELECT &&
           p != BC_PROFILE_OPENVINO_BROADCAST && p != BC_PROFILE_NGRAPH_EXPLICIT &&
           p != BC_PROFILE_NUMPY_EMPTY_FOLD;
}

bc_params bc_params_for(bc_rule r)
{
    bc_params p;
    memset(&p, 0, sizeof p);
    p.rule = r;
    p.profile = BC_PROFILE_DEFAULT;
    p.axis = BC_AXIS_DEFAULT;
    return p;
}

bc_error_kind bc_error_vset(bc_error *err, bc_error_kind kind, bc_rule rule, int operand,
                            int other, int axis, int64_t dim, int64_t other_dim,
                            const char *fmt, va_list ap)
{
    if (err) {
        err->kind = kind;
        err->rule = rule;
        err->operand = operand;
        err->other = other;
        err->axis = axis;
        err->dim = dim;
        err->other_dim = other_dim;
        int n = snprintf(err->message, sizeof err->message, "%s: ", bc_error_kind_name(kind));
        vsnprintf(err->message + n, sizeof err->message - (size_t)n, fmt, ap);
    }
    return kind;
}

bc_error_kind bc_error_set(bc_error *err, bc_error_kind kind, bc_rule rule, int operand,
                           int other, int axis, int64_t dim, int64_t other_dim,
                           const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bc_error_vset(err, kind, rule, operand, other, axis, dim, other_dim, fmt, ap);
    va_end(ap);
    return kind;
}

/* ---- parsing and formatting ----------------------------------------- */

static const char *skip_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

int bc_shape_parse(const char *text, const char **end, bc_shape *out, char *why, size_t cap)
{
    const char *s = skip_blanks(text);
    out->rank = 0;
#define FAIL(...)                                                   \
    do {                                                            \
        if (why && cap)                                             \
            snprintf(why, cap, __VA_ARGS__);                        \
        if (end)                                                    \
            *end = s;                                               \
        return -1;                                                  \
    } while (0)
    if (*s != '[' && *s)
        FAIL("column %d: expected '[' to start a shape, found '%c'", (int)(s - text) + 1, *s);
    if (*s != '[')
        FAIL("column %d: expected '[' to start a shape, found the end of the text",
             (int)(s - text) + 1);
    s = skip_blanks(s + 1);
    if (*s == ']') {
        if (end)
            *end = s + 1;
        return 0;
    }
    for (;;) {
        const char *start = s;
        if (!(isdigit((unsigned char)*s) || ((*s == '-' || *s == '+') && isdigit((unsigned char)s[1]))))
            FAIL("column %d: expected a dim (an integer) at axis %d", (int)(s - text) + 1, out->rank);
        if (out->rank == BC_MAX_RANK)
            FAIL("column %d: rank past the limit of %d axes", (int)(s - text) + 1, BC_MAX_RANK);
        errno = 0;
        char *after;
        long long v = strtoll(start, &after, 10);
        if (errno == ERANGE)
            FAIL("column %d: dim at axis %d is past the int64 range (%s INT64_%s)",
                 (int)(start - text) + 1, out->rank, *start == '-' ? "below" : "above",
                 *start == '-' ? "MIN" : "MAX");
        out->dims[out->rank++] = (int64_t)v;
        s = skip_blanks(after);
        if (*s == ']') {
            if (end)
                *end = s + 1;
            return 0;
        }
        if (*s != ',')
            FAIL("column %d: expected ',' or ']' after the dim at axis %d", (int)(s - text) + 1,
                 out->rank - 1);
        s = skip_blanks(s + 1);
    }
#undef FAIL
}

int bc_shape_format(const bc_shape *s, char *buf, size_t cap)
{
    size_t len = 0;
    int n = snprintf(buf, cap, "[");
    len += (size_t)n;
    for (int i = 0; i < s->rank; i++) {
        n = snprintf(len < cap ? buf + len : NULL, len < cap ? cap - len : 0, "%s%lld",
                     i ? "," : "", (long long)s->dims[i]);
        len += (size_t)n;
    }
    n = snprintf(len < cap ? buf + len : NULL, len < cap ? cap - len : 0, "]");
    len += (size_t)n;
    return (int)len;
}

int bc_shape_equal(const bc_shape *a, const bc_shape *b)
{
    if (a->rank != b->rank)
        return 0;
    for (int i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i])
            return 0;
    return 1;
}

bc_error_kind bc_shape_numel(const bc_shape *s, int64_t *numel)
{
    int64_t n = 1;
    int overflow = 0;
    for (int i = 0; i < s->rank; i++) {
        if (s->dims[i] < 0)
            return BC_ERR_NEGATIVE_DIM;
        if (s->dims[i] == 0) {
            *numel = 0; /* empty, however large the other dims */
            return BC_OK;
        }
    }
    for (int i = 0; i < s->rank; i++)
        if (__builtin_mul_overflow(n, s->dims[i], &n))
            overflow = 1;
    if (overflow)
        return BC_ERR_OVERFLOW;
    *numel = n;
    return BC_OK;
}
