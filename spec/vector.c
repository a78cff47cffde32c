/*
 * The conformance-vector format (spec/README.md): parse, format, check.
 */
#include "broadcheck/vector.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define WHY(...) (why && cap ? (void)snprintf(why, cap, __VA_ARGS__) : (void)0)

/* Parses "i,j,..." (possibly empty) into p->axes. */
static int parse_axis_list(const char *value, bc_params *p, const char *key, char *why, size_t cap)
{
    p->naxes = 0;
    const char *s = value;
    if (*s == '\0')
        return 0;
    for (;;) {
        if (p->naxes == BC_MAX_RANK) {
            WHY("%s: more than %d entries", key, BC_MAX_RANK);
            return -1;
        }
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (end == s || !(isdigit((unsigned char)*s) || *s == '-' || *s == '+')) {
            WHY("%s: expected an integer at entry %d, found '%s'", key, p->naxes, s);
            return -1;
        }
        if (errno == ERANGE) {
            WHY("%s: entry %d is past the int64 range", key, p->naxes);
            return -1;
        }
        p->axes[p->naxes++] = (int64_t)v;
        if (*end == '\0')
            return 0;
        if (*end != ',') {
            WHY("%s: expected ',' after entry %d, found '%c'", key, p->naxes - 1, *end);
            return -1;
        }
        s = end + 1;
    }
}

int bc_params_set_unknown_mapping(bc_params *p, const char *value, char *why, size_t cap)
{
    if (!strpbrk(value, "?."))
        return 0; /* known entries (or junk the known parser names) */
    if (p->options & BC_OPT_AXES_MAPPING) {
        WHY("option 'axes-mapping' given twice");
        return -1;
    }
    if (strcmp(value, "...") == 0) {
        p->naxes = -1;
        p->options |= BC_OPT_AXES_MAPPING | BC_OPT_AXES_UNKNOWN;
        return 1;
    }
    const char *hint = "an axes-mapping is all known entries (0,2), all unknown ones "
                       "(?,?: the length known) or '...' (the length unknown too), RULES.md "
                       "§14.9";
    int n = 0;
    for (const char *e = value;; n++) {
        size_t len = strcspn(e, ",");
        if (n == BC_MAX_RANK) {
            WHY("axes-mapping: more than %d entries", BC_MAX_RANK);
            return -1;
        }
        if (len == 0) {
            WHY("axes-mapping: entry %d is empty (%s)", n, hint);
            return -1;
        }
        if (len != 1 || e[0] != '?') {
            if (memchr(e, '.', len))
                WHY("axes-mapping: entry %d is '%.*s': '...' stands for the whole mapping, "
                    "not for an entry (%s)",
                    n, (int)len, e, hint);
            else if (memchr(e, '?', len))
                WHY("axes-mapping: entry %d is '%.*s', expected '?' alone (%s)", n, (int)len, e,
                    hint);
            else
                WHY("axes-mapping: entry %d is '%.*s' but others are '?': a mapping with some "
                    "entries known is not writable (%s)",
                    n, (int)len, e, hint);
            return -1;
        }
        e += len;
        if (*e == '\0')
            break;
        e++;
        if (*e == '\0') {
            WHY("axes-mapping: entry %d is empty (%s)", n + 1, hint);
            return -1;
        }
    }
    p->naxes = n + 1;
    p->options |= BC_OPT_AXES_MAPPING | BC_OPT_AXES_UNKNOWN;
    return 1;
}

