/*
 * bc_vector_parse on any line, and the round trip the corpus relies on: a
 * parsed case, formatted (its canonical form) and parsed again, is the same
 * case, and its canonical form formats to itself.  A syntax error must say
 * where ("column N: ...").
 */
#include <string.h>

#include "broadcheck/vector.h"
#include "fuzz.h"

static int same_shape(const bc_shape *a, const bc_shape *b)
{
    return bc_shape_equal(a, b);
}

/* The fields a vector line states (spec/README.md). */
static int same_vector(const bc_vector *a, const bc_vector *b)
{
    const bc_params *p = &a->params, *q = &b->params;
    if (p->rule != q->rule || p->options != q->options || p->profile != q->profile ||
        p->axis != q->axis || p->naxes != q->naxes || a->nshapes != b->nshapes ||
        a->expect != b->expect)
        return 0;
    for (int i = 0; i < p->naxes; i++)
        if (p->axes[i] != q->axes[i])
            return 0;
    const bc_value_case *v = &a->value, *w = &b->value;
    if (v->present != w->present ||
        (v->present && (v->kind != w->kind || v->dtype != w->dtype ||
                        v->layout != w->layout || v->values != w->values ||
                        v->values_version != w->values_version ||
                        v->operand != w->operand ||
                        (v->kind == BC_VALUE_ELEMENTWISE && v->op != w->op))))
        return 0;
    for (int i = 0; i < a->nshapes; i++)
        if (!same_shape(&a->shapes[i], &b->shapes[i]))
            return 0;
    if (a->expect == BC_EXPECT_ERROR && a->expect_kind != b->expect_kind)
        return 0;
    return a->expect != BC_EXPECT_SHAPE || same_shape(&a->expect_shape, &b->expect_shape);
}

static char *format(const bc_vector *v)
{
    int len = bc_vector_format(v, NULL, 0);
    BC_FUZZ_CHECK(len > 0, "format length %d", len);
    char *buf = malloc((size_t)len + 1);
    if (!buf)
        abort();
    BC_FUZZ_CHECK(bc_vector_format(v, buf, (size_t)len + 1) == len, "format lengths differ");
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = bc_fuzz_text(data, size);
    static bc_vector v, again; /* large: not on the stack */
    char why[512] = "";
    int r = bc_vector_parse(text, &v, why, sizeof why);
    BC_FUZZ_CHECK(r >= -1 && r <= 1, "returned %d", r);
    if (r < 0)
        BC_FUZZ_CHECK(strncmp(why, "column ", 7) == 0 || strcmp(why, "out of memory") == 0,
                      "the syntax error names no column: '%s'", why);
    if (r == 1) {
        char *line = format(&v);
        BC_FUZZ_CHECK(bc_vector_parse(line, &again, why, sizeof why) == 1,
                      "canonical form '%s' does not parse: %s", line, why);
        BC_FUZZ_CHECK(same_vector(&v, &again), "'%s' parses to another case", line);
        char *line2 = format(&again);
        BC_FUZZ_CHECK(strcmp(line, line2) == 0, "canonical form '%s' formats to '%s'", line, line2);
        free(line);
        free(line2);
    }
    free(text);
    return 0;
}
