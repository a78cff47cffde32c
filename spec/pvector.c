/*
 * Partial cases in the vector format (spec/README.md, "Partial shapes").
 *
 * A partial line is a vector line whose shapes use the partial syntax.
 * Everything but the shapes (the rule, the options, the arrow and the
 * expectation's form) is read by the one parser of static lines,
 * bc_vector_parse: each shape word is parsed here and then replaced, in a
 * copy of the line, by a static shape of the same width ("[N,?]" becomes
 * "[0000]"), so that every column it reports is still the column of the
 * line as written.
 */
#include "broadcheck/vector.h"

#include <stdlib.h>
#include <string.h>

#define WHY(...) (why && cap ? (void)snprintf(why, cap, __VA_ARGS__) : (void)0)

static const char MAPPING_KEY[] = "axes-mapping=";

/* The next blank-separated word at s: its start, and its length in *len. */
static const char *word_at(const char *s, size_t *len)
{
    while (*s == ' ' || *s == '\t')
        s++;
    *len = strcspn(s, " \t");
    return s;
}

int bc_vector_line_is_partial(const char *line)
{
    size_t n = strcspn(line, "#\r\n"), len;
    char *text = malloc(n + 1);
    if (!text)
        return 0;
    memcpy(text, line, n);
    text[n] = '\0';
    int partial = 0;
    for (const char *w = word_at(text, &len); len > 0 && !partial; w = word_at(w + len, &len)) {
        char save = w[len];
        ((char *)w)[len] = '\0';
        if (w[0] == '[')
            partial = bc_pshape_text_is_partial(w);
        else
            partial = strncmp(w, MAPPING_KEY, strlen(MAPPING_KEY)) == 0 && strpbrk(w, "?.");
        ((char *)w)[len] = save;
    }
    free(text);
    return partial;
}

/* An axes-mapping of unknown values (spec/README.md, RULES.md §14.9):
 * "?,?,..." (its length known) or "..." (unknown too), read by
 * bc_params_set_unknown_mapping as the CLI's --axes-mapping is.  Returns its
 * length (-1: unknown) and blanks it, in place, into known entries of the
 * same width ("0,0", "000") for the static parser; -2 if the value is not
 * of that form, with why. */
static int unknown_mapping(char *value, int col, char *why, size_t cap)
{
    bc_params p;
    memset(&p, 0, sizeof p);
    char detail[400];
    if (bc_params_set_unknown_mapping(&p, value, detail, sizeof detail) != 1) {
        WHY("column %d: %s", col, detail);
        return -2;
    }
    for (char *e = value; *e; e++)
        if (*e != ',')
            *e = '0';
    return p.naxes;
}

int bc_pvector_parse(const char *line, bc_pvector *v, char *why, size_t cap)
{
    size_t n = strcspn(line, "#\r\n"), len;
    char *text = malloc(n + 1), *word = malloc(n + 1);
    bc_vector *plain = malloc(sizeof *plain);
    int result = -1;
    if (!text || !word || !plain) {
        WHY("out of memory");
        goto done;
    }
    memcpy(text, line, n);
    text[n] = '\0';
    memset(v, 0, sizeof *v);
    int arrow = 0, nshapes = 0, expected = 0, first_partial = 0, unknown_entries = 0;
    for (char *w = (char *)word_at(text, &len); len > 0; w = (char *)word_at(w + len, &len)) {
        const int col = (int)(w - text) + 1;
        if (len == 2 && memcmp(w, "->", 2) == 0) {
            arrow = 1;
            continue;
        }
        const size_t klen = strlen(MAPPING_KEY);
        if (!arrow && len > klen && strncmp(w, MAPPING_KEY, klen) == 0 &&
            (memchr(w + klen, '?', len - klen) || memchr(w + klen, '.', len - klen))) {
            char save = w[len];
            w[len] = '\0';
            int count = unknown_mapping(w + klen, col, why, cap);
            w[len] = save;
            if (count == -2)
                goto done;
            unknown_entries = count == -1 ? -1 : count;
            first_partial = first_partial ? first_partial : col;
            v->params.options |= BC_OPT_AXES_UNKNOWN; /* kept below */
            continue;
        }
        if (w[0] != '[')
            continue;
        memcpy(word, w, len);
        word[len] = '\0';
        bc_pshape *s = arrow                            ? &v->expect_shape
                       : nshapes < BC_VECTOR_MAX_SHAPES ? &v->shapes[nshapes]
                                                        : NULL;
        if (!s || (arrow && expected)) {
            result = 0; /* too many shapes or results: the static parser says which */
            break;
        }
        const char *end;
        char detail[256];
        int bad = bc_pshape_parse(word, &end, s, &v->syms, detail, sizeof detail) != 0;
        if (bad || *end) {
            if (arrow)
                WHY("column %d: expected result: %s", col, bad ? detail : "junk after ']'");
            else if (!bad)
                WHY("column %d: shape %d: unexpected '%s' after ']'", col, nshapes + 1, end);
            else
                WHY("column %d: shape %d: %s", col, nshapes + 1, detail);
            goto done;
        }
        if (!first_partial && bc_pshape_is_partial(s))
            first_partial = col;
        /* the same width, in the static syntax */
        if (len > 2) {
            memset(w + 1, '0', len - 2);
            w[len - 1] = ']';
        }
        if (arrow)
            expected = 1;
        else
            nshapes++;
    }
    result = bc_vector_parse(text, plain, why, cap);
    if (result != 1)
        goto done;
    if (plain->value.present) {
        WHY("column %d: a value case (op=) takes static shapes only", first_partial);
        result = -1;
        goto done;
    }
    {
        const unsigned unknown = v->params.options & BC_OPT_AXES_UNKNOWN;
        if (unknown && (plain->params.options & BC_OPT_AXES)) {
            /* they share one list: the unknown entries would stand for both */
            WHY("column %d: an axes-mapping of unknown values takes no axes option beside it",
                first_partial);
            result = -1;
            goto done;
        }
        v->params = plain->params;
        if (unknown) {
            v->params.options |= BC_OPT_AXES_UNKNOWN;
            v->params.naxes = unknown_entries;
        }
    }
    v->nshapes = plain->nshapes;
    v->expect = plain->expect;
    v->expect_kind = plain->expect_kind;
done:
    free(text);
    free(word);
    free(plain);
    return result;
}

