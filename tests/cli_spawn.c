/*
 * Test helper (cli_spawn.h): fork + exec of the broadcheck executable with
 * stdout and stderr captured through temporary files, so that output of any
 * size is kept whole.
 */
#include "cli_spawn.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef BC_CLI_PATH
#error "BC_CLI_PATH must name the broadcheck executable"
#endif

static char *read_fd(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || lseek(fd, 0, SEEK_SET) != 0)
        return NULL;
    char *buf = malloc((size_t)st.st_size + 1);
    size_t n = 0;
    ssize_t got;
    while (buf && n < (size_t)st.st_size && (got = read(fd, buf + n, (size_t)st.st_size - n)) > 0)
        n += (size_t)got;
    if (buf)
        buf[n] = '\0';
    return buf;
}

static char **make_argv(const char *const *args)
{
    size_t n = 0;
    while (args[n])
        n++;
    char **argv = calloc(n + 2, sizeof *argv);
    if (!argv)
        return NULL;
    argv[0] = (char *)BC_CLI_PATH;
    for (size_t i = 0; i < n; i++)
        argv[i + 1] = (char *)args[i];
    return argv;
}

static int exit_code(int wstatus)
{
    if (WIFEXITED(wstatus))
        return WEXITSTATUS(wstatus);
    return WIFSIGNALED(wstatus) ? 128 + WTERMSIG(wstatus) : -1;
}

/* Waits for pid; after deadline_s (> 0) it is killed. */
static int wait_deadline(pid_t pid, int deadline_s, int *wstatus, struct rusage *ru)
{
    for (long waited_ms = 0;; waited_ms += 10) {
        pid_t r = wait4(pid, wstatus, deadline_s > 0 ? WNOHANG : 0, ru);
        if (r == pid)
            return 0;
        if (r < 0)
            return -1;
        if (waited_ms >= (long)deadline_s * 1000) {
            kill(pid, SIGKILL);
            return wait4(pid, wstatus, 0, ru) == pid ? 0 : -1;
        }
        struct timespec nap = {0, 10000000};
        nanosleep(&nap, NULL);
    }
}

int bc_spawn(const char *const *args, bc_spawned *r)
{
    bc_spawn_opts none = {0, NULL, NULL, 0};
    return bc_spawn_with(args, &none, r);
}

/* Runs argv (argv[0] a path) under opts, capturing its output into r. */
static int spawn_argv(char **argv, const bc_spawn_opts *opts, bc_spawned *r)
{
    memset(r, 0, sizeof *r);
    char out_path[] = "/tmp/bc_spawn_out_XXXXXX", err_path[] = "/tmp/bc_spawn_err_XXXXXX";
    int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
    int status = -1;
    if (out_fd < 0 || err_fd < 0)
        goto done;
    int in_pipe[2] = {-1, -1};
    if (opts->stdin_text && (strlen(opts->stdin_text) > 60000 || pipe(in_pipe) != 0))
        goto done; /* (the text is written whole before the child reads: it must fit) */
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        goto done;
    if (pid == 0) {
        dup2(out_fd, 1);
        dup2(err_fd, 2);
        if (in_pipe[0] >= 0) {
            dup2(in_pipe[0], 0);
            close(in_pipe[0]);
            close(in_pipe[1]);
        }
        for (const char *const *e = opts->env; e && *e; e++)
            putenv((char *)*e);
        if (opts->fsize_limit > 0) {
            struct rlimit lim = {(rlim_t)opts->fsize_limit, (rlim_t)opts->fsize_limit};
            signal(SIGXFSZ, SIG_DFL); /* broadcheck itself must cope with it */
            setrlimit(RLIMIT_FSIZE, &lim);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    if (in_pipe[0] >= 0) { /* a pipe, as a shell gives it: read once, never seekable */
        close(in_pipe[0]);
        size_t len = strlen(opts->stdin_text);
        ssize_t n = write(in_pipe[1], opts->stdin_text, len);
        close(in_pipe[1]);
        if (n != (ssize_t)len)
            goto done;
    }
    int wstatus;
    struct rusage ru;
    if (wait_deadline(pid, opts->deadline_s, &wstatus, &ru) != 0)
        goto done;
    r->status = exit_code(wstatus);
    r->maxrss_kb = ru.ru_maxrss;
    r->out = read_fd(out_fd);
    r->err = read_fd(err_fd);
    status = r->out && r->err ? 0 : -1;
done:
    if (out_fd >= 0) {
        close(out_fd);
        unlink(out_path);
    }
    if (err_fd >= 0) {
        close(err_fd);
        unlink(err_path);
    }
    return status;
}

int bc_spawn_with(const char *const *args, const bc_spawn_opts *opts, bc_spawned *r)
{
    char **argv = make_argv(args);
    int status = argv ? spawn_argv(argv, opts, r) : -1;
    free(argv);
    return status;
}

int bc_spawn_printed(const char *line, bc_spawned *r)
{
    const char *word = "broadcheck ";
    if (strncmp(line, word, strlen(word)) != 0)
        return -1;
    size_t len = strlen(BC_CLI_PATH) + strlen(line) + 2;
    char *command = malloc(len);
    if (!command)
        return -1;
    snprintf(command, len, "%s %s", BC_CLI_PATH, line + strlen(word));
    char *argv[] = {(char *)"/bin/sh", (char *)"-c", command, NULL};
    bc_spawn_opts none = {0, NULL, NULL, 0};
    int status = spawn_argv(argv, &none, r);
    free(command);
    return status;
}

int bc_spawn_background(const char *const *args)
{
    char **argv = make_argv(args);
    if (!argv)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    free(argv);
    return (int)pid;
}

int bc_spawn_wait(int pid)
{
    int wstatus;
    if (pid <= 0 || waitpid((pid_t)pid, &wstatus, 0) != (pid_t)pid)
        return -1;
    return exit_code(wstatus);
}

void bc_spawned_free(bc_spawned *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

int bc_scratch_dir(const char *prefix, char *dir, size_t cap)
{
    int n = snprintf(dir, cap, "/tmp/%s_XXXXXX", prefix);
    if (n < 0 || (size_t)n >= cap)
        return -1;
    return mkdtemp(dir) ? 0 : -1;
}

void bc_scratch_remove(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char path[4096];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (unlink(path) != 0)
                rmdir(path); /* an empty folder a test made */
        }
        closedir(d);
    }
    rmdir(dir);
}

const char *bc_scratch_path(const char *dir, const char *name)
{
    static char paths[8][1024];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, sizeof paths[0], "%s/%s", dir, name);
    return p;
}

int bc_scratch_file(const char *dir, const char *name, const char *text, size_t len, char *path,
                    size_t cap)
{
    int n = snprintf(path, cap, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= cap)
        return -1;
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = fwrite(text, 1, len, f) == len;
    return fclose(f) == 0 && ok ? 0 : -1;
}

int bc_scratch_count(const char *dir, const char *part)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        count += strstr(e->d_name, part) != NULL;
    closedir(d);
    return count;
}
