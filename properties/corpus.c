/*
 * The regression corpus: failing cases in the vector format of spec/, one
 * per line, replayed first on the next run.  A header line records the
 * corpus version so that an older broadcheck refuses a newer corpus instead
 * of misreading it.  Appends take an exclusive lock and add all their new
 * lines in one write, cut back on failure, and reads take a shared lock, so
 * concurrent runs sharing a corpus neither corrupt it nor read a line
 * half-written, and a full disk leaves it as it was.  Only a regular file
 * is a corpus: a FIFO, a device or a symbolic link to nothing is refused,
 * never opened for reading (a FIFO would block) or created through.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
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

/* Opens path (flags without O_CREAT) only if it is a regular file: a FIFO
 * would block the open, a device or folder is no corpus.  Returns the fd,
 * or -1 with why; *missing is 1 (and why empty) when nothing is there. */
static int open_regular(const char *path, int flags, int *missing, char *why, size_t cap)
{
    *missing = 0;
    why[0] = '\0';
    int fd = open(path, flags | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        struct stat lst;
        if (errno == ENOENT && lstat(path, &lst) == 0)
            snprintf(why, cap, "corpus '%s': is a symbolic link to a missing file", path);
        else if (errno == ENOENT)
            *missing = 1;
        else if (errno == EISDIR)
            snprintf(why, cap, "corpus '%s': is a directory, not a corpus file", path);
        else
            snprintf(why, cap, "corpus '%s': cannot open%s: %s", path,
                     (flags & O_ACCMODE) == O_RDONLY ? "" : " for writing", strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, cap, "corpus '%s': is %s, not a corpus file", path,
                 fstat(fd, &st) == 0 ? bc_file_kind(st.st_mode) : "unreadable");
        close(fd);
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

int bc_corpus_read(const char *path, bc_corpus *corpus, char *why, size_t cap)
{
    corpus->count = 0;
    corpus->lines = NULL;
    int missing;
    int fd = open_regular(path, O_RDONLY, &missing, why, cap);
    if (fd < 0)
        return missing ? 0 : -1; /* no corpus yet, or not one */
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        snprintf(why, cap, "corpus '%s': out of memory", path);
        return -1;
    }
    int status = -1;
    if (flock(fileno(f), LOCK_SH) != 0) /* wait out an append in progress */
        snprintf(why, cap, "corpus '%s': cannot lock: %s", path, strerror(errno));
    else
        status = read_stream(f, path, corpus, why, cap);
    fclose(f); /* releases the lock */
    return status;
}

int bc_corpus_check(const char *path, char *why, size_t cap)
{
    if (!path[0]) {
        snprintf(why, cap, "corpus: no path given");
        return -1;
    }
    int missing;
    int fd = open_regular(path, O_RDONLY, &missing, why, cap);
    if (fd >= 0) {
        close(fd);
        if (faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0)
            return 0;
        snprintf(why, cap, "corpus '%s': cannot be appended to: %s", path, strerror(errno));
        return -1;
    }
    if (!missing)
        return -1;
    /* A new corpus: its folder must take it. */
    char *copy = strdup(path);
    const char *dir = copy ? dirname(copy) : ".";
    struct stat st;
    const char *problem = NULL;
    if (stat(dir, &st) != 0)
        problem = strerror(errno);
    else if (!S_ISDIR(st.st_mode))
        problem = strerror(ENOTDIR);
    else if (faccessat(AT_FDCWD, dir, W_OK, AT_EACCESS) != 0)
        problem = strerror(errno);
    if (problem)
        snprintf(why, cap, "corpus '%s': cannot be created in its folder '%s': %s", path, dir,
                 problem);
    free(copy);
    return problem ? -1 : 0;
}

/* Opens the corpus for appending, creating it if there is none, but never
 * through a symbolic link to a missing file (O_EXCL does not follow one). */
static int open_for_append(const char *path, char *why, size_t cap)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        int missing;
        int fd = open_regular(path, O_RDWR | O_APPEND, &missing, why, cap);
        if (fd >= 0 || !missing)
            return fd;
        fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0)
            return fd;
        if (errno != EEXIST) {
            snprintf(why, cap, "corpus '%s': cannot create it: %s", path, strerror(errno));
            return -1;
        }
        /* another run made it just now: open that one */
    }
    snprintf(why, cap, "corpus '%s': cannot open for writing", path);
    return -1;
}