int bc_pvector_format(const bc_pvector *v, char *buf, size_t cap)
{
    /* The rule and its options as a static line prints them.  (It once
     * formatted a whole static case, zeroed for the purpose: 28 % of the
     * partial properties' instructions, which format every case for its
     * seed.) */
    size_t len = (size_t)bc_params_format(&v->params, buf, cap);
#define PUT(...)                                                                                   \
    len += (size_t)snprintf(len < cap ? buf + len : NULL, len < cap ? cap - len : 0, __VA_ARGS__)
    for (int i = 0; i < v->nshapes; i++) {
        PUT(" ");
        len += (size_t)bc_pshape_format(&v->shapes[i], &v->syms, len < cap ? buf + len : NULL,
                                        len < cap ? cap - len : 0);
    }
    PUT(" -> ");
    if (v->expect == BC_EXPECT_SHAPE)
        len += (size_t)bc_pshape_format(&v->expect_shape, &v->syms, len < cap ? buf + len : NULL,
                                        len < cap ? cap - len : 0);
    else if (v->expect == BC_EXPECT_ANY_ERROR)
        PUT("error");
    else
        PUT("error:%s", bc_error_kind_name(v->expect_kind));
#undef PUT
    return (int)len;
}

int bc_pvector_check(const bc_pvector *v, bc_error_kind *got, bc_pshape *got_shape, bc_error *err)
{
    *got = bc_pinfer(&v->params, v->nshapes, v->shapes, &v->syms, got_shape, err);
    switch (v->expect) {
    case BC_EXPECT_SHAPE: return *got == BC_OK && bc_pshape_equal(got_shape, &v->expect_shape);
    case BC_EXPECT_ANY_ERROR: return *got != BC_OK;
    default: return *got == v->expect_kind;
    }
}

int bc_pvector_check_line(const char *line, char *detail, size_t cap)
{
    bc_pvector *v = malloc(sizeof *v);
    if (!v) {
        snprintf(detail, cap, "out of memory");
        return -1;
    }
    char why[512];
    int status = bc_pvector_parse(line, v, why, sizeof why);
    if (status == 0) {
        status = 1; /* a blank line: nothing to check */
    } else if (status < 0) {
        snprintf(detail, cap, "syntax: %s", why);
    } else if (status == 1) {
        bc_error_kind got;
        bc_pshape shape;
        bc_error err;
        if (!bc_pvector_check(v, &got, &shape, &err)) {
            char want[4096], have[2048];
            bc_pvector_format(v, want, sizeof want);
            if (got == BC_OK)
                bc_pshape_format(&shape, &v->syms, have, sizeof have);
            else
                snprintf(have, sizeof have, "error:%s (%s)", bc_error_kind_name(got), err.message);
            snprintf(detail, cap, "FAIL %s\n    reference gives %s", want, have);
            status = 0;
        }
    }
    free(v);
    return status;
}