int bc_params_set_option(bc_params *p, const char *key, const char *value, char *why, size_t cap)
{
    unsigned opt;
    if (strcmp(key, "axis") == 0)
        opt = BC_OPT_AXIS;
    else if (strcmp(key, "profile") == 0)
        opt = BC_OPT_PROFILE;
    else if (strcmp(key, "axes") == 0)
        opt = BC_OPT_AXES;
    else if (strcmp(key, "axes-mapping") == 0)
        opt = BC_OPT_AXES_MAPPING;
    else {
        WHY("unknown option '%s' (expected axis, profile, axes or axes-mapping)", key);
        return -1;
    }
    if (p->options & opt) {
        WHY("option '%s' given twice", key);
        return -1;
    }
    if (opt == BC_OPT_AXIS) {
        char *end;
        errno = 0;
        long long v = strtoll(value, &end, 10);
        if (*value == '\0' || *end != '\0' || isspace((unsigned char)*value)) {
            WHY("axis: expected an integer, found '%s'", value);
            return -1;
        }
        if (errno == ERANGE) {
            WHY("axis: '%s' is past the int64 range", value);
            return -1;
        }
        p->axis = (int64_t)v;
    } else if (opt == BC_OPT_PROFILE) {
        if (bc_profile_from_name(value, &p->profile) != 0) {
            WHY("profile: unknown profile '%s' (expected default, openvino-doc, "
                "openvino-shape-inference or paddle)", value);
            return -1;
        }
    } else if (parse_axis_list(value, p, key, why, cap) != 0) {
        /* axes and axes-mapping share one list: giving both is bad-params,
         * which bc_infer reports, so the parser lets it through. */
        return -1;
    }
    p->options |= opt;
    return 0;
}

