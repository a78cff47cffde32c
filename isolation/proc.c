/*
 * A worker process: started with fork + exec (by the SUT's spawner thread)
 * in a process group of its own, with a parent-death signal, fds 0/1/2 on
 * three pipes (questions, answers, its stderr), and the per-question round
 * trip: one write, one poll, one read in the common case (and a read that
 * must find nothing after the answer: one question, one answer).  While an answer
 * is late, poll wakes every WATCH_MS to check the worker's resident memory,
 * and at the deadline the group is killed.  Every wait also watches the
 * SUT's cancel fd, so an interrupt cuts a question short.
 */
#define _GNU_SOURCE
#include "proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WATCH_MS 50       /* how often a slow answer's memory is checked */
#define STOP_GRACE_MS 500 /* a stopped worker's time to exit on its own */
#define TAIL 2048         /* bytes of the worker's stderr kept for diagnoses */
#define DYING_MS 60000    /* at most this long for a worker writing a crash report to die */

struct bc_proc {
    pid_t pid;
    int to_fd, from_fd, err_fd, cancel_fd;
    int memory_mb;
    bc_proc_fault fault; /* of the last failure */
    uint32_t seq;
    bc_wbuf request;
    unsigned char *in; /* received bytes; a frame starts at in[0] */
    size_t in_len, in_cap, in_used;
    char tail[TAIL];   /* the last bytes of stderr */
    size_t tail_len;
    int crash_report;  /* its stderr began a sanitizer's report: it is dying, not hung */
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* ---- the child's side of fork: async-signal-safe calls only --------------- */

/* A FATAL frame built without malloc, for an exec that failed. */
static void child_fatal(const char *path, int err)
{
    char msg[512];
    size_t n = 0;
    const char *parts[] = {"cannot execute ", path, ": ", NULL};
    for (int i = 0; parts[i]; i++)
        for (const char *s = parts[i]; *s && n < 400; s++)
            msg[n++] = *s;
    const char *e = strerror(err); /* strerror on a known errno only reads a table */
    for (; *e && n < sizeof msg; e++)
        msg[n++] = *e;
    unsigned char frame[BC_WIRE_HEADER_SIZE + 4 + sizeof msg];
    uint32_t len = (uint32_t)(4 + n);
    unsigned char head[] = {BC_WIRE_MAGIC0, BC_WIRE_MAGIC1, BC_WIRE_FATAL, 0, 0, 0, 0, 0,
                            (unsigned char)len, (unsigned char)(len >> 8), 0, 0,
                            (unsigned char)n, (unsigned char)(n >> 8), 0, 0};
    memcpy(frame, head, sizeof head);
    memcpy(frame + sizeof head, msg, n);
    ssize_t w = write(1, frame, sizeof head + n);
    (void)w;
}

static void child(const bc_proc_launch *l, pid_t harness, int in_fd, int out_fd, int err_fd)
{
    setpgid(0, 0); /* so that a kill reaches whatever the worker starts */
    /* Dies with the harness, even a SIGKILLed one (the spawner thread, its
     * parent, lives as long as the harness's SUT); and not at all if the
     * harness is already gone. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != harness)
        _exit(127);
    if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
        _exit(127);
    if (close_range(3, ~0u, 0) != 0)
        for (int fd = 3; fd < 1024; fd++)
            close(fd);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGXFSZ, SIG_DFL); /* the harness ignores it; a worker gets the default */
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    if (l->env)
        execve(l->argv[0], l->argv, l->env);
    else
        execv(l->argv[0], l->argv);
    child_fatal(l->argv[0], errno);
    _exit(127);
}

/* ---- stderr ----------------------------------------------------------------- */

static void drain_stderr(bc_proc *p)
{
    char buf[4096];
    ssize_t n;
    while (p->err_fd >= 0 && (n = read(p->err_fd, buf, sizeof buf)) != 0) {
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return; /* EAGAIN: nothing more for now */
        }
        size_t k = (size_t)n;
        if (k >= TAIL) {
            memcpy(p->tail, buf + k - TAIL, TAIL);
            p->tail_len = TAIL;
            continue;
        }
        if (p->tail_len + k > TAIL) {
            size_t drop = p->tail_len + k - TAIL;
            memmove(p->tail, p->tail + drop, p->tail_len - drop);
            p->tail_len -= drop;
        }
        memcpy(p->tail + p->tail_len, buf, k);
        p->tail_len += k;
        if (!p->crash_report) {
            char text[TAIL + 1];
            memcpy(text, p->tail, p->tail_len);
            text[p->tail_len] = '\0';
            p->crash_report = strstr(text, "Sanitizer") || strstr(text, "runtime error:");
        }
    }
    if (p->err_fd >= 0) { /* end of file: the worker closed it */
        close(p->err_fd);
        p->err_fd = -1;
    }
}

