/*
 * Test helper: runs the broadcheck executable (BC_CLI_PATH) as a user runs
 * it and captures its exit status, stdout and stderr, for the tests of the
 * command line that need more than test_cli.c's fixed buffers (merge, bad
 * input).  Also a scratch folder per test.
 */
#ifndef BROADCHECK_TESTS_CLI_SPAWN_H
#define BROADCHECK_TESTS_CLI_SPAWN_H

#include <stddef.h>

typedef struct bc_spawned {
    int status; /* exit code; 128 + N when killed by signal N */
    long maxrss_kb; /* its peak resident memory (and its reaped children's) */
    char *out;  /* all of stdout, NUL-terminated (free with bc_spawned_free) */
    char *err;  /* all of stderr */
} bc_spawned;

/* Runs broadcheck with the NULL-terminated args.  Returns 0, or -1 if it
 * could not be started (the test should fail then). */
int bc_spawn(const char *const *args, bc_spawned *r);

/* What bc_spawn_with changes about the child. */
typedef struct bc_spawn_opts {
    long long fsize_limit;   /* > 0: RLIMIT_FSIZE in bytes, SIGXFSZ at its default */
    const char *stdin_text;  /* the child's stdin (NULL: the test's) */
    const char *const *env;  /* NAME=VALUE entries set in the child, NULL-terminated */
    int deadline_s;          /* > 0: a safety net: SIGKILL after this many seconds, so a
                                hang fails the test (status 137) instead of blocking it */
} bc_spawn_opts;

int bc_spawn_with(const char *const *args, const bc_spawn_opts *opts, bc_spawned *r);
/* Runs a command line broadcheck printed ("broadcheck replay --sut ... 'CASE'"),
 * exactly as a user pastes it into a shell, with this build's executable for
 * "broadcheck".  Returns 0, or -1 if it is not such a line or could not run. */
int bc_spawn_printed(const char *line, bc_spawned *r);
/* Starts broadcheck with args, its output to /dev/null; returns the pid. */
int bc_spawn_background(const char *const *args);
/* Waits for a pid of bc_spawn_background; returns its exit code as above. */
int bc_spawn_wait(int pid);
void bc_spawned_free(bc_spawned *r);

/* A new empty folder under /tmp whose name starts with prefix; its path is
 * written to dir[cap].  Returns 0 or -1. */
int bc_scratch_dir(const char *prefix, char *dir, size_t cap);
/* Removes the folder and the plain files in it. */
void bc_scratch_remove(const char *dir);
/* "dir/name", in one of 8 rotating buffers (valid for the next 7 calls). */
const char *bc_scratch_path(const char *dir, const char *name);
/* Writes text to dir/name (its full path into path[cap]); returns 0 or -1. */
int bc_scratch_file(const char *dir, const char *name, const char *text, size_t len, char *path,
                    size_t cap);
/* The number of entries of dir whose name contains part (e.g. ".tmp."). */
int bc_scratch_count(const char *dir, const char *part);

#endif