static int parse_u64(const char *value, uint64_t *out)
{
    if (!isdigit((unsigned char)*value))
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(value, &end, 10);
    if (*end != '\0' || errno == ERANGE)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

int bc_value_set_option(bc_value_case *v, const char *key, const char *value, char *why,
                        size_t cap)
{
    if (strcmp(key, "op") == 0) {
        if (v->present) {
            WHY("option 'op' given twice");
            return -1;
        }
        v->present = 1;
        if (strcmp(value, "where") == 0) {
            v->kind = BC_VALUE_SELECT;
        } else if (strcmp(value, "broadcast") == 0) {
            v->kind = BC_VALUE_BROADCAST;
        } else if (strcmp(value, "sum-to-shape") == 0) {
            v->kind = BC_VALUE_SUM_TO_SHAPE;
        } else if (strcmp(value, "matmul") == 0) {
            v->kind = BC_VALUE_MATMUL;
        } else if (bc_op_from_name(value, &v->op) == 0) {
            v->kind = BC_VALUE_ELEMENTWISE;
        } else {
            WHY("op: unknown operation '%s' (expected add, sub, mul, div, max, min, equal, "
                "less, and, or, where, broadcast, sum-to-shape or matmul)", value);
            return -1;
        }
        return 1;
    }
    if (strcmp(key, "dtype") == 0) {
        if (bc_dtype_from_name(value, &v->dtype) != 0) {
            WHY("dtype: unknown dtype '%s' (expected bool, int8, uint8, int32, int64, float32, "
                "float64 or float16)", value);
            return -1;
        }
        return 1;
    }
    if (strcmp(key, "operand") == 0) {
        uint64_t k;
        if (parse_u64(value, &k) != 0 || k >= BC_VECTOR_MAX_SHAPES) {
            WHY("operand: expected an operand index 0 to %d, found '%s'",
                BC_VECTOR_MAX_SHAPES - 1, value);
            return -1;
        }
        v->operand = (int)k;
        return 1;
    }
    if (strcmp(key, "layout") == 0) {
        if (parse_u64(value, &v->layout) != 0) {
            WHY("layout: expected a seed (an unsigned 64-bit integer), found '%s'", value);
            return -1;
        }
        return 1;
    }
    if (strcmp(key, "values") == 0) {
        /* SEED: version 1 (every line before versions); v2:SEED: version 2 */
        bc_values_version version = BC_VALUES_V1;
        const char *seed = value;
        if (value[0] == 'v') {
            if (strncmp(value, "v2:", 3) != 0) {
                WHY("values: '%s' names no version of the values' definition (a seed alone "
                    "is version 1, v2:SEED version 2)", value);
                return -1;
            }
            version = BC_VALUES_V2;
            seed = value + 3;
        }
        if (parse_u64(seed, &v->values) != 0) {
            WHY("values: expected a seed (an unsigned 64-bit integer) or v2:SEED, found '%s'",
                value);
            return -1;
        }
        /* 0 is the counting values in every version: one spelling of it */
        v->values_version = v->values != 0 ? version : BC_VALUES_V1;
        return 1;
    }
    return 0;
}

const char *bc_value_case_op_name(const bc_value_case *v)
{
    switch (v->kind) {
    case BC_VALUE_ELEMENTWISE: return bc_op_name(v->op);
    case BC_VALUE_SELECT: return "where";
    case BC_VALUE_BROADCAST: return "broadcast";
    case BC_VALUE_MATMUL: return "matmul";
    default: return "sum-to-shape";
    }
}

/* The rules a value kind computes under, as a bit per bc_rule. */
static unsigned rules_of_kind(bc_value_op kind)
{
    const unsigned none = 1u << BC_RULE_NONE, numpy = 1u << BC_RULE_NUMPY,
                   binary = (1u << BC_RULE_ONNX_UNI) | (1u << BC_RULE_PDPD),
                   to = (1u << BC_RULE_BROADCAST_TO) | (1u << BC_RULE_BIDIRECTIONAL) |
                        (1u << BC_RULE_EXPLICIT);
    switch (kind) {
    case BC_VALUE_ELEMENTWISE: return none | numpy | binary;
    case BC_VALUE_SELECT: return none | numpy;
    case BC_VALUE_BROADCAST: return to;
    case BC_VALUE_MATMUL: return 1u << BC_RULE_MATMUL;
    default: return none | numpy | binary | to;
    }
}

int bc_value_case_check(const bc_vector *v, char *why, size_t cap)
{
    const bc_value_case *val = &v->value;
    const bc_rule rule = v->params.rule;
    const int n = v->nshapes, nary = rule == BC_RULE_NONE || rule == BC_RULE_NUMPY;
    const char *op = bc_value_case_op_name(val);
    if (!val->present)
        return 0;
    if (!((rules_of_kind(val->kind) >> rule) & 1u)) {
        WHY("op=%s does not compute under rule %s (%s)", op, bc_rule_name(rule),
            val->kind == BC_VALUE_BROADCAST ? "broadcast-to, bidirectional and explicit do"
            : val->kind == BC_VALUE_SELECT  ? "none and numpy do"
            : val->kind == BC_VALUE_MATMUL  ? "matmul does"
                                            : "none, numpy, onnx-uni and pdpd do");
        return -1;
    }
    const bc_profile prof = bc_params_profile(&v->params);
    if (!bc_profile_has_values(prof)) {
        WHY("op=%s: profile %s states shapes only (RULES.md §5.4 to §5.6, §8.4)", op,
            bc_profile_name(prof));
        return -1;
    }
    int lo = nary ? 1 : 2, hi = nary ? BC_MAX_OPERANDS : 2;
    if (val->kind == BC_VALUE_SELECT)
        lo = hi = 3;
    if (n < lo || n > hi) {
        WHY("op=%s under rule %s takes %s%d shape%s, got %d", op, bc_rule_name(rule),
            lo == hi ? "" : "1 to ", hi, hi == 1 ? "" : "s", n);
        return -1;
    }
    if (val->kind == BC_VALUE_ELEMENTWISE && n != 2 && val->op != BC_OP_ADD &&
        val->op != BC_OP_MUL && val->op != BC_OP_MAX && val->op != BC_OP_MIN) {
        WHY("op=%s takes exactly 2 shapes; only add, mul, max and min fold %d", op, n);
        return -1;
    }
    /* sum-to-shape sums to one of the shapes; a broadcast rule's target is
     * the result itself, so only its input (operand 0) is asked */
    const int to_rule = ((rules_of_kind(BC_VALUE_BROADCAST) >> rule) & 1u) != 0;
    if (val->kind == BC_VALUE_SUM_TO_SHAPE && val->operand >= (to_rule ? 1 : n)) {
        WHY("operand=%d: sum-to-shape under rule %s sums to %s", val->operand,
            bc_rule_name(rule), to_rule ? "the input (operand 0)" : "one of the shapes");
        return -1;
    }
    /* a line may ask what some declared semantics define (sub on bool under
     * bool_sub=xor); a run under others answers it "unsupported" */
    const bc_semantics any = {.bool_sub = BC_BOOL_SUB_XOR};
    if ((val->kind == BC_VALUE_ELEMENTWISE && !bc_op_takes_dtype_under(val->op, val->dtype, &any)) ||
        ((val->kind == BC_VALUE_SUM_TO_SHAPE || val->kind == BC_VALUE_MATMUL) &&
         val->dtype == BC_BOOL)) {
        WHY("op=%s is not defined on dtype %s", op, bc_dtype_name(val->dtype));
        return -1;
    }
    /* a target's -1 under pytorch-expand is a shape, not a tensor's dim */
    const int keeps = rule == BC_RULE_BROADCAST_TO &&
                      bc_params_profile(&v->params) == BC_PROFILE_PYTORCH_EXPAND;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < v->shapes[i].rank; k++)
            if (v->shapes[i].dims[k] < 0 && !(keeps && i == 1 && v->shapes[i].dims[k] == -1)) {
                WHY("shape %d has dim %lld at axis %d: no tensor has a negative dim", i + 1,
                    (long long)v->shapes[i].dims[k], k);
                return -1;
            }
    bc_error err;
    bc_shape ignored;
    if (bc_infer(&v->params, n, v->shapes, &ignored, &err) == BC_ERR_BAD_PARAMS) {
        WHY("the rule's options are invalid input: %s", err.message);
        return -1;
    }
    return 0;
}

