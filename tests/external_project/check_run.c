/*
 * Proves the installed property engine links from outside with everything
 * it needs (threads, jansson, libxml2): a short run of the built-in
 * reference, its JSON and JUnit reports written to the paths given.
 */
#include <stdio.h>

#include <broadcheck/properties.h>
#include <broadcheck/report.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: check_run REPORT.json REPORT.xml\n");
        return 2;
    }
    bc_run_config cfg = bc_run_config_default();
    cfg.sut = bc_builtin_sut("reference");
    cfg.rules = 1u << BC_RULE_NUMPY;
    cfg.cases = 200;
    cfg.jobs = 2;
    char why[512];
    bc_run_result *r = cfg.sut ? bc_run(&cfg, why, sizeof why) : NULL;
    if (!r) {
        fprintf(stderr, "check_run: bc_run failed: %s\n", cfg.sut ? why : "no reference SUT");
        return 2;
    }
    int status = bc_run_exit_code(r);
    if (bc_report_json(r, argv[1], why, sizeof why) != 0 ||
        bc_report_junit(r, argv[2], why, sizeof why) != 0) {
        fprintf(stderr, "check_run: %s\n", why);
        status = 2;
    }
    bc_run_result_free(r);
    return status;
}
