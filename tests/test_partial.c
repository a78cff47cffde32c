/*
 * Partial shapes (spec/RULES.md §14): their text (parse, canonical form,
 * errors that name the column), partial vector lines, and the fields of the
 * partial reference's errors.  What the rules answer is in
 * spec/vectors/partial*.vec.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "broadcheck/vector.h"

/* text parses, and formats back as canonical. */
static void round_trip(const char *text, const char *canonical)
{
    bc_pshape s;
    bc_psymbols syms = {0};
    char why[256] = "", buf[512];
    const char *end;
    if (bc_pshape_parse(text, &end, &s, &syms, why, sizeof why) != 0)
        fail_msg("'%s' does not parse: %s", text, why);
    assert_int_equal(*end, '\0');
    bc_pshape_format(&s, &syms, buf, sizeof buf);
    if (strcmp(buf, canonical) != 0)
        fail_msg("'%s' formats as '%s', expected '%s'", text, buf, canonical);
}

static void parse_fails(const char *text, const char *why_part)
{
    bc_pshape s;
    bc_psymbols syms = {0};
    char why[256] = "";
    assert_int_equal(bc_pshape_parse(text, NULL, &s, &syms, why, sizeof why), -1);
    if (!strstr(why, why_part))
        fail_msg("parse of '%s': reason '%s' lacks '%s'", text, why, why_part);
}

static void test_text(void **state)
{
    (void)state;
    round_trip("[]", "[]");
    round_trip("[...]", "[...]");
    round_trip("[ ... ]", "[...]");
    round_trip("[?,3,2..5,2..,..5,0..]", "[?,3,2..5,2..,0..5,?]");
    round_trip("[4..4]", "[4]");
    round_trip("[N,N:2..5,M:3,K:..]", "[N,N:2..5,M:3,K]");
    round_trip("[batch_size, _x1]", "[batch_size,_x1]");
    round_trip("[9223372036854775807..]", "[9223372036854775807]");
    round_trip("[-3..2]", "[-3..2]"); /* parses; the rules refuse it as negative-dim */
    bc_pshape s;
    bc_psymbols syms = {0};
    char why[256];
    assert_int_equal(bc_pshape_parse("[N,M,N]", NULL, &s, &syms, why, sizeof why), 0);
    assert_int_equal(syms.count, 2);
    assert_int_equal(s.dims[0].sym, s.dims[2].sym);
    assert_true(s.dims[0].sym != s.dims[1].sym);
    assert_true(bc_pshape_is_partial(&s));
    assert_int_equal(bc_pshape_parse("[2,3]", NULL, &s, &syms, why, sizeof why), 0);
    assert_false(bc_pshape_is_partial(&s));
    assert_true(bc_pshape_text_is_partial("[2,?]"));
    assert_true(bc_pshape_text_is_partial("[N]"));
    assert_true(bc_pshape_text_is_partial("[...]"));
    assert_false(bc_pshape_text_is_partial("[2,-1]"));
}