/* The next blank-separated word of s, copied into word[cap]. */
static const char *next_word(const char *s, char *word, size_t cap)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = 0;
    while (*s && *s != ' ' && *s != '\t') {
        if (n + 1 < cap)
            word[n++] = *s;
        s++;
    }
    word[n] = '\0';
    return s;
}

int bc_vector_parse(const char *line, bc_vector *v, char *why, size_t cap)
{
    /* Strip the comment and the line ending. */
    size_t len = strcspn(line, "#\r\n");
    char *text = malloc(len + 1), *word = malloc(len + 1);
    if (!text || !word) {
        free(text);
        free(word);
        WHY("out of memory");
        return -1;
    }
    memcpy(text, line, len);
    text[len] = '\0';
    int result = -1;
    char detail[256];
    const size_t wordcap = len + 1; /* a word is never longer than the line */
    const char *s = next_word(text, word, wordcap);
    const char *at = text;
    memset(v, 0, sizeof *v);
#define COL ((int)(at - text) + 1 + (int)strspn(at, " \t"))
    if (word[0] == '\0') {
        result = 0;
        goto done;
    }
    bc_rule rule;
    if (bc_rule_from_name(word, &rule) != 0) {
        WHY("column %d: unknown rule '%s' (expected none, numpy, onnx-uni, pdpd, broadcast-to, "
            "bidirectional or explicit)", COL, word);
        goto done;
    }
    v->params = bc_params_for(rule);
    v->value.dtype = BC_INT32;
    int value_keys_at = 0; /* column of the first value key, to name it if op= is missing */
    for (;;) {
        at = s;
        s = next_word(s, word, wordcap);
        if (word[0] == '\0') {
            WHY("column %d: missing '-> EXPECTED' at the end of the line", COL);
            goto done;
        }
        if (strcmp(word, "->") == 0)
            break;
        if (word[0] == '[') {
            if (v->nshapes == BC_VECTOR_MAX_SHAPES) {
                WHY("column %d: more than %d shapes", COL, BC_VECTOR_MAX_SHAPES);
                goto done;
            }
            const char *end;
            if (bc_shape_parse(word, &end, &v->shapes[v->nshapes], detail, sizeof detail) != 0) {
                WHY("column %d: shape %d: %s", COL, v->nshapes + 1, detail);
                goto done;
            }
            if (*end != '\0') {
                WHY("column %d: shape %d: unexpected '%s' after ']'", COL, v->nshapes + 1, end);
                goto done;
            }
            v->nshapes++;
            continue;
        }
        char *eq = strchr(word, '=');
        if (!eq) {
            WHY("column %d: expected KEY=VALUE, a shape '[...]' or '->', found '%s'", COL, word);
            goto done;
        }
        if (v->nshapes > 0) {
            WHY("column %d: option '%s' after a shape; options come first", COL, word);
            goto done;
        }
        *eq = '\0';
        int is_value = bc_value_set_option(&v->value, word, eq + 1, detail, sizeof detail);
        if (is_value < 0 ||
            (is_value == 0 &&
             bc_params_set_option(&v->params, word, eq + 1, detail, sizeof detail) != 0)) {
            WHY("column %d: %s", COL, detail);
            goto done;
        }
        if (is_value)
            value_keys_at = value_keys_at ? value_keys_at : COL;
    }
    if (value_keys_at && !v->value.present) {
        WHY("column %d: dtype=, operand=, layout= and values= describe a value case, which "
            "needs op=", value_keys_at);
        goto done;
    }
    if (v->value.operand != 0 && v->value.kind != BC_VALUE_SUM_TO_SHAPE) {
        WHY("column %d: operand= goes with op=sum-to-shape only", value_keys_at);
        goto done;
    }
    if (bc_value_case_check(v, detail, sizeof detail) != 0) {
        WHY("column %d: not a value case broadcheck computes: %s", value_keys_at, detail);
        goto done;
    }
    at = s;
    s = next_word(s, word, wordcap);
    if (word[0] == '[') {
        const char *end;
        v->expect = BC_EXPECT_SHAPE;
        if (bc_shape_parse(word, &end, &v->expect_shape, detail, sizeof detail) != 0 || *end) {
            WHY("column %d: expected result: %s", COL, *end ? "junk after ']'" : detail);
            goto done;
        }
    } else if (strcmp(word, "error") == 0) {
        v->expect = BC_EXPECT_ANY_ERROR;
    } else if (strncmp(word, "error:", 6) == 0) {
        v->expect = BC_EXPECT_ERROR;
        if (bc_error_kind_from_name(word + 6, &v->expect_kind) != 0) {
            WHY("column %d: unknown error kind '%s' (see spec/README.md)", COL, word + 6);
            goto done;
        }
    } else {
        WHY("column %d: expected a shape, 'error' or 'error:KIND' after '->', found '%s'", COL,
            word[0] ? word : "nothing");
        goto done;
    }
    at = s;
    s = next_word(s, word, wordcap);
    if (word[0]) {
        WHY("column %d: unexpected '%s' after the expected result", COL, word);
        goto done;
    }
    result = 1;
done:
#undef COL
    free(text);
    free(word);
    return result;
}

