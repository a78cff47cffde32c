/*
 * broadcheck-worker PATH.so: serves one adapter library over the wire
 * protocol on stdin/stdout, so that the adapter's code (its constructors
 * too) only ever runs in this process, never in the harness
 * (docs/ISOLATION.md).  The harness starts one per concurrent question
 * and a new one after every fault.
 *
 *   broadcheck-worker [--memory-mb N] PATH
 *   broadcheck-worker [--memory-mb N] --builtin NAME
 *
 * --builtin serves a built-in SUT (the reference, a mutant) the same way, so
 * that `--sut 'exec:broadcheck-worker --builtin NAME'` checks it out of
 * process, through everything an adapter goes through.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fenv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../wire/wire.h"
#include "worker.h"

/* Everything the worker writes goes through here; fd 1 no longer is the
 * stream (see main), so an adapter's printf cannot corrupt it. */
static int send_frame(int fd, const bc_wbuf *b)
{
    if (b->failed)
        return -1;
    for (size_t done = 0; done < b->len;) {
        ssize_t n = write(fd, b->data + done, b->len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        done += (size_t)n;
    }
    return 0;
}

static int fatal(int fd, const char *message)
{
    bc_wbuf b = {0};
    bc_wire_encode_fatal(&b, message);
    send_frame(fd, &b);
    bc_wbuf_free(&b);
    fprintf(stderr, "broadcheck-worker: %s\n", message);
    return 2;
}

/* Limits the address space to what it is now plus mb: relative, because an
 * AddressSanitizer build has terabytes reserved before main. */
static void limit_memory(long mb)
{
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none); /* a crashing adapter must not write cores */
    if (mb <= 0)
        return;
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (f) {
        if (fscanf(f, "%lu", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    struct rlimit old;
    if (getrlimit(RLIMIT_AS, &old) != 0)
        return;
    rlim_t want = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)mb << 20);
    if (old.rlim_max != RLIM_INFINITY && want > old.rlim_max)
        want = old.rlim_max;
    struct rlimit lim = {want, want};
    setrlimit(RLIMIT_AS, &lim);
}

/* Reads until one whole frame is buffered.  1 frame, 0 clean end of input,
 * -1 a malformed or cut-off frame (why set). */
static int read_frame(int fd, bc_wbuf *in, size_t *consumed, bc_wire_header *h,
                      const unsigned char **payload, char *why, size_t cap)
{
    if (*consumed) {
        memmove(in->data, in->data + *consumed, in->len - *consumed);
        in->len -= *consumed;
        *consumed = 0;
    }
    for (;;) {
        int got = bc_wire_split(in->data, in->len, h, payload, why, cap);
        if (got != 0) {
            if (got == 1)
                *consumed = BC_WIRE_HEADER_SIZE + h->length;
            return got;
        }
        size_t want = in->len < BC_WIRE_HEADER_SIZE ? BC_WIRE_HEADER_SIZE : BC_WIRE_HEADER_SIZE + h->length;
        if (want < in->len + 65536)
            want = in->len + 65536;
        if (want > in->cap) {
            unsigned char *grown = realloc(in->data, want);
            if (!grown) {
                snprintf(why, cap, "out of memory reading a frame");
                return -1;
            }
            in->data = grown;
            in->cap = want;
        }
        ssize_t n = read(fd, in->data + in->len, in->cap - in->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 && in->len == 0)
            return 0;
        if (n <= 0) {
            snprintf(why, cap, "the harness's stream ended inside a frame");
            return -1;
        }
        in->len += (size_t)n;
    }
}

int main(int argc, char **argv)
{
    long memory_mb = 0;
    int a = 1;
    if (a + 1 < argc && strcmp(argv[a], "--memory-mb") == 0) {
        memory_mb = strtol(argv[a + 1], NULL, 10);
        a += 2;
    }
    /* The protocol gets private copies of fds 0 and 1; the adapter's own
     * stdout goes to stderr and its stdin is empty.  The copies are
     * close-on-exec: a process the adapter starts must not hold the answer
     * pipe, or the harness would wait for its end after the worker died and
     * take a crash for a timeout. */
    int proto_in = fcntl(0, F_DUPFD_CLOEXEC, 3), proto_out = fcntl(1, F_DUPFD_CLOEXEC, 3);
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (proto_in < 0 || proto_out < 0 || null_fd < 0 || dup2(2, 1) < 0 || dup2(null_fd, 0) < 0)
        return fatal(1, "cannot set up its file descriptors");
    close(null_fd);
    int builtin = a + 1 < argc && strcmp(argv[a], "--builtin") == 0;
    a += builtin;
    if (a != argc - 1)
        return fatal(proto_out, "usage: broadcheck-worker [--memory-mb N] "
                                "(PATH-TO-ADAPTER.so | --builtin NAME)");
    limit_memory(memory_mb);

    char why[1024];
    bc_worker_adapter ad;
    if ((builtin ? bc_worker_builtin(argv[a], &ad, why, sizeof why)
                 : bc_worker_load(argv[a], &ad, why, sizeof why)) != 0)
        return fatal(proto_out, why);
    /* The floating-point environment every call starts from: the one the
     * library left when loaded (a library built with -ffast-math sets
     * flush-to-zero in its constructor, and means it).  An adapter that
     * changes it in a call (a rounding mode, flush-to-zero) and leaves it
     * would compute its later answers differently, and only in this
     * process: a failure found there would not reproduce in the fresh
     * worker of its replay.  The calling thread's only: threads the
     * adapter started keep theirs. */
    fenv_t fp_env;
    fegetenv(&fp_env);
    bc_wbuf out = {0}, in = {0};
    bc_wire_hello hello;
    bc_worker_hello(&ad, &hello);
    bc_wire_encode_hello(&out, &hello);
    int status = send_frame(proto_out, &out) == 0 ? 0 : 1;

    bc_wire_question *q = malloc(sizeof *q);
    bc_wire_answer *ans = malloc(sizeof *ans);
    bc_wire_pquestion *pq = malloc(sizeof *pq);
    bc_wire_panswer *pans = malloc(sizeof *pans);
    bc_guard_pool *pool = bc_guard_pool_new(); /* every question's buffers */
    size_t consumed = 0;
    if (!q || !ans || !pq || !pans || !pool)
        status = fatal(proto_out, "out of memory");
    bc_worker_fault_install();
    while (status == 0) {
        bc_wire_header h;
        const unsigned char *payload;
        int got = read_frame(proto_in, &in, &consumed, &h, &payload, why, sizeof why);
        if (got == 0)
            break; /* the harness is done with us */
        if (got > 0 && h.type == BC_WIRE_PSHAPE) { /* protocol 2: a partial-shape question */
            if (bc_wire_decode_pquestion(payload, h.length, pq, why, sizeof why)) {
                status = fatal(proto_out, why);
                break;
            }
            bc_worker_panswer(&ad, pq, pans);
            fesetenv(&fp_env);
            bc_wire_encode_panswer(&out, h.seq, pans);
            if (send_frame(proto_out, &out) != 0)
                status = 1;
            continue;
        }
        if (got < 0 || bc_wire_decode_question(h.type, payload, h.length, q, why, sizeof why)) {
            status = fatal(proto_out, why);
            break;
        }
        if (q->shm && bc_worker_shm_map(q, why, sizeof why) != 0) {
            memset(ans, 0, sizeof *ans); /* no room to map it: not the adapter's doing */
            ans->status = BC_SUT_UNSUPPORTED;
            snprintf(ans->message, sizeof ans->message, "%s", why);
        } else {
            bc_worker_answer(&ad, pool, q, ans);
            fesetenv(&fp_env);
        }
        bc_wire_encode_answer(&out, h.seq, ans); /* an EVAL_SHM answer's output is in the file */
        bc_worker_shm_unmap(q);
        if (send_frame(proto_out, &out) != 0)
            status = 1;
        else if (ans->flags & BC_WIRE_RETIRE)
            break;
    }
    free(q);
    free(ans);
    free(pq);
    free(pans);
    bc_guard_pool_free(pool);
    bc_wbuf_free(&out);
    bc_wbuf_free(&in);
    bc_worker_unload(&ad);
    return status;
}
