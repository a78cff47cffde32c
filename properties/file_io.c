/*
 * Every file a run writes goes through here: the reports (written whole or
 * not at all, or streamed to standard output) and the checks made on a
 * report's or the corpus's path before a run that may take hours.
 *
 * A report is built in memory, written into an unnamed file in its target's
 * folder (O_TMPFILE), synced, given a name beside the target and renamed
 * over it: a reader sees the old report or the new one, and a SIGKILL at
 * any moment but the instant between naming and renaming leaves nothing
 * behind.  Where the file system has no O_TMPFILE, a named temporary
 * (mkstemp) is used instead.  A target that is not a regular file (a
 * folder, a FIFO, a device, a socket, a symbolic link to nothing) is
 * refused instead of being replaced; a symbolic link to a regular file is
 * followed, and the file it names is replaced.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

int bc_write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int say(char *why, size_t cap, const char *fmt, ...)
{
    if (why && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, cap, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int bc_output_is_stdout(const char *path)
{
    return path && (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0);
}

const char *bc_file_kind(unsigned mode)
{
    if (S_ISREG(mode))
        return "a regular file";
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISLNK(mode))
        return "a symbolic link";
    return "not a regular file";
}

/* The folder holding path, as a new string ("." for a bare name). */
static char *folder_of(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return NULL;
    char *dir = strdup(dirname(copy));
    free(copy);
    return dir;
}

/* Where writing path lands: path itself, or the regular file a symbolic
 * link at path names.  NULL with why if that is not a regular file or a
 * name still free. */
static char *write_target(const char *what, const char *path, char *why, size_t cap)
{
    struct stat lst, st;
    if (lstat(path, &lst) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return strdup(path); /* a new file; its folder is checked when it is made */
        say(why, cap, "cannot write %s '%s': %s", what, path, strerror(errno));
        return NULL;
    }
    if (S_ISREG(lst.st_mode))
        return strdup(path);
    if (!S_ISLNK(lst.st_mode)) {
        say(why, cap, "cannot write %s '%s': it is %s, not a regular file (give a file's "
            "path, or '-' for standard output)", what, path, bc_file_kind(lst.st_mode));
        return NULL;
    }
    if (stat(path, &st) != 0) {
        say(why, cap, "cannot write %s '%s': it is a symbolic link to a missing file (%s)",
            what, path, strerror(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        say(why, cap, "cannot write %s '%s': it is a symbolic link to %s, not to a regular "
            "file", what, path, bc_file_kind(st.st_mode));
        return NULL;
    }
    char *resolved = realpath(path, NULL);
    if (!resolved)
        say(why, cap, "cannot write %s '%s': cannot resolve the symbolic link: %s", what, path,
            strerror(errno));
    return resolved;
}

int bc_output_check(const char *what, const char *path, char *why, size_t cap)
{
    if (!path || !path[0])
        return say(why, cap, "cannot write %s: no path given", what);
    if (bc_output_is_stdout(path))
        return 0;
    char *target = write_target(what, path, why, cap);
    if (!target)
        return -1;
    char *dir = folder_of(target);
    struct stat st;
    const char *problem = NULL;
    if (!dir)
        problem = strerror(ENOMEM);
    else if (stat(dir, &st) != 0)
        problem = strerror(errno);
    else if (!S_ISDIR(st.st_mode))
        problem = strerror(ENOTDIR);
    else if (faccessat(AT_FDCWD, dir, W_OK, AT_EACCESS) != 0)
        problem = strerror(errno);
    int status = 0;
    if (problem)
        status = say(why, cap, "cannot write %s '%s': its folder '%s': %s", what, path,
                     dir ? dir : "?", problem);
    free(dir);
    free(target);
    return status;
}

/* path with its folder resolved (the file itself need not exist). */
static char *canonical(const char *path)
{
    char *whole = realpath(path, NULL);
    if (whole)
        return whole;
    char *copy = strdup(path), *dir = folder_of(path);
    char *real_dir = dir ? realpath(dir, NULL) : NULL;
    char *out = NULL;
    if (copy && real_dir) {
        const char *base = basename(copy);
        size_t len = strlen(real_dir) + strlen(base) + 2;
        out = malloc(len);
        if (out)
            snprintf(out, len, "%s/%s", real_dir, base);
    }
    free(copy);
    free(dir);
    free(real_dir);
    return out ? out : strdup(path);
}

int bc_same_file(const char *a, const char *b)
{
    if (!a || !b)
        return 0;
    if (bc_output_is_stdout(a) || bc_output_is_stdout(b))
        return bc_output_is_stdout(a) && bc_output_is_stdout(b);
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char *ca = canonical(a), *cb = canonical(b);
    int same = ca && cb && strcmp(ca, cb) == 0;
    free(ca);
    free(cb);
    return same;
}

/* ---- writing a file whole or not at all ---------------------------------- */

/* Syncs the folder dir so that a rename in it is durable; best effort
 * (some file systems refuse fsync on a folder). */
static void sync_folder(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

/* Gives the unnamed file fd a name beside target, target.tmp.XXXXXX, into
 * name[cap].  0, or -1 with errno. */
static int name_unnamed(int fd, const char *target, char *name, size_t cap)
{
    static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long long x = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)getpid() << 20);
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    for (int attempt = 0; attempt < 64; attempt++) {
        char suffix[7];
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        for (int i = 0; i < 6; i++)
            suffix[i] = digits[(x >> (10 + 5 * i)) % 36];
        suffix[6] = '\0';
        if ((size_t)snprintf(name, cap, "%s.tmp.%s", target, suffix) >= cap) {
            errno = ENAMETOOLONG;
            return -1;
        }
        /* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc/self/fd needs /proc */
        if (linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH) == 0 ||
            linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0)
            return 0;
        if (errno != EEXIST)
            return -1;
    }
    errno = EEXIST;
    return -1;
}