/* Appends to buf[cap] at len, counting what did not fit (like snprintf). */
#define PUT(...)                                                                    \
    len += (size_t)snprintf(len < cap ? buf + len : NULL, len < cap ? cap - len : 0, \
                            __VA_ARGS__)

int bc_params_format(const bc_params *p, char *buf, size_t cap)
{
    size_t len = 0;
    PUT("%s", bc_rule_name(p->rule));
    if (p->options & BC_OPT_PROFILE)
        PUT(" profile=%s", bc_profile_name(p->profile));
    if (p->options & BC_OPT_AXIS)
        PUT(" axis=%lld", (long long)p->axis);
    /* Both keys given is bad-params (bc_infer says so); they share one list,
     * so each prints it and the line parses back to the same case. */
    static const unsigned list_opts[2] = {BC_OPT_AXES, BC_OPT_AXES_MAPPING};
    static const char *const list_keys[2] = {"axes", "axes-mapping"};
    for (int k = 0; k < 2; k++) {
        if (!(p->options & list_opts[k]))
            continue;
        PUT(" %s=", list_keys[k]);
        const int unknown =
            list_opts[k] == BC_OPT_AXES_MAPPING && (p->options & BC_OPT_AXES_UNKNOWN);
        if (unknown && p->naxes < 0) {
            PUT("..."); /* unknown values of unknown length (RULES.md §14.9) */
            continue;
        }
        for (int i = 0; i < p->naxes; i++)
            if (unknown)
                PUT("%s?", i ? "," : "");
            else
                PUT("%s%lld", i ? "," : "", (long long)p->axes[i]);
    }
    return (int)len;
}

