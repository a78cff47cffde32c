/* Private to the broadcheck executable: one entry point per subcommand. */
#ifndef BROADCHECK_CLI_H
#define BROADCHECK_CLI_H

/* Exit codes, the same for every subcommand (README.md, "Exit codes"). */
enum {
    BC_EXIT_OK = 0,       /* passed / broadcastable */
    BC_EXIT_FAIL = 1,     /* not broadcastable / a check failed */
    BC_EXIT_USAGE = 2     /* bad usage, malformed or invalid input, unreadable file */
};

int bc_cmd_shape(int argc, char **argv);
int bc_cmd_vectors(int argc, char **argv);
int bc_cmd_run(int argc, char **argv);
int bc_cmd_replay(int argc, char **argv);
int bc_cmd_list(int argc, char **argv);
int bc_cmd_bench(int argc, char **argv);
int bc_cmd_mutants(int argc, char **argv);
int bc_cmd_merge(int argc, char **argv);

#endif
