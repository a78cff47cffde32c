/*
 * bc_path_find: broadcheck's own files, found relative to the running
 * program once installed, in the build tree otherwise (broadcheck/paths.h).
 * The installed places are relative to the bin folder, as CMake computed
 * them from GNUInstallDirs (isolation/CMakeLists.txt), so that they hold
 * for any --prefix given at install time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "broadcheck/paths.h"

#ifndef BC_BIN_TO_DATA /* e.g. "../share/broadcheck" */
#define BC_BIN_TO_DATA "../share/broadcheck"
#endif
#ifndef BC_BIN_TO_ADAPTERS /* e.g. "../lib/broadcheck/adapters" */
#define BC_BIN_TO_ADAPTERS "../lib/broadcheck/adapters"
#endif
#ifndef BC_SOURCE_DIR
#define BC_SOURCE_DIR "."
#endif
#ifndef BC_BUILD_DIR
#define BC_BUILD_DIR "."
#endif

typedef struct place {
    const char *name;
    const char *installed; /* relative to the running program's folder */
    const char *built;     /* absolute, in the build or source tree */
} place;

static const place places[BC_PATH_COUNT] = {
    [BC_PATH_WORKER] = {"worker", "broadcheck-worker", BC_BUILD_DIR "/broadcheck-worker"},
    [BC_PATH_VECTORS] = {"vectors", BC_BIN_TO_DATA "/vectors", BC_SOURCE_DIR "/spec/vectors"},
    [BC_PATH_ADAPTERS] = {"adapters", BC_BIN_TO_ADAPTERS, BC_BUILD_DIR "/adapters"},
    [BC_PATH_PYTHON] = {"python", BC_BIN_TO_DATA "/python", BC_SOURCE_DIR "/sut_adapters/python"},
    [BC_PATH_JS] = {"js", BC_BIN_TO_DATA "/js", BC_SOURCE_DIR "/sut_adapters/js"},
    [BC_PATH_BENCH] = {"bench", BC_BIN_TO_DATA "/bench", BC_SOURCE_DIR "/bench"},
};

const char *bc_path_name(bc_path_kind kind)
{
    return (unsigned)kind < BC_PATH_COUNT ? places[kind].name : NULL;
}

/* base[/file] into out; 0, or -1 if it does not fit. */
static int join(const char *base, const char *file, char *out, size_t cap)
{
    int n =
        file && file[0] ? snprintf(out, cap, "%s/%s", base, file) : snprintf(out, cap, "%s", base);
    return n >= 0 && (size_t)n < cap ? 0 : -1;
}

/* Drops "." and "name/.." from an absolute path, in place, so that a path
 * reads <prefix>/share/broadcheck, not <prefix>/bin/../share/broadcheck. */
static void tidy(char *path)
{
    char *out = path, *in = path;
    while (*in) {
        while (*in == '/')
            in++;
        char *end = strchr(in, '/');
        size_t n = end ? (size_t)(end - in) : strlen(in);
        if (n == 1 && in[0] == '.') {
            /* nothing */
        } else if (n == 2 && in[0] == '.' && in[1] == '.') {
            while (out > path && *--out != '/') /* back over the last component */
                ;
        } else if (n > 0) {
            *out++ = '/';
            memmove(out, in, n);
            out += n;
        }
        in += n;
    }
    if (out == path)
        *out++ = '/';
    *out = '\0';
}

/* The folder of the running program (symbolic links resolved), or -1. */
static int program_folder(char *out, size_t cap)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    return join(self[0] ? self : "/", NULL, out, cap);
}

/* 0 if base[/file] fits into out and exists, else the errno why not. */
static int exists(const char *base, const char *file, char *out, size_t cap)
{
    if (join(base, file, out, cap) != 0)
        return ENAMETOOLONG;
    return access(out, F_OK) == 0 ? 0 : errno;
}

int bc_path_find(bc_path_kind kind, const char *file, char *out, size_t cap, char *why,
                 size_t why_cap)
{
    if ((unsigned)kind >= BC_PATH_COUNT) {
        snprintf(why, why_cap, "no such kind of broadcheck file (%d)", (int)kind);
        return -1;
    }
    const place *p = &places[kind];
    const char *what = file && file[0] ? file : p->name;
    const char *env = kind == BC_PATH_WORKER ? getenv("BROADCHECK_WORKER") : NULL;
    if (env && env[0]) {
        int e = exists(env, file, out, cap);
        if (e)
            snprintf(why, why_cap, "broadcheck's %s %.1500s (from $BROADCHECK_WORKER): %s", what,
                     out, strerror(e));
        return e ? -1 : 0;
    }
    char dir[PATH_MAX], installed[PATH_MAX + 256], built[PATH_MAX + 256];
    int have_dir = program_folder(dir, sizeof dir) == 0 &&
                   join(dir, p->installed, installed, sizeof installed) == 0;
    if (have_dir)
        tidy(installed); /* /proc/self/exe is absolute: so is this */
    if (have_dir && exists(installed, file, out, cap) == 0)
        return 0;
    if (exists(p->built, file, out, cap) == 0)
        return 0;
    /* Say where it was looked for, and leave the installed place in out. */
    if (!have_dir || join(installed, file, out, cap) != 0)
        snprintf(out, cap, "%s", "");
    join(p->built, file, built, sizeof built);
    snprintf(why, why_cap,
             "broadcheck's %s is missing: it is not at %.1500s%s, nor in the "
             "build tree at %.1500s",
             what, out[0] ? out : "(the running program's folder is unknown)",
             have_dir ? " (installed beside the running program)" : "", built);
    return -1;
}
