/*
 * broadcheck vectors: check conformance-vector files against the reference.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "broadcheck/paths.h"
#include "broadcheck/vector.h"
#include "cli.h"

static const char vectors_usage[] =
    "usage: broadcheck vectors [PATH ...]\n"
    "\n"
    "Runs every vector of each PATH (a .vec file, or a folder whose *.vec files\n"
    "are read in name order) through the reference and prints each disagreement\n"
    "or syntax error as FILE:LINE, then one summary line per file and a total.\n"
    "With no PATH it reads broadcheck's own vectors: PREFIX/share/broadcheck/vectors\n"
    "once installed, spec/vectors of the source tree in a build tree ('broadcheck\n"
    "list paths' shows which).\n"
    "\n"
    "Exit codes: 0 every vector agrees; 1 a vector disagrees; 2 a path cannot be\n"
    "read, or a file is malformed (a line with a syntax error or a NUL byte; each\n"
    "is printed as FILE:LINE too).\n";

static int ends_with_vec(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && strcmp(name + n - 4, ".vec") == 0;
}

static int select_vec(const struct dirent *d)
{
    return d->d_name[0] != '.' && ends_with_vec(d->d_name);
}

/* 0 checked, -1 unreadable, -2 checked but malformed (a line with a syntax
 * error or a NUL byte makes the file malformed input rather than a failed
 * check).  The file is read once, so a pipe (/dev/stdin) works too. */
static int check_one(const char *path, long *passed, long *failed)
{
    long p = 0, f = 0, malformed = 0;
    /* An unreadable file is said on stderr, as every exit-2 reason is. */
    FILE *in = fopen(path, "r");
    if (!in) {
        fprintf(stderr, "broadcheck vectors: '%s': cannot open: %s\n", path, strerror(errno));
        return -1;
    }
    int status = bc_vector_check_stream(in, path, stdout, &p, &f, &malformed);
    fclose(in);
    if (status != 0)
        return -1;
    printf("%s: %ld passed, %ld failed\n", path, p, f);
    *passed += p;
    *failed += f;
    if (malformed == 0)
        return 0;
    fprintf(stderr, "broadcheck vectors: '%s' is malformed: %ld line%s with a syntax error or a "
                    "NUL byte (printed above as %s:LINE)\n", path, malformed,
            malformed == 1 ? "" : "s", path);
    return -2;
}

/* As check_one, for a file or a folder of .vec files. */
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
            int one = check_one(full, passed, failed);
            if (one == -1 || (one == -2 && status == 0))
                status = one;
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
    int one, unreadable = 0, malformed = 0;
    if (argc < 2) {
        char dir[4096], why[1024];
        if (bc_path_find(BC_PATH_VECTORS, NULL, dir, sizeof dir, why, sizeof why) != 0) {
            fprintf(stderr, "broadcheck vectors: %s (give the vector files as PATH)\n", why);
            return BC_EXIT_USAGE;
        }
        one = check_path(dir, &passed, &failed);
        unreadable |= one == -1, malformed |= one == -2;
    }
    for (int i = 1; i < argc; i++) {
        one = check_path(argv[i], &passed, &failed);
        unreadable |= one == -1, malformed |= one == -2;
    }
    printf("vectors: %ld passed, %ld failed\n", passed, failed);
    if (unreadable || malformed)
        return BC_EXIT_USAGE;
    return failed ? BC_EXIT_FAIL : BC_EXIT_OK;
}
