/* Private to broadcheck-worker: an adapter library, loaded and checked, and
 * how a decoded question becomes a call to it. */
#ifndef BROADCHECK_WORKER_H
#define BROADCHECK_WORKER_H

#include <stddef.h>

#include "../guard/guard.h"
#include "../wire/wire.h"

typedef struct bc_worker_adapter {
    void *library;          /* dlopen handle */
    const bc_adapter *desc; /* checked */
} bc_worker_adapter;

/* dlopens path, finds the entry symbol and checks the descriptor (ABI
 * version, size, name, capabilities, functions).  Returns 0, or -1 with a
 * one-line reason naming path. */
int bc_worker_load(const char *path, bc_worker_adapter *ad, char *why, size_t cap);
void bc_worker_unload(bc_worker_adapter *ad);
/* A built-in SUT (broadcheck list suts) behind the ABI, for --builtin: it
 * declares everything, as in process.  Returns 0, or -1 with why. */
int bc_worker_builtin(const char *name, bc_worker_adapter *ad, char *why, size_t cap);

/* The BC_ADAPTER_PARTIAL_* a descriptor declares (0 for an old one). */
uint32_t bc_worker_partial(const bc_adapter *d);

/* A partial-shape question to the adapter, its answer checked into a. */
void bc_worker_panswer(const bc_worker_adapter *ad, const bc_wire_pquestion *q,
                       bc_wire_panswer *a);

/* The HELLO that declares the adapter. */
void bc_worker_hello(const bc_worker_adapter *ad, bc_wire_hello *hello);

/* Asks the adapter q and fills a.  The inputs and the output live in pool
 * (guard.h: reset here, so a->out is valid until the next call).  A fault
 * the worker can see (a write into the poison around the output, an access
 * in a guard gap, an answer out of range) becomes an internal error; one
 * that may have damaged the worker also sets BC_WIRE_RETIRE. */
void bc_worker_answer(const bc_worker_adapter *ad, bc_guard_pool *pool, const bc_wire_question *q,
                      bc_wire_answer *a);

/* ---- shared-file questions (worker_shm.c) ------------------------------ */

/* Maps q's shared file (EVAL_SHM) and points each input's bytes and
 * q->shm_map into it.  0, or -1 with why. */
int bc_worker_shm_map(bc_wire_question *q, char *why, size_t cap);
void bc_worker_shm_unmap(bc_wire_question *q);
/* 1 if the output's guard bytes in the file are all still poison. */
int bc_worker_shm_guard_intact(const bc_wire_question *q);

/* ---- faults in guarded memory (worker_fault.c) ------------------------- */

typedef struct bc_worker_fault {
    int label;       /* the buffer's: the input index, -1 the output */
    int after;       /* 1 past its end, 0 before its start */
    size_t distance; /* bytes from that edge */
    int write;       /* 1 a write, 0 a read, -1 unknown */
} bc_worker_fault;

/* Installs the SIGSEGV/SIGBUS handler, keeping the previous one for faults
 * outside guarded memory.  Once, at start. */
void bc_worker_fault_install(void);
/* fn(arg), watching pool's gaps: returns 0, or 1 with *fault when fn faulted
 * in one (fn did not return; the adapter's state is suspect). */
int bc_worker_guarded_call(const bc_guard_pool *pool, void (*fn)(void *), void *arg,
                           bc_worker_fault *fault);
/* "out-of-bounds read: the adapter read 4 bytes past the end of input 1 (what)". */
void bc_worker_fault_describe(const bc_worker_fault *f, const char *what, char *buf, size_t cap);

#endif