static int stream_to_stdout(const char *what, const char *data, size_t len, char *why,
                            size_t cap)
{
    fflush(stdout); /* whatever stdio holds goes first */
    if (bc_write_all(1, data, len) != 0)
        return say(why, cap, "cannot write %s to standard output: %s", what, strerror(errno));
    return 0;
}

int bc_write_whole(const char *what, const char *path, const char *data, size_t len, char *why,
                   size_t cap)
{
    if (!path || !path[0])
        return say(why, cap, "cannot write %s: no path given", what);
    if (bc_output_is_stdout(path))
        return stream_to_stdout(what, data, len, why, cap);
    char *target = write_target(what, path, why, cap);
    if (!target)
        return -1;
    char *dir = folder_of(target);
    size_t name_cap = strlen(target) + 32;
    char *tmp = malloc(name_cap);
    if (!dir || !tmp) {
        free(target);
        free(dir);
        free(tmp);
        return say(why, cap, "cannot write %s '%s': out of memory", what, path);
    }
    tmp[0] = '\0';

    /* A report keeps the mode of the report it replaces; a new one is 0644. */
    mode_t mode = 0644;
    struct stat st;
    if (stat(target, &st) == 0 && S_ISREG(st.st_mode))
        mode = st.st_mode & 07777;

    int status = -1, named = 0; /* named: tmp names the file on disk */
    int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
    if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
        snprintf(tmp, name_cap, "%s.tmp.XXXXXX", target); /* no O_TMPFILE here */
        fd = mkostemp(tmp, O_CLOEXEC);
        named = fd >= 0;
    }
    const char *step = NULL;
    int e;
    if (fd < 0) {
        e = errno;
        say(why, cap, "cannot write %s '%s': cannot create a temporary file in '%s': %s%s", what,
            path, dir, strerror(e), e == ENOENT ? " (does the folder exist?)" : "");
        goto done;
    }
    if (fchmod(fd, mode) != 0)
        step = "setting the permissions of";
    else if (bc_write_all(fd, data, len) != 0)
        step = "writing";
    else if (fsync(fd) != 0)
        step = "syncing";
    else if (!named && name_unnamed(fd, target, tmp, name_cap) != 0)
        step = "naming";
    if (step) {
        e = errno;
        say(why, cap, "cannot write %s '%s': %s the temporary file failed: %s", what, path, step,
            strerror(e));
        goto done;
    }
    named = 1;
    int closing = fd;
    fd = -1;
    if (close(closing) != 0) {
        e = errno;
        say(why, cap, "cannot write %s '%s': closing the temporary file '%s' failed: %s", what,
            path, tmp, strerror(e));
        goto done;
    }
    if (rename(tmp, target) != 0) {
        e = errno;
        say(why, cap, "cannot write %s '%s': cannot rename '%s' to it: %s", what, path, tmp,
            strerror(e));
        goto done;
    }
    named = 0;
    status = 0;
    sync_folder(dir);
done:
    if (fd >= 0)
        close(fd);
    if (named)
        unlink(tmp);
    free(target);
    free(dir);
    free(tmp);
    return status;
}