/* How telling a stderr line is: a sanitizer's SUMMARY, then an error line
 * (UBSan's "runtime error:", Python's "ValueError: ..."), then any other
 * line; never a stack frame ("#3 0x...") or "==N==ABORTING". */
static int line_rank(const char *line)
{
    if (strncmp(line, "SUMMARY:", 8) == 0)
        return 3;
    if (strstr(line, "rror:") || strstr(line, "ERROR"))
        return 2;
    if ((line[0] == '#' && line[1] >= '0' && line[1] <= '9') || strstr(line, "ABORTING"))
        return 0;
    return 1;
}

/* The last of the most telling lines of the stderr tail. */
static void stderr_line(const bc_proc *p, char *out, size_t cap)
{
    out[0] = '\0';
    char text[TAIL + 1];
    memcpy(text, p->tail, p->tail_len);
    text[p->tail_len] = '\0';
    char *best = NULL, *save = NULL;
    int best_rank = 0;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        while (*line == ' ' || *line == '\t')
            line++;
        int rank = *line ? line_rank(line) : 0;
        if (rank > 0 && rank >= best_rank) {
            best = line;
            best_rank = rank;
        }
    }
    if (best)
        snprintf(out, cap, "%.200s", best);
    bc_wire_printable(out); /* a worker's stderr is the SUT's text: no escapes */
}

/* ---- death ------------------------------------------------------------------ */

static const char *signal_name(int sig)
{
    static const struct {
        int sig;
        const char *name;
    } names[] = {{SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"}, {SIGABRT, "SIGABRT"},
                 {SIGFPE, "SIGFPE"},   {SIGILL, "SIGILL"}, {SIGKILL, "SIGKILL"},
                 {SIGTERM, "SIGTERM"}, {SIGPIPE, "SIGPIPE"}, {SIGTRAP, "SIGTRAP"},
                 {SIGSYS, "SIGSYS"},   {SIGXCPU, "SIGXCPU"}, {SIGINT, "SIGINT"}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].sig == sig)
            return names[i].name;
    return "a signal";
}

/* Waits up to ms for the worker to exit on its own; 1 if it did, and then
 * it is reaped, its status is the one it died with, and whatever it left
 * running in its process group is killed. */
static int reap_within(bc_proc *p, double ms, int *status, struct rusage *ru)
{
    double end = now_ms() + ms;
    if (p->pid <= 0)
        return 0;
    for (;;) {
        siginfo_t info;
        memset(&info, 0, sizeof info);
        /* WNOWAIT: the group id stays ours until the kill below */
        int r = waitid(P_PID, (id_t)p->pid, &info, WEXITED | WNOHANG | WNOWAIT);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return 0;
        if (info.si_pid == p->pid) {
            kill(-p->pid, SIGKILL);
            while (wait4(p->pid, status, 0, ru) < 0 && errno == EINTR)
                continue;
            p->pid = -1;
            return 1;
        }
        if (now_ms() >= end)
            return 0;
        struct timespec nap = {0, 1000000};
        nanosleep(&nap, NULL);
    }
}

/* Kills the group and reaps the worker; status -1 if it could not be reaped. */
static void kill_and_reap(bc_proc *p, int *status, struct rusage *ru)
{
    memset(ru, 0, sizeof *ru);
    *status = -1;
    if (p->pid <= 0)
        return; /* already reaped: never kill(-(-1)), that is every process */
    if (kill(-p->pid, SIGKILL) != 0)
        kill(p->pid, SIGKILL); /* not a group leader after all */
    pid_t r;
    while ((r = wait4(p->pid, status, 0, ru)) < 0 && errno == EINTR)
        continue;
    if (r != p->pid)
        *status = -1;
    p->pid = -1;
}