/* The bytes to append: the header for a new file, a newline to end a last
 * line that has none, then every line of `lines` that is not in `existing`
 * (nor earlier in `lines`), each with its newline.  NULL if out of memory;
 * *len 0 when there is nothing to add. */
static char *append_text(const bc_corpus *existing, off_t size, int needs_newline,
                         const char *const *lines, int count, size_t *len)
{
    size_t cap = 64;
    for (int i = 0; i < count; i++)
        cap += strlen(lines[i]) + 1;
    char *text = malloc(cap);
    if (!text)
        return NULL;
    size_t n = 0;
    if (size == 0)
        n += (size_t)snprintf(text, cap, HEADER "%d\n", BC_CORPUS_VERSION);
    else if (needs_newline)
        text[n++] = '\n';
    size_t prefix = n;
    for (int i = 0; i < count; i++) {
        int seen = 0;
        for (int j = 0; j < existing->count && !seen; j++)
            seen = strcmp(existing->lines[j], lines[i]) == 0;
        for (int j = 0; j < i && !seen; j++)
            seen = strcmp(lines[j], lines[i]) == 0;
        if (seen)
            continue;
        size_t l = strlen(lines[i]);
        memcpy(text + n, lines[i], l);
        n += l;
        text[n++] = '\n';
    }
    *len = n > prefix ? n : 0; /* only a header or a newline: leave the file as it is */
    return text;
}

int bc_corpus_append(const char *path, const char *const *lines, int count, char *why, size_t cap)
{
    if (count == 0)
        return 0;
    int fd = open_for_append(path, why, cap);
    if (fd < 0)
        return -1;
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
    int status = -1;
    int copy = dup(fd);
    FILE *f = copy >= 0 ? fdopen(copy, "r") : NULL;
    if (!f) {
        snprintf(why, cap, "corpus '%s': cannot read it back: %s", path, strerror(errno));
        if (copy >= 0)
            close(copy);
        close(fd);
        return -1;
    }
    rewind(f);
    status = read_stream(f, path, &existing, why, cap);
    fclose(f); /* closes the copy only: fd keeps the lock */
    struct stat st;
    char last = '\n';
    if (status == 0 && fstat(fd, &st) != 0) {
        snprintf(why, cap, "corpus '%s': cannot stat: %s", path, strerror(errno));
        status = -1;
    }
    if (status == 0 && st.st_size > 0 && pread(fd, &last, 1, st.st_size - 1) != 1) {
        snprintf(why, cap, "corpus '%s': cannot read its last byte: %s", path, strerror(errno));
        status = -1;
    }
    size_t len = 0;
    char *text = NULL;
    if (status == 0) {
        /* A last line without its newline (a file edited by hand) is ended
         * first, so that the new lines are not glued to it. */
        text = append_text(&existing, st.st_size, last != '\n', lines, count, &len);
        if (!text) {
            snprintf(why, cap, "corpus '%s': out of memory", path);
            status = -1;
        }
    }
    /* One write of whole lines; on a short write (a full disk, a file size
     * limit) or a failed sync, the file is cut back to what it was, so a
     * later run never meets half a line. */
    if (status == 0 && len > 0 && (bc_write_all(fd, text, len) != 0 || fsync(fd) != 0)) {
        int e = errno;
        int restored = ftruncate(fd, st.st_size) == 0 && fsync(fd) == 0;
        snprintf(why, cap, "corpus '%s': appending %zu bytes failed: %s; %s", path, len,
                 strerror(e), restored ? "the corpus is as it was before"
                                       : "and it could not be cut back to its old length");
        status = -1;
    }
    free(text);
    bc_corpus_free(&existing);
    close(fd); /* releases the lock */
    return status;
}
