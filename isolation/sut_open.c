/*
 * bc_sut_open: what --sut names becomes a bc_sut.  Built-in names stay in
 * process; an adapter library is served by broadcheck-worker and exec:
 * runs a command, both out of process through isolated.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wordexp.h>

#include "broadcheck/paths.h"
#include "isolated.h"

bc_sut_options bc_sut_options_default(void)
{
    bc_sut_options o = {BC_SUT_DEFAULT_TIMEOUT_MS, BC_SUT_DEFAULT_MEMORY_MB, NULL,
                        BC_SUT_DEFAULT_START_TIMEOUT_MS, 0};
    return o;
}

int64_t bc_sut_question_limit(const bc_sut *sut)
{
    const bc_adapter_capabilities *caps = bc_isolated_caps(sut);
    return !caps || (caps->features & BC_WIRE_FEATURE_SHM) ? 0 : (int64_t)BC_WIRE_MAX_PAYLOAD;
}

static int is_exec(const char *spec)
{
    return strncmp(spec, "exec:", 5) == 0;
}

static int is_library(const char *spec)
{
    size_t n = strlen(spec);
    return strchr(spec, '/') || (n > 3 && strcmp(spec + n - 3, ".so") == 0);
}

int bc_sut_spec_is_external(const char *spec)
{
    return is_exec(spec) || is_library(spec);
}

/* name: what the reports and replay lines call it (spec, or a shipped
 * adapter's name). */
static const bc_sut *open_library(const char *name, const char *spec, const bc_sut_options *o,
                                  char *why, size_t cap)
{
    char path[PATH_MAX], worker[PATH_MAX], mb[32], where[1536];
    if (!realpath(spec, path)) {
        snprintf(why, cap, "cannot load adapter %s: %s", spec, strerror(errno));
        return NULL;
    }
    /* broadcheck-worker: the option, else as paths.h finds it */
    if (o->worker_path && o->worker_path[0]) {
        snprintf(worker, sizeof worker, "%s", o->worker_path);
    } else if (bc_path_find(BC_PATH_WORKER, NULL, worker, sizeof worker, where,
                            sizeof where) != 0) {
        snprintf(why, cap, "cannot load adapter %.300s: %.600s (set BROADCHECK_WORKER)", spec, where);
        return NULL;
    }
    if (access(worker, X_OK) != 0) {
        snprintf(why, cap, "cannot load adapter %.300s: its worker program %.400s: %s (set "
                           "BROADCHECK_WORKER)", spec, worker, strerror(errno));
        return NULL;
    }
    snprintf(mb, sizeof mb, "%d", o->memory_mb);
    char *argv[] = {worker, "--memory-mb", mb, path, NULL};
    bc_proc_launch launch = {.argv = argv, .memory_mb = o->memory_mb, .cancel_fd = -1};
    return bc_isolated_open(name, &launch, o, why, cap);
}

/* NAME=VALUE with broadcheck's folder of kind appended to VALUE (colon
 * separated), for the environment of an exec: worker; NULL when there is
 * no such folder or no memory. */
static char *helper_path_var(const char *name, bc_path_kind kind)
{
    char dir[PATH_MAX], why[1536];
    if (bc_path_find(kind, NULL, dir, sizeof dir, why, sizeof why) != 0)
        return NULL;
    const char *old = getenv(name);
    size_t len = strlen(name) + (old ? strlen(old) : 0) + strlen(dir) + 3;
    char *var = malloc(len);
    if (var)
        snprintf(var, len, "%s=%s%s%s", name, old && old[0] ? old : "", old && old[0] ? ":" : "",
                 dir);
    return var;
}

/* The environment of exec: workers: the harness's, with broadcheck's wire
 * helpers appended to PYTHONPATH (bcwire.py) and NODE_PATH (bcwire.js), so
 * that a worker anywhere does 'import bcwire' or require('bcwire') and gets
 * the installed copy (sut_adapters/README.md).  NULL entries are skipped;
 * the array and its two new strings are the caller's to free. */