/* "worker killed by SIGSEGV", "worker exited with status 1", with its
 * memory if that was near the limit and its last stderr line. */
static void describe_death(bc_proc *p, int status, const struct rusage *ru, const char *when,
                           char *why, size_t cap)
{
    char how[128], mem[128] = "", err[256] = "";
    if (status == -1)
        snprintf(how, sizeof how, "worker died");
    else if (WIFSIGNALED(status))
        snprintf(how, sizeof how, "worker killed by %s", signal_name(WTERMSIG(status)));
    else
        snprintf(how, sizeof how, "worker exited with status %d", WEXITSTATUS(status));
    long peak_mb = ru->ru_maxrss / 1024;
    if (status != -1 && peak_mb * 4 >= (long)p->memory_mb * 3)
        snprintf(mem, sizeof mem, " after using %ld MB of its %d MB memory limit (out of memory?)",
                 peak_mb, p->memory_mb);
    drain_stderr(p);
    stderr_line(p, err, sizeof err);
    snprintf(why, cap, "%s %s%s%s%s%s", how, when, mem, err[0] ? "; its stderr: \"" : "", err,
             err[0] ? "\"" : "");
}

/* At the deadline, classify by what happened rather than by the clock: a
 * worker that has died, or is writing a sanitizer's crash report (which
 * takes seconds on a loaded machine: it symbolizes), is reported as the
 * death it is; so is one that died of its own signal as the kill came.
 * Returns 1 with why, or 0 after killing a worker that was still at work. */
static int died_by_deadline(bc_proc *p, const char *when, char *why, size_t cap)
{
    int status;
    struct rusage ru;
    const double give_up = now_ms() + DYING_MS;
    for (;;) {
        drain_stderr(p);
        if (reap_within(p, 0, &status, &ru)) {
            describe_death(p, status, &ru, when, why, cap);
            return 1;
        }
        if (!p->crash_report || now_ms() >= give_up)
            break;
        struct pollfd err = {p->err_fd, POLLIN, 0};
        poll(&err, p->err_fd >= 0 ? 1 : 0, 10); /* keep its stderr flowing while it dies */
    }
    kill_and_reap(p, &status, &ru);
    if (status != -1 && !(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)) {
        describe_death(p, status, &ru, when, why, cap);
        return 1;
    }
    return 0;
}

/* ---- /proc: memory, process groups, the exec: workers' address-space limit -- */

/* A process's address space and resident set, in pages (/proc/PID/statm);
 * 0 if it cannot be read (the process is gone). */
static int statm_of(long pid, unsigned long *size, unsigned long *resident)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/statm", pid);
    FILE *f = fopen(path, "r");
    int seen = f && fscanf(f, "%lu %lu", size, resident) == 2;
    if (f)
        fclose(f);
    return seen;
}

/* The process group of pid, from /proc/PID/stat; -1 if unreadable.  The
 * command name in parentheses may hold spaces and ')': parse after the
 * last ')'. */
static long process_group_of(long pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *close_paren = strrchr(buf, ')');
    char state;
    long ppid, pgrp;
    if (!close_paren || sscanf(close_paren + 1, " %c %ld %ld", &state, &ppid, &pgrp) != 3)
        return -1;
    return pgrp;
}

/* After an exec: worker's HELLO, every process of its group may grow its
 * address space by memory_mb beyond what it has then.  Relative, as
 * broadcheck-worker's own limit is, because runtimes reserve address space
 * at start (Node about 700 MB, a JVM its whole heap) that an absolute limit
 * would count against them; and after the HELLO, so that the reservation
 * is made by then.  A process it cannot limit keeps only the resident-
 * memory watchdog. */
static void limit_group_address_space(const bc_proc *p)
{
    DIR *d = opendir("/proc");
    if (!d)
        return;
    const rlim_t page = (rlim_t)sysconf(_SC_PAGESIZE);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0 || process_group_of(pid) != (long)p->pid)
            continue;
        unsigned long pages, resident;
        if (!statm_of(pid, &pages, &resident))
            continue;
        rlim_t bytes = (rlim_t)pages * page + ((rlim_t)p->memory_mb << 20);
        struct rlimit lim = {bytes, bytes};
        prlimit((pid_t)pid, RLIMIT_AS, &lim, NULL);
    }
    closedir(d);
}

/* ---- start ------------------------------------------------------------------ */

