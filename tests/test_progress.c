/*
 * The progress line (report/progress.c): what it says, in each mode, on a
 * fake run's reports; and which mode the environment picks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pty.h>

#include <cmocka.h>

#include "broadcheck/progress.h"

static void assert_has(const char *text, const char *part)
{
    if (!strstr(text, part))
        fail_msg("'%s' lacks '%s'", text, part);
}

static void test_format_under_cases(void **state)
{
    (void)state;
    char line[256];
    bc_run_progress p = {
        .cells = 38, .cells_done = 12, .cases = 300000, .planned = 1200000, .failures = 0};
    bc_progress_format(&p, 2.0, 1, line, sizeof line);
    /* 150000 cases/s, 900000 left: 6 s */
    assert_string_equal(line, "12/38 cells, 300000/1200000 cases, 0 failing, 150000 cases/s, "
                              "2.0 s elapsed, ETA 6.0 s");
    p.failures = 7;
    bc_progress_format(&p, 2.0, 1, line, sizeof line);
    assert_has(line, "\033[31m7 failing\033[0m");
    bc_progress_format(&p, 2.0, 0, line, sizeof line);
    assert_has(line, ", 7 failing, ");
    assert_null(strchr(line, '\033'));
    /* long runs read in minutes and hours */
    p.cases = 1000;
    bc_progress_format(&p, 125.0, 0, line, sizeof line);
    assert_has(line, "2 min 05 s elapsed, ETA 41 h 37 min"); /* 1199000 at 8/s */
    /* no case yet: no rate, no ETA */
    p.cases = 0;
    bc_progress_format(&p, 0.0, 0, line, sizeof line);
    assert_has(line, "- cases/s, 0.0 s elapsed, ETA ?");
}

static void test_format_under_time_and_shrinking(void **state)
{
    (void)state;
    char line[256];
    bc_run_progress p = {.cells = 4, .cells_done = 1, .cases = 5000, .seconds = 30};
    bc_progress_format(&p, 10.0, 0, line, sizeof line);
    assert_string_equal(line, "1/4 cells, 5000 cases, 0 failing, 500 cases/s, 10 s elapsed, "
                              "ETA 20 s");
    bc_progress_format(&p, 31.0, 0, line, sizeof line);
    assert_has(line, "ETA 0.0 s");
    p.shrinking = 2;
    p.to_shrink = 3;
    bc_progress_format(&p, 31.0, 0, line, sizeof line);
    assert_has(line, "31 s elapsed, shrinking failing cell 2 of 3");
    /* a small buffer: cut, and the size needed returned */
    char tiny[8];
    int need = bc_progress_format(&p, 31.0, 0, tiny, sizeof tiny);
    assert_int_equal(need, (int)strlen(line));
    assert_int_equal(strlen(tiny), sizeof tiny - 1);
}

/* Reads what f got from its start. */
static char *contents(FILE *f)
{
    fflush(f);
    long n = ftell(f);
    char *text = calloc(1, (size_t)n + 1);
    assert_non_null(text);
    rewind(f);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    return text;
}

static void test_plain_lines(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    bc_progress_options o = bc_progress_options_for(f, 0, "broadcheck run");
    assert_int_equal(o.live, 0); /* a file, not a terminal */
    assert_int_equal(o.color, 0);
    bc_progress *p = bc_progress_start(&o);
    assert_non_null(p);
    bc_run_progress r = {.cells = 2, .cases = 10, .planned = 20};
    bc_progress_report(p, &r);
    r.cases = 20;
    r.cells_done = 2;
    r.failures = 3;
    bc_progress_report(p, &r);
    bc_progress_stop(p);
    char *text = contents(f);
    /* one line per report (interval 0), plain, no color even with failures */
    if (strncmp(text, "broadcheck run: 0/2 cells, 10/20 cases, 0 failing, ", 51) != 0 ||
        !strstr(text, "\nbroadcheck run: 2/2 cells, 20/20 cases, 3 failing, ") ||
        strchr(text, '\r') || strchr(text, '\033'))
        fail_msg("plain lines:\n%s", text);
    assert_int_equal(text[strlen(text) - 1], '\n');
    free(text);
    fclose(f);
    /* the default interval off a terminal */
    f = tmpfile();
    o = bc_progress_options_for(f, -1, "x");
    assert_true(o.interval == BC_PROGRESS_PLAIN_INTERVAL);
    fclose(f);
    bc_progress_report(NULL, &r); /* ignored */
    bc_progress_stop(NULL);
}

static void test_live_line(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    bc_progress_options o = {f, 1, 1, 40, 0, "bc"};
    bc_progress *p = bc_progress_start(&o);
    assert_non_null(p);
    bc_run_progress r = {.cells = 2, .cases = 10, .planned = 20, .failures = 1};
    bc_progress_report(p, &r);
    r.cells = 1; /* a shorter line next: spaces over the rest of the longer one */
    r.failures = 0;
    bc_progress_report(p, &r);
    bc_progress_stop(p);
    char *text = contents(f);
    /* each draw returns to the line's start and is cut to 39 columns (the
     * escape sequences take none) */
    const char *first = "\rbc: 0/2 cells, 10/20 cases, \033[31m1 failing\033[0m, \033[0m\r";
    if (strncmp(text, first, strlen(first)) != 0)
        fail_msg("first draw:\n%s", text);
    const char *second = "\rbc: 0/1 cells, 10/20 cases, 0 failing, 5";
    char *at = strstr(text + 1, "\rbc: 0/1");
    if (!at || strncmp(at, second, strlen(second) - 2) != 0 || strchr(text, '\n'))
        fail_msg("second draw:\n%s", text);
    /* cleared at the end */
    assert_string_equal(text + strlen(text) - 41, "\r                                       \r");
    free(text);
    fclose(f);
}

static void test_options_on_a_terminal(void **state)
{
    (void)state;
    int master, slave;
    struct winsize ws = {.ws_row = 24, .ws_col = 77};
    assert_int_equal(openpty(&master, &slave, NULL, NULL, &ws), 0);
    FILE *tty = fdopen(slave, "w");
    assert_non_null(tty);
    unsetenv("NO_COLOR");
    setenv("TERM", "xterm", 1);
    bc_progress_options o = bc_progress_options_for(tty, -1, "x");
    assert_int_equal(o.live, 1);
    assert_int_equal(o.color, 1);
    assert_int_equal(o.columns, 77);
    assert_true(o.interval == BC_PROGRESS_LIVE_INTERVAL);
    setenv("NO_COLOR", "1", 1); /* https://no-color.org: any non-empty value */
    o = bc_progress_options_for(tty, 2, "x");
    assert_int_equal(o.live, 1);
    assert_int_equal(o.color, 0);
    assert_true(o.interval == 2);
    setenv("NO_COLOR", "", 1);
    assert_int_equal(bc_progress_options_for(tty, 2, "x").color, 1);
    setenv("TERM", "dumb", 1);
    assert_int_equal(bc_progress_options_for(tty, 2, "x").color, 0);
    unsetenv("NO_COLOR");
    fclose(tty);
    close(master);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_under_cases),
        cmocka_unit_test(test_format_under_time_and_shrinking),
        cmocka_unit_test(test_plain_lines),
        cmocka_unit_test(test_live_line),
        cmocka_unit_test(test_options_on_a_terminal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