int bc_vector_format(const bc_vector *v, char *buf, size_t cap)
{
    size_t len = (size_t)bc_params_format(&v->params, buf, cap);
    const bc_value_case *val = &v->value;
    if (val->present) {
        PUT(" op=%s dtype=%s", bc_value_case_op_name(val), bc_dtype_name(val->dtype));
        if (val->kind == BC_VALUE_SUM_TO_SHAPE)
            PUT(" operand=%d", val->operand);
        if (val->layout)
            PUT(" layout=%llu", (unsigned long long)val->layout);
        if (val->values)
            PUT(" values=%s%llu", val->values_version == BC_VALUES_V2 ? "v2:" : "",
                (unsigned long long)val->values);
    }
    for (int i = 0; i < v->nshapes; i++) {
        PUT(" ");
        len += (size_t)bc_shape_format(&v->shapes[i], len < cap ? buf + len : NULL,
                                       len < cap ? cap - len : 0);
    }
    PUT(" -> ");
    if (v->expect == BC_EXPECT_SHAPE)
        len += (size_t)bc_shape_format(&v->expect_shape, len < cap ? buf + len : NULL,
                                       len < cap ? cap - len : 0);
    else if (v->expect == BC_EXPECT_ANY_ERROR)
        PUT("error");
    else
        PUT("error:%s", bc_error_kind_name(v->expect_kind));
#undef PUT
    return (int)len;
}

int bc_vector_check(const bc_vector *v, bc_error_kind *got, bc_shape *got_shape, bc_error *err)
{
    *got = bc_infer(&v->params, v->nshapes, v->shapes, got_shape, err);
    switch (v->expect) {
    case BC_EXPECT_SHAPE:
        return *got == BC_OK && bc_shape_equal(got_shape, &v->expect_shape);
    case BC_EXPECT_ANY_ERROR:
        return *got != BC_OK;
    default:
        return *got == v->expect_kind;
    }
}

int bc_vector_check_file(const char *path, FILE *report, long *passed, long *failed)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(report, "%s: cannot open: %s\n", path, strerror(errno));
        return -1;
    }
    int status = bc_vector_check_stream(f, path, report, passed, failed, NULL);
    fclose(f);
    return status;
}

int bc_vector_check_stream(FILE *f, const char *path, FILE *report, long *passed, long *failed,
                           long *malformed)
{
    bc_vector *v = malloc(sizeof *v);
    char *line = NULL;
    size_t linecap = 0;
    ssize_t n;
    long lineno = 0, bad = 0;
    if (!v) {
        fprintf(report, "%s: out of memory\n", path);
        return -1;
    }
    while ((n = getline(&line, &linecap, f)) >= 0) {
        char why[512];
        lineno++;
        if ((size_t)n != strlen(line)) {
            fprintf(report, "%s:%ld: a NUL byte in the line; vector files are text\n", path,
                    lineno);
            (*failed)++;
            bad++;
            continue;
        }
        if (bc_vector_line_is_partial(line)) { /* RULES.md §14: the partial reference */
            char detail[8192];
            int ok = bc_pvector_check_line(line, detail, sizeof detail);
            if (ok == 1)
                (*passed)++;
            else
                fprintf(report, "%s:%ld: %s\n", path, lineno, detail);
            *failed += ok != 1;
            bad += ok < 0; /* a syntax error: malformed input, not a failed check */
            continue;
        }
        int r = bc_vector_parse(line, v, why, sizeof why);
        if (r == 0)
            continue;
        if (r < 0) {
            fprintf(report, "%s:%ld: syntax: %s\n", path, lineno, why);
            (*failed)++;
            bad++;
            continue;
        }
        bc_error_kind got;
        bc_shape shape;
        bc_error err;
        if (bc_vector_check(v, &got, &shape, &err)) {
            (*passed)++;
            continue;
        }
        (*failed)++;
        char want[4096], have[4096];
        bc_vector_format(v, want, sizeof want);
        if (got == BC_OK)
            bc_shape_format(&shape, have, sizeof have);
        else
            snprintf(have, sizeof have, "error:%s (%s)", bc_error_kind_name(got), err.message);
        fprintf(report, "%s:%ld: FAIL %s\n    reference gives %s\n", path, lineno, want, have);
    }
    int read_error = ferror(f);
    free(line);
    free(v);
    if (malformed)
        *malformed += bad;
    if (read_error) {
        fprintf(report, "%s: read error after line %ld\n", path, lineno);
        return -1;
    }
    return 0;
}