static int pipe_pair(int fds[2])
{
    return pipe2(fds, O_CLOEXEC);
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* ---- the spawner thread ------------------------------------------------------ */

struct bc_spawner {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    int stopping, busy, finished;
    /* the request in hand */
    const bc_proc_launch *launch;
    int fds[3];
    pid_t pid;
    int err;
};

static void *spawner_main(void *arg)
{
    bc_spawner *s = arg;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (!s->launch && !s->stopping)
            pthread_cond_wait(&s->wake, &s->lock);
        if (!s->launch)
            break;
        pid_t harness = getpid();
        s->pid = fork();
        if (s->pid == 0)
            child(s->launch, harness, s->fds[0], s->fds[1], s->fds[2]);
        s->err = errno;
        s->launch = NULL;
        s->finished = 1;
        pthread_cond_broadcast(&s->done);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

bc_spawner *bc_spawner_start(char *why, size_t cap)
{
    bc_spawner *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(why, cap, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->wake, NULL);
    pthread_cond_init(&s->done, NULL);
    /* No signal is handled on this thread: the harness's handlers run on
     * the others (the children reset their mask before exec anyway). */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int e = pthread_create(&s->thread, NULL, spawner_main, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (e != 0) {
        snprintf(why, cap, "cannot start the thread that starts workers: %s", strerror(e));
        pthread_mutex_destroy(&s->lock);
        pthread_cond_destroy(&s->wake);
        pthread_cond_destroy(&s->done);
        free(s);
        return NULL;
    }
    return s;
}

void bc_spawner_stop(bc_spawner *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    s->stopping = 1;
    pthread_cond_broadcast(&s->wake);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->wake);
    pthread_cond_destroy(&s->done);
    free(s);
}

/* Forks (on the spawner thread) a child running l with fds as 0, 1, 2. */
static pid_t spawner_fork(bc_spawner *s, const bc_proc_launch *l, const int fds[3])
{
    pthread_mutex_lock(&s->lock);
    while (s->busy)
        pthread_cond_wait(&s->done, &s->lock);
    s->busy = 1;
    s->finished = 0;
    s->launch = l;
    memcpy(s->fds, fds, sizeof s->fds);
    pthread_cond_signal(&s->wake);
    while (!s->finished)
        pthread_cond_wait(&s->done, &s->lock);
    pid_t pid = s->pid;
    int err = s->err;
    s->busy = 0;
    pthread_cond_broadcast(&s->done);
    pthread_mutex_unlock(&s->lock);
    errno = err;
    return pid;
}

static bc_proc *spawn(const bc_proc_launch *l, char *why, size_t cap)
{
    bc_proc *p = calloc(1, sizeof *p);
    int q[2] = {-1, -1}, a[2] = {-1, -1}, e[2] = {-1, -1};
    if (!p || pipe_pair(q) || pipe_pair(a) || pipe_pair(e)) {
        snprintf(why, cap, "cannot create pipes for a worker: %s", strerror(errno));
        goto fail;
    }
    const int fds[3] = {q[0], a[1], e[1]};
    p->pid = spawner_fork(l->spawner, l, fds);
    if (p->pid < 0) {
        snprintf(why, cap, "cannot fork a worker: %s", strerror(errno));
        goto fail;
    }
    setpgid(p->pid, p->pid); /* also here: no race with an early kill */
    close(q[0]);
    close(a[1]);
    close(e[1]);
    p->to_fd = q[1];
    p->from_fd = a[0];
    p->err_fd = e[0];
    p->cancel_fd = l->cancel_fd;
    p->memory_mb = l->memory_mb;
    fcntl(p->to_fd, F_SETFL, O_NONBLOCK);
    fcntl(p->from_fd, F_SETFL, O_NONBLOCK);
    fcntl(p->err_fd, F_SETFL, O_NONBLOCK);
    return p;
fail:
    for (int i = 0; i < 2; i++) {
        close_fd(&q[i]);
        close_fd(&a[i]);
        close_fd(&e[i]);
    }
    free(p);
    return NULL;
}

/* 1 if the SUT's cancel fd says every question must stop. */
static int cancelled(const bc_proc *p)
{
    struct pollfd c = {p->cancel_fd, POLLIN, 0};
    return p->cancel_fd >= 0 && poll(&c, 1, 0) > 0;
}

/* The fds a wait watches: fd (for events), the stderr pipe, the cancel fd.
 * Returns the count; *err_at / *cancel_at get their index or -1. */
static int watch_set(const bc_proc *p, int fd, short events, struct pollfd fds[3], int *err_at,
                     int *cancel_at)
{
    int n = 0;
    fds[n++] = (struct pollfd){fd, events, 0};
    *err_at = *cancel_at = -1;
    if (p->err_fd >= 0) {
        *err_at = n;
        fds[n++] = (struct pollfd){p->err_fd, POLLIN, 0};
    }
    if (p->cancel_fd >= 0) {
        *cancel_at = n;
        fds[n++] = (struct pollfd){p->cancel_fd, POLLIN, 0};
    }
    return n;
}

/* Reads until one whole frame is buffered or the deadline passes.  Returns
 * 0 with the header, or -1 with the fault (the worker is then killed). */
static int receive(bc_proc *p, double deadline, int timeout_ms, size_t max_len,
                   const char *waiting_for, bc_wire_header *h, const unsigned char **payload,
                   char *why, size_t cap)
{
    if (p->in_used) { /* drop the previous frame */
        memmove(p->in, p->in + p->in_used, p->in_len - p->in_used);
        p->in_len -= p->in_used;
        p->in_used = 0;
    }
    if (p->in_len == 0 && p->in_cap > 1u << 20) { /* a big answer's buffer is not kept */
        free(p->in);
        p->in = NULL;
        p->in_cap = 0;
    }
    int status;
    struct rusage ru;
    char diag[512];
    for (;;) {
        int got = bc_wire_split(p->in, p->in_len, h, payload, diag, sizeof diag);
        if (got == 1) {
            p->in_used = BC_WIRE_HEADER_SIZE + h->length;
            return 0;
        }
        if (got < 0) {
            kill_and_reap(p, &status, &ru);
            snprintf(why, cap, "protocol error: %s", diag);
            p->fault = BC_PROC_PROTOCOL;
            return -1;
        }
        if (p->in_len >= BC_WIRE_HEADER_SIZE && h->length > max_len) {
            kill_and_reap(p, &status, &ru);
            snprintf(why, cap, "protocol error: an %s frame of %u bytes %s, more than the %zu "
                     "it can need; refused unread", bc_wire_type_name(h->type), h->length,
                     waiting_for, max_len);
            p->fault = BC_PROC_PROTOCOL;
            return -1;
        }
        size_t want = BC_WIRE_HEADER_SIZE + (p->in_len >= BC_WIRE_HEADER_SIZE ? h->length : 0);
        if (want < p->in_len + 65536)
            want = p->in_len + 65536;
        if (want > p->in_cap) {
            unsigned char *grown = realloc(p->in, want);
            if (!grown) {
                kill_and_reap(p, &status, &ru);
                snprintf(why, cap, "out of memory reading the worker's answer");
                p->fault = BC_PROC_PROTOCOL;
                return -1;
            }
            p->in = grown;
            p->in_cap = want;
        }
        ssize_t n = read(p->from_fd, p->in + p->in_len, p->in_cap - p->in_len);
        if (n > 0) {
            p->in_len += (size_t)n;
            continue;
        }
        if (n == 0) { /* end of its output: it is exiting, or it closed stdout and lives on */
            char when[160];
            snprintf(when, sizeof when, "%s%s", waiting_for,
                     p->in_len ? " (in the middle of a frame)" : "");
            p->fault = BC_PROC_DIED;
            int left = (int)(deadline - now_ms());
            if (!reap_within(p, left > 500 ? left : 500, &status, &ru)) {
                kill_and_reap(p, &status, &ru);
                snprintf(why, cap, "worker closed its output %s", when);
                return -1;
            }
            describe_death(p, status, &ru, when, why, cap);
            return -1;
        }
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN) {
            kill_and_reap(p, &status, &ru);
            snprintf(why, cap, "cannot read from the worker: %s", strerror(errno));
            p->fault = BC_PROC_DIED;
            return -1;
        }
        double left = deadline - now_ms();
        if (left <= 0) {
            if (died_by_deadline(p, waiting_for, why, cap)) {
                p->fault = BC_PROC_DIED;
            } else {
                snprintf(why, cap, "no answer within %d ms %s; worker killed", timeout_ms,
                         waiting_for);
                p->fault = BC_PROC_TIMEOUT;
            }
            return -1;
        }
        struct pollfd fds[3];
        int err_at, cancel_at;
        int nfds = watch_set(p, p->from_fd, POLLIN, fds, &err_at, &cancel_at);
        int r = poll(fds, (nfds_t)nfds, left < WATCH_MS ? (int)left + 1 : WATCH_MS);
        if (r > 0 && cancel_at >= 0 && fds[cancel_at].revents) {
            kill_and_reap(p, &status, &ru);
            snprintf(why, cap, "the run was interrupted %s; worker killed", waiting_for);
            p->fault = BC_PROC_INTERRUPTED;
            return -1;
        }
        if (r > 0 && err_at >= 0 && fds[err_at].revents)
            drain_stderr(p);
        if (r == 0) { /* slow: is it growing past its limit? */
            unsigned long size, resident;
            int seen = statm_of(p->pid, &size, &resident);
            long mb = seen ? (long)(resident * (unsigned long)sysconf(_SC_PAGESIZE) >> 20) : 0;
            if (mb > p->memory_mb) {
                kill_and_reap(p, &status, &ru);
                p->fault = BC_PROC_DIED;
                snprintf(why, cap, "worker exceeded its memory limit of %d MB (%ld MB resident) "
                                   "%s; worker killed", p->memory_mb, mb, waiting_for);
                return -1;
            }
        }
    }
}

/* A HELLO or FATAL frame is small: names, a description, capabilities. */
#define MAX_HELLO (64u << 10)

bc_proc *bc_proc_start(const bc_proc_launch *launch, int timeout_ms, bc_wire_hello *hello,
                       bc_proc_fault *fault, char *why, size_t cap)
{
    bc_proc_fault ignored;
    if (!fault)
        fault = &ignored;
    *fault = BC_PROC_DIED;
    bc_proc *p = spawn(launch, why, cap);
    if (!p)
        return NULL;
    bc_wire_header h;
    const unsigned char *payload;
    char diag[1024];
    if (receive(p, now_ms() + timeout_ms, timeout_ms, MAX_HELLO, "before its HELLO", &h,
                &payload, why, cap) != 0) {
        *fault = p->fault;
        bc_proc_kill(p);
        return NULL;
    }
    *fault = BC_PROC_PROTOCOL;
    int bad = 0;
    if (h.type == BC_WIRE_FATAL) {
        char message[BC_WIRE_MAX_MESSAGE + 1];
        if (bc_wire_decode_fatal(payload, h.length, message, sizeof message, diag, sizeof diag))
            snprintf(why, cap, "protocol error: %s", diag);
        else
            snprintf(why, cap, "%s", message);
        bad = 1;
    } else if (h.type != BC_WIRE_HELLO) {
        snprintf(why, cap, "protocol error: the first frame is %s, expected HELLO",
                 bc_wire_type_name(h.type));
        bad = 1;
    } else if (bc_wire_decode_hello(payload, h.length, hello, diag, sizeof diag) != 0) {
        snprintf(why, cap, "protocol error: %s", diag);
        bad = 1;
    }
    if (bad) {
        bc_proc_kill(p);
        return NULL;
    }
    if (launch->limit_after_hello)
        limit_group_address_space(p);
    return p;
}

bc_wbuf *bc_proc_request(bc_proc *p, uint32_t *seq)
{
    *seq = ++p->seq;
    return &p->request;
}

/* Writes the request whole, or fails: a worker that stops reading is hung.
 * SIGPIPE is blocked in this thread for the write, so a dead worker gives
 * EPIPE here instead of killing the harness. */
static int send_request(bc_proc *p, double deadline, int timeout_ms, char *why, size_t cap)
{
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    int result = 0;
    for (size_t done = 0; done < p->request.len;) {
        ssize_t n = write(p->to_fd, p->request.data + done, p->request.len - done);
        if (n > 0) {
            done += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN) {
            double left = deadline - now_ms();
            if (left <= 0) {
                snprintf(why, cap, "the worker did not read its question within %d ms",
                         timeout_ms);
                p->fault = BC_PROC_TIMEOUT;
                result = -1;
                break;
            }
            struct pollfd fds[3];
            int err_at, cancel_at;
            int nfds = watch_set(p, p->to_fd, POLLOUT, fds, &err_at, &cancel_at);
            if (poll(fds, (nfds_t)nfds, (int)left + 1) > 0) {
                if (cancel_at >= 0 && fds[cancel_at].revents) {
                    snprintf(why, cap, "the run was interrupted while the worker was sent its "
                             "question; worker killed");
                    p->fault = BC_PROC_INTERRUPTED;
                    result = -1;
                    break;
                }
                if (err_at >= 0 && fds[err_at].revents)
                    drain_stderr(p);
            }
            continue;
        }
        result = n < 0 && errno == EPIPE ? 1 : -1;
        if (result < 0) {
            snprintf(why, cap, "cannot write to the worker: %s", strerror(errno));
            p->fault = BC_PROC_DIED;
        }
        break;
    }
    if (result == 1 && !sigismember(&old, SIGPIPE)) {
        struct timespec zero = {0, 0};
        sigtimedwait(&pipe_set, NULL, &zero); /* the pending SIGPIPE of that write */
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return result;
}

int bc_proc_ask(bc_proc *p, int timeout_ms, size_t max_answer, const unsigned char **payload,
                size_t *len, char *why, size_t cap)
{
    int status;
    struct rusage ru;
    if (cancelled(p)) {
        kill_and_reap(p, &status, &ru);
        snprintf(why, cap, "the run was interrupted before the question was sent");
        p->fault = BC_PROC_INTERRUPTED;
        return -1;
    }
    double deadline = now_ms() + timeout_ms;
    int sent = send_request(p, deadline, timeout_ms, why, cap);
    if (sent < 0) {
        kill_and_reap(p, &status, &ru);
        return -1;
    }
    /* On EPIPE the worker is gone: receive reads its end and says why. */
    bc_wire_header h;
    if (receive(p, deadline, timeout_ms, max_answer, "while answering", &h, payload, why,
                cap) != 0)
        return -1;
    p->fault = BC_PROC_PROTOCOL;
    if (h.type != BC_WIRE_ANSWER || h.seq != p->seq) {
        kill_and_reap(p, &status, &ru);
        if (h.type != BC_WIRE_ANSWER)
            snprintf(why, cap, "protocol error: expected an ANSWER frame, got %s",
                     bc_wire_type_name(h.type));
        else
            snprintf(why, cap, "protocol error: the ANSWER is for question %u, expected %u",
                     h.seq, p->seq);
        return -1;
    }
    /* One question, one answer: anything after it, buffered already or
     * waiting in the pipe, is this question's fault, not the next one's. */
    char probe[64];
    ssize_t more = (ssize_t)(p->in_len - p->in_used);
    if (more == 0)
        while ((more = read(p->from_fd, probe, sizeof probe)) < 0 && errno == EINTR)
            continue;
    if (more > 0) {
        kill_and_reap(p, &status, &ru);
        snprintf(why, cap, "protocol error: the worker sent more bytes after its ANSWER (a "
                 "second frame?)");
        return -1;
    }
    p->fault = BC_PROC_OK;
    *len = h.length;
    return 0;
}

bc_proc_fault bc_proc_fault_of(const bc_proc *p)
{
    return p->fault;
}

int bc_proc_fit(bc_proc *p)
{
    if (p->pid <= 0 || cancelled(p))
        return 0;
    struct pollfd f = {p->from_fd, POLLIN, 0};
    return poll(&f, 1, 0) == 0; /* readable: a frame nobody asked for, or its end */
}

static void release(bc_proc *p)
{
    close_fd(&p->to_fd);
    close_fd(&p->from_fd);
    close_fd(&p->err_fd);
    bc_wbuf_free(&p->request);
    free(p->in);
    free(p);
}

void bc_proc_kill(bc_proc *p)
{
    if (!p)
        return;
    if (p->pid > 0) {
        int status;
        struct rusage ru;
        kill_and_reap(p, &status, &ru);
    }
    release(p);
}

void bc_proc_stop(bc_proc *p)
{
    if (!p)
        return;
    close_fd(&p->to_fd); /* end of questions: the worker exits */
    int status;
    struct rusage ru;
    if (p->pid > 0 && !reap_within(p, STOP_GRACE_MS, &status, &ru))
        kill_and_reap(p, &status, &ru);
    release(p);
}
