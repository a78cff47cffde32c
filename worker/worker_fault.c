/*
 * Faults in guarded memory (guard/guard.h): a SIGSEGV or SIGBUS whose address
 * is in a gap around one of the question's buffers is named for what it was,
 * an out-of-bounds read of input 2 or a wild write past the output, instead
 * of a bare "killed by SIGSEGV".  On the thread that called the adapter the
 * handler jumps back to bc_worker_guarded_call, which answers the fault and
 * retires the worker; on a thread of the adapter's own it writes the name to
 * stderr (the harness quotes it) and lets the signal kill the worker.  Any
 * other fault goes to the handler that was there before (the default, or a
 * sanitizer's), as if this one did not exist.
 *
 * A signal handler has only file-scope variables to find things with, so
 * this file keeps the one piece of mutable state of broadcheck-worker: what
 * the current question watches.  The worker answers one question at a time.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "worker.h"

static struct {
    const bc_guard_pool *pool; /* NULL outside a guarded call */
    sigjmp_buf escape;
    pid_t thread;              /* the thread inside bc_worker_guarded_call */
    bc_worker_fault fault;     /* what the handler saw */
    struct sigaction previous[2]; /* SIGSEGV, SIGBUS */
} watch;

static pid_t thread_id(void)
{
    return (pid_t)syscall(SYS_gettid);
}

/* 1 write, 0 read, -1 unknown (the page-fault error code, where the CPU gives one). */
static int was_write(const void *context)
{
#if defined(__x86_64__)
    const ucontext_t *uc = context;
    return (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#else
    (void)context;
    return -1;
#endif
}

static void on_fault(int sig, siginfo_t *info, void *context)
{
    int slot = sig == SIGBUS;
    bc_worker_fault f;
    if (watch.pool &&
        bc_guard_find(watch.pool, info->si_addr, &f.label, &f.after, &f.distance)) {
        f.write = was_write(context);
        if (thread_id() == watch.thread) {
            watch.fault = f;
            watch.pool = NULL;
            siglongjmp(watch.escape, 1);
        }
        char line[300];
        bc_worker_fault_describe(&f, NULL, line, sizeof line);
        char text[340];
        int n = snprintf(text, sizeof text, "broadcheck-worker: ERROR: %s (in a thread of the "
                                            "adapter)\n", line);
        if (n > 0 && write(2, text, (size_t)n) < 0)
            n = 0; /* nothing else to do: the signal kills the worker next */
    }
    /* Not ours: the fault is the previous handler's to report. */
    sigaction(sig, &watch.previous[slot], NULL);
}

/* on_fault for sig; the handler it replaces into *previous. */
static void put_ours(int sig, struct sigaction *previous)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, previous);
}

void bc_worker_fault_install(void)
{
    put_ours(SIGSEGV, &watch.previous[0]);
    put_ours(SIGBUS, &watch.previous[1]);
}

/* An adapter may install a SIGSEGV handler of its own in any call (a
 * runtime it embeds, a crash reporter): the next fault in a guard gap
 * went to it, and the worker died or hung instead of naming the access.
 * Ours goes back in front, with theirs as the one a fault not in a gap is
 * passed to. */
static void keep_handlers(void)
{
    static const int sigs[2] = {SIGSEGV, SIGBUS};
    for (int slot = 0; slot < 2; slot++) {
        struct sigaction now;
        if (sigaction(sigs[slot], NULL, &now) == 0 &&
            !((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_fault))
            put_ours(sigs[slot], &watch.previous[slot]);
    }
}

int bc_worker_guarded_call(const bc_guard_pool *pool, void (*fn)(void *), void *arg,
                           bc_worker_fault *fault)
{
    keep_handlers();
    watch.thread = thread_id();
    if (sigsetjmp(watch.escape, 1)) {
        *fault = watch.fault;
        return 1;
    }
    watch.pool = pool;
    fn(arg);
    watch.pool = NULL;
    return 0;
}

void bc_worker_fault_describe(const bc_worker_fault *f, const char *what, char *buf, size_t cap)
{
    static const char *const kinds[] = {"out-of-bounds access", "out-of-bounds read",
                                        "wild write"};
    static const char *const verbs[] = {"touched", "read", "wrote"};
    char name[32];
    if (f->label >= 0)
        snprintf(name, sizeof name, "input %d", f->label);
    else
        snprintf(name, sizeof name, "its output buffer");
    snprintf(buf, cap, "%s: the adapter %s %zu bytes %s %s%s%s%s", kinds[f->write + 1],
             verbs[f->write + 1], f->distance, f->after ? "past the end of" : "before the start of",
             name, what ? " (" : "", what ? what : "", what ? ")" : "");
}
