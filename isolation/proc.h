/*
 * Private to isolation/: one worker process and the frames
 * exchanged with it.  Everything a worker can do wrong (die, hang, grow
 * past its memory limit, write junk) ends here as a one-line diagnosis; the
 * caller then frees the process and starts another for the next question.
 */
#ifndef BROADCHECK_PROC_H
#define BROADCHECK_PROC_H

#include <stddef.h>
#include <stdint.h>

#include "../wire/wire.h"

typedef struct bc_proc bc_proc;

/* What went wrong with a question (or a start). */
typedef enum bc_proc_fault {
    BC_PROC_OK,
    BC_PROC_TIMEOUT,     /* no answer in time (or the question was not read) */
    BC_PROC_DIED,        /* the worker died, closed its output, or was killed for memory */
    BC_PROC_PROTOCOL,    /* a malformed, oversized, unexpected or surplus frame */
    BC_PROC_INTERRUPTED  /* the harness stopped every question (bc_proc_launch.cancel_fd) */
} bc_proc_fault;

/* A thread that forks every worker of a SUT, so that each worker's
 * parent-death signal (PR_SET_PDEATHSIG: SIGKILL when the harness dies)
 * fires only when the harness ends, never when the thread that happened
 * to start it does (a --jobs thread, which exits before the run is over). */
typedef struct bc_spawner bc_spawner;
bc_spawner *bc_spawner_start(char *why, size_t cap);
void bc_spawner_stop(bc_spawner *s); /* after every worker it started is gone */

typedef struct bc_proc_launch {
    char *const *argv;  /* executed as is: argv[0] is a path */
    char *const *env;   /* the worker's environment; NULL: the harness's */
    int memory_mb;      /* resident limit the harness watches; > 0 */
    int limit_after_hello; /* exec: workers: after the HELLO, limit the address space of
                              every process in the worker's group to its size then plus
                              memory_mb (broadcheck-worker sets the same on itself) */
    bc_spawner *spawner;   /* forks the workers */
    int cancel_fd;         /* >= 0: readable once every question must stop (an interrupt):
                              a question in flight is cut short, its worker killed */
} bc_proc_launch;

/* Starts a worker and reads its HELLO within timeout_ms.  Returns NULL
 * with why (a FATAL frame's message, an exec failure, a bad HELLO, ...)
 * and *fault (may be NULL). */
bc_proc *bc_proc_start(const bc_proc_launch *launch, int timeout_ms, bc_wire_hello *hello,
                       bc_proc_fault *fault, char *why, size_t cap);

/* The buffer to encode the next request into, and its sequence number. */
bc_wbuf *bc_proc_request(bc_proc *p, uint32_t *seq);

/* Sends the request and waits for the ANSWER with its sequence number, of
 * at most max_answer payload bytes (a longer frame is refused before it is
 * read: what a question can need bounds the harness's memory).  Returns 0
 * with the answer's payload (valid until the next call), or -1 with the
 * fault in why and bc_proc_fault_of; the worker is then dead and must be
 * freed.  Bytes after the ANSWER (a second frame) are this question's
 * protocol error. */
int bc_proc_ask(bc_proc *p, int timeout_ms, size_t max_answer, const unsigned char **payload,
                size_t *len, char *why, size_t cap);

/* The fault of the last failed bc_proc_start (via *fault) or bc_proc_ask. */
bc_proc_fault bc_proc_fault_of(const bc_proc *p);

/* An idle worker is fit for the next question: alive, and silent since
 * its last answer (a frame sent since then belongs to no question; the
 * worker is discarded instead of blaming the next one). */
int bc_proc_fit(bc_proc *p);

/* Kills the worker (if alive), reaps it and frees everything. */
void bc_proc_kill(bc_proc *p);
/* Ends a healthy worker: closes its input so it exits on its own, and
 * kills it if it has not within a short grace period. */
void bc_proc_stop(bc_proc *p);

#endif
