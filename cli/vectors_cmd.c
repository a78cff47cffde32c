/*
 * broadcheck vectors: check conformance-vector files against the reference.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "broadcheck/vector.h"
#include "cli.h"

#ifndef BC_SPEC_DIR
#define BC_SPEC_DIR "spec"
#endif

static const char vectors_usage[] =
    "usage: broadcheck vectors [PATH ...]\n"
    "\n"
    "Runs every vector of each PATH (a .vec file, or a folder whose *.vec files\n"
    "are read in name order) through the reference and prints each disagreement\n"
    "or syntax error as FILE:LINE, then one summary line per file and a total.\n"
    "With no PATH it reads " BC_SPEC_DIR "/vectors.\n"
    "\n"
    "Exit codes: 0 every vector agrees; 1 a vector disagrees or has a syntax\n"
    "error; 2 a path cannot be read.\n";

static int ends_with_vec(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && strcmp(name + n - 4, ".vec") == 0;
}

static int select_vec(const struct dirent *d)
{
    return d->d_name[0] != '.' && ends_with_vec(d->d_name);
}

static int check_one(const char *path, long *passed, long *failed)
{
    long p = 0, f = 0;
    if (bc_vector_check_file(path, stdout, &p, &f) != 0)
        return -1;
    printf("%s: %ld passed, %ld failed\n", path, p, f);
    *passed += p;
    *failed += f;
    return 0;
}

static int check_path(const char *path, long *passed, long *failed)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return check_one(path, passed, failed);
    struct dirent **names;
    int n = scandir(path, &names, select_vec, alphasort);
    if (n < 0) {
        fprintf(stderr, "broadcheck vectors: cannot read folder '%s'\n", path);
        return -1;
    }
    int status = 0;
    if (n == 0) {
        fprintf(stderr, "broadcheck vectors: folder '%s' has no .vec files\n", path);
        status = -1;
    }
    for (int i = 0; i < n; i++) {
        size_t len = strlen(path) + strlen(names[i]->d_name) + 2;
        char *full = malloc(len);
        if (full) {
            snprintf(full, len, "%s/%s", path, names[i]->d_name);
            if (check_one(full, passed, failed) != 0)
                status = -1;
            free(full);
        } else {
            status = -1;
        }
        free(names[i]);
    }
    free(names);
    return status;
}

int bc_cmd_vectors(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(vectors_usage, stdout);
            return BC_EXIT_OK;
        }
        if (argv[i][0] == '-') {
            fprintf(stderr, "broadcheck vectors: unknown option '%s'\n", argv[i]);
            return BC_EXIT_USAGE;
        }
    }
    long passed = 0, failed = 0;
    int unreadable = 0;
    if (argc < 2)
        unreadable |= check_path(BC_SPEC_DIR "/vectors", &passed, &failed) != 0;
    for (int i = 1; i < argc; i++)
        unreadable |= check_path(argv[i], &passed, &failed) != 0;
    printf("vectors: %ld passed, %ld failed\n", passed, failed);
    if (unreadable)
        return BC_EXIT_USAGE;
    return failed ? BC_EXIT_FAIL : BC_EXIT_OK;
}