static char **worker_environment(char **added)
{
    extern char **environ;
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 3, sizeof *env);
    if (!env)
        return NULL;
    added[0] = helper_path_var("PYTHONPATH", BC_PATH_PYTHON);
    added[1] = helper_path_var("NODE_PATH", BC_PATH_JS);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!((added[0] && strncmp(environ[i], "PYTHONPATH=", 11) == 0) ||
              (added[1] && strncmp(environ[i], "NODE_PATH=", 10) == 0)))
            env[k++] = environ[i];
    for (int a = 0; a < 2; a++)
        if (added[a])
            env[k++] = added[a];
    return env;
}

/* path[cap] gets the program `word` runs: itself if it holds a '/', else
 * the first executable of that name on $PATH.  0, or -1 if none. */
static int find_program(const char *word, char *path, size_t cap)
{
    if (strchr(word, '/'))
        return snprintf(path, cap, "%s", word) < (int)cap && access(path, X_OK) == 0 ? 0 : -1;
    const char *dirs = getenv("PATH");
    if (!dirs)
        dirs = "/usr/local/bin:/usr/bin:/bin";
    for (const char *d = dirs; *d;) {
        size_t len = strcspn(d, ":");
        if (snprintf(path, cap, "%.*s%s%s", (int)len, d, len ? "/" : "", word) < (int)cap &&
            access(path, X_OK) == 0)
            return 0;
        d += len + (d[len] == ':');
    }
    return -1;
}

/* A command is run by `sh -c`, whose children a parent-death signal does
 * not reach: a harness killed by SIGKILL would leave a busy worker
 * running.  So a simple command (words only: no operator, redirection,
 * assignment or command substitution; wordexp(3) refuses the rest) is
 * split and expanded as the shell would and executed directly. */
static const bc_sut *open_exec(const char *name, const char *spec, const bc_sut_options *o,
                               char *why, size_t cap)
{
    const char *command = spec + 5;
    if (!command[0]) {
        snprintf(why, cap, "exec: needs a command, e.g. 'exec:python3 worker.py'");
        return NULL;
    }
    char *added[2] = {NULL, NULL};
    char **env = worker_environment(added);
    if (!env) {
        snprintf(why, cap, "exec: out of memory");
        return NULL;
    }
    wordexp_t words;
    char program[PATH_MAX];
    const bc_sut *sut = NULL;
    int direct = 0;
    if (wordexp(command, &words, WRDE_NOCMD) == 0) {
        if (words.we_wordc > 0 && !strchr(words.we_wordv[0], '=') &&
            find_program(words.we_wordv[0], program, sizeof program) == 0) {
            char *word0 = words.we_wordv[0];
            words.we_wordv[0] = program;
            bc_proc_launch launch = {.argv = words.we_wordv, .env = env,
                                     .memory_mb = o->memory_mb, .limit_after_hello = 1,
                                     .cancel_fd = -1};
            sut = bc_isolated_open(name, &launch, o, why, cap);
            words.we_wordv[0] = word0;
            direct = 1;
        }
        wordfree(&words);
    }
    if (!direct) {
        char *argv[] = {"/bin/sh", "-c", (char *)command, NULL};
        bc_proc_launch launch = {.argv = argv, .env = env, .memory_mb = o->memory_mb,
                                 .limit_after_hello = 1, .cancel_fd = -1};
        sut = bc_isolated_open(name, &launch, o, why, cap);
    }
    free(added[0]);
    free(added[1]);
    free(env);
    return sut;
}

