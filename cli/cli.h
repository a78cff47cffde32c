/* Private to the broadcheck executable: one entry point per subcommand. */
#ifndef BROADCHECK_CLI_H
#define BROADCHECK_CLI_H

#include <stddef.h>
#include <stdio.h>

/* Exit codes, the same for every subcommand (README.md, "Exit codes"). */
enum {
    BC_EXIT_OK = 0,       /* passed / broadcastable */
    BC_EXIT_FAIL = 1,     /* not broadcastable / a check failed */
    BC_EXIT_USAGE = 2,    /* bad usage, malformed or invalid input, unreadable file */
    BC_EXIT_NOT_CERTIFIED = 3 /* run, merge: no new failure, but too little was checked */
};

/* --jobs takes 1 to BC_MAX_JOBS; its default is bc_cli_default_jobs(). */
#define BC_MAX_JOBS 256

int bc_cmd_shape(int argc, char **argv);
int bc_cmd_vectors(int argc, char **argv);
int bc_cmd_run(int argc, char **argv);
int bc_cmd_replay(int argc, char **argv);
int bc_cmd_list(int argc, char **argv);
int bc_cmd_bench(int argc, char **argv);
int bc_cmd_mutants(int argc, char **argv);
int bc_cmd_merge(int argc, char **argv);
int bc_cmd_summarize(int argc, char **argv);

/* cli_util.c.  Writes text to path through a temporary file renamed into
 * place (whole or not at all); 0, or -1 with why. */
int bc_cli_write_whole(const char *path, const char *text, size_t len, char *why, size_t cap);
/* The cores this process may use, 1 to BC_MAX_JOBS. */
int bc_cli_default_jobs(void);
/* The summary's last line: "reports: PATH..." of the reports written. */
void bc_cli_print_reports(FILE *out, const char *const *paths, int count);

#endif
