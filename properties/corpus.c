/*
 * The regression corpus: failing cases in the vector format of spec/, one
 * per line, replayed first on the next run.  A header line records the
 * corpus version so that an older broadcheck refuses a newer corpus instead
 * of misreading it.  Appends take an exclusive lock and write each line
 * whole, so concurrent runs sharing a corpus do not corrupt it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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

static int add_line(bc_corpus *corpus, const char *line)
{
    char **grown = realloc(corpus->lines, (size_t)(corpus->count + 1) * sizeof *grown);
    if (!grown)
        return -1;
    corpus->lines = grown;
    corpus->lines[corpus->count] = strdup(line);
    if (!corpus->lines[corpus->count])
        return -1;
    corpus->count++;
    return 0;
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
    bc_vector *v = malloc(sizeof *v);
    char *line = NULL, detail[512], canonical[8192];
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
        int r = bc_vector_parse(line, v, detail, sizeof detail);
        if (r < 0) {
            snprintf(why, cap, "corpus %s:%ld: %s", path, lineno, detail);
            status = -1;
        } else if (r > 0) {
            bc_vector_format(v, canonical, sizeof canonical);
            if (add_line(corpus, canonical) != 0) {
                snprintf(why, cap, "corpus '%s': out of memory", path);
                status = -1;
            }
        }
    }
    if (status == 0 && ferror(f)) {
        snprintf(why, cap, "corpus '%s': read error after line %ld", path, lineno);
        status = -1;
    }
    free(line);
    free(v);
    fclose(f);
    if (status != 0)
        bc_corpus_free(corpus);
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
     * lines since we read it) and add only what is new. */
    bc_corpus existing;
    char detail[512];
    int status = bc_corpus_read(path, &existing, detail, sizeof detail);
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
