/*
 * bc_pvector_parse on any line (partial shapes, RULES.md §14), the round
 * trip of its canonical form, and the partial reference on what parses: it
 * answers without crashing, its result's symbols are the line's, and on a
 * line of static shapes it answers as the static reference.
 */
#include <string.h>

#include "broadcheck/vector.h"
#include "fuzz.h"

static char *format(const bc_pvector *v)
{
    int len = bc_pvector_format(v, NULL, 0);
    BC_FUZZ_CHECK(len > 0, "format length %d", len);
    char *buf = malloc((size_t)len + 1);
    if (!buf)
        abort();
    BC_FUZZ_CHECK(bc_pvector_format(v, buf, (size_t)len + 1) == len, "format lengths differ");
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = bc_fuzz_text(data, size);
    static bc_pvector v, again; /* large: not on the stack */
    static bc_shape concrete[BC_VECTOR_MAX_SHAPES];
    char why[512] = "";
    int r = bc_pvector_parse(text, &v, why, sizeof why);
    BC_FUZZ_CHECK(r >= -1 && r <= 1, "returned %d", r);
    if (r < 0)
        BC_FUZZ_CHECK(strncmp(why, "column ", 7) == 0 || strcmp(why, "out of memory") == 0,
                      "the syntax error names no column: '%s'", why);
    if (r == 1) {
        char *line = format(&v);
        BC_FUZZ_CHECK(bc_pvector_parse(line, &again, why, sizeof why) == 1,
                      "canonical form '%s' does not parse: %s", line, why);
        char *line2 = format(&again);
        BC_FUZZ_CHECK(strcmp(line, line2) == 0, "canonical form '%s' formats to '%s'", line, line2);
        bc_pshape out;
        bc_error err;
        bc_error_kind k = bc_pinfer(&v.params, v.nshapes, v.shapes, &v.syms, &out, &err);
        BC_FUZZ_CHECK(k >= BC_OK && k < BC_ERR_KIND_COUNT, "kind %d", (int)k);
        for (int d = 0; k == BC_OK && d < out.rank; d++)
            BC_FUZZ_CHECK(out.dims[d].sym >= 0 && out.dims[d].sym <= v.syms.count &&
                              out.dims[d].lo <= out.dims[d].hi,
                          "'%s': a result dim out of its range", line);
        int all_static = 1;
        for (int i = 0; i < v.nshapes && all_static; i++)
            all_static = !bc_pshape_is_partial(&v.shapes[i]) &&
                         bc_pshape_to_shape(&v.shapes[i], &concrete[i]);
        if (all_static) {
            bc_shape want;
            bc_error_kind sk = bc_infer(&v.params, v.nshapes, concrete, &want, NULL);
            BC_FUZZ_CHECK(sk == k, "'%s': static kind %d, partial kind %d", line, (int)sk, (int)k);
            bc_pshape w = bc_pshape_from_shape(&want);
            BC_FUZZ_CHECK(k != BC_OK || bc_pshape_equal(&w, &out),
                          "'%s': the partial result differs from the static one", line);
        }
        free(line);
        free(line2);
    }
    free(text);
    return 0;
}