static void test_parse_errors_name_the_column(void **state)
{
    (void)state;
    parse_fails("[5..2]", "column 5: the interval at axis 0 is empty (5 > 2)");
    parse_fails("[2,N:]", "column 6: expected a dim at axis 1");
    parse_fails("[N:M]", "column 4: expected the bounds of symbol N");
    parse_fails("[1..2..3]", "column 6: unexpected '.' in the interval at axis 0");
    parse_fails("[?x]", "column 3: expected ',' or ']' after the dim at axis 0");
    parse_fails("[...,2]", "column 5: expected ']' after '...'");
    parse_fails("[ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456]", "longer than 31 characters");
    parse_fails("[1..99999999999999999999]", "upper bound at axis 0 is past the int64 range");
    parse_fails("?]", "column 1: expected '['");
    /* the 65th symbol of one case (shapes of a case share their symbols) */
    char text[2048] = "[";
    for (int i = 0; i < 64; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%sS%d", i ? "," : "", i);
    strcat(text, "]");
    bc_pshape s;
    bc_psymbols syms = {0};
    char why[256] = "";
    assert_int_equal(bc_pshape_parse(text, NULL, &s, &syms, why, sizeof why), 0);
    assert_int_equal(bc_pshape_parse("[S3,S64]", NULL, &s, &syms, why, sizeof why), -1);
    assert_non_null(strstr(why, "column 5: more than 64 symbols in one case"));
}

static void test_vector_lines(void **state)
{
    (void)state;
    bc_pvector *v = malloc(sizeof *v);
    char why[512], buf[1024];
    assert_non_null(v);
    /* columns are the line's, whichever parser finds the error */
    assert_int_equal(bc_pvector_parse("numpy [?] [N:5..2] -> [?]", v, why, sizeof why), -1);
    assert_non_null(strstr(why, "column 11: shape 2: column 7: the interval at axis 0 is empty"));
    assert_int_equal(bc_pvector_parse("numpy axis=1 [?] -> [?]", v, why, sizeof why), 1);
    assert_int_equal(bc_pvector_parse("numpy [?] [N] -> [N", v, why, sizeof why), -1);
    assert_non_null(strstr(why, "column 18: expected result:"));
    assert_int_equal(bc_pvector_parse("numpy [?] [3] -> [?] junk", v, why, sizeof why), -1);
    assert_non_null(strstr(why, "column 22: unexpected 'junk'"));
    assert_int_equal(bc_pvector_parse("numpy op=add [?] -> [?]", v, why, sizeof why), -1);
    assert_non_null(strstr(why, "column 14: a value case (op=) takes static shapes only"));
    assert_int_equal(bc_pvector_parse("numpi [?] -> [?]", v, why, sizeof why), -1);
    assert_non_null(strstr(why, "column 1: unknown rule 'numpi'"));
    /* canonical form, and a round trip that keeps symbols by name */
    assert_int_equal(bc_pvector_parse("pdpd  profile=paddle axis=0 [M,..4] [N] -> [M:1..4,N]"
                                      "  # comment",
                                      v, why, sizeof why),
                     1);
    bc_pvector_format(v, buf, sizeof buf);
    assert_string_equal(buf, "pdpd profile=paddle axis=0 [M,0..4] [N] -> [M:1..4,N]");
    /* the length it needs, and what fits, as snprintf (a case's seed hashes this text) */
    assert_int_equal(bc_pvector_format(v, NULL, 0), (int)strlen(buf));
    char cut[12];
    assert_int_equal(bc_pvector_format(v, cut, sizeof cut), (int)strlen(buf));
    assert_string_equal(cut, "pdpd profil");
    assert_true(bc_vector_line_is_partial("numpy [2] -> [?]"));
    assert_false(bc_vector_line_is_partial("numpy [2] [3] -> error # [?] in a comment"));
    free(v);
}

/* An axes-mapping of unknown values (RULES.md §14.9): written ?,? or ...,
 * a partial line whatever its shapes, round trip, and no mixing. */
static void test_unknown_mapping_lines(void **state)
{
    (void)state;
    bc_pvector *v = malloc(sizeof *v);
    char why[512], buf[1024];
    assert_non_null(v);
    assert_true(bc_vector_line_is_partial("explicit axes-mapping=?,? [2,3] [2,4,3] -> [2,4,3]"));
    assert_true(bc_vector_line_is_partial("explicit axes-mapping=... [2] [2] -> [2]"));
    assert_false(bc_vector_line_is_partial("explicit axes-mapping=0,1 [2,3] [2,3] -> [2,3]"));
    assert_int_equal(bc_pvector_parse("explicit axes-mapping=?,? [2,3] [2,4,3] -> [2,4,3]", v, why,
                                      sizeof why),
                     1);
    assert_true(v->params.options & BC_OPT_AXES_UNKNOWN);
    assert_int_equal(v->params.naxes, 2);
    bc_pvector_format(v, buf, sizeof buf);
    assert_string_equal(buf, "explicit axes-mapping=?,? [2,3] [2,4,3] -> [2,4,3]");
    assert_int_equal(bc_pvector_parse("explicit profile=openvino-explicit axes-mapping=... [] "
                                      "[2,3] -> error",
                                      v, why, sizeof why),
                     1);
    assert_int_equal(v->params.naxes, -1);
    bc_pvector_format(v, buf, sizeof buf);
    assert_string_equal(buf,
                        "explicit profile=openvino-explicit axes-mapping=... [] [2,3] -> error");
    bc_error_kind got;
    bc_pshape shape;
    bc_error err;
    assert_false(bc_pvector_check(v, &got, &shape, &err));
    assert_int_equal(got, BC_OK); /* a mapping of no entry fits: the line's "error" is wrong */
    v->expect = BC_EXPECT_SHAPE;
    v->expect_shape = v->shapes[1];
    assert_true(bc_pvector_check(v, &got, &shape, &err));
    assert_int_equal(bc_pvector_parse("explicit axes-mapping=?,1 [2,3] [2,3] -> [2,3]", v, why,
                                      sizeof why),
                     -1);
    assert_non_null(strstr(why, "column 10: axes-mapping: entry 1 is '1' but others are '?'"));
    assert_int_equal(bc_pvector_parse("explicit axes=?,? [2] [2,3] -> [2,3]", v, why, sizeof why),
                     -1);
    assert_int_equal(bc_pvector_parse("explicit axes=1 axes-mapping=? [2] [2,3] -> error", v, why,
                                      sizeof why),
                     -1);
    assert_non_null(strstr(why, "column 17: an axes-mapping of unknown values takes no axes"));
    /* the static rule takes no unknown entry: invalid input, not a rejection */
    bc_params p = bc_params_for(BC_RULE_EXPLICIT);
    p.options |= BC_OPT_AXES_MAPPING | BC_OPT_AXES_UNKNOWN;
    p.naxes = 1;
    bc_shape in = {.rank = 1, .dims = {2}}, tg = {.rank = 1, .dims = {2}}, pair[2] = {in, tg}, out;
    assert_int_equal(bc_infer(&p, 2, pair, &out, &err), BC_ERR_BAD_PARAMS);
    free(v);
}

static void test_errors(void **state)
{
    (void)state;
    bc_psymbols syms = {0};
    bc_pshape s[3], out;
    bc_error err;
    char why[256];
    bc_params numpy = bc_params_for(BC_RULE_NUMPY);
    assert_int_equal(bc_pshape_parse("[N,2..3]", NULL, &s[0], &syms, why, sizeof why), 0);
    assert_int_equal(bc_pshape_parse("[5]", NULL, &s[1], &syms, why, sizeof why), 0);
    assert_int_equal(bc_pinfer(&numpy, 2, s, &syms, &out, &err), BC_ERR_DIM_MISMATCH);
    assert_int_equal(err.operand, 1);
    assert_int_equal(err.other, 0);
    assert_int_equal(err.axis, 1);
    assert_non_null(strstr(err.message, "operand 1 has 5 and operand 0 has 2..3"));
    /* a symbol's bounds that do not meet: invalid input, naming where */
    assert_int_equal(bc_pshape_parse("[N:7]", NULL, &s[1], &syms, why, sizeof why), 0);
    assert_int_equal(bc_pshape_parse("[N:..3,1]", NULL, &s[2], &syms, why, sizeof why), 0);
    assert_int_equal(bc_pinfer(&numpy, 3, s, &syms, &out, &err), BC_ERR_BAD_PARAMS);
    assert_non_null(strstr(err.message, "operand 2 axis 0: N:0..3 contradicts N:7"));
    assert_true(bc_error_kind_is_invalid_input(err.kind));
    /* parameters and counts are the static rule's */
    assert_int_equal(bc_pinfer(&numpy, 0, s, &syms, &out, &err), BC_ERR_OPERAND_COUNT);
    bc_params bad = bc_params_for(BC_RULE_NUMPY);
    bad.options |= BC_OPT_AXIS;
    assert_int_equal(bc_pinfer(&bad, 1, s, &syms, &out, &err), BC_ERR_BAD_PARAMS);
    assert_non_null(strstr(err.message, "numpy takes no axis option"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_parse_errors_name_the_column),
        cmocka_unit_test(test_vector_lines),
        cmocka_unit_test(test_unknown_mapping_lines),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
