/* Shapes as values: parse, format, equality, element counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "broadcheck/shape.h"

static bc_shape parse_ok(const char *text)
{
    bc_shape s;
    char why[256] = "";
    const char *end;
    int r = bc_shape_parse(text, &end, &s, why, sizeof why);
    if (r != 0)
        fail_msg("parse of '%s' failed: %s", text, why);
    assert_int_equal(*end, '\0');
    return s;
}

static void parse_fails(const char *text, const char *why_part)
{
    bc_shape s;
    char why[256] = "";
    assert_int_equal(bc_shape_parse(text, NULL, &s, why, sizeof why), -1);
    if (!strstr(why, why_part))
        fail_msg("parse of '%s': reason '%s' lacks '%s'", text, why, why_part);
}

static void test_parse_forms(void **state)
{
    (void)state;
    bc_shape s = parse_ok("[]");
    assert_int_equal(s.rank, 0);
    s = parse_ok("[2,1,5]");
    assert_int_equal(s.rank, 3);
    assert_int_equal(s.dims[0], 2);
    assert_int_equal(s.dims[1], 1);
    assert_int_equal(s.dims[2], 5);
    s = parse_ok("  [ 7 , 0 ,3 ]");
    assert_int_equal(s.rank, 3);
    assert_int_equal(s.dims[1], 0);
    s = parse_ok("[9223372036854775807]");
    assert_true(s.dims[0] == INT64_MAX);
    s = parse_ok("[-4]"); /* parses; rules refuse it as negative-dim */
    assert_int_equal(s.dims[0], -4);
}

static void test_parse_errors_name_the_column(void **state)
{
    (void)state;
    parse_fails("2,3]", "column 1: expected '['");
    parse_fails("[2,x]", "column 4: expected a dim");
    parse_fails("[2,,3]", "column 4: expected a dim");
    parse_fails("[2 3]", "column 4: expected ',' or ']'");
    parse_fails("[2,3", "expected ',' or ']'");
    parse_fails("[9223372036854775808]", "past the int64 range");
    parse_fails("[-9223372036854775809]", "below INT64_MIN");
    parse_fails("", "expected '['");
}

static void test_rank_limit(void **state)
{
    (void)state;
    char text[1024];
    size_t n = 0;
    n += (size_t)snprintf(text + n, sizeof text - n, "[");
    for (int i = 0; i < BC_MAX_RANK; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s1", i ? "," : "");
    snprintf(text + n, sizeof text - n, "]");
    bc_shape s = parse_ok(text);
    assert_int_equal(s.rank, BC_MAX_RANK);
    text[strlen(text) - 1] = '\0';
    strcat(text, ",1]");
    parse_fails(text, "rank past the limit of 64");
}

static void test_format_round_trip(void **state)
{
    (void)state;
    const char *texts[] = {"[]", "[0]", "[2,1,5]", "[9223372036854775807,1]", "[-1,3]"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        bc_shape s = parse_ok(texts[i]);
        char buf[128];
        assert_int_equal(bc_shape_format(&s, buf, sizeof buf), (int)strlen(texts[i]));
        assert_string_equal(buf, texts[i]);
    }
    /* A short buffer is truncated but the needed length is still returned. */
    bc_shape s = parse_ok("[123,456]");
    char small[4];
    assert_int_equal(bc_shape_format(&s, small, sizeof small), 9);
    assert_string_equal(small, "[12");
}

static void test_numel(void **state)
{
    (void)state;
    int64_t n = -1;
    bc_shape s = parse_ok("[]");
    assert_int_equal(bc_shape_numel(&s, &n), BC_OK);
    assert_int_equal(n, 1);
    s = parse_ok("[2,3,4]");
    assert_int_equal(bc_shape_numel(&s, &n), BC_OK);
    assert_int_equal(n, 24);
    s = parse_ok("[9223372036854775807,9223372036854775807,0]");
    assert_int_equal(bc_shape_numel(&s, &n), BC_OK); /* a 0 makes it empty */
    assert_int_equal(n, 0);
    s = parse_ok("[4294967296,4294967296]");
    assert_int_equal(bc_shape_numel(&s, &n), BC_ERR_OVERFLOW);
    s = parse_ok("[3037000499,3037000499]"); /* just below 2^63 */
    assert_int_equal(bc_shape_numel(&s, &n), BC_OK);
    assert_true(n == (int64_t)3037000499 * 3037000499);
    s = parse_ok("[2,-1]");
    assert_int_equal(bc_shape_numel(&s, &n), BC_ERR_NEGATIVE_DIM);
}

static void test_names_round_trip(void **state)
{
    (void)state;
    for (int r = 0; r < BC_RULE_COUNT; r++) {
        bc_rule back;
        assert_int_equal(bc_rule_from_name(bc_rule_name((bc_rule)r), &back), 0);
        assert_int_equal(back, r);
    }
    for (int p = 0; p < BC_PROFILE_COUNT; p++) {
        bc_profile back;
        assert_int_equal(bc_profile_from_name(bc_profile_name((bc_profile)p), &back), 0);
        assert_int_equal(back, p);
    }
    for (int k = 1; k < BC_ERR_KIND_COUNT; k++) {
        bc_error_kind back;
        assert_int_equal(bc_error_kind_from_name(bc_error_kind_name((bc_error_kind)k), &back), 0);
        assert_int_equal(back, k);
    }
    bc_rule r;
    bc_error_kind k;
    assert_int_equal(bc_rule_from_name("NumPy", &r), -1);
    assert_int_equal(bc_error_kind_from_name("ok", &k), -1);
    assert_true(bc_error_kind_is_invalid_input(BC_ERR_NEGATIVE_DIM));
    assert_false(bc_error_kind_is_invalid_input(BC_ERR_DIM_MISMATCH));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_forms),
        cmocka_unit_test(test_parse_errors_name_the_column),
        cmocka_unit_test(test_rank_limit),
        cmocka_unit_test(test_format_round_trip),
        cmocka_unit_test(test_numel),
        cmocka_unit_test(test_names_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
