/*
 * The regression corpus: failing cases in the vector format of spec/, one
 * per line, replayed first on the next run.  A header line records the
 * corpus version so that an older broadcheck refuses a newer corpus instead
 * of misreading it.  Appends take an exclusive lock and write each line
 * whole, and reads a shared lock, so concurrent runs sharing a corpus
 * neither corrupt it nor read a line half-written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define HEADER "# broadcheck corpus v"

void bc_corpus_free(bc_corpus *corpus)
{
    for (int i = 0; i < corpus->count; i++)
        free(corpus->lines[i]);
    free(corpus->lines);
    corpus->lines = NULL;
    corpus->count = 0;
}

/* Adds the canonical form of v (as long as it needs: a line of 64 shapes
 * of 64 huge dims runs past 90 kB). */
static int add_line(bc_corpus *corpus, const bc_vector *v)
{
    char **grown = realloc(corpus->lines, (size_t)(corpus->count + 1) * sizeof *grown);
    if (!grown)
        return -1;
    corpus->lines = grown;
    int len = bc_vector_format(v, NULL, 0);
    char *line = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (!line)
        return -1;
    bc_vector_format(v, line, (size_t)len + 1);
    corpus->lines[corpus->count++] = line;
    return 0;
}

/* Adds the canonical form of a partial line (RULES.md §14). */
static int add_partial_line(bc_corpus *corpus, const char *text, char *why, size_t cap)
{
    bc_pvector *v = malloc(sizeof *v);
    char **grown = realloc(corpus->lines, (size_t)(corpus->count + 1) * sizeof *grown);
    int status = -1;
    if (grown)
        corpus->lines = grown;
    if (!v || !grown) {
        snprintf(why, cap, "out of memory");
    } else if (bc_pvector_parse(text, v, why, cap) == 1) {
        int len = bc_pvector_format(v, NULL, 0);
        char *line = malloc((size_t)len + 1);
        if (line) {
            bc_pvector_format(v, line, (size_t)len + 1);
            corpus->lines[corpus->count++] = line;
            status = 0;
        } else {
            snprintf(why, cap, "out of memory");
        }
    }
    free(v);
    return status;
}

/* Reads the corpus from f, from its start; path is for the messages. */
static int read_stream(FILE *f, const char *path, bc_corpus *corpus, char *why, size_t cap)
{
    bc_vector *v = malloc(sizeof *v);
    char *line = NULL, detail[512];
    size_t linecap = 0;
    ssize_t n;
    long lineno = 0;
    int status = v ? 0 : -1;
    if (!v)
        snprintf(why, cap, "corpus '%s': out of memory", path);
    while (status == 0 && (n = getline(&line, &linecap, f)) >= 0) {
        lineno++;
        if ((size_t)n != strlen(line)) {
            snprintf(why, cap, "corpus %s:%ld: a NUL byte: not a text corpus", path, lineno);
            status = -1;
            break;
        }
        if (strncmp(line, HEADER, strlen(HEADER)) == 0) {
            long version = strtol(line + strlen(HEADER), NULL, 10);
            if (version > BC_CORPUS_VERSION) {
                snprintf(why, cap, "corpus %s:%ld: written by a newer broadcheck (corpus v%ld; "
                         "this one reads v%d)", path, lineno, version, BC_CORPUS_VERSION);
                status = -1;
            }
            continue;
        }
        if (bc_vector_line_is_partial(line)) {
            if (add_partial_line(corpus, line, detail, sizeof detail) != 0) {
                snprintf(why, cap, "corpus %s:%ld: %s", path, lineno, detail);
                status = -1;
            }
            continue;
        }
        int r = bc_vector_parse(line, v, detail, sizeof detail);
        if (r < 0) {
            snprintf(why, cap, "corpus %s:%ld: %s", path, lineno, detail);
            status = -1;
        } else if (r > 0) {
            if (add_line(corpus, v) != 0) {
                snprintf(why, cap, "corpus '%s': out of memory", path);
                status = -1;
            }
        }
    }
    if (status == 0 && ferror(f)) {
        snprintf(why, cap, "corpus '%s': read error after line %ld: %s", path, lineno,
                 strerror(errno));
        status = -1;
    }
    free(line);
    free(v);
    if (status != 0)
        bc_corpus_free(corpus);
    return status;
}

int bc_corpus_read(const char *path, bc_corpus *corpus, char *why, size_t cap)
{
    corpus->count = 0;
    corpus->lines = NULL;
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return 0; /* no corpus yet */
        snprintf(why, cap, "corpus '%s': cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    int status = -1;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(why, cap, "corpus '%s': is a directory, not a corpus file", path);
    else if (flock(fileno(f), LOCK_SH) != 0) /* wait out an append in progress */
        snprintf(why, cap, "corpus '%s': cannot lock: %s", path, strerror(errno));
    else
        status = read_stream(f, path, corpus, why, cap);
    fclose(f); /* releases the lock */
    return status;
}

int bc_corpus_append(const char *path, const char *const *lines, int count, char *why, size_t cap)
{
    if (count == 0)
        return 0;
    int fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(why, cap, "corpus '%s': cannot open for writing: %s", path, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX) != 0) {
        snprintf(why, cap, "corpus '%s': cannot lock: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    /* Under the lock, read what is there now (another run may have added
     * lines since we read it) and add only what is new.  Through this very
     * descriptor: bc_corpus_read's shared lock on a new one would wait for
     * our own exclusive lock forever. */
    bc_corpus existing = {0, NULL};
    char detail[512];
    int status = -1;
    int copy = dup(fd);
    FILE *f = copy >= 0 ? fdopen(copy, "r") : NULL;
    if (!f) {
        snprintf(detail, sizeof detail, "corpus '%s': cannot read it back: %s", path,
                 strerror(errno));
        if (copy >= 0)
            close(copy);
    } else {
        rewind(f);
        status = read_stream(f, path, &existing, detail, sizeof detail);
        fclose(f); /* closes the copy only: fd keeps the lock */
    }
    if (status != 0) {
        snprintf(why, cap, "%s", detail);
    } else {
        off_t size = lseek(fd, 0, SEEK_END);
        if (size == 0) {
            char header[64];
            snprintf(header, sizeof header, HEADER "%d\n", BC_CORPUS_VERSION);
            status = bc_write_all(fd, header, strlen(header));
        }
        for (int i = 0; i < count && status == 0; i++) {
            int seen = 0;
            for (int j = 0; j < existing.count && !seen; j++)
                seen = strcmp(existing.lines[j], lines[i]) == 0;
            for (int j = 0; j < i && !seen; j++)
                seen = strcmp(lines[j], lines[i]) == 0;
            if (seen)
                continue;
            size_t len = strlen(lines[i]);
            char *whole = malloc(len + 2);
            if (!whole) {
                status = -1;
                break;
            }
            memcpy(whole, lines[i], len);
            whole[len] = '\n';
            status = bc_write_all(fd, whole, len + 1); /* one line, one write */
            free(whole);
        }
        if (status == 0 && fsync(fd) != 0)
            status = -1;
        if (status != 0)
            snprintf(why, cap, "corpus '%s': write failed: %s", path, strerror(errno));
        bc_corpus_free(&existing);
    }
    close(fd); /* releases the lock */
    return status;
}