const bc_sut *bc_sut_open(const char *spec, const bc_sut_options *opts, char *why, size_t cap)
{
    bc_sut_options o = opts ? *opts : bc_sut_options_default();
    if (o.timeout_ms <= 0)
        o.timeout_ms = BC_SUT_DEFAULT_TIMEOUT_MS;
    if (o.memory_mb <= 0)
        o.memory_mb = BC_SUT_DEFAULT_MEMORY_MB;
    if (o.start_timeout_ms <= 0)
        o.start_timeout_ms = BC_SUT_DEFAULT_START_TIMEOUT_MS;
    const bc_sut *sut = NULL;
    char reason[1024], named_spec[4200];
    int named = is_exec(spec) || is_library(spec) || bc_builtin_sut(spec)
                    ? 1
                    : bc_named_sut_resolve(spec, named_spec, sizeof named_spec, NULL, 0, reason,
                                           sizeof reason);
    if (named == 0)
        sut = is_exec(named_spec) ? open_exec(spec, named_spec, &o, reason, sizeof reason)
                                  : open_library(spec, named_spec, &o, reason, sizeof reason);
    else if (named < 0)
        ; /* a shipped adapter whose files are missing: reason says where it looked */
    else if (is_exec(spec))
        sut = open_exec(spec, spec, &o, reason, sizeof reason);
    else if (is_library(spec))
        sut = open_library(spec, spec, &o, reason, sizeof reason);
    else if ((sut = bc_builtin_sut(spec)) == NULL) {
        int count;
        const bc_sut *const *all = bc_builtin_suts(&count);
        size_t at = (size_t)snprintf(reason, sizeof reason, "unknown SUT '%s'; the built-in ones are:",
                                     spec);
        for (int i = 0; i < count && at < sizeof reason; i++)
            at += (size_t)snprintf(reason + at, sizeof reason - at, " %s", all[i]->name);
        if (at < sizeof reason)
            at += (size_t)snprintf(reason + at, sizeof reason - at, "; the shipped adapters:");
        for (int i = 0; i < bc_named_sut_count() && at < sizeof reason; i++)
            at += (size_t)snprintf(reason + at, sizeof reason - at, " %s", bc_named_sut_name(i));
        if (at < sizeof reason)
            snprintf(reason + at, sizeof reason - at,
                     " (an adapter is a path: ./libx.so; a worker: exec:COMMAND)");
    }
    if (!sut)
        snprintf(why, cap, "%s", reason);
    return sut;
}

void bc_sut_close(const bc_sut *sut)
{
    bc_isolated_close(sut);
}

void bc_sut_interrupt(const bc_sut *sut)
{
    bc_isolated_interrupt(sut);
}

void bc_sut_set_deadline(const bc_sut *sut, double monotonic_seconds)
{
    bc_isolated_set_deadline(sut, monotonic_seconds);
}

bc_sut_value_caps bc_sut_value_caps_of(const bc_sut *sut)
{
    const bc_adapter_capabilities *c = bc_isolated_caps(sut);
    bc_sut_value_caps v = {(1u << BC_VALUE_OP_COUNT) - 1, (1u << BC_OP_COUNT) - 1,
                           (1u << BC_DTYPE_COUNT) - 1, BC_MAX_RANK, BC_MAX_OPERANDS,
                           (1u << BC_PROFILE_COUNT) - 1};
    if (!c)
        return v;
    /* adapter.h's enums have the values of broadcheck's (static-asserted
     * there); its features hold the kinds from FEATURE_ELEMENTWISE on. */
    v.kinds = (c->features / BC_ADAPTER_FEATURE_ELEMENTWISE) & v.kinds;
    v.ops = c->ops & v.ops;
    v.dtypes = c->dtypes & v.dtypes;
    v.max_rank = c->max_rank < v.max_rank ? c->max_rank : v.max_rank;
    v.max_operands = c->max_operands < v.max_operands ? c->max_operands : v.max_operands;
    v.profiles = c->profiles & v.profiles; /* adapter.h's profile values are broadcheck's */
    return v;
}

unsigned bc_sut_partial_caps_of(const bc_sut *sut)
{
    if (!sut->ops->infer_partial)
        return 0;
    return bc_isolated_is(sut) ? bc_isolated_partial_caps(sut) : BC_PARTIAL_ALL;
}

void bc_sut_describe_caps(const bc_sut *sut, char *buf, size_t cap)
{
    const bc_adapter_capabilities *c = bc_isolated_caps(sut);
    if (c)
        bc_caps_format(c, buf, cap);
    else
        snprintf(buf, cap, "every rule, profile, value operation, dtype, rank and operand count "
                           "(in process)");
}
